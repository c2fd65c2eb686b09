//! The mirror strategy (Tweedledum and Tweedledee's): a position that an
//! involution of its board maps onto itself, fixing none of its nodes, is
//! a P-position when the second player can answer every move by its
//! image. Cram on an even × even board is the classic case (Berlekamp,
//! Conway and Guy, *Winning Ways*, ch. 22; M. Gardner, *Cram, crosscram
//! and quadraphage*, 1974): a domino and its image through the centre
//! never overlap. The engine knows no game by name: the rules say which
//! involutions keep a position ([`Rules::mirrors`]), and each reply is
//! checked, never assumed.
//!
//! A position is proved a P-position under an involution `s` when, for
//! every option `W` the rules list, the region `W ∩ s(W)` (the move and
//! its image both made) is
//!
//! - not `W` itself (a move that is its own image has no answer),
//! - among the options the rules list of `W` (the answer is legal, by the
//!   rules' own list: so the proof holds for any rule), and
//! - made of parts whose value is 0 together: equal parts in pairs
//!   (`X + X = 0`; under `up to symmetry` a part and its image are one
//!   position), and each other part of value 0, known or proved so in
//!   turn (small parts are valued by the memo).
//!
//! By induction on the proof, which is finite (a position on the way of
//! its own proof fails), every option of the position has an option of
//! value 0, so its value is 0. A proof that fails at any point claims
//! nothing, and the search goes on as it would; one that succeeds keeps
//! the value 0 in the memo, for the position and every part proved on
//! the way.
//!
//! Each proof is bounded in work, counted as the search counts its own
//! (an option listed is one, more where the rules say it costs more): a
//! proof of the position a query asks may do [`ASKED_BUDGET`], one met
//! inside a search [`INNER_BUDGET`], and the proofs inside searches that
//! failed may together have done no more than [`WASTE_FLOOR`] and a
//! sixteenth of all the work done; none more than a quarter of what the
//! search's limit (`--max-work`) leaves. A position whose proof failed is
//! not tried again.

use super::pruned::{Searched, Stop};
use super::*;

/// The work a proof of the position a query asks may do: Cram on 6 × 8
/// takes some 17 million (a second or two), where the search does not
/// finish; Cram on 8 × 8 would take more, and is left to the search.
const ASKED_BUDGET: u64 = 1 << 26;

/// The work a proof of a position met inside a search may do: a tenth of
/// a second or so, enough for the regions of two or three dozen nodes a
/// search meets.
const INNER_BUDGET: u64 = 1 << 20;

/// The work the failed proofs inside searches may do in all, besides a
/// sixteenth of all the work done.
const WASTE_FLOOR: u64 = 1 << 22;

impl<P: Clone + Eq + Hash + Ord> Engine<P> {
    /// Whether the mirror strategy alone proves `position` a P-position,
    /// with no search and the work allowed a position asked; if so, its
    /// value 0 is kept, with the values of the parts proved on the way.
    pub fn mirror_proves<R>(&mut self, rules: &R, position: &P) -> Result<bool, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        self.begin_work();
        let mirrors = self.mirrors_of(rules, position);
        let proved = self.searching(|engine| engine.mirror_zero(rules, position, mirrors, 0));
        self.dense.keep();
        self.packed.keep();
        match proved {
            Ok(proved) => Ok(proved),
            Err(Stop::ToMemo) => Ok(false),
            Err(Stop::Failed(error)) => Err(error),
        }
    }

    /// The involutions that keep `position` and fix none of its nodes, as
    /// the rules number them (see [`Rules::mirrors`]); none for a position
    /// without a packed key.
    pub(super) fn mirrors_of<R>(&self, rules: &R, position: &P) -> u8
    where
        R: Rules<Position = P>,
    {
        rules
            .packed(position)
            .map_or(0, |whole| rules.mirrors(whole))
    }

    /// Whether the mirror strategy proves `position`, which `mirrors`
    /// keep, a P-position: a component the search is about to expand, at
    /// `depth` (0 for the position asked). If so, its value 0 is kept.
    pub(super) fn mirror_zero<R>(
        &mut self,
        rules: &R,
        position: &P,
        mirrors: u8,
        depth: usize,
    ) -> Searched<bool, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let Some(whole) = rules.packed(position) else {
            return Ok(false);
        };
        if mirrors == 0 || self.unmirrored.contains(&whole) {
            return Ok(false);
        }
        self.budgeted(depth == 0, |engine| {
            let proved = engine.mirror_proof(rules, position, whole, mirrors)?;
            if !proved && engine.mirror_budget == 0 {
                // Out of work, it is not tried again either.
                engine.unmirrored.insert(whole);
            }
            Ok(proved)
        })
    }

    /// Runs a proof (`prove`) with the work it may do (see the module's
    /// notes): none left for failed proofs, it is not run.
    fn budgeted<E>(
        &mut self,
        asked: bool,
        prove: impl FnOnce(&mut Self) -> Searched<bool, P, E>,
    ) -> Searched<bool, P, E> {
        let allowed = match asked {
            true => ASKED_BUDGET,
            false => (WASTE_FLOOR + self.total_work / 16)
                .saturating_sub(self.mirror_wasted)
                .min(INNER_BUDGET),
        };
        // Never so much that the search's own limit (`--max-work`) stops
        // a proof, or leaves the search too little.
        let allowed = allowed.min(self.max_work.saturating_sub(self.work) / 4);
        if allowed == 0 {
            return Ok(false);
        }
        self.mirror_budget = allowed;
        let proved = prove(self)?;
        if !proved && !asked {
            self.mirror_wasted += allowed - self.mirror_budget;
        }
        Ok(proved)
    }

    /// Whether the mirror strategy proves a sum (an option being
    /// searched) a P-position: its parts pair off, but for parts it
    /// proves P-positions, each by a proof of its own. Only parts with
    /// mirrors are tried, and only if every part left has them.
    pub(super) fn mirrored_sum_is_zero<R>(
        &mut self,
        rules: &R,
        parts: &[P],
    ) -> Searched<bool, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let unpaired = unpaired(parts);
        let mirrored = |part: &P| {
            rules
                .packed(part)
                .is_some_and(|whole| rules.mirrors(whole) != 0 && !self.unmirrored.contains(&whole))
        };
        if !unpaired.iter().all(mirrored) {
            return Ok(false);
        }
        for part in &unpaired {
            if !self.budgeted(false, |engine| engine.part_is_zero(rules, part))? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether a part of a reply has value 0: known so, valued so by the
    /// memo (a part too small for the search), or proved so by the mirror
    /// strategy.
    fn part_is_zero<R>(&mut self, rules: &R, part: &P) -> Searched<bool, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        if let Some(n) = rules.as_heap(part) {
            return Ok(n == 0);
        }
        match self.kept(rules, part) {
            value if value < LOOPY => return Ok(value == 0),
            LOOPY | EXPANDING => return Ok(false),
            _ => {}
        }
        if !self.searches(rules, part) {
            return match self.part_value(rules, part, 0) {
                Ok(value) => Ok(value == 0),
                Err(Stop::ToMemo) => Ok(false),
                Err(error) => Err(error),
            };
        }
        let Some(whole) = rules.packed(part) else {
            return Ok(false);
        };
        let mirrors = rules.mirrors(whole);
        if mirrors == 0 || self.unmirrored.contains(&whole) || self.mirroring.contains(&whole) {
            return Ok(false);
        }
        self.mirror_proof(rules, part, whole, mirrors)
    }

    /// The proof that `position` (whole, by packed key) is a P-position
    /// under one of `mirrors`, tried in turn. A proof that fails for want
    /// of work is not marked as failed, since it may not have.
    fn mirror_proof<R>(
        &mut self,
        rules: &R,
        position: &P,
        whole: Packed,
        mirrors: u8,
    ) -> Searched<bool, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        self.watch()?;
        self.mirroring.push(whole);
        let mut proved = false;
        for mirror in (0..8).filter(|bit| mirrors >> bit & 1 == 1) {
            let replies = self.mirror_replies(rules, position, whole, mirror);
            let replies = match replies {
                Ok(Some(replies)) => replies,
                Ok(None) => continue,
                Err(error) => {
                    self.mirroring.pop();
                    return Err(error);
                }
            };
            match self.replies_lose(rules, &replies) {
                Ok(true) => {
                    proved = true;
                    break;
                }
                Ok(false) => {}
                Err(error) => {
                    self.mirroring.pop();
                    return Err(error);
                }
            }
            if self.mirror_budget == 0 {
                break;
            }
        }
        self.mirroring.pop();
        match proved {
            true => self.keep_zero(rules, position),
            false if self.mirror_budget > 0 => {
                self.unmirrored.insert(whole);
            }
            false => {}
        }
        Ok(proved)
    }

    /// Each option of `whole` answered by its image under `mirror`: the
    /// replies, each checked to be among the options the rules list of
    /// the option it answers; `None` where a move is its own image, has no
    /// such answer, or the work allowed runs out.
    fn mirror_replies<R>(
        &mut self,
        rules: &R,
        position: &P,
        whole: Packed,
        mirror: u8,
    ) -> Searched<Option<Vec<Packed>>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let mut options = Vec::new();
        let listed = rules.whole_options(whole, &mut |option| {
            options.push(option);
            true
        });
        if !self.spend(position, listed)? {
            return Ok(None);
        }
        // First the answers that are no answer: a move that is its own
        // image, which the check below would find only after listing.
        let replies: Vec<Packed> = options
            .iter()
            .map(|&option| rules.mirror_closed(option, mirror))
            .collect();
        if options
            .iter()
            .zip(&replies)
            .any(|(option, reply)| option == reply)
        {
            return Ok(None);
        }
        for (&option, &reply) in options.iter().zip(&replies) {
            let mut legal = false;
            let listed = rules.whole_options(option, &mut |answer| {
                legal = answer == reply;
                !legal
            });
            if !self.spend(position, listed)? || !legal {
                return Ok(None);
            }
        }
        let mut replies = replies;
        replies.sort_unstable();
        replies.dedup();
        Ok(Some(replies))
    }

    /// Whether every reply leaves a position of value 0: its parts paired
    /// off, and the rest each of value 0. Parts whose values are known are
    /// read first, for every reply, so that a proof fails before it
    /// searches where it can.
    fn replies_lose<R>(&mut self, rules: &R, replies: &[Packed]) -> Searched<bool, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let mut parts = Vec::new();
        let mut unknown = Vec::new();
        for &reply in replies {
            parts.clear();
            if !rules.whole_parts(reply, &mut parts) {
                return Ok(false);
            }
            let mut known = 0;
            for part in unpaired(&parts) {
                match rules.as_heap(&part) {
                    Some(n) => known ^= n,
                    None => match self.kept(rules, &part) {
                        value if value < LOOPY => known ^= value,
                        LOOPY | EXPANDING => return Ok(false),
                        _ => unknown.push(part),
                    },
                }
            }
            if known != 0 {
                return Ok(false);
            }
        }
        unknown.sort_unstable();
        unknown.dedup();
        for part in &unknown {
            if self.mirror_budget == 0 || !self.part_is_zero(rules, part)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Counts the work of a listing of whole options, as the search counts
    /// its own; whether the proof may go on: the rules listed them (an
    /// error of the rules, or options they cannot list whole, end the
    /// proof, not the search) and the proof has work left.
    fn spend<E>(
        &mut self,
        position: &P,
        listed: std::result::Result<Option<u64>, E>,
    ) -> Searched<bool, P, E> {
        let Ok(Some(work)) = listed else {
            return Ok(false);
        };
        if self.count_work(work) {
            return Err(self.too_much_work(position.clone()).into());
        }
        self.mirror_budget = self.mirror_budget.saturating_sub(work);
        Ok(self.mirror_budget > 0)
    }

    /// Keeps the value 0 the mirror strategy proved for `position`.
    fn keep_zero<R>(&mut self, rules: &R, position: &P)
    where
        R: Rules<Position = P>,
    {
        self.mirrored += 1;
        // A position the memo has no room for is proved again if asked.
        if let Ok(key) = self.intern(rules, position, position)
            && matches!(self.value(key), UNSOLVED | QUEUED)
        {
            self.set_value(key, 0);
            self.ruled_out.remove(&key);
        }
    }
}

/// The parts of a sum that do not pair off with an equal part, once each.
fn unpaired<P: Clone + Ord>(parts: &[P]) -> Vec<P> {
    let mut sorted: Vec<&P> = parts.iter().collect();
    sorted.sort_unstable();
    let mut unpaired = Vec::new();
    for run in sorted.chunk_by(|a, b| a == b) {
        if run.len() % 2 == 1 {
            unpaired.push(run[0].clone());
        }
    }
    unpaired
}
