//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod misere;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use sprague::engine::DEFAULT_MAX_STATES;
use sprague::output::{self, ErrorStyle};
use sprague::session::{Answer, Event, Session, Value};

/// The generalized Petersen graph P(n, k): an outer n-cycle, spokes, and
/// an inner cycle joining each node to the one k further on (as
/// examples/families.game declares it).
pub const PETERSEN: &str = "
graph Petersen(n, k) {
  nodes 0..2 * n
  edge i -- (i + 1) % n for i in 0..n
  edge i -- n + i for i in 0..n
  edge n + i -- n + (i + k) % n for i in 0..n
}
";

/// Answers as printed, to compare two runs' answers whole.
pub fn printed(answers: &[Answer]) -> Vec<String> {
    answers.iter().map(|answer| format!("{answer:?}")).collect()
}

/// The answers to a source's queries; any error fails the test, rendered.
pub fn answers(source: &str) -> Vec<Answer> {
    answers_in(Session::new(DEFAULT_MAX_STATES), source)
}

/// [`answers`] from a session of its own.
pub fn answers_in(mut session: Session, source: &str) -> Vec<Answer> {
    let mut answers = Vec::new();
    session.run("test.game", source, &mut |event| match event {
        Event::Answer(answer) => answers.push(answer),
        other @ (Event::Note(_) | Event::Play(_)) => panic!("unexpected {other:?}"),
        Event::Error(report) => panic!(
            "{}",
            output::error(
                &report,
                ErrorStyle::Graphical {
                    colour: false,
                    width: 80
                }
            )
        ),
    });
    answers
}

/// The values of a source's `grundy` queries, in order.
pub fn grundy_values(source: &str) -> Vec<u64> {
    grundy_values_in(Session::new(DEFAULT_MAX_STATES), source)
}

/// [`grundy_values`] from a session of its own.
pub fn grundy_values_in(session: Session, source: &str) -> Vec<u64> {
    answers_in(session, source)
        .into_iter()
        .map(|answer| match answer.value {
            Value::Grundy(value) => value,
            other => panic!("expected a grundy answer, got {other:?}"),
        })
        .collect()
}

/// The rows of a reference table: whitespace-separated integers, `#` comments.
pub fn table(path: &str) -> Vec<Vec<i64>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()))
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            line.split_whitespace()
                .map(|field| field.parse().unwrap())
                .collect()
        })
        .collect()
}

/// The `sprague` binary started with `args` in `dir`, its three streams
/// piped.
pub fn spawned(args: &[&str], dir: &Path) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_sprague"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Runs the `sprague` binary from the crate's folder with `stdin` piped in.
pub fn sprague(args: &[&str], stdin: &str) -> Output {
    let mut child = spawned(args, Path::new(env!("CARGO_MANIFEST_DIR")));
    // A command that fails before reading its input closes the pipe: that
    // is its answer, not the test's failure.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

/// Runs sprague with `args` in `dir`, `stdin` as its input, and sends it
/// `signal` once its first line is printed and `settle` has passed;
/// answers all it printed, what it wrote to standard error, and its exit
/// code.
pub fn signalled_after_the_first_line(
    args: &[&str],
    dir: &Path,
    stdin: &str,
    signal: libc::c_int,
    settle: std::time::Duration,
) -> (String, String, Option<i32>) {
    use std::io::{BufRead, BufReader, Read};
    let mut child = spawned(args, dir);
    let input = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    input.unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut printed = String::new();
    out.read_line(&mut printed).unwrap();
    std::thread::sleep(settle);
    let pid = child.id() as libc::pid_t;
    // SAFETY: the pid is our child's, not yet waited for.
    unsafe { libc::kill(pid, signal) };
    // A child that does not hear the signal is killed after a minute, so
    // the test fails (no exit code) instead of waiting for its end.
    let (heard, hear) = std::sync::mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        if hear
            .recv_timeout(std::time::Duration::from_secs(60))
            .is_err()
        {
            // SAFETY: the child is not reaped before `heard` is sent, so
            // the pid is still ours.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    });
    out.read_to_string(&mut printed).unwrap();
    let _ = heard.send(());
    watchdog.join().unwrap();
    let output = child.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&output.stderr).into_owned();
    (printed, said, output.status.code())
}

/// Runs every example file with `sprague run`, `extra` arguments added, and
/// checks that it succeeds and prints exactly the `.out` file beside it.
pub fn every_example_prints_its_expected_output(extra: &[&str]) {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut checked = 0;
    for entry in std::fs::read_dir(&examples).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|extension| extension != "game") {
            continue;
        }
        let expected_path = path.with_extension("out");
        let expected = std::fs::read_to_string(&expected_path)
            .unwrap_or_else(|_| panic!("{} has no expected output beside it", path.display()));
        let output = Command::new(env!("CARGO_BIN_EXE_sprague"))
            .arg("run")
            .args(extra)
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{} {extra:?} failed:\n{}",
            path.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            expected,
            "{} {extra:?}",
            path.display()
        );
        checked += 1;
    }
    assert!(checked >= 8, "only {checked} examples found");
}

/// Runs the `sprague` binary like [`sprague`], and also gives the peak
/// resident memory of that process, in kilobytes.
#[allow(clippy::zombie_processes, reason = "the child is reaped by wait4")]
pub fn sprague_with_peak_memory(args: &[&str], stdin: &str) -> (Option<i32>, i64) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sprague"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the pid is our child's, not yet waited for; both pointers are
    // to live locals.
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as libc::pid_t);
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    (code, usage.ru_maxrss)
}

/// Runs `sprague run ARGS -` on `source` with its address space capped at
/// `cap` bytes, as `prlimit --as` would.
#[cfg(target_os = "linux")]
pub fn run_capped_with(args: &[&str], source: &str, cap: u64) -> std::process::Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_sprague"));
    command
        .arg("run")
        .args(args)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cap_child(&mut command, Cap::AddressSpace(cap));
    let mut child = command.spawn().expect("sprague runs");
    let _ = child.stdin.take().unwrap().write_all(source.as_bytes());
    child.wait_with_output().unwrap()
}

/// A limit a child runs under, as `prlimit` sets it: bytes of address
/// space, or bytes a file may grow to.
#[cfg(unix)]
pub enum Cap {
    AddressSpace(u64),
    FileSize(u64),
}

/// Makes `command`'s child run under `cap`.
#[cfg(unix)]
pub fn cap_child(command: &mut Command, cap: Cap) {
    use std::os::unix::process::CommandExt;
    let (resource, bytes) = match cap {
        Cap::AddressSpace(bytes) => (libc::RLIMIT_AS, bytes),
        Cap::FileSize(bytes) => (libc::RLIMIT_FSIZE, bytes),
    };
    // SAFETY: setrlimit is async-signal-safe and touches only the child.
    unsafe {
        command.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            match libc::setrlimit(resource, &limit) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
    }
}

/// A region of an r × c grid, as the language writes it: the cells whose
/// bits are set.
pub fn region(rows: u32, cols: u32, mask: u64) -> String {
    let gone: Vec<String> = (0..rows * cols)
        .filter(|cell| mask & 1 << cell == 0)
        .map(|cell| cell.to_string())
        .collect();
    match gone.is_empty() {
        true => format!("Grid({rows}, {cols})"),
        false => format!("Grid({rows}, {cols}) - {{{}}}", gone.join(", ")),
    }
}
