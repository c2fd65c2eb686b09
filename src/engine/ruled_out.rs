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
//! Every question the search asks of a component not valued yet probes
//! the cache, and the probe is mostly a miss of the processor's caches:
//! a set is laid out on cache lines of its own, and the keys packed into
//! one word (boards of up to 40 nodes) are kept in sets of 16-byte slots,
//! one cache line a set, apart from the others (40-byte slots).
//!
//! On Cram 4 × 9 the search notes about 700,000 components; a map of
//! them took 29 MB and a tenth of the search's time in its probes.

use std::hash::{BuildHasher, Hash};

use rustc_hash::FxBuildHasher;

use super::Key;
use super::packed::Packed;

/// The slots a key may be kept in.
const WAYS: usize = 4;

/// The fewest sets a cache has once it holds a note, unless its bound is
/// smaller.
const FEWEST: usize = 1 << 4;

/// A key as a slot keeps it.
trait Tag: Copy + Eq + Hash {
    /// What a free slot holds (beside no bits: a note has some).
    const FREE: Self;
    /// A hash whose high bits are spread.
    fn hash(&self) -> u64;
}

/// A packed key in one word (see [`Packed::one_word`]).
impl Tag for u64 {
    const FREE: Self = 0;
    /// Fibonacci hashing: the high bits of a word's product by 2^64 / φ
    /// depend on all of its bits, low and high.
    fn hash(&self) -> u64 {
        self.wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }
}

impl Tag for Key {
    const FREE: Self = Key::Interned(usize::MAX);
    fn hash(&self) -> u64 {
        FxBuildHasher.hash_one(self)
    }
}

/// The slots a key may be kept in, each a key and the bits of the values
/// below 64 ruled out for it (none in a free slot), on cache lines of
/// their own.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
struct Set<K> {
    slots: [(K, u64); WAYS],
}

/// Notes by keys of one kind, in sets of [`WAYS`] slots.
#[derive(Debug)]
struct Ways<K> {
    sets: Vec<Set<K>>,
    /// Slots taken.
    len: usize,
    /// The most sets it may have: lowered to those it has when memory for
    /// more is refused, so that it stops trying.
    ceiling: usize,
}

impl<K: Tag> Ways<K> {
    const SET_BYTES: usize = size_of::<Set<K>>();

    fn new() -> Self {
        Ways {
            sets: Vec::new(),
            len: 0,
            ceiling: usize::MAX,
        }
    }

    /// The set for `key` (of at least one set).
    #[inline(always)]
    fn set(&self, key: &K) -> usize {
        let hash = Tag::hash(key);
        let bits = self.sets.len().trailing_zeros();
        (hash >> (63 - bits) >> 1) as usize
    }

    /// The set and slot that hold `key`, if one does.
    #[inline(always)]
    fn find(&self, key: &K) -> Option<(usize, usize)> {
        if self.sets.is_empty() {
            return None;
        }
        let set = self.set(key);
        let slots = &self.sets[set].slots;
        (0..WAYS)
            .find(|&way| slots[way].1 != 0 && slots[way].0 == *key)
            .map(|way| (set, way))
    }

    /// Asks the processor to bring `key`'s set into its cache.
    #[inline(always)]
    fn prefetch(&self, key: &K) {
        if !self.sets.is_empty() {
            prefetch(&self.sets[self.set(key)]);
        }
    }

    fn get(&self, key: &K) -> u64 {
        self.find(key)
            .map_or(0, |(set, way)| self.sets[set].slots[way].1)
    }

    /// Notes `bits` for `key`, in at most `most` sets.
    fn add(&mut self, key: K, bits: u64, most: usize) {
        if bits == 0 {
            return;
        }
        if let Some((set, way)) = self.find(&key) {
            self.sets[set].slots[way].1 |= bits;
            return;
        }
        loop {
            let most = most.min(self.ceiling);
            if !self.sets.is_empty() {
                // A full set at less than half the slots taken is bad luck,
                // not a reason to double.
                let full = self.sets.len() >= most || self.len < self.sets.len() * WAYS / 2;
                let set = self.set(&key);
                let slots = &mut self.sets[set].slots;
                if let Some(slot) = slots.iter_mut().find(|slot| slot.1 == 0) {
                    *slot = (key, bits);
                    self.len += 1;
                    return;
                }
                if full {
                    // All taken: the oldest goes.
                    slots.rotate_right(1);
                    slots[0] = (key, bits);
                    return;
                }
            }
            if !self.grow(most) {
                return;
            }
        }
    }

    /// Grows the sets (to at most `most`) until `notes` more fill no more
    /// than half the slots, as adding them one by one would if they came
    /// in no order; notes that come in the order of another cache's sets
    /// (a table saved and resumed) would pile into a few sets of a small
    /// one, which does not grow while it is less than half full.
    fn reserve(&mut self, notes: usize, most: usize) {
        let wanted = (self.len + notes).saturating_mul(2).div_ceil(WAYS);
        while self.sets.len() < wanted.min(most.min(self.ceiling)) {
            if !self.grow(most) {
                return;
            }
        }
    }

    fn remove(&mut self, key: &K) {
        if let Some((set, way)) = self.find(key) {
            self.sets[set].slots[way] = (K::FREE, 0);
            self.len -= 1;
        }
    }

    fn bytes(&self) -> usize {
        self.sets.capacity() * Self::SET_BYTES
    }

    fn iter(&self) -> impl Iterator<Item = (K, u64)> + '_ {
        self.sets
            .iter()
            .flat_map(|set| set.slots)
            .filter(|&(_, bits)| bits != 0)
    }

    /// Doubles the sets (from the fewest, to at most `most`), placing the
    /// notes again; a note that finds its set taken is dropped. At `most`
    /// the cache stays as it is: `false` then. Without memory for more it
    /// stays as it is and stops growing: `false` then only if it has no
    /// sets, else the note to add takes the place of its set's oldest.
    fn grow(&mut self, most: usize) -> bool {
        let sets = (self.sets.len() * 2).max(FEWEST).min(most).max(1);
        if sets <= self.sets.len() {
            return false;
        }
        let mut grown: Vec<Set<K>> = Vec::new();
        if grown.try_reserve_exact(sets).is_err() {
            self.ceiling = self.sets.len();
            return !self.sets.is_empty();
        }
        super::huge_pages::advise(grown.spare_capacity_mut());
        grown.resize(
            sets,
            Set {
                slots: [(K::FREE, 0); WAYS],
            },
        );
        let old = std::mem::replace(&mut self.sets, grown);
        self.len = 0;
        for (key, bits) in old.iter().flat_map(|set| set.slots) {
            if bits == 0 {
                continue;
            }
            let set = self.set(&key);
            if let Some(slot) = self.sets[set].slots.iter_mut().find(|slot| slot.1 == 0) {
                *slot = (key, bits);
                self.len += 1;
            }
        }
        true
    }
}

/// Values ruled out by key, in a cache of bounded size (see the module's
/// comment).
#[derive(Debug)]
pub(super) struct RuledOut {
    /// Notes by packed keys of one word.
    narrow: Ways<u64>,
    /// Notes by every other key.
    wide: Ways<Key>,
    /// The most bytes the two take.
    most: usize,
}

impl Default for RuledOut {
    fn default() -> Self {
        RuledOut::within(usize::MAX)
    }
}

/// A key's word in the narrow cache, if it packs into one.
#[inline(always)]
fn narrow(key: &Key) -> Option<u64> {
    match key {
        Key::Packed(packed) => packed.one_word(),
        _ => None,
    }
}

impl RuledOut {
    /// A cache that grows to at most `bytes` (and at least one set of
    /// slots of each kind).
    pub fn within(bytes: usize) -> RuledOut {
        RuledOut {
            narrow: Ways::new(),
            wide: Ways::new(),
            most: bytes,
        }
    }

    /// Bounds the cache to `bytes`, dropping every note if it holds more.
    pub fn bound(&mut self, bytes: usize) {
        if self.bytes() > bytes {
            *self = RuledOut::within(bytes);
        } else {
            self.most = bytes;
        }
    }

    /// The bits of the values below 64 ruled out for `key` (none if it has
    /// no note).
    #[inline]
    pub fn get(&self, key: &Key) -> u64 {
        match narrow(key) {
            Some(word) => self.narrow.get(&word),
            None => self.wide.get(key),
        }
    }

    /// Starts bringing the note for a packed key of one word into the
    /// processor's cache, so that the probe that follows (after the probe
    /// of the table of values) waits for memory at the same time as it.
    #[inline]
    pub fn prefetch(&self, key: Packed) {
        if let Some(word) = key.one_word() {
            self.narrow.prefetch(&word);
        }
    }

    /// Notes that the values of `bits` are ruled out for `key`.
    pub fn add(&mut self, key: Key, bits: u64) {
        match narrow(&key) {
            Some(word) => {
                let most = self.most_narrow_sets();
                self.narrow.add(word, bits, most);
            }
            None => {
                let most = self.most_wide_sets();
                self.wide.add(key, bits, most);
            }
        }
    }

    /// Makes room for `keys`' notes before they are added (see
    /// [`Ways::reserve`]).
    pub fn reserve(&mut self, keys: impl Iterator<Item = Key>) {
        let (mut narrows, mut wides) = (0, 0);
        for key in keys {
            match narrow(&key) {
                Some(_) => narrows += 1,
                None => wides += 1,
            }
        }
        self.narrow.reserve(narrows, self.most_narrow_sets());
        self.wide.reserve(wides, self.most_wide_sets());
    }

    /// The most sets each kind may grow to: into what the other leaves of
    /// the bound, in a power of two of sets.
    fn most_narrow_sets(&self) -> usize {
        let room = self.most.saturating_sub(self.wide.bytes());
        1 << (room / Ways::<u64>::SET_BYTES).max(1).ilog2()
    }

    /// See [`RuledOut::most_narrow_sets`].
    fn most_wide_sets(&self) -> usize {
        let room = self.most.saturating_sub(self.narrow.bytes());
        1 << (room / Ways::<Key>::SET_BYTES).max(1).ilog2()
    }

    /// Drops the note for `key`, once its value is known.
    pub fn remove(&mut self, key: &Key) {
        match narrow(key) {
            Some(word) => self.narrow.remove(&word),
            None => self.wide.remove(key),
        }
    }

    /// Drops every note, and the room they took.
    pub fn clear(&mut self) {
        *self = RuledOut::within(self.most);
    }

    /// The bytes the cache holds.
    pub fn bytes(&self) -> usize {
        self.narrow.bytes() + self.wide.bytes()
    }

    /// How many notes the cache holds.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.narrow.len + self.wide.len
    }

    /// Every note.
    pub fn iter(&self) -> impl Iterator<Item = (Key, u64)> + '_ {
        let narrow = self.narrow.iter();
        narrow
            .map(|(word, bits)| (Key::Packed(Packed::from_one_word(word)), bits))
            .chain(self.wide.iter())
    }
}

/// Asks the processor to bring the cache line at `at` into its caches,
/// without waiting for it.
#[inline(always)]
fn prefetch<T>(at: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint: it reads nothing and cannot fault.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>((at as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key of three words, kept in the wide cache.
    fn key(n: u64) -> Key {
        Key::Packed(Packed([n, n.rotate_left(17) | 1 << 63, 0]))
    }

    /// A key that packs into one word, kept in the narrow cache.
    fn small(n: u64) -> Key {
        Key::Packed(Packed([n % 1000, n / 1000, 0]))
    }

    #[test]
    fn notes_are_read_back_and_joined() {
        for key in [key, small] {
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
            assert_eq!(cache.iter().collect::<Vec<_>>(), vec![(key(2), 0b100)]);
        }
    }

    #[test]
    fn the_key_of_nodes_none_and_interned_keys_are_kept() {
        let mut cache = RuledOut::default();
        cache.add(small(0), 1);
        cache.add(Key::Interned(7), 2);
        assert_eq!(cache.get(&small(0)), 1);
        assert_eq!(cache.get(&Key::Interned(7)), 2);
        assert_eq!(cache.get(&Key::Interned(8)), 0);
    }

    #[test]
    fn a_bounded_cache_keeps_to_its_bound_and_never_answers_wrongly() {
        for key in [key, small] {
            let bound = 1000 * 40;
            let mut cache = RuledOut::within(bound);
            for n in 0..100_000 {
                cache.add(key(n), n | 1);
            }
            assert!(cache.bytes() <= bound, "{} bytes", cache.bytes());
            assert!(cache.bytes() > bound / 4, "{} bytes", cache.bytes());
            // What it kept is what was noted; what it dropped reads as none.
            let kept = (0..100_000).filter(|&n| cache.get(&key(n)) != 0).count();
            assert_eq!(kept, cache.len());
            assert!((0..100_000).all(|n| [0, n | 1].contains(&cache.get(&key(n)))));
            // The newest note is always kept.
            assert_eq!(cache.get(&key(99_999)), 99_999);
        }
    }

    #[test]
    fn both_kinds_share_one_bound() {
        let bound = 64 * 1024;
        let mut cache = RuledOut::within(bound);
        for n in 0..100_000 {
            cache.add(key(n), 1);
            cache.add(small(n), 1);
        }
        assert!(cache.bytes() <= bound, "{} bytes", cache.bytes());
        cache.bound(bound / 8);
        assert_eq!(cache.len(), 0);
        cache.add(small(5), 1);
        assert!(cache.bytes() <= bound / 8);
    }

    #[test]
    fn an_unbounded_cache_grows_and_keeps_most_notes() {
        for key in [key, small] {
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
}
