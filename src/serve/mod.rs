//! `sprague serve`: the page in the browser, over the session. The page and
//! scripts use the same JSON API. Each panel of the page computes in a lane
//! of its own (a session, and a thread for each computation), so that a
//! long run in one leaves the others answering; every lane replays the
//! sources that declared games in the others, and every computation can be
//! cancelled.

mod api;
mod assets;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};

use crate::engine::Tally;
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
    ("GET", "/api/progress"),
    ("POST", "/api/moves"),
    ("POST", "/api/play"),
];

/// The lanes a request may name, one for each panel of the page: each has
/// a session of its own, so that a long computation in one leaves the
/// others answering. `/api/run` computes in `editor` unless told otherwise,
/// `/api/moves` and `/api/play` in `board`.
pub const LANES: &[&str] = &["editor", "board", "sequence", "graph", "check"];

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

/// The most sources the lanes replay before those in the list are
/// gathered into one: the declarations in force, as a lane that has
/// replayed them all holds them.
const COMPACT_PAST: usize = 32;

/// A count of resets: what a computation saw when it began.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Epoch(usize);

/// The declarations a source made, kept for every lane to replay.
struct Declared {
    /// Its place among every source declared (those let go of counted).
    number: usize,
    /// The lane session that declared it (see [`LaneSession::id`]).
    maker: usize,
    /// Where it starts in that session: none for the declarations in
    /// force that a compaction gathered (see [`COMPACT_PAST`]).
    base: Option<usize>,
    name: String,
    text: Arc<str>,
}

/// A declared game as the page lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclaredGame {
    pub name: String,
    pub parameters: usize,
    /// Whether it is played on a board: its first argument a region, not
    /// an integer.
    pub board: bool,
}

/// One lane: its session (made when first needed, dropped by a reset) and
/// the computations sent to it, running or waiting.
struct Lane {
    name: &'static str,
    /// How many declared sources its session had seen when it last caught
    /// up (its [`LaneSession::seen`], read where the session is not).
    seen: AtomicUsize,
    /// Its session's [`LaneSession::id`].
    session: AtomicUsize,
    state: Mutex<Option<LaneSession>>,
    /// The turn of a computation of the lane: held while its thread runs,
    /// so that the computations waiting for the lane hold no thread (and
    /// no gigabyte of stack) meanwhile.
    turn: tokio::sync::Mutex<()>,
    jobs: Mutex<Vec<Arc<AtomicBool>>>,
    /// The computation running, if any: when it started and how far the
    /// engine has gone.
    running: Mutex<Option<Running>>,
}

/// A lane's computation under way, as its watcher last heard.
struct Running {
    started: Instant,
    /// The engine's tally when it started, and as last told.
    first: Tally,
    last: Tally,
}

/// A lane as `/api/progress` answers: its computation running, if any,
/// and how many requests wait to run after it, or for a thread to run on
/// (where the address space has room for the stacks of so many only).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LaneProgress {
    pub lane: &'static str,
    pub running: Option<Progress>,
    pub waiting: usize,
}

/// How far a lane's computation has gone, as `/api/progress` answers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    /// How long it has run.
    pub time: Duration,
    /// The positions solved and kept (those of earlier computations too).
    pub positions: usize,
    /// Sums the searches of whole sums (`crosscheck`, `remoteness`,
    /// misère play) entered since it started: while one runs, the
    /// positions stay as many.
    pub sums: u64,
    /// Positions the pruned search listed since it started (a large
    /// board's, valued without its every position).
    pub listed: u64,
}

struct LaneSession {
    session: Session,
    /// How many declared sources it has seen (by their numbers).
    seen: usize,
    /// Which session of its lane it is (a reset makes a new one).
    id: usize,
}

/// How many lane sessions have been made, to number each.
static SESSIONS: AtomicUsize = AtomicUsize::new(0);

/// What every request shares: the lanes, and the sources they replay.
pub struct Shared {
    lanes: Vec<Lane>,
    make_session: Box<dyn Fn() -> Session + Send + Sync>,
    /// The declarations of every source that made some, in order: the
    /// files read first, then what the page sent; and how many were ever
    /// kept.
    declared: Mutex<(Vec<Declared>, usize)>,
    /// The served files' names and texts, declared again after a reset.
    files: Mutex<Vec<(String, String)>>,
    /// The games declared, as the last declaration left them: the list is
    /// answered at once, whatever runs.
    games: Mutex<Vec<DeclaredGame>>,
    /// How many sources the page has sent, to name each one.
    entries: AtomicUsize,
    /// How many resets there have been: a computation that began before
    /// the last one keeps its declarations to its own (dropped) session.
    resets: AtomicUsize,
    /// The `Host` values the server answers to.
    hosts: Vec<String>,
    timeouts: Timeouts,
    /// How many threads that evaluate run: where one cannot be made (its
    /// stack finds no room in a limited address space), the request waits
    /// for one of them to end.
    evaluating: Arc<AtomicUsize>,
    /// How many may run at once: as many as a limited address space
    /// (`prlimit --as`) holds stacks for beside a full table (three lanes
    /// of a million rows each once took the server past 4 GB).
    at_once: usize,
    /// The most bytes of answers one request's response may hold (see
    /// [`answer_room`]).
    pub(super) max_answered: usize,
}

/// What the server takes of a limited address space besides its lanes'
/// stacks and the answers they keep: the allocator's arenas (each thread
/// that allocates reserves 64 MB of address space), the runtime's threads
/// and the program itself.
const SERVER_RESERVE: usize = 384 << 20;

/// The most bytes of answers one response may hold: within a limited
/// address space, a third of what the stacks of the lanes computing at
/// once and the server's own reserve leave, shared among them (each
/// response is kept, then written whole, into a buffer that doubles as it
/// grows; four `strategy *500000` in one request took the server past
/// 4 GB, and a table of a million rows took it past 1.6 GB); else a
/// gigabyte, more than a page can show.
fn answer_room(at_once: usize) -> usize {
    let room = match crate::session::address_space_limit() {
        Some(limit) => {
            let stacks = at_once.saturating_mul(crate::front::STACK_SIZE);
            let taken = stacks.saturating_add(SERVER_RESERVE);
            limit.saturating_sub(taken) / 3 / at_once
        }
        None => 1 << 30,
    };
    room.max(1 << 20)
}

fn locked<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
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
        let lanes = LANES
            .iter()
            .map(|&name| Lane {
                name,
                seen: AtomicUsize::new(0),
                session: AtomicUsize::new(usize::MAX),
                state: Mutex::new(None),
                turn: tokio::sync::Mutex::new(()),
                jobs: Mutex::new(Vec::new()),
                running: Mutex::new(None),
            })
            .collect();
        let at_once = make_session().at_once();
        Arc::new(Shared {
            lanes,
            declared: Mutex::new((Vec::new(), 0)),
            files: Mutex::new(Vec::new()),
            games: Mutex::new(Vec::new()),
            entries: AtomicUsize::new(0),
            resets: AtomicUsize::new(0),
            hosts,
            timeouts,
            evaluating: Arc::new(AtomicUsize::new(0)),
            at_once,
            max_answered: answer_room(at_once),
            make_session,
        })
    }

    /// The lane named, if there is one.
    pub fn lane(name: &str) -> Option<&'static str> {
        LANES.iter().copied().find(|lane| *lane == name)
    }

    fn lane_of(&self, name: &str) -> &Lane {
        self.lanes
            .iter()
            .find(|lane| lane.name == name)
            .unwrap_or(&self.lanes[0])
    }

    /// Runs `work` on the session of `lane`, on a thread of its own, so
    /// that the page's other requests go on. The work is cancelled by
    /// `/api/cancel`, or when the request is dropped (its connection
    /// closed).
    pub async fn compute<T: Send + 'static>(
        self: &Arc<Self>,
        lane: &'static str,
        work: impl FnOnce(&mut Session) -> T + Send + 'static,
    ) -> Result<T, Unanswered> {
        let shared = self.clone();
        self.on_lane(lane, move |state, token| {
            let lane = shared.lane_of(lane);
            let state = state.get_or_insert_with(|| LaneSession {
                session: shared.fresh_session(),
                seen: 0,
                id: SESSIONS.fetch_add(1, Ordering::SeqCst),
            });
            lane.session.store(state.id, Ordering::SeqCst);
            let first = state.session.tally();
            *locked(&lane.running) = Some(Running {
                started: Instant::now(),
                first,
                last: first,
            });
            let shared_watch = shared.clone();
            let (watched, name) = (token.clone(), lane.name);
            state.session.set_watcher(Some(Box::new(move |tally| {
                if let Some(running) = locked(&shared_watch.lane_of(name).running).as_mut() {
                    running.last = *tally;
                }
                !watched.load(Ordering::SeqCst)
            })));
            state.session.set_stop(Some(token.clone()));
            let result = std::panic::catch_unwind(AssertUnwindSafe(|| {
                shared.catch_up(name, state);
                work(&mut state.session)
            }));
            let session = &mut state.session;
            // The sources read are let go of, but for those whose
            // declarations are in force.
            session.release_unused();
            session.set_watcher(None);
            session.set_stop(None);
            *locked(&lane.running) = None;
            result
        })
        .await
    }

    /// Runs `work` on the state of `lane` on a new thread (with the large
    /// stack deep nesting in a source needs, as on the command line), once
    /// the computations before it there have ended.
    async fn on_lane<T: Send + 'static>(
        self: &Arc<Self>,
        lane: &'static str,
        work: impl FnOnce(&mut Option<LaneSession>, &Arc<AtomicBool>) -> std::thread::Result<T>
        + Send
        + 'static,
    ) -> Result<T, Unanswered> {
        let token = Arc::new(AtomicBool::new(false));
        let mut listed = Listed::new(&self.lane_of(lane).jobs, token.clone());
        let _turn = self.lane_of(lane).turn.lock().await;
        let shared = self.clone();
        let (answer, answered) = tokio::sync::oneshot::channel();
        let job_token = token.clone();
        let job = move || {
            let mut state = locked(&shared.lane_of(lane).state);
            if job_token.load(Ordering::SeqCst) {
                return;
            }
            let result = work(&mut state, &job_token);
            drop(state);
            let _ = answer.send(result.map_err(|_| Unanswered::Failed));
        };
        let outcome = match self.spawn(lane, job, &token).await {
            Ok(()) => answered.await.unwrap_or(Err(Unanswered::Cancelled)),
            Err(error) => Err(Unanswered::NoThread(error.to_string())),
        };
        // Ended: nothing left to cancel.
        listed.ended = true;
        outcome
    }

    /// Starts a thread that evaluates, with the large stack deep nesting
    /// needs. Where the stack finds no room (under `prlimit --as`, each
    /// such thread reserving a gigabyte), it is tried again each time one
    /// of the others ends, so that concurrent requests wait their turn; it
    /// fails only when none runs (after a few tries, as a thread that ended
    /// may not have freed its stack yet). Cancelled meanwhile, it starts
    /// nothing, and the request is answered as cancelled.
    async fn spawn(
        &self,
        lane: &'static str,
        job: impl FnOnce() + Send + 'static,
        token: &AtomicBool,
    ) -> std::io::Result<()> {
        /// Counts a thread that evaluates while it runs, panic or not.
        struct Evaluating(Arc<AtomicUsize>);
        impl Drop for Evaluating {
            fn drop(&mut self) {
                self.0.fetch_sub(1, Ordering::SeqCst);
            }
        }
        // A thread counted out is still ending, its stack not yet freed:
        // with none counted, a few more tries before the failure stands.
        const TRIES_WITH_NONE: usize = 5;
        let job = Arc::new(Mutex::new(Some(job)));
        let mut tries_with_none = 0;
        loop {
            let (taken, evaluating) = (job.clone(), self.evaluating.clone());
            // No more at once than the address space has room for, stacks
            // and tables: the others wait their turn.
            let claimed = evaluating.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |running| {
                (running < self.at_once).then_some(running + 1)
            });
            if claimed.is_err() {
                if token.load(Ordering::SeqCst) {
                    return Ok(());
                }
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                continue;
            }
            let counted = Evaluating(evaluating);
            let spawned = std::thread::Builder::new()
                .name(format!("sprague-{lane}"))
                .stack_size(crate::front::STACK_SIZE)
                .spawn(move || {
                    let _counted = counted;
                    if let Some(job) = locked(&taken).take() {
                        job();
                    }
                });
            let error = match spawned {
                Ok(_) => return Ok(()),
                // Cancelled while it waited: answered as cancelled.
                Err(_) if token.load(Ordering::SeqCst) => return Ok(()),
                Err(error) => error,
            };
            if self.evaluating.load(Ordering::SeqCst) == 0 {
                tries_with_none += 1;
                if tries_with_none > TRIES_WITH_NONE {
                    return Err(error);
                }
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }

    /// A new session within the command line's limits, writing no files.
    fn fresh_session(&self) -> Session {
        let mut session = (self.make_session)();
        session.refuse_files();
        session
    }

    /// Declares in a lane's session the sources other lanes declared
    /// since it last looked.
    fn catch_up(&self, lane: &'static str, state: &mut LaneSession) {
        let missed: Vec<(String, Arc<str>)> = {
            let (declared, count) = &*locked(&self.declared);
            // A session has what it declared itself, unless another's
            // source came before it in the list (two lanes declaring at
            // once): replayed in the list's order, the two end as in every
            // other lane.
            let mut others_first = false;
            let missed = declared
                .iter()
                .filter(|source| source.number >= state.seen)
                .filter(|source| {
                    others_first |= source.maker != state.id;
                    others_first
                })
                .map(|source| (source.name.clone(), source.text.clone()))
                .collect();
            state.seen = *count;
            self.lane_of(lane).seen.store(*count, Ordering::SeqCst);
            missed
        };
        for (name, text) in missed {
            let _ = state.session.declare(&name, &text, &mut |_| {});
        }
    }

    /// Keeps the declarations in force that a source read at `base` of
    /// the session of lane `declarer` made, for the other lanes to replay,
    /// and the games the session now knows. The sources kept last whose declarations it
    /// replaced go: replaying the new one does what they did.
    fn declared(
        &self,
        declarer: &'static str,
        (base, began): (usize, Epoch),
        name: &str,
        session: &Session,
    ) {
        let text = session.made_in(base);
        if text.is_empty() || began != self.epoch() {
            return;
        }
        {
            let (declared, count) = &mut *locked(&self.declared);
            let maker = self.lane_of(declarer).session.load(Ordering::SeqCst);
            // Caught up: the session holds every source the others kept;
            // and no other lane has caught up without having declared yet
            // (its source would come after the gathered one, which holds
            // what it replaces: replayed there, it would undo it).
            let caught_up = self.lane_of(declarer).seen.load(Ordering::SeqCst) == *count
                && self
                    .lanes
                    .iter()
                    .filter(|lane| lane.name != declarer)
                    .all(|lane| locked(&lane.running).is_none());
            while declared.last().is_some_and(|last| {
                last.maker == maker
                    && last
                        .base
                        .is_some_and(|base| session.made_in(base).is_empty())
            }) {
                declared.pop();
            }
            declared.push(Declared {
                number: *count,
                maker,
                base: Some(base),
                name: name.to_owned(),
                text: text.into(),
            });
            *count += 1;
            if declared.len() > COMPACT_PAST && caught_up {
                // One source of what is in force replaces them all: lanes
                // declaring in turn, each replacing what the other did,
                // had the list grow without end (55 MB after 600 runs),
                // and a lane's first query replay every source.
                declared.clear();
                declared.push(Declared {
                    number: *count,
                    maker,
                    base: None,
                    name: "declarations in force".to_owned(),
                    text: session.in_force().into(),
                });
                *count += 1;
                self.lane_of(declarer).seen.store(*count, Ordering::SeqCst);
            }
        }
        let boards = session.games_on_boards();
        *locked(&self.games) = session
            .games()
            .into_iter()
            .map(|(name, parameters)| DeclaredGame {
                board: boards.contains(&name),
                name,
                parameters,
            })
            .collect();
    }

    /// How many sources a lane's first computation would replay.
    pub fn replayed(&self) -> usize {
        locked(&self.declared).0.len()
    }

    /// The games declared, with their numbers of parameters.
    pub fn games(&self) -> Vec<DeclaredGame> {
        locked(&self.games).clone()
    }

    /// The served files, by name.
    pub fn files(&self) -> Vec<(String, String)> {
        locked(&self.files).clone()
    }

    /// Each lane's computation running, and how far it has gone.
    pub fn progress(&self) -> Vec<LaneProgress> {
        self.lanes
            .iter()
            .map(|lane| {
                let running = locked(&lane.running).as_ref().map(|running| Progress {
                    time: running.started.elapsed(),
                    positions: running.last.states,
                    sums: running.last.sums.saturating_sub(running.first.sums),
                    listed: running.last.searched.saturating_sub(running.first.searched),
                });
                // The requests listed are the one running, if any, and those
                // waiting for the lane or for a thread another lane holds.
                let listed = locked(&lane.jobs).len();
                LaneProgress {
                    lane: lane.name,
                    waiting: listed.saturating_sub(usize::from(running.is_some())),
                    running,
                }
            })
            .collect()
    }

    /// Reads a served file into the session: its games are known in every
    /// lane, and again after a reset. Answers its errors, drawn for a
    /// terminal.
    pub async fn load(self: &Arc<Self>, name: String, text: String) -> Vec<String> {
        locked(&self.files).push((name.clone(), text.clone()));
        self.load_file(name, text).await
    }

    async fn load_file(self: &Arc<Self>, name: String, text: String) -> Vec<String> {
        let shared = self.clone();
        let began = self.epoch();
        let loaded = self
            .compute(LANES[0], move |session| {
                let base = session.next_offset();
                match session.declare(&name, &text, &mut |_| {}) {
                    Ok(_) => {
                        shared.declared(LANES[0], (base, began), &name, session);
                        Vec::new()
                    }
                    Err(report) => vec![crate::output::error(
                        &report,
                        crate::output::ErrorStyle::Graphical {
                            colour: false,
                            width: 100,
                        },
                    )],
                }
            })
            .await;
        match loaded {
            Ok(errors) => errors,
            Err(Unanswered::NoThread(reason)) => {
                vec![format!(
                    "cannot start the thread that evaluates: {reason}\n"
                )]
            }
            Err(_) => vec!["loading a file failed\n".to_owned()],
        }
    }

    /// Cancels the computations of `lane` (of every lane when `None`),
    /// running or waiting; says whether there was one.
    pub fn cancel(&self, lane: Option<&str>) -> bool {
        let mut any = false;
        for each in &self.lanes {
            if lane.is_some_and(|lane| lane != each.name) {
                continue;
            }
            for token in locked(&each.jobs).iter() {
                token.store(true, Ordering::SeqCst);
                any = true;
            }
        }
        any
    }

    /// Where the shared state stands among resets, for a computation to
    /// note when it begins.
    fn epoch(&self) -> Epoch {
        Epoch(self.resets.load(Ordering::SeqCst))
    }

    /// Forgets every declaration and memoised value but the served files'
    /// games, and gives the memory back to the system.
    pub async fn reset(self: &Arc<Self>) -> Result<(), Unanswered> {
        // A run under way declares into its own session, dropped below, and
        // not into the list the lanes replay (it may end after the clear).
        self.resets.fetch_add(1, Ordering::SeqCst);
        self.cancel(None);
        locked(&self.declared).0.clear();
        *locked(&self.games) = Vec::new();
        for lane in LANES {
            self.on_lane(lane, |state, _| {
                *state = None;
                Ok(())
            })
            .await?;
        }
        release_memory();
        for (name, text) in self.files() {
            self.load_file(name, text).await;
        }
        Ok(())
    }

    /// A name for the next source the page sends, and where the shared
    /// state stands among resets as it comes.
    fn entry(&self) -> (String, Epoch) {
        (self.entry_name(), self.epoch())
    }

    /// A name for the next source the page sends.
    fn entry_name(&self) -> String {
        format!("<page {}>", self.entries.fetch_add(1, Ordering::SeqCst) + 1)
    }
}

/// Has glibc give back the free space at the top of each heap once it
/// passes 16 MiB, rather than a threshold that grows with the largest block
/// ever freed: the tables of a session dropped by a reset are freed on the
/// heap of the thread that computed them, which `malloc_trim` leaves whole.
fn keep_little_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a parameter of the allocator.
    unsafe {
        libc::mallopt(libc::M_TRIM_THRESHOLD, 16 << 20);
    }
}

/// Hands the heap's free pages back to the system: a session's tables are
/// many small allocations, which glibc keeps for the process once freed.
fn release_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory; it takes no pointers.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// A computation in its lane's list of jobs, which `/api/cancel` cancels:
/// it leaves the list when the request waiting for it ends or is dropped,
/// its cancel flag set if it had not ended (a closed connection).
struct Listed<'a> {
    jobs: &'a Mutex<Vec<Arc<AtomicBool>>>,
    token: Arc<AtomicBool>,
    ended: bool,
}

impl<'a> Listed<'a> {
    fn new(jobs: &'a Mutex<Vec<Arc<AtomicBool>>>, token: Arc<AtomicBool>) -> Self {
        locked(jobs).push(token.clone());
        Listed {
            jobs,
            token,
            ended: false,
        }
    }
}

impl Drop for Listed<'_> {
    fn drop(&mut self) {
        if !self.ended {
            self.token.store(true, Ordering::SeqCst);
        }
        locked(self.jobs).retain(|job| !Arc::ptr_eq(job, &self.token));
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
        .route("/api/progress", get(api::progress))
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
    shared.cancel(None);
    let _ = tokio::time::timeout(Duration::from_secs(5), graceful.shutdown()).await;
}

/// Serves until Ctrl-C; the files are read into the session first.
pub fn serve(options: Options) -> std::process::ExitCode {
    keep_little_free_memory();
    // The runtime's threads only read requests and write answers: the
    // default stacks do (the evaluating thread has the large one).
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(4)
        .build();
    let runtime = match runtime {
        Ok(runtime) => runtime,
        Err(error) => {
            telln!("sprague serve: cannot start: {error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    runtime.block_on(serve_async(options))
}

async fn serve_async(options: Options) -> std::process::ExitCode {
    let ip = options.host.unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST));
    if !ip.is_loopback() {
        telln!(
            "warning: serving on {ip}: anyone who can reach this address can run code in the session"
        );
    }
    let listener = match tokio::net::TcpListener::bind((ip, options.port)).await {
        Ok(listener) => listener,
        Err(error) => {
            telln!(
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
        for error in shared.load(name, text).await {
            tell!("{error}");
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
        telln!("sprague serve: cannot open a browser: {error}");
    }
    let stopped = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    accept(listener, shared, stopped).await;
    println!("sprague serve: stopped");
    std::process::ExitCode::SUCCESS
}
