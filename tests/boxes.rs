//! A game whose rules step every parameter down has its table solved as a
//! box, a hyperplane (positions of one sum of coordinates) at a time,
//! dealt to threads. Whatever the threads, the values must be those of the
//! definition: each position's value the mex of its options', computed
//! here by a loop written from the rules themselves, and the XOR of the
//! heaps for Nim on three and four heaps as one game.

mod common;

use std::collections::HashMap;

use common::grundy_values_in;
use proptest::prelude::*;
use sprague::engine::DEFAULT_MAX_STATES;
use sprague::output::{self, ErrorStyle};
use sprague::session::{Event, Session};

/// A session solving boxes on `threads` threads.
fn session(threads: usize) -> Session {
    let mut session = Session::new(DEFAULT_MAX_STATES);
    session.set_threads(threads);
    session
}

/// Rules beside Nim's single steps down each parameter of `B(a, b)`, each
/// with its options at `(a, b)` (each a sum of positions): a diagonal, a
/// line that starts one step away, a sum of two lines, a line of at most
/// three options that leaves the box (to positions of negative `a`, which
/// the threads leave to the ordinary way), and a line along `b` of at most
/// 40 options, read cell by cell where the table has no set for it.
const EXTRAS: [&str; 5] = [
    "move B(a - k, b - k) for k in 1..=min(a, b)",
    "move B(a - k - 1, b) for k in 1..=a - 1",
    "move B(a - k, b - 1) + B(a - 1, b - k) for k in 1..=min(a, b)",
    "move B(a - 2, b - k) for k in 1..=min(b, 3)",
    "move B(a, b - k) + B(a, b - k) + B(a - 1, b - 1) for k in 1..=min(b - 1, 40)",
];

fn extra_options(extra: usize, a: i64, b: i64) -> Vec<Vec<(i64, i64)>> {
    let range = |last: i64| 1..=last;
    match extra {
        0 => range(a.min(b)).map(|k| vec![(a - k, b - k)]).collect(),
        1 => range(a - 1).map(|k| vec![(a - k - 1, b)]).collect(),
        2 => range(a.min(b))
            .map(|k| vec![(a - k, b - 1), (a - 1, b - k)])
            .collect(),
        3 => range(b.min(3)).map(|k| vec![(a - 2, b - k)]).collect(),
        _ => range((b - 1).min(40))
            .map(|k| vec![(a, b - k), (a, b - k), (a - 1, b - 1)])
            .collect(),
    }
}

/// Values found so far: those of a box of `cols + 1` columns in a table,
/// the rest (negative arguments) in a map.
struct Known {
    cols: i64,
    table: Vec<Option<u64>>,
    others: HashMap<(i64, i64), u64>,
}

impl Known {
    fn slot(&mut self, a: i64, b: i64) -> Option<&mut Option<u64>> {
        let index = usize::try_from(a * (self.cols + 1) + b).ok()?;
        (a >= 0 && (0..=self.cols).contains(&b)).then(|| self.table.get_mut(index))?
    }

    fn get(&mut self, a: i64, b: i64) -> Option<u64> {
        match self.slot(a, b) {
            Some(slot) => *slot,
            None => self.others.get(&(a, b)).copied(),
        }
    }

    fn set(&mut self, a: i64, b: i64, value: u64) {
        match self.slot(a, b) {
            Some(slot) => *slot = Some(value),
            None => drop(self.others.insert((a, b), value)),
        }
    }
}

/// The value of `B(a, b)` by the definition, memoised in `known`.
fn by_definition(extras: &[usize], a: i64, b: i64, known: &mut Known) -> u64 {
    if let Some(value) = known.get(a, b) {
        return value;
    }
    let mut options: Vec<Vec<(i64, i64)>> = Vec::new();
    options.extend((1..=a).map(|k| vec![(a - k, b)]));
    options.extend((1..=b).map(|k| vec![(a, b - k)]));
    for &extra in extras {
        options.extend(extra_options(extra, a, b));
    }
    let mut seen = vec![false; options.len() + 1];
    for option in options {
        let value = option
            .iter()
            .fold(0, |sum, &(a, b)| sum ^ by_definition(extras, a, b, known));
        if let Some(seen) = seen.get_mut(value as usize) {
            *seen = true;
        }
    }
    let value = seen.iter().position(|&seen| !seen).unwrap() as u64;
    known.set(a, b, value);
    value
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Boxes of some 20,000 to 45,000 positions, on one to four threads,
    /// with any of the extra rules: the far corner asked first (the whole
    /// box solved at once), then every position of the box.
    #[test]
    fn boxes_on_threads_agree_with_the_definition(
        extras in proptest::sample::subsequence(vec![0usize, 1, 2, 3, 4], 0..=3),
        threads in 1usize..=4,
        rows in 100i64..=180,
        cols in 200i64..=250,
    ) {
        let rules: String = extras.iter().map(|&extra| format!("    {}\n", EXTRAS[extra])).collect();
        let source = format!(
            "game B(a, b) {{\n    move B(a - k, b) for k in 1..=a\n    move B(a, b - k) for k in 1..=b\n{rules}}}\n\
             grundy B({rows}, {cols})\ngrundy B(a, b) for a in 0..={rows}, b in 0..={cols}\n"
        );
        let values = grundy_values_in(session(threads), &source);
        let mut known = Known {
            cols,
            table: vec![None; ((rows + 1) * (cols + 1)) as usize],
            others: HashMap::new(),
        };
        let expected: Vec<u64> = std::iter::once((rows, cols))
            .chain((0..=rows).flat_map(|a| (0..=cols).map(move |b| (a, b))))
            .map(|(a, b)| by_definition(&extras, a, b, &mut known))
            .collect();
        prop_assert_eq!(values.len(), expected.len());
        let wrong = values.iter().zip(&expected).position(|(value, expected)| value != expected);
        prop_assert!(wrong.is_none(), "{}: first wrong answer #{:?}", source, wrong);
    }
}

/// Wythoff's game as rules: one heap's tokens, or as many from both.
const WYTHOFF: &str = "game W(a, b) {
    move W(a - k, b) for k in 1..=a
    move W(a, b - k) for k in 1..=b
    move W(a - k, b - k) for k in 1..=min(a, b)
}\n";

/// Wythoff's game as rules on a box of 300 × 300 on three threads: its
/// values reach past 300, so the sets of values kept along its lines take
/// several words; its zeros are the pairs of the golden ratio's Beatty
/// sequences (A000201, A001950), and nowhere else.
#[test]
fn wythoffs_game_on_three_threads_has_the_golden_zeros() {
    let queries = "grundy W(299, 299)\ngrundy W(a, b) for a in 0..=299, b in 0..=299\n";
    let values = grundy_values_in(session(3), &format!("{WYTHOFF}{queries}"));
    let golden = (1.0 + 5f64.sqrt()) / 2.0;
    let mut zeros = std::collections::HashSet::new();
    for n in 0..300u64 {
        let (lower, upper) = (
            (n as f64 * golden) as u64,
            (n as f64 * golden * golden) as u64,
        );
        zeros.insert((lower, upper));
        zeros.insert((upper, lower));
    }
    for (i, &value) in values[1..].iter().enumerate() {
        let (a, b) = ((i / 300) as u64, (i % 300) as u64);
        assert_eq!(value == 0, zeros.contains(&(a, b)), "W({a}, {b}) = {value}");
    }
    assert!(values.iter().any(|&value| value > 300));
}

/// Nim on three heaps and on four as one game, on four threads: the XOR of
/// the heaps, at every position of boxes of 68,921 and 28,561 positions.
#[test]
fn many_heaps_as_one_game_on_four_threads_have_the_xor_of_the_heaps() {
    let source = "game N(a, b, c) {
        move N(a - k, b, c) for k in 1..=a
        move N(a, b - k, c) for k in 1..=b
        move N(a, b, c - k) for k in 1..=c
    }
    game M(a, b, c, d) {
        move M(a - k, b, c, d) for k in 1..=a
        move M(a, b - k, c, d) for k in 1..=b
        move M(a, b, c - k, d) for k in 1..=c
        move M(a, b, c, d - k) for k in 1..=d
    }
    grundy N(40, 40, 40)
    grundy N(a, b, c) for a in 0..=40, b in 0..=40, c in 0..=40
    grundy M(12, 12, 12, 12)
    grundy M(a, b, c, d) for a in 0..=12, b in 0..=12, c in 0..=12, d in 0..=12\n";
    let values = grundy_values_in(session(4), source);
    let three =
        (0..=40u64).flat_map(|a| (0..=40).flat_map(move |b| (0..=40).map(move |c| a ^ b ^ c)));
    let four = (0..=12u64).flat_map(|a| {
        (0..=12).flat_map(move |b| (0..=12).flat_map(move |c| (0..=12).map(move |d| a ^ b ^ c ^ d)))
    });
    let expected: Vec<u64> = std::iter::once(40)
        .chain(three)
        .chain(std::iter::once(0))
        .chain(four)
        .collect();
    assert_eq!(values, expected);
}

/// A box past the work limit ends with the work-limit error, on threads,
/// and leaves the session as it was: the next query is answered, right.
#[test]
fn a_box_past_the_work_limit_fails_and_the_session_goes_on() {
    let mut session = session(2);
    session.set_max_work(1_000_000);
    let mut errors = String::new();
    session.run(
        "test.game",
        &format!("{WYTHOFF}grundy W(2000, 2000)\n"),
        &mut |event| {
            if let Event::Error(report) = event {
                let style = ErrorStyle::Graphical {
                    colour: false,
                    width: 80,
                };
                errors += &output::error(&report, style);
            }
        },
    );
    assert!(errors.contains("--max-work"), "{errors}");
    // Two of Wythoff's zeros, and W(1, 1), whose options are of values 1,
    // 1 and 0.
    let queries = "grundy W(6, 10)\ngrundy W(10, 6)\ngrundy W(1, 1)\n";
    let values = grundy_values_in(session, queries);
    assert_eq!(values, [0, 0, 2]);
}

/// A box interrupted keeps the values it found: asked again, it goes on
/// from them (the engine holds them when the second search first reports),
/// and every value is right (Wythoff's zeros where they belong).
#[test]
fn an_interrupted_box_keeps_its_values_and_goes_on() {
    use std::sync::{Arc, Mutex};
    let mut session = session(2);
    session.set_watcher(Some(Box::new(|tally| tally.states < 30_000)));
    let mut interrupted = false;
    session.run(
        "test.game",
        &format!("{WYTHOFF}grundy W(299, 299)\n"),
        &mut |event| {
            interrupted |= matches!(event, Event::Error(_));
        },
    );
    assert!(interrupted);
    let first = Arc::new(Mutex::new(None));
    let seen = Arc::clone(&first);
    session.set_watcher(Some(Box::new(move |tally| {
        seen.lock().unwrap().get_or_insert(tally.states);
        true
    })));
    let values = grundy_values_in(
        session,
        "grundy W(299, 299)\ngrundy W(181, 293)\ngrundy W(293, 181)\n",
    );
    assert!(first.lock().unwrap().unwrap() >= 30_000);
    // (181, 293) is pair 112 of the golden ratio's Beatty sequences.
    assert_ne!(values[0], 0);
    assert_eq!(values[1..], [0, 0]);
}

/// A table asked a position at a time, row after row, as `sprague diff`
/// asks it, is solved in a few growing boxes, not a box a row: a box is
/// solved whole, the positions known included, so one a row would sweep
/// the (a + 1)(b + 1) positions below each (a, b) again, some 1.3 × 10^8
/// for 151 × 151, where the growing boxes sweep a few times the table.
/// The values are those of asking the far corner first.
#[test]
fn a_table_asked_row_by_row_is_solved_in_a_few_boxes() {
    let last = 150;
    let mut corner = session(2);
    let declared = corner.declare("wythoff.game", WYTHOFF, &mut |_| {});
    assert!(declared.is_ok());
    assert!(corner.grundy_of("W", &[last, last]).is_ok());
    let table = ((last + 1) * (last + 1)) as u64;
    assert_eq!(corner.boxed(), table);
    let mut rows = session(2);
    let declared = rows.declare("wythoff.game", WYTHOFF, &mut |_| {});
    assert!(declared.is_ok());
    for a in 0..=last {
        for b in 0..=last {
            let value = rows.grundy_of("W", &[a, b]).ok();
            assert_eq!(value, corner.grundy_of("W", &[a, b]).ok(), "W({a}, {b})");
        }
    }
    // Each box at most doubles the last along a side, so the last has
    // under twice the table's sides (under 4 tables) and all of them
    // under twice the last.
    assert!(
        rows.boxed() <= 8 * table,
        "row by row {} positions swept, the table has {table}",
        rows.boxed()
    );
}
