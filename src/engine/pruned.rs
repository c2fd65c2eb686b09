//! The value of one large position by pruned search, without the value
//! of every position it reaches.
//!
//! The memo (`Engine::solve`) values a position by valuing all of its
//! options first. For a large board that is every region that can be
//! reached, while the question is about one. The search here follows
//! J. Lemoine and S. Viennot, *Nimbers are inevitable* (Theoretical
//! Computer Science 462, 2012), with the refinements of P. Beling and
//! M. Rogalski, *On pruning search trees of impartial games* (Artificial
//! Intelligence 283, 2020):
//!
//! - A component's value is the least `v` that no option has: the values
//!   are tried in turn, and for each only *one* option of value `v` need
//!   be found to go on. An option found is set aside, since it has one
//!   value only.
//! - Whether an option has value `v` is asked of its hardest part alone,
//!   against `v` XORed with the values of its other parts, which are
//!   found in full (smaller parts are cheap). Asking whether a component
//!   has value `v` costs less than finding its value: its options need
//!   only show each smaller value once, and none show `v`.
//! - Options whose parts are all known are read first; the others are
//!   tried from the easiest (least total weight, as the rules weigh
//!   parts) to the hardest.
//! - A component has no more value than it has options.
//! - Asked whether a component's value is among some values, its options
//!   are listed only until options of each of those values are met (an
//!   enhanced transposition cutoff, as game-tree searches call it): its
//!   value is none of them, and the options left are neither split into
//!   parts nor looked up. Most questions of a search end so.
//! - Components the rules do not find worth a search (small regions) are
//!   valued by the memo, which then keeps every one of their parts: the
//!   memo is the search's table of endgames.
//!
//! Exact values found on the way are kept in the memo like any other;
//! values ruled out for a component are kept beside it. A cycle, or a
//! search deeper than [`DEEPEST`], hands the position back to the memo,
//! which finds the cycle and values positions of any depth.

use super::shared::{Fact, Shared};
use super::*;

/// How a component's value is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Method {
    /// The pruned search where the rules say it pays (a large region of a
    /// game that splits), the memo everywhere else.
    #[default]
    Auto,
    /// The pruned search for every component but heaps.
    Search,
    /// The memo: every position reached is valued.
    Memo,
}

/// The deepest the search nests (a move and an option's part count one
/// each) before it hands the position to the memo, which keeps its own
/// stack: a board game ends long before, a long chain of positions is
/// better valued by the memo anyway.
const DEEPEST: usize = 4000;

/// The deepest a search on several threads shares what it learns (see
/// [`Engine::shared_at`]). On Cram 5 × 8, two threads took 3.8 s sharing
/// to depth 4, 5.5 s to depth 12 (a million facts, a table filled and
/// read at random), against 6.7 s for one.
const SHARED_DEPTH: usize = 5;

/// The depths at which a search on several threads puts off an option
/// another thread is searching (see [`Engine::value_in`]). Two threads,
/// before → after, wall seconds: Cram 5 × 8 6.5 (one thread) → 3.9 (sharing
/// alone) → 3.4; Node Kayles on P(31, 2), whose top position has two
/// options up to symmetry, 11.7 → 11.6 → 7.1.
const PUT_OFF_DEPTH: usize = 4;

/// Why the search stopped short of a value.
pub(super) enum Stop<P, E> {
    /// An error to report.
    Failed(EngineError<P, E>),
    /// A cycle, or a search too deep: the memo takes the position.
    ToMemo,
}

impl<P, E> From<EngineError<P, E>> for Stop<P, E> {
    fn from(error: EngineError<P, E>) -> Self {
        match error {
            // A cycle is the memo's (and the loopy solver's) to report.
            EngineError::Loopy { .. } => Stop::ToMemo,
            error => Stop::Failed(error),
        }
    }
}

pub(super) type Searched<T, P, E> = std::result::Result<T, Stop<P, E>>;

/// An option of a position being searched: its parts not valued yet
/// (`parts[start..start + len]`, hardest first) and the XOR of the rest.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    start: usize,
    len: usize,
    x: Grundy,
    /// How hard the option looks: the sum of its parts' squared weights.
    weight: u64,
}

/// The options of a position being searched: the values of those whose
/// parts are all known, and the others as candidates. Their buffers are
/// kept in the engine's spares for the next position listed once the
/// search is done with them: a search lists hundreds of thousands.
pub(super) struct Candidates<P> {
    parts: Vec<P>,
    candidates: Vec<Candidate>,
    known: Mex,
    /// The weights of an option's parts, while its hardest is found.
    weights: Vec<u64>,
}

impl<P> Candidates<P> {
    fn new() -> Self {
        Candidates {
            parts: Vec::new(),
            candidates: Vec::new(),
            known: Mex::default(),
            weights: Vec::new(),
        }
    }

    /// Empties the buffers, keeping their room.
    fn clear(&mut self) {
        self.parts.clear();
        self.candidates.clear();
        self.known.clear();
        self.weights.clear();
    }
}

/// What expanding a component found (see [`Engine::expand`]).
enum Expansion<P> {
    /// Its options, to search.
    Options(Candidates<P>),
    /// The mirror strategy proves it has value 0, whatever is asked.
    Zero,
    /// Options of every value asked for were met as its options were
    /// listed (the rest left unlisted): it has none of those values.
    RuledOut,
}

/// A set of values below 256, as bits: the values a search asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Values([u64; 4]);

/// The value 0 alone, as a set of values asked for.
const ZERO: Values = Values([1, 0, 0, 0]);

impl Values {
    const LIMIT: usize = 256;

    /// `{value}`, if it is below 256.
    fn one(value: Grundy) -> Option<Values> {
        let mut values = Values::default();
        (value < Values::LIMIT as Grundy).then(|| {
            values.0[(value / 64) as usize] |= 1 << (value % 64);
            values
        })
    }

    /// The values below `n`, if `n` is at most 256.
    fn below(n: usize) -> Option<Values> {
        (n <= Values::LIMIT).then(|| {
            let mut values = Values::default();
            for (i, word) in values.0.iter_mut().enumerate() {
                let bits = n.saturating_sub(64 * i).min(64);
                *word = if bits == 64 {
                    u64::MAX
                } else {
                    (1 << bits) - 1
                };
            }
            values
        })
    }

    /// The set of `values`, if each is below 256.
    fn of(values: impl IntoIterator<Item = Grundy>) -> Option<Values> {
        values
            .into_iter()
            .try_fold(Values::default(), |set, value| {
                Some(set.union(Values::one(value)?))
            })
    }

    fn union(self, other: Values) -> Values {
        Values(std::array::from_fn(|i| self.0[i] | other.0[i]))
    }

    fn contains(self, value: Grundy) -> bool {
        value < Values::LIMIT as Grundy && self.0[(value / 64) as usize] & 1 << (value % 64) != 0
    }

    /// The set as bits, if every value in it is below 64.
    fn below_64(self) -> Option<u64> {
        self.0[1..]
            .iter()
            .all(|&word| word == 0)
            .then_some(self.0[0])
    }

    fn is_empty(self) -> bool {
        self.0.iter().all(|&word| word == 0)
    }

    fn intersection(self, other: Values) -> Values {
        Values(std::array::from_fn(|i| self.0[i] & other.0[i]))
    }

    fn strike(&mut self, value: Grundy) {
        if value < Values::LIMIT as Grundy {
            self.0[(value / 64) as usize] &= !(1 << (value % 64));
        }
    }

    fn min(self) -> Option<Grundy> {
        let i = self.0.iter().position(|&word| word != 0)?;
        Some(64 * i as Grundy + Grundy::from(self.0[i].trailing_zeros()))
    }

    fn max(self) -> Option<Grundy> {
        let i = self.0.iter().rposition(|&word| word != 0)?;
        Some(64 * i as Grundy + 63 - Grundy::from(self.0[i].leading_zeros()))
    }

    fn strike_max(&mut self) {
        if let Some(max) = self.max() {
            self.strike(max);
        }
    }

    fn without_max(mut self) -> Values {
        self.strike_max();
        self
    }

    /// Each value XORed with `x`; `None` when one would pass 255.
    fn xored(self, x: Grundy) -> Option<Values> {
        if x == 0 {
            return Some(self);
        }
        let mut xored = Values::default();
        let mut bits = self;
        while let Some(value) = bits.min() {
            bits.strike(value);
            xored = xored.union(Values::one(value ^ x)?);
        }
        Some(xored)
    }
}

impl<P: Clone + Eq + Hash + Ord> Engine<P> {
    /// Sets how components are valued (see [`Method`]).
    pub fn set_method(&mut self, method: Method) {
        self.method = method;
    }

    pub fn method(&self) -> Method {
        self.method
    }

    /// Whether a question about `sum` would be answered by a pruned
    /// search: one of its parts is searched and not valued yet.
    pub fn would_search<R>(&mut self, rules: &R, sum: &[P]) -> bool
    where
        R: Rules<Position = P>,
    {
        self.expanded(rules, sum).is_ok_and(|sum| {
            sum.iter()
                .any(|part| self.searches(rules, part) && self.kept(rules, part) >= LOOPY)
        })
    }

    /// Whether one of the parts of `sum` is of those the pruned search
    /// values (valued already or not): too large, where the engine chooses,
    /// for the memo to value everything it reaches.
    pub fn searches_a_part<R>(&mut self, rules: &R, sum: &[P]) -> bool
    where
        R: Rules<Position = P>,
    {
        self.expanded(rules, sum)
            .is_ok_and(|sum| sum.iter().any(|part| self.searches(rules, part)))
    }

    /// Whether the pruned search values `position`.
    pub(super) fn searches<R>(&self, rules: &R, position: &P) -> bool
    where
        R: Rules<Position = P>,
    {
        match self.method {
            Method::Memo => false,
            Method::Search => rules.as_heap(position).is_none(),
            Method::Auto => rules.search_pays(position),
        }
    }

    /// Values the component at `key` (stored, not solved) by the pruned
    /// search where it pays, else by the memo.
    pub(super) fn solve_component<R>(
        &mut self,
        rules: &R,
        key: Key,
        position: &P,
    ) -> Result<(), P, R::Error>
    where
        R: Rules<Position = P>,
    {
        if !self.searches(rules, position) {
            return self.solve(rules, key);
        }
        if let Ok(Some(_)) = self.shared_value(rules, position, 0) {
            return Ok(());
        }
        let searched = self.searching(|engine| engine.search_value(rules, position, key, 0));
        self.testing = None;
        self.unwind();
        match searched {
            Ok(_) => Ok(()),
            Err(Stop::Failed(error)) => Err(error),
            Err(Stop::ToMemo) if self.value(key) < LOOPY => Ok(()),
            Err(Stop::ToMemo) => {
                self.set_value(key, QUEUED);
                self.solve(rules, key)
            }
        }
    }

    /// Marks the positions the search left halfway unsolved again.
    fn unwind(&mut self) {
        for key in std::mem::take(&mut self.path) {
            if self.value(key) == EXPANDING {
                self.set_value(key, QUEUED);
            }
        }
    }

    /// Whether a sum's value is `value`. Where the search pays for one of
    /// its parts, the other parts are valued and the hardest asked whether
    /// it makes up the rest: only one value is tested, the cheapest
    /// question there is (`wins?` asks it of 0, a winning move of each
    /// option). Elsewhere the sum is valued.
    pub fn sum_is<R>(&mut self, rules: &R, sum: &[P], value: Grundy) -> Result<bool, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        Ok(self.sum_among(rules, sum, &[value])? == Some(value))
    }

    /// A sum's value if it is one of `wanted`, else `None`: as
    /// [`Engine::sum_is`] asks of one value, the hardest part is asked
    /// whether its value is among those that make up the rest. An option
    /// whose value is none of them is ruled out without its value being
    /// found (`why` asks each option for the values it still needs).
    pub fn sum_among<R>(
        &mut self,
        rules: &R,
        sum: &[P],
        wanted: &[Grundy],
    ) -> Result<Option<Grundy>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        if wanted.is_empty() {
            return Ok(None);
        }
        let among = |value: Grundy| wanted.contains(&value).then_some(value);
        let sum = &self.expanded(rules, sum)?;
        let hardest = (0..sum.len())
            .filter(|&i| self.searches(rules, &sum[i]) && self.kept(rules, &sum[i]) >= LOOPY)
            .max_by_key(|&i| rules.weight(&sum[i]));
        let Some(hardest) = hardest else {
            return Ok(among(self.nim_sum(rules, sum)?));
        };
        let mut rest = 0;
        for (i, part) in sum.iter().enumerate() {
            if i != hardest {
                rest ^= self.grundy(rules, part)?;
            }
        }
        // The values the hardest part must have, as a set if all are
        // below 256; else it is valued in full.
        let asked = Values::of(wanted.iter().map(|value| value ^ rest));
        let position = &sum[hardest];
        let mark = self.mark();
        self.begin_work();
        self.dense.keep();
        self.packed.keep();
        self.testing = wanted.iter().map(|value| value ^ rest).min();
        let found = self.searching(|engine| match asked {
            Some(asked) => engine.value_in(rules, position, asked, 0),
            None => engine.part_value(rules, position, 0).map(Some),
        });
        self.testing = None;
        self.unwind();
        match found {
            Ok(found) => {
                self.settle::<R::Error>(mark, None);
                Ok(found.and_then(|found| among(found ^ rest)))
            }
            Err(Stop::ToMemo) => {
                self.settle::<R::Error>(mark, None);
                Ok(among(self.grundy(rules, position)? ^ rest))
            }
            Err(Stop::Failed(error)) => {
                self.settle(mark, Some(&error));
                Err(error)
            }
        }
    }

    /// Whether the player to move wins a sum (see [`Engine::sum_is`]);
    /// a sum that reaches a cycle is valued by the loopy solver.
    pub fn outcome<R>(&mut self, rules: &R, sum: &[P]) -> Result<Outcome, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        match self.sum_is(rules, sum, 0) {
            Ok(true) => Ok(Outcome::Loss),
            Ok(false) => Ok(Outcome::Win),
            Err(EngineError::Loopy { .. }) => Ok(self.gamma_sum(rules, sum)?.outcome()),
            Err(error) => Err(error),
        }
    }

    /// The value of a part of an option, found in full: read, searched,
    /// or by the memo where a search does not pay.
    pub(super) fn part_value<R>(
        &mut self,
        rules: &R,
        part: &P,
        depth: usize,
    ) -> Searched<Grundy, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        if let Some(value) = self.known(rules, part, depth)? {
            return Ok(value);
        }
        if let Some(sum) = self.stands_for(rules, part)? {
            let mut value = 0;
            for part in &sum {
                value ^= self.part_value(rules, part, depth + 1)?;
            }
            return Ok(value);
        }
        let key = self.intern(rules, part, part)?;
        if self.searches(rules, part) && depth < DEEPEST {
            return self.search_value(rules, part, key, depth);
        }
        self.solve(rules, key)?;
        Ok(self.value(key))
    }

    /// A part's value if it needs no search: a heap's, or one the memo
    /// keeps. A part the memo found loopy, or is expanding, is the memo's
    /// to value.
    fn known<R>(
        &mut self,
        rules: &R,
        part: &P,
        depth: usize,
    ) -> Searched<Option<Grundy>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        if let Some(n) = rules.as_heap(part) {
            return Ok(Some(n));
        }
        match self.kept(rules, part) {
            value if value < LOOPY => Ok(Some(value)),
            LOOPY | EXPANDING => Err(Stop::ToMemo),
            _ => self.shared_value(rules, part, depth),
        }
    }

    /// A part's value if another thread of the search found it (see
    /// `shared.rs`), then kept here too.
    fn shared_value<R>(
        &mut self,
        rules: &R,
        part: &P,
        depth: usize,
    ) -> Searched<Option<Grundy>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let Some(shared) = self.shared_at(depth) else {
            return Ok(None);
        };
        let Some(Key::Packed(packed)) = self.unstored_key(rules, part) else {
            return Ok(None);
        };
        let Some(Fact::Value(value)) = shared.get(packed) else {
            return Ok(None);
        };
        let key = self.intern(rules, part, part)?;
        self.set_value(key, value);
        self.shared_read += 1;
        Ok(Some(value))
    }

    /// The value of an option of `parts` if it is among the values
    /// `asked(x)` allows, `x` the XOR of its parts but the hardest (the
    /// first), which are valued in full and folded into `candidate`;
    /// asked for no values, the hardest part is valued in full too.
    fn option_value<R>(
        &mut self,
        rules: &R,
        parts: &[P],
        candidate: &mut Candidate,
        asked: impl FnOnce(Grundy) -> Option<Values>,
        depth: usize,
    ) -> Searched<Option<Grundy>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        while candidate.len > 1 {
            let part = &parts[candidate.start + candidate.len - 1];
            candidate.x ^= self.part_value(rules, part, depth)?;
            candidate.len -= 1;
        }
        let hardest = &parts[candidate.start];
        let found = match asked(candidate.x) {
            Some(asked) => self.value_in(rules, hardest, asked, depth)?,
            None => Some(self.part_value(rules, hardest, depth)?),
        };
        Ok(found.map(|found| found ^ candidate.x))
    }

    /// A component's value by the least value none of its options has.
    fn search_value<R>(
        &mut self,
        rules: &R,
        position: &P,
        key: Key,
        depth: usize,
    ) -> Searched<Grundy, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let mut options = match self.expand(rules, position, key, depth, 0)? {
            Expansion::Options(options) => options,
            Expansion::Zero | Expansion::RuledOut => return Ok(0),
        };
        self.reorder(depth, &mut options.candidates);
        // Each value in turn (Beling and Rogalski's aspiration by single
        // values): an option found to have another value is set aside
        // with it, as it has no other.
        let mut value = 0;
        'values: loop {
            if options.known.contains(value) {
                value += 1;
                continue;
            }
            if depth == 0 {
                self.testing = Some(value);
            }
            let mut index = 0;
            while index < options.candidates.len() {
                let mut candidate = options.candidates[index];
                let asked = |x| Values::one(value ^ x);
                let found =
                    self.option_value(rules, &options.parts, &mut candidate, asked, depth + 1)?;
                options.candidates[index] = candidate;
                match found {
                    Some(found) => {
                        options.known.add(found);
                        options.candidates.remove(index);
                        if found == value {
                            value += 1;
                            continue 'values;
                        }
                    }
                    None => index += 1,
                }
            }
            break;
        }
        self.spare.push(options);
        self.leave(key, Some(value), depth);
        Ok(value)
    }

    /// A component's value if it is one of `wanted`, else `None`
    /// (Beling and Rogalski's search with a set of values asked for).
    ///
    /// The value is the least value no option has. Of the values from 0
    /// to the number of options, those options show are struck out; with
    /// `k` options still to read, the value is among the `k + 1` least
    /// values left, so the rest are struck out too. Each option is asked
    /// its value only if it is among the values left but the largest, and
    /// no more than the largest wanted: an option of any other value
    /// strikes out the largest left, as it cannot cover any of the others.
    /// The values up to the largest wanted are then struck out exactly;
    /// once none wanted is left, the answer is `None`.
    fn value_in<R>(
        &mut self,
        rules: &R,
        position: &P,
        wanted: Values,
        depth: usize,
    ) -> Searched<Option<Grundy>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let kept = |value: Grundy| Ok(wanted.contains(value).then_some(value));
        let unstored = self.unstored_key(rules, position);
        if let Some(Key::Packed(packed)) = unstored {
            self.ruled_out.prefetch(packed);
        }
        if let Some(value) = self.known(rules, position, depth)? {
            return kept(value);
        }
        if let Some(sum) = self.stands_for(rules, position)? {
            return self.sum_value_in(rules, &sum, wanted, depth + 1);
        }
        if !self.searches(rules, position) || depth >= DEEPEST {
            return kept(self.part_value(rules, position, depth)?);
        }
        // A position of a packed key is stored only once its options are
        // listed in full: most questions end before, on the values ruled
        // out or as its options are listed.
        let key = match unstored {
            Some(key) => key,
            None => self.intern(rules, position, position)?,
        };
        if self.ruled_out_all(key, wanted, depth) {
            self.drop_unsolved(key);
            return Ok(None);
        }
        // Listing the options stops once options of every value wanted
        // are met: none of them is the value then, whatever the others.
        let enough = wanted.below_64().unwrap_or(0);
        let mut options = match self.expand(rules, position, key, depth, enough)? {
            Expansion::Options(options) => options,
            Expansion::Zero => return kept(0),
            Expansion::RuledOut => {
                self.rule_out_all(key, wanted, depth);
                self.drop_unsolved(key);
                return Ok(None);
            }
        };
        let count = options.known.count() + options.candidates.len();
        let Some(mut left) = Values::below(count + 1) else {
            self.leave(key, None, depth);
            return kept(self.part_value(rules, position, depth)?);
        };
        let top = wanted.intersection(left).max();
        let Some(top) = top else {
            self.leave(key, None, depth);
            return Ok(None);
        };
        let upto = Values::below(top as usize + 1).unwrap_or(left);
        options.known.for_each(|value| left.strike(value));
        let mut exact = true;
        self.reorder(depth, &mut options.candidates);
        // Near the top of a search on several threads, an option another
        // thread is searching is put off until the others are done: by
        // then that thread has likely settled it.
        let len = options.candidates.len();
        let marks = self.shared.clone().filter(|_| depth < PUT_OFF_DEPTH);
        let mut put_off = Vec::new();
        let (mut next, mut resumed) = (0, 0);
        loop {
            let index = match next < len {
                true => next,
                false if resumed < put_off.len() => put_off[resumed],
                false => break,
            };
            let first_pass = next < len;
            if first_pass {
                next += 1;
            } else {
                resumed += 1;
            }
            if wanted.intersection(left).is_empty() {
                exact = false;
                left = Values::default();
                break;
            }
            let mut candidate = options.candidates[index];
            let mark = marks
                .as_ref()
                .and_then(|shared| Some((shared, rules.packed(&options.parts[candidate.start])?)));
            if let Some((shared, key)) = mark {
                if first_pass && next < len && shared.is_busy(key) {
                    put_off.push(index);
                    continue;
                }
                shared.enter(key);
            }
            let asked = |x| left.without_max().intersection(upto).xored(x);
            let found = self.option_value(rules, &options.parts, &mut candidate, asked, depth + 1);
            if let Some((shared, key)) = mark {
                shared.leave(key);
            }
            match found? {
                Some(value) => left.strike(value),
                None => {
                    left.strike_max();
                    exact = false;
                }
            }
        }
        self.spare.push(options);
        let least = left.min();
        match least {
            Some(value) if exact || value <= top => {
                self.leave(key, Some(value), depth);
                kept(value)
            }
            _ => {
                self.leave(key, None, depth);
                self.rule_out_all(key, wanted, depth);
                Ok(None)
            }
        }
    }

    /// A sum's value if it is one of `wanted`, else `None`: its parts but
    /// the hardest valued in full, the hardest asked whether it makes up
    /// one of the values wanted (as [`Engine::option_value`] asks an
    /// option).
    fn sum_value_in<R>(
        &mut self,
        rules: &R,
        sum: &[P],
        wanted: Values,
        depth: usize,
    ) -> Searched<Option<Grundy>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let Some(hardest) = (0..sum.len()).max_by_key(|&i| rules.weight(&sum[i])) else {
            return Ok(wanted.contains(0).then_some(0));
        };
        let mut x = 0;
        for (i, part) in sum.iter().enumerate() {
            if i != hardest {
                x ^= self.part_value(rules, part, depth)?;
            }
        }
        let found = match wanted.xored(x) {
            Some(asked) => self.value_in(rules, &sum[hardest], asked, depth)?,
            None => Some(self.part_value(rules, &sum[hardest], depth)?),
        };
        Ok(found
            .map(|found| found ^ x)
            .filter(|&value| wanted.contains(value)))
    }

    /// The options of the component at `key` to search (see
    /// [`Engine::candidates`]), those the mirror strategy values folded
    /// in; [`Expansion::Zero`] when the strategy proves the component has
    /// value 0, whatever is asked of it, which is then left with that
    /// value; [`Expansion::RuledOut`] when options of every value of
    /// `enough` (bits of values below 64; none, to list every option)
    /// were met as the options were listed.
    fn expand<R>(
        &mut self,
        rules: &R,
        position: &P,
        key: Key,
        depth: usize,
        enough: u64,
    ) -> Searched<Expansion<P>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let mirrors = self.mirrors_of(rules, position);
        if mirrors != 0
            && !self.ruled_out_all(key, ZERO, depth)
            && self.mirror_zero(rules, position, mirrors, depth)?
        {
            self.intern(rules, position, position)?;
            self.leave(key, Some(0), depth);
            return Ok(Expansion::Zero);
        }
        let Some(mut options) = self.candidates(rules, position, key, enough)? else {
            return Ok(Expansion::RuledOut);
        };
        if mirrors != 0 {
            self.fold_mirrored(rules, &mut options)?;
        }
        Ok(Expansion::Options(options))
    }

    /// The options of the component at `key`, which is then being
    /// expanded (a cycle back to it is seen): folded as the memo folds
    /// them, the values of those with every part known gathered, the
    /// others deferred with the parts they wait on. Where the rules do
    /// not defer every such option, the options are listed instead.
    /// `None`, the component left as it was, when the fold met options of
    /// every value of `enough` and stopped (see [`Solved::decided`]).
    fn candidates<R>(
        &mut self,
        rules: &R,
        position: &P,
        key: Key,
        enough: u64,
    ) -> Searched<Option<Candidates<P>>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        self.searched += 1;
        self.watch()?;
        self.enough = enough;
        let folded = self.fold(rules, position);
        self.enough = 0;
        folded?;
        if self.settled {
            return Ok(None);
        }
        let all_deferred = !self.overflowed
            && self.deferred.last().map(|option| option.end) == Some(self.missing.len());
        let mut options = match self.missing.is_empty() || all_deferred {
            true => {
                // The fold's buffers are taken, and those of a position
                // searched before left to it (it clears them).
                let mut options = self.spare.pop().unwrap_or_else(Candidates::new);
                std::mem::swap(&mut options.parts, &mut self.missing);
                std::mem::swap(&mut options.known, &mut self.mex);
                options.candidates.clear();
                options
                    .candidates
                    .extend(self.deferred.iter().scan(0, |start, option| {
                        let candidate = Candidate {
                            start: *start,
                            len: option.end - *start,
                            x: option.partial,
                            weight: 0,
                        };
                        *start = option.end;
                        Some(candidate)
                    }));
                options
            }
            false => self.listed(rules, position)?,
        };
        let stored = self.intern(rules, position, position)?;
        debug_assert!(
            stored == key,
            "a position is stored under the key it was asked by"
        );
        room(&mut self.path, 1).map_err(|_| self.out_of_memory())?;
        self.set_value(key, EXPANDING);
        self.path.push(key);
        // The hardest part of each option first: it alone is asked of a
        // value. The options from the easiest.
        let weights = &mut options.weights;
        for candidate in &mut options.candidates {
            let parts = &mut options.parts[candidate.start..candidate.start + candidate.len];
            weights.clear();
            weights.extend(parts.iter().map(|part| rules.weight(part)));
            let hardest = (0..parts.len()).max_by_key(|&i| weights[i]).unwrap_or(0);
            parts.swap(0, hardest);
            candidate.weight = weights.iter().map(|w| w.saturating_mul(*w)).sum();
        }
        options.candidates.sort_by_key(|candidate| candidate.weight);
        Ok(Some(options))
    }

    /// The options of a position as the rules list them, for
    /// [`Engine::candidates`].
    fn listed<R>(&mut self, rules: &R, position: &P) -> Searched<Candidates<P>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let mut listed = Options::new(self.scratch.limit());
        rules
            .options(position, &mut listed)
            .map_err(EngineError::Rules)?;
        if self.count_work(listed.len() as u64 + 1) {
            return Err(self.too_much_work(position.clone()).into());
        }
        // A spare's buffers, as the fold's are taken: the options go to the
        // spares when searched, so one made anew each time a position is
        // listed would add a spare each time (with a small table, whose
        // folds overflow, the spares grew by gigabytes).
        let mut options = self.spare.pop().unwrap_or_else(Candidates::new);
        options.clear();
        for option in listed.iter() {
            let (start, mut x) = (options.parts.len(), 0);
            for part in option {
                match rules.as_heap(part) {
                    Some(n) => x ^= n,
                    None => match self.kept(rules, part) {
                        value if value < LOOPY => x ^= value,
                        _ => options.parts.push(part.clone()),
                    },
                }
            }
            match options.parts.len() - start {
                0 => options.known.add(x),
                len => options.candidates.push(Candidate {
                    start,
                    len,
                    x,
                    weight: 0,
                }),
            }
        }
        Ok(options)
    }

    /// Folds into the known values the options the mirror strategy
    /// values: those whose parts pair off but for parts it proves
    /// P-positions (see [`Engine::mirrored_sum_is_zero`]). Asked at a
    /// position with mirrors, whose options that are their own images are
    /// the likely ones: Cram on 4 × 9 is won by the central domino, which
    /// leaves such a region.
    fn fold_mirrored<R>(
        &mut self,
        rules: &R,
        options: &mut Candidates<P>,
    ) -> Searched<(), P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let mut index = 0;
        while index < options.candidates.len() {
            let candidate = options.candidates[index];
            let parts = options.parts[candidate.start..candidate.start + candidate.len].to_vec();
            match self.mirrored_sum_is_zero(rules, &parts)? {
                true => {
                    options.known.add(candidate.x);
                    options.candidates.remove(index);
                }
                false => index += 1,
            }
        }
        Ok(())
    }

    /// Ends the expansion of the component at `key`, with its value if
    /// it was found.
    fn leave(&mut self, key: Key, value: Option<Grundy>, depth: usize) {
        if self.path.last() == Some(&key) {
            self.path.pop();
        }
        match value {
            Some(value) => {
                self.set_value(key, value);
                self.ruled_out.remove(&key);
                if let (Some(shared), Key::Packed(packed)) = (self.shared_at(depth), key) {
                    shared.set_value(packed, value);
                }
            }
            None => {
                self.set_value(key, QUEUED);
                self.drop_unsolved(key);
            }
        }
    }

    /// The key `position` is stored under once it is stored, where that
    /// is its packed form: it may be asked about before it is stored.
    fn unstored_key<R>(&self, rules: &R, position: &P) -> Option<Key>
    where
        R: Rules<Position = P>,
    {
        match rules.dense(position) {
            Some(_) => None,
            None => rules.packed(position).map(Key::Packed),
        }
    }

    /// Takes a packed position the search leaves without a value out of
    /// the table: what was learned of it is in the values ruled out, and
    /// a table of values alone stays small enough to stay in the cache.
    /// (Cram on 4 × 9 kept 650,000 such positions beside 100,000 values,
    /// and took 5.5 s instead of 3.6.) Interned positions stay: their
    /// keys are their places.
    fn drop_unsolved(&mut self, key: Key) {
        if let Key::Packed(packed) = key
            && self.packed.get(packed) == QUEUED
            && !self.path.contains(&key)
        {
            self.packed.remove(packed);
        }
    }

    /// Whether every value of `wanted` is known not to be the value of
    /// the component at `key`, here or by another thread of the search.
    fn ruled_out_all(&mut self, key: Key, wanted: Values, depth: usize) -> bool {
        if wanted.0[1..].iter().any(|&word| word != 0) {
            return false;
        }
        let (wanted, here) = (wanted.0[0], self.ruled_out.get(&key));
        if wanted & !here == 0 {
            return true;
        }
        let shared = match (self.shared_at(depth), key) {
            (Some(shared), Key::Packed(packed)) => shared.get(packed),
            _ => None,
        };
        let Some(Fact::RuledOut(bits)) = shared else {
            return false;
        };
        let read = wanted & !(bits | here) == 0;
        self.shared_read += u64::from(read);
        read
    }

    /// Notes that no value of `wanted` below 64 is the value of the
    /// component at `key`.
    fn rule_out_all(&mut self, key: Key, wanted: Values, depth: usize) {
        self.ruled_out.add(key, wanted.0[0]);
        if let (Some(shared), Key::Packed(packed)) = (self.shared_at(depth), key) {
            shared.rule_out(packed, wanted.0[0]);
        }
    }

    /// The table the threads of a search share, where what is learned at
    /// `depth` is shared: near the top, where a region takes long to
    /// search again and is met by the other threads; deeper, a region is
    /// found again sooner than a table shared by every thread is read.
    fn shared_at(&self, depth: usize) -> Option<&Shared> {
        self.shared.as_deref().filter(|_| depth <= SHARED_DEPTH)
    }

    /// Puts the options of a position at `depth` in the order the search
    /// takes them: the thread whose answer is given, and every thread
    /// below the top, from the easiest; the other threads at the top from
    /// elsewhere, so that the threads start on different options.
    fn reorder<T>(&self, depth: usize, candidates: &mut [T]) {
        if self.shared.is_none() || depth > 0 || self.helper == 0 {
            return;
        }
        match self.helper % 2 {
            1 => candidates.reverse(),
            _ => {
                let n = self.helper / 2;
                candidates.rotate_left(candidates.len() * n / (n + 1));
            }
        }
    }

    /// The order in which this thread takes `n` questions asked of every
    /// thread alike (a sum's moves to value): as [`Engine::reorder`] takes
    /// the options at the top.
    pub(super) fn thread_order(&self, n: usize) -> Vec<usize> {
        let mut order: Vec<usize> = (0..n).collect();
        self.reorder(0, &mut order);
        order
    }
}
