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
//! the way. Each proof is bounded in work (the options listed count, as
//! the search's do): a proof asked of the position the query asks may list
//! [`ASKED_BUDGET`] options, one asked inside a search [`INNER_BUDGET`].
//! A position whose proof failed is not tried again.

use super::pruned::{Searched, Stop};
use super::*;

/// The options a proof of the position asked (the search's root) may
/// list: a proof of Cram on 6 × 8 lists some 100 million, in a second or
/// two, where the search takes minutes.
const ASKED_BUDGET: u64 = 1 << 29;

/// The options a proof of a position met inside a search may list: a few
/// milliseconds' work, enough for the boards left when a move leaves a
/// symmetric region of a dozen or two nodes.
const INNER_BUDGET: u64 = 1 << 21;

impl<P: Clone + Eq + Hash + Ord> Engine<P> {
    /// Whether the mirror strategy alone proves `position` a P-position,
    /// with no search and the work allowed a position asked; if so, its
    /// value 0 is kept, with the values of the parts proved on the way.
    pub fn mirror_proves<R>(&mut self, rules: &R, position: &P) -> Result<bool, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        self.work = 0;
        let mirrors = self.mirrors_of(rules, position);
        let proved = self.mirror_zero(rules, position, mirrors, 0);
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
        self.mirror_budget = match depth {
            0 => ASKED_BUDGET,
            _ => INNER_BUDGET,
        };
        let proved = self.mirror_proof(rules, position, whole, mirrors)?;
        if !proved {
            // Out of work, it is not tried again either.
            self.unmirrored.insert(whole);
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
            self.mirror_budget = INNER_BUDGET;
            if !self.part_is_zero(rules, part)? {
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
        if !matches!(listed, Ok(true)) || !self.spend(position, options.len())? {
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
            let (mut count, mut legal) = (0, false);
            let listed = rules.whole_options(option, &mut |answer| {
                count += 1;
                legal = answer == reply;
                !legal
            });
            if !matches!(listed, Ok(true)) || !self.spend(position, count)? || !legal {
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

    /// Counts `work` options listed by a proof, as the search counts its
    /// own; whether the proof may go on.
    fn spend<E>(&mut self, position: &P, work: usize) -> Searched<bool, P, E> {
        if self.count_work(work as u64) {
            return Err(self.too_much_work(position.clone()).into());
        }
        self.mirror_budget = self.mirror_budget.saturating_sub(work as u64);
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
