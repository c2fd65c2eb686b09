//! Games whose move graph has cycles, valued by Smith's generalised
//! Sprague–Grundy function γ (C. A. B. Smith, "Graphs and composite games",
//! 1966), computed by the labelling of Fraenkel and Yesha ("Theory of
//! annihilation games", 1986). A position has a finite value m when it has
//! no option of value m, has options of every value below m, and every
//! option of a larger or infinite value has an option of value m; the rest
//! have value ∞(K), K the finite values of their options. The player to move
//! wins a finite position iff its value is not 0, wins ∞(K) iff 0 ∈ K, and
//! otherwise play goes on forever: a draw.
//!
//! Sums follow Smith's rule: finite values XOR; ∞(K) plus finite parts of
//! XOR a is ∞(K ⊕ a); two infinite parts make ∞() — a draw.

use rustc_hash::FxHashMap as HashMap;
use std::fmt;
use std::hash::Hash;

use super::{Engine, EngineError, Grundy, Move, Result, Rules};

/// A value of the generalised Sprague–Grundy function.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Gamma {
    Finite(Grundy),
    /// ∞(K): the finite values among the options, in increasing order.
    Infinite(Vec<Grundy>),
}

/// Who wins with best play, from the point of view of the player to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Win,
    Loss,
    Draw,
}

impl Gamma {
    pub fn outcome(&self) -> Outcome {
        match self {
            Gamma::Finite(0) => Outcome::Loss,
            Gamma::Finite(_) => Outcome::Win,
            Gamma::Infinite(reaches) if reaches.contains(&0) => Outcome::Win,
            Gamma::Infinite(_) => Outcome::Draw,
        }
    }

    /// Smith's rule for a sum of two games.
    pub fn add(&self, other: &Gamma) -> Gamma {
        match (self, other) {
            (Gamma::Finite(a), Gamma::Finite(b)) => Gamma::Finite(a ^ b),
            (Gamma::Infinite(reaches), Gamma::Finite(a))
            | (Gamma::Finite(a), Gamma::Infinite(reaches)) => {
                let mut shifted: Vec<Grundy> = reaches.iter().map(|k| k ^ a).collect();
                shifted.sort_unstable();
                Gamma::Infinite(shifted)
            }
            (Gamma::Infinite(_), Gamma::Infinite(_)) => Gamma::Infinite(Vec::new()),
        }
    }
}

/// `3`, `∞`, `∞(0,2)`.
impl fmt::Display for Gamma {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Gamma::Finite(value) => write!(f, "{value}"),
            Gamma::Infinite(reaches) if reaches.is_empty() => f.write_str("∞"),
            Gamma::Infinite(reaches) => {
                let values: Vec<String> = reaches.iter().map(u64::to_string).collect();
                write!(f, "∞({})", values.join(","))
            }
        }
    }
}

/// A move of a sum, with the generalised value of the sum it leaves.
pub type GammaMove<P> = (Move<P>, Gamma);

/// A node of the graph the labelling runs on: the loopy components of a
/// sum, sorted, and the XOR of the finite rest as one Nim heap. By Smith's
/// rule the finite rest may stand for any game of its value.
type Node<P> = (Vec<P>, Grundy);

/// How a component of an option is taken into a node.
enum Part {
    Finite(Grundy),
    Loopy,
}

impl<P: Clone + Eq + Hash + Ord> Engine<P> {
    /// The generalised value of one component: its Grundy value when no
    /// cycle can be reached from it, else from the loopy solver.
    pub fn gamma<R>(&mut self, rules: &R, position: &P) -> Result<Gamma, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        if let Some(known) = self.loopy.get(position) {
            return Ok(known.clone());
        }
        match self.grundy_or_loopy(rules, position) {
            Ok(value) => Ok(Gamma::Finite(value)),
            Err(EngineError::Loopy { .. }) => self.label(rules, position),
            Err(error) => Err(error),
        }
    }

    /// The generalised value of a sum, by Smith's rule.
    pub fn gamma_sum<R>(&mut self, rules: &R, sum: &[P]) -> Result<Gamma, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let mut total = Gamma::Finite(0);
        for component in sum {
            total = total.add(&self.gamma(rules, component)?);
        }
        Ok(total)
    }

    /// Every move of a sum with the generalised value of the sum it leaves.
    pub fn gamma_moves<R>(&mut self, rules: &R, sum: &[P]) -> Result<Vec<GammaMove<P>>, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        self.valued_moves(rules, sum, |engine, result| engine.gamma_sum(rules, result))
    }

    fn part<R>(&mut self, rules: &R, position: &P) -> Result<Part, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        if let Some(n) = rules.as_heap(position) {
            return Ok(Part::Finite(n));
        }
        match self.loopy.get(position) {
            Some(Gamma::Finite(value)) => return Ok(Part::Finite(*value)),
            Some(Gamma::Infinite(_)) => return Ok(Part::Loopy),
            None => {}
        }
        // Known to reach a cycle: no search needed to say so again.
        if self.marked_loopy(rules, position) {
            return Ok(Part::Loopy);
        }
        match self.grundy_or_loopy(rules, position) {
            Ok(value) => Ok(Part::Finite(value)),
            Err(EngineError::Loopy { .. }) => Ok(Part::Loopy),
            Err(error) => Err(error),
        }
    }

    /// Builds the graph reachable from `root` and labels it, keeping the
    /// values of the single components met on the way.
    fn label<R>(&mut self, rules: &R, root: &P) -> Result<Gamma, P, R::Error>
    where
        R: Rules<Position = P>,
    {
        let mut graph = Graph::default();
        graph.node((vec![root.clone()], 0), |node| held(rules, node));
        let (mut next, mut moves) = (0, 0usize);
        while next < graph.nodes.len() {
            // The nodes grow as their sums grow: bounded by their bytes too,
            // as the tables are, so that memory stops the labelling with an
            // error rather than the allocator aborting.
            if graph.bytes() > self.max_table {
                return Err(EngineError::LoopyTooLarge {
                    bytes: self.max_table,
                    expanding: root.clone(),
                });
            }
            // The moves listed bound the work as the nodes bound the memory.
            if moves > self.max_states {
                return Err(EngineError::TooManyMoves {
                    limit: self.max_states,
                    expanding: root.clone(),
                });
            }
            if graph.nodes.len() > self.max_states {
                return Err(EngineError::TooManyStates {
                    limit: self.max_states,
                    expanding: root.clone(),
                });
            }
            self.watch()?;
            let (loopy, heap) = graph.nodes[next].clone();
            let mut followers = Vec::new();
            if loopy.is_empty() {
                // A Nim heap: its value is known, its options need no listing.
                graph.followers.push(followers);
                next += 1;
                continue;
            }
            for (i, component) in loopy.iter().enumerate() {
                if i > 0 && loopy[i - 1] == *component {
                    continue;
                }
                for to in self.options(rules, component)? {
                    let mut rest: Vec<P> =
                        loopy[..i].iter().chain(&loopy[i + 1..]).cloned().collect();
                    let mut value = heap;
                    for part in to {
                        match self.part(rules, &part)? {
                            Part::Finite(part_value) => value ^= part_value,
                            Part::Loopy => rest.push(part),
                        }
                    }
                    rest.sort();
                    followers.push(graph.node((rest, value), |node| held(rules, node)));
                }
            }
            if heap as usize > self.max_states.saturating_sub(graph.nodes.len()) {
                return Err(EngineError::TooManyStates {
                    limit: self.max_states,
                    expanding: root.clone(),
                });
            }
            followers.extend(
                (0..heap)
                    .map(|smaller| graph.node((loopy.clone(), smaller), |node| held(rules, node))),
            );
            followers.sort_unstable();
            followers.dedup();
            moves += followers.len();
            graph.edges += followers.len();
            graph.followers.push(followers);
            next += 1;
        }
        let values = graph.labels();
        for (id, (loopy, heap)) in graph.nodes.iter().enumerate() {
            if let [single] = loopy.as_slice() {
                let value = values[id].add(&Gamma::Finite(*heap));
                self.loopy.entry(single.clone()).or_insert(value);
            }
        }
        Ok(values[0].clone())
    }
}

/// What the components of a node hold behind pointers.
fn held<R: Rules>(rules: &R, (loopy, _): &Node<R::Position>) -> usize {
    loopy.iter().map(|part| rules.held_bytes(part)).sum()
}

/// The nodes reached, each with its followers once listed. A node with no
/// loopy component is the Nim heap of its value and is not expanded.
struct Graph<P> {
    nodes: Vec<Node<P>>,
    ids: HashMap<Node<P>, u32>,
    followers: Vec<Vec<u32>>,
    /// The moves listed.
    edges: usize,
    /// The bytes the nodes' sums hold: each sum's list of components
    /// (kept twice: in order, and as the key of its id), and what the
    /// components hold behind pointers (`Rules::held_bytes`).
    held: usize,
}

/// The bytes a move takes: its follower, and its predecessor while labelling.
const EDGE_BYTES: usize = 2 * size_of::<u32>();

/// The bytes labelling takes a node (see `Graph::labels`): its list of
/// predecessors, its label, its count of distinct values and the last
/// counted, its stamps and the followers it waits on, its place in a
/// round's bucket, and its value.
const LABEL_BYTES: usize = size_of::<Vec<u32>>()
    + 2 * size_of::<Option<Grundy>>()
    + 3 * size_of::<Grundy>()
    + 2 * size_of::<usize>()
    + size_of::<Gamma>();

impl<P> Graph<P> {
    /// About the bytes the graph takes, and its labelling will: its lists
    /// and map at their capacities (grown by doubling, they are up to twice
    /// what they hold), the sums they hold, the moves, and what labelling
    /// adds for each node.
    fn bytes(&self) -> usize {
        let node = size_of::<Node<P>>();
        self.nodes.capacity() * node
            + self.ids.capacity() * (node + size_of::<u32>() + 1)
            + self.followers.capacity() * size_of::<Vec<u32>>()
            + self.held
            + self.edges * EDGE_BYTES
            + self.nodes.len() * LABEL_BYTES
    }
}

impl<P> Default for Graph<P> {
    fn default() -> Self {
        Graph {
            nodes: Vec::new(),
            ids: HashMap::default(),
            followers: Vec::new(),
            edges: 0,
            held: 0,
        }
    }
}

impl<P: Clone + Eq + Hash> Graph<P> {
    /// The id of a node, added (to be expanded in turn) if new. Nim heaps
    /// are added too, and keep no followers.
    fn node(&mut self, node: Node<P>, held: impl Fn(&Node<P>) -> usize) -> u32 {
        if let Some(&id) = self.ids.get(&node) {
            return id;
        }
        let id = self.nodes.len() as u32;
        self.held += 2 * node.0.capacity() * size_of::<P>() + held(&node);
        self.ids.insert(node.clone(), id);
        self.nodes.push(node);
        id
    }

    /// The heap a node is, when it has no loopy component.
    fn heap(&self, id: usize) -> Option<Grundy> {
        let (loopy, heap) = &self.nodes[id];
        loopy.is_empty().then_some(*heap)
    }

    /// The Fraenkel–Yesha labelling, one value m at a time. A node whose
    /// labelled followers have every value below m, and not m, is a
    /// candidate for m. A follower not labelled yet (its value will be
    /// larger, or ∞) is "answered" once it has a follower labelled m; a
    /// candidate with no follower labelled m whose unlabelled followers are
    /// all answered gets m. Labelling a node answers its predecessors, which
    /// may complete others in turn, as in a retrograde analysis. Nim heaps
    /// take their value in their own round, and before it count as answered
    /// (a heap of h has every value below h among its options).
    ///
    /// Each node counts the distinct values among its labelled followers as
    /// they are labelled (values come in increasing order), so a node is a
    /// candidate in one round only, found in that round's bucket: the work
    /// is linear in the moves, not in the moves times the values.
    fn labels(&self) -> Vec<Gamma> {
        let count = self.nodes.len();
        // The followers of heaps are not listed; they need none for this.
        let mut predecessors: Vec<Vec<u32>> = vec![Vec::new(); count];
        for (id, followers) in self.followers.iter().enumerate() {
            for &follower in followers {
                predecessors[follower as usize].push(id as u32);
            }
        }
        let followers = |id: usize| self.followers.get(id).map_or(&[][..], Vec::as_slice);
        let mut label: Vec<Option<Grundy>> = vec![None; count];
        // Per node: how many distinct values its labelled followers have,
        // and the last value counted (labels arrive in increasing order).
        let mut distinct: Vec<Grundy> = vec![0; count];
        let mut last_counted: Vec<Option<Grundy>> = vec![None; count];
        // Nodes to look at in round m: those whose count reached m, and the
        // heaps of m. Rounds stamp `answered` and `candidate` with m + 1, so
        // that nothing is cleared between rounds.
        let mut buckets: Vec<Vec<usize>> = vec![Vec::new()];
        let bucket = |buckets: &mut Vec<Vec<usize>>, m: Grundy, id: usize| {
            let m = m as usize;
            if buckets.len() <= m {
                buckets.resize(m + 1, Vec::new());
            }
            buckets[m].push(id);
        };
        for id in 0..count {
            match self.heap(id) {
                Some(heap) => bucket(&mut buckets, heap, id),
                None => bucket(&mut buckets, 0, id),
            }
        }
        let mut answered: Vec<Grundy> = vec![0; count];
        let mut candidate: Vec<Grundy> = vec![0; count];
        let mut waiting = vec![0usize; count];
        let mut m: Grundy = 0;
        while (m as usize) < buckets.len() {
            let stamp = m + 1;
            // A heap above m counts as answered in this round.
            let is_answered = |id: usize, answered: &[Grundy]| {
                answered[id] == stamp || self.heap(id).is_some_and(|heap| heap > m)
            };
            let round = std::mem::take(&mut buckets[m as usize]);
            let mut queue = Vec::new();
            for &id in &round {
                if label[id].is_some() {
                    continue;
                }
                if self.heap(id).is_some() {
                    queue.push(id);
                    continue;
                }
                if distinct[id] != m || last_counted[id] == Some(m) {
                    continue;
                }
                candidate[id] = stamp;
            }
            for &id in &round {
                if candidate[id] != stamp || label[id].is_some() {
                    continue;
                }
                waiting[id] = followers(id)
                    .iter()
                    .filter(|&&f| {
                        label[f as usize].is_none() && !is_answered(f as usize, &answered)
                    })
                    .count();
                if waiting[id] == 0 {
                    queue.push(id);
                }
            }
            while let Some(id) = queue.pop() {
                if label[id].is_some() || is_answered(id, &answered) && self.heap(id).is_none() {
                    continue;
                }
                label[id] = Some(m);
                for &before in &predecessors[id] {
                    let before = before as usize;
                    // The follower's value m counts once towards `before`.
                    if last_counted[before] != Some(m) {
                        last_counted[before] = Some(m);
                        if distinct[before] == m {
                            distinct[before] = m + 1;
                            bucket(&mut buckets, m + 1, before);
                        }
                    }
                    if answered[before] == stamp {
                        continue;
                    }
                    answered[before] = stamp;
                    if label[before].is_some() {
                        continue;
                    }
                    for &earlier in &predecessors[before] {
                        let earlier = earlier as usize;
                        if candidate[earlier] == stamp && label[earlier].is_none() {
                            waiting[earlier] -= 1;
                            if waiting[earlier] == 0 {
                                queue.push(earlier);
                            }
                        }
                    }
                }
            }
            m += 1;
        }
        // The distinct values among a node's labelled followers, in order.
        let follower_labels = |id: usize, label: &[Option<Grundy>]| {
            let mut values: Vec<Grundy> = followers(id)
                .iter()
                .filter_map(|&f| label[f as usize])
                .collect();
            values.sort_unstable();
            values.dedup();
            values
        };
        (0..count)
            .map(|id| match label[id] {
                Some(value) => Gamma::Finite(value),
                None => Gamma::Infinite(follower_labels(id, &label)),
            })
            .collect()
    }
}
