//! Places in a document: byte offsets to the protocol's lines and UTF-16
//! columns and back, and the word under the cursor.

use super::*;

/// The name (letters, digits, `_`, `.`, `?`) around a byte offset, with
/// where it starts.
pub(super) fn word_at(text: &str, at: usize) -> Option<(usize, &str)> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '.';
    let start = word_start(&text[..at], is_word);
    let end = text[at..]
        .find(|c| !is_word(c))
        .map_or(text.len(), |i| at + i);
    let word = text[start..end].trim_end_matches('.');
    (!word.is_empty()).then_some((start, word))
}

/// Where the word that ends `before` starts (a byte offset into it).
pub(super) fn word_start(before: &str, is_word: impl Fn(char) -> bool) -> usize {
    before
        .char_indices()
        .rev()
        .find(|&(_, c)| !is_word(c))
        .map_or(0, |(at, c)| at + c.len_utf8())
}

/// Where each line after the first starts: after a `\n`, or a `\r` alone
/// (the protocol's three line ends).
fn line_ends(text: &str) -> impl Iterator<Item = usize> + '_ {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().filter_map(move |(at, &byte)| {
        let ends = byte == b'\n' || (byte == b'\r' && bytes.get(at + 1) != Some(&b'\n'));
        ends.then_some(at + 1)
    })
}

/// The byte offset of an LSP position (a line, and UTF-16 units into it).
pub(super) fn offset(text: &str, position: Position) -> usize {
    let Some(line_start) = std::iter::once(0)
        .chain(line_ends(text))
        .nth(position.line as usize)
    else {
        return text.len();
    };
    let line = &text[line_start..];
    let mut units = 0;
    for (i, c) in line.char_indices() {
        if units >= position.character as usize || c == '\n' || c == '\r' {
            return line_start + i;
        }
        units += c.len_utf16();
    }
    text.len()
}

/// A document's lines, found once: the ranges of many labels (thousands of
/// diagnostics, every symbol) are each found by a search, not by reading
/// the text from its start.
pub(super) struct Lines<'a> {
    text: &'a str,
    /// The offset of each line's first byte.
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    pub(super) fn new(text: &'a str) -> Lines<'a> {
        let starts = std::iter::once(0).chain(line_ends(text)).collect();
        Lines { text, starts }
    }

    /// The LSP range of `len` bytes from `offset`.
    pub(super) fn range(&self, offset: usize, len: usize) -> Range {
        Range {
            start: self.position(offset),
            end: self.position(offset.saturating_add(len)),
        }
    }

    /// The LSP position (a line, and UTF-16 units into it) of a byte
    /// offset; one inside a character counts from that character's start.
    pub(super) fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&start| start <= offset) - 1;
        let character = self.text[self.starts[line]..offset].encode_utf16().count();
        Position {
            line: line as u32,
            character: character as u32,
        }
    }
}

/// The LSP range of `len` bytes from `offset`, in a text read once.
pub(super) fn range(text: &str, offset: usize, len: usize) -> Range {
    Lines::new(text).range(offset, len)
}
