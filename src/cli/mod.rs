//! The `sprague` command.

mod diff;

use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use miette::{Diagnostic, Report};
use thiserror::Error;

use crate::engine::DEFAULT_MAX_STATES;
use crate::output::{self, ErrorStyle};
use crate::session::{DEFAULT_MAX_SEARCH, Event, Session};

/// Sprague–Grundy values, outcomes and winning moves of impartial games
/// declared in `.game` files.
#[derive(Debug, Parser)]
#[command(name = "sprague", version, about)]
pub struct Cli {
    /// With no command, sprague starts the REPL.
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Evaluate the queries of the files, in order (`-` reads standard input).
    Run {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print one JSON object per result; errors as miette JSON on stderr.
        #[arg(long)]
        json: bool,
        /// The most distinct positions one session may solve.
        #[arg(long, default_value_t = DEFAULT_MAX_STATES, value_name = "N")]
        max_states: usize,
        /// The most sums `crosscheck` and `remoteness` may search.
        #[arg(long, default_value_t = DEFAULT_MAX_SEARCH, value_name = "N")]
        max_search: usize,
    },
    /// Parse and check the files without evaluating anything.
    Check {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Compare every game declared under the same name in two files.
    Diff {
        old: PathBuf,
        new: PathBuf,
        /// The arguments to compare at (each parameter ranges over them).
        #[arg(long, default_value = "0..=100", value_name = "RANGE")]
        range: diff::Range,
        /// Print one JSON object per game.
        #[arg(long)]
        json: bool,
    },
    /// Explore games interactively, after loading the files.
    Repl {
        files: Vec<PathBuf>,
        /// The most distinct positions the session may solve.
        #[arg(long, default_value_t = DEFAULT_MAX_STATES, value_name = "N")]
        max_states: usize,
        /// The most sums `crosscheck` and `remoteness` may search.
        #[arg(long, default_value_t = DEFAULT_MAX_SEARCH, value_name = "N")]
        max_search: usize,
    },
}

#[derive(Debug, Error, Diagnostic)]
#[error("cannot read `{path}`: {reason}")]
#[diagnostic(
    code(sprague::cli::unreadable),
    help("check the path; `-` reads standard input")
)]
struct Unreadable {
    path: String,
    reason: String,
}

/// Exit codes: 0 success, 1 an error in the input, 2 a usage error.
const INPUT_ERROR: u8 = 1;
const USAGE_ERROR: u8 = 2;

/// The stack the evaluator runs on: deep nesting in a source recurses in
/// the parser and in expression evaluation.
const STACK_SIZE: usize = 1 << 30;

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    std::thread::Builder::new()
        .name("sprague".into())
        .stack_size(STACK_SIZE)
        .spawn(move || run(cli))
        .and_then(|thread| {
            thread
                .join()
                .map_err(|_| std::io::Error::other("the evaluator panicked"))
        })
        .unwrap_or_else(|error| {
            eprintln!("sprague: {error}");
            ExitCode::FAILURE
        })
}

fn run(cli: Cli) -> ExitCode {
    match cli.command {
        Some(Command::Run {
            files,
            json,
            max_states,
            max_search,
        }) => run_files(&files, json, max_states, max_search),
        Some(Command::Check { files }) => check_files(&files),
        Some(Command::Diff {
            old,
            new,
            range,
            json,
        }) => diff::run(&old, &new, range, json, error_style(json)),
        Some(Command::Repl {
            files,
            max_states,
            max_search,
        }) => crate::repl::run(files, max_states, max_search),
        None => crate::repl::run(Vec::new(), DEFAULT_MAX_STATES, DEFAULT_MAX_SEARCH),
    }
}

fn error_style(json: bool) -> ErrorStyle {
    match json {
        true => ErrorStyle::Json,
        false => ErrorStyle::Graphical {
            colour: std::io::stderr().is_terminal(),
            width: 100,
        },
    }
}

fn run_files(files: &[PathBuf], json: bool, max_states: usize, max_search: usize) -> ExitCode {
    let sources = match read_all(files) {
        Ok(sources) => sources,
        Err(report) => return print_fatal(&report, error_style(json)),
    };
    let mut session = Session::new(max_states);
    session.set_max_search(max_search);
    let mut stdout = std::io::stdout().lock();
    let mut failed = false;
    for (name, text) in &sources {
        session.run(name, text, &mut |event| match event {
            Event::Answer(answer) => {
                let line = match json {
                    true => output::json(&answer).to_string(),
                    false => output::text(&answer),
                };
                // A closed pipe (`| head`) ends the output, not the run.
                let _ = writeln!(stdout, "{line}");
            }
            Event::Note(note) => eprintln!("{note}"),
            Event::Play(_) => unreachable!("a non-interactive session refuses `play`"),
            Event::Error(report) => {
                failed = true;
                eprint!("{}", output::error(&report, error_style(json)));
                if json {
                    eprintln!();
                }
            }
        });
    }
    exit_code(failed)
}

fn check_files(files: &[PathBuf]) -> ExitCode {
    let sources = match read_all(files) {
        Ok(sources) => sources,
        Err(report) => return print_fatal(&report, error_style(false)),
    };
    let mut session = Session::new(DEFAULT_MAX_STATES);
    let mut failed = false;
    for (name, text) in &sources {
        if let Err(report) = session.declare(name, text, &mut |_| {}) {
            failed = true;
            eprint!("{}", output::error(&report, error_style(false)));
        }
    }
    exit_code(failed)
}

fn exit_code(failed: bool) -> ExitCode {
    match failed {
        true => ExitCode::from(INPUT_ERROR),
        false => ExitCode::SUCCESS,
    }
}

fn print_fatal(report: &Report, style: ErrorStyle) -> ExitCode {
    eprint!("{}", output::error(report, style));
    ExitCode::from(USAGE_ERROR)
}

/// Reads every file before evaluating any, so that a bad path fails fast.
fn read_all(files: &[PathBuf]) -> Result<Vec<(String, String)>, Report> {
    files
        .iter()
        .map(|path| {
            let name = path.display().to_string();
            let text = match name.as_str() {
                "-" => {
                    let mut text = String::new();
                    std::io::stdin().read_to_string(&mut text).map(|_| text)
                }
                _ => std::fs::read_to_string(path),
            };
            let text = text.map_err(|error| {
                Report::new(Unreadable {
                    path: name.clone(),
                    reason: error.to_string(),
                })
            })?;
            Ok((
                if name == "-" {
                    "<stdin>".to_owned()
                } else {
                    name
                },
                text,
            ))
        })
        .collect()
}
