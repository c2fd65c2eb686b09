//! sprague against hand-written baselines, measured side by side in one run.
//!
//! `cargo bench --bench speed` prints a table of medians and ratios;
//! `-- --smoke` runs every case at a tiny size, to check that the benchmark
//! works (CI does this; its times mean nothing); case letters (`-- a b`)
//! run those cases only.

use std::process::Command;
use std::time::{Duration, Instant};

use num_traits::PrimInt;

use sprague::engine::{DEFAULT_MAX_STATES, Gamma};
use sprague::session::why::Reason;
use sprague::session::{Event, Session, Value};

struct Sizes {
    kayles: usize,
    wythoff: usize,
    grundy: usize,
    grundy_large: usize,
    /// Grundy's game with one thread and with two.
    grundy_threads: usize,
    python: usize,
    memory: usize,
    /// Wythoff's table with the values seen along lines kept.
    wythoff_large: usize,
    /// `subtraction all but {…}` to n.
    all_but: usize,
    /// Node Kayles on 3 × n and Cram on rows × cols.
    node_kayles: usize,
    cram: (usize, usize),
    /// The three-heap game on n × n × n, the four-heap game on n⁴.
    three: usize,
    four: usize,
    /// Three-row Chomp with rows of n.
    chomp: usize,
    /// Cram boards against igsolve, and Node Kayles on 3 × n by search.
    peer_cram: &'static [(usize, usize)],
    node_kayles_search: usize,
    /// Node Kayles on P(n, 2), up to its symmetries and without.
    petersen: usize,
    /// Cram on rows × cols by search, on two threads and on one.
    search_threads: (usize, usize),
    /// Cram on rows × cols, `why` by the search.
    why: (usize, usize),
    runs: usize,
}

const FULL: Sizes = Sizes {
    kayles: 20_000,
    wythoff: 500,
    grundy: 100_000,
    grundy_large: 1_000_000,
    grundy_threads: 10_000_000,
    python: 2_000,
    memory: 100_000_000,
    wythoff_large: 1000,
    all_but: 50_000,
    node_kayles: 12,
    cram: (5, 6),
    three: 150,
    four: 32,
    chomp: 200,
    peer_cram: &[(3, 12), (5, 6), (4, 9), (5, 7), (4, 11)],
    node_kayles_search: 22,
    petersen: 27,
    search_threads: (5, 8),
    why: (5, 7),
    runs: 3,
};

const SMOKE: Sizes = Sizes {
    kayles: 200,
    wythoff: 20,
    grundy: 1_000,
    grundy_large: 2_000,
    grundy_threads: 20_000,
    python: 50,
    memory: 10_000,
    wythoff_large: 40,
    all_but: 500,
    node_kayles: 4,
    cram: (3, 4),
    three: 6,
    four: 4,
    chomp: 6,
    peer_cram: &[(3, 4)],
    node_kayles_search: 6,
    petersen: 9,
    search_threads: (3, 5),
    why: (3, 5),
    runs: 1,
};

fn main() {
    let mode = |flag: &str| std::env::args().any(|arg| arg == flag);
    let (sizes, label) = match mode("--smoke") {
        true => (SMOKE, " (smoke: tiny sizes, times mean nothing)"),
        false => (FULL, ""),
    };
    println!("sprague benchmark{label}: medians of {} runs", sizes.runs);
    println!(
        "{:<52} {:>12} {:>12} {:>9}  target",
        "case", "sprague", "baseline", "ratio"
    );
    let chosen: Vec<String> = std::env::args()
        .skip(1)
        .filter(|arg| !arg.starts_with('-'))
        .collect();
    // A case may answer to several letters (`e,h`).
    let run = |case: &str| {
        chosen.is_empty()
            || case
                .split(',')
                .any(|letter| chosen.iter().any(|arg| arg == letter))
    };
    // First: peak memory is read from the children this process has waited
    // for, so it must come before any other child (the Python script).
    let cases: [(&str, Case); 15] = [
        ("e,h", memory),
        ("a", kayles),
        ("b", wythoff),
        ("c", grundys_game),
        ("d", python),
        ("f", threads),
        ("g", prefix_sweeps),
        ("i", three_heaps),
        ("i", four_heaps),
        ("k", chomp),
        ("m", boards),
        ("n", peers),
        ("o", graph_symmetries),
        ("p", search_threads),
        ("w", why_by_witnesses),
    ];
    for (case, measure) in cases {
        if run(case) {
            measure(&sizes);
        }
    }
}

/// One case of the benchmark, measured at the given sizes.
type Case = fn(&Sizes);

fn median(runs: usize, mut run: impl FnMut() -> u64) -> (Duration, u64) {
    let mut times = Vec::new();
    let mut result = 0;
    for _ in 0..runs {
        let start = Instant::now();
        result = run();
        times.push(start.elapsed());
    }
    times.sort();
    (times[times.len() / 2], result)
}

/// The medians of two ways of doing one thing, run in turn, one and then
/// the other, so that a machine that slows down for a while slows both.
fn medians_in_turn(
    runs: usize,
    ours: impl FnMut() -> u64,
    theirs: impl FnMut() -> u64,
) -> ((Duration, u64), (Duration, u64)) {
    let ((ours, a), (theirs, b)) = times_in_turn(runs, ours, theirs);
    ((ours[runs / 2], a), (theirs[runs / 2], b))
}

/// The times of two ways of doing one thing, run in turn, each sorted.
fn times_in_turn(
    runs: usize,
    mut ours: impl FnMut() -> u64,
    mut theirs: impl FnMut() -> u64,
) -> ((Vec<Duration>, u64), (Vec<Duration>, u64)) {
    let (mut our_times, mut their_times) = (Vec::new(), Vec::new());
    let (mut a, mut b) = (0, 0);
    for _ in 0..runs {
        let start = Instant::now();
        a = ours();
        our_times.push(start.elapsed());
        let start = Instant::now();
        b = theirs();
        their_times.push(start.elapsed());
    }
    our_times.sort();
    their_times.sort();
    ((our_times, a), (their_times, b))
}

fn row(case: &str, ours: Duration, theirs: Duration, target: &str) {
    println!(
        "{case:<52} {:>10.3} s {:>10.3} s {:>8.4}x  {target}",
        ours.as_secs_f64(),
        theirs.as_secs_f64(),
        ours.as_secs_f64() / theirs.as_secs_f64()
    );
}

/// The value a source's last `grundy` query answers, in a fresh session.
fn language(source: &str) -> u64 {
    language_on(source, None)
}

/// The same, with the tables of codes filled by `threads` threads (every
/// core if none).
fn language_on(source: &str, threads: Option<usize>) -> u64 {
    let answer = last_answer(source, threads, |value| match value {
        Value::Grundy(value) => Some(value),
        // A move, by a hash of what it is, so that two runs compare.
        Value::BestMove(line) => Some(hashed(format!("{line:?}"))),
        _ => None,
    });
    answer.expect("the source asks for a value or a move")
}

/// What `read` makes of the last answer it reads of `source`, in a fresh
/// session with the tables of codes filled by `threads` threads (every
/// core if none).
fn last_answer(
    source: &str,
    threads: Option<usize>,
    mut read: impl FnMut(Value) -> Option<u64>,
) -> Option<u64> {
    let mut session = Session::new(DEFAULT_MAX_STATES);
    if let Some(threads) = threads {
        session.set_threads(threads);
    }
    let mut last = None;
    session.run("bench.game", source, &mut |event| match event {
        Event::Answer(answer) => last = read(answer.value).or(last),
        Event::Error(report) => panic!("{report:?}"),
        _ => {}
    });
    last
}

/// A hash of `value`, the same in every run.
fn hashed(value: impl std::hash::Hash) -> u64 {
    std::hash::BuildHasher::hash_one(
        &std::hash::BuildHasherDefault::<std::hash::DefaultHasher>::default(),
        value,
    )
}

const KAYLES: &str = "game K(n) { move K(a) + K(n - k - a) for k in 1..=2, a in 0..=n - k }";

/// Kayles by hand: a bitset mex over the XOR of the two heaps left.
fn kayles_by_hand(n: usize) -> u64 {
    let mut g = vec![0u64; n + 1];
    let mut seen = vec![0u64; n / 64 + 2];
    for m in 1..=n {
        seen.iter_mut().for_each(|word| *word = 0);
        for k in 1..=2.min(m) {
            for a in 0..=m - k {
                let v = (g[a] ^ g[m - k - a]) as usize;
                if v / 64 < seen.len() {
                    seen[v / 64] |= 1 << (v % 64);
                }
            }
        }
        g[m] = mex(&seen);
    }
    g[n]
}

fn mex(seen: &[u64]) -> u64 {
    let word = seen
        .iter()
        .position(|&word| word != u64::MAX)
        .unwrap_or(seen.len());
    (word * 64) as u64 + seen.get(word).map_or(0, |w| w.trailing_ones() as u64)
}

fn kayles(sizes: &Sizes) {
    let n = sizes.kayles;
    let source = format!("{KAYLES}\ngrundy K({n})");
    let (ours, a) = median(sizes.runs, || language(&source));
    let (theirs, b) = median(sizes.runs, || kayles_by_hand(n));
    assert_eq!(a, b, "Kayles({n})");
    row(
        &format!("(a) Kayles as rules, all values to n = {n}"),
        ours,
        theirs,
        "≤ 1.5x",
    );
}

const WYTHOFF: &str = "game W(a, b) {
    move W(a - k, b) for k in 1..=a
    move W(a, b - k) for k in 1..=b
    move W(a - k, b - k) for k in 1..=min(a, b)
}";

fn wythoff_by_hand(size: usize) -> u64 {
    let mut g = vec![vec![0u64; size]; size];
    let mut seen = vec![0u64; 3 * size / 64 + 2];
    for a in 0..size {
        for b in 0..size {
            seen.iter_mut().for_each(|word| *word = 0);
            let mut mark = |v: u64| seen[v as usize / 64] |= 1 << (v % 64);
            (0..a).for_each(|i| mark(g[i][b]));
            (0..b).for_each(|j| mark(g[a][j]));
            (1..=a.min(b)).for_each(|k| mark(g[a - k][b - k]));
            g[a][b] = mex(&seen);
        }
    }
    g[size - 1][size - 1]
}

/// Wythoff's table again, larger: every rule ranges over a whole prefix of
/// a row, a column or a diagonal, so the values seen along each line are
/// kept and grown, against the naive loop that reads every line again.
fn prefix_sweeps(sizes: &Sizes) {
    let size = sizes.wythoff_large;
    let source = format!("{WYTHOFF}\ngrundy W({last}, {last})", last = size - 1);
    let (ours, a) = median(sizes.runs, || language(&source));
    let (theirs, b) = median(sizes.runs, || wythoff_by_hand(size));
    assert_eq!(a, b, "Wythoff table");
    row(
        &format!("(g) Wythoff as rules, {size} x {size}, prefix sweeps"),
        ours,
        theirs,
        "≤ 0.1x",
    );
    let n = sizes.all_but;
    let source = format!("game A = subtraction all but {{{ALL_BUT}}}\ngrundy A({n})");
    let (ours, a) = median(sizes.runs, || language(&source));
    let (theirs, b) = median(sizes.runs, || all_but_by_hand(n));
    assert_eq!(a, b, "subtraction all but");
    row(
        &format!("(g) subtraction all but {{{ALL_BUT}}} to n = {n}"),
        ours,
        theirs,
        "≤ 0.1x",
    );
    // The same as a rule, its guard leaving the three removals out.
    let source = format!(
        "game R(n) {{ move R(n - k) for k in 1..=n if k != 2 and k != 5 and k != 11 }}\ngrundy R({n})"
    );
    let (ours, a) = median(sizes.runs, || language(&source));
    assert_eq!(a, b, "subtraction all but, as a rule");
    row(
        "(g) … as a rule, `k != 2 and k != 5 and k != 11`",
        ours,
        theirs,
        "≤ 0.1x",
    );
}

/// The removals `subtraction all but` leaves out in (g).
const ALL_BUT: &str = "2, 5, 11";

/// `subtraction all but {2, 5, 11}` by hand: every removal of every heap.
fn all_but_by_hand(n: usize) -> u64 {
    let mut g = vec![0u64; n + 1];
    let mut seen = vec![false; n + 2];
    for m in 1..=n {
        seen[..=m].iter_mut().for_each(|s| *s = false);
        for k in (1..=m).filter(|k| ![2, 5, 11].contains(k)) {
            seen[g[m - k] as usize] = true;
        }
        g[m] = seen.iter().position(|&s| !s).unwrap() as u64;
    }
    g[n]
}

fn wythoff(sizes: &Sizes) {
    let size = sizes.wythoff;
    let source = format!("{WYTHOFF}\ngrundy W({last}, {last})", last = size - 1);
    let (ours, a) = median(sizes.runs, || language(&source));
    let (theirs, b) = median(sizes.runs, || wythoff_by_hand(size));
    assert_eq!(a, b, "Wythoff table");
    row(
        &format!("(b) Wythoff as rules, the {size} x {size} table"),
        ours,
        theirs,
        "≤ 1.5x",
    );
}

/// Grundy's game by hand, naively: every split of every heap.
fn grundys_game_by_hand(n: usize) -> u64 {
    let mut g = vec![0u64; n + 1];
    let mut seen = vec![false; 1024];
    for m in 1..=n {
        seen.iter_mut().for_each(|s| *s = false);
        for a in 1..m.div_ceil(2) {
            seen[(g[a] ^ g[m - a]) as usize] = true;
        }
        g[m] = seen.iter().position(|&s| !s).unwrap() as u64;
    }
    g[n]
}

fn grundys_game(sizes: &Sizes) {
    let language = |n: usize| language(&format!("game G = octal \"4!.0\"\ngrundy G({n})"));
    let n = sizes.grundy;
    let (ours, a) = median(sizes.runs, || language(n));
    let (theirs, b) = median(sizes.runs, || grundys_game_by_hand(n));
    assert_eq!(a, b, "Grundy's game at {n}");
    row(
        &format!("(c) Grundy's game, octal \"4!.0\", to n = {n}"),
        ours,
        theirs,
        "≤ 0.05x",
    );
    let large = sizes.grundy_large;
    let (time, _) = median(1, || language(large));
    println!(
        "{:<52} {:>10.3} s {:>12} {:>9}  < 5 s",
        format!("(c) … to n = {large}"),
        time.as_secs_f64(),
        "",
        ""
    );
}

/// Grundy's game with two threads against the same with one: the
/// baseline is sprague itself.
fn threads(sizes: &Sizes) {
    let n = sizes.grundy_threads;
    let source = format!("game G = octal \"4!.0\"\ngrundy G({n})");
    let ((two, a), (one, b)) = times_in_turn(
        sizes.runs,
        || language_on(&source, Some(2)),
        || language_on(&source, Some(1)),
    );
    assert_eq!(a, b, "Grundy's game at {n}, one thread and two");
    let runs = sizes.runs;
    row(
        &format!("(f) Grundy's game to n = {n}, two threads vs one"),
        two[runs / 2],
        one[runs / 2],
        "≤ 0.59x (1.7x faster)",
    );
    // Other programs on a shared machine slow two threads more than one
    // (either thread losing its core holds up the table): the fastest
    // runs are the nearest to a quiet machine.
    row(
        &format!("(f) … the fastest of {runs} runs each"),
        two[0],
        one[0],
        "",
    );
    // A dense table solved as a box, a hyperplane at a time.
    let n = sizes.three;
    let source = three_heaps_source(n);
    two_threads_vs_one(
        sizes.runs,
        &source,
        &format!("(f) three heaps as rules, {n}³ (a box), two threads vs one"),
        "≤ 0.59x (1.7x faster)",
    );
}

/// A row of `source` answered on two threads against one, the medians of
/// `runs` in turn; both must give the same answer.
fn two_threads_vs_one(runs: usize, source: &str, case: &str, target: &str) {
    let ((two, a), (one, b)) = medians_in_turn(
        runs,
        || language_on(source, Some(2)),
        || language_on(source, Some(1)),
    );
    assert_eq!(a, b, "{case}: one thread and two disagree");
    row(case, two, one, target);
}

const CHOMP: &str = "game C3(a, b, c) {
  move C3(a - k, min(b, a - k), min(c, a - k)) for k in 1..=a - 1
  move C3(a, b - k, min(c, b - k)) for k in 1..=b
  move C3(a, b, c - k) for k in 1..=c
}";

/// Three-row Chomp by hand: rows a ≥ b ≥ c in a flat table, every option,
/// a byte-per-value mex.
fn chomp_by_hand(n: usize) -> u64 {
    let size = n + 1;
    let mut g = vec![0u16; size * size * size];
    let at = |a: usize, b: usize, c: usize| (a * size + b) * size + c;
    let mut seen = vec![false; 4 * size];
    for a in 1..size {
        for b in 0..=a {
            for c in 0..=b {
                seen.iter_mut().for_each(|s| *s = false);
                for x in 1..a {
                    seen[g[at(x, b.min(x), c.min(x))] as usize] = true;
                }
                for y in 0..b {
                    seen[g[at(a, y, c.min(y))] as usize] = true;
                }
                for z in 0..c {
                    seen[g[at(a, b, z)] as usize] = true;
                }
                g[at(a, b, c)] = seen.iter().position(|&s| !s).unwrap() as u16;
            }
        }
    }
    u64::from(g[at(n, n, n)])
}

/// Three-row Chomp as rules: its `min`s split each rule where the choice
/// changes, so every part is swept.
fn chomp(sizes: &Sizes) {
    let n = sizes.chomp;
    let source = format!("{CHOMP}\ngrundy C3({n}, {n}, {n})");
    let (ours, a) = median(sizes.runs, || language(&source));
    let (theirs, b) = median(sizes.runs, || chomp_by_hand(n));
    assert_eq!(a, b, "three-row Chomp");
    row(
        &format!("(k) three-row Chomp as rules, rows of {n}"),
        ours,
        theirs,
        "≤ 3x",
    );
}

fn python(sizes: &Sizes) {
    let n = sizes.python;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/bench/kayles.py");
    let source = format!("{KAYLES}\ngrundy K({n})");
    let (ours, a) = median(sizes.runs, || language(&source));
    let (theirs, b) = median(sizes.runs, || {
        let output = Command::new("python3")
            .args([script, &n.to_string()])
            .output()
            .expect("python3 runs");
        String::from_utf8_lossy(&output.stdout)
            .trim()
            .parse()
            .expect("the script prints a value")
    });
    assert_eq!(a, b, "Kayles({n}) against the Python script");
    row(
        &format!("(d) Kayles to n = {n}, against Python lru_cache"),
        ours,
        theirs,
        "≤ 0.01x",
    );
}

/// Peak memory of a child `sprague run` solving a game of `positions`
/// positions, less that of one solving a single position.
fn memory(sizes: &Sizes) {
    let side = (sizes.memory as f64).sqrt() as usize;
    let positions = side * side;
    let source = format!(
        "game Grid(a, b) {{\n  move Grid(a - 1, b) if a > 0\n  move Grid(a, b - 1) if b > 0\n}}\ngrundy Grid({last}, {last})\n",
        last = side - 1
    );
    let peak = |source: &str| -> u64 {
        let binary = env!("CARGO_BIN_EXE_sprague");
        let mut child = Command::new(binary)
            .args(["run", "--max-states", &(positions + 10).to_string(), "-"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("sprague runs");
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(source.as_bytes())
            .unwrap();
        child.wait().unwrap();
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: getrusage fills the struct it is given.
        unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
        usage.ru_maxrss as u64 * 1024
    };
    let baseline = peak("grundy *1\n");
    let full = peak(&source);
    let per = full.saturating_sub(baseline) as f64 / positions as f64;
    println!(
        "{:<52} {:>10.1} B {:>12} {:>9}  ≤ 4 B (e: ≤ 64 B)",
        format!("(e, h) peak memory per position, {positions} positions"),
        per,
        "",
        ""
    );
}

/// The three-heap game (one heap's tokens, or as many from two heaps) by
/// hand: a flat table, a bitset mex over every option.
fn three_heaps_by_hand(n: usize) -> u64 {
    let at = |a: usize, b: usize, c: usize| (a * n + b) * n + c;
    let mut values = vec![0u16; n * n * n];
    let mut seen = vec![0u64; (3 * n) / 64 + 1];
    for a in 0..n {
        for b in 0..n {
            for c in 0..n {
                seen.iter_mut().for_each(|word| *word = 0);
                let mut see = |value: u16| seen[value as usize / 64] |= 1 << (value % 64);
                (1..=a).for_each(|k| see(values[at(a - k, b, c)]));
                (1..=b).for_each(|k| see(values[at(a, b - k, c)]));
                (1..=c).for_each(|k| see(values[at(a, b, c - k)]));
                (1..=a.min(b)).for_each(|k| see(values[at(a - k, b - k, c)]));
                (1..=a.min(c)).for_each(|k| see(values[at(a - k, b, c - k)]));
                (1..=b.min(c)).for_each(|k| see(values[at(a, b - k, c - k)]));
                let word = seen.iter().position(|&word| word != u64::MAX).unwrap();
                values[at(a, b, c)] = (word * 64) as u16 + seen[word].trailing_ones() as u16;
            }
        }
    }
    u64::from(values[at(n - 1, n - 1, n - 1)])
}

/// The three-heap game on heaps below `n` as rules, asked at the far corner.
fn three_heaps_source(n: usize) -> String {
    format!(
        "game W3(a, b, c) {{
           move W3(a - k, b, c) for k in 1..=a
           move W3(a, b - k, c) for k in 1..=b
           move W3(a, b, c - k) for k in 1..=c
           move W3(a - k, b - k, c) for k in 1..=min(a, b)
           move W3(a - k, b, c - k) for k in 1..=min(a, c)
           move W3(a, b - k, c - k) for k in 1..=min(b, c)
         }}
         grundy W3({m}, {m}, {m})",
        m = n - 1
    )
}

fn three_heaps(sizes: &Sizes) {
    let n = sizes.three;
    let source = three_heaps_source(n);
    let (ours, a) = median(sizes.runs, || language(&source));
    let (theirs, b) = median(sizes.runs, || three_heaps_by_hand(n));
    assert_eq!(a, b, "three heaps to {n}");
    row(
        &format!("(i) three heaps as rules, {n} × {n} × {n}"),
        ours,
        theirs,
        "≤ 2x",
    );
}

/// The four-heap game (one heap's tokens, or as many from each of two
/// heaps) by hand: a flat table, a bitset mex over every option.
fn four_heaps_by_hand(n: usize) -> u64 {
    let at = |[a, b, c, d]: [usize; 4]| ((a * n + b) * n + c) * n + d;
    let mut values = vec![0u16; n * n * n * n];
    let mut seen = vec![0u64; (6 * n) / 64 + 1];
    let pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];
    for index in 0..n * n * n * n {
        let heaps = [
            index / (n * n * n),
            index / (n * n) % n,
            index / n % n,
            index % n,
        ];
        seen.iter_mut().for_each(|word| *word = 0);
        let mut see = |value: u16| seen[value as usize / 64] |= 1 << (value % 64);
        for i in 0..4 {
            for k in 1..=heaps[i] {
                let mut option = heaps;
                option[i] -= k;
                see(values[at(option)]);
            }
        }
        for (i, j) in pairs {
            for k in 1..=heaps[i].min(heaps[j]) {
                let mut option = heaps;
                option[i] -= k;
                option[j] -= k;
                see(values[at(option)]);
            }
        }
        let word = seen.iter().position(|&word| word != u64::MAX).unwrap();
        values[index] = (word * 64) as u16 + seen[word].trailing_ones() as u16;
    }
    u64::from(values[n * n * n * n - 1])
}

fn four_heaps(sizes: &Sizes) {
    let n = sizes.four;
    let source = format!(
        "game W4(a, b, c, d) {{
           move W4(a - k, b, c, d) for k in 1..=a
           move W4(a, b - k, c, d) for k in 1..=b
           move W4(a, b, c - k, d) for k in 1..=c
           move W4(a, b, c, d - k) for k in 1..=d
           move W4(a - k, b - k, c, d) for k in 1..=min(a, b)
           move W4(a - k, b, c - k, d) for k in 1..=min(a, c)
           move W4(a - k, b, c, d - k) for k in 1..=min(a, d)
           move W4(a, b - k, c - k, d) for k in 1..=min(b, c)
           move W4(a, b - k, c, d - k) for k in 1..=min(b, d)
           move W4(a, b, c - k, d - k) for k in 1..=min(c, d)
         }}
         grundy W4({m}, {m}, {m}, {m})",
        m = n - 1
    );
    let (ours, a) = median(sizes.runs, || language(&source));
    let (theirs, b) = median(sizes.runs, || four_heaps_by_hand(n));
    assert_eq!(a, b, "four heaps to {n}");
    row(
        &format!("(i) four heaps as rules, {n}⁴"),
        ours,
        theirs,
        "≤ 2x",
    );
}

/// A grid game solved by hand: positions are bitmasks of the cells left,
/// split into connected parts with shifts, each part moved to the top left
/// corner and memoised there. The masks are a word as wide as the board
/// needs (see [`by_hand`]).
struct BoardByHand<W> {
    cols: usize,
    full: W,
    first_col: W,
    last_col: W,
    memo: std::collections::HashMap<W, u64>,
    /// Whether a move takes a cell and its neighbours (Node Kayles), else
    /// two cells side by side (Cram).
    node_kayles: bool,
}

/// The value of a whole rows × cols board of Node Kayles (`node_kayles`)
/// or Cram, solved by hand in one word of 64 bits, or of 128 past 64 cells
/// (or a row of 64).
fn by_hand(rows: usize, cols: usize, node_kayles: bool) -> u64 {
    // A row as wide as the word would be shifted by the whole word.
    match (rows * cols, cols) {
        (..=64, ..64) => BoardByHand::<u64>::new(rows, cols, node_kayles).whole(),
        (..=128, ..128) => BoardByHand::<u128>::new(rows, cols, node_kayles).whole(),
        (cells, _) => panic!("a board of {cells} cells is past the hand-written solver's 128"),
    }
}

impl<W: PrimInt + std::hash::Hash> BoardByHand<W> {
    fn new(rows: usize, cols: usize, node_kayles: bool) -> Self {
        let first_col = (0..rows).fold(W::zero(), |mask, r| mask | W::one() << (r * cols));
        let cells = rows * cols;
        BoardByHand {
            cols,
            full: W::max_value() >> (W::zero().count_zeros() as usize - cells),
            first_col,
            last_col: first_col << (cols - 1),
            memo: std::collections::HashMap::new(),
            node_kayles,
        }
    }

    /// The value of the whole board.
    fn whole(&mut self) -> u64 {
        self.value(self.full)
    }

    fn spread(&self, x: W) -> W {
        ((x << self.cols)
            | (x >> self.cols)
            | ((x & !self.last_col) << 1)
            | ((x & !self.first_col) >> 1))
            & self.full
    }

    /// The lowest cell of a mask that has one.
    fn lowest(x: W) -> W {
        W::one() << x.trailing_zeros() as usize
    }

    /// The value of a set of cells: the XOR of its parts'.
    fn value(&mut self, mut mask: W) -> u64 {
        let mut total = 0;
        while mask != W::zero() {
            let mut part = Self::lowest(mask);
            loop {
                let grown = (part | self.spread(part)) & mask;
                if grown == part {
                    break;
                }
                part = grown;
            }
            mask = mask & !part;
            total ^= self.part(part);
        }
        total
    }

    /// A connected part, moved up and left as far as it goes.
    fn part(&mut self, part: W) -> u64 {
        let top = part.trailing_zeros() as usize / self.cols * self.cols;
        let mut left = 0;
        while (part >> top) & (self.first_col << left) == W::zero() {
            left += 1;
        }
        let part = part >> (top + left);
        if let Some(&value) = self.memo.get(&part) {
            return value;
        }
        let mut seen = 0u128;
        let mut cells = part;
        while cells != W::zero() {
            let v = Self::lowest(cells);
            cells = cells & !v;
            if self.node_kayles {
                let option = part & !(v | self.spread(v));
                seen |= 1 << self.value(option).min(127);
            } else {
                for w in [(v & !self.last_col) << 1, v << self.cols] {
                    if w & part != W::zero() {
                        let option = part & !v & !w;
                        seen |= 1 << self.value(option).min(127);
                    }
                }
            }
        }
        let value = u64::from(seen.trailing_ones());
        self.memo.insert(part, value);
        value
    }
}

fn boards(sizes: &Sizes) {
    let n = sizes.node_kayles;
    let source = format!(
        "game NodeKayles(s) splits {{ move NodeKayles(s - closed(s, v)) for v in s }}
         grundy NodeKayles(Grid(3, {n}))"
    );
    // A few hundredths of a second each: many runs, for a steady median.
    let ((ours, a), (theirs, b)) =
        medians_in_turn(5 * sizes.runs, || language(&source), || by_hand(3, n, true));
    assert_eq!(a, b, "Node Kayles 3 × {n}");
    row(
        &format!("(m) Node Kayles on 3 × {n}, parts memoised"),
        ours,
        theirs,
        "≤ 2x",
    );
    let (r, c) = sizes.cram;
    let source = format!(
        "game Cram(s) splits {{ move Cram(s - {{a, b}}) for a in s, b in neighbours(s, a) if a < b }}
         grundy Cram(Grid({r}, {c}))"
    );
    let ((ours, a), (theirs, b)) =
        medians_in_turn(sizes.runs, || language(&source), || by_hand(r, c, false));
    assert_eq!(a, b, "Cram {r} × {c}");
    row(
        &format!("(m) Cram on {r} × {c}, parts memoised"),
        ours,
        theirs,
        "≤ 2x",
    );
}

/// igsolve (crate `igsolve`, the pruned-search solver of Beling and
/// Rogalski), installed into a cache folder beside the build the first
/// time, unless this is a smoke run (a build of minutes for times that
/// mean nothing). `None`, said plainly, when it cannot be had.
fn igsolve(smoke: bool) -> Option<std::path::PathBuf> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    let root = target.join("peers");
    let binary = root.join("bin").join("igsolve");
    if binary.exists() {
        return Some(binary);
    }
    if smoke {
        println!("(n) igsolve not installed; a smoke run does not install it");
        return None;
    }
    println!("(n) installing igsolve into {} ...", root.display());
    let installed = Command::new("cargo")
        .args(["install", "igsolve", "--locked", "--quiet", "--root"])
        .arg(&root)
        .status();
    match installed {
        Ok(status) if status.success() && binary.exists() => Some(binary),
        _ => {
            println!("(n) igsolve could not be installed (no network?): its cases are skipped");
            None
        }
    }
}

/// The value igsolve finds for Cram on a rows × cols board, with its
/// table of values of the kind `table` names (`None`: its own choice,
/// which for a board of more than 40 cells is its succinct table of 8 GB).
fn igsolve_cram(binary: &std::path::Path, rows: usize, cols: usize, table: Option<&str>) -> u64 {
    let output = Command::new(binary)
        .args(table.map(|kind| ["--tt", kind]).iter().flatten())
        .args(["cram", "-r", &rows.to_string(), "-c", &cols.to_string()])
        .output()
        .expect("igsolve runs");
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text
        .lines()
        .find_map(|line| line.strip_prefix("Nimber of initial position: "))
        .unwrap_or_else(|| panic!("igsolve printed no value:\n{text}"));
    line.trim().parse().expect("igsolve prints a number")
}

/// Cram boards by the pruned search against igsolve, one thread each, and
/// Node Kayles on 3 × n by search against the parts memoised by hand.
fn peers(sizes: &Sizes) {
    let smoke = sizes.runs == 1 && sizes.peer_cram.len() == 1;
    if let Some(binary) = igsolve(smoke) {
        for &(r, c) in sizes.peer_cram {
            let source = format!(
                "game Cram(s) splits up to symmetry {{ move Cram(s - {{a, b}}) for a in s, b in neighbours(s, a) if a < b }}
                 grundy Cram(Grid({r}, {c}))"
            );
            // Boards of a second or less: the median of five, in turn (one
            // run of 0.1 s varied by half its time); longer ones, one each.
            let runs = if smoke || r * c > 36 { 1 } else { 5 };
            let ((ours, a), (theirs, b)) = medians_in_turn(
                runs,
                || language_on(&source, Some(1)),
                || igsolve_cram(&binary, r, c, None),
            );
            assert_eq!(a, b, "Cram {r} × {c}: sprague and igsolve disagree");
            row(
                &format!("(n) Cram {r} × {c} by search, igsolve baseline"),
                ours,
                theirs,
                "≤ 1x",
            );
            // Past 40 cells igsolve chooses its succinct table, slower on
            // these boards than the hash map it takes below: the peer at
            // its best is timed too.
            if r * c > 40 {
                let (theirs, b) = median(1, || igsolve_cram(&binary, r, c, Some("hash-map")));
                assert_eq!(a, b, "Cram {r} × {c}: sprague and igsolve disagree");
                row(
                    &format!("(n) Cram {r} × {c} by search, igsolve --tt hash-map"),
                    ours,
                    theirs,
                    "≤ 1x",
                );
            }
        }
    }
    let n = sizes.node_kayles_search;
    let source = format!(
        "game NodeKayles(s) splits {{ move NodeKayles(s - closed(s, v)) for v in s }}
         grundy NodeKayles(Grid(3, {n}))"
    );
    let ((ours, a), (theirs, b)) =
        medians_in_turn(1, || language_on(&source, Some(1)), || by_hand(3, n, true));
    assert_eq!(a, b, "Node Kayles 3 × {n}");
    row(
        &format!("(n) Node Kayles on 3 × {n} by search, all parts by hand"),
        ours,
        theirs,
        "< 5 s",
    );
}

/// Node Kayles on the generalized Petersen graph P(n, 2) declared `splits
/// up to symmetry` (each part kept as its least image under the graph's
/// dihedral group), against the same rule declared `splits` alone.
fn graph_symmetries(sizes: &Sizes) {
    let n = sizes.petersen;
    let source = |symmetry: &str| {
        format!(
            "game NodeKayles(s) splits{symmetry} {{ move NodeKayles(s - closed(s, v)) for v in s }}
             graph Petersen(n, k) {{
               nodes 0..2 * n
               edge i -- (i + 1) % n for i in 0..n
               edge i -- n + i for i in 0..n
               edge n + i -- n + (i + k) % n for i in 0..n
             }}
             grundy NodeKayles(Petersen({n}, 2))"
        )
    };
    let (symmetric, plain) = (source(" up to symmetry"), source(""));
    let ((ours, a), (theirs, b)) = medians_in_turn(
        sizes.runs,
        || language_on(&symmetric, Some(1)),
        || language_on(&plain, Some(1)),
    );
    assert_eq!(a, b, "Node Kayles on P({n}, 2)");
    row(
        &format!("(o) Node Kayles on P({n}, 2) up to symmetry, `splits` baseline"),
        ours,
        theirs,
        "< 1x",
    );
}

/// `why` of one board by the search, which asks each option only whether
/// its value is one still without a witness, against the proof made from
/// every option's value (`moves`, as `why` was made before): the same
/// witnesses, the first option of each value below the board's.
fn why_by_witnesses(sizes: &Sizes) {
    let (r, c) = sizes.why;
    let source = |query: &str| {
        format!(
            "game Cram(s) splits up to symmetry {{ move Cram(s - {{a, b}}) for a in s, b in neighbours(s, a) if a < b }}
             {query} Cram(Grid({r}, {c}))"
        )
    };
    let (why, moves) = (source("why"), source("moves"));
    let ((ours, a), (theirs, b)) =
        medians_in_turn(sizes.runs, || witnesses(&why), || witnesses(&moves));
    assert_eq!(a, b, "why Cram {r} × {c}: the witnesses differ");
    row(
        &format!("(w) why Cram {r} × {c}, every option valued baseline"),
        ours,
        theirs,
        "< 0.2x",
    );
}

/// The witnesses of the last answer of `source`, on one thread, as a hash:
/// `why`'s, or the first move of each value below the mex of `moves`.
fn witnesses(source: &str) -> u64 {
    let answer = last_answer(source, Some(1), |value| {
        let witnesses: Vec<String> = match value {
            Value::Why(why) => match why.reason {
                Reason::Mex { witnesses, .. } => {
                    witnesses.into_iter().map(|line| line.to).collect()
                }
                other => panic!("a mex proof, got {other:?}"),
            },
            Value::Moves(lines) => {
                let mut firsts = Vec::new();
                while let Some(line) = lines
                    .iter()
                    .find(|line| line.grundy == Gamma::Finite(firsts.len() as u64))
                {
                    firsts.push(line.to.clone());
                }
                firsts
            }
            _ => return None,
        };
        Some(hashed(witnesses))
    });
    answer.expect("the source asks why or for the moves")
}

/// Cram by the pruned search on two threads sharing what they learn (see
/// `src/engine/shared.rs`), against the same search on one.
fn search_threads(sizes: &Sizes) {
    let (r, c) = sizes.search_threads;
    // `best_move` values the board, then finds the move to value 0.
    for (query, target) in [("grundy", "< 0.8x"), ("best_move", "< 0.9x")] {
        let source = format!(
            "game Cram(s) splits up to symmetry {{ move Cram(s - {{a, b}}) for a in s, b in neighbours(s, a) if a < b }}
             {query} Cram(Grid({r}, {c}))"
        );
        two_threads_vs_one(
            sizes.runs.min(2),
            &source,
            &format!("(p) {query} Cram {r} × {c} by search, two threads vs one"),
            target,
        );
    }
}
