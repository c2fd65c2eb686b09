//! The Sprague–Grundy engine. It knows nothing of the language: it sees
//! positions of single games (components) and a [`Rules`] that lists their
//! options. Each component's value is memoised for the engine's lifetime,
//! by its dense address when the rules give one (see [`Address`]), else
//! interned; a sum is valued by the XOR of its components, never
//! by exploring their product. Evaluation is iterative, so a game of any
//! depth is solved without growing the native stack.
//!
//! This file holds the engine's state and its search (a position's value
//! found by an explicit stack of positions waiting on their options), kept
//! together because the search reads and writes every part of that state.
//! Around it: the mex ([`Mex`]), what a rule's fold sees ([`Solved`]), the
//! questions asked of rules ([`Rules`]), sums and their moves (`moves.rs`),
//! boxes solved on threads (`boxes.rs`, `wavefront.rs`), dense tables and
//! lines (`dense.rs`, `lines.rs`), the endgame tables of small parts
//! (`endgames.rs`), loopy and misère play (`loopy.rs`,
//! `misere.rs`), its values taken out and put back (`snapshot.rs`), and
//! why a search stopped ([`EngineError`]).

mod boxes;
mod dense;
mod endgames;
mod error;
mod forgetting;
mod huge_pages;
mod lines;
mod loopy;
mod mex;
mod mirror;
mod misere;
mod moves;
mod options;
mod packed;
mod pruned;
mod ruled_out;
mod rules;
mod search;
mod shared;
mod snapshot;
mod solved;
mod waiting;
mod wavefront;

use std::collections::TryReserveError;
use std::hash::Hash;
use std::num::NonZeroUsize;
use std::sync::atomic::Ordering::Relaxed;

use indexmap::IndexSet;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use dense::Dense;
pub use dense::{Address, Cell, CellSlice, Grid};
pub use endgames::Endgame;
use endgames::Endgames;
pub use error::{Bound, EngineError, Stopped, Unknown};
use lines::Lines;
pub use loopy::{Gamma, Outcome};
pub use mex::Mex;
pub use misere::{Found, Genus, Misere};
pub use moves::Move;
pub use options::{Options, TooManyOptions};
pub use packed::Packed;
use packed::PackedValues;
pub use pruned::Method;
use ruled_out::RuledOut;
pub use rules::{Rules, fold_listed};
pub use search::SumSearch;
pub use shared::Shared;
pub use snapshot::{Checkpoints, MAX_GRUNDY, Snapshot, Writer as SnapshotWriter};
use solved::Place;
pub use solved::{Deferred, Solved};
use waiting::Waiting;
pub use wavefront::BoxRules;
use wavefront::{Hyperplanes, Settled};

/// A Grundy value (nimber).
pub type Grundy = u64;

/// The default bound on distinct positions an engine will intern.
pub const DEFAULT_MAX_STATES: usize = 10_000_000;

/// The default bound on the bytes of the table of values the pruned
/// search keeps by packed key (see `engine/forgetting.rs`): past it, the
/// values cheapest to find again are forgotten.
pub const DEFAULT_MAX_TABLE: usize = 1 << 30;

/// The share of `--max-table` the values ruled out may take, beside the
/// table of values (one sixteenth).
const RULED_OUT_SHARE: usize = 16;

/// The share of `--max-table` the parts a fold notes as missing may take
/// (one eighth): a position of millions of options whose parts are not
/// solved yet (a coin-turning game's) noted each of them, gigabytes.
const MISSING_SHARE: usize = 8;

/// Missing parts past which those met again are dropped before they are
/// sorted (see [`Engine::search`]).
const MANY_MISSING: usize = 4096;

/// The fewest parts a fold may note as missing, whatever the table's
/// bound: some hundred kilobytes. Within a table of a few kilobytes a
/// fold could note one or two, and every position's options were listed
/// again (Cram 5 × 6 within 8 KB: 10 s, where noting a thousand takes
/// 0.5 s).
const FEWEST_MISSING: usize = 1024;

/// The most parts a fold may note as missing within a table of `bytes`.
fn most_missing<P>(bytes: usize) -> usize {
    (bytes / MISSING_SHARE / size_of::<P>().max(1)).max(FEWEST_MISSING)
}

/// The most bytes the endgame tables of an engine may take (see
/// `engine/endgames.rs`): the tables of every box of up to 16 cells of
/// about seven games. A bound on the table (`--max-table`) bounds them to
/// the share the values ruled out may take, if that is less.
const ENDGAME_BYTES: usize = 4 << 20;

/// The default bound on options one search may examine: a second or so of
/// swept rules, a minute of rules folded option by option.
pub const DEFAULT_MAX_WORK: u64 = 1_000_000_000;

/// Called as the search goes, with how far it went; returning `false`
/// stops the search with [`EngineError::Interrupted`].
pub type Watcher = Box<dyn FnMut(&Tally) -> bool + Send>;

/// How far the work under way went, as the [`Watcher`] is told.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Distinct positions kept so far.
    pub states: usize,
    /// Positions whose options the pruned search listed, since the engine
    /// began (a position listed again counts again).
    pub searched: u64,
    /// Sums the searches of whole sums (`crosscheck`, `remoteness`,
    /// misère play) entered, since the engine began: such a search keeps
    /// its sums apart from the positions, which stay as many meanwhile.
    pub sums: u64,
    /// The components the pruned search is expanding, one in another.
    pub depth: usize,
    /// The value the pruned search is testing for the component asked,
    /// while it looks for one's value (see `Engine::search_value`).
    pub testing: Option<Grundy>,
    /// Positions the mirror strategy proved P-positions, since the engine
    /// began (see `engine/mirror.rs`).
    pub mirrored: u64,
    /// Values the pruned search forgot to keep its table within its bound,
    /// since the engine began (see `engine/forgetting.rs`).
    pub forgotten: u64,
    /// The bytes the table of values by packed key holds, with the values
    /// ruled out and the endgame tables beside it.
    pub table_bytes: usize,
    /// Facts the pruned search read that another thread of it found (a
    /// value, or values ruled out), since the engine began (see
    /// `engine/shared.rs`).
    pub shared: u64,
}

/// How much work passes between calls of the watcher: each option
/// examined counts one (see [`Solved::examined`]), and so does each step
/// of the search (a position entered or completed), so that the watcher
/// is asked as often in a game whose positions have thousands of options
/// each as in one whose positions have a few (a cancel is heard within
/// milliseconds either way, not after thousands of positions).
pub(crate) const WATCH_WORK: u64 = 1 << 14;

/// How many steps of the search pass between looks for a runaway chain.
const RUNAWAY_EVERY: usize = 4096;

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

/// A position waiting in [`Engine::longest`]'s walk: the option it reads
/// from, and the longest play among the options before that one.
#[derive(Debug, Clone, Copy)]
struct Frame {
    key: Key,
    next: usize,
    best: Option<u64>,
}

/// Where a search began, to roll back to if it fails (see
/// [`Engine::settle`]).
#[derive(Debug, Clone, Copy)]
struct Mark {
    positions: usize,
    held: usize,
}

/// Positions with their memoised values, and the longest plays asked for.
/// Positions with a dense address are kept by it; the rest are interned.
pub struct Engine<P> {
    positions: Interned<P>,
    /// The bytes the interned positions hold behind pointers (see
    /// [`Rules::held_bytes`]): within `max_table`, so that positions that
    /// hold long lists stop the memo with an error before memory runs out
    /// in an allocation that cannot fail gracefully.
    held: usize,
    values: Vec<Grundy>,
    dense: Dense,
    packed: PackedValues,
    lines: Lines,
    endgames: Endgames,
    /// The most moves a play from each position can last.
    /// The longest plays asked for so far: most positions are never
    /// asked, and keep no room for one.
    longest: HashMap<Key, u64>,
    max_states: usize,
    /// Options examined by the search under way, and the most allowed.
    work: u64,
    /// Values set in a table a save writes out (see [`Engine::set_value`]),
    /// and as many before the search under way began.
    values_set: u64,
    values_set_before: u64,
    max_work: u64,
    /// Options examined by every search so far.
    total_work: u64,
    /// Positions of every box solved so far, those known before counted
    /// again with each box that holds them.
    total_boxed: u64,
    scratch: Options<P>,
    mex: Mex,
    missing: Vec<P>,
    deferred: Vec<Deferred>,
    /// The keys of the missing parts, while they are pushed.
    keys: Vec<Key>,
    /// The buffers of options the pruned search is done with, for the
    /// next positions it lists (see [`pruned::Candidates`]).
    spare: Vec<pruned::Candidates<P>>,
    /// Generalised values of the positions that reach a cycle.
    loopy: HashMap<P, Gamma>,
    watcher: Option<Watcher>,
    /// The work (options and steps) left before the watcher is next called.
    until_watch: u64,
    /// Positions whose options the pruned search listed.
    searched: u64,
    /// The values the fold under way looks for (see [`Solved::enough`]),
    /// and whether it found options of each and stopped.
    enough: u64,
    settled: bool,
    /// The most parts a fold may note as missing (see [`MISSING_SHARE`]),
    /// and whether the fold under way met more: it then notes no more,
    /// and the position's options are listed again once those noted are
    /// solved.
    most_missing: usize,
    overflowed: bool,
    /// The most moves a list of a sum's moves may hold.
    max_listed: usize,
    /// Sums the searches of whole sums entered.
    sums: u64,
    /// The value the pruned search is testing for the component asked.
    testing: Option<Grundy>,
    /// The threads that solve boxes.
    threads: usize,
    /// The corner of the last box solved in each dense table: a box asked
    /// next to it is grown to take it in (see [`Engine::grown_corner`]).
    boxes: HashMap<u32, [u32; 4]>,
    /// How components are valued: by the memo or the pruned search.
    method: Method,
    /// The components the pruned search is expanding, outermost first.
    path: Vec<Key>,
    /// Values the pruned search ruled out for components it did not
    /// value, as bits (values below 64).
    ruled_out: RuledOut,
    /// Where a snapshot goes now and then during a long search, if
    /// anywhere.
    checkpoints: Option<snapshot::Checkpoints>,
    /// Positions (by packed key) the mirror strategy did not prove
    /// P-positions: not tried again.
    unmirrored: HashSet<Packed>,
    /// The positions whose mirror proofs are under way, outermost first.
    mirroring: Vec<Packed>,
    /// The work the mirror proof under way may still do.
    mirror_budget: u64,
    /// The work done by mirror proofs inside searches that failed.
    mirror_wasted: u64,
    /// Positions the mirror strategy proved P-positions.
    mirrored: u64,
    /// The most bytes the table of packed values may hold while the pruned
    /// search fills it (see `engine/forgetting.rs`).
    max_table: usize,
    /// How many memo searches (`Engine::solve`) are under way, one in
    /// another: values are forgotten only while none is.
    memo_depth: usize,
    /// Whether a pruned search (or a mirror proof) is under way, from the
    /// position asked down: values are forgotten only while one is.
    searching: bool,
    /// Values forgotten to keep the table within its bound, as many
    /// before the search under way began, and the bound they were last
    /// forgotten for.
    forgotten: u64,
    forgotten_before: u64,
    forgot_within: Bound,
    /// What the threads of a search share, while a search runs on several
    /// (see `shared.rs`), and this thread's number among them: the first
    /// takes a position's options in order, the others in other orders.
    shared: Option<std::sync::Arc<Shared>>,
    helper: usize,
    /// Facts read from the table shared with other threads.
    shared_read: u64,
}

type Result<T, P, E> = std::result::Result<T, EngineError<P, E>>;

impl<P: Clone + Eq + Hash + Ord> Engine<P> {
    pub fn new(max_states: usize) -> Self {
        Engine {
            positions: Interned::default(),
            held: 0,
            values: Vec::new(),
            dense: Dense::new(max_states),
            packed: PackedValues::default(),
            lines: Lines::new(max_states),
            endgames: Endgames::within(ENDGAME_BYTES),
            longest: Default::default(),
            max_states,
            work: 0,
            values_set: 0,
            values_set_before: 0,
            max_work: DEFAULT_MAX_WORK,
            total_work: 0,
            total_boxed: 0,
            scratch: Options::new(max_states),
            mex: Mex::default(),
            missing: Vec::new(),
            deferred: Vec::new(),
            keys: Vec::new(),
            spare: Vec::new(),
            loopy: HashMap::default(),
            watcher: None,
            until_watch: WATCH_WORK,
            searched: 0,
            enough: 0,
            settled: false,
            most_missing: most_missing::<P>(DEFAULT_MAX_TABLE),
            overflowed: false,
            max_listed: usize::MAX,
            sums: 0,
            testing: None,
            threads: std::thread::available_parallelism().map_or(1, |cores| cores.get()),
            boxes: HashMap::default(),
            method: Method::default(),
            path: Vec::new(),
            ruled_out: RuledOut::within(DEFAULT_MAX_TABLE / RULED_OUT_SHARE),
            checkpoints: None,
            unmirrored: HashSet::default(),
            mirroring: Vec::new(),
            mirror_budget: 0,
            mirror_wasted: 0,
            mirrored: 0,
            max_table: DEFAULT_MAX_TABLE,
            memo_depth: 0,
            searching: false,
            forgotten: 0,
            forgotten_before: 0,
            forgot_within: Bound::Table(DEFAULT_MAX_TABLE),
            shared: None,
            helper: 0,
            shared_read: 0,
        }
    }

    /// Sets the threads that solve boxes (every core unless set).
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    /// The threads that solve boxes and run a pruned search.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Shares what the pruned search learns with other threads through
    /// `shared` (none: this thread searches alone); `helper` is this
    /// thread's number among them, 0 for the one whose answer is given.
    pub fn share(&mut self, shared: Option<std::sync::Arc<Shared>>, helper: usize) {
        self.shared = shared;
        self.helper = helper;
    }

    /// Sets the most options one search may examine.
    pub fn set_max_work(&mut self, max_work: u64) {
        self.max_work = max_work;
    }

    /// Sets the most moves a list of a sum's moves may hold (`moves`,
    /// `strategy`, `why`: a row each); any number unless set.
    pub fn set_max_listed(&mut self, max_listed: usize) {
        self.max_listed = max_listed;
    }

    /// The most moves a list of a sum's moves may hold.
    pub fn max_listed(&self) -> usize {
        self.max_listed
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

    /// Positions of every box solved so far (see `total_boxed`): a table
    /// asked a row at a time should cost a few times its own size, not a
    /// box for each row.
    pub fn total_boxed(&self) -> u64 {
        self.total_boxed
    }

    /// Sets (or clears) the function told of progress, which may stop a search.
    pub fn set_watcher(&mut self, watcher: Option<Watcher>) {
        self.watcher = watcher;
    }

    /// How far the work under way went.
    pub fn tally(&self) -> Tally {
        Tally {
            states: self.states(),
            searched: self.searched,
            sums: self.sums,
            depth: self.path.len(),
            testing: self.testing,
            mirrored: self.mirrored,
            forgotten: self.forgotten,
            table_bytes: self.packed.bytes() + self.ruled_out_bytes() + self.endgames.bytes(),
            shared: self.shared_read,
        }
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
        self.held = 0;
        for (id, position) in std::mem::take(&mut self.positions).into_iter().enumerate() {
            if !depends(&position) {
                self.held += rules.held_bytes(&position);
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
        self.endgames.clear();
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
        self.ruled_out.clear();
        self.unmirrored.clear();
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
        if value < LOOPY && !matches!(key, Key::Interned(_)) && self.value(key) >= LOOPY {
            self.values_set += 1;
        }
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
        let mut watch = |states| {
            let tally = Tally {
                states,
                ..Tally::default()
            };
            watcher.as_mut().is_none_or(|watcher| watcher(&tally))
        };
        match rules.known_grundy(position, self.max_states, self.max_work, &mut watch) {
            Ok(Some(value)) => return Ok(value),
            Ok(None) => {}
            Err(Unknown::Stopped) => return Err(EngineError::Interrupted),
            Err(Unknown::TooMuchWork {
                examined,
                solved,
                of,
            }) => {
                return Err(EngineError::TooMuchWork {
                    limit: self.max_work,
                    examined,
                    solved,
                    of: NonZeroUsize::new(of),
                    expanding: Box::new(position.clone()),
                    forgotten: None,
                    found: None,
                });
            }
            Err(Unknown::PastLimit) => {
                let (limit, expanding) = (self.max_states, position.clone());
                return Err(EngineError::TooManyStates { limit, expanding });
            }
            Err(Unknown::OutOfMemory { solved }) => {
                return Err(EngineError::OutOfMemory { solved });
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
        // Measured before: no walk, so no work of its own begun.
        if let Some(&n) = self.longest.get(&root) {
            return Ok(n);
        }
        self.begin_work();
        // Solved positions reach no cycle, so this walk ends. Each frame is
        // a position to measure, with the option it reads from and the
        // longest play among the options before that one. A frame that
        // meets parts not yet measured puts them above itself, once each,
        // and reads its options again, from the first such option, when
        // they are done; pushed in that order, most parts are measured
        // after what they reach, at one reading of their options. The
        // stack holds at most `PENDING` frames, and one more for each
        // position on the path beyond them, so a position of n options
        // never costs n waiting parts at once.
        const PENDING: usize = 1 << 20;
        let mut stack = vec![Frame {
            key: root,
            next: 0,
            best: None,
        }];
        let (mut found, mut unknown) = (HashSet::default(), Vec::new());
        while let Some(&Frame { key, next, best }) = stack.last() {
            if self.longest.contains_key(&key) {
                stack.pop();
                continue;
            }
            self.watch()?;
            let position = self.position(rules, key);
            let (mut best, mut resume) = (best, None);
            found.clear();
            unknown.clear();
            'options: for (index, option) in self
                .options(rules, &position)?
                .iter()
                .enumerate()
                .skip(next)
            {
                // An option of a board of coins may hold thousands of
                // heads: each is work, and a stop is heard between options.
                self.watch()?;
                if self.count_work(option.len() as u64) {
                    return Err(self.too_much_work(position.clone()));
                }
                let mut total = Some(0u64);
                for part in option {
                    // A part's longest play, or its key while unmeasured.
                    let part_longest = match rules.as_heap(part) {
                        Some(n) => Ok(n),
                        None => {
                            let part_key = self.solved(rules, part)?;
                            self.longest.get(&part_key).copied().ok_or(part_key)
                        }
                    };
                    match part_longest {
                        Ok(n) => total = total.map(|total| total.saturating_add(n)),
                        Err(part_key) => {
                            total = None;
                            resume = resume.or(Some(index));
                            if found.insert(part_key) {
                                if stack.len() + unknown.len() >= PENDING && !unknown.is_empty() {
                                    break 'options;
                                }
                                unknown.push(part_key);
                            }
                        }
                    }
                }
                if let (Some(total), None) = (total, resume) {
                    best = Some(best.map_or(total, |best| best.max(total)));
                }
            }
            match resume {
                None => {
                    self.longest
                        .insert(key, best.map_or(0, |best| best.saturating_add(1)));
                    stack.pop();
                }
                Some(next) => {
                    let top = stack.len() - 1;
                    stack[top].next = next;
                    stack[top].best = best;
                    stack.extend(unknown.iter().map(|&key| Frame {
                        key,
                        next: 0,
                        best: None,
                    }));
                }
            }
        }
        Ok(self.longest[&root])
    }

    /// The key of a solved component (not a heap), solving it if need be.
    /// A component that stands for a sum (see [`Rules::stands_for`]) is
    /// valued by the sum's parts, each by its own method, and kept.
    fn solved<R>(&mut self, rules: &R, position: &P) -> Result<Key, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        if let Some(sum) = self.stands_for(rules, position)? {
            let mut value = 0;
            for part in &sum {
                value ^= self.grundy_or_loopy(rules, part)?;
            }
            let key = self.intern(rules, position, position)?;
            self.set_value(key, value);
            self.dense.keep();
            self.packed.keep();
            return Ok(key);
        }
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
        let mark = self.mark();
        self.begin_work();
        self.dense.keep();
        self.packed.keep();
        let solved = self
            .solve_box(rules, position)
            .and_then(|()| self.intern(rules, position, position))
            .and_then(|key| match self.value(key) {
                LOOPY => Err(EngineError::Loopy {
                    cycle: vec![position.clone()],
                }),
                value if value >= EXPANDING => {
                    self.solve_component(rules, key, position).map(|()| key)
                }
                _ => Ok(key),
            });
        self.settle(mark, solved.as_ref().err());
        solved
    }

    /// Where a search begins: the positions interned, and what they hold.
    fn mark(&self) -> Mark {
        Mark {
            positions: self.positions.len(),
            held: self.held,
        }
    }

    /// Ends a search begun at `mark`, which failed with `error` if it did.
    fn settle<E>(&mut self, mark: Mark, error: Option<&EngineError<P, E>>) {
        match error {
            // Positions found to reach a cycle stay marked, and those solved
            // on the way keep their values: they are right whatever lies
            // beyond. So do those solved before an interruption or the work
            // limit, so that asking again (or a table saved) goes on from
            // them; the limits of states and memory give their room back.
            None
            | Some(
                EngineError::Loopy { .. }
                | EngineError::Interrupted
                | EngineError::TooMuchWork { .. },
            ) => {
                self.dense.keep();
                self.packed.keep();
            }
            Some(error) => {
                // Forget what this search stored, so that a failed query
                // leaves the engine as it found it (and its room for states).
                self.positions.truncate(mark.positions);
                self.values.truncate(mark.positions);
                self.held = mark.held;
                self.longest.retain(|key, _| match key {
                    Key::Interned(id) => *id < mark.positions,
                    Key::Dense(_) | Key::Packed(_) => true,
                });
                self.dense.roll_back();
                self.packed.roll_back();
                self.lines.clear();
                self.endgames.clear();
                self.ruled_out.clear();
                // Memory run out is given back, for the queries to come.
                if let EngineError::OutOfMemory { .. } = error {
                    self.positions.shrink_to_fit();
                    self.values.shrink_to_fit();
                }
            }
        }
    }

    /// Begins a search: no work done yet, and no value found.
    fn begin_work(&mut self) {
        self.work = 0;
        self.values_set_before = self.values_set;
        self.forgotten_before = self.forgotten;
    }

    /// Counts `work` options examined in the search under way, bringing
    /// the watcher's next call nearer; whether that passes the work limit.
    fn count_work(&mut self, work: u64) -> bool {
        self.charge(work);
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
            of: None,
            expanding: Box::new(expanding),
            forgotten: (self.forgotten > self.forgotten_before)
                .then(|| (self.forgotten - self.forgotten_before, self.forgot_within)),
            found: Some(self.values_set - self.values_set_before),
        }
    }

    /// The memory limit's error once what a search of whole sums holds,
    /// `bytes`, passes the tables' bound (`crosscheck`, `remoteness`,
    /// misère play), met while expanding a sum with `expanding`.
    fn within_table<E>(&self, bytes: usize, expanding: impl FnOnce() -> P) -> Result<(), P, E> {
        match bytes > self.max_table {
            true => Err(EngineError::SumsTooLarge {
                bytes: self.max_table,
                expanding: expanding(),
            }),
            false => Ok(()),
        }
    }

    /// The error of memory run out, with what is solved so far.
    fn out_of_memory<E>(&self) -> EngineError<P, E> {
        EngineError::OutOfMemory {
            solved: self.states(),
        }
    }

    /// The sum `position` stands for (see [`Rules::stands_for`]), of no
    /// more parts than an option may have.
    fn stands_for<R>(&self, rules: &R, position: &P) -> Result<Option<Vec<P>>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        rules
            .stands_for(position, self.scratch.limit())
            .map_err(EngineError::Rules)
    }

    /// A sum with each part that stands for a sum (see
    /// [`Rules::stands_for`]) replaced by that sum.
    fn expanded<R>(&self, rules: &R, sum: &[P]) -> Result<Vec<P>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let mut expanded = Vec::with_capacity(sum.len());
        for part in sum {
            match self.stands_for(rules, part)? {
                Some(parts) => expanded.extend(parts),
                None => expanded.push(part.clone()),
            }
        }
        Ok(expanded)
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
        if let Some(packed) = packed {
            self.forget_if_full(rules, packed);
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
        let held = rules.held_bytes(position);
        if self.held.saturating_add(held) > self.max_table {
            return Err(EngineError::PositionsTooLarge {
                bytes: self.max_table,
                solved: self.states(),
                expanding: expanding.clone(),
            });
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
        self.held += held;
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
        // The memo reads the values of a position's parts after it
        // solved them: none is forgotten while it searches.
        self.memo_depth += 1;
        let outcome = self.search(rules, &mut stack);
        self.memo_depth -= 1;
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
            if stack.len() >= RUNAWAY_CHAIN && steps.is_multiple_of(RUNAWAY_EVERY) {
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
                // A board of coins may have millions of parts missing: a
                // stop is heard while they are noted.
                self.watch()?;
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
            // Many parts met many times over (a coin-turning position's
            // millions of options meet a few thousand parts): the first of
            // each is kept before the sort, which then orders as many
            // parts as there are distinct ones (a sort of millions took
            // seconds, and could not hear a stop).
            if missing.len() > MANY_MISSING {
                let mut seen = HashSet::default();
                order.retain(|&i| seen.insert(keys[i]));
            }
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
            let whole = deferred_all && !self.overflowed && missing.len() <= 8 * order.len() + 64;
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
        // The states are counted when the watcher is told them.
        let tally = Tally {
            states: 0,
            ..self.tally()
        };
        let mut solved = Solved {
            positions: &self.positions,
            values: &self.values,
            dense: &self.dense,
            packed: &self.packed,
            lines: &mut self.lines,
            endgames: &mut self.endgames,
            missing: &mut self.missing,
            deferred: &mut self.deferred,
            work: 0,
            budget: self.max_work.saturating_sub(self.work),
            tally,
            watcher: self.watcher.as_mut(),
            next_watch: self.until_watch,
            stopped: false,
            enough: self.enough,
            settled: false,
            most_missing: self.most_missing,
            overflowed: false,
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
        self.settled = solved.settled;
        self.overflowed = solved.overflowed;
        // The watcher's next call, as the fold left it (it may have called
        // the watcher on the way), counted from the fold's start.
        self.until_watch = solved.next_watch;
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

    /// Counts `work` toward the next time the watcher is told (by
    /// [`Engine::watch`]).
    #[inline]
    pub(crate) fn charge(&mut self, work: u64) {
        self.until_watch = self.until_watch.saturating_sub(work);
    }

    /// Counts a step of the search, and tells the watcher of progress once
    /// [`WATCH_WORK`] work has passed since it was last told; it may stop
    /// the search.
    #[inline]
    pub(crate) fn watch<E>(&mut self) -> Result<(), P, E> {
        self.until_watch = self.until_watch.saturating_sub(1);
        if self.until_watch > 0 {
            return Ok(());
        }
        self.until_watch = WATCH_WORK;
        // Another thread of the search answered the question.
        if self.shared.as_ref().is_some_and(|shared| shared.answered()) {
            return Err(EngineError::Interrupted);
        }
        self.checkpoint();
        let tally = self.tally();
        match self.watcher.as_mut().is_none_or(|watcher| watcher(&tally)) {
            true => Ok(()),
            false => Err(EngineError::Interrupted),
        }
    }
}

#[cfg(test)]
mod tests;
