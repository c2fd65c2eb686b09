//! Answering queries: one event per row of a query's table.

use miette::SourceSpan;

use super::errors::engine_error;
use super::moves::{Solved, listed_move_line, move_line, valued_moves};
use super::picture::{finish, move_graph};
use super::quotient::solve_by_quotient;
use super::rows::each_row;
use super::threads::{on_threads, options_on_threads};
use super::written::Written;
use super::{
    Answer, Crosscheck, Diff, DiffRow, Event, MoveLine, PlayRequest, Remoteness, Session, Stage,
    Table, Value, tell, why,
};
use crate::analysis::{self, Proof};
use crate::engine::{Engine, EngineError, Gamma, Grundy, Misere, Outcome};
use crate::eval::{Budget, EvalError};
use crate::interp::{Component, Interpreter, KnownPeriod};
use crate::picture::render_dot;
use crate::program::{GameId, Moves, Play, Query, QueryKind, Target};

impl Session {
    /// Answers a query, one event per row of its table.
    pub(super) fn answer(
        &mut self,
        query: &Query,
        sink: &mut dyn FnMut(Event),
    ) -> Result<(), EvalError> {
        if let (Some(to), false) = (&query.to, self.writes_files) {
            return Err(EvalError::FilesRefused { span: to.span });
        }
        match &query.target {
            Target::Game(game) if query.kind == QueryKind::Plot => {
                let picture = self.plot(query, *game)?;
                sink(Event::Answer(Answer {
                    query: QueryKind::Plot,
                    position: self.program.game(*game).name.clone(),
                    bindings: Vec::new(),
                    value: Value::Plot(picture),
                    play: None,
                    by: None,
                }));
                Ok(())
            }
            Target::Game(game) => {
                let answer = self.period(*game, query.target_span)?;
                sink(Event::Answer(answer));
                Ok(())
            }
            Target::Games(a, b) => {
                let answer = self.diff(query, *a, *b)?;
                sink(Event::Answer(answer));
                Ok(())
            }
            Target::Nimber(expr) => self.nimber(query, expr, sink),
            Target::Quotient(game, up_to) => self.quotient(*game, *up_to, query.target_span, sink),
            Target::Position(_) | Target::Positions(..) => self.answer_positions(query, sink),
        }
    }

    /// `nim 3 * 5`: one value per row, shown as written with the row's
    /// values in place of its variables.
    fn nimber(
        &mut self,
        query: &Query,
        expr: &crate::program::Expr,
        sink: &mut dyn FnMut(Event),
    ) -> Result<(), EvalError> {
        let text = self.sources.text(query.target_span).trim().to_owned();
        let rows =
            Budget::rows(self.max_rows, self.engine.max_work()).with_stop(self.tables.stop_flag());
        each_row(query, &rows, &mut |env| {
            let value = crate::eval::eval(expr, env)?;
            let value = u64::try_from(value).map_err(|_| EvalError::OutOfRange {
                what: format!("{value} is not a nimber"),
                help: "nimbers are the non-negative integers (`~a` is negative for every one of them)",
                span: expr.span,
                context: String::new(),
            })?;
            let bindings = bindings(query, env);
            sink(Event::Answer(Answer {
                query: QueryKind::Nim,
                position: substituted(&text, &bindings),
                bindings,
                value: Value::Grundy(value),
                play: None,
                by: None,
            }));
            Ok(())
        })
    }

    fn answer_positions(
        &mut self,
        query: &Query,
        sink: &mut dyn FnMut(Event),
    ) -> Result<(), EvalError> {
        let interp = Interpreter::with_memos(&self.program, &self.periods, &self.tables);
        let (engine, misere, quotients) = (&mut self.engine, &mut self.misere, &self.quotients);
        let stop = self.tables.stop_flag();
        let mut by_quotient = false;
        let (interactive, max_search, max_draw) =
            (self.interactive, self.max_search, self.max_draw);
        let span = query.target_span;
        let rows =
            Budget::rows(self.max_rows, engine.max_work()).with_stop(self.tables.stop_flag());
        each_row(query, &rows, &mut |env| {
            let (terms, other) = match &query.target {
                Target::Position(terms) => (terms, None),
                Target::Positions(a, b) => (a, Some(b)),
                Target::Game(_) | Target::Games(..) | Target::Nimber(_) | Target::Quotient(..) => {
                    unreachable!("answered by `answer`")
                }
            };
            let sum = evaluate(&interp, terms, env)?;
            let written = Written::new(&interp, terms, env, &sum)?;
            // Each row has `--max-search` sums of its own to search.
            misere.begin_query(max_search);
            let mut value = match (query.kind, other) {
                (QueryKind::Play, _) if interactive => {
                    sink(Event::Play(PlayRequest {
                        position: written.map_or(sum, |written| written.terms),
                        play: query.play,
                        span,
                    }));
                    return Ok(());
                }
                (QueryKind::Play, _) => {
                    return Err(EvalError::PlayNeedsRepl { span: query.span });
                }
                (QueryKind::Draw, _) => {
                    let graph = move_graph(&interp, engine, &sum, max_draw, span)?;
                    let dot = crate::picture::dot(&graph);
                    let to = query.to.as_ref();
                    let render = |dot, path: &str| render_dot(dot, path, stop);
                    Value::Graph(finish(dot, render, to, graph.nodes(), "dot")?)
                }
                (QueryKind::Equal, Some(other_terms)) => {
                    let other = evaluate(&interp, other_terms, env)?;
                    let both: Vec<Component> = sum.iter().chain(&other).cloned().collect();
                    let equal = engine
                        .gamma_sum(&interp, &both)
                        .map_err(|error| engine_error(&interp, error, span))?
                        == Gamma::Finite(0);
                    let mut written = Vec::new();
                    interp.written_position(other_terms, env, &mut |term| written.push(term))?;
                    Value::Equal {
                        other: interp.show(&written).to_string(),
                        equal,
                    }
                }
                (kind, _) => match query.play {
                    Play::Normal => solve(&interp, engine, misere, kind, &sum, max_search),
                    Play::Misere => {
                        let found = solve_by_quotient(&interp, engine, quotients, kind, &sum);
                        by_quotient = found.is_some();
                        match found {
                            Some(found) => found,
                            None => solve_misere(&interp, engine, misere, kind, &sum, max_search),
                        }
                    }
                }
                .map_err(|error| engine_error(&interp, error, span))?,
            };
            if let Some(written) = &written {
                written
                    .show_moves(&interp, engine, &sum, &mut value)
                    .map_err(|error| engine_error(&interp, error, span))?;
            }
            let by = (matches!(value, Value::Grundy(_) | Value::Wins(_))
                && query.play == Play::Normal
                && sum
                    .iter()
                    .any(|component| interp.by_period(component).is_some()))
            .then_some("period")
            .or(by_quotient.then_some("quotient"));
            sink(Event::Answer(Answer {
                query: query.kind,
                position: match &written {
                    Some(written) => interp.show(&written.terms).to_string(),
                    None => interp.show(&sum).to_string(),
                },
                bindings: bindings(query, env),
                value,
                // `grundy` names its play only when it is misère, as
                // answers did before it had a misère form.
                play: (query.kind.has_misere()
                    && (query.kind != QueryKind::Grundy || query.play == Play::Misere))
                    .then_some(query.play),
                by,
            }));
            Ok(())
        })
    }

    /// Computes a game's values until a period is proven (or, with no
    /// theorem to prove one, seen convincingly), and keeps a proven one.
    pub(super) fn period(&mut self, game: GameId, span: SourceSpan) -> Result<Answer, EvalError> {
        self.period_within(game, span, None)
    }

    /// `period`, computing at most `limit` values when one is given (a
    /// plot looks for the period of what it draws, not for as long as
    /// `period G` would).
    pub(super) fn period_within(
        &mut self,
        game: GameId,
        span: SourceSpan,
        limit: Option<usize>,
    ) -> Result<Answer, EvalError> {
        let proof = match &self.program.game(game).moves {
            Moves::Code(code) => analysis::proof_for(code),
            Moves::Rules(_) | Moves::Alias(_) | Moves::Product(..) => Proof::None,
        };
        // Values are computed as far as the state limit: a code's from its
        // own table (octal 0.56's period 144 shows only past heap 326,640,
        // and is proven from 653,426 values), a game of rules' by the
        // engine, with its tables and sweeps, within one search's work.
        let cap = self.engine.max_states();
        let moves = &self.program.game(game).moves;
        let budget = match moves {
            Moves::Code(_) => u64::MAX,
            Moves::Rules(_) | Moves::Alias(_) | Moves::Product(..) => self.engine.max_work(),
        };
        let cap = limit.map_or(cap, |limit| cap.min(limit));
        let start = self.engine.total_work();
        let interp = Interpreter::with_memos(&self.program, &self.periods, &self.tables);
        let mut values: Vec<Grundy> = Vec::new();
        let mut found = None;
        let mut size = 256;
        while found.is_none() && values.len() < cap && self.engine.total_work() - start <= budget {
            let stage = values.len()..size.min(cap);
            let heap = |n: usize| Component::Game(game, smallvec::smallvec![(n as i64).into()]);
            // A code's table grows to the stage's last heap at once, not a
            // heap at a time; the heaps below are then read from it.
            if let (Moves::Code(_), Some(last)) = (&moves, stage.end.checked_sub(1)) {
                self.engine
                    .grundy(&interp, &heap(last))
                    .map_err(|error| engine_error(&interp, error, span))?;
            }
            for n in stage {
                if self.engine.total_work() - start > budget {
                    break;
                }
                values.push(
                    self.engine
                        .grundy(&interp, &heap(n))
                        .map_err(|error| engine_error(&interp, error, span))?,
                );
            }
            found = analysis::find(&values, proof);
            size *= 2;
            if found.is_none() {
                let game = self.program.game(game).name.clone();
                let (values, largest) = (values.len(), values.len() / 2);
                tell(
                    &mut self.stages,
                    Stage::Period {
                        game,
                        values,
                        largest,
                    },
                );
            }
            if self.tables.stopped() {
                return Err(EvalError::Interrupted { span });
            }
        }
        let name = self.program.game(game).name.clone();
        let checked_to = found
            .as_ref()
            .map_or(values.len(), |period| period.checked_to);
        if let Some(period) = found.as_ref().filter(|period| period.proven) {
            let known = KnownPeriod {
                period: period.clone(),
                values,
            };
            self.periods.insert(game, known);
        }
        Ok(Answer {
            query: QueryKind::Period,
            position: name,
            bindings: Vec::new(),
            value: Value::Period {
                period: found,
                checked_to,
            },
            play: None,
            by: None,
        })
    }

    /// Compares two games position by position over the query's bindings.
    fn diff(&mut self, query: &Query, a: GameId, b: GameId) -> Result<Answer, EvalError> {
        let interp = Interpreter::with_memos(&self.program, &self.periods, &self.tables);
        let engine = &mut self.engine;
        let span = query.target_span;
        let mut report = Diff {
            game: None,
            a: interp.program.game(a).name.clone(),
            b: interp.program.game(b).name.clone(),
            positions: 0,
            flips: 0,
            rows: Vec::new(),
        };
        let rows =
            Budget::rows(self.max_rows, engine.max_work()).with_stop(self.tables.stop_flag());
        each_row(query, &rows, &mut |env| {
            let args: crate::interp::Args = env[..query.bindings.len()].iter().cloned().collect();
            let mut value = |game| {
                engine
                    .grundy(&interp, &Component::Game(game, args.clone()))
                    .map_err(|error| engine_error(&interp, error, span))
            };
            let (left, right) = (value(a)?, value(b)?);
            report.positions += 1;
            if left != right {
                let flip = (left == 0) != (right == 0);
                report.flips += usize::from(flip);
                report.rows.push(DiffRow {
                    bindings: bindings(query, env),
                    a: left,
                    b: right,
                    flip,
                });
            }
            Ok(())
        })?;
        Ok(Answer {
            query: QueryKind::Diff,
            position: format!("{} {}", report.a, report.b),
            bindings: Vec::new(),
            value: Value::Diff(report),
            play: None,
            by: None,
        })
    }
}

fn evaluate(
    interp: &Interpreter,
    terms: &[crate::program::Term],
    env: &[crate::values::Value],
) -> Result<Vec<Component>, EvalError> {
    let mut sum = Vec::new();
    interp.position(terms, env, &mut |component| sum.push(component))?;
    Ok(sum)
}

/// The bindings of a table row, or none for a query without `for`.
/// `text` with each name of a binding replaced by its value.
fn substituted(text: &str, bindings: &[(String, i64)]) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find(|c: char| c.is_ascii_alphabetic() || c == '_') {
        // A name starts here unless it continues a number or a name.
        let (before, from) = rest.split_at(start);
        out.push_str(before);
        let end = from
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(from.len());
        let (word, after) = from.split_at(end);
        let glued = before.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
        match bindings.iter().find(|(name, _)| name == word) {
            Some((_, value)) if !glued => out.push_str(&value.to_string()),
            _ => out.push_str(word),
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

fn bindings(query: &Query, env: &[crate::values::Value]) -> Vec<(String, i64)> {
    match query.bindings.is_empty() {
        true => Vec::new(),
        false => query
            .names
            .iter()
            .cloned()
            .zip(env.iter().map(|value| value.int().unwrap_or_default()))
            .collect(),
    }
}

fn solve(
    interp: &Interpreter,
    engine: &mut Engine<Component>,
    misere: &mut Misere<Component>,
    kind: QueryKind,
    sum: &[Component],
    max_search: usize,
) -> Solved<Value> {
    Ok(match kind {
        QueryKind::Grundy => match on_threads(interp, engine, sum, |interp, engine| {
            engine.gamma_sum(interp, sum)
        })? {
            Gamma::Finite(value) => Value::Grundy(value),
            Gamma::Infinite(reaches) => Value::Infinite(reaches),
        },
        QueryKind::Wins => match on_threads(interp, engine, sum, |interp, engine| {
            engine.outcome(interp, sum)
        })? {
            Outcome::Win => Value::Wins(true),
            Outcome::Loss => Value::Wins(false),
            Outcome::Draw => Value::Draw,
        },
        QueryKind::BestMove => Value::BestMove(
            match on_threads(interp, engine, sum, |interp, engine| {
                engine.best_move(interp, sum)
            }) {
                Ok(best) => best.map(|best| move_line(interp, sum, &best, Gamma::Finite(0))),
                Err(EngineError::Loopy { .. }) => loopy_best_move(interp, engine, sum)?,
                Err(error) => return Err(error),
            },
        ),
        QueryKind::Crosscheck => {
            let grundy = engine.nim_sum(interp, sum)?;
            let search = engine.search_outcome(interp, sum, max_search)?;
            Value::Crosscheck(Crosscheck {
                grundy,
                search_wins: search.wins,
                positions: search.positions,
                boards: search.boards,
                tables: tables(interp, sum, search.tables),
            })
        }
        QueryKind::Remoteness => {
            let search = engine.search_sum(interp, sum, max_search)?;
            let best = match &search.best {
                Some(best) => {
                    let grundy = engine.nim_sum(interp, &best.apply(sum))?;
                    Some(move_line(interp, sum, best, Gamma::Finite(grundy)))
                }
                None => None,
            };
            Value::Remoteness(Remoteness {
                remoteness: search.remoteness,
                wins: search.wins,
                best,
                positions: search.positions,
            })
        }
        QueryKind::Genus => {
            Value::Genus(engine.genus(interp, misere, sum, true, max_search)?.genus)
        }
        QueryKind::Why => Value::Why(options_on_threads(
            interp,
            engine,
            sum,
            |interp, engine| why::why(interp, engine, sum),
        )?),
        QueryKind::Strategy => {
            let (n, rows) = options_on_threads(interp, engine, sum, |interp, engine| {
                why::strategy(interp, engine, sum)
            })?;
            Value::Strategy { n, rows }
        }
        QueryKind::Moves
        | QueryKind::Play
        | QueryKind::Equal
        | QueryKind::Period
        | QueryKind::Draw
        | QueryKind::Plot
        | QueryKind::Nim
        | QueryKind::Quotient
        | QueryKind::Diff => Value::Moves(
            options_on_threads(interp, engine, sum, |interp, engine| {
                valued_moves(interp, engine, sum)
            })?
            .into_iter()
            .map(|(r#move, value)| match interp.stopped() {
                true => Err(EngineError::Interrupted),
                false => Ok(listed_move_line(interp, sum, &r#move, value)),
            })
            .collect::<Solved<_>>()?,
        ),
    })
}

/// Each part of `sum`, as shown, beside the positions its table holds.
fn tables(interp: &Interpreter, sum: &[Component], sizes: Vec<usize>) -> Vec<Table> {
    sum.iter()
        .zip(sizes)
        .map(|(part, positions)| Table {
            part: interp.show(std::slice::from_ref(part)).to_string(),
            positions,
        })
        .collect()
}

/// The best move of a sum with loopy parts: one to a position of value 0
/// when the player to move wins; else, in a draw, one that keeps it drawn.
fn loopy_best_move(
    interp: &Interpreter,
    engine: &mut Engine<Component>,
    sum: &[Component],
) -> Solved<Option<MoveLine>> {
    let aim = match engine.gamma_sum(interp, sum)?.outcome() {
        Outcome::Win => |value: &Gamma| *value == Gamma::Finite(0),
        Outcome::Draw => |value: &Gamma| value.outcome() == Outcome::Draw,
        Outcome::Loss => return Ok(None),
    };
    Ok(engine
        .gamma_moves(interp, sum)?
        .into_iter()
        .find(|(_, value)| aim(value))
        .map(|(r#move, value)| move_line(interp, sum, &r#move, value)))
}

/// A query under misère play, from the genera of the sums searched.
pub(super) fn solve_misere(
    interp: &Interpreter,
    engine: &mut Engine<Component>,
    misere: &mut Misere<Component>,
    kind: QueryKind,
    sum: &[Component],
    max_search: usize,
) -> Solved<Value> {
    let mut moves = |engine: &mut Engine<Component>| -> Solved<Vec<MoveLine>> {
        Ok(engine
            .misere_moves(interp, misere, sum, max_search)?
            .iter()
            .map(|(r#move, genus)| {
                listed_move_line(interp, sum, r#move, Gamma::Finite(genus.misere[0]))
            })
            .collect())
    };
    Ok(match kind {
        // γ: 1 for a terminal position, else the mex of the options' γ.
        QueryKind::Grundy => Value::Grundy(
            engine
                .genus(interp, misere, sum, true, max_search)?
                .genus
                .misere[0],
        ),
        QueryKind::Wins => Value::Wins(
            engine
                .genus(interp, misere, sum, true, max_search)?
                .genus
                .wins(),
        ),
        QueryKind::BestMove => {
            Value::BestMove(moves(engine)?.into_iter().find(|line| line.winning))
        }
        QueryKind::Moves => Value::Moves(moves(engine)?),
        QueryKind::Why => Value::Why(why::why_misere(interp, engine, misere, sum, max_search)?),
        QueryKind::Crosscheck => {
            let theory = engine.genus(interp, misere, sum, true, max_search)?;
            let search = engine.genus(interp, misere, sum, false, max_search)?;
            let sizes = sum
                .iter()
                .map(|component| engine.reachable(interp, component, max_search))
                .collect::<Solved<Vec<usize>>>()?;
            Value::Crosscheck(Crosscheck {
                grundy: theory.genus.misere[0],
                search_wins: search.genus.wins(),
                positions: search.positions,
                boards: false,
                tables: tables(interp, sum, sizes),
            })
        }
        kind => unreachable!("the checker refuses `{}` under misère play", kind.keyword()),
    })
}
