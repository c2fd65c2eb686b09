//! The fuzzing harness shared by `cargo test` (a short run with fixed
//! seeds, and every saved crash replayed) and the long run
//! `cargo run --release --example fuzz -- SECONDS`.
//!
//! Inputs are mutations of the examples, the error cases and the saved
//! corpus, made knowing the language's tokens, plus random bytes. Each is
//! run as `sprague run --json` with small limits, under a memory cap and a
//! time limit, and must end with exit code 0, 1 or 2, never a signal or a
//! hang, with every line of standard error a JSON report.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The limits every input runs under: small, so that a run takes at most
/// a few seconds.
pub const LIMITS: &[&str] = &[
    "--max-states",
    "5000",
    "--max-search",
    "5000",
    "--max-rows",
    "2000",
    "--max-draw",
    "60",
];

/// The memory a run may map (the evaluator's stack alone reserves 1 GiB).
const MEMORY_CAP: u64 = 3 << 30;

/// How long a run may take before it counts as a hang.
const TIME_LIMIT: Duration = Duration::from_secs(20);

/// The corpus's folder: crashes found are saved here, and replayed by
/// `cargo test`.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzzing/corpus")
}

/// The seed inputs: every example, error case and saved crash.
pub fn seeds() -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut seeds = Vec::new();
    for folder in [
        "examples",
        "examples/variants",
        "tests/errors",
        "tests/fuzzing/corpus",
    ] {
        let Ok(entries) = std::fs::read_dir(root.join(folder)) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| {
                path.extension()
                    .is_some_and(|extension| extension == "game")
            })
            .collect();
        paths.sort();
        seeds.extend(paths.iter().filter_map(|path| std::fs::read(path).ok()));
    }
    seeds
}

/// A small generator of pseudo-random numbers (xorshift64*), seeded so
/// that a run can be repeated.
pub struct Random(u64);

impl Random {
    pub fn new(seed: u64) -> Self {
        Random(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `bound` (which is not 0).
    pub fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Pieces of the language a mutation inserts.
const TOKENS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "+",
    "-",
    "*",
    "/",
    "%",
    ",",
    "..",
    "..=",
    "->",
    "=",
    "==",
    "<=",
    " game ",
    " graph ",
    " move ",
    " let ",
    " for ",
    " in ",
    " if ",
    " and ",
    " or ",
    " not ",
    " grundy ",
    " wins? ",
    " best_move ",
    " moves ",
    " play ",
    " period ",
    " diff ",
    " equal? ",
    " crosscheck ",
    " remoteness ",
    " genus ",
    " misere ",
    " draw ",
    " plot ",
    " to ",
    "\"x.svg\"",
    " octal \"0.77\"",
    " hexadecimal \"0.F\"",
    " subtraction {1, 3}",
    " all but {2}",
    "min(",
    "max(",
    "abs(",
    "isqrt(",
    "popcount(",
    "nim_mul(",
    "nim_inv(",
    "<<",
    ">>",
    "~",
    "&",
    "|",
    "^",
    " nim ",
    " why ",
    " strategy ",
    " = coins(n) { turn {m} for m in 0..n }",
    " = product T T",
    " turn ",
    "*0",
    "*1",
    "*(n - k)",
    "Kayles(4)",
    "G.a",
    "#",
    "\n",
    "\"",
    "!",
    "true",
    "false",
    "k",
    "n",
    "x",
    "_",
];

/// Numbers a mutation puts where a number was.
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "64",
    "1000",
    "100000",
    "4611686018427387904",
    "9223372036854775807",
    "-9223372036854775808",
    "99999999999999999999",
    "3037000500",
    "1000000000000000000",
];

/// One input: a seed changed a few times, or random bytes.
pub fn input(random: &mut Random, seeds: &[Vec<u8>]) -> Vec<u8> {
    if random.below(20) == 0 {
        let length = random.below(300);
        return (0..length).map(|_| random.next() as u8).collect();
    }
    let mut text = random.pick(seeds).clone();
    for _ in 0..1 + random.below(4) {
        mutate(random, &mut text, seeds);
    }
    text
}

fn mutate(random: &mut Random, text: &mut Vec<u8>, seeds: &[Vec<u8>]) {
    let at = random.below(text.len() + 1);
    match random.below(9) {
        // Cut a stretch out.
        0 => {
            let end = (at + random.below(40)).min(text.len());
            text.drain(at..end);
        }
        // A token of the language.
        1 | 2 => {
            let token = random.pick(TOKENS).as_bytes();
            text.splice(at..at, token.iter().copied());
        }
        // A number replaced by an extreme one.
        3 | 4 => {
            let digits: Vec<usize> = (0..text.len())
                .filter(|&i| text[i].is_ascii_digit())
                .collect();
            if digits.is_empty() {
                return;
            }
            let start = *random.pick(&digits);
            let end = (start..text.len())
                .find(|&i| !text[i].is_ascii_digit())
                .unwrap_or(text.len());
            let number = random.pick(NUMBERS).as_bytes();
            text.splice(start..end, number.iter().copied());
        }
        // A line of another seed.
        5 => {
            let other = random.pick(seeds);
            let lines: Vec<&[u8]> = other.split(|&byte| byte == b'\n').collect();
            let mut line = random.pick(&lines).to_vec();
            line.push(b'\n');
            text.splice(at..at, line);
        }
        // A line repeated.
        6 => {
            let start = text[..at]
                .iter()
                .rposition(|&byte| byte == b'\n')
                .map_or(0, |i| i + 1);
            let end = text[at..]
                .iter()
                .position(|&byte| byte == b'\n')
                .map_or(text.len(), |i| at + i);
            let mut line = text[start..end].to_vec();
            line.push(b'\n');
            let copies = 1 + random.below(3);
            for _ in 0..copies {
                text.splice(start..start, line.iter().copied());
            }
        }
        // Deep nesting.
        7 => {
            let depth = random.below(3000);
            let nested = format!("{}1{}", "(".repeat(depth), ")".repeat(depth));
            text.splice(at..at, nested.into_bytes());
        }
        // A random byte.
        _ => {
            let byte = random.next() as u8;
            text.insert(at, byte);
        }
    }
}

/// Runs one input through `program` (with `env` set), and says what went
/// wrong, if anything did.
pub fn check(program: &Path, env: &[(&str, &str)], input: &[u8]) -> Result<(), String> {
    let mut command = Command::new(program);
    command
        .args(["run", "--json"])
        .args(LIMITS)
        .arg("-")
        .envs(env.iter().copied())
        // Pictures an input asks for are written away from the checkout.
        .current_dir(std::env::temp_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    // SAFETY: setrlimit is async-signal-safe and touches only the child.
    unsafe {
        command.pre_exec(|| {
            let cap = libc::rlimit {
                rlim_cur: MEMORY_CAP,
                rlim_max: MEMORY_CAP,
            };
            libc::setrlimit(libc::RLIMIT_AS, &cap);
            Ok(())
        });
    }
    let mut child = command
        .spawn()
        .map_err(|error| format!("cannot run: {error}"))?;
    let mut stdin = child.stdin.take().expect("piped");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let mut stderr = child.stderr.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = stderr.read_to_end(&mut text);
        text
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|error| error.to_string())? {
            break status;
        }
        if started.elapsed() > TIME_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("no answer within {TIME_LIMIT:?}"));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let _ = writer.join();
    let errors = reader.join().unwrap_or_default();
    match status.code() {
        Some(0..=2) => {}
        Some(code) => return Err(format!("exit code {code}")),
        None => return Err(format!("ended by a signal: {status:?}")),
    }
    for line in String::from_utf8_lossy(&errors).lines() {
        if line.trim().is_empty() {
            continue;
        }
        if serde_json::from_str::<serde_json::Value>(line).is_err() {
            return Err(format!("standard error is not JSON: {line}"));
        }
    }
    Ok(())
}

/// Saves an input that failed, named by its content, for `cargo test` to
/// replay; returns where.
pub fn save(input: &[u8]) -> PathBuf {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in input {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3);
    }
    let path = corpus_dir().join(format!("crash-{hash:016x}.game"));
    let _ = std::fs::create_dir_all(corpus_dir());
    let _ = std::fs::write(&path, input);
    path
}
