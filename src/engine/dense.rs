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

/// One game's table: `rows` rows of `stride` cells, row after row, so
/// that a line through it (a row, a column, a diagonal) is an arithmetic
/// progression of indices into one slice.
#[derive(Debug, Default)]
struct Table {
    cells: Vec<Grundy>,
    rows: usize,
    stride: usize,
}

impl Table {
    #[inline]
    fn index(&self, row: usize, col: usize) -> Option<usize> {
        (row < self.rows && col < self.stride).then(|| row * self.stride + col)
    }

    /// Makes room for `rows` rows of `stride` cells, keeping every cell.
    fn grow(&mut self, rows: usize, stride: usize) {
        if stride == self.stride {
            self.cells.resize(rows * stride, UNSOLVED);
        } else {
            let mut cells = vec![UNSOLVED; rows * stride];
            for (row, old) in self.cells.chunks_exact(self.stride.max(1)).enumerate() {
                cells[row * stride..][..old.len()].copy_from_slice(old);
            }
            self.cells = cells;
        }
        (self.rows, self.stride) = (rows, stride);
    }
}

/// A table as the search reads it: `rows` rows of `stride` cells.
#[derive(Debug, Clone, Copy)]
pub struct Grid<'a> {
    pub cells: &'a [Grundy],
    pub rows: usize,
    pub stride: usize,
}

#[derive(Debug)]
pub(super) struct Dense {
    tables: Vec<Table>,
    /// Cells allocated, and the most allowed.
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

    fn index(&self, address: Address) -> Option<(usize, usize)> {
        let table = self.tables.get(address.table as usize)?;
        let index = table.index(address.row as usize, address.col as usize)?;
        Some((address.table as usize, index))
    }

    /// The state kept at an address: [`UNSOLVED`] when none is.
    #[inline]
    pub fn get(&self, address: Address) -> Grundy {
        match self.index(address) {
            Some((table, index)) => self.tables[table].cells[index],
            None => UNSOLVED,
        }
    }

    /// A table, for reading many cells along a line.
    #[inline]
    pub fn grid(&self, table: usize) -> Grid<'_> {
        match self.tables.get(table) {
            Some(table) => Grid {
                cells: &table.cells,
                rows: table.rows,
                stride: table.stride,
            },
            None => Grid {
                cells: &[],
                rows: 0,
                stride: 0,
            },
        }
    }

    /// Sets the state at an address where one is stored.
    pub fn set(&mut self, address: Address, value: Grundy) {
        let (table, index) = self.index(address).expect("a stored address");
        self.tables[table].cells[index] = value;
    }

    /// Stores a new position's state at its address, if the budget allows
    /// the room; `false` if it does not.
    pub fn insert(&mut self, address: Address, value: Grundy) -> bool {
        debug_assert_ne!(value, UNSOLVED);
        let (row, col) = (address.row as usize, address.col as usize);
        let table = address.table as usize;
        if table >= self.tables.len() {
            self.tables.resize_with(table + 1, Table::default);
        }
        let grid = &mut self.tables[table];
        if grid.index(row, col).is_none() {
            // Doubling keeps growth cheap; exactly enough when doubling
            // would pass the budget.
            let room = self.budget - self.cells + grid.cells.len();
            let fits = |rows: usize, stride: usize| {
                rows.checked_mul(stride).filter(|&cells| cells <= room)
            };
            let at_least = ((row + 1).max(grid.rows), (col + 1).max(grid.stride));
            let doubled = (
                if row < grid.rows {
                    grid.rows
                } else {
                    at_least.0.max(2 * grid.rows)
                },
                if col < grid.stride {
                    grid.stride
                } else {
                    at_least.1.max(2 * grid.stride)
                },
            );
            let Some((rows, stride)) = [doubled, at_least]
                .into_iter()
                .find(|&(rows, stride)| fits(rows, stride).is_some())
            else {
                return false;
            };
            self.cells = self.cells - grid.cells.len() + rows * stride;
            grid.grow(rows, stride);
        }
        let index = grid.index(row, col).expect("room was made");
        if grid.cells[index] == UNSOLVED {
            self.filled += 1;
            self.journal.push(address);
        }
        grid.cells[index] = value;
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
        if let Some((table, index)) = self.index(address) {
            let cell = &mut self.tables[table].cells[index];
            if *cell != UNSOLVED {
                *cell = UNSOLVED;
                self.filled -= 1;
            }
        }
    }

    /// Every address stored.
    pub fn addresses(&self) -> impl Iterator<Item = Address> + '_ {
        self.tables.iter().enumerate().flat_map(|(table, grid)| {
            let stride = grid.stride.max(1);
            grid.cells
                .iter()
                .enumerate()
                .filter(|&(_, &value)| value != UNSOLVED)
                .map(move |(index, _)| Address {
                    table: table as u32,
                    row: (index / stride) as u32,
                    col: (index % stride) as u32,
                })
        })
    }

    /// Forgets the positions at these addresses.
    pub fn forget(&mut self, addresses: &[Address]) {
        addresses.iter().for_each(|&address| self.remove(address));
    }
}
