//! `quotient G up to N`, and misère sums answered from it, against a
//! misère search of the sums written here.

mod common;

use std::collections::HashMap;

use common::{answers, misere};
use sprague::engine::DEFAULT_MAX_STATES;
use sprague::session::{Event, Session, Value};

/// Misère: whether the player to move wins a sum of heaps of an octal
/// code, by the search of `common::misere`.
fn wins(sum: &[u32], code: &str, memo: &mut HashMap<Vec<u32>, bool>) -> bool {
    let largest = sum.iter().copied().max().unwrap_or(0);
    misere::wins(sum, &misere::octal(code, largest), memo)
}

/// Sums of up to four heaps ≤ 12 from a fixed sequence, as the session
/// answers them after `quotient G up to 12`: by the quotient, and as a
/// search does.
#[test]
fn misere_sums_are_answered_by_the_quotient() {
    let mut seed: u64 = 0x9e37;
    let mut next = |bound: u64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 33) % bound) as u32
    };
    for code in ["0.75", "0.77", "0.07", "0.137"] {
        let sums: Vec<Vec<u32>> = (0..60)
            .map(|_| (0..1 + next(4)).map(|_| next(13)).collect())
            .collect();
        let mut source = format!("game G = octal \"{code}\"\nquotient G up to 12\n");
        for sum in &sums {
            let terms: Vec<String> = sum.iter().map(|heap| format!("G({heap})")).collect();
            source += &format!("wins? misere {}\n", terms.join(" + "));
        }
        let found = answers(&source);
        let Value::Quotient(report) = &found[0].value else {
            panic!("expected a quotient, got {:?}", found[0].value);
        };
        assert_eq!(report.pretending.len(), 13);
        let mut memo = HashMap::new();
        for (answer, sum) in found[1..].iter().zip(&sums) {
            assert_eq!(answer.by, Some("quotient"), "{code} {sum:?}");
            assert_eq!(
                answer.value,
                Value::Wins(wins(sum, code, &mut memo)),
                "{code} {sum:?}"
            );
        }
    }
}

/// A heap past the quotient's is searched, not answered from it; moves
/// by the quotient win exactly when they leave a P-position.
#[test]
fn larger_heaps_are_searched_and_moves_follow_outcomes() {
    let found = answers(
        "game K = octal \"0.77\"
quotient K up to 6
wins? misere K(3) + K(9)
best_move misere K(3) + K(4) + K(5)
moves misere K(2) + K(3)",
    );
    let mut memo = HashMap::new();
    assert_eq!(found[1].by, None);
    // JSON says how: `"by":"quotient"` from the quotient, nothing for the
    // search.
    assert_eq!(sprague::output::json(&found[3])["by"], "quotient");
    assert_eq!(sprague::output::json(&found[2])["by"], "quotient");
    assert!(sprague::output::json(&found[1]).get("by").is_none());
    assert_eq!(
        found[1].value,
        Value::Wins(wins(&[3, 9], "0.77", &mut memo))
    );
    assert_eq!(found[2].by, Some("quotient"));
    let Value::BestMove(best) = &found[2].value else {
        panic!("expected a best move");
    };
    assert_eq!(best.is_some(), wins(&[3, 4, 5], "0.77", &mut memo));
    let Value::Moves(moves) = &found[3].value else {
        panic!("expected moves");
    };
    assert_eq!(found[3].by, Some("quotient"));
    // The sums K(2) + K(3) moves to: K(2) to K(1) or nothing, K(3) to
    // K(2), K(1) + K(1) or K(1).
    let results = [vec![1, 3], vec![3], vec![2, 2], vec![2, 1, 1], vec![2, 1]];
    let mut expected: Vec<bool> = results
        .iter()
        .map(|result| !wins(result, "0.77", &mut memo))
        .collect();
    let mut marked: Vec<bool> = moves.iter().map(|line| line.winning).collect();
    expected.sort();
    marked.sort();
    assert_eq!(marked, expected);
}

/// Misère Nim to heap 2 is the tame quotient T2 of order 6:
/// 1, a, b, ab, b², ab², a² = 1, b³ = b, P-portion {a, b²} (the misère
/// quotient of Nim, Plambeck and Siegel 2008, as stated on MathOverflow,
/// "Analysis of misère Nim": the submonoid that (1, 0) and (2, 1)
/// generate, with P = {(0, 1), (1, 0)}).
#[test]
fn misere_nim_to_heap_2_prints_as_t2() {
    let found = answers(
        "game Nim(n) { move Nim(n - k) for k in 1..=n }
quotient Nim up to 2",
    );
    let text = sprague::output::text(&found[0]);
    assert_eq!(
        text,
        "quotient Nim up to 2 = order 6
  generators: a = Nim(1), b = Nim(2)
  relations: a^2 = 1, b^3 = b
  elements: 1, a, b, ab, b^2, ab^2
  P-portion: a, b^2
  heaps: 0:1 1:a 2:b"
    );
    let json = sprague::output::json(&found[0]);
    assert_eq!(json["query"], "quotient");
    assert_eq!(json["order"], 6);
    assert_eq!(json["generators"][1]["heap"], 2);
    assert_eq!(json["relations"][1][0], "b^3");
    assert_eq!(json["p_portion"][1], "b^2");
    assert_eq!(json["pretending"][2], "b");
}

/// `quotient` of a game of two parameters says what quotients are for,
/// not what periods are.
#[test]
fn a_quotient_of_a_game_not_of_heaps_is_refused_for_quotients() {
    let mut help = None;
    Session::new(DEFAULT_MAX_STATES).run(
        "test.game",
        "game W(a, b) { move W(a - 1, b) if a > 0 }\nquotient W up to 3",
        &mut |event| {
            if let Event::Error(report) = event {
                help = report.help().map(|help| help.to_string());
            }
        },
    );
    let help = help.expect("a help line");
    assert!(help.contains("quotient"), "{help}");
    assert!(!help.contains("period"), "{help}");
}

fn error_code(source: &str, session: &mut Session) -> Option<String> {
    let mut code = None;
    session.run("test.game", source, &mut |event| {
        if let Event::Error(report) = event {
            code = report.code().map(|code| code.to_string());
        }
    });
    code
}

#[test]
fn bad_quotients_are_refused_with_their_reasons() {
    let cases = [
        (
            "game K = octal \"0.77\"\nquotient K up to 4294967295",
            "sprague::check::quotient_too_far",
        ),
        (
            "game K = octal \"0.77\"\nquotient K up to 2000000",
            "sprague::eval::quotient_too_far",
        ),
        (
            "game W(a, b) { move W(a - 1, b) if a > 0 }\nquotient W up to 3",
            "sprague::check::not_one_parameter",
        ),
        (
            "game G(n) { move G(n + 1) if n < 3 }\nquotient G up to 3",
            "sprague::eval::quotient_not_heaps",
        ),
        (
            "game G(n) { move *1 if n > 0 }\nquotient G up to 3",
            "sprague::eval::quotient_not_heaps",
        ),
        ("quotient Nobody up to 3", "sprague::check::unknown_game"),
    ];
    for (source, expected) in cases {
        let mut session = Session::new(DEFAULT_MAX_STATES);
        assert_eq!(
            error_code(source, &mut session).as_deref(),
            Some(expected),
            "{source}"
        );
    }
    let mut session = Session::new(DEFAULT_MAX_STATES);
    session.set_max_quotient(4);
    assert_eq!(
        error_code("game K = octal \"0.77\"\nquotient K up to 12", &mut session).as_deref(),
        Some("sprague::eval::quotient_too_large")
    );
}

/// 20 Kayles heaps up to 12 under misère play, from the quotient.
#[test]
fn a_long_sum_of_kayles_heaps_is_answered_by_the_quotient() {
    let heaps = [
        12, 12, 11, 11, 10, 9, 9, 8, 7, 7, 6, 5, 5, 4, 3, 3, 2, 2, 1, 1,
    ];
    let terms: Vec<String> = heaps.iter().map(|heap| format!("K({heap})")).collect();
    let found = answers(&format!(
        "game K = octal \"0.77\"\nquotient K up to 12\nwins? misere {}\nbest_move misere {}",
        terms.join(" + "),
        terms.join(" + ")
    ));
    assert_eq!(found[1].by, Some("quotient"));
    assert_eq!(found[2].by, Some("quotient"));
    // A best move exists exactly when the player to move wins.
    let Value::BestMove(best) = &found[2].value else {
        panic!("expected a best move");
    };
    assert_eq!(
        Some(best.is_some()),
        match found[1].value {
            Value::Wins(wins) => Some(wins),
            _ => None,
        }
    );
}

/// 20 Kayles heaps up to 30 under misère play, from the quotient of
/// Kayles to heap 30: one sum small enough for the search here to answer
/// too (a heap of 30 with nineteen of 1 and 2), and a wide one whose best
/// move the quotient finds exactly when it says the player to move wins.
#[test]
fn sums_of_twenty_kayles_heaps_to_30_are_answered_by_the_quotient() {
    let searched: Vec<u32> = std::iter::once(30).chain([1; 10]).chain([2; 9]).collect();
    let wide = [
        30, 29, 27, 25, 23, 21, 20, 17, 15, 13, 12, 11, 9, 8, 7, 5, 4, 3, 2, 1,
    ];
    let sum = |heaps: &[u32]| {
        let terms: Vec<String> = heaps.iter().map(|heap| format!("K({heap})")).collect();
        terms.join(" + ")
    };
    let found = answers(&format!(
        "game K = octal \"0.77\"\nquotient K up to 30\nwins? misere {}\nwins? misere {}\nbest_move misere {}",
        sum(&searched),
        sum(&wide),
        sum(&wide)
    ));
    assert!(
        found[1..]
            .iter()
            .all(|answer| answer.by == Some("quotient"))
    );
    let mut memo = HashMap::new();
    assert_eq!(
        found[1].value,
        Value::Wins(wins(&searched, "0.77", &mut memo))
    );
    let Value::BestMove(best) = &found[3].value else {
        panic!("expected a best move");
    };
    assert_eq!(found[2].value, Value::Wins(best.is_some()));
}

/// A trial monoid whose table (4 bytes times the square of its elements)
/// cannot be had is a diagnostic naming the elements and the limit to
/// lower, not an abort: Daisies (4.7) to heap 9 with the limit raised
/// past what 1.5 GB of address space holds.
#[test]
fn a_trial_too_large_for_memory_is_a_diagnostic() {
    let output = common::run_capped_with(
        &["--max-quotient", "1000000"],
        "game Daisies = octal \"4.7\"\nquotient Daisies up to 9\n",
        1_500_000_000,
    );
    let errors = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{errors}");
    assert!(
        errors.contains("sprague::eval::quotient_out_of_memory"),
        "{errors}"
    );
    assert!(errors.contains("--max-quotient"), "{errors}");
}

/// A quotient asked for fewer heaps than one kept is of those heaps: 0.6's
/// quotient grows from heap 12 to heap 16, and asked again to 12 after 16
/// it is the quotient to 12, not the larger one kept; misère sums with
/// heaps to 16 are still answered from the one kept.
#[test]
fn a_quotient_of_fewer_heaps_than_kept_is_of_those_heaps() {
    let order = |answer: &sprague::session::Answer| match &answer.value {
        Value::Quotient(report) => (report.order, report.up_to),
        other => panic!("expected a quotient, got {other:?}"),
    };
    let alone = answers("game G = octal \"0.6\"\nquotient G up to 12");
    let after = answers(
        "game G = octal \"0.6\"\nquotient G up to 16\nquotient G up to 12\nwins? misere G(16) + G(3)",
    );
    assert_ne!(order(&after[0]).0, order(&alone[0]).0);
    assert_eq!(order(&after[1]), order(&alone[0]));
    assert_eq!(after[2].by, Some("quotient"));
}
