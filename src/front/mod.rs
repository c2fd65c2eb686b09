//! What the front ends (`sprague run` and the other commands, the REPL,
//! the server, the language server) share, beneath all of them: reading
//! source files, exit codes, the stack the evaluator runs on, how errors
//! are styled on a terminal, and progress lines and Ctrl-C ([`progress`]).

pub(crate) mod progress;

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use miette::{Diagnostic, Report};
use thiserror::Error;

use crate::output::{self, ErrorStyle};

#[derive(Debug, Error, Diagnostic)]
#[error("cannot read `{path}`: {reason}")]
#[diagnostic(
    code(sprague::cli::unreadable),
    help("check the path; `-` reads standard input")
)]
pub(crate) struct Unreadable {
    path: String,
    reason: String,
}

/// Exit codes: 0 success, 1 an error in the input, 2 a usage error, 130
/// stopped by Ctrl-C.
pub(crate) const INPUT_ERROR: u8 = 1;
pub(crate) const USAGE_ERROR: u8 = 2;
pub(crate) const INTERRUPTED: u8 = 130;

pub use crate::session::STACK_SIZE;

pub(crate) fn error_style(json: bool) -> ErrorStyle {
    match json {
        true => ErrorStyle::Json,
        false => ErrorStyle::Graphical {
            colour: std::io::stderr().is_terminal(),
            width: 100,
        },
    }
}

/// Why the files could not be read: a path that cannot be read (a usage
/// error) or a file that is not text (an error in the input).
pub(crate) struct ReadFailure {
    pub(crate) report: Report,
    pub(crate) code: u8,
}

impl ReadFailure {
    /// Prints the report and gives the exit code it calls for.
    pub(crate) fn exit(&self) -> ExitCode {
        tell!("{}", output::error(&self.report, error_style(false)));
        ExitCode::from(self.code)
    }

    pub(crate) fn exit_with(&self, style: ErrorStyle) -> ExitCode {
        tell!("{}", output::error(&self.report, style));
        ExitCode::from(self.code)
    }
}

#[derive(Debug, Error, Diagnostic)]
#[error("`{path}` is not UTF-8 text: byte 0x{byte:02x} at line {line}, column {column}")]
#[diagnostic(
    code(sprague::cli::not_utf8),
    help("save the file as UTF-8; `.game` files are plain text")
)]
struct NotUtf8 {
    path: String,
    byte: u8,
    line: usize,
    column: usize,
    #[source_code]
    text: miette::NamedSource<String>,
    #[label("the first byte that is not UTF-8")]
    span: miette::SourceSpan,
}

/// Reads every file before evaluating any, so that a bad path fails fast;
/// `-` reads standard input.
pub(crate) fn read_all(files: &[PathBuf]) -> Result<Vec<(String, String)>, ReadFailure> {
    files
        .iter()
        .map(|path| match path.to_str() {
            Some("-") => {
                let mut bytes = Vec::new();
                let read = std::io::stdin().read_to_end(&mut bytes).map(|_| bytes);
                text_of("<stdin>".to_owned(), read)
            }
            _ => read_file(path),
        })
        .collect()
}

/// Reads a file as text, with the name its spans are shown under.
pub(crate) fn read_file(path: &Path) -> Result<(String, String), ReadFailure> {
    text_of(path.display().to_string(), std::fs::read(path))
}

/// The text of what was read as `name`: a read that failed is a usage
/// error, bytes that are not UTF-8 an error in the input.
fn text_of(name: String, read: std::io::Result<Vec<u8>>) -> Result<(String, String), ReadFailure> {
    let bytes = read.map_err(|error| ReadFailure {
        report: Report::new(Unreadable {
            path: name.clone(),
            reason: error.to_string(),
        }),
        code: USAGE_ERROR,
    })?;
    let text = String::from_utf8(bytes).map_err(|error| ReadFailure {
        report: Report::new(not_utf8(&name, error)),
        code: INPUT_ERROR,
    })?;
    Ok((name, text))
}

/// Where a file stops being UTF-8, shown in the text read up to there.
fn not_utf8(path: &str, error: std::string::FromUtf8Error) -> NotUtf8 {
    let at = error.utf8_error().valid_up_to();
    let bytes = error.into_bytes();
    let before = std::str::from_utf8(&bytes[..at]).expect("valid up to here");
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit('\n')
        .next()
        .map_or(0, |last| last.chars().count())
        + 1;
    // The text shown is the valid part and the rest of the bad line, with
    // the bad bytes replaced.
    let line_end = bytes[at..]
        .iter()
        .position(|&byte| byte == b'\n')
        .map_or(bytes.len(), |offset| at + offset);
    let shown = format!("{before}{}", String::from_utf8_lossy(&bytes[at..line_end]));
    NotUtf8 {
        path: path.to_owned(),
        byte: bytes[at],
        line,
        column,
        text: miette::NamedSource::new(path, shown),
        span: (at, 1).into(),
    }
}
