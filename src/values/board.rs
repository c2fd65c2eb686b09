//! Boards and their regions: the neighbours of a node, the connected parts
//! of a region, and each part's shape up to translation (and, if asked, the
//! board's symmetries), so that equal parts are one position. Regions of up
//! to 128 nodes are bitsets, flooded a word at a time.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{BitAnd, BitOr, Not, Shl, Shr};
use std::sync::{Arc, OnceLock};

use super::automorphisms::Automorphisms;

use super::{Board, Region, Set, write_elements};

/// Which declared graph a board is: boards compare by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GraphId(pub u32);

/// The most nodes a board may have.
pub const MAX_BOARD: usize = 1 << 20;

/// A declared graph as a board: its nodes numbered in the order they first
/// appear, its edges in the order written, each joining two nodes both
/// ways.
#[derive(Debug)]
pub struct GraphBoard {
    pub id: GraphId,
    pub name: String,
    pub nodes: usize,
    pub edges: Vec<(u32, u32)>,
    /// The nodes next to each node.
    pub neighbours: Vec<Vec<u32>>,
    /// The edges at each node.
    pub incident: Vec<Vec<u32>>,
    /// The nodes next to each node as bits, where the graph has at most
    /// 128 nodes (else none): its regions are flooded a word at a time.
    node_bits: Vec<u128>,
    /// The edges sharing an end with each edge as bits, where the graph
    /// has at most 128 edges (else none), for `Edges(G)`.
    edge_bits: Vec<u128>,
    /// The automorphisms of the graph and of its edges' board, found when
    /// a game `splits up to symmetry` first shapes a part of either.
    symmetries: [OnceLock<Automorphisms>; 2],
}

impl GraphBoard {
    pub fn new(id: GraphId, name: String, nodes: usize, edges: Vec<(u32, u32)>) -> Self {
        let mut neighbours = vec![Vec::new(); nodes];
        let mut incident = vec![Vec::new(); nodes];
        for (index, &(a, b)) in edges.iter().enumerate() {
            if a != b {
                neighbours[a as usize].push(b);
                neighbours[b as usize].push(a);
            }
            incident[a as usize].push(index as u32);
            if a != b {
                incident[b as usize].push(index as u32);
            }
        }
        for list in &mut neighbours {
            list.sort_unstable();
            list.dedup();
        }
        let bits = |list: &[u32]| list.iter().fold(0u128, |bits, &w| bits | 1 << w);
        let node_bits = match nodes <= 128 {
            true => neighbours.iter().map(|list| bits(list)).collect(),
            false => Vec::new(),
        };
        let edge_bits = match edges.len() <= 128 {
            true => (0..edges.len() as u32)
                .map(|edge| {
                    let (a, b) = edges[edge as usize];
                    (bits(&incident[a as usize]) | bits(&incident[b as usize])) & !(1 << edge)
                })
                .collect(),
            false => Vec::new(),
        };
        GraphBoard {
            id,
            name,
            nodes,
            edges,
            neighbours,
            incident,
            node_bits,
            edge_bits,
            symmetries: Default::default(),
        }
    }

    /// The automorphisms of the graph (`edges`: of the board of its
    /// edges), as far as they are kept (see [`Automorphisms::of`]); none
    /// for a board of more than 128 nodes.
    pub fn symmetries(&self, edges: bool) -> &Automorphisms {
        let bits = match edges {
            true => &self.edge_bits,
            false => &self.node_bits,
        };
        self.symmetries[usize::from(edges)].get_or_init(|| Automorphisms::of(bits))
    }

    /// Every node, as a region.
    pub fn whole(self: &Arc<Self>) -> Region {
        Region {
            board: Board::Graph(self.clone()),
            nodes: Set::from_values(0..self.nodes as i64),
        }
    }
}

impl Default for GraphBoard {
    fn default() -> Self {
        GraphBoard::new(GraphId(u32::MAX), String::new(), 0, Vec::new())
    }
}

// A declared graph is known by its id: positions hash without reading its
// edges.
impl PartialEq for GraphBoard {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Eq for GraphBoard {}

impl Hash for GraphBoard {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.id.hash(state)
    }
}

impl PartialOrd for GraphBoard {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for GraphBoard {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.id.cmp(&other.id)
    }
}

impl Board {
    /// How many nodes (for `Edges(G)`, edges) the board has.
    pub fn size(&self) -> usize {
        match self {
            Board::Grid { rows, cols } => *rows as usize * *cols as usize,
            Board::Path(n) | Board::Cycle(n) => *n as usize,
            Board::Graph(graph) => graph.nodes,
            Board::Edges(graph) => graph.edges.len(),
        }
    }

    /// Every node, as a region.
    pub fn whole(self) -> Region {
        Region {
            nodes: Set::from_values(0..self.size() as i64),
            board: self,
        }
    }

    /// How many connected regions the board has (sets of nodes, not
    /// empty, connected on the board), counted up to `most + 1`: a game
    /// that splits reaches no other components. Each region is met once,
    /// as Wernicke's ESU enumeration meets it: from its least node, adding
    /// only nodes next to the last added and next to nothing before.
    pub fn connected_regions(&self, most: usize) -> usize {
        let size = self.size();
        // A path's regions are its stretches; a cycle's, its arcs and itself.
        let line = match *self {
            Board::Path(_) => Some(false),
            Board::Grid { rows, cols } if rows.min(cols) <= 1 => Some(false),
            Board::Cycle(n) => Some(n > 0),
            Board::Grid { .. } | Board::Graph(_) | Board::Edges(_) => None,
        };
        if let Some(cycle) = line {
            let n = size as u128;
            let regions = match cycle {
                false => n * (n + 1) / 2,
                true => n * (n - 1) + 1,
            };
            return usize::try_from(regions)
                .unwrap_or(usize::MAX)
                .min(most.saturating_add(1));
        }
        // For each node, how many nodes of the region are it or next to it
        // (a node next to one twice, as edges of `Edges(G)` may be, counts
        // twice, and is taken back as often).
        let mut near = vec![0u32; size];
        let mark = |near: &mut [u32], w: u32, by: i32| {
            near[w as usize] = near[w as usize].wrapping_add_signed(by);
            self.neighbours(w, |u| {
                near[u as usize] = near[u as usize].wrapping_add_signed(by);
            });
        };
        // Adds to `grows` the nodes next to `w` above `least` and next to
        // nothing in the region, each once; no more than 64 (past any
        // bound, see `past`), so that no list as long as a node's
        // neighbours is kept.
        let grow = |grows: &mut Vec<u32>, near: &[u32], w: u32, least: u32| {
            self.neighbours(w, |u| {
                if grows.len() < 64 && u > least && near[u as usize] == 0 && !grows.contains(&u) {
                    grows.push(u);
                }
            });
        };
        // A region that may still grow by k nodes, each next to it, grows
        // into 2^k - 1 regions more (with any of them it stays connected):
        // once those would pass `most`, counting stops. So no region on the
        // way keeps a long list (a star's centre, 17 of its leaves at most).
        let past = |count: usize, grows: &[u32]| {
            let more = 1usize.checked_shl(grows.len() as u32).unwrap_or(usize::MAX);
            grows.len() >= 64 || count.saturating_add(more - 1) > most
        };
        let mut count = 0usize;
        // The nodes each region on the way may still grow by, and the node
        // it grew by last; below the regions of least node `least`, the
        // empty one, which grows by `least` alone.
        let mut stack: Vec<(Vec<u32>, Option<u32>)> = Vec::new();
        for least in 0..size as u32 {
            stack.push((vec![least], None));
            while let Some((grows, _)) = stack.last_mut() {
                let Some(w) = grows.pop() else {
                    if let Some((_, Some(added))) = stack.pop() {
                        mark(&mut near, added, -1);
                    }
                    continue;
                };
                let mut next = grows.clone();
                grow(&mut next, &near, w, least);
                count += 1;
                if count > most || past(count, &next) {
                    return most.saturating_add(1);
                }
                mark(&mut near, w, 1);
                stack.push((next, Some(w)));
            }
        }
        count
    }

    /// Calls `each` with every node next to `v` (for `Edges(G)`, every
    /// edge sharing an end with edge v).
    pub fn neighbours(&self, v: u32, mut each: impl FnMut(u32)) {
        match self {
            Board::Grid { rows, cols } => {
                let (r, c) = (v / cols, v % cols);
                if r > 0 {
                    each(v - cols);
                }
                if c > 0 {
                    each(v - 1);
                }
                if c + 1 < *cols {
                    each(v + 1);
                }
                if r + 1 < *rows {
                    each(v + cols);
                }
            }
            Board::Path(n) => {
                if v > 0 {
                    each(v - 1);
                }
                if v + 1 < *n {
                    each(v + 1);
                }
            }
            Board::Cycle(n) => match n {
                0 | 1 => {}
                2 => each(1 - v),
                _ => {
                    each((v + n - 1) % n);
                    each((v + 1) % n);
                }
            },
            Board::Graph(graph) => graph.neighbours[v as usize].iter().for_each(|&w| each(w)),
            Board::Edges(graph) => {
                let (a, b) = graph.edges[v as usize];
                for end in [a, b] {
                    for &edge in &graph.incident[end as usize] {
                        if edge != v {
                            each(edge);
                        }
                    }
                }
            }
        }
    }

    /// The nodes next to node `v` of a board of at most 128 nodes, as
    /// bits: shifts for grids and paths, in a `u64` where the board fits.
    #[inline]
    pub fn neighbour_bits(&self, v: u32) -> u128 {
        debug_assert!(self.size() <= 128 && (v as usize) < self.size());
        let size = self.size() as u32;
        match size {
            0..=64 => {
                let on_board = u64::MAX >> (64 - size);
                u128::from(self.spreader::<u64>().spread(1 << v) & on_board)
            }
            _ => {
                let on_board = u128::MAX >> (128 - size);
                self.spreader::<u128>().spread(1 << v) & on_board
            }
        }
    }

    /// The nodes of `bits` (a region of a board of at most 128 nodes) that
    /// no play of a game whose every move takes the two ends of an edge
    /// needs (see `NodeRule::takes_an_edge`): the nodes with no neighbour,
    /// which no move takes; all leaves but one on each node; and the nodes
    /// that are no leaf and whose every neighbour holds a leaf (see
    /// [`lone_between_leaves`]). Of two leaves on one node either may go:
    /// a move that takes the node leaves both with no neighbour, and any
    /// other leaves them as they were, so the position with both and the
    /// position with one have the same options, one for one, up to nodes
    /// with no neighbour. Dropping these makes no new pair of leaves and
    /// no new node of the third kind, so one pass is all.
    #[inline(always)]
    pub fn spare_nodes(&self, bits: u128) -> u128 {
        debug_assert!(self.size() <= 128);
        match self.size() {
            0..=64 => self.spare_nodes_in::<u64>(u64::narrow(bits)).wide(),
            _ => self.spare_nodes_in::<u128>(bits),
        }
    }

    fn spare_nodes_in<W: Word>(&self, nodes: W) -> W {
        let spreader = self.spreader::<W>();
        let (cols, first, last) = match spreader {
            Spreader::Grid { cols, first, last } => (cols, first, last),
            // A path is a grid of one row, with no rows above or below.
            Spreader::Path => (W::BITS, W::ZERO, W::ZERO),
            other => return spare_nodes_one_by_one(nodes, &other),
        };
        let [below, above, right, left] = sides(nodes, cols, first, last);
        let some = below | above | right | left;
        let two = (below & (above | right | left)) | (above & (right | left)) | (right & left);
        let leaves = some & !two;
        // The node each leaf hangs on, one direction at a time: a leaf
        // whose node already has one goes.
        let mut spare = nodes & !some;
        let mut held = down(leaves & below, cols);
        let on = up(leaves & above, cols);
        spare = spare | down(on & held, cols);
        held = held | on;
        let on = (leaves & right) << 1;
        spare = spare | (on & held) >> 1;
        held = held | on;
        let on = (leaves & left) >> 1;
        spare = spare | (on & held) << 1;
        held = held | on;
        spare | lone_between_leaves(nodes, leaves, held, |bits| spreader.spread(bits))
    }

    /// Edges of `bits` (a region of a board of at most 128 nodes) that a
    /// game whose every move takes the two ends of an edge may drop, each
    /// by its left end along a row (bit `i`: the edge from node `i` to
    /// node `i + 1`).
    ///
    /// Two nodes with the same two neighbours, which are not neighbours of
    /// each other, are twins: on a grid, the corners of one diagonal of a
    /// square of four cells, each with no neighbour outside it. The move
    /// that takes one twin and a neighbour leaves what the move that takes
    /// the other twin and that neighbour leaves, up to the twins' names.
    /// So one edge of each twin may go, to different neighbours (here the
    /// two along the rows): the options of the position less those edges
    /// are those of the position, one for one, up to a leaf on a node that
    /// holds another (see [`Board::spare_nodes`]) and a node with no
    /// neighbour, and the two positions have one value. The region may
    /// then split where the edges went. A twin's neighbours are in its
    /// square alone, so squares are apart and each drops its edges as if
    /// alone. Only grids of two rows or more have such edges here.
    #[inline(always)]
    pub fn twin_edges(&self, bits: u128) -> u128 {
        debug_assert!(self.size() <= 128);
        match self.size() {
            0..=64 => self.twin_edges_in::<u64>(u64::narrow(bits)).wide(),
            _ => self.twin_edges_in::<u128>(bits),
        }
    }

    fn twin_edges_in<W: Word>(&self, nodes: W) -> W {
        let Spreader::Grid { cols, first, last } = self.spreader::<W>() else {
            return W::ZERO;
        };
        let [below, above, right, left] = sides(nodes, cols, first, last);
        // The corners of a square whose only neighbours are in it.
        let top_left = right & below & !left & !above;
        let top_right = left & below & !right & !above;
        let bottom_left = right & above & !left & !below;
        let bottom_right = left & above & !right & !below;
        // A square by its top row's left end, where its top-left corner's
        // twin is at the bottom right, or its top-right corner's at the
        // bottom left: the edges of both its rows go.
        let falling = top_left & up(bottom_right, cols) >> 1;
        let rising = (top_right & up(bottom_left, cols) << 1) >> 1;
        let tops = falling | rising;
        tops | down(tops, cols)
    }

    /// How to find the nodes next to a set of nodes of a board whose
    /// nodes fit in a `W`.
    fn spreader<W: Word>(&self) -> Spreader<'_, W> {
        match self {
            // One row is a path (and a shift by its length would overflow).
            Board::Grid { rows: 1, .. } | Board::Path(_) => Spreader::Path,
            Board::Grid { rows, cols } if *rows > 0 && *cols > 0 => {
                let nodes = rows * cols;
                debug_assert!(nodes <= 128);
                let first = EVERY[*cols as usize] & u128::MAX >> (128 - nodes);
                Spreader::Grid {
                    cols: *cols,
                    first: W::narrow(first),
                    last: W::narrow(first << (cols - 1)),
                }
            }
            Board::Graph(graph) if !graph.node_bits.is_empty() => Spreader::Masks(&graph.node_bits),
            Board::Edges(graph) if !graph.edge_bits.is_empty() => Spreader::Masks(&graph.edge_bits),
            other => Spreader::Any(other),
        }
    }
}

/// The nodes of a grid of `cols` columns one row below `bits` (none when
/// a row is the whole word: a path).
#[inline(always)]
fn down<W: Word>(bits: W, cols: u32) -> W {
    match cols < W::BITS {
        true => bits << cols,
        false => W::ZERO,
    }
}

/// The nodes one row above `bits` (see [`down`]).
#[inline(always)]
fn up<W: Word>(bits: W, cols: u32) -> W {
    match cols < W::BITS {
        true => bits >> cols,
        false => W::ZERO,
    }
}

/// The nodes of `nodes` with a neighbour among them below, above, to the
/// right and to the left, on a grid of `cols` columns whose first and
/// last columns are `first` and `last`.
#[inline(always)]
fn sides<W: Word>(nodes: W, cols: u32, first: W, last: W) -> [W; 4] {
    [
        nodes & up(nodes, cols),
        nodes & down(nodes, cols),
        nodes & (nodes & !first) >> 1,
        nodes & (nodes & !last) << 1,
    ]
}

/// A word of bits, one a node: `u64` for boards of at most 64 nodes, whose
/// operations are cheaper, else `u128`.
trait Word:
    Copy
    + Eq
    + BitOr<Output = Self>
    + BitAnd<Output = Self>
    + Not<Output = Self>
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
{
    const ZERO: Self;
    const ONE: Self;
    const MAX: Self;
    const BITS: u32;
    /// The lowest bit set.
    fn lowest(self) -> Self;
    fn trailing_zeros(self) -> u32;
    fn wrapping_add(self, other: Self) -> Self;
    fn leading_zeros(self) -> u32;
    fn reverse_bits(self) -> Self;
    fn narrow(bits: u128) -> Self;
    fn wide(self) -> u128;
    /// The word as regions order their sets: by the low 64 bits, then
    /// the high.
    #[inline(always)]
    fn order(self) -> (u64, u64) {
        let wide = self.wide();
        (wide as u64, (wide >> 64) as u64)
    }
}

/// `Word` for an unsigned integer type, by its own operations.
macro_rules! word {
    ($($bits:ty),*) => {$(
        impl Word for $bits {
            const ZERO: $bits = 0;
            const ONE: $bits = 1;
            const MAX: $bits = <$bits>::MAX;
            const BITS: u32 = <$bits>::BITS;
            #[inline(always)]
            fn lowest(self) -> $bits {
                self & self.wrapping_neg()
            }
            #[inline(always)]
            fn trailing_zeros(self) -> u32 {
                <$bits>::trailing_zeros(self)
            }
            #[inline(always)]
            fn wrapping_add(self, other: $bits) -> $bits {
                <$bits>::wrapping_add(self, other)
            }
            #[inline(always)]
            fn leading_zeros(self) -> u32 {
                <$bits>::leading_zeros(self)
            }
            #[inline(always)]
            fn reverse_bits(self) -> $bits {
                <$bits>::reverse_bits(self)
            }
            #[inline(always)]
            fn narrow(bits: u128) -> $bits {
                bits as $bits
            }
            #[inline(always)]
            fn wide(self) -> u128 {
                self as u128
            }
        }
    )*};
}

word!(u64, u128);

/// For each number of columns, the first column of a grid of 128 nodes
/// (and as many rows as that makes): a grid's first column is its first
/// bits of this, with no loop over its rows.
const EVERY: [u128; 129] = {
    let mut every = [0u128; 129];
    let mut cols = 1;
    while cols <= 128 {
        let mut node = 0;
        while node < 128 {
            every[cols] |= 1 << node;
            node += cols;
        }
        cols += 1;
    }
    every
};

/// The nodes next to any node of a set: shifts for grids and paths, the
/// nodes next to each node as bits for a declared graph of at most 128
/// nodes (or edges, for `Edges(G)`).
enum Spreader<'a, W> {
    Grid { cols: u32, first: W, last: W },
    Path,
    Masks(&'a [u128]),
    Any(&'a Board),
}

impl<W: Word> Spreader<'_, W> {
    /// `part` (inside `rest`) with every node of `rest` to its right along
    /// a row of a grid or along a path, in one addition: the carry from a
    /// node of `part` runs through the nodes of `rest` above it and stops
    /// at the first that is not (a grid's last column is left to
    /// [`Spreader::spread`], so that no carry runs into the next row).
    #[inline(always)]
    fn along_rows(&self, part: W, rest: W) -> W {
        let runs = match *self {
            Spreader::Grid { last, .. } => rest & !last,
            Spreader::Path => rest,
            Spreader::Masks(_) | Spreader::Any(_) => return part,
        };
        let seeds = part & runs;
        part | runs & (!runs.wrapping_add(seeds) | seeds)
    }

    #[inline(always)]
    fn spread(&self, bits: W) -> W {
        match *self {
            Spreader::Grid { cols, first, last } => {
                (bits << cols) | (bits >> cols) | ((bits & !last) << 1) | ((bits & !first) >> 1)
            }
            Spreader::Path => (bits << 1) | (bits >> 1),
            Spreader::Masks(masks) => {
                let (mut spread, mut rest) = (0u128, bits.wide());
                while rest != 0 {
                    spread |= masks[rest.trailing_zeros() as usize];
                    rest &= rest - 1;
                }
                W::narrow(spread)
            }
            Spreader::Any(board) => {
                let mut spread = 0u128;
                let mut rest = bits.wide();
                while rest != 0 {
                    let v = rest.trailing_zeros();
                    rest &= rest - 1;
                    board.neighbours(v, |w| spread |= 1u128 << w);
                }
                W::narrow(spread)
            }
        }
    }
}

impl Region {
    /// The connected parts of the region, each as one position: moved to a
    /// board of its own shape where the board allows (a grid's part to the
    /// grid of its bounding box, a path's or a cycle's arc to a path), and
    /// with `symmetric`, to the least of its images under the board's
    /// symmetries.
    pub fn parts(&self, symmetric: bool, mut each: impl FnMut(Region)) {
        let size = self.board.size();
        match self.nodes.bits() {
            Some(bits) if size <= 128 => self.board.parts(bits, symmetric, each),
            _ => self.connected(&mut |part| {
                each(self.board.shaped(Set::from_increasing(part), symmetric))
            }),
        }
    }

    /// The nodes of each connected part, in increasing order, the parts in
    /// the order of their least nodes: each part is found by a walk from
    /// its least node, which labels its nodes in a list as long as the
    /// board (read in place of the set), and gathered by one pass over the
    /// region's nodes.
    fn connected(&self, each: &mut dyn FnMut(Vec<i64>)) {
        const OUT: u32 = 0;
        const IN: u32 = 1;
        // A node of part k is labelled `FIRST + k`.
        const FIRST: u32 = 2;
        let size = self.board.size();
        let mut label = vec![OUT; size];
        let on_board = |v: i64| usize::try_from(v).ok().filter(|&v| v < size);
        for v in self.nodes.iter().filter_map(on_board) {
            label[v] = IN;
        }
        let (mut sizes, mut stack) = (Vec::new(), Vec::new());
        for start in self.nodes.iter().filter_map(on_board) {
            if label[start] != IN {
                continue;
            }
            let part = FIRST + sizes.len() as u32;
            label[start] = part;
            stack.push(start as u32);
            let mut nodes = 1;
            while let Some(v) = stack.pop() {
                self.board.neighbours(v, &mut |w| {
                    if label[w as usize] == IN {
                        label[w as usize] = part;
                        nodes += 1;
                        stack.push(w);
                    }
                });
            }
            sizes.push(nodes);
        }
        let mut parts: Vec<Vec<i64>> = sizes.iter().map(|&n| Vec::with_capacity(n)).collect();
        for v in self.nodes.iter() {
            match on_board(v) {
                Some(node) => parts[(label[node] - FIRST) as usize].push(v),
                // Off the board, a node is a part of its own.
                None => each(vec![v]),
            }
        }
        parts.into_iter().for_each(each);
    }
}

impl Board {
    /// [`Region::parts`] for the nodes `bits` of a board of at most 128
    /// nodes: bit operations only.
    pub fn parts(&self, bits: u128, symmetric: bool, mut each: impl FnMut(Region)) {
        self.parts_boxed(bits, 0, symmetric, |part| each(part.region()));
    }

    /// [`Board::parts`], each part as it is found: a part of a grid moved
    /// to its bounding box but not yet to the least of its images, which
    /// [`Part::region`] finds, so that a part of a small box can be looked
    /// up by its cells as they lie (see [`Part::boxed`]).
    ///
    /// The edges of `cut` (by their left ends, as [`Board::twin_edges`]
    /// gives them) join no nodes: a part may still hold both ends of one,
    /// joined another way.
    pub fn parts_boxed(&self, bits: u128, cut: u128, symmetric: bool, each: impl FnMut(Part)) {
        debug_assert!(self.size() <= 128);
        match self.size() {
            0..=64 => self.parts_in::<u64>(bits, cut, symmetric, each),
            _ => self.parts_in::<u128>(bits, cut, symmetric, each),
        }
    }

    /// [`Board::parts_boxed`], with the nodes in a `W`.
    #[inline(always)]
    fn parts_in<W: Word>(
        &self,
        bits: u128,
        cut: u128,
        symmetric: bool,
        mut each: impl FnMut(Part),
    ) {
        let rows = match *self {
            Board::Grid { cols, .. } => Some(Rows::of(cols)),
            _ => None,
        };
        let mut shaped = |part: W| {
            each(match rows {
                Some(rows) => Part::Boxed(grid_box(part, rows, symmetric)),
                _ => Part::Region(self.shaped(Set::from_bits(part.wide()), symmetric)),
            })
        };
        // One loop for each kind of board, so that the spreading in the
        // innermost loop is straight bit operations.
        let bits = W::narrow(bits);
        match self.spreader::<W>() {
            // A node at the left end of an edge cut spreads no further to
            // the right, as if at the end of its row, and the node at its
            // right end no further to the left.
            Spreader::Grid { cols, first, last } => {
                let cut = W::narrow(cut);
                let grid = Spreader::Grid {
                    cols,
                    first: first | cut << 1,
                    last: last | cut,
                };
                split(bits, &grid, &mut shaped)
            }
            path @ Spreader::Path => split(bits, &path, &mut shaped),
            masks @ Spreader::Masks(_) => split_from_frontier(bits, &masks, &mut shaped),
            any @ Spreader::Any(_) => split(bits, &any, &mut shaped),
        }
    }

    /// A connected part, moved to a board of its own shape.
    fn shaped(&self, part: Set, symmetric: bool) -> Region {
        let count = part.len() as u32;
        match self {
            Board::Path(_) => Board::Path(count).whole(),
            Board::Cycle(n) if count == *n => self.clone().whole(),
            Board::Cycle(_) => Board::Path(count).whole(),
            Board::Grid { cols, .. } => {
                let cells: Vec<(u32, u32)> = part
                    .iter()
                    .map(|v| (v as u32 / cols, v as u32 % cols))
                    .collect();
                let top = cells.iter().map(|cell| cell.0).min().unwrap_or(0);
                let left = cells.iter().map(|cell| cell.1).min().unwrap_or(0);
                let height = cells.iter().map(|cell| cell.0).max().unwrap_or(0) - top + 1;
                let width = cells.iter().map(|cell| cell.1).max().unwrap_or(0) - left + 1;
                let moved = cells.iter().map(|&(r, c)| (r - top, c - left));
                let images: &[Symmetry] = match symmetric {
                    true => &Symmetry::ALL,
                    false => &[Symmetry::ALL[0]],
                };
                images
                    .iter()
                    .map(|symmetry| {
                        let (rows, cols) = symmetry.shape(height, width);
                        let cells = moved.clone().map(|(r, c)| {
                            let (r, c) = symmetry.apply(r, c, height, width);
                            i64::from(r * cols + c)
                        });
                        Region {
                            board: Board::Grid { rows, cols },
                            nodes: Set::from_values(cells),
                        }
                    })
                    .min()
                    .expect("a grid has the identity among its symmetries")
            }
            Board::Graph(graph) | Board::Edges(graph) => {
                let edges = matches!(self, Board::Edges(_));
                let nodes = match (symmetric, part.bits()) {
                    (true, Some(bits)) => Set::from_bits(graph.symmetries(edges).least(bits).0),
                    _ => part,
                };
                Region {
                    board: self.clone(),
                    nodes,
                }
            }
        }
    }
}

impl Region {
    /// [`Region::parts`], each part with where its nodes came from (see
    /// [`Origins`]). For showing a move as it was made; the search uses
    /// [`Region::parts`].
    pub fn traced_parts(&self, symmetric: bool) -> Vec<(Region, Origins)> {
        let mut parts = Vec::new();
        self.connected(&mut |mut part| {
            part.sort_unstable();
            parts.push(self.board.traced(&part, symmetric));
        });
        parts
    }
}

impl Board {
    /// [`Board::shaped`] for the sorted nodes `part`, with the origin of
    /// each node of the shaped part (see [`Region::traced_parts`]).
    fn traced(&self, part: &[i64], symmetric: bool) -> (Region, Origins) {
        let shaped = self.shaped(Set::from_values(part.iter().copied()), symmetric);
        if let Board::Graph(graph) | Board::Edges(graph) = self {
            // A declared graph's part stays on its board, or goes to its
            // least image there: a map the size of the board for each part
            // would take the square of its size for a board of many small
            // parts.
            let symmetries = || graph.symmetries(matches!(self, Board::Edges(_)));
            let which = Set::from_values(part.iter().copied())
                .bits()
                .filter(|_| symmetric)
                .and_then(|bits| symmetries().least(bits).1);
            let Some(which) = which else {
                return (shaped, Origins::Kept(part.to_vec()));
            };
            let mut mapped: Vec<(i64, i64)> = part
                .iter()
                .map(|&v| (i64::from(symmetries().apply(which, v as u32)), v))
                .collect();
            mapped.sort_unstable();
            return (shaped, Origins::Mapped(mapped));
        }
        let mut origin = vec![-1; shaped.board.size()];
        match self {
            Board::Cycle(n) if part.len() < *n as usize => {
                // The arc starts at its node whose predecessor is gone.
                let n = i64::from(*n);
                let first = part
                    .iter()
                    .copied()
                    .find(|&v| part.binary_search(&((v + n - 1) % n)).is_err())
                    .unwrap_or(0);
                for (k, slot) in origin.iter_mut().enumerate() {
                    *slot = (first + k as i64) % n;
                }
            }
            Board::Path(_) | Board::Cycle(_) => origin.copy_from_slice(part),
            Board::Grid { cols, .. } => {
                let cells: Vec<(u32, u32)> = part
                    .iter()
                    .map(|&v| (v as u32 / cols, v as u32 % cols))
                    .collect();
                let top = cells.iter().map(|cell| cell.0).min().unwrap_or(0);
                let left = cells.iter().map(|cell| cell.1).min().unwrap_or(0);
                let height = cells.iter().map(|cell| cell.0).max().unwrap_or(0) - top + 1;
                let width = cells.iter().map(|cell| cell.1).max().unwrap_or(0) - left + 1;
                let image = |symmetry: Symmetry| {
                    let (rows, cols) = symmetry.shape(height, width);
                    let cells = cells.iter().map(move |&(r, c)| {
                        let (r, c) = symmetry.apply(r - top, c - left, height, width);
                        i64::from(r * cols + c)
                    });
                    (Board::Grid { rows, cols }, cells)
                };
                let symmetry = Symmetry::ALL
                    .into_iter()
                    .find(|&symmetry| {
                        let (board, cells) = image(symmetry);
                        board == shaped.board && Set::from_values(cells) == shaped.nodes
                    })
                    .expect("the shaped part is one of the part's images");
                for (at, &v) in image(symmetry).1.zip(part) {
                    origin[at as usize] = v;
                }
            }
            Board::Graph(_) | Board::Edges(_) => unreachable!("kept on its board above"),
        }
        (shaped, Origins::Moved(origin))
    }
}

/// Where the nodes of a part found by [`Region::traced_parts`] came from:
/// the node of the region's board each node of the part's own board
/// stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origins {
    /// Node `v` of the part's board stands for node `origin[v]` (-1 for
    /// nodes the part lacks): a part moved to a board of its own shape.
    Moved(Vec<i64>),
    /// The part stayed on the region's board: each of these nodes (in
    /// order) stands for itself.
    Kept(Vec<i64>),
    /// The part went to its image under an automorphism of the region's
    /// board: each node of the image (in order) with the node it stands
    /// for.
    Mapped(Vec<(i64, i64)>),
}

impl Origins {
    /// The node of the region's board that node `v` of the part's board
    /// stands for, if the part has it.
    pub fn get(&self, v: i64) -> Option<i64> {
        match self {
            Origins::Moved(origin) => origin
                .get(usize::try_from(v).ok()?)
                .copied()
                .filter(|&v| v >= 0),
            Origins::Kept(nodes) => nodes.binary_search(&v).ok().map(|_| v),
            Origins::Mapped(pairs) => pairs
                .binary_search_by_key(&v, |pair| pair.0)
                .ok()
                .map(|at| pairs[at].1),
        }
    }

    /// The nodes of the region's board the part stands for.
    pub fn nodes(&self) -> impl Iterator<Item = i64> + '_ {
        let (moved, kept, mapped) = match self {
            Origins::Moved(origin) => (origin.as_slice(), &[][..], &[][..]),
            Origins::Kept(nodes) => (&[][..], nodes.as_slice(), &[][..]),
            Origins::Mapped(pairs) => (&[][..], &[][..], pairs.as_slice()),
        };
        moved
            .iter()
            .copied()
            .filter(|&v| v >= 0)
            .chain(kept.iter().copied())
            .chain(mapped.iter().map(|pair| pair.1))
    }
}

impl Region {
    /// The elements of the region joined to the nodes `ground` through it:
    /// for `Edges(G)`, the edges with a path of edges of the region to a
    /// ground node; for nodes, those with a path of nodes of the region.
    pub fn grounded(&self, ground: &Set) -> Region {
        let board = &self.board;
        let kept = match board {
            Board::Edges(graph) => {
                let mut reached = vec![false; graph.nodes];
                let mut stack: Vec<u32> = ground
                    .iter()
                    .filter(|&v| (0..graph.nodes as i64).contains(&v))
                    .map(|v| v as u32)
                    .collect();
                for &v in &stack {
                    reached[v as usize] = true;
                }
                let mut kept = Vec::new();
                while let Some(v) = stack.pop() {
                    for &edge in &graph.incident[v as usize] {
                        if !self.nodes.contains(i64::from(edge)) {
                            continue;
                        }
                        let (a, b) = graph.edges[edge as usize];
                        kept.push(i64::from(edge));
                        for end in [a, b] {
                            if !reached[end as usize] {
                                reached[end as usize] = true;
                                stack.push(end);
                            }
                        }
                    }
                }
                Set::from_values(kept)
            }
            _ => {
                let mut seen: Vec<i64> =
                    ground.iter().filter(|&v| self.nodes.contains(v)).collect();
                let mut stack = seen.clone();
                while let Some(v) = stack.pop() {
                    board.neighbours(v as u32, &mut |w| {
                        let w = i64::from(w);
                        if self.nodes.contains(w) && !seen.contains(&w) {
                            seen.push(w);
                            stack.push(w);
                        }
                    });
                }
                Set::from_values(seen)
            }
        };
        Region {
            board: board.clone(),
            nodes: kept,
        }
    }
}

/// [`Board::spare_nodes`] for a board whose nodes spread one at a time.
fn spare_nodes_one_by_one<W: Word>(nodes: W, spreader: &Spreader<'_, W>) -> W {
    let (mut spare, mut held, mut leaves, mut rest) = (W::ZERO, W::ZERO, W::ZERO, nodes);
    while rest != W::ZERO {
        let node = rest.lowest();
        rest = rest & !node;
        let around = spreader.spread(node) & nodes;
        if around == W::ZERO {
            spare = spare | node;
        } else if around == around.lowest() {
            // A leaf: it goes if its node holds one already.
            if held & around != W::ZERO {
                spare = spare | node;
            }
            held = held | around;
            leaves = leaves | node;
        }
    }
    spare | lone_between_leaves(nodes, leaves, held, |bits| spreader.spread(bits))
}

/// The nodes of `nodes` that are no leaf and have only nodes that hold a
/// leaf (`held`) for neighbours (so they hold none: their leaf would hold
/// none): a game that takes an edge's two ends never needs them. Against the position less such a node `x`,
/// the second player answers a move that takes `x` and a neighbour `s` by
/// taking `s` and its leaf, which leaves the two positions alike up to a
/// node with no neighbour (the leaf, or `x`), and any other move by the
/// same move in the other position, after which `x` still has only such
/// neighbours: so the two positions have one value. No such node is a
/// neighbour of another, and dropping one leaves the others as they were.
#[inline(always)]
fn lone_between_leaves<W: Word>(nodes: W, leaves: W, held: W, spread: impl Fn(W) -> W) -> W {
    nodes & !leaves & !spread(nodes & !held)
}

/// Calls `each` with each connected part of the nodes `rest`: a node's part
/// grown by the nodes next to it until it grows no more.
#[inline(always)]
fn split<W: Word>(mut rest: W, spreader: &Spreader<'_, W>, each: &mut impl FnMut(W)) {
    while rest != W::ZERO {
        let mut part = rest.lowest();
        loop {
            let grown = spreader.along_rows(part, rest) | spreader.spread(part) & rest;
            if grown == part {
                break;
            }
            part = grown;
        }
        rest = rest & !part;
        each(part);
    }
}

/// [`split`] for a board whose nodes spread one at a time (a declared
/// graph's): each part grown from the nodes it gained last only, so that
/// each node is spread from once.
fn split_from_frontier<W: Word>(mut rest: W, spreader: &Spreader<'_, W>, each: &mut impl FnMut(W)) {
    while rest != W::ZERO {
        let mut part = rest.lowest();
        let mut frontier = part;
        while frontier != W::ZERO {
            frontier = spreader.spread(frontier) & rest & !part;
            part = part | frontier;
        }
        rest = rest & !part;
        each(part);
    }
}

/// A connected part of a board, as [`Board::parts_boxed`] finds it.
#[derive(Debug, Clone)]
pub enum Part {
    /// A part of a grid, in its bounding box.
    Boxed(Boxed),
    /// A part of another board, as [`Region::parts`] gives it.
    Region(Region),
}

/// A part of a grid moved to the grid of its bounding box, its cells row
/// by row (`cols` bits a row), and whether it is to be moved on to the
/// least of its images.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Boxed {
    pub rows: u32,
    pub cols: u32,
    pub cells: u128,
    symmetric: bool,
}

impl Part {
    /// The part's box and cells as they lie, if the box has at most `most`
    /// cells: the same cells of the same box are the same position, so
    /// they index a table of the box's regions with no image to find.
    #[inline(always)]
    pub fn boxed(&self, most: u32) -> Option<Boxed> {
        match self {
            Part::Boxed(boxed) if boxed.rows * boxed.cols <= most => Some(*boxed),
            _ => None,
        }
    }

    /// The part as one position, as [`Region::parts`] gives it.
    #[inline(always)]
    pub fn region(self) -> Region {
        match self {
            Part::Boxed(boxed) => boxed.region(),
            Part::Region(region) => region,
        }
    }
}

impl Boxed {
    /// The part on the grid of its box, moved to the least of its eight
    /// images where it is symmetric.
    #[inline(always)]
    fn region(self) -> Region {
        let Boxed {
            rows: height,
            cols: width,
            cells,
            symmetric,
        } = self;
        let (rows, cols, nodes) = match symmetric {
            true if height <= 8 && width <= 8 => {
                let row_mask = (1u64 << width) - 1;
                let cells = (0..height).fold(0, |eights, r| {
                    eights | ((cells >> (r * width)) as u64 & row_mask) << (8 * r)
                });
                let (rows, cols, nodes) = least_small_image(cells, height, width);
                (rows, cols, u128::from(nodes))
            }
            true if height * width <= 64 => {
                let (rows, cols, nodes) = least_image(cells as u64, height, width);
                (rows, cols, u128::from(nodes))
            }
            true => least_image(cells, height, width),
            false => (height, width, cells),
        };
        Region {
            board: Board::Grid { rows, cols },
            nodes: Set::from_bits(nodes),
        }
    }
}

/// A connected part of a grid of `cols` columns, given by its bits, moved
/// to the grid of its bounding box. Bit operations on the board's own word
/// only, nothing allocated.
#[inline(always)]
fn grid_box<W: Word>(part: W, rows: Rows, symmetric: bool) -> Boxed {
    let cols = rows.cols;
    let top = rows.of_node(part.trailing_zeros());
    let bottom = rows.of_node(W::BITS - 1 - part.leading_zeros());
    let height = bottom - top + 1;
    // The rows from the top one, each `cols` bits; a part as wide as the
    // grid is moved up and no more.
    let part = part >> (top * cols);
    let row_mask = W::MAX >> (W::BITS - cols);
    // Every row folded onto the first, in as many shifts as it takes to
    // double the rows folded up to the part's height.
    let mut folded = part;
    let mut span = 1;
    while span < height {
        folded = folded | folded >> (span * cols);
        span *= 2;
    }
    let columns = folded & row_mask;
    let left = columns.trailing_zeros();
    let width = W::BITS - columns.leading_zeros() - left;
    // Packed in the board's own word: the part has no more nodes.
    let packed = match width == cols {
        true => part,
        false => (0..height).fold(W::ZERO, |packed, r| {
            packed | ((part >> (r * cols)) & row_mask) >> left << (r * width)
        }),
    };
    Boxed {
        rows: height,
        cols: width,
        cells: packed.wide(),
        symmetric,
    }
}

/// The least of the eight images of a `height` × `width` box's cells
/// (row by row, `width` bits a row) under the box's symmetries, as
/// regions order: by shape (fewer rows first), then by the set's low word
/// and high word. A box taller than wide is transposed first (one pass
/// over its cells), since its images with fewer rows are the least; the
/// four images of one shape are the box, the box with its rows in the
/// other order, and the half turns of these two (their bits reversed);
/// a square box has both shapes' four.
#[inline(always)]
fn least_image<W: Word>(cells: W, height: u32, width: u32) -> (u32, u32, W) {
    let four = |rows: u32, cols: u32, nodes: W| {
        // A half turn reverses the bits; after the rows' order is reversed,
        // it is the box in a mirror.
        let half_turn = |nodes: W| nodes.reverse_bits() >> (W::BITS - rows * cols);
        let flipped = flip_rows(nodes, rows, cols);
        let images = [nodes, half_turn(nodes), flipped, half_turn(flipped)];
        images
            .into_iter()
            .min_by_key(|nodes| nodes.order())
            .unwrap_or(nodes)
    };
    let least = match height.cmp(&width) {
        Ordering::Less => four(height, width, cells),
        Ordering::Greater => four(width, height, turn_over(cells, height, width)),
        Ordering::Equal => {
            let (a, b) = (
                four(height, width, cells),
                four(width, height, turn_over(cells, height, width)),
            );
            if a.order() <= b.order() { a } else { b }
        }
    };
    (height.min(width), height.max(width), least)
}

/// The least image, as [`least_image`], of a box of at most 8 × 8 cells
/// laid out 8 bits a row (bit `8 r + c` for cell (r, c)), given in that
/// layout and returned `rows` × `cols` in the layout of [`least_image`].
/// Each symmetry is a few whole-word operations here: the rows' order
/// reversed by reversing the bytes, each row by reversing the bits in
/// each byte, the box transposed by three exchanges of bits. Two sets of
/// one box compare as numbers alike in both layouts (a cell's bit comes
/// after another's in one exactly when it does in the other), so the
/// least is found before it is packed.
#[inline(always)]
fn least_small_image(cells: u64, height: u32, width: u32) -> (u32, u32, u64) {
    debug_assert!(height <= 8 && width <= 8);
    let four = |rows: u32, cols: u32, nodes: u64| {
        // The low `cols` bits of every byte.
        let row_cells = 0x0101_0101_0101_0101 * ((1u64 << cols) - 1);
        let flipped = nodes.swap_bytes() >> (8 * (8 - rows));
        let mirror = |nodes: u64| (nodes.swap_bytes().reverse_bits() >> (8 - cols)) & row_cells;
        let images = [nodes, flipped, mirror(nodes), mirror(flipped)];
        images.into_iter().min().unwrap_or(nodes)
    };
    let least = match height.cmp(&width) {
        Ordering::Less => four(height, width, cells),
        Ordering::Greater => four(width, height, transpose_eight(cells)),
        Ordering::Equal => {
            four(height, width, cells).min(four(width, height, transpose_eight(cells)))
        }
    };
    let (rows, cols) = (height.min(width), height.max(width));
    let packed = (0..rows).fold(0, |packed, r| {
        packed | (least >> (8 * r) & 0xff) << (r * cols)
    });
    (rows, cols, packed)
}

/// An 8 × 8 box of bits (bit `8 r + c` for cell (r, c)) transposed, by
/// exchanging the cells across the diagonal of each 2 × 2, 4 × 4 and
/// 8 × 8 block in turn (Warren, Hacker's Delight, § 7–3).
#[inline(always)]
fn transpose_eight(cells: u64) -> u64 {
    let exchange = |cells: u64, mask: u64, shift: u32| {
        let moved = (cells ^ cells >> shift) & mask;
        cells ^ moved ^ moved << shift
    };
    let cells = exchange(cells, 0x00aa_00aa_00aa_00aa, 7);
    let cells = exchange(cells, 0x0000_cccc_0000_cccc, 14);
    exchange(cells, 0x0000_0000_f0f0_f0f0, 28)
}

/// The rows of a box `width` bits wide in the other order.
#[inline(always)]
fn flip_rows<W: Word>(cells: W, height: u32, width: u32) -> W {
    let row_mask = W::MAX >> (W::BITS - width);
    (0..height).fold(W::ZERO, |image, r| {
        image | ((cells >> (r * width)) & row_mask) << ((height - 1 - r) * width)
    })
}

/// The box's columns as rows, in any word.
#[inline(always)]
fn turn_over<W: Word>(cells: W, height: u32, width: u32) -> W {
    let row_mask = W::MAX >> (W::BITS - width);
    let mut image = W::ZERO;
    for r in 0..height {
        let mut row = (cells >> (r * width)) & row_mask;
        while row != W::ZERO {
            let c = row.trailing_zeros();
            row = row & !row.lowest();
            image = image | W::ONE << (c * height + r);
        }
    }
    image
}

/// Each row of the box reversed: the box seen in a mirror.
#[inline(always)]
pub(super) fn mirror(cells: u128, height: u32, width: u32) -> u128 {
    let turned = cells.reverse_bits() >> (128 - height * width);
    flip_rows(turned, height, width)
}

/// The rows of the box in the other order.
#[inline(always)]
pub(super) fn upside_down(cells: u128, height: u32, width: u32) -> u128 {
    flip_rows(cells, height, width)
}

/// The box's columns as rows.
#[inline(always)]
pub(super) fn transpose(cells: u128, height: u32, width: u32) -> u128 {
    turn_over(cells, height, width)
}

/// The rows of a grid of at most 128 nodes, told from a node's number by
/// a multiplication, not a division (which costs more than the rest of
/// moving a part).
#[derive(Clone, Copy)]
struct Rows {
    cols: u32,
    /// ⌈2^16 / cols⌉: for a node v below 128, v · this / 2^16 is v / cols
    /// (the error, below 128 · 1 / 2^16, never reaches the next integer).
    reciprocal: u32,
}

impl Rows {
    /// The rows of a grid of `cols` columns (a grid of none has no node to
    /// ask about).
    #[inline(always)]
    fn of(cols: u32) -> Rows {
        let reciprocal = match RECIPROCALS.get(cols as usize) {
            Some(&reciprocal) => reciprocal,
            None => (1u32 << 16).div_ceil(cols),
        };
        Rows { cols, reciprocal }
    }

    #[inline(always)]
    fn of_node(self, v: u32) -> u32 {
        debug_assert!(v < 128);
        (v * self.reciprocal) >> 16
    }
}

/// [`Rows::reciprocal`] for each number of columns a grid of at most 128
/// nodes may have (and 1 for none), so that a board's parts cost no
/// division.
const RECIPROCALS: [u32; 129] = {
    let mut reciprocals = [1 << 16; 129];
    let mut cols = 1;
    while cols <= 128 {
        reciprocals[cols] = (1u32 << 16).div_ceil(cols as u32);
        cols += 1;
    }
    reciprocals
};

/// One of the eight symmetries of a rectangle: a turn by `quarter` quarter
/// turns after a reflection if `flip`.
#[derive(Clone, Copy)]
struct Symmetry {
    flip: bool,
    quarter: u8,
}

impl Symmetry {
    const ALL: [Symmetry; 8] = [
        Symmetry {
            flip: false,
            quarter: 0,
        },
        Symmetry {
            flip: false,
            quarter: 1,
        },
        Symmetry {
            flip: false,
            quarter: 2,
        },
        Symmetry {
            flip: false,
            quarter: 3,
        },
        Symmetry {
            flip: true,
            quarter: 0,
        },
        Symmetry {
            flip: true,
            quarter: 1,
        },
        Symmetry {
            flip: true,
            quarter: 2,
        },
        Symmetry {
            flip: true,
            quarter: 3,
        },
    ];

    /// The rows and columns of the image of a `height` × `width` box.
    fn shape(self, height: u32, width: u32) -> (u32, u32) {
        match self.quarter % 2 {
            0 => (height, width),
            _ => (width, height),
        }
    }

    /// Where cell (r, c) of a `height` × `width` box goes.
    fn apply(self, r: u32, c: u32, height: u32, width: u32) -> (u32, u32) {
        let (mut r, c, mut height, mut width) = (r, c, height, width);
        let mut c = if self.flip { width - 1 - c } else { c };
        for _ in 0..self.quarter {
            // A quarter turn clockwise: (r, c) -> (c, height - 1 - r).
            (r, c) = (c, height - 1 - r);
            (height, width) = (width, height);
        }
        (r, c)
    }
}

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.board {
            Board::Grid { rows, cols } => write!(f, "Grid({rows}, {cols})")?,
            Board::Path(n) => write!(f, "Path({n})")?,
            Board::Cycle(n) => write!(f, "Cycle({n})")?,
            Board::Graph(graph) => f.write_str(&graph.name)?,
            Board::Edges(graph) => write!(f, "Edges({})", graph.name)?,
        }
        let size = self.board.size();
        let present = self.nodes.len();
        if present == size {
            return Ok(());
        }
        // The shorter of what is gone and what is left.
        match present < size - present {
            true => {
                f.write_str(" & ")?;
                write_elements(f, ("{", "}"), self.nodes.iter())
            }
            false => {
                f.write_str(" - ")?;
                let gone = (0..size as i64).filter(|&v| !self.nodes.contains(v));
                write_elements(f, ("{", "}"), gone)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn grid(rows: u32, cols: u32, cells: &[i64]) -> Region {
        Region {
            board: Board::Grid { rows, cols },
            nodes: Set::from_values(cells.iter().copied()),
        }
    }

    #[test]
    fn rows_by_multiplication_are_rows_by_division() {
        for cols in 1..=128 {
            let rows = Rows::of(cols);
            for v in 0..128 {
                assert_eq!(rows.of_node(v), v / cols, "node {v} of {cols} columns");
            }
        }
    }

    /// The least image of a box's cells, by moving each cell under each
    /// of the eight symmetries one at a time, as regions order.
    fn least_image_cell_by_cell(cells: u128, height: u32, width: u32) -> Region {
        let image = |symmetry: Symmetry| {
            let (rows, cols) = symmetry.shape(height, width);
            let mut nodes = 0u128;
            for v in (0..height * width).filter(|&v| cells >> v & 1 == 1) {
                let (r, c) = symmetry.apply(v / width, v % width, height, width);
                nodes |= 1 << (r * cols + c);
            }
            Region {
                board: Board::Grid { rows, cols },
                nodes: Set::from_bits(nodes),
            }
        };
        Symmetry::ALL.into_iter().map(image).min().unwrap()
    }

    /// The least image by [`least_image`] in a word of 128 bits and, for
    /// a box that fits, in one of 64, as a region.
    fn least_images(cells: u128, height: u32, width: u32) -> Vec<Region> {
        let region = |(rows, cols, nodes): (u32, u32, u128)| Region {
            board: Board::Grid { rows, cols },
            nodes: Set::from_bits(nodes),
        };
        let mut found = vec![region(least_image(cells, height, width))];
        if height * width <= 64 {
            let (rows, cols, nodes) = least_image(cells as u64, height, width);
            found.push(region((rows, cols, u128::from(nodes))));
        }
        found
    }

    /// Every part of up to eight cells in a box of up to 2 × 4 (or 4 × 2,
    /// 1 × 8, 8 × 1), at every place on boards of more than 64 nodes, is
    /// moved to the least image of its bounding box, as cell by cell: a
    /// part reaching past bit 64 of a row wider than 64 nodes was cut at
    /// bit 64 when its box was narrowed to a word of 64 bits, and Node
    /// Kayles on a 1 × 65 grid up to symmetry was 5, not 3.
    #[test]
    fn a_part_anywhere_on_a_board_past_64_nodes_has_the_least_image_of_its_box() {
        let boards = [
            (1, 65),
            (1, 100),
            (1, 128),
            (2, 64),
            (3, 40),
            (65, 1),
            (128, 1),
            (9, 14),
        ];
        let boxes = [(1, 8), (2, 4), (4, 2), (8, 1), (3, 3)];
        for (rows, cols) in boards {
            for (height, width) in boxes {
                if height > rows || width > cols {
                    continue;
                }
                for cells in 1u128..1 << (height * width) {
                    // The box's own least image, from its bounding box.
                    let (mut top, mut left, mut bottom, mut right) = (height, width, 0, 0);
                    for v in (0..height * width).filter(|&v| cells >> v & 1 == 1) {
                        let (r, c) = (v / width, v % width);
                        (top, left) = (top.min(r), left.min(c));
                        (bottom, right) = (bottom.max(r), right.max(c));
                    }
                    let (h, w) = (bottom - top + 1, right - left + 1);
                    let mut boxed = 0u128;
                    for v in (0..height * width).filter(|&v| cells >> v & 1 == 1) {
                        boxed |= 1 << ((v / width - top) * w + v % width - left);
                    }
                    let expected = least_image_cell_by_cell(boxed, h, w);
                    for (dr, dc) in [(0, 0), (rows - height, cols - width), (rows / 2, cols / 2)] {
                        let (dr, dc) = (dr.min(rows - height), dc.min(cols - width));
                        let mut part = 0u128;
                        for v in (0..height * width).filter(|&v| cells >> v & 1 == 1) {
                            part |= 1 << ((v / width + dr) * cols + v % width + dc);
                        }
                        let found = match rows * cols {
                            0..=64 => grid_box(part as u64, Rows::of(cols), true).region(),
                            _ => grid_box(part, Rows::of(cols), true).region(),
                        };
                        assert_eq!(
                            found, expected,
                            "cells {cells:b} of a {height} × {width} box at ({dr}, {dc}) of {rows} × {cols}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn the_least_image_by_rows_is_the_least_image_cell_by_cell() {
        let boxes = [
            (1, 1),
            (1, 7),
            (2, 5),
            (3, 3),
            (3, 4),
            (4, 3),
            (4, 4),
            (2, 8),
            (5, 3),
        ];
        for (height, width) in boxes {
            for cells in 1u128..1 << (height * width) {
                let expected = least_image_cell_by_cell(cells, height, width);
                for found in least_images(cells, height, width) {
                    assert_eq!(
                        found, expected,
                        "cells {cells:b} of a {height} × {width} box"
                    );
                }
            }
        }
        // Boxes as large as the bits allow, with a few cells each.
        let boxes = [(8, 16), (16, 8), (1, 128), (128, 1), (11, 11)];
        let boxes = boxes
            .into_iter()
            .chain([(8, 8), (4, 16), (16, 4), (1, 64), (7, 9)]);
        for (height, width) in boxes {
            for seed in 0..200u128 {
                let cells = (seed.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835) >> 7)
                    & (u128::MAX >> (128 - height * width));
                if cells == 0 {
                    continue;
                }
                let expected = least_image_cell_by_cell(cells, height, width);
                for found in least_images(cells, height, width) {
                    assert_eq!(
                        found, expected,
                        "cells {cells:b} of a {height} × {width} box"
                    );
                }
            }
        }
    }

    #[test]
    fn the_least_image_of_a_small_box_by_words_is_the_least_image_cell_by_cell() {
        // A box's cells, `width` bits a row, laid out 8 bits a row.
        let by_bytes = |cells: u128, height: u32, width: u32| {
            (0..height).fold(0u64, |laid, r| {
                laid | ((cells >> (r * width) & ((1 << width) - 1)) as u64) << (8 * r)
            })
        };
        let check = |cells: u128, height: u32, width: u32| {
            let (rows, cols, nodes) =
                least_small_image(by_bytes(cells, height, width), height, width);
            let found = Region {
                board: Board::Grid { rows, cols },
                nodes: Set::from_bits(u128::from(nodes)),
            };
            let expected = least_image_cell_by_cell(cells, height, width);
            assert_eq!(
                found, expected,
                "cells {cells:b} of a {height} × {width} box"
            );
        };
        for height in 1..=8 {
            for width in 1..=8 {
                if height * width <= 16 {
                    (1u128..1 << (height * width)).for_each(|cells| check(cells, height, width));
                    continue;
                }
                for seed in 0..2000u128 {
                    let cells = (seed.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835)
                        >> 11)
                        & (u128::MAX >> (128 - height * width));
                    if cells != 0 {
                        check(cells, height, width);
                    }
                }
            }
        }
    }

    #[test]
    fn an_eight_by_eight_box_transposed_by_words_is_transposed_cell_by_cell() {
        for seed in 0..1000u64 {
            let cells = seed
                .wrapping_mul(0x9e37_79b9_7f4a_7c15)
                .rotate_left(seed as u32);
            let expected = (0..64)
                .filter(|v| cells >> v & 1 == 1)
                .fold(0u64, |image, v| image | 1 << (v % 8 * 8 + v / 8));
            assert_eq!(transpose_eight(cells), expected, "cells {cells:x}");
        }
    }

    fn parts(region: &Region, symmetric: bool) -> Vec<Region> {
        let mut found = Vec::new();
        region.parts(symmetric, &mut |part| found.push(part));
        found.sort();
        found
    }

    /// The parts by a plain search over `neighbours`, each moved to a box
    /// of its own shape cell by cell: what the bit operations must give.
    fn parts_by_search(board: &Board, bits: u128, symmetric: bool) -> Vec<Region> {
        let mut left = bits;
        let mut found = Vec::new();
        while left != 0 {
            let start = left.trailing_zeros();
            let (mut part, mut stack) = (1u128 << start, vec![start]);
            while let Some(v) = stack.pop() {
                board.neighbours(v, |w| {
                    if left >> w & 1 == 1 && part >> w & 1 == 0 {
                        part |= 1 << w;
                        stack.push(w);
                    }
                });
            }
            left &= !part;
            found.push(board.shaped(Set::from_bits(part), symmetric));
        }
        found.sort();
        found
    }

    proptest::proptest! {
        /// On grids (of u64 and u128 words), paths and cycles, the parts
        /// found by shifts and additions are those a search finds.
        #[test]
        fn parts_by_bits_are_parts_by_search(
            rows in 1u32..=8,
            cols in 1u32..=16,
            n in 1u32..=128,
            bits: u128,
            density in 0u32..4,
            symmetric: bool,
        ) {
            // Sparser and denser regions: AND or OR a second draw.
            let bits = match density {
                0 => bits & bits.rotate_left(7),
                1 => bits | bits.rotate_left(13),
                _ => bits,
            };
            for board in [Board::Grid { rows, cols }, Board::Path(n), Board::Cycle(n)] {
                let size = board.size() as u32;
                let bits = bits & (u128::MAX >> (128 - size));
                let mut found = Vec::new();
                board.parts(bits, symmetric, |part| found.push(part));
                found.sort();
                proptest::prop_assert_eq!(found, parts_by_search(&board, bits, symmetric));
            }
        }
    }

    /// Every set of nodes of a board, kept if it is connected on it.
    fn connected_by_every_subset(board: &Board) -> usize {
        let size = board.size();
        let connected = |set: u32| {
            let start = set.trailing_zeros();
            let (mut seen, mut todo) = (1u32 << start, vec![start]);
            while let Some(v) = todo.pop() {
                board.neighbours(v, |w| {
                    if set & 1 << w != 0 && seen & 1 << w == 0 {
                        seen |= 1 << w;
                        todo.push(w);
                    }
                });
            }
            seen == set
        };
        (1..1u32 << size).filter(|&set| connected(set)).count()
    }

    /// Every region of small grids: a part found with its box holds the
    /// cells of the part moved to the box's corner, as a plain walk finds
    /// them, and its region is the part [`Board::parts`] gives.
    #[test]
    fn a_part_in_its_box_holds_its_cells_as_they_lie() {
        for (rows, cols) in [(3, 4), (4, 3), (2, 6), (1, 9), (4, 4)] {
            let board = Board::Grid { rows, cols };
            for bits in 0u128..1 << (rows * cols) {
                let mut boxed = Vec::new();
                board.parts_boxed(bits, 0, true, |part| {
                    let Some(found) = part.boxed(16) else {
                        panic!("a part of a {rows} × {cols} grid fits a box of 16 cells");
                    };
                    boxed.push((found, part.region()));
                });
                // Moved to the corner, the parts in their boxes are those a
                // walk finds, and moved on to their least images too.
                let (mut cornered, mut least): (Vec<Region>, Vec<Region>) = boxed
                    .into_iter()
                    .map(|(found, region)| {
                        let board = Board::Grid {
                            rows: found.rows,
                            cols: found.cols,
                        };
                        let nodes = Set::from_bits(found.cells);
                        (Region { board, nodes }, region)
                    })
                    .unzip();
                cornered.sort();
                least.sort();
                assert_eq!(cornered, parts_by_search(&board, bits, false), "{bits:b}");
                assert_eq!(least, parts_by_search(&board, bits, true), "{bits:b}");
            }
        }
    }

    #[test]
    fn a_walk_finds_the_parts_that_joining_edges_does() {
        // Regions of boards of every kind, some of more than 128 nodes (the
        // walk's own case), against parts found by joining the ends of
        // each edge inside the region (union-find).
        let ring = (0..300u32)
            .map(|v| (v, (v + 1) % 300))
            .chain((0..300).map(|v| (v, (v + 7) % 300)));
        let ring = Arc::new(GraphBoard::new(GraphId(4), "R".into(), 300, ring.collect()));
        let boards = [
            Board::Grid { rows: 15, cols: 15 },
            Board::Path(300),
            Board::Cycle(200),
            Board::Graph(ring.clone()),
            Board::Edges(ring),
            Board::Grid { rows: 5, cols: 5 },
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for board in boards {
            let size = board.size();
            for _ in 0..20 {
                let nodes = (0..size as i64).filter(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    !seed.is_multiple_of(3)
                });
                let region = Region {
                    nodes: Set::from_values(nodes),
                    board: board.clone(),
                };
                let mut walked = Vec::new();
                region.connected(&mut |mut part| {
                    part.sort_unstable();
                    walked.push(part);
                });
                walked.sort();
                let mut root: Vec<usize> = (0..size).collect();
                fn find(root: &mut [usize], v: usize) -> usize {
                    let mut r = v;
                    while root[r] != r {
                        r = root[r];
                    }
                    root[v] = r;
                    r
                }
                for v in region.nodes.iter() {
                    board.neighbours(v as u32, |w| {
                        if region.nodes.contains(i64::from(w)) {
                            let (a, b) = (find(&mut root, v as usize), find(&mut root, w as usize));
                            root[a] = b;
                        }
                    });
                }
                let mut joined: std::collections::BTreeMap<usize, Vec<i64>> = Default::default();
                for v in region.nodes.iter() {
                    joined
                        .entry(find(&mut root, v as usize))
                        .or_default()
                        .push(v);
                }
                let mut joined: Vec<Vec<i64>> = joined.into_values().collect();
                joined.sort();
                assert_eq!(walked, joined, "{:?}", region.board.size());
            }
        }
    }

    #[test]
    fn connected_regions_are_counted_once_each() {
        // Published counts: n(n + 1)/2 on a path, n(n - 1) + 1 on a cycle,
        // 2^n - 1 on a complete graph.
        for n in 0..=40u32 {
            let n_ = n as usize;
            assert_eq!(
                Board::Path(n).connected_regions(usize::MAX),
                n_ * (n_ + 1) / 2
            );
        }
        for n in 3..=40u32 {
            let n_ = n as usize;
            assert_eq!(
                Board::Cycle(n).connected_regions(usize::MAX),
                n_ * (n_ - 1) + 1
            );
        }
        for n in 1..=12u32 {
            let edges = (0..n)
                .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
                .collect();
            let complete = Arc::new(GraphBoard::new(GraphId(0), "K".into(), n as usize, edges));
            assert_eq!(
                Board::Graph(complete).connected_regions(usize::MAX),
                (1 << n) - 1
            );
        }
        // Every board of at most 16 nodes against every subset of its nodes.
        let petersen = [
            (0, 1),
            (1, 2),
            (2, 3),
            (3, 4),
            (4, 0),
            (0, 5),
            (1, 6),
            (2, 7),
        ];
        let petersen =
            petersen
                .into_iter()
                .chain([(3, 8), (4, 9), (5, 7), (7, 9), (9, 6), (6, 8), (8, 5)]);
        let petersen = Arc::new(GraphBoard::new(
            GraphId(1),
            "P".into(),
            10,
            petersen.collect(),
        ));
        let loops = vec![(0, 1), (1, 2), (2, 0), (3, 3), (3, 4)];
        let loops = Arc::new(GraphBoard::new(GraphId(2), "G".into(), 5, loops));
        let mut boards = vec![
            Board::Graph(petersen.clone()),
            Board::Edges(petersen),
            Board::Graph(loops.clone()),
            Board::Edges(loops),
        ];
        for rows in 1..=4 {
            boards.extend((1..=16 / rows).map(|cols| Board::Grid { rows, cols }));
        }
        boards.extend((0..=16).map(Board::Path));
        boards.extend((1..=16).map(Board::Cycle));
        // Large boards stop soon: the centre of a star of 100,000 leaves
        // would keep them all in its list, a path of 2^20 nodes go 2^20 deep.
        let leaves = (1..=100_000).map(|leaf| (0, leaf)).collect();
        let star = Arc::new(GraphBoard::new(GraphId(3), "S".into(), 100_001, leaves));
        for large in [
            Board::Graph(star),
            Board::Path(1 << 20),
            Board::Cycle(1 << 20),
        ] {
            assert_eq!(
                large.connected_regions(1 << 16),
                (1 << 16) + 1,
                "{:?}",
                large.size()
            );
        }
        for board in boards {
            let every = connected_by_every_subset(&board);
            assert_eq!(board.connected_regions(usize::MAX), every, "{board:?}");
            // Counted no further than asked.
            let most = every / 2;
            let counted = board.connected_regions(most);
            assert_eq!(counted, every.min(most + 1), "{board:?} up to {most}");
        }
    }

    #[test]
    fn neighbours_by_bits_are_neighbours_one_by_one() {
        let graph = Arc::new(GraphBoard::new(
            GraphId(0),
            "G".into(),
            5,
            vec![(0, 1), (1, 2), (2, 0), (3, 3), (3, 4)],
        ));
        let mut boards = vec![Board::Graph(graph.clone()), Board::Edges(graph)];
        for rows in 1..=8 {
            boards.extend((1..=16).map(|cols| Board::Grid { rows, cols }));
        }
        boards.extend([1, 2, 3, 63, 64, 65, 128].map(Board::Path));
        boards.extend([1, 2, 3, 63, 64, 65, 128].map(Board::Cycle));
        for board in boards {
            for v in 0..board.size() as u32 {
                let mut expected = 0u128;
                board.neighbours(v, |w| expected |= 1 << w);
                assert_eq!(board.neighbour_bits(v), expected, "node {v} of {board:?}");
            }
        }
    }

    /// The Grundy value of the nodes `bits` of `board` in the game whose
    /// move takes the two ends of an edge, by the plain definition.
    fn edge_game(board: &Board, bits: u128, memo: &mut HashMap<u128, u8>) -> u8 {
        if let Some(&value) = memo.get(&bits) {
            return value;
        }
        let mut seen = 0u128;
        let mut rest = bits;
        while rest != 0 {
            let a = rest.trailing_zeros();
            rest &= rest - 1;
            let mut ends = Vec::new();
            board.neighbours(a, |b| ends.push(b));
            for b in ends.into_iter().filter(|&b| bits >> b & 1 == 1) {
                seen |= 1 << edge_game(board, bits & !(1 << a) & !(1 << b), memo);
            }
        }
        let value = (!seen).trailing_zeros() as u8;
        memo.insert(bits, value);
        value
    }

    #[test]
    fn spare_nodes_leave_the_value_of_an_edge_game_as_it_was() {
        let graph = Arc::new(GraphBoard::new(
            GraphId(0),
            "G".into(),
            10,
            // A star (leaves 1, 2 and 3 on 0), a path from it, a triangle.
            vec![
                (0, 1),
                (0, 2),
                (0, 3),
                (0, 4),
                (4, 5),
                (5, 6),
                (6, 7),
                (7, 8),
                (8, 6),
                (8, 9),
            ],
        ));
        let mut boards = vec![Board::Graph(graph.clone()), Board::Edges(graph)];
        boards.extend(
            [(3, 4), (4, 3), (2, 6), (1, 9), (3, 3), (4, 4)]
                .map(|(rows, cols)| Board::Grid { rows, cols }),
        );
        boards.extend([Board::Path(10), Board::Cycle(9), Board::Cycle(2)]);
        for board in boards {
            let mut memo = HashMap::new();
            let size = board.size();
            for bits in 0..1u128 << size {
                let spare = board.spare_nodes(bits);
                assert_eq!(spare & !bits, 0, "{bits:b} of {board:?}");
                let kept = bits & !spare;
                assert_eq!(
                    edge_game(&board, kept, &mut memo),
                    edge_game(&board, bits, &mut memo),
                    "{bits:b} less {spare:b} of {board:?}"
                );
                // Nothing more to drop: no node alone, no two leaves on one.
                assert_eq!(board.spare_nodes(kept), 0, "{kept:b} of {board:?}");
                // As many dropped as one node at a time drops.
                let one_by_one = match size {
                    0..=64 => spare_nodes_one_by_one(bits as u64, &Spreader::Any(&board)).into(),
                    _ => spare_nodes_one_by_one(bits, &Spreader::Any(&board)),
                };
                assert_eq!(
                    spare.count_ones(),
                    one_by_one.count_ones(),
                    "{bits:b} of {board:?}"
                );
            }
        }
    }

    /// Every region of five grids: the edges [`Board::twin_edges`] drops
    /// are those of the squares whose two diagonal corners have the
    /// square's other two cells as their only neighbours, found cell by
    /// cell; and the region's value in the game that takes an edge's two
    /// ends is the XOR of its parts' as the region splits without them
    /// (each part's value that of its cells, by the plain definition, with
    /// every edge between them).
    #[test]
    fn twin_edges_leave_the_value_of_an_edge_game_as_it_was() {
        for (rows, cols) in [(3, 4), (4, 3), (4, 4), (2, 6), (3, 5)] {
            let board = Board::Grid { rows, cols };
            let mut memo = HashMap::new();
            let mut parts_memo = HashMap::new();
            let mut cut_somewhere = 0;
            for bits in 0..1u128 << (rows * cols) {
                let around = |v: u32| {
                    let mut around = 0u128;
                    board.neighbours(v, |w| around |= (bits >> w & 1) << w);
                    around
                };
                let mut expected = 0u128;
                for r in 0..rows - 1 {
                    for c in 0..cols - 1 {
                        let [tl, tr] = [r * cols + c, r * cols + c + 1];
                        let [bl, br] = [tl + cols, tr + cols];
                        let held = [tl, tr, bl, br].iter().all(|&v| bits >> v & 1 == 1);
                        let twins = |a: u32, d: u32, b: u32, c: u32| {
                            around(a) == (1 << b | 1 << c) && around(d) == (1 << b | 1 << c)
                        };
                        if held && (twins(tl, br, tr, bl) || twins(tr, bl, tl, br)) {
                            expected |= 1 << tl | 1 << bl;
                        }
                    }
                }
                let cut = board.twin_edges(bits);
                assert_eq!(cut, expected, "{bits:b} of {rows} × {cols}");
                cut_somewhere += usize::from(cut != 0);
                let mut value = 0;
                board.parts_boxed(bits, cut, false, |part| {
                    let Region { board, nodes } = part.region();
                    let part_bits = nodes.bits().expect("a part of a small grid");
                    let memo = parts_memo.entry(board.clone()).or_default();
                    value ^= edge_game(&board, part_bits, memo);
                });
                assert_eq!(
                    value,
                    edge_game(&board, bits, &mut memo),
                    "{bits:b} of {rows} × {cols}, split without {cut:b}"
                );
            }
            assert!(cut_somewhere > 0, "{rows} × {cols} has twins somewhere");
        }
    }

    #[test]
    fn a_grid_falls_apart_into_translated_parts() {
        // 3 × 4 with the middle column pair gone:
        // x x . x
        // x . . x
        // . . x x
        let region = grid(3, 4, &[0, 1, 3, 4, 7, 10, 11]);
        let found = parts(&region, false);
        // {0, 1, 4}: an L in a 2 × 2 box; {3, 7, 10, 11}: an L in a 3 × 2 box.
        assert_eq!(
            found,
            vec![grid(2, 2, &[0, 1, 2]), grid(3, 2, &[1, 3, 4, 5])]
        );
    }

    #[test]
    fn rows_do_not_join_across_the_edge_of_the_grid() {
        // The last cell of row 0 and the first of row 1 are not neighbours.
        let found = parts(&grid(2, 3, &[2, 3]), false);
        assert_eq!(found, vec![grid(1, 1, &[0]), grid(1, 1, &[0])]);
    }

    #[test]
    fn symmetric_images_are_one_part() {
        // A 1 × 3 bar and a 3 × 1 bar are one shape up to symmetry.
        let across = parts(&grid(3, 3, &[0, 1, 2]), true);
        let down = parts(&grid(3, 3, &[0, 3, 6]), true);
        assert_eq!(across, down);
        // Up to translation only, they differ.
        assert_ne!(
            parts(&grid(3, 3, &[0, 1, 2]), false),
            parts(&grid(3, 3, &[0, 3, 6]), false)
        );
    }

    #[test]
    fn cycles_open_into_paths() {
        let cycle = Region {
            board: Board::Cycle(6),
            nodes: Set::from_values([0, 1, 3, 5]),
        };
        // 5-0-1 wraps round; 3 alone.
        assert_eq!(
            parts(&cycle, false),
            vec![Board::Path(1).whole(), Board::Path(3).whole()]
        );
    }
}
