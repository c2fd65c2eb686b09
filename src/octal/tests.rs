//! The fast table against the definition: every code of a class, and
//! random ones, heap by heap.

use super::*;

fn span() -> miette::SourceSpan {
    miette::SourceSpan::new(0.into(), 0)
}

fn code(text: &str) -> TakeBreak {
    crate::program::code::take_break(text, false, span())
        .unwrap_or_else(|_| panic!("{text} is a code"))
}

/// A code in hexadecimal, whose digit 8 leaves three heaps.
fn hex(text: &str) -> TakeBreak {
    crate::program::code::take_break(text, true, span())
        .unwrap_or_else(|_| panic!("{text} is a code"))
}

#[test]
fn the_fast_table_agrees_with_the_definition() {
    for text in [
        "0.77", "0.07", "0.137", "4!.0", "0.6", "0.51", "4.07", "0.4!7",
    ] {
        let code = code(text);
        let naive = naive(&code, 3000);
        let mut table = Table::with_threads(code.clone(), 1);
        table.extend_to(3000, &mut |_| true).unwrap();
        assert_eq!(table.values(), naive, "code {text}");
        // Values past 16 bits are read wide; the same, more slowly.
        let mut wide = Table::with_threads(code, 1);
        wide.known.narrow = Narrow::Wide(Vec::new());
        wide.extend_to(3000, &mut |_| true).unwrap();
        assert_eq!(wide.values(), naive, "code {text}, wide");
    }
}

/// Tables extended in rounds by several threads (from the first heap
/// on) give the same values, for codes with splits after several
/// removals, parts that must differ, three heaps, removals without
/// bound, and values that outgrow a byte.
#[test]
fn rounds_agree_with_the_definition() {
    let mut outgrown = false;
    for (text, n) in [
        ("0.77", 2000),
        ("0.07", 2000),
        ("0.137", 2000),
        ("4!.0", 2000),
        ("0.6", 2000),
        ("0.51", 2000),
        ("4.07", 2000),
        ("0.4!7", 3000),
        ("4.4", 2000),
        ("0.8", 300),
        ("0.38", 300),
        ("8.0", 300),
    ] {
        let code = hex(text);
        let naive = naive(&code, n);
        for threads in [2, 3, 16] {
            let mut table = Table::with_threads(code.clone(), threads);
            table.rounds_from = 0;
            table.extend_to(n, &mut |_| true).unwrap();
            assert_eq!(table.values(), naive, "code {text}, {threads} threads");
        }
        outgrown |= naive.iter().any(|&value| value > 255);
    }
    assert!(outgrown, "a code's values outgrow a byte");
}

/// Threads that are late with some batches have them taken back and
/// guessed by the table's thread, and their late answers dropped, not
/// read as the answers to the batches after: the values are the
/// same.
#[test]
fn batches_taken_back_from_late_threads_give_the_same_values() {
    for text in ["4!.0", "0.137", "4.07"] {
        let code = hex(text);
        let naive = naive(&code, 5000);
        let mut table = Table::with_threads(code, 3);
        table.rounds_from = 0;
        table.late = std::time::Duration::from_micros(1500);
        table.extend_to(5000, &mut |_| true).unwrap();
        assert_eq!(table.values(), naive, "code {text}");
    }
}

/// A block of splits cut short, read as a whole block that holds it,
/// gives the splits asked for, each once and in order, and reads no
/// part below the least that may be read (whose other part is not
/// known: here past the end of the values).
#[test]
fn blocks_cut_short_give_their_own_splits() {
    let values: Vec<u16> = (0..1000u16)
        .map(|heap| heap.wrapping_mul(7919) % 512)
        .collect();
    let left = 700;
    for (least, last) in [(1, 350), (90, 349), (1, 200), (300, 340), (0, 129)] {
        let mut cut = 0;
        for first in least.max(1)..=last {
            for end in (first..=last).filter(|&end| end < first + CHUNK) {
                let mut splits = [0; CHUNK];
                let known = &values[..=left - least.max(1)];
                let read = xor_parts(known, left, (first, end), (least, last), &mut splits);
                let split = |a: usize| values[a] ^ values[left - a];
                let wanted: Vec<u16> = (first..=end).map(split).collect();
                assert_eq!(read, wanted, "parts {first} to {end} of {least} to {last}");
                cut += usize::from(end + 1 - first < CHUNK);
            }
        }
        assert!(cut > 0);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

    /// Random codes (hexadecimal digits, parts that must differ or
    /// not), extended by several threads, agree with the definition.
    #[test]
    fn rounds_agree_on_random_codes(
        digits in proptest::collection::vec((0u8..16, proptest::bool::ANY), 1..6),
        threads in 2usize..6,
        steps in proptest::collection::vec(1usize..400, 1..4),
    ) {
        let code = TakeBreak {
            digits: digits
                .iter()
                .enumerate()
                .map(|(k, &(bits, distinct))| Digit {
                    // No move removes nothing and leaves one heap.
                    bits: if k == 0 { bits & !3 } else { bits },
                    distinct,
                })
                .collect(),
            rest: None,
        };
        let mut table = Table::with_threads(code.clone(), threads);
        table.rounds_from = 0;
        let mut n = 0;
        for step in steps {
            n += step;
            table.extend_to(n, &mut |_| true).unwrap();
        }
        proptest::prop_assert_eq!(table.values(), naive(&code, n));
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Codes with a rest that leaves at most one heap, and exceptions
    /// of that kind (`subtraction all but`, and more), valued by
    /// prefix, agree with the definition, option by option.
    #[test]
    fn prefixes_agree_with_the_definition(
        exceptions in proptest::collection::vec(0u8..4, 0..12),
        rest in 1u8..4,
        steps in proptest::collection::vec(1usize..300, 1..4),
    ) {
        let mut digits = vec![Digit::default()];
        digits.extend(exceptions.iter().map(|&bits| Digit { bits, distinct: false }));
        let code = TakeBreak {
            digits,
            rest: Some(Digit { bits: rest, distinct: false }),
        };
        let mut table = Table::with_threads(code.clone(), 1);
        proptest::prop_assert!(table.prefix.is_some());
        let mut n = 0;
        for step in steps {
            n += step;
            table.extend_to(n, &mut |_| true).unwrap();
        }
        proptest::prop_assert_eq!(table.values(), naive(&code, n));
    }
}

/// `subtraction all but S` by prefix, against the definition.
#[test]
fn all_but_agrees_with_the_definition() {
    for set in [&[1][..], &[2, 5], &[1, 2, 3], &[3, 7, 8, 20], &[100]] {
        let set: Vec<_> = set.iter().map(|&k| (k, span())).collect();
        let code = crate::program::code::subtraction(&set, true).unwrap();
        let mut table = Table::with_threads(code.clone(), 2);
        table.rounds_from = 0;
        table.extend_to(3000, &mut |_| true).unwrap();
        assert_eq!(table.values(), naive(&code, 3000), "all but {set:?}");
    }
}

/// A table extended bit by bit, past the first heaps with the second
/// thread, agrees with one extended at once.
#[test]
fn tables_extended_in_steps_agree() {
    let code = code("4!.0");
    let mut steps = Table::with_threads(code.clone(), 2);
    steps.rounds_from = 0;
    for n in [10, 100, 101, 1000, 1500, 5000] {
        steps.extend_to(n, &mut |_| true).unwrap();
    }
    assert_eq!(steps.values(), naive(&code, 5000));
}

/// Grundy's game far enough that the mask is chosen anew many times
/// and most heaps need splits into two common heaps looked for.
#[test]
fn grundys_game_agrees_with_the_definition_to_twenty_thousand() {
    let code = code("4!.0");
    let mut table = Table::new(code.clone());
    table.extend_to(20_000, &mut |_| true).unwrap();
    assert_eq!(table.values(), naive(&code, 20_000));
}

/// The watcher stops a table between heaps; what it reached stays right.
#[test]
fn the_watcher_stops_a_table() {
    let code = code("4!.0");
    let mut table = Table::with_threads(code.clone(), 1);
    let mut told = Vec::new();
    let mut watch = |heaps: usize| {
        told.push(heaps);
        heaps < 3000
    };
    assert_eq!(table.extend_to(100_000, &mut watch), Err(Unknown::Stopped));
    assert_eq!(told, [0, 1024, 2048, 3072]);
    assert_eq!(table.values(), naive(&code, 3071));
}

/// The watcher is told every so many splits, not every so many heaps: a
/// code whose heaps each examine many splits (`0.004`, about n/2 splits
/// into two at heap n; `0.F`, about n²/12 into three) is heard within a
/// heap of [`WATCH_SPLITS`], where it was once heard every 1,024 (or 16)
/// heaps, seconds apart on a large heap.
#[test]
fn the_watcher_is_told_every_so_many_splits() {
    // The most splits one heap n can count: n into two, and n²/12 into
    // three, each [`SPLITS_PER_OPTION`] (with room to spare).
    let one_heap = |n: u64, three: bool| {
        n + if three {
            n * n / 8 * SPLITS_PER_OPTION
        } else {
            0
        }
    };
    for (code, three, last) in [(code("0.004"), false, 20_000), (hex("0.F"), true, 1_200)] {
        let mut table = Table::with_threads(code, 1);
        let examined = table.examined();
        let mut told = Vec::new();
        let mut watch = |heaps: usize| {
            told.push((heaps as u64, examined.load(Ordering::Relaxed)));
            true
        };
        table.extend_to(last, &mut watch).unwrap();
        let total = examined.load(Ordering::Relaxed);
        assert!(total > 10 * WATCH_SPLITS, "{total} splits to heap {last}");
        told.push((last as u64 + 1, total));
        for pair in told.windows(2) {
            let ((from, before), (to, after)) = (pair[0], pair[1]);
            assert!(
                after - before <= WATCH_SPLITS + one_heap(to, three),
                "heaps {from} to {to}: {} splits unheard",
                after - before
            );
        }
    }
}

/// A table stopped while its threads share the work goes on rightly when
/// extended again: the stop reaches every thread, and is forgotten after.
#[test]
fn a_table_stopped_on_threads_goes_on_rightly() {
    let code = code("4!.0");
    let mut table = Table::with_threads(code.clone(), 3);
    let mut watch = |heaps: usize| heaps < 9_000;
    assert_eq!(table.extend_to(40_000, &mut watch), Err(Unknown::Stopped));
    let reached = table.values().len();
    assert!((9_000..40_000).contains(&reached), "{reached}");
    table.extend_to(40_000, &mut |_| true).unwrap();
    assert_eq!(table.values(), naive(&code, 40_000));
}
