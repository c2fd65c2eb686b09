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
