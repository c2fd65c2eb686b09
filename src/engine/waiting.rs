//! The positions a search is expanding, each waiting on its missing parts.
//! What each keeps (the options folded at first, those deferred and the
//! keys of the parts they wait on) sits in flat lists shared by all of
//! them, the deepest last, so that a chain of ten million positions costs
//! some 70 bytes a position here, with no allocation of its own: a list of
//! its own per position (three allocations, a few hundred bytes) ran a
//! chain of five million out of a 4 GB address space.

use std::collections::TryReserveError;

use super::{Deferred, Grundy, Key, LOOPY, Mex, room};

/// Where a waiting position's entries start in each flat list; they end
/// where the next position's start.
#[derive(Debug, Clone, Copy)]
struct Starts {
    mex: usize,
    deferred: usize,
    keys: usize,
}

#[derive(Debug, Default)]
pub(super) struct Waiting {
    starts: Vec<Starts>,
    /// The words of the mex of each position's options folded at first,
    /// its trailing zero words dropped.
    mex: Vec<u64>,
    /// Each position's deferred options; none when it keeps nothing.
    deferred: Vec<Deferred>,
    /// The keys of the parts each position's deferred options wait on.
    keys: Vec<Key>,
}

impl Waiting {
    fn starts(&self) -> Starts {
        Starts {
            mex: self.mex.len(),
            deferred: self.deferred.len(),
            keys: self.keys.len(),
        }
    }

    /// A position that waits on its parts and keeps nothing: its options
    /// are listed again once they are solved.
    /// `Err` when memory ran out, as for [`Waiting::push`].
    pub fn push_bare(&mut self) -> Result<(), TryReserveError> {
        room(&mut self.starts, 1)?;
        self.starts.push(self.starts());
        Ok(())
    }

    /// A position that waits on its parts, keeping the mex of the options
    /// folded, the options deferred (at least one) and the keys of the
    /// parts they wait on, so that it is finished without listing them
    /// again. `Err` when memory ran out, with nothing pushed.
    pub fn push(
        &mut self,
        mex: &Mex,
        deferred: &[Deferred],
        keys: &[Key],
    ) -> Result<(), TryReserveError> {
        debug_assert!(!deferred.is_empty(), "a position keeping nothing is bare");
        let words = &mex.words;
        let used = words
            .iter()
            .rposition(|&word| word != 0)
            .map_or(0, |last| last + 1);
        room(&mut self.starts, 1)?;
        room(&mut self.mex, used)?;
        room(&mut self.deferred, deferred.len())?;
        room(&mut self.keys, keys.len())?;
        self.starts.push(self.starts());
        self.mex.extend_from_slice(&words[..used]);
        self.deferred.extend_from_slice(deferred);
        self.keys.extend_from_slice(keys);
        Ok(())
    }

    /// Drops the deepest waiting position, returning its value from what
    /// it kept, now that its parts are solved (`value` gives a key's state;
    /// `mex` is scratch). `None` when its options must be listed again: it
    /// kept nothing, or a part still has no value.
    pub fn pop(&mut self, value: impl Fn(Key) -> Grundy, mex: &mut Mex) -> Option<Grundy> {
        let starts = self.starts.pop().expect("a waiting position to finish");
        let found = self.finish(starts, value, mex);
        self.mex.truncate(starts.mex);
        self.deferred.truncate(starts.deferred);
        self.keys.truncate(starts.keys);
        found
    }

    fn finish(
        &self,
        starts: Starts,
        value: impl Fn(Key) -> Grundy,
        mex: &mut Mex,
    ) -> Option<Grundy> {
        let deferred = &self.deferred[starts.deferred..];
        if deferred.is_empty() {
            return None;
        }
        let keys = &self.keys[starts.keys..];
        mex.clear();
        mex.add_words(&self.mex[starts.mex..]);
        let mut start = 0;
        for option in deferred {
            let mut xor = option.partial;
            for &key in &keys[start..option.end] {
                match value(key) {
                    part if part < LOOPY => xor ^= part,
                    _ => return None,
                }
            }
            mex.add(xor);
            start = option.end;
        }
        Some(mex.mex())
    }
}
