//! What `--max-work` and `--max-states` count, and what their errors say.

mod common;

use std::collections::HashMap;

use common::answers_in;
#[cfg(target_os = "linux")]
use common::run_capped_with;
use sprague::engine::DEFAULT_MAX_STATES;
use sprague::session::{DEFAULT_MAX_SOURCE, Event, Session, Value};

const CHOMP: &str = "
game Chomp(h) {
  move Chomp([if k < i then h[k] else min(h[k], j) for k in 0..(if j == 0 then i else len(h))])
    for i in 0..len(h), j in 0..h[i] if i > 0 or j > 0
}
";

/// The options of a staircase of Chomp: a square (i, j) but the poisoned
/// corner is taken with every square above and right of it; taking a
/// column's bottom square drops that column and those after it.
fn chomp_options(h: &[u32]) -> Vec<Vec<u32>> {
    let mut options = Vec::new();
    for i in 0..h.len() {
        for j in 0..h[i] {
            if i == 0 && j == 0 {
                continue;
            }
            let end = if j == 0 { i } else { h.len() };
            options.push(
                (0..end)
                    .map(|k| if k < i { h[k] } else { h[k].min(j) })
                    .collect(),
            );
        }
    }
    options
}

/// Every staircase reachable from `h` and its value, by plain recursion.
fn chomp_values(h: &[u32], values: &mut HashMap<Vec<u32>, u64>) -> u64 {
    if let Some(&value) = values.get(h) {
        return value;
    }
    let mut seen: Vec<u64> = chomp_options(h)
        .iter()
        .map(|option| chomp_values(option, values))
        .collect();
    seen.sort_unstable();
    seen.dedup();
    let mex = seen.iter().enumerate().find(|&(i, &g)| i as u64 != g);
    let value = mex.map_or(seen.len() as u64, |(i, _)| i as u64);
    values.insert(h.to_vec(), value);
    value
}

/// `--max-work` counts the options examined: Chomp on 5 x 6 (461
/// positions, 6,469 moves in all) is solved under a limit of its moves
/// plus one look at each position, where each option of its list of six
/// columns once counted 385.
#[test]
fn max_work_counts_each_option_examined_once() {
    let start = vec![5u32; 6];
    let mut values = HashMap::new();
    let value = chomp_values(&start, &mut values);
    let moves: usize = values.keys().map(|h| chomp_options(h).len()).sum();
    assert_eq!((values.len(), moves), (461, 6469));
    let mut session = Session::new(DEFAULT_MAX_STATES);
    session.set_max_work((moves + values.len()) as u64);
    let answers = answers_in(
        session,
        &format!("{CHOMP}grundy Chomp([5, 5, 5, 5, 5, 5])\n"),
    );
    assert_eq!(answers[0].value, Value::Grundy(value));
}

/// The work limit's error says how far the search got and what raising the
/// limit would allow, with the counts as they were.
#[test]
fn the_work_limit_says_how_far_it_got_and_how_to_raise_it() {
    let mut session = Session::new(DEFAULT_MAX_STATES);
    session.set_max_work(1_000);
    let mut events = Vec::new();
    let source = format!("{CHOMP}grundy Chomp([9, 9, 9, 9, 9, 9, 9, 9, 9, 9])\n");
    session.run("test.game", &source, &mut |event| events.push(event));
    let [Event::Error(report)] = events.as_slice() else {
        panic!("expected the work limit's error, got {events:?}");
    };
    let message = report.to_string();
    let examined: u64 = message
        .strip_prefix("stopped after examining ")
        .and_then(|rest| rest.split(' ').next())
        .map(|count| count.replace(',', "").parse().unwrap())
        .unwrap_or_else(|| panic!("{message}"));
    // The last position folded has at most 90 options.
    assert!((1_001..=1_090).contains(&examined), "{message}");
    assert!(message.contains("past the limit of 1,000"), "{message}");
    assert!(message.contains("positions solved so far)"), "{message}");
    let help = report
        .help()
        .map(|help| help.to_string())
        .unwrap_or_default();
    assert!(help.contains("`--max-work 10,000`"), "{help}");
}

/// The state limit's error offers twice the room.
#[test]
fn the_state_limit_says_how_to_raise_it() {
    let mut session = Session::new(1_000);
    let mut events = Vec::new();
    let source = "game Up(n) { move Up(n + 1) }\ngrundy Up(0)\n";
    session.run("test.game", source, &mut |event| events.push(event));
    let [Event::Error(report)] = events.as_slice() else {
        panic!("expected the state limit's error, got {events:?}");
    };
    assert!(
        report
            .to_string()
            .starts_with("stopped at the limit of 1,000 distinct positions"),
        "{report}"
    );
    let help = report
        .help()
        .map(|help| help.to_string())
        .unwrap_or_default();
    assert!(help.contains("`--max-states 2,000`"), "{help}");
}

/// Runs the `sprague` binary on `source` (`run -`, default limits) with its
/// address space capped at `cap` bytes, as `prlimit --as` would.
#[cfg(target_os = "linux")]
fn run_capped(source: &str, cap: u64) -> std::process::Output {
    run_capped_with(&[], source, cap)
}

/// A chain as deep as the default state limit allows fits a 4 GB address
/// space: `T(n)` moves only to `T(n - 1)`, so its values alternate and
/// `T(n)` is n mod 2; a chain past the limit stops at it with the limit's
/// error, not an allocation failure. Each position waiting on the one below
/// it once cost some 400 bytes, and a chain of five million took 2 GB.
#[test]
fn a_chain_as_deep_as_the_state_limit_fits_in_4_gb() {
    if !cfg!(target_os = "linux") {
        println!("skipped: the address space is capped with setrlimit, on Linux only");
        return;
    }
    #[cfg(target_os = "linux")]
    {
        let chain = |n: u64| format!("game T(n) {{ move T(n - 1) if n > 0 }}\ngrundy T({n})\n");
        // T(0) to T(n): n + 1 positions, the most the default limit allows.
        let deepest = DEFAULT_MAX_STATES as u64 - 1;
        let output = run_capped(&chain(deepest), 4_000_000_000);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{stderr}");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(
            stdout.trim(),
            format!("grundy T({deepest}) = {}", deepest % 2),
            "{stderr}"
        );

        let output = run_capped(&chain(2 * DEFAULT_MAX_STATES as u64), 4_000_000_000);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains("sprague::eval::too_many_states"),
            "{stderr}"
        );
        assert!(stderr.contains("--max-states"), "{stderr}");
    }
}

/// A chain of positions with no dense address (`V(a, b)` reaches
/// `V(0, a)`, too far for a table, so each is interned, at a hundred
/// bytes or so) as long as the state limit allows fits a 4 GB address
/// space: `V(a, 0)` moves only to `V(a - 1, 1)` and so on down to
/// `V(0, a)`, so its value is a mod 2. With less memory than it needs, it
/// stops with an error saying so, never with a signal (it aborted with
/// "memory allocation failed" when its lists outgrew the address space).
#[test]
fn an_interned_chain_fits_in_4_gb_or_says_memory_ran_out() {
    if !cfg!(target_os = "linux") {
        println!("skipped: the address space is capped with setrlimit, on Linux only");
        return;
    }
    #[cfg(target_os = "linux")]
    {
        let chain = |a: u64| {
            format!("game V(a, b) {{ move V(a - 1, b + 1) if a > 0 }}\ngrundy V({a}, 0)\n")
        };
        // V(a, 0) to V(0, a): a + 1 positions, the most the default limit
        // allows. It needs some 2.3 GB besides the evaluator's 1 GiB stack,
        // so under 4 GB it answers, or, where the allocator's growth steps
        // land past the cap, says memory ran out: never a signal.
        let deepest = DEFAULT_MAX_STATES as u64 - 1;
        let output = run_capped(&chain(deepest), 4_000_000_000);
        let stderr = String::from_utf8_lossy(&output.stderr);
        match output.status.code() {
            Some(0) => assert_eq!(
                String::from_utf8_lossy(&output.stdout).trim(),
                format!("grundy V({deepest}, 0) = {}", deepest % 2),
                "{stderr}"
            ),
            Some(1) => assert!(stderr.contains("sprague::eval::out_of_memory"), "{stderr}"),
            other => panic!("ended by {other:?}, not an answer or an error: {stderr}"),
        }

        // 1.5 GB: the evaluator's stack reserves 1 GiB of it, and the chain
        // needs more than the rest.
        let output = run_capped_with(&["--json"], &chain(deepest), 1_500_000_000);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("sprague::eval::out_of_memory"), "{stderr}");
        assert!(stderr.contains("--max-states"), "{stderr}");
        assert!(stderr.contains("more memory"), "{stderr}");
    }
}

/// A source as large as the default `--max-source` allows is read and
/// answered in a 4 GB address space. Short queries cost parsing the most
/// memory a byte of text (some 170 bytes); at the old default of 32 MiB a
/// file of them, or 16 MB of them, aborted with "memory allocation failed".
#[test]
fn a_source_as_large_as_the_default_limit_fits_in_4_gb() {
    if !cfg!(target_os = "linux") {
        println!("skipped: the address space is capped with setrlimit, on Linux only");
        return;
    }
    #[cfg(target_os = "linux")]
    {
        let query = "grundy *1\n";
        let queries = DEFAULT_MAX_SOURCE / query.len();
        let output = run_capped(&query.repeat(queries), 4_000_000_000);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{stderr:.2000}");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(stdout.lines().count(), queries, "{stderr:.2000}");
        assert!(stdout.lines().all(|line| line == "grundy *1 = 1"));
    }
}

/// The work limit's error counts the positions solved in English: "1
/// position", "2 positions". With a limit of one option, Kayles stops
/// after its first positions.
#[test]
fn the_work_limit_counts_positions_solved_in_the_singular_for_one() {
    let kayles =
        "game Kayles(n) { move Kayles(a) + Kayles(n - k - a) for k in 1..=2, a in 0..=n - k }\n";
    for work in [1, 2, 5, 20] {
        let mut session = Session::new(DEFAULT_MAX_STATES);
        session.set_max_work(work);
        let mut events = Vec::new();
        let source = format!("{kayles}grundy Kayles(12)\n");
        session.run("test.game", &source, &mut |event| events.push(event));
        let [Event::Error(report)] = events.as_slice() else {
            panic!("expected the work limit's error, got {events:?}");
        };
        let message = report.to_string();
        let tail = message
            .rsplit_once(" (")
            .and_then(|(_, tail)| tail.strip_suffix(" solved so far)"))
            .unwrap_or_else(|| panic!("{message}"));
        let (solved, noun) = tail.split_once(' ').unwrap();
        let expected = match solved {
            "1" => "position",
            _ => "positions",
        };
        assert_eq!(noun, expected, "{message}");
    }
}

/// Runs `source` in a session with a work limit, and gives the one error
/// it ends with, as its message and help.
fn work_limit_error(source: &str, work: u64) -> (String, String) {
    let mut session = Session::new(DEFAULT_MAX_STATES);
    session.set_max_work(work);
    let mut events = Vec::new();
    session.run("test.game", source, &mut |event| events.push(event));
    let [Event::Error(report)] = events.as_slice() else {
        panic!("expected the work limit's error, got {events:?}");
    };
    let help = report.help().map(|help| help.to_string());
    (report.to_string(), help.unwrap_or_default())
}

/// A work limit met while filling a table of known size (a code's table
/// of heaps, a box of Wythoff's positions) says how much of the table was
/// solved, not "0 positions solved" (a code's table is not the engine's),
/// and the limit its help names does see the query through.
#[test]
fn the_work_limit_in_a_table_says_how_much_of_it_was_solved() {
    let wythoff = "game W(a, b) {\n  move W(a - k, b) for k in 1..=a\n  \
                   move W(a, b - k) for k in 1..=b\n  move W(a - k, b - k) for k in 1..=min(a, b)\n}\n";
    for (source, of, work) in [
        (
            "game X = octal \"0.004\"\ngrundy X(20000)\n".to_string(),
            20_001,
            200_000,
        ),
        (
            format!("{wythoff}grundy W(300, 300)\n"),
            301 * 301,
            1_000_000,
        ),
    ] {
        let (message, help) = work_limit_error(&source, work);
        let (head, percent) = message
            .strip_suffix("%)")
            .and_then(|message| message.rsplit_once(" in its table, "))
            .unwrap_or_else(|| panic!("{message}"));
        let (head, total) = head.rsplit_once(" positions solved of the ").unwrap();
        assert_eq!(
            total.replace(',', "").parse::<u64>().unwrap(),
            of,
            "{message}"
        );
        let solved: u64 = head
            .rsplit_once(" (")
            .unwrap()
            .1
            .replace(',', "")
            .parse()
            .unwrap();
        assert!(0 < solved && solved < of, "{message}");
        assert_eq!(
            percent.parse::<u64>().unwrap(),
            solved * 100 / of,
            "{message}"
        );

        let raised: u64 = help
            .split_once("`--max-work ")
            .and_then(|(_, rest)| rest.split_once('`'))
            .map(|(limit, _)| limit.replace(',', "").parse().unwrap())
            .unwrap_or_else(|| panic!("{help}"));
        assert!(raised > work, "{help}");
        let mut session = Session::new(DEFAULT_MAX_STATES);
        session.set_max_work(raised);
        let mut events = Vec::new();
        session.run("test.game", &source, &mut |event| events.push(event));
        assert!(
            !events.iter().any(|event| matches!(event, Event::Error(_))),
            "{help}: {events:?}"
        );
    }
}

/// The option limit's error says its count in English: "more than 1
/// option", "more than 2 options". Each position here has three options,
/// by three rules or by three assignments of one rule's binding, so any
/// limit below three stops the listing of the first.
#[test]
fn the_option_limit_counts_in_the_singular_for_one() {
    let by_rules = "game R(n) { move R(n - 1) if n > 0\n move R(n - 2) if n > 1\n move R(n - 3) if n > 2 }\ngrundy R(3)\n";
    let by_bindings = "game B(n) { move B(n - k) for k in 1..=n }\ngrundy B(3)\n";
    for (limit, options, assignments) in [
        (
            1,
            "more than 1 option ",
            "more than 1 assignment of the bindings ",
        ),
        (
            2,
            "more than 2 options ",
            "more than 2 assignments of the bindings ",
        ),
    ] {
        for (source, expected) in [(by_rules, options), (by_bindings, assignments)] {
            let mut events = Vec::new();
            Session::new(limit).run("test.game", source, &mut |event| events.push(event));
            let [Event::Error(report)] = events.as_slice() else {
                panic!("expected the option limit's error, got {events:?}");
            };
            assert!(
                report.to_string().starts_with(expected),
                "limit {limit}: {report}"
            );
        }
    }
}

/// A code's table counts the splits it examines against `--max-work`:
/// octal 0.004 (take three, leave two heaps) finds a heap's value only
/// among all its splits, about n/2 of them for heap n, so its table to
/// 100,000 heaps examines some 2.5 × 10^9; a limit of 10^6 stops it early,
/// with the work limit's error naming the heap it was reaching for.
#[test]
fn a_code_table_keeps_to_the_work_limit() {
    let mut session = Session::new(100_000);
    session.set_max_work(1_000_000);
    let mut events = Vec::new();
    let source = "game X = octal \"0.004\"\nperiod X\n";
    session.run("test.game", source, &mut |event| events.push(event));
    let [Event::Error(report)] = events.as_slice() else {
        panic!("expected the work limit's error, got {events:?}");
    };
    let code = report.code().map(|code| code.to_string());
    assert_eq!(
        code.as_deref(),
        Some("sprague::eval::too_much_work"),
        "{report}"
    );
    let message = report.to_string();
    assert!(message.contains("past the limit of 1,000,000"), "{message}");
    assert!(message.contains("while expanding X("), "{message}");
}

/// How far a quotient is grown is bounded by `--max-rows` (a row for each
/// heap), not by a bound fixed in the program: up to 10 is 11 heaps.
#[test]
fn a_quotient_is_grown_as_far_as_the_row_limit() {
    let source = "game K = octal \"0.77\"\nquotient K up to 10\n";
    let answered = |max_rows: usize| {
        let mut session = Session::new(DEFAULT_MAX_STATES);
        session.set_max_rows(max_rows);
        let mut events = Vec::new();
        session.run("test.game", source, &mut |event| events.push(event));
        match events.as_slice() {
            [Event::Error(report)] => Err(report.to_string()),
            _ => Ok(()),
        }
    };
    let refused = answered(10).expect_err("11 heaps are past 10 rows");
    assert!(
        refused.contains("11 heaps, past the limit of 10"),
        "{refused}"
    );
    assert_eq!(answered(11), Ok(()));
    // Past the old fixed bound of 100,000 heaps, the check lets it through
    // to the row limit.
    let mut session = Session::new(DEFAULT_MAX_STATES);
    let mut events = Vec::new();
    let far = "game K = octal \"0.77\"\nquotient K up to 200000\n";
    session.set_max_rows(100);
    session.run("test.game", far, &mut |event| events.push(event));
    let [Event::Error(report)] = events.as_slice() else {
        panic!("expected the row limit's error, got {events:?}");
    };
    let help = report
        .help()
        .map(|help| help.to_string())
        .unwrap_or_default();
    assert!(help.contains("--max-rows"), "{help}");
}

/// A code's table of values longer than memory allows (400 million heaps
/// of 8 bytes under a 4 GB address space) is refused with the error that
/// memory ran out, before it grows; it aborted with "memory allocation
/// failed".
#[test]
fn a_code_table_past_memory_says_memory_ran_out() {
    if !cfg!(target_os = "linux") {
        println!("skipped: the address space is capped with setrlimit, on Linux only");
        return;
    }
    #[cfg(target_os = "linux")]
    {
        let source = "game G = octal \"4!.0\"\ngrundy G(400000000)\n";
        let args = ["--max-states", "1000000000"];
        let output = run_capped_with(&args, source, 4_000_000_000);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("sprague::eval::out_of_memory"), "{stderr}");
        assert!(!stderr.contains("--max-states 1`"), "{stderr}");
    }
}

/// Under an address space too small for the evaluator's stack (1 GB,
/// reserved), `run` and `serve` stop at once with a message that says
/// what to raise: the server had started, then answered every request
/// 503, "cannot start the thread that evaluates" (a test in serve.rs
/// asserted those 503s, and is replaced by this one).
#[cfg(target_os = "linux")]
#[test]
fn an_address_space_below_the_stack_stops_run_and_serve_at_once() {
    let output = run_capped_with(&[], "grundy *3", 900_000_000);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("could not reserve the 1024 MB"), "{stderr}");
    assert!(stderr.contains("to 2 GB or more"), "{stderr}");
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_sprague"));
    command
        .args(["serve", "--port", "0"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    common::cap_child(&mut command, common::Cap::AddressSpace(900_000_000));
    let mut child = command.spawn().expect("sprague serve starts");
    // A server that started is stopped after a while, and fails the test.
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() && started.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = child.kill();
    let output = child.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert_eq!(output.status.code(), Some(1), "{stdout}{stderr}");
    assert!(!stdout.contains("http://"), "{stdout}");
    assert!(stderr.contains("could not reserve the 1024 MB"), "{stderr}");
}
