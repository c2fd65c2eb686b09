//! The nimber field: `nim` queries, `nim_mul` and `nim_inv` against
//! CGSuite's nim arithmetic and Conway's definition of the product, and
//! the integer bit operations.

mod common;

use common::{answers, grundy_values};
use sprague::output;

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
