//! The pruned search (`--method search`) against the memo (`--method
//! memo`), which values every position reached, and against published
//! values: both paths must give the same answer for every position.

mod common;

use common::{answers_in, grundy_values_in, region};
use proptest::prelude::*;
use sprague::engine::{DEFAULT_MAX_STATES, Method};
use sprague::session::Session;

/// The board games of examples/, with and without their symmetries.
const GAMES: &str = "
game Cram(s) splits up to symmetry {
  move Cram(s - {a, b}) for a in s, b in neighbours(s, a) if a < b
}
game CramByShape(s) splits {
  move CramByShape(s - {a, b}) for a in s, b in neighbours(s, a) if a < b
}
game NodeKayles(s) splits up to symmetry {
  move NodeKayles(s - closed(s, v)) for v in s
}
game Sparse(s) splits {
  move Sparse(s - closed(s, v)) for v in s if len(neighbours(s, v)) <= 2
}
";

fn session(method: Method) -> Session {
    let mut session = Session::new(DEFAULT_MAX_STATES);
    session.set_method(method);
    session
}

/// Every answer of `queries`, as printed, by one method.
fn printed(method: Method, queries: &str) -> Vec<String> {
    let answers = answers_in(session(method), &format!("{GAMES}{queries}"));
    answers.iter().map(|answer| format!("{answer:?}")).collect()
}

/// Node Kayles on the 3 × n lattice, OEIS A316632 (n = 1 to 16).
const A316632: [u64; 16] = [2, 1, 1, 0, 3, 3, 2, 2, 2, 3, 3, 5, 2, 4, 1, 3];

#[test]
fn node_kayles_on_three_rows_is_a316632_by_search() {
    let source = format!("{GAMES}grundy NodeKayles(Grid(3, n)) for n in 1..=16\n");
    assert_eq!(grundy_values_in(session(Method::Search), &source), A316632);
    // The engine's own choice takes the search on the larger boards.
    assert_eq!(grundy_values_in(session(Method::Auto), &source), A316632);
}

#[test]
fn node_kayles_on_three_rows_is_a316632_by_the_memo() {
    let source = format!("{GAMES}grundy NodeKayles(Grid(3, n)) for n in 1..=11\n");
    assert_eq!(
        grundy_values_in(session(Method::Memo), &source),
        A316632[..11]
    );
}

/// Cram on one row is Dawson's Kayles (a domino takes two pins side by
/// side): OEIS A002187 gives its values shifted by one, a(n - 1) for n
/// cells. Cram on an even × even board is 0 by the symmetry strategy:
/// the second player answers each domino by its image through the
/// centre, which never overlaps it.
#[test]
fn cram_by_search_meets_dawsons_kayles_and_the_symmetry_strategy() {
    const A002187: [u64; 20] = [0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0, 5, 2, 2, 3, 3];
    let source = format!("{GAMES}grundy Cram(Grid(1, n)) for n in 1..=20\n");
    // A002187 starts at a(0): the value of 1 cell is a(0).
    assert_eq!(grundy_values_in(session(Method::Search), &source), A002187);
    let even = format!("{GAMES}grundy Cram(Grid(2 * r, 2 * c)) for r in 1..=2, c in 1..=4\n");
    assert_eq!(grundy_values_in(session(Method::Search), &even), [0; 8]);
}

#[test]
fn wins_and_best_move_by_search_are_the_memos() {
    let queries = "
wins? Cram(Grid(r, c)) for r in 2..=4, c in 3..=6
wins? NodeKayles(Grid(3, n)) + *1 for n in 1..=9
best_move Cram(Grid(4, 5)) + *1
best_move Cram(Grid(3, 5)) + Cram(Grid(2, 3))
best_move NodeKayles(Grid(3, 7)) + NodeKayles(Grid(2, 5))
best_move Sparse(Grid(3, 4) - {5}) + *2
";
    assert_eq!(
        printed(Method::Search, queries),
        printed(Method::Memo, queries)
    );
}

/// Cram on an even × even board is 0 by the symmetry strategy: the second
/// player answers each domino by its image through the centre, which
/// never overlaps it. So is Node Kayles (a cell and its image are never
/// neighbours). The mirror strategy proves each with no search (no
/// position listed), on boards the search took 20 s to a minute and more
/// for (Cram 4 × 10, 6 × 6) or did not finish (6 × 8); `wins?` likewise.
#[test]
fn even_boards_are_proved_zero_by_the_mirror_strategy() {
    let mut queries = String::new();
    for (rows, cols) in [
        (2, 2),
        (2, 10),
        (4, 4),
        (4, 8),
        (4, 10),
        (6, 6),
        (6, 8),
        (8, 4),
    ] {
        queries.push_str(&format!("grundy Cram(Grid({rows}, {cols}))\n"));
    }
    queries.push_str("wins? Cram(Grid(4, 12))\ngrundy NodeKayles(Grid(6, 6))\n");
    let (answers, tally) = printed_with_tally(&queries);
    assert_eq!(answers.len(), 10);
    for answer in &answers[..8] {
        assert!(answer.contains("Grundy(0)"), "{answer}");
    }
    assert!(answers[8].contains("Wins(false)"), "{}", answers[8]);
    assert!(answers[9].contains("Grundy(0)"), "{}", answers[9]);
    assert_eq!(tally.searched, 0);
    assert!(tally.mirrored >= 10, "{tally:?}");
}

/// On Cram 4 × 9 the first player wins by the central upright domino
/// (Cram's table by the search says 4 × 9 is 1): what it leaves is kept
/// by the half turn, and no other domino is its own image, so the
/// mirror strategy proves it 0. `wins?` finds it among the first
/// position's options, the only position the search lists.
#[test]
fn a_move_to_a_mirrored_region_wins_at_once() {
    let (answers, tally) = printed_with_tally("wins? Cram(Grid(4, 9))\n");
    assert!(answers[0].contains("Wins(true)"), "{answers:?}");
    assert_eq!(tally.searched, 1, "{tally:?}");
    assert!(tally.mirrored > 0, "{tally:?}");
}

/// The mirror strategy proves a loss only where play ends. Taking away
/// the neighbours of a node leaves an isolated node as it is, a move back
/// to the same position: a game with such a part is a draw, and so is a
/// pair of them (each player can pass forever), not 0. Every move on the
/// 3 × 3 ring leaves an isolated node (a corner's neighbours leave the
/// corner, an edge cell's leave the two corners beside it), so it is a
/// draw, though its half turn fixes no node: the search answered 0 and
/// "the player to move loses", proved by the mirror strategy.
#[test]
fn a_game_of_endless_play_is_not_proved_zero_by_the_mirror_strategy() {
    let source = "game L(s) splits up to symmetry {
  move L(s - neighbours(s, a)) for a in s
}
grundy L(Grid(3, 3) - {4})
wins? L(Grid(3, 3) - {4})
";
    for method in ["search", "memo", "auto"] {
        let output = common::sprague(&["run", "--method", method, "-"], source);
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            "grundy L(Grid(3, 3) - {4}) = ∞\n\
             wins? L(Grid(3, 3) - {4}) = draw: neither player can force a win\n",
            "{method}"
        );
    }
}

/// Boards the mirror strategy cannot prove keep their values (README's
/// table: 5 × 6 is 2 and 4 × 9 is 1, by the search): on each, a domino
/// across the centre is its own image under every involution that fixes
/// no cell, so the strategy fails at once there, and it fails or proves
/// only what is true on the symmetric positions the search meets.
#[test]
fn boards_the_mirror_strategy_cannot_prove_keep_their_values() {
    let source = format!("{GAMES}grundy Cram(Grid(5, 6))\ngrundy Cram(Grid(4, 9))\n");
    assert_eq!(grundy_values_in(session(Method::Auto), &source), [2, 1]);
}

/// README's table: Cram on 5 × 7 is 1 (a minute or so in a debug build:
/// `cargo test --release --test search -- --ignored`).
#[test]
#[ignore]
fn cram_on_five_by_seven_keeps_its_value() {
    let source = format!("{GAMES}grundy Cram(Grid(5, 7))\n");
    assert_eq!(grundy_values_in(session(Method::Auto), &source), [1]);
}

/// Every answer of `queries` by the engine's own choice of method, as
/// printed, and how far the engine's work went.
fn printed_with_tally(queries: &str) -> (Vec<String>, sprague::engine::Tally) {
    let mut session = session(Method::Auto);
    // Counts are of one thread's work: with helpers they vary from run to
    // run with when values are handed over.
    session.set_threads(1);
    let mut answers = Vec::new();
    let source = format!("{GAMES}{ALIASES}{queries}");
    session.run("test.game", &source, &mut |event| match event {
        sprague::session::Event::Answer(answer) => answers.push(format!("{answer:?}")),
        other => panic!("unexpected {other:?}"),
    });
    (answers, session.tally())
}

/// Answers as printed, with an alias's position written out as the
/// position it stands for.
fn written_out(answers: &[String], alias: &str, stands_for: &str) -> Vec<String> {
    answers
        .iter()
        .map(|answer| answer.replace(alias, stands_for))
        .collect()
}

/// Games declared equal to a board, or to a sum of boards, as the
/// examples declare them.
const ALIASES: &str = "
game CramBoard(r, c) = Cram(Grid(r, c))
game CramTwice(r, c) = CramBoard(r, c) + Cram(Grid(r, c))
";

/// Whether the pruned search's way valued something: by search, or by
/// its mirror strategy (the memo does neither).
fn by_search(tally: &sprague::engine::Tally) -> bool {
    tally.searched + tally.mirrored > 0
}

/// A game declared equal to a board is valued as the board is, by the
/// search, which keeps no more than it keeps for the board itself (and
/// the alias's own value): the memo would keep every region of the
/// board. Cram on 4 × 6 is 0 by the symmetry strategy (the second player
/// answers each domino by its image through the centre), so the first
/// player loses; a game plus itself is 0, whatever the game.
#[test]
fn a_game_declared_equal_to_a_board_is_searched_as_the_board_is() {
    let (board, by_board) = printed_with_tally("grundy Cram(Grid(4, 6))\n");
    let (alias, by_alias) = printed_with_tally("grundy CramBoard(4, 6)\n");
    assert!(board[0].contains("Grundy(0)"), "{board:?}");
    assert_eq!(
        written_out(&alias, "CramBoard(4, 6)", "Cram(Grid(4, 6))"),
        board
    );
    assert!(by_search(&by_board));
    assert!(by_search(&by_alias), "the alias was not searched");
    assert!(
        by_alias.states <= by_board.states + 1,
        "the alias kept {} values, the board {}",
        by_alias.states,
        by_board.states
    );
    for (kind, answer) in [("wins?", "Wins(false)"), ("grundy", "Grundy(0)")] {
        let (twice, by_twice) = printed_with_tally(&format!("{kind} CramTwice(4, 6)\n"));
        assert!(twice[0].contains(answer), "{twice:?}");
        assert!(by_search(&by_twice) && by_twice.states <= by_board.states + 2);
    }
}

/// `wins?` and `best_move` on a game declared equal to a board answer as
/// on the board, by the search, with no more kept than for the board.
#[test]
fn wins_and_best_move_of_a_game_declared_equal_to_a_board_are_the_boards() {
    for kind in ["wins?", "best_move"] {
        let (board, by_board) = printed_with_tally(&format!("{kind} Cram(Grid(4, 5))\n"));
        let (alias, by_alias) = printed_with_tally(&format!("{kind} CramBoard(4, 5)\n"));
        assert_eq!(
            written_out(&alias, "CramBoard(4, 5)", "Cram(Grid(4, 5))"),
            board
        );
        assert!(by_alias.searched > 0, "{kind}: the alias was not searched");
        assert!(
            by_alias.states <= by_board.states + 1,
            "{kind}: the alias kept {} values, the board {}",
            by_alias.states,
            by_board.states
        );
    }
}

/// A game whose options hold games declared equal to boards and sums.
const PICK: &str = "
game Pick(c) {
  move CramTwice(3, c) + *1
  move CramBoard(3, c) + CramBoard(3, c) + *3
  move CramBoard(2, 4)
}
grundy Pick(5)
grundy Pick(6) + *2
";

/// Inside a search, a part declared equal to a sum is valued by the sum's
/// parts, whether it is asked a value or valued in full. X + X is 0
/// whatever X is, and Cram on 2 × 4 is 0 by the symmetry strategy, so
/// Pick's options are worth 1, 3 and 0 and Pick is worth 2, by every
/// method; Pick + *2 is then 0, a loss.
#[test]
fn a_part_declared_equal_to_a_sum_is_valued_by_its_parts_inside_a_search() {
    let source = format!("{GAMES}{ALIASES}{PICK}");
    for method in [Method::Auto, Method::Search, Method::Memo] {
        assert_eq!(grundy_values_in(session(method), &source), [2, 0]);
    }
    let wins = format!("{source}wins? Pick(5) + *2\n");
    let answers = answers_in(session(Method::Search), &wins);
    assert_eq!(answers[2].value, sprague::session::Value::Wins(false));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random regions of boards up to 5 × 5, in every game, asked every
    /// question, sums included: the search answers as the memo does.
    #[test]
    fn the_search_answers_as_the_memo_does_on_random_regions(
        rows in 1u32..=5,
        cols in 2u32..=5,
        masks in any::<[u64; 3]>(),
        other in any::<u64>(),
        heap in 0u64..4,
    ) {
        // Most cells present, as in the positions a game passes through.
        let mask = masks[0] | masks[1] | masks[2];
        let (a, b) = (region(rows, cols, mask), region(3, 3, other));
        let mut queries = String::new();
        for game in ["Cram", "CramByShape", "NodeKayles", "Sparse"] {
            queries.push_str(&format!("grundy {game}({a})\n"));
            queries.push_str(&format!("grundy {game}({a}) + {game}({b}) + *{heap}\n"));
            queries.push_str(&format!("wins? {game}({a}) + *{heap}\n"));
            queries.push_str(&format!("best_move {game}({a}) + {game}({b})\n"));
        }
        prop_assert_eq!(printed(Method::Search, &queries), printed(Method::Memo, &queries));
    }
}

/// Every example, every game in it valued by the search wherever a
/// component is not a heap, prints what it prints by default: loopy
/// games, misère play and tables go through the search and fall back
/// where they must.
#[test]
fn every_example_prints_the_same_by_search() {
    common::every_example_prints_its_expected_output(&["--method", "search"]);
}

/// The watcher is told how the search goes: the positions it listed grow,
/// it is deep in the board, and the value it tests at the top is one the
/// answer can be (no more than the value found). With the memo, nothing
/// is searched.
#[test]
fn the_watcher_is_told_the_searchs_depth_and_the_value_tested() {
    use sprague::engine::Tally;
    use std::sync::{Arc, Mutex};
    let told = |method: Method| {
        let tallies: Arc<Mutex<Vec<Tally>>> = Arc::default();
        let mut session = session(method);
        let seen = Arc::clone(&tallies);
        session.set_watcher(Some(Box::new(move |tally| {
            seen.lock().unwrap().push(*tally);
            true
        })));
        // NodeKayles 3 × 16 is 3 (A316632), whether or not positions
        // equal up to symmetry are one: without, the search lists a few
        // times as many, enough for the watcher to be told more than once.
        let source = format!(
            "{GAMES}game NodeKaylesByShape(s) splits {{
  move NodeKaylesByShape(s - closed(s, v)) for v in s
}}
grundy NodeKaylesByShape(Grid(3, 16))\n"
        );
        assert_eq!(grundy_values_in(session, &source), [3]);
        tallies.lock().unwrap().clone()
    };
    let searched = told(Method::Search);
    assert!(searched.len() >= 2, "told {} times", searched.len());
    assert!(
        searched
            .windows(2)
            .all(|two| two[0].searched <= two[1].searched)
    );
    assert!(searched.last().is_some_and(|tally| tally.searched > 0));
    assert!(searched.iter().any(|tally| tally.depth >= 2));
    assert!(
        searched
            .iter()
            .all(|tally| tally.testing.is_none_or(|value| value <= 3))
    );
    assert!(searched.iter().any(|tally| tally.testing.is_some()));
    let memo = told(Method::Memo);
    assert!(
        memo.iter()
            .all(|tally| tally.searched == 0 && tally.testing.is_none())
    );
}

/// Asserts that the memo, held to `limit` states, stops at it on `query`.
fn memo_stops_at(limit: usize, query: &str) {
    let mut memo = Session::new(limit);
    memo.set_method(Method::Memo);
    let mut events = Vec::new();
    let source = format!("{GAMES}{query}\n");
    memo.run("test.game", &source, &mut |event| {
        events.push(format!("{event:?}"))
    });
    assert!(
        matches!(&events[..], [error] if error.contains("too_many_states")),
        "the memo answers {query} within {limit}: {events:?}"
    );
}

/// `moves`, `why` and `strategy` value a large board's options by the
/// search, as `grundy` values the board: within a state limit the memo
/// cannot keep Cram 4 × 7 in (it reaches more than 50,000 regions), the
/// options' values come out, and they are what the memo finds for each
/// option on its own. By the mex rule their least missing value is the
/// board's: 3, as Beling and Rogalski's solver (igsolve) finds it; the
/// winning moves are the options of value 0.
#[test]
fn moves_why_and_strategy_of_a_board_past_the_memos_limit_come_from_the_search() {
    let limit = 50_000;
    memo_stops_at(limit, "moves Cram(Grid(4, 7))");

    let queries = "moves Cram(Grid(4, 7))\nwhy Cram(Grid(4, 7))\nstrategy Cram(Grid(3, 7))\n";
    let mut searched = Vec::new();
    Session::new(limit).run(
        "test.game",
        &format!("{GAMES}{queries}"),
        &mut |event| match event {
            sprague::session::Event::Answer(answer) => searched.push(answer),
            other => panic!("unexpected {other:?}"),
        },
    );
    let [moves, why, strategy] = &searched[..] else {
        panic!("three answers, got {searched:?}");
    };
    let moves = sprague::output::json(moves);
    let options = moves["options"].as_array().unwrap();
    // 4 × 7: 4 rows of 6 horizontal dominoes, 3 rows of 7 vertical ones.
    assert_eq!(options.len(), 4 * 6 + 3 * 7);
    let values: Vec<u64> = options
        .iter()
        .map(|option| option["grundy"].as_u64().unwrap())
        .collect();
    let mex = (0..).find(|v| !values.contains(v)).unwrap();
    assert_eq!(mex, 3);
    for (option, &value) in options.iter().zip(&values) {
        assert_eq!(option["winning"], value == 0, "{option}");
    }
    // Each option's value by the memo, asked of the option alone.
    let each: String = options
        .iter()
        .map(|option| format!("grundy {}\n", option["result"].as_str().unwrap()))
        .collect();
    assert_eq!(
        grundy_values_in(session(Method::Memo), &format!("{GAMES}{each}")),
        values
    );
    let why = sprague::output::json(why);
    assert_eq!(why["value"], 3);
    assert_eq!(why["proof"]["options"], options.len());
    // `why` asks each option only whether its value is one still without
    // a witness; its witnesses are still the first option of each value
    // below 3 in rule order, as the options' values above list them.
    let witnesses = why["proof"]["witnesses"].as_array().unwrap();
    assert_eq!(witnesses.len(), 3);
    for (v, witness) in (0..3).zip(witnesses) {
        let first = values.iter().position(|&value| value == v).unwrap();
        assert_eq!(witness["value"], v, "{witness}");
        assert_eq!(witness["to"], options[first]["move"]["to"], "{witness}");
    }
    // A reply to each first move in Cram 3 × 7 + *n (3 rows of 6
    // horizontal dominoes, 2 of 7 vertical; n heap moves), each leaving 0.
    let strategy = sprague::output::json(strategy);
    let n = strategy["n"].as_u64().unwrap();
    let replies = strategy["replies"].as_array().unwrap();
    assert_eq!(replies.len() as u64, 3 * 6 + 2 * 7 + n);
    for row in replies {
        assert_eq!(row["reply"]["value"], 0, "{row}");
    }
}

/// `why` of a board the engine chooses to search asks each option only
/// for the values still without a witness; it must name what the memo
/// names from every option's value: the same count of options, and the
/// same first option of each value below the board's. Checked on regions
/// of Cram 4 × 7 and 5 × 6 and of Node Kayles 3 × 12, each with cells
/// taken out so that no symmetry maps it to itself (a witness taken out of
/// order would show as another move).
#[test]
fn why_by_the_search_is_the_memos_on_large_regions() {
    let mut queries = String::new();
    for (i, j) in [(3, 10), (0, 27), (1, 20), (5, 13), (8, 22), (2, 16)] {
        queries.push_str(&format!("why Cram(Grid(4, 7) - {{{i}, {j}}})\n"));
    }
    for i in [0, 7, 14, 22] {
        queries.push_str(&format!("why Cram(Grid(5, 6) - {{{i}}})\n"));
    }
    for (i, j) in [(0, 5), (13, 30), (2, 35)] {
        queries.push_str(&format!("why NodeKayles(Grid(3, 12) - {{{i}, {j}}})\n"));
    }
    let searched = printed(Method::Auto, &queries);
    assert_eq!(searched.len(), 13);
    assert_eq!(searched, printed(Method::Memo, &queries));
}

/// A loopy position is explained with every option's value: the options
/// of larger value each with its move back (Smith's rule), by the search
/// as by the memo, though no option asked for a witness reaches the
/// cycle. G.p is 1: G.t is 0, G.r is 2 (it reverses through G.s, worth
/// 1), and G.l (whose only move is to G.m, which moves back or to the end)
/// is 0.
#[test]
fn why_of_a_loopy_position_by_the_search_reverses_the_larger_options() {
    let queries =
        "graph G {\n p -> t, r, l\n r -> t, s\n s -> t\n l -> m\n m -> l, x\n}\nwhy G.p\n";
    let searched = printed(Method::Search, queries);
    assert_eq!(searched, printed(Method::Memo, queries));
    let [why] = &searched[..] else {
        panic!("one answer, got {searched:?}");
    };
    assert!(why.contains(r#"from: "G.r", to: "G.s""#), "{why}");
}

/// Where every move loses, `play` keeps the game going longest; on a board
/// the search values, it takes the most nodes left in play for the
/// longest play, which the memo would have to list every region for.
/// Cram 4 × 6 is 0 (the second player mirrors each domino through the
/// centre), so every move loses; within 5,000 states the memo cannot value
/// it, and every move leaves 22 cells: the reply is the first move listed.
#[test]
fn a_losing_reply_on_a_board_past_the_memos_limit_needs_no_memo() {
    let limit = 5_000;
    memo_stops_at(limit, "grundy Cram(Grid(4, 6))");

    let mut session = Session::new(limit);
    session.run("games.game", GAMES, &mut |event| panic!("{event:?}"));
    let span = miette::SourceSpan::from(0..0);
    let position = session.parse_position("play", "Cram(Grid(4, 6))").unwrap();
    let moves = session.written_moves(&position, span).unwrap();
    // 4 rows of 5 horizontal dominoes, 3 rows of 6 vertical ones.
    assert_eq!(moves.len(), 4 * 5 + 3 * 6);
    assert!(moves.iter().all(|choice| !choice.line.winning));
    let reply = session.reply(&position, &moves, span).unwrap().unwrap();
    assert!(std::ptr::eq(reply, &moves[0]), "{:?}", reply.line);
}

/// The losing reply measures play by the memo's longest play where the
/// memo values the parts, by the nodes (or the argument) left where the
/// search does. L(n) moves to L(0) only, so it lasts one move whatever n;
/// G(n) moves to G(0) or G(n - 1) and lasts n. L(5) + G(1) is worth
/// 1 XOR 1 = 0. Moving L(5) to L(0) and G(1) to G(0) each leave one move
/// of play, and the memo's way takes the first listed; counted by the
/// argument, L(5) + G(0) keeps 5 and L(0) + G(1) keeps 1.
#[test]
fn a_losing_reply_is_by_longest_play_or_by_what_is_left() {
    let games = "game L(n) { move L(0) if n > 0 }\ngame G(n) {\n  move G(0) if n > 0\n  move G(n - 1) if n > 0\n}\n";
    let span = miette::SourceSpan::from(0..0);
    for (method, leaves) in [
        (Method::Memo, "L(0) + G(1)"),
        (Method::Search, "L(5) + G(0)"),
    ] {
        let mut session = session(method);
        session.run("games.game", games, &mut |event| panic!("{event:?}"));
        let position = session.parse_position("play", "L(5) + G(1)").unwrap();
        let moves = session.written_moves(&position, span).unwrap();
        let reply = session.reply(&position, &moves, span).unwrap().unwrap();
        let left = session.show(&reply.leaves());
        assert_eq!(left, leaves, "{method:?}");
    }
}

/// The value of the nodes `mask` of a graph of `edges` in the game whose
/// move takes the two ends of an edge, by the plain definition: no parts,
/// no symmetries, no nodes dropped.
fn edge_game(
    mask: u128,
    edges: &[(u32, u32)],
    memo: &mut std::collections::HashMap<u128, u64>,
) -> u64 {
    if let Some(&value) = memo.get(&mask) {
        return value;
    }
    let options: Vec<u64> = edges
        .iter()
        .filter(|&&(a, b)| mask >> a & 1 == 1 && mask >> b & 1 == 1)
        .map(|&(a, b)| edge_game(mask & !(1 << a) & !(1 << b), edges, memo))
        .collect();
    let value = (0..).find(|value| !options.contains(value)).unwrap();
    memo.insert(mask, value);
    value
}

/// The edges of an r × c grid.
fn grid_edges(rows: u32, cols: u32) -> Vec<(u32, u32)> {
    (0..rows * cols)
        .flat_map(|v| [(v, v + 1), (v, v + cols)])
        .filter(|&(v, w)| w < rows * cols && (w == v + cols || v % cols != cols - 1))
        .collect()
}

/// Every form of a rule that takes an edge's two ends (each edge once by
/// a guard that orders its ends, or twice), by search and by the memo,
/// with and without symmetries: the value the definition gives, on every
/// region of a grid, a path, a cycle and a graph that is none of these,
/// and on sparse regions of a grid of more than 64 cells.
#[test]
fn every_rule_that_takes_an_edge_values_every_region_by_the_definition() {
    let forms = [
        "move G(s - {a, b}) for a in s, b in neighbours(s, a) if a < b",
        "move G(s - {b, a}) for a in s, b in neighbours(s, a) if b > a",
        "move G(s - {a, b}) for a in s, b in neighbours(s, a) if a > b",
        "move G(s - {a, b}) for a in s, b in neighbours(s, a) if a <= b",
        "move G(s - {a, b}) for a in s, b in neighbours(s, a) if a != b",
        "move G(s - {a, b}) for a in s, b in neighbours(s, a)",
    ];
    // A star (leaves 1, 2 and 3 on 0), a path from it and a triangle.
    let graph = vec![
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (4, 5),
        (5, 6),
        (6, 7),
        (7, 8),
        (8, 6),
        (8, 9),
    ];
    let lines: String = graph
        .iter()
        .map(|(v, w)| format!("  {v} -- {w}\n"))
        .collect();
    let declared = format!("graph H {{\n{lines}}}\n");
    let path: Vec<(u32, u32)> = (0..9).map(|v| (v, v + 1)).collect();
    let cycle: Vec<(u32, u32)> = (0..9).map(|v| (v, (v + 1) % 9)).collect();
    // About a fifth of the cells of 9 × 9, by a fixed xorshift.
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let sparse: Vec<u128> = (0..150)
        .map(|_| {
            (0..81).fold(0u128, |mask, cell| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                mask | u128::from(state.is_multiple_of(5)) << cell
            })
        })
        .collect();
    let every = |nodes: u32| (0..1u128 << nodes).collect::<Vec<_>>();
    for (board, nodes, edges, regions) in [
        ("Grid(3, 4)", 12, grid_edges(3, 4), every(12)),
        ("H", 10, graph, every(10)),
        ("Path(10)", 10, path, every(10)),
        ("Cycle(9)", 9, cycle, every(9)),
        ("Grid(9, 9)", 81, grid_edges(9, 9), sparse),
    ] {
        let mut memo = std::collections::HashMap::new();
        let expected: Vec<u64> = regions
            .iter()
            .map(|&mask| edge_game(mask, &edges, &mut memo))
            .collect();
        let queries: String = regions
            .iter()
            .map(|&mask| {
                let gone: Vec<String> = (0..nodes)
                    .filter(|v| mask >> v & 1 == 0)
                    .map(|v| v.to_string())
                    .collect();
                format!("grundy G({board} - {{{}}})\n", gone.join(", "))
            })
            .collect();
        let symmetries = forms.iter().map(|form| (*form, "splits up to symmetry"));
        for (form, splits) in symmetries.chain([(forms[0], "splits")]) {
            for method in [Method::Search, Method::Memo] {
                let source = format!("{declared}game G(s) {splits} {{\n  {form}\n}}\n{queries}");
                let found = grundy_values_in(session(method), &source);
                assert_eq!(found.len(), expected.len(), "{form} on {board}");
                if let Some(wrong) = (0..found.len()).find(|&i| found[i] != expected[i]) {
                    panic!(
                        "{form} ({splits}) on {board}, {method:?}: the nodes {:b} have value {}, \
                         found {}",
                        regions[wrong], expected[wrong], found[wrong]
                    );
                }
            }
        }
    }
}
