//! `sprague lsp`: a language server over standard input and output, a
//! thin layer over [`Session`] like every other front end. A document is
//! checked as it is edited (every parse and check error, with the codes
//! and messages the command line prints), and run on save within small
//! limits (evaluation errors then join them). It completes keywords and
//! the names declared, hovers a game's declaration or a query's answer
//! (when it is cheap), goes to the declaration of a game, graph or `let`,
//! and lists a document's declarations as symbols.

use std::collections::HashMap;
use std::process::ExitCode;

use lsp_server::{Connection, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument,
    Notification as _, PublishDiagnostics,
};
use lsp_types::request::{
    Completion, DocumentSymbolRequest, GotoDefinition, HoverRequest, Request as _,
};
use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionOptions, CompletionResponse, Diagnostic,
    DiagnosticRelatedInformation, DiagnosticSeverity, DocumentSymbol, DocumentSymbolResponse,
    GotoDefinitionResponse, Hover, HoverContents, HoverProviderCapability, Location, MarkupContent,
    MarkupKind, NumberOrString, OneOf, Position, PublishDiagnosticsParams, Range, SaveOptions,
    ServerCapabilities, SymbolKind, TextDocumentSyncCapability, TextDocumentSyncKind,
    TextDocumentSyncOptions, TextDocumentSyncSaveOptions, Uri,
};
use miette::Report;

use crate::lower::ir::DeclarationKind;
use crate::output;
use crate::session::{Event, Session};
use crate::syntax::ast::Statement;

/// The states a save's run, or a hover's query, may solve.
const MAX_STATES: usize = 100_000;
/// The options one search may examine then.
const MAX_WORK: u64 = 10_000_000;
/// The most rows of a query's table a hover shows.
const HOVER_ROWS: usize = 8;

/// Serves until the client says `exit`.
pub fn run() -> ExitCode {
    let (connection, threads) = Connection::stdio();
    let capabilities = ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::FULL),
                save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                    include_text: Some(true),
                })),
                ..Default::default()
            },
        )),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![".".into()]),
            ..Default::default()
        }),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        ..Default::default()
    };
    let capabilities = serde_json::to_value(capabilities).expect("capabilities are JSON");
    if connection.initialize(capabilities).is_err() {
        return ExitCode::from(1);
    }
    let mut server = Server::default();
    for message in &connection.receiver {
        match message {
            Message::Request(request) => {
                if connection.handle_shutdown(&request).unwrap_or(true) {
                    break;
                }
                let response = server.request(request);
                if connection.sender.send(response.into()).is_err() {
                    break;
                }
            }
            Message::Notification(notification) => {
                for message in server.notification(notification) {
                    if connection.sender.send(message.into()).is_err() {
                        break;
                    }
                }
            }
            Message::Response(_) => {}
        }
    }
    drop(connection);
    match threads.join() {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::from(1),
    }
}

/// The open documents: each one's text, and the session of its last text
/// that checked (what completion and navigation read while it is being
/// typed into and does not).
#[derive(Default)]
struct Server {
    documents: HashMap<String, Document>,
}

struct Document {
    uri: Uri,
    text: String,
    checked: Option<Session>,
}

impl Server {
    fn notification(&mut self, notification: Notification) -> Vec<Notification> {
        let params = notification.params;
        match notification.method.as_str() {
            DidOpenTextDocument::METHOD => {
                let Ok(params) =
                    serde_json::from_value::<lsp_types::DidOpenTextDocumentParams>(params)
                else {
                    return Vec::new();
                };
                let document = params.text_document;
                self.edit(document.uri, document.text, false)
            }
            DidChangeTextDocument::METHOD => {
                let Ok(params) =
                    serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(params)
                else {
                    return Vec::new();
                };
                match params.content_changes.into_iter().last() {
                    Some(change) => self.edit(params.text_document.uri, change.text, false),
                    None => Vec::new(),
                }
            }
            DidSaveTextDocument::METHOD => {
                let Ok(params) =
                    serde_json::from_value::<lsp_types::DidSaveTextDocumentParams>(params)
                else {
                    return Vec::new();
                };
                let uri = params.text_document.uri;
                let text = params.text.or_else(|| {
                    self.documents
                        .get(uri.as_str())
                        .map(|document| document.text.clone())
                });
                match text {
                    Some(text) => self.edit(uri, text, true),
                    None => Vec::new(),
                }
            }
            DidCloseTextDocument::METHOD => {
                if let Ok(params) =
                    serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(params)
                {
                    self.documents.remove(params.text_document.uri.as_str());
                }
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    /// A document's new text: checked (and with `run`, run), and its
    /// diagnostics published.
    fn edit(&mut self, uri: Uri, text: String, run: bool) -> Vec<Notification> {
        let name = uri.as_str().to_owned();
        let mut session = Session::new(MAX_STATES);
        session.set_max_work(MAX_WORK);
        let mut reports = Vec::new();
        let checked = match session.declare(&name, &text, &mut |_| {}) {
            Ok(_) => true,
            Err(report) => {
                reports.push(report);
                false
            }
        };
        if checked && run {
            // A fresh session, so that the text's offsets start at 0.
            let mut running = Session::new(MAX_STATES);
            running.set_max_work(MAX_WORK);
            running.refuse_files();
            running.run(&name, &text, &mut |event| {
                if let Event::Error(report) = event {
                    reports.push(report);
                }
            });
        }
        let diagnostics = reports
            .iter()
            .flat_map(|report| diagnostics(report, &uri, &text))
            .collect();
        // A text with errors still declares what it can: its statements
        // that check, at their own offsets.
        let session = match checked {
            true => Some(session),
            false => best_effort(&name, &text),
        };
        let document = self.documents.entry(name).or_insert(Document {
            uri: uri.clone(),
            text: String::new(),
            checked: None,
        });
        document.text = text;
        if session.is_some() {
            document.checked = session;
        }
        let params = PublishDiagnosticsParams {
            uri,
            diagnostics,
            version: None,
        };
        vec![Notification::new(PublishDiagnostics::METHOD.into(), params)]
    }

    fn request(&mut self, request: Request) -> Response {
        let id = request.id.clone();
        let result = match request.method.as_str() {
            Completion::METHOD => {
                self.respond::<lsp_types::CompletionParams, _>(request, |server, params| {
                    let at = params.text_document_position;
                    server.completion(at.text_document.uri.as_str(), at.position)
                })
            }
            HoverRequest::METHOD => {
                self.respond::<lsp_types::HoverParams, _>(request, |server, params| {
                    let at = params.text_document_position_params;
                    server.hover(at.text_document.uri.as_str(), at.position)
                })
            }
            GotoDefinition::METHOD => {
                self.respond::<lsp_types::GotoDefinitionParams, _>(request, |server, params| {
                    let at = params.text_document_position_params;
                    server.definition(at.text_document.uri.as_str(), at.position)
                })
            }
            DocumentSymbolRequest::METHOD => self
                .respond::<lsp_types::DocumentSymbolParams, _>(request, |server, params| {
                    server.symbols(params.text_document.uri.as_str())
                }),
            _ => {
                return Response::new_err(
                    id,
                    lsp_server::ErrorCode::MethodNotFound as i32,
                    format!("sprague does not answer {}", request.method),
                );
            }
        };
        match result {
            Ok(value) => Response::new_ok(id, value),
            Err(message) => {
                Response::new_err(id, lsp_server::ErrorCode::InvalidParams as i32, message)
            }
        }
    }

    fn respond<P: serde::de::DeserializeOwned, R: serde::Serialize>(
        &mut self,
        request: Request,
        answer: impl FnOnce(&mut Self, P) -> R,
    ) -> Result<serde_json::Value, String> {
        let params: P =
            serde_json::from_value(request.params).map_err(|error| error.to_string())?;
        serde_json::to_value(answer(self, params)).map_err(|error| error.to_string())
    }

    fn completion(&self, uri: &str, position: Position) -> Option<CompletionResponse> {
        let document = self.documents.get(uri)?;
        let offset = offset(&document.text, position);
        let before = &document.text[..offset];
        let word_start = before
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.' || c == '?'))
            .map_or(0, |at| at + 1);
        let typed = &before[word_start..];
        let mut items: Vec<CompletionItem> = Vec::new();
        if let Some(session) = &document.checked {
            for name in session.completions() {
                let kind = match session.program().names.get(&name).map(|d| d.kind) {
                    Some(DeclarationKind::Game(_)) => CompletionItemKind::FUNCTION,
                    Some(DeclarationKind::Graph(_)) => CompletionItemKind::MODULE,
                    Some(DeclarationKind::Let(_) | DeclarationKind::Constant(_)) => {
                        CompletionItemKind::CONSTANT
                    }
                    None if name.contains('.') => CompletionItemKind::ENUM_MEMBER,
                    None => CompletionItemKind::FUNCTION,
                };
                items.push(CompletionItem {
                    label: name,
                    kind: Some(kind),
                    ..Default::default()
                });
            }
        }
        if !typed.contains('.') {
            items.extend(
                crate::syntax::KEYWORDS
                    .iter()
                    .map(|keyword| CompletionItem {
                        label: keyword.to_string(),
                        kind: Some(CompletionItemKind::KEYWORD),
                        ..Default::default()
                    }),
            );
        }
        items.retain(|item| item.label.starts_with(typed));
        Some(CompletionResponse::Array(items))
    }

    fn hover(&self, uri: &str, position: Position) -> Option<Hover> {
        let document = self.documents.get(uri)?;
        let session = document.checked.as_ref()?;
        let at = offset(&document.text, position);
        let (start, word) = word_at(&document.text, at)?;
        let contents = match session.program().names.get(word).map(|d| d.kind) {
            Some(DeclarationKind::Game(id)) => {
                let game = session.program().game(id);
                let params = match game.params.as_slice() {
                    [] => String::new(),
                    params => format!("({})", params.join(", ")),
                };
                let source = session.source_of(word).unwrap_or_default();
                format!("game **{word}**{params}\n\n```sprague\n{source}\n```")
            }
            Some(_) => format!(
                "```sprague\n{}\n```",
                session.source_of(word).unwrap_or_default()
            ),
            None => query_answer(session, &document.text, at)?,
        };
        let range = range(&document.text, start, word.len());
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: contents,
            }),
            range: Some(range),
        })
    }

    fn definition(&self, uri: &str, position: Position) -> Option<GotoDefinitionResponse> {
        let document = self.documents.get(uri)?;
        let session = document.checked.as_ref()?;
        let (_, word) = word_at(&document.text, offset(&document.text, position))?;
        // `Graph.node` goes to the graph.
        let name = word.split('.').next().unwrap_or(word);
        let declaration = session.program().names.get(name)?;
        let span = declaration.span;
        Some(GotoDefinitionResponse::Scalar(Location {
            uri: document.uri.clone(),
            range: range(&document.text, span.offset(), span.len()),
        }))
    }

    fn symbols(&self, uri: &str) -> Option<DocumentSymbolResponse> {
        let document = self.documents.get(uri)?;
        let session = document.checked.as_ref()?;
        let symbols = session
            .program()
            .names
            .iter()
            .map(|(name, declaration)| {
                let (kind, detail) = match declaration.kind {
                    DeclarationKind::Game(id) => {
                        let params = session.program().game(id).params.join(", ");
                        (SymbolKind::FUNCTION, format!("game {name}({params})"))
                    }
                    DeclarationKind::Graph(_) => (SymbolKind::MODULE, format!("graph {name}")),
                    DeclarationKind::Let(_) | DeclarationKind::Constant(_) => {
                        (SymbolKind::CONSTANT, format!("let {name}"))
                    }
                };
                let span = declaration.span;
                let range = range(&document.text, span.offset(), span.len());
                #[allow(deprecated, reason = "the field must be given, and is deprecated")]
                DocumentSymbol {
                    name: name.clone(),
                    detail: Some(detail),
                    kind,
                    tags: None,
                    deprecated: None,
                    range,
                    selection_range: range,
                    children: None,
                }
            })
            .collect();
        Some(DocumentSymbolResponse::Nested(symbols))
    }
}

/// A session of the declarations of a text that does not check, as far as
/// they do: the queries, and then each statement an error points into, are
/// blanked out (white space, so that offsets stay) until the rest checks.
/// `None` when the text does not parse.
fn best_effort(name: &str, text: &str) -> Option<Session> {
    let program = crate::syntax::parse(text, 0).ok()?;
    let mut masked = text.to_owned();
    let blank = |masked: &mut String, at: miette::SourceSpan| {
        let range = at.offset()..at.offset() + at.len();
        let spaces: String = masked[range.clone()]
            .chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' })
            .collect();
        masked.replace_range(range, &spaces);
    };
    for statement in &program.statements {
        if matches!(statement, Statement::Query(_)) {
            blank(&mut masked, statement.span());
        }
    }
    for _ in 0..=program.statements.len() {
        let mut session = Session::new(MAX_STATES);
        let report = match session.declare(name, &masked, &mut |_| {}) {
            Ok(_) => return Some(session),
            Err(report) => report,
        };
        let at = errors(&report)
            .first()
            .and_then(|error| primary(*error))?
            .offset();
        let culprit = program
            .statements
            .iter()
            .map(Statement::span)
            .find(|span| span.offset() <= at && at <= span.offset() + span.len())?;
        blank(&mut masked, culprit);
    }
    None
}

/// The answer to the query the line at `at` asks, when it is cheap: the
/// declarations of the document's last text that checked, and that line,
/// run within small limits.
fn query_answer(checked: &Session, text: &str, at: usize) -> Option<String> {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let line = text[line_start..line_end].trim();
    let keyword = line.split_whitespace().next()?;
    if !crate::syntax::KEYWORDS.contains(&keyword)
        || ["game", "graph", "let", "move"].contains(&keyword)
    {
        return None;
    }
    // The declarations, without the file's other queries.
    let mut session = Session::new(MAX_STATES / 10);
    session.set_max_work(MAX_WORK / 10);
    session.set_max_rows(HOVER_ROWS);
    session.refuse_files();
    for name in checked.program().names.keys() {
        let source = checked.source_of(name)?;
        session.declare("hover", source, &mut |_| {}).ok()?;
    }
    let mut answers = Vec::new();
    let mut failed = None;
    session.run("hover", line, &mut |event| match event {
        Event::Answer(answer) => answers.push(output::text(&answer)),
        Event::Error(report) => failed = Some(report.to_string()),
        _ => {}
    });
    Some(match (answers.is_empty(), failed) {
        (true, Some(error)) => format!("not computed: {error}"),
        _ => format!("```\n{}\n```", answers.join("\n")),
    })
}

/// The name (letters, digits, `_`, `.`, `?`) around a byte offset, with
/// where it starts.
fn word_at(text: &str, at: usize) -> Option<(usize, &str)> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '.';
    let start = text[..at].rfind(|c| !is_word(c)).map_or(0, |i| i + 1);
    let end = text[at..]
        .find(|c| !is_word(c))
        .map_or(text.len(), |i| at + i);
    let word = text[start..end].trim_end_matches('.');
    (!word.is_empty()).then_some((start, word))
}

/// The diagnostics of a report: one per error (a report of several
/// checking errors has them as related diagnostics).
fn diagnostics(report: &Report, uri: &Uri, text: &str) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    let add = |diagnostic: &dyn miette::Diagnostic| {
        let labels: Vec<miette::LabeledSpan> = diagnostic
            .labels()
            .map(Iterator::collect)
            .unwrap_or_default();
        let at = primary(diagnostic).map_or(Range::default(), |label| {
            range(text, label.offset(), label.len())
        });
        let mut message = diagnostic.to_string();
        if let Some(help) = diagnostic.help() {
            message += &format!("\nhelp: {help}");
        }
        let related = labels
            .iter()
            .filter(|label| label.label().is_some())
            .map(|label| DiagnosticRelatedInformation {
                location: Location {
                    uri: uri.clone(),
                    range: range(text, label.offset(), label.len()),
                },
                message: label.label().unwrap_or_default().to_owned(),
            })
            .collect::<Vec<_>>();
        found.push(Diagnostic {
            range: at,
            severity: Some(DiagnosticSeverity::ERROR),
            code: diagnostic
                .code()
                .map(|code| NumberOrString::String(code.to_string())),
            source: Some("sprague".into()),
            message,
            related_information: (!related.is_empty()).then_some(related),
            ..Default::default()
        });
    };
    errors(report).into_iter().for_each(add);
    found
}

/// The errors of a report: itself, or the checking errors it groups as
/// related diagnostics.
fn errors(report: &Report) -> Vec<&dyn miette::Diagnostic> {
    let related: Vec<_> = report.related().into_iter().flatten().collect();
    match related.is_empty() {
        true => vec![report.as_ref()],
        false => related,
    }
}

/// Where an error is: its primary label, or its first.
fn primary(diagnostic: &dyn miette::Diagnostic) -> Option<miette::LabeledSpan> {
    let mut labels = diagnostic.labels()?.peekable();
    let first = labels.peek().cloned();
    labels.find(|label| label.primary()).or(first)
}

/// The byte offset of an LSP position (a line, and UTF-16 units into it).
fn offset(text: &str, position: Position) -> usize {
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
fn range(text: &str, offset: usize, len: usize) -> Range {
    Range {
        start: position(text, offset),
        end: position(text, offset + len),
    }
}

fn position(text: &str, offset: usize) -> Position {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() as u32;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let character = before[line_start..].encode_utf16().count() as u32;
    Position { line, character }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units() {
        let text = "ab\n⊕x\n";
        assert_eq!(position(text, 0), Position::new(0, 0));
        assert_eq!(position(text, 3), Position::new(1, 0));
        // ⊕ is three bytes, one UTF-16 unit.
        assert_eq!(position(text, 6), Position::new(1, 1));
        assert_eq!(offset(text, Position::new(1, 1)), 6);
        assert_eq!(offset(text, Position::new(9, 0)), text.len());
    }
}
