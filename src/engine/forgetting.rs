//! Values forgotten to keep the pruned search within a bound on memory.
//!
//! A long search of a large board (Cram 4 × 11, Node Kayles 3 × 28) keeps
//! the value of every region it valued, and would outgrow memory. The
//! table of values by packed key (`engine/packed.rs`) is therefore held to
//! `--max-table` bytes, and to `--max-states` positions: when the pruned
//! search would store a key past either, it first forgets half of what it
//! may forget, cheapest to find again first, and goes on. A value
//! forgotten is found again by a search when it is next asked; answers
//! stay exact, only the work grows.
//!
//! What may be forgotten, and when (the invariant):
//!
//! - Only keys stored by packed key, whose state is a value or
//!   [`QUEUED`] (stored, not being valued). Never a key being expanded
//!   ([`EXPANDING`]: the search's path, and the memo's stack, which a
//!   cycle is found by) nor one known to reach a cycle ([`LOOPY`]).
//! - Only while a pruned search or mirror proof is under way
//!   (`Engine::searching`, from the position asked down, its own
//!   mirror proof included) and no memo search (`Engine::solve`) is. The memo
//!   solves the parts of a position and then reads their values from the
//!   table; the pruned search reads a value only when it asks for it
//!   ([`Engine::known`] and the folds), and takes a missing one for
//!   unknown. So between two memo searches no one relies on a value
//!   staying. The memo, inside a search, stores what it finds in the room
//!   left (a sixteenth of the table), and grows the table past the bound
//!   only if that is not enough.
//! - Values are forgotten only as the search stores a new key
//!   (`Engine::intern`); a key it stored a moment ago and forgot is
//!   stored again when its state is set.
//!
//! What is forgotten first: keys [`QUEUED`] with no value ruled out (they
//! hold nothing), then values and ruled-out values of the smallest
//! regions (the rules' [`Rules::packed_weight`]), which the memo finds
//! again at little cost, where the search's larger regions each cost a
//! search.

use super::*;

/// The classes of keys by how cheap they are to find again, cheapest
/// first: a weight is counted up to this.
const HEAVIEST: usize = 255;

impl<P: Clone + Eq + Hash + Ord> Engine<P> {
    /// Sets the most bytes the table of packed values may hold while the
    /// pruned search fills it.
    pub fn set_max_table(&mut self, bytes: usize) {
        self.max_table = bytes;
        self.most_missing = most_missing::<P>(bytes);
        self.ruled_out.bound(bytes / RULED_OUT_SHARE);
        self.endgames
            .bound((bytes / RULED_OUT_SHARE).min(ENDGAME_BYTES));
    }

    /// The most bytes the table of packed values may hold.
    pub fn max_table(&self) -> usize {
        self.max_table
    }

    /// The bytes the table of packed values holds, and the most it held
    /// (the values ruled out beside it not counted).
    pub fn table_bytes(&self) -> (usize, usize) {
        (self.packed.bytes(), self.packed.peak_bytes())
    }

    /// Values forgotten to keep the table within its bound, since the
    /// engine began.
    pub fn forgotten(&self) -> u64 {
        self.forgotten
    }

    /// The bytes the values ruled out hold.
    pub(super) fn ruled_out_bytes(&self) -> usize {
        self.ruled_out.bytes()
    }

    /// Whether values may be forgotten now (see the invariant above).
    fn may_forget(&self) -> bool {
        self.memo_depth == 0 && self.searching
    }

    /// Runs a pruned search or mirror proof from the position asked:
    /// values may be forgotten while it runs (the position asked among
    /// them, before its expansion: it is stored again as it is expanded
    /// or given its value).
    pub(super) fn searching<T>(&mut self, search: impl FnOnce(&mut Self) -> T) -> T {
        let outer = std::mem::replace(&mut self.searching, true);
        let found = search(self);
        self.searching = outer;
        found
    }

    /// Before `key` is stored by the pruned search: forgets half of what
    /// may be forgotten if storing it would pass the table's bound or the
    /// state limit.
    pub(super) fn forget_if_full<R>(&mut self, rules: &R, key: Packed)
    where
        R: Rules<Position = P>,
    {
        if !self.may_forget() {
            return;
        }
        // The journal lets a search that fails forget what it stored; past
        // the bound it is given up instead: the values stay, and are true.
        self.packed.keep_within(self.max_table);
        // The values ruled out beside the table count toward its bound, at
        // the most they may take.
        let limit = self.max_table - self.max_table / RULED_OUT_SHARE;
        // So with the limit of states: the memo inside the search is left
        // a sixteenth of it.
        let states_left = self.max_states - self.states().min(self.max_states);
        let within = match states_left <= self.max_states / 16 {
            true => Some(Bound::States(self.max_states)),
            false => self
                .packed
                .pressed(key, limit)
                .then_some(Bound::Table(self.max_table)),
        };
        if let Some(within) = within {
            self.forgot_within = within;
            self.forget_cheapest(rules);
        }
    }

    /// Forgets half of the keys that may be forgotten, cheapest first
    /// (see the module's comment), with the values ruled out for them;
    /// returns how many went.
    pub(super) fn forget_cheapest<R>(&mut self, rules: &R) -> usize
    where
        R: Rules<Position = P>,
    {
        let ruled_out = &self.ruled_out;
        let class = |key: Packed, state: Grundy| match state {
            QUEUED if ruled_out.get(&Key::Packed(key)) == 0 => Some(0),
            state if state < LOOPY || state == QUEUED => {
                let weight = rules.packed_weight(key).min(HEAVIEST as u64 - 1);
                Some(1 + weight as usize)
            }
            _ => None,
        };
        let mut counts = [0usize; HEAVIEST + 1];
        for (key, state) in self.packed.entries() {
            if let Some(class) = class(key, state) {
                counts[class] += 1;
            }
        }
        // The class at which half the keys that may go are reached, and
        // how many of it go.
        let mut left = counts.iter().sum::<usize>() / 2;
        let mut last = 0;
        while last < HEAVIEST && counts[last] < left {
            left -= counts[last];
            last += 1;
        }
        let went = self.packed.retain(|key, state| match class(key, state) {
            Some(class) if class < last => false,
            Some(class) if class == last && left > 0 => {
                left -= 1;
                false
            }
            _ => true,
        });
        self.forgotten += went as u64;
        went
    }
}
