//! Search over whole sums, without the Sprague–Grundy theorem: minimax on
//! the product of the components, each state a sorted multiset of them.
//! It checks the theorem's answers and finds remoteness, which the XOR rule
//! does not give.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;

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

/// A sum being expanded: the sums it moves to, and how many are solved.
struct Frame<P> {
    key: Vec<P>,
    children: Vec<Vec<P>>,
    next: usize,
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
        let mut needed: u128 = 1;
        for component in sum {
            let reachable = self.reachable(rules, component, limit)?;
            needed = needed.saturating_mul(reachable as u128);
        }
        if needed > limit as u128 {
            return Err(EngineError::SearchTooLarge { limit, needed });
        }
        let mut memo: HashMap<Vec<P>, (bool, u64)> = HashMap::new();
        let root = canonical(sum.to_vec());
        let mut stack = vec![self.frame(rules, root.clone())?];
        let mut on_stack: HashSet<Vec<P>> = HashSet::from([root.clone()]);
        while let Some(frame) = stack.last_mut() {
            if let Some(child) = frame.children.get(frame.next).cloned() {
                frame.next += 1;
                if memo.contains_key(&child) {
                    continue;
                }
                if on_stack.contains(&child) {
                    // A cycle of sums is a cycle of one of their components.
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
                self.watch()?;
                on_stack.insert(child.clone());
                let frame = self.frame(rules, child)?;
                stack.push(frame);
                continue;
            }
            let frame = stack.pop().expect("the loop holds a frame");
            on_stack.remove(&frame.key);
            let outcome = outcome(frame.children.iter().map(|child| memo[child]));
            memo.insert(frame.key, outcome);
        }
        let (wins, remoteness) = memo[&root];
        let best = self.remoteness_move(rules, sum, wins, remoteness, &memo)?;
        Ok(SumSearch {
            wins,
            remoteness,
            best,
            positions: memo.len(),
        })
    }

    /// The first move from `sum` that keeps to the remoteness found.
    fn remoteness_move<R>(
        &mut self,
        rules: &R,
        sum: &[P],
        wins: bool,
        remoteness: u64,
        memo: &HashMap<Vec<P>, (bool, u64)>,
    ) -> Result<Option<Move<P>>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        for (component, position) in sum.iter().enumerate() {
            for to in self.options(rules, position)? {
                let r#move = Move { component, to };
                let (child_wins, child_remoteness) = memo[&canonical(r#move.apply(sum))];
                if child_wins != wins && child_remoteness + 1 == remoteness {
                    return Ok(Some(r#move));
                }
            }
        }
        Ok(None)
    }

    fn frame<R>(&mut self, rules: &R, key: Vec<P>) -> Result<Frame<P>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let mut children = Vec::new();
        for (component, position) in key.iter().enumerate() {
            for to in self.options(rules, position)? {
                children.push(canonical(Move { component, to }.apply(&key)));
            }
        }
        Ok(Frame {
            key,
            children,
            next: 0,
        })
    }

    /// How many distinct components can arise from `position` (itself
    /// included), counting no further than `cap + 1`.
    fn reachable<R>(&mut self, rules: &R, position: &P, cap: usize) -> Result<usize, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        if let Some(n) = rules.as_heap(position) {
            return Ok(usize::try_from(n).unwrap_or(usize::MAX).saturating_add(1));
        }
        let mut seen = HashSet::from([position.clone()]);
        let mut queue = vec![position.clone()];
        while let Some(next) = queue.pop() {
            for option in self.options(rules, &next)? {
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

/// A sum in the order that makes equal multisets equal.
fn canonical<P: Ord>(mut sum: Vec<P>) -> Vec<P> {
    sum.sort();
    sum
}

/// A position wins when some option loses, and then lasts one more than its
/// quickest losing option; a losing position lasts one more than its
/// slowest option (and 0 with none).
fn outcome(children: impl Iterator<Item = (bool, u64)>) -> (bool, u64) {
    let (mut fastest_win, mut slowest_loss) = (None::<u64>, None::<u64>);
    for (child_wins, remoteness) in children {
        match child_wins {
            false => {
                fastest_win = Some(fastest_win.map_or(remoteness, |best| best.min(remoteness)))
            }
            true => {
                slowest_loss = Some(slowest_loss.map_or(remoteness, |best| best.max(remoteness)))
            }
        }
    }
    match (fastest_win, slowest_loss) {
        (Some(remoteness), _) => (true, remoteness + 1),
        (None, Some(remoteness)) => (false, remoteness + 1),
        (None, None) => (false, 0),
    }
}
