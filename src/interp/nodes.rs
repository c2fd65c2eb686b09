//! Rules compiled to bit operations (see `lower::nodes`), run on a
//! position of one small set or region: each binding's nodes are the ones
//! of a word, masked by what the guard asks of them, and each option's
//! set is a few shifts and ANDs away, its parts looked up by packed key
//! as an option evaluated the ordinary way would look them up. The nodes
//! of a grid or a path are bound from the middle out (see `middle_out`).

use std::cell::RefCell;
use std::rc::Rc;

use miette::SourceSpan;
use rustc_hash::FxHashMap as HashMap;

use super::sweep::Count;
use super::{Component, Interpreter};
use crate::engine::{Grundy, Mex, Solved};
use crate::eval::value::Bits;
use crate::eval::{Budget, EvalError};
use crate::program::{MAX_NODES, NodeBinding, NodeRule, Order, Other, SetForm};
use crate::values::{Board, SetOp};

/// The position a compiled rule moves from, and the nodes of its
/// bindings so far.
struct Place<'a> {
    position: Bits<'a>,
    nodes: [u32; MAX_NODES],
}

impl SetForm {
    /// The form's set, as bits: the position and `{…}` at once, the rest by
    /// [`SetForm::compound`], so that the leaves of a form cost no call.
    #[inline(always)]
    fn bits(&self, place: &Place<'_>) -> u128 {
        match self {
            SetForm::Position => place.position.bits,
            SetForm::Nodes(nodes) => nodes
                .iter()
                .fold(0, |bits, &node| bits | 1 << place.nodes[node as usize]),
            _ => self.compound(place),
        }
    }

    /// [`SetForm::bits`] of a form that is not a leaf.
    #[inline(never)]
    fn compound(&self, place: &Place<'_>) -> u128 {
        match self {
            SetForm::Position | SetForm::Nodes(_) => self.bits(place),
            SetForm::Binary(op, lhs, rhs) => {
                let (a, b) = (lhs.bits(place), rhs.bits(place));
                match op {
                    SetOp::Union => a | b,
                    SetOp::Difference => a & !b,
                    SetOp::Intersection => a & b,
                    SetOp::SymmetricDifference => a ^ b,
                }
            }
            SetForm::Around {
                region,
                node,
                closed,
            } => {
                let board = place
                    .position
                    .board
                    .expect("a rule that asks for neighbours runs on a region");
                let v = place.nodes[*node as usize];
                let own = if *closed { 1 << v } else { 0 };
                board.neighbour_bits(v) & region.bits(place) | own
            }
        }
    }
}

impl NodeBinding {
    /// The nodes of `domain` the binding's orders allow, against the
    /// nodes bound before it and constants.
    #[inline(always)]
    fn allowed(&self, domain: u128, place: &Place<'_>) -> u128 {
        self.orders.iter().fold(domain, |nodes, &(order, other)| {
            let other = match other {
                Other::Node(node) => i64::from(place.nodes[node as usize]),
                Other::Const(value) => value,
            };
            nodes & order.mask(other)
        })
    }
}

impl Order {
    /// The nodes (of 0 to 127) in this order with `x`.
    fn mask(self, x: i64) -> u128 {
        let below = |x: i64| match x {
            ..=0 => 0,
            128.. => u128::MAX,
            x => (1 << x) - 1,
        };
        let equal = below(x.saturating_add(1)) & !below(x);
        match self {
            Order::Less => below(x),
            Order::AtMost => below(x.saturating_add(1)),
            Order::Greater => !below(x.saturating_add(1)),
            Order::AtLeast => !below(x),
            Order::Equal => equal,
            Order::Unequal => !equal,
        }
    }
}

impl Interpreter<'_> {
    /// Folds the options of a compiled rule (declared at `span`) from a
    /// position of one small set or region. `false`, with nothing folded,
    /// where the rule must go the ordinary way: it asks for neighbours
    /// and the position is a set, not a region.
    pub(super) fn fold_nodes(
        &self,
        (rule, span): (&NodeRule, SourceSpan),
        position: Bits<'_>,
        (budget, count): (&Budget, &mut Count),
        solved: &mut Solved<'_, Component>,
        mex: &mut Mex,
    ) -> Result<bool, EvalError> {
        if rule.needs_board && position.board.is_none() {
            return Ok(false);
        }
        if rule.edges
            && let Some(board) = position.board
        {
            self.fold_edges(
                (rule, span),
                board,
                position.bits,
                (budget, count),
                solved,
                mex,
            )?;
            return Ok(true);
        }
        let mut place = Place {
            position,
            nodes: [0; MAX_NODES],
        };
        let mut fold = Fold {
            rule,
            span,
            budget,
            count,
            order: middle_out(position.board),
        };
        self.fold_from(&mut fold, 0, &mut place, solved, mex)?;
        Ok(true)
    }

    /// [`Interpreter::fold_nodes`] for a rule that takes the two ends of an
    /// edge (see [`NodeRule::takes_an_edge`]): the edges of the region
    /// found by bit operations, each once (a rule with no guard that
    /// orders the ends lists each twice, of the same value), from the
    /// middle of the region out as the bindings would be, and counted as
    /// the bindings count their nodes.
    fn fold_edges(
        &self,
        (rule, span): (&NodeRule, SourceSpan),
        board: &Board,
        region: u128,
        (budget, count): (&Budget, &mut Count),
        solved: &mut Solved<'_, Component>,
        mex: &mut Mex,
    ) -> Result<(), EvalError> {
        let ([first, second], [term]) = (rule.bindings.as_slice(), rule.target.as_slice()) else {
            unreachable!("a rule that takes an edge binds two nodes for one target")
        };
        let mut place = Place {
            position: Bits {
                board: Some(board),
                bits: region,
            },
            nodes: [0; MAX_NODES],
        };
        let order = middle_out(Some(board));
        // With no guard that orders the ends, each edge comes twice: once
        // from each end, the second time left out.
        let twice = second
            .orders
            .iter()
            .all(|(order, _)| *order == Order::Unequal);
        // Each node of the region is an assignment of the first binding,
        // and each of its neighbours one of the second.
        budget.spend_many(region.count_ones() as usize, first.span)?;
        let target = Some(board).filter(|_| term.region);
        let (mut nodes, mut walked, mut done) = (region, 0, 0);
        while nodes != 0 {
            let a = first_node(order.as_deref(), nodes, &mut walked);
            nodes &= !(1 << a);
            place.nodes[0] = a;
            let around = board.neighbour_bits(a) & region;
            budget.spend_many(around.count_ones() as usize, second.span)?;
            let mut others = second.allowed(around, &place);
            count.add(others.count_ones() as usize, span)?;
            if twice {
                others &= !done;
                done |= 1 << a;
            }
            while others != 0 {
                let b = first_node(order.as_deref(), others, &mut 0);
                others &= !(1 << b);
                let bits = Bits {
                    board: target,
                    bits: region & !(1 << a | 1 << b),
                };
                let from = solved.noted();
                let option = self.bits_value(term.game, bits, solved);
                if fold_option(option, from, solved, mex) {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// Binds the node of binding `depth` to each of its nodes in turn,
    /// and folds the options of each.
    fn fold_from(
        &self,
        fold: &mut Fold<'_, '_>,
        depth: usize,
        place: &mut Place<'_>,
        solved: &mut Solved<'_, Component>,
        mex: &mut Mex,
    ) -> Result<(), EvalError> {
        let binding = &fold.rule.bindings[depth];
        let domain = binding.domain.bits(place);
        // Every node of the domain is an assignment, as the interpreter
        // counts them; those the guard lets through are options.
        fold.budget
            .spend_many(domain.count_ones() as usize, binding.span)?;
        let mut nodes = binding.allowed(domain, place);
        let last = depth + 1 == fold.rule.bindings.len();
        if last {
            fold.count.add(nodes.count_ones() as usize, fold.span)?;
        }
        // From the middle of the region out, where it has a middle.
        let order = fold.order.clone();
        let mut walked = 0;
        while nodes != 0 {
            let node = first_node(order.as_deref(), nodes, &mut walked);
            nodes &= !(1 << node);
            place.nodes[depth] = node;
            if !last {
                self.fold_from(fold, depth + 1, place, solved, mex)?;
                if solved.settled() {
                    return Ok(());
                }
                continue;
            }
            let from = solved.noted();
            let (mut value, mut known) = (0, true);
            for term in &fold.rule.target {
                let bits = Bits {
                    board: place.position.board.filter(|_| term.region),
                    bits: term.form.bits(place),
                };
                let (part, part_known) = self.bits_value(term.game, bits, solved);
                value ^= part;
                known &= part_known;
            }
            if fold_option((value, known), from, solved, mex) {
                return Ok(());
            }
        }
        Ok(())
    }
}

/// The first of `nodes` in `order`, walked from `walked` on (see
/// [`MiddleOut::first`]); the lowest where the board has no such order.
#[inline(always)]
fn first_node(order: Option<&MiddleOut>, nodes: u128, walked: &mut usize) -> u32 {
    match order {
        Some(order) => order.first(nodes, walked),
        None => nodes.trailing_zeros(),
    }
}

/// Folds an option of value `value` (the XOR of the values of its parts
/// found, all of them if `known`) into `mex`, or defers it with the parts
/// noted missing since `from`. Whether the fold is then decided (see
/// [`Solved::decided`]).
#[inline(always)]
fn fold_option(
    (value, known): (Grundy, bool),
    from: usize,
    solved: &mut Solved<'_, Component>,
    mex: &mut Mex,
) -> bool {
    match known {
        true => {
            mex.add(value);
            solved.decided(mex)
        }
        false => {
            solved.defer(value, from);
            false
        }
    }
}

impl NodeRule {
    /// The options of this rule from a position of one small region, each
    /// as the bits of the one region its target is, passed to `each` until
    /// it answers `false` (the mirror strategy's whole options). `None`
    /// where the target is not one region of `game`, or the bindings run
    /// past `limit` assignments (left to the interpreter, which counts them
    /// against the search's limits); else whether `each` let it finish.
    pub(super) fn whole_options(
        &self,
        game: crate::program::GameId,
        position: Bits<'_>,
        limit: &mut usize,
        each: &mut dyn FnMut(u128) -> bool,
    ) -> Option<bool> {
        let [term] = self.target.as_slice() else {
            return None;
        };
        if term.game != game || !term.region || position.board.is_none() {
            return None;
        }
        let mut place = Place {
            position,
            nodes: [0; MAX_NODES],
        };
        self.options_from(0, &mut place, limit, &mut |place| {
            each(term.form.bits(place))
        })
    }

    /// Binds the node of binding `depth` to each of its nodes in turn, and
    /// passes on each assignment the guard lets through.
    fn options_from(
        &self,
        depth: usize,
        place: &mut Place<'_>,
        limit: &mut usize,
        each: &mut dyn FnMut(&Place<'_>) -> bool,
    ) -> Option<bool> {
        let binding = &self.bindings[depth];
        let domain = binding.domain.bits(place);
        *limit = limit.checked_sub(domain.count_ones() as usize)?;
        let mut nodes = binding.allowed(domain, place);
        let last = depth + 1 == self.bindings.len();
        while nodes != 0 {
            place.nodes[depth] = nodes.trailing_zeros();
            nodes &= nodes - 1;
            let going = match last {
                true => each(place),
                false => self.options_from(depth + 1, place, limit, each)?,
            };
            if !going {
                return Some(false);
            }
        }
        Some(true)
    }
}

thread_local! {
    /// The orders of [`middle_out`], by the grid's rows and columns.
    static MIDDLE_OUT: RefCell<HashMap<(u32, u32), Rc<MiddleOut>>> = RefCell::default();
}

/// The nodes of a grid or a path from the middle out (see [`middle_out`]),
/// and each node's place in that order.
struct MiddleOut {
    order: Box<[u8]>,
    place: Box<[u8]>,
}

impl MiddleOut {
    /// The first of `nodes` in this order, the order walked from `walked`
    /// on (the nodes before it taken already); a few nodes (a node's
    /// neighbours) are compared by their places instead.
    #[inline(always)]
    fn first(&self, nodes: u128, walked: &mut usize) -> u32 {
        if nodes & (nodes - 1) == 0 {
            return nodes.trailing_zeros();
        }
        if nodes.count_ones() <= 4 {
            let mut rest = nodes;
            let mut first = rest.trailing_zeros();
            while rest != 0 {
                let node = rest.trailing_zeros();
                rest &= rest - 1;
                if self.place[node as usize] < self.place[first as usize] {
                    first = node;
                }
            }
            return first;
        }
        loop {
            let node = u32::from(self.order[*walked]);
            *walked += 1;
            if nodes & 1 << node != 0 {
                return node;
            }
        }
    }
}

/// The nodes of a grid or a path from the middle out: by their distance
/// from its centre along the rows and columns together, then along its
/// longer side alone, then as numbered; `None` for any other board. Each
/// node a rule binds is taken in this order. A move near the middle of a
/// region cuts it into halves, the smallest parts a move leaves and the
/// likeliest to be valued already: listed first, they are the options
/// that a search stopping once it has met options of every value it asks
/// for meets soonest. Beling and Rogalski's Cram solver lists its moves
/// from the middle column out for this reason. (On Cram 4 × 9 the search
/// lists 1,064,000 positions in the numbered order, 320,000 from the
/// middle out.)
fn middle_out(board: Option<&Board>) -> Option<Rc<MiddleOut>> {
    let (rows, cols) = match board? {
        Board::Grid { rows, cols } => (*rows, *cols),
        Board::Path(n) => (1, *n),
        _ => return None,
    };
    // Bits of a word (a board of at most 128 nodes).
    if rows.checked_mul(cols).is_none_or(|nodes| nodes > 128) {
        return None;
    }
    MIDDLE_OUT.with(|orders| {
        let mut orders = orders.borrow_mut();
        let order = orders.entry((rows, cols)).or_insert_with(|| {
            // Distances in half cells, so that the centre of an even
            // side (between two cells) is a whole number.
            let off = |i: u32, n: u32| (2 * i64::from(i) - i64::from(n) + 1).unsigned_abs();
            let long = |(row, col): (u64, u64)| if cols >= rows { col } else { row };
            let mut order: Vec<u8> = (0..rows * cols)
                .filter_map(|v| u8::try_from(v).ok())
                .collect();
            order.sort_by_key(|&v| {
                let (row, col) = (u32::from(v) / cols, u32::from(v) % cols);
                let off = (off(row, rows), off(col, cols));
                (off.0 + off.1, long(off), v)
            });
            let mut place = vec![0; order.len()];
            for (i, &v) in order.iter().enumerate() {
                place[v as usize] = i as u8;
            }
            Rc::new(MiddleOut {
                order: order.into(),
                place: place.into(),
            })
        });
        Some(order.clone())
    })
}

/// A compiled rule being folded, and what its options may spend.
struct Fold<'r, 'c> {
    rule: &'r NodeRule,
    span: SourceSpan,
    budget: &'r Budget<'r>,
    count: &'c mut Count,
    /// The order the nodes are bound in, on a grid or a path.
    order: Option<Rc<MiddleOut>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(board: Board) -> Vec<u8> {
        let order = middle_out(Some(&board)).expect("a grid or a path");
        // Any set of nodes gives its first in this order.
        for (i, &v) in order.order.iter().enumerate() {
            let nodes = order.order[i..]
                .iter()
                .fold(0u128, |nodes, &w| nodes | 1 << w);
            assert_eq!(order.first(nodes, &mut 0), u32::from(v));
            let few = nodes & (1 << v | 1 << order.order.last().unwrap());
            assert_eq!(order.first(few, &mut 0), u32::from(v));
        }
        order.order.to_vec()
    }

    /// On a 3 × 5 grid the centre (row 1, column 2: node 7) comes first,
    /// then the cells one step from it, those of its column first (nearer
    /// the middle of the longer side); the corners (two rows and four
    /// half-columns off) last. Every node once.
    #[test]
    fn a_grid_is_listed_from_its_centre_out() {
        let order = order(Board::Grid { rows: 3, cols: 5 });
        assert_eq!(order[..5], [7, 2, 12, 6, 8]);
        assert_eq!(order[11..], [0, 4, 10, 14]);
        let mut sorted = order.clone();
        sorted.sort();
        assert_eq!(sorted, (0..15).collect::<Vec<u8>>());
    }

    /// A grid taller than wide is cut across its rows: of the cells one
    /// step from the middle of a 4 × 2 grid's rows, those of the middle
    /// rows come first.
    #[test]
    fn a_tall_grid_is_listed_from_its_middle_rows_out() {
        let order = order(Board::Grid { rows: 4, cols: 2 });
        assert_eq!(order, [2, 3, 4, 5, 0, 1, 6, 7]);
    }

    /// A path's two middle nodes first, then the next on each side, the
    /// ends last; a graph keeps its own numbering.
    #[test]
    fn a_path_is_listed_from_its_middle_out() {
        assert_eq!(order(Board::Path(6)), [2, 3, 1, 4, 0, 5]);
        assert_eq!(order(Board::Path(5)), [2, 1, 3, 0, 4]);
        assert!(middle_out(Some(&Board::Cycle(6))).is_none());
    }
}
