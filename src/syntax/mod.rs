//! Text to syntax tree: the pest grammar in `grammar/sprague.pest`, one
//! function per rule building typed, spanned nodes, and the translation of
//! pest's errors into [`ParseError`]. pest's types stay inside this module.

pub mod ast;
mod build;
mod error;
mod explain;

use std::sync::LazyLock;

use miette::SourceSpan;
use pest::Parser as _;
use pest::error::{ErrorVariant, InputLocation};
use pest::iterators::Pair;
use pest::pratt_parser::{Assoc, Op, PrattParser};

use build::{Builder, children};
pub use error::ParseError;
use explain::syntax_error;

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
            '(' | '{' | '[' => {
                depth += 1;
                prefixes = 0;
            }
            ')' | '}' | ']' => depth = depth.saturating_sub(1),
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
    "quotient",
    "up",
    "nodes",
    "edge",
];

/// The built-in functions and domains, as editors complete them.
pub const FUNCTIONS: &[&str] = &[
    "min", "max", "abs", "isqrt", "popcount", "nim_mul", "nim_inv", "divisors", "subsets", "under",
    "symmetry",
];

#[cfg(test)]
mod tests;
