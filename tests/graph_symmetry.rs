//! `splits up to symmetry` on declared graphs: a part is kept as its least
//! image under the graph's automorphisms (src/values/automorphisms.rs).
//! On random graphs and regions, a game so declared answers as the same
//! rule declared without symmetry and as the rule declared without
//! splitting at all (every position its own, valued by the plain mex), by
//! the search and by the memo; it reaches the published values; and the
//! moves it shows are the moves of the region asked, on its own nodes.

mod common;

use common::{PETERSEN, answers_in, grundy_values};
use proptest::prelude::*;
use sprague::engine::{DEFAULT_MAX_STATES, Method};
use sprague::session::{Session, Value};

/// Node Kayles and Arc Kayles (Cram's rule on a graph) three ways each: up
/// to the graph's symmetries, split by connected parts only, and not split.
const GAMES: &str = "
game NodeKayles(s) splits up to symmetry { move NodeKayles(s - closed(s, v)) for v in s }
game NodeKaylesByParts(s) splits { move NodeKaylesByParts(s - closed(s, v)) for v in s }
game NodeKaylesWhole(s) { move NodeKaylesWhole(s - closed(s, v)) for v in s }
game ArcKayles(s) splits up to symmetry {
  move ArcKayles(s - {a, b}) for a in s, b in neighbours(s, a) if a < b
}
game ArcKaylesByParts(s) splits {
  move ArcKaylesByParts(s - {a, b}) for a in s, b in neighbours(s, a) if a < b
}
game ArcKaylesWhole(s) {
  move ArcKaylesWhole(s - {a, b}) for a in s, b in neighbours(s, a) if a < b
}
";

/// Every answer of `source`, as printed, by one method.
fn printed(method: Method, source: &str) -> Vec<String> {
    let mut session = Session::new(DEFAULT_MAX_STATES);
    session.set_method(method);
    answers_in(session, &format!("{GAMES}{source}"))
        .iter()
        .map(|answer| format!("{answer:?}"))
        .collect()
}

/// A graph `G(m)` of `n` nodes (at most 11) whose edges are the bits of
/// `m`, one for each pair of nodes, in the order `index` numbers them.
fn graph(n: usize) -> String {
    format!(
        "graph G(m) {{
  nodes 0..{n}
  edge a -- b for a in 0..{n}, b in 0..{n}
    if a < b and (m >> (a * {n} - a * (a + 1) / 2 + b - a - 1)) & 1 == 1
}}
"
    )
}

/// The bit of the pair of nodes `a < b` of `n` in [`graph`]'s mask.
fn index(n: usize, a: usize, b: usize) -> usize {
    a * n - a * (a + 1) / 2 + (b - a - 1)
}

/// The nodes of `n` that `mask` keeps, as a set literal.
fn nodes(n: usize, mask: u64) -> String {
    let kept: Vec<String> = (0..n)
        .filter(|&v| mask >> v & 1 == 1)
        .map(|v| v.to_string())
        .collect();
    format!("{{{}}}", kept.join(", "))
}

/// The value and moves of each game on `region`, for each way of playing.
fn queries(region: &str) -> [String; 3] {
    ["", "ByParts", "Whole"].map(|way| {
        ["NodeKayles", "ArcKayles"]
            .iter()
            .map(|game| {
                format!(
                    "grundy {game}{way}({region})\ngrundy {game}{way}({region}) + *1\n\
                     wins? {game}{way}({region})\nbest_move {game}{way}({region}) + *2\n"
                )
            })
            .collect()
    })
}

/// The answers of the three ways, with each game's name made one.
fn agree(method: Method, source: &str, region: &str) -> Result<(), TestCaseError> {
    let [symmetric, by_parts, whole] = queries(region);
    let unnamed = |answers: Vec<String>| -> Vec<String> {
        answers
            .into_iter()
            .map(|answer| answer.replace("ByParts", "").replace("Whole", ""))
            .collect()
    };
    let symmetric = unnamed(printed(method, &format!("{source}{symmetric}")));
    let by_parts = unnamed(printed(method, &format!("{source}{by_parts}")));
    let whole = unnamed(printed(method, &format!("{source}{whole}")));
    // A best move may differ (any winning move is one); values may not.
    let values = |answers: &[String]| -> Vec<String> {
        answers
            .iter()
            .filter(|answer| !answer.contains("BestMove"))
            .cloned()
            .collect()
    };
    prop_assert_eq!(values(&symmetric), values(&by_parts));
    prop_assert_eq!(values(&symmetric), values(&whole));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Random graphs of up to 11 nodes, most with symmetries (a cycle and
    /// chords, edges mirrored by a reversal of the nodes, or a circulant
    /// graph), random regions of them, and the boards of their edges: the
    /// three ways of declaring each game give the same values, by the
    /// search and by the memo.
    #[test]
    fn a_game_up_to_a_graphs_symmetries_has_the_values_of_the_plain_rule(
        n in 4usize..=11,
        edges: u64,
        shape in 0u32..4,
        mask: u64,
    ) {
        let pairs = n * (n - 1) / 2;
        let edges = edges & (u64::MAX >> (64 - pairs));
        let index = |a: usize, b: usize| index(n, a, b);
        let edges = match shape {
            // A cycle and some chords.
            0 => (0..n).fold(edges & edges.rotate_left(9), |edges, a| {
                let b = (a + 1) % n;
                edges | 1 << index(a.min(b), a.max(b))
            }),
            // Each edge with its image under v -> n - 1 - v.
            1 => (0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b))).fold(0, |mirrored, (a, b)| {
                let (c, d) = (n - 1 - b, n - 1 - a);
                match edges >> index(a, b) & 1 {
                    1 => mirrored | 1 << index(a, b) | 1 << index(c, d),
                    _ => mirrored,
                }
            }),
            // A circulant graph: each node joined to those some steps on,
            // every node alike, which refinement alone cannot tell apart.
            2 => (0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b))).fold(0, |circulant, (a, b)| {
                match edges >> (b - a) & 1 == 1 || edges >> (n - (b - a)) & 1 == 1 {
                    true => circulant | 1 << index(a, b),
                    false => circulant,
                }
            }),
            _ => edges,
        };
        let source = graph(n);
        // Most nodes kept, as in the positions a game passes through.
        let mask = mask | mask >> 3;
        let region = format!("G({edges}) & {}", nodes(n, mask));
        agree(Method::Search, &source, &region)?;
        agree(Method::Memo, &source, &region)?;
        agree(Method::Search, &source, &format!("G({edges})"))?;
        // The board of the edges, up to the symmetries of its own.
        if edges.count_ones() <= 12 {
            agree(Method::Search, &source, &format!("Edges(G({edges}))"))?;
        }
    }
}

/// Node Kayles on the generalized Petersen graphs P(n, 2), OEIS A316533
/// (n = 5 to 22), up to their symmetries (a dihedral group of order 2n,
/// 120 for P(5, 2) and P(10, 2)), by both methods.
#[test]
fn node_kayles_on_petersen_graphs_up_to_symmetry_is_a316533() {
    const A316533: [u64; 18] = [1, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0];
    let source = &format!("{GAMES}{PETERSEN}grundy NodeKayles(Petersen(n, 2)) for n in 5..=22\n");
    assert_eq!(grundy_values(source), A316533);
    let mut memo = Session::new(DEFAULT_MAX_STATES);
    memo.set_method(Method::Memo);
    assert_eq!(common::grundy_values_in(memo, source), A316533);
}

/// The moves shown from a region of a symmetric graph are the moves of
/// that region, each leaving the nodes it leaves on the graph asked, with
/// the values the rule gives them: the same list as without symmetry.
#[test]
fn moves_up_to_symmetry_are_shown_on_the_nodes_asked() {
    let moves = |game: &str| {
        let mut session = Session::new(DEFAULT_MAX_STATES);
        session.set_method(Method::Auto);
        let queries = format!(
            "{GAMES}{PETERSEN}moves {game}(Petersen(7, 2) - {{0, 1, 2, 6, 7}})\n\
             moves {game}(Petersen(9, 2) - {{4}})\n"
        );
        let mut lines: Vec<String> = answers_in(session, &queries)
            .into_iter()
            .flat_map(|answer| match answer.value {
                Value::Moves(lines) => lines,
                other => panic!("expected moves, got {other:?}"),
            })
            .map(|line| format!("{line:?}").replace(game, "Game"))
            .collect();
        lines.sort();
        lines
    };
    let symmetric = moves("NodeKayles");
    assert_eq!(symmetric, moves("NodeKaylesByParts"));
    assert_eq!(symmetric, moves("NodeKaylesWhole"));
}

/// The mirror strategy on declared graphs: P(2m, 2) is kept by the turn
/// through half the cycles (i to i + m on both), an involution of the
/// graph that fixes no node and takes no node next to its image, so the
/// second player answers each move by its image, and Node Kayles there
/// is 0 (as OEIS A316533 has it at every even n it lists). The strategy
/// proves the boards at once, with no position listed by the search; and
/// on P(2m + 1, 2), which no involution keeps without fixing nodes, it
/// proves nothing about the board, whose values stay A316533's.
#[test]
fn even_petersen_graphs_are_proved_zero_by_the_mirror_strategy() {
    let tally = |queries: &str| {
        let mut session = Session::new(DEFAULT_MAX_STATES);
        // Counts of one thread's work, alike from run to run.
        session.set_threads(1);
        let answers = answers_in_session(&mut session, &format!("{GAMES}{PETERSEN}{queries}"));
        (answers, session.tally())
    };
    let (answers, even) = tally(
        "grundy NodeKayles(Petersen(n, 2)) for n in [24, 26, 28]\nwins? NodeKayles(Petersen(28, 2))\n",
    );
    assert_eq!(
        answers,
        [
            Value::Grundy(0),
            Value::Grundy(0),
            Value::Grundy(0),
            Value::Wins(false)
        ]
    );
    assert_eq!(even.searched, 0, "{even:?}");
    assert!(even.mirrored >= 3, "{even:?}");
    let (answers, _) = tally("grundy NodeKayles(Petersen(n, 2)) for n in [13, 15, 21]\n");
    assert_eq!(
        answers,
        [Value::Grundy(1), Value::Grundy(1), Value::Grundy(1)]
    );
}

/// The values of every answer of `source` in `session`.
fn answers_in_session(session: &mut Session, source: &str) -> Vec<Value> {
    let mut values = Vec::new();
    session.run("test.game", source, &mut |event| match event {
        sprague::session::Event::Answer(answer) => values.push(answer.value),
        other => panic!("unexpected {other:?}"),
    });
    values
}
