//! `quotient G up to N`, and misère sums of heaps answered from a
//! quotient computed for them (`"by":"quotient"`).

use miette::SourceSpan;

use super::errors::engine_error;
use super::moves::{Solved, listed_move_line, move_line};
use super::{Answer, Event, QuotientReport, Session, Stage, Value, tell};
use crate::engine::{Engine, Gamma, Move};
use crate::eval::EvalError;
use crate::interp::{Component, Interpreter};
use crate::program::{GameId, QueryKind};
use crate::quotient::{Control, Heap, Quotient, QuotientError, Word};

/// The default bound on the elements of a trial monoid (`--max-quotient`).
/// A trial of N elements holds a table of 4·N² bytes: 64 MiB at 4096.
pub const DEFAULT_MAX_QUOTIENT: usize = 1 << 12;

impl Session {
    /// `quotient G up to N`: grows G's quotient to heap N (keeping it for
    /// misère queries after) and reports it.
    pub(super) fn quotient(
        &mut self,
        game: GameId,
        up_to: Heap,
        span: SourceSpan,
        sink: &mut dyn FnMut(Event),
    ) -> Result<(), EvalError> {
        if up_to as usize >= self.max_rows {
            let limit = self.max_rows;
            return Err(EvalError::QuotientTooFar { up_to, limit, span });
        }
        let interp = Interpreter::with_memos(&self.program, &self.periods, &self.tables);
        let name = self.program.game(game).name.clone();
        let kept = self.quotients.entry(game).or_default();
        // A quotient kept past N is of more heaps, and may be larger than
        // N's: N's is grown apart, and the one kept (which answers more
        // sums) stays.
        let mut apart = Quotient::new();
        let quotient = match kept.up_to().is_some_and(|kept| kept > up_to) {
            true => &mut apart,
            false => kept,
        };
        let stages = &mut self.stages;
        let tables = &self.tables;
        let stop = || tables.stopped();
        let mut progress = |heap: Heap, order: usize| {
            let stage = Stage::Quotient {
                game: name.clone(),
                heap: heap as usize,
                order,
            };
            tell(stages, stage);
        };
        let mut control = Control {
            max_order: self.max_quotient,
            max_search: self.max_search,
            stop: &stop,
            progress: &mut progress,
        };
        let from = quotient.up_to().map_or(0, |n| n + 1);
        for heap in from..=up_to {
            let options = heap_options(&interp, &mut self.engine, game, heap, span)?;
            quotient
                .push(options, &mut control)
                .map_err(|error| quotient_error(error, span))?;
        }
        let report = report(&name, up_to, quotient);
        sink(Event::Answer(Answer {
            query: QueryKind::Quotient,
            position: name,
            bindings: Vec::new(),
            value: Value::Quotient(report),
            play: None,
            by: None,
        }));
        Ok(())
    }
}

/// The options of heap `heap` of `game`, each a sum of its smaller heaps.
fn heap_options(
    interp: &Interpreter,
    engine: &mut Engine<Component>,
    game: GameId,
    heap: Heap,
    span: SourceSpan,
) -> Result<Vec<Word>, EvalError> {
    let position = Component::Game(game, smallvec::smallvec![i64::from(heap).into()]);
    let options = engine
        .options(interp, &position)
        .map_err(|error| engine_error(interp, error, span))?;
    let mut words = Vec::with_capacity(options.len());
    for option in options {
        let mut word = Vec::with_capacity(option.len());
        for component in &option {
            match as_heap(component, game) {
                Some(smaller) if smaller < heap => word.push(smaller),
                _ => {
                    return Err(EvalError::QuotientNotHeaps {
                        heap: interp.show(std::slice::from_ref(&position)).to_string(),
                        option: interp.show(&option).to_string(),
                        span,
                    });
                }
            }
        }
        words.push(word);
    }
    Ok(words)
}

/// The heap a component is, when it is a position of `game`.
fn as_heap(component: &Component, game: GameId) -> Option<Heap> {
    match component {
        Component::Game(id, args) if *id == game && args.len() == 1 => {
            Heap::try_from(args[0].int()?).ok()
        }
        _ => None,
    }
}

fn quotient_error(error: QuotientError, span: SourceSpan) -> EvalError {
    match error {
        QuotientError::TooLarge { heap, limit } => {
            EvalError::QuotientTooLarge { heap, limit, span }
        }
        QuotientError::SearchTooLarge { limit, .. } => EvalError::SearchTooLarge {
            limit,
            needed: format!(
                "more than {}",
                crate::eval::grouped_count(limit, "position", "positions")
            ),
            span,
        },
        QuotientError::OutOfMemory { heap, elements } => EvalError::QuotientOutOfMemory {
            heap,
            elements,
            bytes: grouped_bytes(elements),
            span,
        },
        QuotientError::Unresolved { heap } => EvalError::QuotientUnresolved { heap, span },
        // Checked when the options are listed.
        QuotientError::NotSmaller { heap, option } => EvalError::QuotientNotHeaps {
            heap: heap.to_string(),
            option: format!("{option:?}"),
            span,
        },
        QuotientError::Interrupted => EvalError::Interrupted { span },
    }
}

/// The bytes of a table of `elements` elements, written out.
fn grouped_bytes(elements: usize) -> String {
    let bytes = (elements as u128) * (elements as u128) * 4;
    format!("{:.1} GB", bytes as f64 / 1e9)
}

fn report(game: &str, up_to: Heap, quotient: &Quotient) -> QuotientReport {
    let presentation = quotient.presentation();
    let word = |x: usize| presentation.word(&presentation.elements[x]);
    QuotientReport {
        game: game.to_owned(),
        up_to,
        order: quotient.order(),
        generators: presentation
            .generators
            .iter()
            .enumerate()
            .map(|(g, &heap)| (crate::quotient::letter(g), heap))
            .collect(),
        relations: presentation
            .relations
            .iter()
            .map(|(left, right)| (presentation.word(left), presentation.word(right)))
            .collect(),
        elements: (0..presentation.elements.len()).map(word).collect(),
        p_portion: presentation.p_portion.iter().map(|&x| word(x)).collect(),
        pretending: presentation
            .pretending
            .iter()
            .take(up_to as usize + 1)
            .map(|&x| word(x))
            .collect(),
    }
}

/// A misère query on a sum of heaps of one game whose quotient reaches
/// them all, answered from the quotient; `None` when it does not reach.
pub(super) fn solve_by_quotient(
    interp: &Interpreter,
    engine: &mut Engine<Component>,
    quotients: &rustc_hash::FxHashMap<GameId, Quotient>,
    kind: QueryKind,
    sum: &[Component],
) -> Option<Solved<Value>> {
    if !matches!(
        kind,
        QueryKind::Wins | QueryKind::BestMove | QueryKind::Moves
    ) {
        return None;
    }
    let Some(Component::Game(game, _)) = sum.first() else {
        return None;
    };
    let quotient = quotients.get(game)?;
    let element = |sum: &[Component]| -> Option<u32> {
        let heaps: Option<Vec<Heap>> = sum.iter().map(|c| as_heap(c, *game)).collect();
        quotient.element(&heaps?)
    };
    let whole = element(sum)?;
    if kind == QueryKind::Wins {
        return Some(Ok(Value::Wins(!quotient.is_p(whole))));
    }
    let mut moves = Vec::new();
    for (component, position) in sum.iter().enumerate() {
        let options = match engine.options(interp, position) {
            Ok(options) => options,
            Err(error) => return Some(Err(error)),
        };
        for to in options {
            let r#move = Move { component, to };
            let after = element(&r#move.apply(sum))?;
            // The outcome alone is known: 0 marks a move to a P-position.
            moves.push((r#move, Gamma::Finite(u64::from(!quotient.is_p(after)))));
        }
    }
    Some(Ok(match kind {
        QueryKind::BestMove => Value::BestMove(
            moves
                .iter()
                .find(|(_, mark)| *mark == Gamma::Finite(0))
                .map(|(r#move, mark)| move_line(interp, sum, r#move, mark.clone())),
        ),
        _ => Value::Moves(
            moves
                .iter()
                .map(|(r#move, mark)| listed_move_line(interp, sum, r#move, mark.clone()))
                .collect(),
        ),
    }))
}
