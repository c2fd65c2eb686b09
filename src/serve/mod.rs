//! `sprague serve`: the page in the browser, over one session. The page and
//! scripts use the same JSON API; every computation runs on a blocking
//! thread under the session's limits, one at a time, and can be cancelled.

mod api;
mod assets;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};

use crate::session::Session;

/// The port served on unless `--port` says otherwise.
pub const DEFAULT_PORT: u16 = 7878;

/// The largest request body accepted, in bytes.
pub const MAX_BODY: usize = 1 << 20;

/// The stack of the threads that evaluate: deep nesting in a source
/// recurses in the parser and the evaluator, as on the command line.
const STACK_SIZE: usize = 1 << 30;

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

/// What every request shares: the session, and the cancel flag of the
/// computation running in it.
pub struct Shared {
    session: Mutex<Session>,
    make_session: Box<dyn Fn() -> Session + Send + Sync>,
    running: Mutex<Option<Arc<AtomicBool>>>,
    /// How many sources the page has sent, to name each one.
    entries: AtomicUsize,
    /// The `Host` values the server answers to.
    hosts: Vec<String>,
}

impl Shared {
    /// A shared session serving on `addr`, the files read in first.
    pub fn new(
        addr: SocketAddr,
        make_session: Box<dyn Fn() -> Session + Send + Sync>,
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
            make_session,
            running: Mutex::new(None),
            entries: AtomicUsize::new(0),
            hosts,
        })
    }

    /// Runs `work` on the session on a blocking thread, so that the page's
    /// other requests go on. The work is cancelled by `/api/cancel`, or when
    /// the request is dropped (its connection closed).
    pub async fn compute<T: Send + 'static>(
        self: &Arc<Self>,
        work: impl FnOnce(&mut Session) -> T + Send + 'static,
    ) -> Option<T> {
        let token = Arc::new(AtomicBool::new(false));
        let mut guard = CancelOnDrop(Some(token.clone()));
        let shared = self.clone();
        let outcome = tokio::task::spawn_blocking(move || {
            let mut session = shared
                .session
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if token.load(Ordering::SeqCst) {
                return None;
            }
            *shared
                .running
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some(token.clone());
            let watched = token.clone();
            session.set_watcher(Some(Box::new(move |_| !watched.load(Ordering::SeqCst))));
            session.set_stop(Some(token.clone()));
            let result = work(&mut session);
            session.set_watcher(None);
            session.set_stop(None);
            *shared
                .running
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = None;
            Some(result)
        })
        .await;
        // Ended: nothing left to cancel.
        guard.0 = None;
        outcome.ok().flatten()
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
    pub async fn reset(self: &Arc<Self>) -> Option<()> {
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

fn refused(reason: &str) -> Response {
    (
        StatusCode::FORBIDDEN,
        axum::Json(serde_json::json!({ "error": reason })),
    )
        .into_response()
}

/// Serves until Ctrl-C; the files are read into the session first.
pub fn serve(options: Options) -> std::process::ExitCode {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(STACK_SIZE)
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
        for error in loaded.into_iter().flatten() {
            eprint!("{error}");
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
    let served = axum::serve(listener, router(shared.clone()))
        .with_graceful_shutdown(stopped)
        .await;
    shared.cancel();
    match served {
        Ok(()) => {
            println!("sprague serve: stopped");
            std::process::ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("sprague serve: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}
