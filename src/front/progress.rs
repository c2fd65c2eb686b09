//! Progress of a long search on standard error, shown only on a terminal
//! and only once a query has run for half a second; and Ctrl-C, which
//! stops the search under way rather than the program.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};

use crate::engine::Tally;
use crate::eval::count;
use crate::session::Stage;

const QUIET_FOR: Duration = Duration::from_millis(500);

/// Set by Ctrl-C while a search runs: the watcher stops the engine, and
/// the session reads it inside long listings (see [`Progress::stop_flag`]).
static INTERRUPTED: LazyLock<Arc<AtomicBool>> = LazyLock::new(Arc::default);
/// Whether a search runs, so that Ctrl-C stops it rather than ending the
/// program.
static COMPUTING: AtomicBool = AtomicBool::new(false);

/// Whether the values found are being saved at the end of a run: Ctrl-C
/// (often a second one, the first having stopped the search) waits for
/// them rather than losing them.
static SAVING: AtomicBool = AtomicBool::new(false);

/// How long a run that a stop ends may take to end before it is ended
/// from outside: one whose answer waits on a pipe nobody reads never
/// would.
const GRACE: Duration = Duration::from_secs(5);

/// Signals this close to the last stop heard are that stop: `timeout`
/// signals the program and then its process group, the program again, and
/// a batch system may do the same. Heard as a second stop, the pair ended
/// a run at once, without the save it was stopped for.
const SAME_STOP: Duration = Duration::from_millis(250);

/// When the last stop was heard (see [`SAME_STOP`]).
static STOPPED_AT: Mutex<Option<Instant>> = Mutex::new(None);

/// Whether a signal is heard as a stop of its own, not one sent with the
/// last (see [`SAME_STOP`]); notes it.
fn a_stop_of_its_own() -> bool {
    let now = Instant::now();
    let mut last = STOPPED_AT
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if last.is_some_and(|at| now.duration_since(at) < SAME_STOP) {
        return false;
    }
    *last = Some(now);
    true
}

/// Makes Ctrl-C stop the search under way (between [`Progress::start`] and
/// [`Progress::finish`]), which then ends with the interrupted error; with
/// none under way, Ctrl-C ends the program (exit 130, saying so), but for
/// the last save of a run (see [`saving`]). Installed once, as the
/// command starts, so that no signal finds the program without it.
///
/// Where a stop `ends` the program (`run`, `diff`: not the REPL, which
/// goes on), a second stop, or a run not ended [`GRACE`] after the first,
/// ends it at once. Signals sent together are one stop ([`SAME_STOP`]).
pub fn hear_ctrl_c(ends: bool) {
    let _ = ctrlc::set_handler(move || {
        if !a_stop_of_its_own() {
            return;
        }
        if SAVING.load(Ordering::SeqCst) {
            telln!("saving the values found first: the run ends when they are written");
        } else if COMPUTING.load(Ordering::SeqCst) {
            let again = INTERRUPTED.swap(true, Ordering::SeqCst);
            if ends && again {
                telln!("stopped again (Ctrl-C, SIGTERM or SIGHUP): ended at once");
                std::process::exit(130);
            }
            if ends {
                std::thread::spawn(|| {
                    std::thread::sleep(GRACE);
                    if !SAVING.load(Ordering::SeqCst) {
                        telln!(
                            "stopped (Ctrl-C, SIGTERM or SIGHUP), and the run had not ended {} s later (its output may be blocked): ended at once",
                            GRACE.as_secs()
                        );
                        std::process::exit(130);
                    }
                });
            }
        } else {
            // Reading the sources or a saved table, or between two files.
            telln!("stopped (Ctrl-C, SIGTERM or SIGHUP) while no query was under way");
            std::process::exit(130);
        }
    });
}

/// Runs the last save of a run, Ctrl-C waiting for it (`kill -9` does
/// not: the file written aside is taken away by a later save).
pub fn saving<T>(save: impl FnOnce() -> T) -> T {
    SAVING.store(true, Ordering::SeqCst);
    let saved = save();
    SAVING.store(false, Ordering::SeqCst);
    saved
}

/// Whether Ctrl-C stopped the search last started.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

#[derive(Default)]
struct State {
    /// When the search started, and the positions solved and searched
    /// before it.
    started: Option<(Instant, Option<Tally>)>,
    /// How far the search went, as last told.
    tally: Tally,
    /// What the search is about, when the session said (a period looked
    /// for, a certificate made or checked).
    stage: Option<Stage>,
    bar: Option<ProgressBar>,
}

/// Shared between the REPL or `sprague run`, which start and finish it
/// around an entry or a file, and the engine's watcher and the session's
/// stages, which tell it how far the search went.
#[derive(Clone, Default)]
pub struct Progress(Arc<Mutex<State>>);

impl Progress {
    /// Starts a search: Ctrl-C now stops it.
    pub fn start(&self) {
        INTERRUPTED.store(false, Ordering::SeqCst);
        COMPUTING.store(true, Ordering::SeqCst);
        if let Ok(mut state) = self.0.lock() {
            state.started = Some((Instant::now(), None));
            state.stage = None;
        }
    }

    /// The flag Ctrl-C sets, for [`crate::session::Session::set_stop`].
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        INTERRUPTED.clone()
    }

    /// The session's watcher: ticks the progress, and stops the search
    /// once Ctrl-C is pressed.
    pub fn watcher(&self) -> crate::engine::Watcher {
        let progress = self.clone();
        Box::new(move |tally| {
            progress.tick(tally);
            !interrupted()
        })
    }

    /// The session's teller of stages, shown beside the positions solved.
    pub fn stages(&self) -> crate::session::Stages {
        let progress = self.clone();
        Box::new(move |stage| {
            if let Ok(mut state) = progress.0.lock() {
                state.stage = Some(stage.clone());
                draw(&mut state);
            }
        })
    }

    /// Called with how far the search went.
    pub fn tick(&self, tally: &Tally) {
        if let Ok(mut state) = self.0.lock() {
            state.tally = *tally;
            if let Some((_, first @ None)) = state.started.as_mut() {
                *first = Some(*tally);
            }
            draw(&mut state);
        }
    }

    /// Clears the line, so that an answer prints cleanly.
    pub fn pause(&self) {
        if let Ok(mut state) = self.0.lock()
            && let Some(bar) = state.bar.take()
        {
            bar.finish_and_clear();
        }
    }

    /// Ends the search: Ctrl-C ends the program again.
    pub fn finish(&self) {
        self.pause();
        if let Ok(mut state) = self.0.lock() {
            state.started = None;
            state.stage = None;
        }
        COMPUTING.store(false, Ordering::SeqCst);
    }
}

/// Shows the progress line, once the search has run for a while and only
/// on a terminal.
fn draw(state: &mut State) {
    let Some((started, first)) = state.started else {
        return;
    };
    let elapsed = started.elapsed();
    if elapsed < QUIET_FOR || !std::io::stderr().is_terminal() {
        return;
    }
    let bar = state.bar.get_or_insert_with(|| {
        let target =
            ProgressDrawTarget::term_like(Box::new(ShortOfTheEdge(console::Term::stderr())));
        let bar = ProgressBar::with_draw_target(None, target);
        bar.set_style(ProgressStyle::with_template("{spinner} {msg}").expect("a valid template"));
        bar
    });
    let first = first.unwrap_or(state.tally);
    let since = Tally {
        states: state.tally.states.saturating_sub(first.states),
        searched: state.tally.searched.saturating_sub(first.searched),
        sums: state.tally.sums.saturating_sub(first.sums),
        ..state.tally
    };
    let seconds = elapsed.as_secs_f64();
    bar.set_message(message(state.stage.as_ref(), &state.tally, &since, seconds));
    bar.tick();
}

/// The progress line: what the search is about, when the session said,
/// and how fast it goes. `tally` is how far the search went, `since` how
/// far since it started.
fn message(stage: Option<&Stage>, tally: &Tally, since: &Tally, seconds: f64) -> String {
    let rate = |n: f64| n / seconds;
    let solving = format!(
        "{}, {:.0}/s",
        count(tally.states, "position", "positions"),
        rate(since.states as f64)
    );
    let text = match stage {
        // A search of whole sums (`crosscheck`, `remoteness`): the sums
        // it entered, and the positions of its parts' tables if any are
        // kept (a code's table is not).
        None if since.sums > 0 => {
            let sums = format!(
                "searching whole sums: {} ({:.0}/s)",
                count(since.sums, "sum", "sums"),
                rate(since.sums as f64)
            );
            match tally.states {
                0 => sums,
                states => format!("{sums}; {}", count(states, "position", "positions")),
            }
        }
        // The pruned search: the value tested, how deep it is, how fast
        // it lists positions.
        None if since.searched > 0 => {
            let testing = match tally.testing {
                Some(value) => format!("testing value {value}, "),
                None => String::new(),
            };
            let forgotten = match tally.forgotten {
                0 => String::new(),
                n => format!(", {n} forgotten to keep within --max-table"),
            };
            let shared = match tally.shared {
                0 => String::new(),
                n => format!(", {n} found by other threads"),
            };
            let megabytes = tally.table_bytes as f64 / f64::from(1 << 20);
            format!(
                "searching: {testing}depth {}, {} listed ({:.0}/s){shared}; {} (table {megabytes:.0} MB{forgotten})",
                tally.depth,
                count(since.searched, "position", "positions"),
                rate(since.searched as f64),
                count(tally.states, "position", "positions")
            )
        }
        None => format!("solving: {solving}"),
        Some(Stage::Period { game, largest, .. }) => {
            format!("period {game}: none up to {largest} proven; {solving}")
        }
        Some(Stage::Certify {
            parts,
            listed,
            claimed: 0,
        }) => format!(
            "certifying: {} found, work {listed} ({:.0}/s)",
            count(*parts, "position", "positions"),
            rate(*listed as f64)
        ),
        Some(Stage::Certify { parts, claimed, .. }) => {
            format!(
                "certifying: {claimed} of {} claimed; {solving}",
                count(*parts, "position", "positions")
            )
        }
        // A quotient of heaps whose values are known lists no positions:
        // its heaps are its progress.
        Some(Stage::Quotient { game, heap, order }) if tally.states == 0 => {
            format!("quotient {game}: heaps to {heap}, order {order}")
        }
        Some(Stage::Quotient { game, heap, order }) => {
            format!("quotient {game}: heaps to {heap}, order {order}; {solving}")
        }
        Some(Stage::Verify { checked, claims }) => format!(
            "verifying: {checked} of {} checked ({:.0}/s)",
            count(*claims, "claim", "claims"),
            rate(*checked as f64)
        ),
    };
    text + " (Ctrl-C stops)"
}

/// Standard error as a terminal a few columns narrower than it is. The
/// progress line is padded to the terminal's width, which leaves the cursor
/// at the right edge: the `^C` the terminal echoes for Ctrl-C would then wrap
/// to a line of its own, and clearing the progress would clear that line,
/// leaving the progress on screen above the answer.
#[derive(Debug)]
struct ShortOfTheEdge(console::Term);

/// Columns kept free at the right edge: room for the echoed `^C`.
const MARGIN: u16 = 4;

impl TermLike for ShortOfTheEdge {
    fn width(&self) -> u16 {
        self.0.size().1.saturating_sub(MARGIN).max(1)
    }

    fn height(&self) -> u16 {
        self.0.size().0
    }

    fn move_cursor_up(&self, n: usize) -> std::io::Result<()> {
        self.0.move_cursor_up(n)
    }

    fn move_cursor_down(&self, n: usize) -> std::io::Result<()> {
        self.0.move_cursor_down(n)
    }

    fn move_cursor_right(&self, n: usize) -> std::io::Result<()> {
        self.0.move_cursor_right(n)
    }

    fn move_cursor_left(&self, n: usize) -> std::io::Result<()> {
        self.0.move_cursor_left(n)
    }

    fn write_line(&self, line: &str) -> std::io::Result<()> {
        self.0.write_line(line)
    }

    fn write_str(&self, text: &str) -> std::io::Result<()> {
        self.0.write_str(text)
    }

    fn clear_line(&self) -> std::io::Result<()> {
        self.0.clear_line()
    }

    fn flush(&self) -> std::io::Result<()> {
        std::io::Write::flush(&mut &self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A quotient whose heaps' values are all known says how far its heaps
    /// went, not "0 positions, 0/s".
    #[test]
    fn a_quotient_of_known_heaps_counts_heaps_not_positions() {
        let stage = Stage::Quotient {
            game: "K".into(),
            heap: 286,
            order: 40,
        };
        let idle = Tally::default();
        let line = message(Some(&stage), &idle, &idle, 4.0);
        assert_eq!(line, "quotient K: heaps to 286, order 40 (Ctrl-C stops)");
        let busy = Tally {
            states: 1200,
            ..Tally::default()
        };
        let line = message(Some(&stage), &busy, &busy, 4.0);
        assert!(line.contains("1200 positions, 300/s"), "{line}");
    }
}
