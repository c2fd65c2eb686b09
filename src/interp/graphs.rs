//! Declared graphs by a number of 16 bits, so that a region of one packs
//! into a key as a region of a grid does (see `rules::pack`): the search
//! then finds its parts in the engine's packed table, bounded by
//! `--max-table`, instead of interning each as a position.
//!
//! The numbers are the process's own: a board is numbered when a key is
//! first made for it, and kept (with the board) from then on, so that a
//! number always means the board it was given for. A graph redeclared
//! under the same name is another board, and gets another number. Keys of
//! graphs are therefore not saved in tables, and a table's key that
//! claims to be one is refused.

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::values::GraphBoard;

/// The boards numbered so far, and the number of each by its address.
#[derive(Default)]
struct Numbered {
    boards: Vec<Arc<GraphBoard>>,
    numbers: HashMap<usize, u16>,
}

static NUMBERED: Mutex<Option<Numbered>> = Mutex::new(None);

thread_local! {
    /// The board last numbered or looked up on this thread, by address:
    /// a search asks about one board over and over.
    static LAST: Cell<Option<(usize, u16)>> = const { Cell::new(None) };
}

/// The most boards numbered (a number and one fill a key's 16 bits).
const MOST: usize = u16::MAX as usize;

/// The number of `board`, numbering it if it has none; `None` once
/// [`MOST`] boards are numbered (its regions are then interned).
pub(super) fn number(board: &Arc<GraphBoard>) -> Option<u16> {
    let address = Arc::as_ptr(board) as usize;
    if let Some((last, number)) = LAST.get()
        && last == address
    {
        return Some(number);
    }
    let mut numbered = NUMBERED.lock().unwrap_or_else(PoisonError::into_inner);
    let numbered = numbered.get_or_insert_with(Numbered::default);
    let number = match numbered.numbers.get(&address) {
        Some(&number) => number,
        None if numbered.boards.len() < MOST => {
            let number = numbered.boards.len() as u16;
            // Kept, so that no other board takes its address.
            numbered.boards.push(Arc::clone(board));
            numbered.numbers.insert(address, number);
            number
        }
        None => return None,
    };
    LAST.set(Some((address, number)));
    Some(number)
}

/// The board numbered `number`, if one is.
pub(super) fn board(number: u16) -> Option<Arc<GraphBoard>> {
    let numbered = NUMBERED.lock().unwrap_or_else(PoisonError::into_inner);
    numbered.as_ref()?.boards.get(number as usize).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::board::GraphId;

    #[test]
    fn a_board_keeps_its_number_and_another_board_of_its_name_gets_another() {
        let board = |edges| Arc::new(GraphBoard::new(GraphId(7), "G".into(), 3, edges));
        let (first, redeclared) = (board(vec![(0, 1)]), board(vec![(1, 2)]));
        let a = number(&first).unwrap();
        let b = number(&redeclared).unwrap();
        assert_ne!(a, b);
        assert_eq!(number(&first), Some(a));
        assert_eq!(super::board(a).unwrap().edges, [(0, 1)]);
        assert_eq!(super::board(b).unwrap().edges, [(1, 2)]);
    }
}
