//! `why` and `strategy`: the proof behind an answer, as the Sprague–Grundy
//! theorem gives it. A position A whose options have values n₁, …, nₘ is
//! worth *n, n = mex(n₁, …, nₘ): it has an option of every value below n
//! (the witnesses) and none of value n. A sum's value is the XOR of its
//! parts'; when it is x ≠ 0, a part of value g with g ⊕ x < g (one with x's
//! highest bit) moves to an option of value g ⊕ x and leaves 0.
//!
//! In A + *n the second player always has a reply, which [`reply`] finds
//! for `strategy`, and for `play` wherever a move restores value 0:
//! 1. the first player moves A to Aⱼ with nⱼ < n: reduce *n to *nⱼ;
//! 2. he reduces *n to *n′: A has an option of value n′ (n is the least
//!    value missing), move A there;
//! 3. he moves A to Aⱼ with nⱼ > n: Aⱼ has an option of value n, move there.

use super::MoveLine;
use super::moves::{Solved, move_line, valued_moves, valued_moves_and_loopy};
use crate::engine::{Engine, EngineError, Gamma, Genus, Grundy, Method, Misere, Move, Outcome};
use crate::interp::{Component, Interpreter};

/// Why a position has its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Why {
    /// Each part of the sum, with its value.
    pub parts: Vec<(String, Gamma)>,
    pub value: Gamma,
    pub reason: Reason,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// One part of finite value g: an option of each value below g (the
    /// first in rule order), and no option of value g among `options`.
    /// For a loopy part, each option of larger or infinite value with the
    /// move from it back to value g that makes it no better than g.
    Mex {
        options: usize,
        witnesses: Vec<MoveLine>,
        reversals: Vec<(MoveLine, Option<MoveLine>)>,
    },
    /// One part of value ∞(K): the least value m missing from K would be
    /// its value, but the option `unreversed` of larger or infinite value
    /// has no move back to m.
    Infinite {
        options: usize,
        candidate: Grundy,
        unreversed: Option<MoveLine>,
    },
    /// A sum of finite parts: the XOR of their values; when it is not 0,
    /// the part with its highest bit and the move that leaves 0.
    Xor { best: Option<(usize, MoveLine)> },
    /// A sum with a part of infinite value: its outcome is a draw or a
    /// win as the parts' values say (Smith), not an XOR.
    Loopy,
    /// Misère play, one part or a sum searched whole: the genus from the
    /// options' genera.
    Genus {
        genus: Genus,
        options: Vec<(MoveLine, Genus)>,
    },
}

/// Why `sum` has its value under normal play.
pub fn why(interp: &Interpreter, engine: &mut Engine<Component>, sum: &[Component]) -> Solved<Why> {
    let parts = parts(interp, engine, sum)?;
    let value = engine.gamma_sum(interp, sum)?;
    let reason = match (sum.len(), &value) {
        // An empty board splits into no parts: a sum of none, with no
        // option, worth 0 as a terminal position is.
        (0, _) => Reason::Mex {
            options: 0,
            witnesses: Vec::new(),
            reversals: Vec::new(),
        },
        (1, Gamma::Finite(g)) => mex_reason(interp, engine, sum, *g)?,
        (1, Gamma::Infinite(reaches)) => infinite_reason(interp, engine, sum, reaches)?,
        _ if parts
            .iter()
            .all(|(_, value)| matches!(value, Gamma::Finite(_))) =>
        {
            let best = reply(interp, engine, sum)?.map(|best| {
                (
                    best.component,
                    move_line(interp, sum, &best, Gamma::Finite(0)),
                )
            });
            Reason::Xor { best }
        }
        _ => Reason::Loopy,
    };
    Ok(Why {
        parts,
        value,
        reason,
    })
}

/// Each part of a sum, shown, with its value.
fn parts(
    interp: &Interpreter,
    engine: &mut Engine<Component>,
    sum: &[Component],
) -> Solved<Vec<(String, Gamma)>> {
    sum.iter()
        .map(|part| {
            let value = engine.gamma(interp, part)?;
            Ok((interp.show(std::slice::from_ref(part)).to_string(), value))
        })
        .collect()
}

/// The parts' values and their XOR, in binary with as many digits each
/// as the largest has (a part of infinite value counts 0: a sum with one
/// has no XOR table).
pub struct XorTable {
    pub values: Vec<Grundy>,
    pub xor: Grundy,
    pub digits: Vec<String>,
    pub xor_digits: String,
}

impl Why {
    pub fn xor_table(&self) -> XorTable {
        let values: Vec<Grundy> = self
            .parts
            .iter()
            .map(|(_, value)| match value {
                Gamma::Finite(value) => *value,
                Gamma::Infinite(_) => 0,
            })
            .collect();
        let xor = values.iter().fold(0, |x, value| x ^ value);
        let width = values
            .iter()
            .map(|value| format!("{value:b}").len())
            .max()
            .unwrap_or(1);
        let binary = |value: Grundy| format!("{value:0width$b}");
        XorTable {
            digits: values.iter().map(|&value| binary(value)).collect(),
            xor_digits: binary(xor),
            values,
            xor,
        }
    }
}

fn mex_reason(
    interp: &Interpreter,
    engine: &mut Engine<Component>,
    sum: &[Component],
    g: Grundy,
) -> Solved<Reason> {
    // Where the engine chose the search: with the search forced on
    // small positions, a loopy game's options of larger value are found
    // and reversed from every option's value.
    if engine.method() == Method::Auto
        && engine.searches_a_part(interp, sum)
        && let Some(reason) = searched_mex_reason(interp, engine, sum, g)?
    {
        return Ok(reason);
    }
    let (moves, loopy) = valued_moves_and_loopy(interp, engine, sum)?;
    // The first move to each value, found in one pass (a search of the
    // moves for each value below g took minutes on a heap of a million).
    let mut first = rustc_hash::FxHashMap::default();
    for (i, (_, value)) in moves.iter().enumerate() {
        if let Gamma::Finite(v) = value
            && *v < g
        {
            first.entry(*v).or_insert(i);
        }
    }
    let mut witnesses = Vec::with_capacity(first.len());
    for v in 0..g {
        // A line per value of a heap of millions: a stop is heard.
        if v % 4096 == 0 && interp.stopped() {
            return Err(EngineError::Interrupted);
        }
        if let Some(&i) = first.get(&v) {
            let (r#move, value) = &moves[i];
            witnesses.push(move_line(interp, sum, r#move, value.clone()));
        }
    }
    let mut reversals = Vec::new();
    if loopy {
        for (r#move, value) in &moves {
            let larger = match value {
                Gamma::Finite(h) => *h > g,
                Gamma::Infinite(_) => true,
            };
            if larger {
                let back = back_to(interp, engine, &r#move.apply(sum), g)?;
                reversals.push((move_line(interp, sum, r#move, value.clone()), back));
            }
        }
    }
    Ok(Reason::Mex {
        options: moves.len(),
        witnesses,
        reversals,
    })
}

/// [`mex_reason`] for a part the pruned search values (a large board),
/// without the value of every option: each option in rule order is asked
/// only whether its value is among those still without a witness, which
/// the search can rule out without finding it, until every value below
/// `g` has one. That no option has value `g` is what finding `g` proved.
/// `None` when an option asked reaches a cycle: a loopy part is explained
/// with every option's value, and the options of larger value reversed.
/// (A cycle among options not asked goes unseen, and their reversals
/// unlisted: this is used only on the large boards where the engine
/// chooses the search, which a game that loops rarely reaches.)
fn searched_mex_reason(
    interp: &Interpreter,
    engine: &mut Engine<Component>,
    sum: &[Component],
    g: Grundy,
) -> Solved<Option<Reason>> {
    let [part] = sum else { return Ok(None) };
    let options = engine.options(interp, part)?;
    let count = options.len();
    let mut missing: Vec<Grundy> = (0..g).collect();
    let mut witnesses = Vec::new();
    for to in options {
        if missing.is_empty() {
            break;
        }
        let value = match engine.sum_among(interp, &to, &missing) {
            Ok(Some(value)) => value,
            Ok(None) => continue,
            Err(EngineError::Loopy { .. }) => return Ok(None),
            Err(error) => return Err(error),
        };
        missing.retain(|&v| v != value);
        let r#move = Move { component: 0, to };
        witnesses.push((value, move_line(interp, sum, &r#move, Gamma::Finite(value))));
    }
    if !missing.is_empty() {
        // The mex rule gives every value below g an option; a part whose
        // options do not show it is explained from their values instead.
        return Ok(None);
    }
    witnesses.sort_by_key(|(value, _)| *value);
    Ok(Some(Reason::Mex {
        options: count,
        witnesses: witnesses.into_iter().map(|(_, line)| line).collect(),
        reversals: Vec::new(),
    }))
}

/// A move from `sum` to a position of value `g`, if it has one.
fn back_to(
    interp: &Interpreter,
    engine: &mut Engine<Component>,
    sum: &[Component],
    g: Grundy,
) -> Solved<Option<MoveLine>> {
    let moves = valued_moves(interp, engine, sum)?;
    Ok(moves
        .iter()
        .find(|(_, value)| *value == Gamma::Finite(g))
        .map(|(r#move, value)| move_line(interp, sum, r#move, value.clone())))
}

fn infinite_reason(
    interp: &Interpreter,
    engine: &mut Engine<Component>,
    sum: &[Component],
    reaches: &[Grundy],
) -> Solved<Reason> {
    let moves = valued_moves(interp, engine, sum)?;
    let candidate = (0..).find(|m| !reaches.contains(m)).unwrap_or_default();
    let mut unreversed = None;
    for (r#move, value) in &moves {
        let larger = match value {
            Gamma::Finite(h) => *h > candidate,
            Gamma::Infinite(_) => true,
        };
        if larger && back_to(interp, engine, &r#move.apply(sum), candidate)?.is_none() {
            unreversed = Some(move_line(interp, sum, r#move, value.clone()));
            break;
        }
    }
    Ok(Reason::Infinite {
        options: moves.len(),
        candidate,
        unreversed,
    })
}

/// Why `sum` has its genus under misère play.
pub fn why_misere(
    interp: &Interpreter,
    engine: &mut Engine<Component>,
    misere: &mut Misere<Component>,
    sum: &[Component],
    max_search: usize,
) -> Solved<Why> {
    let genus = engine.genus(interp, misere, sum, true, max_search)?.genus;
    let options = engine
        .misere_moves(interp, misere, sum, max_search)?
        .into_iter()
        .map(|(r#move, genus)| {
            let line = move_line(interp, sum, &r#move, Gamma::Finite(genus.misere[0]));
            (line, genus)
        })
        .collect();
    Ok(Why {
        parts: parts(interp, engine, sum)?,
        value: Gamma::Finite(genus.misere[0]),
        reason: Reason::Genus { genus, options },
    })
}

/// The move that restores value 0, as the theorem finds it: a part whose
/// value g has g ⊕ x < g (x the value of the sum), moved to its first
/// option of value g ⊕ x; `None` when the sum is worth 0. The part is a
/// Nim heap at the end of the sum if it can be (so that in A + *n the
/// replies are the proof's: case 1 reduces the heap), else the first such
/// part. A sum with loopy parts moves to a position of value 0 if it can.
/// `strategy` and `play` both reply with it.
pub fn reply(
    interp: &Interpreter,
    engine: &mut Engine<Component>,
    sum: &[Component],
) -> Solved<Option<Move<Component>>> {
    if let Some((Component::Heap(h), rest)) = sum.split_last()
        && let Ok(x) = engine.nim_sum(interp, rest)
        && x < *h
    {
        // The rest is worth x; the heap goes down to x, leaving 0.
        return Ok(Some(Move {
            component: sum.len() - 1,
            to: vec![Component::Heap(x)],
        }));
    }
    match engine.best_move(interp, sum) {
        Err(EngineError::Loopy { .. }) => {
            if engine.gamma_sum(interp, sum)?.outcome() != Outcome::Win {
                return Ok(None);
            }
            Ok(engine
                .gamma_moves(interp, sum)?
                .into_iter()
                .find(|(_, value)| *value == Gamma::Finite(0))
                .map(|(r#move, _)| r#move))
        }
        other => other,
    }
}

/// One row of the second player's strategy in A + *n: the first player's
/// move, the reply, and which case of the proof it is (1, 2 or 3, as in
/// the module's text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrategyRow {
    pub first: MoveLine,
    pub reply: Option<MoveLine>,
    pub case: u8,
}

/// The strategy table for A + *n, n = grundy A: a row per first move.
pub fn strategy(
    interp: &Interpreter,
    engine: &mut Engine<Component>,
    a: &[Component],
) -> Solved<(Grundy, Vec<StrategyRow>)> {
    let n = engine.nim_sum(interp, a)?;
    let mut game = a.to_vec();
    game.push(Component::Heap(n));
    let heap = game.len() - 1;
    let mut rows = Vec::new();
    for (first, value) in valued_moves(interp, engine, &game)? {
        // A row per move of a heap of millions: a stop is heard.
        if interp.stopped() {
            return Err(EngineError::Interrupted);
        }
        let after = first.apply(&game);
        let case = match (first.component == heap, &value) {
            (true, _) => 2,
            // The sum after the move is worth n_j ⊕ n.
            (false, Gamma::Finite(x)) if x ^ n < n => 1,
            (false, _) => 3,
        };
        let reply = reply(interp, engine, &after)?
            .map(|reply| move_line(interp, &after, &reply, Gamma::Finite(0)));
        rows.push(StrategyRow {
            first: move_line(interp, &game, &first, value),
            reply,
            case,
        });
    }
    Ok((n, rows))
}
