//! Declared graphs by a number of 16 bits, so that a region of one packs
//! into a key as a region of a grid does (see `rules::pack`): the search
//! then finds its parts in the engine's packed table, bounded by
//! `--max-table`, instead of interning each as a position.
//!
//! The numbers are the process's own: a board is numbered when a key is
//! first made for it, and kept (with the board) from then on, so that a
//! number always means the board it was given for. A graph redeclared
//! under the same name is another board, and gets another number.
//!
//! A table saves each graph its keys are of by what it is (its name, its
//! nodes and its edges, see [`Identity`]), and a run that resumes it
//! numbers a board built from that ([`resumed`]): the first board of the
//! run that is the same graph takes that number over, so that the values
//! found for it before are its own again.

use std::cell::Cell;
use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::{Arc, Mutex, PoisonError};

use rustc_hash::FxBuildHasher;

use crate::values::GraphBoard;

/// The boards numbered so far, and the number of each by its address.
#[derive(Default)]
struct Numbered {
    boards: Vec<Arc<GraphBoard>>,
    numbers: HashMap<usize, u16>,
    /// The numbers of boards built from a table, not yet taken over by a
    /// board of the run (see [`resumed`]), by the hash of what they are.
    waiting: HashMap<u64, Vec<u16>>,
    /// Boards whose numbers others took over, kept so that no other board
    /// takes their addresses.
    retired: Vec<Arc<GraphBoard>>,
}

/// What a graph is, as a table saves it: two boards alike in all of it
/// have the same values in every game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub name: String,
    pub nodes: usize,
    pub edges: Vec<(u32, u32)>,
}

/// What a graph is, borrowed: from an [`Identity`] or from a board.
type What<'a> = (&'a str, usize, &'a [(u32, u32)]);

impl Identity {
    fn of(board: &GraphBoard) -> Identity {
        Identity {
            name: board.name.clone(),
            nodes: board.nodes,
            edges: board.edges.clone(),
        }
    }

    fn what(&self) -> What<'_> {
        (&self.name, self.nodes, &self.edges)
    }
}

/// What a board is, as a graph.
fn what(board: &GraphBoard) -> What<'_> {
    (&board.name, board.nodes, &board.edges)
}

/// The hash boards waiting to be taken over are found by.
fn hash(what: What<'_>) -> u64 {
    FxBuildHasher.hash_one(what)
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
        None => match numbered.take_over(board) {
            Some(number) => number,
            None if numbered.boards.len() < MOST => {
                let number = numbered.boards.len() as u16;
                // Kept, so that no other board takes its address.
                numbered.boards.push(Arc::clone(board));
                numbered.numbers.insert(address, number);
                number
            }
            None => return None,
        },
    };
    LAST.set(Some((address, number)));
    Some(number)
}

/// The board numbered `number`, if one is.
pub(super) fn board(number: u16) -> Option<Arc<GraphBoard>> {
    let numbered = NUMBERED.lock().unwrap_or_else(PoisonError::into_inner);
    numbered.as_ref()?.boards.get(number as usize).cloned()
}

/// What the graph numbered `number` is, if a board has that number.
pub fn identity(number: u16) -> Option<Identity> {
    board(number).map(|board| Identity::of(&board))
}

/// The number of a board built from a table's `identity` of a graph:
/// the first board of this run that is the same graph (see
/// [`Identity`]) takes it over. A graph already numbered that way keeps
/// its number. `None` once [`MOST`] boards are numbered, or when the
/// identity is no graph (an edge's end past its nodes, more than 128
/// nodes: no key of a table is of one).
pub fn resumed(identity: &Identity) -> Option<u16> {
    let fits =
        |&(a, b): &(u32, u32)| (a as usize) < identity.nodes && (b as usize) < identity.nodes;
    if identity.nodes > 128 || !identity.edges.iter().all(fits) {
        return None;
    }
    let mut numbered = NUMBERED.lock().unwrap_or_else(PoisonError::into_inner);
    let numbered = numbered.get_or_insert_with(Numbered::default);
    let hash = hash(identity.what());
    if let Some(number) = numbered.waiting_at(hash, identity.what()) {
        return Some(numbered.waiting[&hash][number]);
    }
    if numbered.boards.len() >= MOST {
        return None;
    }
    let board = Arc::new(GraphBoard::new(
        crate::eval::family::fresh_id(),
        identity.name.clone(),
        identity.nodes,
        identity.edges.clone(),
    ));
    let number = numbered.boards.len() as u16;
    numbered
        .numbers
        .insert(Arc::as_ptr(&board) as usize, number);
    numbered.boards.push(board);
    numbered.waiting.entry(hash).or_default().push(number);
    Some(number)
}

impl Numbered {
    /// Where, among the numbers waiting under `hash`, is that of the
    /// board built from a table that is the graph `what`.
    fn waiting_at(&self, hash: u64, what: What<'_>) -> Option<usize> {
        let numbers = self.waiting.get(&hash)?;
        let boards = &self.boards;
        numbers
            .iter()
            .position(|&number| self::what(&boards[number as usize]) == what)
    }

    /// The number of a board built from a table that is the same graph as
    /// `board`, which takes the number over (its board is kept aside).
    fn take_over(&mut self, board: &Arc<GraphBoard>) -> Option<u16> {
        if self.waiting.is_empty() {
            return None;
        }
        let hash = hash(what(board));
        let at = self.waiting_at(hash, what(board))?;
        let numbers = self.waiting.get_mut(&hash)?;
        let number = numbers.swap_remove(at);
        if numbers.is_empty() {
            self.waiting.remove(&hash);
        }
        let retired = std::mem::replace(&mut self.boards[number as usize], Arc::clone(board));
        self.retired.push(retired);
        self.numbers.insert(Arc::as_ptr(board) as usize, number);
        Some(number)
    }
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

    #[test]
    fn the_first_board_that_is_a_resumed_graph_takes_its_number_over() {
        let name = "Resumed";
        let identity = Identity {
            name: name.into(),
            nodes: 3,
            edges: vec![(0, 1), (1, 2)],
        };
        let resumed = super::resumed(&identity).unwrap();
        // Asked again before a board takes it: the same number.
        assert_eq!(super::resumed(&identity), Some(resumed));
        let board =
            |name: &str, edges| Arc::new(GraphBoard::new(GraphId(8), name.into(), 3, edges));
        // Another name, or other edges: another graph.
        let renamed = board("Other", vec![(0, 1), (1, 2)]);
        assert_ne!(number(&renamed), Some(resumed));
        let rewired = board(name, vec![(0, 2), (1, 2)]);
        assert_ne!(number(&rewired), Some(resumed));
        let same = board(name, vec![(0, 1), (1, 2)]);
        assert_eq!(number(&same), Some(resumed));
        assert!(Arc::ptr_eq(&super::board(resumed).unwrap(), &same));
        // Taken: a second board alike is numbered afresh, and the graph
        // resumed again is built afresh too.
        let again = board(name, vec![(0, 1), (1, 2)]);
        assert_ne!(number(&again), Some(resumed));
        assert_ne!(super::resumed(&identity), Some(resumed));
        // No graph: an edge past its nodes, or more than 128 nodes.
        let broken = Identity {
            edges: vec![(0, 3)],
            ..identity.clone()
        };
        assert_eq!(super::resumed(&broken), None);
        let large = Identity {
            nodes: 129,
            ..identity
        };
        assert_eq!(super::resumed(&large), None);
    }
}
