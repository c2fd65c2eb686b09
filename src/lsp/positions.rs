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

/// The byte offset of an LSP position (a line, and UTF-16 units into it).
pub(super) fn offset(text: &str, position: Position) -> usize {
    let mut line_start = 0;
    for _ in 0..position.line {
        match text[line_start..].find('\n') {
            Some(i) => line_start += i + 1,
            None => return text.len(),
        }
    }
    let line = &text[line_start..];
    let mut units = 0;
    for (i, c) in line.char_indices() {
        if units >= position.character as usize || c == '\n' {
            return line_start + i;
        }
        units += c.len_utf16();
    }
    text.len()
}

/// The LSP range of `len` bytes from `offset`.
pub(super) fn range(text: &str, offset: usize, len: usize) -> Range {
    Range {
        start: position(text, offset),
        end: position(text, offset + len),
    }
}

/// The LSP position (a line, and UTF-16 units into it) of a byte offset;
/// one inside a character counts from that character's start.
pub(super) fn position(text: &str, offset: usize) -> Position {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() as u32;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let character = before[line_start..].encode_utf16().count() as u32;
    Position { line, character }
}
