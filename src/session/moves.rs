//! A sum's moves as the answers list them: each with the value it leaves,
//! the part it moves in and the sum it leaves.

use super::{MoveLine, WHOLE_SUM_PARTS};
use crate::engine::{Engine, EngineError, Gamma, Move, Outcome};
use crate::eval::EvalError;
use crate::interp::{Component, Interpreter};

/// What the engine gives: a result, or an error naming positions.
pub(super) type Solved<T> = Result<T, EngineError<Component, EvalError>>;

/// A move and the value of the sum it leaves.
pub(super) type Valued = (Move<Component>, Gamma);

/// Every move of a sum, with the value it leaves: by the XOR rule, or
/// for a loopy sum from generalised values.
pub(super) fn valued_moves(
    interp: &Interpreter,
    engine: &mut Engine<Component>,
    sum: &[Component],
) -> Solved<Vec<Valued>> {
    Ok(valued_moves_and_loopy(interp, engine, sum)?.0)
}

/// [`valued_moves`], and whether the sum is loopy (valued by Smith's
/// generalised values, as play may not end).
pub(super) fn valued_moves_and_loopy(
    interp: &Interpreter,
    engine: &mut Engine<Component>,
    sum: &[Component],
) -> Solved<(Vec<Valued>, bool)> {
    match engine.moves(interp, sum) {
        Ok(moves) => Ok((
            moves
                .into_iter()
                .map(|(r#move, grundy)| (r#move, Gamma::Finite(grundy)))
                .collect(),
            false,
        )),
        Err(EngineError::Loopy { .. }) => Ok((engine.gamma_moves(interp, sum)?, true)),
        Err(error) => Err(error),
    }
}

pub(super) fn move_line(
    interp: &Interpreter,
    sum: &[Component],
    r#move: &Move<Component>,
    grundy: Gamma,
) -> MoveLine {
    MoveLine {
        result: Some(interp.show(&r#move.apply(sum)).to_string()),
        ..listed_move_line(interp, sum, r#move, grundy)
    }
}

/// A move as a list of a sum's moves shows it: with the sum it leaves
/// only when the sum has at most [`WHOLE_SUM_PARTS`] parts, so that the
/// list grows as the moves do, not as the moves times the sum.
pub(super) fn listed_move_line(
    interp: &Interpreter,
    sum: &[Component],
    r#move: &Move<Component>,
    grundy: Gamma,
) -> MoveLine {
    MoveLine {
        // A sum of 2^32 parts would not fit in memory.
        part: u32::try_from(r#move.component).unwrap_or(u32::MAX),
        from: interp
            .show(&sum[r#move.component..=r#move.component])
            .to_string(),
        to: interp.show(&r#move.to).to_string(),
        result: (sum.len() <= WHOLE_SUM_PARTS).then(|| interp.show(&r#move.apply(sum)).to_string()),
        winning: grundy == Gamma::Finite(0),
        drawing: grundy.outcome() == Outcome::Draw,
        grundy,
    }
}
