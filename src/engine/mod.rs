//! The Sprague–Grundy engine. It knows nothing of the language: it sees
//! positions of single games (components) and a [`Rules`] that lists their
//! options. Each component is interned once and its value memoised for the
//! engine's lifetime; a sum is valued by the XOR of its components, never
//! by exploring their product. Evaluation is iterative, so a game of any
//! depth is solved without growing the native stack.

mod options;
mod search;

use std::hash::Hash;

use indexmap::IndexSet;

pub use options::{Options, TooManyOptions};
pub use search::SumSearch;

/// A Grundy value (nimber).
pub type Grundy = u64;

/// The default bound on distinct positions an engine will intern.
pub const DEFAULT_MAX_STATES: usize = 10_000_000;

/// The move rules of a family of games, as the engine sees them.
pub trait Rules {
    /// A position of one game; a sum is a slice of these.
    type Position: Clone + Eq + Hash;
    /// What can go wrong while listing options.
    type Error;

    /// Lists the options of `position` into `options`, in rule order; each
    /// option is a sum of components.
    fn options(
        &self,
        position: &Self::Position,
        options: &mut Options<Self::Position>,
    ) -> std::result::Result<(), Self::Error>;

    /// The size of the Nim heap this position is, if it is one. The engine
    /// knows Nim itself: `*n` has value n, its longest play is n moves, and
    /// its options are `*0 … *(n-1)`, so no heap is ever searched.
    fn as_heap(&self, _position: &Self::Position) -> Option<u64> {
        None
    }

    /// The Nim heap of size `n` as a position of these rules.
    fn heap(&self, n: u64) -> Self::Position;

    /// A value known without search, such as one read off a proven period.
    fn known_grundy(&self, _position: &Self::Position) -> Option<Grundy> {
        None
    }
}

/// Why a value could not be found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineError<P, E> {
    /// The rules failed while listing the options of a position.
    Rules(E),
    /// The move graph has a cycle: each position moves to the next, and the
    /// last is the first again.
    Loopy { cycle: Vec<P> },
    /// More distinct positions than the engine's limit.
    TooManyStates { limit: usize, expanding: P },
    /// The watcher asked the search to stop.
    Interrupted,
    /// A search over a whole sum would need more positions than allowed.
    SearchTooLarge { limit: usize, needed: u128 },
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

/// A move of a sum with the value of the sum it leaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValuedMove<P> {
    pub r#move: Move<P>,
    /// The value of the resulting sum; 0 means the move wins.
    pub grundy: Grundy,
    /// The longest play possible from the resulting sum.
    pub longest: u64,
}

/// Called as the search goes, with the number of positions solved so far;
/// returning `false` stops the search with [`EngineError::Interrupted`].
pub type Watcher = Box<dyn FnMut(usize) -> bool + Send>;

/// How many steps of the search (a position entered or completed) pass
/// between calls of the watcher.
const WATCH_EVERY: usize = 4096;

/// Memo states besides a solved value.
const UNSOLVED: Grundy = Grundy::MAX;
const ON_STACK: Grundy = Grundy::MAX - 1;

/// One part of an option: a Nim heap, or an interned id.
#[derive(Debug, Clone, Copy)]
enum Part {
    Heap(u64),
    Id(usize),
}

/// A position being expanded: its options' parts and how far they are solved.
struct Frame {
    id: usize,
    parts: Vec<Part>,
    /// Where each option's parts end in `parts`.
    ends: Vec<usize>,
    next: usize,
}

/// Interned positions with their memoised values and longest plays.
pub struct Engine<P> {
    positions: IndexSet<P>,
    values: Vec<Grundy>,
    /// The most moves a play from each position can last.
    longest: Vec<u64>,
    max_states: usize,
    scratch: Options<P>,
    watcher: Option<Watcher>,
    steps_since_watch: usize,
}

type Result<T, P, E> = std::result::Result<T, EngineError<P, E>>;

impl<P: Clone + Eq + Hash> Engine<P> {
    pub fn new(max_states: usize) -> Self {
        Engine {
            positions: IndexSet::new(),
            values: Vec::new(),
            longest: Vec::new(),
            max_states,
            scratch: Options::new(max_states),
            watcher: None,
            steps_since_watch: 0,
        }
    }

    /// Sets (or clears) the function told of progress, which may stop a search.
    pub fn set_watcher(&mut self, watcher: Option<Watcher>) {
        self.watcher = watcher;
    }

    /// How many distinct positions have been interned.
    pub fn states(&self) -> usize {
        self.positions.len()
    }

    /// Forgets every memoised position for which `depends` holds (their
    /// rules changed); returns how many were forgotten.
    pub fn forget(&mut self, depends: impl Fn(&P) -> bool) -> usize {
        let before = self.positions.len();
        let mut kept = IndexSet::with_capacity(before);
        let (mut values, mut longest) = (Vec::new(), Vec::new());
        for (id, position) in std::mem::take(&mut self.positions).into_iter().enumerate() {
            if !depends(&position) {
                kept.insert(position);
                values.push(self.values[id]);
                longest.push(self.longest[id]);
            }
        }
        self.positions = kept;
        self.values = values;
        self.longest = longest;
        before - self.positions.len()
    }

    /// The Grundy value of a single component.
    pub fn grundy<R>(&mut self, rules: &R, position: &P) -> Result<Grundy, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        if let Some(value) = rules
            .as_heap(position)
            .or_else(|| rules.known_grundy(position))
        {
            return Ok(value);
        }
        self.solved(rules, position).map(|id| self.values[id])
    }

    /// The most moves a play of a single component can last.
    pub fn longest<R>(&mut self, rules: &R, position: &P) -> Result<u64, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        match rules.as_heap(position) {
            Some(n) => Ok(n),
            None => self.solved(rules, position).map(|id| self.longest[id]),
        }
    }

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
            return Ok((0..n).map(|k| vec![rules.heap(k)]).collect());
        }
        self.scratch.clear();
        rules
            .options(position, &mut self.scratch)
            .map_err(EngineError::Rules)?;
        Ok(self.scratch.iter().map(<[P]>::to_vec).collect())
    }

    /// Every move of a sum, component by component in rule order, with the
    /// value and the longest play of the sum each leaves.
    pub fn moves<R>(&mut self, rules: &R, sum: &[P]) -> Result<Vec<ValuedMove<P>>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let x = self.nim_sum(rules, sum)?;
        let mut total_longest = 0u64;
        for component in sum {
            total_longest = total_longest.saturating_add(self.longest(rules, component)?);
        }
        let mut moves = Vec::new();
        for (component, position) in sum.iter().enumerate() {
            let (g, own_longest) = (
                self.grundy(rules, position)?,
                self.longest(rules, position)?,
            );
            for to in self.options(rules, position)? {
                let mut to_longest = 0u64;
                for part in &to {
                    to_longest = to_longest.saturating_add(self.longest(rules, part)?);
                }
                moves.push(ValuedMove {
                    grundy: x ^ g ^ self.nim_sum(rules, &to)?,
                    longest: total_longest - own_longest + to_longest,
                    r#move: Move { component, to },
                });
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
                if self.nim_sum(rules, &to)? == target {
                    return Ok(Some(Move { component, to }));
                }
            }
        }
        // By the mex rule a component with g ⊕ x < g has an option of value
        // g ⊕ x, and one exists since x ≠ 0; so this is never reached.
        Ok(None)
    }

    /// The id of a solved component (not a heap), solving it if need be.
    fn solved<R>(&mut self, rules: &R, position: &P) -> Result<usize, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let mark = self.positions.len();
        let solved = self
            .intern(position, position)
            .and_then(|id| match self.values[id] {
                UNSOLVED => self.solve(rules, id).map(|()| id),
                _ => Ok(id),
            });
        if solved.is_err() {
            // Forget what this search interned, so that a failed query
            // leaves the engine as it found it (and its room for states).
            self.positions.truncate(mark);
            self.values.truncate(mark);
            self.longest.truncate(mark);
        }
        solved
    }

    fn intern<E>(&mut self, position: &P, expanding: &P) -> Result<usize, P, E> {
        if let Some(id) = self.positions.get_index_of(position) {
            return Ok(id);
        }
        if self.positions.len() >= self.max_states {
            return Err(EngineError::TooManyStates {
                limit: self.max_states,
                expanding: expanding.clone(),
            });
        }
        self.positions.insert(position.clone());
        self.values.push(UNSOLVED);
        self.longest.push(0);
        Ok(self.positions.len() - 1)
    }

    /// Solves `root` and every position it reaches, depth first, with an
    /// explicit stack of frames. A frame's options are listed once, on entry.
    fn solve<R>(&mut self, rules: &R, root: usize) -> Result<(), P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let mut stack = Vec::new();
        let outcome = self.search(rules, root, &mut stack);
        if outcome.is_err() {
            for frame in &stack {
                self.values[frame.id] = UNSOLVED;
            }
        }
        outcome
    }

    fn search<R>(
        &mut self,
        rules: &R,
        root: usize,
        stack: &mut Vec<Frame>,
    ) -> Result<(), P, R::Error>
    where
        R: Rules<Position = P>,
    {
        stack.push(self.enter(rules, root)?);
        while let Some(frame) = stack.last_mut() {
            self.watch()?;
            match self.first_unsolved(frame) {
                Some(id) if self.values[id] == ON_STACK => {
                    let start = stack.iter().position(|frame| frame.id == id).unwrap_or(0);
                    let mut cycle: Vec<P> = stack[start..]
                        .iter()
                        .map(|frame| self.positions[frame.id].clone())
                        .collect();
                    cycle.push(self.positions[id].clone());
                    return Err(EngineError::Loopy { cycle });
                }
                Some(id) => {
                    let frame = self.enter(rules, id)?;
                    stack.push(frame);
                }
                None => {
                    let frame = stack.pop().expect("the loop holds a frame");
                    self.complete(&frame);
                }
            }
        }
        Ok(())
    }

    /// Tells the watcher of progress now and then; it may stop the search.
    pub(crate) fn watch<E>(&mut self) -> Result<(), P, E> {
        self.steps_since_watch += 1;
        if self.steps_since_watch < WATCH_EVERY {
            return Ok(());
        }
        self.steps_since_watch = 0;
        let states = self.positions.len();
        match self.watcher.as_mut().is_none_or(|watcher| watcher(states)) {
            true => Ok(()),
            false => Err(EngineError::Interrupted),
        }
    }

    /// Lists the options of `id` and marks it as being on the stack.
    fn enter<R>(&mut self, rules: &R, id: usize) -> Result<Frame, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let position = self.positions[id].clone();
        let mut options = std::mem::replace(&mut self.scratch, Options::new(0));
        options.clear();
        let listed = rules
            .options(&position, &mut options)
            .map_err(EngineError::Rules)
            .and_then(|()| {
                let mut parts = Vec::with_capacity(options.parts().len());
                let mut ends = Vec::with_capacity(options.len());
                for option in options.iter() {
                    for part in option {
                        parts.push(match rules.as_heap(part) {
                            Some(n) => Part::Heap(n),
                            None => Part::Id(self.intern(part, &position)?),
                        });
                    }
                    ends.push(parts.len());
                }
                Ok((parts, ends))
            });
        self.scratch = options;
        let (parts, ends) = listed?;
        self.values[id] = ON_STACK;
        Ok(Frame {
            id,
            parts,
            ends,
            next: 0,
        })
    }

    /// Advances the frame past solved parts; the first unsolved id, if any.
    fn first_unsolved(&self, frame: &mut Frame) -> Option<usize> {
        while let Some(part) = frame.parts.get(frame.next) {
            if let Part::Id(id) = *part
                && self.values[id] >= ON_STACK
            {
                return Some(id);
            }
            frame.next += 1;
        }
        None
    }

    /// Records the frame's value, the least value not among its options'
    /// nim-sums, and its longest play, one more than its longest option's.
    fn complete(&mut self, frame: &Frame) {
        let mut seen = vec![false; frame.ends.len() + 1];
        let mut longest = 0u64;
        let mut start = 0;
        for &end in &frame.ends {
            let (mut value, mut length) = (0, 0u64);
            for part in &frame.parts[start..end] {
                let (part_value, part_length) = match *part {
                    Part::Heap(n) => (n, n),
                    Part::Id(id) => (self.values[id], self.longest[id]),
                };
                value ^= part_value;
                length = length.saturating_add(part_length);
            }
            if let Some(slot) = usize::try_from(value)
                .ok()
                .and_then(|value| seen.get_mut(value))
            {
                *slot = true;
            }
            longest = longest.max(length.saturating_add(1));
            start = end;
        }
        self.values[frame.id] = seen
            .iter()
            .position(|&present| !present)
            .unwrap_or(seen.len()) as Grundy;
        self.longest[frame.id] = longest;
    }
}

#[cfg(test)]
mod tests;
