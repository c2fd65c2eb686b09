//! The engine's errors in the language's own words: positions named as
//! written, limits with the flag that raises them.

use miette::SourceSpan;

use crate::engine::EngineError;
use crate::eval::{EvalError, count};
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
                underscored(limit.saturating_mul(2) as u64)
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
            lower: format!(
                "run it on a machine with more memory, or set a lower state limit (`--max-states {}`) to stop at the limit instead; or ask about a smaller position",
                underscored((solved / 2).max(1) as u64)
            ),
            span,
        },
        EngineError::Interrupted => EvalError::Interrupted { span },
        EngineError::TooMuchWork {
            limit,
            examined,
            solved,
            expanding,
        } => EvalError::TooMuchWork {
            limit,
            examined,
            position: interp.show(std::slice::from_ref(&expanding)).to_string(),
            solved,
            // How many options the query needs is not known until it is
            // solved: the help offers a step, not a promise.
            raise: format!(
                "raise the limit if the wait is worth it: `--max-work {}` lets it examine ten times as many options; or ask about a smaller position",
                underscored(limit.saturating_mul(10))
            ),
            span,
        },
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
                " while listing the options of {} ({count} of them)",
                interp.show(std::slice::from_ref(&position))
            ),
        },
        EngineError::SearchTooLarge { limit, needed } => EvalError::SearchTooLarge {
            limit,
            needed: match needed > limit as u128 + 1 {
                true => format!("at least {}", count(needed, "position", "positions")),
                false => format!("more than {}", count(limit, "position", "positions")),
            },
            span,
        },
    }
}

/// A count as `--max-work` and `--max-states` read it: `20_000_000`.
fn underscored(count: u64) -> String {
    crate::eval::grouped(count).replace(',', "_")
}
