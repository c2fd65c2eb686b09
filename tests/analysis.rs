//! Games declared by codes, periods with their proofs, and the queries that
//! compare games: expected values from OEIS, CGSuite's own test vectors
//! (copied here with their source) and hand derivations.

mod common;

use common::{answers, answers_in, grundy_values, table};
use sprague::analysis::Proof;
use sprague::session::Value;

const KAYLES_RULES: &str = "game K(n) { move K(a) + K(n - k - a) for k in 1..=2, a in 0..=n - k }";
const DAWSON_RULES: &str = "game D(n) { move D(a) + D(n - 2 - a) for a in 0..=n - 2 }";
const GRUNDY_RULES: &str = "game S(n) { move S(a) + S(n - a) for a in 1..n if a < n - a }";

/// The values of `game(n)` for n in 0..=last.
fn values(declarations: &str, game: &str, last: u32) -> Vec<u64> {
    grundy_values(&format!(
        "{declarations}\ngrundy {game}(n) for n in 0..={last}"
    ))
}

fn reference(path: &str) -> Vec<(usize, u64)> {
    table(path)
        .into_iter()
        .map(|row| (row[0] as usize, row[1] as u64))
        .collect()
}

#[test]
fn codes_agree_with_the_same_games_written_as_rules_and_with_oeis() {
    let cases = [
        (
            "game C = octal \"0.77\"",
            KAYLES_RULES,
            "K",
            "tests/data/kayles_octal_0.77.txt",
        ),
        (
            "game C = octal \"0.07\"",
            DAWSON_RULES,
            "D",
            "tests/data/dawsons_kayles_octal_0.07.txt",
        ),
        (
            "game C = octal \"4!.0\"",
            GRUNDY_RULES,
            "S",
            "tests/data/grundys_game.txt",
        ),
    ];
    for (code, rules, game, path) in cases {
        let by_code = values(code, "C", 100);
        assert_eq!(
            by_code,
            values(rules, game, 100),
            "{code} against its rules"
        );
        for (n, value) in reference(path).into_iter().filter(|&(n, _)| n <= 100) {
            assert_eq!(by_code[n], value, "{code} at {n} against {path}");
        }
    }
}

#[test]
fn a_hexadecimal_code_may_leave_three_heaps() {
    // 0.F: take one token, leaving no heap, one, two or three heaps.
    let rules = "game H(n) {
        move *0 if n == 1
        move H(n - 1) if n >= 2
        move H(a) + H(n - 1 - a) for a in 1..=(n - 1) / 2
        move H(a) + H(b) + H(n - 1 - a - b) for a in 1..=(n - 1) / 3, b in a..=(n - 1 - a) / 2
    }";
    assert_eq!(
        values("game C = hexadecimal \"0.F\"", "C", 40),
        values(rules, "H", 40)
    );
}

#[test]
fn subtraction_codes_match_cgsuite() {
    // CGSuite GameHeapTest, Subtraction([2,3,7]) and its `allbut` variant, n = 1..20.
    let finite = [0, 1, 1, 2, 0, 0, 1, 1, 2, 0, 0, 1, 1, 2, 0, 0, 1, 1, 2, 0];
    let all_but = [1, 0, 1, 2, 3, 2, 3, 4, 5, 4, 5, 6, 7, 6, 7, 8, 9, 8, 9, 10];
    assert_eq!(
        values("game T = subtraction {2, 3, 7}", "T", 20)[1..],
        finite
    );
    assert_eq!(
        values("game T = subtraction all but {2, 3, 7}", "T", 20)[1..],
        all_but
    );
}

/// `(period, preperiod, saltus, proven, checked_to)` of `period G`.
fn period(declarations: &str, game: &str) -> Option<(usize, usize, i64, bool, usize)> {
    let answer = answers(&format!("{declarations}\nperiod {game}")).remove(0);
    let Value::Period { period, checked_to } = answer.value else {
        panic!("expected a period, got {:?}", answer.value);
    };
    period.map(|p| {
        assert_eq!(p.proven, p.proof != Proof::None);
        (p.period, p.preperiod, p.saltus, p.proven, checked_to)
    })
}

#[test]
fn known_periods_are_found_and_proven() {
    // Kayles: OEIS A002186 and CGSuite, period 12 from n = 71; the octal
    // theorem asks for n < 2·71 + 12 + 2 = 156.
    assert_eq!(
        period("game K = octal \"0.77\"", "K"),
        Some((12, 71, 0, true, 156))
    );
    // Dawson's Kayles: CGSuite, Periodicity(Period => 34, Preperiod => 53).
    assert_eq!(
        period("game D = octal \"0.07\"", "D").map(|p| (p.0, p.1, p.3)),
        Some((34, 53, true))
    );
    // S(1,2,3): n mod 4, by theory.
    assert_eq!(
        period("game S = subtraction {1, 2, 3}", "S").map(|p| (p.0, p.1, p.3)),
        Some((4, 0, true))
    );
    // S(2,3,7): CGSuite, period 5, preperiod 0.
    assert_eq!(
        period("game S = subtraction {2, 3, 7}", "S").map(|p| (p.0, p.1, p.3)),
        Some((5, 0, true))
    );
    // S(2,5,7): by hand, G(0..22) = 0 0 1 1 0 2 1 3 2 2 0 3 1 0 0 1 1 2 2 3 3 2,
    // and G(22..29) repeats G(0..7), a window of 7: period 22 from 0.
    assert_eq!(
        period("game S = subtraction {2, 5, 7}", "S").map(|p| (p.0, p.1, p.3)),
        Some((22, 0, true))
    );
}

#[test]
fn without_a_theorem_periods_are_apparent() {
    // Kayles written as rules: the same period, but nothing proves it.
    let apparent = period(KAYLES_RULES, "K").unwrap();
    assert_eq!((apparent.0, apparent.1, apparent.3), (12, 71, false));
    // Nim is arithmetic-periodic: G(n + 1) = G(n) + 1.
    let nim = period("game Nim(n) { move Nim(n - k) for k in 1..=n }", "Nim").unwrap();
    assert_eq!((nim.0, nim.1, nim.2, nim.3), (1, 0, 1, false));
    // Grundy's game: no period is known (CGSuite: Nothing up to 2000).
    // Looked for within 100,000 values (the default ten million take a
    // minute of a test build) and said so.
    let session = sprague::session::Session::new(100_000);
    let answer = answers_in(session, "game G = octal \"4!.0\"\nperiod G").remove(0);
    assert_eq!(
        answer.value,
        Value::Period {
            period: None,
            checked_to: 100_000
        }
    );
}

#[test]
fn a_proven_period_answers_for_heaps_of_any_size() {
    // 10^18 ≡ 4 (mod 12), so G(10^18) = G(76), past the preperiod of 71.
    let found = answers("game K = octal \"0.77\"\nperiod K\ngrundy K(1000000000000000000)");
    let g76 = reference("tests/data/kayles_octal_0.77.txt")[76].1;
    assert_eq!(found[1].value, Value::Grundy(g76));
    assert_eq!(found[1].by, Some("period"));
}

#[test]
fn a_codes_table_proves_its_own_period_and_answers_far_heaps_at_once() {
    // No `period` asked first: the table finds the period as it grows.
    let found = answers(
        "game K = octal \"0.77\"\ngrundy K(1000000000000000000)\ngrundy K(10000000)\ngrundy K(70)",
    );
    let kayles = reference("tests/data/kayles_octal_0.77.txt");
    // 10^18 ≡ 4 and 10^7 ≡ 4 (mod 12): both are G(76).
    assert_eq!(found[0].value, Value::Grundy(kayles[76].1));
    assert_eq!(found[0].by, Some("period"));
    assert_eq!(found[1].value, Value::Grundy(kayles[76].1));
    // Inside the table, a value is read from it.
    assert_eq!(found[2].value, Value::Grundy(kayles[70].1));
    assert_eq!(found[2].by, None);
    // Dawson's Kayles (0.07, period 34 from n = 53, by OEIS A002187
    // shifted): 10^12 has the value of the heap past 68 congruent to it.
    let dawson = reference("tests/data/dawsons_kayles_octal_0.07.txt");
    let n: u64 = 1_000_000_000_000;
    let same = 68 + ((n - 68) % 34) as usize;
    let found = answers(&format!("game D = octal \"0.07\"\ngrundy D({n})"));
    let expected = dawson.iter().find(|&&(m, _)| m == same).unwrap().1;
    assert_eq!(found[0].value, Value::Grundy(expected));
    // Grundy's game has no period a theorem proves: a far heap is refused.
    let mut session = sprague::session::Session::new(10_000);
    let mut refused = false;
    session.run(
        "far.game",
        "game G = octal \"4!.0\"\ngrundy G(1000000)",
        &mut |event| {
            refused |= matches!(event, sprague::session::Event::Error(_));
        },
    );
    assert!(refused);
}

#[test]
fn diff_agrees_with_values_computed_one_by_one() {
    let declarations = "game A = subtraction {1, 2, 3}\ngame B = subtraction {1, 2, 4}";
    let answer = answers(&format!("{declarations}\ndiff A B for n in 0..=60")).remove(0);
    let Value::Diff(diff) = answer.value else {
        panic!("expected a diff")
    };
    let a = values(declarations, "A", 60);
    let b = values(declarations, "B", 60);
    let expected: Vec<(i64, u64, u64, bool)> = (0..=60)
        .filter(|&n| a[n] != b[n])
        .map(|n| (n as i64, a[n], b[n], (a[n] == 0) != (b[n] == 0)))
        .collect();
    let found: Vec<(i64, u64, u64, bool)> = diff
        .rows
        .iter()
        .map(|row| (row.bindings[0].1, row.a, row.b, row.flip))
        .collect();
    assert_eq!(found, expected);
    assert_eq!(diff.positions, 61);
    assert_eq!(diff.flips, expected.iter().filter(|row| row.3).count());
}

#[test]
fn equal_games_sum_to_a_loss() {
    let found = answers(&format!(
        "game C = octal \"0.77\"\n{KAYLES_RULES}\nequal? C(n) K(n) for n in 0..20\nequal? *3, *1 + *2\nequal? *3 *2"
    ));
    let equal: Vec<bool> = found
        .iter()
        .map(|answer| match &answer.value {
            Value::Equal { equal, .. } => *equal,
            other => panic!("expected equal?, got {other:?}"),
        })
        .collect();
    let mut expected = vec![true; 20];
    expected.extend([true, false]);
    assert_eq!(equal, expected);
}

#[test]
fn remoteness_of_nim_sums() {
    // In *a + *a the loser delays by taking one token at a time, and the
    // winner mirrors: 2a moves. From *a alone the winner takes it all: 1.
    let found = answers("remoteness *3 + *3\nremoteness *5\nremoteness *0");
    let remoteness: Vec<(u64, bool)> = found
        .iter()
        .map(|answer| match &answer.value {
            Value::Remoteness(r) => (r.remoteness, r.wins),
            other => panic!("expected remoteness, got {other:?}"),
        })
        .collect();
    assert_eq!(remoteness, [(6, false), (1, true), (0, false)]);
}

#[test]
fn a_far_removal_costs_one_move_not_every_removal_below_it() {
    // Below 300,000 only 1 and 2 can be taken: n mod 3. At 300,000 the
    // options are 299,999 (2), 299,998 (1) and 0 (0): the value is 3.
    let values = common::grundy_values(
        "game S = subtraction {1, 2, 300000}\n\
         grundy S(299999)\ngrundy S(300000)\ngrundy S(300001)",
    );
    assert_eq!(values[..2], [2, 3]);
    // 300,001: options 300,000 (3), 299,999 (2) and 1 (1); mex 0.
    assert_eq!(values[2], 0);
}

#[test]
fn a_rule_declared_games_period_is_looked_for_past_4096_values_within_the_work_limit() {
    // Grundy's game as rules has no period in sight: the values are
    // computed until one search's work (here 10^8 options) is spent, far
    // past the 4,096 values a code's period search stops at.
    let output = common::sprague(
        &["run", "--json", "--max-work", "100_000_000", "-"],
        "game G(n) { move G(a) + G(n - a) for a in 1..n if a < n - a }\nperiod G\n",
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let answer: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(answer["period"], serde_json::Value::Null, "{answer}");
    let checked = answer["checked_to"].as_u64().unwrap();
    assert!((10_000..1_000_000).contains(&checked), "{answer}");
}
