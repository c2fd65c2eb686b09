//! Text to syntax tree: the pest grammar in `grammar/sprague.pest`, one
//! function per rule building typed, spanned nodes, and the translation of
//! pest's errors into [`ParseError`]. pest's types stay inside this module.

pub mod ast;
mod error;

use std::sync::LazyLock;

use miette::SourceSpan;
use pest::Parser as _;
use pest::error::{ErrorVariant, InputLocation};
use pest::iterators::Pair;
use pest::pratt_parser::{Assoc, Op, PrattParser};

pub use error::ParseError;

use ast::*;

#[derive(pest_derive::Parser)]
#[grammar = "../grammar/sprague.pest"]
struct Grammar;

/// Parses one source whose first byte sits at `base` in the session's
/// source buffer, so that every span is an offset into that buffer.
pub fn parse(text: &str, base: usize) -> Result<Program, ParseError> {
    let text = crate::sources::normalise(text);
    Builder { base }.program(parse_rule(Rule::program, &text, base)?)
}

/// Parses a position alone (a sum), as typed for a move in play.
pub fn parse_position(text: &str, base: usize) -> Result<Sum, ParseError> {
    let input = parse_rule(Rule::position_input, text, base)?;
    Builder { base }.sum(
        children(input)
            .next()
            .expect("a position input holds a sum"),
    )
}

/// Runs the grammar's `rule` over all of `text`, once its nesting is known
/// to be within bounds.
fn parse_rule(rule: Rule, text: &str, base: usize) -> Result<Pair<'_, Rule>, ParseError> {
    if let Some(position) = too_deep(text) {
        return Err(ParseError::TooDeep {
            span: SourceSpan::new((base + position).into(), 1),
        });
    }
    let mut pairs = Grammar::parse(rule, text).map_err(|error| syntax_error(&error, text, base))?;
    Ok(pairs.next().expect("pest yields the rule it was asked for"))
}

/// How deeply brackets and prefix operators may nest: far past anything
/// written by hand, and well within the parser's stack.
pub const MAX_NESTING: usize = 10_000;

/// Where the nesting of brackets and runs of prefix operators (`-`, `not`)
/// first exceeds [`MAX_NESTING`], if it does. The recursive descent parser
/// and evaluator need stack in proportion to this depth.
fn too_deep(text: &str) -> Option<usize> {
    let (mut depth, mut prefixes) = (0usize, 0usize);
    let mut chars = text.char_indices().peekable();
    while let Some((position, c)) = chars.next() {
        match c {
            '#' => while chars.next_if(|&(_, c)| c != '\n').is_some() {},
            '(' | '{' => {
                depth += 1;
                prefixes = 0;
            }
            ')' | '}' => depth = depth.saturating_sub(1),
            '-' => prefixes += 1,
            'n' if is_not_keyword(text, position) => {
                prefixes += 1;
                chars.nth(1);
            }
            c if c.is_whitespace() => continue,
            _ => prefixes = 0,
        }
        if depth + prefixes > MAX_NESTING {
            return Some(position);
        }
    }
    None
}

/// Whether the word `not` starts at `position`.
fn is_not_keyword(text: &str, position: usize) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text[position..].starts_with("not")
        && !text[..position].ends_with(word)
        && !text[position + 3..].starts_with(word)
}

static PRATT: LazyLock<PrattParser<Rule>> = LazyLock::new(|| {
    PrattParser::new()
        .op(Op::infix(Rule::kw_or, Assoc::Left))
        .op(Op::infix(Rule::kw_and, Assoc::Left))
        .op(Op::prefix(Rule::kw_not))
        .op(Op::infix(Rule::eq, Assoc::Left)
            | Op::infix(Rule::ne, Assoc::Left)
            | Op::infix(Rule::lt, Assoc::Left)
            | Op::infix(Rule::le, Assoc::Left)
            | Op::infix(Rule::gt, Assoc::Left)
            | Op::infix(Rule::ge, Assoc::Left))
        .op(Op::infix(Rule::kw_in, Assoc::Left))
        .op(Op::infix(Rule::bit_or, Assoc::Left))
        .op(Op::infix(Rule::bit_xor, Assoc::Left))
        .op(Op::infix(Rule::bit_and, Assoc::Left))
        .op(Op::infix(Rule::shl, Assoc::Left) | Op::infix(Rule::shr, Assoc::Left))
        .op(Op::infix(Rule::add, Assoc::Left) | Op::infix(Rule::sub, Assoc::Left))
        .op(Op::infix(Rule::mul, Assoc::Left)
            | Op::infix(Rule::div, Assoc::Left)
            | Op::infix(Rule::rem, Assoc::Left))
        .op(Op::prefix(Rule::neg) | Op::prefix(Rule::bit_not))
        .op(Op::infix(Rule::pow, Assoc::Right))
        .op(Op::postfix(Rule::index))
});

/// The words of the language, reserved or met only in their place
/// (`octal`, `turn`, …), as editors complete and highlight them.
pub const KEYWORDS: &[&str] = &[
    "game",
    "graph",
    "let",
    "move",
    "for",
    "in",
    "if",
    "then",
    "else",
    "while",
    "and",
    "or",
    "not",
    "true",
    "false",
    "splits",
    "grundy",
    "wins?",
    "best_move",
    "moves",
    "play",
    "period",
    "diff",
    "equal?",
    "crosscheck",
    "remoteness",
    "genus",
    "misere",
    "draw",
    "plot",
    "to",
    "nim",
    "why",
    "strategy",
    "octal",
    "hexadecimal",
    "subtraction",
    "coins",
    "turn",
    "product",
];

/// The built-in functions and domains, as editors complete them.
pub const FUNCTIONS: &[&str] = &[
    "min", "max", "abs", "isqrt", "popcount", "nim_mul", "nim_inv", "divisors", "subsets", "under",
    "symmetry",
];

/// Builds syntax nodes from pairs, shifting spans by the source's offset.
struct Builder {
    base: usize,
}

type Built<T> = Result<T, ParseError>;

impl Builder {
    fn span(&self, pair: &Pair<Rule>) -> SourceSpan {
        let span = pair.as_span();
        SourceSpan::new((self.base + span.start()).into(), span.end() - span.start())
    }

    fn program(&self, pair: Pair<Rule>) -> Built<Program> {
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
            Rule::let_decl => Statement::Let(self.let_decl(pair)?),
            _ => Statement::Query(self.query(pair)?),
        })
    }

    fn game_decl(&self, pair: Pair<Rule>) -> Built<GameDecl> {
        let span = self.span(&pair);
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
                let span = self.span(&pair);
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
        let span = self.span(&pair);
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
        let span = self.span(&pair);
        let mut inner = children(pair);
        let name = self.ident(inner.next().expect("a graph has a name"));
        let edges = inner.map(|pair| self.edges(pair)).collect();
        GraphDecl { name, edges, span }
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
        let span = self.span(&pair);
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
        let span = self.span(&pair);
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

    fn sum(&self, pair: Pair<Rule>) -> Built<Sum> {
        let span = self.span(&pair);
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

    fn expr(&self, pair: Pair<Rule>) -> Built<Expr> {
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
const NESTING: usize = 2;

/// An expression one level deeper than its deepest operand, or one link
/// longer than the sum it extends, refused past [`MAX_NESTING`] levels.
fn nest(kind: ExprKind, span: SourceSpan) -> Built<Expr> {
    let is_sum = |op: &BinaryOp| matches!(op, BinaryOp::Add | BinaryOp::Sub);
    if let ExprKind::Binary(op, lhs, rhs) = &kind
        && is_sum(op)
        && matches!(&lhs.kind, ExprKind::Binary(inner, ..) if is_sum(inner))
    {
        let depth = (lhs.depth + 1).max(rhs.depth + NESTING);
        return match depth > MAX_NESTING * NESTING {
            true => Err(ParseError::TooDeep { span }),
            false => Ok(Expr { kind, span, depth }),
        };
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
        true => Err(ParseError::TooDeep { span }),
        false => Ok(Expr { kind, span, depth }),
    }
}

fn binary_op(rule: Rule) -> BinaryOp {
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
fn children(pair: Pair<'_, Rule>) -> impl Iterator<Item = Pair<'_, Rule>> {
    pair.into_inner().filter(|child| {
        !matches!(name(child.as_rule()), Name::Token(_)) || meaningful_token(child.as_rule())
    })
}

/// The span of a product's factors, where its implicit parameters are
/// said to be declared.
fn name_span(a: &Ident, b: &Ident) -> SourceSpan {
    join(a.span, b.span)
}

/// Tokens whose identity matters to the tree (which operator, which query).
fn meaningful_token(rule: Rule) -> bool {
    matches!(
        rule,
        Rule::kw_grundy
            | Rule::kw_wins
            | Rule::kw_best_move
            | Rule::kw_moves
            | Rule::kw_play
            | Rule::kw_crosscheck
            | Rule::kw_genus
            | Rule::kw_misere
            | Rule::kw_draw
            | Rule::kw_plot
            | Rule::kw_nim
            | Rule::kw_why
            | Rule::kw_strategy
            | Rule::game_times
            | Rule::kw_remoteness
            | Rule::kw_period
            | Rule::kw_diff
            | Rule::kw_equal
            | Rule::kw_all_but
            | Rule::kw_true
            | Rule::kw_false
            | Rule::range_inclusive
            | Rule::range_exclusive
    )
}

/// How a rule is named to a user.
enum Name {
    /// A literal token, shown in backticks.
    Token(&'static str),
    /// A construct, described in words.
    Phrase(&'static str),
}

/// Names every grammar rule in the words of the language's users. The match
/// is exhaustive so that a new rule must be given a name.
fn name(rule: Rule) -> Name {
    use Name::{Phrase, Token};
    match rule {
        Rule::EOI => Phrase("end of input"),
        Rule::WHITESPACE => Phrase("white space"),
        Rule::COMMENT => Phrase("a comment"),
        Rule::program | Rule::statement => Phrase("a declaration or a query"),
        Rule::position_input => Phrase("a position"),
        Rule::game_decl => Phrase("a game declaration"),
        Rule::params => Phrase("parameters"),
        Rule::move_rule => Phrase("a `move` rule"),
        Rule::graph_decl => Phrase("a graph declaration"),
        Rule::edges => Phrase("an edge"),
        Rule::bare_arrow => Token("->"),
        Rule::targets => Phrase("the nodes an edge moves to"),
        Rule::node => Phrase("a node name"),
        Rule::node_at => Phrase("a node named by an expression, `.(x)`"),
        Rule::let_decl => Phrase("a `let` declaration"),
        Rule::query | Rule::query_kind => Phrase("a query"),
        Rule::period_query => Phrase("a `period` query"),
        Rule::diff_query => Phrase("a `diff` query"),
        Rule::equal_query => Phrase("an `equal?` query"),
        Rule::code => Phrase("a game code"),
        Rule::octal | Rule::hexadecimal => Phrase("a take-and-break code"),
        Rule::subtraction => Phrase("a subtraction set"),
        Rule::integer_set => Phrase("a set of integers"),
        Rule::string => Phrase("a quoted string"),
        Rule::destination => Phrase("`to \"FILE\"`"),
        Rule::draw_query => Phrase("a `draw` query"),
        Rule::plot_query => Phrase("a `plot` query"),
        Rule::nim_query => Phrase("a `nim` query"),
        Rule::bindings => Phrase("`for` bindings"),
        Rule::binding => Phrase("a binding `x in …`"),
        Rule::domain => Phrase("a range or a set"),
        Rule::subsets => Phrase("`subsets(s, k)`"),
        Rule::under => Phrase("`under(l)`"),
        Rule::alias => Phrase("`= POSITION`"),
        Rule::splits => Phrase("`splits`"),
        Rule::up_to_symmetry => Token("up to symmetry"),
        Rule::statement_start => Phrase("the next statement"),
        Rule::if_expr => Phrase("`if … then … else …`"),
        Rule::node_value => Phrase("a graph node"),
        Rule::set_expr => Phrase("a set"),
        Rule::list_expr => Phrase("a list"),
        Rule::postfix | Rule::index => Phrase("an index `[i]`"),
        Rule::bit_and => Token("&"),
        Rule::bit_or => Token("|"),
        Rule::bit_xor => Token("^"),
        Rule::shl => Token("<<"),
        Rule::shr => Token(">>"),
        Rule::bit_not => Token("~"),
        Rule::kw_then => Token("then"),
        Rule::kw_else => Token("else"),
        Rule::kw_splits => Token("splits"),
        Rule::undirected => Token("--"),
        Rule::lbracket => Token("["),
        Rule::rbracket => Token("]"),
        Rule::divisors => Phrase("`divisors(n)`"),
        Rule::range => Phrase("a range"),
        Rule::stop => Phrase("a `while` condition"),
        Rule::set => Phrase("a set"),
        Rule::guard => Phrase("an `if` condition"),
        Rule::sum | Rule::let_sum | Rule::term => Phrase("a position"),
        Rule::game_term => Phrase("a game position"),
        Rule::heap => Phrase("a Nim heap"),
        Rule::node_ref => Phrase("a graph node"),
        Rule::group => Phrase("a parenthesised sum"),
        Rule::name_ref => Phrase("a name"),
        Rule::expr | Rule::primary | Rule::paren | Rule::var => Phrase("an expression"),
        Rule::call => Phrase("a function call"),
        Rule::prefix => Phrase("`-` or `not`"),
        Rule::infix => Phrase("an operator"),
        Rule::ident | Rule::ident_char => Phrase("a name"),
        Rule::integer => Phrase("an integer"),
        Rule::keyword => Phrase("a keyword"),
        Rule::neg | Rule::sub => Token("-"),
        Rule::add | Rule::plus => Token("+"),
        Rule::mul | Rule::star => Token("*"),
        Rule::pow => Token("**"),
        Rule::kw_while => Token("while"),
        Rule::div => Token("/"),
        Rule::rem => Token("%"),
        Rule::eq => Token("=="),
        Rule::ne => Token("!="),
        Rule::le => Token("<="),
        Rule::lt => Token("<"),
        Rule::ge => Token(">="),
        Rule::gt => Token(">"),
        Rule::kw_game => Token("game"),
        Rule::kw_graph => Token("graph"),
        Rule::kw_move => Token("move"),
        Rule::kw_let => Token("let"),
        Rule::kw_for => Token("for"),
        Rule::kw_in => Token("in"),
        Rule::kw_if => Token("if"),
        Rule::kw_and => Token("and"),
        Rule::kw_or => Token("or"),
        Rule::kw_not => Token("not"),
        Rule::kw_true => Token("true"),
        Rule::kw_false => Token("false"),
        Rule::kw_grundy => Token("grundy"),
        Rule::kw_wins => Token("wins?"),
        Rule::kw_best_move => Token("best_move"),
        Rule::kw_moves => Token("moves"),
        Rule::kw_play => Token("play"),
        Rule::kw_crosscheck => Token("crosscheck"),
        Rule::kw_remoteness => Token("remoteness"),
        Rule::kw_genus => Token("genus"),
        Rule::kw_draw => Token("draw"),
        Rule::kw_plot => Token("plot"),
        Rule::kw_nim => Token("nim"),
        Rule::kw_why => Token("why"),
        Rule::kw_strategy => Token("strategy"),
        Rule::kw_coins => Token("coins"),
        Rule::kw_turn => Token("turn"),
        Rule::kw_product => Token("product"),
        Rule::coins => Phrase("a coin-turning game `coins(n) { turn … }`"),
        Rule::turn_rule => Phrase("a rule `turn SET for …`"),
        Rule::product => Phrase("a product `product A B`"),
        Rule::game_times => Token("*"),
        Rule::kw_to => Token("to"),
        Rule::kw_misere => Token("misere"),
        Rule::kw_period => Token("period"),
        Rule::kw_diff => Token("diff"),
        Rule::kw_equal => Token("equal?"),
        Rule::kw_octal => Token("octal"),
        Rule::kw_hexadecimal => Token("hexadecimal"),
        Rule::kw_subtraction => Token("subtraction"),
        Rule::kw_all_but => Token("all but"),
        Rule::lparen => Token("("),
        Rule::rparen => Token(")"),
        Rule::lbrace => Token("{"),
        Rule::rbrace => Token("}"),
        Rule::comma => Token(","),
        Rule::arrow => Token("->"),
        Rule::assign => Token("="),
        Rule::dot => Token("."),
        Rule::range_inclusive => Token("..="),
        Rule::range_exclusive => Token(".."),
    }
}

fn describe(rule: Rule) -> String {
    match name(rule) {
        Name::Token(token) => format!("`{token}`"),
        Name::Phrase(phrase) => phrase.to_owned(),
    }
}

/// "a", "a or b", "a, b or c".
fn one_of(words: &[String]) -> String {
    match words {
        [] => "something else".to_owned(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// Translates a pest error: its position, its expected rules named in words,
/// what was found there, and a help line for the construct that failed.
fn syntax_error(error: &pest::error::Error<Rule>, text: &str, base: usize) -> ParseError {
    let position = match error.location {
        InputLocation::Pos(position) => position,
        InputLocation::Span((start, _)) => start,
    };
    let found = found_at(text, position);
    let span = SourceSpan::new(
        (base + position).into(),
        found.len().min(text.len() - position),
    );
    match &error.variant {
        ErrorVariant::ParsingError { positives, .. } => {
            let mut expected: Vec<String> = Vec::new();
            for rule in positives {
                let word = describe(*rule);
                if !expected.contains(&word) {
                    expected.push(word);
                }
            }
            let at_end = text[position..].trim().is_empty();
            let closes_block = positives.contains(&Rule::rbrace);
            let before_next = at_end || STATEMENT_WORDS.contains(&found);
            if closes_block
                && before_next
                && let Some(open) = unclosed_brace(&text[..position])
            {
                return ParseError::Unclosed {
                    open: SourceSpan::new((base + open).into(), 1),
                    span,
                    found: match at_end {
                        true => "the end of the input".to_owned(),
                        false => format!("`{found}`"),
                    },
                    at_end,
                };
            }
            let after = |c: char| text[..position].trim_end().ends_with(c);
            let help = match found {
                "=" if positives.contains(&Rule::eq) => {
                    "use `==` to compare; a rule's condition reads `if k == 1`".to_owned()
                }
                "&" if after('&') => {
                    "conditions join with `and`: `if k != 2 and k != 5` (`&` is bitwise and)"
                        .to_owned()
                }
                "|" if after('|') => {
                    "conditions join with `or`: `if k == 1 or k == 4` (`|` is bitwise or)"
                        .to_owned()
                }
                "!" => "a condition is negated with `not`: `if not (k in S)`".to_owned(),
                word if [Rule::statement, Rule::program, Rule::query, Rule::game_decl]
                    .iter()
                    .any(|rule| positives.contains(rule)) =>
                {
                    match closest_word(word) {
                        Some(keyword) => format!("did you mean `{keyword}`?"),
                        None => help_for(positives),
                    }
                }
                _ => help_for(positives),
            };
            ParseError::Syntax {
                help,
                expected: one_of(&expected),
                found: if at_end {
                    "end of input".to_owned()
                } else {
                    format!("`{found}`")
                },
                span,
                at_end,
            }
        }
        ErrorVariant::CustomError { .. } => ParseError::TooDeep { span },
    }
}

/// The words a statement starts with.
const STATEMENT_WORDS: &[&str] = &[
    "game",
    "graph",
    "let",
    "grundy",
    "wins",
    "best_move",
    "moves",
    "play",
    "crosscheck",
    "remoteness",
    "period",
    "draw",
    "plot",
    "genus",
    "diff",
    "equal",
];

/// The statement word a mistyped word was most likely meant to be
/// (`win` for `wins?`).
fn closest_word(word: &str) -> Option<String> {
    if word.is_empty() || STATEMENT_WORDS.contains(&word) {
        return None;
    }
    STATEMENT_WORDS
        .iter()
        .map(|keyword| (strsim::damerau_levenshtein(word, keyword), keyword))
        .filter(|&(distance, keyword)| distance <= (keyword.len() / 3).max(1))
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, keyword)| match *keyword {
            "wins" | "equal" => format!("{keyword}?"),
            keyword => keyword.to_owned(),
        })
}

/// The offset of the last `{` in `text` that no `}` closes, comments
/// skipped.
fn unclosed_brace(text: &str) -> Option<usize> {
    let mut open = Vec::new();
    for line_start in std::iter::once(0).chain(text.match_indices('\n').map(|(at, _)| at + 1)) {
        let line = &text[line_start..];
        let line = &line[..line.find('\n').unwrap_or(line.len())];
        let code = &line[..line.find('#').unwrap_or(line.len())];
        for (at, c) in code.char_indices() {
            match c {
                '{' => open.push(line_start + at),
                '}' => {
                    open.pop();
                }
                _ => {}
            }
        }
    }
    open.pop()
}

/// The token at `position`: a word, a number or one character.
fn found_at(text: &str, position: usize) -> &str {
    let rest = &text[position..];
    let word = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    match word {
        0 => rest
            .char_indices()
            .nth(1)
            .map_or(rest, |(end, _)| &rest[..end]),
        _ => &rest[..word],
    }
}

fn help_for(positives: &[Rule]) -> String {
    let wants = |rules: &[Rule]| positives.iter().any(|rule| rules.contains(rule));
    if wants(&[
        Rule::game_term,
        Rule::heap,
        Rule::node_ref,
        Rule::name_ref,
        Rule::sum,
        Rule::let_sum,
    ]) {
        "a position is `Name(args)`, `*n`, `Graph.node`, a `let` name, or a sum of these joined by `+`".into()
    } else if wants(&[
        Rule::expr,
        Rule::integer,
        Rule::var,
        Rule::call,
        Rule::paren,
    ]) {
        "an expression is an integer, a variable, `min`/`max`/`abs(…)`, or operators such as `n - k`".into()
    } else if wants(&[
        Rule::game_decl,
        Rule::query,
        Rule::let_decl,
        Rule::graph_decl,
    ]) {
        "a statement starts with `game`, `graph`, `let` or a query such as `grundy`, `wins?` or `best_move`".into()
    } else if wants(&[Rule::arrow, Rule::node, Rule::edges]) {
        "a graph line reads `node -> other, another`".into()
    } else {
        "check the words and punctuation of this line against the reference".into()
    }
}

#[cfg(test)]
mod tests;
