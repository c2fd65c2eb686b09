//! What a rule's fold sees while a position is solved: the values of the
//! options known so far, the parts deferred until theirs are, and the work
//! counted against `--max-work`.

use super::*;

/// Where a position to fold is: given, or at a dense address.
#[derive(Clone, Copy)]
pub(super) enum Place<'p, P> {
    Position(&'p P),
    Address(Address),
}

/// Looks up the parts of options while a position is folded: a part's
/// value once it is solved; `None` before, noting the part as missing so
/// that the search solves it first.
///
/// An option with a part not solved is deferred (see [`Solved::defer`]):
/// the XOR of its solved parts is kept with the parts it waits on, so that
/// once they are solved its value is found without listing the options
/// again.
pub struct Solved<'a, P> {
    pub(super) positions: &'a Interned<P>,
    pub(super) values: &'a [Grundy],
    pub(super) dense: &'a Dense,
    pub(super) packed: &'a PackedValues,
    pub(super) lines: &'a mut Lines,
    pub(super) endgames: &'a mut Endgames,
    pub(super) missing: &'a mut Vec<P>,
    pub(super) deferred: &'a mut Vec<Deferred>,
    /// The options examined (see [`Solved::examined`]).
    pub(super) work: u64,
    /// The work this fold may do before the search passes its limit.
    pub(super) budget: u64,
    /// Told of progress while a long fold goes on; it may stop the fold.
    /// How far the search went when this fold began, told to the watcher
    /// with the positions kept now.
    pub(super) tally: Tally,
    pub(super) watcher: Option<&'a mut Watcher>,
    /// The work at which the watcher is told next: where the engine's count
    /// of work between calls stood when the fold began, then every
    /// [`WATCH_WORK`].
    pub(super) next_watch: u64,
    /// Whether the watcher asked the fold to stop.
    pub(super) stopped: bool,
    /// Values below 64 (as bits) whose options, once all are found, answer
    /// the question the fold is for: the pruned search asks whether a
    /// position's value is among them, and an option of each says it is
    /// not. No values: the fold lists every option.
    pub(super) enough: u64,
    /// Whether options of every value of `enough` were found, and the
    /// fold stopped there (see [`Solved::decided`]).
    pub(super) settled: bool,
    /// The most parts noted as missing: a part met beyond them is not
    /// noted (the fold is then not whole, and is done again once those
    /// noted are solved).
    pub(super) most_missing: usize,
    /// Whether a missing part was met beyond `most_missing`.
    pub(super) overflowed: bool,
}

/// An option waiting on parts not solved yet: the XOR of its solved parts,
/// and where its missing parts end in the list of missing parts (they
/// start where the option before it ends theirs).
#[derive(Debug, Clone, Copy)]
pub struct Deferred {
    pub(super) partial: Grundy,
    pub(super) end: usize,
}

impl<'a, P: Clone + Eq + Hash> Solved<'a, P> {
    /// A part, found by its dense address when it has one.
    pub fn part<R>(&mut self, rules: &R, part: &P) -> Option<Grundy>
    where
        R: Rules<Position = P> + ?Sized,
    {
        if let Some(n) = rules.as_heap(part) {
            return Some(n);
        }
        if let Some(address) = rules.dense(part) {
            return self.at(address, || part.clone());
        }
        if let Some(key) = rules.packed(part) {
            return self.packed(key, || part.clone());
        }
        let id = self.positions.get_index_of(part);
        self.found(id.map(|id| self.values[id]), || part.clone())
    }

    /// A part given by its packed key, as [`Rules::packed`] would give it;
    /// the position itself is built only when it has no value.
    #[inline]
    pub fn packed(&mut self, key: Packed, part: impl FnOnce() -> P) -> Option<Grundy> {
        match self.packed.get(key) {
            value if value < LOOPY => Some(value),
            _ => self.found(None, part),
        }
    }

    /// A part given by its dense address, as [`Rules::dense`] would give
    /// it; the position itself is built only when it is not in the table.
    #[inline]
    pub fn at(&mut self, address: Address, part: impl FnOnce() -> P) -> Option<Grundy> {
        match self.dense.get(address) {
            value if value < LOOPY => Some(value),
            // Not in the table: interned, if the table had no room for it.
            UNSOLVED => {
                let part = part();
                let id = self.positions.get_index_of(&part);
                self.found(id.map(|id| self.values[id]), || part)
            }
            _ => self.found(None, part),
        }
    }

    /// How many missing parts are noted so far: an option that begins
    /// here and finds a part missing passes this to [`Solved::defer`].
    #[inline]
    pub fn noted(&self) -> usize {
        self.missing.len()
    }

    /// Defers the option whose parts were looked up since `noted` was
    /// `from`: `partial` is the XOR of those of its parts that were solved.
    /// Rules that skip an option with a missing part without deferring it
    /// are not wrong, only slower: the engine then lists the options again
    /// once the parts are solved.
    #[inline]
    pub fn defer(&mut self, partial: Grundy, from: usize) {
        let end = self.missing.len();
        let start = self.deferred.last().map_or(0, |option| option.end);
        if from == start && end > start {
            self.deferred.push(Deferred { partial, end });
        }
    }

    /// Forgets the parts noted since `noted` was `from`: lookups made on
    /// the way to an answer given up, whose options are looked up again.
    #[inline]
    pub fn forget_from(&mut self, from: usize) {
        self.missing.truncate(from);
        let kept = self.deferred.iter().rposition(|option| option.end <= from);
        self.deferred.truncate(kept.map_or(0, |last| last + 1));
    }

    /// A small part's value by its endgame address (see `endgames.rs`), if
    /// it was noted there.
    #[inline(always)]
    pub fn endgame(&self, at: Endgame) -> Option<Grundy> {
        self.endgames.get(at)
    }

    /// Notes a small part's value at its endgame address, once it is found
    /// by the part's own key: the next lookup of the same cells reads it
    /// there.
    #[inline]
    pub fn note_endgame(&mut self, at: Endgame, value: Grundy) {
        self.endgames.note(at, value);
    }

    /// A dense table, to read many parts along a line.
    #[inline]
    pub fn grid(&self, table: usize) -> Grid<'a> {
        self.dense.grid(table)
    }

    /// The values of `length` cells of a table from index `start` on by
    /// `step`, all of them values, as a set: kept per line and grown as
    /// positions along it are folded (see `lines.rs`), so that a rule
    /// ranging over a whole prefix of a line costs its new cells only.
    /// `None` when a cell has no value yet, or the line was read further
    /// already: the caller then reads the cells itself.
    pub fn line(&mut self, table: usize, start: usize, step: isize, length: usize) -> Option<&Mex> {
        self.lines
            .values(table, self.dense.grid(table), (start, step, length))
    }

    /// Notes that `count` more options were examined: the engine stops a
    /// search past its work limit (`--max-work`), so that a hopeless query
    /// ends with an error instead of running for hours.
    #[inline]
    pub fn examined(&mut self, count: u64) {
        self.work = self.work.saturating_add(count);
    }

    /// Whether this fold should stop: past the work limit, or told to by
    /// the watcher (Ctrl-C), which is asked now and then as work goes on.
    /// Rules whose options are costly each (a large board's) ask this
    /// before each, and skip the rest once it holds: the engine then
    /// ends the search with the limit's error, or as interrupted.
    #[inline]
    pub fn exhausted(&mut self) -> bool {
        if self.work >= self.next_watch && !self.stopped {
            self.next_watch = self.work.saturating_add(WATCH_WORK);
            self.tally.states = self.positions.len() + self.dense.len() + self.packed.len();
            if let Some(watcher) = self.watcher.as_mut() {
                self.stopped = !watcher(&self.tally);
            }
        }
        self.stopped || self.work > self.budget
    }

    /// Whether the options folded into `mex` so far show every value the
    /// fold was asked to look for (see [`Solved::enough`]): rules may then
    /// skip the options left, as the answer no longer depends on them.
    /// Compiled rules of boards ask this after each option they fold.
    #[inline]
    pub fn decided(&mut self, mex: &Mex) -> bool {
        if self.enough != 0 && mex.first_word() & self.enough == self.enough {
            self.settled = true;
        }
        self.settled
    }

    /// Whether the fold stopped early, options of every value it looked
    /// for found (see [`Solved::decided`]).
    #[inline(always)]
    pub fn settled(&self) -> bool {
        self.settled
    }

    /// Whether a cell read from a table holds a value.
    #[inline(always)]
    pub fn is_value(cell: Grundy) -> bool {
        cell < LOOPY
    }

    #[inline]
    fn found(&mut self, value: Option<Grundy>, part: impl FnOnce() -> P) -> Option<Grundy> {
        match value {
            Some(value) if value < LOOPY => Some(value),
            _ if self.missing.len() >= self.most_missing => {
                self.overflowed = true;
                None
            }
            _ => {
                self.missing.push(part());
                None
            }
        }
    }
}
