//! The mex: the least value not among the options', kept as a bitset.

use super::*;

/// The values of a position's options, gathered for their mex.
#[derive(Debug, Default)]
pub struct Mex {
    pub(super) words: Vec<u64>,
}

impl Mex {
    pub fn clear(&mut self) {
        self.words.iter_mut().for_each(|word| *word = 0);
    }

    /// Notes an option of value `value`.
    #[inline(always)]
    pub fn add(&mut self, value: Grundy) {
        match self.words.get_mut((value / 64) as usize) {
            Some(word) => *word |= 1 << (value % 64),
            None => self.grow(value),
        }
    }

    /// Notes options of the values below 64 whose bits are set in `bits`.
    pub fn add_below_64(&mut self, bits: u64) {
        match self.words.first_mut() {
            Some(word) => *word |= bits,
            None => self.words.push(bits),
        }
    }

    #[cold]
    fn grow(&mut self, value: Grundy) {
        let word = (value / 64) as usize;
        // A value past the options' count cannot be the mex; a huge one (a
        // Nim heap) is not worth the memory.
        if word > 1 << 20 {
            return;
        }
        self.words.resize(word + 1, 0);
        self.words[word] |= 1 << (value % 64);
    }

    /// Notes every value noted in `other`.
    pub fn add_all(&mut self, other: &Mex) {
        self.add_words(&other.words);
    }

    /// Notes every value of a set of values given as its words.
    pub(crate) fn add_words(&mut self, words: &[u64]) {
        if self.words.len() < words.len() {
            self.words.resize(words.len(), 0);
        }
        for (word, other) in self.words.iter_mut().zip(words) {
            *word |= other;
        }
    }

    /// The set's first `len` words (at least), to note values in.
    pub(crate) fn words_mut(&mut self, len: usize) -> &mut [u64] {
        if self.words.len() < len {
            self.words.resize(len, 0);
        }
        &mut self.words
    }

    /// The values below 64 noted, as bits.
    #[inline(always)]
    pub(crate) fn first_word(&self) -> u64 {
        self.words.first().copied().unwrap_or(0)
    }

    /// How many words the set takes.
    pub(crate) fn words(&self) -> usize {
        self.words.len()
    }

    /// How many values are noted.
    pub fn count(&self) -> usize {
        self.words
            .iter()
            .map(|word| word.count_ones() as usize)
            .sum()
    }

    /// Calls `each` with every value noted.
    pub fn for_each(&self, mut each: impl FnMut(Grundy)) {
        for (i, &word) in self.words.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                each(64 * i as Grundy + Grundy::from(bits.trailing_zeros()));
                bits &= bits - 1;
            }
        }
    }

    /// Whether `value` is noted.
    #[inline]
    pub fn contains(&self, value: Grundy) -> bool {
        self.words
            .get((value / 64) as usize)
            .is_some_and(|word| word & 1 << (value % 64) != 0)
    }

    /// The least value not noted.
    pub fn mex(&self) -> Grundy {
        let word = self
            .words
            .iter()
            .position(|&word| word != u64::MAX)
            .unwrap_or(self.words.len());
        word as Grundy * 64
            + self
                .words
                .get(word)
                .map_or(0, |word| word.trailing_ones() as Grundy)
    }
}
