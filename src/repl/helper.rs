//! The line editor's helper: completion of keywords, commands and declared
//! names, syntax highlighting and history hints; and the test for an entry
//! that needs another line, used by both readers.

use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use owo_colors::OwoColorize;
use rustyline::completion::{Completer, Pair};
use rustyline::highlight::{CmdKind, Highlighter};
use rustyline::hint::HistoryHinter;
use rustyline::{Context, Helper, Hinter, Validator};

use crate::syntax;

/// The REPL's commands.
pub const COMMANDS: &[&str] = &[
    ":help", ":load", ":reload", ":games", ":show", ":json", ":time", ":quit", ":hint", ":undo",
];

/// Each line is accepted as typed; the reader decides whether an entry
/// needs another line, so that it can show the continuation prompt.
#[derive(Helper, Hinter, Validator)]
pub struct ReplHelper {
    /// Declared names, kept current by the REPL after each entry.
    pub names: Arc<Mutex<Vec<String>>>,
    #[rustyline(Hinter)]
    pub hinter: HistoryHinter,
}

impl ReplHelper {
    pub fn new(names: Arc<Mutex<Vec<String>>>) -> Self {
        ReplHelper {
            names,
            hinter: HistoryHinter::new(),
        }
    }
}

/// Whether a character continues a word being completed.
fn word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '?' | ':')
}

impl Completer for ReplHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let start = line[..pos]
            .char_indices()
            .rev()
            .find(|&(_, c)| !word_char(c))
            .map_or(0, |(index, c)| index + c.len_utf8());
        let word = &line[start..pos];
        if word.is_empty() {
            return Ok((pos, Vec::new()));
        }
        let names = self
            .names
            .lock()
            .map(|names| names.clone())
            .unwrap_or_default();
        let candidates = match word.starts_with(':') {
            true => COMMANDS
                .iter()
                .map(|command| command.to_string())
                .collect::<Vec<_>>(),
            false => syntax::KEYWORDS
                .iter()
                .chain(syntax::FUNCTIONS)
                .map(|keyword| keyword.to_string())
                .chain(names)
                .collect(),
        };
        let mut matches: Vec<Pair> = candidates
            .into_iter()
            .filter(|candidate| candidate.starts_with(word))
            .map(|candidate| Pair {
                display: candidate.clone(),
                replacement: candidate,
            })
            .collect();
        matches.sort_by(|a, b| a.display.cmp(&b.display));
        matches.dedup_by(|a, b| a.display == b.display);
        Ok((start, matches))
    }
}

impl Highlighter for ReplHelper {
    fn highlight<'l>(&self, line: &'l str, _pos: usize) -> Cow<'l, str> {
        Cow::Owned(highlight(line))
    }

    fn highlight_hint<'h>(&self, hint: &'h str) -> Cow<'h, str> {
        Cow::Owned(hint.dimmed().to_string())
    }

    fn highlight_char(&self, _line: &str, _pos: usize, _kind: CmdKind) -> bool {
        true
    }
}

/// Colours keywords, numbers, names, commands and comments.
pub fn highlight(line: &str) -> String {
    let mut out = String::with_capacity(line.len() * 2);
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        let token_len = match c {
            '#' => rest.len(),
            ':' if rest.len() > 1 && rest[1..].starts_with(|c: char| c.is_ascii_alphabetic()) => {
                1 + rest[1..]
                    .find(|c: char| !c.is_ascii_alphabetic())
                    .unwrap_or(rest.len() - 1)
            }
            c if c.is_ascii_digit() => rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len()),
            c if c.is_ascii_alphabetic() || c == '_' => {
                let end = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                let question =
                    matches!(&rest[..end], "wins" | "equal") && rest[end..].starts_with('?');
                end + usize::from(question)
            }
            c => c.len_utf8(),
        };
        let token = &rest[..token_len];
        let styled = match c {
            '#' => token.dimmed().to_string(),
            ':' if token_len > 1 => token.green().to_string(),
            c if c.is_ascii_digit() => token.cyan().to_string(),
            _ if syntax::KEYWORDS.contains(&token) || syntax::FUNCTIONS.contains(&token) => {
                token.magenta().bold().to_string()
            }
            c if c.is_ascii_uppercase() => token.yellow().to_string(),
            _ => token.to_owned(),
        };
        out += &styled;
        rest = &rest[token_len..];
    }
    out
}

/// Whether the input stops in the middle of a statement, so that another
/// line could complete it: its parse error sits at the very end.
pub fn needs_more(input: &str) -> bool {
    let trimmed = input.trim_start();
    if trimmed.is_empty() || trimmed.starts_with(':') {
        return false;
    }
    matches!(syntax::parse(input, 0), Err(error) if error.is_incomplete())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_open_block_or_a_trailing_operator_needs_more() {
        assert!(needs_more("game Nim(n) {"));
        assert!(needs_more(
            "game Nim(n) {\n    move Nim(n - k) for k in 1..=n"
        ));
        assert!(needs_more("grundy *3 +"));
        assert!(!needs_more("grundy *3 + *4"));
        assert!(!needs_more("grundy ) *3"));
        assert!(!needs_more(":load file.game"));
        assert!(!needs_more(""));
    }

    #[test]
    fn highlighting_keeps_the_text() {
        let line = "grundy Kayles(12) + *3 # comment";
        let plain = highlight(line);
        let stripped = String::from_utf8(strip_ansi(plain.as_bytes())).unwrap();
        assert_eq!(stripped, line);
        assert_ne!(plain, line, "something was coloured");
    }

    fn strip_ansi(bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == 0x1b {
                while i < bytes.len() && bytes[i] != b'm' {
                    i += 1;
                }
            } else {
                out.push(bytes[i]);
            }
            i += 1;
        }
        out
    }
}
