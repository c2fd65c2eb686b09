//! A rule's last binding is swept along the tables of values where it can
//! be (see `Sweep` in the lowered program). A guard that reads the last
//! binding turns the sweep off, and the options are then folded one by
//! one; both ways must give every value alike, across rows, columns,
//! diagonals and anti-diagonals, forwards and backwards, with terms that
//! stand still, with arguments that leave the tables (negative), and with
//! options whose parts are not solved yet. (Wythoff's game, swept along
//! rows, columns and diagonals, is checked against its golden zeros in
//! `sequences.rs`.)

mod common;

use common::grundy_values;
use proptest::prelude::*;

/// The values of `game` at `positions`, declared as written and with a
/// guard on the last binding `var` that is always true.
fn both_ways(game: &str, var: &str, positions: &[String]) -> (Vec<u64>, Vec<u64>) {
    let queries: String = positions
        .iter()
        .map(|position| format!("grundy {position}\n"))
        .collect();
    let swept = grundy_values(&format!("{game}\n{queries}"));
    let guarded = game.replace(" }", &format!(" if {var} == {var} }}"));
    assert_ne!(guarded, game, "the declaration has a rule to guard");
    let one_by_one = grundy_values(&format!("{guarded}\n{queries}"));
    (swept, one_by_one)
}

/// Heaps -3 to 40, asked from the largest down (so that the first folds
/// meet parts not yet solved) and then again from the smallest up.
fn heaps(name: &str) -> Vec<String> {
    let down = (-3..=40).rev().map(|n| format!("{name}({n})"));
    let up = (-3..=40).map(|n| format!("{name}({n})"));
    down.chain(up).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// One-parameter games splitting a heap in two, with a heap of Nim
    /// standing still beside: arguments run forwards and backwards, and
    /// go negative for small heaps.
    #[test]
    fn splits_agree(p in 0i64..3, q in 1i64..3, r in 1i64..3, low in 0i64..3, heap in 0u64..3) {
        let game = format!(
            "game G(n) {{ move G(a - {p}) + G(n - {q} - a) + *{heap} for a in {low}..=n - {r} }}"
        );
        let (swept, one_by_one) = both_ways(&game, "a", &heaps("G"));
        prop_assert_eq!(swept, one_by_one, "{}", game);
    }

    /// Three and four moving terms, and an exclusive range.
    #[test]
    fn many_lines_agree(q in 1i64..3, low in 0i64..2, four: bool) {
        let last = if four { " + H(n - 1 - a)" } else { "" };
        let game = format!(
            "game H(n) {{ move H(a) + H(a) + H(n - {q} - a){last} for k in 1..=2, a in {low}..n - k }}"
        );
        let (swept, one_by_one) = both_ways(&game, "a", &heaps("H"));
        prop_assert_eq!(swept, one_by_one, "{}", game);
    }

    /// Two-parameter games moving along a row, a column, a diagonal or an
    /// anti-diagonal of their table, or swapping the arguments; every move
    /// lowers a + b and no argument goes below -1, so none loops.
    #[test]
    fn lines_through_two_parameter_tables_agree(rule in 0usize..5, extra in 0i64..2) {
        let target = [
            "T(a - k, b)",
            "T(a, b - k)",
            "T(a - k, b - k)",
            "T(a - k - 1, b + k)",
            "T(b, a - k)",
        ][rule];
        let game = format!(
            "game T(a, b) {{ move T(a - 1, b) + T(a, b - {extra} - 1) if a > 0 and b > 0 \
             move {target} + *{extra} for k in 1..=min(a, b) }}"
        );
        let positions: Vec<String> = (0..=12)
            .rev()
            .flat_map(|a| (0..=12).rev().map(move |b| format!("T({a}, {b})")))
            .collect();
        let (swept, one_by_one) = both_ways(&game, "k", &positions);
        prop_assert_eq!(swept, one_by_one, "{}", game);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Rules compiled to arithmetic on the parameters (ends and arguments
    /// sums and differences of them and the binding, targets of games
    /// only): one or two terms, ends inclusive or not, a least of two, and
    /// arguments that go negative (off the tables), asked from the largest
    /// position down (parts not solved yet) and then up. Every move lowers
    /// a + b, and the binding stays below both, so none loops or runs off.
    #[test]
    fn compiled_rules_agree(
        first in 0usize..6,
        second in proptest::option::of(0usize..6),
        low in 1i64..3,
        high in 0usize..5,
        inclusive: bool,
    ) {
        let terms = [
            "T(a - k, b)",
            "T(a, b - k)",
            "T(a - k, b - k)",
            "T(b - k, a - k)",
            "T(a - k - 1, b + k)",
            "T(a + 1 - k, b - 1)",
        ];
        let high = ["min(a, b)", "min(a, b) - 1", "min(a - 1, b)", "min(b, a + b)", "min(a, b + 2) - 2"][high];
        let target = match second {
            Some(second) => format!("{} + {}", terms[first], terms[second]),
            None => terms[first].to_string(),
        };
        let range = if inclusive { "..=" } else { ".." };
        let game = format!("game T(a, b) {{ move {target} for k in {low}{range}{high} }}");
        let down = (-2..=9).rev().flat_map(|a| (-2..=9).rev().map(move |b| (a, b)));
        let up = (-2..=9).flat_map(|a| (-2..=9).map(move |b| (a, b)));
        let positions: Vec<String> = down.chain(up).map(|(a, b)| format!("T({a}, {b})")).collect();
        let (swept, one_by_one) = both_ways(&game, "k", &positions);
        prop_assert_eq!(swept, one_by_one, "{}", game);
    }

    /// The same for games of three parameters and of one.
    #[test]
    fn compiled_rules_of_one_and_three_parameters_agree(term in 0usize..5, high in 0usize..3) {
        let target = [
            "U(a - k, b, c)",
            "U(a, b - k, c)",
            "U(a, b, c - k)",
            "U(a - k, b - k, c - k)",
            "U(c - k, a, b)",
        ][term];
        let last = ["min(a, b, c)", "min(min(a, b), c) - 1", "min(c, a + b, b, a)"][high];
        let game = format!("game U(a, b, c) {{ move {target} for k in 1..={last} }}");
        let positions: Vec<String> = (-1..=5)
            .rev()
            .flat_map(|a| (-1..=5).rev().flat_map(move |b| (-1..=5).rev().map(move |c| format!("U({a}, {b}, {c})"))))
            .collect();
        let (swept, one_by_one) = both_ways(&game, "k", &positions);
        prop_assert_eq!(swept, one_by_one, "{}", game);
        let game = format!("game V(n) {{ move V(n - k) + V(k - 1) for k in 1..={} }}", ["n", "n - 1", "min(n, 5)"][high]);
        let (swept, one_by_one) = both_ways(&game, "k", &heaps("V"));
        prop_assert_eq!(swept, one_by_one, "{}", game);
    }
}

/// Rules whose binding runs over a whole prefix of a row, a column or a
/// diagonal, long enough that the values seen along each line are kept as
/// a set and grown position by position: asked from the far corner first
/// (lines read further than the positions folded after), then row by row
/// (the table growing wider on the way), they agree with the options
/// folded one by one, for every pair of shapes.
#[test]
fn prefix_lines_agree() {
    let rules = [
        "move P(a - k, b) for k in 1..=a",
        "move P(a, b - k) for k in 1..=b",
        "move P(a - k, b - k) for k in 1..=min(a, b)",
    ];
    let far = (0..=40).rev().map(|a| format!("P({a}, {})", 40 - a / 2));
    let rows = (0..=40).flat_map(|a| (0..=40).step_by(7).map(move |b| format!("P({a}, {b})")));
    let positions: Vec<String> = far.chain(rows).collect();
    for first in rules {
        for (second, shift) in rules.iter().flat_map(|rule| [(rule, 0), (rule, 1)]) {
            let other = second.replace("for k in 1", &format!("for k in {}", 1 + shift));
            let game = format!("game P(a, b) {{ {first} {other} }}");
            let (swept, one_by_one) = both_ways(&game, "k", &positions);
            assert_eq!(swept, one_by_one, "{game}");
        }
    }
}

/// Nim as a rule over every smaller heap, and Wythoff's game: values from
/// the theory (Nim's heap n is worth n; Wythoff's P-positions are the
/// pairs (⌊kφ⌋, ⌊kφ²⌋)), through the sets kept per line.
#[test]
fn long_lines_give_nim_and_wythoff() {
    let nim = grundy_values(
        "game N(n) { move N(n - k) for k in 1..=n }\n\
         grundy N(300)\ngrundy N(57)\ngrundy N(299)",
    );
    assert_eq!(nim, vec![300, 57, 299]);
    let phi = (1.0 + 5f64.sqrt()) / 2.0;
    let zeros: Vec<(i64, i64)> = (0..60)
        .map(|k| {
            (
                (k as f64 * phi).floor() as i64,
                (k as f64 * phi * phi).floor() as i64,
            )
        })
        .filter(|&(_, b)| b < 100)
        .collect();
    let mut source = String::from(
        "game W(a, b) { move W(a - k, b) for k in 1..=a \
         move W(a, b - k) for k in 1..=b move W(a - k, b - k) for k in 1..=min(a, b) }\n",
    );
    for a in 0..100 {
        for b in 0..100 {
            source.push_str(&format!("grundy W({a}, {b})\n"));
        }
    }
    let values = grundy_values(&source);
    for a in 0..100i64 {
        for b in 0..100i64 {
            let zero = zeros.contains(&(a, b)) || zeros.contains(&(b, a));
            assert_eq!(values[(a * 100 + b) as usize] == 0, zero, "W({a}, {b})");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A guard comparing expressions linear in the last binding becomes
    /// part of its range (and the rule is swept); written so that it
    /// cannot (negated twice), it is tested option by option. Both agree,
    /// for coefficients of either sign, every comparison, inclusive and
    /// exclusive ranges, and bounds past either end.
    #[test]
    fn bounding_guards_agree(
        c in prop_oneof![Just(-2i64), Just(-1), Just(1), Just(2), Just(3)],
        op in prop::sample::select(vec!["<", "<=", ">", ">="]),
        shift in -3i64..4,
        inclusive: bool,
        twice: bool,
    ) {
        let range = if inclusive { "0..=n - 1" } else { "0..n" };
        let guard = format!("{c} * a {op} n - a + {shift}");
        let second = if twice { " and a >= 1" } else { "" };
        let game = |guard: &str| {
            format!("game G(n) {{ move G(a) + G(n - 1 - a) for a in {range} if {guard}{second} }}")
        };
        let positions = heaps("G");
        let queries: String = positions.iter().map(|p| format!("grundy {p}\n")).collect();
        let absorbed = grundy_values(&format!("{}\n{queries}", game(&guard)));
        let literal = grundy_values(&format!("{}\n{queries}", game(&format!("not (not ({guard}))"))));
        prop_assert_eq!(absorbed, literal, "{}", game(&guard));
    }
}

/// Grundy's game written with the guard that halves the splits, against
/// OEIS A002188: the guard is the range's end, and the rule is swept.
#[test]
fn grundys_game_with_its_guard_matches_oeis() {
    let expected: Vec<i64> = common::table("tests/data/grundys_game.txt")
        .into_iter()
        .map(|row| row[1])
        .collect();
    let last = expected.len() - 1;
    let queries: String = (0..=last).map(|n| format!("grundy G({n})\n")).collect();
    let values = grundy_values(&format!(
        "game G(n) {{ move G(a) + G(n - a) for a in 1..n if a < n - a }}\n{queries}"
    ));
    let values: Vec<i64> = values.into_iter().map(|v| v as i64).collect();
    assert_eq!(values, expected);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A `while` (or a guard) that ends a binding's range becomes its end,
    /// squares included (`while k * k <= n` is `k ≤ isqrt(n)`), and a
    /// target whose argument moves by other than ±1 is gathered from the
    /// table option by option. Written so that neither can happen (negated
    /// twice), the rule is tried assignment by assignment; both agree for
    /// strict and loose comparisons either way round, shifts that make the
    /// bound negative, starts below zero (where a square does not grow),
    /// conditions that stop at once, and a guard over a range around zero;
    /// every move takes at least one token.
    #[test]
    fn ends_of_ranges_agree(
        cond in prop::sample::select(vec![
            "k * k <= n + S", "k * k < n + S", "n + S >= k ** 2", "n + S > k * k",
            "k <= n + S", "k * k <= n + S and k < 7", "k * k <= n + S and k >= S",
        ]),
        shift in -4i64..4,
        start in prop::sample::select(vec![-2i64, 0, 1, 2]),
        by_guard: bool,
        step in prop::sample::select(vec!["k * k + 1", "abs(k) + 1", "k + 3"]),
    ) {
        let cond = cond.replace('S', &shift.to_string());
        let game = |cond: &str| match by_guard {
            true => format!("game G(n) {{ move G(n - ({step})) for k in {start}..=9 if {cond} }}"),
            false => format!("game G(n) {{ move G(n - ({step})) for k in {start}.. while {cond} }}"),
        };
        let positions = heaps("G");
        let queries: String = positions.iter().map(|p| format!("grundy {p}\n")).collect();
        let absorbed = common::answers(&format!("{}\n{queries}", game(&cond)));
        let literal = common::answers(&format!("{}\n{queries}", game(&format!("not (not ({cond}))"))));
        prop_assert_eq!(absorbed, literal, "{}", game(&cond));
    }
}

/// Tables keep values in one byte and widen as larger ones arrive: a
/// game worth n at n (its options are the heaps below n), asked out of
/// order across the widths' limits, and Nim as rules read along a table
/// that widened under it.
#[test]
fn tables_widen_as_values_grow() {
    let asked = [5, 300, 251, 252, 70_000, 65_531, 65_532, 7, 100_000];
    let queries: String = asked.iter().map(|n| format!("grundy B({n})\n")).collect();
    let values = grundy_values(&format!("game B(n) {{ move *k for k in 0..n }}\n{queries}"));
    assert_eq!(values, asked.map(|n| n as u64));
    let values = grundy_values(
        "game N(n) { move N(n - k) for k in 1..=n }
         grundy N(n) for n in {3, 250, 260, 1000, 999}",
    );
    assert_eq!(values, [3, 250, 260, 1000, 999]);
}

/// The three-heap game of one heap's tokens or the same number from two
/// heaps, by its definition (a mex over every option, by hand).
fn three_heaps_by_hand(n: usize) -> Vec<u64> {
    let at = |a: usize, b: usize, c: usize| (a * n + b) * n + c;
    let mut values = vec![0u64; n * n * n];
    for a in 0..n {
        for b in 0..n {
            for c in 0..n {
                let mut seen = vec![false; 3 * n + 1];
                let mut see = |value: u64| seen[value as usize] = true;
                (1..=a).for_each(|k| see(values[at(a - k, b, c)]));
                (1..=b).for_each(|k| see(values[at(a, b - k, c)]));
                (1..=c).for_each(|k| see(values[at(a, b, c - k)]));
                (1..=a.min(b)).for_each(|k| see(values[at(a - k, b - k, c)]));
                (1..=a.min(c)).for_each(|k| see(values[at(a - k, b, c - k)]));
                (1..=b.min(c)).for_each(|k| see(values[at(a, b - k, c - k)]));
                values[at(a, b, c)] = seen.iter().position(|&was| !was).unwrap() as u64;
            }
        }
    }
    values
}

const THREE_HEAPS: &str = "game W3(a, b, c) {
  move W3(a - k, b, c) for k in 1..=a
  move W3(a, b - k, c) for k in 1..=b
  move W3(a, b, c - k) for k in 1..=c
  move W3(a - k, b - k, c) for k in 1..=min(a, b)
  move W3(a - k, b, c - k) for k in 1..=min(a, c)
  move W3(a, b - k, c - k) for k in 1..=min(b, c)
}";

/// Games of three parameters have tables too, swept along any parameter
/// and any diagonal of two; asked from the far corner down, and then
/// position by position from the near one (so that the table grows in
/// every direction under the queries), they agree with the definition.
#[test]
fn three_parameter_tables_agree_with_the_definition() {
    let n = 9;
    let expected = three_heaps_by_hand(n);
    let mut queries = format!("grundy W3({0}, {0}, {0})\n", n - 1);
    queries.push_str(&format!(
        "grundy W3(a, b, c) for a in 0..={m}, b in 0..={m}, c in 0..={m}\n",
        m = n - 1
    ));
    let values = grundy_values(&format!("{THREE_HEAPS}\n{queries}"));
    assert_eq!(values[0], expected[n * n * n - 1]);
    assert_eq!(values[1..], expected[..]);
    // Asked in a fresh session from small to large along each axis.
    let queries: String = [(0, 0, 8), (0, 8, 0), (8, 0, 0), (3, 8, 5), (8, 8, 8)]
        .iter()
        .map(|(a, b, c)| format!("grundy W3({a}, {b}, {c})\n"))
        .collect();
    let values = grundy_values(&format!("{THREE_HEAPS}\n{queries}"));
    let at = |a: usize, b: usize, c: usize| expected[(a * n + b) * n + c];
    assert_eq!(
        values,
        [
            at(0, 0, 8),
            at(0, 8, 0),
            at(8, 0, 0),
            at(3, 8, 5),
            at(8, 8, 8)
        ]
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// Rules of three parameters with two moving terms (a heap split in
    /// two along any parameter), swept and folded one by one, agree.
    #[test]
    fn three_parameter_sweeps_agree(axis in 0usize..3, q in 1i64..3) {
        let mut args = ["x", "y", "z"].map(String::from);
        let mut rest = args.clone();
        args[axis] = "i".into();
        rest[axis] = format!("{} - {q} - i", ["x", "y", "z"][axis]);
        let game = format!(
            "game T(x, y, z) {{ move T({}) + T({}) for i in 0..={} - {q} }}",
            args.join(", "),
            rest.join(", "),
            ["x", "y", "z"][axis]
        );
        let positions: Vec<String> = (0..4)
            .flat_map(|x| (0..4).flat_map(move |y| (0..6).map(move |z| format!("T({x}, {y}, {z})"))))
            .rev()
            .collect();
        let (swept, one_by_one) = both_ways(&game, "i", &positions);
        prop_assert_eq!(swept, one_by_one, "{}", game);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A guard that leaves out a few values of a rule's one binding
    /// (`k != 2`) splits the rule into rules over the ranges between them,
    /// each swept, the last over a whole prefix of its line; written so
    /// that it cannot (negated twice), it is tried option by option. Both
    /// agree on every value and list `moves` in the same order, for values
    /// left out that are constants, expressions of the position, either
    /// way round, with coefficients of either sign, outside the range, and
    /// more of them than a rule is split for; in one and two parameters.
    #[test]
    fn values_left_out_agree(
        cuts in prop::collection::vec(
            prop::sample::select(vec![
                "k != 2", "5 != k", "k != C", "n - k != C", "2 * k != n", "k != n - C", "-k != -C",
            ]),
            1..5,
        ),
        shift in -2i64..12,
        two: bool,
    ) {
        let guard = cuts.join(" and ").replace('C', &shift.to_string());
        let game = |guard: &str| match two {
            false => format!("game G(n) {{ move G(n - k) for k in 1..=n if {guard} }}"),
            true => format!(
                "game G(n, m) {{ move G(n - k, m) for k in 1..=n if {guard} \
                 move G(n, m - k) for k in 1..=m }}"
            ),
        };
        let positions: Vec<String> = match two {
            false => heaps("G"),
            true => (0..14).flat_map(|n| (0..4).map(move |m| format!("G({n}, {m})"))).collect(),
        };
        let mut queries: String = positions.iter().map(|p| format!("grundy {p}\n")).collect();
        queries.push_str(if two { "moves G(13, 2)\n" } else { "moves G(13)\n" });
        let split = common::answers(&format!("{}\n{queries}", game(&guard)));
        let literal = common::answers(&format!("{}\n{queries}", game(&format!("not (not ({guard}))"))));
        prop_assert_eq!(split, literal, "{}", game(&guard));
    }
}

/// `subtraction all but {2, 5, 11}` written as a rule, `k != 2 and k != 5
/// and k != 11`: split and swept, it agrees with the code (valued by
/// prefix) far along.
#[test]
fn a_rule_leaving_out_removals_agrees_with_all_but() {
    let rule = "game R(n) { move R(n - k) for k in 1..=n if k != 2 and k != 5 and k != 11 }";
    let code = "game C = subtraction all but {2, 5, 11}";
    let queries: String = [0, 1, 7, 12, 100, 999, 5000]
        .iter()
        .map(|n| format!("grundy R({n})\n"))
        .collect();
    let by_rule = grundy_values(&format!("{rule}\n{queries}"));
    let by_code = grundy_values(&format!("{code}\n{}", queries.replace("R(", "C(")));
    assert_eq!(by_rule, by_code);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A target argument `min(x, y)` or `max(x, y)` of expressions linear
    /// in the binding splits the rule where the choice changes, each part
    /// swept; written `if x <= y then x else y`, the rule is tried option
    /// by option. Both agree on values and the order of `moves`, for
    /// choices that cross inside the range, before it or after it, either
    /// way round, several in one target, and in two and three parameters
    /// (three-row Chomp).
    #[test]
    fn choices_agree(
        first in prop::sample::select(vec!["min", "max"]),
        second in prop::sample::select(vec!["min", "max"]),
        x in prop::sample::select(vec!["a - k", "b", "k", "a - 2 * k", "c + 1"]),
        y in prop::sample::select(vec!["b", "a - k", "c - k", "S", "b - k"]),
        shift in -2i64..6,
    ) {
        let y = y.replace('S', &shift.to_string());
        let written = |choice: &str, x: &str, y: &str| match choice {
            "min" => format!("(if {x} <= {y} then {x} else {y})"),
            _ => format!("(if {x} <= {y} then {y} else {x})"),
        };
        let game = |literal: bool| {
            let one = match literal {
                true => written(first, x, &y),
                false => format!("{first}({x}, {y})"),
            };
            let two = match literal {
                true => written(second, "c", "a - k"),
                false => format!("{second}(c, a - k)"),
            };
            format!(
                "game C(a, b, c) {{ move C(a - k, {one}, {two}) for k in 1..=a - 1 \
                 move C(a, b - k, min(c, b - k)) for k in 1..=b \
                 move C(a, b, c - k) for k in 1..=c }}"
            )
        };
        let mut queries = String::new();
        for a in 0..7 {
            for b in 0..=a {
                for c in 0..=b {
                    queries.push_str(&format!("grundy C({a}, {b}, {c})\n"));
                }
            }
        }
        queries.push_str("moves C(6, 4, 2)\n");
        let split = common::answers(&format!("{}\n{queries}", game(false)));
        let literal = common::answers(&format!("{}\n{queries}", game(true)));
        prop_assert_eq!(split, literal, "{}", game(false));
    }
}

/// Three-row Chomp as rules, its arguments chosen by `min`: the values of
/// the positions where the rows are equal against a loop written here by
/// hand, and the first player wins every rectangle but the poisoned square
/// alone (strategy stealing).
#[test]
fn three_row_chomp_agrees_with_a_loop_by_hand() {
    let chomp = "game C3(a, b, c) {\n  move C3(a - k, min(b, a - k), min(c, a - k)) for k in 1..=a - 1\n  \
                 move C3(a, b - k, min(c, b - k)) for k in 1..=b\n  \
                 move C3(a, b, c - k) for k in 1..=c\n}\n";
    let n = 24;
    let queries: String = (1..=n)
        .map(|a| format!("grundy C3({a}, {a}, {a})\n"))
        .collect();
    let values = grundy_values(&format!("{chomp}{queries}"));
    // By hand: every position a ≥ b ≥ c, every option.
    let size = n + 1;
    let mut g = vec![0u64; size * size * size];
    let at = |a: usize, b: usize, c: usize| (a * size + b) * size + c;
    for a in 1..size {
        for b in 0..=a {
            for c in 0..=b {
                let mut seen = [false; 128];
                for x in 1..a {
                    seen[g[at(x, b.min(x), c.min(x))] as usize] = true;
                }
                for y in 0..b {
                    seen[g[at(a, y, c.min(y))] as usize] = true;
                }
                for z in 0..c {
                    seen[g[at(a, b, z)] as usize] = true;
                }
                g[at(a, b, c)] = seen.iter().position(|&s| !s).unwrap() as u64;
            }
        }
    }
    let by_hand: Vec<u64> = (1..=n).map(|a| g[at(a, a, a)]).collect();
    assert_eq!(values, by_hand);
    assert!(values.iter().all(|&value| value != 0), "rectangles win");
    let alone = grundy_values(&format!("{chomp}grundy C3(1, 0, 0)\ngrundy C3(2, 0, 0)\n"));
    assert_eq!(
        alone,
        [0, 1],
        "the poisoned square alone loses; Nim beside it"
    );
}

/// Games of four parameters have tables and sweeps too. Nim on four heaps
/// written as one game of four parameters has the XOR of the heaps for
/// its value (the Sprague–Grundy theorem), every position alike, asked
/// from the far corner down and swept or one by one.
#[test]
fn four_heaps_of_nim_as_one_game_have_the_xor_of_the_heaps() {
    let game = "game N(a, b, c, d) {
        move N(a - k, b, c, d) for k in 1..=a
        move N(a, b - k, c, d) for k in 1..=b
        move N(a, b, c - k, d) for k in 1..=c
        move N(a, b, c, d - k) for k in 1..=d }";
    let heaps: Vec<[u64; 4]> = (0..=5u64)
        .rev()
        .flat_map(|a| {
            (0..=5).flat_map(move |b| (0..=5).flat_map(move |c| (0..=6).map(move |d| [a, b, c, d])))
        })
        .collect();
    let positions: Vec<String> = heaps
        .iter()
        .map(|[a, b, c, d]| format!("N({a}, {b}, {c}, {d})"))
        .collect();
    let (swept, one_by_one) = both_ways(game, "k", &positions);
    let xor: Vec<u64> = heaps.iter().map(|[a, b, c, d]| a ^ b ^ c ^ d).collect();
    assert_eq!(swept, xor);
    assert_eq!(one_by_one, xor);
}

/// Moore's Nim_2 on four heaps (a move takes from one heap or from two),
/// as one game of four parameters: a position is a loss exactly when, in
/// every binary place, the heaps' digits sum to a multiple of 3 (Moore's
/// theorem).
#[test]
fn moores_nim_on_four_heaps_loses_where_moores_theorem_says() {
    let source = "game M(a, b, c, d) {
        move M(a - k, b, c, d) for k in 1..=a
        move M(a, b - k, c, d) for k in 1..=b
        move M(a, b, c - k, d) for k in 1..=c
        move M(a, b, c, d - k) for k in 1..=d
        move M(a - i, b - j, c, d) for i in 1..=a, j in 1..=b
        move M(a - i, b, c - j, d) for i in 1..=a, j in 1..=c
        move M(a - i, b, c, d - j) for i in 1..=a, j in 1..=d
        move M(a, b - i, c - j, d) for i in 1..=b, j in 1..=c
        move M(a, b - i, c, d - j) for i in 1..=b, j in 1..=d
        move M(a, b, c - i, d - j) for i in 1..=c, j in 1..=d }
        grundy M(a, b, c, d) for a in 0..=7, b in 0..=7, c in 0..=7, d in 0..=7";
    let values = common::grundy_values(source);
    let mut checked = 0;
    for (i, value) in values.iter().enumerate() {
        let heaps = [i / 512, i / 64 % 8, i / 8 % 8, i % 8];
        let loses =
            (0..3).all(|bit| heaps.iter().map(|heap| heap >> bit & 1).sum::<usize>() % 3 == 0);
        assert_eq!(*value == 0, loses, "M{heaps:?}");
        checked += 1;
    }
    assert_eq!(checked, 8 * 8 * 8 * 8);
}
