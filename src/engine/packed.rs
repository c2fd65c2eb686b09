//! Values kept by packed key. Rules may pack a position into three words
//! (a region of a small board: its game, its board's shape and its cells
//! as bits); the engine then keeps its value beside the key in one hash
//! table, found with one probe, instead of interning the position.

use std::collections::TryReserveError;

use rustc_hash::FxHashMap as HashMap;

use super::{Grundy, UNSOLVED};

/// A position packed into three words by [`super::Rules::packed`]: what
/// the words mean is the rules' business; equal positions pack alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Packed(pub [u64; 3]);

/// Keys are kept in the least of three tables they fit: one word when
/// the first word is below 2^24 and the second below 2^40 (say, a board
/// of at most 40 nodes), two words when the third is zero (at most 64), or
/// all three. Smaller entries make for fewer cache misses in the probes
/// that are most of a large search's time.
#[derive(Debug, Default)]
pub(super) struct PackedValues {
    one: HashMap<u64, Grundy>,
    two: HashMap<[u64; 2], Grundy>,
    three: HashMap<Packed, Grundy>,
    /// Keys stored since the journal was last cleared, so that a search
    /// that fails can forget them.
    journal: Vec<Packed>,
}

/// A key as kept: in one, two or three words.
enum Stored {
    One(u64),
    Two([u64; 2]),
    Three(Packed),
}

impl Stored {
    #[inline(always)]
    fn of(key: Packed) -> Stored {
        match key.0 {
            [head, low, 0] if head < 1 << 24 && low < 1 << 40 => Stored::One(head << 40 | low),
            [head, low, 0] => Stored::Two([head, low]),
            _ => Stored::Three(key),
        }
    }
}

impl PackedValues {
    /// How many positions are stored.
    pub fn len(&self) -> usize {
        self.one.len() + self.two.len() + self.three.len()
    }

    /// The state kept for a key: [`UNSOLVED`] when none is.
    #[inline]
    pub fn get(&self, key: Packed) -> Grundy {
        let kept = match Stored::of(key) {
            Stored::One(key) => self.one.get(&key),
            Stored::Two(key) => self.two.get(&key),
            Stored::Three(key) => self.three.get(&key),
        };
        kept.copied().unwrap_or(UNSOLVED)
    }

    /// Makes room to store a key, so that [`PackedValues::set`] does not
    /// allocate; `Err` when memory ran out.
    pub fn make_room(&mut self, key: Packed) -> Result<(), TryReserveError> {
        super::room(&mut self.journal, 1)?;
        match Stored::of(key) {
            Stored::One(_) => self.one.try_reserve(1),
            Stored::Two(_) => self.two.try_reserve(1),
            Stored::Three(_) => self.three.try_reserve(1),
        }
    }

    /// Sets the state of a key, storing it if it was not.
    pub fn set(&mut self, key: Packed, value: Grundy) {
        debug_assert_ne!(value, UNSOLVED);
        let before = match Stored::of(key) {
            Stored::One(one) => self.one.insert(one, value),
            Stored::Two(two) => self.two.insert(two, value),
            Stored::Three(three) => self.three.insert(three, value),
        };
        if before.is_none() {
            self.journal.push(key);
        }
    }

    fn remove(&mut self, key: Packed) {
        match Stored::of(key) {
            Stored::One(key) => self.one.remove(&key),
            Stored::Two(key) => self.two.remove(&key),
            Stored::Three(key) => self.three.remove(&key),
        };
    }

    /// Forgets the journal: what is stored now stays.
    pub fn keep(&mut self) {
        self.journal.clear();
    }

    /// Forgets every key stored since the journal was last cleared.
    pub fn roll_back(&mut self) {
        for key in std::mem::take(&mut self.journal) {
            self.remove(key);
        }
    }

    /// Every key stored.
    pub fn keys(&self) -> impl Iterator<Item = Packed> + '_ {
        let one = self
            .one
            .keys()
            .map(|&key| Packed([key >> 40, key & ((1 << 40) - 1), 0]));
        let two = self.two.keys().map(|&[head, low]| Packed([head, low, 0]));
        one.chain(two).chain(self.three.keys().copied())
    }

    /// Forgets these keys.
    pub fn forget(&mut self, keys: &[Packed]) {
        keys.iter().for_each(|&key| self.remove(key));
    }
}
