//! What pruned searches on several threads learn, shared as it is learned.
//!
//! With `--threads`, the threads of a search ask the same question of the
//! same position, each with a table of its own, and keep here what each
//! finds of the regions it searches: a region's value, or values ruled out
//! for it. A thread that meets a region another thread has settled reads
//! it here instead of searching it again, and the threads take the
//! position's options in different orders, so that they work on different
//! options at once. Every entry is a fact about a position, true whoever
//! found it and whenever it is read, so no thread waits on another: a
//! fact not seen yet is found again, never contradicted.
//!
//! Beside the facts, each thread counts the regions it is searching near
//! the top, and a thread about to search an option another thread is on
//! puts it off until its other options are done (as ABDADA does in
//! game-tree search): by then the other thread has likely settled it.
//!
//! The table is open-addressed with linear probing and never takes a key
//! out. A slot's state word is claimed first, then its key written, then
//! the state set ready with release ordering: a reader that sees a slot
//! ready sees its key. A slot claimed and not ready yet is passed over, so
//! a key may now and then be stored twice; the first is read.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};

use super::Grundy;
use super::packed::Packed;

/// A slot's state: empty (0), claimed while its key is written, or ready;
/// a ready slot holds a value (`EXACT` and the value) or values ruled out
/// (bits of values below [`RULED_OUT_BELOW`]).
const CLAIMED: u64 = 1 << 63;
const READY: u64 = 1 << 62;
const EXACT: u64 = 1 << 61;
const PAYLOAD: u64 = EXACT - 1;

/// The values whose ruling out is shared: those below 61, as bits.
pub(super) const RULED_OUT_BELOW: Grundy = 61;

/// The bytes of one slot: three words of key and a state.
const SLOT_BYTES: usize = 32;

/// What the threads know of a region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fact {
    /// Its value.
    Value(Grundy),
    /// Values it does not have, as bits (values below [`RULED_OUT_BELOW`]).
    RuledOut(u64),
}

/// A slot: three words of key, then the state; slots are kept as words,
/// allocated zeroed (empty) by the system as pages are first touched, so
/// that a large table costs only what is stored in it.
const WORDS: usize = 4;

/// The facts the threads of a search share (see the module's comment),
/// and the flags that end their work.
pub struct Shared {
    words: Box<[AtomicU64]>,
    /// The slots there are, a power of two.
    slots: usize,
    /// Slots claimed; none are claimed past half of them.
    claimed: AtomicUsize,
    /// Set once a thread has answered the question the threads share: the
    /// others stop.
    answered: AtomicBool,
    /// How many threads are searching each region, counted by a hash of
    /// its key (two regions may share a count: a count says only where a
    /// thread had best not go next, never what a region's value is).
    busy: Box<[AtomicU32]>,
}

/// The counts of threads searching regions (see [`Shared::busy`]).
const BUSY_COUNTS: usize = 1 << 12;

impl Shared {
    /// A table within about `bytes` (at least 1,024 slots); `None` when
    /// there is no room for it.
    pub fn within(bytes: usize) -> Option<Shared> {
        let most = (bytes / SLOT_BYTES).max(1024);
        let slots = 1 << (usize::BITS - 1 - most.leading_zeros());
        let mut words = bytemuck::allocation::try_zeroed_slice_box(slots * WORDS).ok()?;
        super::huge_pages::advise(&mut words);
        Some(Shared {
            words,
            slots,
            claimed: AtomicUsize::new(0),
            answered: AtomicBool::new(false),
            busy: (0..BUSY_COUNTS).map(|_| AtomicU32::new(0)).collect(),
        })
    }

    /// The bytes the table holds.
    pub fn bytes(&self) -> usize {
        self.slots * SLOT_BYTES
    }

    /// Notes that a thread answered the question shared.
    pub fn answer(&self) {
        self.answered.store(true, Ordering::Release);
    }

    /// Forgets that a thread answered: the first thread asks again, to
    /// read the answer.
    pub fn clear_answer(&self) {
        self.answered.store(false, Ordering::Release);
    }

    /// Whether a thread answered the question shared.
    pub fn answered(&self) -> bool {
        self.answered.load(Ordering::Acquire)
    }

    /// The slot `key` is first looked for in.
    fn start(&self, key: Packed) -> usize {
        (key.hash() >> (64 - self.slots.trailing_zeros())) as usize
    }

    /// The count of threads searching `key` (see [`Shared::busy`]).
    fn busy(&self, key: Packed) -> &AtomicU32 {
        &self.busy[(key.hash() >> (64 - BUSY_COUNTS.trailing_zeros())) as usize]
    }

    /// Notes that a thread begins to search `key`.
    pub(super) fn enter(&self, key: Packed) {
        self.busy(key).fetch_add(1, Ordering::Relaxed);
    }

    /// Notes that a thread is done searching `key`.
    pub(super) fn leave(&self, key: Packed) {
        self.busy(key).fetch_sub(1, Ordering::Relaxed);
    }

    /// Whether a thread is searching `key` (or a region counted with it).
    pub(super) fn is_busy(&self, key: Packed) -> bool {
        self.busy(key).load(Ordering::Relaxed) > 0
    }

    /// The slot at `at`: its key's words and its state.
    fn slot(&self, at: usize) -> (&[AtomicU64], &AtomicU64) {
        let slot = &self.words[at * WORDS..(at + 1) * WORDS];
        (&slot[..3], &slot[3])
    }

    fn holds(key_words: &[AtomicU64], key: Packed) -> bool {
        key_words
            .iter()
            .zip(&key.0)
            .all(|(word, &value)| word.load(Ordering::Relaxed) == value)
    }

    /// What is known of `key`, if anything.
    pub(super) fn get(&self, key: Packed) -> Option<Fact> {
        let mask = self.slots - 1;
        let mut at = self.start(key);
        for _ in 0..self.slots {
            let (key_words, state) = self.slot(at);
            let state = state.load(Ordering::Acquire);
            if state == 0 {
                return None;
            }
            if state & READY != 0 && Self::holds(key_words, key) {
                return Some(fact(state));
            }
            at = (at + 1) & mask;
        }
        None
    }

    /// Notes that `key` has value `value`.
    pub(super) fn set_value(&self, key: Packed, value: Grundy) {
        if value < PAYLOAD {
            self.note(key, EXACT | value);
        }
    }

    /// Notes that `key` has none of the values of `bits` (below
    /// [`RULED_OUT_BELOW`]).
    pub(super) fn rule_out(&self, key: Packed, bits: u64) {
        let bits = bits & ((1 << RULED_OUT_BELOW) - 1);
        if bits != 0 {
            self.note(key, bits);
        }
    }

    /// Adds `payload` to what is known of `key`: a value replaces values
    /// ruled out, values ruled out are added to those known, and nothing
    /// is added to a value. Dropped when the table is half full.
    fn note(&self, key: Packed, payload: u64) {
        let mask = self.slots - 1;
        let mut at = self.start(key);
        for _ in 0..self.slots {
            let (key_words, slot_state) = self.slot(at);
            let state = slot_state.load(Ordering::Acquire);
            if state & READY != 0 && Self::holds(key_words, key) {
                let _ =
                    slot_state.fetch_update(Ordering::AcqRel, Ordering::Acquire, |state| {
                        match (state & EXACT != 0, payload & EXACT != 0) {
                            (true, _) => None,
                            (false, true) => Some(READY | payload),
                            (false, false) => Some(state | payload),
                        }
                    });
                return;
            }
            if state == 0 {
                if self.claimed.load(Ordering::Relaxed) >= self.slots / 2 {
                    return;
                }
                if slot_state
                    .compare_exchange(0, CLAIMED, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
                {
                    self.claimed.fetch_add(1, Ordering::Relaxed);
                    for (word, &value) in key_words.iter().zip(&key.0) {
                        word.store(value, Ordering::Relaxed);
                    }
                    slot_state.store(READY | payload, Ordering::Release);
                    return;
                }
                // Claimed by another thread meanwhile: read it again.
                continue;
            }
            at = (at + 1) & mask;
        }
    }
}

fn fact(state: u64) -> Fact {
    match state & EXACT != 0 {
        true => Fact::Value(state & PAYLOAD),
        false => Fact::RuledOut(state & PAYLOAD),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(i: u64) -> Packed {
        Packed([i % 7, i.wrapping_mul(0x2545_f491_4f6c_dd1d), i / 3])
    }

    #[test]
    fn facts_are_read_back_as_noted() {
        let shared = Shared::within(1 << 16).unwrap();
        assert_eq!(shared.get(key(1)), None);
        shared.rule_out(key(1), 0b101);
        shared.rule_out(key(1), 0b10);
        assert_eq!(shared.get(key(1)), Some(Fact::RuledOut(0b111)));
        shared.set_value(key(1), 9);
        shared.rule_out(key(1), 0b1000);
        assert_eq!(shared.get(key(1)), Some(Fact::Value(9)));
        assert_eq!(shared.get(key(2)), None);
        shared.set_value(key(2), 0);
        assert_eq!(shared.get(key(2)), Some(Fact::Value(0)));
        // Values ruled out past those shared are dropped, not misread.
        shared.rule_out(key(3), 1 << 62);
        assert_eq!(shared.get(key(3)), None);
    }

    #[test]
    fn a_region_is_busy_while_a_thread_searches_it() {
        let shared = Shared::within(0).unwrap();
        assert!(!shared.is_busy(key(4)));
        shared.enter(key(4));
        shared.enter(key(4));
        shared.leave(key(4));
        assert!(shared.is_busy(key(4)));
        shared.leave(key(4));
        assert!(!shared.is_busy(key(4)));
    }

    #[test]
    fn a_full_table_drops_new_keys_and_keeps_the_old() {
        let shared = Shared::within(0).unwrap();
        let slots = shared.bytes() / SLOT_BYTES;
        for i in 0..slots as u64 {
            shared.set_value(key(i), i % 50);
        }
        let kept = (0..slots as u64)
            .filter(|&i| shared.get(key(i)).is_some())
            .count();
        assert_eq!(kept, slots / 2);
        for i in 0..slots as u64 {
            if let Some(fact) = shared.get(key(i)) {
                assert_eq!(fact, Fact::Value(i % 50));
            }
        }
    }

    #[test]
    fn threads_writing_at_once_leave_every_fact_true() {
        let shared = Shared::within(1 << 21).unwrap();
        std::thread::scope(|scope| {
            for thread in 0..4u64 {
                let shared = &shared;
                scope.spawn(move || {
                    for i in 0..20_000u64 {
                        let i = (i * 7919 + thread * 13) % 20_000;
                        match i % 3 {
                            0 => shared.set_value(key(i), i % 40),
                            _ => shared.rule_out(key(i), 1 << ((i + 1 + thread) % 40)),
                        }
                    }
                });
            }
        });
        for i in 0..20_000u64 {
            match shared.get(key(i)) {
                Some(Fact::Value(value)) => assert_eq!(value, i % 40),
                Some(Fact::RuledOut(bits)) => {
                    assert!(i % 3 != 0);
                    let noted = (0..4).fold(0, |bits, thread| bits | 1 << ((i + 1 + thread) % 40));
                    // A key two threads stored at once is kept twice, each
                    // with what its thread noted: the first is read.
                    assert!(bits != 0 && bits & !noted == 0);
                }
                None => panic!("key {i} was noted and is lost"),
            }
        }
    }
}
