//! The syntax tree built from pest's pairs: one method per rule of the
//! grammar, each making a typed, spanned node.

use super::explain::{Name, meaningful_token, name};
use super::*;

/// Builds syntax nodes from pairs, shifting spans by the source's offset.
pub(super) struct Builder {
    pub(super) base: usize,
}

pub(super) type Built<T> = Result<T, ParseError>;

impl Builder {
    fn span(&self, pair: &Pair<Rule>) -> SourceSpan {
        let span = pair.as_span();
        SourceSpan::new((self.base + span.start()).into(), span.end() - span.start())
    }

    /// The span of a statement or a sum, to its last token: a rule that
    /// ends with a repetition (`3 + 4`, a sum) takes in the blank lines and
    /// comments after it, which pest skips before finding no more.
    fn tight_span(&self, pair: &Pair<Rule>) -> SourceSpan {
        let start = pair.as_span().start();
        let end = pair
            .clone()
            .into_inner()
            .flatten()
            .filter(|pair| pair.clone().into_inner().next().is_none())
            .map(|token| token.as_span().end())
            .max()
            .unwrap_or(pair.as_span().end());
        SourceSpan::new((self.base + start).into(), end - start)
    }

    pub(super) fn program(&self, pair: Pair<Rule>) -> Built<Program> {
        let statements = children(pair)
            .filter(|pair| pair.as_rule() != Rule::EOI)
            .map(|pair| self.statement(pair))
            .collect::<Built<_>>()?;
        Ok(Program { statements })
    }

    fn statement(&self, pair: Pair<Rule>) -> Built<Statement> {
        Ok(match pair.as_rule() {
            Rule::game_decl => Statement::Game(self.game_decl(pair)?),
            Rule::graph_decl => Statement::Graph(self.graph_decl(pair)),
            Rule::family_decl => Statement::Family(self.family_decl(pair)?),
            Rule::let_decl => Statement::Let(self.let_decl(pair)?),
            _ => Statement::Query(self.query(pair)?),
        })
    }

    fn game_decl(&self, pair: Pair<Rule>) -> Built<GameDecl> {
        let span = self.tight_span(&pair);
        let mut inner = children(pair).peekable();
        let name = self.ident(inner.next().expect("a game has a name"));
        if let Some(code) = inner.next_if(|pair| pair.as_rule() == Rule::code) {
            let body = children(code.clone()).next().expect("a code follows `=`");
            match body.as_rule() {
                Rule::coins => return self.coins(name, body, span),
                Rule::product => {
                    let mut factors = children(body).map(|pair| self.ident(pair));
                    let (a, b) = (factors.next(), factors.next());
                    let (a, b) = (
                        a.expect("a product has two factors"),
                        b.expect("and a second"),
                    );
                    // The places of a coin in each factor.
                    let params = ["x", "y"].map(|name| Ident {
                        name: name.into(),
                        span: name_span(&a, &b),
                    });
                    return Ok(GameDecl {
                        name,
                        params: params.into(),
                        body: GameBody::Product(a, b),
                        span,
                    });
                }
                _ => {}
            }
            let code = self.code(code)?;
            return Ok(GameDecl {
                params: vec![Ident {
                    name: "n".into(),
                    span: name.span,
                }],
                name,
                body: GameBody::Code(code),
                span,
            });
        }
        let params = match inner.next_if(|pair| pair.as_rule() == Rule::params) {
            Some(params) => children(params).map(|pair| self.ident(pair)).collect(),
            None => Vec::new(),
        };
        if let Some(alias) = inner.next_if(|pair| pair.as_rule() == Rule::alias) {
            let sum = self.sum(
                children(alias)
                    .next()
                    .expect("`=` is followed by a position"),
            )?;
            return Ok(GameDecl {
                name,
                params,
                body: GameBody::Alias(sum),
                span,
            });
        }
        let splits = inner
            .next_if(|pair| pair.as_rule() == Rule::splits)
            .map(|pair| Splits {
                span: self.span(&pair),
                symmetric: pair
                    .into_inner()
                    .any(|pair| pair.as_rule() == Rule::up_to_symmetry),
            });
        let rules = inner
            .map(|pair| self.move_rule(pair))
            .collect::<Built<_>>()?;
        Ok(GameDecl {
            name,
            params,
            body: GameBody::Rules { rules, splits },
            span,
        })
    }

    /// `game T = coins(n) { turn … }`.
    fn coins(&self, name: Ident, pair: Pair<Rule>, span: SourceSpan) -> Built<GameDecl> {
        let mut inner = children(pair);
        let param = self.ident(inner.next().expect("coins name the place of a coin"));
        let turns = inner
            .map(|pair| {
                let span = self.tight_span(&pair);
                let mut inner = children(pair);
                let set = self.expr(inner.next().expect("a turn names the coins turned"))?;
                let (bindings, guard) = self.bindings_and_guard(inner)?;
                Ok(Turn {
                    set,
                    bindings,
                    guard,
                    span,
                })
            })
            .collect::<Built<_>>()?;
        Ok(GameDecl {
            name,
            params: vec![param],
            body: GameBody::Coins(turns),
            span,
        })
    }

    fn code(&self, pair: Pair<Rule>) -> Built<Code> {
        let code = children(pair).next().expect("a code follows `=`");
        let span = self.span(&code);
        let hexadecimal = code.as_rule() == Rule::hexadecimal;
        match code.as_rule() {
            Rule::octal | Rule::hexadecimal => {
                let string = children(code).next().expect("a code has its digits");
                let quoted = self.span(&string);
                Ok(Code::TakeBreak {
                    digits: string.as_str().trim_matches('"').to_owned(),
                    hexadecimal,
                    span: SourceSpan::new((quoted.offset() + 1).into(), quoted.len() - 2),
                })
            }
            _ => self.subtraction(code, span),
        }
    }

    fn subtraction(&self, pair: Pair<Rule>, span: SourceSpan) -> Built<Code> {
        let mut all_but = false;
        let mut set = Vec::new();
        for pair in children(pair) {
            match pair.as_rule() {
                Rule::kw_all_but => all_but = true,
                _ => {
                    for integer in children(pair) {
                        set.push((self.integer(&integer)?, self.span(&integer)));
                    }
                }
            }
        }
        Ok(Code::Subtraction { all_but, set, span })
    }

    fn move_rule(&self, pair: Pair<Rule>) -> Built<MoveRule> {
        let span = self.tight_span(&pair);
        let mut inner = children(pair);
        let target = self.sum(inner.next().expect("a move has a target"))?;
        let (bindings, guard) = self.bindings_and_guard(inner)?;
        Ok(MoveRule {
            target,
            bindings,
            guard,
            span,
        })
    }

    /// The optional `for …` and `if …` that close a rule or a query.
    fn bindings_and_guard<'i>(
        &self,
        rest: impl Iterator<Item = Pair<'i, Rule>>,
    ) -> Built<(Vec<Binding>, Option<Expr>)> {
        let mut bindings = Vec::new();
        let mut guard = None;
        for pair in rest {
            match pair.as_rule() {
                Rule::bindings => bindings = self.bindings(pair)?,
                _ => guard = Some(self.guard(pair)?),
            }
        }
        Ok((bindings, guard))
    }

    fn bindings(&self, pair: Pair<Rule>) -> Built<Vec<Binding>> {
        children(pair).map(|pair| self.binding(pair)).collect()
    }

    fn binding(&self, pair: Pair<Rule>) -> Built<Binding> {
        let mut inner = children(pair);
        let var = self.ident(inner.next().expect("a binding names its variable"));
        let domain = inner.next().expect("a binding has a domain");
        let domain = match domain.as_rule() {
            Rule::range => self.range(domain)?,
            Rule::divisors => Domain::Divisors(
                self.expr(children(domain).next().expect("`divisors` has an argument"))?,
            ),
            Rule::subsets => {
                let mut args = children(domain);
                let set = self.expr(args.next().expect("`subsets` has an argument"))?;
                let size = args.next().map(|size| self.expr(size)).transpose()?;
                Domain::Subsets(set, size)
            }
            Rule::under => {
                Domain::Under(self.expr(children(domain).next().expect("`under` has an argument"))?)
            }
            Rule::set => self.set(domain)?,
            _ => Domain::Each(self.expr(domain)?),
        };
        let stop = inner
            .next()
            .map(|stop| self.expr(children(stop).next().expect("`while` has a condition")))
            .transpose()?;
        Ok(Binding { var, domain, stop })
    }

    fn range(&self, pair: Pair<Rule>) -> Built<Domain> {
        let mut inner = children(pair);
        let start = self.expr(inner.next().expect("a range has a start"))?;
        let inclusive =
            inner.next().expect("a range has an operator").as_rule() == Rule::range_inclusive;
        let end = inner.next().map(|end| self.expr(end)).transpose()?;
        Ok(Domain::Range {
            start,
            end,
            inclusive,
        })
    }

    fn set(&self, pair: Pair<Rule>) -> Built<Domain> {
        let elements = children(pair)
            .map(|pair| self.expr(pair))
            .collect::<Built<_>>()?;
        Ok(Domain::Set(elements))
    }

    fn guard(&self, pair: Pair<Rule>) -> Built<Expr> {
        self.expr(children(pair).next().expect("a guard has a condition"))
    }

    fn graph_decl(&self, pair: Pair<Rule>) -> GraphDecl {
        let span = self.tight_span(&pair);
        let mut inner = children(pair);
        let name = self.ident(inner.next().expect("a graph has a name"));
        let edges = inner.map(|pair| self.edges(pair)).collect();
        GraphDecl { name, edges, span }
    }

    fn family_decl(&self, pair: Pair<Rule>) -> Built<FamilyDecl> {
        let span = self.tight_span(&pair);
        let mut inner = children(pair);
        let name = self.ident(inner.next().expect("a family has a name"));
        let params = children(inner.next().expect("a family has parameters"))
            .map(|pair| self.ident(pair))
            .collect();
        let nodes = self.family_nodes(inner.next().expect("a family declares its nodes"))?;
        let edges = inner
            .map(|pair| self.edge_rule(pair))
            .collect::<Built<_>>()?;
        Ok(FamilyDecl {
            name,
            params,
            nodes,
            edges,
            span,
        })
    }

    fn family_nodes(&self, pair: Pair<Rule>) -> Built<FamilyNodes> {
        let span = self.tight_span(&pair);
        let mut inner = children(pair);
        let start = self.expr(inner.next().expect("a range has a start"))?;
        let inclusive =
            inner.next().expect("a range has an operator").as_rule() == Rule::range_inclusive;
        let end = self.expr(inner.next().expect("a range of nodes has an end"))?;
        Ok(FamilyNodes {
            start,
            end,
            inclusive,
            span,
        })
    }

    fn edge_rule(&self, pair: Pair<Rule>) -> Built<EdgeRule> {
        let span = self.tight_span(&pair);
        let mut inner = children(pair);
        let from = self.expr(inner.next().expect("an edge has a first end"))?;
        let to = self.expr(inner.next().expect("an edge has a second end"))?;
        let (bindings, guard) = self.bindings_and_guard(inner)?;
        Ok(EdgeRule {
            from,
            to,
            bindings,
            guard,
            span,
        })
    }

    fn edges(&self, pair: Pair<Rule>) -> Edges {
        let undirected = pair
            .clone()
            .into_inner()
            .flatten()
            .any(|pair| pair.as_rule() == Rule::undirected);
        let mut nodes = children(pair)
            .filter(|pair| pair.as_rule() == Rule::node)
            .map(|pair| self.node(pair));
        let from = nodes.next().expect("an edge line starts with a node");
        Edges {
            from,
            to: nodes.collect(),
            undirected,
        }
    }

    /// A node name, an identifier or an integer, kept as written.
    fn node(&self, pair: Pair<Rule>) -> Ident {
        Ident {
            name: pair.as_str().to_owned(),
            span: self.span(&pair),
        }
    }

    fn let_decl(&self, pair: Pair<Rule>) -> Built<LetDecl> {
        let span = self.tight_span(&pair);
        let mut inner = children(pair);
        let name = self.ident(inner.next().expect("a let has a name"));
        let value = inner.next().expect("a let has a value");
        let value = match value.as_rule() {
            Rule::sum | Rule::let_sum => LetValue::Position(self.sum(value)?),
            _ => LetValue::Value(self.expr(value)?),
        };
        Ok(LetDecl { name, value, span })
    }

    fn query(&self, pair: Pair<Rule>) -> Built<Query> {
        let span = self.tight_span(&pair);
        let rule = pair.as_rule();
        let mut inner = children(pair).peekable();
        let mut misere = None;
        let opening = inner
            .next()
            .expect("a query opens with its keyword")
            .as_rule();
        let (kind, target) = match rule {
            Rule::period_query => (
                QueryKind::Period,
                Target::Game(self.ident(inner.next().expect("a period query names a game"))),
            ),
            Rule::quotient_query => {
                let game = self.ident(inner.next().expect("a quotient names a game"));
                let up_to = inner
                    .find(|pair| pair.as_rule() == Rule::integer)
                    .expect("a quotient has its largest heap");
                let up_to_span = self.span(&up_to);
                let up_to = self.integer(&up_to)? as u64;
                (
                    QueryKind::Quotient,
                    Target::Quotient {
                        game,
                        up_to,
                        up_to_span,
                    },
                )
            }
            Rule::diff_query => {
                let a = self.ident(inner.next().expect("a diff names two games"));
                let b = self.ident(inner.next().expect("a diff names two games"));
                (QueryKind::Diff, Target::Games(a, b))
            }
            Rule::equal_query => {
                let a = self.sum(inner.next().expect("equal? compares two positions"))?;
                let b = self.sum(inner.next().expect("equal? compares two positions"))?;
                (QueryKind::Equal, Target::Positions(a, b))
            }
            Rule::draw_query => {
                let position = self.sum(inner.next().expect("a draw query has a position"))?;
                (QueryKind::Draw, Target::Position(position))
            }
            Rule::plot_query => (
                QueryKind::Plot,
                Target::Game(self.ident(inner.next().expect("a plot names a game"))),
            ),
            Rule::nim_query => {
                let pair = inner.next().expect("a nim query has an expression");
                // The whole expression as written, parentheses included,
                // up to its last token (not the comments after it).
                let end = pair
                    .clone()
                    .into_inner()
                    .flatten()
                    .map(|token| token.as_span().end());
                let start = pair.as_span().start();
                let end = end.max().unwrap_or(start);
                let span = SourceSpan::new((self.base + start).into(), end - start);
                let expr = self.expr(pair)?;
                (QueryKind::Nim, Target::Nimber(Expr { span, ..expr }))
            }
            _ => {
                let kind = match opening {
                    Rule::kw_grundy => QueryKind::Grundy,
                    Rule::kw_wins => QueryKind::Wins,
                    Rule::kw_best_move => QueryKind::BestMove,
                    Rule::kw_moves => QueryKind::Moves,
                    Rule::kw_crosscheck => QueryKind::Crosscheck,
                    Rule::kw_remoteness => QueryKind::Remoteness,
                    Rule::kw_genus => QueryKind::Genus,
                    Rule::kw_why => QueryKind::Why,
                    Rule::kw_strategy => QueryKind::Strategy,
                    _ => QueryKind::Play,
                };
                misere = inner
                    .next_if(|pair| pair.as_rule() == Rule::kw_misere)
                    .map(|pair| self.span(&pair));
                let position = self.sum(inner.next().expect("a query has a position"))?;
                (kind, Target::Position(position))
            }
        };
        let mut to = None;
        let rest: Vec<Pair<Rule>> = inner
            .filter(|pair| match pair.as_rule() {
                Rule::destination => {
                    to = Some(self.destination(pair.clone()));
                    false
                }
                _ => true,
            })
            .collect();
        let (bindings, guard) = self.bindings_and_guard(rest.into_iter())?;
        Ok(Query {
            kind,
            misere,
            target,
            bindings,
            guard,
            to,
            span,
        })
    }

    /// `to "FILE"`: the file name, with the span of the quoted string.
    fn destination(&self, pair: Pair<Rule>) -> Destination {
        let string = children(pair)
            .next()
            .expect("a destination is a quoted file name");
        Destination {
            path: string.as_str().trim_matches('"').to_owned(),
            span: self.span(&string),
        }
    }

    pub(super) fn sum(&self, pair: Pair<Rule>) -> Built<Sum> {
        let span = self.tight_span(&pair);
        let terms = children(pair)
            .map(|pair| match pair.as_rule() {
                Rule::game_times => Err(ParseError::ProductOfGames {
                    span: self.span(&pair),
                }),
                _ => self.term(pair),
            })
            .collect::<Built<_>>()?;
        Ok(Sum { terms, span })
    }

    fn term(&self, pair: Pair<Rule>) -> Built<Term> {
        let span = self.span(&pair);
        Ok(match pair.as_rule() {
            Rule::game_term => {
                let mut inner = children(pair);
                let name = self.ident(inner.next().expect("a game term has a name"));
                let args = inner.map(|pair| self.expr(pair)).collect::<Built<_>>()?;
                Term::Game { name, args, span }
            }
            Rule::heap => {
                let size = children(pair).next().expect("a heap has a size");
                Term::Heap {
                    size: self.primary(size)?,
                    span,
                }
            }
            Rule::node_ref => {
                let mut inner = children(pair);
                let graph = self.ident(inner.next().expect("a node reference names its graph"));
                let node = inner.next().expect("a node reference names its node");
                match node.as_rule() {
                    Rule::node_at => {
                        let index = children(node).next().expect("`.(…)` holds an expression");
                        Term::NodeAt {
                            graph,
                            index: self.expr(index)?,
                            span,
                        }
                    }
                    _ => Term::Node {
                        graph,
                        node: self.node(node),
                    },
                }
            }
            Rule::group => {
                let mut inner = children(pair);
                let sum = self.sum(inner.next().expect("a group holds a sum"))?;
                let (bindings, guard) = self.bindings_and_guard(inner)?;
                match bindings.is_empty() {
                    true => Term::Group(sum),
                    false => Term::Over {
                        sum,
                        bindings,
                        guard,
                        span,
                    },
                }
            }
            _ => Term::Name(self.ident(children(pair).next().expect("a name reference is a name"))),
        })
    }

    pub(super) fn expr(&self, pair: Pair<Rule>) -> Built<Expr> {
        PRATT
            .map_primary(|primary| self.primary(primary))
            .map_prefix(|op, operand| {
                let operand = operand?;
                let op_kind = match op.as_rule() {
                    Rule::neg => UnaryOp::Neg,
                    Rule::bit_not => UnaryOp::BitNot,
                    _ => UnaryOp::Not,
                };
                let span = join(self.span(&op), operand.span);
                nest(ExprKind::Unary(op_kind, Box::new(operand)), span)
            })
            .map_postfix(|operand, op| {
                let operand = operand?;
                let span = join(operand.span, self.span(&op));
                let index = self.expr(children(op).next().expect("`[…]` holds an index"))?;
                nest(ExprKind::Index(Box::new(operand), Box::new(index)), span)
            })
            .map_infix(|lhs, op, rhs| {
                let (lhs, rhs) = (lhs?, rhs?);
                let span = join(lhs.span, rhs.span);
                nest(
                    ExprKind::Binary(binary_op(op.as_rule()), Box::new(lhs), Box::new(rhs)),
                    span,
                )
            })
            .parse(pair.into_inner())
    }

    fn primary(&self, pair: Pair<Rule>) -> Built<Expr> {
        let span = self.span(&pair);
        let kind = match pair.as_rule() {
            Rule::integer => ExprKind::Int(self.integer(&pair)?),
            Rule::kw_true => ExprKind::Bool(true),
            Rule::kw_false => ExprKind::Bool(false),
            Rule::call => {
                let mut inner = children(pair);
                let function = self.ident(inner.next().expect("a call names its function"));
                let args = inner.map(|pair| self.expr(pair)).collect::<Built<_>>()?;
                ExprKind::Call { function, args }
            }
            Rule::var => {
                ExprKind::Var(self.ident(children(pair).next().expect("a variable is a name")))
            }
            Rule::if_expr => {
                let mut parts = children(pair).map(|pair| self.expr(pair));
                let mut next = || parts.next().expect("`if` has three parts");
                let (condition, then, otherwise) = (next()?, next()?, next()?);
                ExprKind::If(Box::new(condition), Box::new(then), Box::new(otherwise))
            }
            Rule::node_value => {
                let mut inner = children(pair);
                let graph = self.ident(inner.next().expect("a node names its graph"));
                let node = self.node(inner.next().expect("a node has a name"));
                ExprKind::Node { graph, node }
            }
            Rule::set_expr | Rule::list_expr => {
                let list = pair.as_rule() == Rule::list_expr;
                let mut inner = children(pair).peekable();
                match inner.next() {
                    None => ExprKind::Elements {
                        list,
                        elements: Vec::new(),
                    },
                    Some(first) => {
                        let first = self.expr(first)?;
                        match inner.peek().map(|pair| pair.as_rule()) {
                            Some(Rule::bindings) => {
                                let (bindings, guard) = self.bindings_and_guard(inner)?;
                                ExprKind::Comprehension {
                                    list,
                                    element: Box::new(first),
                                    bindings,
                                    guard: guard.map(Box::new),
                                }
                            }
                            _ => {
                                let mut elements = vec![first];
                                for pair in inner {
                                    elements.push(self.expr(pair)?);
                                }
                                ExprKind::Elements { list, elements }
                            }
                        }
                    }
                }
            }
            _ => {
                return self.expr(
                    children(pair)
                        .next()
                        .expect("parentheses hold an expression"),
                );
            }
        };
        nest(kind, span)
    }

    fn integer(&self, pair: &Pair<Rule>) -> Built<i64> {
        pair.as_str()
            .parse()
            .map_err(|_| ParseError::IntegerTooLarge {
                text: pair.as_str().to_owned(),
                span: self.span(pair),
            })
    }

    fn ident(&self, pair: Pair<Rule>) -> Ident {
        Ident {
            name: pair.as_str().to_owned(),
            span: self.span(&pair),
        }
    }
}

/// What one level of nesting adds to an expression's depth, which counts
/// the links of a flat sum (`a + b - c + …`, left-deep) singly: the passes
/// recurse along such a chain with little stack a link, so a sum of up to
/// about 20,000 terms is taken, while nesting is held to [`MAX_NESTING`].
pub(super) const NESTING: usize = 2;

/// An expression one level deeper than its deepest operand, or one link
/// longer than the sum it extends, refused past [`MAX_NESTING`] levels.
pub(super) fn nest(kind: ExprKind, span: SourceSpan) -> Built<Expr> {
    let is_sum = |op: &BinaryOp| matches!(op, BinaryOp::Add | BinaryOp::Sub);
    if let ExprKind::Binary(op, lhs, rhs) = &kind
        && is_sum(op)
        && matches!(&lhs.kind, ExprKind::Binary(inner, ..) if is_sum(inner))
    {
        let depth = (lhs.depth + 1).max(rhs.depth + NESTING);
        if depth <= MAX_NESTING * NESTING {
            return Ok(Expr { kind, span, depth });
        }
        // A chain too long, at its term past the limit (the left spine is
        // walked once, here); a term nested too deeply, at its start.
        let mut terms = 2;
        let mut spine = lhs;
        while let ExprKind::Binary(op, lhs, _) = &spine.kind
            && is_sum(op)
        {
            terms += 1;
            spine = lhs;
        }
        return Err(match terms > MAX_NESTING {
            true => ParseError::TooLong {
                span: rhs.span,
                terms,
            },
            false => ParseError::TooDeep {
                span: start_of(span),
            },
        });
    }
    let operands = match &kind {
        ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::Var(_) | ExprKind::Node { .. } => 0,
        ExprKind::If(a, b, c) => a.depth.max(b.depth).max(c.depth),
        ExprKind::Elements { elements, .. } => {
            elements.iter().map(|arg| arg.depth).max().unwrap_or(0)
        }
        ExprKind::Comprehension { element, .. } => element.depth,
        ExprKind::Index(a, b) => a.depth.max(b.depth),
        ExprKind::Call { args, .. } => args.iter().map(|arg| arg.depth).max().unwrap_or(0),
        ExprKind::Unary(_, operand) => operand.depth,
        ExprKind::Binary(_, lhs, rhs) => lhs.depth.max(rhs.depth),
    };
    let depth = operands + NESTING;
    match depth > MAX_NESTING * NESTING {
        true => Err(ParseError::TooDeep {
            span: start_of(span),
        }),
        false => Ok(Expr { kind, span, depth }),
    }
}

/// The first character of a span: where an expression too deep begins, as
/// a label to point at (the whole may be tens of thousands of columns).
fn start_of(span: SourceSpan) -> SourceSpan {
    (span.offset(), span.len().min(1)).into()
}

pub(super) fn binary_op(rule: Rule) -> BinaryOp {
    match rule {
        Rule::add => BinaryOp::Add,
        Rule::sub => BinaryOp::Sub,
        Rule::mul => BinaryOp::Mul,
        Rule::pow => BinaryOp::Pow,
        Rule::div => BinaryOp::Div,
        Rule::rem => BinaryOp::Rem,
        Rule::eq => BinaryOp::Eq,
        Rule::ne => BinaryOp::Ne,
        Rule::lt => BinaryOp::Lt,
        Rule::le => BinaryOp::Le,
        Rule::gt => BinaryOp::Gt,
        Rule::ge => BinaryOp::Ge,
        Rule::kw_and => BinaryOp::And,
        Rule::bit_and => BinaryOp::BitAnd,
        Rule::bit_or => BinaryOp::BitOr,
        Rule::bit_xor => BinaryOp::BitXor,
        Rule::shl => BinaryOp::Shl,
        Rule::shr => BinaryOp::Shr,
        Rule::kw_in => BinaryOp::In,
        _ => BinaryOp::Or,
    }
}

/// The children of a pair that carry meaning: punctuation and the keywords
/// that only introduce a construct are dropped.
pub(super) fn children(pair: Pair<'_, Rule>) -> impl Iterator<Item = Pair<'_, Rule>> {
    pair.into_inner().filter(|child| {
        !matches!(name(child.as_rule()), Name::Token(_)) || meaningful_token(child.as_rule())
    })
}

/// The span of a product's factors, where its implicit parameters are
/// said to be declared.
pub(super) fn name_span(a: &Ident, b: &Ident) -> SourceSpan {
    join(a.span, b.span)
}
