//! Positions beyond integers — boards, lists and sets — checked against
//! solvers written here from the rules (whole boards as bitmasks, no
//! splitting), against theorems and against published sequences.

mod common;

use std::collections::HashMap;

use common::{answers, grundy_values};
use sprague::engine::DEFAULT_MAX_STATES;
use sprague::session::{Session, Value};

/// The cells next to a cell.
type Neighbours = dyn Fn(usize) -> Vec<usize>;

/// The masks a move leaves from a mask.
type Moves = dyn Fn(u64, &Neighbours) -> Vec<u64>;

/// A game on an r × c grid solved by brute force: a position is the mask
/// of the cells left, `options` lists the masks a move leaves.
fn brute_force(rows: usize, cols: usize, options: &Moves) -> u64 {
    let neighbours = move |v: usize| {
        let (r, c) = (v / cols, v % cols);
        let mut found = Vec::new();
        if r > 0 {
            found.push(v - cols);
        }
        if r + 1 < rows {
            found.push(v + cols);
        }
        if c > 0 {
            found.push(v - 1);
        }
        if c + 1 < cols {
            found.push(v + 1);
        }
        found
    };
    fn solve(
        mask: u64,
        memo: &mut HashMap<u64, u64>,
        options: &Moves,
        neighbours: &Neighbours,
    ) -> u64 {
        if let Some(&value) = memo.get(&mask) {
            return value;
        }
        let values: Vec<u64> = options(mask, neighbours)
            .into_iter()
            .map(|option| solve(option, memo, options, neighbours))
            .collect();
        let value = (0..).find(|g| !values.contains(g)).unwrap();
        memo.insert(mask, value);
        value
    }
    let full = (1u64 << (rows * cols)) - 1;
    solve(full, &mut HashMap::new(), options, &neighbours)
}

fn cells(mask: u64) -> impl Iterator<Item = usize> {
    (0..64).filter(move |v| mask >> v & 1 == 1)
}

/// Node Kayles: take a cell and its neighbours.
fn node_kayles(mask: u64, neighbours: &Neighbours) -> Vec<u64> {
    cells(mask)
        .map(|v| {
            let closed = neighbours(v).into_iter().fold(1u64 << v, |m, w| m | 1 << w);
            mask & !closed
        })
        .collect()
}

/// Cram (and Arc Kayles on a grid): take two cells side by side.
fn cram(mask: u64, neighbours: &Neighbours) -> Vec<u64> {
    cells(mask)
        .flat_map(|v| {
            neighbours(v)
                .into_iter()
                .filter(move |&w| w > v && mask >> w & 1 == 1)
                .map(move |w| mask & !(1 << v) & !(1 << w))
        })
        .collect()
}

/// Dawson's Kayles, octal 0.137, heaps 0 to 40 (OEIS A002187).
const DAWSON: [u64; 41] = [
    0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0, 5, 2, 2, 3, 3, 0, 1, 1, 3, 0, 2, 1, 1, 0, 4, 5, 2,
    7, 4, 0, 1, 1, 2, 0, 3, 1,
];

const GAMES: &str = "
    game NodeKayles(s) splits { move NodeKayles(s - closed(s, v)) for v in s }
    game NodeKaylesSym(s) splits up to symmetry {
      move NodeKaylesSym(s - closed(s, v)) for v in s
    }
    game Cram(s) splits up to symmetry {
      move Cram(s - {a, b}) for a in s, b in neighbours(s, a) if a < b
    }
    game Whole(s) { move Whole(s - closed(s, v)) for v in s }
";

#[test]
fn node_kayles_on_grids_agrees_with_brute_force_with_and_without_symmetry() {
    for rows in 1..=3 {
        for cols in 1..=6 {
            let expected = brute_force(rows, cols, &node_kayles);
            let found = grundy_values(&format!(
                "{GAMES}
                 grundy NodeKayles(Grid({rows}, {cols}))
                 grundy NodeKaylesSym(Grid({rows}, {cols}))
                 grundy Whole(Grid({rows}, {cols}))"
            ));
            assert_eq!(found, [expected; 3], "{rows} × {cols}");
        }
    }
}

#[test]
fn node_kayles_on_paths_is_dawsons_kayles() {
    let found = grundy_values(&format!(
        "{GAMES} grundy NodeKayles(Path(n)) for n in 0..=40"
    ));
    assert_eq!(found, DAWSON);
    // A cycle of n loses its first node and both neighbours: a path of n - 3.
    let cycles = grundy_values(&format!(
        "{GAMES} grundy NodeKayles(Cycle(n)) for n in 4..=30"
    ));
    let expected: Vec<u64> = (4..=30).map(|n| u64::from(DAWSON[n - 3] == 0)).collect();
    // mex of one option's value: 1 if that value is 0, else 0.
    assert_eq!(cycles, expected);
}

/// A row or column longer than 64 cells, up to symmetry, is the path it is:
/// Node Kayles on Grid(1, n) and Grid(n, 1) is Dawson's Kayles, whose
/// values repeat with period 34 from n = 52 on (Guy and Smith), and is the
/// same whether the game splits up to symmetry or not. Parts reaching past
/// bit 64 of such a row were cut when moved to their least image, and
/// Grid(1, 65) was 5, not 3.
#[test]
fn node_kayles_on_rows_past_64_cells_is_dawsons_kayles() {
    let n = 1..=128usize;
    let paths = grundy_values(&format!(
        "{GAMES} grundy NodeKayles(Path(n)) for n in 1..=128"
    ));
    assert_eq!(paths[..40], DAWSON[1..]);
    for m in 52 + 34..=128 {
        assert_eq!(paths[m - 1], paths[m - 35], "period 34 at {m}");
    }
    for board in ["Grid(1, n)", "Grid(n, 1)"] {
        for game in ["NodeKayles", "NodeKaylesSym"] {
            let found = grundy_values(&format!("{GAMES} grundy {game}({board}) for n in {n:?}"));
            assert_eq!(found, paths, "{game}({board})");
        }
    }
    // Two different rows beside each other do not cancel: P64 + P65.
    let found = grundy_values(&format!(
        "{GAMES} grundy NodeKaylesSym(Grid(1, 130) - {{64}})"
    ));
    assert_eq!(found, [paths[63] ^ paths[64]]);
}

#[test]
fn cram_agrees_with_brute_force_and_the_symmetry_strategy() {
    for rows in 1..=4 {
        for cols in 1..=5 {
            if rows * cols > 20 {
                continue;
            }
            let expected = brute_force(rows, cols, &cram);
            let found = grundy_values(&format!("{GAMES} grundy Cram(Grid({rows}, {cols}))"));
            assert_eq!(found, [expected], "{rows} × {cols}");
        }
    }
    // Even by even: the second player answers every domino by its image
    // under the half turn.
    let even = grundy_values(&format!(
        "{GAMES} grundy Cram(Grid(r, c)) for r in {{2, 4}}, c in {{2, 4, 6}}"
    ));
    assert_eq!(even, [0; 6]);
    // One row is octal 0.07, Dawson's Kayles one heap along.
    let row = grundy_values(&format!("{GAMES} grundy Cram(Grid(1, n)) for n in 1..=30"));
    assert_eq!(row, DAWSON[..30]);
}

#[test]
fn chomp_rectangles_are_first_player_wins_but_the_poisoned_square() {
    let found: Vec<bool> = answers(
        "game Chomp(h) {
           move Chomp([if k < i then h[k] else min(h[k], j)
                       for k in 0..(if j == 0 then i else len(h))])
             for i in 0..len(h), j in 0..h[i] if i > 0 or j > 0
         }
         wins? Chomp([r for k in 0..c]) for r in 1..=4, c in 1..=5",
    )
    .into_iter()
    .map(|answer| matches!(answer.value, Value::Wins(true)))
    .collect();
    let expected: Vec<bool> = (1..=4)
        .flat_map(|r| (1..=5).map(move |c| (r, c) != (1, 1)))
        .collect();
    assert_eq!(found, expected);
}

#[test]
fn moores_nim_loses_exactly_when_every_binary_column_is_a_multiple_of_k_plus_one() {
    for k in 1..=3u64 {
        let source = format!(
            "game Moore(k, h) {{
               move Moore(k, sort(m)) for m in under(h)
                 if m != h and len([i for i in 0..len(h) if m[i] < h[i]]) <= k
             }}
             grundy Moore({k}, [a, b, c, d]) for a in 0..=3, b in a..=3, c in b..=3, d in c..=4"
        );
        let found = grundy_values(&source);
        let mut expected = Vec::new();
        for a in 0..=3u64 {
            for b in a..=3 {
                for c in b..=3 {
                    for d in c..=4 {
                        let columns_divisible = (0..3).all(|bit| {
                            [a, b, c, d].iter().map(|h| h >> bit & 1).sum::<u64>() % (k + 1) == 0
                        });
                        expected.push(columns_divisible);
                    }
                }
            }
        }
        let losses: Vec<bool> = found.iter().map(|&value| value == 0).collect();
        assert_eq!(losses, expected, "k = {k}");
    }
}

#[test]
fn mock_turtles_is_the_sum_of_its_coins_and_a_coin_is_odious() {
    let source = "
        game MockTurtles(s) {
          move MockTurtles(s ^ ({x} + t)) for x in s, t in subsets({y for y in 1..x}, 2)
        }";
    let singles = grundy_values(&format!(
        "{source} grundy MockTurtles({{n}}) for n in 1..=14"
    ));
    // The odious numbers, those with an odd number of 1s in binary (OEIS
    // A000069).
    let odious: Vec<u64> = (0..)
        .filter(|n: &u64| n.count_ones() % 2 == 1)
        .take(14)
        .collect();
    assert_eq!(singles, odious);
    for heads in [[1, 4, 6], [2, 3, 9], [5, 7, 8]] {
        let [a, b, c] = heads;
        let found = grundy_values(&format!("{source} grundy MockTurtles({{{a}, {b}, {c}}})"));
        let expected = singles[a - 1] ^ singles[b - 1] ^ singles[c - 1];
        assert_eq!(found, [expected], "{heads:?}");
    }
}

#[test]
fn ruler_is_the_largest_power_of_two_dividing_n() {
    let found = grundy_values(
        "game Ruler(n) { move (Ruler(j) for j in i..n) for i in 1..=n }
         grundy Ruler(n) for n in 1..=64",
    );
    // OEIS A006519.
    let expected: Vec<u64> = (1..=64u64).map(|n| 1 << n.trailing_zeros()).collect();
    assert_eq!(found, expected);
}

#[test]
fn green_hackenbush_follows_the_colon_and_fusion_principles() {
    let found = grundy_values(
        "game Hackenbush(e) { move Hackenbush(grounded(e - {x}, {0})) for x in e }
         graph Stalk {
           0 -- 1
           1 -- 2
           2 -- 3
           3 -- 4
           4 -- 5
         }
         graph Tree {
           0 -- 1
           1 -- 2, 3
           3 -- 4
         }
         graph Forked {
           0 -- 1
           1 -- 2
           2 -- 3, 4, 5
           5 -- 6
         }
         graph Triangle {
           0 -- 1, 2
           1 -- 2
         }
         graph Two {
           0 -- 1, 2
           2 -- 3
         }
         grundy Hackenbush(Edges(Stalk))
         grundy Hackenbush(Edges(Tree))
         grundy Hackenbush(Edges(Forked))
         grundy Hackenbush(Edges(Triangle))
         grundy Hackenbush(Edges(Two))",
    );
    // A stalk of 5 is *5. Tree: branches 1 and 2 at the top of a trunk of
    // one, 1 + (1 ^ 2) = 4. Forked: branches 1, 1, 2 on a trunk of two,
    // 2 + (1 ^ 1 ^ 2) = 4. A triangle on the ground fuses to three loops,
    // *1. Two stalks on the ground, of 1 and 2: 1 ^ 2 = 3.
    assert_eq!(found, [5, 4, 4, 1, 3]);
}

#[test]
fn printed_positions_parse_back_to_the_same_position() {
    let source = format!(
        "{GAMES}
         game Lists(l) {{ move Lists(replace(l, i, l[i] - 1)) for i in 0..len(l) if l[i] > 0 }}
         moves Cram(Grid(3, 4) - {{5}})
         moves Lists([2, 0, 1])
         moves NodeKayles(Grid(2, 3) & {{0, 1, 2, 4}})"
    );
    let shown: Vec<String> = answers(&source)
        .into_iter()
        .flat_map(|answer| match answer.value {
            Value::Moves(moves) => moves
                .into_iter()
                .map(|line| {
                    line.result
                        .expect("a short sum shows what each move leaves")
                })
                .collect::<Vec<_>>(),
            other => panic!("expected moves, got {other:?}"),
        })
        .collect();
    assert!(shown.len() > 10);
    for position in shown {
        let again = answers(&format!(
            "{GAMES}
             game Lists(l) {{ move Lists(replace(l, i, l[i] - 1)) for i in 0..len(l) if l[i] > 0 }}
             grundy {position}"
        ));
        assert_eq!(again[0].position, position);
    }
}

/// Expected values from CGSuite's own unit tests (GameGraphTest,
/// GameStripTest and GameGridTest at commit e909ab8): Arc Kayles on paths
/// of n vertices, and on paths with a loop at every vertex, n = 1..50.
const CGSUITE_ARC_KAYLES_PATHS: [u64; 50] = [
    0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0, 5, 2, 2, 3, 3, 0, 1, 1, 3, 0, 2, 1, 1, 0, 4, 5, 2,
    7, 4, 0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 4, 5,
];
const CGSUITE_ARC_KAYLES_LOOPED_PATHS: [u64; 50] = [
    1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4, 1, 2, 7, 1, 4, 3, 2, 1, 4, 6, 7, 4, 1, 2, 8, 5, 4, 7, 2, 1,
    8, 6, 7, 4, 1, 2, 3, 1, 4, 7, 2, 1, 8, 2, 7, 4, 1, 2,
];

#[test]
fn arc_kayles_agrees_with_cgsuite_on_paths_and_looped_paths() {
    let on_paths = grundy_values(
        "game ArcKayles(s) splits up to symmetry {
           move ArcKayles(s - {a, b}) for a in s, b in neighbours(s, a) if a < b
         }
         grundy ArcKayles(Path(n)) for n in 1..=50",
    );
    assert_eq!(on_paths, CGSUITE_ARC_KAYLES_PATHS);
    // Arc Kayles on any graph is Node Kayles on its edges: an edge goes with
    // every edge that shares an end with it. A loop shares its one end.
    for n in [1, 2, 3, 7, 12, 27, 50] {
        let mut graph = String::from("graph Looped {\n");
        for v in 0..n {
            let next = if v + 1 < n {
                format!(", {}", v + 1)
            } else {
                String::new()
            };
            graph.push_str(&format!("  {v} -- {v}{next}\n"));
        }
        graph.push('}');
        let found = grundy_values(&format!(
            "game ArcKayles(e) splits {{ move ArcKayles(e - closed(e, x)) for x in e }}
             {graph}
             grundy ArcKayles(Edges(Looped))"
        ));
        assert_eq!(found, [CGSUITE_ARC_KAYLES_LOOPED_PATHS[n - 1]], "n = {n}");
    }
}

#[test]
fn green_hackenbush_agrees_with_cgsuite_on_its_tree_and_girl() {
    // "e(ee(e;e);e(eee;ee);e(ee;e))" is *5, and the green girl of Winning
    // Ways, chapter 7, "e(ee:{waist};ee:{waist}e(ee;e(e:{head};e:{head}e)))"
    // is *2: her waist closes a square, her head hangs by two edges.
    let found = grundy_values(
        "game Hackenbush(e) { move Hackenbush(grounded(e - {x}, {0})) for x in e }
         graph Tree {
           0 -- a
           a -- b, d, f
           b -- c
           c -- c1, c2
           d -- d1, e1
           d1 -- d2
           d2 -- d3
           e1 -- e2
           f -- f1, g1
           f1 -- f2
         }
         graph Girl {
           0 -- a
           a -- b, c
           b -- waist
           c -- waist
           waist -- d
           d -- f, i
           f -- h
           i -- head, head
           head -- j
         }
         grundy Hackenbush(Edges(Tree))
         grundy Hackenbush(Edges(Girl))",
    );
    assert_eq!(found, [5, 2]);
}

#[test]
fn mock_turtles_and_cram_agree_with_cgsuite() {
    // "htththtth": heads at the first, fourth, sixth and ninth coins.
    let turtles = grundy_values(
        "game MockTurtles(s) {
           move MockTurtles(s ^ ({x} + t)) for x in s, t in subsets({y for y in 1..x}, 2)
         }
         grundy MockTurtles({1, 4, 6, 9})",
    );
    assert_eq!(turtles, [29]);
    // ".........|##.######": a row of nine cells over a row with only its
    // third cell free.
    let cram = grundy_values(&format!(
        "{GAMES} grundy Cram(Grid(2, 9) - {{9, 10, 12, 13, 14, 15, 16, 17}})"
    ));
    assert_eq!(cram, [4]);
}

/// Bindings, guards and targets of rules that compile to bit operations,
/// each target a subset of `s - {a}` so that every game ends. `b` is bound
/// only by the second binding.
const FIRST: [&str; 3] = ["s", "s - {0}", "s & s"];
const SECOND: [&str; 6] = [
    "s",
    "neighbours(s, a)",
    "closed(s, a)",
    "s - {a}",
    "s & closed(s, a)",
    "neighbours(s - {a}, a) + {a}",
];
const GUARDS_ONE: [&str; 3] = ["a > 1", "a != 4", "3 >= a"];
const GUARDS_TWO: [&str; 6] = [
    "a < b",
    "b <= a",
    "a != b",
    "b > 2",
    "a >= 1 and b < 9",
    "a == b",
];
const TARGETS_ONE: [&str; 3] = [
    "G(s - {a})",
    "G(s - closed(s, a))",
    "G(s - {a}) + G(s & neighbours(s, a))",
];
const TARGETS_TWO: [&str; 4] = [
    "G(s - {a, b})",
    "G((s - {a}) & (s - neighbours(s, b)))",
    "G(s - {a} - closed(s, b))",
    "G((s - {a}) ^ (s & neighbours(s - {a}, a))) + G((s & {b}) - {a})",
];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// A rule compiled to bit operations gives the values the interpreter
    /// gives for the same rule (kept from compiling by a guard that
    /// compares two constants), on grids, paths, cycles and their regions.
    #[test]
    fn rules_compiled_to_bits_agree_with_the_interpreter(
        two: bool,
        first in 0..FIRST.len(),
        second in 0..SECOND.len(),
        guard in proptest::option::of(0..GUARDS_TWO.len()),
        target in 0..TARGETS_TWO.len(),
        splits in 0..3usize,
        board in 0..3usize,
        size in 2u32..=12,
        removed in proptest::collection::vec(0u32..12, 0..3),
    ) {
        let mut bindings = format!("a in {}", FIRST[first]);
        let (guard, target) = match two {
            true => {
                bindings += &format!(", b in {}", SECOND[second]);
                (guard.map(|g| GUARDS_TWO[g]), TARGETS_TWO[target])
            }
            false => (
                guard.map(|g| GUARDS_ONE[g % GUARDS_ONE.len()]),
                TARGETS_ONE[target % TARGETS_ONE.len()],
            ),
        };
        let splits = ["", "splits", "splits up to symmetry"][splits];
        let board = match board {
            0 => format!("Grid({}, {})", 1 + size % 3, size / (1 + size % 3)),
            1 => format!("Path({size})"),
            _ => format!("Cycle({size})"),
        };
        let removed: Vec<String> = removed.iter().map(u32::to_string).collect();
        let region = format!("{board} - {{{}}}", removed.join(", "));
        let rule = |name: &str, guard: Option<&str>| {
            let guard = guard.map_or(String::new(), |guard| format!(" if {guard}"));
            format!(
                "game {name}(s) {splits} {{ move {} for {bindings}{guard} }}",
                target.replace("G(", &format!("{name}("))
            )
        };
        let plain = guard.map_or("0 == 0".to_string(), |guard| format!("{guard} and 0 == 0"));
        let source = format!(
            "{}\n{}\ngrundy G({board})\ngrundy I({board})\ngrundy G({region})\ngrundy I({region})",
            rule("G", guard),
            rule("I", Some(&plain)),
        );
        // A rule that reads node numbers may not split: refused, it is
        // compared below with the same rule unsplit.
        let refused = node_numbering_refused(&source);
        proptest::prop_assert!(refused.is_none() || !splits.is_empty(), "{}", source);
        let unsplit = format!(
            "{}\ngrundy U({board})\ngrundy U({region})",
            rule("U", guard).replace(splits, "")
        );
        let whole = grundy_values(&unsplit);
        if refused.is_some() {
            return Ok(());
        }
        let found = grundy_values(&source);
        proptest::prop_assert_eq!(found[0], found[1], "{}", source);
        proptest::prop_assert_eq!(found[2], found[3], "{}", source);
        // What splits must agree with the whole board searched as one.
        proptest::prop_assert_eq!((found[0], found[2]), (whole[0], whole[1]), "{}", source);
    }
}

/// The error `sprague::check::node_numbering`, if a source gets it.
fn node_numbering_refused(source: &str) -> Option<String> {
    let declared = Session::new(DEFAULT_MAX_STATES).declare("test.game", source, &mut |_| {});
    let report = declared.err()?;
    let text = format!("{report:?}");
    assert!(
        text.contains("node_numbering") || text.contains("splits_not_local"),
        "{source}: {text}"
    );
    Some(text)
}

#[test]
fn splitting_rules_that_read_node_numbers_or_reach_past_one_part_are_refused() {
    for (rule, marked) in [
        // Split, a path of 3 with node 0 gone has value 0; whole, 1.
        ("move G(s - {v}) for v in s if v < 3", "v < 3"),
        ("move G(s - {0, v}) for v in s", "{0, v}"),
        ("move G(s - {v}) + *v for v in s", "v"),
        (
            "move G(s - {a}) for a in s, b in neighbours(s, a) if a < b",
            "a < b",
        ),
        (
            "move G(s - {a, b}) for a in s, b in s - {a} if a < b and a > 1",
            "a > 1",
        ),
        ("move G(s - {v}) for v in s if 2 in s", "2"),
        ("move G(s - {min(s)})", "s"),
        ("move G(s - {[v for v in s][0]})", "[v for v in s][0]"),
        // An order of nodes written with `min`: their numbers as integers,
        // not a reach past one part.
        (
            "move G(s - {a, b}) for a in s, b in neighbours(s, a) if min(a, b) == a",
            "node_numbering",
        ),
        ("move G(s - {v}) + *max(v, 1) for v in s", "node_numbering"),
        // Moves that may reach two parts, or read the whole region.
        ("move G(s - {a, b}) for a in s, b in s - {a}", "not_local"),
        ("move G(s - {a, b}) for a in s, b in s", "not_local"),
        (
            "move G(s - closed(s, a) - closed(s, b)) for a in s, b in s if a < b",
            "not_local",
        ),
        ("move G(s - {v}) for v in s if len(s) > 3", "len(s)"),
        ("move G(s - {v}) + *len(s) for v in s", "len(s)"),
        (
            "move G(s - {v}) + *len(neighbours(s, v) + {3}) for v in s",
            "not_local",
        ),
        ("move G(s - {v}) + *v for v in s", "node_numbering"),
        ("move G(closed(s, v)) for v in s", "not_local"),
        (
            "move G(s - {v}) + G(s - closed(s, v)) for v in s",
            "not_local",
        ),
    ] {
        let source = format!("game G(s) splits {{ {rule} }}\n");
        let report = node_numbering_refused(&source).unwrap_or_else(|| panic!("{rule}: accepted"));
        assert!(report.contains(marked), "{rule}: {report}");
    }
}

#[test]
fn splitting_rules_that_name_each_pair_once_are_accepted() {
    for rule in [
        "move G(s - {a, b}) for a in s, b in neighbours(s, a) if a < b",
        "move G(s - {b, a}) for a in s, b in neighbours(s, a) if b > a",
        "move G(s - closed(s, a) - closed(s, b)) for a in s, b in neighbours(s, a) if a < b",
        "move G(s - {a, b}) for a in s, b in closed(s, a) if a < b and len(closed(s, a)) + len(closed(s, b)) > 4",
        "move G(s - {v}) + G(neighbours(s, v)) + *1 for v in s",
        "move G(s - closed(s, v)) for v in s",
        "move G(s - {v}) for v in s if len(neighbours(s, v)) == 2 and v in s",
        "move G(s - {a, b}) for a in s, b in neighbours(s, a) if a != b",
        "move G(s - closed(s, v)) + *len(closed(s, v)) for v in s",
        "move G(s - {a, b}) + *(len(closed(s, a) + closed(s, b)) % 4) for a in s, b in neighbours(s, a) if a < b",
    ] {
        let source = format!("game G(s) splits up to symmetry {{ {rule} }}\n");
        assert_eq!(node_numbering_refused(&source), None, "{rule}");
    }
}

const CRAM: &str = "
game Cram(s) splits up to symmetry {
  move Cram(s - {a, b}) for a in s, b in neighbours(s, a) if a < b
}
";

/// The moves of an answer as (from, to, leaving), in order.
fn move_lines(source: &str) -> Vec<(String, String, String)> {
    let answers = answers(&format!("{CRAM}{source}"));
    match &answers[0].value {
        Value::Moves(lines) => lines
            .iter()
            .map(|line| {
                let leaves = line
                    .result
                    .clone()
                    .expect("a short sum says what it leaves");
                (line.from.clone(), line.to.clone(), leaves)
            })
            .collect(),
        other => panic!("expected moves, got {other:?}"),
    }
}

/// The seven dominoes of a 2 × 3 grid (three upright, four flat), each as
/// the position its removal leaves on the grid, sorted.
fn dominoes_of_2_by_3() -> Vec<String> {
    let mut dominoes: Vec<String> = (0..6)
        .flat_map(|a| [(a, a + 1), (a, a + 3)])
        .filter(|&(a, b)| b < 6 && (b == a + 3 || a / 3 == b / 3))
        .map(|(a, b)| format!("Cram(Grid(2, 3) - {{{a}, {b}}})"))
        .collect();
    dominoes.sort();
    assert_eq!(dominoes.len(), 7);
    dominoes
}

/// Each move of Cram on a board is shown on the board as written, by the
/// cells it took: the seven dominoes of a 2 × 3 grid are seven different
/// lines, though up to symmetry they leave only three different positions.
#[test]
fn moves_on_a_board_show_the_cells_taken_on_the_board_as_written() {
    let lines = move_lines("moves Cram(Grid(2, 3))\n");
    let mut shown: Vec<String> = lines.iter().map(|(_, to, _)| to.clone()).collect();
    shown.sort();
    assert_eq!(shown, dominoes_of_2_by_3());
    for (from, to, leaving) in &lines {
        assert_eq!(from, "Cram(Grid(2, 3))");
        assert_eq!(leaving, to);
    }
}

const CRAM_BOARD: &str = "game CramBoard(r, c) = Cram(Grid(r, c))\n";

/// The move that wins Cram on 2 × 3, the first in rule order: taking the
/// left column leaves 2 × 2, worth 0 (each of its moves leaves one
/// domino, worth 1); the flat domino {0, 1} before it leaves an L of four
/// cells, worth 2 (it has moves to a domino and to two single cells).
const WINS_2_BY_3: &str = "Cram(Grid(2, 3) - {0, 3})";

/// A game declared equal to a board game shows its moves as that game's:
/// what was asked, and the cells each move took on the board as written.
#[test]
fn moves_of_a_game_declared_as_a_board_game_are_shown_as_written() {
    let lines = move_lines(&format!("{CRAM_BOARD}moves CramBoard(2, 3)\n"));
    let mut shown: Vec<String> = lines.iter().map(|(_, to, _)| to.clone()).collect();
    shown.sort();
    assert_eq!(shown, dominoes_of_2_by_3());
    for (from, to, leaving) in &lines {
        assert_eq!(from, "CramBoard(2, 3)");
        assert_eq!(leaving, to);
    }
    // Its parts keep their order, whichever moves.
    let lines = move_lines("game Two(n) = Cram(Grid(1, n)) + *1\nmoves Two(3)\n");
    let leaving: Vec<&str> = lines.iter().map(|(.., leaving)| leaving.as_str()).collect();
    assert_eq!(
        leaving,
        [
            "Cram(Grid(1, 3) & {2}) + *1",
            "Cram(Grid(1, 3) & {0}) + *1",
            "Cram(Grid(1, 3)) + *0"
        ]
    );
    let answers = answers(&format!(
        "{CRAM}{CRAM_BOARD}best_move CramBoard(2, 3)\nbest_move Cram(Grid(2, 3))\n"
    ));
    for (answer, from) in answers.iter().zip(["CramBoard(2, 3)", "Cram(Grid(2, 3))"]) {
        let Value::BestMove(Some(line)) = &answer.value else {
            panic!("{answer:?}")
        };
        assert_eq!((line.from.as_str(), line.to.as_str()), (from, WINS_2_BY_3));
    }
}

/// `why`, `strategy` and `equal?` show positions on a board as `moves`
/// does: the parts on the board as written, and each move by the cells
/// it took.
#[test]
fn why_strategy_and_equal_show_boards_as_written() {
    use sprague::session::why::Reason;
    let answers = answers(&format!(
        "{CRAM}why Cram(Grid(2, 3))\nwhy Cram(Grid(1, 5) - {{2}})\nstrategy Cram(Grid(2, 3))\n\
         equal? Cram(Grid(1, 2)), Cram(Grid(2, 1))\n"
    ));
    // Cram on 2 × 3 is worth 1: its witness of value 0 is the winning move.
    let Value::Why(why) = &answers[0].value else {
        panic!("{:?}", answers[0])
    };
    let Reason::Mex { witnesses, .. } = &why.reason else {
        panic!("{why:?}")
    };
    let witnesses: Vec<&str> = witnesses.iter().map(|line| line.to.as_str()).collect();
    assert_eq!(witnesses, [WINS_2_BY_3]);
    // A row of five with the middle cell gone is two dominoes, each on
    // the row as written.
    let Value::Why(why) = &answers[1].value else {
        panic!("{:?}", answers[1])
    };
    let parts: Vec<&str> = why.parts.iter().map(|(part, _)| part.as_str()).collect();
    assert_eq!(
        parts,
        ["Cram(Grid(1, 5) & {0, 1})", "Cram(Grid(1, 5) & {3, 4})"]
    );
    // Each first move in A + *1 is a domino taken from the grid as written,
    // and the reply to the L left by {0, 1} takes a domino from it too.
    let Value::Strategy { n: 1, rows } = &answers[2].value else {
        panic!("{:?}", answers[2])
    };
    let mut firsts: Vec<String> = (rows.iter())
        .filter(|row| row.first.from != "*1")
        .map(|row| row.first.to.clone())
        .collect();
    firsts.sort();
    assert_eq!(firsts, dominoes_of_2_by_3());
    let row = (rows.iter())
        .find(|row| row.first.to == "Cram(Grid(2, 3) - {0, 1})")
        .unwrap();
    let reply = row.reply.as_ref().unwrap();
    assert_eq!(reply.from, "Cram(Grid(2, 3) - {0, 1})");
    assert!(reply.to.starts_with("Cram(Grid(2, 3) "), "{reply:?}");
    // One domino, upright or flat: equal, and shown as asked.
    assert_eq!(
        answers[3].value,
        Value::Equal {
            other: "Cram(Grid(2, 1))".into(),
            equal: true
        }
    );
}

/// `play` shows the moves as `moves` does, and the position as it stands
/// on the board as written; a move may still be typed as the search's
/// part (2 × 2, which the left column's two cells leave).
#[test]
fn play_shows_boards_as_written() {
    let input = format!("{CRAM}{CRAM_BOARD}play CramBoard(2, 3)\nCram(Grid(2, 2))\n:quit\n");
    let output = common::sprague(&["repl"], &input);
    let text = String::from_utf8_lossy(&output.stdout);
    for domino in dominoes_of_2_by_3() {
        let line = format!("CramBoard(2, 3) -> {domino}, leaving {domino}\n");
        assert!(text.contains(&line), "{line}: {text}");
    }
    let made = format!("you: CramBoard(2, 3) -> {WINS_2_BY_3}, leaving {WINS_2_BY_3}\n");
    assert!(text.contains(&made), "{text}");
    // The reply takes a domino of the square: one domino is left, on the
    // grid as written.
    let reply = format!("sprague: {WINS_2_BY_3} -> Cram(Grid(2, 3) ");
    assert!(text.contains(&reply), "{text}");
    assert!(text.contains("position: Cram(Grid(2, 3) & {"), "{text}");
}

/// What was asked is shown as asked, not as the part the search keeps
/// (a 2 × 1 grid is kept as 1 × 2, a 3 × 2 one as 2 × 3), and a move in
/// one part of a region keeps the other part on the board.
#[test]
fn a_position_on_a_board_is_shown_as_asked() {
    let answers = answers(&format!(
        "{CRAM}grundy Cram(Grid(2, n)) for n in 1..=1\nwins? Cram(Grid(3, 2))\n"
    ));
    let positions: Vec<&str> = answers
        .iter()
        .map(|answer| answer.position.as_str())
        .collect();
    assert_eq!(positions, ["Cram(Grid(2, 1))", "Cram(Grid(3, 2))"]);
    // Cram on 2 × 1 is one domino: value 1.
    assert_eq!(answers[0].value, Value::Grundy(1));
    // Cells 1 and 4 gone leave two upright dominoes, {0, 3} and {2, 5}.
    let lines = move_lines("moves Cram(Grid(2, 3) - {1, 4}) + *1\n");
    let from = "Cram(Grid(2, 3) - {1, 4})";
    assert_eq!(
        lines,
        [
            (
                from,
                "Cram(Grid(2, 3) & {2, 5})",
                "Cram(Grid(2, 3) & {2, 5}) + *1"
            ),
            (
                from,
                "Cram(Grid(2, 3) & {0, 3})",
                "Cram(Grid(2, 3) & {0, 3}) + *1"
            ),
            ("*1", "*0", "Cram(Grid(2, 3) - {1, 4}) + *0"),
        ]
        .map(|(a, b, c)| (a.to_owned(), b.to_owned(), c.to_owned()))
    );
}

/// A move of a game that splits may add a heap that counts the nodes near
/// the one it acts at (`*len(closed(s, v))`): the same in the part as in
/// the whole region. On every region of the 3 × 3 board, and up to
/// symmetry, the values equal those of the same rules without `splits`,
/// solved over the whole region.
#[test]
fn a_heap_counting_a_neighbourhood_splits_as_the_whole_region_says() {
    let games = "
        game G(s) splits { move G(s - closed(s, v)) + *(len(closed(s, v)) % 3) for v in s }
        game H(s) { move H(s - closed(s, v)) + *(len(closed(s, v)) % 3) for v in s }
        game GS(s) splits up to symmetry {
          move GS(s - {a, b}) + *(len(closed(s, a) + closed(s, b)) % 4)
            for a in s, b in neighbours(s, a) if a < b
        }
        game HS(s) {
          move HS(s - {a, b}) + *(len(closed(s, a) + closed(s, b)) % 4)
            for a in s, b in neighbours(s, a) if a < b
        }
    ";
    let regions: Vec<String> = (0u32..1 << 9)
        .map(|removed| {
            let cells: Vec<String> = (0..9)
                .filter(|cell| removed & (1 << cell) != 0)
                .map(|cell| cell.to_string())
                .collect();
            format!("Grid(3, 3) - {{{}}}", cells.join(", "))
        })
        .collect();
    let mut source = games.to_owned();
    for region in &regions {
        for game in ["G", "H", "GS", "HS"] {
            source += &format!("grundy {game}({region})\n");
        }
    }
    let values = grundy_values(&source);
    let mut nonzero = 0;
    for (region, four) in regions.iter().zip(values.chunks(4)) {
        assert_eq!(four[0], four[1], "G and H on {region}");
        assert_eq!(four[2], four[3], "GS and HS on {region}");
        nonzero += four.iter().filter(|&&value| value != 0).count();
    }
    // Not a class of zeros, which would agree whatever the splitting did.
    assert!(nonzero > 500, "{nonzero}");
}

/// `subsets(s, k)` lists the subsets of at most k elements: for every k
/// from -3 to 4 and every s ⊆ {1, 2, 3}, as many as the binomial sums
/// say, none for a negative k (it listed the empty set, as for k = 0: a
/// move more, and `move G(s - t) for t in subsets(s, -1)` a loop).
#[test]
fn subsets_of_at_most_k_elements_are_none_for_a_negative_k() {
    let choose = |n: i64, r: i64| -> i64 { (0..r).fold(1, |c, i| c * (n - i) / (i + 1)) };
    for k in -3..=4i64 {
        for bits in 0..8u32 {
            let set: Vec<String> = (1..=3)
                .filter(|e| bits & (1 << (e - 1)) != 0)
                .map(|e: i64| e.to_string())
                .collect();
            let n = set.len() as i64;
            let expected: i64 = (0..=k.min(n)).map(|r| choose(n, r)).sum();
            let values = grundy_values(&format!(
                "grundy *len([1 for t in subsets({{{}}}, {k})])",
                set.join(", ")
            ));
            assert_eq!(values, [expected as u64], "k = {k}, s = {set:?}");
        }
    }
    let looped =
        grundy_values("game SB(s) { move SB(s - t) for t in subsets(s, -1) }\ngrundy SB({1, 2})");
    assert_eq!(looped, [0]);
}
