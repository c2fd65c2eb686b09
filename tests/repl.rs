//! Scripted REPL sessions: each `tests/repl/NAME.in` is piped into
//! `sprague repl`, and what it prints must be exactly `NAME.out` (standard
//! output) and `NAME.err` (standard error).

mod common;

use std::path::Path;

use common::sprague;

fn transcript(name: &str) {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/repl");
    let input = std::fs::read_to_string(directory.join(format!("{name}.in"))).unwrap();
    let output = sprague(&["repl", "--max-states", "100000"], &input);
    for (stream, printed) in [("out", &output.stdout), ("err", &output.stderr)] {
        let expected = std::fs::read_to_string(directory.join(format!("{name}.{stream}"))).unwrap();
        assert_eq!(
            String::from_utf8_lossy(printed),
            expected,
            "{name}.{stream}"
        );
    }
}

/// The lines of `grundy` answers the REPL prints for `input`, and what it
/// writes to standard error.
fn repl_answers(input: &str) -> (Vec<String>, String) {
    let output = sprague(&["repl"], input);
    let answers = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter(|line| line.starts_with("grundy"))
        .map(str::to_owned)
        .collect();
    (
        answers,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn declarations_multi_line_blocks_and_redeclaration() {
    transcript("declarations");
}

#[test]
fn every_command() {
    transcript("commands");
}

#[test]
fn errors_are_reported_and_the_session_goes_on() {
    transcript("errors");
}

#[test]
fn whole_games_against_the_engine() {
    transcript("play");
}

/// Misère play: moves judged by the misère outcome they leave, from the
/// quotient where it reaches the heaps and by the search past it; the
/// player left without a move wins.
#[test]
fn misere_games_against_the_engine() {
    transcript("misere_play");
}

/// A loopy game: the engine keeps a drawn game drawn (never stepping to
/// Spin.c, which loses), and takes a win when offered one.
#[test]
fn loopy_games_against_the_engine() {
    transcript("loopy_play");
}

#[test]
fn a_piped_query_prints_what_run_prints() {
    let run = |args: &[&str]| sprague(args, "grundy *3 + *5\n").stdout;
    let repl = run(&["repl"]);
    assert_eq!(String::from_utf8_lossy(&repl), "grundy *3 + *5 = 6\n");
    assert_eq!(repl, run(&["run", "-"]));
    assert_eq!(repl, run(&[]), "plain `sprague` is the REPL");
}

/// `:load` reads a file as `sprague run` does: one that is not UTF-8 is
/// shown at its first bad byte, and the session goes on.
#[test]
fn load_shows_where_a_file_stops_being_utf8() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.game");
    std::fs::write(&path, b"game S = subtraction {1}\n\xff grundy S(3)\n").unwrap();
    let input = format!(":load {}\ngrundy *1\n", path.display());
    let output = sprague(&["repl"], &input);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("sprague::cli::not_utf8"), "{stderr}");
    assert!(stderr.contains("byte 0xff at line 2, column 1"), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&output.stdout), "grundy *1 = 1\n");
}

#[test]
fn time_reports_how_long_each_entry_took() {
    let output = sprague(&["repl"], ":time on\ngrundy *3\n:time off\ngrundy *4\n");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "grundy *3 = 3\ngrundy *4 = 4\n"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    // One timing for the query while on (and one for `:time off` itself).
    let timings: Vec<&str> = stderr
        .lines()
        .filter(|line| line.starts_with("time: "))
        .collect();
    assert_eq!(timings.len(), 2, "{stderr}");
}

/// A graph of more than 128 nodes redeclared with other edges: its regions
/// are known by the graph's id, which the new declaration keeps, so the
/// values found on the old edges must be forgotten, not read. Node Kayles
/// on a star of 149 leaves is 1 (the centre takes all; a leaf takes the
/// centre and leaves 148 single nodes, 0); on a path of 150 nodes it is
/// 4 (Dawson's Kayles, OEIS A002187 at 150).
#[test]
fn a_large_graph_redeclared_is_valued_by_its_new_edges() {
    let path: String = (0..149).map(|i| format!("  {i} -- {}\n", i + 1)).collect();
    let star: String = (1..150).map(|i| format!("  0 -- {i}\n")).collect();
    let input = format!(
        "game NK(s) splits {{ move NK(s - closed(s, v)) for v in s }}\n\
         graph G {{\n{path}}}\ngrundy NK(G)\n\
         graph G {{\n{star}}}\ngrundy NK(G)\n\
         graph G {{\n{path}}}\ngrundy NK(G)\n"
    );
    let (answers, notes) = repl_answers(&input);
    assert_eq!(
        answers,
        ["grundy NK(G) = 4", "grundy NK(G) = 1", "grundy NK(G) = 4"]
    );
    assert!(!notes.contains("forgot 0 "), "{notes}");
}

/// A `let` redeclared in terms of a `let` declared after the old one is
/// read as declared (it was lowered in the old one's place, before the
/// `let` it reads, which it read as 0), and so is a `let` that used the
/// old one; two `let`s that would read each other are refused, and the
/// old ones stay.
#[test]
fn a_let_redeclared_reads_the_lets_declared_after_it() {
    let (answers, stderr) = repl_answers(
        "let k = 3\nlet j = k * 10\nlet m = 2\nlet k = m + 5\ngrundy *k\ngrundy *j\n\
         let x = 1\nlet y = x + 1\nlet x = y + 10\ngrundy *x\ngrundy *y\n",
    );
    assert_eq!(
        answers,
        [
            "grundy *7 = 7",
            "grundy *70 = 70",
            "grundy *1 = 1",
            "grundy *2 = 2"
        ],
        "{stderr}"
    );
    assert!(stderr.contains("let_before_declaration"), "{stderr}");
}

/// A redeclaration keeps the other declarations in their order where that
/// order checks: a set built over a variable named like a `let` below it,
/// or a family whose parameter is, is not taken to use that `let` (each
/// redeclaration was refused, or the family built empty, `*0`).
#[test]
fn a_redeclaration_leaves_variables_named_like_lets_alone() {
    let (answers, stderr) = repl_answers(
        "let S = {x * 2 for x in 0..3}\nlet x = len(S)\nlet z = 1\nlet z = 2\ngrundy *x + *z\n\
         graph F(n) { nodes 0..n  edge i -- i + 1 for i in 0..n - 1 }\nlet n = len(nodes(F(4)))\n\
         let z = 5\ngrundy *n + *z\n",
    );
    // 3 ^ 2 = 1, 4 ^ 5 = 1.
    assert_eq!(
        answers,
        ["grundy *3 + *2 = 1", "grundy *4 + *5 = 1"],
        "{stderr}"
    );
    assert!(!stderr.contains("sprague::"), "{stderr}");
}

/// A graph family redeclared: the games that build its boards, directly
/// or through a `let`, are valued again (a family called `F(n)` was not
/// seen as used, and their old values were kept: `G(10)` stayed 2).
#[test]
fn a_family_redeclared_revalues_the_games_that_use_it() {
    let (answers, stderr) = repl_answers(
        "graph F(n) { nodes 0..n }\nlet K = len(nodes(F(3)))\n\
         game G(n) { move G(n - k) for k in 1..=K if k <= n }\n\
         game H(n) { move H(n - k) for k in 1..=len(nodes(F(2))) if k <= n }\n\
         grundy G(10)\ngrundy H(10)\n\
         graph F(n) { nodes 0..n + 1 }\ngrundy *K\ngrundy G(10)\ngrundy H(10)\n",
    );
    // Subtraction of 1..=k: n mod (k + 1).
    assert_eq!(
        answers,
        [
            "grundy G(10) = 2",
            "grundy H(10) = 1",
            "grundy *4 = 4",
            "grundy G(10) = 0",
            "grundy H(10) = 2"
        ],
        "{stderr}"
    );
}

/// Ctrl-C while the REPL loads its files stops the file under way, and
/// the files after it are declared but not asked, as `sprague run` does;
/// they were asked.
#[test]
fn ctrl_c_while_files_load_asks_no_later_file() {
    let dir = tempfile::tempdir().unwrap();
    // Its first row at once, its second after a billion assignments.
    let long = "game G(n) {\n  move G(n - 1) for k in 0..n * 1000000000 if k % 7 == 9\n}\n\
                grundy G(n) for n in 0..=3\n";
    std::fs::write(dir.path().join("long.game"), long).unwrap();
    let later = "game T(n) { move T(n - 1) if n > 0 }\ngrundy T(4)\n";
    std::fs::write(dir.path().join("later.game"), later).unwrap();
    let args = [
        "repl",
        "--max-states",
        "3000000000",
        "long.game",
        "later.game",
    ];
    let (printed, said, _) = common::signalled_after_the_first_line(
        &args,
        dir.path(),
        "grundy T(5)\n",
        libc::SIGINT,
        std::time::Duration::ZERO,
    );
    assert_eq!(printed, "grundy G(0) = 0\ngrundy T(5) = 1\n", "{said}");
    assert!(said.contains("interrupted"), "{said}");
    assert!(
        said.contains("stopped before the queries of later.game were asked"),
        "{said}"
    );
}
