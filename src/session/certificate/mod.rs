//! Certificates of Grundy values that anyone can check.
//!
//! A certificate claims a value for every part (component) the proof of
//! one position's value needs, and `verify` checks each claim against the
//! rules, re-deriving every position's options with the plain interpreter:
//! no table, sweep, code table, period or memo of the engine is trusted.
//!
//! There are two kinds. An **acyclic** certificate gives each part a rank
//! (the longest play from it) and claims finite values; the checker asks
//! that every part of every option ranks lower (so the claims are
//! well-founded) and then checks the mex rule: an option of each value
//! below the claim (the witnesses, named in the certificate) and none of
//! the claim itself, an option's value being the XOR of its parts'.
//!
//! A **loopy** certificate follows Fraenkel and Yesha's characterisation
//! of the generalised Sprague–Grundy function γ (Smith's values): a finite
//! γ(u) = g needs an option of each smaller value, none of value g, and
//! for every option w of larger or infinite value a *reversal*, an option
//! of w of value g whose counter is below u's; γ(u) = ∞ needs an option w
//! of value ∞ with no option of value m, the least finite value missing
//! among u's options. Options of loopy parts are single parts here.

use std::cell::Cell;

use miette::{Diagnostic, Report};
use rustc_hash::FxHashMap as HashMap;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::eval::{grouped, grouped_count};

mod check;
mod make;

use super::errors::engine_error;
use super::{Session, Stage, tell};
use crate::engine::{EngineError, Gamma, Grundy, Options};
use crate::interp::{Component, Interpreter, work_per_option};
use crate::program::GameId;
use crate::values::Value;

/// What the certificate file says it is.
const FORMAT: &str = "sprague certificate 1";

/// The most options one position may have while certifying or checking.
const MAX_OPTIONS: usize = 1 << 20;

/// The work between two reports of how far certifying went.
const TELL_EVERY: u64 = 1 << 16;

/// The claims made or checked between two reports of how far it went.
const TELL_CLAIMS: usize = 1 << 10;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Certificate {
    pub format: String,
    /// `acyclic` or `loopy`.
    pub kind: String,
    /// The position certified, and its value.
    pub position: String,
    pub value: Claimed,
    /// A claim per part, the position's own first.
    pub claims: Vec<Claim>,
}

/// A value claimed: a nimber, or `"inf"`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(untagged)]
pub enum Claimed {
    Finite(Grundy),
    Infinite(String),
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Claim {
    pub position: String,
    pub value: Claimed,
    /// Acyclic: the longest play from the part. Loopy: the counter of a
    /// finite value.
    pub rank: u64,
    /// An option of each value below the claim, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub witnesses: Vec<String>,
    /// Loopy: for each option of larger or infinite value, that option
    /// and its option of the claimed value.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reversals: Vec<[String; 2]>,
    /// Loopy, a claim of ∞: the option of value ∞ with no option of the
    /// least finite value missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked: Option<String>,
}

/// The bounds a certificate is made or checked within: the session's
/// `--max-states` (parts) and `--max-work` (options listed).
#[derive(Debug, Clone, Copy)]
struct Limits {
    parts: usize,
    options: u64,
}

/// Why a certificate could not be made.
#[derive(Debug, Error, Diagnostic)]
pub enum CertifyError {
    #[error("the certificate would claim more than {}", grouped_count(*.limit, "position", "positions"))]
    #[diagnostic(
        code(sprague::certify::too_many_positions),
        help("raise the limit with `--max-states N`, or certify a smaller position")
    )]
    TooManyParts { limit: usize },

    #[error(
        "certifying stopped after listing more than {} options, a large board's elements counted in each (of {} found so far)",
        grouped(.limit),
        grouped_count(*.parts, "position", "positions")
    )]
    #[diagnostic(
        code(sprague::certify::too_much_work),
        help(
            "a certificate lists every option of every position it claims; raise the limit \
             with `--max-work N`, or certify a smaller position"
        )
    )]
    TooMuchWork { limit: u64, parts: usize },

    #[error("certifying was interrupted")]
    #[diagnostic(
        code(sprague::certify::interrupted),
        help("Ctrl-C stopped it; no certificate was written")
    )]
    Interrupted,

    #[error("{position} has a finite value no counter justifies")]
    #[diagnostic(
        code(sprague::certify::unjustified),
        help(
            "a loopy certificate covers options that are single positions; this one has an \
             option that is a sum, or a value the counters cannot reach"
        )
    )]
    Unjustified { position: String },
}

/// The first claim that fails, and why.
#[derive(Debug, Error, Diagnostic)]
pub enum Refused {
    #[error("the certificate cannot be read: {0}")]
    #[diagnostic(
        code(sprague::verify::unreadable),
        help("a certificate is the JSON object `sprague certify` writes")
    )]
    Unreadable(String),

    #[error(
        "the certificate claims {}, more than the limit of {}",
        grouped_count(*.claims, "position", "positions"),
        grouped(.limit)
    )]
    #[diagnostic(
        code(sprague::verify::too_many_positions),
        help(
            "raise the limit with `--max-states N` if the certificate is one you trust to be this large"
        )
    )]
    TooManyClaims { claims: usize, limit: usize },

    #[error(
        "verifying stopped after listing more than {limit} options, a large board's elements counted in each (while checking {position})"
    )]
    #[diagnostic(
        code(sprague::verify::too_much_work),
        help(
            "checking a certificate lists every option of every position it claims; raise the \
             limit with `--max-work N` if the certificate is one you mean to check at this size"
        )
    )]
    TooMuchWork { limit: u64, position: String },

    #[error("verifying was interrupted")]
    #[diagnostic(
        code(sprague::verify::interrupted),
        help("Ctrl-C stopped it before every claim was checked: nothing is verified")
    )]
    Interrupted,

    #[error("claim {position} = {value} fails: {reason}")]
    #[diagnostic(
        code(sprague::verify::claim_fails),
        help("the claim, or the certificate it came in, is wrong for these rules")
    )]
    Claim {
        position: String,
        value: String,
        reason: String,
    },
}

/// A sum as compared: its parts sorted, empty heaps left out (an option
/// that leaves nothing is written `*0`).
fn normal(mut sum: Vec<Component>) -> Vec<Component> {
    sum.retain(|part| *part != Component::Heap(0));
    sum.sort();
    sum
}

/// Where each part found while certifying is in the list of parts. A
/// game's position of one small integer argument (a heap of a code or of
/// heap rules) is found by that integer in a table of its own: the options
/// of a heap are mostly the heaps below it, in order, so the lookups walk
/// the table rather than jump about a hash table of a million parts.
#[derive(Default)]
pub(super) struct PartIndex {
    heaps: HashMap<GameId, Vec<u32>>,
    others: HashMap<Component, usize>,
}

/// Heaps beyond this are indexed by hash, with every other part (and so
/// are heaps too large for the parts found so far, see `insert`).
const INDEXED_HEAPS: i64 = 1 << 26;

/// No part at this place of a heap table.
const ABSENT: u32 = u32::MAX;

impl PartIndex {
    /// The game and heap of a part indexed by its heap.
    fn heap(part: &Component) -> Option<(GameId, usize)> {
        match part {
            Component::Game(game, args) => match args.as_slice() {
                [Value::Int(n @ 0..INDEXED_HEAPS)] => Some((*game, *n as usize)),
                _ => None,
            },
            _ => None,
        }
    }

    pub(super) fn get(&self, part: &Component) -> Option<usize> {
        let in_table = Self::heap(part).and_then(|(game, n)| {
            let at = *self.heaps.get(&game)?.get(n)?;
            (at != ABSENT).then_some(at as usize)
        });
        in_table.or_else(|| self.others.get(part).copied())
    }

    /// The place of a part found: every part an option of a part found
    /// reaches was found.
    pub(super) fn place(&self, part: &Component) -> usize {
        self.get(part)
            .expect("every part an option reaches was found")
    }

    /// Notes that `part` is the `i`th part found.
    pub(super) fn insert(&mut self, part: &Component, i: usize) {
        match (Self::heap(part), u32::try_from(i)) {
            // A table holds no more than a few cells for each part found,
            // so that one part of a huge heap does not claim a huge table.
            (Some((game, n)), Ok(i)) if i != ABSENT && n < 16 * i as usize + (1 << 16) => {
                let table = self.heaps.entry(game).or_default();
                if table.len() <= n {
                    table.resize(n + 1, ABSENT);
                }
                table[n] = i;
            }
            _ => {
                self.others.insert(part.clone(), i);
            }
        }
    }
}

/// The value of a sum of parts found while certifying (`None` if a part is
/// infinite): the XOR of theirs.
fn sum_value(index: &PartIndex, values: &[Gamma], sum: &[Component]) -> Option<Grundy> {
    sum.iter().try_fold(0, |x, part| match part {
        Component::Heap(n) => Some(x ^ n),
        part => match &values[index.place(part)] {
            Gamma::Finite(value) => Some(x ^ value),
            Gamma::Infinite(_) => None,
        },
    })
}

fn claimed(value: &Gamma) -> Claimed {
    match value {
        Gamma::Finite(value) => Claimed::Finite(*value),
        Gamma::Infinite(_) => Claimed::Infinite("inf".into()),
    }
}

fn finite(value: &Claimed) -> Option<Grundy> {
    match value {
        Claimed::Finite(value) => Some(*value),
        Claimed::Infinite(_) => None,
    }
}

fn shown(value: Option<Grundy>) -> String {
    value.map_or("∞".into(), |value| value.to_string())
}

fn refuse(claim: &Claim, reason: String) -> Report {
    Report::new(Refused::Claim {
        position: claim.position.clone(),
        value: match &claim.value {
            Claimed::Finite(value) => value.to_string(),
            Claimed::Infinite(_) => "∞".into(),
        },
        reason,
    })
}

impl std::fmt::Display for Claimed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Claimed::Finite(value) => write!(f, "{value}"),
            Claimed::Infinite(_) => f.write_str("∞"),
        }
    }
}
