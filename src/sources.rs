//! Every source a session has read, in one address space: a span is an
//! offset into the concatenation, so that spans from different files (or
//! REPL entries) stay valid side by side, and miette finds each file's name
//! and lines from the span alone.

use std::sync::Arc;

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

#[derive(Debug)]
struct SourceFile {
    name: String,
    /// Its text, or nothing once released.
    text: String,
    offset: usize,
    /// The bytes it spans in the session's address space, released or not.
    length: usize,
    /// The offset of each line's first byte, so that a span's line is
    /// found by search, not by reading the file from its start.
    line_starts: Vec<usize>,
}

/// Bytes between one file and the next in the session's address space:
/// a span at the very end of a file stays inside it, and the context miette
/// shows around a label in one file never touches the next file's.
const FILE_GAP: usize = 3;

/// A line longer than this is shown cut around what is pointed at.
const LONG_LINE: usize = 160;
/// How much of a long line is kept on each side of what is pointed at.
const KEPT_AROUND: usize = 60;
/// The most of a long line shown around labels at once: miette draws a
/// label no further than 65,535 columns into its snippet (past that, it
/// panics).
const LONGEST_SHOWN: usize = 60_000;

impl SourceFile {
    /// The line (from 0) holding byte `at`.
    fn line_of(&self, at: usize) -> usize {
        self.line_starts.partition_point(|&start| start <= at) - 1
    }

    /// Where line `line` starts, and where it ends (its newline excluded).
    fn line_bounds(&self, line: usize) -> (usize, usize) {
        let start = self.line_starts[line];
        let end = self
            .line_starts
            .get(line + 1)
            .map_or(self.text.len(), |&next| next - 1);
        (start, end.max(start))
    }

    /// The nearest character boundary at or before `at`.
    fn boundary_before(&self, mut at: usize) -> usize {
        while !self.text.is_char_boundary(at) {
            at -= 1;
        }
        at
    }

    /// The nearest character boundary at or after `at`.
    fn boundary_after(&self, mut at: usize) -> usize {
        while !self.text.is_char_boundary(at) {
            at += 1;
        }
        at
    }
}

/// A source as it is read: a UTF-8 byte-order mark at its start becomes
/// three spaces, and a carriage return that ends a line alone (old Mac
/// files) a line feed, so that comments end there and errors show its
/// lines. Every byte keeps its offset, so spans into the text as written
/// stay right.
pub fn normalise(text: &str) -> std::borrow::Cow<'_, str> {
    let bom = text.starts_with('\u{feff}');
    let lone_cr = |(at, _): &(usize, char)| !text[at + 1..].starts_with('\n');
    if !bom
        && !text
            .char_indices()
            .filter(|&(_, c)| c == '\r')
            .any(|found| lone_cr(&found))
    {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut normal = String::with_capacity(text.len());
    if bom {
        normal.push_str("   ");
    }
    let rest = &text[if bom { '\u{feff}'.len_utf8() } else { 0 }..];
    let mut chars = rest.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() != Some(&'\n') => normal.push('\n'),
            c => normal.push(c),
        }
    }
    std::borrow::Cow::Owned(normal)
}

/// The session's sources. Cloning is cheap: files are shared.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    files: Vec<Arc<SourceFile>>,
}

impl Sources {
    /// Where the next file added will start.
    pub fn next_offset(&self) -> usize {
        self.files
            .last()
            .map_or(0, |file| file.offset + file.length + FILE_GAP)
    }

    /// Adds a source and returns the offset of its first byte.
    pub fn add(&mut self, name: &str, text: &str) -> usize {
        let text = &*normalise(text);
        let offset = self.next_offset();
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(at, _)| at + 1))
            .collect();
        self.files.push(Arc::new(SourceFile {
            name: name.to_owned(),
            text: text.to_owned(),
            offset,
            length: text.len(),
            line_starts,
        }));
        offset
    }

    /// The offsets the file starting at `offset` spans.
    pub fn extent(&self, offset: usize) -> std::ops::Range<usize> {
        let file = self.file_at(offset);
        file.offset..file.offset + file.length
    }

    /// Lets go of the text of every file but those holding one of the
    /// offsets `kept` (in increasing order), keeping its place: a span into
    /// it reads as empty, and a report pointing there shows no snippet.
    pub fn release_all_but(&mut self, kept: &[usize]) {
        for file in &mut self.files {
            let end = file.offset + file.length;
            let first = kept.partition_point(|&offset| offset < file.offset);
            if file.text.is_empty() || kept.get(first).is_some_and(|&offset| offset <= end) {
                continue;
            }
            *file = Arc::new(SourceFile {
                name: file.name.clone(),
                text: String::new(),
                offset: file.offset,
                length: file.length,
                line_starts: vec![0],
            });
        }
    }

    /// The text a span covers.
    pub fn text(&self, span: SourceSpan) -> &str {
        let file = self.file_at(span.offset());
        let start = span.offset() - file.offset;
        file.text.get(start..start + span.len()).unwrap_or("")
    }

    /// The name of the file a byte of the session's sources lies in.
    pub fn name_at(&self, offset: usize) -> &str {
        &self.file_at(offset).name
    }

    /// The file and line a byte of the session's sources lies on.
    pub fn line_of(&self, offset: usize) -> (usize, usize) {
        let index = self.files.partition_point(|file| file.offset <= offset);
        let file = self.file_at(offset);
        let local = (offset - file.offset).min(file.text.len());
        (index, file.line_of(local))
    }

    fn file_at(&self, offset: usize) -> &SourceFile {
        let index = self.files.partition_point(|file| file.offset <= offset);
        &self.files[index.saturating_sub(1)]
    }
}

impl SourceCode for Sources {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        if self.files.is_empty() {
            return Err(MietteError::OutOfBounds);
        }
        let file = self.file_at(span.offset());
        if span.offset() + span.len() > file.offset + file.text.len() + 1 {
            // Labels in two files are shown apart, never as one snippet.
            return Err(MietteError::OutOfBounds);
        }
        let start = (span.offset() - file.offset).min(file.text.len());
        let end = (start + span.len()).min(file.text.len());
        let (first, last) = (
            file.line_of(start),
            file.line_of(end.saturating_sub(1).max(start)),
        );
        let (first_start, first_end) = file.line_bounds(first);
        let (_, last_end) = file.line_bounds(last);
        let long = first_end - first_start > LONG_LINE;
        // As wide as miette draws it: a tab is four columns.
        let tabs = file.text.as_bytes()[start..end]
            .iter()
            .filter(|&&byte| byte == b'\t')
            .count();
        if end - start + 3 * tabs > LONGEST_SHOWN {
            // Two labels far apart (on one long line, or one far into the
            // next): shown apart (miette asks for the span joining them
            // first). A label this long alone is named, not drawn.
            return Err(MietteError::OutOfBounds);
        }
        let cut_to = file.boundary_after((end + KEPT_AROUND).min(last_end));
        // Context lines stop before a long one: shown, it would be shown
        // whole, and a label on it drawn as far in as it lies.
        let short = |line: usize| {
            let (start, end) = file.line_bounds(line);
            end - start <= LONG_LINE
        };
        let lines = file.line_starts.len();
        let bottom = (last + 1..(last + 1 + context_lines_after).min(lines))
            .take_while(|&line| short(line))
            .last()
            .unwrap_or(last);
        let window = match (context_lines_before, long) {
            // As miette's own sources do: with no lines before, the text
            // starts at the span (that is how a label's column is found).
            (0, true) => start..cut_to,
            (0, false) => start..file.line_bounds(bottom).1,
            // A long line is cut around the span, without context lines.
            (_, true) => {
                let from = start.saturating_sub(KEPT_AROUND).max(first_start);
                file.boundary_before(from)..cut_to
            }
            (before, false) => {
                let top = (first.saturating_sub(before)..first)
                    .rev()
                    .take_while(|&line| short(line))
                    .last()
                    .unwrap_or(first);
                file.line_bounds(top).0..file.line_bounds(bottom).1
            }
        };
        let line = file.line_of(window.start);
        let column = file.text[file.line_starts[line]..window.start]
            .chars()
            .count();
        let data = &file.text.as_bytes()[window.clone()];
        let line_count = data.iter().filter(|&&byte| byte == b'\n').count() + 1;
        Ok(Box::new(MietteSpanContents::new_named(
            file.name.clone(),
            data,
            SourceSpan::new((window.start + file.offset).into(), window.len()),
            line,
            column,
            line_count,
        )))
    }
}
