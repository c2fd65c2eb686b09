//! Positions built from the terms of a sum: games' arguments evaluated,
//! bindings expanded, regions split into their parts.

use super::options::{evaluate_args, heap_size};
use super::rules::{Partial, Shape, pack, partial};
use super::*;
use crate::engine::Endgame;

/// Every box of at most `ENDGAME_CELLS` cells has an endgame table of its
/// own in its game's group (`rows × (cells + 1) + cols`).
const _: () = {
    let cells = Interpreter::ENDGAME_CELLS;
    assert!(cells * (cells + 1) + cells < Endgame::TABLES as u32);
};

impl<'p> Interpreter<'p> {
    /// Evaluates the terms of a sum under `env`, passing each component on.
    pub fn position(
        &self,
        terms: &[Term],
        env: &[Value],
        each: &mut dyn FnMut(Component),
    ) -> Result<(), EvalError> {
        self.walk(terms, env, false, each)
    }

    /// [`Interpreter::position`], but when `written`, a game that splits is
    /// passed on whole, as written, not as its parts.
    pub(super) fn walk(
        &self,
        terms: &[Term],
        env: &[Value],
        written: bool,
        each: &mut dyn FnMut(Component),
    ) -> Result<(), EvalError> {
        for term in terms {
            each(match term {
                Term::Game { game, args, .. }
                    if written && self.program.game(*game).splits.is_some() =>
                {
                    Component::Game(*game, evaluate_args(args, env)?)
                }
                Term::Game { game, args, span } => {
                    self.game_parts(*game, evaluate_args(args, env)?, *span, each)?;
                    continue;
                }
                Term::Over(over) => {
                    self.over_bindings(over, env, &mut |env| {
                        self.walk(&over.terms, env, written, each)
                    })?;
                    continue;
                }
                Term::Heap { size, .. } => Component::Heap(heap_size(size, env)?),
                Term::Node { graph, node } => Component::Node(*graph, *node),
                Term::NodeAt { graph, index, span } => {
                    Component::Node(*graph, self.node_at(*graph, index, *span, env)?)
                }
                Term::Let { id, .. } => {
                    self.walk(&self.program.let_value(*id).value, env, written, each)?;
                    continue;
                }
            });
        }
        Ok(())
    }

    /// Passes on a game's position: itself, or for a game that splits, the
    /// connected parts of its region, each moved to a board of its shape,
    /// or for a coin-turning game given a set of heads, each head.
    pub fn game_parts(
        &self,
        game: GameId,
        args: Args,
        span: SourceSpan,
        each: &mut dyn FnMut(Component),
    ) -> Result<(), EvalError> {
        if let [Value::Set(heads)] = args.as_slice()
            && self.program.game(game).coins.is_some()
        {
            heads
                .iter()
                .for_each(|head| each(Component::Game(game, smallvec::smallvec![head.into()])));
            return Ok(());
        }
        let Some(splits) = self.program.game(game).splits else {
            each(Component::Game(game, args));
            return Ok(());
        };
        let region = match args.first() {
            Some(Value::Region(region)) => region,
            other => {
                let found = other.cloned().unwrap_or(Value::Int(0));
                return Err(crate::eval::value::wrong_type(
                    "a region of a board",
                    &found,
                    span,
                ));
            }
        };
        let rest = &args[1..];
        region.parts(splits.symmetric, &mut |part| {
            let mut args = Args::new();
            args.push(Value::Region(part));
            args.extend(rest.iter().cloned());
            each(Component::Game(game, args));
        });
        Ok(())
    }

    /// The value of a game's position, [`Interpreter::game_parts`] summed.
    pub(super) fn parts_value(
        &self,
        game: GameId,
        args: Args,
        span: SourceSpan,
        solved: &mut Solved<'_, Component>,
    ) -> Result<Partial, EvalError> {
        let (splits, coins) = (
            self.program.game(game).splits.is_some(),
            self.program.game(game).coins.is_some(),
        );
        if let [arg] = args.as_slice()
            && let Some(bits) = crate::eval::value::Bits::of(arg)
            && !coins
        {
            return Ok(self.bits_value(game, bits, solved));
        }
        // A position too large for bits costs its elements in every option
        // (hashed, split into parts, turned to its least image, each some
        // hundreds of nanoseconds): work, as options are, so that
        // `--max-work` bounds a search of large boards in seconds as it
        // bounds one of many options.
        solved.examined(elements_work(&args));
        if !splits && !coins {
            return Ok(partial(solved.part(self, &Component::Game(game, args))));
        }
        let (mut value, mut known) = (0, true);
        self.game_parts(
            game,
            args,
            span,
            &mut |part| match solved.part(self, &part) {
                Some(part) => value ^= part,
                None => known = false,
            },
        )?;
        Ok((value, known))
    }

    /// The most cells of a box whose regions are read from an endgame
    /// table (see [`Endgame`]): a table of 65,536 bytes.
    const ENDGAME_CELLS: u32 = 16;

    /// The value of a game's position whose one argument is a small set or
    /// region, given by its bits: each part (the whole, for a game that
    /// does not split) found by its packed key, as [`Rules::packed`] gives
    /// it, and built as a position only when it has no value yet. This is
    /// the search's inner loop for games on sets and boards.
    pub(super) fn bits_value(
        &self,
        game: GameId,
        mut bits: crate::eval::value::Bits,
        solved: &mut Solved<'_, Component>,
    ) -> Partial {
        let position = |value: Value| Component::Game(game, smallvec::smallvec![value]);
        let declared = self.program.game(game);
        // Nodes and edges no play needs, in a game that takes edges: the
        // region is split as if they were not there.
        let mut cut = 0;
        if let Some(board) = &bits.board
            && declared.takes_edges
        {
            bits.bits &= !board.spare_nodes(bits.bits);
            cut = board.twin_edges(bits.bits);
        }
        let Some(board) = bits.board else {
            let set = || position(Value::Set(Set::from_bits(bits.bits)));
            return partial(solved.packed(pack(game, Shape::Set, bits.bits), set));
        };
        let part_value = |part: Region, solved: &mut Solved<'_, Component>| match (
            Shape::of(&part.board),
            part.nodes.bits(),
        ) {
            (Some(shape), Some(bits)) => {
                solved.packed(pack(game, shape, bits), || position(Value::Region(part)))
            }
            _ => solved.part(self, &position(Value::Region(part))),
        };
        let Some(splits) = declared.splits else {
            let region = Region {
                board: board.clone(),
                nodes: Set::from_bits(bits.bits),
            };
            return partial(part_value(region, solved));
        };
        let (mut value, mut known) = (0, true);
        board.parts_boxed(bits.bits, cut, splits.symmetric, |part| {
            // A small part is read from its box's endgame table, where its
            // value was noted once found under the part's own key.
            let endgame = part.boxed(Self::ENDGAME_CELLS).map(|boxed| Endgame {
                group: game.0,
                table: (boxed.rows * (Self::ENDGAME_CELLS + 1) + boxed.cols) as u16,
                bits: (boxed.rows * boxed.cols) as u8,
                index: boxed.cells as u32,
            });
            if let Some(part) = endgame.and_then(|at| solved.endgame(at)) {
                value ^= part;
                return;
            }
            match part_value(part.region(), solved) {
                Some(part) => {
                    value ^= part;
                    if let Some(at) = endgame {
                        solved.note_endgame(at, part);
                    }
                }
                None => known = false,
            }
        });
        (value, known)
    }

    /// Calls `each` under every binding of a sum over bindings. The sums
    /// nested in one sum share one budget of [`MAX_SUM_COMPONENTS`]
    /// assignments, so that `(((G(j) for j in …) for i in …) for l in …)`
    /// is refused at a million components, not built to a billion.
    pub(super) fn over_bindings(
        &self,
        over: &Over,
        env: &[Value],
        each: &mut dyn FnMut(&[Value]) -> Result<(), EvalError>,
    ) -> Result<(), EvalError> {
        // A sum's bindings may have slots past those of where it is used
        // (a `let`'s sum, used in a query of no bindings).
        let slots = over.bindings.iter().map(|binding| binding.slot + 1).max();
        let mut env: SmallVec<[Value; 8]> = env.iter().cloned().collect();
        if let Some(slots) = slots
            && env.len() < slots
        {
            env.resize(slots, Value::Int(0));
        }
        let depth = self.sum_depth.get();
        if depth == 0 {
            self.sum_budget.refill();
        }
        self.sum_depth.set(depth + 1);
        let done = assignments(
            &over.bindings,
            over.guard.as_ref(),
            &mut env,
            &self.sum_budget,
            &mut |env| each(env),
        );
        self.sum_depth.set(depth);
        done
    }

    /// The node of a graph named by the value of an expression.
    pub(super) fn node_at(
        &self,
        graph: GraphId,
        index: &Expr,
        span: SourceSpan,
        env: &[Value],
    ) -> Result<NodeId, EvalError> {
        let name = eval(index, env)?.to_string();
        let graph = self.program.graph(graph);
        match graph.nodes.get_index_of(&name) {
            Some(node) => Ok(NodeId(node as u32)),
            None => Err(EvalError::NoSuchNode {
                graph: graph.name.clone(),
                node: name,
                span,
            }),
        }
    }
}
