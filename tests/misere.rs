//! Misère play against the rules known for it: misère Nim's, the genera of
//! Winning Ways, and a misère minimax over rows of pins written here.

mod common;

use std::collections::HashMap;

use common::answers;
use sprague::session::Value;

const GAMES: &str = "
game Nim(n) { move Nim(n - k) for k in 1..=n }
game Kayles(n) { move Kayles(a) + Kayles(n - k - a) for k in 1..=2, a in 0..=n - k }
game Dawson(n) { move Dawson(a) + Dawson(n - 2 - a) for a in 0..=n - 2 }
";

fn wins(source: &str) -> Vec<bool> {
    answers(&format!("{GAMES}{source}"))
        .into_iter()
        .map(|answer| match answer.value {
            Value::Wins(wins) => wins,
            other => panic!("expected wins?, got {other:?}"),
        })
        .collect()
}

/// Bouton's rule for misère Nim: the player to move wins iff some heap is
/// larger than 1 and the XOR is not 0, or every heap is at most 1 and the
/// XOR is 0.
fn misere_nim(heaps: &[u64]) -> bool {
    let xor = heaps.iter().fold(0, |acc, heap| acc ^ heap);
    match heaps.iter().any(|&heap| heap > 1) {
        true => xor != 0,
        false => xor == 0,
    }
}

/// 300 sums of up to five heaps from a fixed linear congruential sequence;
/// every other one is made of small heaps, so both halves of the rule are
/// met often. Half are written `*n`, half as the rule-declared `Nim(n)`.
#[test]
fn misere_nim_follows_its_rule() {
    let mut seed: u64 = 0x5eed;
    let mut next = |bound: u64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % bound
    };
    let mut positions = Vec::new();
    for i in 0..300 {
        let count = 1 + next(5) as usize;
        let bound = if i % 2 == 0 { 2 } else { 9 };
        positions.push((0..count).map(|_| next(bound)).collect::<Vec<u64>>());
    }
    let written = |heaps: &[u64], i: usize| {
        let terms: Vec<String> = heaps
            .iter()
            .map(|heap| match i % 4 < 2 {
                true => format!("*{heap}"),
                false => format!("Nim({heap})"),
            })
            .collect();
        format!("wins? misere {}\n", terms.join(" + "))
    };
    let source: String = positions
        .iter()
        .enumerate()
        .map(|(i, heaps)| written(heaps, i))
        .collect();
    let expected: Vec<bool> = positions.iter().map(|heaps| misere_nim(heaps)).collect();
    assert!(expected.iter().filter(|&&wins| !wins).count() > 30);
    assert_eq!(wins(&source), expected);
}

/// Genera from Winning Ways, chapter 13: heaps, and sums of them.
#[test]
fn genera_of_heaps_and_sums_are_those_of_winning_ways() {
    let cases = [
        ("*0", "0^120"),
        ("*1", "1^031"),
        ("*2", "2^20"),
        ("*3", "3^31"),
        ("*4", "4^46"),
        ("*1 + *1", "0^120"),
        ("*2 + *2", "0^02"),
        ("*2 + *3", "1^13"),
        ("Nim(2) + Nim(2)", "0^02"),
        ("Nim(3)", "3^31"),
        ("Kayles(1)", "1^031"),
        ("Kayles(2)", "2^20"),
        ("Kayles(3)", "3^31"),
    ];
    let source: String = cases
        .iter()
        .map(|(position, _)| format!("genus {position}\n"))
        .collect();
    let found: Vec<String> = answers(&format!("{GAMES}{source}"))
        .into_iter()
        .map(|answer| match answer.value {
            Value::Genus(genus) => genus.to_string(),
            other => panic!("expected a genus, got {other:?}"),
        })
        .collect();
    let expected: Vec<String> = cases.iter().map(|(_, genus)| genus.to_string()).collect();
    assert_eq!(found, expected);
}

/// Misère minimax over rows of pins, each state the sorted row lengths:
/// `take` lists how many adjacent pins a move may knock down.
fn rows_win(rows: &[u32], take: &[u32], memo: &mut HashMap<Vec<u32>, bool>) -> bool {
    let mut key: Vec<u32> = rows.iter().copied().filter(|&row| row > 0).collect();
    key.sort();
    if let Some(&known) = memo.get(&key) {
        return known;
    }
    let mut any_move = false;
    let mut wins = false;
    for (i, &row) in key.iter().enumerate() {
        for &k in take.iter().filter(|&&k| k <= row) {
            for a in 0..=row - k {
                any_move = true;
                let mut next = key.clone();
                next[i] = a;
                next.push(row - k - a);
                wins |= !rows_win(&next, take, memo);
            }
        }
    }
    let wins = wins || !any_move;
    memo.insert(key, wins);
    wins
}

#[test]
fn misere_kayles_and_dawsons_kayles_rows_and_sums() {
    for (game, take) in [("Kayles", &[1, 2][..]), ("Dawson", &[2][..])] {
        let mut memo = HashMap::new();
        let mut positions: Vec<Vec<u32>> = (0..=24).map(|n| vec![n]).collect();
        positions.extend((1..=8).flat_map(|a| (a..=8).map(move |b| vec![a, b])));
        positions.extend([vec![3, 5, 7], vec![1, 4, 9], vec![2, 2, 6]]);
        let source: String = positions
            .iter()
            .map(|rows| {
                let terms: Vec<String> = rows.iter().map(|n| format!("{game}({n})")).collect();
                format!("wins? misere {}\n", terms.join(" + "))
            })
            .collect();
        let expected: Vec<bool> = positions
            .iter()
            .map(|rows| rows_win(rows, take, &mut memo))
            .collect();
        assert_eq!(wins(&source), expected, "{game}");
    }
    // The oracle itself: misère Kayles is lost from single rows of 1, 4, 9,
    // 12 and 20 pins, and no other up to 24, as published analyses list.
    let losing: Vec<u32> = (0..=24)
        .filter(|&n| !rows_win(&[n], &[1, 2], &mut HashMap::new()))
        .collect();
    assert_eq!(losing, [1, 4, 9, 12, 20]);
}

/// `--max-search` bounds each query's own search: a query refused for the
/// limit leaves the next, small query its whole budget.
#[test]
fn max_search_is_a_budget_for_each_query() {
    let mut session = sprague::session::Session::new(sprague::engine::DEFAULT_MAX_STATES);
    session.set_max_search(200);
    let source = format!(
        "{GAMES}
wins? misere Kayles(20) + Kayles(21) + Kayles(22)
wins? misere Dawson(9) + Dawson(5)
wins? misere Dawson(7) + Dawson(4)
"
    );
    let mut events = Vec::new();
    session.run("test.game", &source, &mut |event| events.push(event));
    let [first, rest @ ..] = events.as_slice() else {
        panic!("no answer");
    };
    match first {
        sprague::session::Event::Error(report) => assert_eq!(
            report.code().map(|code| code.to_string()).as_deref(),
            Some("sprague::eval::search_too_large")
        ),
        other => panic!("the large sum should be refused, got {other:?}"),
    }
    let mut memo = HashMap::new();
    let expected = [
        rows_win(&[9, 5], &[2], &mut memo),
        rows_win(&[7, 4], &[2], &mut memo),
    ];
    let found: Vec<bool> = rest
        .iter()
        .map(|event| match event {
            sprague::session::Event::Answer(answer) => match answer.value {
                Value::Wins(wins) => wins,
                ref other => panic!("expected wins?, got {other:?}"),
            },
            other => panic!("a small sum should be answered, got {other:?}"),
        })
        .collect();
    assert_eq!(found, expected);
}

/// The misère Grundy value γ by its definition (1 for a terminal position,
/// else the mex of the options' γ) over rows of pins, written here.
fn rows_gamma(rows: &[u32], take: &[u32], memo: &mut HashMap<Vec<u32>, u64>) -> u64 {
    let mut key: Vec<u32> = rows.iter().copied().filter(|&row| row > 0).collect();
    key.sort();
    if let Some(&known) = memo.get(&key) {
        return known;
    }
    let mut seen = Vec::new();
    for (i, &row) in key.iter().enumerate() {
        for &k in take.iter().filter(|&&k| k <= row) {
            for a in 0..=row - k {
                let mut next = key.clone();
                next[i] = a;
                next.push(row - k - a);
                seen.push(rows_gamma(&next, take, memo));
            }
        }
    }
    let gamma = match seen.is_empty() {
        true => 1,
        false => (0..).find(|value| !seen.contains(value)).expect("a mex"),
    };
    memo.insert(key, gamma);
    gamma
}

/// `grundy misere P` is γ: for misère Nim it is the XOR, toggled in its
/// last bit when no heap exceeds 1 (Winning Ways ch. 13, the genera
/// 0^120 and 1^031 of `*0` and `*1`, n^(n, n⊕2) above); for Kayles rows
/// and their sums the definition computed here.
#[test]
fn grundy_misere_is_the_misere_grundy_value() {
    let nim = [
        vec![],
        vec![1],
        vec![1, 1],
        vec![2],
        vec![3, 1],
        vec![2, 3],
        vec![5, 1, 1],
    ];
    let mut source = String::new();
    let mut expected = Vec::new();
    for heaps in &nim {
        let xor = heaps.iter().fold(0, |acc, heap| acc ^ heap);
        expected.push(match heaps.iter().any(|&heap| heap > 1) {
            true => xor,
            false => xor ^ 1,
        });
        let terms: Vec<String> = heaps.iter().map(|heap| format!("*{heap}")).collect();
        let terms = if terms.is_empty() {
            vec!["*0".to_owned()]
        } else {
            terms
        };
        source += &format!("grundy misere {}\n", terms.join(" + "));
    }
    let mut memo = HashMap::new();
    let rows: Vec<Vec<u32>> = (0..=14)
        .map(|n| vec![n])
        .chain([vec![2, 3], vec![4, 4], vec![1, 6, 7]])
        .collect();
    for row in &rows {
        let terms: Vec<String> = row.iter().map(|n| format!("Kayles({n})")).collect();
        source += &format!("grundy misere {}\n", terms.join(" + "));
        expected.push(rows_gamma(row, &[1, 2], &mut memo));
    }
    let found: Vec<u64> = answers(&format!("{GAMES}{source}"))
        .into_iter()
        .map(|answer| {
            assert_eq!(answer.play, Some(sprague::program::Play::Misere));
            assert_eq!(answer.by, None);
            match answer.value {
                Value::Grundy(value) => value,
                other => panic!("expected a value, got {other:?}"),
            }
        })
        .collect();
    assert_eq!(found, expected);
}

/// What a misère search of whole sums holds is counted in bytes, each state
/// with its own share of a map's slot and its components in place: counted
/// at 96 bytes a component and none a state, a search of Cram's regions
/// (states of few components) refused at 200 MB had held 380 MB, and under
/// an address space of 1.5 GB (1 GB of it the evaluator's stack, reserved)
/// it aborted out of memory before the bound. Now it is refused with the
/// memory limit's error, and the next query is answered: on a 1 × 2 board
/// the mover's one domino ends the game, which loses under misère play.
#[test]
fn a_misere_search_of_regions_is_held_within_its_bound() {
    let output = common::run_capped_with(
        &["--max-table", "200MB"],
        "game Cram(s) splits up to symmetry {
           move Cram(s - {a, b}) for a in s, b in neighbours(s, a) if a < b
         }
         wins? misere Cram(Grid(5, 6))
         wins? misere Cram(Grid(1, 2))",
        1_500_000_000,
    );
    let errors = String::from_utf8_lossy(&output.stderr);
    assert!(errors.contains("sums_too_large"), "{errors}");
    assert!(errors.contains("more than 200 MB"), "{errors}");
    assert_eq!(output.status.code(), Some(1), "{errors}");
    let answers = String::from_utf8_lossy(&output.stdout);
    assert_eq!(answers.trim(), "wins? misere Cram(Grid(1, 2)) = false");
}
