//! Codes whose moves from some removal on are all alike and leave at most
//! one heap: `subtraction all but {2, 5}` (take any number of tokens but 2
//! or 5). Heap n's options are then the values of every heap below it (the
//! rest's moves), less those of the few removals whose digit differs (the
//! exceptions), plus the exceptions' own. The table keeps how many heaps so
//! far have each value, and the least value none has; a heap's value is
//! found from its exceptions alone, so its cost is their number, not the
//! heap's size.

use smallvec::SmallVec;

use crate::program::{Digit, TakeBreak};

#[derive(Debug, Clone)]
pub(super) struct Prefix {
    rest: Digit,
    /// The removals from 1 on whose digit differs from the rest's.
    exceptions: Vec<(usize, Digit)>,
    /// How many heaps below the next have each value, among those the
    /// rest's moves reach.
    counts: Vec<usize>,
    /// The least value no heap counted has.
    mex: usize,
}

impl Prefix {
    /// The prefix form of a code, if it has one: a rest whose moves leave
    /// at most one heap, exceptions of that kind too, and no move that
    /// removes nothing.
    pub fn of(code: &TakeBreak) -> Option<Prefix> {
        let rest = code.rest?;
        let one_heap = |digit: &Digit| digit.bits & !3 == 0;
        if !one_heap(&rest) || code.digits.first().is_some_and(|digit| digit.bits != 0) {
            return None;
        }
        let exceptions: Vec<(usize, Digit)> = (1..code.digits.len())
            .map(|k| (k, code.digits[k]))
            .filter(|&(_, digit)| digit.bits != rest.bits)
            .collect();
        exceptions
            .iter()
            .all(|(_, digit)| one_heap(digit))
            .then(|| Prefix {
                rest,
                exceptions,
                counts: Vec::new(),
                mex: 0,
            })
    }

    /// The value of heap `values.len()`, the next; counts it for the heaps
    /// after.
    pub fn next(&mut self, values: &[u64]) -> u64 {
        let n = values.len();
        // The value a move of `digit` leaves heap n with, removing k.
        let option = |digit: Digit, k: usize| match n - k {
            0 => (digit.bits & 1 != 0).then_some(0),
            left => (digit.bits & 2 != 0).then(|| values[left]),
        };
        let mut removed: SmallVec<[u64; 16]> = SmallVec::new();
        let mut added: SmallVec<[u64; 16]> = SmallVec::new();
        for &(k, digit) in self.exceptions.iter().take_while(|&&(k, _)| k <= n) {
            removed.extend(option(self.rest, k));
            added.extend(option(digit, k));
        }
        removed.sort_unstable();
        // Values whose every heap counted is one an exception takes away.
        let gone = removed.chunk_by(|a, b| a == b).filter_map(|same| {
            let value = same[0];
            (self.counts[value as usize] == same.len()).then_some(value)
        });
        let mut gone = gone.peekable();
        let mut missing = self.mex;
        let value = loop {
            let value = match gone.peek() {
                Some(&value) if (value as usize) < missing => {
                    gone.next();
                    value
                }
                _ => {
                    let value = missing as u64;
                    missing = self.next_missing(missing + 1);
                    value
                }
            };
            if !added.contains(&value) {
                break value;
            }
        };
        // Heap n is an option of every later heap through the rest, if
        // the rest leaves a heap of its size.
        let reached = match n {
            0 => self.rest.bits & 1 != 0,
            _ => self.rest.bits & 2 != 0,
        };
        if reached {
            let class = value as usize;
            if class >= self.counts.len() {
                self.counts.resize(class + 1, 0);
            }
            self.counts[class] += 1;
            self.mex = self.next_missing(self.mex);
        }
        value
    }

    /// The least value from `from` on that no heap counted has.
    fn next_missing(&self, from: usize) -> usize {
        (from..)
            .find(|&value| self.counts.get(value).is_none_or(|&count| count == 0))
            .unwrap_or(from)
    }
}
