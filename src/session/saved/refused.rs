//! Why a saved table is not read, or not written.

use std::sync::Arc;

use miette::{Diagnostic, NamedSource, SourceSpan};
use thiserror::Error;

/// A table refused by `--resume`, or one `--save` could not write. Each
/// names the file and says why; none of a refused table's values is used.
#[derive(Debug, Error, Diagnostic)]
pub enum Refused {
    #[error("cannot read the table `{path}`: {reason}")]
    #[diagnostic(
        code(sprague::table::unreadable),
        help(
            "`--resume FILE` reads a table `--save FILE` wrote; leave `--resume` out on a first run"
        )
    )]
    Unreadable { path: String, reason: String },

    #[error("`{path}` is not a table saved by sprague")]
    #[diagnostic(
        code(sprague::table::foreign),
        help("a table begins with `sprague table`: give `--resume` a file that `--save` wrote")
    )]
    Foreign { path: String },

    #[error("`{path}` is a table of format {found}; this sprague reads formats 1 to {reads}")]
    #[diagnostic(
        code(sprague::table::version),
        help(
            "a table is read by a sprague of the format that saved it: run that one, or save the table afresh with this one"
        )
    )]
    Version {
        path: String,
        found: u32,
        reads: u32,
    },

    #[error("`{path}` is cut short after {found} bytes (a whole table has {expected})")]
    #[diagnostic(
        code(sprague::table::truncated),
        help(
            "the table was not copied or written whole: resume from an earlier copy, or start afresh without `--resume`"
        )
    )]
    Truncated {
        path: String,
        found: u64,
        expected: String,
    },

    #[error("`{path}` was altered or damaged: {reason}")]
    #[diagnostic(
        code(sprague::table::altered),
        help(
            "its values cannot be trusted: resume from an earlier copy, or start afresh without `--resume`"
        )
    )]
    Altered { path: String, reason: String },

    #[error("`{path}` is not a table this sprague wrote: {reason}")]
    #[diagnostic(
        code(sprague::table::malformed),
        help(
            "its checksum is right but its contents are not: it was made by other means than `--save`; start afresh without `--resume`"
        )
    )]
    Malformed { path: String, reason: String },

    #[error("there is not memory enough to {doing} the table `{path}` ({size})")]
    #[diagnostic(code(sprague::table::memory), help("{help}"))]
    Memory {
        path: String,
        doing: &'static str,
        size: String,
        help: &'static str,
    },

    #[error("`{path}` holds values of the game `{game}`, which no source declares")]
    #[diagnostic(
        code(sprague::table::other_game),
        help(
            "a table is resumed with the games it was saved for: run it with the same .game files, or start afresh without `--resume`"
        )
    )]
    NotDeclared { path: String, game: String },

    #[error("`{path}` holds values of `{game}` under other rules than those declared here")]
    #[diagnostic(
        code(sprague::table::other_rules),
        help(
            "values hold only under the rules they were found for (the game's declaration and those it refers to, word for word): save a table for these rules afresh, without `--resume`"
        )
    )]
    OtherRules {
        path: String,
        game: String,
        #[source_code]
        text: Arc<NamedSource<String>>,
        #[label("not the `{game}` the table was saved for")]
        span: SourceSpan,
    },

    #[error("cannot save the table to `{path}`: {reason}")]
    #[diagnostic(
        code(sprague::table::unwritable),
        help(
            "the table is written beside the file and renamed into place: the directory must exist and be writable; a table saved there before is as it was"
        )
    )]
    Unwritable { path: String, reason: String },
}
