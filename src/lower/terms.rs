//! Bindings, sums and their terms, and the names in them: each name
//! resolved to what it declares, or an error that says what it might be.

use super::*;

impl Lowerer {
    /// Lowers bindings left to right: each domain sees the variables before it.
    pub(super) fn bindings(
        &mut self,
        bindings: &[ast::Binding],
        scope: &mut Scope,
    ) -> Vec<Binding> {
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
    pub(super) fn bind(&mut self, scope: &mut Scope, var: &ast::Ident, ty: Type) -> usize {
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
    pub(super) fn sum(&mut self, sum: &ast::Sum, scope: &Scope) -> Vec<Term> {
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

    pub(super) fn term(&mut self, term: &ast::Term, scope: &Scope, terms: &mut Vec<Term>) {
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
    pub(super) fn game_named(
        &mut self,
        name: &ast::Ident,
        found: usize,
        span: SourceSpan,
    ) -> Option<GameId> {
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

    pub(super) fn node_ref(&mut self, graph: &ast::Ident, node: &ast::Ident) -> Option<Term> {
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
    pub(super) fn graph_named(&mut self, graph: &ast::Ident) -> Option<GraphId> {
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
    pub(super) fn name_ref(&mut self, name: &ast::Ident, terms: &mut Vec<Term>) {
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
                self.used_before_declaration(name, declaration.span)
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
            DeclarationKind::Graph(_)
            | DeclarationKind::Family(_)
            | DeclarationKind::Constant(_) => self.wrong_kind(name, declaration, "a position"),
        }
    }

    /// A use of a `let` or a graph family not lowered yet: one declared
    /// below, or the `let` being lowered itself (read then, it would be
    /// taken as 0, or an empty board).
    pub(super) fn used_before_declaration(&mut self, name: &ast::Ident, declared: SourceSpan) {
        let help = match self.lowering.as_deref() == Some(name.name.as_str()) {
            true => {
                "a `let` cannot use its own value: name another `let`, declared above it".to_owned()
            }
            false => format!(
                "declare `{}` above what uses it (two declarations cannot use each other)",
                name.name
            ),
        };
        self.errors.push(CheckError::LetBeforeDeclaration {
            name: name.name.clone(),
            span: name.span,
            declared,
            help,
        });
    }

    pub(super) fn wrong_kind(
        &mut self,
        name: &ast::Ident,
        declaration: Declaration,
        wanted: &'static str,
    ) {
        let help = match declaration.kind {
            DeclarationKind::Game(_) => {
                format!("a position of a game is written `{}(…)`", name.name)
            }
            DeclarationKind::Graph(_) => format!(
                "a position of a graph is one of its nodes: `{}.node`",
                name.name
            ),
            DeclarationKind::Family(_) => format!(
                "`{}(…)` is a board: a position of a game on it is `Game({}(…))`",
                name.name, name.name
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
    pub(super) fn suggest(
        &self,
        name: &str,
        fits: impl Fn(DeclarationKind) -> bool,
    ) -> Option<String> {
        self.closest_name(name, fits)
            .map(|similar| format!("did you mean `{similar}`?"))
    }

    /// A suggestion for a bare name: a game is shown with its arguments.
    pub(super) fn suggest_bare(
        &self,
        name: &str,
        fits: impl Fn(DeclarationKind) -> bool,
    ) -> Option<String> {
        let similar = self.closest_name(name, fits)?;
        let arity = match self.program.names[similar].kind {
            DeclarationKind::Game(game) => self.program.game(game).params.len(),
            DeclarationKind::Graph(_)
            | DeclarationKind::Family(_)
            | DeclarationKind::Let(_)
            | DeclarationKind::Constant(_) => 0,
        };
        Some(match arity {
            0 => format!("did you mean `{similar}`?"),
            1 => format!("did you mean `{similar}(…)`? the game `{similar}` takes 1 argument"),
            n => format!("did you mean `{similar}(…)`? the game `{similar}` takes {n} arguments"),
        })
    }

    /// The declared name most like `name`, among those that `fits`. Past
    /// [`SUGGESTED_ERRORS`] errors none is looked for: each look reads every
    /// name, and thousands of slips would take time quadratic in them.
    pub(super) fn closest_name(
        &self,
        name: &str,
        fits: impl Fn(DeclarationKind) -> bool,
    ) -> Option<&str> {
        if self.errors.len() >= SUGGESTED_ERRORS {
            return None;
        }
        let candidates = self
            .program
            .names
            .iter()
            .filter(|(_, declaration)| fits(declaration.kind))
            .map(|(candidate, _)| candidate.as_str());
        closest(name, candidates)
    }
}

/// How many errors of one check may suggest a declared name.
const SUGGESTED_ERRORS: usize = 200;

/// The candidate most like `name`, if any is close enough to be a typo: a
/// few edits away (transpositions count as one), or sharing a long prefix.
pub(super) fn closest<'a>(
    name: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
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
