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
//! - Components the rules do not find worth a search (small regions) are
//!   valued by the memo, which then keeps every one of their parts: the
//!   memo is the search's table of endgames.
//!
//! Exact values found on the way are kept in the memo like any other;
//! values ruled out for a component are kept beside it. A cycle, or a
//! search deeper than [`DEEPEST`], hands the position back to the memo,
//! which finds the cycle and values positions of any depth.

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

type Searched<T, P, E> = std::result::Result<T, Stop<P, E>>;

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
/// parts are all known, and the others as candidates.
struct Candidates<P> {
    parts: Vec<P>,
    candidates: Vec<Candidate>,
    known: KnownValues,
    /// How many options the position has: its value is at most that.
    count: usize,
}

/// A set of option values: bits for small values, a list for the rest.
#[derive(Default)]
struct KnownValues {
    low: u128,
    high: Vec<Grundy>,
}

impl KnownValues {
    fn insert(&mut self, value: Grundy) {
        match value < 128 {
            true => self.low |= 1 << value,
            false => self.high.push(value),
        }
    }

    fn contains(&self, value: Grundy) -> bool {
        match value < 128 {
            true => self.low & 1 << value != 0,
            false => self.high.contains(&value),
        }
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

    /// Whether the pruned search values `position`.
    fn searches<R>(&self, rules: &R, position: &P) -> bool
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
        let searched = self.search_value(rules, position, key, 0);
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
        let hardest = (0..sum.len())
            .filter(|&i| self.searches(rules, &sum[i]) && self.kept(rules, &sum[i]) >= LOOPY)
            .max_by_key(|&i| rules.weight(&sum[i]));
        let Some(hardest) = hardest else {
            return Ok(self.nim_sum(rules, sum)? == value);
        };
        let mut rest = value;
        for (i, part) in sum.iter().enumerate() {
            if i != hardest {
                rest ^= self.grundy(rules, part)?;
            }
        }
        let position = &sum[hardest];
        let mark = self.positions.len();
        self.work = 0;
        self.dense.keep();
        self.packed.keep();
        let asked = self.has_value(rules, position, rest, 0);
        self.unwind();
        match asked {
            Ok(is) => {
                self.settle::<R::Error>(mark, None);
                Ok(is)
            }
            Err(Stop::ToMemo) => {
                self.settle::<R::Error>(mark, None);
                Ok(self.grundy(rules, position)? == rest)
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
    fn part_value<R>(&mut self, rules: &R, part: &P, depth: usize) -> Searched<Grundy, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        if let Some(n) = rules.as_heap(part) {
            return Ok(n);
        }
        match self.kept(rules, part) {
            value if value < LOOPY => return Ok(value),
            LOOPY | EXPANDING => return Err(Stop::ToMemo),
            _ => {}
        }
        let key = self.intern(rules, part, part)?;
        if self.searches(rules, part) && depth < DEEPEST {
            return self.search_value(rules, part, key, depth);
        }
        self.solve(rules, key)?;
        Ok(self.value(key))
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
        let mut options = self.candidates(rules, position, key)?;
        let mut value = 0;
        loop {
            if !options.known.contains(value) {
                match self.find_option(rules, &mut options, value, depth)? {
                    Some(found) => _ = options.candidates.remove(found),
                    None => break,
                }
            }
            value += 1;
        }
        self.leave(key, Some(value));
        Ok(value)
    }

    /// Whether a component's value is `value`.
    fn has_value<R>(
        &mut self,
        rules: &R,
        position: &P,
        value: Grundy,
        depth: usize,
    ) -> Searched<bool, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        if let Some(n) = rules.as_heap(position) {
            return Ok(n == value);
        }
        match self.kept(rules, position) {
            kept if kept < LOOPY => return Ok(kept == value),
            LOOPY | EXPANDING => return Err(Stop::ToMemo),
            _ => {}
        }
        if !self.searches(rules, position) || depth >= DEEPEST {
            return Ok(self.part_value(rules, position, depth)? == value);
        }
        let key = self.intern(rules, position, position)?;
        if self.ruled_out(key, value) {
            return Ok(false);
        }
        let mut options = self.candidates(rules, position, key)?;
        if (options.count as u64) < value || options.known.contains(value) {
            self.leave(key, None);
            self.rule_out(key, value);
            return Ok(false);
        }
        // Every smaller value must be found among the options, each in an
        // option of its own; the first missing is the position's value.
        for smaller in 0..value {
            if options.known.contains(smaller) {
                continue;
            }
            match self.find_option(rules, &mut options, smaller, depth)? {
                Some(found) => _ = options.candidates.remove(found),
                None => {
                    self.leave(key, Some(smaller));
                    return Ok(false);
                }
            }
        }
        if self
            .find_option(rules, &mut options, value, depth)?
            .is_some()
        {
            self.leave(key, None);
            self.rule_out(key, value);
            return Ok(false);
        }
        self.leave(key, Some(value));
        Ok(true)
    }

    /// The first candidate option of value `value`, if any: the parts of
    /// each but its hardest are valued in full (once), and the hardest
    /// asked whether it makes up the rest.
    fn find_option<R>(
        &mut self,
        rules: &R,
        options: &mut Candidates<P>,
        value: Grundy,
        depth: usize,
    ) -> Searched<Option<usize>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        for index in 0..options.candidates.len() {
            let mut candidate = options.candidates[index];
            while candidate.len > 1 {
                let part = &options.parts[candidate.start + candidate.len - 1];
                candidate.x ^= self.part_value(rules, part, depth + 1)?;
                candidate.len -= 1;
            }
            options.candidates[index] = candidate;
            let hardest = &options.parts[candidate.start];
            if self.has_value(rules, hardest, value ^ candidate.x, depth + 1)? {
                return Ok(Some(index));
            }
        }
        Ok(None)
    }

    /// Lists the options of the component at `key`, which is then being
    /// expanded (a cycle back to it is seen).
    fn candidates<R>(
        &mut self,
        rules: &R,
        position: &P,
        key: Key,
    ) -> Searched<Candidates<P>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        self.watch()?;
        let mut listed = Options::new(self.scratch.limit());
        rules
            .options(position, &mut listed)
            .map_err(EngineError::Rules)?;
        if self.count_work(listed.len() as u64 + 1) {
            return Err(self.too_much_work(position.clone()).into());
        }
        room(&mut self.path, 1).map_err(|_| self.out_of_memory())?;
        self.set_value(key, EXPANDING);
        self.path.push(key);
        let mut options = Candidates {
            parts: Vec::new(),
            candidates: Vec::new(),
            known: KnownValues::default(),
            count: listed.len(),
        };
        let mut weights = Vec::new();
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
            let len = options.parts.len() - start;
            if len == 0 {
                options.known.insert(x);
                continue;
            }
            // The hardest part first: it alone is asked of a value.
            let parts = &mut options.parts[start..];
            weights.clear();
            weights.extend(parts.iter().map(|part| rules.weight(part)));
            let hardest = (0..len).max_by_key(|&i| weights[i]).unwrap_or(0);
            parts.swap(0, hardest);
            let weight = weights.iter().map(|w| w.saturating_mul(*w)).sum();
            options.candidates.push(Candidate {
                start,
                len,
                x,
                weight,
            });
        }
        options.candidates.sort_by_key(|candidate| candidate.weight);
        Ok(options)
    }

    /// Ends the expansion of the component at `key`, with its value if
    /// it was found.
    fn leave(&mut self, key: Key, value: Option<Grundy>) {
        if self.path.last() == Some(&key) {
            self.path.pop();
        }
        self.set_value(key, value.unwrap_or(QUEUED));
        if value.is_some() {
            self.ruled_out.remove(&key);
        }
    }

    fn ruled_out(&self, key: Key, value: Grundy) -> bool {
        value < 64
            && self
                .ruled_out
                .get(&key)
                .is_some_and(|bits| bits & 1 << value != 0)
    }

    fn rule_out(&mut self, key: Key, value: Grundy) {
        if value < 64 {
            *self.ruled_out.entry(key).or_default() |= 1 << value;
        }
    }
}
