//! Values against published sequences (OEIS, copied into `tests/data/`) and
//! against what the theory says outright.

mod common;

use common::{answers, grundy_values, table};
use proptest::prelude::*;
use sprague::session::Value;

/// `(n, value)` rows of a reference file, for n up to `last`.
fn reference(path: &str, last: i64) -> Vec<(i64, u64)> {
    table(path)
        .into_iter()
        .map(|row| (row[0], row[1] as u64))
        .filter(|&(n, _)| n <= last)
        .collect()
}

fn check_sequence(game: &str, path: &str) {
    let expected = reference(path, 100);
    let queries: String = expected
        .iter()
        .map(|(n, _)| format!("grundy {game}({n})\n"))
        .collect();
    let values = grundy_values(&format!("{}\n{queries}", declaration(game)));
    let expected: Vec<u64> = expected.iter().map(|&(_, value)| value).collect();
    assert_eq!(values, expected, "{game} against {path}");
}

fn declaration(game: &str) -> &'static str {
    match game {
        "Kayles" => {
            "game Kayles(n) { move Kayles(a) + Kayles(n - k - a) for k in 1..=2, a in 0..=n - k }"
        }
        "Dawson" => "game Dawson(n) { move Dawson(a) + Dawson(n - 2 - a) for a in 0..=n - 2 }",
        "Split" => "game Split(n) { move Split(a) + Split(n - a) for a in 1..n if a < n - a }",
        _ => unreachable!("no declaration for {game}"),
    }
}

#[test]
fn kayles_is_a002186() {
    check_sequence("Kayles", "tests/data/kayles_octal_0.77.txt");
}

#[test]
fn dawsons_kayles_is_a002187_shifted() {
    check_sequence("Dawson", "tests/data/dawsons_kayles_octal_0.07.txt");
}

#[test]
fn grundys_game_is_a002188() {
    check_sequence("Split", "tests/data/grundys_game.txt");
}

const WYTHOFF: &str = "game Wythoff(a, b) {
    move Wythoff(a - k, b)     for k in 1..=a
    move Wythoff(a, b - k)     for k in 1..=b
    move Wythoff(a - k, b - k) for k in 1..=min(a, b)
}
grundy Wythoff(a, b) for a in 0..10, b in 0..10";

/// Wythoff values by the definition, written directly: the mex over the
/// row, the column and the diagonal below a cell.
fn wythoff_by_hand(size: usize) -> Vec<Vec<u64>> {
    let mut g = vec![vec![0u64; size]; size];
    for a in 0..size {
        for b in 0..size {
            let mut seen: Vec<u64> = (0..a).map(|i| g[i][b]).collect();
            seen.extend((0..b).map(|j| g[a][j]));
            seen.extend((1..=a.min(b)).map(|k| g[a - k][b - k]));
            g[a][b] = (0..).find(|v| !seen.contains(v)).unwrap();
        }
    }
    g
}

#[test]
fn wythoff_ten_by_ten() {
    let values = grundy_values(WYTHOFF);
    let by_hand = wythoff_by_hand(10);
    for a in 0..10 {
        for b in 0..10 {
            assert_eq!(values[a * 10 + b], by_hand[a][b], "Wythoff({a}, {b})");
        }
    }
    // A004481, read by antidiagonals, where it covers the table.
    for row in table("tests/data/wythoff_grundy_table.txt") {
        let (a, b, value) = (row[0] as usize, row[1] as usize, row[2] as u64);
        if a < 10 && b < 10 {
            assert_eq!(
                values[a * 10 + b],
                value,
                "Wythoff({a}, {b}) against A004481"
            );
        }
    }
    // The P-positions are (⌊kφ⌋, ⌊kφ²⌋) and their mirror images.
    let phi = (1.0 + 5f64.sqrt()) / 2.0;
    let cold: Vec<(usize, usize)> = (0..10)
        .map(|k| ((k as f64 * phi) as usize, (k as f64 * phi * phi) as usize))
        .flat_map(|(a, b)| [(a, b), (b, a)])
        .collect();
    for a in 0..10 {
        for b in 0..10 {
            assert_eq!(
                values[a * 10 + b] == 0,
                cold.contains(&(a, b)),
                "Wythoff({a}, {b})"
            );
        }
    }
}

#[test]
fn subtraction_one_two_three_is_n_mod_4() {
    let values = grundy_values(
        "game Sub(n) { move Sub(n - k) for k in {1, 2, 3} if k <= n }
         grundy Sub(n) for n in 0..300",
    );
    let expected: Vec<u64> = (0..300).map(|n| n % 4).collect();
    assert_eq!(values, expected);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Bouton: a Nim position is a win for the player to move iff the XOR
    /// of its heap sizes is not 0. Heaps come as declared games and as `*n`.
    #[test]
    fn nim_wins_iff_the_xor_is_not_zero(
        mut heaps in prop::collection::vec((0u64..40, any::<bool>()), 1..6),
        balance in any::<bool>(),
    ) {
        // Half the positions get a last heap that makes the XOR 0, since
        // random heaps alone would almost never be losing.
        if balance {
            let xor = heaps.iter().fold(0, |acc, &(n, _)| acc ^ n);
            heaps.push((xor, false));
        }
        let position: Vec<String> = heaps
            .iter()
            .map(|&(n, builtin)| if builtin { format!("*{n}") } else { format!("Nim({n})") })
            .collect();
        let source = format!(
            "game Nim(n) {{ move Nim(n - k) for k in 1..=n }}\nwins? {}",
            position.join(" + ")
        );
        let xor = heaps.iter().fold(0, |acc, &(n, _)| acc ^ n);
        let answer = answers(&source).remove(0);
        prop_assert_eq!(answer.value, Value::Wins(xor != 0));
    }
}
