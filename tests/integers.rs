//! The integer language beyond `+ - * / %`: `**`, `isqrt` and bindings
//! that stop early with `while`, checked against the definitions.

mod common;

use common::{grundy_values, sprague};

/// Subtract-a-square by the definition: the mex of the values n - k² for
/// 1 ≤ k² ≤ n.
fn subtract_a_square(last: usize) -> Vec<u64> {
    let mut values = vec![0u64; last + 1];
    for n in 0..=last {
        let mut seen = vec![false; 64];
        let mut k = 1;
        while k * k <= n {
            let value = values[n - k * k] as usize;
            if value >= seen.len() {
                seen.resize(value + 1, false);
            }
            seen[value] = true;
            k += 1;
        }
        values[n] = seen.iter().position(|&was| !was).unwrap_or(seen.len()) as u64;
    }
    values
}

#[test]
fn subtract_a_square_with_while_agrees_with_its_definition() {
    let found = grundy_values(
        "game Squares(n) { move Squares(n - k * k) for k in 1.. while k * k <= n }
         grundy Squares(n) for n in 0..=2000",
    );
    assert_eq!(found, subtract_a_square(2000));
    // The losing positions begin as published (OEIS A030193).
    let losses: Vec<usize> = (0..=40).filter(|&n| found[n] == 0).collect();
    assert_eq!(losses, [0, 2, 5, 7, 10, 12, 15, 17, 20, 22, 34, 39]);
}

#[test]
fn while_stops_at_the_first_value_that_fails_it() {
    // Without the stop, k would run on to the guard for every value.
    let values = grundy_values(
        "grundy *k for k in 0.. while k < 4
         grundy *k for k in {5, 1, 9, 2} while k != 9",
    );
    assert_eq!(values, [0, 1, 2, 3, 5, 1]);
    // A while that holds from the start of a bounded range is no stop.
    assert_eq!(
        grundy_values("grundy *k for k in 1..=3 while k < 100"),
        [1, 2, 3]
    );
}

#[test]
fn powers_and_square_roots() {
    let values = grundy_values(
        "grundy *(2 ** 10)
         grundy *(2 ** 3 ** 2)
         grundy *(-2 ** 2 + 5)
         grundy *(isqrt(99))
         grundy *(isqrt(100))
         grundy *((-1) ** 4000000001 + 1)
         grundy *(isqrt(9223372036854775807))",
    );
    // ** is right-associative and binds tighter than unary minus.
    assert_eq!(values, [1024, 512, 1, 9, 10, 0, 3_037_000_499]);
}

#[test]
fn bad_integers_are_errors_with_their_codes() {
    for (source, code) in [
        ("grundy *(2 ** 63)", "overflow"),
        ("grundy *(2 ** -1)", "not_an_integer"),
        ("grundy *(isqrt(-4))", "not_an_integer"),
        (
            "game A(n) { move A(n - k) for k in 1.. }\ngrundy A(3)",
            "open_range",
        ),
        ("grundy *(isqrt(1, 2))", "arity"),
    ] {
        let output = sprague(&["run", "-"], source);
        assert_eq!(output.status.code(), Some(1), "{source}");
        let report = String::from_utf8_lossy(&output.stderr);
        assert!(report.contains(code), "{source}: {report}");
    }
}

#[test]
fn graph_nodes_named_by_an_expression_and_nodes_alone() {
    // 1 -> 2, 3 and 2 -> 3: G.3 is terminal (0), G.2 moves to it (1), G.1
    // reaches both (mex {1, 0} = 2); 7 is declared alone, with no moves.
    let source = "graph G { 1 -> 2, 3  2 -> 3  7 -> }
                  grundy G.(x) for x in 1..=3
                  grundy G.(3 + 4)
                  game Walk(x) { move Walk(x - 1) + G.(x) if x > 1 }
                  grundy Walk(3)";
    // Walk(3) -> Walk(2) + G.3; Walk(2) -> Walk(1) + G.2; Walk(1) is
    // terminal: Walk(2) = mex {0 ^ 1} = 0, Walk(3) = mex {0 ^ 0} = 1.
    assert_eq!(grundy_values(source), [2, 1, 0, 0, 1]);
    let output = sprague(&["run", "-"], "graph G { 1 -> 2 }\ngrundy G.(5)");
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no_such_node"));
}

#[test]
fn divisors_as_a_domain() {
    assert_eq!(
        grundy_values("grundy *d for d in divisors(36)"),
        [1, 2, 3, 4, 6, 9, 12, 18, 36]
    );
    assert_eq!(
        grundy_values("grundy *d for d in divisors(0)"),
        Vec::<u64>::new()
    );
    // Subtract a proper divisor: the player to move wins exactly from the
    // even numbers (from an odd n every move leaves an even one; from an
    // even n, taking 1 leaves an odd one). The same game written with a
    // guard over every d gives the same values.
    let by_divisors = grundy_values(
        "game D(n) { move D(n - d) for d in divisors(n) if d < n }
         grundy D(n) for n in 1..=300",
    );
    let by_guard = grundy_values(
        "game D(n) { move D(n - d) for d in 1..n if n % d == 0 }
         grundy D(n) for n in 1..=300",
    );
    assert_eq!(by_divisors, by_guard);
    for (n, value) in (1..=300).zip(&by_divisors) {
        assert_eq!(*value != 0, n % 2 == 0, "D({n})");
    }
    // Finding the divisors of a huge number is refused, not ground out.
    let output = sprague(
        &["run", "-"],
        "grundy *d for d in divisors(9223372036854775807)",
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("too_many_tried"));
}

#[test]
fn a_let_of_a_built_in_function_is_its_value() {
    // Written alone, `abs(-3)` parses as a game would; it is the integer.
    assert_eq!(
        grundy_values(
            "let S = abs(-3)
             let M = max(2, 7, 5)
             let L = min(M, 4)
             let Q = isqrt(50)
             let C = popcount(13)
             let P = nim_mul(2, 3)
             let I = nim_inv(2)
             grundy *S
             grundy *M
             grundy *L
             grundy *Q
             grundy *C
             grundy *P
             grundy *I"
        ),
        // In the field of four nimbers 2 ⊗ 3 = 1, so 2⁻¹ = 3.
        [3, 7, 4, 7, 3, 1, 3]
    );
}

#[test]
fn a_game_named_like_a_built_in_function_is_called_wherever_it_is_declared() {
    // abs(n) moves to abs(n - 1): a chain, 0 and 1 in turn; abs(3) = 1.
    let game = "game abs(n) { move abs(n - 1) if n > 0 }";
    assert_eq!(
        grundy_values(&format!("{game}\nlet X = abs(3)\ngrundy X")),
        [1]
    );
    assert_eq!(
        grundy_values(&format!("let X = abs(3)\ngrundy X\n{game}")),
        [1]
    );
}

#[test]
fn a_built_in_function_or_domain_used_as_a_game_says_what_it_is() {
    for (source, help) in [
        ("grundy abs(-3)", "`*abs(…)` is a heap of its value"),
        (
            "grundy max(1, 2) + *1",
            "built-in function of integers, not a game",
        ),
        // A game of a name like it is the likelier meaning.
        (
            "game Max(n) { move Max(n - 1) if n > 0 }\ngrundy max(3)",
            "did you mean `Max`?",
        ),
        (
            "let D = divisors(12)\ngrundy *len(D)",
            "`{x for x in divisors(…)}` is the set of its values",
        ),
    ] {
        let output = sprague(&["run", "-"], source);
        assert_eq!(output.status.code(), Some(1), "{source}");
        let report = String::from_utf8_lossy(&output.stderr);
        let words = report.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(report.contains("unknown_game"), "{source}: {report}");
        assert!(words.contains(help), "{source}: {report}");
    }
}
