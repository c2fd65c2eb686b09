//! A session: the sources read so far, the declarations they made and one
//! engine whose memo lasts as long as the session. `sprague run` and the
//! REPL both feed sources to a session and print the events it yields.

use miette::{Diagnostic, Report, SourceSpan};

use crate::engine::{Engine, EngineError};
use crate::interp::{Budget, Component, EvalError, Interpreter, assignments};
use crate::lower::ir::{Program, Query, QueryKind};
use crate::lower::{self, CheckErrors};
use crate::sources::Sources;
use crate::syntax;

/// The answer to one query, or one row of a query's table, ready to print.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub query: QueryKind,
    pub position: String,
    /// The values of the query's bindings, for a table row.
    pub bindings: Vec<(String, i64)>,
    pub value: Value,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Grundy(u64),
    Wins(bool),
    /// The winning move, or `None` when the position has value 0.
    BestMove(Option<BestMove>),
}

/// A winning move: one component `from` becomes `to`, leaving `result`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BestMove {
    pub from: String,
    pub to: String,
    pub result: String,
}

/// What running a source yields, in order.
#[derive(Debug)]
pub enum Event {
    Answer(Answer),
    Error(Report),
}

pub struct Session {
    sources: Sources,
    program: Program,
    engine: Engine<Component>,
    max_states: usize,
}

impl Session {
    pub fn new(max_states: usize) -> Self {
        Session {
            sources: Sources::default(),
            program: Program::default(),
            engine: Engine::new(max_states),
            max_states,
        }
    }

    /// Parses and checks a source, adds its declarations to the session
    /// and answers its queries in order. Returns whether nothing failed.
    pub fn run(&mut self, name: &str, text: &str, sink: &mut dyn FnMut(Event)) -> bool {
        let queries = match self.declare(name, text) {
            Ok(queries) => queries,
            Err(report) => {
                sink(Event::Error(report));
                return false;
            }
        };
        let mut ok = true;
        for query in &queries {
            if let Err(error) = self.answer(query, sink) {
                sink(Event::Error(self.report(error)));
                ok = false;
            }
        }
        ok
    }

    /// Parses and checks a source and keeps its declarations, answering
    /// nothing. The queries it holds are returned.
    pub fn declare(&mut self, name: &str, text: &str) -> Result<Vec<Query>, Report> {
        let base = self.sources.add(name, text);
        let ast = syntax::parse(text, base).map_err(|error| self.report(error))?;
        let (program, queries) =
            lower::lower(&self.program, &ast).map_err(|errors| self.check_report(errors))?;
        self.program = program;
        Ok(queries)
    }

    /// Answers a query, one event per row of its table.
    fn answer(&mut self, query: &Query, sink: &mut dyn FnMut(Event)) -> Result<(), EvalError> {
        let interp = Interpreter::new(&self.program);
        let engine = &mut self.engine;
        let mut env = vec![0; query.names.len()];
        let mut budget = Budget::new(self.max_states);
        assignments(
            &query.bindings,
            query.guard.as_ref(),
            &mut env,
            &mut budget,
            &mut |env| {
                let mut sum = Vec::new();
                interp.position(&query.position, env, &mut |component| sum.push(component))?;
                let value = solve(&interp, engine, query, &sum)
                    .map_err(|error| engine_error(&interp, error, query.position_span))?;
                let bindings = match query.bindings.is_empty() {
                    true => Vec::new(),
                    false => query
                        .names
                        .iter()
                        .cloned()
                        .zip(env.iter().copied())
                        .collect(),
                };
                sink(Event::Answer(Answer {
                    query: query.kind,
                    position: interp.show(&sum).to_string(),
                    bindings,
                    value,
                }));
                Ok(())
            },
        )
    }

    fn report(&self, error: impl Diagnostic + Send + Sync + 'static) -> Report {
        Report::new(error).with_source_code(self.sources.clone())
    }

    /// A lone checking error is reported as itself; several, together.
    fn check_report(&self, mut errors: CheckErrors) -> Report {
        match errors.errors.len() {
            1 => self.report(errors.errors.remove(0)),
            _ => self.report(errors),
        }
    }
}

fn solve(
    interp: &Interpreter,
    engine: &mut Engine<Component>,
    query: &Query,
    sum: &[Component],
) -> Result<Value, EngineError<Component, EvalError>> {
    Ok(match query.kind {
        QueryKind::Grundy => Value::Grundy(engine.nim_sum(interp, sum)?),
        QueryKind::Wins => Value::Wins(engine.nim_sum(interp, sum)? != 0),
        QueryKind::BestMove => Value::BestMove(engine.best_move(interp, sum)?.map(|best| {
            BestMove {
                from: interp
                    .show(&sum[best.component..=best.component])
                    .to_string(),
                to: interp.show(&best.to).to_string(),
                result: interp.show(&best.apply(sum)).to_string(),
            }
        })),
    })
}

/// Names the positions of an engine error in the language's own words.
fn engine_error(
    interp: &Interpreter,
    error: EngineError<Component, EvalError>,
    span: SourceSpan,
) -> EvalError {
    match error {
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
            game: match &expanding {
                Component::Game(game, _) => interp.program.game(*game).name.clone(),
                Component::Node(graph, _) => interp.program.graph(*graph).name.clone(),
                Component::Heap(_) => "Nim".to_owned(),
            },
            position: interp.show(std::slice::from_ref(&expanding)).to_string(),
            span,
        },
    }
}
