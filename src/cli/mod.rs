//! The `sprague` command.

mod diff;
mod man;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use miette::Report;

use crate::engine::{DEFAULT_MAX_STATES, DEFAULT_MAX_WORK, Method};
use crate::front::progress::Progress;
use crate::front::{INPUT_ERROR, INTERRUPTED, STACK_SIZE, USAGE_ERROR, error_style, read_all};
use crate::output::{self, ErrorStyle};
use crate::session::{
    DEFAULT_MAX_DRAW, DEFAULT_MAX_QUOTIENT, DEFAULT_MAX_ROWS, DEFAULT_MAX_SEARCH,
    DEFAULT_MAX_SOURCE, DEFAULT_SAVE_EVERY, Event, PictureRequest, Saved, Session,
};

/// Sprague–Grundy values, outcomes and winning moves of impartial games
/// declared in `.game` files.
#[derive(Debug, Parser)]
#[command(
    name = "sprague",
    version,
    about,
    after_help = "With no command, `sprague` opens the REPL with nothing loaded (`sprague repl FILE…` loads files first).\n`sprague help language` prints the reference of the .game language; `sprague man` the manual page."
)]
pub struct Cli {
    /// With no command, sprague starts the REPL.
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Evaluate the queries of the files, in order (`-` reads standard input).
    Run {
        /// The `.game` files, read in order as one session (`-` is standard input).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print one JSON object per result; errors as miette JSON on stderr.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        limits: Limits,
        #[command(flatten)]
        tables: TableFiles,
    },
    /// Draw the move graph of a position of the file's games: DOT on
    /// standard output, or a file (SVG, by Graphviz, when it ends in .svg).
    Draw {
        /// The `.game` file declaring the games.
        file: PathBuf,
        /// The position, as written in the language: `Kayles(4) + *2`.
        position: String,
        /// Where to write the picture.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// The most nodes to draw.
        #[arg(long, default_value_t = DEFAULT_MAX_DRAW, value_name = "N", value_parser = limit)]
        max_draw: usize,
        /// Print a JSON object instead of the picture's text.
        #[arg(long)]
        json: bool,
    },
    /// Plot a game's Grundy values for each parameter from 0 to N, as SVG
    /// (or PNG, to a file ending in .png).
    Plot {
        /// The `.game` file declaring the game.
        file: PathBuf,
        /// A game of one parameter (or two: the second is drawn as colour).
        game: String,
        /// The largest parameter plotted.
        #[arg(long = "to", value_name = "N", value_parser = count)]
        to: usize,
        /// Where to write the picture: .svg, or .png for a bitmap.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Print a JSON object instead of the picture's text.
        #[arg(long)]
        json: bool,
    },
    /// Parse and check each file on its own, without evaluating anything;
    /// every file's errors are reported, and the exit code is 1 if any fails.
    Check {
        /// The `.game` files to check, each on its own (a file does not see
        /// another's declarations).
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Compare every game declared under the same name in two files.
    Diff {
        /// The file with the rules as they were.
        old: PathBuf,
        /// The file with the rules changed.
        new: PathBuf,
        /// The arguments to compare at (each parameter ranges over them).
        #[arg(long, default_value = "0..=100", value_name = "RANGE")]
        range: diff::Range,
        /// Print one JSON object per game, with every differing row.
        #[arg(long)]
        json: bool,
        /// Print every differing row, not only the first few after the summary.
        #[arg(long)]
        all: bool,
    },
    /// Serve the page in the browser (and its JSON API), after loading the
    /// files; on 127.0.0.1 unless `--host` says otherwise.
    Serve {
        /// `.game` files to load before the page opens.
        files: Vec<PathBuf>,
        /// The port; 0 picks a free one.
        #[arg(long, default_value_t = crate::serve::DEFAULT_PORT)]
        port: u16,
        /// Serve on this address instead of loopback (prints a warning:
        /// anyone who can reach it can run code in the session).
        #[arg(long, value_name = "ADDR")]
        host: Option<std::net::IpAddr>,
        /// Open the page in the browser.
        #[arg(long)]
        open: bool,
        #[command(flatten)]
        limits: Limits,
    },
    /// Write a certificate of a position's value: every part its proof
    /// needs, with its claimed value and the options that witness it.
    Certify {
        /// The file declaring the games.
        file: PathBuf,
        /// The position, as written in the language: `Kayles(5) + *2`.
        position: String,
        /// Where to write the certificate (standard output if not given).
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        #[command(flatten)]
        limits: Limits,
    },
    /// Check a certificate against the file's rules with the plain
    /// interpreter, trusting none of the engine's tables.
    Verify {
        /// The file declaring the games.
        file: PathBuf,
        /// The certificate, as `sprague certify` writes it.
        certificate: PathBuf,
        #[command(flatten)]
        limits: Limits,
    },
    /// Print a completion script for a shell: `sprague completions bash >
    /// ~/.local/share/bash-completion/completions/sprague`.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff): `sprague man > sprague.1`.
    Man,
    /// A language server over standard input and output, for editors.
    Lsp {
        /// Evaluate the work on standard input (the server's own workers).
        #[arg(long, hide = true)]
        evaluate: bool,
    },
    /// Explore games interactively, after loading the files.
    Repl {
        /// `.game` files to load before the prompt.
        files: Vec<PathBuf>,
        #[command(flatten)]
        limits: Limits,
    },
}

/// The bounds a session works within, each with a flag to raise it.
#[derive(Debug, Clone, clap::Args)]
struct Limits {
    /// The most distinct positions the session may solve (the pruned search forgets
    /// the values cheapest to find again to stay within it, as within --max-table), and
    /// the most assignments of a rule's bindings one position's options are listed by.
    #[arg(long, default_value_t = DEFAULT_MAX_STATES, value_name = "N", value_parser = limit)]
    max_states: usize,
    /// The most options one search may examine before it is stopped, and the most assignments of
    /// a table's bindings that are not rows by themselves (with a guard, every one).
    #[arg(long, default_value_t = DEFAULT_MAX_WORK, value_name = "N", value_parser = work)]
    max_work: u64,
    /// The most memory the pruned search's table of values may take, in megabytes
    /// (or with a unit: 512KB, 64MB, 2GB): past it, the values cheapest to find again
    /// are forgotten and the search goes on (the answers stay exact); they count toward
    /// --max-states too, which also makes the search forget rather than stop. It also
    /// bounds the graph a loopy game is valued on, what the positions kept hold in
    /// lists and large sets, and the sums a search of whole sums keeps (crosscheck,
    /// remoteness, misère play).
    #[arg(long, default_value = "1GB", value_name = "SIZE", value_parser = megabytes)]
    max_table: usize,
    /// The most sums `crosscheck`, `remoteness` and misère play may search for one row of a query.
    #[arg(long, default_value_t = DEFAULT_MAX_SEARCH, value_name = "N", value_parser = limit)]
    max_search: usize,
    /// The most elements a trial monoid of `quotient G up to N` may have.
    #[arg(long, default_value_t = DEFAULT_MAX_QUOTIENT, value_name = "N", value_parser = limit)]
    max_quotient: usize,
    /// The most nodes `draw` draws.
    #[arg(long, default_value_t = DEFAULT_MAX_DRAW, value_name = "N", value_parser = limit)]
    max_draw: usize,
    /// The most rows a query's table may have (`grundy G(n) for n in …`),
    /// or moves a list of moves (`moves`, `strategy`, `why`).
    #[arg(long, default_value_t = DEFAULT_MAX_ROWS, value_name = "N", value_parser = limit)]
    max_rows: usize,
    /// The most bytes of one source file (parsing holds up to about 170 bytes a byte).
    #[arg(long, default_value_t = DEFAULT_MAX_SOURCE, value_name = "N", value_parser = limit)]
    max_source: usize,
    /// Threads that fill a code's table of values, solve a game's table as a box, or
    /// run the pruned search of `grundy`, `wins?`, `best_move`, `moves`, `why` and
    /// `strategy` (sharing what they learn) [default: every core; more than the cores
    /// is lowered to them, with a note].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
    /// How a component's value is found: `search` looks for the value of the one
    /// position asked, pruning what it need not value (large boards); `memo` values
    /// every position reached; `auto` searches large regions of games that split.
    #[arg(long, value_enum, default_value_t = MethodArg::Auto, value_name = "METHOD")]
    method: MethodArg,
}

/// Where `sprague run` saves the values it finds, and resumes them from.
#[derive(Debug, Clone, clap::Args)]
struct TableFiles {
    /// Save the values found to FILE at the end of the run (Ctrl-C included) and now and
    /// then during a long search; each time written beside it and renamed into place, so
    /// that a kill at any moment leaves the last table saved whole.
    #[arg(long, value_name = "FILE")]
    save: Option<PathBuf>,
    /// Take in the values saved in FILE before the queries. A table cut short, altered,
    /// not sprague's, or saved for other rules than the sources declare is refused.
    #[arg(long, value_name = "FILE")]
    resume: Option<PathBuf>,
    /// The least time between two tables saved during a long search, in seconds
    /// (a save also waits twenty times as long as the last one took).
    #[arg(long, value_name = "SECONDS", requires = "save",
          default_value_t = DEFAULT_SAVE_EVERY.as_secs(), value_parser = seconds)]
    save_every: u64,
}

/// `--method`: the engine's [`Method`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum MethodArg {
    Auto,
    Search,
    Memo,
}

impl From<MethodArg> for Method {
    fn from(method: MethodArg) -> Method {
        match method {
            MethodArg::Auto => Method::Auto,
            MethodArg::Search => Method::Search,
            MethodArg::Memo => Method::Memo,
        }
    }
}

/// A limit: a count of at least 1 (a limit of none allows nothing, and
/// raising it tenfold is none).
fn limit(text: &str) -> Result<usize, String> {
    match count(text)? {
        0 => Err(format!("`{text}` allows nothing: a limit is at least 1")),
        limit => Ok(limit),
    }
}

/// A count as README writes them: `10000000`, `10_000_000` or `10,000,000`.
fn count(text: &str) -> Result<usize, String> {
    let digits: String = text.chars().filter(|&c| c != '_' && c != ',').collect();
    let grouped = text.split(['_', ',']).skip(1).all(|group| group.len() == 3);
    match digits.parse::<usize>() {
        Ok(count) if grouped && !text.starts_with(['_', ',']) => Ok(count),
        Ok(_) => Err(format!(
            "`{text}` is not a count: group digits by threes, as in 10_000_000 or 10,000,000"
        )),
        Err(error) => Err(format!("`{text}` is not a count: {error}")),
    }
}

/// A size in bytes: megabytes, or a count with a unit (`KB`, `MB`, `GB`,
/// each 1024 times the one before), as `--max-table` reads it.
fn megabytes(text: &str) -> Result<usize, String> {
    let upper = text.trim().to_ascii_uppercase();
    let digits = upper.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    if digits.trim().is_empty() {
        return Err(format!(
            "`{text}` is not a size: write megabytes (`512`), or a count with KB, MB or GB (`2GB`)"
        ));
    }
    let unit = match &upper[digits.len()..] {
        "" | "M" | "MB" => 1 << 20,
        "K" | "KB" => 1 << 10,
        "G" | "GB" => 1 << 30,
        _ => {
            return Err(format!(
                "`{text}` is not a size: its unit is none of KB, MB or GB (`2GB`, or megabytes alone: `512`)"
            ));
        }
    };
    let size = count(digits.trim())?;
    match size.checked_mul(unit) {
        Some(0) => Err("the table needs room for some values: give at least 1KB".to_owned()),
        Some(bytes) => Ok(bytes),
        None => Err(format!(
            "`{text}` is more memory than this machine can address"
        )),
    }
}

/// A count of seconds (0: as often as it may).
fn seconds(text: &str) -> Result<u64, String> {
    count(text).map(|count| count as u64)
}

/// A count of options, as [`limit`] reads it.
fn work(text: &str) -> Result<u64, String> {
    limit(text).map(|limit| limit as u64)
}

impl Limits {
    /// These limits with `--threads` lowered to the cores the machine gives
    /// the process, saying so: threads beyond them only wait for each
    /// other (a thousand cost seconds where two take a fraction), and each
    /// holds a stack and an allocation arena of address space.
    fn clamped(self) -> Limits {
        self.clamped_for(false)
    }

    /// [`Limits::clamped`], its note a line of JSON with `--json`.
    fn clamped_for(mut self, json: bool) -> Limits {
        let cores = std::thread::available_parallelism().map_or(1, |cores| cores.get());
        if let Some(threads) = self.threads
            && usize::from(threads) > cores
        {
            let text = format!(
                "--threads {threads} is more than the {} here; using {cores}",
                crate::eval::count(cores, "core", "cores")
            );
            match json {
                true => note(true, &text),
                false => note(false, &format!("note: {text}")),
            }
            self.threads = u16::try_from(cores).ok();
        }
        self
    }

    /// A session within these limits; an interactive one for the REPL.
    fn session(&self, interactive: bool) -> Session {
        let mut session = match interactive {
            true => Session::interactive(self.max_states),
            false => Session::new(self.max_states),
        };
        session.set_max_search(self.max_search);
        session.set_max_quotient(self.max_quotient);
        session.set_max_work(self.max_work);
        session.set_max_table(self.max_table);
        session.set_max_draw(self.max_draw);
        session.set_max_rows(self.max_rows);
        session.set_max_source(self.max_source);
        session.set_method(self.method.into());
        if let Some(threads) = self.threads {
            session.set_threads(usize::from(threads));
        }
        session
    }
}

pub fn main() -> ExitCode {
    // `sprague help language`: the language reference, for a user who has
    // the binary and not the checkout.
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args == ["help", "language"] {
        print!("{}", man::LANGUAGE);
        return ExitCode::SUCCESS;
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return usage_error(error),
    };
    if let Some(
        Command::Run { .. }
        | Command::Diff { .. }
        | Command::Draw { .. }
        | Command::Plot { .. }
        | Command::Certify { .. }
        | Command::Verify { .. },
    ) = &cli.command
    {
        // First of all, for every command that watches a search (see
        // `watched`): a stop while the sources are read is said too.
        crate::front::progress::hear_ctrl_c(true);
    }
    // The server evaluates on threads of its own, made when first needed;
    // its other threads need no large stack. One is made at once, so that
    // a limit that refuses their stacks stops the server at its start,
    // not each request after.
    if let Some(Command::Serve { .. }) = cli.command {
        let probe = std::thread::Builder::new()
            .stack_size(STACK_SIZE)
            .spawn(|| {});
        return match probe.map(std::thread::JoinHandle::join) {
            Ok(_) => run(cli),
            Err(error) => stack_refused(&error),
        };
    }
    let thread = std::thread::Builder::new()
        .name("sprague".into())
        .stack_size(STACK_SIZE)
        .spawn(move || run(cli));
    let thread = match thread {
        Ok(thread) => thread,
        Err(error) => return stack_refused(&error),
    };
    thread.join().unwrap_or_else(|_| {
        telln!("sprague: the evaluator panicked");
        ExitCode::FAILURE
    })
}

/// The evaluator's stack is address space reserved: a limit on address
/// space below it (`ulimit -v`, `prlimit --as`) refuses it at once.
fn stack_refused(error: &std::io::Error) -> ExitCode {
    telln!(
        "sprague: could not reserve the {} MB of address space the evaluator's stack \
         takes ({error})\n  help: raise the limit on address space (`ulimit -v`, \
         `prlimit --as`) to 2 GB or more; the stack is reserved, not used",
        STACK_SIZE >> 20
    );
    ExitCode::FAILURE
}

/// Prints clap's message, with a hint when a file was given where a
/// command was expected (`sprague sub.game`).
fn usage_error(error: clap::Error) -> ExitCode {
    let hint = match error.kind() {
        clap::error::ErrorKind::InvalidSubcommand => std::env::args()
            .nth(1)
            .filter(|word| word.ends_with(".game") || std::path::Path::new(word).is_file())
            .map(|file| format!("did you mean `sprague run {file}` (or `sprague repl {file}`)?")),
        _ => None,
    };
    let code = error.exit_code();
    let _ = error.print();
    if let Some(hint) = hint {
        telln!("\nhint: {hint}");
    }
    ExitCode::from(u8::try_from(code).unwrap_or(USAGE_ERROR))
}

fn run(cli: Cli) -> ExitCode {
    match cli.command {
        Some(Command::Run {
            files,
            json,
            limits,
            tables,
        }) => run_files(
            &files,
            json,
            limits.clamped_for(json).session(false),
            &tables,
        ),
        Some(Command::Draw {
            file,
            position,
            output,
            max_draw,
            json,
        }) => {
            let mut session = Session::new(DEFAULT_MAX_STATES);
            session.set_max_draw(max_draw);
            let request = PictureRequest::Draw {
                position: &position,
            };
            picture(&file, json, session, request, output.as_deref())
        }
        Some(Command::Plot {
            file,
            game,
            to,
            output,
            json,
        }) => {
            let session = Session::new(DEFAULT_MAX_STATES);
            let request = PictureRequest::Plot { game: &game, to };
            picture(&file, json, session, request, output.as_deref())
        }
        Some(Command::Check { files }) => check_files(&files),
        Some(Command::Diff {
            old,
            new,
            range,
            json,
            all,
        }) => diff::run(
            &old,
            &new,
            range,
            diff::Shown { json, all },
            error_style(json),
        ),
        Some(Command::Serve {
            files,
            port,
            host,
            open,
            limits,
        }) => {
            let sources = match read_all(&files) {
                Ok(sources) => sources,
                Err(failure) => return failure.exit(),
            };
            let limits = limits.clamped();
            crate::serve::serve(crate::serve::Options {
                host,
                port,
                open,
                sources,
                session: Box::new(move || limits.session(true)),
            })
        }
        Some(Command::Certify {
            file,
            position,
            output,
            limits,
        }) => certify(
            &file,
            &position,
            output.as_deref(),
            limits.clamped().session(false),
        ),
        Some(Command::Verify {
            file,
            certificate,
            limits,
        }) => verify(&file, &certificate, limits.session(false)),
        Some(Command::Completions { shell }) => {
            let mut command = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut command, "sprague", &mut std::io::stdout());
            ExitCode::SUCCESS
        }
        Some(Command::Man) => {
            let command = <Cli as clap::CommandFactory>::command();
            match man::render(command, &mut std::io::stdout().lock()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(_) => ExitCode::from(2),
            }
        }
        Some(Command::Lsp { evaluate: false }) => crate::lsp::run(),
        Some(Command::Lsp { evaluate: true }) => crate::lsp::worker::evaluate(),
        Some(Command::Repl { files, limits }) => {
            crate::repl::run(files, limits.clamped().session(true))
        }
        None => crate::repl::run(Vec::new(), Session::interactive(DEFAULT_MAX_STATES)),
    }
}

fn run_files(files: &[PathBuf], json: bool, mut session: Session, tables: &TableFiles) -> ExitCode {
    let style = error_style(json);
    let sources = match read_all(files) {
        Ok(sources) => sources,
        Err(failure) => return failure.exit_with(style),
    };
    if let Some(path) = &tables.resume
        && let Err(report) = session.resume(path, &sources)
    {
        return refused_table(&report, style);
    }
    if let Some(path) = &tables.save {
        let every = std::time::Duration::from_secs(tables.save_every);
        session.save_to(path, every);
        if let Err(report) = session.check_save() {
            return refused_table(&report, style);
        }
    }
    let mut failed = false;
    for (name, text) in &sources {
        failed |= !print_run(&mut session, name, text, json);
        // Ctrl-C stops the whole run, not only the query it stopped.
        if crate::front::progress::interrupted() {
            break;
        }
    }
    if let Some(path) = &tables.save {
        match crate::front::progress::saving(|| session.save()) {
            Ok(Saved::Written(saved)) => note(
                json,
                &format!(
                    "saved {} to {}",
                    crate::eval::count(saved, "value", "values"),
                    path.display()
                ),
            ),
            Ok(Saved::Kept { held, now }) => note(
                json,
                &format!(
                    "kept {} as it was: it holds {held} values, and this run has {now} now (a \
                     query stopped by the limit of states or of memory gives up the values it \
                     found; a table resumed in part has fewer); a table of fewer would replace \
                     them",
                    path.display()
                ),
            ),
            Ok(Saved::Empty) => note(
                json,
                &format!(
                    "kept {} as it was: this run found no value a table keeps",
                    path.display()
                ),
            ),
            Err(report) => {
                failed = true;
                tell!("{}", output::error(&report, style));
            }
        }
    }
    exit_code(failed)
}

/// A note on standard error: a line of text, or with `--json` a line of
/// JSON, `{"note": "…"}`, so that every line there is JSON (as errors are).
fn note(json: bool, text: &str) {
    match json {
        true => telln!("{}", serde_json::json!({ "note": text })),
        false => telln!("{text}"),
    }
}

/// `sprague draw` and `sprague plot`: the file's declarations (its queries
/// are not run), then the one query the command line asks, built as a value.
fn picture(
    file: &std::path::Path,
    json: bool,
    session: Session,
    request: PictureRequest,
    output: Option<&std::path::Path>,
) -> ExitCode {
    let mut session = match declared(file, session, error_style(json)) {
        Ok(session) => session,
        Err(code) => return code,
    };
    let output = output.map(|path| path.to_string_lossy().into_owned());
    let answered = print_events(&mut session, json, |session, sink| {
        session.picture(request, output.as_deref(), sink)
    });
    exit_code(!answered)
}

/// The session with the file's declarations (its queries are not run),
/// or the exit code of why not, the error printed in `style`.
fn declared(
    file: &std::path::Path,
    mut session: Session,
    style: ErrorStyle,
) -> Result<Session, ExitCode> {
    let sources = read_all(&[file.to_path_buf()]).map_err(|failure| failure.exit_with(style))?;
    let (name, text) = &sources[0];
    if let Err(report) = session.declare(name, text, &mut |_| {}) {
        tell!("{}", output::error(&report, style));
        return Err(exit_code(true));
    }
    Ok(session)
}

/// `sprague certify FILE POSITION [-o OUT]`.
fn certify(
    file: &std::path::Path,
    position: &str,
    to: Option<&std::path::Path>,
    session: Session,
) -> ExitCode {
    let style = error_style(false);
    let mut session = match declared(file, session, style) {
        Ok(session) => session,
        Err(code) => return code,
    };
    let progress = watched(&mut session);
    let certified = session.certify("<command line>", position);
    unwatched(&mut session, &progress);
    let certificate = match certified {
        Ok(certificate) => certificate,
        Err(report) => {
            tell!("{}", output::error(&report, style));
            return exit_code(true);
        }
    };
    match to {
        None => {
            let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
            // A closed pipe ends the output.
            let _ = serde_json::to_writer_pretty(&mut stdout, &certificate)
                .map_err(std::io::Error::from)
                .and_then(|()| writeln!(stdout))
                .and_then(|()| stdout.flush());
        }
        Some(path) => {
            if let Err(error) = write_certificate(path, &certificate) {
                telln!("sprague: cannot write {}: {error}", path.display());
                return ExitCode::from(2);
            }
            say!(
                "certified: {} = {} ({}), written to {}",
                certificate.position,
                certificate.value,
                crate::eval::count(certificate.claims.len(), "position", "positions"),
                path.display()
            );
        }
    }
    ExitCode::SUCCESS
}

/// Writes a certificate so that a run killed midway leaves no
/// half-written certificate under the name asked for.
fn write_certificate(
    path: &std::path::Path,
    certificate: &crate::session::certificate::Certificate,
) -> std::io::Result<()> {
    crate::files::write_aside(path, |writer| {
        serde_json::to_writer_pretty(&mut *writer, certificate)?;
        writeln!(writer)
    })
}

/// `sprague verify FILE CERTIFICATE`.
fn verify(file: &std::path::Path, path: &std::path::Path, session: Session) -> ExitCode {
    let style = error_style(false);
    let mut session = match declared(file, session, style) {
        Ok(session) => session,
        Err(code) => return code,
    };
    let certificate = std::fs::read_to_string(path)
        .map_err(|error| format!("cannot read {}: {error}", path.display()))
        .and_then(|text| serde_json::from_str(&text).map_err(|error| error.to_string()));
    let certificate: crate::session::certificate::Certificate = match certificate {
        Ok(certificate) => certificate,
        Err(error) => {
            let report = Report::new(crate::session::certificate::Refused::Unreadable(error));
            tell!("{}", output::error(&report, style));
            return exit_code(true);
        }
    };
    let progress = watched(&mut session);
    let verified = session.verify("<certificate>", &certificate);
    unwatched(&mut session, &progress);
    match verified {
        Ok((value, positions)) => {
            say!(
                "verified: {} = {value} ({})",
                certificate.position,
                crate::eval::count(positions, "position", "positions")
            );
            ExitCode::SUCCESS
        }
        Err(report) => {
            tell!("{}", output::error(&report, style));
            exit_code(true)
        }
    }
}

/// Runs a source in the session, printing answers and errors as they come;
/// returns whether nothing failed.
fn print_run(session: &mut Session, name: &str, text: &str, json: bool) -> bool {
    print_events(session, json, |session, sink| session.run(name, text, sink))
}

/// Runs `ask` in the session, printing its answers and errors as they
/// come; returns whether nothing failed.
fn print_events(
    session: &mut Session,
    json: bool,
    ask: impl FnOnce(&mut Session, &mut dyn FnMut(Event)) -> bool,
) -> bool {
    let mut stdout = std::io::stdout().lock();
    let mut failed = false;
    let progress = watched(session);
    {
        ask(session, &mut |event| {
            progress.pause();
            match event {
                Event::Answer(answer) => {
                    let line = match json {
                        true => output::json_text(&answer),
                        false => output::text(&answer),
                    };
                    // A closed pipe (`| head`) ends the output, not the run.
                    let _ = writeln!(stdout, "{line}");
                }
                Event::Note(text) => note(json, &text),
                Event::Play(_) => unreachable!("a non-interactive session refuses `play`"),
                Event::Error(report) => {
                    failed = true;
                    tell!("{}", output::error(&report, error_style(json)));
                }
            }
        });
    }
    unwatched(session, &progress);
    !failed
}

/// Starts showing a long search's progress on a terminal, and makes
/// Ctrl-C stop it with the interrupted error (see [`unwatched`]); the
/// handler is installed as the command starts.
fn watched(session: &mut Session) -> Progress {
    let progress = Progress::default();
    session.set_watcher(Some(progress.watcher()));
    session.set_stages(Some(progress.stages()));
    session.set_stop(Some(progress.stop_flag()));
    progress.start();
    progress
}

/// Stops showing progress; Ctrl-C ends the program again.
fn unwatched(session: &mut Session, progress: &Progress) {
    progress.finish();
    session.set_watcher(None);
    session.set_stages(None);
    session.set_stop(None);
}

fn check_files(files: &[PathBuf]) -> ExitCode {
    let mut code = 0;
    for path in files {
        // Each file is read and checked on its own, in a session of its
        // own (the examples each declare their own `Kayles`), and every
        // file's errors are reported.
        let (name, text) = match read_all(std::slice::from_ref(path)) {
            Ok(mut sources) => sources.remove(0),
            Err(failure) => {
                failure.exit();
                code = code.max(failure.code);
                continue;
            }
        };
        let mut session = Session::new(DEFAULT_MAX_STATES);
        match session.declare(&name, &text, &mut |_| {}) {
            Ok(queries) => say!("{name}: ok, {}", summary(&session, &name, queries.len())),
            Err(report) => {
                code = code.max(INPUT_ERROR);
                tell!("{}", output::error(&report, error_style(false)));
            }
        }
    }
    ExitCode::from(code)
}

/// What a checked file declares and asks, in a phrase:
/// `2 games, 1 graph, 1 let and 5 queries`.
fn summary(session: &Session, file: &str, queries: usize) -> String {
    let count = |n: usize, one: &str, many: &str| match n {
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    };
    let declared = session.declared_in(file);
    let kinds = [("game", "games"), ("graph", "graphs"), ("let", "lets")];
    let mut parts: Vec<String> = kinds
        .iter()
        .map(|&(one, many)| {
            let n = declared.iter().filter(|kind| **kind == one).count();
            count(n, one, many)
        })
        .collect();
    parts.push(count(queries, "query", "queries"));
    let last = parts.pop().expect("four parts");
    format!("{} and {last}", parts.join(", "))
}

/// The exit code of a command that failed or not; 130, as for SIGINT,
/// when Ctrl-C stopped it.
fn exit_code(failed: bool) -> ExitCode {
    match failed {
        _ if crate::front::progress::interrupted() => ExitCode::from(INTERRUPTED),
        true => ExitCode::from(INPUT_ERROR),
        false => ExitCode::SUCCESS,
    }
}

/// A table `--resume` or `--save` names, refused: a file that cannot be
/// read or written is a usage error, as a missing source file is; one read
/// but refused (another game's, altered, cut short) is an error in the
/// input.
fn refused_table(report: &Report, style: ErrorStyle) -> ExitCode {
    let code = report.code().map(|code| code.to_string());
    match code.as_deref() {
        Some("sprague::table::unreadable" | "sprague::table::unwritable") => {
            print_fatal(report, style)
        }
        _ => {
            tell!("{}", output::error(report, style));
            exit_code(true)
        }
    }
}

fn print_fatal(report: &Report, style: ErrorStyle) -> ExitCode {
    tell!("{}", output::error(report, style));
    ExitCode::from(USAGE_ERROR)
}
