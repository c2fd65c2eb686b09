//! Every period the program calls proven, checked against the definition.
//!
//! For every octal code of one to three digits after the point, and a
//! sample of longer, hexadecimal and `!` codes, the values the program
//! gives (from its tables, and past them from a period it proved) are
//! compared with the values found here by listing every option and taking
//! the mex, with no shortcut. A period `period G` calls proven must hold
//! over the whole range computed here.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use sprague::session::{Event, Session, Stage, Value};

/// Heaps 0..=`last` compared for every code.
const LAST: usize = 300;
/// Heaps past the table, answered from a proven period when there is one.
const FAR: [usize; 5] = [301, 450, 640, 777, 1000];
/// The state limit, which also bounds how far `period` computes: codes
/// whose period shows only later are answered as not found.
const STATES: usize = 1 << 12;

/// One digit of a take-and-break code: how a heap may lose k tokens.
#[derive(Clone, Copy, Default)]
struct Digit {
    /// 1: leave no heap, 2: one heap, 4: two heaps, 8: three heaps.
    bits: u32,
    /// The heaps left must differ in size.
    distinct: bool,
}

/// Reads a code such as `0.137`, `4.0`, `0.8F` (hexadecimal) or `0.4!`.
fn digits(code: &str, radix: u32) -> Vec<Digit> {
    let mut digits = Vec::new();
    for c in code.chars() {
        match c {
            '.' => {}
            '!' => digits
                .last_mut()
                .map(|d: &mut Digit| d.distinct = true)
                .unwrap(),
            c => digits.push(Digit {
                bits: c.to_digit(radix).unwrap(),
                distinct: false,
            }),
        }
    }
    digits
}

/// G(0..=last) by the definition: the mex of the values of every option.
fn by_definition(digits: &[Digit], last: usize) -> Vec<u64> {
    let mut values: Vec<u64> = Vec::with_capacity(last + 1);
    for heap in 0..=last {
        let mut options = Vec::new();
        let mut mark = |value: u64| options.push(value);
        for (k, digit) in digits.iter().enumerate().take(heap + 1) {
            let left = heap - k;
            let differ =
                |parts: &[usize]| !digit.distinct || parts.windows(2).all(|w| w[0] != w[1]);
            if digit.bits & 1 != 0 && left == 0 {
                mark(0);
            }
            if digit.bits & 2 != 0 && left >= 1 {
                mark(values[left]);
            }
            if digit.bits & 4 != 0 {
                for a in 1..=left / 2 {
                    if differ(&[a, left - a]) {
                        mark(values[a] ^ values[left - a]);
                    }
                }
            }
            if digit.bits & 8 != 0 {
                for a in 1..=left / 3 {
                    for b in a..=(left - a) / 2 {
                        let c = left - a - b;
                        if differ(&[a, b, c]) {
                            mark(values[a] ^ values[b] ^ values[c]);
                        }
                    }
                }
            }
        }
        options.sort_unstable();
        options.dedup();
        let mex = options.iter().zip(0..).find(|&(&g, n)| g != n);
        values.push(mex.map_or(options.len() as u64, |(_, n)| n));
    }
    values
}

/// What the program answers for one code: each queried heap's value, and
/// its period (period, preperiod, proven) if it found one.
struct Answers {
    values: Vec<(usize, u64)>,
    period: Option<(usize, usize, bool)>,
}

fn program(kind: &str, code: &str) -> Answers {
    // A three-heap code's table costs heap² a heap: `period` stops sooner.
    let states = if kind == "hexadecimal" { 1024 } else { STATES };
    let far: Vec<String> = FAR.iter().map(usize::to_string).collect();
    let source = format!(
        "game G = {kind} \"{code}\"\n\
         grundy G(n) for n in 0..={LAST}\n\
         grundy G(n) for n in {{{}}}\n\
         period G\n",
        far.join(", ")
    );
    let mut answers = Answers {
        values: Vec::new(),
        period: None,
    };
    let mut errors = Vec::new();
    let heaps = (0..=LAST).chain(FAR);
    let mut heaps = heaps.into_iter();
    Session::new(states).run("periods.game", &source, &mut |event| match event {
        Event::Answer(answer) => match answer.value {
            Value::Grundy(value) => answers.values.push((heaps.next().unwrap(), value)),
            Value::Period { period, .. } => {
                answers.period = period.map(|p| (p.period, p.preperiod, p.proven));
            }
            other => panic!("{code}: unexpected answer {other:?}"),
        },
        Event::Error(report) => errors.push(format!("{report:?}")),
        Event::Note(_) | Event::Play(_) => {}
    });
    assert!(errors.is_empty(), "{kind} {code}: {errors:?}");
    answers
}

/// Checks one code; returns whether its period was proven.
fn check(kind: &str, code: &str) -> bool {
    let radix = if kind == "hexadecimal" { 16 } else { 8 };
    let truth = by_definition(&digits(code, radix), *FAR.last().unwrap());
    check_against(kind, code, &truth)
}

fn check_against(kind: &str, code: &str, truth: &[u64]) -> bool {
    let answers = program(kind, code);
    assert_eq!(answers.values.len(), LAST + 1 + FAR.len(), "{kind} {code}");
    for &(n, value) in &answers.values {
        assert_eq!(value, truth[n], "{kind} \"{code}\": G({n})");
    }
    let Some((p, n0, proven)) = answers.period else {
        return false;
    };
    if proven {
        for n in n0..truth.len().saturating_sub(p) {
            assert_eq!(
                truth[n + p],
                truth[n],
                "{kind} \"{code}\": period {p} from {n0} called proven, but G({}) ≠ G({n})",
                n + p
            );
        }
    }
    proven
}

#[test]
fn every_octal_code_of_up_to_three_digits_agrees_with_the_definition() {
    let mut codes = Vec::new();
    for a in 0..8 {
        codes.push(format!("0.{a}"));
        for b in 0..8 {
            codes.push(format!("0.{a}{b}"));
            for c in 0..8 {
                codes.push(format!("0.{a}{b}{c}"));
            }
        }
    }
    let proven = codes.iter().filter(|code| check("octal", code)).count();
    // Most codes of three digits have a period found in a few hundred
    // heaps; a proof that is never reached would test nothing.
    assert!(proven > codes.len() / 2, "only {proven} periods proven");
}

#[test]
fn the_octal_codes_that_split_without_leaving_one_heap_have_no_false_period() {
    // 0.4: G = 0, 0, 0, 1, … (heap 3 splits into 1 + 1), not period 1.
    for code in ["0.4", "0.04", "0.004", "0.44", "0.404"] {
        check("octal", code);
    }
}

#[test]
fn longer_codes_splitting_before_the_point_and_distinct_heaps_agree() {
    for code in [
        "4.0",
        "4.07",
        "4.4",
        "0.1337",
        "0.7777",
        "0.0407",
        "0.16",
        "0.156",
        "0.4!",
        "0.6!",
        "0.7!",
        "0.4!4",
        "0.14!",
        "4!.0",
        "0.6!7",
        "0.72!",
        "0.0004",
        "0.00007",
        "0.12345671",
    ] {
        check("octal", code);
    }
}

#[test]
fn hexadecimal_codes_agree_with_the_definition() {
    for code in [
        "0.8", "0.F", "0.48", "0.8F", "0.9", "0.C", "0.08", "0.B!", "0.F!", "8.0", "0.1F", "0.AB",
    ] {
        check("hexadecimal", code);
    }
}

#[test]
fn periods_that_show_only_past_a_long_preperiod_are_proven() {
    // Flammenkamp's tables: 0.56 has period 144 from heap 326,640, 0.127
    // period 4 from 46,578. The theorem needs twice the preperiod.
    for (code, p, n0) in [("0.127", 4, 46_578), ("0.56", 144, 326_640)] {
        let source = format!("game G = octal \"{code}\"\nperiod G\n");
        let mut found = None;
        Session::new(1_000_000).run("periods.game", &source, &mut |event| {
            if let Event::Answer(answer) = event
                && let Value::Period { period, .. } = answer.value
            {
                found = period.map(|p| (p.period, p.preperiod, p.proven));
            }
        });
        assert_eq!(found, Some((p, n0, true)), "{code}");
    }
}

/// A session told of each stage of a long query, which sets the stop flag
/// (as Ctrl-C does) on the first when `stop_at_first` holds.
fn watched(stop_at_first: bool) -> (Session, Arc<Mutex<Vec<Stage>>>) {
    let mut session = Session::new(1 << 20);
    let stop = Arc::new(AtomicBool::new(false));
    session.set_stop(Some(stop.clone()));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let told = seen.clone();
    session.set_stages(Some(Box::new(move |stage| {
        told.lock().unwrap().push(stage.clone());
        stop.store(stop_at_first, Ordering::SeqCst);
    })));
    (session, seen)
}

/// Octal 0.56 has period 144 only from heap 326,640 (Gangolli and
/// Plambeck): nothing is proven from its first 256 values, and `period`
/// says so before it goes on. A stop set then ends it with the interrupted
/// error, and the rest of the source is not asked.
#[test]
fn a_stop_set_while_period_searches_interrupts_it() {
    let (mut session, seen) = watched(true);
    let mut events = Vec::new();
    let source = "game G = octal \"0.56\"\nperiod G\ngrundy *1\n";
    assert!(!session.run("stopped", source, &mut |event| events.push(event)));
    let period = Stage::Period {
        game: "G".into(),
        values: 256,
        largest: 128,
    };
    assert_eq!(*seen.lock().unwrap(), [period]);
    let [Event::Error(report)] = events.as_slice() else {
        panic!("{events:?}");
    };
    let code = report.code().map(|code| code.to_string());
    assert_eq!(code.as_deref(), Some("sprague::eval::interrupted"));
}

/// Watched, `period` answers as it does unwatched: Kayles (octal 0.77) has
/// period 12 from heap 71 (Guy and Smith), proven from 2·71 + 12 + 2 = 156
/// values, within the first stage of 256, so no stage is told.
#[test]
fn a_watched_period_gives_the_same_answer() {
    let (mut session, seen) = watched(false);
    let mut events = Vec::new();
    let source = "game K = octal \"0.77\"\nperiod K\n";
    assert!(session.run("watched", source, &mut |event| events.push(event)));
    let [Event::Answer(answer)] = events.as_slice() else {
        panic!("{events:?}");
    };
    let Value::Period {
        period: Some(period),
        ..
    } = &answer.value
    else {
        panic!("{answer:?}");
    };
    assert_eq!(
        (period.period, period.preperiod, period.saltus),
        (12, 71, 0)
    );
    assert!(period.proven);
    assert!(seen.lock().unwrap().is_empty());
}
