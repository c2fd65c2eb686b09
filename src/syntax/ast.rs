//! The typed syntax tree. Every node carries the span of source it came from,
//! as an offset into the session's source buffer.

use miette::SourceSpan;

/// A parsed source: its statements in the order written.
#[derive(Debug, Clone)]
pub struct Program {
    pub statements: Vec<Statement>,
}

#[derive(Debug, Clone)]
pub enum Statement {
    Game(GameDecl),
    Graph(GraphDecl),
    Family(FamilyDecl),
    Let(LetDecl),
    Query(Query),
}

impl Statement {
    /// The whole text of the statement.
    pub fn span(&self) -> SourceSpan {
        match self {
            Statement::Game(decl) => decl.span,
            Statement::Graph(decl) => decl.span,
            Statement::Family(decl) => decl.span,
            Statement::Let(decl) => decl.span,
            Statement::Query(query) => query.span,
        }
    }
}

/// A name as written, with where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ident {
    pub name: String,
    pub span: SourceSpan,
}

/// `game Name(p, q) { move … }` or `game Name = octal "0.77"`.
#[derive(Debug, Clone)]
pub struct GameDecl {
    pub name: Ident,
    pub params: Vec<Ident>,
    pub body: GameBody,
    pub span: SourceSpan,
}

#[derive(Debug, Clone)]
pub enum GameBody {
    Rules {
        rules: Vec<MoveRule>,
        splits: Option<Splits>,
    },
    Code(Code),
    /// `= POSITION`: each position is a sum of other games' positions.
    Alias(Sum),
    /// `= coins(n) { turn … }`: a coin-turning game, its one parameter the
    /// place of a coin.
    Coins(Vec<Turn>),
    /// `= product A B`: the product of two coin-turning games, its two
    /// parameters a place of each.
    Product(Ident, Ident),
}

/// `turn SET for x in D if COND`
#[derive(Debug, Clone)]
pub struct Turn {
    pub set: Expr,
    pub bindings: Vec<Binding>,
    pub guard: Option<Expr>,
    pub span: SourceSpan,
}

/// `splits` or `splits up to symmetry`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Splits {
    pub symmetric: bool,
    pub span: SourceSpan,
}

/// A heap game given by a code; its one parameter is the heap size.
#[derive(Debug, Clone)]
pub enum Code {
    /// `octal "0.77"` or `hexadecimal "0.F"`: the text inside the quotes,
    /// and the span of that text.
    TakeBreak {
        digits: String,
        hexadecimal: bool,
        span: SourceSpan,
    },
    /// `subtraction {1, 3, 4}` or `subtraction all but {2}`.
    Subtraction {
        all_but: bool,
        set: Vec<(i64, SourceSpan)>,
        span: SourceSpan,
    },
}

/// `move TARGET for x in D if COND`
#[derive(Debug, Clone)]
pub struct MoveRule {
    pub target: Sum,
    pub bindings: Vec<Binding>,
    pub guard: Option<Expr>,
    pub span: SourceSpan,
}

/// `x in D`
#[derive(Debug, Clone)]
pub struct Binding {
    pub var: Ident,
    pub domain: Domain,
    /// `while COND`: the values stop at the first for which it fails.
    pub stop: Option<Expr>,
}

#[derive(Debug, Clone)]
pub enum Domain {
    /// `start..end`, `start..=end`, or `start..` (open: a `while` ends it).
    Range {
        start: Expr,
        end: Option<Expr>,
        inclusive: bool,
    },
    /// `{e1, e2, …}`.
    Set(Vec<Expr>),
    /// `divisors(n)`: the positive divisors of n, in increasing order.
    Divisors(Expr),
    /// The elements of a set, list or region.
    Each(Expr),
    /// `subsets(s)` or `subsets(s, k)`.
    Subsets(Expr, Option<Expr>),
    /// `under(l)`.
    Under(Expr),
}

/// `graph Name { a -> b, c }`
#[derive(Debug, Clone)]
pub struct GraphDecl {
    pub name: Ident,
    pub edges: Vec<Edges>,
    pub span: SourceSpan,
}

/// `graph Name(n, k) { nodes 0..N  edge A -- B for … if … }`: a family of
/// boards over its parameters.
#[derive(Debug, Clone)]
pub struct FamilyDecl {
    pub name: Ident,
    pub params: Vec<Ident>,
    /// `nodes START..END`: the nodes of each board.
    pub nodes: FamilyNodes,
    pub edges: Vec<EdgeRule>,
    pub span: SourceSpan,
}

/// `nodes 0..N` or `nodes 0..=N`.
#[derive(Debug, Clone)]
pub struct FamilyNodes {
    pub start: Expr,
    pub end: Expr,
    pub inclusive: bool,
    pub span: SourceSpan,
}

/// `edge A -- B for x in D if COND`
#[derive(Debug, Clone)]
pub struct EdgeRule {
    pub from: Expr,
    pub to: Expr,
    pub bindings: Vec<Binding>,
    pub guard: Option<Expr>,
    pub span: SourceSpan,
}

/// One line of a graph: a node and the nodes it moves to.
#[derive(Debug, Clone)]
pub struct Edges {
    pub from: Ident,
    pub to: Vec<Ident>,
    /// `--`: the edges go both ways.
    pub undirected: bool,
}

/// `let name = POSITION`
#[derive(Debug, Clone)]
pub struct LetDecl {
    pub name: Ident,
    pub value: LetValue,
    pub span: SourceSpan,
}

#[derive(Debug, Clone)]
pub enum LetValue {
    Position(Sum),
    Value(Expr),
}

/// What a query asks of a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryKind {
    Grundy,
    Wins,
    BestMove,
    Moves,
    Play,
    Crosscheck,
    Remoteness,
    Genus,
    Draw,
    Plot,
    Equal,
    Period,
    Diff,
    Nim,
    Why,
    Strategy,
    Quotient,
}

impl QueryKind {
    /// The keyword that asks the query, as written and as named in JSON.
    pub fn keyword(self) -> &'static str {
        match self {
            QueryKind::Grundy => "grundy",
            QueryKind::Wins => "wins?",
            QueryKind::BestMove => "best_move",
            QueryKind::Moves => "moves",
            QueryKind::Play => "play",
            QueryKind::Crosscheck => "crosscheck",
            QueryKind::Remoteness => "remoteness",
            QueryKind::Genus => "genus",
            QueryKind::Draw => "draw",
            QueryKind::Plot => "plot",
            QueryKind::Equal => "equal?",
            QueryKind::Period => "period",
            QueryKind::Diff => "diff",
            QueryKind::Nim => "nim",
            QueryKind::Why => "why",
            QueryKind::Strategy => "strategy",
            QueryKind::Quotient => "quotient",
        }
    }
}

impl QueryKind {
    /// Whether the query may be asked under misère play.
    pub fn has_misere(self) -> bool {
        matches!(
            self,
            QueryKind::Grundy
                | QueryKind::Wins
                | QueryKind::BestMove
                | QueryKind::Moves
                | QueryKind::Crosscheck
                | QueryKind::Why
                | QueryKind::Play
        )
    }
}

/// `grundy P for x in D if COND`, and the queries about games.
#[derive(Debug, Clone)]
pub struct Query {
    pub kind: QueryKind,
    /// Where `misere` was written, for a query under misère play.
    pub misere: Option<SourceSpan>,
    pub target: Target,
    pub bindings: Vec<Binding>,
    pub guard: Option<Expr>,
    /// Where a picture is written (`draw`, `plot`).
    pub to: Option<Destination>,
    pub span: SourceSpan,
}

/// `to "FILE"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Destination {
    pub path: String,
    pub span: SourceSpan,
}

/// What a query is about.
#[derive(Debug, Clone)]
pub enum Target {
    Position(Sum),
    /// `equal? A B`.
    Positions(Sum, Sum),
    /// `period G`.
    Game(Ident),
    /// `diff A B`.
    Games(Ident, Ident),
    /// `nim 3 * 5`: an expression in nimbers.
    Nimber(Expr),
    /// `quotient G up to N`.
    Quotient {
        game: Ident,
        up_to: u64,
        up_to_span: SourceSpan,
    },
}

impl Target {
    /// The span of what the query is about.
    pub fn span(&self) -> SourceSpan {
        match self {
            Target::Position(sum) => sum.span,
            Target::Positions(a, b) => join(a.span, b.span),
            Target::Game(game) => game.span,
            Target::Games(a, b) => join(a.span, b.span),
            Target::Nimber(expr) => expr.span,
            Target::Quotient { game, .. } => game.span,
        }
    }
}

/// A sum of games, `A + B + …`.
#[derive(Debug, Clone)]
pub struct Sum {
    pub terms: Vec<Term>,
    pub span: SourceSpan,
}

#[derive(Debug, Clone)]
pub enum Term {
    /// `Name(args)`.
    Game {
        name: Ident,
        args: Vec<Expr>,
        span: SourceSpan,
    },
    /// `*size`.
    Heap { size: Expr, span: SourceSpan },
    /// `Graph.node`.
    Node { graph: Ident, node: Ident },
    /// `Graph.(e)`: the node named by the value of e.
    NodeAt {
        graph: Ident,
        index: Expr,
        span: SourceSpan,
    },
    /// A bare name: a `let` or a game without parameters.
    Name(Ident),
    /// `(A + B)`.
    Group(Sum),
    /// `(G(i) for i in 1..n)`: the sum over the bindings' assignments.
    Over {
        sum: Sum,
        bindings: Vec<Binding>,
        guard: Option<Expr>,
        span: SourceSpan,
    },
}

/// An integer or condition expression.
#[derive(Debug, Clone)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: SourceSpan,
    /// How deep the passes that recurse over expressions go in this one:
    /// two for each level of nesting, one for each further link of a flat
    /// sum; at most twice [`MAX_NESTING`](crate::syntax::MAX_NESTING), so
    /// that they fit in the stack.
    pub depth: usize,
}

#[derive(Debug, Clone)]
pub enum ExprKind {
    Int(i64),
    Bool(bool),
    Var(Ident),
    Call {
        function: Ident,
        args: Vec<Expr>,
    },
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `if c then a else b`.
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `{a, b}` (a set) or `[a, b]` (a list).
    Elements {
        list: bool,
        elements: Vec<Expr>,
    },
    /// `{e for x in D if c}` or `[e for …]`.
    Comprehension {
        list: bool,
        element: Box<Expr>,
        bindings: Vec<Binding>,
        guard: Option<Box<Expr>>,
    },
    /// `l[i]`.
    Index(Box<Expr>, Box<Expr>),
    /// `G.a`: the number of a node.
    Node {
        graph: Ident,
        node: Ident,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    Not,
    /// `~`, bitwise not.
    BitNot,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    /// `**`, raising to a power.
    Pow,
    Div,
    Rem,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    BitAnd,
    BitOr,
    BitXor,
    /// `<<` and `>>`, shifts of non-negative integers.
    Shl,
    Shr,
    In,
    /// Nimber arithmetic: `nim_mul(a, b)`, and `*`, `/` and `**` in a
    /// `nim` query (never written as such).
    NimMul,
    NimDiv,
    NimPow,
}

impl BinaryOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Pow => "**",
            BinaryOp::Div => "/",
            BinaryOp::Rem => "%",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::And => "and",
            BinaryOp::Or => "or",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitOr => "|",
            BinaryOp::BitXor => "^",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::In => "in",
            BinaryOp::NimMul => "nim_mul",
            BinaryOp::NimDiv => "nim division",
            BinaryOp::NimPow => "nim power",
        }
    }
}

/// The span from the start of `a` to the end of `b`.
pub fn join(a: SourceSpan, b: SourceSpan) -> SourceSpan {
    let start = a.offset();
    let end = b.offset() + b.len();
    SourceSpan::new(start.into(), end.saturating_sub(start))
}

/// A name a piece of the tree reads, as [`visit_sum`] and its kin find it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reference<'a> {
    /// A name read in an expression: a variable, a parameter or a `let`.
    Var(&'a str),
    /// A bare name in a sum: a `let` or a game without parameters.
    Name(&'a str),
    /// The game of a term `G(args)`.
    Game(&'a str),
    /// The graph of a node, `G.a` or `G.(e)`.
    Graph(&'a str),
    /// What a call in an expression calls: a graph family, `F(n)`, or a
    /// function built in, `len(s)`.
    Call(&'a str),
}

/// Calls `f` with every name a sum reads, in the order written: the
/// one traversal of sums, bindings and expressions that passes asking
/// "what does this read?" share.
pub fn visit_sum<'a>(sum: &'a Sum, f: &mut dyn FnMut(Reference<'a>)) {
    sum.terms.iter().for_each(|term| visit_term(term, f));
}

/// [`visit_sum`] for one term.
pub fn visit_term<'a>(term: &'a Term, f: &mut dyn FnMut(Reference<'a>)) {
    match term {
        Term::Game { name, args, .. } => {
            f(Reference::Game(&name.name));
            args.iter().for_each(|arg| visit_expr(arg, f));
        }
        Term::Heap { size, .. } => visit_expr(size, f),
        Term::Node { graph, .. } => f(Reference::Graph(&graph.name)),
        Term::NodeAt { graph, index, .. } => {
            f(Reference::Graph(&graph.name));
            visit_expr(index, f);
        }
        Term::Name(name) => f(Reference::Name(&name.name)),
        Term::Group(sum) => visit_sum(sum, f),
        Term::Over {
            sum,
            bindings,
            guard,
            ..
        } => {
            visit_sum(sum, f);
            visit_bindings(bindings, guard.as_ref(), f);
        }
    }
}

/// [`visit_sum`] for bindings (each domain, then its `while`) and the
/// guard after them.
pub fn visit_bindings<'a>(
    bindings: &'a [Binding],
    guard: Option<&'a Expr>,
    f: &mut dyn FnMut(Reference<'a>),
) {
    for binding in bindings {
        match &binding.domain {
            Domain::Range { start, end, .. } => {
                visit_expr(start, f);
                end.iter().for_each(|end| visit_expr(end, f));
            }
            Domain::Set(elements) => elements.iter().for_each(|element| visit_expr(element, f)),
            Domain::Divisors(expr) | Domain::Each(expr) | Domain::Under(expr) => {
                visit_expr(expr, f)
            }
            Domain::Subsets(set, size) => {
                visit_expr(set, f);
                size.iter().for_each(|size| visit_expr(size, f));
            }
        }
        binding.stop.iter().for_each(|stop| visit_expr(stop, f));
    }
    guard.iter().for_each(|guard| visit_expr(guard, f));
}

/// [`visit_sum`] for an expression.
pub fn visit_expr<'a>(expr: &'a Expr, f: &mut dyn FnMut(Reference<'a>)) {
    match &expr.kind {
        ExprKind::Int(_) | ExprKind::Bool(_) => {}
        ExprKind::Var(var) => f(Reference::Var(&var.name)),
        ExprKind::Node { graph, .. } => f(Reference::Graph(&graph.name)),
        ExprKind::Call { function, args } => {
            f(Reference::Call(&function.name));
            args.iter().for_each(|arg| visit_expr(arg, f))
        }
        ExprKind::Elements { elements: args, .. } => args.iter().for_each(|arg| visit_expr(arg, f)),
        ExprKind::Unary(_, operand) => visit_expr(operand, f),
        ExprKind::Binary(_, left, right) | ExprKind::Index(left, right) => {
            visit_expr(left, f);
            visit_expr(right, f);
        }
        ExprKind::If(condition, then, otherwise) => {
            for part in [condition, then, otherwise] {
                visit_expr(part, f);
            }
        }
        ExprKind::Comprehension {
            element,
            bindings,
            guard,
            ..
        } => {
            visit_expr(element, f);
            visit_bindings(bindings, guard.as_deref(), f);
        }
    }
}
