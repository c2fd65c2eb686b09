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
//! trial had to free as well), its P-portion read from exact misère
//! searches of one representative sum per element, reduced. Every
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

use rustc_hash::FxHashMap as HashMap;

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
    /// Exact misère outcomes (true: a P-position) of sums with a heap
    /// past the checked ones.
    memo: HashMap<Word, bool>,
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
            memo: HashMap::default(),
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
                // Outcomes of sums of checked heaps are read from the
                // quotient from now on.
                self.memo.clear();
                (control.progress)(n, self.order());
                Ok(())
            }
            Err(error) => {
                self.options.pop();
                self.memo.clear();
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
    /// sum: it must answer like `rep(y) + n` for each element y first.
    fn conservative(
        &mut self,
        n: Heap,
        base: &Pretension,
        control: &mut Control,
    ) -> Result<Option<Pretension>> {
        let representatives = representatives(base, n);
        let mut row = Vec::with_capacity(representatives.len());
        for representative in &representatives {
            let mut word = representative.clone();
            word.push(n);
            row.push(self.outcome(&word, n, control)?);
        }
        let size = base.monoid.size() as u32;
        let Some(x) = (0..size).find(|&x| {
            (0..size).all(|y| base.p[base.monoid.product(y, x) as usize] == row[y as usize])
        }) else {
            return Ok(None);
        };
        let mut candidate = base.clone();
        candidate.phi.push(x);
        Ok(match self.check(&candidate, n, control)? {
            None => Some(candidate),
            Some(_) => None,
        })
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
            let wrong = self.wrong_word(&candidate, failure, n, control)?;
            let truth = self.outcome(&wrong, n, control)?;
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
                    Err(QuotientError::TooLarge { .. }) => continue,
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
    /// monoid for each freed heap; its P-portion read from a search of a
    /// representative sum of each element; reduced.
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
        for &(_, index) in freed {
            monoid = monoid.times(&Monoid::cyclic(index, 2));
        }
        // Representative words of the kept part.
        let local: HashMap<u32, u32> = elements
            .iter()
            .enumerate()
            .map(|(i, &x)| (x, i as u32))
            .collect();
        let mut words: Vec<Word> = Vec::with_capacity(reached.len());
        for (_, from) in &reached {
            words.push(match from {
                None => Vec::new(),
                Some((x, g)) => {
                    let mut word = words[local[x] as usize].clone();
                    word.push(kept[*g]);
                    word
                }
            });
        }
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
        let mut p = Vec::with_capacity(monoid.size());
        for x in 0..monoid.size() {
            let mut rest = x;
            let mut word = Vec::new();
            for (i, &(heap, _)) in freed.iter().enumerate().rev() {
                let k = rest % radices[i];
                rest /= radices[i];
                word.extend(std::iter::repeat_n(heap, k));
            }
            word.extend_from_slice(&words[rest]);
            word.sort_unstable();
            p.push(self.outcome(&word, n, control)?);
        }
        let generators: Vec<u32> = phi.clone();
        let reduced = reduce(&monoid, &p, &generators);
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

    /// The options of a sum, each a sum sorted, heaps without moves
    /// dropped.
    fn children(&self, key: &[Heap]) -> Vec<Word> {
        let mut children = Vec::new();
        for (i, &heap) in key.iter().enumerate() {
            if i > 0 && key[i - 1] == heap {
                continue;
            }
            for option in &self.options[heap as usize] {
                let mut child: Word = key[..i].to_vec();
                child.extend_from_slice(&key[i + 1..]);
                child.extend(
                    option
                        .iter()
                        .filter(|&&h| !self.options[h as usize].is_empty()),
                );
                child.sort_unstable();
                children.push(child);
            }
        }
        children.sort();
        children.dedup();
        children
    }

    /// The outcome when known without search: from the checked quotient
    /// for sums of heaps below n, else from the memo.
    fn settled(&self, key: &[Heap], n: Heap) -> Option<bool> {
        match key.iter().all(|&heap| heap < n) {
            true => Some(self.checked.p[self.checked.element(key) as usize]),
            false => self.memo.get(key).copied(),
        }
    }

    /// Whether a sum of heaps up to n is a misère P-position, by search.
    fn outcome(&mut self, word: &[Heap], n: Heap, control: &mut Control) -> Result<bool> {
        struct Frame {
            key: Word,
            children: Vec<Word>,
            next: usize,
            to_p: bool,
        }
        let mut key: Word = word
            .iter()
            .copied()
            .filter(|&heap| !self.options[heap as usize].is_empty())
            .collect();
        key.sort_unstable();
        if let Some(known) = self.settled(&key, n) {
            return Ok(known);
        }
        let children = self.children(&key);
        let mut stack = vec![Frame {
            key: key.clone(),
            children,
            next: 0,
            to_p: false,
        }];
        while let Some(frame) = stack.last_mut() {
            if !frame.to_p && frame.next < frame.children.len() {
                let child = std::mem::take(&mut frame.children[frame.next]);
                frame.next += 1;
                match self.settled(&child, n) {
                    Some(p) => frame.to_p |= p,
                    None => {
                        if self.memo.len() + stack.len() >= control.max_search {
                            return Err(QuotientError::SearchTooLarge {
                                heap: n,
                                limit: control.max_search,
                            });
                        }
                        if self.memo.len().is_multiple_of(4096) && (control.stop)() {
                            return Err(QuotientError::Interrupted);
                        }
                        let children = self.children(&child);
                        stack.push(Frame {
                            key: child,
                            children,
                            next: 0,
                            to_p: false,
                        });
                    }
                }
                continue;
            }
            let frame = stack.pop().expect("the loop holds a frame");
            // Misère: a sum with no move is won by the player to move.
            let p = frame.next > 0 && !frame.to_p;
            self.memo.insert(frame.key, p);
            if let Some(parent) = stack.last_mut() {
                parent.to_p |= p;
            }
        }
        Ok(self.memo[&key])
    }

    /// Checks a candidate for every sum of heaps 0..=n: breadth first
    /// over the states (element, set of the options' elements), each of
    /// which must be in P exactly when it has options and none is in P.
    /// Returns a sum whose state fails, if one does.
    fn check(
        &self,
        candidate: &Pretension,
        n: Heap,
        control: &mut Control,
    ) -> Result<Option<Word>> {
        let monoid = &candidate.monoid;
        let blocks = monoid.size().div_ceil(64);
        let contains = |set: &[u64], x: u32| set[x as usize / 64] >> (x % 64) & 1 == 1;
        // One move per distinct (element, options' elements) of a heap.
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
        let p_set: Vec<u64> = {
            let mut set = vec![0u64; blocks];
            for (x, &p) in candidate.p.iter().enumerate() {
                if p {
                    set[x / 64] |= 1 << (x % 64);
                }
            }
            set
        };
        let consistent = |e: u32, set: &[u64]| {
            let any = set.iter().any(|&b| b != 0);
            let to_p = set.iter().zip(&p_set).any(|(a, b)| a & b != 0);
            candidate.p[e as usize] == (any && !to_p)
        };
        let mut states: Vec<(u32, Vec<u64>)> = vec![(0, vec![0; blocks])];
        let mut parent: Vec<(usize, Heap)> = vec![(0, 0)];
        let mut index: HashMap<(u32, Vec<u64>), usize> = HashMap::default();
        index.insert(states[0].clone(), 0);
        let word_of = |mut at: usize, parent: &[(usize, Heap)]| {
            let mut word = Vec::new();
            while at != 0 {
                word.push(parent[at].1);
                at = parent[at].0;
            }
            word.sort_unstable();
            word
        };
        if !consistent(0, &states[0].1) {
            return Ok(Some(Vec::new()));
        }
        let mut next = 0;
        while next < states.len() {
            if next % 1024 == 0 && (control.stop)() {
                return Err(QuotientError::Interrupted);
            }
            let (e, set) = states[next].clone();
            for (heap, g, targets) in &moves {
                let f = monoid.product(e, *g);
                let mut to = vec![0u64; blocks];
                for t in 0..monoid.size() as u32 {
                    if contains(&set, t) {
                        let x = monoid.product(t, *g);
                        to[x as usize / 64] |= 1 << (x % 64);
                    }
                }
                for &t in targets {
                    let x = monoid.product(e, t);
                    to[x as usize / 64] |= 1 << (x % 64);
                }
                let state = (f, to);
                if index.contains_key(&state) {
                    continue;
                }
                if states.len() >= control.max_search {
                    return Err(QuotientError::SearchTooLarge {
                        heap: n,
                        limit: control.max_search,
                    });
                }
                let fails = !consistent(state.0, &state.1);
                index.insert(state.clone(), states.len());
                states.push(state);
                parent.push((next, *heap));
                if fails {
                    return Ok(Some(word_of(states.len() - 1, &parent)));
                }
            }
            next += 1;
        }
        Ok(None)
    }

    /// A sum the candidate answers wrongly, from one whose state fails:
    /// either the sum itself, or, answered rightly, one of its options
    /// (the state's rule holds of the true outcomes), and so on down.
    fn wrong_word(
        &mut self,
        candidate: &Pretension,
        word: Word,
        n: Heap,
        control: &mut Control,
    ) -> Result<Word> {
        {
            let key: Word = word
                .iter()
                .copied()
                .filter(|&heap| !self.options[heap as usize].is_empty())
                .collect();
            if self.outcome(&key, n, control)? != candidate.p[candidate.element(&key) as usize] {
                return Ok(key);
            }
            let mut next = None;
            for child in self.children(&key) {
                if self.outcome(&child, n, control)?
                    != candidate.p[candidate.element(&child) as usize]
                {
                    next = Some(child);
                    break;
                }
            }
            // Every option answered rightly and the sum too: the state
            // cannot have failed.
            next.ok_or(QuotientError::Unresolved { heap: n })
        }
    }
}

/// A shortest sum of heaps below n for each element of a quotient, the
/// smaller heaps first.
fn representatives(base: &Pretension, n: Heap) -> Vec<Word> {
    let heaps: Vec<Heap> = (0..n).collect();
    let generators: Vec<u32> = heaps.iter().map(|&h| base.phi[h as usize]).collect();
    let reached = base.monoid.generated(&generators);
    let mut words = vec![Vec::new(); base.monoid.size()];
    for (x, from) in &reached {
        if let Some((y, g)) = from {
            let mut word = words[*y as usize].clone();
            word.push(heaps[*g]);
            words[*x as usize] = word;
        }
    }
    words
}
