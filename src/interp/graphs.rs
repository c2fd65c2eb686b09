//! Declared graphs by a number of 16 bits, so that a region of one packs
//! into a key as a region of a grid does (see `rules::pack`): the search
//! then finds its parts in the engine's packed table, bounded by
//! `--max-table`, instead of interning each as a position. A graph's
//! board of nodes (`G`) and its board of edges (`Edges(G)`) are numbered
//! apart.
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

use crate::values::{Board, GraphBoard};

/// The boards numbered so far, each a graph and whether the board is of
/// its edges, and the number of each by the graph's address.
#[derive(Default)]
struct Numbered {
    boards: Vec<(Arc<GraphBoard>, bool)>,
    numbers: HashMap<(usize, bool), u16>,
    /// The numbers of boards built from a table, not yet taken over by a
    /// board of the run (see [`resumed`]), by the hash of what they are.
    waiting: HashMap<u64, Vec<u16>>,
    /// Boards whose numbers others took over, kept so that no other board
    /// takes their addresses.
    retired: Vec<Arc<GraphBoard>>,
}

/// What a graph's board is, as a table saves it: two boards alike in all
/// of it have the same values in every game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub name: String,
    pub nodes: usize,
    pub edges: Vec<(u32, u32)>,
    /// Whether the board is of the graph's edges (`Edges(G)`).
    pub lines: bool,
}

/// What a graph's board is, borrowed: from an [`Identity`] or a board.
type What<'a> = (&'a str, usize, &'a [(u32, u32)], bool);

impl Identity {
    fn of(board: &GraphBoard, lines: bool) -> Identity {
        Identity {
            name: board.name.clone(),
            nodes: board.nodes,
            edges: board.edges.clone(),
            lines,
        }
    }

    fn what(&self) -> What<'_> {
        (&self.name, self.nodes, &self.edges, self.lines)
    }

    /// Why no region of a key is on this board, if none is: more than 128
    /// nodes on the board (its edges, for a board of edges), a graph of
    /// more nodes than a board may have, or an edge's end past its nodes.
    pub fn unfit(&self) -> Option<String> {
        let (size, what) = match self.lines {
            true => (self.edges.len(), "edges"),
            false => (self.nodes, "nodes"),
        };
        if size > 128 {
            return Some(format!("has {size} {what}, more than a key holds"));
        }
        if self.nodes > crate::values::board::MAX_BOARD {
            return Some(format!(
                "has {} nodes, more than a board may have",
                self.nodes
            ));
        }
        let outside = |&(a, b): &(u32, u32)| a.max(b) as usize >= self.nodes;
        self.edges
            .iter()
            .any(outside)
            .then(|| "has an edge that joins a node it does not have".to_owned())
    }
}

/// What a board is, as a graph.
fn what(board: &GraphBoard, lines: bool) -> What<'_> {
    (&board.name, board.nodes, &board.edges, lines)
}

/// The hash boards waiting to be taken over are found by.
fn hash(what: What<'_>) -> u64 {
    FxBuildHasher.hash_one(what)
}

static NUMBERED: Mutex<Option<Numbered>> = Mutex::new(None);

thread_local! {
    /// The board last numbered or looked up on this thread, by address:
    /// a search asks about one board over and over.
    static LAST: Cell<Option<((usize, bool), u16)>> = const { Cell::new(None) };
}

/// The most boards numbered (a number and one fill a key's 16 bits).
const MOST: usize = u16::MAX as usize;

/// The number of a graph's board, of its nodes or (with `lines`) of its
/// edges, numbering it if it has none; `None` once [`MOST`] boards are
/// numbered (its regions are then interned).
pub(super) fn number(board: &Arc<GraphBoard>, lines: bool) -> Option<u16> {
    let address = (Arc::as_ptr(board) as usize, lines);
    if let Some((last, number)) = LAST.get()
        && last == address
    {
        return Some(number);
    }
    let mut numbered = NUMBERED.lock().unwrap_or_else(PoisonError::into_inner);
    let numbered = numbered.get_or_insert_with(Numbered::default);
    let number = match numbered.numbers.get(&address) {
        Some(&number) => number,
        None => match numbered.take_over(board, lines) {
            Some(number) => number,
            None if numbered.boards.len() < MOST => {
                let number = numbered.boards.len() as u16;
                // Kept, so that no other board takes its address.
                numbered.boards.push((Arc::clone(board), lines));
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
pub(super) fn board(number: u16) -> Option<Board> {
    let numbered = NUMBERED.lock().unwrap_or_else(PoisonError::into_inner);
    let (graph, lines) = numbered.as_ref()?.boards.get(number as usize)?;
    Some(match lines {
        true => Board::Edges(graph.clone()),
        false => Board::Graph(graph.clone()),
    })
}

/// What the board numbered `number` is, if a board has that number.
pub fn identity(number: u16) -> Option<Identity> {
    let numbered = NUMBERED.lock().unwrap_or_else(PoisonError::into_inner);
    let (graph, lines) = numbered.as_ref()?.boards.get(number as usize)?;
    Some(Identity::of(graph, *lines))
}

/// The number of a board built from a table's `identity` of a graph's
/// board: the first board of this run that is the same (see
/// [`Identity`]) takes it over. A board already numbered that way keeps
/// its number. `None` once [`MOST`] boards are numbered, or when the
/// identity is no board of a key (see [`Identity::unfit`]).
pub fn resumed(identity: &Identity) -> Option<u16> {
    if identity.unfit().is_some() {
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
    let address = (Arc::as_ptr(&board) as usize, identity.lines);
    numbered.numbers.insert(address, number);
    numbered.boards.push((board, identity.lines));
    numbered.waiting.entry(hash).or_default().push(number);
    Some(number)
}

impl Numbered {
    /// Where, among the numbers waiting under `hash`, is that of the
    /// board built from a table that is the board `what`.
    fn waiting_at(&self, hash: u64, what: What<'_>) -> Option<usize> {
        let numbers = self.waiting.get(&hash)?;
        let boards = &self.boards;
        numbers.iter().position(|&number| {
            let (graph, lines) = &boards[number as usize];
            self::what(graph, *lines) == what
        })
    }

    /// The number of a board built from a table that is the same board as
    /// `board` (of its edges, with `lines`), which takes the number over
    /// (its graph is kept aside).
    fn take_over(&mut self, board: &Arc<GraphBoard>, lines: bool) -> Option<u16> {
        if self.waiting.is_empty() {
            return None;
        }
        let hash = hash(what(board, lines));
        let at = self.waiting_at(hash, what(board, lines))?;
        let numbers = self.waiting.get_mut(&hash)?;
        let number = numbers.swap_remove(at);
        if numbers.is_empty() {
            self.waiting.remove(&hash);
        }
        let kept = (Arc::clone(board), lines);
        let (retired, _) = std::mem::replace(&mut self.boards[number as usize], kept);
        self.retired.push(retired);
        self.numbers
            .insert((Arc::as_ptr(board) as usize, lines), number);
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
        let a = number(&first, false).unwrap();
        let b = number(&redeclared, false).unwrap();
        assert_ne!(a, b);
        assert_eq!(number(&first, false), Some(a));
        let edges = |number| match super::board(number) {
            Some(Board::Graph(graph)) => graph.edges.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(edges(a), [(0, 1)]);
        assert_eq!(edges(b), [(1, 2)]);
        // The board of its edges is another board.
        let lines = number(&first, true).unwrap();
        assert_ne!(lines, a);
        assert!(matches!(super::board(lines), Some(Board::Edges(_))));
    }

    #[test]
    fn the_first_board_that_is_a_resumed_graph_takes_its_number_over() {
        let name = "Resumed";
        let identity = Identity {
            name: name.into(),
            nodes: 3,
            edges: vec![(0, 1), (1, 2)],
            lines: false,
        };
        let resumed = super::resumed(&identity).unwrap();
        // Asked again before a board takes it: the same number.
        assert_eq!(super::resumed(&identity), Some(resumed));
        let board =
            |name: &str, edges| Arc::new(GraphBoard::new(GraphId(8), name.into(), 3, edges));
        // Another name, or other edges, or the board of its edges: another.
        let renamed = board("Other", vec![(0, 1), (1, 2)]);
        assert_ne!(number(&renamed, false), Some(resumed));
        let rewired = board(name, vec![(0, 2), (1, 2)]);
        assert_ne!(number(&rewired, false), Some(resumed));
        let same = board(name, vec![(0, 1), (1, 2)]);
        assert_ne!(number(&same, true), Some(resumed));
        assert_eq!(number(&same, false), Some(resumed));
        let Some(Board::Graph(taken)) = super::board(resumed) else {
            panic!("a graph's board of nodes");
        };
        assert!(Arc::ptr_eq(&taken, &same));
        // Taken: a second board alike is numbered afresh, and the graph
        // resumed again is built afresh too.
        let again = board(name, vec![(0, 1), (1, 2)]);
        assert_ne!(number(&again, false), Some(resumed));
        assert_ne!(super::resumed(&identity), Some(resumed));
        // No board of a key: an edge past its nodes, more than 128 nodes on
        // the board, or more than a board may have in the graph.
        let broken = Identity {
            edges: vec![(0, 3)],
            ..identity.clone()
        };
        assert_eq!(super::resumed(&broken), None);
        let large = Identity {
            nodes: 129,
            ..identity.clone()
        };
        assert_eq!(super::resumed(&large), None);
        let lines = Identity {
            nodes: 129,
            lines: true,
            ..identity.clone()
        };
        assert!(super::resumed(&lines).is_some());
        let huge = Identity {
            nodes: 1 << 40,
            lines: true,
            ..identity
        };
        assert_eq!(super::resumed(&huge), None);
    }
}
