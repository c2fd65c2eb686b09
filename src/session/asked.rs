//! Queries a front end asks as values rather than as source text: a
//! query's kind and a position typed alone, or a game and a range of its
//! parameter. The text given is parsed alone, as a position or a name, so
//! nothing typed can add a statement of its own, and an error's span lies
//! in what was typed. (The Python package asks this way.)

use miette::{Report, SourceSpan};

use super::{Event, Session};
use crate::program::Query;
use crate::syntax::{self, ast};

/// A query asked as values.
#[derive(Debug, Clone, Copy)]
pub enum Asked<'a> {
    /// `KIND POSITION`, or `KIND misere POSITION`: a query of a position
    /// (`grundy`, `wins?`, `best_move`, `moves`, `why`, `draw`, …).
    Position {
        kind: ast::QueryKind,
        misere: bool,
        position: &'a str,
    },
    /// `period GAME`.
    Period { game: &'a str },
    /// `grundy GAME(n) for n in start..end`: the values of a game of one
    /// parameter over a half-open range, one answer per row.
    Values { game: &'a str, start: i64, end: i64 },
}

/// A game's name was asked for (`period`, a game's values), and the text
/// given is something else.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("`{query}` takes a game's name, and `{found}` is not one")]
#[diagnostic(
    code(sprague::session::not_a_game_name),
    help(
        "name a declared game alone, without arguments: `Kayles`, not `Kayles(3)`; for other \
         positions ask a query of each"
    )
)]
pub struct NotAName {
    query: &'static str,
    found: String,
    #[label("a game's name, without arguments")]
    span: SourceSpan,
}

impl Session {
    /// Answers a query asked as values, the text read as the source
    /// `name`; answers and errors go to the sink. Returns whether it was
    /// answered.
    pub fn ask(&mut self, name: &str, asked: Asked, sink: &mut dyn FnMut(Event)) -> bool {
        match self.asked_query(name, asked) {
            Ok(query) => self.answer_query(&query, sink),
            Err(report) => {
                sink(Event::Error(report));
                false
            }
        }
    }

    /// The query asked, built as a syntax tree and checked like any other.
    fn asked_query(&mut self, name: &str, asked: Asked) -> Result<Query, Report> {
        let text = match asked {
            Asked::Position { position, .. } => position,
            Asked::Period { game } | Asked::Values { game, .. } => game,
        };
        let base = self.sources.add(name, text);
        let sum = syntax::parse_position(text, base).map_err(|error| self.report(error))?;
        let span = sum.span;
        let game_name = |query: &'static str| match sum.terms.as_slice() {
            [ast::Term::Name(name)] => Ok(name.clone()),
            _ => Err(NotAName {
                query,
                found: text.trim().to_owned(),
                span,
            }),
        };
        let int = |value: i64| ast::Expr {
            kind: ast::ExprKind::Int(value),
            span,
            depth: 1,
        };
        let (kind, misere, target, bindings) = match asked {
            Asked::Position { kind, misere, .. } => {
                let misere = misere.then_some(span);
                (kind, misere, ast::Target::Position(sum), Vec::new())
            }
            Asked::Period { .. } => {
                let game = game_name("period").map_err(|error| self.report(error))?;
                (
                    ast::QueryKind::Period,
                    None,
                    ast::Target::Game(game),
                    Vec::new(),
                )
            }
            Asked::Values { start, end, .. } => {
                let game = game_name("values").map_err(|error| self.report(error))?;
                let var = ast::Ident {
                    name: self
                        .parameters(&game.name)
                        .into_iter()
                        .next()
                        .unwrap_or("n".into()),
                    span,
                };
                let arg = ast::Expr {
                    kind: ast::ExprKind::Var(var.clone()),
                    span,
                    depth: 1,
                };
                let term = ast::Term::Game {
                    name: game,
                    args: vec![arg],
                    span,
                };
                let binding = ast::Binding {
                    var,
                    domain: ast::Domain::Range {
                        start: int(start),
                        end: Some(int(end)),
                        inclusive: false,
                    },
                    stop: None,
                };
                let sum = ast::Sum {
                    terms: vec![term],
                    span,
                };
                let target = ast::Target::Position(sum);
                (ast::QueryKind::Grundy, None, target, vec![binding])
            }
        };
        let statement = ast::Statement::Query(ast::Query {
            kind,
            misere,
            target,
            bindings,
            guard: None,
            to: None,
            span,
        });
        let mut queries = crate::lower::lower(&mut self.program, &[&statement])
            .map_err(|errors| self.check_report(errors))?;
        Ok(queries.remove(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::DEFAULT_MAX_STATES;
    use crate::session::Value;

    /// The answers of a query, or the code of its error.
    fn answers(session: &mut Session, asked: Asked) -> Result<Vec<(String, Value)>, String> {
        let (mut answers, mut error) = (Vec::new(), None);
        session.ask("<asked>", asked, &mut |event| match event {
            Event::Answer(answer) => answers.push((answer.position, answer.value)),
            Event::Error(report) => error = report.code().map(|code| code.to_string()),
            Event::Note(_) | Event::Play(_) => {}
        });
        error.map_or(Ok(answers), Err)
    }

    fn kayles() -> Session {
        let mut session = Session::new(DEFAULT_MAX_STATES);
        let declared = session.declare("<test>", "game K = octal \"0.77\"", &mut |_| {});
        assert!(declared.is_ok());
        session
    }

    #[test]
    fn values_are_the_rows_of_a_grundy_table() {
        let mut session = kayles();
        let asked = Asked::Values {
            game: "K",
            start: 3,
            end: 7,
        };
        let rows = answers(&mut session, asked).expect("answered");
        // Kayles: G(3..7) = 3, 1, 4, 3 (the mex of its options' XORs).
        let expected = [(3, 3), (4, 1), (5, 4), (6, 3)];
        let expected: Vec<(String, Value)> = expected
            .iter()
            .map(|&(n, g)| (format!("K({n})"), Value::Grundy(g)))
            .collect();
        assert_eq!(rows, expected);
    }

    #[test]
    fn a_position_is_read_alone() {
        let mut session = kayles();
        let asked = |position| Asked::Position {
            kind: ast::QueryKind::Grundy,
            misere: false,
            position,
        };
        let value = answers(&mut session, asked("K(4) + *1"));
        assert_eq!(value, Ok(vec![("K(4) + *1".into(), Value::Grundy(1 ^ 1))]));
        // A second statement cannot ride along with the position.
        let smuggled = answers(&mut session, asked("*1\ngrundy *2"));
        assert_eq!(smuggled, Err("sprague::parse::syntax".into()));
    }

    #[test]
    fn a_game_is_asked_for_by_its_name() {
        let mut session = kayles();
        let period = answers(&mut session, Asked::Period { game: "K(3)" });
        assert_eq!(period, Err("sprague::session::not_a_game_name".into()));
        let asked = Asked::Values {
            game: "Nope",
            start: 0,
            end: 1,
        };
        let unknown = answers(&mut session, asked);
        assert_eq!(unknown, Err("sprague::check::unknown_game".into()));
    }
}
