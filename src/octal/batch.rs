//! The splits with a rare part of 32 heaps at once: for a rare heap r,
//! the other parts of heaps n, n + 1, … are side by side in the table, and
//! one read serves them all. With them, the first blocks of splits into two
//! common heaps that each heap looks through (see [`super::Blocks`]). A
//! batch may be listed before the heaps just below it are known (by a
//! thread of a round, see [`super::rounds`]): it then lists the splits
//! whose parts are known.

use std::ops::Range;

use super::{Blocks, CHUNK, Rare, last_part, xor_parts};
use crate::program::{Digit, TakeBreak};

/// Heaps listed together.
pub(super) const BATCH: usize = 32;

/// For each heap of a batch, which values below 256 its splits have.
pub(super) type Marks = [[bool; 256]; BATCH];

/// Blocks of splits into two parts marked with a batch, after the first:
/// nearly every heap looks through more than these to find the values it
/// wants, and marking them for the batch at once saves each heap a look
/// at the values still wanted.
const MARKED: usize = 2;

/// The splits with a rare part of heaps `first .. first + BATCH` whose
/// rare part is one of the rare heaps from `lowest` that were known when
/// the batch was listed (those below `known`). The other parts are then
/// all below `known` too; the heap's own listing does the rest. With them,
/// the splits into two parts of blocks 1 to `marked` (of the order of
/// [`super::Blocks`]), whose parts are all below `known` too.
#[derive(Debug, Clone)]
pub(super) struct Batch {
    pub first: usize,
    lowest: usize,
    known: usize,
    pub marks: Box<Marks>,
    pub marked: usize,
}

impl Batch {
    /// Whether a batch from `first` can be listed (from values in bytes):
    /// the code's removals bounded, and the heaps large enough that the
    /// rare parts listed are the most of them.
    pub fn possible(code: &TakeBreak, first: usize) -> bool {
        code.largest_removal()
            .is_some_and(|largest| first >= largest + 2 * BATCH)
    }

    /// Lists the batch from `first` from the values below `known` (at most
    /// `first`) and the rare heaps among them.
    pub fn list(
        code: &TakeBreak,
        values: &[u8],
        (rare, blocks): (&Rare, &mut Blocks),
        first: usize,
    ) -> Batch {
        let known = values.len();
        debug_assert!(Batch::possible(code, first) && known <= first);
        let mut batch = Batch {
            first,
            lowest: first + BATCH - known,
            known,
            marks: Box::new([[false; 256]; BATCH]),
            marked: MARKED,
        };
        for k in 0..=code.largest_removal().unwrap_or(0) {
            let Digit { bits, distinct } = code.digit(k);
            if bits & 4 == 0 {
                continue;
            }
            let left0 = first - k;
            for range in batch.ranges(rare, left0, distinct) {
                let listed = rare.heaps[range.clone()].iter().zip(&rare.values[range]);
                for (&heap, &value) in listed {
                    let start = left0 - heap as usize;
                    let others = &values[start..start + BATCH];
                    mark_batch(&mut batch.marks, others, value as u8);
                }
            }
            for (j, marks) in batch.marks.iter_mut().enumerate() {
                let left = left0 + j;
                let mut splits = [0; CHUNK];
                // The parts a with left - a known.
                let least = (left + 1).saturating_sub(known);
                let last = last_part(left, distinct);
                let marked = blocks.of(last).skip(1).take(MARKED);
                for (start, end) in marked {
                    if start.max(least) > end {
                        continue;
                    }
                    let block = (start.max(least), end);
                    let splits = xor_parts(values, left, block, (least, last), &mut splits);
                    for &split in splits {
                        marks[usize::from(split)] = true;
                    }
                }
            }
        }
        batch
    }

    /// The rare heaps listed (as ranges of their indices in `rare`) for the
    /// splits of `left0` (what a move leaves the batch's first heap), and of
    /// `left0 + j` for its heap j: those from `lowest`, below `known` and
    /// `left0`, less (when the parts must differ) those that are half of
    /// some heap's size left.
    pub fn ranges(&self, rare: &Rare, left0: usize, distinct: bool) -> [Range<usize>; 2] {
        let first = rare.below(self.lowest);
        let end = rare.below(self.known.min(left0)).max(first);
        let (low, high) = match distinct {
            true => {
                let half = |bound: usize| {
                    let heaps = &rare.heaps;
                    heaps
                        .partition_point(|&heap| 2 * (heap as usize) < bound)
                        .clamp(first, end)
                };
                (half(left0), half(left0 + BATCH))
            }
            false => (end, end),
        };
        [first..low, high..end]
    }
}

/// Marks `others[j] ^ value` for heap j, eight heaps to a word: the
/// values are read and XORed eight at a time, and each mark is a store.
#[inline(always)]
fn mark_batch(marks: &mut Marks, others: &[u8], value: u8) {
    let spread = u64::from(value) * 0x0101_0101_0101_0101;
    for (others, marks) in others.chunks_exact(8).zip(marks.chunks_exact_mut(8)) {
        let word = u64::from_le_bytes(others.try_into().expect("eight values"));
        let xors = (word ^ spread).to_le_bytes();
        for (marks, &xor) in marks.iter_mut().zip(&xors) {
            marks[usize::from(xor)] = true;
        }
    }
}
