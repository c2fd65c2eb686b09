//! Values beyond integers: finite sets and lists of integers, and regions
//! of boards (the cells or nodes of a graph that are left). Every value has
//! one representation, so values compare and hash by what they hold: a set
//! of elements in `0..128` is a bitset, any other a sorted vector.

use std::fmt;
use std::sync::Arc;

use itertools::Itertools;

pub mod automorphisms;
pub mod board;
pub mod involutions;

pub use board::GraphBoard;

/// What an argument, a `let` or an expression holds.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    Int(i64),
    Set(Set),
    List(Arc<[i64]>),
    Region(Region),
}

impl Value {
    #[inline]
    pub fn int(&self) -> Option<i64> {
        match self {
            Value::Int(value) => Some(*value),
            _ => None,
        }
    }

    /// The kind of value, as said in an error.
    pub fn noun(&self) -> &'static str {
        match self {
            Value::Int(_) => "an integer",
            Value::Set(_) => "a set",
            Value::List(_) => "a list",
            Value::Region(_) => "a region of a board",
        }
    }

    pub fn list(values: Vec<i64>) -> Value {
        Value::List(values.into())
    }

    /// The bytes the value holds behind a pointer: a list's or a large
    /// set's elements with their counts. A region's board is shared by
    /// all its regions, and not counted.
    pub fn held_bytes(&self) -> usize {
        match self {
            Value::Int(_) => 0,
            Value::Set(set) => set.held_bytes(),
            Value::List(elements) => shared_bytes(elements),
            Value::Region(region) => region.nodes.held_bytes(),
        }
    }
}

/// The bytes of the elements an `Arc` shares, with the two counts it
/// keeps beside them.
fn shared_bytes(elements: &Arc<[i64]>) -> usize {
    2 * size_of::<usize>() + size_of_val::<[i64]>(elements)
}

/// A value as it is written in the language, so that it parses back.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(value) => write_int(f, *value),
            Value::Set(set) => write_elements(f, ("{", "}"), set.iter()),
            Value::List(values) => write_elements(f, ("[", "]"), values.iter().copied()),
            Value::Region(region) => write!(f, "{region}"),
        }
    }
}

impl From<i64> for Value {
    fn from(value: i64) -> Self {
        Value::Int(value)
    }
}

/// The universe a set is kept as bits over.
const SMALL: i64 = 128;

/// A finite set of integers.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Set {
    /// Elements in `0..128`, as bits (low word, high word).
    Small([u64; 2]),
    /// Any other: the elements in increasing order, one of them outside
    /// `0..128`.
    Large(Arc<[i64]>),
}

impl Set {
    /// The bytes the set holds behind a pointer: none for a small one.
    pub fn held_bytes(&self) -> usize {
        match self {
            Set::Small(_) => 0,
            Set::Large(elements) => shared_bytes(elements),
        }
    }
}

impl Default for Set {
    fn default() -> Self {
        Set::Small([0, 0])
    }
}

impl Set {
    pub fn from_bits(bits: u128) -> Set {
        Set::Small([bits as u64, (bits >> 64) as u64])
    }

    /// The set of some integers, in any order, repeats allowed.
    pub fn from_values(values: impl IntoIterator<Item = i64>) -> Set {
        let mut bits = 0u128;
        let mut large = Vec::new();
        for value in values {
            match (0..SMALL).contains(&value) {
                true if large.is_empty() => bits |= 1 << value,
                _ => large.push(value),
            }
        }
        if large.is_empty() {
            return Set::from_bits(bits);
        }
        large.extend(Set::from_bits(bits).iter());
        large.sort_unstable();
        large.dedup();
        Set::Large(large.into())
    }

    /// The set of integers given in increasing order, no repeats: kept as
    /// given, with no sort.
    pub fn from_increasing(values: impl IntoIterator<Item = i64>) -> Set {
        let values: Vec<i64> = values.into_iter().collect();
        debug_assert!(values.is_sorted_by(|a, b| a < b), "{values:?}");
        match (values.first(), values.last()) {
            (Some(&first), Some(&last)) if first < 0 || last >= SMALL => Set::Large(values.into()),
            _ => Set::from_bits(values.iter().fold(0, |bits, &value| bits | 1 << value)),
        }
    }

    /// The bits of a set inside `0..128`.
    #[inline]
    pub fn bits(&self) -> Option<u128> {
        match self {
            Set::Small([low, high]) => Some(u128::from(*low) | (u128::from(*high) << 64)),
            Set::Large(_) => None,
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Set::Small(_) => self.bits().map_or(0, |bits| bits.count_ones() as usize),
            Set::Large(values) => values.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn contains(&self, value: i64) -> bool {
        match self.bits() {
            Some(bits) => (0..SMALL).contains(&value) && bits >> value & 1 == 1,
            None => matches!(self, Set::Large(values) if values.binary_search(&value).is_ok()),
        }
    }

    /// The elements in increasing order.
    pub fn iter(&self) -> SetIter<'_> {
        match self {
            Set::Small(_) => SetIter::Bits(self.bits().unwrap_or(0)),
            Set::Large(values) => SetIter::Slice(values.iter()),
        }
    }

    pub fn min(&self) -> Option<i64> {
        self.iter().next()
    }

    pub fn max(&self) -> Option<i64> {
        match self.bits() {
            Some(0) => None,
            Some(bits) => Some(127 - i64::from(bits.leading_zeros())),
            None => self.iter().last(),
        }
    }

    /// Union, difference, intersection or symmetric difference: bit
    /// operations for small sets, a merge for the rest.
    pub fn combine(&self, other: &Set, op: SetOp) -> Set {
        if let (Some(a), Some(b)) = (self.bits(), other.bits()) {
            return Set::from_bits(match op {
                SetOp::Union => a | b,
                SetOp::Difference => a & !b,
                SetOp::Intersection => a & b,
                SetOp::SymmetricDifference => a ^ b,
            });
        }
        let keep = |in_a: bool, in_b: bool| match op {
            SetOp::Union => in_a || in_b,
            SetOp::Difference => in_a && !in_b,
            SetOp::Intersection => in_a && in_b,
            SetOp::SymmetricDifference => in_a != in_b,
        };
        // Both in increasing order: one pass over the two, in step.
        let merged = self.iter().merge_join_by(other.iter(), i64::cmp);
        Set::from_increasing(merged.filter_map(|both| {
            keep(both.has_left(), both.has_right()).then(|| both.reduce(|value, _| value))
        }))
    }
}

/// The elements of a set, in increasing order.
pub enum SetIter<'a> {
    Bits(u128),
    Slice(std::slice::Iter<'a, i64>),
}

impl Iterator for SetIter<'_> {
    type Item = i64;

    #[inline]
    fn next(&mut self) -> Option<i64> {
        match self {
            SetIter::Bits(0) => None,
            SetIter::Bits(bits) => {
                let value = bits.trailing_zeros();
                *bits &= *bits - 1;
                Some(i64::from(value))
            }
            SetIter::Slice(values) => values.next().copied(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetOp {
    Union,
    Difference,
    Intersection,
    SymmetricDifference,
}

/// A board: a graph whose nodes are numbered from 0.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Board {
    /// `Grid(r, c)`: r rows of c cells, numbered row by row, each cell
    /// next to the cells above, below, left and right of it.
    Grid { rows: u32, cols: u32 },
    /// `Path(n)`: nodes 0 to n - 1 in a line.
    Path(u32),
    /// `Cycle(n)`: a path whose ends are joined.
    Cycle(u32),
    /// A graph declared by its edges, its nodes numbered in the order
    /// they first appear.
    Graph(Arc<GraphBoard>),
    /// `Edges(G)`: the edges of a declared graph, numbered in the order
    /// written, two next to each other when they share an end.
    Edges(Arc<GraphBoard>),
}

/// Some nodes of a board: a position of a game played on it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Region {
    pub board: Board,
    pub nodes: Set,
}

/// Writes integers as a set literal, `{1, 4, 7}`.
pub fn write_elements(
    f: &mut fmt::Formatter<'_>,
    (open, close): (&str, &str),
    values: impl Iterator<Item = i64>,
) -> fmt::Result {
    f.write_str(open)?;
    for (i, value) in values.enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write_int(f, value)?;
    }
    f.write_str(close)
}

/// An integer as a literal that parses back to it; the least i64 has no
/// literal of its own.
pub fn write_int(f: &mut fmt::Formatter<'_>, value: i64) -> fmt::Result {
    match value {
        i64::MIN => write!(f, "(-{} - 1)", i64::MAX),
        _ => write!(f, "{value}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Set operations agree with std's sets, small and large alike.
        #[test]
        fn sets_agree_with_btreeset(
            a in proptest::collection::vec(-5i64..140, 0..20),
            b in proptest::collection::vec(-5i64..140, 0..20),
        ) {
            use std::collections::BTreeSet;
            let (sa, sb) = (Set::from_values(a.clone()), Set::from_values(b.clone()));
            let (ta, tb): (BTreeSet<i64>, BTreeSet<i64>) =
                (a.into_iter().collect(), b.into_iter().collect());
            let cases = [
                (SetOp::Union, ta.union(&tb).copied().collect::<Vec<_>>()),
                (SetOp::Difference, ta.difference(&tb).copied().collect()),
                (SetOp::Intersection, ta.intersection(&tb).copied().collect()),
                (SetOp::SymmetricDifference, ta.symmetric_difference(&tb).copied().collect()),
            ];
            for (op, expected) in cases {
                let found = sa.combine(&sb, op);
                proptest::prop_assert_eq!(found.iter().collect::<Vec<_>>(), expected.clone());
                // One representation per set: equal sets are equal values.
                proptest::prop_assert_eq!(&found, &Set::from_values(expected));
            }
            proptest::prop_assert_eq!(sa.len(), ta.len());
            proptest::prop_assert_eq!(Set::min(&sa), ta.first().copied());
            proptest::prop_assert_eq!(Set::max(&sa), ta.last().copied());
        }
    }
}
