//! Values of take-and-break games, heap by heap, without the general
//! engine: a dense table, and for moves that split a heap in two the
//! rare/common ("sparse space") method of Gangolli and Plambeck, as used by
//! Flammenkamp for octal games.
//!
//! Values are classed by the parity of their bits under a mask: *common*
//! when odd, *rare* when even (0 is always rare). XOR adds parities, so a
//! split into two common heaps has a rare value, and only a split with a
//! rare part can have a common value. The mask is chosen, and rechosen as
//! the table grows, so that few heaps have rare values; then, for heap n,
//! the splits with a rare part are listed from the few rare heaps, and
//! candidate values are tried in order. A common candidate not listed is
//! the mex at once. A rare candidate is looked for among all splits, where
//! it is almost always found quickly: common ⊕ common pairs are many and
//! cover the small rare values densely. Any mask gives the same values (with
//! mask 0 every value is rare and the method is the naive one); a good mask
//! only gives them faster. The values are checked against [`naive`].

use crate::lower::ir::{Digit, TakeBreak};

/// The values of a code's heaps 0, 1, 2, …, computed on demand.
#[derive(Debug, Clone)]
pub struct Table {
    code: TakeBreak,
    values: Vec<u64>,
    mask: u64,
    /// The heaps whose values are rare (even under the mask), in order.
    rare: Vec<usize>,
    /// Scratch: which values are known to be options of the current heap.
    seen: Vec<bool>,
}

impl Table {
    pub fn new(code: TakeBreak) -> Self {
        Table {
            code,
            values: Vec::new(),
            mask: 0,
            rare: Vec::new(),
            seen: Vec::new(),
        }
    }

    pub fn values(&self) -> &[u64] {
        &self.values
    }

    /// Extends the table through heap `n`.
    pub fn extend_to(&mut self, n: usize) {
        while self.values.len() <= n {
            if self.values.len().is_power_of_two() && self.values.len() >= 64 {
                self.choose_mask();
            }
            let value = self.next_value();
            if self.is_rare(value) {
                self.rare.push(self.values.len());
            }
            self.values.push(value);
        }
    }

    fn is_rare(&self, value: u64) -> bool {
        is_rare(self.mask, value)
    }

    /// Picks the mask under which the fewest values so far are rare.
    fn choose_mask(&mut self) {
        let largest = self.values.iter().copied().max().unwrap_or(0);
        let bits = 64 - largest.leading_zeros();
        let rare_count = |mask: u64| {
            let values = self.values.iter();
            values.filter(|&&value| !parity(value & mask)).count()
        };
        let masks = 1u64..(1u64 << bits.min(10));
        let best = masks.min_by_key(|&mask| rare_count(mask)).unwrap_or(0);
        if rare_count(best) < rare_count(self.mask) {
            self.mask = best;
            let values = &self.values;
            self.rare = (0..values.len())
                .filter(|&heap| !parity(values[heap] & best))
                .collect();
        }
    }

    /// The value of the next heap.
    fn next_value(&mut self) -> u64 {
        let n = self.values.len();
        // Only as long as the largest value marked so far: values stay small.
        self.seen.fill(false);
        let mut pairs: Vec<(usize, bool)> = Vec::new();
        for k in 0..=last_removal(&self.code, n) {
            let Digit { bits, distinct } = self.code.digit(k);
            let left = n - k;
            if bits & 1 != 0 && left == 0 {
                mark(&mut self.seen, 0);
            }
            if bits & 2 != 0 && left >= 1 {
                mark(&mut self.seen, self.values[left]);
            }
            if bits & 4 != 0 && left >= 2 {
                pairs.push((left, distinct));
            }
            if bits & 8 != 0 {
                for (a, b, c) in triples(left, distinct) {
                    mark(
                        &mut self.seen,
                        self.values[a] ^ self.values[b] ^ self.values[c],
                    );
                }
            }
        }
        // Every split with a rare part, listed from the rare heaps.
        for &(left, distinct) in &pairs {
            for &heap in self.rare.iter().take_while(|&&heap| heap < left) {
                let other = left - heap;
                if heap >= 1 && !(distinct && heap == other) {
                    mark(&mut self.seen, self.values[heap] ^ self.values[other]);
                }
            }
        }
        // Candidates in order. A rare one not listed yet is looked for by
        // going on through all the splits, from where the last look stopped.
        let values = &self.values;
        let mut splits = pairs.iter().flat_map(|&(left, distinct)| {
            (1..=left / 2)
                .filter(move |&a| !(distinct && 2 * a == left))
                .map(move |a| values[a] ^ values[left - a])
        });
        let mut candidate = 0u64;
        loop {
            if listed(&self.seen, candidate) {
                candidate += 1;
                continue;
            }
            if !is_rare(self.mask, candidate) {
                return candidate;
            }
            loop {
                let Some(value) = splits.next() else {
                    return candidate;
                };
                mark(&mut self.seen, value);
                if value == candidate {
                    break;
                }
            }
        }
    }
}

/// The values of heaps 0..=n by the definition alone: every option listed,
/// then the mex. The reference the fast table is checked against.
pub fn naive(code: &TakeBreak, n: usize) -> Vec<u64> {
    let mut values: Vec<u64> = Vec::with_capacity(n + 1);
    let mut seen = Vec::new();
    for heap in 0..=n {
        seen.clear();
        seen.resize(2 * heap + 2, false);
        for k in 0..=last_removal(code, heap) {
            let Digit { bits, distinct } = code.digit(k);
            let left = heap - k;
            if bits & 1 != 0 && left == 0 {
                mark(&mut seen, 0);
            }
            if bits & 2 != 0 && left >= 1 {
                mark(&mut seen, values[left]);
            }
            if bits & 4 != 0 {
                for a in 1..=left / 2 {
                    if !(distinct && a == left - a) {
                        mark(&mut seen, values[a] ^ values[left - a]);
                    }
                }
            }
            if bits & 8 != 0 {
                for (a, b, c) in triples(left, distinct) {
                    mark(&mut seen, values[a] ^ values[b] ^ values[c]);
                }
            }
        }
        values.push(
            seen.iter()
                .position(|&present| !present)
                .unwrap_or(seen.len()) as u64,
        );
    }
    values
}

/// The most tokens a move from a heap of n may remove.
fn last_removal(code: &TakeBreak, n: usize) -> usize {
    code.largest_removal().map_or(n, |largest| largest.min(n))
}

/// The splits of `left` tokens into three non-empty heaps a ≤ b ≤ c.
fn triples(left: usize, distinct: bool) -> impl Iterator<Item = (usize, usize, usize)> {
    (1..=left / 3).flat_map(move |a| {
        (a..=(left - a) / 2)
            .map(move |b| (a, b, left - a - b))
            .filter(move |&(a, b, c)| !(distinct && (a == b || b == c)))
    })
}

fn mark(seen: &mut Vec<bool>, value: u64) {
    let index = value as usize;
    if index >= seen.len() {
        seen.resize(index + 1, false);
    }
    seen[index] = true;
}

fn listed(seen: &[bool], value: u64) -> bool {
    seen.get(value as usize).copied().unwrap_or(false)
}

/// Whether a value is rare under a mask: its masked bits have even parity.
fn is_rare(mask: u64, value: u64) -> bool {
    !parity(value & mask)
}

fn parity(bits: u64) -> bool {
    bits.count_ones() % 2 == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(text: &str) -> TakeBreak {
        let span = miette::SourceSpan::new(0.into(), text.len());
        crate::lower::code::take_break(text, false, span)
            .unwrap_or_else(|_| panic!("{text} is a code"))
    }

    #[test]
    fn the_fast_table_agrees_with_the_definition() {
        for text in [
            "0.77", "0.07", "0.137", "4!.0", "0.6", "0.51", "4.07", "0.4!7",
        ] {
            let code = code(text);
            let mut table = Table::new(code.clone());
            table.extend_to(3000);
            assert_eq!(table.values(), naive(&code, 3000), "code {text}");
        }
    }
}
