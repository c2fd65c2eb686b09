//! Inputs that once killed the process, ate the machine or gave a
//! misleading answer: each must now get an answer or a clear error, with
//! exit code 0, 1 or 2.

mod common;

use std::io::Write;
use std::process::Output;
use std::time::Duration;

use common::sprague;

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Runs a source and asserts the run failed with an input error whose
/// report carries `code`.
fn fails_with(source: &str, code: &str) -> Output {
    let output = sprague(&["run", "-"], source);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{source}: {}",
        stderr(&output)
    );
    assert!(
        stderr(&output).contains(code),
        "{source}: {}",
        stderr(&output)
    );
    output
}

#[test]
fn a_huge_heaps_options_are_refused_before_they_are_listed() {
    // Past the limit of the rows a list of moves may print, too.
    for source in [
        "moves *9223372036854775807",
        "moves *3037000500",
        "moves *50000000",
        "best_move misere *9223372036854775807 + *1",
    ] {
        let output = sprague(&["run", "--max-rows", "1_000_000_000_000", "-"], source);
        assert_eq!(output.status.code(), Some(1), "{source}");
        let said = stderr(&output);
        assert!(said.contains("too_many_options"), "{source}: {said}");
    }
    // A loopy sum with a huge heap beside it: the heap counts as states.
    fails_with(
        "graph Spin { a -> b  b -> a, c  c -> d }\nbest_move Spin.b + *3037000500",
        "too_many",
    );
    fails_with("draw *100000000", "draw_too_large");
    fails_with("draw *9223372036854775807", "draw_too_large");
}

/// A move graph of a large board is refused within bounded memory: the
/// positions it holds, and the options of the one being listed, are
/// counted by their elements, so that a board whose every option copies a
/// million nodes is refused after a few dozen options, not listed whole
/// (a million options of a million nodes each); a board within the bound
/// but past the node limit is still counted on, to say its size.
#[test]
fn a_large_boards_move_graph_is_refused_within_bounded_memory() {
    let nk = "game NK(s) splits { move NK(s - closed(s, v)) for v in s }\n";
    let output = fails_with(&format!("{nk}draw NK(Path(1000000))"), "draw_too_heavy");
    assert!(
        stderr(&output).contains("too large to draw"),
        "{}",
        stderr(&output)
    );
    let output = fails_with(&format!("{nk}draw NK(Grid(8, 8))"), "draw_too_large");
    assert!(stderr(&output).contains("at least"), "{}", stderr(&output));
}

#[test]
fn a_heap_within_the_limit_still_lists_its_options() {
    let output = sprague(&["run", "-"], "moves *3");
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output).matches(" -> ").count(), 3);
}

#[test]
fn rows_are_counted_before_they_are_enumerated() {
    let started = std::time::Instant::now();
    let output = fails_with(
        "grundy *k for k in 0..=1000000000000000000",
        "too_many_rows",
    );
    assert_eq!(
        stdout(&output),
        "",
        "no row may be printed before the refusal"
    );
    assert!(stderr(&output).contains("--max-rows"));
    // Nested bindings multiply.
    fails_with(
        "grundy *k + *j for k in 0..=100000, j in 0..=100000",
        "too_many_rows",
    );
    // Under the limit, a table is answered; over a lowered limit, refused.
    let output = sprague(&["run", "--max-rows", "3", "-"], "grundy *k for k in 0..3");
    assert_eq!(stdout(&output).lines().count(), 3);
    let output = sprague(&["run", "--max-rows", "2", "-"], "grundy *k for k in 0..3");
    assert_eq!(output.status.code(), Some(1));
    // A table's rows are its whole assignments: over two bindings, 3 × 4
    // rows are twelve, not twelve and the three of the first binding (the
    // table was refused after nine rows were printed).
    let table = "nim x * y for x in 0..3, y in 0..4";
    let output = sprague(&["run", "--max-rows", "12", "-"], table);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output).lines().count(), 12);
    let output = sprague(&["run", "--max-rows", "11", "-"], table);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stdout(&output), "", "refused before the first row");
    assert!(started.elapsed().as_secs() < 60);
}

/// A guard's rows are those it lets through: the pairs x < y of 0..3 ×
/// 0..4 are six, which `--max-rows 6` allows (it took twelve, and said
/// "more than 6 rows"). The assignments tried are work, bounded by
/// `--max-work`; an outer range whose inner range is empty gives no row.
#[test]
fn a_guard_s_rows_are_those_it_lets_through() {
    let table = "nim x * y for x in 0..3, y in 0..4 if x < y";
    let output = sprague(&["run", "--max-rows", "6", "-"], table);
    assert!(output.status.success(), "{}", stderr(&output));
    let pairs: Vec<String> = (0..3)
        .flat_map(|x| (x + 1..4).map(move |y| format!("nim {x} * {y} = ")))
        .collect();
    let printed = stdout(&output);
    let printed: Vec<&str> = printed.lines().collect();
    assert_eq!(printed.len(), pairs.len());
    for (line, pair) in printed.iter().zip(&pairs) {
        assert!(line.starts_with(pair.as_str()), "{line}");
    }
    let output = sprague(&["run", "--max-rows", "5", "-"], table);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("more than 5 rows"),
        "{}",
        stderr(&output)
    );
    // Two million values of x, each with no y: no row, and no refusal.
    let output = sprague(&["run", "-"], "nim x for x in 0..2000000, y in 0..0");
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output), "");
    // Past the work limit, refused before the guard is tried once.
    let output = sprague(
        &["run", "--max-work", "1000", "-"],
        "nim x for x in 0..2000 if x == 3",
    );
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stdout(&output), "");
    assert!(
        stderr(&output).contains("sprague::eval::too_many_tried")
            && stderr(&output).contains("more than 1,000 assignments")
            && stderr(&output).contains("--max-work"),
        "{}",
        stderr(&output)
    );
    // Without a guard, the rows are not work: two thousand of them pass a
    // work limit of a thousand (they were refused after a thousand).
    let output = sprague(
        &["run", "--max-work", "1000", "-"],
        "nim x for x in 0..2000",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output).lines().count(), 2000);
    // With one, 3 + 3 × 4 = 15 assignments are tried: 14 is refused before
    // the first row (the count was 12, and five rows were printed).
    let table = "nim x * y for x in 0..3, y in 0..4 if x < y";
    let output = sprague(&["run", "--max-work", "14", "-"], table);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stdout(&output), "", "{}", stderr(&output));
    let output = sprague(&["run", "--max-work", "15", "-"], table);
    assert_eq!(stdout(&output).lines().count(), 6, "{}", stderr(&output));
    // The trial divisions of `divisors` are work: about 10^8 for each n.
    let output = sprague(
        &["run", "--max-work", "150000000", "-"],
        "nim d for k in 0..10, d in divisors(10000000000000061) if d == 1",
    );
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stdout(&output), "nim 1 = 1\n");
    assert!(
        stderr(&output).contains("too_many_tried"),
        "{}",
        stderr(&output)
    );
    // Within it, a dependent range is counted as it is tried.
    let output = sprague(
        &["run", "--max-work", "1000", "-"],
        "nim x for n in 0..10, x in 0..n * 100 if x == 3",
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stdout(&output).lines().all(|line| line == "nim 3 = 3"),
        "{}",
        stdout(&output)
    );
    assert!(
        stderr(&output).contains("too_many_tried"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn plot_refuses_a_huge_range_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("g.game");
    std::fs::write(&file, "game G(n) { move G(n - 1) if n > 0 }\n").unwrap();
    let output = sprague(
        &["plot", file.to_str().unwrap(), "G", "--to", "1_000_000_000"],
        "",
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("plot_too_large"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn memory_stays_linear_when_many_options_are_the_same_position() {
    // Each G(n) has n + 1 options, all G(n + 1): the search must keep each
    // waiting position once, not once per option.
    // Kept once per option, 6,000 positions took 287 MB and 9,000 take
    // 650 MB; kept once, a few MB. (The peak may count what the test
    // process held when it forked, so the bound is loose.)
    let (code, peak_kb) = common::sprague_with_peak_memory(
        &["run", "--max-states", "9000", "-"],
        "game G(n) { move G(n + 1) for k in 0..=n }\ngrundy G(0)",
    );
    assert_eq!(code, Some(1), "refused at the state limit");
    assert!(peak_kb < 300_000, "peak memory {peak_kb} kB");
}

#[test]
fn counts_on_the_command_line_take_separators() {
    for limit in ["10_000", "10,000", "10000"] {
        let output = sprague(&["run", "--max-states", limit, "-"], "grundy *1");
        assert!(output.status.success(), "{limit}: {}", stderr(&output));
    }
    for bad in ["1,00", "1__000", "ten", "_100"] {
        let output = sprague(&["run", "--max-states", bad, "-"], "grundy *1");
        assert_eq!(output.status.code(), Some(2), "{bad}");
    }
}

#[test]
fn json_errors_are_json_whatever_the_source_holds() {
    for source in [
        "grundy *3\u{1}",
        "grundy \u{0}*3",
        "\u{7}\u{1b}[31m",
        "grundy *3\t\u{1}x",
    ] {
        let output = sprague(&["run", "--json", "-"], source);
        assert_eq!(output.status.code(), Some(1));
        for line in stderr(&output)
            .lines()
            .filter(|line| !line.trim().is_empty())
        {
            let parsed: Result<serde_json::Value, _> = serde_json::from_str(line);
            assert!(parsed.is_ok(), "{source:?}: {line}");
        }
    }
}

#[test]
fn a_file_that_is_not_utf8_is_an_input_error_at_its_first_bad_byte() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.game");
    std::fs::write(&file, b"grundy *3\ngrundy *\xff4\n").unwrap();
    let output = sprague(&["run", file.to_str().unwrap()], "");
    assert_eq!(output.status.code(), Some(1));
    let report = stderr(&output);
    assert!(report.contains("not_utf8"), "{report}");
    assert!(report.contains("line 2, column 9"), "{report}");
}

#[test]
fn exit_codes_agree_across_subcommands() {
    for args in [
        &["run", "/nonexistent.game"][..],
        &["repl", "/nonexistent.game"],
        &["check", "/nonexistent.game"],
        &["diff", "/nonexistent.game", "/nonexistent.game"],
        &["run", "--max-states", "lots", "-"],
    ] {
        assert_eq!(sprague(args, "").status.code(), Some(2), "{args:?}");
    }
}

/// Two variants of a subtraction game of two parameters, and a game in one
/// file only.
fn diff_files() -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.game");
    let new = dir.path().join("new.game");
    std::fs::write(
        &old,
        "game S(a, b) { move S(a - k, b) for k in {1, 2} if k <= a }\ngame Gone { }\n",
    )
    .unwrap();
    std::fs::write(
        &new,
        "game S(a, b) { move S(a - k, b) for k in {1, 3} if k <= a }\n",
    )
    .unwrap();
    let (old, new) = (old.display().to_string(), new.display().to_string());
    (dir, old, new)
}

#[test]
fn diff_of_an_empty_range_compares_nothing() {
    let (_dir, old, new) = diff_files();
    for range in ["5..0", "0..0", "3..=2"] {
        let output = sprague(&["diff", &old, &new, "--range", range, "--json"], "");
        assert!(output.status.success(), "{}", stderr(&output));
        let first: serde_json::Value =
            serde_json::from_str(stdout(&output).lines().next().unwrap()).unwrap();
        assert_eq!(first["positions"], 0, "{range}");
    }
    let output = sprague(&["diff", &old, &new, "--range", "0..=100000"], "");
    assert_eq!(
        output.status.code(),
        Some(2),
        "an over-wide range is a usage error"
    );
}

#[test]
fn diff_json_names_each_game_and_its_parameters() {
    let (_dir, old, new) = diff_files();
    let output = sprague(&["diff", &old, &new, "--range", "0..=3", "--json"], "");
    assert!(output.status.success(), "{}", stderr(&output));
    let objects: Vec<serde_json::Value> = stdout(&output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(objects.len(), 2);
    assert_eq!(objects[0]["game"], "S");
    // S(2, b) is 2 with {1, 2} (2 mod 3) and 0 with {1, 3} (2 mod 2): a flip.
    assert_eq!(objects[0]["first"], serde_json::json!({"a": 2, "b": 0}));
    assert_eq!(objects[1]["game"], "Gone");
    assert_eq!(objects[1]["only_in"], old);
    let text = sprague(&["diff", &old, &new, "--range", "0..=3"], "");
    assert!(stdout(&text).contains("first divergence at a = 2, b = 0"));
}

#[test]
fn lets_that_double_are_refused_and_long_chains_are_linear() {
    // Forty doublings would be a sum of 2^40 components.
    let mut source = String::from("let a0 = *1\n");
    for i in 1..=40 {
        source += &format!("let a{i} = a{} + a{}\n", i - 1, i - 1);
    }
    source += "grundy a40\n";
    let output = fails_with(&source, "sum_too_large");
    // The first sum past the limit is the one reported: 2^20 components.
    assert!(
        stderr(&output).contains("1048576 components"),
        "{}",
        stderr(&output)
    );

    // Nineteen doublings stay under the limit: 2^19 heaps of 1, XOR 0.
    let mut source = String::from("let a0 = *1\n");
    for i in 1..=19 {
        source += &format!("let a{i} = a{} + a{}\n", i - 1, i - 1);
    }
    source += "wins? a19 + *1\n";
    let output = sprague(&["run", "-"], &source);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).ends_with("= true\n"));

    // A chain of 100,000 lets, each one heap more than the last.
    let mut source = String::from("let a0 = *1\n");
    for i in 1..100_000 {
        source += &format!("let a{i} = a{} + *1\n", i - 1);
    }
    source += "wins? a99999\nwins? a99998\n";
    let output = sprague(&["run", "-"], &source);
    assert!(output.status.success(), "{}", stderr(&output));
    // An even number of heaps of 1 is a loss, an odd number a win.
    let printed = stdout(&output);
    let answers: Vec<&str> = printed
        .lines()
        .map(|line| &line[line.len() - 5..])
        .collect();
    assert_eq!(answers, ["false", " true"]);
}

#[test]
fn the_loopy_error_shows_the_whole_cycle() {
    let cycle = "Loop(0) -> Loop(1) -> Loop(2) -> Loop(3) -> Loop(0)";
    let game = "game Loop(n) { move Loop((n + 1) % 4) }\n";
    // Asked first, and after `grundy` has marked the positions loopy.
    for query in [
        "remoteness Loop(0)",
        "grundy Loop(0)\nremoteness Loop(0)",
        "period Loop",
    ] {
        let output = fails_with(&format!("{game}{query}"), "loopy");
        assert!(
            stderr(&output).contains(cycle),
            "{query}: {}",
            stderr(&output)
        );
    }
    // A position that reaches the cycle from outside it shows the way in.
    let output = fails_with(
        &format!(
            "{game}game In(n) {{ move In(n - 1) if n > 0  move Loop(2) if n == 0 }}\ngrundy In(1)\ngenus In(1)"
        ),
        "loopy",
    );
    assert!(
        stderr(&output).contains("Loop(2) -> Loop(3) -> Loop(0) -> Loop(1) -> Loop(2)"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn many_errors_on_a_long_line_are_quoted_briefly_and_fast() {
    // A 1,000-term sum naming 34 unknown nodes: each error quotes a cut of
    // the line around its label, not the whole line again.
    let terms: Vec<String> = (0..1000)
        .map(|i| match i % 30 {
            0 => format!("G.x{i}"),
            _ => "G.a".to_owned(),
        })
        .collect();
    let source = format!("graph G {{ a -> b }}\ngrundy {}\n", terms.join(" + "));
    let output = fails_with(&source, "unknown_node");
    // Reported together, the others named.
    assert!(
        stderr(&output).contains(
            "graph `G` has no node `x0` (and 33 more like it on this line: `x30`, `x60`,"
        ),
        "{}",
        stderr(&output)
    );
    assert!(
        output.stderr.len() < 40_000,
        "{} bytes of errors",
        output.stderr.len()
    );

    // Ten thousand errors, each found by its line without reading the file
    // from the start (that took seconds), are all reported.
    let source: String = (0..10_000)
        .map(|i| format!("grundy Unknown{i}(1)\n"))
        .collect();
    let output = fails_with(&source, "unknown_game");
    assert!(stderr(&output).contains("Unknown9999"));
    assert!(
        stderr(&output).contains("10000:8"),
        "each error at its own line and column"
    );
}

#[test]
fn a_file_given_where_a_command_goes_gets_a_hint() {
    let output = sprague(&["examples/tour.game"], "");
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("did you mean `sprague run examples/tour.game`"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn check_says_what_a_good_file_declares_and_asks() {
    let output = sprague(
        &["check", "-"],
        "game A(n) { move A(n - 1) if n > 0 }\ngame B = octal \"0.77\"\ngraph G { a -> b }\nlet x = A(3)\ngrundy x\nwins? G.a\n",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "<stdin>: ok, 2 games, 1 graph, 1 let and 2 queries\n"
    );
}

#[test]
fn a_duplicate_across_two_files_shows_each_file_apart() {
    // `run` reads its files as one session (`check` reads each on its own).
    let output = sprague(&["run", "examples/tour.game", "examples/kayles.game"], "");
    assert_eq!(output.status.code(), Some(1));
    let report = stderr(&output);
    assert!(report.contains("╭─[examples/tour.game:12:6]"), "{report}");
    assert!(report.contains("╭─[examples/kayles.game:3:6]"), "{report}");
    // Each snippet quotes a few lines, not the whole of the first file.
    assert!(report.lines().count() < 30, "{report}");
}

#[test]
fn a_rule_missing_its_guard_is_named_at_once() {
    // Without `if k <= n` the positions fall below zero forever; the search
    // says so instead of filling the state limit (8 s and 778 MB before).
    let (code, peak_kb) = common::sprague_with_peak_memory(
        &["run", "-"],
        "game Take(n) { move Take(n - k) for k in 1..=3 }\ngrundy Take(3)",
    );
    assert_eq!(code, Some(1));
    assert!(peak_kb < 300_000, "peak memory {peak_kb} kB");
    let output = fails_with(
        "game Take(n) { move Take(n - k) for k in 1..=3 }\ngrundy Take(3)",
        "runs_off",
    );
    let report = stderr(&output);
    assert!(
        report.contains("Take(3) -> Take(0) -> Take(-3)"),
        "{report}"
    );
    assert!(report.contains("`n` falls below 0 here"), "{report}");
    assert!(report.contains("that is `if k <="), "{report}");
    // A deep chain that stays at 0 or more is solved, not refused.
    let output = sprague(
        &["run", "-"],
        "game Down(n) { move Down(n - 1) if n > 0 }\ngrundy Down(300000)",
    );
    assert_eq!(
        stdout(&output),
        "grundy Down(300000) = 0\n",
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_loopy_game_with_many_moves_meets_its_work_limit() {
    // Nim with a move up by one: every position reaches every larger one,
    // so the moves grow as the square of the positions. They are bounded
    // like the positions, and the refusal says which bound to raise.
    let output = fails_with(
        "game Nim(n) { move Nim(n - k) for k in -1..=n }\ngrundy Nim(2)",
        "too_many_moves",
    );
    assert!(
        stderr(&output).contains("--max-states"),
        "{}",
        stderr(&output)
    );
    // Within the bound, a loopy game is valued as before: a two-cycle with
    // an exit to a terminal position.
    let output = sprague(
        &["run", "-"],
        "graph Spin { a -> b  b -> a, c  c -> d }\ngrundy Spin.a\ngrundy Spin.b\ngrundy Spin.c",
    );
    assert_eq!(
        stdout(&output),
        "grundy Spin.a = ∞\ngrundy Spin.b = ∞(1)\ngrundy Spin.c = 1\n",
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_loopy_game_whose_sums_grow_meets_its_memory_bound() {
    // Each move of P(n) adds a copy of P(2), which moves back to itself
    // plus P(1): the loopy solver's positions are ever longer sums, whose
    // bytes grow faster than their count. Before the bound on their bytes
    // the default limit on moves let them fill 13 GB (and abort under a
    // 4 GB address space); now `--max-table` stops them, with its name.
    let source = "game P(n) { move P(n - 1) + P(2) if n > 0 }\ngrundy P(3)";
    let (code, peak_kb) =
        common::sprague_with_peak_memory(&["run", "--max-table", "16MB", "-"], source);
    assert_eq!(code, Some(1));
    assert!(peak_kb < 150_000, "peak memory {peak_kb} kB");
    let output = sprague(&["run", "--max-table", "16MB", "-"], source);
    let report = stderr(&output);
    assert!(report.contains("loopy_too_large"), "{report}");
    assert!(report.contains("more than 16 MB"), "{report}");
    assert!(report.contains("--max-table"), "{report}");
    // A list grown at each move: the graph's lists and map are counted at
    // their capacities, and what the positions hold behind pointers too.
    // Counted by what they held, this took 3.7 times the bound (235 MB
    // under 64 MB) and ran past 4 GB within the default one.
    let source = "game Q(l) {\n  move Q([])\n  move Q(l + [k]) for k in 0..2 if len(l) < 40\n}\ngrundy Q([])";
    let (code, peak_kb) =
        common::sprague_with_peak_memory(&["run", "--max-table", "64MB", "-"], source);
    assert_eq!(code, Some(1));
    assert!(peak_kb < 2 * 64 * 1024, "peak memory {peak_kb} kB");
}

#[test]
fn positions_that_hold_long_lists_meet_the_memory_bound() {
    // Every list of 0s and 1s up to 40 long: each position the memo keeps
    // holds its list, and ten million of them (the state limit) took more
    // than 4 GB, where an allocation failed and aborted the run. What the
    // positions hold is bounded by `--max-table`, with its name.
    let source = "game R(l) {\n  move R(l + [k]) for k in 0..2 if len(l) < 40\n}\ngrundy R([])";
    let args = ["run", "--max-table", "64MB", "-"];
    let (code, peak_kb) = common::sprague_with_peak_memory(&args, source);
    assert_eq!(code, Some(1));
    assert!(peak_kb < 2 * 64 * 1024, "peak memory {peak_kb} kB");
    let output = sprague(&args, source);
    let report = stderr(&output);
    assert!(report.contains("positions_too_large"), "{report}");
    assert!(report.contains("more than 64 MB"), "{report}");
    assert!(report.contains("--max-table"), "{report}");
    // The same game with short lists is solved: 2^11 - 1 positions, each
    // a chain to the lists of 10, which have no move.
    let short = source.replace("< 40", "< 10");
    let output = sprague(&args, &short);
    assert_eq!(stdout(&output), "grundy R([]) = 0\n", "{}", stderr(&output));
}

#[test]
fn moves_under_misere_play_name_the_misere_value() {
    let output = sprague(&["run", "-"], "moves misere *2 + *1");
    // Misère values: *1 alone is 0 (its mover must take the last token),
    // *1 + *1 is 1, *2 is 2.
    assert_eq!(
        stdout(&output),
        "moves misere *2 + *1 = 3 moves\n  \
         1. *2 -> *0, leaving *0 + *1: misère grundy 0, winning\n  \
         2. *2 -> *1, leaving *1 + *1: misère grundy 1\n  \
         3. *1 -> *0, leaving *2 + *0: misère grundy 2\n"
    );
}

#[test]
fn a_hopeless_query_ends_at_the_work_limit_saying_how_far_it_got() {
    // Two-row Chomp to 100,000: some 5·10⁹ positions of up to 10⁵ options.
    let chomp = "game Chomp2(a, b) {\n  move Chomp2(a - k, min(b, a - k)) for k in 1..=a\n  \
                 move Chomp2(a, b - k) for k in 1..=b\n}\n";
    let source = format!("{chomp}grundy Chomp2(100000, 100000)\n");
    let started = std::time::Instant::now();
    let output = sprague(&["run", "--json", "--max-work", "2_000_000", "-"], &source);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let error: serde_json::Value = serde_json::from_str(stderr(&output).trim()).unwrap();
    assert_eq!(error["code"], "sprague::eval::too_much_work");
    let message = error["message"].as_str().unwrap();
    assert!(message.starts_with("stopped after examining "), "{message}");
    assert!(
        message.contains(" options, past the limit of 2,000,000, while expanding Chomp2("),
        "{message}"
    );
    assert!(message.ends_with("positions solved so far)"), "{message}");
    assert!(
        error["help"]
            .as_str()
            .unwrap()
            .contains("`--max-work 20,000,000`")
    );
    assert_eq!(
        error["labels"][0]["span"]["offset"],
        chomp.len() + "grundy ".len()
    );
    assert!(started.elapsed().as_secs() < 60);
    // The limit is per search: a small board under the same limit is
    // answered, and Chomp2(n, 0) is Nim on a heap of n.
    let small = format!("{chomp}grundy Chomp2(60, 0)\ngrundy Chomp2(5, 5)\n");
    let output = sprague(&["run", "--max-work", "2_000_000", "-"], &small);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).starts_with("grundy Chomp2(60, 0) = 60\n"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn large_boards_count_their_cells_as_work() {
    // Cram on 2 × 1000 with its symmetries: each option is a board of some
    // 2,000 cells to split and turn, so a few hundred positions cost
    // minutes; its cells are counted, and the query ends at the limit.
    let cram = "game Cram(s) splits up to symmetry {\n  \
                move Cram(s - {a, b}) for a in s, b in neighbours(s, a) if a < b\n}\n";
    let source = format!("{cram}grundy Cram(Grid(2, 1000))\n");
    let output = sprague(
        &["run", "--json", "--max-work", "100_000_000", "-"],
        &source,
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let error: serde_json::Value = serde_json::from_str(stderr(&output).trim()).unwrap();
    assert_eq!(error["code"], "sprague::eval::too_much_work");
    // A board of bits under the same limit is answered: 1 × 4 is Dawson's
    // Kayles of 4 (value 2, A002187).
    let small = format!("{cram}grundy Cram(Grid(1, 4))\n");
    let output = sprague(&["run", "--max-work", "100_000_000", "-"], &small);
    assert_eq!(
        stdout(&output),
        "grundy Cram(Grid(1, 4)) = 2\n",
        "{}",
        stderr(&output)
    );
}

#[test]
fn sums_over_long_runs_count_as_work() {
    // Each move turns every coin to the left: one option, but n parts, so
    // T(100000) reads some 5·10⁹ parts; the work limit counts them.
    let source = "game T = coins(n) { turn {m for m in 0..n} }\ngrundy T(100000)\n";
    let output = sprague(&["run", "--json", "--max-work", "2_000_000", "-"], source);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let error: serde_json::Value = serde_json::from_str(stderr(&output).trim()).unwrap();
    assert_eq!(error["code"], "sprague::eval::too_much_work");
    // A small one is answered. T(n) has one move, to the heads at 0 to
    // n - 1: T(0) moves to nothing and is worth 1; then T(1) moves to
    // T(0), worth 1, and is worth 0, and so is every T(n) after, whose
    // move leaves 1 ⊕ 0 ⊕ … ⊕ 0 = 1.
    let output = sprague(
        &["run", "-"],
        "game T = coins(n) { turn {m for m in 0..n} }\ngrundy T(0)\ngrundy T(10)\n",
    );
    assert_eq!(stdout(&output), "grundy T(0) = 1\ngrundy T(10) = 0\n");
}

#[test]
fn a_terminal_position_under_misere_play_is_a_win_for_the_player_to_move() {
    // Under misère play the player who cannot move wins.
    let source = "game T(n) { move T(n - 1) if n > 0 }\nmoves misere T(0)\nmoves T(0)\n";
    let output = sprague(&["run", "-"], source);
    assert_eq!(
        stdout(&output),
        "moves misere T(0) = no moves: the player to move wins under misère play\n\
         moves T(0) = no moves: the player to move loses\n",
        "{}",
        stderr(&output)
    );
}

#[test]
fn an_overflow_names_no_operation_the_source_does_not_show() {
    // The target `max(k, 2^63 - 1)` is split where the choice changes, at
    // k = 2^63 - 1 + 1: that `+` is the checker's, not the user's.
    let source = "game G(n) { move G(max(k, 9223372036854775807)) for k in 0..n }\ngrundy G(3)\n";
    let output = fails_with(source, "sprague::eval::overflow");
    let report = stderr(&output);
    assert!(report.contains("integer overflow while"), "{report}");
    assert!(
        !report.contains("in `+`") && !report.contains("in `-`"),
        "{report}"
    );
    // One the user wrote is still named.
    let output = fails_with(
        "grundy *(9223372036854775807 + 1)\n",
        "sprague::eval::overflow",
    );
    assert!(stderr(&output).contains("in `+`"), "{}", stderr(&output));
}

/// Runs `sprague ARGS` on `source` under a 4 GB address-space cap, as the
/// issue's reproducers were run; a run still going after a minute is killed
/// and fails the test as a hang (each of these ends in well under a second).
fn run_capped(args: &[&str], source: &str) -> Output {
    use std::io::{Read, Write};
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    let mut command = Command::new(env!("CARGO_BIN_EXE_sprague"));
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: setrlimit is async-signal-safe and touches only the child.
    unsafe {
        command.pre_exec(|| {
            let cap = libc::rlimit {
                rlim_cur: 4_000_000_000,
                rlim_max: 4_000_000_000,
            };
            libc::setrlimit(libc::RLIMIT_AS, &cap);
            Ok(())
        });
    }
    let mut child = command.spawn().unwrap();
    let _ = child.stdin.take().unwrap().write_all(source.as_bytes());
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = out.read_to_end(&mut text);
        text
    });
    let errors = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = err.read_to_end(&mut text);
        text
    });
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`sprague {}` hangs on {source:.200}", args.join(" "));
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    Output {
        status,
        stdout: reader.join().unwrap(),
        stderr: errors.join().unwrap(),
    }
}

/// [`run_capped`] of `sprague run ARGS -`, which must fail with an input
/// error whose report carries `code`.
fn capped_fails_with(args: &[&str], source: &str, code: &str) -> String {
    let args: Vec<&str> = ["run"].iter().chain(args).chain(&["-"]).copied().collect();
    let output = run_capped(&args, source);
    let report = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{source:.200}: {report}");
    assert!(report.contains(code), "{source:.200}: {report}");
    report
}

/// The values `sprague run` prints for a source's queries, which must all
/// be answered.
fn values_of(source: &str) -> Vec<String> {
    let output = run_capped(&["run", "-"], source);
    assert!(output.status.success(), "{source}: {}", stderr(&output));
    stdout(&output)
        .lines()
        .map(|line| line.rsplit(" = ").next().unwrap_or("").to_owned())
        .collect()
}

#[test]
fn an_alias_that_stands_for_itself_is_an_error_not_a_stack_overflow() {
    // Each overflowed the stack (SIGABRT), though `check` passed them.
    let report = capped_fails_with(&[], "game X(n) = X(n)\ngrundy X(1)", "alias_cycle");
    assert!(report.contains("X(1) -> X(1)"), "{report}");
    assert!(
        report.contains("game X(n) = X(n)"),
        "the alias is shown: {report}"
    );
    let report = capped_fails_with(&[], "game A = B\ngame B = A + *1\ngrundy A", "alias_cycle");
    assert!(report.contains("B -> A -> B"), "{report}");
    // An alias whose parameter falls forever is no cycle: the expansion
    // stops at the limit.
    let report = capped_fails_with(
        &["--max-states", "1000"],
        "game X(n) = X(n - 1)\ngrundy X(1)",
        "alias_too_deep",
    );
    assert!(report.contains("X(0) -> X(-1)"), "{report}");
}

#[test]
fn a_chain_of_aliases_counts_against_the_limits() {
    // X(n) stands for n + 1 heaps *1: its value is (n + 1) mod 2. Expanded
    // recursively, X(400) took 19 s and ignored the limits.
    let source = "game X(n) = (X(n - 1) for j in 0..min(n, 1)) + *1\n\
                  grundy X(400)\ngrundy X(401)\ngrundy X(0) + X(2)";
    assert_eq!(values_of(source), ["1", "0", "0"]);
    // Its value is the sum's, found without listing its options: the 401
    // parts of the sum are within 1,000.
    let capped = ["run", "--max-states", "1000", "--max-work", "1000", "-"];
    let output = run_capped(&capped, source);
    assert!(output.status.success(), "{}", stderr(&output));
    // Its options hold 400 x 400 parts: past 1,000, they are refused.
    let moves = "game X(n) = (X(n - 1) for j in 0..min(n, 1)) + *1\nmoves X(400)";
    capped_fails_with(
        &["--max-states", "1000", "--max-work", "1000"],
        moves,
        "too_many_options",
    );
    // And so is a sum of 401 parts past 100.
    capped_fails_with(&["--max-states", "100"], source, "alias_too_deep");
}

#[test]
fn a_let_may_name_a_sum_over_bindings() {
    // The evaluator panicked (an index out of bounds): a `let` has no slots
    // of its own for the bindings. A sum over bindings is a term.
    let source = "let A = (*j for j in 0..5)\ngrundy A\ngrundy A + *4\n\
                  game G(n) { move A + G(n - 1) if n > 0 }\ngrundy G(1)";
    // *0 + *1 + *2 + *3 + *4 is 4; G(1)'s one option A + G(0) is 4, so 0.
    assert_eq!(values_of(source), ["4", "0", "0"]);
}

#[test]
fn nested_sums_over_bindings_are_bounded_as_a_whole() {
    // A billion components were built, until the memory ran out.
    capped_fails_with(
        &[],
        "game Y(j) { move Y(j - 1) if j > 0 }\n\
         grundy (((Y(j) for j in 0..1000) for i in 0..1000) for l in 0..1000)",
        "sum_too_large",
    );
    // Fifteen heaps *1, in three sums of five: 1.
    assert_eq!(
        common::grundy_values("grundy ((*1 for j in 0..5) for i in 0..3)"),
        [1]
    );
}

#[test]
fn the_work_limit_is_heard_inside_one_large_position() {
    // Each option of a 100 x 100 board costs its 10,000 nodes, and the
    // splits of a heap of a three-heap code about n²/12: with `--max-work
    // 1` both ran for minutes.
    let board = "game NK(s) splits up to symmetry { move NK(s - closed(s, v)) for v in s }\n\
                 grundy NK(Grid(100, 100))";
    capped_fails_with(&["--max-work", "1"], board, "too_much_work");
    let code = "game H = hexadecimal \"0.8\"\ngrundy H(5000)";
    capped_fails_with(&["--max-work", "1"], code, "too_much_work");
    // Under the limit a three-heap code is answered: in 0.8 a move takes
    // one token and splits the rest into three heaps, so H(3) has no move
    // and H(4) one, to *0 + *0 + *0 (the heaps of 1 have none).
    assert_eq!(
        common::grundy_values("game H = hexadecimal \"0.8\"\ngrundy H(3)\ngrundy H(4)"),
        [0, 1]
    );
}

#[test]
fn a_parameter_that_only_grows_is_named_at_once() {
    // These ran for minutes, or to the state limit in 3.6 GB.
    for source in [
        "game G(x) { move G(x + 2) for j in 0..=x }\ngrundy G(0)",
        "game G(x) { move G(x + 1) }\ngrundy G(0)",
        "game G(y, x) { move G(y, x + 3) for j in 1..x + 2 }\ngrundy G(5, 0)",
    ] {
        let report = capped_fails_with(&[], source, "grows_forever");
        assert!(report.contains("`x` grows here"), "{report}");
    }
    // A game whose parameter grows to a bound is finite, and answered:
    // G(x) moves only to G(x + 1) below 100,000, so G(x) = (100,000 - x) mod 2.
    assert_eq!(
        common::grundy_values(
            "game G(x) { move G(x + 1) if x < 100000 }\ngrundy G(0)\ngrundy G(1)"
        ),
        [0, 1]
    );
    // So is one whose range empties as it grows.
    assert_eq!(
        common::grundy_values(
            "game G(x) { move G(x + 1) for j in x..5000 }\ngrundy G(4999)\ngrundy G(0)"
        ),
        [1, 0]
    );
}

#[test]
fn a_byte_order_mark_and_old_mac_line_ends_are_read() {
    let output = run_capped(&["run", "-"], "\u{feff}grundy *3\n");
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output), "grundy *3 = 3\n");
    // Lines ended by a carriage return alone: a comment ends with its
    // line, and an error is shown on its own line, numbered.
    let output = run_capped(&["run", "-"], "grundy *3 # three\rgrundy *1\r");
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output), "grundy *3 = 3\ngrundy *1 = 1\n");
    let output = run_capped(&["run", "-"], "grundy *3\rgrundy *1\rgrundy Foo(1)\r");
    assert_eq!(output.status.code(), Some(1));
    let report = stderr(&output);
    assert!(report.contains(" 3 │ grundy Foo(1)"), "{report}");
    assert!(!report.contains(" 0 │"), "{report}");
}

#[test]
fn a_flat_sum_of_many_terms_is_not_too_deep() {
    let ones = vec!["1"; 10_001].join(" + ");
    let output = run_capped(&["run", "-"], &format!("grundy *({ones})\nnim {ones}"));
    assert!(output.status.success(), "{}", stderr(&output));
    // 10,001 ones: the integer 10001, and their nim-sum 1.
    let answers = stdout(&output);
    let lines: Vec<&str> = answers.lines().collect();
    assert_eq!(lines.len(), 2, "{answers:.300}");
    assert!(lines[0].ends_with(" = 10001"), "{:.300}", lines[0]);
    assert!(lines[1].ends_with(" = 1"), "{:.300}", lines[1]);
    // Nesting is still bounded.
    let nested = format!("grundy *({}1{})", "(".repeat(20_000), ")".repeat(20_000));
    capped_fails_with(&[], &nested, "too_deep");
    // A chain past its limit is named as one, its label on the term where
    // it is reached (not on the whole line, too wide to draw).
    let ones = vec!["1"; 30_000].join(" + ");
    let output = run_capped(&["run", "-"], &format!("grundy *({ones})"));
    assert_eq!(output.status.code(), Some(1));
    let report = stderr(&output);
    assert!(report.contains("sprague::parse::too_long"), "{report:.600}");
    assert!(report.contains("it stops at term 19999"), "{report:.600}");
    assert!(
        report.contains("the chain reaches its limit here"),
        "{report:.600}"
    );
    assert!(!report.contains("Failed to read"), "{report:.600}");
    // A short sum on a term nested deeply is nesting, not a long chain.
    let deep = format!("grundy *({}1 + 1 + 1)", "- ".repeat(9_998));
    let output = run_capped(&["run", "-"], &deep);
    assert!(
        stderr(&output).contains("sprague::parse::too_deep"),
        "{:.600}",
        stderr(&output)
    );
}

#[test]
fn a_source_past_the_size_limit_is_refused_before_it_is_parsed() {
    // A 50 MB file of queries, or a set literal of six million elements,
    // once took more than 4 GB to parse; now a source is read up to
    // `--max-source` bytes. Here the same at a small scale.
    let source = "grundy *3 + *5\n".repeat(200);
    let refused = sprague(&["run", "--max-source", "1000", "-"], &source);
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("sprague::session::source_too_large"));
    assert!(
        stderr(&refused).contains("3,000 bytes"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(stdout(&refused), "");
    let answered = sprague(&["run", "--max-source", "3000", "-"], &source);
    assert_eq!(stdout(&answered), "grundy *3 + *5 = 6\n".repeat(200));
}

/// Thousands of unknown names are each reported; the first ones suggest
/// the declared name they are a slip of, the rest (past 200) do not look
/// for one, which read every declared name for each (9 s for 5,000).
#[test]
fn thousands_of_unknown_names_are_each_reported() {
    let source: String = (0..3000)
        .map(|i| format!("game Game{i}(n) {{ move Game{i}(n - 1) + Gane{i}(n) if n > 0 }}\n"))
        .collect();
    let output = sprague(&["check", "-"], &source);
    assert_eq!(output.status.code(), Some(1));
    let said = stderr(&output);
    assert_eq!(said.matches("unknown game `Gane").count(), 3000);
    assert!(said.contains("did you mean `Game0`?"), "{}", &said[..2000]);
    assert!(!said.contains("did you mean `Game2999`?"));
}

/// A `let` of a value that reads a `let` declared below it, or itself,
/// is refused: it read the later one as 0 (`let x = y * 10 + 7` then
/// `let y = 2` gave `*7`, and `let x = x + 1` gave `*1`). Each form a
/// value takes, and a position reading a value declared below it.
#[test]
fn a_let_reading_a_later_let_is_refused_not_read_as_zero() {
    for source in [
        "let x = y * 10 + 7\nlet y = 2\ngrundy *x",
        "let x = x + 1\ngrundy *x",
        "let s = {1, t}\nlet t = 4\ngrundy *len(s)",
        "let l = [t, t]\nlet t = 4\ngrundy *len(l)",
        "let p = *k\nlet k = 3\ngrundy p",
        "let n = max(k, 1)\nlet k = 3\ngrundy *n",
        "let r = Grid(k, 2)\nlet k = 3\ngame Cram(s) { move Cram(s - {a, b}) for a in s, b in neighbours(s, a) if a < b }\ngrundy Cram(r)",
        // A graph family below: its board was built empty.
        "let n = len(nodes(F(3)))\ngraph F(n) { nodes 0..n  edge i -- i + 1 for i in 0..n - 1 }\ngrundy *n",
        "graph F(n) { nodes 0..n + k  edge i -- i + 1 for i in 0..n - 1 }\nlet k = 1\ngrundy *len(nodes(F(2)))",
    ] {
        let output = fails_with(source, "let_before_declaration");
        assert!(stdout(&output).is_empty(), "{source}: {}", stdout(&output));
    }
    let output = fails_with("let x = x + 1\ngrundy *x", "let_before_declaration");
    assert!(stderr(&output).contains("cannot use its own value"));
    // Declared above, each is read as declared.
    let output = sprague(&["run", "-"], "let y = 2\nlet x = y * 10 + 7\ngrundy *x");
    assert_eq!(stdout(&output), "grundy *27 = 27\n");
}

/// Standard error closed early (`sprague run f.game 2>&1 | head -c 10`):
/// the run ends with its own exit code, 1 for errors, where the first
/// report written after the close panicked (exit 101).
#[test]
fn a_closed_standard_error_is_no_panic() {
    use std::io::{Read, Write};
    use std::process::{Command, Stdio};
    let source: String = (0..3000).map(|i| format!("grundy Nope{i}(1)\n")).collect();
    for args in [&["run", "-"][..], &["run", "--json", "-"], &["repl"]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sprague"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let feeding = {
            let source = source.clone();
            std::thread::spawn(move || {
                let _ = stdin.write_all(source.as_bytes());
            })
        };
        let mut first = [0u8; 10];
        child.stderr.take().unwrap().read_exact(&mut first).unwrap();
        // The pipe is closed here, with the reports unread.
        let status = child.wait().unwrap();
        feeding.join().unwrap();
        assert_eq!(status.code(), Some(1), "{args:?}");
    }
}

/// Two labels of one report on one line, 70,000 columns apart: each is
/// drawn in a snippet of its own (drawn as one, miette panicked past
/// 65,535 columns).
#[test]
fn labels_far_apart_on_one_line_are_drawn_apart() {
    for source in [
        format!("let a = b + 1{}let b = 1 grundy *a", " ".repeat(70_000)),
        format!("let b = 1{}let c = b(3) grundy c", " ".repeat(70_000)),
        // The second far into the next line, or past tabs.
        format!("let a = b + 1\n{}let b = 1\ngrundy *a", " ".repeat(70_000)),
        format!("let a = b + 1{}let b = 1\ngrundy *a", "\t".repeat(20_000)),
        format!("game G = *1\n{}game G = *2", " ".repeat(70_000)),
    ] {
        let output = sprague(&["run", "-"], &source);
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        let report = stderr(&output);
        assert!(!report.contains("panicked"), "{report}");
        assert!(report.contains("here"), "{report}");
        assert_eq!(report.matches("╭─[").count(), 2, "{report}");
    }
}

/// Runs `source` with `args`, and sends SIGTERM once its first answer is
/// printed; answers what it printed then, and its exit code.
fn stopped_after_the_first_answer(
    args: &[&str],
    source: &str,
    settle: std::time::Duration,
) -> (String, String, Option<i32>) {
    let args: Vec<&str> = ["run"]
        .into_iter()
        .chain(args.iter().copied())
        .chain(["-"])
        .collect();
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    common::signalled_after_the_first_line(&args, here, source, libc::SIGTERM, settle)
}

/// A stop is heard between assignments that give nothing: a rule whose
/// guard lets none through (no option, so no fold for the engine to stop),
/// and a table whose guard passes one row in two billion. Each ran to its
/// end whatever the signal (a hundred rules of nine million assignments:
/// 21 s after SIGTERM).
#[test]
fn a_stop_is_heard_where_guards_let_nothing_through() {
    // The first row is printed at once; the signal is sent then, while
    // the second is under way.
    let rule = "game G(n) {\n  move G(n - 1) for k in 0..n * 1000000000 if k % 7 == 9\n}\n";
    let cases = [
        (
            "--max-states",
            format!("{rule}grundy G(n) for n in 0..=3\n"),
            ("grundy G(0) = 0\n", "G(1)"),
        ),
        (
            "--max-work",
            "grundy *x for x in 0..2000000000 if x == 1 or x == 1999999999\n".to_string(),
            ("grundy *1 = 1\n", "*1999999999"),
        ),
        // A billion trial divisions, in one binding's domain.
        (
            "--max-work",
            "nim d + n - n for n in {1, 999999999999999989}, d in divisors(n)\n".to_string(),
            ("nim 1 + 1 - 1 = 1\n", "999999999999999989 -"),
        ),
    ];
    for (flag, source, (first, unanswered)) in cases {
        let (printed, said, code) =
            stopped_after_the_first_answer(&[flag, "3000000000"], &source, Duration::ZERO);
        assert!(printed.starts_with(first), "{printed} {said} {code:?}");
        assert!(!printed.contains(unanswered), "{printed}");
        assert_eq!(code, Some(130), "{printed} {said}");
        assert!(said.contains("sprague::eval::interrupted"), "{said}");
    }
}

/// The children a process started (Linux's /proc), as text.
fn children(pid: u32) -> String {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten();
    tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
        .collect()
}

/// Graphviz drawing a large move graph is stopped with the run: `dot` is
/// killed, and the run ends interrupted. It waited for `dot`, minutes on
/// this graph, and left it running when killed.
#[test]
fn a_stop_while_graphviz_draws_ends_the_run_and_graphviz() {
    let dir = tempfile::tempdir().unwrap();
    let source = "game K(n) { move K(a) + K(n - k - a) for k in 1..=2, a in 0..=n - k }\n\
                  draw K(120) to \"k.svg\"\n";
    std::fs::write(dir.path().join("k.game"), source).unwrap();
    let args = ["run", "--max-draw", "1000000", "k.game"];
    let child = common::spawned(&args, dir.path());
    let started = std::time::Instant::now();
    let dot = loop {
        // A child is named as the run until it has become `dot` (between
        // its fork and its exec).
        let children = children(child.id());
        if let Some(dot) = children.split_whitespace().next() {
            let name = std::fs::read_to_string(format!("/proc/{dot}/comm")).unwrap_or_default();
            if name.trim() == "dot" {
                break dot.to_owned();
            }
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(120));
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    // SAFETY: the pid is our child's, not yet waited for.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    let output = child.wait_with_output().unwrap();
    let said = stderr(&output);
    assert_eq!(output.status.code(), Some(130), "{said}");
    assert!(said.contains("sprague::eval::interrupted"), "{said}");
    assert!(!dir.path().join("k.svg").exists());
    // `dot` was waited for: no such process is left.
    assert!(
        !std::path::Path::new(&format!("/proc/{dot}")).exists(),
        "dot {dot} is left"
    );
}

/// `moves` and `strategy` of a heap of millions list a line per move:
/// a stop is heard while they are listed (they ran to their end, 20–45
/// seconds, and printed every line).
#[test]
fn a_stop_is_heard_while_millions_of_moves_are_listed() {
    for (query, unanswered) in [
        ("moves *9000000 + *5", "moves"),
        ("strategy *2000000", "strategy"),
        ("why *2000000", "why"),
    ] {
        // The signal comes once the listing is under way (it takes tens of
        // seconds), not between the two queries.
        let source = format!("grundy *1\n{query}\n");
        let settle = Duration::from_millis(300);
        let rows = ["--max-rows", "100000000"];
        let (printed, said, code) = stopped_after_the_first_answer(&rows, &source, settle);
        assert!(printed.starts_with("grundy *1 = 1\n"), "{printed} {said}");
        assert!(!printed.contains(unanswered), "{query}: {printed}");
        assert_eq!(code, Some(130), "{query}: {said}");
        assert!(said.contains("sprague::eval::interrupted"), "{said}");
    }
}

/// A stop before any query (here while the source is still being read
/// from a pipe that stays open) ends the run with 130 and says so: it was
/// killed by the signal, without a word, in the moment before the first
/// query began.
#[test]
fn a_stop_while_the_source_is_read_says_so() {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for signal in [libc::SIGTERM, libc::SIGINT] {
        let mut child = common::spawned(&["run", "-"], here);
        // The pipe is held open: `run -` waits for the rest of its source.
        let input = child.stdin.take();
        std::thread::sleep(Duration::from_millis(500));
        // SAFETY: the pid is our child's, not yet waited for.
        unsafe { libc::kill(child.id() as libc::pid_t, signal) };
        let output = child.wait_with_output().unwrap();
        drop(input);
        let said = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(130), "{said}");
        assert!(said.contains("while no query was under way"), "{said}");
        assert_eq!(stdout(&output), "");
    }
}

/// A run whose answers wait on a pipe nobody reads cannot hear a stop by
/// itself: it is ended 5 s after the signal, or at once on a second one
/// (it stayed until the reader left, forever if it never did).
#[test]
fn a_run_blocked_on_its_output_is_ended_after_a_stop() {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for signals in [1, 2] {
        let mut child = common::spawned(&["run", "-"], here);
        let mut input = child.stdin.take().unwrap();
        input.write_all(b"nim x for x in 0..1000000\n").unwrap();
        drop(input);
        // Nobody reads its output: a pipe's worth is written, then it waits.
        let output = child.stdout.take();
        std::thread::sleep(Duration::from_millis(1000));
        for _ in 0..signals {
            // SAFETY: the pid is our child's, not yet waited for.
            unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
            std::thread::sleep(Duration::from_millis(200));
        }
        let ended = (0..300).find_map(|_| {
            std::thread::sleep(Duration::from_millis(100));
            child.try_wait().unwrap()
        });
        drop(output);
        let Some(status) = ended else {
            let _ = child.kill();
            panic!("still running 30 s after {signals} signals");
        };
        let mut said = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut said).unwrap();
        assert_eq!(status.code(), Some(130), "{said}");
        assert!(said.contains("ended at once"), "{said}");
    }
}

/// `sprague diff` hears a stop as a run does: the comparison under way
/// ends with the interrupted error, no later game is compared, and the
/// exit code is 130. It was killed by the signal itself, without a word.
#[test]
fn a_stop_is_heard_while_diff_compares() {
    let dir = tempfile::tempdir().unwrap();
    // `A` differs at once and is compared in a moment; Kayles' `K` over
    // twenty thousand heaps takes minutes; `Z` is compared after it, and
    // `Y`, in the new file only, is not named either.
    let files = [
        ("A(n) { move A(n - 1) if n > 0 }", 2),
        ("A(n) { move A(n - 2) if n > 1 }", 3),
    ]
    .map(|(a, k)| {
        format!(
            "game {a}\n\
             game K(n) {{ move K(a) + K(n - k - a) for k in 1..={k}, a in 0..=n - k }}\n\
             game Z(n) {{ move Z(n - 1) if n > 0 }}\n"
        )
    });
    for (name, text) in ["old.game", "new.game"].iter().zip(&files) {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let only_new = "game Y(n) { move Y(n - 1) if n > 0 }\n";
    std::fs::write(
        dir.path().join("new.game"),
        format!("{}{only_new}", files[1]),
    )
    .unwrap();
    let args = ["diff", "--range", "0..=20000", "old.game", "new.game"];
    let settle = Duration::from_millis(300);
    let (printed, said, code) =
        common::signalled_after_the_first_line(&args, dir.path(), "", libc::SIGTERM, settle);
    assert!(printed.starts_with("diff A = 20001 positions"), "{printed}");
    assert!(
        !printed.contains("diff K") && !printed.contains("diff Z"),
        "{printed}"
    );
    assert!(!printed.contains("Y: only in"), "{printed}");
    assert_eq!(code, Some(130), "{said}");
    assert!(said.contains("sprague::eval::interrupted"), "{said}");
}

/// A list of moves (`moves`, `strategy`, `why`: a row per move) holds at
/// most `--max-rows` moves: `strategy *5000000` held ten million rows
/// (5.6 GB), and `moves *9000000 + *5` ran out of memory under a limit of
/// 4 GB. A heap's moves are refused before they are listed, a game's once
/// its options are.
#[test]
fn lists_of_moves_are_held_within_the_limit_of_rows() {
    let kayles = "game K(n) { move K(a) + K(n - k - a) for k in 1..=2, a in 0..=n - k }\n";
    // Kayles on a row of 6 has 6 + 5 moves; *n + *1 has n + 1; the
    // strategy of A = *n is listed for A + *n, 2n moves.
    for (query, moves) in [
        ("moves *9 + *1", 10),
        ("strategy *5", 10),
        ("why *10", 10),
        ("moves K(6)", 11),
        ("why K(6)", 11),
    ] {
        let source = format!("{kayles}{query}\n");
        for limit in [moves, moves - 1] {
            let output = sprague(&["run", "--max-rows", &limit.to_string(), "-"], &source);
            let said = stderr(&output);
            match limit == moves {
                true => assert!(output.status.success(), "{query}: {said}"),
                false => {
                    assert_eq!(output.status.code(), Some(1), "{query}");
                    assert!(said.contains("too_many_moves_listed"), "{query}: {said}");
                    assert!(said.contains("--max-rows"), "{said}");
                    assert_eq!(stdout(&output), "", "{query}");
                }
            }
        }
    }
    for query in ["strategy *5000000", "moves *9000000 + *5", "why *2000000"] {
        fails_with(query, "too_many_moves_listed");
    }
}
