//! Declarations lowered: games and their rules, graphs, `let` names and
//! values, and queries.

use super::expressions::{INTEGER_FUNCTIONS, builtin, builtin_as_game, in_nimbers};
use super::*;

impl Lowerer {
    /// Enters every declaration's name, so that games may refer to each
    /// other in any order; graphs are complete after this.
    pub(super) fn declare_all(
        &mut self,
        statements: &[&ast::Statement],
    ) -> Vec<Option<DeclarationKind>> {
        // A game may be declared below a `let` that names it.
        let games: HashSet<&str> = statements
            .iter()
            .filter_map(|statement| match statement {
                ast::Statement::Game(decl) => Some(decl.name.name.as_str()),
                _ => None,
            })
            .collect();
        statements
            .iter()
            .map(|statement| {
                let (name, kind) = match statement {
                    ast::Statement::Game(decl) => (&decl.name, self.declare_game(decl)),
                    ast::Statement::Graph(decl) => (&decl.name, self.declare_graph(decl)),
                    ast::Statement::Family(decl) => (&decl.name, self.declare_family(decl)),
                    ast::Statement::Let(decl) => match self.is_value(decl, &games) {
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

    pub(super) fn declare_game(&mut self, decl: &ast::GameDecl) -> DeclarationKind {
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
            takes_edges: false,
            shrinks: false,
            span: decl.span,
        });
        DeclarationKind::Game(id)
    }

    /// Whether a `let` names a value rather than a position: an expression
    /// that is no position, or a call of a built-in function (`Grid(3, 4)`,
    /// `abs(-3)`) or a name of a value (`let T = K`), which parse as
    /// positions. A game of the built-in's name, declared anywhere among
    /// `games`, is called instead.
    pub(super) fn is_value(&self, decl: &ast::LetDecl, games: &HashSet<&str>) -> bool {
        let sum = match &decl.value {
            ast::LetValue::Value(_) => return true,
            ast::LetValue::Position(sum) => sum,
        };
        let [term] = sum.terms.as_slice() else {
            return false;
        };
        match term {
            ast::Term::Game { name, .. } => match self.program.names.get(&name.name) {
                Some(declared) => matches!(declared.kind, DeclarationKind::Family(_)),
                None => {
                    let name = name.name.as_str();
                    (builtin(name).is_some() || INTEGER_FUNCTIONS.contains(&name))
                        && !games.contains(name)
                }
            },
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

    pub(super) fn declare_constant(&mut self, decl: &ast::LetDecl) -> DeclarationKind {
        let id = ConstId(self.program.constants.len() as u32);
        self.program.constants.push(Constant {
            name: decl.name.name.clone(),
            value: Expr {
                kind: ExprKind::Const(0),
                span: decl.span,
            },
            span: decl.span,
        });
        self.unlowered_constants.insert(id.0);
        DeclarationKind::Constant(id)
    }

    /// Lowers a `let` of a value; it may use the values declared before it.
    pub(super) fn constant(&mut self, decl: &ast::LetDecl, id: ConstId) {
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
                _ => {
                    self.unlowered_constants.remove(&id.0);
                    return;
                }
            },
        };
        self.max_slots = 0;
        let errors = self.errors.len();
        self.lowering = Some(decl.name.name.clone());
        let (value, ty) = self.expr(&expr, &Scope::default());
        self.lowering = None;
        // Read from here on, even if it failed: its errors say why.
        self.unlowered_constants.remove(&id.0);
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

    pub(super) fn declare_graph(&mut self, decl: &ast::GraphDecl) -> DeclarationKind {
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

    pub(super) fn declare_family(&mut self, decl: &ast::FamilyDecl) -> DeclarationKind {
        let id = FamilyId(self.program.families.len() as u32);
        let placeholder = Expr {
            kind: ExprKind::Const(0),
            span: decl.span,
        };
        self.program.families.push(std::sync::Arc::new(Family {
            name: decl.name.name.clone(),
            params: decl.params.iter().map(|param| param.name.clone()).collect(),
            start: placeholder.clone(),
            end: placeholder,
            inclusive: false,
            nodes_span: decl.nodes.span,
            edges: Vec::new(),
            slots: decl.params.len(),
            span: decl.span,
            built: Default::default(),
        }));
        self.unlowered_families.insert(id.0);
        DeclarationKind::Family(id)
    }

    /// Lowers a family's rules; its parameters are integers.
    pub(super) fn family_decl(&mut self, decl: &ast::FamilyDecl, id: FamilyId) {
        let mut params = Scope::default();
        for param in &decl.params {
            self.bind(&mut params, param, Type::Int);
        }
        self.in_family = true;
        self.max_slots = params.vars.len();
        let nodes = &decl.nodes;
        let (start, end) = (
            self.int(&nodes.start, &params),
            self.int(&nodes.end, &params),
        );
        let edges = decl
            .edges
            .iter()
            .map(|edge| {
                let mut scope = params.clone();
                let bindings = self.bindings(&edge.bindings, &mut scope);
                let guard = edge
                    .guard
                    .as_ref()
                    .map(|guard| self.condition(guard, &scope).compiled());
                EdgeRule {
                    from: self.int(&edge.from, &scope).compiled(),
                    to: self.int(&edge.to, &scope).compiled(),
                    bindings,
                    guard,
                    span: edge.span,
                }
            })
            .collect();
        self.in_family = false;
        self.unlowered_families.remove(&id.0);
        let declared = &self.program.families[id.0 as usize];
        self.program.families[id.0 as usize] = std::sync::Arc::new(Family {
            name: declared.name.clone(),
            params: declared.params.clone(),
            start: start.compiled(),
            end: end.compiled(),
            inclusive: nodes.inclusive,
            nodes_span: nodes.span,
            edges,
            slots: self.max_slots,
            span: decl.span,
            built: Default::default(),
        });
    }

    pub(super) fn declare_let(&mut self, decl: &ast::LetDecl) -> DeclarationKind {
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

    pub(super) fn let_decl(&mut self, decl: &ast::LetDecl, id: LetId) {
        let ast::LetValue::Position(sum) = &decl.value else {
            return;
        };
        self.lowering = Some(decl.name.name.clone());
        let value = self.sum(sum, &Scope::default());
        self.lowering = None;
        let components = self.program.components(&value);
        let lowered = &mut self.program.lets[id.0 as usize];
        (lowered.value, lowered.components) = (value, components);
        self.unlowered_lets.remove(&id.0);
    }

    pub(super) fn game_decl(&mut self, decl: &ast::GameDecl, id: GameId) {
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
        let mut rules: Vec<Rule> = rules
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
        for compiled in rules.iter_mut().filter_map(|rule| rule.nodes.as_mut()) {
            compiled.edges = compiled.takes_an_edge(id);
        }
        let slots = self.max_slots;
        let game = &mut self.program.games[id.0 as usize];
        game.solves_as_box = solves_as_box(&rules, id, game.params.len());
        game.takes_edges = matches!(rules.as_slice(), [rule] if rule
            .nodes
            .as_ref()
            .is_some_and(|compiled| compiled.edges));
        game.shrinks = rules.iter().all(|rule| {
            rule.nodes
                .as_ref()
                .is_some_and(|compiled| compiled.shrinks(id))
        });
        game.moves = Moves::Rules(rules);
        game.slots = slots;
    }

    pub(super) fn query(&mut self, query: &ast::Query) -> Query {
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
            ast::Target::Game(game) => Target::Game(self.one_parameter_game(
                game,
                "`period`",
                "periods are found for games of one parameter, such as a heap size",
            )),
            ast::Target::Quotient {
                game,
                up_to,
                up_to_span,
            } => {
                let id = self.one_parameter_game(
                    game,
                    "`quotient`",
                    "misère quotients are found for heap games: one parameter, a heap size, \
                     each option a sum of smaller heaps",
                );
                if *up_to > MAX_QUOTIENT_HEAP {
                    self.errors.push(CheckError::QuotientTooFar {
                        up_to: *up_to,
                        limit: MAX_QUOTIENT_HEAP,
                        span: *up_to_span,
                    });
                }
                Target::Quotient(id, (*up_to).min(MAX_QUOTIENT_HEAP) as u32)
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

    /// The game a query of one heap game names (`period`, `quotient`); one
    /// of another number of parameters is an error, its `help` said.
    fn one_parameter_game(
        &mut self,
        game: &ast::Ident,
        query: &'static str,
        help: &'static str,
    ) -> GameId {
        let id = self.any_game(game);
        if let Some(id) = id
            && self.program.game(id).params.len() != 1
        {
            self.errors.push(CheckError::NotOneParameter {
                name: game.name.clone(),
                params: self.program.game(id).params.len(),
                query,
                help,
                span: game.span,
            });
        }
        id.unwrap_or(GameId(0))
    }

    /// A game named alone, as `period` and `diff` name them.
    pub(super) fn any_game(&mut self, name: &ast::Ident) -> Option<GameId> {
        let Some(declaration) = self.program.names.get(&name.name).copied() else {
            let help = self
                .suggest(&name.name, |kind| matches!(kind, DeclarationKind::Game(_)))
                .or_else(|| builtin_as_game(&name.name))
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
    pub(super) fn coins(&mut self, turns: &[ast::Turn], params: &Scope, id: GameId) {
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
}

pub(super) fn node_id(graph: &mut Graph, name: &str) -> NodeId {
    let (index, added) = graph.nodes.insert_full(name.to_owned());
    if added {
        graph.moves.push(Vec::new());
    }
    NodeId(index as u32)
}

/// The largest heap a quotient may be grown to, as heaps are numbered in
/// 32 bits; how far one is grown is bounded by `--max-rows` (a row for
/// each heap's element).
pub const MAX_QUOTIENT_HEAP: u64 = u32::MAX as u64 - 1;
