//! `sprague lsp`: a language server over standard input and output, a
//! thin layer over [`Session`] like every other front end. A document is
//! checked as it is edited (every parse and check error, with the codes
//! and messages the command line prints), and run on save within small
//! limits (evaluation errors then join them). It completes keywords and
//! the names declared, hovers a game's declaration or a query's answer
//! (when it is cheap), goes to the declaration of a game, graph or `let`,
//! and lists a document's declarations as symbols.
//!
//! Evaluation (a save's run, a hover's answer) happens in a worker process
//! with a time budget ([`worker`]), so that the server answers meanwhile
//! and outlives whatever the evaluator does. The input is read by a
//! forgiving reader ([`transport`]): a frame it cannot read is answered
//! with a JSON-RPC error, and the server goes on.

mod positions;
mod reports;
mod transport;
pub mod worker;

use std::collections::HashMap;
use std::io::Write;
use std::process::ExitCode;
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Duration;

use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
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
use serde_json::{Value as Json, json};

use crate::program::DeclarationKind;
use crate::session::Session;
use crate::syntax::ast::Statement;
use positions::{Lines, offset, range, word_at, word_start};
use reports::{diagnostics, errors, primary, publish, run_diagnostics};
use transport::{Incoming, Reader};
use worker::{End, Job, Outcome, Progress, Work};

/// The states a save's run, or a hover's query, may solve.
const MAX_STATES: usize = 100_000;
/// The options one search may examine then.
const MAX_WORK: u64 = 10_000_000;
/// The most rows of a query's table a hover shows.
const HOVER_ROWS: usize = 8;
/// How long a save's run may take (its queries not answered by then are
/// not run), and a hover's answer.
const RUN_BUDGET: Duration = Duration::from_secs(10);
const ANSWER_BUDGET: Duration = Duration::from_secs(2);
/// How long `exit` waits for the runs in progress to be killed.
const EXIT_WAIT: Duration = Duration::from_secs(2);

/// What the server's loop hears: a message from the client (read on a
/// thread of its own), the end of its input, or a finished run.
enum Input {
    Incoming(Incoming),
    Closed,
    Finished(u64, Outcome),
}

/// Serves until the client says `exit` (after `shutdown`: exit code 0;
/// without it, or when the input ends first: 1, as the protocol says).
pub fn run() -> ExitCode {
    let (inputs, received) = mpsc::channel();
    let reading = inputs.clone();
    let reader = std::thread::Builder::new()
        .name("sprague-lsp-reader".into())
        .spawn(move || {
            let mut reader = Reader::new(std::io::stdin().lock());
            while let Ok(Some(incoming)) = reader.next() {
                if reading.send(Input::Incoming(incoming)).is_err() {
                    return;
                }
            }
            let _ = reading.send(Input::Closed);
        });
    if let Err(error) = reader {
        telln!("sprague lsp: cannot read standard input: {error}");
        return ExitCode::FAILURE;
    }
    let mut server = Server::new(inputs);
    let shut_down = serve(&mut server, &received);
    server.stop(&received);
    match shut_down {
        true => ExitCode::SUCCESS,
        false => ExitCode::FAILURE,
    }
}

/// The server's loop; returns whether `shutdown` came before the end.
fn serve(server: &mut Server, received: &Receiver<Input>) -> bool {
    let mut initialized = false;
    let mut shut_down = false;
    for input in received {
        let outgoing = match input {
            Input::Closed => return false,
            Input::Finished(job, outcome) => server.finished(job, outcome),
            Input::Incoming(Incoming::Malformed(malformed)) => {
                telln!("sprague lsp: {}", malformed.message);
                send_json(&malformed.response());
                Vec::new()
            }
            Input::Incoming(Incoming::Message(Message::Request(request))) => {
                let id = request.id.clone();
                let refuse = |code: ErrorCode, message: &str| {
                    vec![Response::new_err(id.clone(), code as i32, message.into()).into()]
                };
                match request.method.as_str() {
                    "initialize" if !initialized => {
                        initialized = true;
                        vec![Response::new_ok(id, initialize_result()).into()]
                    }
                    "initialize" => refuse(ErrorCode::InvalidRequest, "initialized already"),
                    _ if !initialized => refuse(
                        ErrorCode::ServerNotInitialized,
                        "the first request must be `initialize`",
                    ),
                    _ if shut_down => refuse(ErrorCode::InvalidRequest, "shut down already"),
                    "shutdown" => {
                        shut_down = true;
                        let mut outgoing = server.cancel_all();
                        outgoing.push(Response::new_ok(id, Json::Null).into());
                        outgoing
                    }
                    _ => server
                        .request(request)
                        .into_iter()
                        .map(Into::into)
                        .collect(),
                }
            }
            Input::Incoming(Incoming::Message(Message::Notification(notification))) => {
                match notification.method.as_str() {
                    "exit" => return shut_down,
                    _ if !initialized || shut_down => Vec::new(),
                    _ => server
                        .notification(notification)
                        .into_iter()
                        .map(Into::into)
                        .collect(),
                }
            }
            Input::Incoming(Incoming::Message(Message::Response(_))) => Vec::new(),
        };
        for message in outgoing {
            send(message);
        }
    }
    false
}

fn initialize_result() -> Json {
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
    json!({
        "capabilities": capabilities,
        "serverInfo": { "name": "sprague", "version": env!("CARGO_PKG_VERSION") },
    })
}

/// Writes a message to the client (standard output); a client gone is
/// heard as the end of the input.
fn send(message: Message) {
    let mut out = std::io::stdout().lock();
    let _ = message.write(&mut out);
}

fn send_json(message: &Json) {
    let mut out = std::io::stdout().lock();
    let _ = transport::write(&mut out, message);
    let _ = out.flush();
}

/// The open documents: each one's text, and the session of its last text
/// that checked (what completion and navigation read while it is being
/// typed into and does not); and the runs in progress.
struct Server {
    documents: HashMap<String, Document>,
    pending: HashMap<u64, Pending>,
    /// Runs started and not yet heard to finish (those cancelled too).
    running: usize,
    next_job: u64,
    inputs: Sender<Input>,
}

struct Document {
    uri: Uri,
    text: String,
    checked: Option<Session>,
}

/// What a run in progress is for; dropping it kills the run.
enum Pending {
    /// A saved document's run, of this text.
    Run { uri: Uri, text: String, _job: Job },
    /// A hover's answer, over this range.
    Answer {
        id: RequestId,
        range: Range,
        _job: Job,
    },
}

impl Server {
    fn new(inputs: Sender<Input>) -> Self {
        Server {
            documents: HashMap::new(),
            pending: HashMap::new(),
            running: 0,
            next_job: 0,
            inputs,
        }
    }

    /// Starts `work` in a worker; [`Server::finished`] hears its outcome.
    fn start(&mut self, work: Work, budget: Duration) -> (u64, Job) {
        let id = self.next_job;
        self.next_job += 1;
        self.running += 1;
        let inputs = self.inputs.clone();
        let job = worker::start(work, budget, move |outcome| {
            let _ = inputs.send(Input::Finished(id, outcome));
        });
        (id, job)
    }

    /// Kills the runs in progress; a hover waiting for one is answered
    /// with nothing.
    fn cancel_all(&mut self) -> Vec<Message> {
        self.pending
            .drain()
            .filter_map(|(_, pending)| match pending {
                Pending::Answer { id, .. } => Some(Response::new_ok(id, Json::Null).into()),
                Pending::Run { .. } => None,
            })
            .collect()
    }

    /// Kills the document's run in progress, if any.
    fn cancel_run(&mut self, uri: &str) {
        self.pending.retain(
            |_, pending| !matches!(pending, Pending::Run { uri: u, .. } if u.as_str() == uri),
        );
    }

    /// Kills every run and waits (a little) until their workers are gone.
    fn stop(&mut self, received: &Receiver<Input>) {
        self.pending.clear();
        while self.running > 0 {
            match received.recv_timeout(EXIT_WAIT) {
                Ok(Input::Finished(..)) => self.running -= 1,
                Ok(_) => {}
                Err(_) => break,
            }
        }
    }

    /// A run has ended: its diagnostics, or its hover, unless no longer
    /// wanted (the document was changed or saved again since).
    fn finished(&mut self, job: u64, outcome: Outcome) -> Vec<Message> {
        self.running -= 1;
        match self.pending.remove(&job) {
            Some(Pending::Run { uri, text, .. }) => {
                let current = self.documents.get(uri.as_str());
                if current.is_none_or(|document| document.text != text) {
                    return Vec::new();
                }
                let diagnostics = run_diagnostics(outcome, &text);
                vec![publish(uri, diagnostics).into()]
            }
            Some(Pending::Answer { id, range, .. }) => {
                let value = answer_text(outcome);
                let hover = value.map(|value| Hover {
                    contents: HoverContents::Markup(MarkupContent {
                        kind: MarkupKind::Markdown,
                        value,
                    }),
                    range: Some(range),
                });
                vec![Response::new_ok(id, hover).into()]
            }
            None => Vec::new(),
        }
    }

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
                    let uri = params.text_document.uri;
                    self.cancel_run(uri.as_str());
                    self.documents.remove(uri.as_str());
                }
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    /// A document's new text: checked, and its diagnostics published;
    /// with `run` and no checking error, run in a worker instead, whose
    /// diagnostics are published when it ends.
    fn edit(&mut self, uri: Uri, text: String, run: bool) -> Vec<Notification> {
        let name = uri.as_str().to_owned();
        self.cancel_run(&name);
        let mut session = Session::new(MAX_STATES);
        session.set_max_work(MAX_WORK);
        let report = session.declare(&name, &text, &mut |_| {}).err();
        let checked = report.is_none();
        let diagnostics = report
            .iter()
            .flat_map(|report| diagnostics(report, &uri, &text))
            .collect();
        // A text with errors still declares what it can: its statements
        // that check, at their own offsets.
        let session = match report {
            None => Some(session),
            Some(_) => best_effort(&name, &text),
        };
        let document = self.documents.entry(name).or_insert(Document {
            uri: uri.clone(),
            text: String::new(),
            checked: None,
        });
        document.text = text.clone();
        if session.is_some() {
            document.checked = session;
        }
        if run && checked {
            let work = Work::Run {
                uri: uri.clone(),
                text: text.clone(),
                max_states: MAX_STATES,
                max_work: MAX_WORK,
            };
            let (id, job) = self.start(work, RUN_BUDGET);
            self.pending.insert(
                id,
                Pending::Run {
                    uri,
                    text,
                    _job: job,
                },
            );
            return Vec::new();
        }
        vec![publish(uri, diagnostics)]
    }

    /// The response to a request, or `None` when it comes later (a
    /// hover's answer, computed by a worker).
    fn request(&mut self, request: Request) -> Option<Response> {
        let id = request.id.clone();
        let result = match request.method.as_str() {
            Completion::METHOD => {
                self.respond::<lsp_types::CompletionParams, _>(request, |server, params| {
                    let at = params.text_document_position;
                    server.completion(at.text_document.uri.as_str(), at.position)
                })
            }
            HoverRequest::METHOD => {
                let params = serde_json::from_value::<lsp_types::HoverParams>(request.params);
                match params {
                    Ok(params) => {
                        let at = params.text_document_position_params;
                        match self.hover(&id, at.text_document.uri.as_str(), at.position) {
                            Hovered::Now(hover) => {
                                serde_json::to_value(hover).map_err(|error| error.to_string())
                            }
                            Hovered::Later => return None,
                        }
                    }
                    Err(error) => Err(error.to_string()),
                }
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
                return Some(Response::new_err(
                    id,
                    ErrorCode::MethodNotFound as i32,
                    format!("sprague does not answer {}", request.method),
                ));
            }
        };
        Some(match result {
            Ok(value) => Response::new_ok(id, value),
            Err(message) => Response::new_err(id, ErrorCode::InvalidParams as i32, message),
        })
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
        let word_start = word_start(before, |c| {
            c.is_alphanumeric() || c == '_' || c == '.' || c == '?'
        });
        let typed = &before[word_start..];
        let mut items: Vec<CompletionItem> = Vec::new();
        if let Some(session) = &document.checked {
            for name in session.completions() {
                let kind = match session.program().names.get(&name).map(|d| d.kind) {
                    Some(DeclarationKind::Game(_)) => CompletionItemKind::FUNCTION,
                    Some(DeclarationKind::Graph(_) | DeclarationKind::Family(_)) => {
                        CompletionItemKind::MODULE
                    }
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

    /// A game's declaration, or the answer of the query on the line (which
    /// a worker computes: the response comes when it ends).
    fn hover(&mut self, id: &RequestId, uri: &str, position: Position) -> Hovered {
        let Some(document) = self.documents.get(uri) else {
            return Hovered::Now(None);
        };
        let Some(session) = document.checked.as_ref() else {
            return Hovered::Now(None);
        };
        let at = offset(&document.text, position);
        let Some((start, word)) = word_at(&document.text, at) else {
            return Hovered::Now(None);
        };
        let range = range(&document.text, start, word.len());
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
            None => {
                let Some(work) = query_work(session, &document.text, at) else {
                    return Hovered::Now(None);
                };
                let (job, running) = self.start(work, ANSWER_BUDGET);
                let id = id.clone();
                self.pending.insert(
                    job,
                    Pending::Answer {
                        id,
                        range,
                        _job: running,
                    },
                );
                return Hovered::Later;
            }
        };
        Hovered::Now(Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: contents,
            }),
            range: Some(range),
        }))
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
        let lines = Lines::new(&document.text);
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
                    DeclarationKind::Family(id) => {
                        let params = session.program().family(id).params.join(", ");
                        (SymbolKind::MODULE, format!("graph {name}({params})"))
                    }
                    DeclarationKind::Let(_) | DeclarationKind::Constant(_) => {
                        (SymbolKind::CONSTANT, format!("let {name}"))
                    }
                };
                // The whole declaration, and its name within it.
                let named = declaration.span;
                let whole = session.declaration_span(name).unwrap_or(named);
                #[allow(deprecated, reason = "the field must be given, and is deprecated")]
                DocumentSymbol {
                    name: name.clone(),
                    detail: Some(detail),
                    kind,
                    tags: None,
                    deprecated: None,
                    range: lines.range(whole.offset(), whole.len()),
                    selection_range: lines.range(named.offset(), named.len()),
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
/// Every statement the errors of one check point into goes at once, so a
/// thousand failing declarations cost a few checks, not a thousand.
/// `None` when the text does not parse.
fn best_effort(name: &str, text: &str) -> Option<Session> {
    let program = crate::syntax::parse(text, 0).ok()?;
    let mut masked = text.as_bytes().to_vec();
    // Each byte of a character becomes a space, so that every offset stays
    // where it was (a span covers whole characters).
    let blank = |masked: &mut Vec<u8>, at: miette::SourceSpan| {
        let end = (at.offset() + at.len()).min(masked.len());
        for byte in &mut masked[at.offset().min(end)..end] {
            if *byte != b'\n' {
                *byte = b' ';
            }
        }
    };
    for statement in &program.statements {
        if matches!(statement, Statement::Query(_)) {
            blank(&mut masked, statement.span());
        }
    }
    let spans: Vec<miette::SourceSpan> = program.statements.iter().map(Statement::span).collect();
    // The statements that name each declared name: a statement blanked out
    // takes with it those that refer to what it declared (a chain of lets
    // on a failing one would otherwise go one check at a time).
    let mut readers: HashMap<&str, Vec<usize>> = HashMap::new();
    for (index, statement) in program.statements.iter().enumerate() {
        for name in crate::lower::references(statement) {
            readers.entry(name).or_default().push(index);
        }
    }
    let mut blanked = vec![false; spans.len()];
    for _ in 0..=spans.len() {
        let mut session = Session::new(MAX_STATES);
        let text = std::str::from_utf8(&masked).ok()?;
        let report = match session.declare(name, text, &mut |_| {}) {
            Ok(_) => return Some(session),
            Err(report) => report,
        };
        let mut culprits: Vec<usize> = errors(&report)
            .into_iter()
            .filter_map(primary)
            .filter_map(|label| {
                let at = label.offset();
                // The statements are in order: the last one starting at or
                // before the error.
                let index = spans
                    .partition_point(|span| span.offset() <= at)
                    .checked_sub(1)?;
                let span = spans[index];
                (at <= span.offset() + span.len() && !blanked[index]).then_some(index)
            })
            .collect();
        if culprits.is_empty() {
            return None;
        }
        while let Some(index) = culprits.pop() {
            if std::mem::replace(&mut blanked[index], true) {
                continue;
            }
            blank(&mut masked, spans[index]);
            let declared = crate::lower::declared_name(&program.statements[index]);
            if let Some(readers) = declared.and_then(|declared| readers.get(declared.name.as_str()))
            {
                culprits.extend(readers.iter().filter(|&&reader| !blanked[reader]));
            }
        }
    }
    None
}

/// A hover's answer, now or later.
enum Hovered {
    Now(Option<Hover>),
    Later,
}

/// The query at `at`: the whole statement when the text parses (a query
/// may run over several lines; a comment after it is not it), else the
/// line, if it starts as a query does.
fn query_at(text: &str, at: usize) -> Option<&str> {
    if let Ok(program) = crate::syntax::parse(text, 0) {
        return program.statements.iter().find_map(|statement| {
            let span = statement.span();
            let within = (span.offset()..=span.offset() + span.len()).contains(&at);
            (matches!(statement, Statement::Query(_)) && within)
                .then(|| &text[span.offset()..span.offset() + span.len()])
        });
    }
    let line_start = text[..at].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let line_end = text[at..].find(['\n', '\r']).map_or(text.len(), |i| at + i);
    let line = text[line_start..line_end].trim();
    let keyword = line.split_whitespace().next()?;
    (crate::syntax::KEYWORDS.contains(&keyword)
        && !["game", "graph", "let", "move"].contains(&keyword))
    .then_some(line)
}

/// The work of answering the query at `at`: the declarations of the
/// document's last text that checked, and that query, run within small
/// limits. `None` when there is no query there.
fn query_work(checked: &Session, text: &str, at: usize) -> Option<Work> {
    let line = query_at(text, at)?;
    // The declarations, without the file's other queries.
    let declarations = checked
        .program()
        .names
        .keys()
        .map(|name| checked.source_of(name).map(str::to_owned))
        .collect::<Option<Vec<_>>>()?;
    Some(Work::Answer {
        declarations,
        line: line.to_owned(),
        max_states: MAX_STATES / 10,
        max_work: MAX_WORK / 10,
        max_rows: HOVER_ROWS,
    })
}

/// A hover's text from its worker's outcome (`None` when no longer wanted).
fn answer_text(outcome: Outcome) -> Option<String> {
    let answer = outcome
        .progress
        .into_iter()
        .find_map(|progress| match progress {
            Progress::Answer(answer) => Some(answer),
            Progress::Panicked(message) => {
                Some(format!("not computed: sprague failed ({message})"))
            }
            _ => None,
        });
    match outcome.end {
        End::Finished => answer,
        End::Cancelled => None,
        End::OutOfTime => Some(format!(
            "not computed: not answered within {} s",
            ANSWER_BUDGET.as_secs()
        )),
        End::Failed(why) => Some(format!("not computed: {why}")),
    }
}

#[cfg(test)]
mod tests {
    use super::positions::Lines;
    use super::*;

    #[test]
    fn positions_count_utf16_units() {
        let text = "ab\n⊕x\n";
        let lines = Lines::new(text);
        assert_eq!(lines.position(0), Position::new(0, 0));
        assert_eq!(lines.position(3), Position::new(1, 0));
        // ⊕ is three bytes, one UTF-16 unit; inside it counts from its start.
        assert_eq!(lines.position(6), Position::new(1, 1));
        assert_eq!(lines.position(5), Position::new(1, 0));
        assert_eq!(lines.position(99), Position::new(2, 0));
        assert_eq!(offset(text, Position::new(1, 1)), 6);
        assert_eq!(offset(text, Position::new(9, 0)), text.len());
        // A `\r` alone ends a line, as `\n` and `\r\n` do.
        let text = "a\rb\r\nc\nd";
        let lines = Lines::new(text);
        for (at, line) in [(0, 0), (2, 1), (5, 2), (7, 3)] {
            assert_eq!(lines.position(at), Position::new(line, 0), "{at}");
            assert_eq!(offset(text, Position::new(line, 0)), at);
        }
        assert_eq!(offset(text, Position::new(1, 5)), 3);
    }

    /// A save's run stopped by its time bound says so once, as a warning
    /// on the query: the interrupted error the stop raised (whose help
    /// speaks of Ctrl-C) is not shown beside it.
    #[test]
    fn a_run_out_of_time_is_a_warning_not_an_interruption() {
        let text = "grundy G(9)\ngrundy *1\n";
        let interrupted = Diagnostic {
            code: Some(NumberOrString::String("sprague::eval::interrupted".into())),
            message: "interrupted".into(),
            ..Default::default()
        };
        let outcome = worker::Outcome {
            progress: vec![
                worker::Progress::Query { offset: 7, len: 4 },
                worker::Progress::Diagnostics(vec![interrupted]),
            ],
            end: worker::End::OutOfTime,
        };
        let diagnostics = reports::run_diagnostics(outcome, text);
        assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
        assert_eq!(diagnostics[0].severity, Some(DiagnosticSeverity::WARNING));
        assert!(diagnostics[0].message.contains("not answered within"));
        assert_eq!(diagnostics[0].range, Lines::new(text).range(7, 4));
    }
}
