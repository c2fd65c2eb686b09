//! `sprague diff OLD NEW`: every game declared under the same name in both
//! files, compared position by position over a range of arguments.

use std::path::PathBuf;
use std::process::ExitCode;

use miette::{Diagnostic, Report};
use thiserror::Error;

use crate::engine::DEFAULT_MAX_STATES;
use crate::eval::count;
use crate::output::{self, ErrorStyle};
use crate::program::QueryKind;
use crate::session::{Answer, Diff, DiffRow, Session, Value};

/// The most positions one game's comparison may cover.
const MAX_POSITIONS: u128 = 1_000_000;

#[derive(Debug, Error, Diagnostic)]
enum DiffError {
    #[error(
        "comparing `{game}` over {} would cover {positions} positions",
        count(*.dimensions, "parameter", "parameters")
    )]
    #[diagnostic(
        code(sprague::cli::diff_too_large),
        help("narrow the range with `--range`; it is a usage error, exit code 2")
    )]
    TooLarge {
        game: String,
        dimensions: usize,
        positions: u128,
    },
}

/// A range of arguments, `a..=b` or `a..b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    start: i64,
    end: i64,
}

impl std::str::FromStr for Range {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let parse = |(start, end): (&str, &str), inclusive: bool| -> Option<Range> {
            let (start, end) = (start.trim().parse().ok()?, end.trim().parse::<i64>().ok()?);
            let end = if inclusive { end } else { end.checked_sub(1)? };
            Some(Range { start, end })
        };
        let parsed = match text.split_once("..=") {
            Some(parts) => parse(parts, true),
            None => text.split_once("..").and_then(|parts| parse(parts, false)),
        };
        parsed.ok_or_else(|| format!("`{text}` is not a range such as `0..=100`"))
    }
}

impl Default for Range {
    fn default() -> Self {
        Range { start: 0, end: 100 }
    }
}

/// How the comparisons are printed: as JSON (every row), or as text with
/// every row or only the first few after the summary.
#[derive(Debug, Clone, Copy)]
pub struct Shown {
    pub json: bool,
    pub all: bool,
}

pub fn run(
    old: &PathBuf,
    new: &PathBuf,
    range: Range,
    shown: Shown,
    style: ErrorStyle,
) -> ExitCode {
    let mut sessions = Vec::new();
    for path in [old, new] {
        let text = match crate::front::read_all(std::slice::from_ref(path)) {
            Ok(mut sources) => sources.remove(0).1,
            Err(failure) => return failure.exit_with(style),
        };
        let mut session = Session::new(DEFAULT_MAX_STATES);
        if let Err(report) = session.declare(&path.display().to_string(), &text, &mut |_| {}) {
            tell!("{}", output::error(&report, style));
            return ExitCode::from(1);
        }
        sessions.push(session);
    }
    let (mut after, mut before) = (
        sessions.pop().expect("two sessions"),
        sessions.pop().expect("two sessions"),
    );
    let names = (old.display().to_string(), new.display().to_string());
    // Both sessions hear Ctrl-C (and SIGTERM, SIGHUP) and show a long
    // comparison's progress, as a run does.
    let progress = super::watched(&mut before);
    after.set_watcher(Some(progress.watcher()));
    after.set_stages(Some(progress.stages()));
    after.set_stop(Some(progress.stop_flag()));
    let code = compare_all(&mut before, &mut after, range, shown, style, &names);
    super::unwatched(&mut before, &progress);
    code
}

/// Compares every game the two sessions both declare, and names those
/// one of them declares alone.
fn compare_all(
    before: &mut Session,
    after: &mut Session,
    range: Range,
    shown: Shown,
    style: ErrorStyle,
    names: &(String, String),
) -> ExitCode {
    let json = shown.json;
    let mut failed = false;
    let later: Vec<(String, usize)> = after.games();
    let width = (range.end as i128 - range.start as i128 + 1).max(0) as u128;
    for (game, arity) in before.games() {
        let positions = width.checked_pow(arity as u32).unwrap_or(u128::MAX);
        if positions > MAX_POSITIONS && later.contains(&(game.clone(), arity)) {
            let too_large = DiffError::TooLarge {
                game,
                dimensions: arity,
                positions,
            };
            return super::print_fatal(&Report::new(too_large), style);
        }
    }
    for (game, arity) in before.games() {
        match later.iter().find(|(name, _)| *name == game) {
            Some((_, later_arity)) if *later_arity == arity => {
                match compare(before, after, &game, arity, range, names) {
                    Ok(answer) => print(&answer, shown),
                    Err(report) => {
                        failed = true;
                        tell!("{}", output::error(&report, style));
                        // Stopped from outside: no game after it is compared.
                        if before.stopped() {
                            break;
                        }
                    }
                }
            }
            Some((_, later_arity)) => match json {
                true => say!(
                    "{}",
                    serde_json::json!({
                        "query": "diff", "game": game, "a": names.0, "b": names.1,
                        "compared": false, "parameters": [arity, later_arity],
                    })
                ),
                false => say!(
                    "{game}: {} in {}, {later_arity} in {}; not compared",
                    count(arity, "parameter", "parameters"),
                    names.0,
                    names.1
                ),
            },
            None => only_in(&game, &names.0, json),
        }
    }
    // Stopped: the games after the one stopped are not named either.
    if before.stopped() {
        return super::exit_code(true);
    }
    for (game, _) in later
        .iter()
        .filter(|(name, _)| !before.games().iter().any(|(old, _)| old == name))
    {
        only_in(game, &names.1, json);
    }
    super::exit_code(failed)
}

/// A game declared in one file only.
fn only_in(game: &str, file: &str, json: bool) {
    match json {
        true => say!(
            "{}",
            serde_json::json!({ "query": "diff", "game": game, "only_in": file })
        ),
        false => say!("{game}: only in {file}"),
    }
}

fn print(answer: &Answer, shown: Shown) {
    match shown {
        Shown { json: true, .. } => say!("{}", output::json_text(answer)),
        Shown { all: true, .. } => say!("{}", output::diff_summary(answer, None)),
        Shown { all: false, .. } => say!(
            "{}",
            output::diff_summary(answer, Some(output::DIFF_ROWS_SHOWN))
        ),
    }
}

/// Compares one game over every tuple of arguments in the range.
fn compare(
    before: &mut Session,
    after: &mut Session,
    game: &str,
    arity: usize,
    range: Range,
    names: &(String, String),
) -> Result<Answer, Report> {
    let parameters = before.parameters(game);
    let mut diff = Diff {
        game: Some(game.to_owned()),
        a: names.0.clone(),
        b: names.1.clone(),
        positions: 0,
        flips: 0,
        rows: Vec::new(),
    };
    let mut args = vec![range.start; arity];
    // An empty range compares no position (a game without parameters, its one).
    if range.end < range.start && arity > 0 {
        args.clear();
    }
    while args.len() == arity {
        let (a, b) = (
            before.grundy_of(game, &args)?,
            after.grundy_of(game, &args)?,
        );
        diff.positions += 1;
        if a != b {
            let flip = (a == 0) != (b == 0);
            diff.flips += usize::from(flip);
            let bindings = args
                .iter()
                .enumerate()
                .map(|(i, value)| (parameters[i].clone(), *value))
                .collect();
            diff.rows.push(DiffRow {
                bindings,
                a,
                b,
                flip,
            });
        }
        // The next tuple, the last argument fastest.
        let Some(slot) = args.iter().rposition(|&value| value < range.end) else {
            break;
        };
        args[slot] += 1;
        args[slot + 1..].fill(range.start);
        if arity == 0 {
            break;
        }
    }
    Ok(Answer {
        play: None,
        query: QueryKind::Diff,
        position: game.to_owned(),
        bindings: Vec::new(),
        value: Value::Diff(diff),
        by: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_parse_like_the_language() {
        assert_eq!("0..=100".parse(), Ok(Range { start: 0, end: 100 }));
        assert_eq!("3..7".parse(), Ok(Range { start: 3, end: 6 }));
        assert!("7".parse::<Range>().is_err());
        assert!("a..b".parse::<Range>().is_err());
    }
}
