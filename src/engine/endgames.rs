//! Endgames: the values of the small parts of a board, by their cells as
//! they lie. A search on a board splits each option into parts, and most
//! parts are small: on Cram 4 × 9, 58% of the parts looked up fit a box of
//! 16 cells. Such a part is no more than its box and its cells, so rules
//! may give it an [`Endgame`] address: a table for its game and box, and
//! its cells as the index. The table is then a byte per region of the box,
//! read by indexing, with the part neither moved to the least of its images
//! nor packed into a key and looked up in a hash table.
//!
//! A table is filled as the values of its regions are found (by the memo
//! or the search, under their own keys), and kept while the rules stand:
//! a value once found does not change, so the tables are never forgotten
//! for room, only when the rules change. They are small: a box of at most
//! 16 cells has at most 65,536 regions, and all the tables of one game
//! together take at most a few megabytes.

use super::Grundy;

/// Where an endgame table keeps a part's value: the table's group (the
/// rules' choice: a game, say) and its number in the group (a box), the
/// table's size as a power of two, and the part's index below it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Endgame {
    pub group: u32,
    pub table: u16,
    pub bits: u8,
    pub index: u32,
}

impl Endgame {
    /// The most tables a group has, and the largest table (as a power of
    /// two) the engine keeps.
    pub const TABLES: u16 = 512;
    pub const MOST_BITS: u8 = 20;
}

/// The groups' tables: for each group, the index of its first table in
/// `tables`, which holds each table's values plus one (0: not known).
#[derive(Debug, Default)]
pub(super) struct Endgames {
    groups: Vec<Option<u32>>,
    tables: Vec<Box<[u8]>>,
    bytes: usize,
    most: usize,
}

impl Endgames {
    /// Tables of at most `most` bytes in all.
    pub fn within(most: usize) -> Self {
        Endgames {
            most,
            ..Endgames::default()
        }
    }

    /// The value kept at `at`, if there is one.
    #[inline(always)]
    pub fn get(&self, at: Endgame) -> Option<Grundy> {
        let first = (*self.groups.get(at.group as usize)?)?;
        let table = self.tables.get(first as usize + usize::from(at.table))?;
        match *table.get(at.index as usize)? {
            0 => None,
            byte => Some(Grundy::from(byte - 1)),
        }
    }

    /// Keeps `value` at `at`, if it fits a byte and the tables have room.
    #[inline]
    pub fn note(&mut self, at: Endgame, value: Grundy) {
        let (Ok(byte @ 0..=254), true) = (
            u8::try_from(value),
            at.table < Endgame::TABLES && at.bits <= Endgame::MOST_BITS,
        ) else {
            return;
        };
        let Some(table) = self.table(at) else {
            return;
        };
        if let Some(cell) = table.get_mut(at.index as usize) {
            *cell = byte + 1;
        }
    }

    /// The table `at` is in, made if it is new and there is room for it.
    fn table(&mut self, at: Endgame) -> Option<&mut Box<[u8]>> {
        let group = at.group as usize;
        if self.groups.len() <= group {
            self.groups.resize(group + 1, None);
        }
        let first = match self.groups[group] {
            Some(first) => first as usize,
            None => {
                let first = self.tables.len();
                self.tables
                    .resize_with(first + usize::from(Endgame::TABLES), Box::default);
                self.groups[group] = Some(u32::try_from(first).ok()?);
                first
            }
        };
        let table = &mut self.tables[first + usize::from(at.table)];
        let size = 1usize << at.bits;
        if table.is_empty() {
            if self.bytes + size > self.most {
                return None;
            }
            self.bytes += size;
            *table = vec![0; size].into_boxed_slice();
        }
        Some(table)
    }

    /// Keeps the tables within `most` bytes from now on; those made before
    /// are kept.
    pub fn bound(&mut self, most: usize) {
        self.most = most;
    }

    /// The bytes the tables take.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Forgets every table: the rules changed.
    pub fn clear(&mut self) {
        self.groups.clear();
        self.tables.clear();
        self.bytes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(group: u32, table: u16, index: u32) -> Endgame {
        Endgame {
            group,
            table,
            bits: 4,
            index,
        }
    }

    #[test]
    fn a_value_noted_is_read_back_and_nothing_else_is() {
        let mut endgames = Endgames::within(1 << 10);
        assert_eq!(endgames.get(at(3, 7, 5)), None);
        endgames.note(at(3, 7, 5), 0);
        endgames.note(at(3, 7, 6), 254);
        endgames.note(at(3, 7, 9), 255);
        assert_eq!(endgames.get(at(3, 7, 5)), Some(0));
        assert_eq!(endgames.get(at(3, 7, 6)), Some(254));
        // A value of more than a byte holds is not kept.
        assert_eq!(endgames.get(at(3, 7, 9)), None);
        // Nor is it read from another table, group or index.
        assert_eq!(endgames.get(at(3, 8, 5)), None);
        assert_eq!(endgames.get(at(2, 7, 5)), None);
        assert_eq!(endgames.get(at(3, 7, 4)), None);
        // An index past its table is none.
        assert_eq!(endgames.get(at(3, 7, 16)), None);
        endgames.clear();
        assert_eq!(endgames.get(at(3, 7, 5)), None);
    }

    #[test]
    fn tables_past_the_room_are_not_made() {
        let mut endgames = Endgames::within(40);
        endgames.note(at(0, 0, 1), 1);
        endgames.note(at(0, 1, 1), 1);
        assert_eq!(endgames.bytes(), 32);
        // A third table of 16 bytes would pass 40.
        endgames.note(at(0, 2, 1), 1);
        assert_eq!(endgames.get(at(0, 2, 1)), None);
        assert_eq!(endgames.bytes(), 32);
        assert_eq!(endgames.get(at(0, 1, 1)), Some(1));
    }
}
