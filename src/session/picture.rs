//! Gathering what `draw` and `plot` picture: the move graph a position
//! reaches, component by component, and a game's values over a table.

use std::collections::{HashMap, HashSet, VecDeque};

use miette::SourceSpan;

use super::errors::engine_error;
use super::{Answer, Picture, Session, Value};
use crate::engine::{Engine, EngineError, Gamma, Rules};
use crate::eval::{Budget, EvalError, count};
use crate::interp::{Component, Interpreter, elements};
use crate::picture::{self, Cluster, Edge, EdgeKind, MoveGraph, Node, Plot};
use crate::program::{Destination, GameId, Moves, Query};

/// The default bound on the nodes `draw` draws.
pub const DEFAULT_MAX_DRAW: usize = 500;

/// The most points `plot` draws.
pub const MAX_PLOT_POINTS: usize = 100_000;

/// How far past the limit a refused graph is still counted, to say its size.
const COUNT_PAST: usize = 100_000;

/// The move graph of a sum: each distinct component's reachable positions
/// (an option made of several components is a node of its own, joined to
/// its parts), refused when it has more than `limit` nodes in all.
pub(super) fn move_graph(
    interp: &Interpreter,
    engine: &mut Engine<Component>,
    sum: &[Component],
    limit: usize,
    span: SourceSpan,
) -> Result<MoveGraph, EvalError> {
    let error = |error| engine_error(interp, error, span);
    let mut roots: Vec<Component> = Vec::new();
    let mut counts: Vec<usize> = Vec::new();
    for component in sum {
        match roots.iter().position(|root| root == component) {
            Some(index) => counts[index] += 1,
            None => {
                roots.push(component.clone());
                counts.push(1);
            }
        }
    }
    let mut shapes = Vec::new();
    let mut total = 0;
    for root in &roots {
        let shape = reach(
            engine,
            interp,
            root,
            (limit + COUNT_PAST).saturating_sub(total),
        )
        .map_err(error)?;
        total += shape.keys.len();
        if shape.heavy && total <= limit {
            return Err(EvalError::DrawTooHeavy {
                elements: count(ELEMENTS_CAP, "element", "elements"),
                span,
            });
        }
        if total > limit || shape.moves_capped || shape.heavy {
            // Counted on past the limit, to say how large the graph is.
            let nodes = count(total, "node", "nodes");
            let count = match (shape.complete, shape.moves_capped) {
                (true, _) => nodes,
                (false, false) => format!("at least {nodes}"),
                (false, true) => format!("at least {nodes} and more than {MOVES_CAP} moves"),
            };
            return Err(EvalError::DrawTooLarge { count, limit, span });
        }
        shapes.push(shape);
    }
    let x = engine.gamma_sum(interp, sum).map_err(error)?;
    let mut clusters = Vec::new();
    for (root, shape) in roots.iter().zip(shapes) {
        let mut nodes = Vec::new();
        for key in &shape.keys {
            nodes.push(Node {
                label: interp.show(key).to_string(),
                value: engine.gamma_sum(interp, key).map_err(error)?,
                sum: key.len() != 1,
            });
        }
        // The sum's winning move in this component: to g ⊕ x, below g.
        let target = match (&x, engine.gamma(interp, root).map_err(error)?) {
            (Gamma::Finite(x), Gamma::Finite(g)) if *x != 0 && g ^ x < g => Some(g ^ x),
            _ => None,
        };
        let edges = shape
            .edges
            .iter()
            .map(|&(from, to, part)| {
                let kind = match (part, &nodes[to].value) {
                    (true, _) => EdgeKind::Part,
                    (false, Gamma::Finite(value)) if from == 0 && Some(*value) == target => {
                        EdgeKind::WinsTheSum
                    }
                    (false, Gamma::Finite(0)) => EdgeKind::Winning,
                    (false, _) => EdgeKind::Move,
                };
                Edge { from, to, kind }
            })
            .collect();
        clusters.push(Cluster { nodes, edges });
    }
    let whole = (sum.len() > 1).then(|| {
        let node = Node {
            label: interp.show(sum).to_string(),
            value: x,
            sum: true,
        };
        (node, counts)
    });
    Ok(MoveGraph {
        clusters,
        sum: whole,
    })
}

/// The positions reached from a component, in the order met, and the moves
/// (and sum-to-part links, marked `true`) between them.
struct Shape {
    keys: Vec<Vec<Component>>,
    edges: Vec<(usize, usize, bool)>,
    /// Whether every position was reached within the cap.
    complete: bool,
    /// Whether the moves listed passed [`MOVES_CAP`] (a big Nim heap has
    /// a move to every smaller one), which ends the count too.
    moves_capped: bool,
    /// Whether the positions reached, or the options of one, held more
    /// than [`ELEMENTS_CAP`] elements, which ends the count too.
    heavy: bool,
}

/// The most elements (nodes of the regions, elements of the sets and
/// lists) of the positions a move graph holds while it is gathered or
/// counted, the options of the position being listed included: a large
/// board's every position copies it, and a hundred thousand positions of
/// a 200 × 200 board (or the 80,000 options of one) would take gigabytes.
const ELEMENTS_CAP: usize = 32_000_000;

/// The most moves listed while a move graph is gathered or counted.
const MOVES_CAP: usize = 2_000_000;

fn reach(
    engine: &mut Engine<Component>,
    interp: &Interpreter,
    root: &Component,
    cap: usize,
) -> Result<Shape, crate::engine::EngineError<Component, EvalError>> {
    let mut keys: Vec<Vec<Component>> = vec![vec![root.clone()]];
    let mut ids: HashMap<Vec<Component>, usize> = HashMap::from([(keys[0].clone(), 0)]);
    let mut edges = Vec::new();
    let mut queue = VecDeque::from([0]);
    let mut held = elements(root);
    let mut id_of = |key: Vec<Component>,
                     keys: &mut Vec<Vec<Component>>,
                     queue: &mut VecDeque<usize>,
                     held: &mut usize| {
        *ids.entry(key.clone()).or_insert_with(|| {
            *held += key.iter().map(elements).sum::<usize>();
            keys.push(key);
            queue.push_back(keys.len() - 1);
            keys.len() - 1
        })
    };
    let mut listed = 0usize;
    let stop = |keys, edges, moves_capped, heavy| Shape {
        keys,
        edges,
        complete: false,
        moves_capped,
        heavy,
    };
    while let Some(id) = queue.pop_front() {
        if keys.len() > cap {
            return Ok(stop(keys, edges, false, false));
        }
        let key = keys[id].clone();
        // Moves that leave the same position are drawn once.
        let mut targets = HashSet::new();
        let (options, part) = match key.as_slice() {
            // A heap past the cap is listed only as far as the cap, which
            // its count then passes.
            [single] => match interp.as_heap(single) {
                Some(n) => {
                    let shown = n.min(cap as u64 + 1);
                    let heaps = (0..shown).map(|k| vec![Component::Heap(k)]).collect();
                    (heaps, false)
                }
                None => {
                    // Each option copies about the position: as many as
                    // the elements left room for are listed.
                    let room = ELEMENTS_CAP.saturating_sub(held) / elements(single).max(1);
                    match engine.options_within(interp, single, room) {
                        Ok(options) => (options, false),
                        Err(EngineError::Rules(EvalError::TooManyOptions { limit, .. }))
                            if limit == room =>
                        {
                            return Ok(stop(keys, edges, false, true));
                        }
                        Err(error) => return Err(error),
                    }
                }
            },
            parts => (parts.iter().map(|part| vec![part.clone()]).collect(), true),
        };
        listed += options.len();
        if listed > MOVES_CAP {
            return Ok(stop(keys, edges, true, false));
        }
        for mut option in options {
            option.sort();
            let to = id_of(option, &mut keys, &mut queue, &mut held);
            if targets.insert(to) {
                edges.push((id, to, part));
            }
            if keys.len() > cap {
                return Ok(stop(keys, edges, false, false));
            }
            if held > ELEMENTS_CAP {
                return Ok(stop(keys, edges, false, true));
            }
        }
    }
    Ok(Shape {
        keys,
        edges,
        complete: true,
        moves_capped: false,
        heavy: false,
    })
}

/// The text of a picture, written to its file when it has one.
pub(super) fn finish(
    picture: String,
    format_for_file: impl FnOnce(String, &str) -> Result<(Vec<u8>, &'static str), picture::PictureError>,
    to: Option<&Destination>,
    size: usize,
    default_format: &'static str,
) -> Result<Picture, EvalError> {
    let Some(to) = to else {
        return Ok(Picture {
            format: default_format,
            content: picture,
            file: None,
            size,
        });
    };
    let failed = |error| picture_error(error, &to.path, to.span);
    let (content, format) = format_for_file(picture, &to.path).map_err(failed)?;
    picture::write(&to.path, &content).map_err(failed)?;
    Ok(Picture {
        format,
        content: String::new(),
        file: Some(to.path.clone()),
        size,
    })
}

/// A picture's failure in the language's terms; `path` is the file written.
fn picture_error(error: picture::PictureError, path: &str, span: SourceSpan) -> EvalError {
    match error {
        picture::PictureError::Graphviz(reason) => EvalError::Graphviz { reason, span },
        picture::PictureError::Plot(reason) => EvalError::PlotFailed { reason, span },
        picture::PictureError::Format(extension) => EvalError::UnknownFormat { extension, span },
        picture::PictureError::Interrupted => EvalError::Interrupted { span },
        picture::PictureError::Write(reason) => EvalError::Unwritable {
            path: path.to_owned(),
            reason,
            span,
        },
    }
}

impl Session {
    /// `plot G for …`: the game's value at each row, with its proven period.
    pub(super) fn plot(&mut self, query: &Query, game: GameId) -> Result<Picture, EvalError> {
        let span = query.target_span;
        let one_parameter = self.program.game(game).params.len() == 1;
        let code = matches!(self.program.game(game).moves, Moves::Code(_));
        let mut seen = None;
        if one_parameter && code {
            // Codes are quick to tabulate: find the period to mark it.
            seen = period_of(self.period(game, span)?);
        }
        let interp = Interpreter::with_memos(&self.program, &self.periods, &self.tables);
        let engine = &mut self.engine;
        let mut points = Vec::new();
        // A plot is refused at once when its rows are more than it draws.
        let budget =
            Budget::rows(MAX_PLOT_POINTS, engine.max_work()).with_stop(self.tables.stop_flag());
        let plotted = super::rows::each_row(query, &budget, &mut |env| {
            let args: crate::interp::Args = env[..query.bindings.len()].iter().cloned().collect();
            let position = Component::Game(game, args);
            match engine
                .gamma(&interp, &position)
                .map_err(|error| engine_error(&interp, error, span))?
            {
                Gamma::Finite(value) => {
                    let int = |value: &crate::values::Value| value.int().unwrap_or_default();
                    points.push((int(&env[0]), env.get(1).map(int), value));
                    Ok(())
                }
                infinite => Err(EvalError::PlotInfinite {
                    position: interp.show(std::slice::from_ref(&position)).to_string(),
                    value: infinite.to_string(),
                    span,
                }),
            }
        });
        match plotted {
            Err(EvalError::TooManyRows { .. }) => {
                return Err(EvalError::PlotTooLarge {
                    limit: MAX_PLOT_POINTS,
                    span,
                });
            }
            other => other?,
        }
        if one_parameter && !code && !self.periods.contains_key(&game) {
            // A game of rules: look for its period over the values plotted
            // (and at least PLOT_PERIOD_SEARCH), within the session's
            // limits. A search that fails past what is plotted (a limit, an
            // overflow further on) leaves the plot without a mark.
            let last = points.iter().map(|&(x, ..)| x).max().unwrap_or(0);
            let upto = usize::try_from(last).unwrap_or(0).saturating_add(1);
            match self.period_within(game, span, Some(upto.max(PLOT_PERIOD_SEARCH))) {
                Ok(answer) => seen = period_of(answer),
                Err(error @ EvalError::Interrupted { .. }) => return Err(error),
                Err(_) => {}
            }
        }
        // A proven period is marked; so is one only seen (the caption says
        // "apparent"), when it is a plain repetition, not a saltus.
        let period = match self.periods.get(&game) {
            Some(known) => Some(known.period.clone()),
            None => seen.filter(|period| period.saltus == 0),
        };
        let plot = Plot {
            game: self.program.game(game).name.clone(),
            names: query.names.clone(),
            period: period.filter(|_| one_parameter),
            points,
        };
        let svg = picture::plot(&plot).map_err(|error| picture_error(error, "", span))?;
        finish(
            svg,
            |svg, path| picture::render_plot(svg, path, || picture::plot_png(&plot)),
            query.to.as_ref(),
            plot.points.len(),
            "svg",
        )
    }
}

/// The fewest values a plot of a game of rules looks for a period in: the
/// 64 values and four repetitions an apparent period needs, with room.
const PLOT_PERIOD_SEARCH: usize = 256;

/// The period, proven or only seen, that a `period` answer found.
fn period_of(answer: Answer) -> Option<crate::analysis::Period> {
    match answer.value {
        Value::Period { period, .. } => period,
        _ => None,
    }
}

/// What `sprague draw` and `sprague plot` ask, as values: the argument is
/// parsed alone as a position, never pasted into a source, and the file
/// written is passed apart from it.
#[derive(Debug, Clone, Copy)]
pub enum PictureRequest<'a> {
    /// `draw POSITION`.
    Draw { position: &'a str },
    /// `plot GAME`: each of the game's parameters from 0 to `to`.
    Plot { game: &'a str, to: usize },
}

/// `sprague plot` was given a position, not a game's name.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("`plot` draws a game's values over its parameters, and `{found}` is not a game's name")]
#[diagnostic(
    code(sprague::plot::not_a_game),
    help(
        "name a declared game alone, as in `sprague plot FILE Kayles --to 30`; for a family of \
         positions such as boards, ask `grundy Cram(Grid(2, n)) for n in 0..=8` in a file \
         (or declare a game of n whose one move rule leads to the family's positions)"
    )
)]
pub struct NotAGameName {
    found: String,
    #[label("a game's name, without arguments")]
    span: SourceSpan,
}

impl Session {
    /// Draws or plots what the command line asks, sending the answer or
    /// the error to the sink; returns whether it was answered.
    pub fn picture(
        &mut self,
        request: PictureRequest,
        output: Option<&str>,
        sink: &mut dyn FnMut(super::Event),
    ) -> bool {
        match self.picture_query(request, output) {
            Ok(query) => self.answer_query(&query, sink),
            Err(report) => {
                sink(super::Event::Error(report));
                false
            }
        }
    }

    /// The query of a [`PictureRequest`], built as a syntax tree and
    /// checked like any other.
    fn picture_query(
        &mut self,
        request: PictureRequest,
        output: Option<&str>,
    ) -> Result<Query, miette::Report> {
        use crate::syntax::{self, ast};
        let (kind, text) = match request {
            PictureRequest::Draw { position } => (ast::QueryKind::Draw, position),
            PictureRequest::Plot { game, .. } => (ast::QueryKind::Plot, game),
        };
        let base = self.sources.add("<command line>", text);
        let sum = syntax::parse_position(text, base).map_err(|error| self.report(error))?;
        let span = sum.span;
        let to = output.map(|path| ast::Destination {
            path: path.to_owned(),
            span: SourceSpan::new(self.sources.add("<output>", path).into(), path.len()),
        });
        let (target, bindings) = match request {
            PictureRequest::Draw { .. } => (ast::Target::Position(sum), Vec::new()),
            PictureRequest::Plot { to: last, .. } => {
                let name = match sum.terms.as_slice() {
                    [ast::Term::Name(name)] => name.clone(),
                    _ => {
                        return Err(self.report(NotAGameName {
                            found: text.trim().to_owned(),
                            span,
                        }));
                    }
                };
                let params = match self.program.names.get(&name.name).map(|named| named.kind) {
                    Some(crate::program::DeclarationKind::Game(id)) => {
                        self.program.game(id).params.clone()
                    }
                    _ => vec!["n".to_owned()],
                };
                let int = |value: i64| ast::Expr {
                    kind: ast::ExprKind::Int(value),
                    span,
                    depth: 1,
                };
                let last = i64::try_from(last).unwrap_or(i64::MAX);
                let bindings = params
                    .into_iter()
                    .map(|param| ast::Binding {
                        var: ast::Ident { name: param, span },
                        domain: ast::Domain::Range {
                            start: int(0),
                            end: Some(int(last)),
                            inclusive: true,
                        },
                        stop: None,
                    })
                    .collect();
                (ast::Target::Game(name), bindings)
            }
        };
        let statement = ast::Statement::Query(ast::Query {
            kind,
            misere: None,
            target,
            bindings,
            guard: None,
            to,
            span,
        });
        let mut queries = crate::lower::lower(&mut self.program, &[&statement])
            .map_err(|errors| self.check_report(errors))?;
        Ok(queries.remove(0))
    }
}
