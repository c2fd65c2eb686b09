//! The lowered program: names resolved to ids, variables to slots, types
//! checked. It is the contract between lowering, which makes it, and the
//! evaluator and interpreter, which run it. Besides the declarations it
//! holds the forms rules are compiled to where they can be: ranges
//! narrowed by their guards ([`bounds`]), arithmetic on the parameters
//! ([`affine`]), bit operations on sets ([`nodes`]), and take-and-break
//! codes ([`code`]).

pub mod affine;
pub mod bounds;
pub mod code;
mod nodes;

use indexmap::{IndexMap, IndexSet};
use miette::SourceSpan;

pub use affine::{Affine, Compiled, End, solves_as_box};
pub use nodes::{MAX_NODES, NodeBinding, NodeRule, NodeTerm, Order, Other, SetForm};

pub use crate::syntax::ast::{BinaryOp, Destination, QueryKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GameId(pub u32);

pub use crate::values::board::GraphId;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LetId(pub u32);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FamilyId(pub u32);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConstId(pub u32);

/// Every declaration of a session, in one namespace.
#[derive(Debug, Clone, Default)]
pub struct Program {
    pub names: IndexMap<String, Declaration>,
    pub games: Vec<Game>,
    pub graphs: Vec<Graph>,
    pub families: Vec<std::sync::Arc<Family>>,
    pub lets: Vec<Let>,
    pub constants: Vec<Constant>,
}

/// What a name stands for, and where it was declared.
#[derive(Debug, Clone, Copy)]
pub struct Declaration {
    pub kind: DeclarationKind,
    pub span: SourceSpan,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeclarationKind {
    Game(GameId),
    Graph(GraphId),
    Family(FamilyId),
    Let(LetId),
    Constant(ConstId),
}

impl DeclarationKind {
    /// The kind of thing, as said in an error message.
    pub fn noun(self) -> &'static str {
        match self {
            DeclarationKind::Game(_) => "a game",
            DeclarationKind::Graph(_) => "a graph",
            DeclarationKind::Family(_) => "a family of graphs",
            DeclarationKind::Let(_) => "a `let` name",
            DeclarationKind::Constant(_) => "a `let` value",
        }
    }
}

/// A family of positions over integer parameters, and its moves.
#[derive(Debug, Clone)]
pub struct Game {
    pub name: String,
    pub params: Vec<String>,
    pub moves: Moves,
    /// Slots a rule needs: the parameters first, then the rule's bindings.
    pub slots: usize,
    /// Whether a position is the sum of the connected parts of its first
    /// argument, a region.
    pub splits: Option<Splits>,
    /// For a coin-turning game, its turns (its rules say the same as
    /// moves): what a product of it with another game turns.
    pub coins: Option<Vec<Turn>>,
    /// Whether its table can be solved as a box, in address order (see
    /// `affine::solves_as_box`).
    pub solves_as_box: bool,
    /// Whether its one rule takes the two ends of an edge of its position
    /// (see `NodeRule::takes_an_edge`): nodes no play needs are dropped
    /// from its regions before they are looked up.
    pub takes_edges: bool,
    /// Whether every rule of it is compiled to bit operations and takes a
    /// node of the position away (see `NodeRule::shrinks`): play ends.
    pub shrinks: bool,
    pub span: SourceSpan,
}

impl Game {
    /// The slots a rule of the game runs in: the arguments first, then
    /// room for the rule's bindings.
    pub fn env(&self, args: &[crate::values::Value]) -> Vec<crate::values::Value> {
        let mut env = vec![crate::values::Value::Int(0); self.slots.max(args.len())];
        env[..args.len()].clone_from_slice(args);
        env
    }
}

/// `turn SET for … if …`: with the coin at slot 0, one move per
/// assignment, turning the coin and the coins of SET.
#[derive(Debug, Clone)]
pub struct Turn {
    /// The set, checked to lie left of the coin (see [`ExprKind::Turned`]).
    pub set: Expr,
    pub bindings: Vec<Binding>,
    pub guard: Option<Expr>,
    pub span: SourceSpan,
}

/// How the parts of a region are told apart: by their shape up to
/// translation, or up to the board's symmetries too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Splits {
    pub symmetric: bool,
}

/// How a game's options are found.
#[derive(Debug, Clone)]
pub enum Moves {
    /// Rules written in the language.
    Rules(Vec<Rule>),
    /// A heap game given by a take-and-break code.
    Code(TakeBreak),
    /// `= POSITION`: a position is a sum of other games' positions, over
    /// the parameters in slots `0..params`.
    Alias(Vec<Term>),
    /// `= product A B` of two coin-turning games (Lenstra's Tartan
    /// theorem): from a head at (x, y), a move turns the coins of the
    /// rectangle product of a move of A at x and one of B at y, each with
    /// its own coin; the value is the nim-product of A(x)'s and B(y)'s.
    Product(GameId, GameId),
}

/// A take-and-break code: `digits[k]` says how a heap may lose k tokens,
/// and `rest` applies to every k past the digits (for `all but` sets).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TakeBreak {
    pub digits: Vec<Digit>,
    pub rest: Option<Digit>,
}

/// One digit of a code: bit 1 leaves no heap, 2 one heap, 4 two heaps,
/// 8 three; `distinct` asks that the heaps left differ in size.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Digit {
    pub bits: u8,
    pub distinct: bool,
}

impl TakeBreak {
    /// The digit for removing k tokens.
    pub fn digit(&self, k: usize) -> Digit {
        self.digits
            .get(k)
            .copied()
            .or(self.rest)
            .unwrap_or_default()
    }

    /// The most tokens one move removes, when that is bounded.
    pub fn largest_removal(&self) -> Option<usize> {
        match self.rest {
            Some(_) => None,
            None => Some(
                self.digits
                    .iter()
                    .rposition(|digit| digit.bits != 0)
                    .unwrap_or(0),
            ),
        }
    }
}

/// `move TARGET for … if …`, with the parameters in slots `0..params`.
#[derive(Debug, Clone)]
pub struct Rule {
    pub target: Vec<Term>,
    pub bindings: Vec<Binding>,
    pub guard: Option<Expr>,
    pub span: SourceSpan,
    /// How the options of the last binding can be read along tables.
    pub sweep: Option<Sweep>,
    /// The sweep compiled to arithmetic on the parameters, where it can be.
    pub compiled: Option<Compiled>,
    /// The rule compiled to bit operations on a set, where it can be.
    pub nodes: Option<NodeRule>,
}

impl Rule {
    /// A rule of a game of `arity` parameters; conjuncts of the guard that
    /// bound the last binding become part of its range (see `bounds.rs`).
    pub fn new(
        target: Vec<Term>,
        mut bindings: Vec<Binding>,
        guard: Option<Expr>,
        span: SourceSpan,
        arity: usize,
    ) -> Rule {
        let guard = bounds::absorb(&mut bindings, guard);
        let sweep = Sweep::plan(&target, &bindings, guard.as_ref());
        let mut rule = Rule {
            target,
            bindings,
            guard,
            span,
            sweep,
            compiled: None,
            nodes: None,
        };
        rule.compiled = Compiled::plan(&rule, arity);
        rule.nodes = NodeRule::plan(&rule, arity);
        rule
    }
}

/// A rule whose last binding ranges over an interval and moves each
/// argument of its target by -1, 0 or +1 per step, as in
/// `K(a) + K(n - k - a) for a in 0..=n - k`: the values of its options then
/// lie along lines of the games' tables and are read there in one loop,
/// the arguments evaluated only at the ends of the interval. The guard, if
/// any, does not mention the last binding.
///
/// A target of one game of one parameter whose argument moves otherwise,
/// as in `S(n - k * k) for k in 1..=isqrt(n)`, is *gathered* instead: the
/// argument is evaluated for each option and its cell read straight from
/// the table, with none of the rest of an option's evaluation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sweep {
    /// The slot of the last binding.
    pub slot: usize,
    /// Per term, the step of each argument; empty for a term that does not
    /// move (a heap, a node, a game whose arguments stay put).
    pub steps: Vec<Vec<i64>>,
    /// The term gathered, if the target is gathered.
    pub gather: Option<usize>,
}

impl Sweep {
    fn plan(target: &[Term], bindings: &[Binding], guard: Option<&Expr>) -> Option<Sweep> {
        let last = bindings.last()?;
        if !matches!(last.domain, Domain::Range { .. }) || last.stop.is_some() {
            return None;
        }
        let slot = last.slot;
        if guard.is_some_and(|guard| guard.mentions(slot)) {
            return None;
        }
        if let [Term::Game { args, .. }] = target
            && let [arg] = args.as_slice()
            && arg.mentions(slot)
            && arg.step(slot).is_none()
        {
            return Some(Sweep {
                slot,
                steps: vec![Vec::new()],
                gather: Some(0),
            });
        }
        let steps = target
            .iter()
            .map(|term| match term {
                Term::Game { args, .. } => {
                    let steps = args
                        .iter()
                        .map(|arg| arg.step(slot))
                        .collect::<Option<Vec<i64>>>()?;
                    match steps.iter().all(|&step| step == 0) {
                        true => Some(Vec::new()),
                        // Tables hold games of up to four parameters.
                        false if args.len() <= 4 => Some(steps),
                        false => None,
                    }
                }
                Term::Heap { size, .. } => (!size.mentions(slot)).then(Vec::new),
                Term::Node { .. } => Some(Vec::new()),
                // A `let` in a target is summed term by term, not swept.
                Term::Let { .. } | Term::Over(_) => None,
                Term::NodeAt { index, .. } => (!index.mentions(slot)).then(Vec::new),
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Sweep {
            slot,
            steps,
            gather: None,
        })
    }
}

/// A directed graph whose nodes are positions.
#[derive(Debug, Clone)]
pub struct Graph {
    pub name: String,
    pub nodes: IndexSet<String>,
    /// The successors of each node, in the order written.
    pub moves: Vec<Vec<NodeId>>,
    /// The graph as a board, its edges undirected.
    pub board: std::sync::Arc<crate::values::GraphBoard>,
    pub span: SourceSpan,
}

/// `graph Name(n, k) { nodes 0..N  edge A -- B for … if … }`: a board for
/// each assignment of its parameters, built by its rules when first asked
/// and kept, so that a board asked twice is one board.
#[derive(Debug)]
pub struct Family {
    pub name: String,
    pub params: Vec<String>,
    /// `nodes START..END`, over the parameters in slots `0..params`.
    pub start: Expr,
    pub end: Expr,
    pub inclusive: bool,
    pub nodes_span: SourceSpan,
    pub edges: Vec<EdgeRule>,
    /// Slots a rule needs: the parameters first, then its bindings.
    pub slots: usize,
    pub span: SourceSpan,
    /// The boards built so far, by their arguments.
    pub built: std::sync::Mutex<
        std::collections::HashMap<Vec<i64>, std::sync::Arc<crate::values::GraphBoard>>,
    >,
}

/// `edge A -- B for … if …`: one edge per assignment.
#[derive(Debug, Clone)]
pub struct EdgeRule {
    pub from: Expr,
    pub to: Expr,
    pub bindings: Vec<Binding>,
    pub guard: Option<Expr>,
    pub span: SourceSpan,
}

/// `let name = POSITION`; the value has no free variables.
#[derive(Debug, Clone)]
pub struct Let {
    pub name: String,
    pub value: Vec<Term>,
    /// How many components the value has, `let`s in it expanded.
    pub components: u128,
    pub span: SourceSpan,
}

/// `let K = VALUE`: a name for a value, with no free variables.
#[derive(Debug, Clone)]
pub struct Constant {
    pub name: String,
    pub value: Expr,
    pub span: SourceSpan,
}

/// A query over its bindings, which occupy slots `0..slots`.
#[derive(Debug, Clone)]
pub struct Query {
    pub kind: QueryKind,
    /// Whether the query is asked under normal or misère play.
    pub play: Play,
    /// Where a picture is written (`draw`, `plot`); standard output if not.
    pub to: Option<Destination>,
    pub target: Target,
    pub bindings: Vec<Binding>,
    pub guard: Option<Expr>,
    /// The names of the bindings, in slot order, for table rows.
    pub names: Vec<String>,
    /// The slots its expressions need: the bindings', then those of
    /// comprehensions and sums over bindings.
    pub slots: usize,
    pub span: SourceSpan,
    pub target_span: SourceSpan,
}

/// Who wins when no move is left: under normal play the player who
/// cannot move loses, under misère play that player wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Play {
    Normal,
    Misere,
}

impl Play {
    /// As named in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Play::Normal => "normal",
            Play::Misere => "misere",
        }
    }
}

/// What a query is about.
#[derive(Debug, Clone)]
pub enum Target {
    Position(Vec<Term>),
    /// `equal? A B`.
    Positions(Vec<Term>, Vec<Term>),
    /// `period G`.
    Game(GameId),
    /// `diff A B`.
    Games(GameId, GameId),
    /// `nim 3 * 5`, its operators read in nimbers.
    Nimber(Expr),
    /// `quotient G up to N`.
    Quotient(GameId, u32),
}

/// A variable, the slot it is stored in, and the values it ranges over.
#[derive(Debug, Clone)]
pub struct Binding {
    pub slot: usize,
    pub domain: Domain,
    /// `while COND`: the values stop at the first for which it fails.
    pub stop: Option<Expr>,
    pub span: SourceSpan,
}

#[derive(Debug, Clone)]
pub enum Domain {
    Range {
        start: Expr,
        end: Expr,
        inclusive: bool,
    },
    Set(Vec<Expr>),
    /// The positive divisors of a number, in increasing order.
    Divisors(Expr),
    /// The elements of a set (increasing), a list (in order) or a region
    /// (its nodes, increasing).
    Each(Expr),
    /// The subsets of a set, of at most so many elements when a size is
    /// given, smallest first.
    Subsets(Expr, Option<Expr>),
    /// Every list m as long as l with 0 <= m[i] <= l[i].
    Under(Expr),
}

/// One term of a sum, with its arguments still to evaluate.
#[derive(Debug, Clone)]
pub enum Term {
    Game {
        game: GameId,
        args: Vec<Expr>,
        span: SourceSpan,
    },
    Heap {
        size: Expr,
        span: SourceSpan,
    },
    Node {
        graph: GraphId,
        node: NodeId,
    },
    /// `Graph.(e)`: the node named by the value of e.
    NodeAt {
        graph: GraphId,
        index: Expr,
        span: SourceSpan,
    },
    /// A `let`'s sum, by reference: a chain of `let`s, each using the one
    /// before, costs its length, not the square of it.
    Let {
        id: LetId,
        span: SourceSpan,
    },
    /// `(G(i) for i in 1..n if …)`: the terms once per assignment.
    Over(Box<Over>),
}

#[derive(Debug, Clone)]
pub struct Over {
    pub terms: Vec<Term>,
    pub bindings: Vec<Binding>,
    pub guard: Option<Expr>,
    pub span: SourceSpan,
}

/// The most components one sum may have.
pub const MAX_SUM_COMPONENTS: u128 = 1_000_000;

impl Program {
    /// How many components a sum of terms stands for, `let`s expanded.
    pub fn components(&self, terms: &[Term]) -> u128 {
        terms
            .iter()
            .map(|term| match term {
                Term::Let { id, .. } => self.let_value(*id).components,
                Term::Game { .. }
                | Term::Heap { .. }
                | Term::Node { .. }
                | Term::NodeAt { .. }
                | Term::Over(_) => 1,
            })
            .fold(0u128, u128::saturating_add)
    }
}

/// A type-checked expression; conditions evaluate to 0 or 1.
#[derive(Debug, Clone)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: SourceSpan,
}

#[derive(Debug, Clone)]
pub enum ExprKind {
    Const(i64),
    Slot(usize),
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    Min(Vec<Expr>),
    Max(Vec<Expr>),
    Abs(Box<Expr>),
    /// The integer square root, `isqrt(a)`.
    Isqrt(Box<Expr>),
    /// `~a`, bitwise not.
    BitNot(Box<Expr>),
    /// `popcount(a)`: the ones in a non-negative integer's binary digits.
    Popcount(Box<Expr>),
    /// `nim_inv(a)`: the nim-inverse of a positive integer.
    NimInv(Box<Expr>),
    /// The coins a move of a coin-turning game turns: a set, each of whose
    /// elements must lie left of the coin in slot 0 (from 0 to n - 1).
    Turned(Box<Expr>),
    /// `a ± b ± c …` over variables and constants, compiled to a flat list
    /// that is evaluated left to right as the tree would be.
    Chain(Box<Chain>),
    /// A value known when the program is checked: a region of a declared
    /// graph, a set or list `let`.
    Value(crate::values::Value),
    /// `if c then a else b`.
    If(Box<[Expr; 3]>),
    /// `{a, b, …}`.
    SetOf(Vec<Expr>),
    /// `[a, b, …]`.
    ListOf(Vec<Expr>),
    /// `{e for …}` or `[e for …]`.
    Comprehension(Box<Comprehension>),
    /// `l[i]`.
    Index(Box<Expr>, Box<Expr>),
    /// A built-in function of sets, lists and boards.
    Call(Builtin, Vec<Expr>),
    /// `Name(args)`: every node of the board a family builds for these
    /// arguments.
    Family(std::sync::Arc<Family>, Vec<Expr>),
}

#[derive(Debug, Clone)]
pub struct Comprehension {
    pub list: bool,
    pub element: Expr,
    pub bindings: Vec<Binding>,
    pub guard: Option<Expr>,
}

/// The built-in functions beyond integers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    /// `len(x)`: the elements of a set, list or region.
    Len,
    /// `sum(l)`: the sum of a list's or set's elements.
    Sum,
    /// `sort(l)`: a list (or a set's elements) in increasing order.
    Sort,
    /// `replace(l, i, v)`: l with its element at i replaced by v.
    Replace,
    /// `nodes(r)`: the nodes of a region, as a set.
    Nodes,
    /// `neighbours(r, v)`: the nodes of r next to v.
    Neighbours,
    /// `closed(r, v)`: v and the nodes of r next to it.
    Closed,
    /// `grounded(r, g)`: the elements of r joined to the nodes g through r.
    Grounded,
    /// `Grid(r, c)`, `Path(n)`, `Cycle(n)`: every node of a board.
    Grid,
    Path,
    Cycle,
    /// `Edges(G)`: every edge of a declared graph, as a region.
    Edges,
}

impl Builtin {
    /// Whether its value is an integer (else a set, list or region).
    pub fn gives_int(self) -> bool {
        matches!(self, Builtin::Len | Builtin::Sum)
    }

    /// The name, and how many arguments it takes.
    pub const ALL: [(&'static str, Builtin, usize); 12] = [
        ("len", Builtin::Len, 1),
        ("sum", Builtin::Sum, 1),
        ("sort", Builtin::Sort, 1),
        ("replace", Builtin::Replace, 3),
        ("nodes", Builtin::Nodes, 1),
        ("neighbours", Builtin::Neighbours, 2),
        ("closed", Builtin::Closed, 2),
        ("grounded", Builtin::Grounded, 2),
        ("Grid", Builtin::Grid, 2),
        ("Path", Builtin::Path, 1),
        ("Cycle", Builtin::Cycle, 1),
        ("Edges", Builtin::Edges, 1),
    ];

    pub fn name(self) -> &'static str {
        Builtin::ALL
            .iter()
            .find(|(_, builtin, _)| *builtin == self)
            .map_or("?", |(name, ..)| name)
    }
}

/// A chain of additions and subtractions, and the tree it was compiled
/// from, which says where an overflow happened.
#[derive(Debug, Clone)]
pub struct Chain {
    pub start: Operand,
    /// Each step: whether it adds (else subtracts), and what.
    pub steps: Vec<(bool, Operand)>,
    pub tree: Expr,
}

#[derive(Debug, Clone, Copy)]
pub enum Operand {
    Const(i64),
    Slot(usize),
}

impl Operand {
    #[inline]
    pub fn get(self, env: &[crate::values::Value]) -> Option<i64> {
        match self {
            Operand::Const(value) => Some(value),
            Operand::Slot(slot) => env[slot].int(),
        }
    }
}

impl Expr {
    /// An expression with no place in a source, for tests.
    #[cfg(test)]
    pub fn leaf(kind: ExprKind) -> Expr {
        Expr {
            kind,
            span: SourceSpan::new(0.into(), 0),
        }
    }

    /// The expression, compiled to a [`Chain`] when it is one: a left-deep
    /// sum or difference of variables and constants, `n - k - a`.
    pub fn compiled(self) -> Expr {
        let mut steps = Vec::new();
        let mut spine = &self;
        let start = loop {
            match &spine.kind {
                ExprKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), lhs, rhs) => {
                    let Some(operand) = rhs.operand() else {
                        return self;
                    };
                    steps.push((*op == BinaryOp::Add, operand));
                    spine = lhs;
                }
                // A chain compiled already, inside: its steps come first
                // (an argument's parts are compiled before the whole).
                ExprKind::Chain(chain) if !steps.is_empty() => {
                    steps.extend(chain.steps.iter().rev().copied());
                    break chain.start;
                }
                _ => match spine.operand() {
                    Some(start) if !steps.is_empty() => break start,
                    _ => return self,
                },
            }
        };
        steps.reverse();
        Expr {
            span: self.span,
            kind: ExprKind::Chain(Box::new(Chain {
                start,
                steps,
                tree: self,
            })),
        }
    }

    /// Whether the value of a slot is read.
    pub fn mentions(&self, slot: usize) -> bool {
        match &self.kind {
            ExprKind::Const(_) | ExprKind::Value(_) => false,
            ExprKind::Slot(read) => *read == slot,
            ExprKind::If(parts) => parts.iter().any(|part| part.mentions(slot)),
            ExprKind::SetOf(args)
            | ExprKind::ListOf(args)
            | ExprKind::Call(_, args)
            | ExprKind::Family(_, args) => args.iter().any(|arg| arg.mentions(slot)),
            ExprKind::Index(lhs, rhs) => lhs.mentions(slot) || rhs.mentions(slot),
            // Conservatively: a comprehension may read any slot.
            ExprKind::Comprehension(_) => true,
            ExprKind::Neg(operand)
            | ExprKind::Not(operand)
            | ExprKind::Abs(operand)
            | ExprKind::Isqrt(operand)
            | ExprKind::BitNot(operand)
            | ExprKind::Popcount(operand)
            | ExprKind::NimInv(operand) => operand.mentions(slot),
            ExprKind::Turned(set) => slot == 0 || set.mentions(slot),
            ExprKind::Binary(_, lhs, rhs) => lhs.mentions(slot) || rhs.mentions(slot),
            ExprKind::Min(args) | ExprKind::Max(args) => args.iter().any(|arg| arg.mentions(slot)),
            ExprKind::Chain(chain) => chain.tree.mentions(slot),
        }
    }

    /// How much the value changes when a slot grows by one, where that is
    /// -1, 0 or +1 whatever the other slots hold and the value never
    /// overflows between two values that do not: the slot read once in a
    /// chain of additions and subtractions, or not at all.
    pub fn step(&self, slot: usize) -> Option<i64> {
        if !self.mentions(slot) {
            return Some(0);
        }
        let is_slot = |operand: &Operand| matches!(operand, Operand::Slot(read) if *read == slot);
        match &self.kind {
            ExprKind::Slot(_) => Some(1),
            ExprKind::Chain(chain) => {
                let start = is_slot(&chain.start).then_some(1);
                let steps = chain.steps.iter().filter(|(_, operand)| is_slot(operand));
                let mut found = steps.map(|&(add, _)| if add { 1 } else { -1 });
                match (start, found.next(), found.next()) {
                    (Some(step), None, _) | (None, Some(step), None) => Some(step),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn operand(&self) -> Option<Operand> {
        match self.kind {
            ExprKind::Const(value) => Some(Operand::Const(value)),
            ExprKind::Slot(slot) => Some(Operand::Slot(slot)),
            _ => None,
        }
    }
}

/// How far a [`Program`] had grown, to take it back there
/// ([`Program::rewind`]).
#[derive(Debug, Clone, Copy)]
pub struct Mark {
    names: usize,
    games: usize,
    graphs: usize,
    families: usize,
    lets: usize,
    constants: usize,
}

impl Program {
    /// How far the program has grown. Lowering only adds declarations (and
    /// completes the ones it added), so rewinding to a mark undoes it.
    pub fn mark(&self) -> Mark {
        Mark {
            names: self.names.len(),
            games: self.games.len(),
            graphs: self.graphs.len(),
            families: self.families.len(),
            lets: self.lets.len(),
            constants: self.constants.len(),
        }
    }

    /// Drops what was declared since `mark`.
    pub fn rewind(&mut self, mark: Mark) {
        self.names.truncate(mark.names);
        self.games.truncate(mark.games);
        self.graphs.truncate(mark.graphs);
        self.families.truncate(mark.families);
        self.lets.truncate(mark.lets);
        self.constants.truncate(mark.constants);
    }

    pub fn game(&self, id: GameId) -> &Game {
        &self.games[id.0 as usize]
    }

    pub fn graph(&self, id: GraphId) -> &Graph {
        &self.graphs[id.0 as usize]
    }

    pub fn family(&self, id: FamilyId) -> &std::sync::Arc<Family> {
        &self.families[id.0 as usize]
    }

    pub fn let_value(&self, id: LetId) -> &Let {
        &self.lets[id.0 as usize]
    }

    pub fn constant(&self, id: ConstId) -> &Constant {
        &self.constants[id.0 as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sub(lhs: Expr, rhs: Expr) -> Expr {
        Expr::leaf(ExprKind::Binary(
            BinaryOp::Sub,
            Box::new(lhs),
            Box::new(rhs),
        ))
    }

    /// `n - k - a` with `n - k` compiled first (arguments' parts are) is
    /// one chain still, moving by -1 with `a`: Kayles' rule is swept.
    #[test]
    fn a_chain_inside_a_chain_is_one_chain() {
        let (n, k, a) = (
            Expr::leaf(ExprKind::Slot(0)),
            Expr::leaf(ExprKind::Slot(1)),
            Expr::leaf(ExprKind::Slot(2)),
        );
        let inner = sub(n, k).compiled();
        assert!(matches!(inner.kind, ExprKind::Chain(_)));
        let whole = sub(inner, a).compiled();
        let ExprKind::Chain(chain) = &whole.kind else {
            panic!("not a chain: {whole:?}");
        };
        assert_eq!(chain.steps.len(), 2);
        assert_eq!(whole.step(2), Some(-1));
        assert_eq!(whole.step(1), Some(-1));
        assert_eq!(whole.step(0), Some(1));
        let env = [50, 2, 7].map(crate::values::Value::Int);
        assert_eq!(crate::eval::eval(&whole, &env).unwrap(), 41);
    }
}
