//! The values an engine has found, taken out to be written down and put
//! back in a later run, and a snapshot handed out now and then during a
//! long search, so that a run killed midway loses little.
//!
//! Only positions kept by a key of fixed form go in: by packed key (the
//! regions of a board, small and large) and by dense address (positions
//! of integers). Interned positions have no such key, and are left out.
//! Every value kept is exact, whether the search that found it finished
//! or not (see `Engine::settle`), so a snapshot taken at any moment
//! holds only true values; positions being expanded hold states, not
//! values, and are not taken.

use std::collections::TryReserveError;
use std::time::{Duration, Instant};

use super::*;

/// Values of an engine by key, and the values ruled out for positions the
/// pruned search did not value (as bits, values below 64).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    pub packed: Vec<(Packed, Grundy)>,
    pub dense: Vec<(Address, Grundy)>,
    pub ruled_out: Vec<(Packed, u64)>,
}

impl Snapshot {
    /// How many values it holds.
    pub fn len(&self) -> usize {
        self.packed.len() + self.dense.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The largest value an engine keeps: the four above are its states.
pub const MAX_GRUNDY: Grundy = LOOPY - 1;

/// Handed a snapshot of the engine now and then during a long search, or
/// why none could be taken (memory for its values refused).
pub type Writer = Box<dyn FnMut(std::result::Result<Snapshot, TryReserveError>) + Send>;

/// The indices below `n`, each once, in steps of about `n / φ` (a step
/// prime to `n`): the first `k` of them, for any `k`, spread evenly over
/// the whole range (a rational fraction such as 5 / 8 would bunch them
/// into 8 runs).
pub(super) fn strided(n: usize) -> impl Iterator<Item = usize> {
    let gcd = |mut a: usize, mut b: usize| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    // n / φ, by the golden ratio's fraction in 64 bits.
    let mut step = ((n as u128 * 0x9e37_79b9_7f4a_7c15) >> 64).max(1) as usize;
    while gcd(step, n) > 1 {
        step += 1;
    }
    let mut index = 0;
    (0..n).map(move |_| {
        let at = index;
        index = (index + step) % n;
        at
    })
}

/// When the engine next hands a snapshot to its writer.
pub struct Checkpoints {
    write: Writer,
    /// The least time between two snapshots.
    every: Duration,
    next: Instant,
}

/// A snapshot costs its writer at most about one part in this many of
/// the search's time: the time between two is at least this many times
/// what the last took.
const SHARE: u32 = 20;

impl Checkpoints {
    /// Snapshots to `write`, the first after `every` and then no more
    /// often than that.
    pub fn new(every: Duration, write: Writer) -> Checkpoints {
        Checkpoints {
            write,
            every,
            next: Instant::now() + every,
        }
    }
}

impl<P: Clone + Eq + Hash + Ord> Engine<P> {
    /// Every value kept by packed key or dense address, and the values
    /// ruled out by packed key; `Err` when memory for them is refused.
    pub fn snapshot(&self) -> std::result::Result<Snapshot, TryReserveError> {
        let packed = || self.packed.entries().filter(|&(_, value)| value < LOOPY);
        let dense = || {
            let dense = self.dense.addresses().map(|at| (at, self.dense.get(at)));
            dense.filter(|&(_, value)| value < LOOPY)
        };
        let ruled_out = || {
            self.ruled_out.iter().filter_map(|(key, bits)| match key {
                Key::Packed(packed) => Some((packed, bits)),
                Key::Dense(_) | Key::Interned(_) => None,
            })
        };
        let mut snapshot = Snapshot::default();
        snapshot.packed.try_reserve_exact(packed().count())?;
        snapshot.packed.extend(packed());
        snapshot.dense.try_reserve_exact(dense().count())?;
        snapshot.dense.extend(dense());
        snapshot.ruled_out.try_reserve_exact(ruled_out().count())?;
        snapshot.ruled_out.extend(ruled_out());
        Ok(snapshot)
    }

    /// Keeps the values of a snapshot the engine does not know yet, as
    /// many as its limits leave room for with a sixteenth of each to spare
    /// (the search then forgets what it must, and the memo inside it has
    /// room; a value above [`MAX_GRUNDY`] is not one, and is passed over);
    /// returns how many it kept. The snapshot is trusted: its values must
    /// be those of these rules.
    pub fn restore(&mut self, snapshot: &Snapshot) -> usize {
        let before = self.states();
        let unknown = |kept: Grundy| kept == UNSOLVED || kept == QUEUED;
        // A snapshot lists its values in the order of the table they came
        // from, the order of their hashes: stored in that order, the ones
        // of the smallest hashes pile up in a few slots of a table that
        // doubles as it fills, or of one with room for only some of them
        // (see `Table::reserve`). They are taken in an order that strides
        // across the snapshot instead (a sample at random, where only some
        // are taken), and room is made for as many as the limits leave
        // room for first. Room refused here is asked for again value by
        // value, which stops where memory ends.
        let values = || {
            strided(snapshot.packed.len())
                .map(|i| snapshot.packed[i])
                .filter(|&(_, value)| value <= MAX_GRUNDY)
        };
        let spared = |limit: usize| limit - limit.div_ceil(16);
        let states = spared(self.max_states).saturating_sub(before);
        let bytes = spared(self.max_table - self.max_table / RULED_OUT_SHARE);
        let keys = values().map(|(key, _)| key);
        let room = self.packed.make_room_for(keys, states, bytes);
        let made = room.is_ok();
        let mut room = room.unwrap_or(states);
        for (key, value) in values() {
            let kept = self.packed.get(key);
            if !unknown(kept) {
                continue;
            }
            if kept != QUEUED {
                if room == 0 {
                    break;
                }
                // The keys taken have about the mix of tables room was
                // made for; one whose table is full is passed over.
                if made && !self.packed.has_room(key) {
                    continue;
                }
                if !made && (self.packed.pressed(key, bytes) || self.packed.make_room(key).is_err())
                {
                    break;
                }
                room -= 1;
            }
            self.packed.take_in(key, value);
        }
        for &(address, value) in &snapshot.dense {
            let kept = self.dense.get(address);
            if value > MAX_GRUNDY || !unknown(kept) {
                continue;
            }
            if kept == QUEUED {
                self.dense.set(address, value);
            } else if self.states() >= before + states || !self.dense.insert(address, value) {
                break;
            }
        }
        // Saved in the order of the cache's sets: room is made first, or
        // they would pile into a few sets of a small cache.
        let packed = &self.packed;
        let noted = (snapshot.ruled_out.iter())
            .filter(|&&(key, _)| packed.get(key) >= LOOPY)
            .map(|&(key, _)| Key::Packed(key));
        self.ruled_out.reserve(noted);
        for &(key, bits) in &snapshot.ruled_out {
            if self.packed.get(key) >= LOOPY {
                self.ruled_out.add(Key::Packed(key), bits);
            }
        }
        self.packed.keep();
        self.dense.keep();
        self.lines.clear();
        self.endgames.clear();
        self.states() - before
    }

    /// Sets (or clears) the writer handed a snapshot now and then during a
    /// search.
    pub fn set_checkpoints(&mut self, checkpoints: Option<Checkpoints>) {
        self.checkpoints = checkpoints;
    }

    /// Hands a snapshot to the writer if it is time: called with the
    /// watcher, between steps of a search, where every value kept is
    /// exact.
    pub(super) fn checkpoint(&mut self) {
        let Some(mut checkpoints) = self.checkpoints.take() else {
            return;
        };
        let now = Instant::now();
        if now >= checkpoints.next {
            (checkpoints.write)(self.snapshot());
            let took = now.elapsed();
            checkpoints.next = Instant::now() + checkpoints.every.max(took * SHARE);
        }
        self.checkpoints = Some(checkpoints);
    }
}
