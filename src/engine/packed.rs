//! Values kept by packed key. Rules may pack a position into three words
//! (a region of a small board: its game, its board's shape and its cells
//! as bits); the engine then keeps its value beside the key in one hash
//! table, found with one probe, instead of interning the position.

use rustc_hash::FxHashMap as HashMap;

use super::{Grundy, UNSOLVED};

/// A position packed into three words by [`super::Rules::packed`]: what
/// the words mean is the rules' business; equal positions pack alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Packed(pub [u64; 3]);

#[derive(Debug, Default)]
pub(super) struct PackedValues {
    values: HashMap<Packed, Grundy>,
    /// Keys stored since the journal was last cleared, so that a search
    /// that fails can forget them.
    journal: Vec<Packed>,
}

impl PackedValues {
    /// How many positions are stored.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// The state kept for a key: [`UNSOLVED`] when none is.
    #[inline]
    pub fn get(&self, key: Packed) -> Grundy {
        self.values.get(&key).copied().unwrap_or(UNSOLVED)
    }

    /// Sets the state of a key, storing it if it was not.
    pub fn set(&mut self, key: Packed, value: Grundy) {
        debug_assert_ne!(value, UNSOLVED);
        if self.values.insert(key, value).is_none() {
            self.journal.push(key);
        }
    }

    /// Forgets the journal: what is stored now stays.
    pub fn keep(&mut self) {
        self.journal.clear();
    }

    /// Forgets every key stored since the journal was last cleared.
    pub fn roll_back(&mut self) {
        for key in std::mem::take(&mut self.journal) {
            self.values.remove(&key);
        }
    }

    /// Every key stored.
    pub fn keys(&self) -> impl Iterator<Item = Packed> + '_ {
        self.values.keys().copied()
    }

    /// Forgets these keys.
    pub fn forget(&mut self, keys: &[Packed]) {
        keys.iter().for_each(|key| {
            self.values.remove(key);
        });
    }
}
