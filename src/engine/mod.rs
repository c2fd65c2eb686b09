//! The Sprague–Grundy engine. It knows nothing of the language: it sees
//! positions of single games (components) and a [`Rules`] that lists their
//! options. Each component is interned once and its value memoised for the
//! engine's lifetime; a sum is valued by the XOR of its components, never
//! by exploring their product. Evaluation is iterative, so a game of any
//! depth is solved without growing the native stack.

mod options;

use std::hash::Hash;

use indexmap::IndexSet;

pub use options::Options;

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

    /// The value of a position known without search (a Nim heap, say).
    fn known_grundy(&self, _position: &Self::Position) -> Option<Grundy> {
        None
    }

    /// The first option (in rule order) of value `value` of a position whose
    /// value is known without search.
    fn known_option(
        &self,
        _position: &Self::Position,
        _value: Grundy,
    ) -> Option<Vec<Self::Position>> {
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
}

/// A winning move in a sum: the component moved in, and what it becomes.
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

/// Memo states besides a solved value.
const UNSOLVED: Grundy = Grundy::MAX;
const ON_STACK: Grundy = Grundy::MAX - 1;

/// One part of an option: a value known without search, or an interned id.
#[derive(Debug, Clone, Copy)]
enum Part {
    Known(Grundy),
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

/// Interned positions and their memoised values.
pub struct Engine<P> {
    positions: IndexSet<P>,
    values: Vec<Grundy>,
    max_states: usize,
    scratch: Options<P>,
}

type Result<T, P, E> = std::result::Result<T, EngineError<P, E>>;

impl<P: Clone + Eq + Hash> Engine<P> {
    pub fn new(max_states: usize) -> Self {
        Engine {
            positions: IndexSet::new(),
            values: Vec::new(),
            max_states,
            scratch: Options::new(max_states),
        }
    }

    /// How many distinct positions have been interned.
    pub fn states(&self) -> usize {
        self.positions.len()
    }

    /// How many positions have a memoised value.
    pub fn solved(&self) -> usize {
        self.values
            .iter()
            .filter(|&&value| value < ON_STACK)
            .count()
    }

    /// The Grundy value of a single component.
    pub fn grundy<R>(&mut self, rules: &R, position: &P) -> Result<Grundy, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        if let Some(value) = rules.known_grundy(position) {
            return Ok(value);
        }
        let mark = self.positions.len();
        let solved = self
            .intern(position, position)
            .and_then(|id| match self.values[id] {
                UNSOLVED => self.solve(rules, id).map(|()| id),
                _ => Ok(id),
            });
        match solved {
            Ok(id) => Ok(self.values[id]),
            Err(error) => {
                // Forget what this search interned, so that a failed query
                // leaves the engine as it found it (and its room for states).
                self.positions.truncate(mark);
                self.values.truncate(mark);
                Err(error)
            }
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
        self.scratch.clear();
        rules
            .options(position, &mut self.scratch)
            .map_err(EngineError::Rules)?;
        Ok(self.scratch.iter().map(<[P]>::to_vec).collect())
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
            if let Some(to) = rules.known_option(position, target) {
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
        Ok(self.positions.len() - 1)
    }

    /// Solves `root` and every position it reaches, depth first, with an
    /// explicit stack of frames. A frame's options are listed once, on entry.
    fn solve<R>(&mut self, rules: &R, root: usize) -> Result<(), P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let mut stack = vec![self.enter(rules, root)?];
        while let Some(frame) = stack.last_mut() {
            match self.first_unsolved(frame) {
                Some(id) if self.values[id] == ON_STACK => {
                    let start = stack.iter().position(|frame| frame.id == id).unwrap_or(0);
                    let mut cycle: Vec<P> = stack[start..]
                        .iter()
                        .map(|frame| self.positions[frame.id].clone())
                        .collect();
                    cycle.push(self.positions[id].clone());
                    for frame in &stack {
                        self.values[frame.id] = UNSOLVED;
                    }
                    return Err(EngineError::Loopy { cycle });
                }
                Some(id) => match self.enter(rules, id) {
                    Ok(frame) => stack.push(frame),
                    Err(error) => {
                        for frame in &stack {
                            self.values[frame.id] = UNSOLVED;
                        }
                        return Err(error);
                    }
                },
                None => {
                    let frame = stack.pop().expect("the loop holds a frame");
                    self.values[frame.id] = self.mex_of(&frame);
                }
            }
        }
        Ok(())
    }

    /// Lists the options of `id` and marks it as being on the stack.
    fn enter<R>(&mut self, rules: &R, id: usize) -> Result<Frame, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let position = self.positions[id].clone();
        self.scratch.clear();
        rules
            .options(&position, &mut self.scratch)
            .map_err(EngineError::Rules)?;
        let mut parts = Vec::with_capacity(self.scratch.parts().len());
        let mut ends = Vec::with_capacity(self.scratch.len());
        let options = std::mem::replace(&mut self.scratch, Options::new(0));
        let interned = options.iter().try_for_each(|option| {
            for part in option {
                parts.push(match rules.known_grundy(part) {
                    Some(value) => Part::Known(value),
                    None => Part::Id(self.intern(part, &position)?),
                });
            }
            ends.push(parts.len());
            Ok(())
        });
        self.scratch = options;
        interned?;
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

    /// The least value not among the options' nim-sums.
    fn mex_of(&self, frame: &Frame) -> Grundy {
        let mut seen = vec![false; frame.ends.len() + 1];
        let mut start = 0;
        for &end in &frame.ends {
            let value = frame.parts[start..end].iter().fold(0, |acc, part| {
                acc ^ match *part {
                    Part::Known(value) => value,
                    Part::Id(id) => self.values[id],
                }
            });
            if let Some(slot) = usize::try_from(value)
                .ok()
                .and_then(|value| seen.get_mut(value))
            {
                *slot = true;
            }
            start = end;
        }
        seen.iter()
            .position(|&present| !present)
            .unwrap_or(seen.len()) as Grundy
    }
}

#[cfg(test)]
mod tests;
