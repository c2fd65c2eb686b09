//! Every source a session has read, in one address space: a span is an
//! offset into the concatenation, so that spans from different files (or
//! REPL entries) stay valid side by side, and miette finds each file's name
//! and lines from the span alone.

use std::sync::Arc;

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

#[derive(Debug)]
struct SourceFile {
    name: String,
    text: String,
    offset: usize,
}

/// The session's sources. Cloning is cheap: files are shared.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    files: Vec<Arc<SourceFile>>,
}

impl Sources {
    /// Adds a source and returns the offset of its first byte.
    pub fn add(&mut self, name: &str, text: &str) -> usize {
        // One byte of gap keeps a span at the very end of a file inside it.
        let offset = self
            .files
            .last()
            .map_or(0, |file| file.offset + file.text.len() + 1);
        self.files.push(Arc::new(SourceFile {
            name: name.to_owned(),
            text: text.to_owned(),
            offset,
        }));
        offset
    }

    /// The text a span covers.
    pub fn text(&self, span: SourceSpan) -> &str {
        let file = self.file_at(span.offset());
        let start = span.offset() - file.offset;
        file.text.get(start..start + span.len()).unwrap_or("")
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
        let local = SourceSpan::new((span.offset() - file.offset).into(), span.len());
        let contents = file
            .text
            .read_span(&local, context_lines_before, context_lines_after)?;
        let global = SourceSpan::new(
            (contents.span().offset() + file.offset).into(),
            contents.span().len(),
        );
        Ok(Box::new(MietteSpanContents::new_named(
            file.name.clone(),
            contents.data(),
            global,
            contents.line(),
            contents.column(),
            contents.line_count(),
        )))
    }
}
