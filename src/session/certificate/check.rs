//! Certificates checked with the plain interpreter and the claims alone:
//! every claim's options listed again, ranks well-founded, the mex rule
//! (or for loopy parts Fraenkel and Yesha's conditions) checked.

use super::*;

impl Session {
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
pub(super) struct Parsed<'c> {
    claim: &'c Claim,
    part: Component,
    witnesses: Vec<(String, Vec<Component>)>,
    reversals: Vec<(Vec<Component>, String, Vec<Component>)>,
    blocked: Option<(String, Vec<Component>)>,
}

/// Checks claims with the plain interpreter and the claims alone.
pub(super) struct Checker<'p, 'c> {
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
