//! Why a search stopped: a limit, a cycle, an interruption, memory.

use std::num::NonZeroUsize;

/// The bound on memory the pruned search forgot values to stay within
/// (see `engine/forgetting.rs`): the limit of states, or of the table's
/// bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    States(usize),
    Table(usize),
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
    /// allows; `examined` were, when the work stopped, with `solved` of
    /// the `of` positions of the table being filled.
    TooMuchWork {
        examined: u64,
        solved: usize,
        of: usize,
    },
    /// The rules' table of values could not grow: memory ran out with
    /// `solved` values in it.
    OutOfMemory { solved: usize },
}

impl From<Stopped> for Unknown {
    fn from(Stopped: Stopped) -> Self {
        Unknown::Stopped
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
    /// A search over a whole sum of coins would search a board of more
    /// than `coins` coins, up to 2^coins sums: more than allowed.
    BoardTooLarge { limit: usize, coins: usize },
    /// A position has more options than the engine lists (a huge Nim heap):
    /// refused before any is built.
    TooManyOptions {
        limit: usize,
        count: u64,
        position: P,
    },
    /// Labelling a loopy game would look at more moves than the limit.
    TooManyMoves { limit: usize, expanding: P },
    /// A list of a sum's moves asked for (`moves`, `strategy`, `why`)
    /// would hold more than the limit ([`Engine::set_max_listed`]).
    TooManyListed { limit: usize },
    /// The positions the memo keeps would hold more bytes behind their
    /// pointers (long lists, say) than the limit (that of the tables),
    /// with `solved` positions kept.
    PositionsTooLarge {
        bytes: usize,
        solved: usize,
        expanding: P,
    },
    /// The sums a search of whole sums keeps (`crosscheck`, `remoteness`,
    /// misère play) would hold more bytes than the limit (that of the
    /// tables).
    SumsTooLarge { bytes: usize, expanding: P },
    /// Labelling a loopy game would hold more bytes than the limit (that
    /// of the tables).
    LoopyTooLarge { bytes: usize, expanding: P },
    /// A search examined more options than the work limit allows.
    /// `solved` counts the positions solved: of a table or box of `of`
    /// positions when the work was filling one, else of the whole engine.
    TooMuchWork {
        limit: u64,
        examined: u64,
        solved: usize,
        of: Option<NonZeroUsize>,
        /// Boxed, to keep the error small where it is rare.
        expanding: Box<P>,
        /// Values the search under way forgot to keep its table within a
        /// bound, which it may have had to find again, and the bound.
        forgotten: Option<(u64, Bound)>,
        /// Values the search found and kept before it stopped (counting
        /// those it forgot again), where it is a search that keeps them.
        found: Option<u64>,
    },
    /// Memory ran out (an allocation failed) with `solved` positions kept:
    /// the search stops with this error instead of aborting.
    OutOfMemory { solved: usize },
    /// The positions run off without end (see [`Rules::runs_off`] and
    /// [`Rules::grows_forever`]): the first positions of the chain and the
    /// deepest ones.
    RunsOff { start: Vec<P>, deepest: Vec<P> },
}
