//! The engine's errors in the language's own words: positions named as
//! written, limits with the flag that raises them.

use std::num::NonZeroUsize;

use miette::SourceSpan;

use crate::engine::{Bound, EngineError};
use crate::eval::{EvalError, grouped, grouped_count, noun};
use crate::interp::{Component, Interpreter};

/// Names the positions of an engine error in the language's own words.
pub(super) fn engine_error(
    interp: &Interpreter,
    error: EngineError<Component, EvalError>,
    span: SourceSpan,
) -> EvalError {
    match error {
        // Stopped inside a rule: the query was interrupted, as below.
        EngineError::Rules(EvalError::Interrupted { .. }) => EvalError::Interrupted { span },
        EngineError::Rules(error) => error,
        EngineError::Loopy { cycle } => EvalError::Loopy {
            cycle: cycle
                .iter()
                .map(|position| interp.show(std::slice::from_ref(position)).to_string())
                .collect::<Vec<_>>()
                .join(" -> "),
            span,
        },
        EngineError::TooManyStates { limit, expanding } => EvalError::TooManyStates {
            limit,
            raise: format!(
                "raise the limit if memory allows: `--max-states {}` gives twice the room (each position costs memory); or ask about a smaller position",
                grouped(limit.saturating_mul(2))
            ),
            game: match &expanding {
                Component::Game(game, _) => interp.program.game(*game).name.clone(),
                Component::Node(graph, _) => interp.program.graph(*graph).name.clone(),
                Component::Heap(_) => "Nim".to_owned(),
            },
            position: interp.show(std::slice::from_ref(&expanding)).to_string(),
            span,
        },
        EngineError::OutOfMemory { solved } => EvalError::OutOfMemory {
            solved,
            lower: match solved {
                // Nothing to stop at below the limit: a table of values
                // (a code's) could not be made as long as the heap asked.
                0 => "run it on a machine with more memory, or ask about a smaller position"
                    .to_owned(),
                _ => format!(
                    "run it on a machine with more memory or on one thread (`--threads 1`: each thread keeps a table and a stack of its own), or set a lower state limit (`--max-states {}`) to stop at the limit instead; or ask about a smaller position",
                    grouped((solved / 2).max(1))
                ),
            },
            span,
        },
        EngineError::Interrupted => EvalError::Interrupted { span },
        EngineError::TooMuchWork {
            limit,
            examined,
            solved,
            of,
            expanding,
            forgotten,
            found,
        } => {
            let raise = raise_work(limit, solved, of.map(NonZeroUsize::get));
            EvalError::TooMuchWork {
                limit,
                examined,
                position: interp.show(std::slice::from_ref(&expanding)).to_string(),
                solved: solved as u64,
                of: of.map(|of| of.get() as u64),
                raise: match forgotten {
                    None => kept_or_not(found, raise),
                    Some((forgotten, within)) => forgot(forgotten, within, raise),
                },
                span,
            }
        }
        EngineError::PositionsTooLarge {
            bytes,
            solved,
            expanding,
        } => EvalError::PositionsTooLarge {
            size: table_size(bytes),
            solved,
            position: interp.show(std::slice::from_ref(&expanding)).to_string(),
            span,
        },
        EngineError::SumsTooLarge { bytes, expanding } => EvalError::SumsTooLarge {
            size: table_size(bytes),
            position: interp.show(std::slice::from_ref(&expanding)).to_string(),
            span,
        },
        EngineError::LoopyTooLarge { bytes, expanding } => EvalError::LoopyTooLarge {
            size: table_size(bytes),
            position: interp.show(std::slice::from_ref(&expanding)).to_string(),
            span,
        },
        EngineError::TooManyListed { limit } => EvalError::TooManyListed { limit, span },
        EngineError::TooManyMoves { limit, expanding } => EvalError::TooManyMoves {
            limit,
            position: interp.show(std::slice::from_ref(&expanding)).to_string(),
            span,
        },
        EngineError::RunsOff { start, deepest } => {
            let falling = interp.falling_parameter(&deepest);
            let rising = interp.rising_parameter(&deepest);
            let (game, i) = falling
                .or(rising)
                .expect("the engine stops only where the rules saw a fall or a rise");
            let shown: Vec<String> = start
                .iter()
                .map(|position| interp.show(std::slice::from_ref(position)).to_string())
                .collect();
            let last: Vec<String> = deepest
                .iter()
                .map(|position| interp.show(std::slice::from_ref(position)).to_string())
                .collect();
            let (name, parameter) = (
                interp.program.game(game).name.clone(),
                interp.program.game(game).params[i].clone(),
            );
            let chain = format!("{} -> … -> {}", shown.join(" -> "), last.join(" -> "));
            let argument = interp.argument_moving(game, i);
            match falling {
                Some(_) => EvalError::RunsOff {
                    game: name,
                    parameter,
                    chain,
                    span,
                    argument,
                },
                None => EvalError::GrowsForever {
                    parameter,
                    chain,
                    span,
                    argument,
                },
            }
        }
        EngineError::TooManyOptions {
            limit,
            count,
            position,
        } => EvalError::TooManyOptions {
            limit,
            what: ("option", "options"),
            span,
            context: format!(
                " while listing the options of {} ({} of them)",
                interp.show(std::slice::from_ref(&position)),
                grouped(count)
            ),
        },
        EngineError::SearchTooLarge { limit, needed } => EvalError::SearchTooLarge {
            limit,
            needed: match needed > limit as u128 + 1 {
                true => format!(
                    "at least {}",
                    grouped_count(needed, "position", "positions")
                ),
                false => format!(
                    "more than {}",
                    grouped_count(limit, "position", "positions")
                ),
            },
            span,
        },
        EngineError::BoardTooLarge { limit, coins } => EvalError::SearchTooLarge {
            limit,
            needed: format!(
                "a board of more than {}, with room for {} or more",
                grouped_count(coins as u128, "coin", "coins"),
                grouped_count(1u128 << (coins + 1).min(127), "position", "positions")
            ),
            span,
        },
    }
}

/// The help of the work limit, `raise`, after what the search stopped
/// there found and kept, if it is one that keeps what it finds: a search
/// that kept nothing ends the same way when asked again.
fn kept_or_not(found: Option<u64>, raise: String) -> String {
    match found {
        None => raise,
        Some(0) => format!(
            "the search kept no new value before the limit, so asking again under the same limit (or resuming a table saved now) ends the same way; {raise}"
        ),
        Some(found) => format!(
            "the {} {} it found {} kept: asking again (or `--save`, then `--resume`) goes on from {}; or {raise}",
            grouped(found),
            noun(found, "value", "values"),
            if found == 1 { "is" } else { "are" },
            if found == 1 { "it" } else { "them" },
        ),
    }
}

/// A bound in bytes as `--max-table` reads it: `512 KB`, `1024 MB`.
fn table_size(bytes: usize) -> String {
    match bytes {
        bytes if bytes < 1 << 20 => format!("{} KB", bytes >> 10),
        bytes => format!("{} MB", bytes >> 20),
    }
}

/// The help of a search stopped at the work limit after it forgot
/// `forgotten` values to stay `within` a bound: what it still holds is
/// kept, and the work may have gone into finding the others again.
fn forgot(forgotten: u64, within: Bound, raise: String) -> String {
    let (flag, bound) = match within {
        Bound::States(limit) => ("--max-states", format!("{} positions", grouped(limit))),
        Bound::Table(bytes) => ("--max-table", table_size(bytes)),
    };
    format!(
        "the values it still holds are kept: asking again (or `--save`, then `--resume`) goes on from them; but the search forgot {} {} to stay within `{flag}` ({bound}), and may have spent the work finding them again: a larger `{flag}` lets it keep them; else {raise}",
        grouped(forgotten),
        noun(forgotten, "value", "values"),
    )
}

/// What raising the work limit would allow. How many options a query
/// needs is not known until it is solved; where the work was filling a
/// table of known size and got a quarter of the way, the work so far,
/// grown as if each position had options in proportion to its place in
/// the table (so the work grows as the square of the positions), and
/// twice that, says how far to raise it.
fn raise_work(limit: u64, solved: usize, of: Option<usize>) -> String {
    let factor = match of {
        Some(of) if solved > 0 && solved >= of.div_ceil(4) => {
            let (of, solved) = (of as f64, solved as f64);
            (2.0 * (of / solved).powi(2)).ceil().clamp(2.0, 32.0) as u64
        }
        _ => 10,
    };
    let raised = grouped(limit.saturating_mul(factor));
    match of {
        Some(of) if solved > 0 && solved >= of.div_ceil(4) => format!(
            "`--max-work {raised}` ({factor} times the limit) should see it through, if options grow with the positions as they have so far; or ask about a smaller position"
        ),
        _ => format!(
            "raise the limit if the wait is worth it: `--max-work {raised}` lets it examine ten times as many options; or ask about a smaller position"
        ),
    }
}
