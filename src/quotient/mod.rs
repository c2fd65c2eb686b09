//! Misère quotients of heap games (T. E. Plambeck, *Taming the wild in
//! impartial combinatorial games*, Integers 5 (2005) G5; T. E. Plambeck
//! and A. N. Siegel, *Misère quotients for impartial games*, J. Combin.
//! Theory Ser. A 115 (2008) 593–622).
//!
//! The sums of heaps 0..N of a game form a free commutative monoid; two
//! sums are indistinguishable when adding any third leaves both misère
//! P-positions or neither. The classes form a monoid Q, the quotient; a
//! heap's class is its "pretending" element, and the classes of the
//! P-positions are Q's P-portion. With them a sum's misère outcome is a
//! product in Q.
//!
//! The quotient is grown a heap at a time, as A. N. Siegel's MisereSolver
//! does. Heap n either pretends to be an element of the quotient so far
//! (a conservative extension), or a trial monoid is built: the quotient
//! of the other heaps times a cyclic monoid for n (and for any heap the
//! trial had to free as well), its P-portion read from the trial itself
//! (each element settled by its first sum in an order that puts a sum's
//! options before it), reduced. Every
//! candidate is checked before it is kept: a sum of heaps is a P-position
//! exactly when it has a move and none of its moves leaves one, and the
//! state (element, elements of the options) of a sum determines those of
//! the sum with one more heap; so a breadth-first search over the finitely
//! many such states checks the candidate's answer for every sum at once.
//! A candidate that fails there is refined with the sum it fails on.
//! Nothing is kept unchecked: a quotient this module returns answers every
//! sum of its heaps correctly.

mod monoid;
mod presentation;
#[cfg(test)]
mod tests;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

pub use monoid::Monoid;
pub use presentation::{Presentation, letter};

use monoid::reduce;

/// A heap size.
pub type Heap = u32;

/// A sum of heaps, sorted.
pub type Word = Vec<Heap>;

/// Why a quotient was not found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QuotientError {
    /// A trial monoid would have more than `limit` elements.
    TooLarge {
        heap: Heap,
        limit: usize,
    },
    /// A search of sums (exact, or over the states of the check) would
    /// hold more than `limit` of them.
    SearchTooLarge {
        heap: Heap,
        limit: usize,
    },
    /// The table of a trial of `elements` elements (4 bytes times their
    /// square) could not be allocated.
    OutOfMemory {
        heap: Heap,
        elements: usize,
    },
    /// An option of `heap` holds a heap not smaller than it.
    NotSmaller {
        heap: Heap,
        option: Word,
    },
    /// The trials ran out: no refinement answered the sum that failed.
    Unresolved {
        heap: Heap,
    },
    Interrupted,
}

/// What bounds a computation and watches it.
pub struct Control<'a> {
    /// The most elements a trial monoid may have.
    pub max_order: usize,
    /// The most sums one search may hold.
    pub max_search: usize,
    /// Asked now and then; `true` stops the computation.
    pub stop: &'a dyn Fn() -> bool,
    /// Told of each heap done, with the order of the quotient so far.
    pub progress: &'a mut dyn FnMut(Heap, usize),
}

type Result<T> = std::result::Result<T, QuotientError>;

/// A candidate: a monoid, its P-portion, and each heap's element.
#[derive(Debug, Clone)]
struct Pretension {
    monoid: Monoid,
    p: Vec<bool>,
    phi: Vec<u32>,
}

impl Pretension {
    fn element(&self, word: &[Heap]) -> u32 {
        word.iter().fold(0, |x, &heap| {
            self.monoid.product(x, self.phi[heap as usize])
        })
    }
}

/// The misère quotient of a heap game's heaps 0..=N, grown heap by heap.
#[derive(Debug, Clone)]
pub struct Quotient {
    /// Each heap's options, each a sum of smaller heaps.
    options: Vec<Vec<Word>>,
    /// The quotient of the heaps so far, checked.
    checked: Pretension,
}

impl Default for Quotient {
    fn default() -> Self {
        Quotient::new()
    }
}

impl Quotient {
    /// The quotient of no heaps: the trivial monoid.
    pub fn new() -> Quotient {
        Quotient {
            options: Vec::new(),
            checked: Pretension {
                monoid: Monoid::trivial(),
                p: vec![false],
                phi: Vec::new(),
            },
        }
    }

    /// The largest heap included, if any.
    pub fn up_to(&self) -> Option<Heap> {
        self.options.len().checked_sub(1).map(|n| n as Heap)
    }

    /// The order of the quotient.
    pub fn order(&self) -> usize {
        self.checked.monoid.size()
    }

    pub fn monoid(&self) -> &Monoid {
        &self.checked.monoid
    }

    /// The element heap `heap` pretends to be.
    pub fn pretending(&self, heap: Heap) -> Option<u32> {
        self.checked.phi.get(heap as usize).copied()
    }

    /// The element of a sum of heaps, if every heap is included.
    pub fn element(&self, sum: &[Heap]) -> Option<u32> {
        sum.iter().try_fold(0, |x, &heap| {
            Some(self.checked.monoid.product(x, self.pretending(heap)?))
        })
    }

    /// Whether an element is in the P-portion: its sums are lost by the
    /// player to move.
    pub fn is_p(&self, element: u32) -> bool {
        self.checked.p[element as usize]
    }

    /// The presentation: generators, relations, the P-portion and the
    /// pretending function in the generators' words.
    pub fn presentation(&self) -> Presentation {
        Presentation::of(&self.checked.monoid, &self.checked.p, &self.checked.phi)
    }

    /// Adds the next heap, given its options (sums of smaller heaps).
    pub fn push(&mut self, options: Vec<Word>, control: &mut Control) -> Result<()> {
        // Asked once a heap too: the walks below ask only every 4096
        // states, and a quotient that stays small never reaches that.
        if (control.stop)() {
            return Err(QuotientError::Interrupted);
        }
        let n = self.options.len() as Heap;
        let mut sorted = Vec::with_capacity(options.len());
        for mut option in options {
            option.sort_unstable();
            if option.iter().any(|&heap| heap >= n) {
                return Err(QuotientError::NotSmaller { heap: n, option });
            }
            sorted.push(option);
        }
        sorted.sort();
        sorted.dedup();
        self.options.push(sorted);
        let found = self.extend(n, control);
        match found {
            Ok(pretension) => {
                self.checked = pretension;
                (control.progress)(n, self.order());
                Ok(())
            }
            Err(error) => {
                self.options.pop();
                Err(error)
            }
        }
    }

    /// The quotient with heap n added, checked.
    fn extend(&mut self, n: Heap, control: &mut Control) -> Result<Pretension> {
        let base = self.checked.clone();
        if self.options[n as usize].is_empty() {
            // A heap with no move is the empty sum.
            let mut phi = base.phi.clone();
            phi.push(0);
            return Ok(Pretension { phi, ..base });
        }
        if let Some(pretension) = self.conservative(n, &base, control)? {
            return Ok(pretension);
        }
        self.expand(n, &base, control)
    }

    /// Heap n as an element of the quotient so far, if one answers every
    /// sum. Only an element in P exactly when heap n alone is (it has a
    /// move, and none to a P-position) can; each such is checked.
    fn conservative(
        &mut self,
        n: Heap,
        base: &Pretension,
        control: &mut Control,
    ) -> Result<Option<Pretension>> {
        let alone_p = self.options[n as usize]
            .iter()
            .all(|option| !base.p[base.element(option) as usize]);
        let mut candidate = base.clone();
        candidate.phi.push(0);
        for x in 0..base.monoid.size() as u32 {
            if base.p[x as usize] != alone_p {
                continue;
            }
            candidate.phi[n as usize] = x;
            if self.check(&candidate, n, control)?.is_none() {
                return Ok(Some(candidate));
            }
        }
        Ok(None)
    }

    /// Heap n as a new generator: trials refined until one checks.
    fn expand(&mut self, n: Heap, base: &Pretension, control: &mut Control) -> Result<Pretension> {
        // Heaps freed from the old quotient, each with the index of its
        // cyclic monoid (period 2).
        let mut trial: Vec<(Heap, usize)> = vec![(n, 1)];
        for _ in 0..64 {
            let candidate = self.trial(n, base, &trial, control)?;
            let Some(failure) = self.check(&candidate, n, control)? else {
                return Ok(candidate);
            };
            // The least sum answered wrongly: its outcome is the
            // opposite of the candidate's.
            let truth = !candidate.p[candidate.element(&failure) as usize];
            let wrong = failure;
            let count = |heap: Heap| wrong.iter().filter(|&&h| h == heap).count();
            let mut refinements: Vec<Vec<(Heap, usize)>> = Vec::new();
            for (i, &(heap, index)) in trial.iter().enumerate() {
                let mut refined = trial.clone();
                refined[i].1 = (index + 1).max(count(heap));
                refinements.push(refined);
            }
            let mut involved: Vec<Heap> = wrong.clone();
            involved.dedup();
            for heap in involved {
                if trial.iter().all(|&(freed, _)| freed != heap) {
                    let mut refined = trial.clone();
                    refined.push((heap, count(heap).max(1)));
                    refinements.push(refined);
                }
            }
            let mut chosen = None;
            for refined in &refinements {
                let attempt = match self.trial(n, base, refined, control) {
                    Ok(attempt) => attempt,
                    Err(QuotientError::TooLarge { .. } | QuotientError::OutOfMemory { .. }) => {
                        continue;
                    }
                    Err(error) => return Err(error),
                };
                if attempt.p[attempt.element(&wrong) as usize] == truth {
                    chosen = Some(refined.clone());
                    break;
                }
            }
            trial = match chosen {
                Some(refined) => refined,
                // None answers the sum alone: every index grows at once.
                None => trial
                    .iter()
                    .map(|&(heap, index)| (heap, (index + 1).max(count(heap))))
                    .collect(),
            };
        }
        Err(QuotientError::Unresolved { heap: n })
    }

    /// A trial: the quotient of the heaps not freed, times a cyclic
    /// monoid for each freed heap; its P-portion read from the trial
    /// itself (`p_portion`); reduced.
    fn trial(
        &mut self,
        n: Heap,
        base: &Pretension,
        freed: &[(Heap, usize)],
        control: &mut Control,
    ) -> Result<Pretension> {
        let is_freed = |heap: Heap| freed.iter().any(|&(h, _)| h == heap);
        let kept: Vec<Heap> = (0..n)
            .filter(|&heap| !is_freed(heap) && !self.options[heap as usize].is_empty())
            .collect();
        let generators: Vec<u32> = kept.iter().map(|&heap| base.phi[heap as usize]).collect();
        let reached = base.monoid.generated(&generators);
        let elements: Vec<u32> = reached.iter().map(|x| x.0).collect();
        let mut monoid = base.monoid.restricted(&elements);
        let mut size = monoid.size();
        for &(_, index) in freed {
            size = size.saturating_mul(index + 2);
        }
        if size > control.max_order {
            return Err(QuotientError::TooLarge {
                heap: n,
                limit: control.max_order,
            });
        }
        let out_of_memory = QuotientError::OutOfMemory {
            heap: n,
            elements: size,
        };
        for &(_, index) in freed {
            monoid = monoid
                .times(&Monoid::cyclic(index, 2))
                .ok_or(out_of_memory.clone())?;
        }
        let local: HashMap<u32, u32> = elements
            .iter()
            .enumerate()
            .map(|(i, &x)| (x, i as u32))
            .collect();
        // Element (r, k1, …) is r * Π (sizes of later factors) + …, the
        // freed heaps' factors in order.
        let radices: Vec<usize> = freed.iter().map(|&(_, index)| index + 2).collect();
        let stride = |i: usize| radices[i + 1..].iter().product::<usize>();
        let mut phi = Vec::with_capacity(n as usize + 1);
        for heap in 0..=n {
            phi.push(match freed.iter().position(|&(h, _)| h == heap) {
                Some(i) => stride(i) as u32,
                None if self.options[heap as usize].is_empty() => 0,
                None => local[&base.phi[heap as usize]] * stride(0) as u32 * radices[0] as u32,
            });
        }
        let p = self.p_portion(&monoid, &phi, control)?;
        let generators: Vec<u32> = phi.clone();
        let reduced = reduce(&monoid, &p, &generators).ok_or(out_of_memory)?;
        let phi = phi
            .iter()
            .map(|&x| reduced.class[x as usize].expect("a generator is reached"))
            .collect();
        Ok(Pretension {
            monoid: reduced.monoid,
            p: reduced.p,
            phi,
        })
    }

    /// The P-portion a trial implies, read from the trial itself: each
    /// element is settled by the first sum that reaches it in an order in
    /// which every sum comes after its options (fewer of the largest heap
    /// first, then of the next, and so on), as A. N. Siegel's MisereSolver
    /// marks it: P when it has a move and no option's element is in P.
    /// Later sums of an element are answered as its first; the check
    /// catches any that are not.
    fn p_portion(&self, monoid: &Monoid, phi: &[u32], control: &mut Control) -> Result<Vec<bool>> {
        let size = monoid.size();
        // The heaps with a move, each with its element and the elements
        // of its options.
        let heaps: Vec<(u32, Vec<u32>)> = (0..phi.len())
            .filter(|&heap| !self.options[heap].is_empty())
            .map(|heap| {
                let element = |word: &[Heap]| {
                    word.iter()
                        .fold(0, |x, &h| monoid.product(x, phi[h as usize]))
                };
                let mut targets: Vec<u32> = self.options[heap].iter().map(|o| element(o)).collect();
                targets.sort_unstable();
                targets.dedup();
                (phi[heap], targets)
            })
            .collect();
        let mut marking = Marking {
            monoid,
            heaps: &heaps,
            marked: vec![false; size],
            p: vec![false; size],
            visits: 0,
            stop: control.stop,
        };
        let empty = Bits::new(size);
        match marking.mark(heaps.len(), 0, &empty) {
            true => Ok(marking.p),
            false => Err(QuotientError::Interrupted),
        }
    }

    /// Checks a candidate for every sum of heaps 0..=n. The state
    /// (element, elements of the options) of a sum determines the states
    /// of the sums with more heaps, and a candidate answers every sum
    /// rightly exactly when each state is in P when it has options and
    /// none is in P. The states are walked in the order of `p_portion`,
    /// a sum's options before it, so the first that fails is the least
    /// sum the candidate answers wrongly: its options are answered
    /// rightly, and its outcome is the opposite of the candidate's.
    /// Returns that sum, if there is one.
    fn check(
        &self,
        candidate: &Pretension,
        n: Heap,
        control: &mut Control,
    ) -> Result<Option<Word>> {
        let monoid = &candidate.monoid;
        // One move per distinct (element, options' elements) of a heap,
        // the smallest heap for each: a sum with a larger heap of the
        // same move has the state of a smaller sum.
        let mut moves: Vec<(Heap, u32, Vec<u32>)> = Vec::new();
        for heap in 0..=n {
            let options = &self.options[heap as usize];
            if options.is_empty() {
                continue;
            }
            let mut targets: Vec<u32> = options.iter().map(|o| candidate.element(o)).collect();
            targets.sort_unstable();
            targets.dedup();
            let g = candidate.phi[heap as usize];
            if !moves.iter().any(|(_, h, t)| *h == g && *t == targets) {
                moves.push((heap, g, targets));
            }
        }
        let mut p_set = Bits::new(monoid.size());
        for (x, &p) in candidate.p.iter().enumerate() {
            if p {
                p_set.insert(x as u32);
            }
        }
        let empty = Bits::new(monoid.size());
        let mut walk = Walk {
            monoid,
            moves: &moves,
            p: &candidate.p,
            p_set,
            seen: HashSet::default(),
            counts: vec![0; moves.len()],
            max_search: control.max_search,
            stop: control.stop,
            n,
        };
        walk.seen.insert((0, empty.clone()));
        match walk.walk(moves.len(), 0, &empty)? {
            true => Ok(None),
            false => {
                let mut word = Vec::new();
                for (&(heap, _, _), &k) in moves.iter().zip(&walk.counts) {
                    word.extend(std::iter::repeat_n(heap, k));
                }
                Ok(Some(word))
            }
        }
    }
}

/// A set of elements of a monoid.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(size: usize) -> Bits {
        Bits(vec![0; size.div_ceil(64)])
    }

    fn insert(&mut self, x: u32) {
        self.0[x as usize / 64] |= 1 << (x % 64);
    }

    fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.0.iter().enumerate().flat_map(|(i, &block)| {
            (0..64)
                .filter(move |b| block >> b & 1 == 1)
                .map(move |b| (i * 64 + b) as u32)
        })
    }
}

/// The walk that reads a trial's P-portion (`Quotient::p_portion`).
struct Marking<'a> {
    monoid: &'a Monoid,
    /// Each heap with a move: its element and its options' elements.
    heaps: &'a [(u32, Vec<u32>)],
    marked: Vec<bool>,
    p: Vec<bool>,
    visits: usize,
    stop: &'a dyn Fn() -> bool,
}

impl Marking<'_> {
    /// Visits the sums that add heaps `heaps[..depth]` to one of element
    /// `x` whose options have the elements `options`: the sum itself
    /// first, then with more of the heap `heaps[depth - 1]`, each with
    /// the smaller heaps, until its element repeats one reached before
    /// (every sum past it repeats one too, reached by a smaller sum).
    /// Returns false when stopped.
    fn mark(&mut self, depth: usize, x: u32, options: &Bits) -> bool {
        if depth == 0 {
            self.visits += 1;
            if self.visits.is_multiple_of(4096) && (self.stop)() {
                return false;
            }
            // Misère: the empty sum has no move and is won by the player
            // to move.
            let any = options.0.iter().any(|&b| b != 0);
            self.p[x as usize] = any && options.iter().all(|t| !self.p[t as usize]);
            self.marked[x as usize] = true;
            return true;
        }
        let (g, targets) = &self.heaps[depth - 1];
        let (mut x, mut options) = (x, options.clone());
        loop {
            if !self.mark(depth - 1, x, &options) {
                return false;
            }
            let y = self.monoid.product(x, *g);
            if self.marked[y as usize] {
                return true;
            }
            let mut next = Bits::new(self.monoid.size());
            for t in options.iter() {
                next.insert(self.monoid.product(t, *g));
            }
            for &t in targets {
                next.insert(self.monoid.product(x, t));
            }
            (x, options) = (y, next);
        }
    }
}

/// The walk of `Quotient::check`.
struct Walk<'a> {
    monoid: &'a Monoid,
    /// Each move: a heap, its element and its options' elements.
    moves: &'a [(Heap, u32, Vec<u32>)],
    p: &'a [bool],
    p_set: Bits,
    /// The states reached.
    seen: HashSet<(u32, Bits)>,
    /// How many of each move's heap the sum visited holds.
    counts: Vec<usize>,
    max_search: usize,
    stop: &'a dyn Fn() -> bool,
    n: Heap,
}

impl Walk<'_> {
    /// Visits the sums that add the heaps of `moves[..depth]` to one of
    /// element `x` whose options have the elements `options`, as
    /// `Marking::mark` does, stopping where a state repeats. Returns
    /// false at the first sum whose state fails, `counts` then holding it.
    fn walk(&mut self, depth: usize, x: u32, options: &Bits) -> Result<bool> {
        if depth == 0 {
            let any = options.0.iter().any(|&b| b != 0);
            let to_p = options.0.iter().zip(&self.p_set.0).any(|(a, b)| a & b != 0);
            return Ok(self.p[x as usize] == (any && !to_p));
        }
        let (_, g, targets) = &self.moves[depth - 1];
        let (mut x, mut options) = (x, options.clone());
        loop {
            if !self.walk(depth - 1, x, &options)? {
                return Ok(false);
            }
            let y = self.monoid.product(x, *g);
            let mut next = Bits::new(self.monoid.size());
            for t in options.iter() {
                next.insert(self.monoid.product(t, *g));
            }
            for &t in targets {
                next.insert(self.monoid.product(x, t));
            }
            if !self.seen.insert((y, next.clone())) {
                self.counts[depth - 1] = 0;
                return Ok(true);
            }
            if self.seen.len() >= self.max_search {
                return Err(QuotientError::SearchTooLarge {
                    heap: self.n,
                    limit: self.max_search,
                });
            }
            if self.seen.len().is_multiple_of(4096) && (self.stop)() {
                return Err(QuotientError::Interrupted);
            }
            self.counts[depth - 1] += 1;
            (x, options) = (y, next);
        }
    }
}
