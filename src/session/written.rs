//! Answers about positions shown as the user wrote them. The search works
//! on a board game's parts, each moved to a board of its own shape (and,
//! up to symmetry, to its least image), which is what its memo needs but
//! hides what was asked and what a move did: four different moves of
//! `Cram(Grid(2, 3))` leave the same part. Here each part keeps where its
//! nodes came from, so a move is shown on the board as written. A game
//! declared `= POSITION` is kept whole, and a move in it is shown in the
//! sum it stands for, as written.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use super::moves::Solved;
use super::why::{Reason, Why};
use super::{MoveLine, Value};
use crate::engine::{Engine, Move};
use crate::eval::EvalError;
use crate::interp::{Component, Interpreter};
use crate::program::Term;
use crate::values::board::Origins;
use crate::values::{Region, Set, Value as Arg};

/// The most options of one part listed again to be shown as written.
const MAX_SHOWN_OPTIONS: usize = 1 << 16;

/// A position as written, and where each component of the sum the search
/// works on came from in it.
pub(super) struct Written {
    pub terms: Vec<Component>,
    /// For each component of the sum: the term it belongs to, and what of
    /// that term it is.
    origins: Vec<(usize, Origin)>,
}

#[derive(Clone)]
enum Origin {
    /// The term itself.
    Term,
    /// A part of the term's board: the node of the written board each of
    /// the part's nodes stands for.
    Part(Origins),
    /// The term itself, a game declared `= POSITION`: its moves are those
    /// of the sum it stands for.
    Alias,
}

/// A move as written: the term it is made in, and what that term becomes.
pub(super) struct WrittenMove {
    term: usize,
    to: Vec<Component>,
}

impl WrittenMove {
    /// The move of the position as written.
    pub(super) fn into_move(self) -> Move<Component> {
        Move {
            component: self.term,
            to: self.to,
        }
    }
}

/// The options of the components of a sum listed so far to be shown as
/// written (`None` for one whose cannot be), and which were shown: the
/// moves of a part that leave the same position are shown in turn.
#[derive(Default)]
pub(super) struct Shown(HashMap<usize, Option<Listing>>);

enum Listing {
    /// A part of a board: its options as written, the parts the search
    /// makes of each, and which were shown.
    Part {
        options: Vec<Vec<Component>>,
        parts: Vec<Vec<Component>>,
        shown: Vec<bool>,
    },
    /// An alias: the sum it stands for as written and as searched, the
    /// moves of that sum in the order of the alias's options, which were
    /// shown, and what was listed of the sum's components.
    Alias {
        written: Box<Written>,
        sum: Vec<Component>,
        moves: Vec<Move<Component>>,
        shown: Vec<bool>,
        inner: Shown,
    },
}

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
        Ok(Written::of(interp, written, sum))
    }

    /// A position as written with where each component of `sum` came from
    /// in it; `None` when the sum is the position as written (no board
    /// that splits, no alias), or when a component is not found in it.
    pub fn of(interp: &Interpreter, written: Vec<Component>, sum: &[Component]) -> Option<Written> {
        if !written
            .iter()
            .any(|term| interp.splits_on_region(term).is_some() || interp.is_alias(term))
        {
            return None;
        }
        let mut found: Vec<(Component, usize, Origin)> = Vec::new();
        for (i, term) in written.iter().enumerate() {
            match interp.splits_on_region(term) {
                Some((game, region, symmetric)) => {
                    let Component::Game(_, args) = term else {
                        unreachable!("a game that splits")
                    };
                    for (part, origin) in region.traced_parts(symmetric) {
                        let mut part_args = args.clone();
                        part_args[0] = Arg::Region(part);
                        let part = Component::Game(game, part_args);
                        found.push((part, i, Origin::Part(origin)));
                    }
                }
                None if interp.is_alias(term) => found.push((term.clone(), i, Origin::Alias)),
                None => found.push((term.clone(), i, Origin::Term)),
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
            let at = unmatched.get_mut(component).and_then(Vec::pop)?;
            let (_, term, origin) = &found[at];
            origins.push((*term, origin.clone()));
        }
        Some(Written {
            terms: written,
            origins,
        })
    }

    /// Shows the moves of an answer (and its parts, for `why`) as written,
    /// when the sum has a part of a board or an alias.
    pub fn show_moves(
        &self,
        interp: &Interpreter,
        engine: &mut Engine<Component>,
        sum: &[Component],
        value: &mut Value,
    ) -> Solved<()> {
        if self
            .origins
            .iter()
            .all(|(_, origin)| matches!(origin, Origin::Term))
        {
            return Ok(());
        }
        match value {
            Value::Moves(lines) => {
                let mut moves = Vec::new();
                for (component, part) in sum.iter().enumerate() {
                    for to in engine.options(interp, part)? {
                        moves.push(Move { component, to });
                    }
                }
                if lines.len() == moves.len() {
                    let mut shown = Shown::default();
                    for (line, r#move) in lines.iter_mut().zip(&moves) {
                        self.show_move(interp, engine, sum, r#move, line, &mut shown)?;
                    }
                }
            }
            Value::BestMove(Some(line)) => {
                self.show_line(interp, engine, sum, line, &mut Shown::default())?;
            }
            Value::Remoteness(remoteness) => {
                if let Some(line) = &mut remoteness.best {
                    self.show_line(interp, engine, sum, line, &mut Shown::default())?;
                }
            }
            Value::Why(why) => self.show_why(interp, engine, sum, why)?,
            Value::Strategy { n, rows } => {
                // The table is of A + *n.
                let mut terms = self.terms.clone();
                terms.push(Component::Heap(*n));
                let mut game = sum.to_vec();
                game.push(Component::Heap(*n));
                let Some(with_heap) = Written::of(interp, terms, &game) else {
                    return Ok(());
                };
                let mut shown = Shown::default();
                for row in rows {
                    let first =
                        with_heap.show_line(interp, engine, &game, &mut row.first, &mut shown)?;
                    let (Some((r#move, made)), Some(reply)) = (first, &mut row.reply) else {
                        continue;
                    };
                    let after = r#move.apply(&game);
                    if let Some(written) = Written::of(interp, with_heap.after(&made), &after) {
                        written.show_line(interp, engine, &after, reply, &mut Shown::default())?;
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// `why`'s parts and moves, as written.
    fn show_why(
        &self,
        interp: &Interpreter,
        engine: &mut Engine<Component>,
        sum: &[Component],
        why: &mut Why,
    ) -> Solved<()> {
        for (j, (shown, _)) in why.parts.iter_mut().enumerate() {
            if let Some(part) = self.part(j) {
                *shown = interp.show(&[part]).to_string();
            }
        }
        let mut show = |line: &mut MoveLine, shown: &mut Shown| {
            self.show_line(interp, engine, sum, line, shown).map(drop)
        };
        match &mut why.reason {
            Reason::Mex {
                witnesses,
                reversals,
                ..
            } => {
                for line in witnesses {
                    show(line, &mut Shown::default())?;
                }
                for (line, _) in reversals {
                    show(line, &mut Shown::default())?;
                }
            }
            Reason::Infinite {
                unreversed: Some(line),
                ..
            }
            | Reason::Xor {
                best: Some((_, line)),
            } => show(line, &mut Shown::default())?,
            Reason::Genus { options, .. } => {
                let mut shown = Shown::default();
                for (line, _) in options {
                    show(line, &mut shown)?;
                }
            }
            Reason::Infinite { .. } | Reason::Xor { .. } | Reason::Loopy => {}
        }
        Ok(())
    }

    /// Component `j` of the sum as written: a part of a board on the board
    /// as written; `None` when it is a term itself.
    fn part(&self, j: usize) -> Option<Component> {
        let (term, Origin::Part(origin)) = self.origins.get(j)? else {
            return None;
        };
        let Component::Game(game, args) = &self.terms[*term] else {
            return None;
        };
        let Some(Arg::Region(whole)) = args.first() else {
            return None;
        };
        let nodes = origin.nodes();
        let mut args = args.clone();
        args[0] = Arg::Region(Region {
            board: whole.board.clone(),
            nodes: Set::from_values(nodes),
        });
        Some(Component::Game(*game, args))
    }

    /// Shows a line of a move of `sum` as written, the move found among
    /// the options of its part by what it leaves; returns the move, and
    /// the move as written, when it is shown so.
    fn show_line(
        &self,
        interp: &Interpreter,
        engine: &mut Engine<Component>,
        sum: &[Component],
        line: &mut MoveLine,
        shown: &mut Shown,
    ) -> Solved<Option<(Move<Component>, WrittenMove)>> {
        let component = line.part as usize;
        let Some(part) = sum.get(component) else {
            return Ok(None);
        };
        let Some(to) = engine
            .options(interp, part)?
            .into_iter()
            .find(|to| interp.show(to).to_string() == line.to)
        else {
            return Ok(None);
        };
        let r#move = Move { component, to };
        let made = self.show_move(interp, engine, sum, &r#move, line, shown)?;
        Ok(made.map(|made| (r#move, made)))
    }

    /// Shows a line of `move` as written: the term moved in, what it
    /// became, and the whole position left (when the line has it).
    pub fn show_move(
        &self,
        interp: &Interpreter,
        engine: &mut Engine<Component>,
        sum: &[Component],
        r#move: &Move<Component>,
        line: &mut MoveLine,
        shown: &mut Shown,
    ) -> Solved<Option<WrittenMove>> {
        let Some(made) = self.written_move(interp, engine, sum, r#move, shown)? else {
            return Ok(None);
        };
        line.from = interp.show(&self.terms[made.term..=made.term]).to_string();
        line.to = interp.show(&made.to).to_string();
        if line.result.is_some() {
            line.result = Some(interp.show(&self.after(&made)).to_string());
        }
        Ok(Some(made))
    }

    /// The position as written after a move.
    pub fn after(&self, made: &WrittenMove) -> Vec<Component> {
        let mut after = self.terms[..made.term].to_vec();
        after.extend(made.to.iter().cloned());
        after.extend(self.terms[made.term + 1..].iter().cloned());
        after
    }

    /// A move of the search's sum as written; `None` when it cannot be
    /// shown so.
    pub fn written_move(
        &self,
        interp: &Interpreter,
        engine: &mut Engine<Component>,
        sum: &[Component],
        r#move: &Move<Component>,
        shown: &mut Shown,
    ) -> Solved<Option<WrittenMove>> {
        let j = r#move.component;
        let (Some((term, origin)), Some(component)) = (self.origins.get(j), sum.get(j)) else {
            return Ok(None);
        };
        if let Entry::Vacant(entry) = shown.0.entry(j) {
            entry.insert(match origin {
                Origin::Term => None,
                Origin::Part(_) => part_listing(interp, component),
                Origin::Alias => alias_listing(interp, engine, component)?,
            });
        }
        let to = match (origin, shown.0.get_mut(&j)) {
            (Origin::Term, _) => Some(r#move.to.clone()),
            (
                Origin::Part(origin),
                Some(Some(Listing::Part {
                    options,
                    parts,
                    shown,
                })),
            ) => {
                let Some(k) = (0..options.len()).find(|&k| !shown[k] && parts[k] == r#move.to)
                else {
                    return Ok(None);
                };
                shown[k] = true;
                Self::on_board(component, &self.terms[*term], origin, &options[k])
            }
            (
                Origin::Alias,
                Some(Some(Listing::Alias {
                    written,
                    sum,
                    moves,
                    shown,
                    inner,
                })),
            ) => {
                // An alias's option is the rest of its sum, then the part
                // moved to.
                let option = |r#move: &Move<Component>| {
                    let mut option = sum.clone();
                    option.remove(r#move.component);
                    option.extend(r#move.to.iter().cloned());
                    option
                };
                let Some(k) =
                    (0..moves.len()).find(|&k| !shown[k] && option(&moves[k]) == r#move.to)
                else {
                    return Ok(None);
                };
                shown[k] = true;
                let made = written.written_move(interp, engine, sum, &moves[k], inner)?;
                made.map(|made| written.after(&made))
            }
            _ => None,
        };
        Ok(to.map(|to| WrittenMove { term: *term, to }))
    }

    /// An option of a part of a board, on the written board: a region of
    /// the part's board becomes the written region with the part's nodes
    /// replaced by those the option keeps. `None` when the option holds a
    /// region of another board, or more than one of this one.
    fn on_board(
        part: &Component,
        written: &Component,
        origin: &Origins,
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
        let node = |v: i64| origin.get(v);
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

/// The options of a part of a board, as written on the part's board, with
/// the parts the search makes of each.
fn part_listing(interp: &Interpreter, part: &Component) -> Option<Listing> {
    let options = interp.written_options(part, MAX_SHOWN_OPTIONS).ok()??;
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
    Some(Listing::Part {
        options,
        parts,
        shown,
    })
}

/// The sum an alias stands for, as written, with its moves in the order
/// of the alias's options.
fn alias_listing(
    interp: &Interpreter,
    engine: &mut Engine<Component>,
    alias: &Component,
) -> Solved<Option<Listing>> {
    let Ok(Some((terms, sum))) = interp.alias_written(alias, MAX_SHOWN_OPTIONS) else {
        return Ok(None);
    };
    let Some(written) = Written::of(interp, terms, &sum) else {
        return Ok(None);
    };
    let mut moves = Vec::new();
    for (component, part) in sum.iter().enumerate() {
        for to in engine.options(interp, part)? {
            moves.push(Move { component, to });
        }
        if moves.len() > MAX_SHOWN_OPTIONS {
            return Ok(None);
        }
    }
    let shown = vec![false; moves.len()];
    Ok(Some(Listing::Alias {
        written: Box::new(written),
        sum,
        moves,
        shown,
        inner: Shown::default(),
    }))
}
