//! Evaluation for the language server, in a process of its own
//! (`sprague lsp --evaluate`): whatever a document makes the evaluator do
//! — recurse without end, overflow its stack, run out of memory, or run
//! for minutes — the server goes on answering. A run has a time budget:
//! the worker stops its search at the budget (the engine's watcher, as
//! Ctrl-C does in the command line), and is killed a little later if it
//! has not stopped; a run no longer wanted (the document saved again,
//! closed, or the server shut down) is killed at once.

use std::io::{BufRead, BufReader, Read, Write};
use std::panic::{self, AssertUnwindSafe};
use std::process::{Command, ExitCode, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use lsp_types::{Diagnostic, Uri};
use serde::{Deserialize, Serialize};

use crate::output;
use crate::session::{Event, Session};

/// What the server asks of a worker, on its standard input.
#[derive(Serialize, Deserialize)]
pub enum Work {
    /// A saved document's queries, run: their evaluation errors.
    Run {
        uri: Uri,
        text: String,
        max_states: usize,
        max_work: u64,
    },
    /// The answer to a query line, after the given declarations.
    Answer {
        declarations: Vec<String>,
        line: String,
        max_states: usize,
        max_work: u64,
        max_rows: usize,
    },
}

/// What a worker writes as it goes, one JSON line each.
#[derive(Serialize, Deserialize)]
pub enum Progress {
    /// A query (its byte range in the document) is being answered.
    Query {
        offset: usize,
        len: usize,
    },
    Diagnostics(Vec<Diagnostic>),
    Answer(String),
    /// The evaluator panicked: a bug, with its message.
    Panicked(String),
    Done,
}

/// How a run ended.
pub enum End {
    /// It wrote everything it had to.
    Finished,
    /// It did not end within its budget, and was stopped.
    OutOfTime,
    /// It was no longer wanted, and was killed.
    Cancelled,
    /// It ended without finishing: a panic, an abort (a stack overflow,
    /// memory), or a worker that could not be started.
    Failed(String),
}

pub struct Outcome {
    pub progress: Vec<Progress>,
    pub end: End,
}

/// A run in progress; dropping it kills the run.
pub struct Job {
    cancelled: Arc<AtomicBool>,
}

impl Drop for Job {
    fn drop(&mut self) {
        self.cancelled.store(true, Ordering::SeqCst);
    }
}

/// How often a run is checked for its budget and cancellation.
const POLL: Duration = Duration::from_millis(10);
/// How long after its budget a worker is given to stop by itself.
const GRACE: Duration = Duration::from_secs(2);

/// Starts `work` in a worker process, calling `done` (on another thread)
/// with what it wrote and how it ended.
pub fn start(work: Work, budget: Duration, done: impl FnOnce(Outcome) + Send + 'static) -> Job {
    let cancelled = Arc::new(AtomicBool::new(false));
    let watched = cancelled.clone();
    let spawned = std::thread::Builder::new()
        .name("sprague-lsp-job".into())
        .spawn(move || done(supervise(&work, budget, &watched)));
    if let Err(error) = spawned {
        telln!("sprague lsp: cannot start a thread to evaluate: {error}");
    }
    Job { cancelled }
}

fn supervise(work: &Work, budget: Duration, cancelled: &AtomicBool) -> Outcome {
    let failed = |why: String| Outcome {
        progress: Vec::new(),
        end: End::Failed(why),
    };
    let program = match std::env::current_exe() {
        Ok(program) => program,
        Err(error) => return failed(format!("cannot find sprague's own program: {error}")),
    };
    let mut child = match Command::new(program)
        .args(["lsp", "--evaluate"])
        .env("SPRAGUE_LSP_BUDGET_MS", budget.as_millis().to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
    {
        Ok(child) => child,
        Err(error) => return failed(format!("cannot start an evaluator: {error}")),
    };
    let input = serde_json::to_vec(work).expect("work is JSON");
    let mut stdin = child.stdin.take().expect("piped");
    // The worker reads all of it before it starts; one that has died
    // already makes this fail, and its status says why.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let stdout = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .filter_map(|line| serde_json::from_str::<Progress>(&line).ok())
            .collect::<Vec<_>>()
    });
    let deadline = Instant::now() + budget + GRACE;
    let status: Result<ExitStatus, End> = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Ok(status),
            Ok(None) => {}
            Err(error) => break Err(End::Failed(error.to_string())),
        }
        if cancelled.load(Ordering::SeqCst) {
            break Err(End::Cancelled);
        }
        if Instant::now() >= deadline {
            break Err(End::OutOfTime);
        }
        std::thread::sleep(POLL);
    };
    if status.is_err() {
        let _ = child.kill();
        let _ = child.wait();
    }
    let _ = writer.join();
    let progress = reader.join().unwrap_or_default();
    let end = match status {
        Err(end) => end,
        Ok(_) if matches!(progress.last(), Some(Progress::Done)) => End::Finished,
        Ok(status) => End::Failed(format!("the evaluator stopped ({status})")),
    };
    Outcome { progress, end }
}

/// `sprague lsp --evaluate`: does the work on standard input, writing its
/// progress on standard output.
pub fn evaluate() -> ExitCode {
    let mut input = Vec::new();
    if std::io::stdin().read_to_end(&mut input).is_err() {
        return ExitCode::FAILURE;
    }
    let Ok(work) = serde_json::from_slice::<Work>(&input) else {
        telln!("sprague lsp --evaluate: its input is not work");
        return ExitCode::FAILURE;
    };
    let budget = std::env::var("SPRAGUE_LSP_BUDGET_MS")
        .ok()
        .and_then(|ms| ms.parse().ok())
        .map_or(Duration::from_secs(10), Duration::from_millis);
    let deadline = Instant::now() + budget;
    // A worker whose server is gone (killed itself) is not left running.
    std::thread::spawn(move || {
        std::thread::sleep(budget + 2 * GRACE);
        std::process::exit(2);
    });
    let stdout = std::io::stdout();
    let tell = |progress: Progress| {
        let mut out = stdout.lock();
        let line = serde_json::to_string(&progress).expect("progress is JSON");
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    };
    // A panic is told as a diagnostic (its message, not the default
    // hook's print, which the editor shows only in its log).
    panic::set_hook(Box::new(|_| {}));
    let outcome = panic::catch_unwind(AssertUnwindSafe(|| match work {
        Work::Run {
            uri,
            text,
            max_states,
            max_work,
        } => run(&uri, &text, max_states, max_work, deadline, &tell),
        Work::Answer {
            declarations,
            line,
            max_states,
            max_work,
            max_rows,
        } => {
            let mut session = Session::new(max_states);
            session.set_max_work(max_work);
            session.set_max_rows(max_rows);
            session.refuse_files();
            session.set_watcher(Some(Box::new(move |_| Instant::now() < deadline)));
            tell(Progress::Answer(answer(&mut session, &declarations, &line)));
        }
    }));
    if let Err(panic) = outcome {
        let message = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "a panic".into());
        tell(Progress::Panicked(message));
    }
    tell(Progress::Done);
    ExitCode::SUCCESS
}

/// Runs a document's queries, one at a time, telling which before each.
fn run(
    uri: &Uri,
    text: &str,
    max_states: usize,
    max_work: u64,
    deadline: Instant,
    tell: &dyn Fn(Progress),
) {
    let name = uri.as_str();
    let mut session = Session::new(max_states);
    session.set_max_work(max_work);
    session.refuse_files();
    session.set_watcher(Some(Box::new(move |_| Instant::now() < deadline)));
    let queries = match session.declare(name, text, &mut |_| {}) {
        Ok(queries) => queries,
        Err(report) => {
            tell(Progress::Diagnostics(super::diagnostics(
                &report, uri, text,
            )));
            return;
        }
    };
    for query in &queries {
        if Instant::now() >= deadline {
            break;
        }
        tell(Progress::Query {
            offset: query.span.offset(),
            len: query.span.len(),
        });
        let mut reports = Vec::new();
        session.answer_query(query, &mut |event| {
            if let Event::Error(report) = event {
                reports.push(report);
            }
        });
        let diagnostics = reports
            .iter()
            .flat_map(|report| super::diagnostics(report, uri, text))
            .collect();
        tell(Progress::Diagnostics(diagnostics));
    }
}

/// The answer of a query line, or why it was not computed.
fn answer(session: &mut Session, declarations: &[String], line: &str) -> String {
    for source in declarations {
        if let Err(report) = session.declare("hover", source, &mut |_| {}) {
            return format!("not computed: {report}");
        }
    }
    let mut answers = Vec::new();
    let mut failed = None;
    session.run("hover", line, &mut |event| match event {
        Event::Answer(answer) => answers.push(output::text(&answer)),
        Event::Error(report) => failed = Some(report.to_string()),
        _ => {}
    });
    match (answers.is_empty(), failed) {
        (true, Some(error)) => format!("not computed: {error}"),
        _ => format!("```\n{}\n```", answers.join("\n")),
    }
}
