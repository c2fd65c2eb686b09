//! The Sprague–Grundy engine. It knows nothing of the language: it sees
//! positions of single games (components) and a [`Rules`] that lists their
//! options. Each component's value is memoised for the engine's lifetime,
//! by its dense address when the rules give one (see [`Address`]), else
//! interned; a sum is valued by the XOR of its components, never
//! by exploring their product. Evaluation is iterative, so a game of any
//! depth is solved without growing the native stack.

mod dense;
mod lines;
mod loopy;
mod misere;
mod options;
mod packed;
mod search;
mod waiting;
mod wavefront;

use std::collections::TryReserveError;
use std::hash::Hash;
use std::sync::atomic::Ordering::Relaxed;

use indexmap::IndexSet;
use rustc_hash::FxHashMap as HashMap;

use dense::Dense;
pub use dense::{Address, Cell, CellSlice, Grid};
use lines::Lines;
pub use loopy::{Gamma, Outcome};
pub use misere::{Found, Genus, Misere};
pub use options::{Options, TooManyOptions};
pub use packed::Packed;
use packed::PackedValues;
pub use search::SumSearch;
use waiting::Waiting;
pub use wavefront::BoxRules;
use wavefront::{Hyperplanes, Settled};

/// A Grundy value (nimber).
pub type Grundy = u64;

/// Where a position to fold is: given, or at a dense address.
#[derive(Clone, Copy)]
enum Place<'p, P> {
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
    positions: &'a Interned<P>,
    values: &'a [Grundy],
    dense: &'a Dense,
    packed: &'a PackedValues,
    lines: &'a mut Lines,
    missing: &'a mut Vec<P>,
    deferred: &'a mut Vec<Deferred>,
    /// The options examined (see [`Solved::examined`]).
    work: u64,
    /// The work this fold may do before the search passes its limit.
    budget: u64,
    /// Told of progress while a long fold goes on; it may stop the fold.
    watcher: Option<&'a mut Watcher>,
    /// The work at which the watcher is told next.
    next_watch: u64,
    /// Whether the watcher asked the fold to stop.
    stopped: bool,
}

/// Work between two calls of the watcher within one fold.
const WATCH_WORK: u64 = 1 << 16;

/// An option waiting on parts not solved yet: the XOR of its solved parts,
/// and where its missing parts end in the list of missing parts (they
/// start where the option before it ends theirs).
#[derive(Debug, Clone, Copy)]
pub struct Deferred {
    partial: Grundy,
    end: usize,
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
            let states = self.positions.len() + self.dense.len() + self.packed.len();
            if let Some(watcher) = self.watcher.as_mut() {
                self.stopped = !watcher(states);
            }
        }
        self.stopped || self.work > self.budget
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
            _ => {
                self.missing.push(part());
                None
            }
        }
    }
}

/// Work stopped because the watcher asked it to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stopped;

/// Why rules give no value they would know without search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unknown {
    /// The watcher asked the work to stop.
    Stopped,
    /// The position is past what the rules keep (a table longer than the
    /// engine's state limit), and a search would pass the limit too.
    PastLimit,
    /// Finding the value would examine more options than the work limit
    /// allows; `examined` were, when the work stopped.
    TooMuchWork { examined: u64 },
}

impl From<Stopped> for Unknown {
    fn from(Stopped: Stopped) -> Self {
        Unknown::Stopped
    }
}

/// The fewest positions of a box worth a thread of their own.
const BOX_PER_THREAD: usize = 1 << 12;

/// How many parts of each hyperplane of a box there are per thread.
const PARTS_PER_THREAD: usize = 4;

/// Stops the threads solving a box when the engine is done with it, by
/// an error or not.
struct StopOnDrop<'d>(&'d wavefront::Dealer);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// The default bound on distinct positions an engine will intern.
pub const DEFAULT_MAX_STATES: usize = 10_000_000;

/// The default bound on options one search may examine: a second or so of
/// swept rules, a minute of rules folded option by option.
pub const DEFAULT_MAX_WORK: u64 = 1_000_000_000;

/// The move rules of a family of games, as the engine sees them.
pub trait Rules {
    /// A position of one game; a sum is a slice of these.
    type Position: Clone + Eq + Hash;
    /// What can go wrong while listing options.
    type Error;

    /// Lists the options of `position` into `options`, in rule order; each
    /// option is a sum of components.
    fn options(
        &self,
        position: &Self::Position,
        options: &mut Options<Self::Position>,
    ) -> std::result::Result<(), Self::Error>;

    /// The size of the Nim heap this position is, if it is one. The engine
    /// knows Nim itself: `*n` has value n, its longest play is n moves, and
    /// its options are `*0 … *(n-1)`, so no heap is ever searched.
    fn as_heap(&self, _position: &Self::Position) -> Option<u64> {
        None
    }

    /// The Nim heap of size `n` as a position of these rules.
    fn heap(&self, n: u64) -> Self::Position;

    /// A dense address for positions that have one (a game of one or two
    /// parameters, say): the engine then keeps their values by address,
    /// found by indexing, instead of interning them.
    fn dense(&self, _position: &Self::Position) -> Option<Address> {
        None
    }

    /// The rules of a position's game as threads read them, where its
    /// table can be solved as a box: the positions whose coordinates are
    /// each at most the position's are all reached from it, and each has
    /// its options below it in every coordinate and in their sum. The
    /// engine then solves them before the position, a hyperplane of one
    /// sum at a time, on every thread (no search).
    fn box_rules(&self, _position: &Self::Position) -> Option<Box<dyn BoxRules>> {
        None
    }

    /// The position at a dense address: the inverse of [`Rules::dense`],
    /// which rules that give addresses must provide.
    fn at_address(&self, _address: Address) -> Self::Position {
        unreachable!("rules without dense addresses are never asked for a position by one")
    }

    /// A packed key for positions that have one (a region of a small
    /// board, say): the engine then keeps their values beside the key in
    /// one table, instead of interning them. Checked after [`Rules::dense`].
    fn packed(&self, _position: &Self::Position) -> Option<Packed> {
        None
    }

    /// The position of a packed key: the inverse of [`Rules::packed`],
    /// which rules that pack positions must provide.
    fn unpacked(&self, _key: Packed) -> Self::Position {
        unreachable!("rules that pack no position are never asked to unpack one")
    }

    /// A value known without search, such as one read off a proven period
    /// or a table of its own, kept to `limit` positions and `max_work`
    /// options examined. Long work calls `watch` now and then with how much
    /// is done; if it answers `false`, the work stops.
    fn known_grundy(
        &self,
        _position: &Self::Position,
        _limit: usize,
        _max_work: u64,
        _watch: &mut dyn FnMut(usize) -> bool,
    ) -> std::result::Result<Option<Grundy>, Unknown> {
        Ok(None)
    }

    /// The two positions whose values' nim-product is this position's
    /// value, for a product of coin-turning games (Lenstra's Tartan
    /// theorem): the engine then solves the factors and multiplies, where
    /// it is asked for the position itself, instead of searching its
    /// options (which it still does for a product met inside a search).
    fn factors(&self, _position: &Self::Position) -> Option<(Self::Position, Self::Position)> {
        None
    }

    /// Whether a chain of positions, each reached from the one before
    /// while solving it (the deepest last), runs off without end: a rule
    /// missing its guard, say, whose positions fall below zero forever.
    /// The search then stops at once instead of filling the state limit.
    fn runs_off(&self, _chain: &[Self::Position]) -> bool {
        false
    }

    /// Whether a chain of positions (as for [`Rules::runs_off`]) is
    /// proven to grow without end: the rules show that from its deepest
    /// position there is always a move further on, so that no search from
    /// it ends. Asked of shorter chains than `runs_off`, as it is a proof,
    /// not a guess.
    fn grows_forever(&self, _chain: &[Self::Position]) -> bool {
        false
    }

    /// Adds each option's value to `mex`, reading the
    /// values of its parts from `solved`, which answers `None` (and notes
    /// the part) for a part not solved yet; such an option is skipped. This
    /// is the search's inner loop: rules that can fold values without
    /// building the options' positions should.
    /// No more than `limit` options are folded.
    fn fold_options(
        &self,
        position: &Self::Position,
        solved: &mut Solved<'_, Self::Position>,
        mex: &mut Mex,
        limit: usize,
    ) -> std::result::Result<(), Self::Error> {
        let mut options = Options::new(limit);
        self.options(position, &mut options)?;
        fold_listed(self, &options, solved, mex);
        Ok(())
    }

    /// [`Rules::fold_options`] for the position at a dense address, which
    /// rules may fold without building the position.
    fn fold_at(
        &self,
        address: Address,
        solved: &mut Solved<'_, Self::Position>,
        mex: &mut Mex,
        limit: usize,
    ) -> std::result::Result<(), Self::Error> {
        self.fold_options(&self.at_address(address), solved, mex, limit)
    }
}

/// Folds options already listed: each option's value is the XOR of its
/// parts'; options with a part not yet solved
/// are skipped.
pub fn fold_listed<R>(
    rules: &R,
    options: &Options<R::Position>,
    solved: &mut Solved<'_, R::Position>,
    mex: &mut Mex,
) where
    R: Rules + ?Sized,
{
    solved.examined(options.len() as u64);
    {
        for option in options.iter() {
            let from = solved.noted();
            let (mut value, mut known) = (0, true);
            for part in option {
                match solved.part(rules, part) {
                    Some(part) => value ^= part,
                    None => known = false,
                }
            }
            match known {
                true => mex.add(value),
                false => solved.defer(value, from),
            }
        }
    }
}

/// The values of a position's options, gathered for their mex.
#[derive(Debug, Default)]
pub struct Mex {
    words: Vec<u64>,
}

impl Mex {
    pub fn clear(&mut self) {
        self.words.iter_mut().for_each(|word| *word = 0);
    }

    /// Notes an option of value `value`.
    #[inline(always)]
    pub fn add(&mut self, value: Grundy) {
        match self.words.get_mut((value / 64) as usize) {
            Some(word) => *word |= 1 << (value % 64),
            None => self.grow(value),
        }
    }

    /// Notes options of the values below 64 whose bits are set in `bits`.
    pub fn add_below_64(&mut self, bits: u64) {
        match self.words.first_mut() {
            Some(word) => *word |= bits,
            None => self.words.push(bits),
        }
    }

    #[cold]
    fn grow(&mut self, value: Grundy) {
        let word = (value / 64) as usize;
        // A value past the options' count cannot be the mex; a huge one (a
        // Nim heap) is not worth the memory.
        if word > 1 << 20 {
            return;
        }
        self.words.resize(word + 1, 0);
        self.words[word] |= 1 << (value % 64);
    }

    /// Notes every value noted in `other`.
    pub fn add_all(&mut self, other: &Mex) {
        self.add_words(&other.words);
    }

    /// Notes every value of a set of values given as its words.
    pub(crate) fn add_words(&mut self, words: &[u64]) {
        if self.words.len() < words.len() {
            self.words.resize(words.len(), 0);
        }
        for (word, other) in self.words.iter_mut().zip(words) {
            *word |= other;
        }
    }

    /// The set's first `len` words (at least), to note values in.
    pub(crate) fn words_mut(&mut self, len: usize) -> &mut [u64] {
        if self.words.len() < len {
            self.words.resize(len, 0);
        }
        &mut self.words
    }

    /// How many words the set takes.
    pub(crate) fn words(&self) -> usize {
        self.words.len()
    }

    /// The least value not noted.
    pub fn mex(&self) -> Grundy {
        let word = self
            .words
            .iter()
            .position(|&word| word != u64::MAX)
            .unwrap_or(self.words.len());
        word as Grundy * 64
            + self
                .words
                .get(word)
                .map_or(0, |word| word.trailing_ones() as Grundy)
    }
}

/// Why a value could not be found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineError<P, E> {
    /// The rules failed while listing the options of a position.
    Rules(E),
    /// The move graph has a cycle: each position moves to the next, and the
    /// last is the first again.
    Loopy { cycle: Vec<P> },
    /// More distinct positions than the engine's limit.
    TooManyStates { limit: usize, expanding: P },
    /// The watcher asked the search to stop.
    Interrupted,
    /// A search over a whole sum would need more positions than allowed.
    SearchTooLarge { limit: usize, needed: u128 },
    /// A position has more options than the engine lists (a huge Nim heap):
    /// refused before any is built.
    TooManyOptions {
        limit: usize,
        count: u64,
        position: P,
    },
    /// Labelling a loopy game would look at more moves than the limit.
    TooManyMoves { limit: usize, expanding: P },
    /// A search examined more options than the work limit allows.
    TooMuchWork {
        limit: u64,
        examined: u64,
        solved: usize,
        expanding: P,
    },
    /// Memory ran out (an allocation failed) with `solved` positions kept:
    /// the search stops with this error instead of aborting.
    OutOfMemory { solved: usize },
    /// The positions run off without end (see [`Rules::runs_off`] and
    /// [`Rules::grows_forever`]): the first positions of the chain and the
    /// deepest ones.
    RunsOff { start: Vec<P>, deepest: Vec<P> },
}

/// A move in a sum: the component moved in, and the sum it becomes there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Move<P> {
    pub component: usize,
    pub to: Vec<P>,
}

impl<P: Clone> Move<P> {
    /// The sum after the move: the component replaced by its option.
    pub fn apply(&self, sum: &[P]) -> Vec<P> {
        let mut result = sum[..self.component].to_vec();
        result.extend(self.to.iter().cloned());
        result.extend(sum[self.component + 1..].iter().cloned());
        result
    }
}

/// The moves of a sum, each with something of the sum it leaves.
type MovesWith<P, V> = Vec<(Move<P>, V)>;

/// A move of a sum with the value of the sum it leaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValuedMove<P> {
    pub r#move: Move<P>,
    /// The value of the resulting sum; 0 means the move wins.
    pub grundy: Grundy,
    /// The longest play possible from the resulting sum.
    pub longest: u64,
}

/// Called as the search goes, with the number of positions solved so far;
/// returning `false` stops the search with [`EngineError::Interrupted`].
pub type Watcher = Box<dyn FnMut(usize) -> bool + Send>;

/// How many steps of the search (a position entered or completed) pass
/// between calls of the watcher.
const WATCH_EVERY: usize = 4096;

/// How deep the search's stack must be before it is looked at for a chain
/// of positions running off without end, and how many of the deepest
/// positions being expanded are looked at.
const RUNAWAY_DEPTH: usize = 100_000;
const RUNAWAY_CHAIN: usize = 1000;

/// Memo states besides a solved value: not asked yet; waiting on the
/// stack to be expanded; being expanded (its options are being solved);
/// known to reach a cycle, so that only the loopy solver can value it.
const UNSOLVED: Grundy = Grundy::MAX;
const QUEUED: Grundy = Grundy::MAX - 1;
const EXPANDING: Grundy = Grundy::MAX - 2;
const LOOPY: Grundy = Grundy::MAX - 3;

type Interned<P> = IndexSet<P, rustc_hash::FxBuildHasher>;

/// Makes room for `additional` more items in a list that grows with the
/// search: doubled when full, or grown by an eighth when doubling finds
/// no memory; `Err` when even that fails, so that the search stops with
/// an error instead of aborting.
fn room<T>(list: &mut Vec<T>, additional: usize) -> std::result::Result<(), TryReserveError> {
    if list.capacity() - list.len() >= additional {
        return Ok(());
    }
    let eighth = (list.len() / 8).max(additional);
    list.try_reserve(additional)
        .or_else(|_| list.try_reserve_exact(eighth))
}

/// [`room`] for one more interned position, where at most `most` will
/// be: the set grows to no more than that, since each of its entries
/// costs a hundred bytes or so.
fn room_in<P: Eq + Hash>(
    set: &mut Interned<P>,
    most: usize,
) -> std::result::Result<(), indexmap::TryReserveError> {
    let len = set.len();
    if len < set.capacity() {
        return Ok(());
    }
    let doubled = len.max(16).min(most.saturating_sub(len)).max(1);
    set.try_reserve_exact(doubled)
        .or_else(|_| set.try_reserve_exact((len / 8).max(1)))
}

/// Where the engine keeps a position: by its dense address, or interned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    Dense(Address),
    Packed(Packed),
    Interned(usize),
}

/// Positions with their memoised values, and the longest plays asked for.
/// Positions with a dense address are kept by it; the rest are interned.
pub struct Engine<P> {
    positions: Interned<P>,
    values: Vec<Grundy>,
    dense: Dense,
    packed: PackedValues,
    lines: Lines,
    /// The most moves a play from each position can last.
    /// The longest plays asked for so far: most positions are never
    /// asked, and keep no room for one.
    longest: HashMap<Key, u64>,
    max_states: usize,
    /// Options examined by the search under way, and the most allowed.
    work: u64,
    max_work: u64,
    /// Options examined by every search so far.
    total_work: u64,
    scratch: Options<P>,
    mex: Mex,
    missing: Vec<P>,
    deferred: Vec<Deferred>,
    /// The keys of the missing parts, while they are pushed.
    keys: Vec<Key>,
    /// Generalised values of the positions that reach a cycle.
    loopy: HashMap<P, Gamma>,
    watcher: Option<Watcher>,
    steps_since_watch: usize,
    /// The threads that solve boxes.
    threads: usize,
    /// The corner of the last box solved in each dense table: a box asked
    /// next to it is grown to take it in (see [`Engine::grown_corner`]).
    boxes: HashMap<u32, [u32; 4]>,
}

type Result<T, P, E> = std::result::Result<T, EngineError<P, E>>;

impl<P: Clone + Eq + Hash + Ord> Engine<P> {
    pub fn new(max_states: usize) -> Self {
        Engine {
            positions: Interned::default(),
            values: Vec::new(),
            dense: Dense::new(max_states),
            packed: PackedValues::default(),
            lines: Lines::new(max_states),
            longest: Default::default(),
            max_states,
            work: 0,
            max_work: DEFAULT_MAX_WORK,
            total_work: 0,
            scratch: Options::new(max_states),
            mex: Mex::default(),
            missing: Vec::new(),
            deferred: Vec::new(),
            keys: Vec::new(),
            loopy: HashMap::default(),
            watcher: None,
            steps_since_watch: 0,
            threads: std::thread::available_parallelism().map_or(1, |cores| cores.get()),
            boxes: HashMap::default(),
        }
    }

    /// Sets the threads that solve boxes (every core unless set).
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    /// Sets the most options one search may examine.
    pub fn set_max_work(&mut self, max_work: u64) {
        self.max_work = max_work;
    }

    /// The most distinct positions kept.
    pub fn max_states(&self) -> usize {
        self.max_states
    }

    /// The most options one search may examine.
    pub fn max_work(&self) -> u64 {
        self.max_work
    }

    /// Options examined by every search so far: work over many searches
    /// (a query's table, a period looked for) is told by the difference.
    pub fn total_work(&self) -> u64 {
        self.total_work
    }

    /// Sets (or clears) the function told of progress, which may stop a search.
    pub fn set_watcher(&mut self, watcher: Option<Watcher>) {
        self.watcher = watcher;
    }

    /// How many distinct positions are kept.
    pub fn states(&self) -> usize {
        self.positions.len() + self.dense.len() + self.packed.len()
    }

    /// Forgets every memoised position for which `depends` holds (their
    /// rules changed); returns how many were forgotten.
    pub fn forget<R>(&mut self, rules: &R, depends: impl Fn(&P) -> bool) -> usize
    where
        R: Rules<Position = P>,
    {
        let before = self.states();
        let mut kept = Interned::with_capacity_and_hasher(self.positions.len(), Default::default());
        let mut values = Vec::new();
        let mut longest = HashMap::default();
        for (id, position) in std::mem::take(&mut self.positions).into_iter().enumerate() {
            if !depends(&position) {
                if let Some(&known) = self.longest.get(&Key::Interned(id)) {
                    longest.insert(Key::Interned(kept.len()), known);
                }
                kept.insert(position);
                values.push(self.values[id]);
            }
        }
        let gone: Vec<Address> = self
            .dense
            .addresses()
            .filter(|&address| depends(&rules.at_address(address)))
            .collect();
        self.dense.forget(&gone);
        self.lines.clear();
        let gone: Vec<Packed> = self
            .packed
            .keys()
            .filter(|&key| depends(&rules.unpacked(key)))
            .collect();
        self.packed.forget(&gone);
        for (key, known) in &self.longest {
            let kept = match key {
                Key::Dense(address) => self.dense.get(*address) != UNSOLVED,
                Key::Packed(packed) => self.packed.get(*packed) != UNSOLVED,
                Key::Interned(_) => false,
            };
            if kept {
                longest.insert(*key, *known);
            }
        }
        self.loopy.retain(|position, _| !depends(position));
        self.positions = kept;
        self.values = values;
        self.longest = longest;
        before - self.states()
    }

    /// The state kept for a position.
    fn value(&self, key: Key) -> Grundy {
        match key {
            Key::Dense(address) => self.dense.get(address),
            Key::Packed(packed) => self.packed.get(packed),
            Key::Interned(id) => self.values[id],
        }
    }

    fn set_value(&mut self, key: Key, value: Grundy) {
        match key {
            Key::Dense(address) => self.dense.set(address, value),
            Key::Packed(packed) => self.packed.set(packed, value),
            Key::Interned(id) => self.values[id] = value,
        }
    }

    /// The position kept under a key.
    fn position<R>(&self, rules: &R, key: Key) -> P
    where
        R: Rules<Position = P>,
    {
        match key {
            Key::Dense(address) => rules.at_address(address),
            Key::Packed(packed) => rules.unpacked(packed),
            Key::Interned(id) => self.positions[id].clone(),
        }
    }

    /// The Grundy value of a single component. A component that reaches a
    /// cycle fails with the cycle, from the component into it.
    pub fn grundy<R>(&mut self, rules: &R, position: &P) -> Result<Grundy, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let value = self.grundy_or_loopy(rules, position);
        value.map_err(|error| self.whole_cycle(rules, error))
    }

    /// A loopy error whose cycle was cut short (a position known to reach a
    /// cycle stands for it) with the cycle found and shown in full.
    fn whole_cycle<R>(
        &mut self,
        rules: &R,
        error: EngineError<P, R::Error>,
    ) -> EngineError<P, R::Error>
    where
        R: Rules<Position = P>,
    {
        match error {
            EngineError::Loopy { cycle } if cycle.len() <= 2 => {
                let mut whole: Vec<P> = cycle[..cycle.len() - 1].to_vec();
                whole.extend(self.cycle_from(rules, &cycle[cycle.len() - 1]));
                EngineError::Loopy { cycle: whole }
            }
            error => error,
        }
    }

    /// [`Engine::grundy`], with the cycle of a loopy component cut short:
    /// the loopy solver asks this of many components, and needs no cycle.
    pub(crate) fn grundy_or_loopy<R>(
        &mut self,
        rules: &R,
        position: &P,
    ) -> Result<Grundy, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        if let Some(value) = rules.as_heap(position) {
            return Ok(value);
        }
        let watcher = &mut self.watcher;
        let mut watch = |done| watcher.as_mut().is_none_or(|watcher| watcher(done));
        match rules.known_grundy(position, self.max_states, self.max_work, &mut watch) {
            Ok(Some(value)) => return Ok(value),
            Ok(None) => {}
            Err(Unknown::Stopped) => return Err(EngineError::Interrupted),
            Err(Unknown::TooMuchWork { examined }) => {
                return Err(EngineError::TooMuchWork {
                    limit: self.max_work,
                    examined,
                    solved: self.states(),
                    expanding: position.clone(),
                });
            }
            Err(Unknown::PastLimit) => {
                let (limit, expanding) = (self.max_states, position.clone());
                return Err(EngineError::TooManyStates { limit, expanding });
            }
        }
        self.solved(rules, position).map(|key| self.value(key))
    }

    /// The most moves a play of a single component can last.
    pub fn longest<R>(&mut self, rules: &R, position: &P) -> Result<u64, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        if let Some(n) = rules.as_heap(position) {
            return Ok(n);
        }
        let root = match self.solved(rules, position) {
            Ok(root) => root,
            Err(error) => return Err(self.whole_cycle(rules, error)),
        };
        // Solved positions reach no cycle, so this walk ends. A position is
        // done once every part of every option is; until then its parts
        // wait above it on the stack.
        let mut stack = vec![root];
        while let Some(&key) = stack.last() {
            if self.longest.contains_key(&key) {
                stack.pop();
                continue;
            }
            self.watch()?;
            let position = self.position(rules, key);
            let (mut best, mut waiting) = (None::<u64>, false);
            for option in self.options(rules, &position)? {
                let mut total = 0u64;
                for part in &option {
                    let part_longest = match rules.as_heap(part) {
                        Some(n) => n,
                        None => {
                            let part_key = self.solved(rules, part)?;
                            match self.longest.get(&part_key) {
                                Some(&known) => known,
                                None => {
                                    waiting = true;
                                    stack.push(part_key);
                                    0
                                }
                            }
                        }
                    };
                    total = total.saturating_add(part_longest);
                }
                best = Some(best.map_or(total, |best| best.max(total)));
            }
            if !waiting {
                self.longest
                    .insert(key, best.map_or(0, |best| best.saturating_add(1)));
                stack.pop();
            }
        }
        Ok(self.longest[&root])
    }

    /// The Grundy value of a sum: the XOR (nim-sum) of its components'.
    pub fn nim_sum<R>(&mut self, rules: &R, sum: &[P]) -> Result<Grundy, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        sum.iter()
            .try_fold(0, |acc, component| Ok(acc ^ self.grundy(rules, component)?))
    }

    /// Every option of one component, in rule order.
    pub fn options<R>(&mut self, rules: &R, position: &P) -> Result<Vec<Vec<P>>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        if let Some(n) = rules.as_heap(position) {
            self.check_options(n, position)?;
            return Ok((0..n).map(|k| vec![rules.heap(k)]).collect());
        }
        self.scratch.clear();
        rules
            .options(position, &mut self.scratch)
            .map_err(EngineError::Rules)?;
        Ok(self.scratch.iter().map(<[P]>::to_vec).collect())
    }

    /// Refuses, before anything is allocated, a position with `count`
    /// options when that is past the options limit.
    pub(crate) fn check_options<E>(&self, count: u64, position: &P) -> Result<(), P, E> {
        match count > self.scratch.limit() as u64 {
            true => Err(EngineError::TooManyOptions {
                limit: self.scratch.limit(),
                count,
                position: position.clone(),
            }),
            false => Ok(()),
        }
    }

    /// Every move of a sum, component by component in rule order, with the
    /// value and the longest play of the sum each leaves.
    pub fn moves<R>(&mut self, rules: &R, sum: &[P]) -> Result<Vec<ValuedMove<P>>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let x = self.nim_sum(rules, sum)?;
        let mut total_longest = 0u64;
        for component in sum {
            total_longest = total_longest.saturating_add(self.longest(rules, component)?);
        }
        let mut moves = Vec::new();
        for (component, position) in sum.iter().enumerate() {
            let (g, own_longest) = (
                self.grundy(rules, position)?,
                self.longest(rules, position)?,
            );
            for to in self.options(rules, position)? {
                let mut to_longest = 0u64;
                for part in &to {
                    to_longest = to_longest.saturating_add(self.longest(rules, part)?);
                }
                moves.push(ValuedMove {
                    grundy: x ^ g ^ self.nim_sum(rules, &to)?,
                    longest: total_longest - own_longest + to_longest,
                    r#move: Move { component, to },
                });
            }
        }
        Ok(moves)
    }

    /// Every move of a sum, component by component in rule order, each
    /// with `value` of the sum it leaves.
    fn valued_moves<R, V>(
        &mut self,
        rules: &R,
        sum: &[P],
        mut value: impl FnMut(&mut Self, &[P]) -> Result<V, P, R::Error>,
    ) -> Result<MovesWith<P, V>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let mut moves = Vec::new();
        for (component, position) in sum.iter().enumerate() {
            for to in self.options(rules, position)? {
                let r#move = Move { component, to };
                let valued = value(self, &r#move.apply(sum))?;
                moves.push((r#move, valued));
            }
        }
        Ok(moves)
    }

    /// The winning move of a sum: in the first component (left to right)
    /// whose value `g` exceeds `g ⊕ x` (x the nim-sum), the first option of
    /// value `g ⊕ x`. `None` when the sum has value 0.
    pub fn best_move<R>(&mut self, rules: &R, sum: &[P]) -> Result<Option<Move<P>>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let x = self.nim_sum(rules, sum)?;
        if x == 0 {
            return Ok(None);
        }
        for (component, position) in sum.iter().enumerate() {
            let g = self.grundy(rules, position)?;
            let target = g ^ x;
            if target >= g {
                continue;
            }
            if rules.as_heap(position).is_some() {
                let to = vec![rules.heap(target)];
                return Ok(Some(Move { component, to }));
            }
            for to in self.options(rules, position)? {
                if self.nim_sum(rules, &to)? == target {
                    return Ok(Some(Move { component, to }));
                }
            }
        }
        // By the mex rule a component with g ⊕ x < g has an option of value
        // g ⊕ x, and one exists since x ≠ 0; so this is never reached.
        Ok(None)
    }

    /// The key of a solved component (not a heap), solving it if need be.
    fn solved<R>(&mut self, rules: &R, position: &P) -> Result<Key, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        if let Some((a, b)) = rules.factors(position) {
            let (a, b) = (self.solved(rules, &a)?, self.solved(rules, &b)?);
            let (a, b) = (self.value(a), self.value(b));
            if a < LOOPY && b < LOOPY {
                let key = self.intern(rules, position, position)?;
                if self.value(key) >= LOOPY {
                    self.set_value(key, crate::nimber::mul(a, b));
                }
                self.dense.keep();
                self.packed.keep();
                return Ok(key);
            }
        }
        let mark = self.positions.len();
        self.work = 0;
        self.dense.keep();
        self.packed.keep();
        let solved = self
            .solve_box(rules, position)
            .and_then(|()| self.intern(rules, position, position))
            .and_then(|key| match self.value(key) {
                LOOPY => Err(EngineError::Loopy {
                    cycle: vec![position.clone()],
                }),
                value if value >= EXPANDING => self.solve(rules, key).map(|()| key),
                _ => Ok(key),
            });
        match solved {
            // Positions found to reach a cycle stay marked, and those solved
            // on the way keep their values: they are right whatever lies
            // beyond. So do those solved before an interruption, so that
            // asking again goes on from them.
            Ok(_) | Err(EngineError::Loopy { .. } | EngineError::Interrupted) => {
                self.dense.keep();
                self.packed.keep();
            }
            Err(_) => {
                // Forget what this search stored, so that a failed query
                // leaves the engine as it found it (and its room for states).
                self.positions.truncate(mark);
                self.values.truncate(mark);
                self.longest.retain(|key, _| match key {
                    Key::Interned(id) => *id < mark,
                    Key::Dense(_) | Key::Packed(_) => true,
                });
                self.dense.roll_back();
                self.packed.roll_back();
                self.lines.clear();
                // Memory run out is given back, for the queries to come.
                if let Err(EngineError::OutOfMemory { .. }) = solved {
                    self.positions.shrink_to_fit();
                    self.values.shrink_to_fit();
                }
            }
        }
        solved
    }

    /// The corner of the box to solve for `corner`: a box is solved whole,
    /// the positions known included, so a table asked row by row
    /// (`grundy W(a, b) for a in 0..=150, b in 0..=150`) would solve a box
    /// for each row. The box takes in the last one solved in the table,
    /// and grows to twice it along each side the new corner passes, so
    /// that the boxes solved add up to a few times the last; the grown box
    /// is used while it is at most four times the one taking both in, and
    /// fits in `room`.
    fn grown_corner(&self, corner: Address, room: usize) -> Address {
        let Some(last) = self.boxes.get(&corner.table) else {
            return corner;
        };
        let asked = corner.point();
        let union: [u32; 4] = std::array::from_fn(|i| asked[i].max(last[i]));
        let grown: [u32; 4] = std::array::from_fn(|i| match asked[i] > last[i] {
            true => asked[i].max(last[i].saturating_mul(2).saturating_add(1)),
            false => last[i],
        });
        let fits = |point: [u32; 4], most: usize| box_size(point).is_some_and(|size| size <= most);
        let union_size = box_size(union).unwrap_or(usize::MAX);
        let point = match () {
            _ if fits(grown, room.min(union_size.saturating_mul(4))) => grown,
            _ if fits(union, room) => union,
            _ => asked,
        };
        let [volume, plane, row, col] = point;
        Address {
            table: corner.table,
            volume,
            plane,
            row,
            col,
        }
    }

    /// Solves the box of positions below `position`, a hyperplane at a
    /// time (see `wavefront.rs`), when the rules say it can be (see
    /// [`Rules::box_rules`]) and the state limit has room for all of it
    /// (if not, the search meets the limit itself, where it does).
    fn solve_box<R>(&mut self, rules: &R, position: &P) -> Result<(), P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let Some(corner) = rules.dense(position) else {
            return Ok(());
        };
        if self.dense.get(corner) < LOOPY {
            return Ok(());
        }
        let Some(mut box_rules) = rules.box_rules(position) else {
            return Ok(());
        };
        let room = self.max_states.saturating_sub(self.states());
        let corner = self.grown_corner(corner, room);
        let size = box_size(corner.point());
        if size.is_none_or(|size| size > room) {
            return Ok(());
        }
        let Some(largest) = self.dense.claim_box(corner) else {
            return Ok(());
        };
        let dims = self.dense.grid(corner.table as usize).dims;
        box_rules.set_dims(dims);
        // A thread for every so many positions of the box, each hyperplane
        // split into a few parts a thread (no more than it can be dealt to,
        // see `Hyperplanes::new`), so that one thread kept off its core
        // holds up little.
        let threads = self.threads.min(size.unwrap_or(0) / BOX_PER_THREAD).max(1);
        let parts = match threads {
            1 => 1,
            _ => (threads * PARTS_PER_THREAD).min(wavefront::MOST_PARTS),
        };
        let planes = Hyperplanes::new(box_rules.as_ref(), corner.point(), parts, self.max_states);
        let threads = threads.min(planes.parts());
        // The table, shared with the threads while they solve a hyperplane;
        // the engine's own again (swapped in) while it stores one.
        let table = std::sync::RwLock::new(std::mem::replace(&mut self.dense, Dense::new(0)));
        let dealer = wavefront::Dealer::new(planes.parts());
        let largest = std::sync::atomic::AtomicU64::new(largest);
        let work = std::sync::atomic::AtomicU64::new(0);
        let solve = |part: usize, sum: usize| {
            let dense = table.read().expect("no thread failed");
            let grid = dense.grid(corner.table as usize);
            let done = planes.solve(part, sum, grid, largest.load(Relaxed));
            work.fetch_add(done, Relaxed);
        };
        let solved = std::thread::scope(|scope| {
            let _stop = StopOnDrop(&dealer);
            for _ in 1..threads {
                let (dealer, solve) = (&dealer, &solve);
                let spawned = std::thread::Builder::new().spawn_scoped(scope, move || {
                    let _guard = dealer.guard();
                    dealer.work(solve);
                });
                // No thread to be had: the threads there are do the work.
                if spawned.is_err() {
                    break;
                }
            }
            let _guard = dealer.guard();
            let mut ordinary = Vec::new();
            for sum in 0..=planes.last() {
                dealer.deal(sum);
                while let Some((part, sum)) = dealer.take() {
                    solve(part, sum);
                    dealer.solved();
                }
                if !dealer.wait_solved() {
                    break;
                }
                let mut dense = table.write().expect("no thread failed");
                std::mem::swap(&mut *dense, &mut self.dense);
                let stored =
                    self.store_hyperplane(rules, (position, corner), (&planes, sum), &mut ordinary);
                let stored = stored.and_then(|most| {
                    largest.fetch_max(most, Relaxed);
                    match self.count_work(work.swap(0, Relaxed)) {
                        true => Err(self.too_much_work(position.clone())),
                        false => Ok(()),
                    }
                });
                // A search that grew the table moved its cells: the rest is
                // left to the search.
                let moved = self.dense.grid(corner.table as usize).dims != dims;
                std::mem::swap(&mut *dense, &mut self.dense);
                drop(dense);
                if stored.is_err() || moved {
                    return stored;
                }
            }
            Ok(())
        });
        self.dense = table.into_inner().expect("no thread failed");
        // Only a box solved whole is taken in by the next (one stopped by a
        // limit would be asked again, and fail again, with every query).
        if solved.is_ok() {
            self.boxes.insert(corner.table, corner.point());
        }
        solved
    }

    /// Stores the values of hyperplane `sum` of the box of `position` (at
    /// `corner`) just solved, and solves the positions it left to the
    /// ordinary way; returns the largest value stored.
    fn store_hyperplane<R>(
        &mut self,
        rules: &R,
        (position, corner): (&P, Address),
        (planes, sum): (&Hyperplanes<'_>, usize),
        ordinary: &mut Vec<Address>,
    ) -> Result<Grundy, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let mut largest = 0;
        let mut count = 0;
        planes.results(sum, |settled| {
            count += 1;
            match settled {
                Settled::Value { cell, value } => {
                    self.dense.fill_cell(corner.table, cell, value);
                    largest = largest.max(value);
                }
                Settled::Left([volume, plane, row, col]) => ordinary.push(Address {
                    volume,
                    plane,
                    row,
                    col,
                    ..corner
                }),
            }
        });
        for address in ordinary.drain(..) {
            self.solve_in_box(rules, address, position)?;
            let value = self.dense.get(address);
            largest = largest.max(if value < LOOPY { value } else { 0 });
        }
        self.steps_since_watch += count;
        self.watch()?;
        Ok(largest)
    }

    /// Counts `work` options examined in the search under way; whether
    /// that passes the work limit.
    fn count_work(&mut self, work: u64) -> bool {
        self.work = self.work.saturating_add(work);
        self.total_work = self.total_work.saturating_add(work);
        self.work > self.max_work
    }

    /// The work limit's error, met while expanding `expanding`.
    fn too_much_work<E>(&self, expanding: P) -> EngineError<P, E> {
        EngineError::TooMuchWork {
            limit: self.max_work,
            examined: self.work,
            solved: self.states(),
            expanding,
        }
    }

    /// The error of memory run out, with what is solved so far.
    fn out_of_memory<E>(&self) -> EngineError<P, E> {
        EngineError::OutOfMemory {
            solved: self.states(),
        }
    }

    /// Solves one position of a box (see [`Engine::solve_box`]): its
    /// options are solved already, so it is folded and stored, with no
    /// search; if one is not after all, or the table has no room for it,
    /// it is searched like any position.
    fn solve_in_box<R>(
        &mut self,
        rules: &R,
        address: Address,
        corner: &P,
    ) -> Result<(), P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let state = self.dense.get(address);
        if state < LOOPY {
            return Ok(());
        }
        if state == UNSOLVED {
            self.watch()?;
            self.fold_place(rules, Place::Address(address))?;
            if self.missing.is_empty() && self.dense.insert(address, self.mex.mex()) {
                return Ok(());
            }
        }
        let part = rules.at_address(address);
        let key = self.intern(rules, &part, corner)?;
        match self.value(key) {
            LOOPY => Err(EngineError::Loopy { cycle: vec![part] }),
            value if value >= EXPANDING => self.solve(rules, key),
            _ => Ok(()),
        }
    }

    /// The key of a position, which is stored (unsolved) if it was not.
    fn intern<R>(&mut self, rules: &R, position: &P, expanding: &P) -> Result<Key, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let address = rules.dense(position);
        if let Some(address) = address
            && self.dense.get(address) != UNSOLVED
        {
            return Ok(Key::Dense(address));
        }
        let packed = rules.packed(position);
        if let Some(packed) = packed
            && self.packed.get(packed) != UNSOLVED
        {
            return Ok(Key::Packed(packed));
        }
        if let Some(id) = self.positions.get_index_of(position) {
            return Ok(Key::Interned(id));
        }
        if self.states() >= self.max_states {
            return Err(EngineError::TooManyStates {
                limit: self.max_states,
                expanding: expanding.clone(),
            });
        }
        // Stored unsolved: QUEUED stands for it until the search takes it.
        if let Some(address) = address
            && self.dense.insert(address, QUEUED)
        {
            return Ok(Key::Dense(address));
        }
        if let Some(packed) = packed {
            self.packed
                .make_room(packed)
                .map_err(|_| self.out_of_memory())?;
            self.packed.set(packed, QUEUED);
            return Ok(Key::Packed(packed));
        }
        let most = self
            .max_states
            .saturating_sub(self.dense.len() + self.packed.len());
        let interned = room_in(&mut self.positions, most).is_ok();
        let room = self.positions.capacity().saturating_sub(self.values.len());
        if !interned || self.values.try_reserve_exact(room).is_err() {
            return Err(self.out_of_memory());
        }
        self.positions.insert(position.clone());
        self.values.push(UNSOLVED);
        Ok(Key::Interned(self.positions.len() - 1))
    }

    /// Solves `root` and every position it reaches, depth first, with an
    /// explicit stack. A position's options are folded once to find the
    /// parts not yet solved, which are pushed; once they are solved, the
    /// options are folded again, into the mex.
    fn solve<R>(&mut self, rules: &R, root: Key) -> Result<(), P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let mut stack = vec![root];
        self.set_value(root, QUEUED);
        let outcome = self.search(rules, &mut stack);
        if let Err(error) = &outcome {
            // Every position being expanded leads to the one that failed;
            // with a cycle there, each reaches the cycle.
            let loopy = matches!(error, EngineError::Loopy { .. });
            for &key in &stack {
                match self.value(key) {
                    EXPANDING if loopy => self.set_value(key, LOOPY),
                    // Waiting positions are forgotten with the search if it
                    // failed otherwise; after a cycle they stay, unsolved.
                    EXPANDING | QUEUED => self.set_value(key, QUEUED),
                    _ => {}
                }
            }
        }
        outcome
    }

    fn search<R>(&mut self, rules: &R, stack: &mut Vec<Key>) -> Result<(), P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let mut steps = 0usize;
        // The positions being expanded, deepest last: each waits on the
        // parts above it on the stack.
        let mut waiting = Waiting::default();
        // Scratch, kept across positions.
        let (mut order, mut dense) = (Vec::new(), Vec::new());
        while let Some(&key) = stack.last() {
            match self.value(key) {
                // Solved while it waited (it was pushed twice).
                value if value < LOOPY => {
                    stack.pop();
                    continue;
                }
                // Back to a position whose parts are now solved.
                EXPANDING => {
                    let mut mex = std::mem::take(&mut self.mex);
                    let finished = waiting.pop(|key| self.value(key), &mut mex);
                    self.mex = mex;
                    if let Some(value) = finished {
                        self.set_value(key, value);
                        stack.pop();
                        continue;
                    }
                }
                _ => {}
            }
            self.watch()?;
            steps += 1;
            if stack.len() >= RUNAWAY_CHAIN && steps.is_multiple_of(WATCH_EVERY) {
                self.check_runaway(rules, stack)?;
            }
            self.set_value(key, EXPANDING);
            // A position kept by address is folded from it, and built only
            // when parts are missing.
            match key {
                Key::Dense(address) => self.fold_place(rules, Place::Address(address))?,
                _ => self.fold(rules, &self.position(rules, key))?,
            }
            if self.missing.is_empty() {
                self.set_value(key, self.mex.mex());
                stack.pop();
                continue;
            }
            let position = self.position(rules, key);
            let mut keys = std::mem::take(&mut self.keys);
            keys.clear();
            let missing = std::mem::take(&mut self.missing);
            for part in &missing {
                keys.push(self.intern(rules, part, &position)?);
            }
            self.missing = missing;
            // Parts go on the stack largest first (by dense address, then in
            // their own order), so the smallest is solved first: a game whose
            // options are smaller than it (a heap game, Wythoff's) then meets
            // most positions with their options solved, and folds them once.
            let missing = &self.missing;
            order.clear();
            order.extend(0..missing.len());
            dense.clear();
            dense.extend(missing.iter().map(|part| rules.dense(part)));
            order.sort_unstable_by(|&i, &j| {
                let later = dense[j].cmp(&dense[i]);
                later.then_with(|| missing[j].cmp(&missing[i]))
            });
            // A part met by many options waits on the stack once, so the
            // stack stays as long as the positions, not their options.
            order.dedup_by_key(|i| keys[*i]);
            // The options found waiting are finished from what the position
            // keeps while it waits, unless the rules skipped one without
            // deferring it, or the options wait on few parts many times over
            // (it would then keep more than the stack holds): then they are
            // listed again.
            let deferred_all = self.deferred.last().map(|option| option.end) == Some(missing.len());
            let whole = deferred_all && missing.len() <= 8 * order.len() + 64;
            for &i in &order {
                let part_key = keys[i];
                match self.value(part_key) {
                    EXPANDING => return Err(self.cycle(rules, stack, part_key)),
                    LOOPY => {
                        let cycle = vec![position.clone(), self.missing[i].clone()];
                        return Err(EngineError::Loopy { cycle });
                    }
                    UNSOLVED | QUEUED => {
                        room(stack, 1).map_err(|_| self.out_of_memory())?;
                        self.set_value(part_key, QUEUED);
                        stack.push(part_key);
                    }
                    _ => {}
                }
            }
            let pushed = match whole {
                true => waiting.push(&self.mex, &self.deferred, &keys),
                false => waiting.push_bare(),
            };
            self.keys = keys;
            pushed.map_err(|_| self.out_of_memory())?;
        }
        Ok(())
    }

    /// Folds the options of `position` into `self.mex`, noting in
    /// `self.missing` the parts with no value yet and in `self.deferred`
    /// the options that wait on them.
    fn fold<R>(&mut self, rules: &R, position: &P) -> Result<(), P, R::Error>
    where
        R: Rules<Position = P>,
    {
        self.fold_place(rules, Place::Position(position))
    }

    /// [`Engine::fold`] for a position, or for the position at a dense
    /// address (which is then built only for an error).
    fn fold_place<R>(&mut self, rules: &R, place: Place<'_, P>) -> Result<(), P, R::Error>
    where
        R: Rules<Position = P>,
    {
        self.mex.clear();
        self.missing.clear();
        self.deferred.clear();
        let mut solved = Solved {
            positions: &self.positions,
            values: &self.values,
            dense: &self.dense,
            packed: &self.packed,
            lines: &mut self.lines,
            missing: &mut self.missing,
            deferred: &mut self.deferred,
            work: 0,
            budget: self.max_work.saturating_sub(self.work),
            watcher: self.watcher.as_mut(),
            next_watch: WATCH_WORK,
            stopped: false,
        };
        let folded = match place {
            Place::Position(position) => {
                rules.fold_options(position, &mut solved, &mut self.mex, self.max_states)
            }
            Place::Address(address) => {
                rules.fold_at(address, &mut solved, &mut self.mex, self.max_states)
            }
        };
        let (work, stopped) = (solved.work.max(1), solved.stopped);
        let over = self.count_work(work);
        if stopped {
            return Err(EngineError::Interrupted);
        }
        folded.map_err(EngineError::Rules)?;
        match over {
            true => Err(self.too_much_work(match place {
                Place::Position(position) => position.clone(),
                Place::Address(address) => rules.at_address(address),
            })),
            false => Ok(()),
        }
    }

    /// The cycle through `key`: the positions being expanded from it to the
    /// top of the stack, and it again.
    fn cycle<R>(&self, rules: &R, stack: &[Key], key: Key) -> EngineError<P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let start = stack.iter().rposition(|&entry| entry == key).unwrap_or(0);
        let mut cycle: Vec<P> = stack[start..]
            .iter()
            .filter(|&&entry| self.value(entry) == EXPANDING)
            .map(|&entry| self.position(rules, entry))
            .collect();
        cycle.push(self.position(rules, key));
        EngineError::Loopy { cycle }
    }

    /// Fails when the chain of positions being expanded, its deepest
    /// [`RUNAWAY_CHAIN`] looked at, runs off without end.
    fn check_runaway<R>(&self, rules: &R, stack: &[Key]) -> Result<(), P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let expanding = |entries: &mut dyn Iterator<Item = &Key>| -> Vec<P> {
            entries
                .filter(|&&key| self.value(key) == EXPANDING)
                .take(RUNAWAY_CHAIN)
                .map(|&key| self.position(rules, key))
                .collect()
        };
        let mut deepest = expanding(&mut stack.iter().rev().take(RUNAWAY_DEPTH));
        deepest.reverse();
        let runs_off = stack.len() >= RUNAWAY_DEPTH && rules.runs_off(&deepest);
        if deepest.len() < RUNAWAY_CHAIN || !(runs_off || rules.grows_forever(&deepest)) {
            return Ok(());
        }
        let start = expanding(&mut stack.iter()).into_iter().take(4).collect();
        deepest.drain(..deepest.len() - 2);
        Err(EngineError::RunsOff { start, deepest })
    }

    /// A play from `start` into a cycle: the positions from `start` on,
    /// ending with the first one met again. Positions already solved reach
    /// no cycle and are not entered. Should the walk grow past the state
    /// limit (or the rules fail), `start` alone stands for it.
    pub(crate) fn cycle_from<R>(&mut self, rules: &R, start: &P) -> Vec<P>
    where
        R: Rules<Position = P>,
    {
        let mut path: Vec<(P, Vec<P>)> = Vec::new();
        let mut on_path: HashMap<P, usize> = HashMap::default();
        let mut finished: std::collections::HashSet<P, rustc_hash::FxBuildHasher> =
            Default::default();
        let mut next = Some(start.clone());
        let mut options = Options::new(self.max_states);
        while path.len() + finished.len() < self.max_states {
            if let Some(position) = next.take() {
                if let Some(&index) = on_path.get(&position) {
                    let mut cycle: Vec<P> = path.into_iter().map(|(entry, _)| entry).collect();
                    cycle.push(cycle[index].clone());
                    return cycle;
                }
                options.clear();
                if rules.options(&position, &mut options).is_err() {
                    break;
                }
                let mut parts: Vec<P> = options
                    .iter()
                    .flatten()
                    .filter(|part| rules.as_heap(part).is_none() && !self.is_solved(rules, part))
                    .cloned()
                    .collect();
                parts.reverse();
                on_path.insert(position.clone(), path.len());
                path.push((position, parts));
            }
            let Some((position, parts)) = path.last_mut() else {
                break;
            };
            match parts.pop() {
                Some(part) if !finished.contains(&part) => next = Some(part),
                Some(_) => {}
                None => {
                    on_path.remove(position);
                    finished.insert(position.clone());
                    path.pop();
                }
            }
        }
        vec![start.clone()]
    }

    /// Whether a position is marked as reaching a cycle.
    fn marked_loopy<R>(&self, rules: &R, position: &P) -> bool
    where
        R: Rules<Position = P>,
    {
        self.kept(rules, position) == LOOPY
    }

    /// Whether a position has a value kept: it reaches no cycle.
    fn is_solved<R>(&self, rules: &R, position: &P) -> bool
    where
        R: Rules<Position = P>,
    {
        self.kept(rules, position) < LOOPY
    }

    /// What is kept for a position (a value, or a memo state), without
    /// storing it.
    fn kept<R>(&self, rules: &R, position: &P) -> Grundy
    where
        R: Rules<Position = P>,
    {
        // A position with a dense address is interned when its table had
        // no room for it.
        match rules.dense(position).map(|address| self.dense.get(address)) {
            Some(kept) if kept != UNSOLVED => kept,
            _ if let Some(key) = rules.packed(position) => self.packed.get(key),
            _ => self
                .positions
                .get_index_of(position)
                .map_or(UNSOLVED, |id| self.values[id]),
        }
    }

    /// Tells the watcher of progress now and then; it may stop the search.
    pub(crate) fn watch<E>(&mut self) -> Result<(), P, E> {
        self.steps_since_watch += 1;
        if self.steps_since_watch < WATCH_EVERY {
            return Ok(());
        }
        self.steps_since_watch = 0;
        let states = self.states();
        match self.watcher.as_mut().is_none_or(|watcher| watcher(states)) {
            true => Ok(()),
            false => Err(EngineError::Interrupted),
        }
    }
}

#[cfg(test)]
mod tests;

/// The positions of the box of corner `point`, if they can be counted.
fn box_size(point: [u32; 4]) -> Option<usize> {
    point
        .iter()
        .try_fold(1usize, |size, &side| size.checked_mul(side as usize + 1))
}
