//! Answers about positions shown as the user wrote them. The search works
//! on a board game's parts, each moved to a board of its own shape (and,
//! up to symmetry, to its least image), which is what its memo needs but
//! hides what was asked and what a move did: four different moves of
//! `Cram(Grid(2, 3))` leave the same part. Here each part keeps where its
//! nodes came from, so a move is shown on the board as written.

use std::collections::HashMap;

use super::moves::Solved;
use super::{MoveLine, Value};
use crate::engine::Engine;
use crate::eval::EvalError;
use crate::interp::{Component, Interpreter};
use crate::program::Term;
use crate::values::{Region, Set, Value as Arg};

/// The most options of one part listed again to be shown as written.
const MAX_SHOWN_OPTIONS: usize = 1 << 16;

/// A position as written, and where each component of the sum the search
/// works on came from in it.
pub(super) struct Written {
    pub terms: Vec<Component>,
    /// For each component of the sum: the term it belongs to and, for a
    /// part of a board, the node of the written board each of its nodes
    /// stands for.
    origins: Vec<(usize, Option<Vec<i64>>)>,
}

/// A part's options as written, each with the parts the search makes of
/// it, and which were shown already.
type Listed = (Vec<Vec<Component>>, Vec<Vec<Component>>, Vec<bool>);

impl Written {
    /// The position of `terms` as written, if each component of `sum` (the
    /// search's) is found in it.
    pub fn new(
        interp: &Interpreter,
        terms: &[Term],
        env: &[Arg],
        sum: &[Component],
    ) -> Result<Option<Written>, EvalError> {
        let mut written = Vec::new();
        interp.written_position(terms, env, &mut |term| written.push(term))?;
        // Without a board that splits, the sum is the position as written.
        if !written
            .iter()
            .any(|term| interp.splits_on_region(term).is_some())
        {
            return Ok(None);
        }
        let mut found: Vec<(Component, usize, Option<Vec<i64>>)> = Vec::new();
        for (i, term) in written.iter().enumerate() {
            match interp.splits_on_region(term) {
                Some((game, region, symmetric)) => {
                    let Component::Game(_, args) = term else {
                        unreachable!("a game that splits")
                    };
                    for (part, origin) in region.traced_parts(symmetric) {
                        let mut part_args = args.clone();
                        part_args[0] = Arg::Region(part);
                        found.push((Component::Game(game, part_args), i, Some(origin)));
                    }
                }
                None => found.push((term.clone(), i, None)),
            }
        }
        // Equal parts are interchangeable: each component takes the first
        // part equal to it not yet taken.
        let mut unmatched: HashMap<&Component, Vec<usize>> = HashMap::new();
        for (at, (part, ..)) in found.iter().enumerate().rev() {
            unmatched.entry(part).or_default().push(at);
        }
        let mut origins = Vec::with_capacity(sum.len());
        for component in sum {
            let Some(at) = unmatched.get_mut(component).and_then(Vec::pop) else {
                return Ok(None);
            };
            let (_, term, origin) = &found[at];
            origins.push((*term, origin.clone()));
        }
        Ok(Some(Written {
            terms: written,
            origins,
        }))
    }

    /// Shows the moves of an answer on the boards as written, when the sum
    /// has a part of one.
    pub fn show_moves(
        &self,
        interp: &Interpreter,
        engine: &mut Engine<Component>,
        sum: &[Component],
        value: &mut Value,
    ) -> Solved<()> {
        if self.origins.iter().all(|(_, origin)| origin.is_none()) {
            return Ok(());
        }
        let mut moves = Vec::new();
        for (j, component) in sum.iter().enumerate() {
            for to in engine.options(interp, component)? {
                moves.push((j, to));
            }
        }
        let mut listed: Vec<Option<Listed>> = vec![None; sum.len()];
        let mut show = |line: &mut MoveLine, (j, to): &(usize, Vec<Component>)| {
            let line_as_written = self.line(interp, &sum[*j], *j, to, &mut listed[*j]);
            if let Some((from, to, result)) = line_as_written {
                // A long sum's lines leave out the sum each move leaves.
                let result = line.result.is_some().then_some(result);
                (line.from, line.to, line.result) = (from, to, result);
            }
        };
        match value {
            Value::Moves(lines) if lines.len() == moves.len() => {
                lines
                    .iter_mut()
                    .zip(&moves)
                    .for_each(|(line, r#move)| show(line, r#move));
            }
            Value::BestMove(Some(line)) => {
                let made = moves.iter().find(|(j, to)| {
                    line.from == interp.show(&sum[*j..=*j]).to_string()
                        && line.to == interp.show(to).to_string()
                });
                if let Some(r#move) = made {
                    show(line, r#move);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// A move of component `j` to `to`, as written: the term moved in, what
    /// it became, and the whole position left.
    fn line(
        &self,
        interp: &Interpreter,
        component: &Component,
        j: usize,
        to: &[Component],
        listed: &mut Option<Listed>,
    ) -> Option<(String, String, String)> {
        let (term, origin) = &self.origins[j];
        let written_to = match origin {
            None => to.to_vec(),
            Some(origin) => {
                if listed.is_none() {
                    let options = interp
                        .written_options(component, MAX_SHOWN_OPTIONS)
                        .ok()??;
                    let parts = options
                        .iter()
                        .map(|option| {
                            let mut parts = Vec::new();
                            for written in option {
                                parts.extend(interp.parts_of_written(written).ok()?);
                            }
                            Some(parts)
                        })
                        .collect::<Option<Vec<_>>>()?;
                    let shown = vec![false; options.len()];
                    *listed = Some((options, parts, shown));
                }
                let (options, parts, shown) = listed.as_mut()?;
                let k = (0..options.len()).find(|&k| !shown[k] && parts[k] == to)?;
                shown[k] = true;
                Self::on_board(component, &self.terms[*term], origin, &options[k])?
            }
        };
        let mut result = self.terms[..*term].to_vec();
        result.extend(written_to.iter().cloned());
        result.extend(self.terms[term + 1..].iter().cloned());
        Some((
            interp.show(&self.terms[*term..=*term]).to_string(),
            interp.show(&written_to).to_string(),
            interp.show(&result).to_string(),
        ))
    }

    /// An option of a part of a board, on the written board: a region of
    /// the part's board becomes the written region with the part's nodes
    /// replaced by those the option keeps. `None` when the option holds a
    /// region of another board, or more than one of this one.
    fn on_board(
        part: &Component,
        written: &Component,
        origin: &[i64],
        option: &[Component],
    ) -> Option<Vec<Component>> {
        let (Component::Game(_, part_args), Component::Game(_, written_args)) = (part, written)
        else {
            return None;
        };
        let (Some(Arg::Region(part)), Some(Arg::Region(whole))) =
            (part_args.first(), written_args.first())
        else {
            return None;
        };
        let node = |v: i64| {
            origin
                .get(usize::try_from(v).ok()?)
                .copied()
                .filter(|&v| v >= 0)
        };
        let mut taken: Vec<i64> = part.nodes.iter().map(node).collect::<Option<_>>()?;
        taken.sort_unstable();
        let rest: Vec<i64> = (whole.nodes.iter())
            .filter(|v| taken.binary_search(v).is_err())
            .collect();
        let mut regions = 0;
        let mut shown = Vec::with_capacity(option.len());
        for component in option {
            let Component::Game(game, args) = component else {
                shown.push(component.clone());
                continue;
            };
            let mut written_args = args.clone();
            for arg in written_args.iter_mut() {
                let Arg::Region(region) = arg else {
                    continue;
                };
                if region.board != part.board {
                    return None;
                }
                regions += 1;
                let kept: Vec<i64> = region.nodes.iter().map(node).collect::<Option<_>>()?;
                *arg = Arg::Region(Region {
                    board: whole.board.clone(),
                    nodes: Set::from_values(rest.iter().copied().chain(kept)),
                });
            }
            shown.push(Component::Game(*game, written_args));
        }
        (regions <= 1).then_some(shown)
    }
}
