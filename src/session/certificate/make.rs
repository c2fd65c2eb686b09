//! Certificates made: every part the proof of a position's value needs,
//! its value, rank and witnesses (or, for a loopy part, its reversals),
//! in memory linear in the parts.

use super::*;

impl Session {
    /// A certificate of the value of the sum written `text`, the file's
    /// declarations loaded. Its memory is linear in the parts certified:
    /// each part's options are listed, used and dropped (listed again for
    /// its witnesses), and the parts and options are bounded by the
    /// session's `--max-states` and `--max-work`.
    pub fn certify(&mut self, name: &str, text: &str) -> Result<Certificate, Report> {
        let (sum, written) = self.parse_position_as_written(name, text)?;
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
        let mut index = PartIndex::default();
        let mut queue: Vec<usize> = Vec::new();
        let mut note = |part: &Component, parts: &mut Vec<Component>, queue: &mut Vec<usize>| {
            if matches!(part, Component::Heap(_)) || index.get(part).is_some() {
                return Ok(());
            }
            if parts.len() == limits.parts {
                return Err(Report::new(CertifyError::TooManyParts {
                    limit: limits.parts,
                }));
            }
            index.insert(part, parts.len());
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
            position: show(&written),
            value,
            claims,
        })
    }
}

/// Counters and reversals for the finite claims of a loopy certificate,
/// and blocking options for the infinite ones: a finite part gets the
/// first round in which each of its options of larger or infinite value
/// has an option of its value with a counter from an earlier round.
pub(super) fn loopy_counters(
    parts: &[Component],
    index: &PartIndex,
    options: &[Vec<Vec<Component>>],
    values: &[Gamma],
    claims: &mut [Claim],
    show: &dyn Fn(&[Component]) -> String,
) -> Result<(), Report> {
    let single = |option: &[Component]| match option {
        [Component::Heap(_)] => None,
        [part] => Some(index.place(part)),
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
                            part => counter[index.place(part)].is_some_and(|c| c < round),
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
