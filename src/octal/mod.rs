//! Values of take-and-break games, heap by heap, without the general
//! engine: a dense table, and for moves that split a heap in two the
//! rare/common ("sparse space") method of Gangolli and Plambeck, as used by
//! Flammenkamp for octal games.
//!
//! Values are classed by the parity of their bits under a mask: *common*
//! when odd, *rare* when even (0 is always rare). XOR adds parities, so a
//! split into two common heaps has a rare value, and only a split with a
//! rare part can have a common value. The mask is chosen, and rechosen as
//! the table grows, so that few heaps have rare values (for Grundy's game,
//! 1,273 of the first million). For heap n:
//!
//! 1. the splits with a rare part are listed from the few rare heaps; the
//!    least common value c not among them is the value, unless a rare
//!    value below c is no option either;
//! 2. the rare values below c not listed must come from splits into two
//!    common heaps: the splits are marked, a block at a time in a
//!    scattered order, until each is found. One not found after every
//!    split is the least missing value, and the value.
//!
//! Any mask gives the same values (with mask 0 every value is rare and the
//! method is the naive one); a good mask only gives them faster. The values
//! are checked against [`naive`].

mod batch;

use batch::{Ahead, BATCH, Batch};

use crate::engine::Stopped;
use crate::lower::ir::{Digit, TakeBreak};

/// The values of a code's heaps 0, 1, 2, …, computed on demand.
#[derive(Debug, Clone)]
pub struct Table {
    code: TakeBreak,
    /// The removals with a move, in increasing order, for a code of
    /// finitely many digits: a heap's cost is its moves, not the largest
    /// removal (`subtraction {1, 2, 500000}`).
    removals: Vec<usize>,
    values: Vec<u64>,
    /// The values again, in as few bytes each as they all fit.
    narrow: Narrow,
    rare: Rare,
    /// How many heaps have each value.
    counts: Vec<usize>,
    /// Scratch: which values are known to be options of the current heap.
    seen: Seen,
    /// Scratch: rare values below the least common one missing, to be
    /// found among the splits into two common heaps.
    wanted: Vec<u64>,
    /// Scratch: the sizes left to split in two, and whether the two parts
    /// must differ.
    lefts: Vec<(usize, bool)>,
    blocks: Blocks,
    /// The splits with a rare part of the current batch of heaps, when
    /// they were listed together.
    batch: Option<Batch>,
    /// Heaps to go from which a second thread lists batches ahead.
    ahead_from: usize,
}

/// The values of a table as read by its loops: bytes while they all fit
/// (splits are then read eight at a time and batches listed), else 16 bits
/// while they fit, else the table's own.
#[derive(Debug, Clone)]
enum Narrow {
    Bytes(Vec<u8>),
    Shorts(Vec<u16>),
    Wide,
}

impl Narrow {
    fn push(&mut self, value: u64) {
        match self {
            Narrow::Bytes(values) => match u8::try_from(value) {
                Ok(value) => values.push(value),
                Err(_) => {
                    let values = values.iter().map(|&value| u16::from(value)).collect();
                    *self = Narrow::Shorts(values);
                    self.push(value);
                }
            },
            Narrow::Shorts(values) => match u16::try_from(value) {
                Ok(value) => values.push(value),
                Err(_) => *self = Narrow::Wide,
            },
            Narrow::Wide => {}
        }
    }
}

/// Runs a generic loop over a table's values, read as narrow as they are.
macro_rules! narrowly {
    ($table:expr, |$values:ident| $body:expr) => {
        match &$table.narrow {
            Narrow::Bytes($values) => $body,
            Narrow::Shorts($values) => $body,
            Narrow::Wide => {
                let $values = &$table.values;
                $body
            }
        }
    };
}

/// The heaps whose values are rare under a mask (even parity of the
/// masked bits), in order, and their values.
#[derive(Debug, Clone, Default)]
struct Rare {
    mask: u64,
    heaps: Vec<u32>,
    values: Vec<u64>,
    /// Whether each value is common, for the smallest values.
    commons: Vec<bool>,
}

impl Rare {
    fn push(&mut self, heap: usize, value: u64) {
        if is_rare(self.mask, value) {
            self.heaps.push(heap as u32);
            self.values.push(value);
        }
    }

    /// Classes every value anew under `mask`.
    fn remask<V: Copy + Into<u64>>(&mut self, mask: u64, values: &[V]) {
        *self = Rare {
            mask,
            ..Rare::default()
        };
        for (heap, &value) in values.iter().enumerate() {
            self.push(heap, value.into());
        }
    }

    /// Keeps up with `values`, of which those from `from` are new, under
    /// `mask`.
    fn follow<V: Copy + Into<u64>>(&mut self, mask: u64, values: &[V], from: usize) {
        match mask == self.mask {
            true => {
                for (heap, &value) in values.iter().enumerate().skip(from) {
                    self.push(heap, value.into());
                }
            }
            false => self.remask(mask, values),
        }
    }

    /// Whether each value below `len` at least is common.
    fn commons(&mut self, len: usize) -> &[bool] {
        if self.commons.len() < len {
            let mask = self.mask;
            self.commons = (0..len as u64).map(|value| !is_rare(mask, value)).collect();
        }
        &self.commons
    }

    /// The index of the first rare heap from `bound` on.
    fn below(&self, bound: usize) -> usize {
        self.heaps.partition_point(|&heap| (heap as usize) < bound)
    }
}

/// Heaps between two calls of the watcher.
const WATCH_EVERY: usize = 1024;

/// Heaps to go from which a table starts a second thread to list batches
/// ahead (fewer are done before the thread would start).
const AHEAD_FROM: usize = 4096;

/// Splits marked between two looks at the values still wanted.
const CHUNK: usize = 128;

/// Values wanted so few that each split is compared with them rather than
/// marked.
const FEW: usize = 8;

impl Table {
    pub fn new(code: TakeBreak) -> Self {
        let removals = match code.rest {
            Some(_) => Vec::new(),
            None => (0..code.digits.len())
                .filter(|&k| code.digits[k].bits != 0)
                .collect(),
        };
        Table {
            code,
            removals,
            values: Vec::new(),
            narrow: Narrow::Bytes(Vec::new()),
            rare: Rare::default(),
            counts: Vec::new(),
            seen: Seen::default(),
            wanted: Vec::new(),
            lefts: Vec::new(),
            blocks: Blocks::default(),
            batch: None,
            // With one core, the second thread would only take turns.
            ahead_from: match std::thread::available_parallelism() {
                Ok(cores) if cores.get() > 1 => AHEAD_FROM,
                _ => usize::MAX,
            },
        }
    }

    pub fn values(&self) -> &[u64] {
        &self.values
    }

    /// Extends the table through heap `n`. `watch` is told of the heaps
    /// done now and then, and stops the work by answering `false`; whatever
    /// the table reached stays.
    pub fn extend_to(
        &mut self,
        n: usize,
        watch: &mut dyn FnMut(usize) -> bool,
    ) -> Result<(), Stopped> {
        let to_go = (n + 1).saturating_sub(self.values.len());
        match to_go >= self.ahead_from && Batch::possible(&self.code, n) {
            true => std::thread::scope(|scope| {
                let mut ahead = Ahead::start(scope, self.code.clone());
                self.extend(n, watch, Some(&mut ahead))
            }),
            false => self.extend(n, watch, None),
        }
    }

    fn extend(
        &mut self,
        n: usize,
        watch: &mut dyn FnMut(usize) -> bool,
        mut ahead: Option<&mut Ahead>,
    ) -> Result<(), Stopped> {
        self.values
            .reserve((n + 1).saturating_sub(self.values.len()));
        while self.values.len() <= n {
            let heap = self.values.len();
            if heap.is_multiple_of(WATCH_EVERY) && !watch(heap) {
                return Err(Stopped);
            }
            if heap.is_power_of_two() && heap >= 64 {
                self.choose_mask();
            }
            // A batch keeps one mask: it ends before the next power of two.
            let segment = (n + 1).min((heap + 1).next_power_of_two());
            let batch = self.batch.as_ref().map(|batch| batch.first);
            if batch.is_none_or(|first| heap >= first + BATCH) && heap + BATCH <= segment {
                self.start_batch(heap, ahead.as_deref_mut());
                // The next batch is listed ahead, from the values so far.
                if let (Some(ahead), Narrow::Bytes(values)) = (&mut ahead, &self.narrow)
                    && heap + 2 * BATCH <= segment
                    && Batch::possible(&self.code, heap + BATCH)
                {
                    ahead.ask(heap + BATCH, self.rare.mask, values);
                }
            }
            let value = self.next_value();
            self.rare.push(heap, value);
            let class = value as usize;
            if class >= self.counts.len() {
                self.counts.resize(class + 1, 0);
            }
            self.counts[class] += 1;
            self.values.push(value);
            self.narrow.push(value);
        }
        Ok(())
    }

    /// The batch from `first`: listed ahead, or listed now if it can be.
    fn start_batch(&mut self, first: usize, ahead: Option<&mut Ahead>) {
        self.batch = ahead.and_then(|ahead| ahead.take(first));
        if self.batch.is_none()
            && let Narrow::Bytes(values) = &self.narrow
            && Batch::possible(&self.code, first)
        {
            let listed = (&self.rare, &mut self.blocks);
            self.batch = Some(Batch::list(&self.code, values, listed, first));
        }
    }

    /// Picks the mask under which the fewest values so far are rare.
    fn choose_mask(&mut self) {
        let bits = usize::BITS - self.counts.len().leading_zeros();
        let rare_count = |mask: u64| -> usize {
            let counts = self.counts.iter().enumerate();
            counts
                .filter(|&(value, _)| is_rare(mask, value as u64))
                .map(|(_, count)| count)
                .sum()
        };
        let masks = 1u64..(1u64 << bits.min(12));
        let best = masks.min_by_key(|&mask| rare_count(mask)).unwrap_or(0);
        if rare_count(best) < rare_count(self.rare.mask) {
            self.rare.remask(best, &self.values);
        }
    }

    /// The value of the next heap.
    fn next_value(&mut self) -> u64 {
        let mut lefts = std::mem::take(&mut self.lefts);
        let value = self.value_splitting(&mut lefts);
        self.lefts = lefts;
        value
    }

    /// The value of the next heap, listing in `lefts` what its moves leave
    /// to split in two.
    fn value_splitting(&mut self, lefts: &mut Vec<(usize, bool)>) -> u64 {
        let n = self.values.len();
        // Every XOR of two values is below the next power of two past the
        // largest, so no mark below grows the set.
        self.seen
            .reset(self.counts.len().next_power_of_two().max(64));
        // The splits with a rare part listed with the batch, if any.
        let batch = self
            .batch
            .as_ref()
            .filter(|batch| (batch.first..batch.first + BATCH).contains(&n));
        if let Some(batch) = batch {
            let marks = &batch.marks[n - batch.first];
            let room = self.seen.marks.len().min(marks.len());
            self.seen.marks[..room].copy_from_slice(&marks[..room]);
        }
        lefts.clear();
        // How many options there are, at most: the value is no more.
        let mut options = 0u64;
        let last = last_removal(&self.code, n);
        let every = 0..=last;
        let listed = self.removals.iter().copied().take_while(|&k| k <= last);
        let removals: &mut dyn Iterator<Item = usize> = match self.code.rest {
            Some(_) => &mut { every },
            None => &mut { listed },
        };
        for k in removals {
            let Digit { bits, distinct } = self.code.digit(k);
            let left = n - k;
            if bits & 1 != 0 && left == 0 {
                self.seen.mark(0);
                options += 1;
            }
            if bits & 2 != 0 && left >= 1 {
                self.seen.mark(self.values[left]);
                options += 1;
            }
            if bits & 4 != 0 && left >= 2 {
                lefts.push((left, distinct));
                options += left as u64 / 2;
            }
            if bits & 8 != 0 {
                for (a, b, c) in triples(left, distinct) {
                    let values = &self.values;
                    self.seen.mark(values[a] ^ values[b] ^ values[c]);
                    options += 1;
                }
            }
        }
        // Every split with a rare part, listed from the rare heaps (those
        // the batch did not list).
        for &(left, distinct) in lefts.iter() {
            let below = self.rare.below(left);
            let listed = match batch {
                Some(batch) => batch.ranges(&self.rare, left - (n - batch.first), distinct),
                None => [0..0, 0..0],
            };
            let ranges = [
                0..listed[0].start,
                listed[0].end..listed[1].start,
                listed[1].end..below,
            ];
            for range in ranges {
                let rare = (&self.rare.heaps[range.clone()], &self.rare.values[range]);
                let seen = &mut self.seen;
                narrowly!(self, |values| list_rare(seen, rare, values, left, distinct));
            }
        }
        // The least common value not listed is the value, unless a rare
        // value below it is missing too: those must come from splits into
        // two common heaps, which are looked for. (The value is at most the
        // number of options, so the search for a common one stops there:
        // under mask 0 no value is common.)
        let marks = &self.seen.marks;
        let common = match least_unmarked(marks, self.rare.commons(marks.len())) {
            Some(value) => (value as u64).min(options),
            None => (marks.len() as u64..options)
                .find(|&value| !is_rare(self.rare.mask, value))
                .unwrap_or(options),
        };
        // Every value below it not listed is rare: those are wanted.
        self.wanted.clear();
        let marks = &self.seen.marks;
        let listed = &marks[..marks.len().min(common as usize)];
        for (i, marks) in listed.chunks(16).enumerate() {
            let mut unmarked = unmarked_among(marks, |_| true);
            while unmarked != 0 {
                let value = 16 * i + unmarked.trailing_zeros() as usize;
                self.wanted.push(value as u64);
                unmarked &= unmarked - 1;
            }
        }
        self.wanted.extend(listed.len() as u64..common);
        if self.wanted.is_empty() {
            return common;
        }
        // The splits, until every value wanted is found.
        let skip = batch.map_or(0, |batch| batch.marked);
        for &(left, distinct) in lefts.iter() {
            let blocks = (self.blocks.of(last_part(left, distinct)), skip);
            let (seen, wanted) = (&mut self.seen, &mut self.wanted);
            narrowly!(self, |values| look_for(seen, wanted, values, left, blocks));
            if self.wanted.is_empty() {
                return common;
            }
        }
        // A wanted value no split gives: the least is the value.
        self.wanted[0]
    }
}

/// The least value not marked among those of a class, as far as `marks`
/// and the class both reach; sixteen values at a time.
fn least_unmarked(marks: &[bool], class: &[bool]) -> Option<usize> {
    let chunks = marks.chunks(16).zip(class.chunks(16));
    for (i, (marks, class)) in chunks.enumerate() {
        let missing = unmarked_among(marks, |j| class[j]);
        if missing != 0 {
            return Some(16 * i + missing.trailing_zeros() as usize);
        }
    }
    None
}

/// Which of (at most 32) marks are not set among those `member` picks, as
/// the bits of a word: one pass with no branch.
#[inline(always)]
fn unmarked_among(marks: &[bool], member: impl Fn(usize) -> bool) -> u32 {
    let marks = marks.iter().enumerate();
    marks.fold(0, |unmarked, (j, &marked)| {
        unmarked | u32::from(member(j) && !marked) << j
    })
}

/// Marks the values of the splits of `left` with a rare part, given the
/// rare heaps below `left` and their values.
fn list_rare<V: Copy + Into<u64>>(
    seen: &mut Seen,
    (heaps, rare_values): (&[u32], &[u64]),
    values: &[V],
    left: usize,
    distinct: bool,
) {
    let marks = seen.marks.as_mut_slice();
    for (&heap, &value) in heaps.iter().zip(rare_values) {
        let (heap, other) = (heap as usize, left - heap as usize);
        if heap >= 1 && !(distinct && heap == other) {
            mark_in(marks, value ^ values[other].into());
        }
    }
}

/// The parts `a` of the splits of a size into `a` and `size - a`, for `a`
/// in `1..=last`, in blocks of [`CHUNK`] visited in a scattered order (a
/// stride near the golden section of their number, prime to it, so that
/// each comes once): values wanted are found about twice as fast as from
/// one end, since the parts of nearby splits have much the same values.
/// The first block is the one of the smallest parts. The stride for each
/// number of blocks is worked out once.
#[derive(Debug, Clone, Default)]
struct Blocks {
    strides: Vec<usize>,
}

impl Blocks {
    fn of(&mut self, last: usize) -> impl Iterator<Item = (usize, usize)> + use<> {
        let blocks = last.div_ceil(CHUNK);
        if blocks >= self.strides.len() {
            self.strides.resize(blocks + 1, 0);
        }
        if self.strides[blocks] == 0 {
            let mut stride = (blocks as f64 * 0.618) as usize | 1;
            while gcd(stride, blocks) > 1 {
                stride += 1;
            }
            self.strides[blocks] = stride;
        }
        let stride = self.strides[blocks] % blocks.max(1);
        let mut next = 0;
        (0..blocks).map(move |_| {
            let block = next;
            next += stride;
            if next >= blocks {
                next -= blocks;
            }
            (1 + block * CHUNK, last.min((block + 1) * CHUNK))
        })
    }
}

/// The last part `a` of the splits of `left` into `a ≤ left - a` (and
/// `a < left - a` if the two must differ).
fn last_part(left: usize, distinct: bool) -> usize {
    match distinct && left.is_multiple_of(2) {
        true => left / 2 - 1,
        false => left / 2,
    }
}

/// The values of the splits of `left` into `a` and `left - a` for `a` in
/// `first..=end`, a block at most.
#[inline(always)]
fn xor_block<'a, V>(
    values: &[V],
    left: usize,
    (first, end): (usize, usize),
    splits: &'a mut [V; CHUNK],
) -> &'a [V]
where
    V: Copy + std::ops::BitXor<Output = V>,
{
    let small = &values[first..=end];
    let large = &values[left - end..=left - first];
    // A whole block (all but the last) in a loop of known length, in
    // vector instructions with no loop for the rest.
    if let (Ok(small), Ok(large)) = (
        <&[V; CHUNK]>::try_from(small),
        <&[V; CHUNK]>::try_from(large),
    ) {
        for (i, split) in splits.iter_mut().enumerate() {
            *split = small[i] ^ large[CHUNK - 1 - i];
        }
        return splits;
    }
    for ((split, &x), &y) in splits.iter_mut().zip(small).zip(large.iter().rev()) {
        *split = x ^ y;
    }
    &splits[..small.len()]
}

/// Marks the values of the splits of `left` into `a` and `left - a`, for
/// `a` in `blocks` (see [`Blocks`]; the `skip` after the first were marked
/// with the batch), until every value in `wanted` is marked; removes those
/// marked from `wanted`.
fn look_for<V>(
    seen: &mut Seen,
    wanted: &mut Vec<u64>,
    values: &[V],
    left: usize,
    (blocks, skip): (impl Iterator<Item = (usize, usize)>, usize),
) where
    V: Copy + Default + Into<u64> + TryFrom<u64> + PartialEq + std::ops::BitXor<Output = V>,
{
    let marks = seen.marks.as_mut_slice();
    let unmarked = blocks.enumerate().filter(|&(i, _)| i == 0 || i > skip);
    for (_, block) in unmarked {
        if wanted.is_empty() {
            break;
        }
        // The XORs first, then the marks: the loads and the stores apart.
        let mut splits = [V::default(); CHUNK];
        let splits = xor_block(values, left, block, &mut splits);
        if wanted.len() > FEW {
            for &split in splits {
                mark_in(marks, split.into());
            }
            // Without a branch per value: whether each is kept is a toss-up.
            let mut kept = 0;
            for i in 0..wanted.len() {
                let value = wanted[i];
                wanted[kept] = value;
                kept += usize::from(!marks.get(value as usize).copied().unwrap_or(false));
            }
            wanted.truncate(kept);
        } else {
            // Few values wanted: compared with every split, in vector
            // instructions, instead of marking each.
            wanted.retain(|&value| {
                let Ok(value) = V::try_from(value) else {
                    return true;
                };
                !splits
                    .iter()
                    .fold(false, |found, &split| found | (split == value))
            });
        }
    }
}

fn gcd(a: usize, b: usize) -> usize {
    match b {
        0 => a,
        _ => gcd(b, a % b),
    }
}

/// Marks a value in a set made room enough for it by [`Seen::reset`]: an
/// XOR of two values is below the room, a power of two past them all.
#[inline(always)]
fn mark_in(marks: &mut [bool], value: u64) {
    debug_assert!((value as usize) < marks.len(), "room for {value}");
    if let Some(mark) = marks.get_mut(value as usize) {
        *mark = true;
    }
}

/// A set of small values, a byte per value: marking one is a store, with
/// no read to wait for.
#[derive(Debug, Clone, Default)]
struct Seen {
    marks: Vec<bool>,
}

impl Seen {
    /// Empties the set, with room for values below `room` at least.
    fn reset(&mut self, room: usize) {
        self.marks.fill(false);
        if self.marks.len() < room {
            self.marks.resize(room, false);
        }
    }

    #[inline]
    fn mark(&mut self, value: u64) {
        match self.marks.get_mut(value as usize) {
            Some(mark) => *mark = true,
            None => self.grow(value),
        }
    }

    #[cold]
    fn grow(&mut self, value: u64) {
        self.marks.resize(value as usize + 1, false);
        self.marks[value as usize] = true;
    }

    /// The least value not marked: the mex.
    fn least_missing(&self) -> u64 {
        let marks = &self.marks;
        marks.iter().position(|&seen| !seen).unwrap_or(marks.len()) as u64
    }
}

/// The values of heaps 0..=n by the definition alone: every option listed,
/// then the mex. The reference the fast table is checked against.
pub fn naive(code: &TakeBreak, n: usize) -> Vec<u64> {
    let mut values: Vec<u64> = Vec::with_capacity(n + 1);
    let mut seen = Seen::default();
    for heap in 0..=n {
        seen.reset(2 * heap + 2);
        for k in 0..=last_removal(code, heap) {
            let Digit { bits, distinct } = code.digit(k);
            let left = heap - k;
            if bits & 1 != 0 && left == 0 {
                seen.mark(0);
            }
            if bits & 2 != 0 && left >= 1 {
                seen.mark(values[left]);
            }
            if bits & 4 != 0 {
                for a in 1..=left / 2 {
                    if !(distinct && a == left - a) {
                        seen.mark(values[a] ^ values[left - a]);
                    }
                }
            }
            if bits & 8 != 0 {
                for (a, b, c) in triples(left, distinct) {
                    seen.mark(values[a] ^ values[b] ^ values[c]);
                }
            }
        }
        values.push(seen.least_missing());
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
            let naive = naive(&code, 3000);
            let mut table = Table::new(code.clone());
            table.extend_to(3000, &mut |_| true).unwrap();
            assert_eq!(table.values(), naive, "code {text}");
            // Values past 16 bits are read wide; the same, more slowly.
            let mut wide = Table::new(code);
            wide.narrow = Narrow::Wide;
            wide.extend_to(3000, &mut |_| true).unwrap();
            assert_eq!(wide.values(), naive, "code {text}, wide");
        }
    }

    /// Batches listed on a second thread, a batch ahead (from the first
    /// heap on), give the same values, for codes with splits after several
    /// removals, parts that must differ, and values that outgrow a byte.
    #[test]
    fn batches_listed_ahead_agree_with_the_definition() {
        let mut outgrown = false;
        for text in [
            "0.77", "0.07", "0.137", "4!.0", "0.6", "0.51", "4.07", "0.4!7", "4.4",
        ] {
            let code = code(text);
            let naive = naive(&code, 3000);
            let mut table = Table::new(code.clone());
            table.ahead_from = 0;
            table.extend_to(3000, &mut |_| true).unwrap();
            assert_eq!(table.values(), naive, "code {text}");
            outgrown |= naive.iter().any(|&value| value > 255);
        }
        assert!(outgrown, "a code's values outgrow a byte");
    }

    /// A table extended bit by bit, past the first heaps with the second
    /// thread, agrees with one extended at once.
    #[test]
    fn tables_extended_in_steps_agree() {
        let code = code("4!.0");
        let mut steps = Table::new(code.clone());
        steps.ahead_from = 0;
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
        let mut table = Table::new(code.clone());
        let mut told = Vec::new();
        let mut watch = |heaps: usize| {
            told.push(heaps);
            heaps < 3000
        };
        assert_eq!(table.extend_to(100_000, &mut watch), Err(Stopped));
        assert_eq!(told, [0, 1024, 2048, 3072]);
        assert_eq!(table.values(), naive(&code, 3071));
    }
}
