//! `sprague repl`: read an entry, evaluate it with the same session and
//! printing as `sprague run`, print, repeat. On a terminal it edits lines
//! with history, completion and highlighting; on a pipe it reads
//! statements with no prompts or colour, so that it can be scripted.

mod helper;
mod input;
mod play;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use miette::{Diagnostic, Report};
use thiserror::Error;

use crate::front::progress::Progress;
use crate::output::{self, ErrorStyle};
use crate::session::{Completed, Event, PlayRequest, Session};
use input::{Input, Reader};

#[derive(Debug, Error, Diagnostic)]
enum ReplError {
    #[error("unknown command `{command}`")]
    #[diagnostic(code(sprague::repl::unknown_command), help(":help lists the commands"))]
    UnknownCommand { command: String },

    #[error("`{command}` {problem}")]
    #[diagnostic(code(sprague::repl::usage), help("{usage}"))]
    Usage {
        command: String,
        problem: &'static str,
        usage: &'static str,
    },

    #[error("no declaration named `{name}`")]
    #[diagnostic(
        code(sprague::repl::unknown_declaration),
        help(":games lists the declarations")
    )]
    UnknownDeclaration { name: String },
}

const HELP: &str = "\
Enter declarations (game, graph, let) and queries (grundy, wins?, best_move,
moves, play, genus, draw, plot, …; `wins? misere P` under misère play), and
nimber arithmetic (`nim 3 * 5`); a block left open continues on the next line.

  :help            this text
  :load FILE       run a file in this session
  :reload          run the loaded files again
  :games           list the declarations
  :show NAME       a declaration as written
  :json on|off     print answers as JSON lines
  :time on|off     print how long each entry took
  :quit            leave (or Ctrl-D)

Ctrl-C interrupts a long query; at the prompt it clears the line.";

struct Repl {
    session: Session,
    reader: Box<dyn Reader>,
    json: bool,
    time: bool,
    /// The files loaded so far, for `:reload`.
    files: Vec<PathBuf>,
    entries: usize,
    style: ErrorStyle,
    names: Arc<Mutex<Vec<String>>>,
    /// How far `names` was taken.
    completed: Completed,
    progress: Progress,
    failed: bool,
}

/// Runs the REPL over the given files; the exit code is 1 when reading from
/// a pipe and anything failed.
/// Runs the REPL on an interactive session, after loading the files.
pub fn run(files: Vec<PathBuf>, mut session: Session) -> ExitCode {
    // Every file is read before anything starts: a bad path is a usage
    // error, as it is for `sprague run`.
    let sources = match crate::front::read_all(&files) {
        Ok(sources) => sources,
        Err(failure) => return failure.exit(),
    };
    let terminal = std::io::stdin().is_terminal();
    let names = Arc::new(Mutex::new(Vec::new()));
    let reader: Box<dyn Reader> = match terminal {
        true => match input::Terminal::new(names.clone()) {
            Ok(reader) => Box::new(reader),
            Err(error) => {
                telln!("sprague: cannot start the line editor: {error}");
                return ExitCode::from(2);
            }
        },
        false => Box::new(input::Piped::new()),
    };
    // Ctrl-C stops a running query; otherwise it ends the program, as it
    // would without a handler (at a terminal prompt the editor reads it).
    crate::front::progress::hear_ctrl_c(false);
    let progress = Progress::default();
    session.set_watcher(Some(progress.watcher()));
    session.set_stages(Some(progress.stages()));
    session.set_stop(Some(progress.stop_flag()));
    let mut repl = Repl {
        session,
        reader,
        json: false,
        time: false,
        files: Vec::new(),
        entries: 0,
        style: ErrorStyle::Graphical {
            colour: terminal && std::io::stderr().is_terminal(),
            width: 100,
        },
        names,
        completed: Completed::default(),
        progress,
        failed: false,
    };
    // Once a file's queries are stopped (Ctrl-C), the files after it are
    // declared but not asked, as `sprague run` does.
    let mut stopped = false;
    for (file, (name, text)) in files.into_iter().zip(sources) {
        repl.run(&name, &text, stopped);
        stopped |= repl.session.stopped();
        repl.files.push(file);
    }
    if terminal {
        say!(
            "sprague {}: :help for help, Ctrl-D to leave",
            env!("CARGO_PKG_VERSION")
        );
    }
    repl.main_loop();
    match repl.failed && !terminal {
        true => ExitCode::from(1),
        false => ExitCode::SUCCESS,
    }
}

impl Repl {
    fn main_loop(&mut self) {
        loop {
            match self.reader.read("sprague> ") {
                Input::Line(line) => {
                    if !self.entry(&line) {
                        return;
                    }
                }
                Input::Interrupted => continue,
                Input::End => return,
            }
        }
    }

    /// Handles one entry; `false` when the user asked to leave.
    fn entry(&mut self, line: &str) -> bool {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            return true;
        }
        let started = Instant::now();
        let go_on = match trimmed.strip_prefix(':') {
            Some(command) => self.command(command),
            None => {
                self.entries += 1;
                let name = format!("<entry {}>", self.entries);
                self.evaluate(&name, line);
                true
            }
        };
        if self.time {
            telln!("time: {}", readable(started.elapsed()));
        }
        go_on
    }

    /// Runs a source in the session, printing as it goes, then plays any
    /// `play` it asked for.
    fn evaluate(&mut self, name: &str, text: &str) {
        self.run(name, text, false);
    }

    /// [`Repl::evaluate`]; `stopped`, it only declares what the source
    /// declares, and says its queries are not asked.
    fn run(&mut self, name: &str, text: &str, stopped: bool) {
        let (json, style) = (self.json, self.style);
        let mut plays = Vec::new();
        let mut failed = false;
        self.progress.start();
        if stopped {
            self.progress.stop_flag().store(true, Ordering::SeqCst);
        }
        let progress = self.progress.clone();
        self.session.run(name, text, &mut |event| {
            progress.pause();
            print_event(event, json, style, &mut plays, &mut failed);
        });
        self.progress.finish();
        self.failed |= failed;
        self.refresh_names();
        for request in plays {
            play::play(self, request);
        }
    }

    fn refresh_names(&mut self) {
        if let Ok(mut names) = self.names.lock() {
            self.session
                .completions_since(&mut self.completed, &mut names);
        }
    }

    fn error(&mut self, error: impl Diagnostic + Send + Sync + 'static) {
        self.report(&Report::new(error));
    }

    fn report(&mut self, report: &Report) {
        self.failed = true;
        tell!("{}", output::error(report, self.style));
    }

    /// A `:` command; `false` when it asks to leave.
    fn command(&mut self, command: &str) -> bool {
        let (name, argument) = command
            .split_once(char::is_whitespace)
            .map_or((command, ""), |(name, argument)| (name, argument.trim()));
        match name {
            "help" => say!("{HELP}"),
            "quit" | "q" | "exit" => return false,
            "load" if argument.is_empty() => self.error(ReplError::Usage {
                command: ":load".into(),
                problem: "needs a file",
                usage: ":load FILE",
            }),
            "load" => self.load(PathBuf::from(argument)),
            "reload" => {
                for file in self.files.clone() {
                    self.run_file(&file);
                }
            }
            "games" => {
                for listing in self.session.listings() {
                    say!("{} {}{}", listing.kind, listing.name, listing.detail);
                }
            }
            "show" => match self.session.source_of(argument) {
                Some(text) => say!("{text}"),
                None => self.error(ReplError::UnknownDeclaration {
                    name: argument.to_owned(),
                }),
            },
            "json" | "time" => match (argument, name) {
                ("on" | "off", "json") => self.json = argument == "on",
                ("on" | "off", _) => self.time = argument == "on",
                _ => self.error(ReplError::Usage {
                    command: format!(":{name}"),
                    problem: "takes `on` or `off`",
                    usage: if name == "json" {
                        ":json on|off"
                    } else {
                        ":time on|off"
                    },
                }),
            },
            _ => self.error(ReplError::UnknownCommand {
                command: format!(":{name}"),
            }),
        }
        true
    }

    fn load(&mut self, path: PathBuf) {
        if self.run_file(&path) {
            self.files.push(path);
        }
    }

    /// Runs a file in the session; `false` when it cannot be read (as
    /// `sprague run` reads it: a file that is not UTF-8 is shown at its
    /// first bad byte).
    fn run_file(&mut self, path: &std::path::Path) -> bool {
        match crate::front::read_file(path) {
            Ok((name, text)) => {
                self.evaluate(&name, &text);
                true
            }
            Err(failure) => {
                self.report(&failure.report);
                false
            }
        }
    }
}

/// A duration with three significant digits in the unit that suits it:
/// `0.7 µs`, `12.5 ms`, `1.25 s`.
fn readable(duration: std::time::Duration) -> String {
    let seconds = duration.as_secs_f64();
    let (value, unit) = match seconds {
        s if s < 1e-3 => (s * 1e6, "µs"),
        s if s < 1.0 => (s * 1e3, "ms"),
        s => (s, "s"),
    };
    let decimals = match value {
        v if v < 10.0 => 2,
        v if v < 100.0 => 1,
        _ => 0,
    };
    let digits = format!("{value:.decimals$}");
    let digits = match digits.contains('.') {
        true => digits.trim_end_matches('0').trim_end_matches('.'),
        false => &digits,
    };
    format!("{digits} {unit}")
}

/// Prints one event as `sprague run` would; `play` requests are kept.
fn print_event(
    event: Event,
    json: bool,
    style: ErrorStyle,
    plays: &mut Vec<PlayRequest>,
    failed: &mut bool,
) {
    match event {
        Event::Answer(answer) => {
            let text = match json {
                true => output::json_text(&answer),
                false => output::text(&answer),
            };
            let mut stdout = std::io::stdout().lock();
            let _ = writeln!(stdout, "{text}");
        }
        Event::Note(note) => telln!("{note}"),
        Event::Play(request) => plays.push(request),
        Event::Error(report) => {
            *failed = true;
            tell!("{}", output::error(&report, style));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::readable;
    use std::time::Duration;

    #[test]
    fn durations_read_in_their_unit() {
        assert_eq!(readable(Duration::from_nanos(700)), "0.7 µs");
        assert_eq!(readable(Duration::from_millis(1250)), "1.25 s");
        assert_eq!(readable(Duration::from_micros(12_500)), "12.5 ms");
        assert_eq!(readable(Duration::from_nanos(42)), "0.04 µs");
        assert_eq!(readable(Duration::from_secs(300)), "300 s");
    }
}
