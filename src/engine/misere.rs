//! Misère play, where whoever makes the last move loses. The XOR rule does
//! not hold, so sums are searched whole: each state a sorted multiset of
//! components, terminal components dropped. Every state is given its genus
//! (Conway, *On Numbers and Games* ch. 12; *Winning Ways* ch. 13), which
//! holds its misère outcome, and genus theory answers sums of tame games
//! without searching their product: they play like misère Nim.

use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;
use std::fmt;
use std::hash::Hash;

use super::{Engine, EngineError, Grundy, Move, Result, Rules};

/// The genus g^(γ0 γ1 γ2 …) of a position: g its normal-play value, γn the
/// misère Grundy value of the position plus n heaps `*2`. `misere` is as
/// short as it can be, and its last two entries alternate forever.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Genus {
    pub grundy: Grundy,
    pub misere: Vec<Grundy>,
}

impl Genus {
    /// γn, the misère Grundy value with n heaps `*2` added.
    pub fn at(&self, n: usize) -> Grundy {
        let len = self.misere.len();
        match n < len {
            true => self.misere[n],
            false => self.misere[len - 2 + (n - len) % 2],
        }
    }

    /// Whether the player to move wins under misère play.
    pub fn wins(&self) -> bool {
        self.misere[0] != 0
    }

    /// The genus of the Nim heap `*n`: 0^120, 1^031, and n^(n, n⊕2) above.
    pub fn heap(n: Grundy) -> Genus {
        match n {
            0 | 1 => Genus::fickle(n),
            _ => Genus::firm(n),
        }
    }

    /// A tame genus like that of misère Nim with every heap at most 1.
    fn fickle(grundy: Grundy) -> Genus {
        Genus {
            grundy,
            misere: vec![grundy ^ 1, grundy ^ 2, grundy],
        }
    }

    /// A tame genus like that of misère Nim with a heap of 2 or more.
    fn firm(grundy: Grundy) -> Genus {
        Genus {
            grundy,
            misere: vec![grundy, grundy ^ 2],
        }
    }

    fn is_fickle(&self) -> bool {
        self.grundy < 2 && *self == Genus::fickle(self.grundy)
    }

    /// Whether the genus is one a position of misère Nim has.
    fn is_tame(&self) -> bool {
        self.is_fickle() || *self == Genus::firm(self.grundy)
    }

    /// The genus of a sum of tame games, which play as misère Nim does: the
    /// XOR of their values, fickle when every part is.
    fn tame_sum<'a>(parts: impl Iterator<Item = &'a Genus>) -> Genus {
        let (mut grundy, mut fickle) = (0, true);
        for part in parts {
            grundy ^= part.grundy;
            fickle &= part.is_fickle();
        }
        match fickle {
            true => Genus::fickle(grundy),
            false => Genus::firm(grundy),
        }
    }

    /// The genus of a position from its options': g and γ0 are the mex of
    /// the options' (γ0 = 1 for a terminal position), and for n ≥ 1
    /// γn = mex(options' γn, γ(n-1), γ(n-1) ⊕ 1), since moving in one of
    /// the heaps `*2` leaves `*1` (which toggles the misère value's last
    /// bit) or `*0`.
    fn from_options(options: &[&Genus]) -> Genus {
        let grundy = mex(options.iter().map(|option| option.grundy));
        let settled = options
            .iter()
            .map(|option| option.misere.len())
            .max()
            .unwrap_or(0);
        let first = match options.is_empty() {
            true => 1,
            false => mex(options.iter().map(|option| option.at(0))),
        };
        let mut misere = vec![first];
        // Past `settled` the options' values alternate, so γn depends on
        // γ(n-1) and the parity of n alone: once γn = γ(n-2) the sequence
        // alternates for good. It does so within a few steps (Conway), and
        // the bound only guards the loop.
        for n in 1..settled + 64 {
            let previous = misere[n - 1];
            let next = mex(options
                .iter()
                .map(|option| option.at(n))
                .chain([previous, previous ^ 1]));
            misere.push(next);
            if n >= 2 && n + 1 >= settled && misere[n] == misere[n - 2] {
                break;
            }
        }
        while misere.len() > 2 && misere[misere.len() - 1] == misere[misere.len() - 3] {
            misere.pop();
        }
        Genus { grundy, misere }
    }
}

/// As in Winning Ways: `0^120`; values past 9 are set apart, `12^(12,14)`.
impl fmt::Display for Genus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}^", self.grundy)?;
        match self.misere.iter().all(|&value| value < 10) {
            true => self
                .misere
                .iter()
                .try_for_each(|value| write!(f, "{value}")),
            false => {
                let values: Vec<String> = self.misere.iter().map(u64::to_string).collect();
                write!(f, "({})", values.join(","))
            }
        }
    }
}

fn mex(values: impl Iterator<Item = Grundy>) -> Grundy {
    let mut seen: Vec<Grundy> = values.collect();
    seen.sort_unstable();
    seen.dedup();
    seen.iter()
        .enumerate()
        .find(|&(i, &value)| value != i as Grundy)
        .map_or(seen.len() as Grundy, |(i, _)| i as Grundy)
}

/// What is known of a state: its genus, and whether it is tame (its genus
/// and those of every position it reaches are misère Nim's).
#[derive(Debug, Clone)]
struct Known {
    genus: Genus,
    tame: bool,
}

/// The genera of the sums searched so far, kept across queries: one memo
/// that uses genus theory where it applies, one that searches everything.
pub struct Misere<P> {
    theory: HashMap<Vec<P>, Known>,
    exact: HashMap<Vec<P>, Known>,
    /// Each component's options, as states, listed once.
    moves: Moves<P>,
    /// How many sums each memo held when the query being answered began:
    /// `--max-search` bounds the sums a query adds, not those that earlier
    /// queries left.
    base: (usize, usize),
}

type Moves<P> = HashMap<P, Arc<Vec<Vec<P>>>>;

impl<P> Default for Misere<P> {
    fn default() -> Self {
        Misere {
            theory: HashMap::default(),
            exact: HashMap::default(),
            moves: HashMap::default(),
            base: (0, 0),
        }
    }
}

impl<P> Misere<P> {
    /// Forgets every state (the rules changed).
    pub fn clear(&mut self) {
        self.theory.clear();
        self.exact.clear();
        self.moves.clear();
        self.base = (0, 0);
    }

    /// Starts a query with a budget of `limit` new sums of its own. Sums
    /// kept from earlier queries count against none; once they are twice
    /// the limit they are forgotten, so the memo stays within three limits.
    pub fn begin_query(&mut self, limit: usize) {
        if self.theory.len() + self.exact.len() >= limit.saturating_mul(2) {
            self.clear();
        }
        self.base = (self.theory.len(), self.exact.len());
    }
}

/// A genus and how it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub genus: Genus,
    /// How many distinct sums the memo holds after the search.
    pub positions: usize,
}

/// A move of a sum, with the genus of the sum it leaves.
pub type GenusMove<P> = (Move<P>, Genus);

/// A state being searched: its children, and which is next.
struct Frame<P> {
    key: Vec<P>,
    children: Vec<Vec<P>>,
    /// The bytes the children were counted in [`Held`].
    held: usize,
    next: usize,
    /// Whether the children are the state's components alone, asked first
    /// to see whether genus theory answers for the sum.
    parts: bool,
}

impl<P: Clone + Eq + Hash + Ord> Engine<P> {
    /// The genus of a sum under misère play. With `theory`, sums of tame
    /// games take their genus from their parts' and Nim heaps theirs from
    /// the formula; without, every state is searched. At most `limit`
    /// states are kept.
    pub fn genus<R>(
        &mut self,
        rules: &R,
        memo: &mut Misere<P>,
        sum: &[P],
        theory: bool,
        limit: usize,
    ) -> Result<Found, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let root = self.state(rules, sum.iter().cloned())?;
        let (known, base) = match theory {
            true => (&mut memo.theory, memo.base.0),
            false => (&mut memo.exact, memo.base.1),
        };
        if !known.contains_key(&root) {
            let moves = &mut memo.moves;
            let budget = (base, limit);
            self.search_genus(rules, known, moves, root.clone(), theory, budget)?;
        }
        Ok(Found {
            genus: known[&root].genus.clone(),
            positions: known.len(),
        })
    }

    /// Every move of a sum with the genus of the sum it leaves.
    pub fn misere_moves<R>(
        &mut self,
        rules: &R,
        memo: &mut Misere<P>,
        sum: &[P],
        limit: usize,
    ) -> Result<Vec<GenusMove<P>>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        self.valued_moves(rules, sum, |engine, result| {
            Ok(engine.genus(rules, memo, result, true, limit)?.genus)
        })
    }

    fn search_genus<R>(
        &mut self,
        rules: &R,
        known: &mut HashMap<Vec<P>, Known>,
        moves: &mut Moves<P>,
        root: Vec<P>,
        theory: bool,
        (base, limit): (usize, usize),
    ) -> Result<(), P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let mut held = Held::new(self.max_work);
        let mut stack = vec![self.genus_frame(rules, moves, &mut held, root, theory)?];
        while let Some(frame) = stack.last_mut() {
            if let Some(child) = frame.children.get(frame.next).cloned() {
                frame.next += 1;
                if known.contains_key(&child) {
                    continue;
                }
                // No state is met again below itself: every component of a
                // state was solved, so none reaches a cycle, and neither
                // does their sum.
                if known.len().saturating_sub(base) + stack.len() >= limit {
                    return Err(EngineError::SearchTooLarge {
                        limit,
                        needed: limit as u128 + 1,
                    });
                }
                self.sums += 1;
                self.watch()?;
                let frame = self.genus_frame(rules, moves, &mut held, child, theory)?;
                stack.push(frame);
                continue;
            }
            if frame.parts {
                let all_tame = frame.children.iter().all(|child| known[child].tame);
                if !all_tame {
                    let key = frame.key.clone();
                    let children = self.children(rules, moves, &mut held, &key)?;
                    let frame = stack.last_mut().expect("the loop holds a frame");
                    held.release(frame.held);
                    (frame.children, frame.held) = children;
                    (frame.next, frame.parts) = (0, false);
                    continue;
                }
                let frame = stack.pop().expect("the loop holds a frame");
                held.release(frame.held);
                held.keep(Held::state_bytes(rules, &frame.key));
                let genus = Genus::tame_sum(
                    frame
                        .key
                        .iter()
                        .map(|part| &known[std::slice::from_ref(part)].genus),
                );
                known.insert(frame.key, Known { genus, tame: true });
                continue;
            }
            let frame = stack.pop().expect("the loop holds a frame");
            held.release(frame.held);
            held.keep(Held::state_bytes(rules, &frame.key));
            if let (true, [heap]) = (theory, frame.key.as_slice())
                && let Some(n) = rules.as_heap(heap)
            {
                let genus = Genus::heap(n);
                known.insert(frame.key, Known { genus, tame: true });
                continue;
            }
            let children: Vec<&Known> = frame.children.iter().map(|child| &known[child]).collect();
            let genera: Vec<&Genus> = children.iter().map(|child| &child.genus).collect();
            let genus = Genus::from_options(&genera);
            let tame = theory && genus.is_tame() && children.iter().all(|child| child.tame);
            known.insert(frame.key, Known { genus, tame });
        }
        Ok(())
    }

    fn genus_frame<R>(
        &mut self,
        rules: &R,
        moves: &mut Moves<P>,
        held: &mut Held,
        key: Vec<P>,
        theory: bool,
    ) -> Result<Frame<P>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        // With theory, a sum's parts are solved first, alone; a Nim heap
        // alone needs no children, its genus being known.
        let parts = theory && key.len() >= 2;
        let (children, counted) = match (theory, key.as_slice()) {
            (true, [heap]) if rules.as_heap(heap).is_some() => (Vec::new(), 0),
            _ if parts => {
                let mut parts: Vec<Vec<P>> = key.iter().map(|part| vec![part.clone()]).collect();
                parts.dedup();
                let bytes = parts
                    .iter()
                    .map(|part| Held::state_bytes(rules, part))
                    .sum();
                held.build(self, 2 * parts.len(), bytes, || key[0].clone())?;
                (parts, bytes)
            }
            _ => self.children(rules, moves, held, &key)?,
        };
        Ok(Frame {
            key,
            children,
            held: counted,
            next: 0,
            parts,
        })
    }

    /// The states a state moves to, each once, and the bytes they were
    /// counted in `held` as they were built.
    fn children<R>(
        &mut self,
        rules: &R,
        moves: &mut Moves<P>,
        held: &mut Held,
        key: &[P],
    ) -> Result<(Vec<Vec<P>>, usize), P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let (mut children, mut counted) = (Vec::new(), 0);
        let key_bytes = Held::state_bytes(rules, key);
        for (component, position) in key.iter().enumerate() {
            if key[..component].last() == Some(position) {
                continue;
            }
            let options = match moves.get(position) {
                Some(options) => options.clone(),
                None => {
                    let mut options = Vec::new();
                    for to in self.options(rules, position)? {
                        options.push(self.state(rules, to.into_iter())?);
                    }
                    let parts = options.iter().map(|option| option.len() + 1).sum();
                    let bytes = options
                        .iter()
                        .map(|option| Held::state_bytes(rules, option))
                        .sum();
                    held.build(self, parts, bytes, || position.clone())?;
                    let options = Arc::new(options);
                    moves.insert(position.clone(), options.clone());
                    options
                }
            };
            // A child is the state with one component replaced by an
            // option's.
            let replaced = size_of::<P>() + rules.held_bytes(position);
            for to in options.iter() {
                let parts = key.len() + to.len();
                let bytes =
                    (key_bytes - replaced) + (Held::state_bytes(rules, to) - Held::STATE_BYTES);
                held.build(self, parts, bytes, || position.clone())?;
                counted += bytes;
                let mut child = Vec::with_capacity(key.len() - 1 + to.len());
                child.extend_from_slice(&key[..component]);
                child.extend_from_slice(&key[component + 1..]);
                child.extend_from_slice(to);
                child.sort();
                children.push(child);
            }
        }
        children.sort();
        children.dedup();
        Ok((children, counted))
    }

    /// A sum as a state: terminal components dropped, the rest sorted.
    fn state<R>(&mut self, rules: &R, parts: impl Iterator<Item = P>) -> Result<Vec<P>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let mut state = Vec::new();
        for part in parts {
            if !self.is_terminal(rules, &part)? {
                state.push(part);
            }
        }
        state.sort();
        Ok(state)
    }

    /// Whether a component has no move, solving it first: a cycle it
    /// reaches is an error. A component of a nonzero value has a move;
    /// only one of value 0 is asked for its options, and a terminal one is
    /// noted as a play of no moves. (Its longest play would do, but a
    /// large board of coins has thousands of heads of thousands of options
    /// each, and a walk through all of them took minutes before the
    /// search began.)
    fn is_terminal<R>(&mut self, rules: &R, part: &P) -> Result<bool, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        if let Some(n) = rules.as_heap(part) {
            return Ok(n == 0);
        }
        let key = match self.solved(rules, part) {
            Ok(key) => key,
            Err(error) => return Err(self.whole_cycle(rules, error)),
        };
        if self.value(key) != 0 {
            return Ok(false);
        }
        if let Some(&longest) = self.longest.get(&key) {
            return Ok(longest == 0);
        }
        let options = self.options(rules, part)?;
        if self.count_work(options.iter().map(|option| option.len() as u64 + 1).sum()) {
            return Err(self.too_much_work(part.clone()));
        }
        if options.is_empty() {
            self.longest.insert(key, 0);
        }
        Ok(options.is_empty())
    }
}

/// What a search of whole sums under misère play has built and holds: the
/// components of the states it listed (work, bounded by `--max-work`), and
/// the bytes of the states it keeps, of the children it has yet to search
/// and of the components' options (memory, bounded by `--max-table`). A
/// board of coins has heads of thousands of options, each of thousands of
/// heads: counting states alone, such a search filled the memory long
/// before `--max-search` states.
struct Held {
    built: u64,
    max_work: u64,
    bytes: usize,
}

impl Held {
    /// The bytes a state takes beside its components: its slot in a map
    /// or a list (its list's header, its genus), with the map's spare room
    /// and the headers of its allocations.
    const STATE_BYTES: usize = 384;

    fn new(max_work: u64) -> Held {
        Held {
            built: 0,
            max_work,
            bytes: 0,
        }
    }

    /// The bytes a state holds: its own, its components in place, and
    /// what each holds behind pointers (a region's nodes, a large set).
    fn state_bytes<R: Rules>(rules: &R, parts: &[R::Position]) -> usize {
        let behind: usize = parts.iter().map(|part| rules.held_bytes(part)).sum();
        Self::STATE_BYTES + size_of_val(parts) + behind
    }

    /// Counts `parts` components built, holding `bytes`; the work limit's
    /// error, or the memory limit's, once they pass it. A stop from outside
    /// is heard as they are counted.
    fn build<P: Clone + Eq + Hash + Ord, E>(
        &mut self,
        engine: &mut Engine<P>,
        parts: usize,
        bytes: usize,
        expanding: impl FnOnce() -> P,
    ) -> Result<(), P, E> {
        engine.charge(parts as u64);
        engine.watch()?;
        self.built = self.built.saturating_add(parts as u64);
        self.bytes = self.bytes.saturating_add(bytes);
        if self.built > self.max_work {
            return Err(EngineError::TooMuchWork {
                limit: self.max_work,
                examined: self.built,
                solved: engine.states(),
                of: None,
                expanding: Box::new(expanding()),
                forgotten: None,
                found: None,
            });
        }
        engine.within_table(self.bytes, expanding)
    }

    /// Bytes no longer held (a frame's children, searched).
    fn release(&mut self, bytes: usize) {
        self.bytes = self.bytes.saturating_sub(bytes);
    }

    /// Bytes kept from now on, once counted as built.
    fn keep(&mut self, bytes: usize) {
        self.bytes = self.bytes.saturating_add(bytes);
    }
}

/// The genus that `Genus::heap` gives is checked against the definition
/// in the engine's tests; these check the rule on known genera.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn genera_print_as_in_winning_ways() {
        assert_eq!(Genus::heap(0).to_string(), "0^120");
        assert_eq!(Genus::heap(1).to_string(), "1^031");
        assert_eq!(Genus::heap(2).to_string(), "2^20");
        assert_eq!(Genus::heap(12).to_string(), "12^(12,14)");
    }

    #[test]
    fn heap_genera_follow_from_their_options() {
        let heaps: Vec<Genus> = (0..20).map(Genus::heap).collect();
        for n in 0..20 {
            let options: Vec<&Genus> = heaps[..n].iter().collect();
            assert_eq!(Genus::from_options(&options), heaps[n], "*{n}");
        }
    }
}
