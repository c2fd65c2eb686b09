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

use std::collections::HashMap;

use miette::{Diagnostic, Report};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::Session;
use super::answer::engine_error;
use crate::engine::{EngineError, Gamma, Grundy, Options};
use crate::interp::{Component, Interpreter};

/// What the certificate file says it is.
const FORMAT: &str = "sprague certificate 1";

/// The most options one position may have while certifying or checking.
const MAX_OPTIONS: usize = 1 << 20;

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

/// The first claim that fails, and why.
#[derive(Debug, Error, Diagnostic)]
pub enum Refused {
    #[error("the certificate cannot be read: {0}")]
    #[diagnostic(
        code(sprague::verify::unreadable),
        help("a certificate is the JSON object `sprague certify` writes")
    )]
    Unreadable(String),

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
    /// declarations loaded.
    pub fn certify(&mut self, name: &str, text: &str) -> Result<Certificate, Report> {
        let sum = self.parse_position(name, text)?;
        let interp = Interpreter::with_memos(&self.program, &self.periods, &self.tables);
        let engine = &mut self.engine;
        let failed = |error| engine_error(&interp, error, miette::SourceSpan::from(0..0));
        // Every part the options of the parts reach, in the order found.
        let mut parts: Vec<Component> = Vec::new();
        let mut index: HashMap<Component, usize> = HashMap::new();
        let mut options: Vec<Vec<Vec<Component>>> = Vec::new();
        let mut queue: Vec<Component> = sum.clone();
        while let Some(part) = queue.pop() {
            if matches!(part, Component::Heap(_)) || index.contains_key(&part) {
                continue;
            }
            index.insert(part.clone(), parts.len());
            let listed = engine.options(&interp, &part).map_err(failed);
            let listed = listed.map_err(Report::new)?;
            queue.extend(listed.iter().flatten().cloned());
            parts.push(part);
            options.push(listed);
        }
        let mut values = Vec::new();
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
        let show = |sum: &[Component]| interp.show(sum).to_string();
        let value_of = |sum: &[Component]| sum_value(&index, &values, sum);
        let witnesses = |i: usize| -> Vec<String> {
            let Gamma::Finite(g) = values[i] else {
                return Vec::new();
            };
            (0..g)
                .filter_map(|v| options[i].iter().find(|option| value_of(option) == Some(v)))
                .map(|option| show(option))
                .collect()
        };
        let mut claims: Vec<Claim> = Vec::new();
        for (i, part) in parts.iter().enumerate() {
            let rank = match loopy {
                true => 0,
                false => engine.longest(&interp, part).map_err(failed)?,
            };
            claims.push(Claim {
                position: show(std::slice::from_ref(part)),
                value: claimed(&values[i]),
                rank,
                witnesses: witnesses(i),
                reversals: Vec::new(),
                blocked: None,
            });
        }
        if loopy {
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
            interp: Interpreter::new(&self.program),
            claims,
        };
        for parsed in &parsed {
            checker
                .check(parsed, loopy)
                .map_err(|reason| refuse(parsed.claim, reason))?;
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
        let found = match whole.as_slice() {
            [part] => checker.value(part),
            sum => checker.sum_value(sum),
        }
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

    fn rank(&self, part: &Component) -> u64 {
        match part {
            Component::Heap(n) => *n,
            part => self.claims.get(part).map_or(u64::MAX, |claim| claim.rank),
        }
    }

    /// The options of a part, from its rules, each sorted.
    fn options(&self, part: &Component) -> Result<Vec<Vec<Component>>, String> {
        let mut options = Options::new(MAX_OPTIONS);
        crate::engine::Rules::options(&self.interp, part, &mut options)
            .map_err(|error| format!("its options cannot be listed: {error}"))?;
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
                return Err(Report::msg(format!(
                    "{} has a finite value no counter justifies",
                    claims[i].position
                )));
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
