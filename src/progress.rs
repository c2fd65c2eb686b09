//! Progress of a long search on standard error, shown only on a terminal
//! and only once a query has run for half a second.

use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};

const QUIET_FOR: Duration = Duration::from_millis(500);

#[derive(Default)]
struct State {
    started: Option<(Instant, usize)>,
    bar: Option<ProgressBar>,
}

/// Shared between the REPL or `sprague run`, which start and finish it
/// around an entry or a file, and the engine's watcher, which ticks it.
#[derive(Clone, Default)]
pub struct Progress(Arc<Mutex<State>>);

impl Progress {
    pub fn start(&self) {
        if let Ok(mut state) = self.0.lock() {
            state.started = Some((Instant::now(), usize::MAX));
        }
    }

    /// Called with the number of positions interned so far.
    pub fn tick(&self, states: usize) {
        let Ok(mut state) = self.0.lock() else { return };
        let Some((started, first)) = state.started.as_mut() else {
            return;
        };
        if *first == usize::MAX {
            *first = states;
        }
        let (elapsed, solved) = (started.elapsed(), states.saturating_sub(*first));
        if elapsed < QUIET_FOR || !std::io::stderr().is_terminal() {
            return;
        }
        let bar = state.bar.get_or_insert_with(|| {
            let target =
                ProgressDrawTarget::term_like(Box::new(ShortOfTheEdge(console::Term::stderr())));
            let bar = ProgressBar::with_draw_target(None, target);
            bar.set_style(
                ProgressStyle::with_template("{spinner} {msg}").expect("a valid template"),
            );
            bar
        });
        let rate = solved as f64 / elapsed.as_secs_f64();
        bar.set_message(format!(
            "solving: {states} positions, {rate:.0}/s (Ctrl-C stops)"
        ));
        bar.tick();
    }

    /// Clears the line, so that an answer prints cleanly.
    pub fn pause(&self) {
        if let Ok(mut state) = self.0.lock()
            && let Some(bar) = state.bar.take()
        {
            bar.finish_and_clear();
        }
    }

    pub fn finish(&self) {
        self.pause();
        if let Ok(mut state) = self.0.lock() {
            state.started = None;
        }
    }
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
