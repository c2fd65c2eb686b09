//! `sprague serve`: the page in the browser, over one session. The page and
//! scripts use the same JSON API; every computation runs on the one
//! evaluating thread under the session's limits, one at a time, and can be
//! cancelled.

mod api;
mod assets;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};

use crate::session::Session;

/// The port served on unless `--port` says otherwise.
pub const DEFAULT_PORT: u16 = 7878;

/// The largest request body accepted, in bytes.
pub const MAX_BODY: usize = 1 << 20;

/// How long a client may take to send a request's headers (or to start
/// its next request on a kept-alive connection), and then its body: an
/// idle or half-sent request holds a connection no longer.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    pub header: Duration,
    pub body: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            header: Duration::from_secs(10),
            body: Duration::from_secs(10),
        }
    }
}

/// What the server answers on, for the bodies of 404 and 405 answers.
const ROUTES: &[(&str, &str)] = &[
    ("GET", "/"),
    ("GET", "/assets/{name}"),
    ("POST", "/api/run"),
    ("POST", "/api/reset"),
    ("POST", "/api/cancel"),
    ("GET", "/api/games"),
    ("POST", "/api/moves"),
    ("POST", "/api/play"),
];

/// What `sprague serve` was asked for.
pub struct Options {
    pub host: Option<IpAddr>,
    pub port: u16,
    pub open: bool,
    /// The files read into the session first, by name.
    pub sources: Vec<(String, String)>,
    /// Makes a new session within the command line's limits.
    pub session: Box<dyn Fn() -> Session + Send + Sync>,
}

/// A computation sent to the evaluating thread.
type Job = Box<dyn FnOnce() + Send>;

/// Why a computation gave no answer.
#[derive(Debug)]
pub enum Unanswered {
    /// `/api/cancel`, or the request was dropped.
    Cancelled,
    /// The thread that evaluates could not be made (the address space or
    /// the threads allowed are used up).
    NoThread(String),
    /// The computation panicked: a defect, reported rather than fatal.
    Failed,
}

impl IntoResponse for Unanswered {
    fn into_response(self) -> Response {
        let (status, error) = match self {
            Unanswered::Cancelled => (StatusCode::SERVICE_UNAVAILABLE, "cancelled".to_owned()),
            Unanswered::NoThread(reason) => (
                StatusCode::SERVICE_UNAVAILABLE,
                format!("cannot start the thread that evaluates: {reason}"),
            ),
            Unanswered::Failed => (
                StatusCode::INTERNAL_SERVER_ERROR,
                "the computation failed (a defect in sprague: please report it)".to_owned(),
            ),
        };
        (status, axum::Json(serde_json::json!({ "error": error }))).into_response()
    }
}

/// What every request shares: the session, and the cancel flag of the
/// computation running in it.
pub struct Shared {
    session: Mutex<Session>,
    /// The queue of the thread that evaluates, made when first needed:
    /// its stack is large (deep nesting in a source recurses in the parser
    /// and the evaluator, as on the command line), so there is one.
    evaluator: Mutex<Option<Sender<Job>>>,
    make_session: Box<dyn Fn() -> Session + Send + Sync>,
    running: Mutex<Option<Arc<AtomicBool>>>,
    /// How many sources the page has sent, to name each one.
    entries: AtomicUsize,
    /// The `Host` values the server answers to.
    hosts: Vec<String>,
    timeouts: Timeouts,
}

impl Shared {
    /// A shared session serving on `addr`, the files read in first.
    pub fn new(
        addr: SocketAddr,
        make_session: Box<dyn Fn() -> Session + Send + Sync>,
    ) -> Arc<Shared> {
        Shared::with_timeouts(addr, make_session, Timeouts::default())
    }

    /// [`Shared::new`], with other timeouts than the default.
    pub fn with_timeouts(
        addr: SocketAddr,
        make_session: Box<dyn Fn() -> Session + Send + Sync>,
        timeouts: Timeouts,
    ) -> Arc<Shared> {
        let mut session = make_session();
        session.refuse_files();
        let port = addr.port();
        let mut hosts = vec![
            format!("127.0.0.1:{port}"),
            format!("localhost:{port}"),
            format!("[::1]:{port}"),
        ];
        if !addr.ip().is_loopback() && !addr.ip().is_unspecified() {
            hosts.push(match addr.ip() {
                IpAddr::V4(ip) => format!("{ip}:{port}"),
                IpAddr::V6(ip) => format!("[{ip}]:{port}"),
            });
        }
        Arc::new(Shared {
            session: Mutex::new(session),
            evaluator: Mutex::new(None),
            make_session,
            running: Mutex::new(None),
            entries: AtomicUsize::new(0),
            hosts,
            timeouts,
        })
    }

    /// Runs `work` on the session on the evaluating thread, so that the
    /// page's other requests go on. The work is cancelled by `/api/cancel`,
    /// or when the request is dropped (its connection closed).
    pub async fn compute<T: Send + 'static>(
        self: &Arc<Self>,
        work: impl FnOnce(&mut Session) -> T + Send + 'static,
    ) -> Result<T, Unanswered> {
        let token = Arc::new(AtomicBool::new(false));
        let mut guard = CancelOnDrop(Some(token.clone()));
        let shared = self.clone();
        let (answer, answered) = tokio::sync::oneshot::channel();
        let job = move || {
            let mut session = shared
                .session
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if token.load(Ordering::SeqCst) {
                return;
            }
            *shared
                .running
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some(token.clone());
            let watched = token.clone();
            session.set_watcher(Some(Box::new(move |_| !watched.load(Ordering::SeqCst))));
            session.set_stop(Some(token.clone()));
            let result = std::panic::catch_unwind(AssertUnwindSafe(|| work(&mut session)));
            session.set_watcher(None);
            session.set_stop(None);
            *shared
                .running
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = None;
            let _ = answer.send(result.map_err(|_| Unanswered::Failed));
        };
        self.evaluate(Box::new(job))?;
        let outcome = answered.await;
        // Ended: nothing left to cancel.
        guard.0 = None;
        outcome.unwrap_or(Err(Unanswered::Cancelled))
    }

    /// Sends a job to the evaluating thread, making it first if need be.
    fn evaluate(&self, job: Job) -> Result<(), Unanswered> {
        let mut evaluator = self
            .evaluator
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let job = match evaluator.as_ref() {
            Some(jobs) => match jobs.send(job) {
                Ok(()) => return Ok(()),
                // The thread is gone: make another.
                Err(returned) => returned.0,
            },
            None => job,
        };
        let (jobs, queue) = std::sync::mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("sprague-evaluator".into())
            .stack_size(crate::front::STACK_SIZE)
            .spawn(move || {
                for job in queue {
                    job();
                }
            })
            .map_err(|error| Unanswered::NoThread(error.to_string()))?;
        // The thread holds the queue until every sender is gone.
        let _ = jobs.send(job);
        *evaluator = Some(jobs);
        Ok(())
    }

    /// Cancels the computation running, if any; says whether there was one.
    pub fn cancel(&self) -> bool {
        let running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        match running.as_ref() {
            Some(token) => {
                token.store(true, Ordering::SeqCst);
                true
            }
            None => false,
        }
    }

    /// Forgets every declaration and memoised value.
    pub async fn reset(self: &Arc<Self>) -> Result<(), Unanswered> {
        let shared = self.clone();
        self.compute(move |session| {
            *session = (shared.make_session)();
            session.refuse_files();
        })
        .await
    }

    /// A name for the next source the page sends.
    fn entry_name(&self) -> String {
        format!("<page {}>", self.entries.fetch_add(1, Ordering::SeqCst) + 1)
    }
}

/// Sets a computation's cancel flag when the request waiting for it is
/// dropped before it ends.
struct CancelOnDrop(Option<Arc<AtomicBool>>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(token) = self.0.take() {
            token.store(true, Ordering::SeqCst);
        }
    }
}

/// The server's routes over a shared session.
pub fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/", get(assets::index))
        .route("/assets/{name}", get(assets::asset))
        .route("/api/run", post(api::run))
        .route("/api/reset", post(api::reset))
        .route("/api/cancel", post(api::cancel))
        .route("/api/games", get(api::games))
        .route("/api/moves", post(api::moves))
        .route("/api/play", post(api::play))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(shared.clone(), read_body))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(middleware::from_fn_with_state(shared.clone(), same_origin))
        .with_state(shared)
}

/// Refuses a request whose `Host` is not one the server answers to (a
/// DNS-rebinding name) or whose `Origin` is another site's page.
async fn same_origin(State(shared): State<Arc<Shared>>, request: Request, next: Next) -> Response {
    let headers: &HeaderMap = request.headers();
    let host = headers
        .get(header::HOST)
        .and_then(|host| host.to_str().ok());
    let Some(host) = host.filter(|host| shared.hosts.iter().any(|known| known == host)) else {
        return refused("the Host header names no address this server answers on");
    };
    if let Some(origin) = headers.get(header::ORIGIN) {
        let expected = format!("http://{host}");
        if origin.to_str().ok() != Some(expected.as_str()) {
            return refused("requests from another site's page are refused");
        }
    }
    next.run(request).await
}

/// Reads a request's body whole before its handler runs, within the body
/// timeout and [`MAX_BODY`]: a body sent slowly or never finished is
/// answered 408, one too large 413.
async fn read_body(State(shared): State<Arc<Shared>>, request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let timeout = shared.timeouts.body;
    let read = tokio::time::timeout(timeout, axum::body::to_bytes(body, MAX_BODY)).await;
    let bytes = match read {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(_)) => {
            return error_answer(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the request's body is larger than {MAX_BODY} bytes, or was cut off"),
            );
        }
        Err(_) => {
            return error_answer(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the request's body did not arrive within {} s",
                    timeout.as_secs_f64()
                ),
            );
        }
    };
    next.run(Request::from_parts(parts, axum::body::Body::from(bytes)))
        .await
}

/// What the server answers on, one `METHOD /path` a line.
fn routes(path: Option<&str>) -> Vec<String> {
    ROUTES
        .iter()
        .filter(|(_, route)| path.is_none_or(|path| path == *route))
        .map(|(method, route)| format!("{method} {route}"))
        .collect()
}

/// A 404: JSON under `/api/`, plain text elsewhere, saying what exists.
async fn not_found(uri: Uri) -> Response {
    let message = format!("nothing is served at {}", uri.path());
    described(StatusCode::NOT_FOUND, uri.path(), message, routes(None))
}

/// A 405: the methods the path answers to.
async fn method_not_allowed(method: Method, uri: Uri) -> Response {
    let path = match uri.path() {
        path if path.starts_with("/assets/") => "/assets/{name}",
        path => path,
    };
    let message = format!("{} does not answer {method}", uri.path());
    described(
        StatusCode::METHOD_NOT_ALLOWED,
        uri.path(),
        message,
        routes(Some(path)),
    )
}

fn described(status: StatusCode, path: &str, message: String, routes: Vec<String>) -> Response {
    if path.starts_with("/api/") {
        let body = serde_json::json!({ "error": message, "routes": routes });
        return (status, axum::Json(body)).into_response();
    }
    let text = format!("{message}; this server answers:\n{}\n", routes.join("\n"));
    (status, text).into_response()
}

fn error_answer(status: StatusCode, reason: String) -> Response {
    (status, axum::Json(serde_json::json!({ "error": reason }))).into_response()
}

fn refused(reason: &str) -> Response {
    (
        StatusCode::FORBIDDEN,
        axum::Json(serde_json::json!({ "error": reason })),
    )
        .into_response()
}

/// Serves each connection accepted until `stopped`, with hyper's timeout
/// on reading a request's headers (and on waiting for the next request of
/// a kept-alive connection), which `axum::serve` leaves unset. When
/// stopped, the computation running is cancelled and open connections are
/// given a few seconds to finish.
pub async fn accept(
    listener: tokio::net::TcpListener,
    shared: Arc<Shared>,
    stopped: impl std::future::Future<Output = ()>,
) {
    let app = router(shared.clone());
    use hyper_util::rt::{TokioIo, TokioTimer};
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut stopped = std::pin::pin!(stopped);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut stopped => break,
        };
        let stream = match stream {
            Ok((stream, _)) => stream,
            // Out of file descriptors, or a connection reset before it was
            // accepted: wait a little and go on, as `axum::serve` does.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        let connection = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(shared.timeouts.header)
            .serve_connection(TokioIo::new(stream), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            let _ = connection.await;
        });
    }
    shared.cancel();
    let _ = tokio::time::timeout(Duration::from_secs(5), graceful.shutdown()).await;
}

/// Serves until Ctrl-C; the files are read into the session first.
pub fn serve(options: Options) -> std::process::ExitCode {
    // The runtime's threads only read requests and write answers: the
    // default stacks do (the evaluating thread has the large one).
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(4)
        .build();
    let runtime = match runtime {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("sprague serve: cannot start: {error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    runtime.block_on(serve_async(options))
}

async fn serve_async(options: Options) -> std::process::ExitCode {
    let ip = options.host.unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST));
    if !ip.is_loopback() {
        eprintln!(
            "warning: serving on {ip}: anyone who can reach this address can run code in the session"
        );
    }
    let listener = match tokio::net::TcpListener::bind((ip, options.port)).await {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!(
                "sprague serve: cannot listen on {ip}:{}: {error}",
                options.port
            );
            return std::process::ExitCode::FAILURE;
        }
    };
    let addr = listener
        .local_addr()
        .unwrap_or(SocketAddr::new(ip, options.port));
    let shared = Shared::new(addr, options.session);
    for (name, text) in options.sources {
        let loaded = shared
            .compute(move |session| {
                let mut errors = Vec::new();
                session
                    .declare(&name, &text, &mut |_| {})
                    .map_err(|report| {
                        errors.push(crate::output::error(
                            &report,
                            crate::output::ErrorStyle::Graphical {
                                colour: false,
                                width: 100,
                            },
                        ))
                    })
                    .ok();
                errors
            })
            .await;
        match loaded {
            Ok(errors) => errors.iter().for_each(|error| eprint!("{error}")),
            Err(Unanswered::NoThread(reason)) => {
                eprintln!("sprague serve: cannot start the thread that evaluates: {reason}");
            }
            Err(_) => eprintln!("sprague serve: loading a file failed"),
        }
    }
    let url = match addr.ip() {
        IpAddr::V6(ip) => format!("http://[{ip}]:{}/", addr.port()),
        IpAddr::V4(ip) if ip.is_unspecified() => format!("http://127.0.0.1:{}/", addr.port()),
        IpAddr::V4(ip) => format!("http://{ip}:{}/", addr.port()),
    };
    println!("sprague serve: {url} (Ctrl-C stops)");
    if options.open
        && let Err(error) = open::that_detached(&url)
    {
        eprintln!("sprague serve: cannot open a browser: {error}");
    }
    let stopped = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    accept(listener, shared, stopped).await;
    println!("sprague serve: stopped");
    std::process::ExitCode::SUCCESS
}
