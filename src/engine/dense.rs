//! Values kept by dense address. Positions of games of one or two
//! non-negative parameters are not interned: their values sit in a table
//! per game, a row per first parameter (one row for a game of one), found
//! by indexing. That is what makes the search's inner loop a few loads, and
//! a position cost eight bytes instead of its interned copy and hash entry.
//!
//! Tables grow as positions arrive, within a budget of cells tied to the
//! engine's state limit; a position the budget cannot place is interned
//! like any other, so a game reaching far but sparsely (one heap of a
//! billion) does not allocate its whole table.

use super::{Grundy, UNSOLVED};

/// A dense address: a game's table, and a row and a column in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Address {
    pub table: u32,
    pub row: u32,
    pub col: u32,
}

/// Cells a row's header costs, in cells of a value's size.
const ROW_HEADER: usize = 3;

#[derive(Debug)]
pub(super) struct Dense {
    tables: Vec<Vec<Vec<Grundy>>>,
    /// Cells allocated, row headers included, and the most allowed.
    cells: usize,
    budget: usize,
    /// Positions stored.
    filled: usize,
    /// Addresses stored since the journal was last cleared, so that a
    /// search that fails can forget them.
    journal: Vec<Address>,
}

impl Dense {
    pub fn new(max_states: usize) -> Self {
        Dense {
            tables: Vec::new(),
            cells: 0,
            budget: max_states.saturating_mul(2).saturating_add(1 << 16),
            filled: 0,
            journal: Vec::new(),
        }
    }

    /// How many positions are stored.
    pub fn len(&self) -> usize {
        self.filled
    }

    /// The state kept at an address: [`UNSOLVED`] when none is.
    #[inline]
    pub fn get(&self, address: Address) -> Grundy {
        self.tables
            .get(address.table as usize)
            .and_then(|rows| rows.get(address.row as usize))
            .and_then(|row| row.get(address.col as usize))
            .copied()
            .unwrap_or(UNSOLVED)
    }

    /// The rows of a table, for reading many cells in a row.
    #[inline]
    pub fn rows(&self, table: usize) -> &[Vec<Grundy>] {
        self.tables.get(table).map_or(&[], Vec::as_slice)
    }

    /// Sets the state at an address where one is stored.
    pub fn set(&mut self, address: Address, value: Grundy) {
        self.tables[address.table as usize][address.row as usize][address.col as usize] = value;
    }

    /// Stores a new position's state at its address, if the budget allows
    /// the room; `false` if it does not.
    pub fn insert(&mut self, address: Address, value: Grundy) -> bool {
        debug_assert_ne!(value, UNSOLVED);
        let Address { table, row, col } = address;
        let (table, row, col) = (table as usize, row as usize, col as usize);
        if table >= self.tables.len() {
            self.tables.resize_with(table + 1, Vec::new);
        }
        let rows = &mut self.tables[table];
        if row >= rows.len() {
            let added = (row + 1 - rows.len()) * ROW_HEADER;
            if self.cells + added > self.budget {
                return false;
            }
            self.cells += added;
            rows.resize_with(row + 1, Vec::new);
        }
        let cells = &mut rows[row];
        if col >= cells.len() {
            // Doubling keeps growth cheap; exactly enough when doubling
            // would pass the budget.
            let room = self.budget - self.cells;
            let wanted = (col + 1).max(2 * cells.len());
            let length = match wanted - cells.len() {
                added if added <= room => wanted,
                _ if col + 1 - cells.len() <= room => col + 1,
                _ => return false,
            };
            self.cells += length - cells.len();
            cells.reserve_exact(length - cells.len());
            cells.resize(length, UNSOLVED);
        }
        if cells[col] == UNSOLVED {
            self.filled += 1;
            self.journal.push(address);
        }
        cells[col] = value;
        true
    }

    /// Forgets the journal: what is stored now stays.
    pub fn keep(&mut self) {
        self.journal.clear();
    }

    /// Forgets every position stored since the journal was last cleared.
    pub fn roll_back(&mut self) {
        for address in std::mem::take(&mut self.journal) {
            self.remove(address);
        }
    }

    fn remove(&mut self, address: Address) {
        let cell =
            &mut self.tables[address.table as usize][address.row as usize][address.col as usize];
        if *cell != UNSOLVED {
            *cell = UNSOLVED;
            self.filled -= 1;
        }
    }

    /// Every address stored.
    pub fn addresses(&self) -> impl Iterator<Item = Address> + '_ {
        self.tables.iter().enumerate().flat_map(|(table, rows)| {
            rows.iter().enumerate().flat_map(move |(row, cells)| {
                cells
                    .iter()
                    .enumerate()
                    .filter(|&(_, &value)| value != UNSOLVED)
                    .map(move |(col, _)| Address {
                        table: table as u32,
                        row: row as u32,
                        col: col as u32,
                    })
            })
        })
    }

    /// Forgets the positions at these addresses.
    pub fn forget(&mut self, addresses: &[Address]) {
        addresses.iter().for_each(|&address| self.remove(address));
    }
}
