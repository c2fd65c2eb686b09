//! Lowering: resolves names, checks arities and types, and compiles the
//! syntax tree into the [`ir`] the interpreter runs. Every error of a source
//! is collected and reported together; nothing is evaluated if one exists.

mod error;
mod splitting;

use std::collections::HashSet;

use miette::SourceSpan;

use crate::program::*;
use crate::syntax::ast;
pub use error::{CheckError, CheckErrors};

/// The program `source` declares, for tests of what lowering makes of it.
#[cfg(test)]
pub(crate) fn lowered(source: &str) -> Program {
    let parsed = crate::syntax::parse(source, 0).expect("the source parses");
    let statements: Vec<_> = parsed.statements.iter().collect();
    let (program, _) = lower(&Program::default(), &statements).expect("the source checks");
    program
}

/// Checks `statements` against the declarations already in `program` and
/// returns the program extended with their declarations, and their queries
/// in order.
pub fn lower(
    program: &Program,
    statements: &[&ast::Statement],
) -> Result<(Program, Vec<Query>), CheckErrors> {
    let mut lowerer = Lowerer::new(program);
    let declared = lowerer.declare_all(statements);
    for (statement, kind) in statements.iter().zip(&declared) {
        match (statement, kind) {
            (ast::Statement::Let(decl), Some(DeclarationKind::Let(id))) => {
                lowerer.let_decl(decl, *id)
            }
            (ast::Statement::Let(decl), Some(DeclarationKind::Constant(id))) => {
                lowerer.constant(decl, *id)
            }
            _ => {}
        }
    }
    for (statement, kind) in statements.iter().zip(&declared) {
        if let (ast::Statement::Game(decl), Some(DeclarationKind::Game(id))) = (statement, kind) {
            lowerer.game_decl(decl, *id);
        }
    }
    let queries = statements
        .iter()
        .filter_map(|statement| match statement {
            ast::Statement::Query(query) => Some(lowerer.query(query)),
            _ => None,
        })
        .collect();
    lowerer.finish().map(|program| (program, queries))
}

/// Lowers a position with no free variables, such as a move typed in play.
pub fn position(program: &Program, sum: &ast::Sum) -> Result<Vec<Term>, CheckErrors> {
    let mut lowerer = Lowerer::new(program);
    let terms = lowerer.sum(sum, &Scope::default());
    lowerer.finish().map(|_| terms)
}

/// The name a declaration declares.
pub fn declared_name(statement: &ast::Statement) -> Option<&ast::Ident> {
    match statement {
        ast::Statement::Game(decl) => Some(&decl.name),
        ast::Statement::Graph(decl) => Some(&decl.name),
        ast::Statement::Let(decl) => Some(&decl.name),
        ast::Statement::Query(_) => None,
    }
}

/// The declared names a declaration refers to: the games, graphs and
/// `let`s its positions and expressions mention.
pub fn references(statement: &ast::Statement) -> Vec<&str> {
    fn walk<'a>(sum: &'a ast::Sum, names: &mut Vec<&'a str>) {
        for term in &sum.terms {
            match term {
                ast::Term::Game { name, args, .. } => {
                    names.push(&name.name);
                    args.iter().for_each(|arg| expr(arg, names));
                }
                ast::Term::Name(name) => names.push(&name.name),
                ast::Term::Node { graph, .. } => names.push(&graph.name),
                ast::Term::NodeAt { graph, index, .. } => {
                    names.push(&graph.name);
                    expr(index, names);
                }
                ast::Term::Group(inner) => walk(inner, names),
                ast::Term::Over {
                    sum,
                    bindings,
                    guard,
                    ..
                } => {
                    walk(sum, names);
                    rest(bindings, guard.as_ref(), names);
                }
                ast::Term::Heap { size, .. } => expr(size, names),
            }
        }
    }
    fn rest<'a>(
        bindings: &'a [ast::Binding],
        guard: Option<&'a ast::Expr>,
        names: &mut Vec<&'a str>,
    ) {
        for binding in bindings {
            match &binding.domain {
                ast::Domain::Range { start, end, .. } => {
                    expr(start, names);
                    end.iter().for_each(|end| expr(end, names));
                }
                ast::Domain::Set(elements) => elements.iter().for_each(|arg| expr(arg, names)),
                ast::Domain::Divisors(arg) | ast::Domain::Each(arg) | ast::Domain::Under(arg) => {
                    expr(arg, names)
                }
                ast::Domain::Subsets(set, size) => {
                    expr(set, names);
                    size.iter().for_each(|size| expr(size, names));
                }
            }
            binding.stop.iter().for_each(|stop| expr(stop, names));
        }
        guard.iter().for_each(|guard| expr(guard, names));
    }
    fn expr<'a>(e: &'a ast::Expr, names: &mut Vec<&'a str>) {
        match &e.kind {
            ast::ExprKind::Int(_) | ast::ExprKind::Bool(_) => {}
            ast::ExprKind::Var(var) => names.push(&var.name),
            ast::ExprKind::Node { graph, .. } => names.push(&graph.name),
            ast::ExprKind::Call { args, .. } | ast::ExprKind::Elements { elements: args, .. } => {
                args.iter().for_each(|arg| expr(arg, names))
            }
            ast::ExprKind::Unary(_, operand) => expr(operand, names),
            ast::ExprKind::Binary(_, a, b) | ast::ExprKind::Index(a, b) => {
                expr(a, names);
                expr(b, names);
            }
            ast::ExprKind::If(a, b, c) => [a, b, c].iter().for_each(|part| expr(part, names)),
            ast::ExprKind::Comprehension {
                element,
                bindings,
                guard,
                ..
            } => {
                expr(element, names);
                rest(bindings, guard.as_deref(), names);
            }
        }
    }
    let mut names = Vec::new();
    match statement {
        ast::Statement::Game(decl) => match &decl.body {
            ast::GameBody::Rules { rules, .. } => rules.iter().for_each(|rule| {
                walk(&rule.target, &mut names);
                rest(&rule.bindings, rule.guard.as_ref(), &mut names);
            }),
            ast::GameBody::Alias(sum) => walk(sum, &mut names),
            ast::GameBody::Code(_) => {}
            ast::GameBody::Coins(turns) => {
                for turn in turns {
                    expr(&turn.set, &mut names);
                    rest(&turn.bindings, turn.guard.as_ref(), &mut names);
                }
            }
            ast::GameBody::Product(a, b) => names.extend([a.name.as_str(), b.name.as_str()]),
        },
        ast::Statement::Let(decl) => match &decl.value {
            ast::LetValue::Position(sum) => walk(sum, &mut names),
            ast::LetValue::Value(value) => expr(value, &mut names),
        },
        ast::Statement::Query(query) => match &query.target {
            ast::Target::Position(sum) => {
                walk(sum, &mut names);
                rest(&query.bindings, query.guard.as_ref(), &mut names);
            }
            ast::Target::Positions(a, b) => {
                walk(a, &mut names);
                walk(b, &mut names);
            }
            ast::Target::Game(game) => names.push(&game.name),
            ast::Target::Games(a, b) => names.extend([a.name.as_str(), b.name.as_str()]),
            ast::Target::Nimber(value) => {
                expr(value, &mut names);
                rest(&query.bindings, query.guard.as_ref(), &mut names);
            }
        },
        ast::Statement::Graph(_) => {}
    }
    names
}

/// What an expression gives, as far as checking can tell: a game's
/// parameters may hold any value but a condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Type {
    Int,
    Bool,
    Set,
    List,
    Region,
    Any,
    /// A mistyped operation, reported where it is found.
    Error,
}

impl Type {
    fn noun(self) -> &'static str {
        match self {
            Type::Int => "an integer",
            Type::Bool => "a condition",
            Type::Set => "a set",
            Type::List => "a list",
            Type::Region => "a region of a board",
            Type::Any | Type::Error => "a value",
        }
    }

    /// Whether a value of this type may stand where `expected` is asked.
    fn fits(self, expected: Type) -> bool {
        self == expected
            || (self == Type::Any && expected != Type::Bool)
            || (expected == Type::Any && self != Type::Bool)
    }

    /// Whether it holds integers one may iterate over.
    fn is_collection(self) -> bool {
        matches!(self, Type::Set | Type::List | Type::Region | Type::Any)
    }
}

/// The variables in scope, in slot order, with their types.
#[derive(Default, Clone)]
struct Scope {
    vars: Vec<ast::Ident>,
    types: Vec<Type>,
}

impl Scope {
    fn lookup(&self, name: &str) -> Option<usize> {
        self.vars.iter().rposition(|var| var.name == name)
    }
}

struct Lowerer {
    program: Program,
    errors: Vec<CheckError>,
    /// `let`s of this source whose value is not lowered yet.
    unlowered_lets: HashSet<u32>,
    /// The most slots a scope has used since this was last reset.
    max_slots: usize,
}

impl Lowerer {
    fn new(program: &Program) -> Self {
        Lowerer {
            program: program.clone(),
            errors: Vec::new(),
            unlowered_lets: HashSet::new(),
            max_slots: 0,
        }
    }

    fn finish(self) -> Result<Program, CheckErrors> {
        match self.errors.is_empty() {
            true => Ok(self.program),
            false => Err(CheckErrors {
                errors: self.errors,
            }),
        }
    }

    /// Enters every declaration's name, so that games may refer to each
    /// other in any order; graphs are complete after this.
    fn declare_all(&mut self, statements: &[&ast::Statement]) -> Vec<Option<DeclarationKind>> {
        statements
            .iter()
            .map(|statement| {
                let (name, kind) = match statement {
                    ast::Statement::Game(decl) => (&decl.name, self.declare_game(decl)),
                    ast::Statement::Graph(decl) => (&decl.name, self.declare_graph(decl)),
                    ast::Statement::Let(decl) => match self.is_value(decl) {
                        true => (&decl.name, self.declare_constant(decl)),
                        false => (&decl.name, self.declare_let(decl)),
                    },
                    ast::Statement::Query(_) => return None,
                };
                if let Some(first) = self.program.names.get(&name.name) {
                    self.errors.push(CheckError::Duplicate {
                        name: name.name.clone(),
                        span: name.span,
                        first: first.span,
                    });
                    return None;
                }
                let declaration = Declaration {
                    kind,
                    span: name.span,
                };
                self.program.names.insert(name.name.clone(), declaration);
                Some(kind)
            })
            .collect()
    }

    fn declare_game(&mut self, decl: &ast::GameDecl) -> DeclarationKind {
        let id = GameId(self.program.games.len() as u32);
        let splits = match &decl.body {
            ast::GameBody::Rules {
                splits: Some(splits),
                ..
            } => {
                if decl.params.is_empty() {
                    self.errors
                        .push(CheckError::SplitsWithoutRegion { span: splits.span });
                }
                Some(Splits {
                    symmetric: splits.symmetric,
                })
            }
            _ => None,
        };
        self.program.games.push(Game {
            name: decl.name.name.clone(),
            params: decl.params.iter().map(|param| param.name.clone()).collect(),
            moves: Moves::Rules(Vec::new()),
            slots: decl.params.len(),
            splits,
            coins: None,
            solves_as_box: false,
            span: decl.span,
        });
        DeclarationKind::Game(id)
    }

    /// Whether a `let` names a value rather than a position: an expression
    /// that is no position, or a call of a built-in function (`Grid(3, 4)`)
    /// or a name of a value (`let T = K`), which parse as positions.
    fn is_value(&self, decl: &ast::LetDecl) -> bool {
        let sum = match &decl.value {
            ast::LetValue::Value(_) => return true,
            ast::LetValue::Position(sum) => sum,
        };
        let [term] = sum.terms.as_slice() else {
            return false;
        };
        match term {
            ast::Term::Game { name, .. } => {
                !self.program.names.contains_key(&name.name) && builtin(&name.name).is_some()
            }
            ast::Term::Name(name) => matches!(
                self.program
                    .names
                    .get(&name.name)
                    .map(|declared| declared.kind),
                Some(DeclarationKind::Constant(_) | DeclarationKind::Graph(_))
            ),
            _ => false,
        }
    }

    fn declare_constant(&mut self, decl: &ast::LetDecl) -> DeclarationKind {
        let id = ConstId(self.program.constants.len() as u32);
        self.program.constants.push(Constant {
            name: decl.name.name.clone(),
            value: Expr {
                kind: ExprKind::Const(0),
                span: decl.span,
            },
            span: decl.span,
        });
        DeclarationKind::Constant(id)
    }

    /// Lowers a `let` of a value; it may use the values declared before it.
    fn constant(&mut self, decl: &ast::LetDecl, id: ConstId) {
        let expr = match &decl.value {
            ast::LetValue::Value(expr) => expr.clone(),
            ast::LetValue::Position(sum) => match sum.terms.as_slice() {
                [ast::Term::Game { name, args, span }] => ast::Expr {
                    kind: ast::ExprKind::Call {
                        function: name.clone(),
                        args: args.clone(),
                    },
                    span: *span,
                    depth: args.iter().map(|arg| arg.depth).max().unwrap_or(0) + 1,
                },
                [ast::Term::Name(name)] => ast::Expr {
                    kind: ast::ExprKind::Var(name.clone()),
                    span: name.span,
                    depth: 1,
                },
                _ => return,
            },
        };
        self.max_slots = 0;
        let errors = self.errors.len();
        let (value, ty) = self.expr(&expr, &Scope::default());
        if ty == Type::Bool {
            self.errors.push(CheckError::TypeMismatch {
                expected: "a value",
                found: ty.noun(),
                span: expr.span,
                help: "a `let` names a position, an integer, a set, a list or a region",
            });
        }
        if self.errors.len() > errors {
            return;
        }
        // A value has no variables: it is worked out once, here.
        let env = vec![crate::values::Value::Int(0); self.max_slots];
        let kind = match crate::eval::value(&value.compiled(), &env) {
            Ok(crate::values::Value::Int(value)) => ExprKind::Const(value),
            Ok(value) => ExprKind::Value(value),
            Err(error) => {
                self.errors.push(CheckError::BadValue {
                    name: decl.name.name.clone(),
                    error,
                });
                return;
            }
        };
        self.program.constants[id.0 as usize].value = Expr {
            kind,
            span: expr.span,
        };
    }

    fn declare_graph(&mut self, decl: &ast::GraphDecl) -> DeclarationKind {
        let id = GraphId(self.program.graphs.len() as u32);
        let mut graph = Graph {
            name: decl.name.name.clone(),
            nodes: Default::default(),
            moves: Vec::new(),
            board: Default::default(),
            span: decl.span,
        };
        let mut edges = Vec::new();
        for line in &decl.edges {
            let from = node_id(&mut graph, &line.from.name);
            for to in &line.to {
                let to = node_id(&mut graph, &to.name);
                graph.moves[from.0 as usize].push(to);
                if line.undirected && to != from {
                    graph.moves[to.0 as usize].push(from);
                }
                edges.push((from.0, to.0));
            }
        }
        graph.board = std::sync::Arc::new(crate::values::GraphBoard::new(
            id,
            graph.name.clone(),
            graph.nodes.len(),
            edges,
        ));
        self.program.graphs.push(graph);
        DeclarationKind::Graph(id)
    }

    fn declare_let(&mut self, decl: &ast::LetDecl) -> DeclarationKind {
        let id = self.program.lets.len() as u32;
        self.program.lets.push(Let {
            name: decl.name.name.clone(),
            value: Vec::new(),
            components: 0,
            span: decl.span,
        });
        self.unlowered_lets.insert(id);
        DeclarationKind::Let(LetId(id))
    }

    fn let_decl(&mut self, decl: &ast::LetDecl, id: LetId) {
        let ast::LetValue::Position(sum) = &decl.value else {
            return;
        };
        let value = self.sum(sum, &Scope::default());
        let components = self.program.components(&value);
        let lowered = &mut self.program.lets[id.0 as usize];
        (lowered.value, lowered.components) = (value, components);
        self.unlowered_lets.remove(&id.0);
    }

    fn game_decl(&mut self, decl: &ast::GameDecl, id: GameId) {
        let mut params = Scope::default();
        for param in &decl.params {
            self.bind(&mut params, param, Type::Any);
        }
        let rules = match &decl.body {
            ast::GameBody::Rules { rules, .. } => rules,
            ast::GameBody::Coins(turns) => return self.coins(turns, &params, id),
            ast::GameBody::Product(a, b) => {
                let factors = [a, b].map(|factor| {
                    let id = self.any_game(factor)?;
                    if self.program.game(id).coins.is_none() {
                        self.errors.push(CheckError::NotCoinTurning {
                            name: factor.name.clone(),
                            span: factor.span,
                        });
                        return None;
                    }
                    Some(id)
                });
                if let [Some(a), Some(b)] = factors {
                    self.program.games[id.0 as usize].moves = Moves::Product(a, b);
                }
                return;
            }
            ast::GameBody::Alias(sum) => {
                self.max_slots = 0;
                let terms = self.sum(sum, &params);
                let game = &mut self.program.games[id.0 as usize];
                game.moves = Moves::Alias(terms);
                game.slots = self.max_slots.max(params.vars.len());
                return;
            }
            ast::GameBody::Code(code) => {
                let lowered = match code {
                    ast::Code::TakeBreak {
                        digits,
                        hexadecimal,
                        span,
                    } => code::take_break(digits, *hexadecimal, *span),
                    ast::Code::Subtraction { all_but, set, .. } => code::subtraction(set, *all_but),
                };
                match lowered {
                    Ok(code) => self.program.games[id.0 as usize].moves = Moves::Code(code),
                    Err(malformed) => self.errors.push(malformed.into()),
                }
                return;
            }
        };
        if self.program.game(id).splits.is_some() {
            self.errors.extend(splitting::check(decl, rules));
        }
        self.max_slots = params.vars.len();
        let rules: Vec<Rule> = rules
            .iter()
            .flat_map(|rule| {
                let mut scope = params.clone();
                let bindings = self.bindings(&rule.bindings, &mut scope);
                let guard = rule
                    .guard
                    .as_ref()
                    .map(|guard| self.condition(guard, &scope));
                let target = self.sum(&rule.target, &scope);
                // A target that chooses (`min(c, b - k)`) splits the rule
                // where the choice changes, and a guard that leaves out a
                // few values of the binding splits it around them.
                let mut rules = Vec::new();
                for (target, conjuncts) in crate::program::bounds::choose(&target, &bindings) {
                    let guard = conjuncts
                        .into_iter()
                        .fold(guard.clone(), |guard, conjunct| {
                            Some(match guard {
                                Some(guard) => crate::program::bounds::and(guard, conjunct),
                                None => conjunct,
                            })
                        });
                    for guard in crate::program::bounds::split(&bindings, guard) {
                        rules.push(Rule::new(
                            target.clone(),
                            bindings.clone(),
                            guard,
                            rule.span,
                            params.vars.len(),
                        ));
                    }
                }
                rules
            })
            .collect();
        let slots = self.max_slots;
        let game = &mut self.program.games[id.0 as usize];
        game.solves_as_box = solves_as_box(&rules, id, game.params.len());
        game.moves = Moves::Rules(rules);
        game.slots = slots;
    }

    fn query(&mut self, query: &ast::Query) -> Query {
        self.max_slots = 0;
        for binding in &query.bindings {
            if let ast::Domain::Subsets(set, _) | ast::Domain::Under(set) = &binding.domain {
                self.errors.push(CheckError::TypeMismatch {
                    expected: "integers",
                    found: "sets or lists",
                    span: set.span,
                    help: "a query's table has a row per integer: `subsets` and `under` are domains of rules and comprehensions",
                });
            }
        }
        let mut scope = Scope::default();
        let bindings = self.bindings(&query.bindings, &mut scope);
        let guard = query
            .guard
            .as_ref()
            .map(|guard| self.condition(guard, &scope));
        let target = match &query.target {
            ast::Target::Position(sum) => Target::Position(self.sum(sum, &scope)),
            ast::Target::Nimber(expr) => Target::Nimber(self.int(&in_nimbers(expr), &scope)),
            ast::Target::Positions(a, b) => {
                Target::Positions(self.sum(a, &scope), self.sum(b, &scope))
            }
            ast::Target::Game(game) if query.kind == QueryKind::Plot => {
                let id = self.any_game(game);
                if let Some(id) = id {
                    let arity = self.program.game(id).params.len();
                    if !(1..=2).contains(&arity) || arity != query.bindings.len() {
                        self.errors.push(CheckError::PlotArity {
                            name: game.name.clone(),
                            arity,
                            bindings: query.bindings.len(),
                            span: query.target.span(),
                        });
                    }
                }
                Target::Game(id.unwrap_or(GameId(0)))
            }
            ast::Target::Game(game) => {
                let id = self.any_game(game);
                if let Some(id) = id
                    && self.program.game(id).params.len() != 1
                {
                    self.errors.push(CheckError::NotOneParameter {
                        name: game.name.clone(),
                        params: self.program.game(id).params.len(),
                        query: "`period`",
                        span: game.span,
                    });
                }
                Target::Game(id.unwrap_or(GameId(0)))
            }
            ast::Target::Games(a, b) => {
                let (first, second) = (self.any_game(a), self.any_game(b));
                if let (Some(first), Some(second)) = (first, second) {
                    let arity = self.program.game(first).params.len();
                    if self.program.game(second).params.len() != arity {
                        let declared = self.program.names[&b.name].span;
                        self.errors.push(arity_error(
                            &b.name,
                            arity,
                            self.program.game(second).params.len(),
                            b.span,
                            Some(declared),
                        ));
                    } else if arity != query.bindings.len() {
                        self.errors.push(CheckError::DiffArity {
                            a: a.name.clone(),
                            arity,
                            bindings: query.bindings.len(),
                            were: if query.bindings.len() == 1 {
                                "was"
                            } else {
                                "were"
                            },
                            span: query.target.span(),
                        });
                    }
                }
                Target::Games(first.unwrap_or(GameId(0)), second.unwrap_or(GameId(0)))
            }
        };
        let play = match query.misere {
            None => Play::Normal,
            Some(span) => {
                if !query.kind.has_misere() {
                    self.errors.push(CheckError::NoMisere {
                        query: query.kind.keyword(),
                        span,
                    });
                }
                Play::Misere
            }
        };
        Query {
            kind: query.kind,
            play,
            to: query.to.clone(),
            target,
            bindings,
            guard,
            names: scope.vars.iter().map(|var| var.name.clone()).collect(),
            slots: self.max_slots,
            span: query.span,
            target_span: query.target.span(),
        }
    }

    /// A game named alone, as `period` and `diff` name them.
    fn any_game(&mut self, name: &ast::Ident) -> Option<GameId> {
        let Some(declaration) = self.program.names.get(&name.name).copied() else {
            let help = self
                .suggest(&name.name, |kind| matches!(kind, DeclarationKind::Game(_)))
                .unwrap_or_else(|| format!("declare it with `game {}(…) {{ move … }}`", name.name));
            self.errors.push(CheckError::UnknownGame {
                name: name.name.clone(),
                span: name.span,
                help,
            });
            return None;
        };
        match declaration.kind {
            DeclarationKind::Game(id) => Some(id),
            _ => {
                self.wrong_kind(name, declaration, "a game");
                None
            }
        }
    }

    /// A coin-turning game's turns: each becomes a rule whose target is the
    /// sum of the game at each coin turned (a position of heads is the sum
    /// of its coins), and is kept as a turn for products.
    fn coins(&mut self, turns: &[ast::Turn], params: &Scope, id: GameId) {
        self.max_slots = params.vars.len();
        let (mut rules, mut kept) = (Vec::new(), Vec::new());
        for turn in turns {
            let mut scope = params.clone();
            let bindings = self.bindings(&turn.bindings, &mut scope);
            let guard = turn
                .guard
                .as_ref()
                .map(|guard| self.condition(guard, &scope));
            let span = turn.set.span;
            let set = Expr {
                kind: ExprKind::Turned(Box::new(
                    self.typed(&turn.set, &scope, Type::Set).compiled(),
                )),
                span,
            };
            // The coin turned, in a slot no name reaches.
            let name = ast::Ident {
                name: " coin".into(),
                span,
            };
            let coin = self.bind(&mut scope, &name, Type::Int);
            let over = Over {
                terms: vec![Term::Game {
                    game: id,
                    args: vec![Expr {
                        kind: ExprKind::Slot(coin),
                        span,
                    }],
                    span,
                }],
                bindings: vec![Binding {
                    slot: coin,
                    domain: Domain::Each(set.clone()),
                    stop: None,
                    span,
                }],
                guard: None,
                span: turn.span,
            };
            let target = vec![Term::Over(Box::new(over))];
            rules.push(Rule::new(
                target,
                bindings.clone(),
                guard.clone(),
                turn.span,
                1,
            ));
            kept.push(Turn {
                set,
                bindings,
                guard,
                span: turn.span,
            });
        }
        let slots = self.max_slots;
        let game = &mut self.program.games[id.0 as usize];
        (game.moves, game.coins, game.slots) = (Moves::Rules(rules), Some(kept), slots);
    }

    /// Lowers bindings left to right: each domain sees the variables before it.
    fn bindings(&mut self, bindings: &[ast::Binding], scope: &mut Scope) -> Vec<Binding> {
        bindings
            .iter()
            .map(|binding| {
                let mut ty = Type::Int;
                let domain = match &binding.domain {
                    ast::Domain::Each(collection) => {
                        let (lowered, found) = self.expr(collection, scope);
                        if !found.is_collection() {
                            self.errors.push(CheckError::TypeMismatch {
                                expected: "a range, a set, a list or a region",
                                found: found.noun(),
                                span: collection.span,
                                help: "a variable ranges over `a..b`, `a..=b`, a set `{…}`, a list `[…]`, a region, `divisors(n)`, `subsets(s, k)` or `under(l)`",
                            });
                        }
                        Domain::Each(lowered.compiled())
                    }
                    ast::Domain::Subsets(set, size) => {
                        ty = Type::Set;
                        Domain::Subsets(
                            self.typed(set, scope, Type::Set).compiled(),
                            size.as_ref().map(|size| self.int(size, scope)),
                        )
                    }
                    ast::Domain::Under(list) => {
                        ty = Type::List;
                        Domain::Under(self.typed(list, scope, Type::List).compiled())
                    }
                    ast::Domain::Range {
                        start,
                        end: Some(end),
                        inclusive,
                    } => Domain::Range {
                        start: self.int(start, scope),
                        end: self.int(end, scope),
                        inclusive: *inclusive,
                    },
                    // An open range runs as far as its `while` lets it.
                    ast::Domain::Range {
                        start, end: None, ..
                    } => {
                        if binding.stop.is_none() {
                            self.errors.push(CheckError::OpenRange {
                                span: binding.var.span,
                            });
                        }
                        Domain::Range {
                            start: self.int(start, scope),
                            end: Expr {
                                kind: ExprKind::Const(i64::MAX),
                                span: binding.var.span,
                            },
                            inclusive: true,
                        }
                    }
                    ast::Domain::Divisors(n) => Domain::Divisors(self.int(n, scope)),
                    ast::Domain::Set(elements) => Domain::Set(
                        elements
                            .iter()
                            .map(|element| self.int(element, scope))
                            .collect(),
                    ),
                };
                let slot = self.bind(scope, &binding.var, ty);
                let stop = binding
                    .stop
                    .as_ref()
                    .map(|stop| self.condition(stop, scope));
                Binding {
                    slot,
                    domain,
                    stop,
                    span: binding.var.span,
                }
            })
            .collect()
    }

    /// Adds a variable to the scope and returns its slot.
    fn bind(&mut self, scope: &mut Scope, var: &ast::Ident, ty: Type) -> usize {
        if let Some(slot) = scope.lookup(&var.name) {
            self.errors.push(CheckError::DuplicateVariable {
                name: var.name.clone(),
                span: var.span,
                first: scope.vars[slot].span,
            });
        }
        scope.vars.push(var.clone());
        scope.types.push(ty);
        self.max_slots = self.max_slots.max(scope.vars.len());
        scope.vars.len() - 1
    }

    /// Lowers a sum to its flat list of terms: groups and `let`s are inlined.
    fn sum(&mut self, sum: &ast::Sum, scope: &Scope) -> Vec<Term> {
        let mut terms = Vec::new();
        for term in &sum.terms {
            self.term(term, scope, &mut terms);
        }
        let components = self.program.components(&terms);
        if components > MAX_SUM_COMPONENTS {
            self.errors.push(CheckError::SumTooLarge {
                components: match components {
                    u128::MAX => "more than 2^128".to_owned(),
                    count => count.to_string(),
                },
                limit: MAX_SUM_COMPONENTS,
                span: sum.span,
            });
            return Vec::new();
        }
        terms
    }

    fn term(&mut self, term: &ast::Term, scope: &Scope, terms: &mut Vec<Term>) {
        match term {
            ast::Term::Game { name, args, span } => {
                let args: Vec<Expr> = args
                    .iter()
                    .map(|arg| self.typed(arg, scope, Type::Any).compiled())
                    .collect();
                if let Some(game) = self.game_named(name, args.len(), *span) {
                    terms.push(Term::Game {
                        game,
                        args,
                        span: *span,
                    });
                }
            }
            ast::Term::Heap { size, span } => terms.push(Term::Heap {
                size: self.int(size, scope),
                span: *span,
            }),
            ast::Term::Node { graph, node } => {
                if let Some(term) = self.node_ref(graph, node) {
                    terms.push(term);
                }
            }
            ast::Term::NodeAt { graph, index, span } => {
                let index = self.int(index, scope);
                if let Some(graph) = self.graph_named(graph) {
                    terms.push(Term::NodeAt {
                        graph,
                        index,
                        span: *span,
                    });
                }
            }
            ast::Term::Name(name) => self.name_ref(name, terms),
            ast::Term::Group(sum) => {
                for term in &sum.terms {
                    self.term(term, scope, terms);
                }
            }
            ast::Term::Over {
                sum,
                bindings,
                guard,
                span,
            } => {
                let mut inner = scope.clone();
                let bindings = self.bindings(bindings, &mut inner);
                let guard = guard.as_ref().map(|guard| self.condition(guard, &inner));
                let mut over = Vec::new();
                for term in &sum.terms {
                    self.term(term, &inner, &mut over);
                }
                terms.push(Term::Over(Box::new(Over {
                    terms: over,
                    bindings,
                    guard,
                    span: *span,
                })));
            }
        }
    }

    /// Resolves `Name(args)` to a game taking that many arguments.
    fn game_named(&mut self, name: &ast::Ident, found: usize, span: SourceSpan) -> Option<GameId> {
        let id = self.any_game(name)?;
        let expected = self.program.game(id).params.len();
        if expected != found {
            let declared = self.program.names[&name.name].span;
            self.errors.push(arity_error(
                &name.name,
                expected,
                found,
                span,
                Some(declared),
            ));
            return None;
        }
        Some(id)
    }

    fn node_ref(&mut self, graph: &ast::Ident, node: &ast::Ident) -> Option<Term> {
        let id = self.graph_named(graph)?;
        let nodes = &self.program.graph(id).nodes;
        match nodes.get_index_of(&node.name) {
            Some(index) => Some(Term::Node {
                graph: id,
                node: NodeId(index as u32),
            }),
            None => {
                let help = match closest(&node.name, nodes.iter().map(String::as_str)) {
                    Some(similar) => format!("did you mean `{}.{similar}`?", graph.name),
                    None => format!(
                        "the nodes of `{}` are {}",
                        graph.name,
                        nodes
                            .iter()
                            .map(|node| format!("`{node}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                self.errors.push(CheckError::UnknownNode {
                    graph: graph.name.clone(),
                    node: node.name.clone(),
                    span: node.span,
                    help,
                });
                None
            }
        }
    }

    /// The graph a name stands for; an error if it stands for none.
    fn graph_named(&mut self, graph: &ast::Ident) -> Option<GraphId> {
        let Some(declaration) = self.program.names.get(&graph.name).copied() else {
            let help = self
                .suggest(&graph.name, |kind| {
                    matches!(kind, DeclarationKind::Graph(_))
                })
                .unwrap_or_else(|| format!("declare it with `graph {} {{ a -> b }}`", graph.name));
            self.errors.push(CheckError::UnknownGraph {
                name: graph.name.clone(),
                span: graph.span,
                help,
            });
            return None;
        };
        let DeclarationKind::Graph(id) = declaration.kind else {
            self.wrong_kind(graph, declaration, "a graph");
            return None;
        };
        Some(id)
    }

    /// A bare name: a `let` (inlined) or a game without parameters.
    fn name_ref(&mut self, name: &ast::Ident, terms: &mut Vec<Term>) {
        let Some(declaration) = self.program.names.get(&name.name).copied() else {
            let help = self
                .suggest_bare(&name.name, |kind| {
                    !matches!(kind, DeclarationKind::Graph(_))
                })
                .unwrap_or_else(|| format!("declare it with `let {} = …`", name.name));
            self.errors.push(CheckError::UnknownName {
                name: name.name.clone(),
                span: name.span,
                help,
            });
            return;
        };
        match declaration.kind {
            DeclarationKind::Let(id) if self.unlowered_lets.contains(&id.0) => {
                self.errors.push(CheckError::LetBeforeDeclaration {
                    name: name.name.clone(),
                    span: name.span,
                    declared: declaration.span,
                });
            }
            DeclarationKind::Let(id) => terms.push(Term::Let {
                id,
                span: name.span,
            }),
            DeclarationKind::Game(_) => {
                if let Some(game) = self.game_named(name, 0, name.span) {
                    terms.push(Term::Game {
                        game,
                        args: Vec::new(),
                        span: name.span,
                    });
                }
            }
            DeclarationKind::Graph(_) | DeclarationKind::Constant(_) => {
                self.wrong_kind(name, declaration, "a position")
            }
        }
    }

    fn wrong_kind(&mut self, name: &ast::Ident, declaration: Declaration, wanted: &'static str) {
        let help = match declaration.kind {
            DeclarationKind::Game(_) => {
                format!("a position of a game is written `{}(…)`", name.name)
            }
            DeclarationKind::Graph(_) => format!(
                "a position of a graph is one of its nodes: `{}.node`",
                name.name
            ),
            DeclarationKind::Let(_) => {
                format!("`{}` is a position already: write it alone", name.name)
            }
            DeclarationKind::Constant(_) => format!(
                "`{}` is a value: use it in an argument, `G({})`",
                name.name, name.name
            ),
        };
        self.errors.push(CheckError::WrongKind {
            name: name.name.clone(),
            actual: declaration.kind.noun(),
            wanted,
            span: name.span,
            declared: declaration.span,
            help,
        });
    }

    /// "did you mean `X`?" for the closest declared name of a fitting kind.
    fn suggest(&self, name: &str, fits: impl Fn(DeclarationKind) -> bool) -> Option<String> {
        self.closest_name(name, fits)
            .map(|similar| format!("did you mean `{similar}`?"))
    }

    /// A suggestion for a bare name: a game is shown with its arguments.
    fn suggest_bare(&self, name: &str, fits: impl Fn(DeclarationKind) -> bool) -> Option<String> {
        let similar = self.closest_name(name, fits)?;
        let arity = match self.program.names[similar].kind {
            DeclarationKind::Game(game) => self.program.game(game).params.len(),
            DeclarationKind::Graph(_) | DeclarationKind::Let(_) | DeclarationKind::Constant(_) => 0,
        };
        Some(match arity {
            0 => format!("did you mean `{similar}`?"),
            1 => format!("did you mean `{similar}(…)`? the game `{similar}` takes 1 argument"),
            n => format!("did you mean `{similar}(…)`? the game `{similar}` takes {n} arguments"),
        })
    }

    fn closest_name(&self, name: &str, fits: impl Fn(DeclarationKind) -> bool) -> Option<&str> {
        let candidates = self
            .program
            .names
            .iter()
            .filter(|(_, declaration)| fits(declaration.kind))
            .map(|(candidate, _)| candidate.as_str());
        closest(name, candidates)
    }

    fn int(&mut self, expr: &ast::Expr, scope: &Scope) -> Expr {
        self.typed(expr, scope, Type::Int).compiled()
    }

    fn condition(&mut self, expr: &ast::Expr, scope: &Scope) -> Expr {
        self.typed(expr, scope, Type::Bool).compiled()
    }

    fn typed(&mut self, expr: &ast::Expr, scope: &Scope, expected: Type) -> Expr {
        let (lowered, found) = self.expr(expr, scope);
        if !found.fits(expected) {
            self.errors.push(CheckError::TypeMismatch {
                expected: expected.noun(),
                found: found.noun(),
                span: expr.span,
                help: match expected {
                    Type::Int => "heap sizes, range bounds, indices and arithmetic take integers",
                    Type::Bool => "a condition compares values, e.g. `k <= n` or `v in s`, or joins conditions with `and`, `or`, `not`",
                    Type::Any | Type::Error => "an argument is an integer, a set, a list or a region; a condition is none of these",
                    Type::Set => "write a set as `{1, 2}` or `{e for x in …}`",
                    Type::List => "write a list as `[1, 2]` or `[e for x in …]`",
                    Type::Region => "a region is a board such as `Grid(3, 4)`, `Path(n)` or a graph, less some nodes",
                },
            });
        }
        lowered
    }

    /// Lowers the bindings and guard of a comprehension or a sum over
    /// bindings, in a scope of their own.
    fn comprehension(
        &mut self,
        list: bool,
        element: &ast::Expr,
        bindings: &[ast::Binding],
        guard: Option<&ast::Expr>,
        scope: &Scope,
    ) -> ExprKind {
        let mut inner = scope.clone();
        let bindings = self.bindings(bindings, &mut inner);
        let guard = guard.map(|guard| self.condition(guard, &inner));
        let element = self.int(element, &inner);
        ExprKind::Comprehension(Box::new(Comprehension {
            list,
            element,
            bindings,
            guard,
        }))
    }

    fn expr(&mut self, expr: &ast::Expr, scope: &Scope) -> (Expr, Type) {
        let (kind, ty) = match &expr.kind {
            ast::ExprKind::Int(value) => (ExprKind::Const(*value), Type::Int),
            ast::ExprKind::Bool(value) => (ExprKind::Const(*value as i64), Type::Bool),
            ast::ExprKind::Var(var) => self.var(var, scope),
            ast::ExprKind::Call { function, args } => self.call(function, args, expr.span, scope),
            ast::ExprKind::If(condition, then, otherwise) => {
                let condition = self.condition(condition, scope);
                let (then, a) = self.expr(then, scope);
                let (otherwise, b) = self.expr(otherwise, scope);
                let ty = match (a, b) {
                    (a, b) if a == b => a,
                    (Type::Any, other) | (other, Type::Any) if other != Type::Bool => Type::Any,
                    _ => {
                        self.errors.push(CheckError::TypeMismatch {
                            expected: a.noun(),
                            found: b.noun(),
                            span: expr.span,
                            help: "both branches of `if … then … else …` give the same kind of value",
                        });
                        a
                    }
                };
                (
                    ExprKind::If(Box::new([condition, then.compiled(), otherwise.compiled()])),
                    ty,
                )
            }
            ast::ExprKind::Elements { list, elements } => {
                let elements = elements.iter().map(|e| self.int(e, scope)).collect();
                match list {
                    true => (ExprKind::ListOf(elements), Type::List),
                    false => (ExprKind::SetOf(elements), Type::Set),
                }
            }
            ast::ExprKind::Comprehension {
                list,
                element,
                bindings,
                guard,
            } => (
                self.comprehension(*list, element, bindings, guard.as_deref(), scope),
                if *list { Type::List } else { Type::Set },
            ),
            ast::ExprKind::Index(list, index) => (
                ExprKind::Index(
                    Box::new(self.typed(list, scope, Type::List).compiled()),
                    Box::new(self.int(index, scope)),
                ),
                Type::Int,
            ),
            ast::ExprKind::Node { graph, node } => match self.node_ref(graph, node) {
                Some(Term::Node { node, .. }) => (ExprKind::Const(i64::from(node.0)), Type::Int),
                _ => (ExprKind::Const(0), Type::Int),
            },
            ast::ExprKind::Unary(ast::UnaryOp::Neg, operand) => {
                (ExprKind::Neg(Box::new(self.int(operand, scope))), Type::Int)
            }
            ast::ExprKind::Unary(ast::UnaryOp::BitNot, operand) => (
                ExprKind::BitNot(Box::new(self.int(operand, scope))),
                Type::Int,
            ),
            ast::ExprKind::Unary(ast::UnaryOp::Not, operand) => (
                ExprKind::Not(Box::new(self.condition(operand, scope))),
                Type::Bool,
            ),
            ast::ExprKind::Binary(op, lhs, rhs) => self.binary(*op, lhs, rhs, scope),
        };
        (
            Expr {
                kind,
                span: expr.span,
            },
            ty,
        )
    }

    /// A binary operation: on integers, or on sets, lists and regions
    /// (`+` and `|` join, `-` removes, `&` keeps the common elements, `^`
    /// the uncommon, `in` asks for membership).
    fn binary(
        &mut self,
        op: BinaryOp,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        scope: &Scope,
    ) -> (ExprKind, Type) {
        let kind = |lhs: Expr, rhs: Expr| ExprKind::Binary(op, Box::new(lhs), Box::new(rhs));
        let collections = matches!(
            op,
            BinaryOp::Add
                | BinaryOp::Sub
                | BinaryOp::BitAnd
                | BinaryOp::BitOr
                | BinaryOp::BitXor
                | BinaryOp::Eq
                | BinaryOp::Ne
        );
        if op == BinaryOp::In {
            let element = self.int(lhs, scope);
            let (collection, found) = self.expr(rhs, scope);
            if !found.is_collection() {
                self.errors.push(CheckError::TypeMismatch {
                    expected: "a set, a list or a region",
                    found: found.noun(),
                    span: rhs.span,
                    help: "`x in s` asks whether s holds x",
                });
            }
            return (kind(element, collection.compiled()), Type::Bool);
        }
        let (a, ta) = self.expr(lhs, scope);
        let (b, tb) = self.expr(rhs, scope);
        let b = b.compiled();
        // A sum that goes on (`… + k` after `… - j`) is compiled once, whole,
        // where it ends: compiled at every link, a sum of n terms made n
        // chains of up to n steps each (10,001 terms: 1.2 GB).
        let goes_on = matches!(op, BinaryOp::Add | BinaryOp::Sub)
            && matches!(b.kind, ExprKind::Const(_) | ExprKind::Slot(_))
            && matches!(a.kind, ExprKind::Binary(BinaryOp::Add | BinaryOp::Sub, ..));
        let a = if goes_on { a } else { a.compiled() };
        let result = |ty: Type| match op {
            BinaryOp::Eq | BinaryOp::Ne => Type::Bool,
            _ => ty,
        };
        let logic = matches!(op, BinaryOp::And | BinaryOp::Or);
        let ty = match (ta, tb) {
            (Type::Bool, Type::Bool) if logic => Type::Bool,
            _ if logic => Type::Error,
            (a, b) if !collections => match a.fits(Type::Int) && b.fits(Type::Int) {
                true => operator_types(op).1,
                false => Type::Error,
            },
            (Type::Int, Type::Int | Type::Any) | (Type::Any, Type::Int) => {
                result(operator_types(op).1)
            }
            (Type::Any, Type::Any) => result(Type::Any),
            (Type::Region, Type::Any | Type::Set | Type::Region) => result(Type::Region),
            (Type::Any, Type::Set | Type::Region | Type::List)
            | (Type::Set | Type::List, Type::Any) => result(Type::Any),
            (Type::Set, Type::Set | Type::Region) => result(Type::Set),
            (Type::List, Type::List)
                if matches!(op, BinaryOp::Add | BinaryOp::Eq | BinaryOp::Ne) =>
            {
                result(Type::List)
            }
            _ => Type::Error,
        };
        if ty != Type::Error {
            return (kind(a, b), ty);
        }
        let (operands, result) = operator_types(op);
        let lhs_fits = (ta.fits(operands) && ta != Type::Any)
            || (collections && matches!(ta, Type::Set | Type::List | Type::Region));
        let (found, span) = match lhs_fits {
            true => (tb, rhs.span),
            false => (ta, lhs.span),
        };
        self.errors.push(CheckError::TypeMismatch {
            expected: match (op, ta) {
                (_, Type::Set | Type::Region) if collections => "a set",
                (_, Type::List) if collections => "a list",
                _ => operands.noun(),
            },
            found: found.noun(),
            span,
            help: match op {
                BinaryOp::And | BinaryOp::Or => "`and` and `or` join conditions, e.g. `k <= n and k % 2 == 0`",
                _ if collections => "`+`, `-`, `&`, `|`, `^` work on integers, or on two sets (a region and a set); `+` joins two lists",
                _ => "arithmetic and `<`, `<=`, `>`, `>=` take integers",
            },
        });
        (kind(a, b), result)
    }

    fn var(&mut self, var: &ast::Ident, scope: &Scope) -> (ExprKind, Type) {
        match scope.lookup(&var.name) {
            Some(slot) => (ExprKind::Slot(slot), scope.types[slot]),
            None => match self
                .program
                .names
                .get(&var.name)
                .map(|declared| declared.kind)
            {
                Some(DeclarationKind::Constant(id)) => {
                    let value = self.program.constant(id).value.clone();
                    let ty = constant_type(&value);
                    (value.kind, ty)
                }
                Some(DeclarationKind::Graph(id)) => {
                    let board = self.program.graph(id).board.clone();
                    (
                        ExprKind::Value(crate::values::Value::Region(board.whole())),
                        Type::Region,
                    )
                }
                _ => (self.unknown_var(var, scope), Type::Int),
            },
        }
    }

    fn unknown_var(&mut self, var: &ast::Ident, scope: &Scope) -> ExprKind {
        match scope.lookup(&var.name) {
            Some(slot) => ExprKind::Slot(slot),
            None => {
                let names = scope.vars.iter().map(|var| var.name.as_str());
                let help = match closest(&var.name, names) {
                    Some(similar) => format!("did you mean `{similar}`?"),
                    None if scope.vars.is_empty() => {
                        format!(
                            "bind it with `for {} in …` after the query or rule",
                            var.name
                        )
                    }
                    None => format!(
                        "the variables here are {}",
                        scope
                            .vars
                            .iter()
                            .map(|var| format!("`{}`", var.name))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                self.errors.push(CheckError::UnknownVariable {
                    name: var.name.clone(),
                    span: var.span,
                    help,
                });
                ExprKind::Const(0)
            }
        }
    }

    fn call(
        &mut self,
        function: &ast::Ident,
        args: &[ast::Expr],
        span: SourceSpan,
        scope: &Scope,
    ) -> (ExprKind, Type) {
        if let Some((builtin, arity)) = builtin(&function.name) {
            return self.builtin(function, builtin, arity, args, span, scope);
        }
        // `min(s)` and `max(s)`: the least and greatest element.
        if let ("min" | "max", [collection]) = (function.name.as_str(), args) {
            let (lowered, found) = self.expr(collection, scope);
            if found.is_collection() && found != Type::Int {
                let lowered = vec![lowered.compiled()];
                return match function.name.as_str() {
                    "min" => (ExprKind::Min(lowered), Type::Int),
                    _ => (ExprKind::Max(lowered), Type::Int),
                };
            }
        }
        (self.integer_call(function, args, span, scope), Type::Int)
    }

    /// A call of a function of sets, lists and boards.
    fn builtin(
        &mut self,
        function: &ast::Ident,
        builtin: Builtin,
        arity: usize,
        args: &[ast::Expr],
        span: SourceSpan,
        scope: &Scope,
    ) -> (ExprKind, Type) {
        if args.len() != arity {
            let mut error = arity_error(&function.name, arity, args.len(), span, None);
            if let CheckError::Arity { help, .. } = &mut error {
                *help = format!("`{}` is built in: {}", function.name, COLLECTION_BUILTINS);
            }
            self.errors.push(error);
            return (ExprKind::Const(0), Type::Any);
        }
        let (inputs, output): (&[Type], Type) = match builtin {
            Builtin::Len => (&[Type::Any], Type::Int),
            Builtin::Sum => (&[Type::Any], Type::Int),
            Builtin::Sort => (&[Type::Any], Type::List),
            Builtin::Replace => (&[Type::List, Type::Int, Type::Int], Type::List),
            Builtin::Nodes => (&[Type::Region], Type::Set),
            Builtin::Neighbours | Builtin::Closed => (&[Type::Region, Type::Int], Type::Set),
            Builtin::Grounded => (&[Type::Region, Type::Set], Type::Region),
            Builtin::Grid => (&[Type::Int, Type::Int], Type::Region),
            Builtin::Path | Builtin::Cycle => (&[Type::Int], Type::Region),
            Builtin::Edges => (&[Type::Region], Type::Region),
        };
        let lowered = args
            .iter()
            .zip(inputs)
            .map(|(arg, ty)| self.typed(arg, scope, *ty).compiled())
            .collect();
        (ExprKind::Call(builtin, lowered), output)
    }

    fn integer_call(
        &mut self,
        function: &ast::Ident,
        args: &[ast::Expr],
        span: SourceSpan,
        scope: &Scope,
    ) -> ExprKind {
        let mut lowered: Vec<Expr> = args.iter().map(|arg| self.int(arg, scope)).collect();
        let (kind, at_least, at_most) = match function.name.as_str() {
            "min" => (ExprKind::Min as fn(Vec<Expr>) -> ExprKind, 1, usize::MAX),
            "max" => (ExprKind::Max as fn(Vec<Expr>) -> ExprKind, 1, usize::MAX),
            "abs" => (abs as fn(Vec<Expr>) -> ExprKind, 1, 1),
            "isqrt" => (isqrt as fn(Vec<Expr>) -> ExprKind, 1, 1),
            "popcount" => (popcount as fn(Vec<Expr>) -> ExprKind, 1, 1),
            "nim_inv" => (nim_inv as fn(Vec<Expr>) -> ExprKind, 1, 1),
            "nim_mul" => (nim_mul as fn(Vec<Expr>) -> ExprKind, 2, 2),
            _ => {
                self.errors.push(CheckError::UnknownFunction {
                    name: function.name.clone(),
                    span: function.span,
                });
                return ExprKind::Const(0);
            }
        };
        if !(at_least..=at_most).contains(&lowered.len()) {
            let expected = match (at_least, at_most) {
                (1, 1) => "1 argument".to_owned(),
                (least, most) if least == most => format!("{least} arguments"),
                _ => format!("at least {at_least} argument"),
            };
            self.errors.push(CheckError::Arity {
                name: function.name.clone(),
                expected,
                found: args.len(),
                were: if args.len() == 1 { "was" } else { "were" },
                span,
                declared: None,
                help: format!("`{}` is built in: {}", function.name, BUILTINS),
            });
            lowered.truncate(at_most.min(lowered.len()));
            if lowered.len() < at_least {
                return ExprKind::Const(0);
            }
        }
        kind(lowered)
    }
}

const BUILTINS: &str = "`min(a, b, …)`, `max(a, b, …)`, `abs(a)`, `isqrt(a)`, `popcount(a)`, `nim_mul(a, b)`, `nim_inv(a)`";

const COLLECTION_BUILTINS: &str = "`len(x)`, `sum(l)`, `sort(l)`, `replace(l, i, v)`, `nodes(r)`, `neighbours(r, v)`, `closed(r, v)`, `grounded(r, g)`, `Grid(r, c)`, `Path(n)`, `Cycle(n)`, `Edges(G)`";

/// A built-in function of sets, lists and boards, and its arity.
fn builtin(name: &str) -> Option<(Builtin, usize)> {
    Builtin::ALL
        .iter()
        .find(|(builtin, ..)| *builtin == name)
        .map(|&(_, builtin, arity)| (builtin, arity))
}

/// The type of a `let`'s value, worked out when it was declared.
fn constant_type(value: &Expr) -> Type {
    match &value.kind {
        ExprKind::Value(crate::values::Value::Region(_)) => Type::Region,
        ExprKind::Value(crate::values::Value::Set(_)) => Type::Set,
        ExprKind::Value(crate::values::Value::List(_)) => Type::List,
        _ => Type::Int,
    }
}

fn abs(mut args: Vec<Expr>) -> ExprKind {
    ExprKind::Abs(Box::new(args.remove(0)))
}

fn isqrt(mut args: Vec<Expr>) -> ExprKind {
    ExprKind::Isqrt(Box::new(args.remove(0)))
}

fn popcount(mut args: Vec<Expr>) -> ExprKind {
    ExprKind::Popcount(Box::new(args.remove(0)))
}

fn nim_inv(mut args: Vec<Expr>) -> ExprKind {
    ExprKind::NimInv(Box::new(args.remove(0)))
}

fn nim_mul(mut args: Vec<Expr>) -> ExprKind {
    let (b, a) = (args.remove(1), args.remove(0));
    ExprKind::Binary(BinaryOp::NimMul, Box::new(a), Box::new(b))
}

/// An expression of a `nim` query with its operators read in nimbers:
/// `+` and `-` as nim-addition (XOR), `*` as nim-multiplication, `/` as
/// division by the nim-inverse, `**` as a nim-power; a nimber is its own
/// negative. Arguments of functions, indices and conditions keep their
/// integer meaning.
fn in_nimbers(expr: &ast::Expr) -> ast::Expr {
    use ast::ExprKind as Kind;
    let kind = match &expr.kind {
        Kind::Binary(op, lhs, rhs) => {
            let op = match op {
                BinaryOp::Add | BinaryOp::Sub => BinaryOp::BitXor,
                BinaryOp::Mul => BinaryOp::NimMul,
                BinaryOp::Div => BinaryOp::NimDiv,
                BinaryOp::Pow => {
                    // The exponent counts factors: an integer.
                    let base = in_nimbers(lhs);
                    return ast::Expr {
                        kind: Kind::Binary(BinaryOp::NimPow, Box::new(base), rhs.clone()),
                        span: expr.span,
                        depth: expr.depth,
                    };
                }
                other => *other,
            };
            Kind::Binary(op, Box::new(in_nimbers(lhs)), Box::new(in_nimbers(rhs)))
        }
        Kind::Unary(ast::UnaryOp::Neg, operand) => return in_nimbers(operand),
        Kind::If(condition, then, otherwise) => Kind::If(
            condition.clone(),
            Box::new(in_nimbers(then)),
            Box::new(in_nimbers(otherwise)),
        ),
        other => other.clone(),
    };
    ast::Expr {
        kind,
        span: expr.span,
        depth: expr.depth,
    }
}

/// The operand and result types of a binary operator.
fn operator_types(op: BinaryOp) -> (Type, Type) {
    match op {
        BinaryOp::Add
        | BinaryOp::Sub
        | BinaryOp::Mul
        | BinaryOp::Pow
        | BinaryOp::Div
        | BinaryOp::Rem => (Type::Int, Type::Int),
        BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
            (Type::Int, Type::Bool)
        }
        BinaryOp::And | BinaryOp::Or => (Type::Bool, Type::Bool),
        BinaryOp::BitAnd
        | BinaryOp::BitOr
        | BinaryOp::BitXor
        | BinaryOp::Shl
        | BinaryOp::Shr
        | BinaryOp::NimMul
        | BinaryOp::NimDiv
        | BinaryOp::NimPow => (Type::Int, Type::Int),
        BinaryOp::In => (Type::Int, Type::Bool),
    }
}

fn arity_error(
    name: &str,
    expected: usize,
    found: usize,
    span: SourceSpan,
    declared: Option<SourceSpan>,
) -> CheckError {
    let expected_words = match expected {
        0 => "no arguments".to_owned(),
        1 => "1 argument".to_owned(),
        n => format!("{n} arguments"),
    };
    CheckError::Arity {
        name: name.to_owned(),
        help: format!("write `{name}` with {expected_words}"),
        expected: expected_words,
        found,
        were: if found == 1 { "was" } else { "were" },
        span,
        declared,
    }
}

fn node_id(graph: &mut Graph, name: &str) -> NodeId {
    let (index, added) = graph.nodes.insert_full(name.to_owned());
    if added {
        graph.moves.push(Vec::new());
    }
    NodeId(index as u32)
}

/// The candidate most like `name`, if any is close enough to be a typo: a
/// few edits away (transpositions count as one), or sharing a long prefix.
fn closest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let allowed = (name.chars().count() / 3).max(1);
    // A name cut short (`Kay` for `Kayles`) is as close as a slip of a key.
    let cut_short = |candidate: &str| {
        name.chars().count() >= 2 && candidate.to_lowercase().starts_with(&name.to_lowercase())
    };
    candidates
        .map(|candidate| {
            let distance = strsim::damerau_levenshtein(name, candidate);
            match cut_short(candidate) {
                true => (distance.min(allowed), candidate),
                false => (distance, candidate),
            }
        })
        .filter(|&(distance, candidate)| {
            distance <= allowed || strsim::jaro_winkler(name, candidate) > 0.9
        })
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, candidate)| candidate)
}
