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

/// Tells, line after line of one entry, whether it needs another line
/// (see [`needs_more`]), without parsing the whole entry again at every
/// line: while a bracket is left open the entry is parsed again only once
/// it has doubled since it last was, so that a long paste (a game of a
/// thousand rules, read a line at a time) costs a few parses, not one a
/// line. An error early in an open block is still told at the next
/// doubling or when the block closes.
#[derive(Debug, Default)]
pub struct Continuation {
    /// The entry's length when it was last parsed.
    parsed: usize,
}

impl Continuation {
    pub fn needs_more(&mut self, entry: &str) -> bool {
        if self.parsed > 0 && entry.len() < 2 * self.parsed && open_brackets(entry) > 0 {
            return true;
        }
        self.parsed = entry.len().max(1);
        needs_more(entry)
    }
}

/// How many brackets (`(`, `{`, `[`) are open at the end of `input`, past
/// those closed, outside comments and strings.
fn open_brackets(input: &str) -> i64 {
    let (mut open, mut chars) = (0i64, input.chars());
    while let Some(c) = chars.next() {
        match c {
            '#' => {
                chars.by_ref().find(|&c| c == '\n');
            }
            '"' => {
                chars.by_ref().find(|&c| c == '"');
            }
            '(' | '{' | '[' => open += 1,
            ')' | '}' | ']' => open -= 1,
            _ => {}
        }
    }
    open
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
    fn a_long_open_block_is_parsed_a_few_times_not_once_a_line() {
        let mut entry = String::from("game G(n) {\n");
        let mut check = Continuation::default();
        assert!(check.needs_more(&entry));
        let mut parses = 0;
        for k in 1..=2000 {
            entry += &format!("  move G(n - {k}) if n >= {k}  # a (comment\n");
            let before = check.parsed;
            assert!(check.needs_more(&entry), "the block is open");
            parses += usize::from(check.parsed != before);
        }
        assert!(parses <= 20, "parsed {parses} times for 2000 lines");
        entry += "}\n";
        assert!(!check.needs_more(&entry), "the block closed");
        // An error early in an open block is told once the entry doubles.
        let mut check = Continuation::default();
        let mut entry = String::from("game G(n) {\n");
        for _ in 0..50 {
            entry += "  move G(n - 1) if n > 0\n";
            assert!(check.needs_more(&entry));
        }
        entry += "  mvoe G(n - 1)\n";
        let told = (0..100).any(|_| {
            entry += "  move G(n - 1) if n > 0\n";
            !check.needs_more(&entry)
        });
        assert!(
            told,
            "the misspelt `move` is reported before the block closes"
        );
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
