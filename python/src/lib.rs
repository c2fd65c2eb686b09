//! `sprague._sprague`: the engine's session for Python, a thin layer over
//! `sprague::session` as the command line, the REPL and the server are.
//! Answers are the JSON objects `sprague run --json` prints, made Python
//! objects; errors are miette's diagnostics, raised as `GameError`. The
//! engine works on a thread of its own with the evaluator's large stack,
//! the GIL released, while the calling thread listens for Ctrl-C.

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use miette::{Diagnostic, Report};
use pyo3::BoundObject;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyDict, PyList, PyString};
use serde_json::Value as Json;
use sprague::engine::{DEFAULT_MAX_STATES, DEFAULT_MAX_WORK};
use sprague::interp::Component;
use sprague::output::{self, ErrorStyle};
use sprague::session::{
    Asked, DEFAULT_MAX_DRAW, DEFAULT_MAX_ROWS, DEFAULT_MAX_SEARCH, DEFAULT_MAX_SOURCE, Event,
    PictureRequest, Session, Value,
};
use sprague::syntax::ast::QueryKind;

create_exception!(
    sprague,
    GameError,
    PyException,
    "An error in a source or a query: the diagnostic `sprague run` prints, with its message, \
     line and column (from 1), code and help as attributes."
);

/// How often the calling thread listens for Ctrl-C while the engine works.
const LISTEN_EVERY: Duration = Duration::from_millis(50);

/// How long work runs before the progress function is first called, and
/// how often after that.
const QUIET_FOR: Duration = Duration::from_millis(500);
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// What the session told while it worked: the answers, as `run --json`
/// prints them and as `run` does; the first error, which ends the work;
/// the notes; and the positions a `play` query asked to play.
#[derive(Default)]
struct Told {
    answers: Vec<(Json, String)>,
    error: Option<Report>,
    notes: Vec<String>,
    plays: Vec<Vec<Component>>,
}

impl Told {
    fn take(&mut self, event: Event) {
        match event {
            Event::Answer(answer) => self
                .answers
                .push((output::json(&answer), output::text(&answer))),
            Event::Note(note) => self.notes.push(note),
            Event::Play(play) => self.plays.push(play.position),
            Event::Error(report) => {
                self.error.get_or_insert(report);
            }
        }
    }

    /// `play` needs a board to play on: it is a note here, as on the page.
    fn note_plays(&mut self, session: &Session) {
        for position in self.plays.drain(..) {
            self.notes.push(format!(
                "play {}: play it in `sprague repl`",
                session.show(&position)
            ));
        }
    }
}

/// A session: the declarations made so far and the engine's memo.
#[pyclass(module = "sprague._sprague", name = "Session", subclass)]
struct PySession {
    session: Mutex<Session>,
    /// How many sources and queries were given, to name each one.
    entries: AtomicUsize,
    /// Called with the positions solved while long work runs.
    progress: Option<Py<PyAny>>,
}

#[pymethods]
impl PySession {
    #[new]
    #[pyo3(signature = (
        *,
        max_states = DEFAULT_MAX_STATES,
        threads = None,
        max_work = DEFAULT_MAX_WORK,
        max_search = DEFAULT_MAX_SEARCH,
        max_rows = DEFAULT_MAX_ROWS,
        max_draw = DEFAULT_MAX_DRAW,
        max_source = DEFAULT_MAX_SOURCE,
        progress = None,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        max_states: usize,
        threads: Option<usize>,
        max_work: u64,
        max_search: usize,
        max_rows: usize,
        max_draw: usize,
        max_source: usize,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Self> {
        // Interactive, as the REPL's: a notebook's cell run again
        // redeclares its games.
        let mut session = Session::interactive(max_states);
        session.set_max_work(max_work);
        session.set_max_search(max_search);
        session.set_max_rows(max_rows);
        session.set_max_draw(max_draw);
        session.set_max_source(max_source);
        if let Some(threads) = threads {
            if threads == 0 {
                return Err(PyValueError::new_err("threads must be at least 1"));
            }
            // As `--threads`: more than the cores only wait for each other.
            let cores = std::thread::available_parallelism().map_or(1, |cores| cores.get());
            session.set_threads(threads.min(cores));
        }
        Ok(PySession {
            session: Mutex::new(session),
            entries: AtomicUsize::new(0),
            progress,
        })
    }

    /// Declares a source's games and answers its queries in order; the
    /// first error ends it. Returns the answers and the notes.
    #[pyo3(signature = (source, name = None))]
    fn run(
        &self,
        py: Python<'_>,
        source: String,
        name: Option<String>,
    ) -> PyResult<(Py<PyAny>, Vec<String>)> {
        let name = name.unwrap_or_else(|| self.entry_name());
        let told = self.compute(py, move |session| {
            let mut told = Told::default();
            match session.declare(&name, &source, &mut |event| told.take(event)) {
                Ok(queries) => {
                    for query in &queries {
                        if told.error.is_some() {
                            break;
                        }
                        session.answer_query(query, &mut |event| told.take(event));
                    }
                }
                Err(report) => told.error = Some(report),
            }
            told.note_plays(session);
            told
        })?;
        answered(py, told)
    }

    /// Asks one query of a position typed alone: `kind` is its keyword
    /// (`grundy`, `wins?`, `best_move`, `moves`, `why`, `draw`, …).
    #[pyo3(signature = (kind, position, misere = false))]
    fn ask(
        &self,
        py: Python<'_>,
        kind: &str,
        position: String,
        misere: bool,
    ) -> PyResult<(Py<PyAny>, Vec<String>)> {
        let kind = query_kind(kind)?;
        let name = self.entry_name();
        let told = self.compute(py, move |session| {
            let mut told = Told::default();
            let asked = Asked::Position {
                kind,
                misere,
                position: &position,
            };
            session.ask(&name, asked, &mut |event| told.take(event));
            told.note_plays(session);
            told
        })?;
        answered(py, told)
    }

    /// `period GAME`.
    fn period(&self, py: Python<'_>, game: String) -> PyResult<(Py<PyAny>, Vec<String>)> {
        let name = self.entry_name();
        let told = self.compute(py, move |session| {
            let mut told = Told::default();
            let asked = Asked::Period { game: &game };
            session.ask(&name, asked, &mut |event| told.take(event));
            told
        })?;
        answered(py, told)
    }

    /// `plot GAME` for each parameter from 0 to `to`, as SVG.
    fn plot(&self, py: Python<'_>, game: String, to: usize) -> PyResult<(Py<PyAny>, Vec<String>)> {
        let told = self.compute(py, move |session| {
            let mut told = Told::default();
            let request = PictureRequest::Plot { game: &game, to };
            session.picture(request, None, &mut |event| told.take(event));
            told
        })?;
        answered(py, told)
    }

    /// The values of a game of one parameter for `start <= n < end`, as
    /// the bytes of an array of unsigned integers in the machine's order,
    /// and the array's type code: `H` (two bytes) when every value is
    /// below 2^16, else `Q`.
    fn values<'py>(
        &self,
        py: Python<'py>,
        game: String,
        start: i64,
        end: i64,
    ) -> PyResult<(Bound<'py, PyByteArray>, &'static str)> {
        let name = self.entry_name();
        let (values, told, loopy) = self.compute(py, move |session| {
            let mut told = Told::default();
            let rows = usize::try_from(end.saturating_sub(start)).unwrap_or(0);
            let mut values: Vec<u64> = Vec::with_capacity(rows.min(1 << 24));
            let mut loopy = None;
            let asked = Asked::Values {
                game: &game,
                start,
                end,
            };
            session.ask(&name, asked, &mut |event| match event {
                Event::Answer(answer) => match answer.value {
                    Value::Grundy(value) => values.push(value),
                    _ => {
                        loopy.get_or_insert_with(|| output::text(&answer));
                    }
                },
                event => told.take(event),
            });
            (values, told, loopy)
        })?;
        if told.error.is_some() {
            answered(py, told)?;
        }
        if let Some(loopy) = loopy {
            return Err(GameError::new_err(format!(
                "{loopy}: `values` holds finite values only; ask `grundy` of that position for its ∞"
            )));
        }
        let bytes = match values.iter().all(|&value| value <= u64::from(u16::MAX)) {
            true => {
                let narrow: Vec<u8> = values
                    .iter()
                    .flat_map(|&value| (value as u16).to_ne_bytes())
                    .collect();
                (PyByteArray::new(py, &narrow), "H")
            }
            false => {
                let wide: Vec<u8> = values
                    .iter()
                    .flat_map(|value| value.to_ne_bytes())
                    .collect();
                (PyByteArray::new(py, &wide), "Q")
            }
        };
        Ok(bytes)
    }

    /// The games declared, with the names of their parameters.
    fn games(&self, py: Python<'_>) -> Vec<(String, Vec<String>)> {
        py.detach(|| {
            let session = self.session.lock().unwrap_or_else(PoisonError::into_inner);
            let games = session.games();
            games
                .into_iter()
                .map(|(name, _)| {
                    let params = session.parameters(&name);
                    (name, params)
                })
                .collect()
        })
    }

    /// Panics on the engine's thread: for the test that a panic is raised
    /// as an error, and the interpreter lives on.
    fn _panic(&self, py: Python<'_>) -> PyResult<()> {
        self.compute(py, |_| panic!("a panic asked for by the test"))
    }
}

impl PySession {
    /// A name for the next source given, as the REPL names its entries.
    fn entry_name(&self) -> String {
        format!(
            "<python {}>",
            self.entries.fetch_add(1, Ordering::SeqCst) + 1
        )
    }

    /// Runs `work` on the session, on a thread with the evaluator's stack
    /// and the GIL released. Ctrl-C (a signal Python heard) stops the work,
    /// which keeps what it learned, and is raised once the work has ended;
    /// a panic is raised as `GameError`.
    fn compute<T: Send>(
        &self,
        py: Python<'_>,
        work: impl FnOnce(&mut Session) -> T + Send,
    ) -> PyResult<T> {
        let progress = self
            .progress
            .as_ref()
            .map(|progress| progress.clone_ref(py));
        py.detach(|| {
            let mut session = self.session.lock().unwrap_or_else(PoisonError::into_inner);
            let stop = Arc::new(AtomicBool::new(false));
            let solved = Arc::new(AtomicUsize::new(0));
            let (watched, counted) = (stop.clone(), solved.clone());
            session.set_watcher(Some(Box::new(move |tally| {
                counted.store(tally.states, Ordering::Relaxed);
                !watched.load(Ordering::SeqCst)
            })));
            session.set_stop(Some(stop.clone()));
            let outcome = std::thread::scope(|scope| {
                let (done, ended) = mpsc::channel::<()>();
                let session = &mut *session;
                let worker = std::thread::Builder::new()
                    .name("sprague-evaluator".into())
                    .stack_size(sprague::front::STACK_SIZE)
                    .spawn_scoped(scope, move || {
                        let result = std::panic::catch_unwind(AssertUnwindSafe(|| work(session)));
                        let _ = done.send(());
                        result
                    })
                    .map_err(|error| {
                        PyRuntimeError::new_err(format!(
                            "cannot start the thread that evaluates: {error}"
                        ))
                    })?;
                let interrupted = listen(&ended, &stop, &solved, progress.as_ref());
                let result = worker.join().unwrap_or_else(Err);
                match (interrupted, result) {
                    (Some(error), _) => Err(error),
                    (None, Ok(value)) => Ok(value),
                    (None, Err(panic)) => Err(GameError::new_err(format!(
                        "sprague failed inside ({}); the session lives on, but a value \
                         being found may be lost: please report the input that did this",
                        panic_text(panic.as_ref())
                    ))),
                }
            });
            session.set_watcher(None);
            session.set_stop(None);
            outcome
        })
    }
}

/// Waits for the engine's thread to end, listening for Ctrl-C (Python's
/// signal handlers run here) and telling `progress` the positions solved
/// once the work has run a while. A KeyboardInterrupt, or an error of the
/// progress function, sets the stop flag; the first is returned, to be
/// raised once the work has ended.
fn listen(
    ended: &Receiver<()>,
    stop: &AtomicBool,
    solved: &AtomicUsize,
    progress: Option<&Py<PyAny>>,
) -> Option<PyErr> {
    let (started, mut told_at) = (Instant::now(), None::<Instant>);
    let mut interrupted = None;
    loop {
        match ended.recv_timeout(LISTEN_EVERY) {
            Ok(()) | Err(RecvTimeoutError::Disconnected) => return interrupted,
            Err(RecvTimeoutError::Timeout) if interrupted.is_some() => continue,
            Err(RecvTimeoutError::Timeout) => {}
        }
        let due = match told_at {
            None => started.elapsed() >= QUIET_FOR,
            Some(at) => at.elapsed() >= PROGRESS_EVERY,
        };
        Python::attach(|py| {
            let told = match progress.filter(|_| due) {
                Some(progress) => {
                    told_at = Some(Instant::now());
                    progress
                        .call1(py, (solved.load(Ordering::Relaxed),))
                        .map(drop)
                }
                None => Ok(()),
            };
            if let Err(error) = py.check_signals().and(told) {
                stop.store(true, Ordering::SeqCst);
                interrupted = Some(error);
            }
        });
    }
}

/// What a panic said.
fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
        (Some(text), _) => (*text).to_owned(),
        (_, Some(text)) => text.clone(),
        _ => "a panic".to_owned(),
    }
}

/// The query a keyword asks, of those asked of a position.
fn query_kind(keyword: &str) -> PyResult<QueryKind> {
    const KINDS: &[QueryKind] = &[
        QueryKind::Grundy,
        QueryKind::Wins,
        QueryKind::BestMove,
        QueryKind::Moves,
        QueryKind::Why,
        QueryKind::Strategy,
        QueryKind::Genus,
        QueryKind::Remoteness,
        QueryKind::Crosscheck,
        QueryKind::Draw,
    ];
    KINDS
        .iter()
        .copied()
        .find(|kind| kind.keyword() == keyword)
        .ok_or_else(|| {
            let known: Vec<&str> = KINDS.iter().map(|kind| kind.keyword()).collect();
            PyValueError::new_err(format!(
                "`{keyword}` is not a query of a position: one of {}",
                known.join(", ")
            ))
        })
}

/// The answers as a list of (dict, text) pairs, and the notes; or the
/// error, raised with the answers given before it.
fn answered(py: Python<'_>, told: Told) -> PyResult<(Py<PyAny>, Vec<String>)> {
    let answers = PyList::empty(py);
    for (json, text) in &told.answers {
        answers.append((to_python(py, json)?, text))?;
    }
    match told.error {
        None => Ok((answers.into_any().unbind(), told.notes)),
        Some(report) => Err(game_error(py, &report, answers.into_any().unbind())),
    }
}

/// A diagnostic as `GameError`: its message, where it points (file, line
/// and column from 1, from its first label), its code and help, the
/// report as `run` draws it and as `run --json` writes it.
fn game_error(py: Python<'_>, report: &Report, answers: Py<PyAny>) -> PyErr {
    let drawn = output::error(
        report,
        ErrorStyle::Graphical {
            colour: false,
            width: 100,
        },
    );
    let error = GameError::new_err(drawn.trim_end().to_owned());
    let json: Json = serde_json::from_str(&output::error(report, ErrorStyle::Json))
        .unwrap_or_else(|_| Json::String(report.to_string()));
    let (file, line, column) = located(report)
        .map_or((None, None, None), |(file, line, column)| {
            (Some(file), Some(line), Some(column))
        });
    let fields: [(&str, Py<PyAny>); 9] = [
        ("message", into_py(py, report.to_string())),
        (
            "code",
            into_py(py, report.code().map(|code| code.to_string())),
        ),
        (
            "help",
            into_py(py, report.help().map(|help| help.to_string())),
        ),
        ("file", into_py(py, file)),
        ("line", into_py(py, line)),
        ("column", into_py(py, column)),
        ("report", into_py(py, drawn)),
        ("json", to_python(py, &json).unwrap_or_else(|_| py.None())),
        ("answers", answers),
    ];
    let value = error.value(py);
    for (name, field) in fields {
        // Setting an attribute of a fresh exception does not fail.
        let _ = value.setattr(name, field);
    }
    error
}

fn into_py<'py, T: IntoPyObject<'py>>(py: Python<'py>, value: T) -> Py<PyAny> {
    value
        .into_pyobject(py)
        .map(|object| object.into_any().unbind())
        .unwrap_or_else(|_| py.None())
}

/// The file, line and column (from 1) of a diagnostic's first label, or of
/// its first related diagnostic's.
fn located(report: &Report) -> Option<(String, usize, usize)> {
    let source = report.source_code()?;
    let diagnostic: &dyn Diagnostic = report.as_ref();
    let first = |diagnostic: &dyn Diagnostic| diagnostic.labels()?.next();
    let label = first(diagnostic).or_else(|| diagnostic.related()?.find_map(first))?;
    let contents = source.read_span(label.inner(), 0, 0).ok()?;
    Some((
        contents.name().unwrap_or_default().to_owned(),
        contents.line() + 1,
        contents.column() + 1,
    ))
}

/// A JSON value as Python objects: objects as dicts (in their order),
/// arrays as lists.
fn to_python(py: Python<'_>, json: &Json) -> PyResult<Py<PyAny>> {
    Ok(match json {
        Json::Null => py.None(),
        Json::Bool(value) => PyBool::new(py, *value).to_owned().into_any().unbind(),
        Json::Number(number) => match (number.as_u64(), number.as_i64()) {
            (Some(value), _) => into_py(py, value),
            (_, Some(value)) => into_py(py, value),
            _ => into_py(py, number.as_f64().unwrap_or(f64::NAN)),
        },
        Json::String(text) => PyString::new(py, text).into_any().unbind(),
        Json::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_python(py, item)?)?;
            }
            list.into_any().unbind()
        }
        Json::Object(fields) => {
            let dict = PyDict::new(py);
            for (key, value) in fields {
                dict.set_item(key, to_python(py, value)?)?;
            }
            dict.into_any().unbind()
        }
    })
}

/// Draws DOT as SVG with Graphviz's `dot`, or gives `None` when it cannot.
#[pyfunction]
fn graphviz_svg(py: Python<'_>, dot: String) -> Option<String> {
    py.detach(|| sprague::picture::graphviz_svg(&dot).ok())
}

#[pymodule]
fn _sprague(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<PySession>()?;
    module.add("GameError", module.py().get_type::<GameError>())?;
    module.add_function(wrap_pyfunction!(graphviz_svg, module)?)?;
    Ok(())
}
