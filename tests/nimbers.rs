//! The nimber field: `nim` queries, `nim_mul` and `nim_inv` against
//! CGSuite's nim arithmetic and Conway's definition of the product, and
//! the integer bit operations.

mod common;

use common::{answers, grundy_values};
use sprague::output;
use sprague::session::{Crosscheck, Value};

/// The values a source's queries answer, in order.
fn values(source: &str) -> Vec<u64> {
    answers(source)
        .into_iter()
        .map(|answer| match answer.value {
            sprague::session::Value::Grundy(value) => value,
            other => panic!("expected a value, got {other:?}"),
        })
        .collect()
}

/// The nim-products of 0..=n by Conway's definition: a ⊗ b is the mex of
/// a' ⊗ b ⊕ a ⊗ b' ⊕ a' ⊗ b' over a' < a, b' < b (for n < 256, all below 256).
fn conway_table(n: usize) -> Vec<Vec<u64>> {
    let mut table = vec![vec![0u64; n + 1]; n + 1];
    for a in 0..=n {
        for b in 0..=n {
            let mut seen = vec![false; 256];
            for x in 0..a {
                for y in 0..b {
                    seen[(table[x][b] ^ table[a][y] ^ table[x][y]) as usize] = true;
                }
            }
            table[a][b] = seen.iter().position(|&was| !was).unwrap() as u64;
        }
    }
    table
}

#[test]
fn the_repl_multiplies_nimbers() {
    let found: Vec<String> = answers("nim 3 * 5\nnim 2 * 2")
        .iter()
        .map(output::text)
        .collect();
    assert_eq!(found, ["nim 3 * 5 = 15", "nim 2 * 2 = 3"]);
}

#[test]
fn nim_arithmetic_agrees_with_cgsuite() {
    // CGSuite's GameTest.scala, on game.Integer.
    assert_eq!(
        values("nim 11 + n for n in 1..=16"),
        [10, 9, 8, 15, 14, 13, 12, 3, 2, 1, 0, 7, 6, 5, 4, 27]
    );
    assert_eq!(
        values("nim 8 * n for n in 1..=16"),
        [8, 12, 4, 11, 3, 7, 15, 13, 5, 1, 9, 6, 14, 10, 2, 128]
    );
    let inverses = [1, 3, 2, 15, 12, 9, 11, 10, 6, 8, 7, 5, 14, 13, 4, 170];
    assert_eq!(values("nim 1 / n for n in 1..=16"), inverses);
    assert_eq!(values("grundy *nim_inv(n) for n in 1..=16"), inverses);
    assert_eq!(
        values("nim 11 / n for n in 1..=16"),
        [11, 6, 13, 8, 14, 2, 15, 4, 10, 9, 1, 12, 3, 5, 7, 68]
    );
}

#[test]
fn the_product_table_is_conways() {
    let table = conway_table(16);
    let by_query = values("nim a * b for a in 0..=16, b in 0..=16");
    let by_function = grundy_values("grundy *nim_mul(a, b) for a in 0..=16, b in 0..=16");
    let expected: Vec<u64> = table.into_iter().flatten().collect();
    assert_eq!(by_query, expected);
    assert_eq!(by_function, expected);
}

#[test]
fn powers_and_negation_in_nimbers() {
    // 2 ⊗ 2 = 3 and 2 ⊗ 3 = 1: 2 has order 3; a nimber is its own negative.
    assert_eq!(values("nim 2 ** k for k in 0..=3"), [1, 2, 3, 1]);
    // (3 + 1) * 2 = (3 ⊕ 1) ⊗ 2 = 2 ⊗ 2.
    assert_eq!(values("nim -5\nnim 5 - 3\nnim (3 + 1) * 2"), [5, 6, 3]);
    // Exponents and function arguments stay integers.
    assert_eq!(values("nim 4 ** (1 + 1)\nnim popcount(1 + 2)"), [6, 2]);
}

#[test]
fn bit_operations_follow_rusts_precedence() {
    assert_eq!(
        grundy_values(
            "grundy *(1 + 2 << 3)
             grundy *(5 | 2 ^ 3 & 1)
             grundy *(~(0 - 8))
             grundy *(1 << 62 >> 60)
             grundy *popcount(255)
             grundy *(12 & 10) + *(12 | 10) + *(12 ^ 10)"
        ),
        [24, 7, 7, 4, 8, 8 ^ 14 ^ 6]
    );
}

#[test]
fn tables_of_queries_show_their_values_in_place() {
    let found: Vec<String> = answers("let ab = 2\nnim a * ab + b for a in 2..=3, b in 0..=0")
        .iter()
        .map(output::text)
        .collect::<Vec<_>>();
    // `ab` is not `a`: only whole names are replaced.
    assert_eq!(found, ["nim 2 * ab + 0 = 3", "nim 3 * ab + 0 = 1"]);
}

const COINS: &str = "
game MockTurtles = coins(n) { turn t for t in subsets({m for m in 0..n}, 2) }
game Ruler = coins(n) { turn {j for j in i..n} for i in 1..=n }
game Twins = coins(n) { turn {m} for m in 0..n }
game TurningCorners = product Twins Twins
game Rugs = product Ruler Ruler
";

#[test]
fn mock_turtles_are_the_odious_numbers() {
    let odious: Vec<u64> = (0u64..)
        .filter(|n| n.count_ones() % 2 == 1)
        .take(41)
        .collect();
    let found = values(&format!("{COINS} grundy MockTurtles(n) for n in 0..=40"));
    assert_eq!(found, odious);
}

#[test]
fn ruler_is_the_largest_power_of_two_dividing_n() {
    let expected: Vec<u64> = (1u64..=64).map(|n| 1 << n.trailing_zeros()).collect();
    let found = values(&format!("{COINS} grundy Ruler(n) for n in 1..=64"));
    assert_eq!(found, expected);
}

#[test]
fn a_set_of_heads_is_the_sum_of_its_coins() {
    let source = format!(
        "{COINS}
         game MockTurtlesSet(s) {{
           move MockTurtlesSet(s ^ ({{x}} + t)) for x in s, t in subsets({{y for y in 0..x}}, 2)
         }}"
    );
    for heads in [vec![0, 3, 5, 8], vec![1, 2], vec![4, 6, 7, 9, 10], vec![]] {
        let set = format!("{heads:?}").replace('[', "{").replace(']', "}");
        let found = values(&format!(
            "{source} grundy MockTurtles({set})\ngrundy MockTurtlesSet({set})"
        ));
        let odious = |n: u64| (0u64..).filter(|m| m.count_ones() % 2 == 1).nth(n as usize);
        let by_theory = heads
            .iter()
            .map(|&n| odious(n).unwrap())
            .fold(0, |a, b| a ^ b);
        assert_eq!(found, [by_theory, by_theory], "heads at {heads:?}");
    }
}

#[test]
fn turning_corners_searched_on_the_board_is_the_nim_product() {
    // A head at (x, y) turns the corners of a rectangle: (a, b), (a, y),
    // (x, b) and itself, a < x and b < y; searched as a game of rules.
    let source = format!(
        "{COINS}
         game Corners(x, y) {{
           move Corners(a, b) + Corners(a, y) + Corners(x, b) for a in 0..x, b in 0..y
         }}
         grundy Corners(x, y) for x in 0..=15, y in 0..=15
         grundy TurningCorners(x, y) for x in 0..=15, y in 0..=15"
    );
    let found = values(&source);
    let (searched, product) = found.split_at(256);
    let table: Vec<u64> = conway_table(15).into_iter().flatten().collect();
    assert_eq!(searched, table);
    assert_eq!(product, table);
}

#[test]
fn rugs_searched_on_the_board_is_the_product_of_rulers() {
    // A head at (x, y) turns every coin of a rectangle with (x, y) its far
    // corner (places from 1).
    let source = format!(
        "{COINS}
         game Rug(x, y) {{
           move (Rug(p, q) for p in i..=x, q in j..=y if p != x or q != y)
             for i in 1..=x, j in 1..=y
         }}
         grundy Rug(x, y) for x in 1..=8, y in 1..=8
         grundy Rugs(x, y) for x in 1..=8, y in 1..=8"
    );
    let found = values(&source);
    let ruler = |n: u64| 1u64 << n.trailing_zeros();
    let table: Vec<u64> = (1..=8u64)
        .flat_map(|x| (1..=8u64).map(move |y| sprague::nimber::mul(ruler(x), ruler(y))))
        .collect();
    assert_eq!(&found[..64], table);
    assert_eq!(&found[64..128], table);
}

#[test]
fn products_answer_every_query_alike_by_search() {
    // best_move and crosscheck search the product's own moves; the value
    // comes from the factors.
    let found: Vec<String> = answers(&format!(
        "{COINS} crosscheck TurningCorners(3, 2) + TurningCorners(2, 3)
         wins? TurningCorners(3, 2) + TurningCorners(2, 3)
         best_move TurningCorners(2, 2)"
    ))
    .iter()
    .map(output::text)
    .collect();
    assert!(found[0].contains("agree"), "{}", found[0]);
    // 3 ⊗ 2 = 2 ⊗ 3: the sum is a loss.
    assert_eq!(
        found[1],
        "wins? TurningCorners(3, 2) + TurningCorners(2, 3) = false"
    );
    // 2 ⊗ 2 = 3; the corners (0, 0), (0, 2), (2, 0) are worth 0.
    assert!(
        found[2].ends_with(
            "leaving TurningCorners(0, 0) + TurningCorners(0, 2) + TurningCorners(2, 0)"
        ),
        "{}",
        found[2]
    );
}

#[test]
fn names_of_integers_still_multiply() {
    // `*` between two games is refused, but not between two names of
    // integers, nor in a `let` of an integer.
    assert_eq!(
        grundy_values(
            "let A = 2\nlet B = 3\nlet K = A * B\nlet Q = A * min(B, 5) << 1\ngrundy *K\ngrundy *Q"
        ),
        [6, 12]
    );
    let output = common::sprague(&["run", "-"], "let P = *2\ngrundy P * *3\n");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("games do not multiply"),
        "{output:?}"
    );
}

/// `crosscheck` of a product searches its board: two heads on one coin
/// are tails, so Rugs(3, 4), whose moves turn coins of rows 1..=3 and
/// columns 1..=4, searches at most 2^12 boards, where the sums of heads
/// its moves pile up run past a million. Ruler(3) = 1 and Ruler(4) = 4, so
/// it is worth 1 ⊗ 4 = 4, a win. A sum of heaps keeps every component:
/// `*2 + *2` is a loss, so every sum it reaches is searched, the 6
/// multisets of two heaps of at most 2, not none.
#[test]
fn crosscheck_searches_a_product_as_its_board() {
    let found = answers(&format!(
        "{COINS} crosscheck Rugs(3, 4)
         crosscheck Rugs(2, 2) + Rugs(2, 2)
         crosscheck *2 + *2"
    ));
    let checks: Vec<&Crosscheck> = found
        .iter()
        .map(|answer| match &answer.value {
            Value::Crosscheck(check) => check,
            other => panic!("expected a crosscheck, got {other:?}"),
        })
        .collect();
    assert!(checks[0].agree() && checks[0].search_wins && checks[0].boards);
    assert_eq!(checks[0].grundy, 4);
    assert!(checks[0].positions <= 1 << 12, "{}", checks[0].positions);
    assert!(
        output::text(&found[0]).contains("search of the whole board"),
        "{}",
        output::text(&found[0])
    );
    // Two heads on one coin: an empty board, lost by the player to move.
    assert!(checks[1].agree() && !checks[1].search_wins && checks[1].positions == 1);
    assert!(checks[2].agree() && !checks[2].search_wins && !checks[2].boards);
    assert_eq!(checks[2].positions, 6);
}

/// A head of Rugs at (100, 4) reaches the 400 coins (x, y) with x ≤ 100
/// and y ≤ 4, a board of 2^400 positions: the crosscheck is refused as
/// soon as its count of coins passes the 20 whose 2^20 boards could fit
/// the limit of a million, not after searching a million of them, each
/// with hundreds of options of hundreds of heads.
#[test]
fn a_crosscheck_of_a_board_of_too_many_coins_is_refused_by_its_coins() {
    let output = common::sprague(
        &["run", "-"],
        &format!("{COINS} crosscheck Rugs(100, 4)\ncrosscheck Rugs(3, 4)"),
    );
    let errors = String::from_utf8_lossy(&output.stderr);
    assert!(errors.contains("a board of more than 20 coins"), "{errors}");
    assert!(errors.contains("--max-search"), "{errors}");
    assert_eq!(output.status.code(), Some(1), "{errors}");
}

/// `remoteness` keeps every head, so the sums of Rugs(100, 4) are
/// multisets of heads no limit of sums bounds the cost of: the heads its
/// options hold count toward the work limit, and the search stops at it
/// with the work limit's error.
#[test]
fn a_remoteness_of_sums_of_many_heads_stops_at_the_work_limit() {
    let output = common::sprague(
        &["run", "--max-work", "100000", "-"],
        &format!("{COINS} remoteness Rugs(100, 4)"),
    );
    let errors = String::from_utf8_lossy(&output.stderr);
    assert!(errors.contains("past the limit of 100,000"), "{errors}");
    assert!(errors.contains("--max-work"), "{errors}");
}

/// Under misère play a sum is searched whole, each state a multiset of
/// heads: a head of Rugs(40, 4) has up to 160 options of up to 160 heads,
/// and a search bounded by its count of states alone held gigabytes long
/// before a million of them. What the states, their children and the
/// heads' options hold is bounded by `--max-table`: under an address space
/// of 1.5 GB, the query is refused with the memory limit's error, and the
/// next query is answered (a single head of Rugs(1, 1) has one move, to
/// the empty board: under misère play its mover loses).
#[test]
fn a_misere_search_of_many_heads_is_bounded_by_its_memory() {
    let output = common::run_capped_with(
        &["--max-table", "16MB"],
        &format!("{COINS} crosscheck misere Rugs(40, 4)\nwins? misere Rugs(1, 1)"),
        1_500_000_000,
    );
    let errors = String::from_utf8_lossy(&output.stderr);
    assert!(errors.contains("sums_too_large"), "{errors}");
    assert!(errors.contains("more than 16 MB"), "{errors}");
    assert!(errors.contains("--max-table"), "{errors}");
    assert_eq!(output.status.code(), Some(1), "{errors}");
    let answers = String::from_utf8_lossy(&output.stdout);
    assert_eq!(answers.trim(), "wins? misere Rugs(1, 1) = false");
}

/// `remoteness` keeps every head of its sums, each sum a list of thousands
/// of heads from Rugs(40, 4) on: what its sums and the heads' options hold
/// is bounded by `--max-table`, and the query is refused with the memory
/// limit's error under an address space of 1.5 GB (it had run out of
/// memory and aborted). The next query is answered: Rugs(1, 1) moves to
/// the empty board, a win in one move.
#[test]
fn a_remoteness_of_many_heads_is_bounded_by_its_memory() {
    let output = common::run_capped_with(
        &["--max-table", "16MB"],
        &format!("{COINS} remoteness Rugs(40, 4)\nremoteness Rugs(1, 1)"),
        1_500_000_000,
    );
    let errors = String::from_utf8_lossy(&output.stderr);
    assert!(errors.contains("sums_too_large"), "{errors}");
    assert!(errors.contains("more than 16 MB"), "{errors}");
    assert_eq!(output.status.code(), Some(1), "{errors}");
    let answers = String::from_utf8_lossy(&output.stdout);
    assert!(
        answers
            .trim()
            .starts_with("remoteness Rugs(1, 1) = 1 (win)"),
        "{answers}"
    );
}
