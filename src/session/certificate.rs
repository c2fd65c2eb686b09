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
use std::collections::HashMap;

use miette::{Diagnostic, Report};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::errors::engine_error;
use super::{Session, Stage, tell};
use crate::engine::{EngineError, Gamma, Grundy, Options};
use crate::interp::{Component, Interpreter, work_per_option};

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
    #[error("the certificate would claim more than {limit} positions")]
    #[diagnostic(
        code(sprague::certify::too_many_positions),
        help("raise the limit with `--max-states N`, or certify a smaller position")
    )]
    TooManyParts { limit: usize },

    #[error(
        "certifying stopped after listing more than {limit} options, a large board's elements counted in each (of {parts} positions found so far)"
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

    #[error("the certificate claims {claims} positions, more than the limit of {limit}")]
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

impl Session {
    /// A certificate of the value of the sum written `text`, the file's
    /// declarations loaded. Its memory is linear in the parts certified:
    /// each part's options are listed, used and dropped (listed again for
    /// its witnesses), and the parts and options are bounded by the
    /// session's `--max-states` and `--max-work`.
    pub fn certify(&mut self, name: &str, text: &str) -> Result<Certificate, Report> {
        let sum = self.parse_position(name, text)?;
        let limits = Limits {
            parts: self.engine.max_states(),
            options: self.engine.max_work(),
        };
        let interp = Interpreter::with_memos(&self.program, &self.periods, &self.tables);
        let (engine, stages, tables) = (&mut self.engine, &mut self.stages, &self.tables);
        // Ctrl-C stops the engine, or the rules inside a listing.
        let failed = |error| match tables.stopped() {
            true => Report::new(CertifyError::Interrupted),
            false => Report::new(engine_error(&interp, error, miette::SourceSpan::from(0..0))),
        };
        let show = |sum: &[Component]| interp.show(sum).to_string();
        // Every part the options of the parts reach, in the order found;
        // a part is noted when first met, so the queue holds each once.
        let mut parts: Vec<Component> = Vec::new();
        let mut index: HashMap<Component, usize> = HashMap::new();
        let mut queue: Vec<usize> = Vec::new();
        let mut note = |part: &Component, parts: &mut Vec<Component>, queue: &mut Vec<usize>| {
            if matches!(part, Component::Heap(_)) || index.contains_key(part) {
                return Ok(());
            }
            if parts.len() == limits.parts {
                return Err(Report::new(CertifyError::TooManyParts {
                    limit: limits.parts,
                }));
            }
            index.insert(part.clone(), parts.len());
            queue.push(parts.len());
            parts.push(part.clone());
            Ok(())
        };
        for part in &sum {
            note(part, &mut parts, &mut queue)?;
        }
        let interrupted = || Report::new(CertifyError::Interrupted);
        let mut examined = 0u64;
        let mut next_told = 0u64;
        while let Some(i) = queue.pop() {
            if tables.stopped() {
                return Err(interrupted());
            }
            let listed = engine.options(&interp, &parts[i]).map_err(failed)?;
            let work = (listed.len() as u64).saturating_mul(work_per_option(&parts[i]));
            examined = examined.saturating_add(work);
            if examined >= next_told {
                next_told = examined.saturating_add(TELL_EVERY);
                let (parts, listed) = (parts.len(), examined);
                tell(
                    stages,
                    Stage::Certify {
                        parts,
                        listed,
                        claimed: 0,
                    },
                );
            }
            if examined > limits.options {
                return Err(Report::new(CertifyError::TooMuchWork {
                    limit: limits.options,
                    parts: parts.len(),
                }));
            }
            for part in listed.iter().flatten() {
                note(part, &mut parts, &mut queue)?;
            }
        }
        let mut values = Vec::with_capacity(parts.len());
        for part in &parts {
            values.push(engine.gamma(&interp, part).map_err(failed)?);
        }
        let loopy = values
            .iter()
            .any(|value| matches!(value, Gamma::Infinite(_)))
            || parts.iter().any(|part| {
                matches!(
                    engine.longest(&interp, part),
                    Err(EngineError::Loopy { .. })
                )
            });
        let value_of = |sum: &[Component]| sum_value(&index, &values, sum);
        let mut claims: Vec<Claim> = Vec::with_capacity(parts.len());
        for (i, part) in parts.iter().enumerate() {
            if tables.stopped() {
                return Err(interrupted());
            }
            if i % TELL_CLAIMS == 0 {
                let (parts, listed, claimed) = (parts.len(), examined, i);
                tell(
                    stages,
                    Stage::Certify {
                        parts,
                        listed,
                        claimed,
                    },
                );
            }
            let rank = match loopy {
                true => 0,
                false => engine.longest(&interp, part).map_err(failed)?,
            };
            // An option of each value below the claim, the first listed.
            let mut witnesses = Vec::new();
            if let Gamma::Finite(g @ 1..) = values[i] {
                let listed = engine.options(&interp, part).map_err(failed)?;
                let mut first: Vec<Option<usize>> = vec![None; g as usize];
                for (k, option) in listed.iter().enumerate() {
                    if let Some(slot) = value_of(option).and_then(|v| first.get_mut(v as usize)) {
                        slot.get_or_insert(k);
                    }
                }
                witnesses = first
                    .into_iter()
                    .flatten()
                    .map(|k| show(&listed[k]))
                    .collect();
            }
            claims.push(Claim {
                position: show(std::slice::from_ref(part)),
                value: claimed(&values[i]),
                rank,
                witnesses,
                reversals: Vec::new(),
                blocked: None,
            });
        }
        if loopy {
            // The rounds of counters look at options again and again: the
            // options are kept, within the work limit already passed.
            let mut options = Vec::with_capacity(parts.len());
            for part in &parts {
                options.push(engine.options(&interp, part).map_err(failed)?);
            }
            loopy_counters(&parts, &index, &options, &values, &mut claims, &show)?;
        }
        let value = match value_of(&sum) {
            Some(value) => Claimed::Finite(value),
            None => Claimed::Infinite("inf".into()),
        };
        Ok(Certificate {
            format: FORMAT.into(),
            kind: if loopy { "loopy" } else { "acyclic" }.into(),
            position: show(&sum),
            value,
            claims,
        })
    }

    /// Checks a certificate against the rules of the declarations loaded:
    /// the value of its position and the number of parts it claims.
    pub fn verify(
        &mut self,
        name: &str,
        certificate: &Certificate,
    ) -> Result<(Claimed, usize), Report> {
        if certificate.format != FORMAT {
            return Err(Report::new(Refused::Unreadable(format!(
                "its format is {:?}, not {FORMAT:?}",
                certificate.format
            ))));
        }
        let loopy = match certificate.kind.as_str() {
            "acyclic" => false,
            "loopy" => true,
            other => {
                return Err(Report::new(Refused::Unreadable(format!(
                    "its kind is {other:?}, neither \"acyclic\" nor \"loopy\""
                ))));
            }
        };
        let limits = Limits {
            parts: self.engine.max_states(),
            options: self.engine.max_work(),
        };
        if certificate.claims.len() > limits.parts {
            return Err(Report::new(Refused::TooManyClaims {
                claims: certificate.claims.len(),
                limit: limits.parts,
            }));
        }
        // Every position the certificate names, parsed before any check.
        let mut parse = |text: &str| -> Result<Vec<Component>, Report> {
            Ok(normal(self.parse_position(name, text)?))
        };
        let mut parsed = Vec::new();
        for claim in &certificate.claims {
            let part = match parse(&claim.position)?.as_slice() {
                [part] => part.clone(),
                _ => return Err(refuse(claim, "a claim is about one part, not a sum".into())),
            };
            let witnesses = claim
                .witnesses
                .iter()
                .map(|text| Ok((text.clone(), parse(text)?)))
                .collect::<Result<Vec<_>, Report>>()?;
            let reversals = claim
                .reversals
                .iter()
                .map(|[from, back]| Ok((parse(from)?, back.clone(), parse(back)?)))
                .collect::<Result<Vec<_>, Report>>()?;
            let blocked = match &claim.blocked {
                Some(text) => Some((text.clone(), parse(text)?)),
                None => None,
            };
            parsed.push(Parsed {
                claim,
                part,
                witnesses,
                reversals,
                blocked,
            });
        }
        let whole = parse(&certificate.position)?;
        let claims: HashMap<Component, &Claim> = parsed
            .iter()
            .map(|parsed| (parsed.part.clone(), parsed.claim))
            .collect();
        let checker = Checker {
            interp: Interpreter::stopped_with(&self.program, &self.tables),
            claims,
            limit: limits.options,
            examined: Cell::new(0),
        };
        let interrupted = || Report::new(Refused::Interrupted);
        for (checked, parsed) in parsed.iter().enumerate() {
            if checked % TELL_CLAIMS == 0 {
                let claims = certificate.claims.len();
                tell(&mut self.stages, Stage::Verify { checked, claims });
            }
            checker.check(parsed, loopy).map_err(|reason| {
                if self.tables.stopped() {
                    return interrupted();
                }
                match checker.examined.get() > checker.limit {
                    true => Report::new(Refused::TooMuchWork {
                        limit: checker.limit,
                        position: parsed.claim.position.clone(),
                    }),
                    false => refuse(parsed.claim, reason),
                }
            })?;
            if self.tables.stopped() {
                return Err(interrupted());
            }
        }
        // The position itself: its parts all claimed, its value their XOR.
        let claim = Claim {
            position: certificate.position.clone(),
            value: certificate.value.clone(),
            rank: 0,
            witnesses: Vec::new(),
            reversals: Vec::new(),
            blocked: None,
        };
        let found = checker
            .whole_value(&whole)
            .map_err(|reason| refuse(&claim, reason))?;
        if found != finite(&certificate.value) {
            return Err(refuse(
                &claim,
                format!("its parts' claims make it {}", shown(found)),
            ));
        }
        Ok((certificate.value.clone(), certificate.claims.len()))
    }
}

/// A claim with the positions it names parsed (sums sorted).
struct Parsed<'c> {
    claim: &'c Claim,
    part: Component,
    witnesses: Vec<(String, Vec<Component>)>,
    reversals: Vec<(Vec<Component>, String, Vec<Component>)>,
    blocked: Option<(String, Vec<Component>)>,
}

/// Checks claims with the plain interpreter and the claims alone.
struct Checker<'p, 'c> {
    interp: Interpreter<'p>,
    claims: HashMap<Component, &'c Claim>,
    /// The most options all checks together may list (`--max-work`).
    limit: u64,
    /// The options listed so far.
    examined: Cell<u64>,
}

impl Checker<'_, '_> {
    fn show(&self, sum: &[Component]) -> String {
        self.interp.show(sum).to_string()
    }

    /// A part's claimed value (`None` for ∞); a Nim heap is its size.
    fn value(&self, part: &Component) -> Result<Option<Grundy>, String> {
        match part {
            Component::Heap(n) => Ok(Some(*n)),
            part => match self.claims.get(part) {
                Some(claim) => Ok(finite(&claim.value)),
                None => Err(format!(
                    "{} is part of an option, and the certificate claims nothing of it",
                    self.show(std::slice::from_ref(part))
                )),
            },
        }
    }

    /// A sum's value: the XOR of its parts' claims.
    fn sum_value(&self, sum: &[Component]) -> Result<Option<Grundy>, String> {
        let mut x = Some(0);
        for part in sum {
            x = match (x, self.value(part)?) {
                (Some(x), Some(part)) => Some(x ^ part),
                _ => None,
            };
        }
        if x.is_none() && sum.len() > 1 {
            return Err(
                "an option is a sum with a part of infinite value, which certificates do not cover"
                    .into(),
            );
        }
        Ok(x)
    }

    /// The certified position's value: the XOR of its parts' claims, or ∞
    /// when a part's is ∞ (a sum with a part of infinite γ has infinite γ:
    /// Smith's theorem, γ(G + H) = γ(G) ⊕ γ(H) with ∞ absorbing).
    fn whole_value(&self, sum: &[Component]) -> Result<Option<Grundy>, String> {
        let mut x = Some(0);
        for part in sum {
            x = match (x, self.value(part)?) {
                (Some(x), Some(part)) => Some(x ^ part),
                _ => None,
            };
        }
        Ok(x)
    }

    fn rank(&self, part: &Component) -> u64 {
        match part {
            Component::Heap(n) => *n,
            part => self.claims.get(part).map_or(u64::MAX, |claim| claim.rank),
        }
    }

    /// The options of a part, from its rules, each sorted.
    fn options(&self, part: &Component) -> Result<Vec<Vec<Component>>, String> {
        // One listing may not go far past what is left of the work limit
        // either (the listing counts the assignments its rules try, at
        // least one an option, so it is allowed twice what is left).
        // An option of a large board costs its elements too.
        let left = self.limit.saturating_sub(self.examined.get());
        let each = work_per_option(part);
        let cap = left.saturating_mul(2).saturating_add(1024) / each;
        let mut options = Options::new(MAX_OPTIONS.min(usize::try_from(cap).unwrap_or(usize::MAX)));
        let listed = crate::engine::Rules::options(&self.interp, part, &mut options);
        let work = (options.len() as u64).saturating_mul(each);
        self.examined.set(self.examined.get().saturating_add(work));
        let capped = (cap as u128) < MAX_OPTIONS as u128;
        if capped && matches!(listed, Err(crate::eval::EvalError::TooManyOptions { .. })) {
            // Stopped by what was left of the work limit: past it.
            self.examined.set(self.limit.saturating_add(1));
        }
        listed.map_err(|error| format!("its options cannot be listed: {error}"))?;
        if self.examined.get() > self.limit {
            return Err("the work limit is passed".into());
        }
        Ok(options
            .iter()
            .map(|option| normal(option.to_vec()))
            .collect())
    }

    fn check(&self, parsed: &Parsed, loopy: bool) -> Result<(), String> {
        let claim = parsed.claim;
        let listed = self.options(&parsed.part)?;
        let valued = listed
            .iter()
            .map(|option| self.sum_value(option))
            .collect::<Result<Vec<_>, String>>()?;
        let Some(g) = finite(&claim.value) else {
            return match loopy {
                true => self.check_infinite(parsed, &listed, &valued),
                false => Err("an acyclic certificate claims no infinite value".into()),
            };
        };
        if let Some(i) = valued.iter().position(|&v| v == Some(g)) {
            return Err(format!(
                "its option {} has value {g} too",
                self.show(&listed[i])
            ));
        }
        for v in 0..g {
            let Some((text, witness)) = parsed.witnesses.get(v as usize) else {
                return Err(format!("no witness of an option of value {v}"));
            };
            if !listed.contains(witness) {
                return Err(format!("the witness {text} is not one of its options"));
            }
            let found = self.sum_value(witness)?;
            if found != Some(v) {
                return Err(format!(
                    "the witness {text} of value {v} has value {}",
                    shown(found)
                ));
            }
        }
        if !loopy {
            // Well-founded: every part of every option ranks lower.
            for option in &listed {
                if let Some(part) = option.iter().find(|part| self.rank(part) >= claim.rank) {
                    return Err(format!(
                        "its option's part {} does not rank below it ({} ≥ {})",
                        self.show(std::slice::from_ref(part)),
                        self.rank(part),
                        claim.rank
                    ));
                }
            }
            return Ok(());
        }
        // Every option of larger or infinite value reverses to g through
        // parts of lower counters.
        for (option, v) in listed.iter().zip(&valued) {
            if v.is_some_and(|v| v < g) {
                continue;
            }
            let Some((_, text, back)) = parsed.reversals.iter().find(|(from, ..)| from == option)
            else {
                return Err(format!(
                    "its option {} of value {} has no reversal",
                    self.show(option),
                    shown(*v)
                ));
            };
            let [target] = option.as_slice() else {
                return Err("a reversal of a sum of parts is not covered".into());
            };
            if !self.options(target)?.contains(back) {
                return Err(format!("{text} is not an option of {}", self.show(option)));
            }
            if self.sum_value(back)? != Some(g) {
                return Err(format!("the reversal {text} does not have value {g}"));
            }
            let high = back
                .iter()
                .find(|part| !matches!(part, Component::Heap(_)) && self.rank(part) >= claim.rank);
            if let Some(part) = high {
                return Err(format!(
                    "the reversal's part {} has counter {} ≥ {}",
                    self.show(std::slice::from_ref(part)),
                    self.rank(part),
                    claim.rank
                ));
            }
        }
        Ok(())
    }

    /// γ = ∞: an option of value ∞ with no option of value m, the least
    /// finite value missing among the options.
    fn check_infinite(
        &self,
        parsed: &Parsed,
        listed: &[Vec<Component>],
        valued: &[Option<Grundy>],
    ) -> Result<(), String> {
        let mut values: Vec<Grundy> = valued.iter().flatten().copied().collect();
        values.sort_unstable();
        let m = (0..)
            .find(|m| values.binary_search(m).is_err())
            .unwrap_or_default();
        let Some((text, blocked)) = &parsed.blocked else {
            return Err("no option is named that blocks a finite value".into());
        };
        if !listed.contains(blocked) {
            return Err(format!("{text} is not one of its options"));
        }
        let [target] = blocked.as_slice() else {
            return Err("a blocking sum of parts is not covered".into());
        };
        if self.sum_value(blocked)?.is_some() {
            return Err(format!("{text} is claimed finite, not ∞"));
        }
        for option in self.options(target)? {
            if self.sum_value(&option)? == Some(m) {
                return Err(format!(
                    "{text} has the option {} of value {m}, so it does not block {m}",
                    self.show(&option)
                ));
            }
        }
        Ok(())
    }
}

/// Counters and reversals for the finite claims of a loopy certificate,
/// and blocking options for the infinite ones: a finite part gets the
/// first round in which each of its options of larger or infinite value
/// has an option of its value with a counter from an earlier round.
fn loopy_counters(
    parts: &[Component],
    index: &HashMap<Component, usize>,
    options: &[Vec<Vec<Component>>],
    values: &[Gamma],
    claims: &mut [Claim],
    show: &dyn Fn(&[Component]) -> String,
) -> Result<(), Report> {
    let single = |option: &[Component]| match option {
        [Component::Heap(_)] => None,
        [part] => Some(index[part]),
        _ => None,
    };
    let value_of = |option: &[Component]| sum_value(index, values, option);
    let mut counter: Vec<Option<u64>> = vec![None; parts.len()];
    let mut round = 0;
    loop {
        let mut settled = Vec::new();
        for i in 0..parts.len() {
            let Gamma::Finite(g) = values[i] else {
                continue;
            };
            if counter[i].is_some() {
                continue;
            }
            let mut reversals = Vec::new();
            let mut ready = true;
            for option in &options[i] {
                if value_of(option).is_some_and(|v| v < g) {
                    continue;
                }
                let Some(w) = single(option) else {
                    ready = false;
                    break;
                };
                let back = options[w].iter().find(|back| {
                    value_of(back) == Some(g)
                        && back.iter().all(|part| match part {
                            Component::Heap(_) => true,
                            part => counter[index[part]].is_some_and(|c| c < round),
                        })
                });
                match back {
                    Some(back) => reversals.push([show(option), show(back)]),
                    None => {
                        ready = false;
                        break;
                    }
                }
            }
            if ready {
                settled.push((i, reversals));
            }
        }
        if settled.is_empty() {
            break;
        }
        for (i, reversals) in settled {
            counter[i] = Some(round);
            claims[i].rank = round;
            claims[i].reversals = reversals;
        }
        round += 1;
    }
    for i in 0..parts.len() {
        match &values[i] {
            Gamma::Finite(_) if counter[i].is_none() => {
                return Err(Report::new(CertifyError::Unjustified {
                    position: claims[i].position.clone(),
                }));
            }
            Gamma::Finite(_) => {}
            Gamma::Infinite(reaches) => {
                let m = (0..).find(|m| !reaches.contains(m)).unwrap_or_default();
                let blocked = options[i].iter().find(|option| {
                    single(option).is_some_and(|w| {
                        matches!(values[w], Gamma::Infinite(_))
                            && options[w].iter().all(|back| value_of(back) != Some(m))
                    })
                });
                claims[i].blocked = blocked.map(|option| show(option));
            }
        }
    }
    Ok(())
}

/// A sum as compared: its parts sorted, empty heaps left out (an option
/// that leaves nothing is written `*0`).
fn normal(mut sum: Vec<Component>) -> Vec<Component> {
    sum.retain(|part| *part != Component::Heap(0));
    sum.sort();
    sum
}

/// The value of a sum of parts found while certifying (`None` if a part is
/// infinite): the XOR of theirs.
fn sum_value(
    index: &HashMap<Component, usize>,
    values: &[Gamma],
    sum: &[Component],
) -> Option<Grundy> {
    sum.iter().try_fold(0, |x, part| match part {
        Component::Heap(n) => Some(x ^ n),
        part => match &values[index[part]] {
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
