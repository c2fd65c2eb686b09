//! Sums and their moves: the nim-sum of a sum's parts, every move with the
//! value it leaves, and the best move by the XOR rule.

use super::*;

impl<P: Clone + Eq + Hash + Ord> Engine<P> {
    /// The Grundy value of a sum: the XOR (nim-sum) of its components'.
    pub fn nim_sum<R>(&mut self, rules: &R, sum: &[P]) -> Result<Grundy, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        sum.iter()
            .try_fold(0, |acc, component| Ok(acc ^ self.grundy(rules, component)?))
    }

    /// Every option of one component, in rule order.
    pub fn options<R>(&mut self, rules: &R, position: &P) -> Result<Vec<Vec<P>>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        if let Some(n) = rules.as_heap(position) {
            self.check_options(n, position)?;
            return Ok((0..n).map(|k| vec![rules.heap(k)]).collect());
        }
        self.scratch.clear();
        rules
            .options(position, &mut self.scratch)
            .map_err(EngineError::Rules)?;
        Ok(self.scratch.iter().map(<[P]>::to_vec).collect())
    }

    /// [`Engine::options`] with at most `most` options kept: a position
    /// with more is the rules' error of too many options (or the engine's,
    /// for a heap), and what was listed is dropped, so that the options of
    /// a large position are never all held at once.
    pub fn options_within<R>(
        &mut self,
        rules: &R,
        position: &P,
        most: usize,
    ) -> Result<Vec<Vec<P>>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        self.scratch.cap(most);
        let listed = match rules.as_heap(position) {
            Some(n) if n > most as u64 => Err(EngineError::TooManyOptions {
                limit: most,
                count: n,
                position: position.clone(),
            }),
            _ => self.options(rules, position),
        };
        self.scratch.cap(usize::MAX);
        if listed.is_err() {
            self.scratch.clear();
        }
        listed
    }

    /// The options of one component of a sum whose moves are listed, with
    /// `listed` moves listed before it: a list past `--max-rows` moves is
    /// refused, a heap's before anything is allocated (`strategy *5000000`
    /// held ten million rows, 5.6 GB).
    fn options_listed<R>(
        &mut self,
        rules: &R,
        position: &P,
        listed: usize,
    ) -> Result<Vec<Vec<P>>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let limit = self.max_listed;
        let too_many = |count: u64| count > limit.saturating_sub(listed) as u64;
        let refused = EngineError::TooManyListed { limit };
        if let Some(n) = rules.as_heap(position) {
            // Past the limit of options, the heap is refused as such.
            self.check_options(n, position)?;
            if too_many(n) {
                return Err(refused);
            }
        }
        let options = self.options(rules, position)?;
        match too_many(options.len() as u64) {
            true => Err(refused),
            false => Ok(options),
        }
    }

    /// Refuses, before anything is allocated, a position with `count`
    /// options when that is past the options limit.
    pub(crate) fn check_options<E>(&self, count: u64, position: &P) -> Result<(), P, E> {
        match count > self.scratch.limit() as u64 {
            true => Err(EngineError::TooManyOptions {
                limit: self.scratch.limit(),
                count,
                position: position.clone(),
            }),
            false => Ok(()),
        }
    }

    /// Every move of a sum, component by component in rule order, with the
    /// value of the sum each leaves: the sum's nim-sum with the moved
    /// component's value taken out and its option's put in, so that each
    /// component is valued once, by the search where it pays.
    pub fn moves<R>(&mut self, rules: &R, sum: &[P]) -> Result<MovesWith<P, Grundy>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let x = self.nim_sum(rules, sum)?;
        let mut moves = Vec::new();
        for (component, position) in sum.iter().enumerate() {
            let g = self.grundy(rules, position)?;
            for to in self.options_listed(rules, position, moves.len())? {
                // A heap of millions lists millions: a stop is heard.
                self.watch()?;
                moves.push((Move { component, to }, x ^ g));
            }
        }
        // Each position moved to once (a board's moves leave the same part
        // up to symmetry): on several threads, each takes them from
        // elsewhere and reads what the others valued (see `Engine::share`).
        let mut left: indexmap::IndexMap<&[P], Grundy> = moves
            .iter()
            .map(|(r#move, _)| (&r#move.to[..], 0))
            .collect();
        for i in self.thread_order(left.len()) {
            self.watch()?;
            let (to, value) = left.get_index_mut(i).expect("an index below the length");
            *value = self.nim_sum(rules, to)?;
        }
        let values: Vec<Grundy> = moves
            .iter()
            .map(|(r#move, _)| left[&r#move.to[..]])
            .collect();
        for ((_, grundy), value) in moves.iter_mut().zip(values) {
            *grundy ^= value;
        }
        Ok(moves)
    }

    /// Every move of a sum, component by component in rule order, each
    /// with `value` of the sum it leaves.
    pub(super) fn valued_moves<R, V>(
        &mut self,
        rules: &R,
        sum: &[P],
        mut value: impl FnMut(&mut Self, &[P]) -> Result<V, P, R::Error>,
    ) -> Result<MovesWith<P, V>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let mut moves = Vec::new();
        for (component, position) in sum.iter().enumerate() {
            for to in self.options_listed(rules, position, moves.len())? {
                // An option of a board of coins holds thousands of heads,
                // each valued: a stop is heard between options.
                self.charge(to.len() as u64);
                self.watch()?;
                let r#move = Move { component, to };
                let valued = value(self, &r#move.apply(sum))?;
                moves.push((r#move, valued));
            }
        }
        Ok(moves)
    }

    /// The winning move of a sum: in the first component (left to right)
    /// whose value `g` exceeds `g ⊕ x` (x the nim-sum), the first option of
    /// value `g ⊕ x`. `None` when the sum has value 0.
    pub fn best_move<R>(&mut self, rules: &R, sum: &[P]) -> Result<Option<Move<P>>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let x = self.nim_sum(rules, sum)?;
        if x == 0 {
            return Ok(None);
        }
        for (component, position) in sum.iter().enumerate() {
            let g = self.grundy(rules, position)?;
            let target = g ^ x;
            if target >= g {
                continue;
            }
            if rules.as_heap(position).is_some() {
                let to = vec![rules.heap(target)];
                return Ok(Some(Move { component, to }));
            }
            for to in self.options(rules, position)? {
                // As in `valued_moves`: a stop is heard between options.
                self.charge(to.len() as u64);
                self.watch()?;
                if self.sum_is(rules, &to, target)? {
                    return Ok(Some(Move { component, to }));
                }
            }
        }
        // By the mex rule a component with g ⊕ x < g has an option of value
        // g ⊕ x, and one exists since x ≠ 0; so this is never reached.
        Ok(None)
    }
}

/// A move in a sum: the component moved in, and the sum it becomes there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Move<P> {
    pub component: usize,
    pub to: Vec<P>,
}

impl<P: Clone> Move<P> {
    /// The sum after the move: the component replaced by its option.
    pub fn apply(&self, sum: &[P]) -> Vec<P> {
        let mut result = sum[..self.component].to_vec();
        result.extend(self.to.iter().cloned());
        result.extend(sum[self.component + 1..].iter().cloned());
        result
    }
}

/// The moves of a sum, each with something of the sum it leaves.
pub(super) type MovesWith<P, V> = Vec<(Move<P>, V)>;
