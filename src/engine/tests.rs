//! The engine on rules written directly in Rust, without the language.

use super::*;

/// Subtraction game: from n, remove any amount in `take` (at most n).
struct Subtraction {
    take: Vec<u64>,
}

impl Rules for Subtraction {
    type Position = u64;
    type Error = ();

    fn options(&self, n: &u64, options: &mut Options<u64>) -> std::result::Result<(), ()> {
        for &k in self.take.iter().filter(|&&k| k <= *n) {
            options.push([n - k]).map_err(|_| ())?;
        }
        Ok(())
    }

    fn heap(&self, _: u64) -> u64 {
        unreachable!("these rules have no Nim heaps")
    }
}

/// Rules over heap sizes, with the sizes as dense addresses: the engine
/// keeps their values in a table instead of interning them.
struct Addressed<R>(R);

impl<R: Rules<Position = u64>> Rules for Addressed<R> {
    type Position = u64;
    type Error = R::Error;

    fn options(&self, n: &u64, options: &mut Options<u64>) -> std::result::Result<(), R::Error> {
        self.0.options(n, options)
    }

    fn heap(&self, _: u64) -> u64 {
        unreachable!("these rules have no Nim heaps")
    }

    fn dense(&self, n: &u64) -> Option<Address> {
        Address::of(0, &[i64::try_from(*n).ok()?])
    }

    fn at_address(&self, address: Address) -> u64 {
        u64::from(address.col)
    }
}

/// From n, to n - 1 unless n is a multiple of `step`; from a positive
/// multiple, to `land`.
struct Steps {
    step: u64,
    land: u64,
}

impl Rules for Steps {
    type Position = u64;
    type Error = ();

    fn options(&self, n: &u64, options: &mut Options<u64>) -> std::result::Result<(), ()> {
        match n % self.step {
            0 if *n > 0 => options.push([self.land]).map_err(|_| ()),
            0 => Ok(()),
            _ => options.push([n - 1]).map_err(|_| ()),
        }
    }

    fn heap(&self, _: u64) -> u64 {
        unreachable!("these rules have no Nim heaps")
    }
}

/// Moves from n to n + 1 modulo a length: every position lies on a cycle.
struct Ring(u64);

impl Rules for Ring {
    type Position = u64;
    type Error = ();

    fn options(&self, n: &u64, options: &mut Options<u64>) -> std::result::Result<(), ()> {
        options.push([(n + 1) % self.0]).map_err(|_| ())
    }

    fn heap(&self, _: u64) -> u64 {
        unreachable!("these rules have no Nim heaps")
    }
}

#[test]
fn subtraction_one_two_three_is_n_mod_4() {
    let rules = Subtraction {
        take: vec![1, 2, 3],
    };
    let mut engine = Engine::new(DEFAULT_MAX_STATES);
    for n in 0..200 {
        assert_eq!(engine.grundy(&rules, &n), Ok(n % 4), "S(1,2,3) at {n}");
    }
}

#[test]
fn sums_take_the_xor_of_their_components() {
    let rules = Subtraction {
        take: vec![1, 2, 3],
    };
    let mut engine = Engine::new(DEFAULT_MAX_STATES);
    assert_eq!(engine.nim_sum(&rules, &[5, 6, 7]), Ok(1 ^ 2 ^ 3));
}

#[test]
fn the_best_move_restores_a_zero_nim_sum() {
    let rules = Subtraction {
        take: vec![1, 2, 3],
    };
    let mut engine = Engine::new(DEFAULT_MAX_STATES);
    let sum = [5, 6, 8];
    let best = engine
        .best_move(&rules, &sum)
        .unwrap()
        .expect("1 ^ 2 ^ 0 = 3 is not 0");
    assert_eq!(engine.nim_sum(&rules, &best.apply(&sum)), Ok(0));
}

#[test]
fn a_position_of_value_zero_has_no_best_move() {
    let rules = Subtraction {
        take: vec![1, 2, 3],
    };
    let mut engine = Engine::new(DEFAULT_MAX_STATES);
    assert_eq!(engine.best_move(&rules, &[4, 8]), Ok(None));
}

#[test]
fn a_cycle_is_reported_with_its_path() {
    let mut engine = Engine::new(DEFAULT_MAX_STATES);
    assert_eq!(
        engine.grundy(&Ring(3), &0),
        Err(EngineError::Loopy {
            cycle: vec![0, 1, 2, 0]
        })
    );
    // The loopy solver values the ring: play never ends, a draw.
    for n in 0..3 {
        assert_eq!(engine.gamma(&Ring(3), &n), Ok(Gamma::Infinite(Vec::new())));
    }
    assert_eq!(engine.gamma(&Ring(3), &0).unwrap().outcome(), Outcome::Draw);
}

#[test]
fn smiths_rule_adds_infinite_values() {
    let (two, inf) = (Gamma::Finite(2), Gamma::Infinite(vec![0, 3]));
    assert_eq!(two.add(&Gamma::Finite(3)), Gamma::Finite(1));
    assert_eq!(inf.add(&two), Gamma::Infinite(vec![1, 2]));
    assert_eq!(inf.add(&inf), Gamma::Infinite(Vec::new()));
    assert_eq!(inf.outcome(), Outcome::Win);
    assert_eq!(inf.add(&two).outcome(), Outcome::Draw);
}

#[test]
fn the_state_limit_names_the_position_being_expanded() {
    fn check<R: Rules<Position = u64, Error = ()>>(rules: R) {
        let mut engine = Engine::new(10);
        assert_eq!(
            engine.grundy(&rules, &100),
            Err(EngineError::TooManyStates {
                limit: 10,
                expanding: 91
            })
        );
        // The failed search gave its room back: a small question still fits.
        assert_eq!(engine.states(), 0);
        assert_eq!(engine.grundy(&rules, &5), Ok(1));
        assert_eq!(engine.states(), 6);
    }
    check(Subtraction { take: vec![1] });
    check(Addressed(Subtraction { take: vec![1] }));
}

#[test]
fn a_chain_of_a_million_positions_does_not_overflow_the_stack() {
    fn check<R: Rules<Position = u64, Error = ()>>(rules: R) {
        let mut engine = Engine::new(DEFAULT_MAX_STATES);
        assert_eq!(engine.grundy(&rules, &1_000_000), Ok(0));
        assert_eq!(engine.grundy(&rules, &999_999), Ok(1));
        assert_eq!(engine.states(), 1_000_001);
    }
    check(Subtraction { take: vec![1] });
    check(Addressed(Subtraction { take: vec![1] }));
}

#[test]
fn positions_past_the_tables_budget_are_interned() {
    // The table's budget is 2 * 100,000 + 65,536 cells: the heaps from
    // 1,000,000 up lie past it, those below 500 within it, and the chain
    // from 1,000,010 runs through both: 1,000,010 → … → 1,000,000 → 500 →
    // … → 0, 511 moves in all, so its value is 1 and 1,000,009's is 0.
    let rules = Addressed(Steps {
        step: 1_000_000,
        land: 500,
    });
    let mut engine = Engine::new(100_000);
    assert_eq!(engine.grundy(&rules, &1_000_010), Ok(1));
    assert_eq!(engine.grundy(&rules, &1_000_009), Ok(0));
    assert_eq!(engine.grundy(&rules, &499), Ok(1));
    assert_eq!(engine.states(), 512);
    assert_eq!(engine.longest(&rules, &1_000_010), Ok(511));
    assert_eq!(engine.forget(&rules, |&n| n > 1_000_005), 5);
    assert_eq!(engine.grundy(&rules, &1_000_010), Ok(1));
}

#[test]
fn longest_play_counts_moves_to_the_end() {
    let rules = Subtraction { take: vec![1, 2] };
    let mut engine = Engine::new(DEFAULT_MAX_STATES);
    // Taking one at a time lasts longest: n moves.
    assert_eq!(engine.longest(&rules, &7), Ok(7));
    assert_eq!(engine.longest(&rules, &0), Ok(0));
}

#[test]
fn moves_list_every_option_of_every_component_with_its_value() {
    let rules = Subtraction {
        take: vec![1, 2, 3],
    };
    let mut engine = Engine::new(DEFAULT_MAX_STATES);
    let moves = engine.moves(&rules, &[2, 3]).unwrap();
    let summary: Vec<(usize, Vec<u64>, u64)> = moves
        .iter()
        .map(|(r#move, grundy)| (r#move.component, r#move.to.clone(), *grundy))
        .collect();
    // Values are n mod 4: from 2 + 3, moves leave 1+3, 0+3, 2+2, 2+1, 2+0.
    assert_eq!(
        summary,
        vec![
            (0, vec![1], 1 ^ 3),
            (0, vec![0], 3),
            (1, vec![2], 0),
            (1, vec![1], 2 ^ 1),
            (1, vec![0], 2),
        ]
    );
}

#[test]
fn forgetting_drops_only_the_positions_asked() {
    fn check<R: Rules<Position = u64, Error = ()>>(rules: R) {
        let mut engine = Engine::new(DEFAULT_MAX_STATES);
        engine.grundy(&rules, &9).unwrap();
        assert_eq!(engine.longest(&rules, &9), Ok(9));
        assert_eq!(engine.forget(&rules, |&n| n >= 5), 5);
        assert_eq!(engine.states(), 5);
        assert_eq!(engine.grundy(&rules, &9), Ok(1));
        assert_eq!(engine.longest(&rules, &9), Ok(9));
    }
    check(Subtraction { take: vec![1] });
    check(Addressed(Subtraction { take: vec![1] }));
}

#[test]
fn a_watcher_can_interrupt_a_search_and_the_engine_stays_usable() {
    let rules = Subtraction { take: vec![1] };
    let mut engine = Engine::new(DEFAULT_MAX_STATES);
    engine.set_watcher(Some(Box::new(|_| false)));
    assert_eq!(
        engine.grundy(&rules, &100_000),
        Err(EngineError::Interrupted)
    );
    engine.set_watcher(None);
    assert_eq!(engine.grundy(&rules, &100_000), Ok(0));
}

/// Counting what a sum's search would have to hold (`crosscheck`,
/// `remoteness`) hears a stop as well: on a board of coins it lists every
/// option of every reachable position before the search begins.
#[test]
fn a_watcher_can_interrupt_the_count_of_reachable_positions() {
    let rules = Subtraction { take: vec![1] };
    let mut engine = Engine::new(DEFAULT_MAX_STATES);
    engine.set_watcher(Some(Box::new(|_| false)));
    assert_eq!(
        engine.reachable(&rules, &100_000, usize::MAX),
        Err(EngineError::Interrupted)
    );
    engine.set_watcher(None);
    assert_eq!(engine.reachable(&rules, &100_000, usize::MAX), Ok(100_001));
}

/// Kayles on rows of pins: knock down one pin or two side by side, which
/// may split the row in two. `defer` says whether options with a part not
/// solved yet are deferred (as the default fold does) or skipped outright;
/// `packed` whether rows are kept by packed key instead of interned.
struct Kayles {
    defer: bool,
    packed: bool,
}

impl Rules for Kayles {
    type Position = u64;
    type Error = ();

    fn options(&self, n: &u64, options: &mut Options<u64>) -> std::result::Result<(), ()> {
        for k in 1..=2.min(*n) {
            for a in 0..=n - k {
                let parts = [a, n - k - a].into_iter().filter(|&part| part > 0);
                options.push(parts).map_err(|_| ())?;
            }
        }
        Ok(())
    }

    fn fold_options(
        &self,
        n: &u64,
        solved: &mut Solved<'_, u64>,
        mex: &mut Mex,
        _limit: usize,
    ) -> std::result::Result<(), ()> {
        // Rows have about 2n options: unbounded here, so that a small
        // state limit can be met before the options' limit.
        let mut options = Options::new(usize::MAX);
        self.options(n, &mut options)?;
        if self.defer {
            fold_listed(self, &options, solved, mex);
            return Ok(());
        }
        for option in options.iter() {
            let values: Option<Vec<Grundy>> =
                option.iter().map(|part| solved.part(self, part)).collect();
            if let Some(values) = values {
                mex.add(values.into_iter().fold(0, |a, b| a ^ b));
            }
        }
        Ok(())
    }

    fn heap(&self, _: u64) -> u64 {
        unreachable!("these rules have no Nim heaps")
    }

    fn packed(&self, n: &u64) -> Option<Packed> {
        self.packed.then_some(Packed([*n, 0, 0]))
    }

    fn unpacked(&self, key: Packed) -> u64 {
        key.0[0]
    }
}

/// Kayles' values for rows of 0 to 104 pins (OEIS A002186).
fn kayles_values() -> Vec<Grundy> {
    include_str!("../../tests/data/kayles_octal_0.77.txt")
        .lines()
        .filter(|line| !line.starts_with('#'))
        .map(|line| line.split_whitespace().nth(1).unwrap().parse().unwrap())
        .collect()
}

#[test]
fn deferred_skipped_and_packed_options_give_kayles_values() {
    let expected = kayles_values();
    assert!(expected.len() > 100);
    for defer in [true, false] {
        for packed in [true, false] {
            let rules = Kayles { defer, packed };
            let mut engine = Engine::new(DEFAULT_MAX_STATES);
            // From the top, so that most options wait on parts not solved.
            let last = expected.len() as u64 - 1;
            assert_eq!(engine.grundy(&rules, &last), Ok(expected[last as usize]));
            for (n, &value) in expected.iter().enumerate() {
                let found = engine.grundy(&rules, &(n as u64));
                assert_eq!(
                    found,
                    Ok(value),
                    "Kayles({n}), defer {defer}, packed {packed}"
                );
            }
            let kept = if packed {
                engine.packed.len()
            } else {
                engine.positions.len()
            };
            assert_eq!(kept, expected.len(), "every row is kept once");
        }
    }
}

/// A fold may note only so many missing parts (a coin-turning position of
/// millions of options noted gigabytes of them): past them it notes none,
/// and the position's options are listed again once those noted are
/// solved. Noting one part at a time, or a few, the memo and the pruned
/// search still give every Kayles value, asked from the top down so that
/// most options wait on parts not solved.
#[test]
fn folds_that_note_few_missing_parts_give_kayles_values() {
    let expected = &kayles_values()[..90];
    for method in [Method::Memo, Method::Search] {
        for most in [1, 2, 3, 5] {
            for (defer, packed) in [(true, true), (true, false), (false, false)] {
                let rules = Kayles { defer, packed };
                let mut engine = Engine::new(DEFAULT_MAX_STATES);
                engine.set_method(method);
                engine.most_missing = most;
                for (n, &value) in expected.iter().enumerate().rev() {
                    let found = engine.grundy(&rules, &(n as u64));
                    assert_eq!(
                        found,
                        Ok(value),
                        "Kayles({n}), {method:?}, {most} noted, defer {defer}, packed {packed}"
                    );
                }
            }
        }
    }
}

/// A row of 3,000 pins asked first has 5,999 options waiting on 11,996
/// parts, met many times over: those met again are dropped before the
/// parts are sorted, and every row's value is still Kayles' (A002186,
/// periodic with period 12 from 71 on).
#[test]
fn parts_met_many_times_over_wait_once_and_give_kayles_values() {
    let expected = kayles_values();
    let kayles = |n: usize| match n < expected.len() {
        true => expected[n],
        false => expected[71 + (n - 71) % 12],
    };
    for (defer, packed) in [(true, true), (true, false), (false, false)] {
        let rules = Kayles { defer, packed };
        let mut engine = Engine::new(DEFAULT_MAX_STATES);
        assert_eq!(engine.grundy(&rules, &3_000), Ok(kayles(3_000)));
        for n in (0..3_000).step_by(7) {
            assert_eq!(
                engine.grundy(&rules, &(n as u64)),
                Ok(kayles(n)),
                "Kayles({n}), defer {defer}, packed {packed}"
            );
        }
    }
}

#[test]
fn a_failed_search_forgets_the_packed_positions_it_stored() {
    let rules = Kayles {
        defer: true,
        packed: true,
    };
    let mut engine = Engine::new(50);
    let found = engine.grundy(&rules, &80);
    assert!(
        matches!(found, Err(EngineError::TooManyStates { limit: 50, .. })),
        "{found:?}"
    );
    assert_eq!(engine.states(), 0);
    assert_eq!(engine.grundy(&rules, &40), Ok(1));
    assert_eq!(engine.states(), 40);
}

/// A search stopped by the work limit keeps the values it found, as one
/// interrupted does: asked again, it goes on from them, and within a
/// limit below what the whole needs, a few asks finish it.
#[test]
fn a_search_past_the_work_limit_stops_and_keeps_what_it_solved() {
    let rules = Kayles {
        defer: true,
        packed: false,
    };
    let mut engine = Engine::new(DEFAULT_MAX_STATES);
    // Kayles(100) has about 200 options, and the rows below it 10,000 in
    // all: each ask solves what it can within the limit, and the next
    // folds only what is left (forgotten, every ask would end alike).
    engine.set_max_work(1_000);
    let mut asks = 0;
    let value = loop {
        match engine.grundy(&rules, &100) {
            Ok(value) => break value,
            Err(EngineError::TooMuchWork {
                limit: 1_000,
                examined,
                ..
            }) => assert!(examined > 1_000),
            found => panic!("{found:?}"),
        }
        asks += 1;
        assert!(asks < 30, "not solved in {asks} asks");
    };
    // Kayles(100) is 1 (A002186, of period 12 from 72 on: 100 = 72 + 28).
    assert_eq!(value, 1);
    assert!(asks >= 2, "solved in {} asks", asks + 1);
    assert_eq!(engine.grundy(&rules, &20), Ok(1));
}

/// Grundy's game: split a heap into two unequal heaps.
struct GrundysGame;

impl Rules for GrundysGame {
    type Position = u64;
    type Error = ();

    fn options(&self, n: &u64, options: &mut Options<u64>) -> std::result::Result<(), ()> {
        for a in (1..*n).take_while(|&a| a < n - a) {
            options.push([a, n - a]).map_err(|_| ())?;
        }
        Ok(())
    }

    fn heap(&self, _: u64) -> u64 {
        unreachable!("these rules have no Nim heaps")
    }
}

/// The watcher is told as often in work as a game's options come, not once
/// every few thousand positions: Grundy's game, asked heap by heap as
/// `period` asks it, has about n/2 options at heap n, so that its first
/// 3,000 heaps are over two million options but only 6,000 steps.
#[test]
fn the_watcher_is_told_every_so_many_options_not_positions() {
    let calls = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let mut engine = Engine::new(DEFAULT_MAX_STATES);
    let counted = calls.clone();
    engine.set_watcher(Some(Box::new(move |_| {
        counted.fetch_add(1, Relaxed);
        true
    })));
    for n in 0..3000 {
        engine.grundy(&GrundysGame, &n).unwrap();
    }
    let work = engine.total_work();
    assert!(work > 2_000_000, "{work} options");
    let calls = calls.load(Relaxed);
    assert!(
        calls >= work / (2 * WATCH_WORK),
        "{calls} calls for {work} options"
    );
}

/// Four coins in a row, as bits; a move takes any coin but the last
/// (coin 3). The rules claim the row's reversal as a mirror, as a game
/// declared `up to symmetry` would, though the rule is not symmetric: an
/// answer by the image of a move is then not always a move. A position's
/// value is the parity of its coins 0 to 2.
struct LastStays;

impl LastStays {
    fn reversed(coins: u8) -> u8 {
        coins.reverse_bits() >> 4
    }
}

impl Rules for LastStays {
    type Position = u8;
    type Error = ();

    fn options(&self, coins: &u8, options: &mut Options<u8>) -> std::result::Result<(), ()> {
        for coin in (0..3).filter(|coin| coins >> coin & 1 == 1) {
            options.push([coins & !(1 << coin)]).map_err(|_| ())?;
        }
        Ok(())
    }

    fn heap(&self, _: u64) -> u8 {
        unreachable!("these rules have no Nim heaps")
    }

    fn packed(&self, coins: &u8) -> Option<Packed> {
        Some(Packed([0, u64::from(*coins), 0]))
    }

    fn unpacked(&self, key: Packed) -> u8 {
        key.0[1] as u8
    }

    fn mirrors(&self, whole: Packed) -> u8 {
        let coins = self.unpacked(whole);
        u8::from(LastStays::reversed(coins) == coins)
    }

    fn mirror_closed(&self, whole: Packed, _mirror: u8) -> Packed {
        let coins = self.unpacked(whole);
        Packed([0, u64::from(coins & LastStays::reversed(coins)), 0])
    }

    fn whole_options(
        &self,
        whole: Packed,
        each: &mut dyn FnMut(Packed) -> bool,
    ) -> std::result::Result<Option<u64>, ()> {
        let mut options = Options::new(8);
        self.options(&self.unpacked(whole), &mut options)?;
        for option in options.iter() {
            if !each(Packed([0, u64::from(option[0]), 0])) {
                break;
            }
        }
        Ok(Some(options.len() as u64))
    }

    fn whole_parts(&self, whole: Packed, parts: &mut Vec<u8>) -> bool {
        let coins = self.unpacked(whole);
        if coins != 0 {
            parts.push(coins);
        }
        true
    }
}

/// The mirror strategy claims no value its answers do not earn: from
/// 0b1111 (value 1) the image of taking coin 0 would take coin 3, which
/// no rule allows, so no proof; 0b0110 (value 0) is proved, each taking
/// answered by the other.
#[test]
fn the_mirror_strategy_answers_only_by_moves_the_rules_list() {
    let mut memo = Engine::new(100);
    for (coins, value) in [(0b1111, 1), (0b1001, 1), (0b0110, 0), (0b1110, 0)] {
        assert_eq!(memo.grundy(&LastStays, &coins), Ok(value), "{coins:04b}");
    }
    for (coins, proved) in [(0b1111, false), (0b1001, false), (0b0110, true)] {
        let mut engine = Engine::new(100);
        // Every part is left to the strategy, none valued by the memo.
        engine.set_method(Method::Search);
        assert_eq!(
            engine.mirror_proves(&LastStays, &coins),
            Ok(proved),
            "{coins:04b}"
        );
    }
}

/// A snapshot lists its values in the order of the table they came from,
/// which is the order of their hashes. Restored, they are spread over the
/// table as they were: no key lands behind a long run of others (stored
/// one by one into a table that doubled as it filled, the keys of the
/// smallest hashes piled into one run as long as the table, and a restore
/// of millions never ended). The values are all kept, and each is read
/// back.
#[test]
fn a_snapshot_in_the_order_of_its_table_is_restored_without_long_runs() {
    let keys = |n: u64| {
        (0..n).map(move |i| match i % 3 {
            // One word, two and three: each of the tables.
            0 => Packed([1, i, 0]),
            1 => Packed([2, i << 41, 0]),
            _ => Packed([3, i, 7]),
        })
    };
    let mut from: Engine<u64> = Engine::new(DEFAULT_MAX_STATES);
    for key in keys(300_000) {
        from.packed.make_room(key).unwrap();
        from.packed.set(key, key.0[1] % 7);
    }
    let snapshot = from.snapshot().unwrap();
    assert_eq!(snapshot.packed.len(), 300_000);
    let mut to: Engine<u64> = Engine::new(DEFAULT_MAX_STATES);
    assert_eq!(to.restore(&snapshot), 300_000);
    assert!(
        to.packed.longest_run() < 100,
        "a run of {} keys",
        to.packed.longest_run()
    );
    for key in keys(300_000) {
        assert_eq!(to.packed.get(key), key.0[1] % 7);
    }
    // Within a limit of states, as many as it leaves room for with a
    // sixteenth to spare: 1,000 - 63.
    let mut small: Engine<u64> = Engine::new(1_000);
    assert_eq!(small.restore(&snapshot), 937);
    assert!(small.packed.longest_run() < 100);
    // Within a bound on bytes, as many as the bound leaves room for with
    // a sixteenth of it to spare (the values ruled out given theirs): a
    // table of 2^k slots is 2^k times 9, 17 or 25 bytes, half full at
    // most, and each holds a third of the keys.
    for bound in [4_096, 100_000, 1 << 20] {
        let mut bounded: Engine<u64> = Engine::new(DEFAULT_MAX_STATES);
        bounded.set_max_table(bound);
        let kept = bounded.restore(&snapshot);
        let (bytes, peak) = bounded.table_bytes();
        assert!(peak <= bound - bound / 16, "{peak} bytes of {bound}");
        assert!(bytes * 4 > bound - bound / 8, "{bytes} bytes of {bound}");
        assert!(
            kept > bound / 51 / 4 && kept < bound / 51 * 2,
            "{kept} of {bound}"
        );
        assert!(bounded.packed.longest_run() < 100);
    }
}

/// The order a snapshot is restored in takes every index once, for sizes
/// whose step must be moved off a common factor as well.
#[test]
fn a_strided_order_takes_every_index_once() {
    for n in (0..200).chain([1 << 16, 3 * 5 * 7 * 11 * 13]) {
        let mut seen = vec![false; n];
        for i in super::snapshot::strided(n) {
            assert!(!seen[i], "{i} twice of {n}");
            seen[i] = true;
        }
        assert!(seen.iter().all(|&seen| seen), "an index left out of {n}");
    }
}

/// A search reads the facts another thread of it shared (see `shared.rs`)
/// and believes them, so the table must hold facts only: a thread that
/// searched Kayles first leaves the second little to do, and both answer
/// as the memo does; a false value put in the table is answered back.
#[test]
fn a_search_reads_and_believes_what_another_thread_shared() {
    use std::sync::Arc;
    let rules = Kayles {
        defer: true,
        packed: true,
    };
    let searching = |shared: &Arc<Shared>, helper| {
        let mut engine = Engine::new(1 << 20);
        engine.set_method(Method::Search);
        engine.share(Some(shared.clone()), helper);
        engine
    };
    let mut memo = Engine::new(1 << 20);
    let shared = Arc::new(Shared::within(1 << 20).expect("room for a small table"));
    let (mut first, mut second) = (searching(&shared, 1), searching(&shared, 0));
    for n in 1..=60 {
        let value = memo.grundy(&rules, &n);
        assert_eq!(first.grundy(&rules, &n), value, "Kayles({n}), first");
        let searched = second.tally().searched;
        assert_eq!(second.grundy(&rules, &n), value, "Kayles({n}), second");
        assert_eq!(
            second.tally().searched,
            searched,
            "Kayles({n}) searched again"
        );
        let wins = memo.outcome(&rules, &[n, 3]);
        assert_eq!(
            second.outcome(&rules, &[n, 3]),
            wins,
            "Kayles({n}) + Kayles(3)"
        );
    }
    assert!(second.tally().shared >= 50, "{:?}", second.tally());
    // A row of 61 with its value (1, A002186) shared falsely as 5.
    shared.set_value(Packed([61, 0, 0]), 5);
    assert_eq!(memo.grundy(&rules, &61), Ok(1));
    assert_eq!(searching(&shared, 0).grundy(&rules, &61), Ok(5));
}

/// A position whose fold noted too few missing parts has its options
/// listed anew, in a spare's buffers as the fold's own are: the buffers
/// go back to the spares once the position is searched, so one made anew
/// at each listing was one more spare each time (within a table of a
/// kilobyte, Cram 3 × 10 took 1.8 GB of them). Asked again and again,
/// every value forgotten in between, the spares never outnumber the
/// positions searched at once: one per pin of the row.
#[test]
fn options_listed_anew_take_a_spare_and_give_it_back() {
    let expected = kayles_values();
    let rules = Kayles {
        defer: true,
        packed: true,
    };
    let mut engine = Engine::new(DEFAULT_MAX_STATES);
    engine.set_method(Method::Search);
    engine.most_missing = 1;
    for round in 0..5 {
        assert_eq!(
            engine.grundy(&rules, &89),
            Ok(expected[89]),
            "round {round}"
        );
        assert!(
            engine.spare.len() <= 89,
            "{} spares after round {round} on a row of 89 pins",
            engine.spare.len()
        );
        assert!(engine.forget(&rules, |_| true) > 80, "round {round}");
    }
}
