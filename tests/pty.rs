//! The REPL on a pseudo-terminal, as a person uses it: tab completion,
//! Ctrl-C during a long query, and history that survives a restart.

use std::path::Path;
use std::process::Command;
use std::thread::sleep;
use std::time::Duration;

use rexpect::session::{PtySession, spawn_command};

/// `sprague repl` on a terminal, its history kept under `data`.
fn repl(data: &Path) -> PtySession {
    let mut command = Command::new(env!("CARGO_BIN_EXE_sprague"));
    command
        .arg("repl")
        .env("XDG_DATA_HOME", data)
        .env("HOME", data)
        .env("TERM", "xterm");
    let mut session = spawn_command(command, Some(30_000)).unwrap();
    ready(&mut session);
    session
}

/// Waits for the prompt, then a moment more, so that what is sent next is
/// typed at an open line, as a person types it.
fn ready(session: &mut PtySession) {
    session.exp_string("sprague>").unwrap();
    sleep(Duration::from_millis(200));
}

#[test]
fn tab_completion_and_continuation_lines() {
    let data = tempfile::tempdir().unwrap();
    let mut session = repl(data.path());
    session
        .send_line(
            "game Kayles(n) { move Kayles(a) + Kayles(n - k - a) for k in 1..=2, a in 0..=n - k }",
        )
        .unwrap();
    ready(&mut session);
    // An unfinished block continues under the continuation prompt.
    session.send_line("game Empty {").unwrap();
    session.exp_string("...>").unwrap();
    sleep(Duration::from_millis(200));
    session.send_line("}").unwrap();
    ready(&mut session);
    session.send("grun\t").unwrap();
    session.send(" Kay\t").unwrap();
    session.send_line("(5)").unwrap();
    session.exp_string("grundy Kayles(5) = 4").unwrap();
    session.send_line(":quit").unwrap();
    session.exp_eof().unwrap();
}

#[test]
fn tab_completes_boards_and_graphs() {
    let data = tempfile::tempdir().unwrap();
    let mut session = repl(data.path());
    session
        .send_line("game NodeKayles(s) splits { move NodeKayles(s - closed(s, v)) for v in s }")
        .unwrap();
    ready(&mut session);
    session
        .send_line("graph Triangle { a -- b, c  b -- c }")
        .unwrap();
    ready(&mut session);
    session
        .send("grun\t NodeK\t(Gri\t(2, 3)) + NodeKayles(Tri\t)")
        .unwrap();
    session.send_line("").unwrap();
    // On 2 × 3, a corner leaves a path of three (*2), the middle of a long
    // side two single cells (*1 + *1 = 0): mex {0, 2} = 1. Any node of a
    // triangle takes all three: *1.
    session
        .exp_string("grundy NodeKayles(Grid(2, 3)) + NodeKayles(Triangle) = 0")
        .unwrap();
    session.send_line(":quit").unwrap();
    session.exp_eof().unwrap();
}

/// Declares a game, asks a long query of it, and interrupts the query
/// with Ctrl-C after a second and a half.
fn interrupt(session: &mut PtySession, declaration: &str, query: &str) {
    session.send_line(declaration).unwrap();
    ready(session);
    session.send_line(query).unwrap();
    sleep(Duration::from_millis(1500));
    session.send_control('c').unwrap();
    session.exp_string("interrupted").unwrap();
    ready(session);
}

#[test]
fn ctrl_c_interrupts_a_long_query_and_the_session_goes_on() {
    let data = tempfile::tempdir().unwrap();
    let mut session = repl(data.path());
    // Thirty options a position: seconds of work before the state limit.
    let up = "game Up(n) { move Up(n + 1) for k in 1..=30 if n < 100000000 }";
    interrupt(&mut session, up, "grundy Up(0)");
    // Ctrl-C at the prompt clears the line; the next entry is evaluated.
    session.send("grundy *9").unwrap();
    sleep(Duration::from_millis(300));
    session.send_control('c').unwrap();
    ready(&mut session);
    session.send_line("grundy *2 + *3").unwrap();
    session.exp_string("grundy *2 + *3 = 1").unwrap();
    session.send_control('d').unwrap();
    session.exp_eof().unwrap();
}

/// A code's value table, seconds of work for this code, stops at Ctrl-C
/// as a search does.
#[test]
fn ctrl_c_interrupts_a_long_table() {
    let data = tempfile::tempdir().unwrap();
    let mut session = repl(data.path());
    // Grundy's game far: seconds of work, shared among the threads.
    let grundys_game = "game T = octal \"4!.0\"";
    interrupt(&mut session, grundys_game, "grundy T(9000000)");
    session.send_line("grundy T(7)").unwrap();
    // 7 splits into 6 + 1 (1 ^ 0 = 1), 5 + 2 (2 ^ 0 = 2) or 4 + 3
    // (0 ^ 1 = 1): mex {1, 2} = 0 (OEIS A002188).
    session.exp_string("grundy T(7) = 0").unwrap();
    session.send_control('d').unwrap();
    session.exp_eof().unwrap();
}

#[test]
fn history_survives_a_restart() {
    let data = tempfile::tempdir().unwrap();
    let mut first = repl(data.path());
    first.send_line("grundy *7 + *1").unwrap();
    first.exp_string("grundy *7 + *1 = 6").unwrap();
    first.send_line(":quit").unwrap();
    first.exp_eof().unwrap();
    assert!(data.path().join("sprague/history").exists());

    let mut second = repl(data.path());
    // Up twice: past `:quit` to the query.
    second.send("\x1b[A\x1b[A").unwrap();
    second.send_line("").unwrap();
    second.exp_string("grundy *7 + *1 = 6").unwrap();
    second.send_line(":quit").unwrap();
    second.exp_eof().unwrap();
}

/// `sprague run` on a terminal shows a long search's progress on standard
/// error, then clears it for the answer.
#[test]
fn a_long_run_shows_its_progress() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("long.game");
    // Seven million positions, a chain: seconds of work, one answer.
    std::fs::write(
        &file,
        "game Down(n) { move Down(n - 1) if n > 0 and n != 2000000 }\ngrundy Down(9000000)\n",
    )
    .unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_sprague"));
    command.arg("run").arg(&file).env("TERM", "xterm");
    let mut session = spawn_command(command, Some(60_000)).unwrap();
    session.exp_regex("solving: [1-9][0-9]* positions").unwrap();
    // 7,000,000 moves from 9,000,000 down to 2,000,000, where play stops.
    session.exp_string("grundy Down(9000000) = 0").unwrap();
    session.exp_eof().unwrap();
}

/// A search of whole sums shows the sums it has searched, which grow
/// while the positions of its parts' tables stay as many (its line said
/// "solving: 0 positions" throughout). Four subtraction games to 30 are
/// 31^4 = 923,521 sums at most: seconds of search.
#[test]
fn a_long_crosscheck_shows_the_sums_it_searched() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sums.game");
    std::fs::write(
        &file,
        "game A = subtraction {1, 2}\ngame B = subtraction {1, 3}\ngame C = subtraction {2, 3}\ngame D = subtraction {1, 4}\ncrosscheck A(30) + B(30) + C(30) + D(30)\n",
    )
    .unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_sprague"));
    command.arg("run").arg(&file).env("TERM", "xterm");
    let mut session = spawn_command(command, Some(60_000)).unwrap();
    session
        .exp_regex("searching whole sums: [1-9][0-9]* sums")
        .unwrap();
    // The XOR rule and the search agree, as the theorem says.
    session.exp_string("= agree").unwrap();
    session.exp_eof().unwrap();
}

/// `sprague run` looking for a period with none in sight says how far it
/// looked; Ctrl-C stops it with the interrupted error, the queries after it
/// are not asked, and the exit status is 130, as for SIGINT.
#[test]
fn ctrl_c_stops_a_long_run_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("far.game");
    std::fs::write(&file, "game X = octal \"0.04\"\nperiod X\ngrundy *1 + *2\n").unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_sprague"));
    command.arg("run").arg(&file).env("TERM", "xterm");
    let mut session = spawn_command(command, Some(60_000)).unwrap();
    session
        .exp_regex("period X: none up to [1-9][0-9]* proven; [1-9][0-9]* positions")
        .unwrap();
    session.send_control('c').unwrap();
    session.exp_string("interrupted").unwrap();
    let rest = session.exp_eof().unwrap();
    assert!(!rest.contains("= 3"), "{rest}");
    let status = session.process().wait().unwrap();
    assert!(
        matches!(status, rexpect::process::WaitStatus::Exited(_, 130)),
        "{status:?}"
    );
}

/// Lines typed (or pasted without bracketed paste) while an earlier one is
/// still being read or evaluated are each evaluated, in order.
#[test]
fn lines_typed_ahead_are_all_evaluated() {
    let data = tempfile::tempdir().unwrap();
    let mut session = repl(data.path());
    session
        .send("grundy *1\ngrundy *2\ngame K(n) {\n  move K(n - k) for k in 1..=2 if k <= n\n}\ngrundy K(5)\ngrundy *3\n")
        .unwrap();
    session.exp_string("grundy *1 = 1").unwrap();
    session.exp_string("grundy *2 = 2").unwrap();
    // A subtraction game of {1, 2}: n mod 3.
    session.exp_string("grundy K(5) = 2").unwrap();
    session.exp_string("grundy *3 = 3").unwrap();
    session.send_control('d').unwrap();
    session.exp_eof().unwrap();
}

/// Ctrl-D at a continuation prompt abandons the unfinished entry; the
/// session goes on.
#[test]
fn ctrl_d_at_a_continuation_prompt_abandons_the_entry() {
    let data = tempfile::tempdir().unwrap();
    let mut session = repl(data.path());
    session.send_line("game Half {").unwrap();
    session.exp_string("...>").unwrap();
    sleep(Duration::from_millis(200));
    session.send_control('d').unwrap();
    ready(&mut session);
    session.send_line("grundy *5 + *1").unwrap();
    session.exp_string("grundy *5 + *1 = 4").unwrap();
    // Half was never declared.
    session.send_line(":games").unwrap();
    session.send_line("grundy *0").unwrap();
    let before = session.exp_string("grundy *0 = 0").unwrap();
    assert!(!before.contains("game Half"), "{before}");
    session.send_control('d').unwrap();
    session.exp_eof().unwrap();
}
