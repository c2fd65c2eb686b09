//! Periodicity of Grundy sequences, from values alone. A sequence is
//! (arithmetic-)periodic with period p, preperiod n0 and saltus s when
//! G(n + p) = G(n) + s for every n ≥ n0. What proves it depends on the game:
//!
//! - a game whose values depend only on the previous t values (subtraction
//!   games and other codes that never split a heap): a repeat of a window of
//!   t values, G(n + p) = G(n) for n0 ≤ n < n0 + t;
//! - an octal game removing at most t tokens (Guy and Smith's periodicity
//!   theorem): G(n + p) = G(n) for n0 ≤ n < 2·m + p + t, m = max(n0, 1);
//! - anything else: nothing, so the period found is reported as apparent.
//!
//! The theorem's proof pairs an option a + b of heap n + p (b ≥ m + p)
//! with the option a + (b − p) of heap n. With m = 0 that heap b − p may
//! be empty, and a + 0 is a move of n only when the digit that splits also
//! leaves one heap: octal 0.4 has G = 0, 0, 0, 1, … and no period 1. So the
//! induction starts at m = max(n0, 1), and G(p) = G(0) is compared
//! directly. A `!` digit (the two heaps differ) or a three-heap digit
//! breaks the pairing, so such codes get no proof.

use crate::program::TakeBreak;

/// Why a period holds, or how far it was seen to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proof {
    /// Each value depends on the previous `t` only.
    Window { t: usize },
    /// The octal periodicity theorem, with `t` the most tokens removed.
    OctalTheorem { t: usize },
    /// No theorem applies.
    None,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Period {
    /// The least period.
    pub period: usize,
    /// The least n from which it holds.
    pub preperiod: usize,
    /// What G(n + p) - G(n) is from there on; 0 for a pure period.
    pub saltus: i64,
    pub proven: bool,
    /// What proves it (`Proof::None` when it is only apparent).
    pub proof: Proof,
    /// The values were compared for every n below this.
    pub checked_to: usize,
}

impl Period {
    /// G(n) for any n, from the first values and the period.
    pub fn grundy(&self, values: &[u64], n: u64) -> Option<u64> {
        if let Some(&value) = values.get(usize::try_from(n).ok()?) {
            return Some(value);
        }
        let (p, n0) = (self.period as u64, self.preperiod as u64);
        let cycles = (n - n0) / p;
        let base = values[(n0 + (n - n0) % p) as usize] as i64;
        let shifted = (cycles as i64)
            .checked_mul(self.saltus)?
            .checked_add(base)?;
        u64::try_from(shifted).ok()
    }
}

/// What proves a period of a game given by a code: a code that never
/// splits a heap has each value fixed by the t before it; an octal code
/// that splits (no `!`, no three-heap digit) is covered by Guy and Smith's
/// theorem; anything else is only apparent.
pub fn proof_for(code: &TakeBreak) -> Proof {
    let Some(t) = code.largest_removal() else {
        return Proof::None;
    };
    let splits = code.digits.iter().any(|digit| digit.bits & 0b1100 != 0);
    // The digit before the point may split a heap without removing tokens
    // (4): the theorem's pairing holds for it as for any other.
    let simple_octal = code
        .digits
        .iter()
        .all(|digit| digit.bits & 0b1000 == 0 && !digit.distinct);
    match (splits, simple_octal) {
        (false, _) => Proof::Window { t },
        (true, true) => Proof::OctalTheorem { t },
        (true, false) => Proof::None,
    }
}

/// The least period of `values` that `proof` proves, or, with no proof to
/// be had, the least that the values show convincingly (repeated at least
/// four times over at least 64 values). `None` when there is none yet.
pub fn find(values: &[u64], proof: Proof) -> Option<Period> {
    let n = values.len();
    for p in 1..=n / 2 {
        let Some((preperiod, saltus)) = tail(values, p) else {
            continue;
        };
        let checked = n - p;
        let (needed, proven) = match proof {
            // One value past the window: a heap of exactly t tokens may
            // also be taken whole, so the rule is uniform only above t.
            Proof::Window { t } if saltus == 0 => (preperiod + t + 1, true),
            // The induction starts at heap 1 at the least: see the top.
            Proof::OctalTheorem { t } if saltus == 0 => (2 * preperiod.max(1) + p + t, true),
            _ => (preperiod + (4 * p).max(64), false),
        };
        if checked >= needed {
            return Some(Period {
                period: p,
                preperiod,
                saltus,
                proven,
                proof: if proven { proof } else { Proof::None },
                checked_to: if proven { needed } else { checked },
            });
        }
    }
    None
}

/// For period p: the least n0 such that G(n + p) - G(n) is the same for
/// every n0 ≤ n < len - p, and that difference.
fn tail(values: &[u64], p: usize) -> Option<(usize, i64)> {
    let n = values.len();
    let difference = |m: usize| values[m + p] as i64 - values[m] as i64;
    let saltus = difference(n - p - 1);
    let mut start = n - p - 1;
    while start > 0 && difference(start - 1) == saltus {
        start -= 1;
    }
    // A sequence growing by a saltus needs a few periods to be believed.
    (saltus == 0 || n - p - start >= 2 * p).then_some((start, saltus))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pure_period_after_a_preperiod() {
        // 5 9 | 0 1 2, 0 1 2, …
        let values: Vec<u64> = [5, 9].into_iter().chain((0..300).map(|n| n % 3)).collect();
        let period = find(&values, Proof::Window { t: 3 }).unwrap();
        assert_eq!((period.period, period.preperiod, period.saltus), (3, 2, 0));
        assert!(period.proven);
        assert_eq!(
            period.grundy(&values, 1_000_000_000_000_000_002),
            Some(1_000_000_000_000_000_000 % 3)
        );
    }

    #[test]
    fn nim_is_arithmetic_periodic_with_saltus_one() {
        let values: Vec<u64> = (0..256).collect();
        let period = find(&values, Proof::None).unwrap();
        assert_eq!(
            (
                period.period,
                period.preperiod,
                period.saltus,
                period.proven
            ),
            (1, 0, 1, false)
        );
    }

    #[test]
    fn the_octal_theorem_needs_twice_the_preperiod() {
        let mut values: Vec<u64> = (0..200).map(|n| n % 4).collect();
        values[40] = 9;
        // n0 = 41, p = 4, t = 3: compared up to 2·41 + 4 + 3 = 89.
        let period = find(&values[..94], Proof::OctalTheorem { t: 3 }).unwrap();
        assert_eq!(
            (period.period, period.preperiod, period.checked_to),
            (4, 41, 89)
        );
        assert!(find(&values[..92], Proof::OctalTheorem { t: 3 }).is_none());
    }

    #[test]
    fn the_octal_theorem_starts_its_induction_at_heap_one() {
        // Octal 0.4 begins 0, 0, 0, 1: three values look like period 1
        // from 0, which the theorem may not prove from n0 = 0 (heap 3's
        // split 1 + 1 has no counterpart at heap 2).
        assert_eq!(find(&[0, 0, 0], Proof::OctalTheorem { t: 1 }), None);
        // Four equal values past the needed 2·1 + 1 + 1 prove it.
        let period = find(&[0, 0, 0, 0, 0], Proof::OctalTheorem { t: 1 }).unwrap();
        assert_eq!(
            (period.period, period.preperiod, period.checked_to),
            (1, 0, 4)
        );
        assert!(period.proven);
    }

    #[test]
    fn no_period_in_too_few_values() {
        let values = [0, 1, 0, 2, 1, 3];
        assert_eq!(find(&values, Proof::None), None);
    }
}
