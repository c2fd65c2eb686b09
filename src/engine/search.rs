//! Search over whole sums, without the Sprague–Grundy theorem: minimax on
//! the product of the components, each state a sorted multiset of them.
//! It checks the theorem's answers and finds remoteness, which the XOR rule
//! does not give. A search numbers the components it meets and keeps each
//! sum as a list of numbers, each component's options listed once: a
//! million sums of fifty parts take some 300 MB, not gigabytes.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;
use std::rc::Rc;

use super::{Engine, EngineError, Move, Result, Rules};

/// What a search of a whole sum found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SumSearch<P> {
    /// Whether the player to move wins.
    pub wins: bool,
    /// Moves to the end when the winner hurries and the loser delays.
    pub remoteness: u64,
    /// The first move that achieves the remoteness.
    pub best: Option<Move<P>>,
    /// How many distinct sums were searched.
    pub positions: usize,
}

/// What a search of a whole sum for its outcome alone found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutcomeSearch {
    /// Whether the player to move wins.
    pub wins: bool,
    /// How many distinct sums were searched.
    pub positions: usize,
    /// Whether two heads on one coin met and were cancelled (see
    /// [`Rules::cancels_in_pairs`]): the sums searched were boards.
    pub boards: bool,
    /// The positions each component reaches, itself included, in the
    /// sum's order: the tables the XOR rule values, one a component,
    /// where the search walks their product.
    pub tables: Vec<usize>,
}

/// A component's number in a search.
type Id = u32;

/// A sum as a search keeps it: its components' numbers, sorted.
type Key = Box<[Id]>;

/// The bytes a sum of `len` components takes where a search keeps it: its
/// numbers, the box's pointer and length, and its share of a map's slot.
fn key_bytes(len: usize) -> usize {
    len * size_of::<Id>() + 48
}

/// A sum being expanded: its moves are made one at a time, those of one
/// component listed at once, and what each leaves is folded in as found.
struct Frame {
    key: Key,
    /// The component moved in, and its options with the next to make.
    component: usize,
    options: Option<Rc<[Key]>>,
    option: usize,
    fold: Fold,
}

impl Frame {
    fn new(key: Key) -> Self {
        Frame {
            key,
            component: 0,
            options: None,
            option: 0,
            fold: Fold::default(),
        }
    }
}

/// Every sum a search reached, with its outcome and remoteness, and the
/// components met, numbered.
struct Minimax<P> {
    memo: HashMap<Key, (bool, u64)>,
    ids: HashMap<P, Id>,
    root: Key,
    /// Whether a pair of components cancelled on the way.
    cancelled: bool,
    /// The positions each component of the root reaches.
    tables: Vec<usize>,
}

impl<P: Eq + Hash> Minimax<P> {
    /// What the search found for a sum it reached.
    fn get(&self, sum: &[P]) -> Option<(bool, u64)> {
        let ids: Option<Vec<Id>> = sum.iter().map(|part| self.ids.get(part).copied()).collect();
        let mut ids = ids?;
        ids.sort_unstable();
        self.memo.get(ids.as_slice()).copied()
    }
}

/// The components of a search by number: each with its options (each a
/// sorted list of numbers), listed when first moved in, and whether two of
/// it cancel.
struct Parts<P> {
    /// The bytes the search holds in its sums (kept, and on its path) and
    /// in the components' options: within the tables' bound.
    held: usize,
    ids: HashMap<P, Id>,
    parts: Vec<P>,
    options: Vec<Option<Rc<[Key]>>>,
    cancels: Vec<bool>,
    cancel: bool,
    cancelled: bool,
}

impl<P: Clone + Eq + Hash> Parts<P> {
    fn new(cancel: bool) -> Self {
        Parts {
            held: 0,
            ids: HashMap::new(),
            parts: Vec::new(),
            options: Vec::new(),
            cancels: Vec::new(),
            cancel,
            cancelled: false,
        }
    }

    fn id<R: Rules<Position = P>>(&mut self, rules: &R, part: &P) -> Id {
        if let Some(&id) = self.ids.get(part) {
            return id;
        }
        let id = self.parts.len() as Id;
        self.ids.insert(part.clone(), id);
        self.parts.push(part.clone());
        self.options.push(None);
        self.cancels
            .push(self.cancel && rules.cancels_in_pairs(part));
        id
    }

    /// A sum in the order that makes equal multisets equal, with each pair
    /// of equal components that cancel (coins, if asked) taken out.
    fn canonical(&mut self, mut sum: Vec<Id>) -> Key {
        sum.sort_unstable();
        let mut kept: Vec<Id> = Vec::with_capacity(sum.len());
        for part in sum {
            match kept.last() == Some(&part) && self.cancels[part as usize] {
                true => {
                    kept.pop();
                    self.cancelled = true;
                }
                false => kept.push(part),
            }
        }
        kept.into_boxed_slice()
    }
}

impl<P: Clone + Eq + Hash + Ord> Engine<P> {
    /// Solves `sum` by minimax over its product, refusing (before it starts)
    /// when the components' own state counts multiply past `limit`, and
    /// stopping when more than `limit` sums have been searched.
    pub fn search_sum<R>(
        &mut self,
        rules: &R,
        sum: &[P],
        limit: usize,
    ) -> Result<SumSearch<P>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let searched = self.minimax(rules, sum, limit, false)?;
        let (wins, remoteness) = searched.memo[&searched.root];
        let best = self.remoteness_move(rules, sum, wins, remoteness, &searched)?;
        Ok(SumSearch {
            wins,
            remoteness,
            best,
            positions: searched.memo.len(),
        })
    }

    /// Solves `sum` for its outcome alone, as [`Engine::search_sum`] does,
    /// but with two heads on one coin turned to tails (see
    /// [`Rules::cancels_in_pairs`]): a sum of coins is searched as its
    /// board, at most 2^n sums for n coins, where the multisets of heads
    /// that moves pile up are past counting. Outcomes do not change:
    /// whoever wins H wins G + G + H too, answering a move in one G with
    /// the same move in the other. Remoteness does, so it keeps every head.
    /// A sum is known to win at its first losing option: the rest of its
    /// options are not searched.
    pub fn search_outcome<R>(
        &mut self,
        rules: &R,
        sum: &[P],
        limit: usize,
    ) -> Result<OutcomeSearch, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let searched = self.minimax(rules, sum, limit, true)?;
        Ok(OutcomeSearch {
            wins: searched.memo[&searched.root].0,
            positions: searched.memo.len(),
            boards: searched.cancelled,
            tables: searched.tables,
        })
    }

    /// Every sum reached from `sum`, each solved by minimax, within
    /// `limit` sums. For the outcome alone (`outcome`), coins cancel in
    /// pairs and a sum stops at its first losing option, its remoteness
    /// then left unknown.
    fn minimax<R>(
        &mut self,
        rules: &R,
        sum: &[P],
        limit: usize,
        outcome: bool,
    ) -> Result<Minimax<P>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        self.begin_work();
        let (coins, others): (Vec<&P>, Vec<&P>) = sum
            .iter()
            .partition(|component| outcome && rules.cancels_in_pairs(component));
        if !coins.is_empty() {
            // The sums are the boards of the coins the heads reach, at most
            // 2^n for n coins: past log2(limit) coins, they are not counted
            // further (each head of a large board has thousands of options).
            let most = (usize::BITS - limit.leading_zeros()) as usize;
            let count = self.reachable_from(rules, &coins, most)?;
            if count > most {
                return Err(EngineError::BoardTooLarge { limit, coins: most });
            }
        }
        let tables = others
            .into_iter()
            .map(|component| self.count_reachable(rules, component, limit))
            .collect::<Result<Vec<usize>, P, R::Error>>()?;
        let needed = tables
            .iter()
            .fold(1u128, |needed, &table| needed.saturating_mul(table as u128));
        if needed > limit as u128 {
            return Err(EngineError::SearchTooLarge { limit, needed });
        }
        let mut parts = Parts::new(outcome);
        let mut memo: HashMap<Key, (bool, u64)> = HashMap::new();
        let root: Vec<Id> = sum.iter().map(|part| parts.id(rules, part)).collect();
        let root = parts.canonical(root);
        let mut stack = vec![Frame::new(root.clone())];
        let mut on_stack: HashSet<Key> = HashSet::from([root.clone()]);
        while let Some(frame) = stack.last_mut() {
            let decided = outcome && frame.fold.fastest_win.is_some();
            let child = match decided {
                true => None,
                false => self.next_child(rules, &mut parts, frame)?,
            };
            let Some(child) = child else {
                let frame = stack.pop().expect("the loop holds a frame");
                on_stack.remove(&frame.key);
                parts.held = parts.held.saturating_sub(key_bytes(frame.key.len()));
                let found = frame.fold.outcome();
                if let Some(parent) = stack.last_mut() {
                    parent.fold.add(found);
                }
                memo.insert(frame.key, found);
                continue;
            };
            if let Some(&found) = memo.get(&child) {
                frame.fold.add(found);
                continue;
            }
            if on_stack.contains(&child) {
                // A cycle of sums is a cycle of one of their components.
                let child: Vec<P> = child
                    .iter()
                    .map(|&id| parts.parts[id as usize].clone())
                    .collect();
                let cycle = child
                    .iter()
                    .map(|component| self.cycle_from(rules, component))
                    .find(|cycle| cycle.len() > 1)
                    .unwrap_or_else(|| child.first().cloned().into_iter().collect());
                return Err(EngineError::Loopy { cycle });
            }
            if memo.len() + stack.len() >= limit {
                return Err(EngineError::SearchTooLarge {
                    limit,
                    needed: limit as u128 + 1,
                });
            }
            self.sums += 1;
            self.watch()?;
            // On the path twice (its frame, the set of sums on it), then
            // kept once.
            parts.held = parts.held.saturating_add(2 * key_bytes(child.len()));
            if let Some(&first) = child.first() {
                self.within_table(parts.held, || parts.parts[first as usize].clone())?;
            }
            on_stack.insert(child.clone());
            stack.push(Frame::new(child));
        }
        Ok(Minimax {
            memo,
            ids: parts.ids,
            root,
            cancelled: parts.cancelled,
            tables,
        })
    }

    /// The sum `frame`'s next move leaves, if it has one more: a move of
    /// one of two equal components leaves what the same move of the other
    /// does, so only the first of them is moved in.
    fn next_child<R>(
        &mut self,
        rules: &R,
        parts: &mut Parts<P>,
        frame: &mut Frame,
    ) -> Result<Option<Key>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        loop {
            let Some(&moved) = frame.key.get(frame.component) else {
                return Ok(None);
            };
            let options = match &frame.options {
                Some(options) => options.clone(),
                None if frame.component > 0 && frame.key[frame.component - 1] == moved => {
                    frame.component += 1;
                    continue;
                }
                None => {
                    let options = self.component_options(rules, parts, moved)?;
                    frame.options = Some(options.clone());
                    frame.option = 0;
                    options
                }
            };
            let Some(to) = options.get(frame.option) else {
                frame.component += 1;
                frame.options = None;
                continue;
            };
            frame.option += 1;
            // Every child is work, those already valued too: most are,
            // and counting only the sums entered read the stop flag
            // seconds apart. A child of thousands of heads is as much
            // work as their number: the work limit bounds what one sum
            // costs, which the limit of sums does not.
            let key = &frame.key;
            if self.count_work((key.len() + to.len()) as u64) {
                return Err(self.too_much_work(parts.parts[moved as usize].clone()));
            }
            let mut child = Vec::with_capacity(key.len() + to.len());
            child.extend_from_slice(&key[..frame.component]);
            child.extend_from_slice(to);
            child.extend_from_slice(&key[frame.component + 1..]);
            return Ok(Some(parts.canonical(child)));
        }
    }

    /// The options of component `id`, numbered, listed once a search.
    fn component_options<R>(
        &mut self,
        rules: &R,
        parts: &mut Parts<P>,
        id: Id,
    ) -> Result<Rc<[Key]>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        if let Some(options) = &parts.options[id as usize] {
            return Ok(options.clone());
        }
        let position = parts.parts[id as usize].clone();
        let options: Rc<[Key]> = self
            .options(rules, &position)?
            .iter()
            .map(|option| option.iter().map(|part| parts.id(rules, part)).collect())
            .collect();
        let bytes: usize = options.iter().map(|option| key_bytes(option.len())).sum();
        parts.held = parts.held.saturating_add(bytes);
        self.within_table(parts.held, || parts.parts[id as usize].clone())?;
        parts.options[id as usize] = Some(options.clone());
        Ok(options)
    }

    /// The first move from `sum` that keeps to the remoteness found.
    fn remoteness_move<R>(
        &mut self,
        rules: &R,
        sum: &[P],
        wins: bool,
        remoteness: u64,
        searched: &Minimax<P>,
    ) -> Result<Option<Move<P>>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        for (component, position) in sum.iter().enumerate() {
            for to in self.options(rules, position)? {
                let r#move = Move { component, to };
                let Some((child_wins, child_remoteness)) = searched.get(&r#move.apply(sum)) else {
                    continue;
                };
                if child_wins != wins && child_remoteness + 1 == remoteness {
                    return Ok(Some(r#move));
                }
            }
        }
        Ok(None)
    }

    /// How many distinct components can arise from `position` (itself
    /// included), counting no further than `cap + 1`: the positions a
    /// table of its values holds. The heads of the options listed count
    /// toward the work limit.
    pub fn reachable<R>(
        &mut self,
        rules: &R,
        position: &P,
        cap: usize,
    ) -> Result<usize, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        self.begin_work();
        self.count_reachable(rules, position, cap)
    }

    /// [`Engine::reachable`] within the work of a search under way.
    fn count_reachable<R>(
        &mut self,
        rules: &R,
        position: &P,
        cap: usize,
    ) -> Result<usize, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        if let Some(n) = rules.as_heap(position) {
            return Ok(usize::try_from(n).unwrap_or(usize::MAX).saturating_add(1));
        }
        self.reachable_from(rules, &[position], cap)
    }

    /// The positions reachable from any of `starts`, counted as
    /// [`Engine::reachable`] counts them: past `cap`, the count stops.
    fn reachable_from<R>(
        &mut self,
        rules: &R,
        starts: &[&P],
        cap: usize,
    ) -> Result<usize, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let mut seen: HashSet<P> = starts.iter().map(|&start| start.clone()).collect();
        let mut queue: Vec<P> = seen.iter().cloned().collect();
        while let Some(next) = queue.pop() {
            for option in self.options(rules, &next)? {
                // A board of coins has thousands of options, each costly
                // to list: a stop from outside is heard as they are read,
                // and their heads are work.
                self.watch()?;
                if self.count_work(option.len() as u64) {
                    return Err(self.too_much_work(next));
                }
                for part in option {
                    if seen.len() > cap {
                        return Ok(seen.len());
                    }
                    if seen.insert(part.clone()) {
                        queue.push(part);
                    }
                }
            }
        }
        Ok(seen.len())
    }
}

/// What the options of a sum found so far come to: a position wins when
/// some option loses, and then lasts one more than its quickest losing
/// option; a losing position lasts one more than its slowest option (and
/// 0 with none).
#[derive(Default)]
struct Fold {
    fastest_win: Option<u64>,
    slowest_loss: Option<u64>,
}

impl Fold {
    fn add(&mut self, (child_wins, remoteness): (bool, u64)) {
        match child_wins {
            false => {
                self.fastest_win = Some(self.fastest_win.map_or(remoteness, |r| r.min(remoteness)))
            }
            true => {
                self.slowest_loss =
                    Some(self.slowest_loss.map_or(remoteness, |r| r.max(remoteness)))
            }
        }
    }

    fn outcome(&self) -> (bool, u64) {
        match (self.fastest_win, self.slowest_loss) {
            (Some(remoteness), _) => (true, remoteness + 1),
            (None, Some(remoteness)) => (false, remoteness + 1),
            (None, None) => (false, 0),
        }
    }
}
