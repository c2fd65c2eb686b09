//! Rules of games on a set or a region compiled to bit operations. Most
//! rules of the games played on boards and graphs (Node Kayles, Cram,
//! Arc Kayles) choose a node or two of the position and move to what is
//! left: `move Cram(s - {a, b}) for a in s, b in neighbours(s, a) if a < b`.
//! On a set of at most 128 elements every such set is a word of bits, every
//! binding runs over the ones of a word, and a guard that orders two nodes
//! (`a < b`) is a mask on the later one's word: the options are found with
//! a few shifts and ANDs each, with no environment and no expression walked
//! (see `interp::nodes`).
//!
//! A form is built from the position's set (the game's one parameter), the
//! nodes bound before it, `{…}` of such nodes, `+`, `-`, `&`, `^` and
//! `neighbours` and `closed` of a region. Nothing else is compiled: every
//! such form is a set of the position's board, so no element can fall
//! outside the board and no evaluation can fail.

use smallvec::SmallVec;

use super::{BinaryOp, Binding, Builtin, Domain, Expr, ExprKind, GameId, Rule, Term};
use crate::values::SetOp;

/// The most bindings a compiled rule has.
pub const MAX_NODES: usize = 4;

/// A set built from the position's set and the nodes bound so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetForm {
    /// The position's set: the game's one parameter.
    Position,
    /// `{a, b, …}`: nodes bound before, by their binding's place.
    Nodes(SmallVec<[u8; 4]>),
    Binary(SetOp, Box<SetForm>, Box<SetForm>),
    /// `neighbours(r, v)`, or with `closed` `closed(r, v)`, of the node
    /// of binding `node`.
    Around {
        region: Box<SetForm>,
        node: u8,
        closed: bool,
    },
}

impl SetForm {
    /// Whether the form's nodes are always nodes of the position.
    fn within_position(&self) -> bool {
        match self {
            SetForm::Position => true,
            SetForm::Around {
                region,
                closed: false,
                ..
            } => region.within_position(),
            SetForm::Binary(SetOp::Difference, lhs, _) => lhs.within_position(),
            SetForm::Binary(SetOp::Intersection, lhs, rhs) => {
                lhs.within_position() || rhs.within_position()
            }
            _ => false,
        }
    }

    /// Whether the form is a region when the position is one: a set
    /// combined with a region is a region when the region comes first,
    /// as the interpreter has it (`evaluate::combine`).
    fn is_region(&self) -> bool {
        match self {
            SetForm::Position => true,
            SetForm::Binary(_, lhs, _) => lhs.is_region(),
            SetForm::Nodes(_) | SetForm::Around { .. } => false,
        }
    }

    /// Whether the form asks for a board: `neighbours` or `closed`.
    fn needs_board(&self) -> bool {
        match self {
            SetForm::Position | SetForm::Nodes(_) => false,
            SetForm::Binary(_, lhs, rhs) => lhs.needs_board() || rhs.needs_board(),
            SetForm::Around { .. } => true,
        }
    }

    /// The form of `expr`, with the parameter in slot 0 and the nodes
    /// bound so far in `bound` (their slots, in order).
    fn of(expr: &Expr, bound: &[usize]) -> Option<SetForm> {
        let node = |expr: &Expr| match expr.kind {
            ExprKind::Slot(slot) => bound.iter().position(|&b| b == slot).map(|i| i as u8),
            _ => None,
        };
        Some(match &expr.kind {
            ExprKind::Slot(0) => SetForm::Position,
            ExprKind::SetOf(elements) => {
                SetForm::Nodes(elements.iter().map(node).collect::<Option<_>>()?)
            }
            ExprKind::Binary(op, lhs, rhs) => {
                let op = match op {
                    BinaryOp::Add | BinaryOp::BitOr => SetOp::Union,
                    BinaryOp::Sub => SetOp::Difference,
                    BinaryOp::BitAnd => SetOp::Intersection,
                    BinaryOp::BitXor => SetOp::SymmetricDifference,
                    _ => return None,
                };
                let (lhs, rhs) = (SetForm::of(lhs, bound)?, SetForm::of(rhs, bound)?);
                SetForm::Binary(op, Box::new(lhs), Box::new(rhs))
            }
            ExprKind::Call(builtin @ (Builtin::Neighbours | Builtin::Closed), args) => {
                let region = SetForm::of(&args[0], bound)?;
                if !region.is_region() {
                    return None;
                }
                SetForm::Around {
                    region: Box::new(region),
                    node: node(&args[1])?,
                    closed: *builtin == Builtin::Closed,
                }
            }
            _ => return None,
        })
    }
}

/// How a node compares with another bound before it, or with a constant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    Less,
    AtMost,
    Greater,
    AtLeast,
    Equal,
    Unequal,
}

impl Order {
    fn of(op: BinaryOp) -> Option<Order> {
        Some(match op {
            BinaryOp::Lt => Order::Less,
            BinaryOp::Le => Order::AtMost,
            BinaryOp::Gt => Order::Greater,
            BinaryOp::Ge => Order::AtLeast,
            BinaryOp::Eq => Order::Equal,
            BinaryOp::Ne => Order::Unequal,
            _ => return None,
        })
    }

    /// The order seen from the other side: `a < b` is `b > a`.
    fn flipped(self) -> Order {
        match self {
            Order::Less => Order::Greater,
            Order::AtMost => Order::AtLeast,
            Order::Greater => Order::Less,
            Order::AtLeast => Order::AtMost,
            Order::Equal | Order::Unequal => self,
        }
    }
}

/// What a node is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Other {
    /// The node of an earlier binding, by its place.
    Node(u8),
    Const(i64),
}

/// A binding of a compiled rule: the set its node runs over (in
/// increasing order), and the comparisons the guard makes of its node with
/// those before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeBinding {
    pub domain: SetForm,
    pub orders: SmallVec<[(Order, Other); 2]>,
    pub span: miette::SourceSpan,
}

/// A term of a compiled rule's target: a game of one set, and whether
/// the set is a region of the position's board when the position is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeTerm {
    pub game: GameId,
    pub form: SetForm,
    pub region: bool,
}

/// A rule compiled to bit operations: its bindings, and its target, a sum
/// of positions of games of one set each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeRule {
    pub bindings: SmallVec<[NodeBinding; MAX_NODES]>,
    pub target: SmallVec<[NodeTerm; 2]>,
    /// Whether the position must be a region (the rule asks for
    /// neighbours); on a set the rule is left to the interpreter, which
    /// says what is wrong.
    pub needs_board: bool,
    /// Whether the rule takes the two ends of an edge of its own game's
    /// position (see [`NodeRule::takes_an_edge`]): folded edge by edge,
    /// each edge once.
    pub edges: bool,
}

impl NodeRule {
    /// Whether every option of the rule has fewer nodes than its position:
    /// its target is one position of `game`, the position's set less a set
    /// that holds a node bound in the position (`s - {a, b}`, `s -
    /// closed(s, v)`). A game whose rules all shrink has no endless play,
    /// so a pair of equal parts has value 0 (`s - neighbours(s, a)` may
    /// leave the position as it is: a draw, whose pair is no 0).
    pub fn shrinks(&self, game: GameId) -> bool {
        self.taken(game)
            .is_some_and(|removed| self.holds_a_node(removed))
    }

    /// What the rule takes from the position, where its target is one
    /// position of `game` on the position's set less a set: `X` of
    /// `G(s - X)`.
    fn taken(&self, game: GameId) -> Option<&SetForm> {
        let [term] = self.target.as_slice() else {
            return None;
        };
        match &term.form {
            SetForm::Binary(SetOp::Difference, kept, removed)
                if term.game == game && **kept == SetForm::Position =>
            {
                Some(removed)
            }
            _ => None,
        }
    }

    /// Whether the rule's options are the position less the two ends of
    /// one of its edges, one option an edge: `G(s - {a, b}) for a in s, b
    /// in neighbours(s, a)`, with or without a guard that orders `a` and
    /// `b` (Cram and Arc Kayles on a board). In such a game a node with
    /// no neighbour is never played, and of two leaves on one node either
    /// may go: see `Board::spare_nodes`.
    pub fn takes_an_edge(&self, game: GameId) -> bool {
        let ([first, second], Some(ends)) = (self.bindings.as_slice(), self.taken(game)) else {
            return false;
        };
        // Each edge once (`a < b`) or twice (no guard), never none.
        let orders_edges = match second.orders.as_slice() {
            [] => true,
            [(order, Other::Node(0))] => *order != Order::Equal,
            _ => false,
        };
        let around_first = SetForm::Around {
            region: Box::new(SetForm::Position),
            node: 0,
            closed: false,
        };
        first.domain == SetForm::Position
            && first.orders.is_empty()
            && second.domain == around_first
            && orders_edges
            && matches!(ends, SetForm::Nodes(nodes) if nodes[..] == [0, 1] || nodes[..] == [1, 0])
    }

    /// Whether `form` holds a node bound in the position, whatever the
    /// assignment.
    fn holds_a_node(&self, form: &SetForm) -> bool {
        let in_position = |node: u8| {
            self.bindings
                .get(usize::from(node))
                .is_some_and(|binding| binding.domain.within_position())
        };
        match form {
            SetForm::Nodes(nodes) => nodes.iter().any(|&node| in_position(node)),
            SetForm::Around {
                node, closed: true, ..
            } => in_position(*node),
            SetForm::Binary(SetOp::Union, lhs, rhs) => {
                self.holds_a_node(lhs) || self.holds_a_node(rhs)
            }
            _ => false,
        }
    }

    /// The compiled form of a rule of a game of one parameter, if it has
    /// one: every binding runs over the elements of a form with no `while`,
    /// the guard is a conjunction of comparisons of bound nodes with each
    /// other or with constants, and every term of the target is a game of
    /// one form.
    pub fn plan(rule: &Rule, arity: usize) -> Option<NodeRule> {
        if arity != 1 || rule.bindings.is_empty() || rule.bindings.len() > MAX_NODES {
            return None;
        }
        let mut bound = Vec::new();
        let mut bindings: SmallVec<[NodeBinding; MAX_NODES]> = SmallVec::new();
        for binding in &rule.bindings {
            let Binding {
                slot,
                domain: Domain::Each(domain),
                stop: None,
                span,
            } = binding
            else {
                return None;
            };
            bindings.push(NodeBinding {
                domain: SetForm::of(domain, &bound)?,
                orders: SmallVec::new(),
                span: *span,
            });
            bound.push(*slot);
        }
        if let Some(guard) = &rule.guard {
            for conjunct in super::bounds::conjuncts(guard.clone()) {
                let (node, order) = comparison(&conjunct, &bound)?;
                bindings[node].orders.push(order);
            }
        }
        let target: SmallVec<[NodeTerm; 2]> = rule
            .target
            .iter()
            .map(|term| match term {
                Term::Game { game, args, .. } if args.len() == 1 => {
                    let form = SetForm::of(&args[0], &bound)?;
                    Some(NodeTerm {
                        game: *game,
                        region: form.is_region(),
                        form,
                    })
                }
                _ => None,
            })
            .collect::<Option<_>>()?;
        let forms = bindings.iter().map(|binding| &binding.domain);
        let needs_board = forms
            .chain(target.iter().map(|term| &term.form))
            .any(SetForm::needs_board);
        Some(NodeRule {
            bindings,
            target,
            needs_board,
            edges: false,
        })
    }
}

/// A conjunct of a guard as a comparison made at the later of the
/// bindings it compares (by place): `a < b` is `b > a` at b's.
fn comparison(conjunct: &Expr, bound: &[usize]) -> Option<(usize, (Order, Other))> {
    let ExprKind::Binary(op, lhs, rhs) = &conjunct.kind else {
        return None;
    };
    let order = Order::of(*op)?;
    let side = |expr: &Expr| match expr.kind {
        ExprKind::Slot(slot) => bound
            .iter()
            .position(|&b| b == slot)
            .map(|node| Other::Node(node as u8)),
        ExprKind::Const(value) => Some(Other::Const(value)),
        _ => None,
    };
    let place = |other: Other| match other {
        Other::Node(node) => Some(node as usize),
        Other::Const(_) => None,
    };
    let (lhs, rhs) = (side(lhs)?, side(rhs)?);
    match (place(lhs), place(rhs)) {
        (Some(a), Some(b)) if a > b => Some((a, (order, rhs))),
        (Some(a), Some(b)) if a < b => Some((b, (order.flipped(), lhs))),
        (Some(a), None) => Some((a, (order, rhs))),
        (None, Some(b)) => Some((b, (order.flipped(), lhs))),
        // A node with itself, or two constants: left to the interpreter.
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::NodeRule;
    use crate::program::Moves;

    /// `holds` of each rule of the first game `source` declares, as
    /// compiled to bit operations (`None` where it is not).
    fn each_rule(source: &str, holds: impl Fn(Option<&NodeRule>) -> bool) -> Vec<bool> {
        let program = crate::lower::lowered(source);
        let Moves::Rules(rules) = &program.games[0].moves else {
            panic!("a game of rules")
        };
        rules
            .iter()
            .map(|rule| holds(rule.nodes.as_ref()))
            .collect()
    }

    /// Whether each rule of the first game `source` declares is compiled
    /// to bit operations.
    fn compiled(source: &str) -> Vec<bool> {
        each_rule(source, |rule| rule.is_some())
    }

    #[test]
    fn the_board_games_rules_are_compiled() {
        let games = [
            "game NK(s) splits { move NK(s - closed(s, v)) for v in s }",
            "game Cram(s) splits { move Cram(s - {a, b}) for a in s, b in neighbours(s, a) if a < b }",
            "game T(s) { move T(s - {a}) + T(s & neighbours(s, a)) for a in s if a != 3 and 5 > a }",
            "game U(s) { move U((s ^ {a, b}) - closed(s - {b}, a)) for a in s, b in s if b < a }",
        ];
        for game in games {
            assert_eq!(compiled(game), [true], "{game}");
        }
    }

    /// Whether each rule of the first game `source` declares takes a node
    /// away at every move, as compiled.
    fn shrinks(source: &str) -> Vec<bool> {
        let game = crate::program::GameId(0);
        each_rule(source, |rule| rule.is_some_and(|rule| rule.shrinks(game)))
    }

    #[test]
    fn a_rule_shrinks_when_it_takes_away_a_node_of_the_position() {
        let shrinking = [
            "game NK(s) splits { move NK(s - closed(s, v)) for v in s }",
            "game Cram(s) splits { move Cram(s - {a, b}) for a in s, b in neighbours(s, a) if a < b }",
            // A node of the position's neighbours, taken with others.
            "game P(s) { move P(s - ({b} | neighbours(s, a))) for a in s, b in neighbours(s, a) }",
            "game Q(s) { move Q(s - {b}) for a in s, b in neighbours(s, a) - {a} }",
        ];
        for game in shrinking {
            assert_eq!(shrinks(game), [true], "{game}");
            assert!(crate::lower::lowered(game).games[0].shrinks, "{game}");
        }
        let not = [
            // The neighbours alone may be none: the position again.
            "game L(s) splits { move L(s - neighbours(s, a)) for a in s }",
            // A node of a neighbourhood of the whole board, not the position.
            "game M(s) { move M(s - {b}) for a in s, b in neighbours(Grid(3, 3), a) }",
            // Two terms, a set not taken from the position, another game.
            "game N(s) { move N(s - {a}) + N(s - {a}) for a in s }",
            "game O(s) { move O(s | {a}) for a in s }",
            "game R(s) { move S(s - {a}) for a in s }\ngame S(s) { move S(s - {a}) for a in s }",
        ];
        for game in not {
            assert_eq!(shrinks(game), [false], "{game}");
            assert!(!crate::lower::lowered(game).games[0].shrinks, "{game}");
        }
        // The game's flag asks it of every rule: one left to the
        // interpreter (a computed node) may not end.
        let two = "game V(s) {\n  move V(s - {a}) for a in s\n  move V(s - {a + 1}) for a in s\n}";
        assert_eq!(shrinks(two), [true, false]);
        assert!(!crate::lower::lowered(two).games[0].shrinks);
    }

    #[test]
    fn a_rule_takes_an_edge_when_its_options_are_the_position_less_an_edges_ends() {
        let takes_edges = |source: &str| {
            let game = crate::program::GameId(0);
            let program = crate::lower::lowered(source);
            let rules = each_rule(source, |rule| {
                rule.is_some_and(|rule| rule.takes_an_edge(game))
            });
            (rules, program.games[0].takes_edges)
        };
        let taking = [
            "game Cram(s) splits { move Cram(s - {a, b}) for a in s, b in neighbours(s, a) if a < b }",
            "game A(s) { move A(s - {b, a}) for a in s, b in neighbours(s, a) }",
            "game B(s) splits up to symmetry { move B(s - {a, b}) for a in s, b in neighbours(s, a) if b != a }",
            "game C(s) { move C(s - {a, b}) for a in s, b in neighbours(s, a) if b >= a }",
        ];
        for game in taking {
            assert_eq!(takes_edges(game), (vec![true], true), "{game}");
        }
        let not = [
            // One node, a closed neighbourhood, no edge at all.
            "game NK(s) splits { move NK(s - closed(s, v)) for v in s }",
            "game D(s) { move D(s - {a}) for a in s, b in neighbours(s, a) }",
            "game E(s) { move E(s - {a, b}) for a in s, b in neighbours(s, a) if a == b }",
            // Some edges only, or pairs that are no edges.
            "game F(s) { move F(s - {a, b}) for a in s, b in neighbours(s, a) if b < 5 }",
            "game G(s) { move G(s - {a, b}) for a in s, b in s if a < b }",
            "game H(s) { move H(s - {a, b}) for a in s, b in neighbours(Grid(3, 3), a) }",
            // More taken, something added, another game.
            "game I(s) { move I(s - closed(s, a) - {b}) for a in s, b in neighbours(s, a) }",
            "game J(s) { move J(s - {a, b}) + J(s - {a, b}) for a in s, b in neighbours(s, a) }",
            "game K(s) { move L(s - {a, b}) for a in s, b in neighbours(s, a) }\ngame L(s) { move L(s - {a}) for a in s }",
        ];
        for game in not {
            assert_eq!(takes_edges(game), (vec![false], false), "{game}");
        }
        // The game's flag asks for that one rule and no other.
        let two = "game M(s) {\n  move M(s - {a, b}) for a in s, b in neighbours(s, a)\n  move M(s - {a}) for a in s\n}";
        assert_eq!(takes_edges(two), (vec![true, false], false));
    }

    #[test]
    fn rules_beyond_bit_operations_are_left_to_the_interpreter() {
        let games = [
            // A node computed, not bound.
            "game A(s) { move A(s - {a + 1}) for a in s }",
            // A `while`, an integer binding, a guard on a computed value.
            "game B(s) { move B(s - {a}) for a in s while a < 5 }",
            "game C(s) { move C(s - {k}) for k in 0..3 }",
            "game D(s) { move D(s - {a}) for a in s if a * 2 < 7 }",
            // A heap in the target, a game of two parameters, no binding.
            "game E(s) { move E(s - {a}) + *1 for a in s }",
            "game F(s, n) { move F(s - {a}, n) for a in s }",
            "game G(s) { move G(s - {1}) }",
            // Two constants compared: the guard stays the interpreter's.
            "game H(s) { move H(s - {a}) for a in s if 0 == 0 }",
        ];
        for game in games {
            assert_eq!(compiled(game), [false], "{game}");
        }
    }
}
