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
}

/// Moves from n to n + 1 modulo a length: every position lies on a cycle.
struct Ring(u64);

impl Rules for Ring {
    type Position = u64;
    type Error = ();

    fn options(&self, n: &u64, options: &mut Options<u64>) -> std::result::Result<(), ()> {
        options.push([(n + 1) % self.0]).map_err(|_| ())
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
    // The engine stays usable after the error.
    let rules = Subtraction { take: vec![1] };
    assert_eq!(engine.grundy(&rules, &7), Ok(1));
}

#[test]
fn the_state_limit_names_the_position_being_expanded() {
    let rules = Subtraction { take: vec![1] };
    let mut engine = Engine::new(10);
    assert_eq!(
        engine.grundy(&rules, &100),
        Err(EngineError::TooManyStates {
            limit: 10,
            expanding: 91
        })
    );
    // The failed search gave its room back: a small question still fits.
    assert_eq!(engine.grundy(&rules, &5), Ok(1));
    assert_eq!(engine.states(), 6);
}

#[test]
fn a_chain_of_a_million_positions_does_not_overflow_the_stack() {
    let rules = Subtraction { take: vec![1] };
    let mut engine = Engine::new(DEFAULT_MAX_STATES);
    assert_eq!(engine.grundy(&rules, &1_000_000), Ok(0));
    assert_eq!(engine.grundy(&rules, &999_999), Ok(1));
}
