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
//!
//! This file holds the table and the scan of one heap, with the small
//! functions of that scan (marks, XORs of parts, blocks) beside the loops
//! that call them: one concern, kept in one file, so that they inline into
//! the hot loops. Growing many heaps at once is in [`rounds`] and
//! [`batch`]; the tests are in `tests.rs`.

mod batch;
mod prefix;
mod rounds;

use batch::{BATCH, Batch};
use prefix::Prefix;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::engine::{Stopped, Unknown};
use crate::program::{Digit, TakeBreak};

/// The values of a code's heaps 0, 1, 2, …, computed on demand.
#[derive(Debug, Clone)]
pub struct Table {
    moves: Moves,
    values: Vec<u64>,
    known: Known,
    scratch: Scratch,
    /// The splits with a rare part of the current batch of heaps, when
    /// they were listed together.
    batch: Option<Batch>,
    /// The threads that share the work of a long extension.
    threads: usize,
    /// Heaps to go from which the threads share the work (fewer are done
    /// before the threads would start).
    rounds_from: usize,
    /// How long each other thread sleeps before every third batch (by the
    /// heaps): a thread that loses its core now and then, for tests of
    /// batches taken back.
    late: std::time::Duration,
    /// For a code whose moves past a few removals are all alike and leave
    /// one heap (`subtraction all but`), the values found by prefix.
    prefix: Option<Prefix>,
}

/// A code, with the removals that have a move.
#[derive(Debug, Clone)]
struct Moves {
    code: TakeBreak,
    /// The removals with a move, in increasing order, for a code of
    /// finitely many digits: a heap's cost is its moves, not the largest
    /// removal (`subtraction {1, 2, 500000}`).
    removals: Vec<usize>,
    /// The splits examined so far, by every thread, the table's work (see
    /// [`Table::examined`]).
    examined: Arc<AtomicU64>,
    /// Set once the watcher stops the work: every thread sharing it leaves
    /// its batch at its next heap.
    stopped: Arc<AtomicBool>,
}

/// The values found so far as the loops read them, and what is known of
/// them: the table's own, and a copy for each thread that shares its work.
#[derive(Debug, Clone, Default)]
struct Known {
    /// The values, in as few bytes each as they all fit.
    narrow: Narrow,
    rare: Rare,
    /// How many heaps have each value.
    counts: Vec<usize>,
}

/// What finding one heap's value writes on the way: each thread has its
/// own.
#[derive(Debug, Clone, Default)]
struct Scratch {
    /// Which values are known to be options of the current heap.
    seen: Seen,
    /// Rare values below the least common one missing, to be found among
    /// the splits into two common heaps.
    wanted: Vec<u64>,
    /// The sizes left to split in two, and whether the two parts must
    /// differ.
    lefts: Vec<(usize, bool)>,
    blocks: Blocks,
    /// The splits examined for the current heap, not yet added to
    /// [`Moves::examined`].
    examined: u64,
}

/// The values of a table as read by its loops: bytes while they all fit
/// (splits are then read eight at a time and batches listed), else 16 bits
/// while they fit, else 64.
#[derive(Debug, Clone)]
enum Narrow {
    Bytes(Vec<u8>),
    Shorts(Vec<u16>),
    Wide(Vec<u64>),
}

impl Default for Narrow {
    fn default() -> Self {
        Narrow::Bytes(Vec::new())
    }
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
                Err(_) => {
                    let values = values.iter().map(|&value| u64::from(value)).collect();
                    *self = Narrow::Wide(values);
                    self.push(value);
                }
            },
            Narrow::Wide(values) => values.push(value),
        }
    }

    fn len(&self) -> usize {
        match self {
            Narrow::Bytes(values) => values.len(),
            Narrow::Shorts(values) => values.len(),
            Narrow::Wide(values) => values.len(),
        }
    }

    fn get(&self, heap: usize) -> u64 {
        match self {
            Narrow::Bytes(values) => values[heap].into(),
            Narrow::Shorts(values) => values[heap].into(),
            Narrow::Wide(values) => values[heap],
        }
    }
}

/// Runs a generic loop over the known values, read as narrow as they are.
macro_rules! narrowly {
    ($known:expr, |$values:ident| $body:expr) => {
        match &$known.narrow {
            Narrow::Bytes($values) => $body,
            Narrow::Shorts($values) => $body,
            Narrow::Wide($values) => $body,
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

    /// Whether each value below `len` at least is common.
    fn commons(&self, len: usize) -> &[bool] {
        debug_assert!(self.commons.len() >= len, "classed up to {len}");
        &self.commons
    }

    /// Classes the values below `len` at least, for [`Rare::commons`].
    fn class_up_to(&mut self, len: usize) {
        if self.commons.len() < len {
            let mask = self.mask;
            self.commons = (0..len as u64).map(|value| !is_rare(mask, value)).collect();
        }
    }

    /// The index of the first rare heap from `bound` on.
    fn below(&self, bound: usize) -> usize {
        self.heaps.partition_point(|&heap| (heap as usize) < bound)
    }
}

impl Known {
    fn new() -> Self {
        let mut known = Known::default();
        known.rare.class_up_to(known.room());
        known
    }

    /// The heaps known.
    fn len(&self) -> usize {
        self.narrow.len()
    }

    /// Records the value of the next heap.
    fn push(&mut self, value: u64) {
        self.rare.push(self.len(), value);
        let class = value as usize;
        if class >= self.counts.len() {
            self.counts.resize(class + 1, 0);
        }
        self.counts[class] += 1;
        self.narrow.push(value);
        self.rare.class_up_to(self.room());
    }

    /// Classes the values anew under `mask`, if it is a new one.
    fn remask(&mut self, mask: u64) {
        if mask != self.rare.mask {
            narrowly!(self, |values| self.rare.remask(mask, values));
            self.rare.class_up_to(self.room());
        }
    }

    /// Room for every option's value: an XOR of values is below the next
    /// power of two past them all.
    fn room(&self) -> usize {
        self.counts.len().next_power_of_two().max(64)
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
            self.remask(best);
        }
    }
}

/// Heaps between two calls of the watcher, at most.
const WATCH_EVERY: usize = 1024;

/// Splits between two calls of the watcher, at most: the engine's watch
/// counted in splits (see [`SPLITS_PER_OPTION`]), so that a code whose
/// heaps each list millions of splits (three heaps of a large heap, or
/// `0.004`'s seldom rare splits) is heard within a heap or two, not after
/// a thousand.
const WATCH_SPLITS: u64 = crate::engine::WATCH_WORK * SPLITS_PER_OPTION;

/// A table's watcher, told of the heaps done when due: after
/// [`WATCH_EVERY`] heaps or [`WATCH_SPLITS`] splits, whichever comes
/// first (and at once, the first time).
struct Watch<'w> {
    watch: &'w mut dyn FnMut(usize) -> bool,
    examined: Arc<AtomicU64>,
    /// The heap, and the count of splits, from which it is due.
    heap: usize,
    splits: u64,
}

impl<'w> Watch<'w> {
    fn new(watch: &'w mut dyn FnMut(usize) -> bool, moves: &Moves) -> Self {
        Watch {
            watch,
            examined: Arc::clone(&moves.examined),
            heap: 0,
            splits: 0,
        }
    }

    /// Whether to go on at `heap`: the watcher's answer when it is due.
    #[inline]
    fn go_on(&mut self, heap: usize) -> bool {
        let examined = self.examined.load(Ordering::Relaxed);
        if heap < self.heap && examined < self.splits {
            return true;
        }
        self.heap = heap + WATCH_EVERY;
        self.splits = examined + WATCH_SPLITS;
        (self.watch)(heap)
    }
}

/// Heaps to go from which a table shares the work among its threads.
const ROUNDS_FROM: usize = 4096;

/// Splits marked between two looks at the values still wanted.
const CHUNK: usize = 128;

/// Splits into two heaps examined for each option `--max-work` counts: a
/// split's value is the XOR of two values read from the table, XORed a
/// block of [`CHUNK`] at a time in vector instructions (or listed from the
/// few rare heaps), a few nanoseconds, where an option of the engine takes
/// a microsecond or more (listed, hashed and looked up). A split into
/// three heaps, worked out and marked one at a time, is an option. Grundy's
/// game to the default 10,000,000 heaps examines some 10^11 splits, within
/// the default limit; octal `0.004`, whose value each heap finds only
/// among all its splits, reaches it in minutes.
pub const SPLITS_PER_OPTION: u64 = 128;

/// Values wanted so few that each split is compared with them rather than
/// marked.
const FEW: usize = 8;

impl Table {
    /// A table whose long extensions use every core.
    pub fn new(code: TakeBreak) -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |cores| cores.get());
        Table::with_threads(code, cores)
    }

    /// A table whose long extensions use `threads` threads (at least one).
    pub fn with_threads(code: TakeBreak, threads: usize) -> Self {
        let removals = match code.rest {
            Some(_) => Vec::new(),
            None => (0..code.digits.len())
                .filter(|&k| code.digits[k].bits != 0)
                .collect(),
        };
        Table {
            prefix: Prefix::of(&code),
            moves: Moves {
                code,
                removals,
                examined: Arc::default(),
                stopped: Arc::default(),
            },
            values: Vec::new(),
            known: Known::new(),
            scratch: Scratch::default(),
            batch: None,
            threads: threads.max(1),
            rounds_from: ROUNDS_FROM,
            late: std::time::Duration::ZERO,
        }
    }

    /// Sets the threads of the long extensions to come (at least one).
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    pub fn values(&self) -> &[u64] {
        &self.values
    }

    /// The splits the table has examined so far, counted as it grows, for
    /// a watcher to hold to a limit of work: each split into two heaps
    /// whose value was worked out counts one, each into three
    /// [`SPLITS_PER_OPTION`]. A code whose splits are seldom rare (octal
    /// `0.004`) examines about n/2 for each heap n.
    pub fn examined(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.moves.examined)
    }

    /// Extends the table through heap `n`. `watch` is told of the heaps
    /// done now and then, and stops the work by answering `false`; whatever
    /// the table reached stays. A table that does not fit in memory is
    /// refused before it grows (400 million heaps take 3.2 GB).
    pub fn extend_to(
        &mut self,
        n: usize,
        watch: &mut dyn FnMut(usize) -> bool,
    ) -> Result<(), Unknown> {
        let to_go = (n + 1).saturating_sub(self.values.len());
        if self.values.try_reserve_exact(to_go).is_err() {
            let solved = self.values.len();
            return Err(Unknown::OutOfMemory { solved });
        }
        if let Some(prefix) = &mut self.prefix {
            while self.values.len() <= n {
                let heap = self.values.len();
                if heap.is_multiple_of(WATCH_EVERY) && !watch(heap) {
                    return Err(Unknown::Stopped);
                }
                let value = prefix.next(&self.values);
                self.values.push(value);
            }
            return Ok(());
        }
        match self.threads > 1 && to_go >= self.rounds_from {
            true => rounds::extend(self, n, watch)?,
            false => self.extend(n, watch)?,
        }
        Ok(())
    }

    /// Extends the table through heap `n` on this thread alone.
    fn extend(&mut self, n: usize, watch: &mut dyn FnMut(usize) -> bool) -> Result<(), Stopped> {
        let mut watch = Watch::new(watch, &self.moves);
        while self.values.len() <= n {
            let heap = self.values.len();
            if !watch.go_on(heap) {
                return Err(Stopped);
            }
            if heap.is_power_of_two() && heap >= 64 {
                self.known.choose_mask();
            }
            // A batch keeps one mask: it ends before the next power of two.
            let segment = (n + 1).min((heap + 1).next_power_of_two());
            let batch = self.batch.as_ref().map(|batch| batch.first);
            if batch.is_none_or(|first| heap >= first + BATCH) && heap + BATCH <= segment {
                self.batch = self.moves.batch(&self.known, &mut self.scratch, heap);
            }
            let batch = self.batch.as_ref();
            let value = self
                .moves
                .guess(&self.known, &mut self.scratch, heap, batch);
            self.known.push(value);
            self.values.push(value);
        }
        Ok(())
    }
}

impl Moves {
    /// The batch of heaps from `first`, listed from the values known, if
    /// it can be.
    fn batch(&self, known: &Known, scratch: &mut Scratch, first: usize) -> Option<Batch> {
        match &known.narrow {
            Narrow::Bytes(values) if Batch::possible(&self.code, first) => {
                let listed = (&known.rare, &mut scratch.blocks);
                Some(Batch::list(&self.code, values, listed, first))
            }
            _ => None,
        }
    }

    /// The least value that no option of `heap` has among the options
    /// whose heaps are all known: the value of `heap` when every heap
    /// below it is known. (When some are not, the value is this *guess*
    /// unless an option left out has it: see [`rounds`].)
    fn guess(
        &self,
        known: &Known,
        scratch: &mut Scratch,
        heap: usize,
        batch: Option<&Batch>,
    ) -> u64 {
        let value = self.scan(known, scratch, heap, batch);
        self.count(scratch);
        value
    }

    /// Adds the splits examined for a heap to the table's count.
    fn count(&self, scratch: &mut Scratch) {
        let examined = std::mem::take(&mut scratch.examined);
        self.examined.fetch_add(examined, Ordering::Relaxed);
    }

    /// [`Moves::guess`], counting the splits examined in `scratch`.
    fn scan(
        &self,
        known: &Known,
        scratch: &mut Scratch,
        heap: usize,
        batch: Option<&Batch>,
    ) -> u64 {
        let Scratch {
            seen,
            wanted,
            lefts,
            blocks,
            examined,
        } = scratch;
        let rare = &known.rare;
        // The splits of `left` whose parts are all known are those whose
        // smaller part is this one or more.
        let bound = known.len();
        let least_known = |left: usize| (left + 1).saturating_sub(bound);
        // Every XOR of two values is below the next power of two past the
        // largest, so no mark below grows the set.
        seen.reset(known.room());
        // The splits with a rare part listed with the batch, if any.
        let batch = batch.filter(|batch| (batch.first..batch.first + BATCH).contains(&heap));
        if let Some(batch) = batch {
            let marks = &batch.marks[heap - batch.first];
            let room = seen.marks.len().min(marks.len());
            seen.marks[..room].copy_from_slice(&marks[..room]);
        }
        lefts.clear();
        // How many options there are, at most: the value is no more.
        let mut options = 0u64;
        for k in self.removals_of(heap) {
            let Digit { bits, distinct } = self.code.digit(k);
            let left = heap - k;
            if bits & 1 != 0 && left == 0 {
                seen.mark(0);
                options += 1;
            }
            if bits & 2 != 0 && left >= 1 && left < bound {
                seen.mark(known.narrow.get(left));
                options += 1;
            }
            if bits & 4 != 0 && left >= 2 {
                lefts.push((left, distinct));
                options += left as u64 / 2;
            }
            if bits & 8 != 0 {
                for (a, b, c) in triples(left, distinct).filter(|&(_, _, c)| c < bound) {
                    let value = |heap: usize| known.narrow.get(heap);
                    seen.mark(value(a) ^ value(b) ^ value(c));
                    options += 1;
                    *examined += SPLITS_PER_OPTION;
                }
            }
        }
        // Every split with a rare part, listed from the rare heaps (those
        // the batch did not list).
        for &(left, distinct) in lefts.iter() {
            let below = rare.below(left);
            let lowest = rare.below(least_known(left));
            let listed = match batch {
                Some(batch) => batch.ranges(rare, left - (heap - batch.first), distinct),
                None => [0..0, 0..0],
            };
            let ranges = [
                0..listed[0].start,
                listed[0].end..listed[1].start,
                listed[1].end..below,
            ];
            for range in ranges {
                let range = range.start.max(lowest).min(range.end)..range.end;
                *examined += range.len() as u64;
                let listed = (&rare.heaps[range.clone()], &rare.values[range]);
                narrowly!(known, |values| list_rare(
                    seen, listed, values, left, distinct
                ));
            }
        }
        // The least common value not listed is the value, unless a rare
        // value below it is missing too: those must come from splits into
        // two common heaps, which are looked for. (The value is at most the
        // number of options, so the search for a common one stops there:
        // under mask 0 no value is common.)
        let marks = &seen.marks;
        let common = match least_unmarked(marks, rare.commons(marks.len())) {
            Some(value) => (value as u64).min(options),
            None => (marks.len() as u64..options)
                .find(|&value| !is_rare(rare.mask, value))
                .unwrap_or(options),
        };
        // Every value below it not listed is rare: those are wanted.
        wanted.clear();
        let listed = &marks[..marks.len().min(common as usize)];
        for (i, marks) in listed.chunks(16).enumerate() {
            let mut unmarked = unmarked_among(marks, |_| true);
            while unmarked != 0 {
                let value = 16 * i + unmarked.trailing_zeros() as usize;
                wanted.push(value as u64);
                unmarked &= unmarked - 1;
            }
        }
        wanted.extend(listed.len() as u64..common);
        if wanted.is_empty() {
            return common;
        }
        // The splits, until every value wanted is found.
        let skip = batch.map_or(0, |batch| batch.marked);
        for &(left, distinct) in lefts.iter() {
            let last = last_part(left, distinct);
            let blocks = (blocks.of(last), skip);
            let parts = (least_known(left), last);
            *examined += narrowly!(known, |values| look_for(
                seen, wanted, values, left, blocks, parts
            ));
            if wanted.is_empty() {
                return common;
            }
        }
        // A wanted value no split gives: the least is the value.
        wanted[0]
    }

    /// The value of `heap` when its guess `value` failed: the least value
    /// above it that no option has. `above` marks which of the 128 values
    /// above the guess it found among the options whose heaps were below
    /// `bound`: every common one (under the mask of the guess, the
    /// table's) and some rare ones. The least common value left that no
    /// option past `bound` has is the value, unless a rare one below it is
    /// no option either: those are looked for among the splits, all at
    /// once. None past those 128: the heap is then worked out anew.
    fn resume(
        &self,
        known: &Known,
        scratch: &mut Scratch,
        (heap, bound): (usize, usize),
        (value, above): (u64, u128),
    ) -> Option<u64> {
        let value = self.rescan(known, scratch, (heap, bound), (value, above));
        self.count(scratch);
        value
    }

    /// [`Moves::resume`], counting the splits examined in `scratch`.
    fn rescan(
        &self,
        known: &Known,
        scratch: &mut Scratch,
        (heap, bound): (usize, usize),
        (value, above): (u64, u128),
    ) -> Option<u64> {
        let Scratch {
            seen,
            wanted,
            blocks,
            examined,
            ..
        } = scratch;
        let mask = known.rare.mask;
        let unmarked = (0..ABOVE as u64).filter(|&i| above & 1 << i == 0);
        let left = unmarked
            .map(|i| value + 1 + i)
            .filter(|&candidate| !self.reaches_beyond(known, heap, bound, candidate));
        wanted.clear();
        let mut common = None;
        for candidate in left {
            if !is_rare(mask, candidate) {
                common = Some(candidate);
                break;
            }
            wanted.push(candidate);
        }
        if wanted.is_empty() {
            return common;
        }
        // A rare value comes from a split into two common heaps, if from
        // any option the guess did not list.
        seen.reset(known.room());
        for k in self.removals_of(heap) {
            let Digit { bits, distinct } = self.code.digit(k);
            let left = heap - k;
            if bits & 4 != 0 && left >= 2 && !wanted.is_empty() {
                let last = last_part(left, distinct);
                let blocks = (blocks.of(last), 0);
                *examined += narrowly!(known, |values| look_for(
                    seen,
                    wanted,
                    values,
                    left,
                    blocks,
                    (1, last)
                ));
            }
        }
        wanted.first().copied().or(common)
    }

    /// The removals that leave something of `heap`: its moves.
    fn removals_of(&self, heap: usize) -> impl Iterator<Item = usize> + '_ {
        let last = last_removal(&self.code, heap);
        let listed = match self.code.rest {
            Some(_) => None,
            None => Some(
                self.removals
                    .iter()
                    .copied()
                    .take_while(move |&k| k <= last),
            ),
        };
        let every = listed.is_none().then_some(0..=last);
        listed
            .into_iter()
            .flatten()
            .chain(every.into_iter().flatten())
    }

    /// Whether an option of `heap` with a part from `bound` on (and below
    /// `heap`, all known) has `value`: the options [`Moves::guess`] left
    /// out when only the heaps below `bound` were known.
    fn reaches_beyond(&self, known: &Known, heap: usize, bound: usize, value: u64) -> bool {
        let mut examined = 0;
        let found = self.reaches_past(known, (heap, bound), value, &mut examined);
        self.examined.fetch_add(examined, Ordering::Relaxed);
        found
    }

    /// [`Moves::reaches_beyond`], counting the splits examined.
    fn reaches_past(
        &self,
        known: &Known,
        (heap, bound): (usize, usize),
        value: u64,
        examined: &mut u64,
    ) -> bool {
        let values = |heap: usize| known.narrow.get(heap);
        let lefts = self.removals_of(heap).map(|k| heap - k);
        for left in lefts.filter(|&left| left >= bound) {
            let Digit { bits, distinct } = self.code.digit(heap - left);
            if bits & 2 != 0 && (1..heap).contains(&left) && values(left) == value {
                return true;
            }
            if bits & 4 != 0 && left >= 2 {
                let last = last_part(left, distinct).min(left - bound);
                *examined += last as u64;
                if narrowly!(known, |values| splits_have(values, left, last, value)) {
                    return true;
                }
            }
            // Three heaps a ≤ b ≤ c, the largest c from `bound` on.
            if bits & 8 != 0 {
                for c in bound.max(1)..left {
                    let rest = left - c;
                    *examined += rest as u64 / 2 * SPLITS_PER_OPTION;
                    let found = (1..=rest / 2)
                        .map(|a| (a, rest - a))
                        .filter(|&(a, b)| b <= c && !(distinct && (a == b || b == c)))
                        .any(|(a, b)| values(a) ^ values(b) ^ values(c) == value);
                    if found {
                        return true;
                    }
                }
            }
        }
        false
    }
}

/// Values above a guess whose marks it sends back: of the guesses that
/// fail in Grundy's game to 4,000,000 on two threads, one in 300 is then
/// worked out anew (with 64 values, more than one in four).
const ABOVE: usize = 128;

/// Which of the [`ABOVE`] values above `value` are marked, a bit each (bit
/// i for `value + 1 + i`): eight marks gathered into a byte by one
/// multiplication.
fn marked_above(marks: &[bool], value: u64) -> u128 {
    let from = (value as usize + 1).min(marks.len());
    let mut above = [false; ABOVE];
    match marks.get(from..from + ABOVE) {
        Some(marks) => above.copy_from_slice(marks),
        None => above[..marks.len() - from].copy_from_slice(&marks[from..]),
    }
    let mut bits = 0;
    for (i, eight) in above.chunks_exact(8).enumerate() {
        let bytes: [u8; 8] = std::array::from_fn(|j| u8::from(eight[j]));
        let gathered = u64::from_le_bytes(bytes).wrapping_mul(0x0102_0408_1020_4080) >> 56;
        bits |= u128::from(gathered) << (8 * i);
    }
    bits
}

/// Whether a split of `left` into `a` and `left - a`, for `a` in
/// `1..=last`, has `value`: every split compared, in vector instructions.
fn splits_have<V>(values: &[V], left: usize, last: usize, value: u64) -> bool
where
    V: Copy + TryFrom<u64> + PartialEq + std::ops::BitXor<Output = V>,
{
    let Ok(value) = V::try_from(value) else {
        return false;
    };
    if last == 0 {
        return false;
    }
    let small = &values[1..=last];
    let large = &values[left - last..left];
    let splits = small.iter().zip(large.iter().rev());
    splits.fold(false, |found, (&a, &b)| found | (a ^ b == value))
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

/// The values of the splits of `left` into `a` and `left - a` for `a` in
/// `first..=end`, a block at most, where `a` may be any part from `least`
/// (and 1) to `last`: a block cut short is read as a whole block that
/// holds it, overlapping the next or the one before, in vector
/// instructions with no loop for the rest, and the splits asked for taken
/// from it.
#[inline(always)]
fn xor_parts<'a, V>(
    values: &[V],
    left: usize,
    (first, end): (usize, usize),
    (least, last): (usize, usize),
    splits: &'a mut [V; CHUNK],
) -> &'a [V]
where
    V: Copy + std::ops::BitXor<Output = V>,
{
    let whole = match end + 1 - first < CHUNK {
        true if first + CHUNK - 1 <= last => first,
        true if end + 1 >= least.max(1) + CHUNK => end + 1 - CHUNK,
        _ => return xor_block(values, left, (first, end), splits),
    };
    let splits = xor_block(values, left, (whole, whole + CHUNK - 1), splits);
    &splits[first - whole..=end - whole]
}

/// Marks the values of the splits of `left` into `a` and `left - a`, for
/// `a` in `blocks` (see [`Blocks`]; the `skip` after the first were marked
/// with the batch) from `least` on, until every value in `wanted` is
/// marked; removes those marked from `wanted`. Answers how many splits it
/// examined.
fn look_for<V>(
    seen: &mut Seen,
    wanted: &mut Vec<u64>,
    values: &[V],
    left: usize,
    (blocks, skip): (impl Iterator<Item = (usize, usize)>, usize),
    (least, last): (usize, usize),
) -> u64
where
    V: Copy + Default + Into<u64> + TryFrom<u64> + PartialEq + std::ops::BitXor<Output = V>,
{
    let marks = seen.marks.as_mut_slice();
    let mut examined = 0;
    let unmarked = blocks.enumerate().filter(|&(i, _)| i == 0 || i > skip);
    for (_, (first, end)) in unmarked {
        if wanted.is_empty() {
            break;
        }
        let block = (first.max(least), end);
        if block.0 > block.1 {
            continue;
        }
        // The XORs first, then the marks: the loads and the stores apart.
        let mut splits = [V::default(); CHUNK];
        let splits = xor_parts(values, left, block, (least, last), &mut splits);
        examined += splits.len() as u64;
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
    examined
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
mod tests;
