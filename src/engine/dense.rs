//! Values kept by dense address. Positions of games of one to four
//! non-negative parameters are not interned: their values sit in a table
//! per game, a volume of planes per first of four parameters, a plane per
//! first of three and a row per first of two (one row for a game of one),
//! found by indexing. That is what makes
//! the search's inner loop a few loads, and a position cost a byte or a
//! few instead of its interned copy and hash entry.
//!
//! Tables grow as positions arrive, within a budget of cells tied to the
//! engine's state limit; a position the budget cannot place is interned
//! like any other, so a game reaching far but sparsely (one heap of a
//! billion) does not allocate its whole table.

use std::collections::TryReserveError;

use super::{Grundy, LOOPY, UNSOLVED};

/// A dense address: a game's table, and a volume, a plane, a row and a
/// column in it (a game of one parameter has volume, plane and row 0, of
/// two volume and plane 0, of three volume 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Address {
    pub table: u32,
    pub volume: u32,
    pub plane: u32,
    pub row: u32,
    pub col: u32,
}

impl Address {
    /// The address of the position of `args` (one to four, each fitting in
    /// 32 bits) of the game of table `table`.
    #[inline]
    pub fn of(table: u32, args: &[i64]) -> Option<Address> {
        let [volume, plane, row, col] = coordinates(args)?;
        let fit = |arg: i64| u32::try_from(arg).ok();
        Some(Address {
            table,
            volume: fit(volume)?,
            plane: fit(plane)?,
            row: fit(row)?,
            col: fit(col)?,
        })
    }

    /// The volume, plane, row and column.
    #[inline]
    pub fn point(self) -> [u32; 4] {
        [self.volume, self.plane, self.row, self.col]
    }

    /// The coordinates in its table.
    #[inline]
    fn at(self) -> [usize; 4] {
        self.point().map(|at| at as usize)
    }
}

/// One cell's width. A cell of w bits holds a value below 2^w − 4; its
/// four largest values are the search's states ([`LOOPY`] to
/// [`UNSOLVED`]), read as theirs in 64 bits.
pub trait Cell: Copy + Send + Sync + 'static {
    const STATES: u64;
    /// The cell's bits, a value if below [`Cell::STATES`].
    fn raw(self) -> u64;
    fn wide(self) -> Grundy;
    fn narrow(value: Grundy) -> Self;
}

macro_rules! cell {
    ($($bits:ty),*) => {$(
        impl Cell for $bits {
            const STATES: u64 = <$bits>::MAX as u64 - 3;
            #[inline(always)]
            fn raw(self) -> u64 {
                self as u64
            }
            #[inline(always)]
            fn wide(self) -> Grundy {
                let value = self as u64;
                // A state moves up to the top of 64 bits.
                let state = (value >= Self::STATES) as u64;
                value + state * (u64::MAX - <$bits>::MAX as u64)
            }
            #[inline(always)]
            fn narrow(value: Grundy) -> $bits {
                match value >= LOOPY {
                    true => (value - (u64::MAX - <$bits>::MAX as u64)) as $bits,
                    false => value as $bits,
                }
            }
        }
    )*};
}

cell!(u8, u16, u32, u64);

/// A table's cells, one byte each while every value stored is below 252,
/// widened (to 2, 4, then 8 bytes) when one is not.
#[derive(Debug)]
enum Cells {
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
    U64(Vec<u64>),
}

/// Calls `$body` with `$cells` bound to the cells of whichever width.
macro_rules! each_width {
    ($value:expr, $cells:ident => $body:expr) => {
        match $value {
            Cells::U8($cells) => $body,
            Cells::U16($cells) => $body,
            Cells::U32($cells) => $body,
            Cells::U64($cells) => $body,
        }
    };
}

impl Default for Cells {
    fn default() -> Self {
        Cells::U8(Vec::new())
    }
}

impl Cells {
    fn len(&self) -> usize {
        each_width!(self, cells => cells.len())
    }

    #[inline]
    fn get(&self, index: usize) -> Grundy {
        each_width!(self, cells => cells[index].wide())
    }

    /// Sets a cell, widening every cell first if the value does not fit.
    fn set(&mut self, index: usize, value: Grundy) {
        if value < LOOPY {
            self.make_room(value);
        }
        each_width!(self, cells => cells[index] = Cell::narrow(value))
    }

    fn make_room(&mut self, value: Grundy) {
        let fits = match self {
            Cells::U8(_) => value < u8::STATES,
            Cells::U16(_) => value < u16::STATES,
            Cells::U32(_) => value < u32::STATES,
            Cells::U64(_) => true,
        };
        if fits {
            return;
        }
        // Straight to the new width: through cells of 64 bits, a table of
        // 400 million cells took 3.2 GB more while it widened.
        *self = match value {
            value if value < u16::STATES => Cells::U16(self.widened()),
            value if value < u32::STATES => Cells::U32(self.widened()),
            _ => Cells::U64(self.widened()),
        };
    }

    /// The cells, each as a cell of width `C`.
    fn widened<C: Cell>(&self) -> Vec<C> {
        each_width!(self, cells => cells.iter().map(|cell| C::narrow(cell.wide())).collect())
    }

    /// Grows to `len` cells; `Err` when memory ran out, with none added.
    fn resize(&mut self, len: usize) -> Result<(), TryReserveError> {
        each_width!(self, cells => {
            cells.try_reserve_exact(len.saturating_sub(cells.len()))?;
            cells.resize(len, Cell::narrow(UNSOLVED));
        });
        Ok(())
    }

    /// Cells of this width, `len` of them, none stored; `Err` when memory
    /// ran out.
    fn empty_like(&self, len: usize) -> Result<Cells, TryReserveError> {
        fn unsolved<C: Cell>(len: usize) -> Result<Vec<C>, TryReserveError> {
            let mut cells = Vec::new();
            cells.try_reserve_exact(len)?;
            cells.resize(len, C::narrow(UNSOLVED));
            Ok(cells)
        }
        Ok(match self {
            Cells::U8(_) => Cells::U8(unsolved(len)?),
            Cells::U16(_) => Cells::U16(unsolved(len)?),
            Cells::U32(_) => Cells::U32(unsolved(len)?),
            Cells::U64(_) => Cells::U64(unsolved(len)?),
        })
    }

    /// Copies `len` cells from `from` of `other` (of the same width) to
    /// `to`.
    fn copy_from(&mut self, to: usize, other: &Cells, from: usize, len: usize) {
        match (self, other) {
            (Cells::U8(a), Cells::U8(b)) => a[to..to + len].copy_from_slice(&b[from..from + len]),
            (Cells::U16(a), Cells::U16(b)) => a[to..to + len].copy_from_slice(&b[from..from + len]),
            (Cells::U32(a), Cells::U32(b)) => a[to..to + len].copy_from_slice(&b[from..from + len]),
            (Cells::U64(a), Cells::U64(b)) => a[to..to + len].copy_from_slice(&b[from..from + len]),
            _ => unreachable!("cells are copied between tables of one width"),
        }
    }

    fn slice(&self) -> CellSlice<'_> {
        match self {
            Cells::U8(cells) => CellSlice::U8(cells),
            Cells::U16(cells) => CellSlice::U16(cells),
            Cells::U32(cells) => CellSlice::U32(cells),
            Cells::U64(cells) => CellSlice::U64(cells),
        }
    }
}

/// A table's cells as the search reads them, in their width.
#[derive(Debug, Clone, Copy)]
pub enum CellSlice<'a> {
    U8(&'a [u8]),
    U16(&'a [u16]),
    U32(&'a [u32]),
    U64(&'a [u64]),
}

impl CellSlice<'_> {
    /// The state of a cell, if there is one at `index`.
    #[inline]
    pub fn get(&self, index: usize) -> Option<Grundy> {
        match self {
            CellSlice::U8(cells) => cells.get(index).map(|cell| cell.wide()),
            CellSlice::U16(cells) => cells.get(index).map(|cell| cell.wide()),
            CellSlice::U32(cells) => cells.get(index).map(|cell| cell.wide()),
            CellSlice::U64(cells) => cells.get(index).copied(),
        }
    }
}

/// One game's table: `dims` = volumes of planes of rows of cells (the
/// last the row's length, its stride), row after row, plane after plane
/// and volume after volume, so that a line through it (along any
/// parameter, or a diagonal of several) is an arithmetic progression of
/// indices into one slice.
#[derive(Debug, Default)]
struct Table {
    cells: Cells,
    dims: [usize; 4],
}

/// The index of cell `at` (volume, plane, row, column) of a table of
/// `dims`, if the table has it.
#[inline]
fn flat(dims: [usize; 4], at: [usize; 4]) -> Option<usize> {
    let inside = at.iter().zip(&dims).all(|(at, dim)| at < dim);
    inside.then(|| ((at[0] * dims[1] + at[1]) * dims[2] + at[2]) * dims[3] + at[3])
}

/// The coordinates of the position of `args` (one to four) in its
/// table: the last argument the column, the one before the row, and so on.
#[inline]
pub fn coordinates<T: Copy + Default>(args: &[T]) -> Option<[T; 4]> {
    let mut at = [T::default(); 4];
    if args.is_empty() || args.len() > 4 {
        return None;
    }
    at[4 - args.len()..].copy_from_slice(args);
    Some(at)
}

impl Table {
    #[inline]
    fn index(&self, at: [usize; 4]) -> Option<usize> {
        flat(self.dims, at)
    }

    /// Makes room for a table of `dims`, keeping every cell; `Err`, with
    /// the table as it was, when memory ran out.
    fn grow(&mut self, dims: [usize; 4]) -> Result<(), TryReserveError> {
        let len = dims.iter().product();
        if dims[1..] == self.dims[1..] {
            self.cells.resize(len)?;
        } else {
            let mut cells = self.cells.empty_like(len)?;
            let [volumes, planes, rows, stride] = self.dims;
            for volume in 0..volumes {
                for plane in 0..planes {
                    for row in 0..rows {
                        let from = flat(self.dims, [volume, plane, row, 0]);
                        let to = flat(dims, [volume, plane, row, 0]);
                        let (from, to) = (from.expect("a cell"), to.expect("room"));
                        cells.copy_from(to, &self.cells, from, stride);
                    }
                }
            }
            self.cells = cells;
        }
        self.dims = dims;
        Ok(())
    }
}

/// A table as the search reads it: `dims` as [`Table`]'s.
#[derive(Debug, Clone, Copy)]
pub struct Grid<'a> {
    pub cells: CellSlice<'a>,
    pub dims: [usize; 4],
}

impl Grid<'_> {
    /// The index of the cell of arguments `args` (one to four), if the
    /// table has it.
    #[inline]
    pub fn index(&self, args: &[i64]) -> Option<usize> {
        let at = coordinates(args)?;
        let mut index = [0usize; 4];
        for (index, &arg) in index.iter_mut().zip(&at) {
            *index = usize::try_from(arg).ok()?;
        }
        flat(self.dims, index)
    }
}

/// Positions stored along a row since the journal was last cleared: the
/// table, the row, the first column and how many columns on. A table
/// filled along its rows keeps a few runs, not an entry a position.
#[derive(Debug, Clone, Copy)]
struct Run {
    table: u32,
    volume: u32,
    plane: u32,
    row: u32,
    col: u32,
    len: u32,
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
    journal: Vec<Run>,
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
        let index = table.index(address.at())?;
        Some((address.table as usize, index))
    }

    /// The state kept at an address: [`UNSOLVED`] when none is.
    #[inline]
    pub fn get(&self, address: Address) -> Grundy {
        match self.index(address) {
            Some((table, index)) => self.tables[table].cells.get(index),
            None => UNSOLVED,
        }
    }

    /// A table, for reading many cells along a line.
    #[inline]
    pub fn grid(&self, table: usize) -> Grid<'_> {
        match self.tables.get(table) {
            Some(table) => Grid {
                cells: table.cells.slice(),
                dims: table.dims,
            },
            None => Grid {
                cells: CellSlice::U64(&[]),
                dims: [0; 4],
            },
        }
    }

    /// Sets the state at an address where one is stored.
    pub fn set(&mut self, address: Address, value: Grundy) {
        let (table, index) = self.index(address).expect("a stored address");
        self.tables[table].cells.set(index, value);
    }

    /// Stores a new position's state at its address, if the budget allows
    /// the room; `false` if it does not.
    pub fn insert(&mut self, address: Address, value: Grundy) -> bool {
        debug_assert_ne!(value, UNSOLVED);
        if !self.make_room(address) {
            return false;
        }
        let grid = &mut self.tables[address.table as usize];
        let index = grid.index(address.at()).expect("room was made");
        let fresh = grid.cells.get(index) == UNSOLVED;
        grid.cells.set(index, value);
        if fresh {
            self.filled += 1;
            self.note(address);
        }
        true
    }

    /// Makes room for the box of positions whose coordinates are each at
    /// most `corner`'s, and notes in the journal those not stored, so that
    /// they can be filled (see [`Dense::fill`]) and, if the search fails,
    /// forgotten. The largest value stored in the box; `None` if the budget
    /// has no room for it.
    pub fn claim_box(&mut self, corner: Address) -> Option<Grundy> {
        if !self.make_room(corner) {
            return None;
        }
        let grid = &self.tables[corner.table as usize];
        let mut largest = 0;
        for volume in 0..=corner.volume {
            for plane in 0..=corner.plane {
                for row in 0..=corner.row {
                    let at = |col: u32| [volume, plane, row, col].map(|at| at as usize);
                    let start = grid.index(at(0)).expect("room was made");
                    let mut run: Option<Run> = None;
                    for col in 0..=corner.col {
                        let value = grid.cells.get(start + col as usize);
                        if value != UNSOLVED {
                            if value < LOOPY {
                                largest = largest.max(value);
                            }
                            self.journal.extend(run.take());
                            continue;
                        }
                        match &mut run {
                            Some(run) => run.len += 1,
                            None => {
                                run = Some(Run {
                                    table: corner.table,
                                    volume,
                                    plane,
                                    row,
                                    col,
                                    len: 1,
                                })
                            }
                        }
                    }
                    self.journal.extend(run);
                }
            }
        }
        Some(largest)
    }

    /// Stores a value in cell `index` of table `table`, in a box claimed
    /// (see [`Dense::claim_box`]) and not stored since.
    pub fn fill_cell(&mut self, table: u32, index: usize, value: Grundy) {
        let cells = &mut self.tables[table as usize].cells;
        debug_assert_eq!(cells.get(index), UNSOLVED);
        cells.set(index, value);
        self.filled += 1;
    }

    /// Grows the table of `address`, if need be, to hold it; `false` if
    /// the budget has no room, or memory ran out.
    fn make_room(&mut self, address: Address) -> bool {
        let at = address.at();
        let table = address.table as usize;
        if table >= self.tables.len() {
            self.tables.resize_with(table + 1, Table::default);
        }
        let grid = &mut self.tables[table];
        if grid.index(at).is_none() {
            // Doubling keeps growth cheap; exactly enough when doubling
            // would pass the budget.
            let room = self.budget - self.cells + grid.cells.len();
            let size = |dims: [usize; 4]| {
                let cells = dims
                    .iter()
                    .try_fold(1usize, |cells, &dim| cells.checked_mul(dim));
                cells.filter(|&cells| cells <= room)
            };
            let now = grid.dims;
            let at_least: [usize; 4] = std::array::from_fn(|d| (at[d] + 1).max(now[d]));
            let doubled: [usize; 4] = std::array::from_fn(|d| match at[d] < now[d] {
                true => now[d],
                false => at_least[d].max(2 * now[d]),
            });
            let Some((dims, cells)) = [doubled, at_least]
                .into_iter()
                .find_map(|dims| Some((dims, size(dims)?)))
            else {
                return false;
            };
            // With no memory for it, the position is interned, where
            // memory run out is an error.
            let before = grid.cells.len();
            if grid.grow(dims).is_err() {
                return false;
            }
            self.cells = self.cells - before + cells;
        }
        true
    }

    /// Forgets the journal: what is stored now stays.
    pub fn keep(&mut self) {
        self.journal.clear();
    }

    /// Notes a new address in the journal, in the run it extends if any.
    fn note(&mut self, address: Address) {
        if let Some(run) = self.journal.last_mut()
            && (run.table, run.volume, run.plane, run.row)
                == (address.table, address.volume, address.plane, address.row)
            && run.len < u32::MAX
        {
            if run.col.checked_add(run.len) == Some(address.col) {
                run.len += 1;
                return;
            }
            if address.col.checked_add(1) == Some(run.col) {
                run.col -= 1;
                run.len += 1;
                return;
            }
        }
        self.journal.push(Run {
            table: address.table,
            volume: address.volume,
            plane: address.plane,
            row: address.row,
            col: address.col,
            len: 1,
        });
    }

    /// Forgets every position stored since the journal was last cleared.
    pub fn roll_back(&mut self) {
        for run in std::mem::take(&mut self.journal) {
            for col in run.col..run.col + run.len {
                self.remove(Address {
                    table: run.table,
                    volume: run.volume,
                    plane: run.plane,
                    row: run.row,
                    col,
                });
            }
        }
    }

    fn remove(&mut self, address: Address) {
        if let Some((table, index)) = self.index(address) {
            let cells = &mut self.tables[table].cells;
            if cells.get(index) != UNSOLVED {
                cells.set(index, UNSOLVED);
                self.filled -= 1;
            }
        }
    }

    /// Every address stored.
    pub fn addresses(&self) -> impl Iterator<Item = Address> + '_ {
        self.tables.iter().enumerate().flat_map(|(table, grid)| {
            let [_, planes, rows, stride] = grid.dims.map(|dim| dim.max(1));
            (0..grid.cells.len())
                .filter(|&index| grid.cells.get(index) != UNSOLVED)
                .map(move |index| Address {
                    table: table as u32,
                    volume: (index / stride / rows / planes) as u32,
                    plane: (index / stride / rows % planes) as u32,
                    row: (index / stride % rows) as u32,
                    col: (index % stride) as u32,
                })
        })
    }

    /// Forgets the positions at these addresses.
    pub fn forget(&mut self, addresses: &[Address]) {
        addresses.iter().for_each(|&address| self.remove(address));
    }
}

#[cfg(test)]
mod tests {
    use super::super::{EXPANDING, QUEUED};
    use super::*;
    use proptest::prelude::*;

    fn at(table: u32, row: u32, col: u32) -> Address {
        Address {
            table,
            volume: row % 2,
            plane: row / 2 % 2,
            row: row / 4,
            col,
        }
    }

    #[test]
    fn states_keep_their_meaning_in_every_width() {
        for state in [LOOPY, EXPANDING, QUEUED, UNSOLVED] {
            assert_eq!(<u8 as Cell>::narrow(state).wide(), state);
            assert_eq!(<u16 as Cell>::narrow(state).wide(), state);
            assert_eq!(<u32 as Cell>::narrow(state).wide(), state);
            assert_eq!(<u64 as Cell>::narrow(state).wide(), state);
        }
        assert_eq!(<u8 as Cell>::narrow(251).wide(), 251);
        assert_eq!(u8::STATES, 252);
    }

    proptest! {
        /// Values stored in any order, across tables, rows and widths (to
        /// 64 bits), read back as stored (states too); a roll back forgets
        /// exactly what was stored since the journal was cleared.
        #[test]
        fn cells_widen_and_roll_back(
            kept in proptest::collection::vec((0u32..2, 0u32..6, 0u32..40, 0u64..300), 0..40),
            added in proptest::collection::vec(
                (0u32..2, 0u32..6, 0u32..40, prop_oneof![0u64..100_000, 1u64 << 32..1 << 40]),
                0..40,
            ),
        ) {
            let mut dense = Dense::new(10_000);
            let mut expected = std::collections::BTreeMap::new();
            for &(table, row, col, value) in &kept {
                let address = at(table, row, col);
                if !expected.contains_key(&address) {
                    prop_assert!(dense.insert(address, QUEUED));
                }
                dense.set(address, value);
                expected.insert(address, value);
            }
            dense.keep();
            let before = expected.clone();
            for &(table, row, col, value) in &added {
                let address = at(table, row, col);
                let stored = match expected.contains_key(&address) {
                    false => {
                        prop_assert!(dense.insert(address, EXPANDING));
                        EXPANDING
                    }
                    true => {
                        dense.set(address, value);
                        value
                    }
                };
                expected.insert(address, stored);
            }
            for (&address, &value) in &expected {
                prop_assert_eq!(dense.get(address), value);
            }
            dense.roll_back();
            // What was stored before stays (with the values set since);
            // what was new is gone.
            for (&address, &value) in &expected {
                let kept = before.contains_key(&address);
                prop_assert_eq!(dense.get(address), if kept { value } else { UNSOLVED });
            }
            prop_assert_eq!(dense.len(), before.len());
            prop_assert_eq!(dense.addresses().count(), before.len());
        }
    }
}
