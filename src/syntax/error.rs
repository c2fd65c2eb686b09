//! Parse errors, in the words a user of the language knows.

use miette::{Diagnostic, SourceSpan};
use thiserror::Error;

#[derive(Debug, Clone, Error, Diagnostic, PartialEq, Eq)]
pub enum ParseError {
    #[error("expected {expected}, found {found}")]
    #[diagnostic(
        code(sprague::parse::syntax),
        help(
            "{help}\n`sprague help language` prints the language reference (`man sprague` has it too)"
        )
    )]
    Syntax {
        expected: String,
        found: String,
        #[label("expected {expected}")]
        span: SourceSpan,
        help: String,
        /// Whether the error sits at the very end of the input, so that more
        /// input could complete it (the REPL then asks for another line).
        at_end: bool,
    },

    #[error("this `{{` is never closed")]
    #[diagnostic(
        code(sprague::parse::unclosed),
        help("close the block with `}}` before the next statement")
    )]
    Unclosed {
        #[label(primary, "this `{{` has no `}}`")]
        open: SourceSpan,
        #[label("{found} comes before it is closed")]
        span: SourceSpan,
        found: String,
        /// Whether the input ends inside the block (more lines may close it).
        at_end: bool,
    },

    #[error("integer literal `{text}` does not fit in 64 bits")]
    #[diagnostic(
        code(sprague::parse::integer_too_large),
        help("integers range from -9223372036854775808 to 9223372036854775807")
    )]
    IntegerTooLarge {
        text: String,
        #[label("too large")]
        span: SourceSpan,
    },

    #[error("games do not multiply")]
    #[diagnostic(
        code(sprague::parse::product_of_games),
        help(
            "a sum of games adds with `+` (a move is made in one of them); to multiply nimbers, ask `nim 3 * 5`; the product of two coin-turning games is a game of its own: `game T = product A B`"
        )
    )]
    ProductOfGames {
        #[label("a product of games")]
        span: SourceSpan,
    },

    #[error("the input nests too deeply to parse")]
    #[diagnostic(
        code(sprague::parse::too_deep),
        help("split the expression with `let` declarations or simplify its parentheses")
    )]
    TooDeep {
        #[label("nesting reaches its limit here")]
        span: SourceSpan,
    },

    #[error(
        "a chain of `+` and `-` this long is past what the parser takes: it stops at term {terms}"
    )]
    #[diagnostic(
        code(sprague::parse::too_long),
        help("split it with `let` declarations: `let a = …` for its first terms, then `a + …`")
    )]
    TooLong {
        #[label("the chain reaches its limit here")]
        span: SourceSpan,
        terms: usize,
    },
}

impl ParseError {
    /// Whether more input could complete the source (the error is at its end).
    pub fn is_incomplete(&self) -> bool {
        matches!(
            self,
            ParseError::Syntax { at_end: true, .. } | ParseError::Unclosed { at_end: true, .. }
        )
    }
}
