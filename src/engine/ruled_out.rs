//! The values the pruned search has ruled out for the components it asked
//! about without finding their values.
//!
//! When the search asks whether a component's value is among some values
//! and learns only that it is not, it notes those values here, so that
//! the same question asked again is answered without a search. A note is
//! only a saving: a component without one is searched again, and finds
//! the same answer. The notes are therefore kept in a cache of bounded
//! size, not a map that grows with the search: slots in sets of four, a
//! key in one of the four slots its hash names, a new key in the first
//! slot and the others moved down one (the last one's note dropped) when
//! all four are taken. The cache starts small and doubles when a set is
//! full and half the slots are taken, while it is under its bound, so that
//! a small search keeps a small cache; at the bound it forgets the oldest
//! notes of each set.
//!
//! On Cram 4 × 9 the search notes about 700,000 components; a map of
//! them took 29 MB and a tenth of the search's time in its probes.

use std::hash::BuildHasher;

use rustc_hash::FxBuildHasher;

use super::Key;

/// A slot: a key and the bits of the values below 64 ruled out for it.
type Slot = Option<(Key, u64)>;

/// The bytes a slot takes.
pub(super) const SLOT_BYTES: usize = size_of::<Slot>();

/// The slots a key may be kept in.
const WAYS: usize = 4;

/// The fewest slots the cache has once it holds a note, unless its bound
/// is smaller.
const FEWEST: usize = 1 << 6;

/// Values ruled out by key, in a cache of bounded size (see the module's
/// comment).
#[derive(Debug)]
pub(super) struct RuledOut {
    slots: Vec<Slot>,
    /// Slots taken.
    len: usize,
    /// The most slots the cache grows to.
    most: usize,
}

impl Default for RuledOut {
    fn default() -> Self {
        RuledOut::within(usize::MAX)
    }
}

impl RuledOut {
    /// A cache that grows to at most `bytes` (and at least one set of
    /// slots).
    pub fn within(bytes: usize) -> RuledOut {
        let most = (bytes / SLOT_BYTES).max(WAYS);
        RuledOut {
            slots: Vec::new(),
            len: 0,
            most: prev_power_of_two(most),
        }
    }

    /// Bounds the cache to `bytes`, dropping every note if it holds more.
    pub fn bound(&mut self, bytes: usize) {
        let bounded = RuledOut::within(bytes);
        if self.slots.len() > bounded.most {
            *self = bounded;
        } else {
            self.most = bounded.most;
        }
    }

    /// The first of the set of slots for `key`.
    fn set(&self, key: &Key) -> usize {
        let hash = FxBuildHasher.hash_one(key);
        let bits = self.slots.len().trailing_zeros();
        ((hash >> (64 - bits)) as usize) & !(WAYS - 1)
    }

    /// The slot that holds `key`, if one does.
    fn find(&self, key: &Key) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        let first = self.set(key);
        (first..first + WAYS)
            .find(|&slot| matches!(&self.slots[slot], Some((kept, _)) if kept == key))
    }

    /// The bits of the values below 64 ruled out for `key` (none if it has
    /// no note).
    #[inline]
    pub fn get(&self, key: &Key) -> u64 {
        match self.find(key) {
            Some(slot) => self.slots[slot].map_or(0, |(_, bits)| bits),
            None => 0,
        }
    }

    /// Notes that the values of `bits` are ruled out for `key`.
    pub fn add(&mut self, key: Key, bits: u64) {
        if bits == 0 {
            return;
        }
        if let Some(slot) = self.find(&key) {
            if let Some((_, kept)) = &mut self.slots[slot] {
                *kept |= bits;
            }
            return;
        }
        loop {
            if !self.slots.is_empty() {
                // A full set at less than half the slots taken is bad luck,
                // not a reason to double.
                let full = self.slots.len() >= self.most || self.len < self.slots.len() / 2;
                let first = self.set(&key);
                let set = &mut self.slots[first..first + WAYS];
                if let Some(slot) = set.iter_mut().find(|slot| slot.is_none()) {
                    *slot = Some((key, bits));
                    self.len += 1;
                    return;
                }
                if full {
                    // All taken: the oldest goes.
                    set.rotate_right(1);
                    set[0] = Some((key, bits));
                    return;
                }
            }
            if !self.grow() {
                return;
            }
        }
    }

    /// Drops the note for `key`, once its value is known.
    pub fn remove(&mut self, key: &Key) {
        if let Some(slot) = self.find(key) {
            self.slots[slot] = None;
            self.len -= 1;
        }
    }

    /// Drops every note, and the room they took.
    pub fn clear(&mut self) {
        self.slots = Vec::new();
        self.len = 0;
    }

    /// The bytes the cache holds.
    pub fn bytes(&self) -> usize {
        self.slots.capacity() * SLOT_BYTES
    }

    /// How many notes the cache holds.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.len
    }

    /// Every note.
    pub fn iter(&self) -> impl Iterator<Item = (Key, u64)> + '_ {
        self.slots.iter().flatten().copied()
    }

    /// Doubles the slots (from the fewest), placing the notes again; a
    /// note that finds its set taken is dropped. Without memory for more,
    /// the cache stays as it is and stops growing: `false` then, if it has
    /// no slots.
    fn grow(&mut self) -> bool {
        let slots = (self.slots.len() * 2).max(FEWEST).min(self.most);
        let mut grown: Vec<Slot> = Vec::new();
        if grown.try_reserve_exact(slots).is_err() {
            self.most = self.slots.len();
            return !self.slots.is_empty();
        }
        grown.resize(slots, None);
        let old = std::mem::replace(&mut self.slots, grown);
        self.len = 0;
        for (key, bits) in old.into_iter().flatten() {
            let first = self.set(&key);
            if let Some(slot) = (first..first + WAYS).find(|&slot| self.slots[slot].is_none()) {
                self.slots[slot] = Some((key, bits));
                self.len += 1;
            }
        }
        true
    }
}

/// The largest power of two at most `n` (`n` at least 1).
fn prev_power_of_two(n: usize) -> usize {
    1 << (usize::BITS - 1 - n.leading_zeros())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::packed::Packed;

    fn key(n: u64) -> Key {
        Key::Packed(Packed([n, n.rotate_left(17), 0]))
    }

    #[test]
    fn notes_are_read_back_and_joined() {
        let mut cache = RuledOut::default();
        cache.add(key(1), 0b01);
        cache.add(key(1), 0b10);
        cache.add(key(2), 0b100);
        assert_eq!(cache.get(&key(1)), 0b11);
        assert_eq!(cache.get(&key(2)), 0b100);
        assert_eq!(cache.get(&key(3)), 0);
        cache.remove(&key(1));
        assert_eq!(cache.get(&key(1)), 0);
        assert_eq!(cache.len(), 1);
    }

    #[test]
    fn a_bounded_cache_keeps_to_its_bound_and_never_answers_wrongly() {
        let mut cache = RuledOut::within(1000 * SLOT_BYTES);
        for n in 0..100_000 {
            cache.add(key(n), n | 1);
        }
        assert_eq!(cache.bytes(), 512 * SLOT_BYTES);
        assert!(cache.len() <= 512);
        // What it kept is what was noted; what it dropped reads as none.
        let kept = (0..100_000).filter(|&n| cache.get(&key(n)) != 0).count();
        assert_eq!(kept, cache.len());
        assert!((0..100_000).all(|n| [0, n | 1].contains(&cache.get(&key(n)))));
        // The newest note is always kept.
        assert_eq!(cache.get(&key(99_999)), 99_999);
    }

    #[test]
    fn an_unbounded_cache_grows_and_keeps_most_notes() {
        let mut cache = RuledOut::default();
        for n in 0..10_000 {
            cache.add(key(n), 1 << (n % 64));
        }
        let kept = (0..10_000)
            .filter(|&n| cache.get(&key(n)) == 1 << (n % 64))
            .count();
        assert!(kept > 9_000, "kept {kept} of 10,000");
        assert_eq!(kept, cache.len());
    }
}
