//! The values seen along lines of the dense tables. A rule whose binding
//! runs over a whole prefix of a row, column or diagonal (`move W(a - k, b)
//! for k in 1..=a`) has, at each position, the values of every cell from
//! the line's far end up to the position's neighbour. Kept per line and
//! grown one cell a position, that set is added to the position's mex in
//! one pass over its words, instead of reading the whole line again: the
//! work per position is the line's new cells, not its length.

use rustc_hash::FxHashMap as HashMap;

use super::{Grid, LOOPY, Mex};

/// A line through a table: the table and its planes', rows' and columns'
/// counts (a table that grows in any but its first dimension moves its
/// cells, so its lines are new ones), the step from one cell to the next
/// going away from the far end, and the far end's index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct LineKey {
    table: usize,
    shape: [usize; 3],
    step: isize,
    end: usize,
}

/// The values of a line's first `count` cells from its far end.
#[derive(Debug, Default)]
struct Seen {
    count: usize,
    values: Mex,
}

#[derive(Debug, Default)]
pub(super) struct Lines {
    seen: HashMap<LineKey, Seen>,
    /// Words kept over every line, and the most allowed before they are
    /// all forgotten and gathered again.
    words: usize,
    budget: usize,
}

impl Lines {
    pub fn new(max_states: usize) -> Self {
        Lines {
            budget: (max_states / 8).max(1 << 16),
            ..Lines::default()
        }
    }

    /// Forgets every line: the tables' values changed.
    pub fn clear(&mut self) {
        self.seen.clear();
        self.words = 0;
    }

    /// The values of `length` cells of a table as `grid` holds it, from
    /// index `start` on by `step` (its far end `length - 1` steps on), as a
    /// set of values; `None` if a cell has no value yet, or the line is
    /// known further than this and cannot be cut short.
    pub fn values(
        &mut self,
        table: usize,
        grid: Grid<'_>,
        (start, step, length): (usize, isize, usize),
    ) -> Option<&Mex> {
        let cells = grid.cells;
        let end = start.checked_add_signed(step.checked_mul(length as isize - 1)?)?;
        let key = LineKey {
            table,
            shape: [grid.dims[1], grid.dims[2], grid.dims[3]],
            step,
            end,
        };
        if self.words > self.budget {
            self.clear();
        }
        let seen = self.seen.entry(key).or_default();
        if seen.count > length {
            return None;
        }
        let before = seen.values.words();
        while seen.count < length {
            let index = end.checked_add_signed(-step * seen.count as isize)?;
            match cells.get(index) {
                Some(value) if value < LOOPY => seen.values.add(value),
                _ => break,
            }
            seen.count += 1;
        }
        self.words += seen.values.words() - before;
        (seen.count == length).then_some(&seen.values)
    }
}
