//! The pruned search on several threads (`--threads`): each thread asks the
//! question of its own engine and they share what they learn, so the
//! answers must be the memo's whichever thread finds a fact first, and a
//! limit or an error must end every thread.

mod common;

use common::{PETERSEN, printed, region, sprague};
use proptest::prelude::*;
use sprague::engine::{DEFAULT_MAX_STATES, Method};
use sprague::session::{Answer, Event, Session, Value};

const GAMES: &str = "
game Cram(s) splits up to symmetry {
  move Cram(s - {a, b}) for a in s, b in neighbours(s, a) if a < b
}
game NodeKayles(s) splits up to symmetry {
  move NodeKayles(s - closed(s, v)) for v in s
}
";

/// Node Kayles on the 3 × n lattice, OEIS A316632 (n = 1 to 16).
const A316632: [u64; 16] = [2, 1, 1, 0, 3, 3, 2, 2, 2, 3, 3, 5, 2, 4, 1, 3];

/// Node Kayles on P(n, 2), OEIS A316533 (n = 5 to 22).
const A316533: [u64; 18] = [1, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0];

fn session(method: Method, threads: usize) -> Session {
    let mut session = Session::new(DEFAULT_MAX_STATES);
    session.set_method(method);
    session.set_threads(threads);
    session
}

fn run(mut session: Session, queries: &str) -> Vec<Answer> {
    let mut answers = Vec::new();
    session.run(
        "test.game",
        &format!("{GAMES}{PETERSEN}{queries}"),
        &mut |event| match event {
            Event::Answer(answer) => answers.push(answer),
            other => panic!("unexpected {other:?}"),
        },
    );
    answers
}

fn values(answers: &[Answer]) -> Vec<u64> {
    answers
        .iter()
        .map(|answer| match answer.value {
            Value::Grundy(value) => value,
            Value::Wins(wins) => u64::from(wins),
            ref other => panic!("expected a value, got {other:?}"),
        })
        .collect()
}

/// The published sequences, by two and by three threads (the second
/// helper takes the options from a point past the easiest, the first from
/// the hardest back), `grundy` and `wins?` both; past them, `best_move`,
/// `moves`, `why` and `strategy` too.
#[test]
fn published_sequences_by_several_threads() {
    for threads in [2, 3] {
        let answers = run(
            session(Method::Search, threads),
            "grundy NodeKayles(Grid(3, n)) for n in 1..=16\n",
        );
        assert_eq!(values(&answers), A316632, "{threads} threads");
        let answers = run(
            session(Method::Search, threads),
            "wins? NodeKayles(Grid(3, n)) for n in 1..=16\n",
        );
        let wins: Vec<u64> = A316632.iter().map(|&g| u64::from(g != 0)).collect();
        assert_eq!(values(&answers), wins, "{threads} threads");
        let answers = run(
            session(Method::Search, threads),
            "grundy NodeKayles(Petersen(n, 2)) for n in 5..=22\n",
        );
        assert_eq!(values(&answers), A316533, "{threads} threads");
    }
    // Past the published terms, against the memo: boards on which the
    // threads share many facts before the first answers.
    let queries = "grundy NodeKayles(Grid(3, n)) for n in 17..=20\n\
                   wins? Cram(Grid(4, n)) + *1 for n in 5..=7\n\
                   grundy Cram(Grid(5, 6))\n\
                   best_move Cram(Grid(4, 7)) + *1\n\
                   best_move NodeKayles(Grid(3, n)) for n in 17..=18\n\
                   moves Cram(Grid(4, 6) - {0})\n\
                   moves NodeKayles(Grid(3, 9)) + *2\n\
                   why Cram(Grid(4, 7))\n\
                   why NodeKayles(Grid(3, 12))\n\
                   strategy Cram(Grid(3, 7))\n";
    let memo = run(session(Method::Memo, 1), queries);
    let search = run(session(Method::Search, 2), queries);
    assert_eq!(printed(&search), printed(&memo));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Random regions of boards up to 4 × 7, every question asked by two
    /// and by three threads: the answers are the memo's, and so is the
    /// winning move (the first option of the right value, in the order
    /// every thread lists them), every move's value (each thread values
    /// the options from elsewhere) and `why`'s witnesses.
    #[test]
    fn threads_answer_as_the_memo_does(
        rows in 3u32..=4,
        cols in 5u32..=7,
        masks in any::<[u64; 2]>(),
        heap in 0u64..4,
    ) {
        let mask = masks[0] | masks[1];
        let a = region(rows, cols, mask);
        let mut queries = String::new();
        for game in ["Cram", "NodeKayles"] {
            queries.push_str(&format!("grundy {game}({a})\n"));
            queries.push_str(&format!("wins? {game}({a}) + *{heap}\n"));
            queries.push_str(&format!("grundy {game}({a}) + {game}(Grid(2, 5))\n"));
            queries.push_str(&format!("best_move {game}({a}) + *{heap}\n"));
            queries.push_str(&format!("moves {game}({a}) + *{heap}\n"));
            queries.push_str(&format!("why {game}({a})\n"));
        }
        let memo = run(session(Method::Memo, 1), &queries);
        for threads in [2, 3] {
            let search = run(session(Method::Search, threads), &queries);
            prop_assert_eq!(printed(&search), printed(&memo), "{} threads", threads);
        }
    }
}

/// `play` lists a position's moves on every core as `moves` does: each
/// move's value on two and three threads is the memo's on one.
#[test]
fn play_lists_the_memos_moves_on_several_threads() {
    let listed = |method, threads| {
        let mut session = session(method, threads);
        session.run("games.game", GAMES, &mut |event| panic!("{event:?}"));
        let span = miette::SourceSpan::from(0..0);
        let position = session
            .parse_position("play", "Cram(Grid(4, 6) - {0}) + Cram(Grid(2, 5)) + *2")
            .unwrap();
        let moves = session.written_moves(&position, span).unwrap();
        let lines: Vec<String> = moves
            .iter()
            .map(|choice| format!("{:?}", choice.line))
            .collect();
        lines
    };
    let memo = listed(Method::Memo, 1);
    // 4 × 6 less a corner: 4 × 5 - 1 horizontal and 3 × 6 - 1 vertical
    // dominoes; 2 × 5: 2 × 4 + 5; and the heap's two.
    assert_eq!(memo.len(), 19 + 17 + 13 + 2);
    for threads in [2, 3] {
        assert_eq!(listed(Method::Search, threads), memo, "{threads} threads");
    }
}

/// A limit met on several threads ends them all with the limit's error,
/// and the flag is accepted and clamped to the cores as before.
#[test]
fn a_limit_ends_every_thread() {
    let source = format!("{GAMES}grundy Cram(Grid(5, 8))\n");
    let output = sprague(
        &[
            "run",
            "--method",
            "search",
            "--threads",
            "2",
            "--max-work",
            "20000",
            "-",
        ],
        &source,
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("--max-work"), "{stderr}");
    let source = format!("{GAMES}grundy Cram(Grid(4, 7))\nwins? Cram(Grid(3, 7)) + *1\n");
    let output = sprague(
        &["run", "--method", "search", "--threads", "2", "-"],
        &source,
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    // Cram 4 × 7 = 3 and 3 × 7 = 1 (the memo agrees in examples/cram.out).
    assert_eq!(
        stdout,
        "grundy Cram(Grid(4, 7)) = 3\nwins? Cram(Grid(3, 7)) + *1 = false\n"
    );
}
