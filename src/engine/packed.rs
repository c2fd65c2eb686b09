//! Values kept by packed key. Rules may pack a position into three words
//! (a region of a small board: its game, its board's shape and its cells
//! as bits); the engine then keeps its value beside the key in one hash
//! table, found with one probe, instead of interning the position.
//!
//! The tables are open-addressed with linear probing: a slot is a key and
//! a byte of state, in two arrays, so that a probe that misses reads the
//! keys alone and a slot costs 9, 17 or 25 bytes with nothing besides.
//! Their bytes are counted, so that the engine can keep them within a
//! bound (see `Engine::forget_cheapest`).

use std::collections::TryReserveError;

use rustc_hash::FxHashMap as HashMap;

use super::{EXPANDING, Grundy, LOOPY, QUEUED, UNSOLVED};

/// A position packed into three words by [`super::Rules::packed`]: what
/// the words mean is the rules' business; equal positions pack alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Packed(pub [u64; 3]);

impl Packed {
    /// The key in one word, when its first word is below 2^24 and its
    /// second below 2^40 (the key of a board of at most 40 nodes, say).
    #[inline(always)]
    pub(super) fn one_word(self) -> Option<u64> {
        match self.0 {
            [head, low, 0] if head < 1 << 24 && low < 1 << 40 => Some(head << 40 | low),
            _ => None,
        }
    }

    /// The key's hash, as the table of its three words hashes it: its high
    /// bits are spread (see [`Word::hash`]).
    #[inline(always)]
    pub(super) fn hash(self) -> u64 {
        self.0.hash()
    }

    /// The key whose [`Packed::one_word`] is `word`.
    pub(super) fn from_one_word(word: u64) -> Packed {
        Packed([word >> 40, word & ((1 << 40) - 1), 0])
    }
}

/// Keys are kept in the least of three tables they fit: one word when
/// the first word is below 2^24 and the second below 2^40 (say, a board
/// of at most 40 nodes), two words when the third is zero (at most 64), or
/// all three. Smaller entries make for fewer cache misses in the probes
/// that are most of a large search's time.
#[derive(Debug, Default)]
pub(super) struct PackedValues {
    one: Table<u64>,
    two: Table<[u64; 2]>,
    three: Table<[u64; 3]>,
    /// Values too large for a state byte (the byte then says [`BIG`]).
    big: HashMap<Packed, Grundy>,
    /// The states of keys that pack to their table's empty slot.
    odd: HashMap<Packed, Grundy>,
    /// Keys stored since the journal was last cleared, so that a search
    /// that fails can forget them.
    journal: Vec<Packed>,
    /// The most bytes the tables and the journal held at once.
    peak: usize,
}

/// A key as kept: in one, two or three words, or in the map of odd keys
/// when it packs to its table's empty slot.
enum Stored {
    One(u64),
    Two([u64; 2]),
    Three([u64; 3]),
    Odd,
}

impl Stored {
    #[inline(always)]
    fn of(key: Packed) -> Stored {
        let stored = match (key.one_word(), key.0) {
            (Some(word), _) => Stored::One(word),
            (None, [head, low, 0]) => Stored::Two([head, low]),
            (None, words) => Stored::Three(words),
        };
        match stored {
            Stored::One(u64::EMPTY) | Stored::Two(<[u64; 2]>::EMPTY) => Stored::Odd,
            Stored::Three(<[u64; 3]>::EMPTY) => Stored::Odd,
            stored => stored,
        }
    }
}

/// A state as a table's byte keeps it: a value below [`BIG`], or a memo
/// state. (No slot keeps [`UNSOLVED`]: a key without a state has none.)
const BIG: u8 = 251;
const LOOPY_BYTE: u8 = 252;
const EXPANDING_BYTE: u8 = 253;
const QUEUED_BYTE: u8 = 254;

fn byte_of(value: Grundy) -> u8 {
    match value {
        LOOPY => LOOPY_BYTE,
        EXPANDING => EXPANDING_BYTE,
        QUEUED => QUEUED_BYTE,
        value if value < Grundy::from(BIG) => value as u8,
        _ => BIG,
    }
}

/// The state a byte keeps; `None` for [`BIG`], kept in the map.
fn value_of(byte: u8) -> Option<Grundy> {
    match byte {
        LOOPY_BYTE => Some(LOOPY),
        EXPANDING_BYTE => Some(EXPANDING),
        QUEUED_BYTE => Some(QUEUED),
        BIG => None,
        value => Some(Grundy::from(value)),
    }
}

/// The slots of a table made to hold `keys` at most half full: a power of
/// two, and at least 16.
fn slots_for(keys: usize) -> usize {
    keys.saturating_mul(2).next_power_of_two().max(16)
}

/// A key of one of the tables: a few words, one value of which marks an
/// empty slot.
trait Word: Copy + Eq + Default {
    const EMPTY: Self;
    /// A hash whose high bits are spread (Fibonacci hashing of the words
    /// folded together).
    fn hash(self) -> u64;
}

const FIBONACCI: u64 = 0x9e37_79b9_7f4a_7c15;

impl Word for u64 {
    const EMPTY: Self = u64::MAX;
    #[inline(always)]
    fn hash(self) -> u64 {
        self.wrapping_mul(FIBONACCI)
    }
}

impl Word for [u64; 2] {
    const EMPTY: Self = [u64::MAX; 2];
    #[inline(always)]
    fn hash(self) -> u64 {
        (self[0].rotate_left(29) ^ self[1]).wrapping_mul(FIBONACCI)
    }
}

impl Word for [u64; 3] {
    const EMPTY: Self = [u64::MAX; 3];
    #[inline(always)]
    fn hash(self) -> u64 {
        (self[0].rotate_left(29) ^ self[1] ^ self[2].rotate_left(43)).wrapping_mul(FIBONACCI)
    }
}

/// An open-addressed table of keys and their state bytes, linear probing,
/// at most half full (most probes of a search miss, and a miss reads on
/// to an empty slot: 2.5 slots on average at half full, 8.5 at three
/// quarters); a key removed pulls back those after it that probed past
/// it, so that no slot is a tombstone.
#[derive(Debug, Default)]
struct Table<K> {
    keys: Vec<K>,
    states: Vec<u8>,
    len: usize,
}

impl<K: Word> Table<K> {
    /// The slot a key is first looked for in.
    #[inline(always)]
    fn home(&self, key: K) -> usize {
        let bits = self.keys.len().trailing_zeros();
        (key.hash() >> (64 - bits)) as usize
    }

    /// The slot of a key, if it is kept.
    #[inline(always)]
    fn find(&self, key: K) -> Option<usize> {
        if self.keys.is_empty() {
            return None;
        }
        let mask = self.keys.len() - 1;
        let mut slot = self.home(key);
        loop {
            let kept = self.keys[slot];
            if kept == key {
                return Some(slot);
            }
            if kept == K::EMPTY {
                return None;
            }
            slot = (slot + 1) & mask;
        }
    }

    /// The most keys the table holds before it grows.
    fn most(&self) -> usize {
        self.keys.len() / 2
    }

    /// The bytes the table holds.
    fn bytes(&self) -> usize {
        self.keys.capacity() * size_of::<K>() + self.states.capacity()
    }

    /// Whether one more key would leave the table nearly full: a
    /// sixteenth of its room left, for the memo to store what it finds
    /// inside a search.
    fn nearly_full(&self) -> bool {
        self.len + 1 + self.most() / 16 >= self.most()
    }

    /// The keys to make room for so that `more` keys leave the table short
    /// of [`Table::nearly_full`].
    fn spared(&self, more: usize) -> usize {
        match more {
            0 => 0,
            more => more + (self.len + more) / 15 + 2,
        }
    }

    /// The bytes the table would hold with room made for `more` keys
    /// (see [`Table::reserve`]).
    fn bytes_with(&self, more: usize) -> usize {
        let needed = self.len.saturating_add(more);
        match needed <= self.most() {
            true => self.bytes(),
            false => slots_for(needed).saturating_mul(size_of::<K>() + 1),
        }
    }

    /// Makes room for one more key, doubling the table if it is full.
    fn reserve_one(&mut self) -> Result<(), TryReserveError> {
        self.reserve(1)
    }

    /// Makes room for `more` keys at once: the table grown to the least
    /// number of slots (a power of two) that holds them at most half full.
    ///
    /// Keys stored in the order of another table's slots come in the order
    /// of their hashes; stored one by one into a table that doubles as it
    /// fills, each lands in the few slots of the smallest hashes, behind
    /// all the keys before it (a run as long as the table: restoring 8.6
    /// million values of Cram 6 × 7 had not ended in 3 minutes). Room made
    /// first spreads them over the table they end in.
    fn reserve(&mut self, more: usize) -> Result<(), TryReserveError> {
        let needed = self.len.saturating_add(more);
        if needed <= self.most() {
            return Ok(());
        }
        let slots = slots_for(needed);
        let mut keys: Vec<K> = Vec::new();
        let mut states: Vec<u8> = Vec::new();
        keys.try_reserve_exact(slots)?;
        states.try_reserve_exact(slots)?;
        super::huge_pages::advise(keys.spare_capacity_mut());
        super::huge_pages::advise(states.spare_capacity_mut());
        keys.resize(slots, K::EMPTY);
        states.resize(slots, 0);
        let old = Table {
            keys: std::mem::replace(&mut self.keys, keys),
            states: std::mem::replace(&mut self.states, states),
            len: std::mem::take(&mut self.len),
        };
        for (&key, &state) in old.keys.iter().zip(&old.states) {
            if key != K::EMPTY {
                self.put(key, state);
            }
        }
        Ok(())
    }

    /// Puts a key not kept into its slot (there is room).
    fn put(&mut self, key: K, state: u8) {
        let mask = self.keys.len() - 1;
        let mut slot = self.home(key);
        while self.keys[slot] != K::EMPTY {
            slot = (slot + 1) & mask;
        }
        self.keys[slot] = key;
        self.states[slot] = state;
        self.len += 1;
    }

    /// Sets a key's state, storing it if it was not; whether it was new.
    fn set(&mut self, key: K, state: u8) -> bool {
        match self.find(key) {
            Some(slot) => {
                self.states[slot] = state;
                false
            }
            None => {
                // Stored without room made first only when the engine
                // stores again a key it forgot: the table then grows.
                if self.reserve_one().is_err() {
                    std::alloc::handle_alloc_error(std::alloc::Layout::new::<K>());
                }
                self.put(key, state);
                true
            }
        }
    }

    /// Empties a slot, pulling back the keys after it that probed past it.
    fn vacate(&mut self, mut hole: usize) {
        let mask = self.keys.len() - 1;
        let mut slot = hole;
        loop {
            slot = (slot + 1) & mask;
            let key = self.keys[slot];
            if key == K::EMPTY {
                break;
            }
            // The key may fill the hole if its home is not between the
            // hole (exclusive) and its slot (inclusive), cyclically.
            let home = self.home(key);
            if (slot.wrapping_sub(home) & mask) >= (slot.wrapping_sub(hole) & mask) {
                self.keys[hole] = key;
                self.states[hole] = self.states[slot];
                hole = slot;
            }
        }
        self.keys[hole] = K::EMPTY;
        self.len -= 1;
    }

    fn remove(&mut self, key: K) {
        if let Some(slot) = self.find(key) {
            self.vacate(slot);
        }
    }

    /// Keeps only the keys for which `keep` holds; how many went.
    fn retain(&mut self, mut keep: impl FnMut(K, u8) -> bool) -> usize {
        let Some(start) = self.keys.iter().position(|&key| key == K::EMPTY) else {
            return 0;
        };
        // From an empty slot round to it: a key pulled back into the slot
        // just emptied comes from further on, not yet looked at.
        let (mask, before) = (self.keys.len() - 1, self.len);
        let mut step = 1;
        while step < self.keys.len() {
            let slot = (start + step) & mask;
            let key = self.keys[slot];
            if key != K::EMPTY && !keep(key, self.states[slot]) {
                self.vacate(slot);
            } else {
                step += 1;
            }
        }
        before - self.len
    }

    /// The most slots in a row that hold keys: how far a probe may read.
    #[cfg(test)]
    fn longest_run(&self) -> usize {
        let runs = self.keys.split(|&key| key == K::EMPTY);
        runs.map(<[K]>::len).max().unwrap_or(0)
    }

    fn iter(&self) -> impl Iterator<Item = (K, u8)> + '_ {
        self.keys
            .iter()
            .zip(&self.states)
            .filter(|(key, _)| **key != K::EMPTY)
            .map(|(&key, &state)| (key, state))
    }
}

/// The packed key of a key kept in one word.
fn unpack_one(one: u64) -> Packed {
    Packed([one >> 40, one & ((1 << 40) - 1), 0])
}

/// Keeps the keys of a table for which `keep` holds, noting in `gone` the
/// big values of those that went.
fn retain_in<K: Word>(
    table: &mut Table<K>,
    unpack: impl Fn(K) -> Packed,
    big: &HashMap<Packed, Grundy>,
    keep: &mut impl FnMut(Packed, Grundy) -> bool,
    gone: &mut Vec<Packed>,
) -> usize {
    table.retain(|word, byte| {
        let key = unpack(word);
        let kept = keep(key, state_of(big, key, byte));
        if !kept && byte == BIG {
            gone.push(key);
        }
        kept
    })
}

/// The state a byte of `key` says, big values read from their map.
fn state_of(big: &HashMap<Packed, Grundy>, key: Packed, byte: u8) -> Grundy {
    value_of(byte).unwrap_or_else(|| big.get(&key).copied().unwrap_or(UNSOLVED))
}

impl PackedValues {
    /// How many positions are stored.
    pub fn len(&self) -> usize {
        self.one.len + self.two.len + self.three.len + self.odd.len()
    }

    /// The state kept for a key: [`UNSOLVED`] when none is.
    #[inline]
    pub fn get(&self, key: Packed) -> Grundy {
        let byte = match Stored::of(key) {
            Stored::One(one) => self.one.find(one).map(|slot| self.one.states[slot]),
            Stored::Two(two) => self.two.find(two).map(|slot| self.two.states[slot]),
            Stored::Three(three) => self.three.find(three).map(|slot| self.three.states[slot]),
            Stored::Odd => return self.odd.get(&key).copied().unwrap_or(UNSOLVED),
        };
        match byte {
            None => UNSOLVED,
            Some(byte) => state_of(&self.big, key, byte),
        }
    }

    /// Makes room to store a key, so that [`PackedValues::set`] does not
    /// allocate; `Err` when memory ran out.
    pub fn make_room(&mut self, key: Packed) -> Result<(), TryReserveError> {
        self.compact_journal();
        super::room(&mut self.journal, 1)?;
        match Stored::of(key) {
            Stored::One(_) => self.one.reserve_one()?,
            Stored::Two(_) => self.two.reserve_one()?,
            Stored::Three(_) => self.three.reserve_one()?,
            Stored::Odd => self.odd.try_reserve(1)?,
        }
        self.peak = self.peak.max(self.bytes());
        Ok(())
    }

    /// Makes room to store the first `most` of `keys` not stored yet, so
    /// that [`PackedValues::take_in`] neither allocates nor grows a table
    /// key by key, as many as `bytes` leave room for (a sample of keys
    /// taken at random has the mix of tables of the whole); returns how
    /// many may be taken in, `Err` when memory ran out.
    pub fn make_room_for(
        &mut self,
        keys: impl Iterator<Item = Packed>,
        most: usize,
        bytes: usize,
    ) -> Result<usize, TryReserveError> {
        let mut more = [0; 3];
        for key in keys.filter(|&key| self.get(key) == UNSOLVED).take(most) {
            match Stored::of(key) {
                Stored::One(_) => more[0] += 1,
                Stored::Two(_) => more[1] += 1,
                Stored::Three(_) => more[2] += 1,
                Stored::Odd => {}
            }
        }
        // The most of them, in proportion, the bytes hold: the bytes a
        // number of keys take only grow with it.
        let total: usize = more.iter().sum();
        let share = |taken: usize| {
            more.map(|count| (count as u128 * taken as u128 / total.max(1) as u128) as usize)
        };
        let taking = |taken: usize| {
            let [one, two, three] = share(taken);
            let one = self.one.bytes_with(self.one.spared(one));
            let two = self.two.bytes_with(self.two.spared(two));
            one + two + self.three.bytes_with(self.three.spared(three))
        };
        let (mut low, mut high) = (0, total);
        while low < high {
            let mid = low + (high - low).div_ceil(2);
            match taking(mid) <= bytes {
                true => low = mid,
                false => high = mid - 1,
            }
        }
        let [one, two, three] = share(low);
        self.one.reserve(self.one.spared(one))?;
        self.two.reserve(self.two.spared(two))?;
        self.three.reserve(self.three.spared(three))?;
        self.peak = self.peak.max(self.bytes());
        Ok(low)
    }

    /// Whether storing `key` leaves its table short of nearly full (see
    /// [`PackedValues::pressed`]).
    pub fn has_room(&self, key: Packed) -> bool {
        match Stored::of(key) {
            Stored::One(_) => !self.one.nearly_full(),
            Stored::Two(_) => !self.two.nearly_full(),
            Stored::Three(_) => !self.three.nearly_full(),
            Stored::Odd => true,
        }
    }

    /// Stores a value taken in from a saved table, as [`PackedValues::set`]
    /// does but for the journal: what is taken in stays.
    pub fn take_in(&mut self, key: Packed, value: Grundy) {
        self.store(key, value);
        self.peak = self.peak.max(self.bytes());
    }

    /// Sets the state of a key, storing it if it was not.
    pub fn set(&mut self, key: Packed, value: Grundy) {
        if self.store(key, value) {
            self.journal.push(key);
            self.peak = self.peak.max(self.bytes());
        }
    }

    /// Sets the state of a key, storing it if it was not; whether it was
    /// new.
    fn store(&mut self, key: Packed, value: Grundy) -> bool {
        debug_assert_ne!(value, UNSOLVED);
        let byte = byte_of(value);
        let new = match Stored::of(key) {
            Stored::One(one) => self.one.set(one, byte),
            Stored::Two(two) => self.two.set(two, byte),
            Stored::Three(three) => self.three.set(three, byte),
            Stored::Odd => self.odd.insert(key, value).is_none(),
        };
        if byte == BIG {
            self.big.insert(key, value);
        } else if !new && !self.big.is_empty() {
            self.big.remove(&key);
        }
        new
    }

    /// Takes a key out, if it is kept.
    pub fn remove(&mut self, key: Packed) {
        match Stored::of(key) {
            Stored::One(one) => self.one.remove(one),
            Stored::Two(two) => self.two.remove(two),
            Stored::Three(three) => self.three.remove(three),
            Stored::Odd => drop(self.odd.remove(&key)),
        }
        if !self.big.is_empty() {
            self.big.remove(&key);
        }
    }

    /// Before the journal grows, drops from it the keys no longer stored
    /// and the keys noted twice, when they are most of it: a search that
    /// stores a position, takes it out when it leaves it without a value
    /// and stores it again when it meets it again notes it each time
    /// (Cram on 5 × 8 noted 20 million keys, 480 MB, for 740,000 stored).
    /// Rolling back removes the same keys either way.
    fn compact_journal(&mut self) {
        let journal = &self.journal;
        if journal.len() < journal.capacity() || journal.len() < 2 * self.len() + 1024 {
            return;
        }
        let mut journal = std::mem::take(&mut self.journal);
        journal.retain(|&key| self.get(key) != UNSOLVED);
        journal.sort_unstable();
        journal.dedup();
        self.journal = journal;
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

    /// The most slots in a row that hold keys, in any of the tables.
    #[cfg(test)]
    pub fn longest_run(&self) -> usize {
        let runs = [self.one.longest_run(), self.two.longest_run()];
        runs.into_iter()
            .chain([self.three.longest_run()])
            .max()
            .unwrap_or(0)
    }

    /// Every key stored, with its state.
    pub fn entries(&self) -> impl Iterator<Item = (Packed, Grundy)> + '_ {
        let one = self.one.iter().map(|(one, byte)| (unpack_one(one), byte));
        let two = (self.two.iter()).map(|([head, low], byte)| (Packed([head, low, 0]), byte));
        let three = self.three.iter().map(|(words, byte)| (Packed(words), byte));
        let bytes = one.chain(two).chain(three);
        let states = bytes.map(|(key, byte)| (key, state_of(&self.big, key, byte)));
        states.chain(self.odd.iter().map(|(&key, &value)| (key, value)))
    }

    /// Every key stored.
    pub fn keys(&self) -> impl Iterator<Item = Packed> + '_ {
        self.entries().map(|(key, _)| key)
    }

    /// Forgets these keys.
    pub fn forget(&mut self, keys: &[Packed]) {
        keys.iter().for_each(|&key| self.remove(key));
    }

    /// Keeps only the keys for which `keep` holds (told each key and its
    /// state), and forgets the journal: what stays is kept whatever
    /// happens to the search. Returns how many keys went.
    pub fn retain(&mut self, mut keep: impl FnMut(Packed, Grundy) -> bool) -> usize {
        self.journal = Vec::new();
        let (big, mut gone) = (&self.big, Vec::new());
        let mut went = retain_in(&mut self.one, unpack_one, big, &mut keep, &mut gone);
        let two = |[head, low]: [u64; 2]| Packed([head, low, 0]);
        went += retain_in(&mut self.two, two, big, &mut keep, &mut gone);
        went += retain_in(&mut self.three, Packed, big, &mut keep, &mut gone);
        for key in gone {
            self.big.remove(&key);
        }
        let odd = self.odd.len();
        self.odd.retain(|&key, value| keep(key, *value));
        went + odd - self.odd.len()
    }

    /// The bytes the tables and the journal hold.
    pub fn bytes(&self) -> usize {
        let entry = size_of::<(Packed, Grundy)>() + 1;
        let maps = (self.big.capacity() + self.odd.capacity()) * entry;
        let journal = self.journal.capacity() * size_of::<Packed>();
        self.one.bytes() + self.two.bytes() + self.three.bytes() + maps + journal
    }

    /// The most bytes the tables and the journal held at once.
    pub fn peak_bytes(&self) -> usize {
        self.peak
    }

    /// Forgets the journal and its room, if growing it would pass `limit`
    /// bytes: what is stored now stays whatever happens to the search.
    pub fn keep_within(&mut self, limit: usize) {
        let full = self.journal.len() == self.journal.capacity();
        let growth = self.journal.capacity().max(4) * size_of::<Packed>();
        if full && self.bytes() + growth > limit {
            self.journal = Vec::new();
        }
    }

    /// Whether storing `key` would leave its table nearly full (a sixteenth
    /// of its room left, for the memo to store what it finds inside a
    /// search) with no room to grow within `limit` bytes.
    pub fn pressed(&self, key: Packed, limit: usize) -> bool {
        let (nearly_full, bytes) = match Stored::of(key) {
            Stored::One(_) => (self.one.nearly_full(), self.one.bytes()),
            Stored::Two(_) => (self.two.nearly_full(), self.two.bytes()),
            Stored::Three(_) => (self.three.nearly_full(), self.three.bytes()),
            Stored::Odd => return false,
        };
        nearly_full && self.bytes() + bytes.max(512) > limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A key of any of the tables: one word, two (past 40 bits) or three.
    fn key(word: u64) -> Packed {
        match word % 3 {
            0 => Packed([word % 5, word << 30, 0]),
            1 => Packed([word % 5, word << 44, 0]),
            _ => Packed([word % 5, word, 1]),
        }
    }

    /// A search that stores a key and takes it out again, over and over,
    /// keeps the journal about the size of the table, and rolling back
    /// still forgets every key stored since the journal was cleared, the
    /// keys stored before staying.
    #[test]
    fn the_journal_stays_small_through_keys_stored_and_taken_out() {
        let mut values = PackedValues::default();
        for word in 0..100 {
            values.make_room(key(word)).unwrap();
            values.set(key(word), word);
        }
        values.keep();
        for round in 0..100_000 {
            let churned = key(1_000 + round % 5_000);
            values.make_room(churned).unwrap();
            values.set(churned, QUEUED);
            if round % 7 != 0 {
                values.remove(churned);
            }
        }
        let stored = values.len() - 100;
        assert!(stored > 0 && stored < 5_000);
        assert!(values.journal.capacity() <= 4 * (values.len() + 1024));
        values.roll_back();
        assert_eq!(values.len(), 100);
        for word in 0..100 {
            assert_eq!(values.get(key(word)), word);
        }
        for round in 0..5_000 {
            assert_eq!(values.get(key(1_000 + round)), UNSOLVED);
        }
    }

    proptest! {
        /// The tables keep what a map keeps through values stored, changed
        /// (big ones too) and removed, and keys kept by a test, however
        /// many keys crowd one probe.
        #[test]
        fn the_tables_keep_what_a_map_keeps(
            steps in prop::collection::vec((0u64..200, 0u8..8, 0u64..300), 1..600),
        ) {
            let mut values = PackedValues::default();
            let mut map = std::collections::HashMap::new();
            for (word, step, value) in steps {
                let key = key(word);
                match step {
                    0..=4 => {
                        values.make_room(key).unwrap();
                        values.set(key, value);
                        map.insert(key, value);
                    }
                    5 | 6 => {
                        values.forget(&[key]);
                        map.remove(&key);
                    }
                    _ => {
                        let keep = |key: Packed, state: Grundy| !(key.0[1] ^ state).is_multiple_of(3);
                        let before = map.len();
                        map.retain(|&key, &mut state| keep(key, state));
                        prop_assert_eq!(values.retain(keep), before - map.len());
                    }
                }
                prop_assert_eq!(values.len(), map.len());
            }
            for word in 0..200 {
                let kept = map.get(&key(word)).copied().unwrap_or(UNSOLVED);
                prop_assert_eq!(values.get(key(word)), kept);
            }
            let mut entries: Vec<_> = values.entries().collect();
            entries.sort();
            let mut expected: Vec<_> = map.into_iter().collect();
            expected.sort();
            prop_assert_eq!(entries, expected);
        }
    }
}
