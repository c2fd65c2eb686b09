//! The symmetries of a declared graph: the permutations of its nodes that
//! keep its edges, found by individualization and refinement, and the
//! least image of a region under them, so that a game declared `splits
//! up to symmetry` keeps one position for a region and all its images.
//!
//! A game that splits reads nothing of its board but which nodes are next
//! to which (see docs/proofs.md), so a region and its image under an
//! automorphism have the same value. Any set of automorphisms, taken as
//! the images a region is compared with, gives a sound canonical form;
//! the whole group merges the most regions. The group is enumerated up to
//! [`MOST`] elements and a budget of refinements: a hypercube's 645,120
//! are not all kept, and the ones kept still merge many regions.

/// The most automorphisms kept besides the identity: each costs a pass
/// over a region's nodes, four at a time, whenever a part is shaped. The
/// dihedral group of P(n, 2) has 2n, all kept up to n = 64 (128 nodes).
pub const MOST: usize = 127;

/// The most refinements the enumeration spends before it keeps what it has.
const BUDGET: usize = 20_000;

/// Some automorphisms of a graph of at most 128 nodes, each as the image of
/// every group of four nodes, for regions given as bits.
#[derive(Debug, Default)]
pub struct Automorphisms {
    /// Each automorphism but the identity: the image of each node.
    maps: Vec<Box<[u8]>>,
    /// For each automorphism, the image of each value of each group of
    /// four nodes (nodes `4i..4i + 4` at index `16i + value`).
    nibbles: Vec<Box<[u128]>>,
    /// Up to [`INVOLUTIONS`] automorphisms that are their own inverse, those
    /// fixing fewest nodes and then taking fewest next to their images,
    /// each with the nodes it fixes: the mirror strategy's.
    involutions: Vec<(usize, u128)>,
}

/// The most involutions kept for the mirror strategy, which knows a
/// board's involutions by their places in a byte.
pub const INVOLUTIONS: usize = 8;

impl Automorphisms {
    /// The automorphisms of the graph whose node `v` has the neighbours
    /// `adjacency[v]` (at most 128 nodes, no loops), up to [`MOST`] of them
    /// besides the identity.
    pub fn of(adjacency: &[u128]) -> Automorphisms {
        let n = adjacency.len();
        if !(2..=128).contains(&n) {
            return Automorphisms::default();
        }
        let everyone = u128::MAX >> (128 - n);
        let mut search = Search {
            adjacency,
            maps: Vec::new(),
            budget: BUDGET,
        };
        let mut start = vec![everyone];
        search.refine(&mut start, &[everyone]);
        search.generators(&start);
        search.close();
        let groups = n.div_ceil(4);
        let nibbles = search
            .maps
            .iter()
            .map(|map| {
                let mut table = vec![0u128; 16 * groups];
                for group in 0..groups {
                    for value in 0..16usize {
                        table[16 * group + value] = (0..4)
                            .map(|bit| 4 * group + bit)
                            .filter(|&v| value >> (v % 4) & 1 == 1 && v < n)
                            .fold(0, |image, v| image | 1 << map[v]);
                    }
                }
                table.into_boxed_slice()
            })
            .collect();
        // Those that fix fewest nodes first (they keep the most regions),
        // then those that take fewest nodes next to their images (a move
        // there meets its own image, which the strategy cannot answer).
        let next_to_image = |which: usize| {
            let map = &search.maps[which];
            (0..n).filter(|&v| adjacency[v] >> map[v] & 1 == 1).count()
        };
        let mut involutions: Vec<(usize, u128)> = search
            .maps
            .iter()
            .enumerate()
            .filter(|(_, map)| (0..n).all(|v| usize::from(map[usize::from(map[v])]) == v))
            .map(|(which, map)| {
                let fixed = (0..n)
                    .filter(|&v| usize::from(map[v]) == v)
                    .fold(0u128, |fixed, v| fixed | 1 << v);
                (which, fixed)
            })
            .collect();
        involutions
            .sort_by_key(|&(which, fixed)| (fixed.count_ones(), next_to_image(which), which));
        involutions.truncate(INVOLUTIONS);
        Automorphisms {
            maps: search.maps,
            nibbles,
            involutions,
        }
    }

    /// How many automorphisms are kept besides the identity.
    pub fn len(&self) -> usize {
        self.maps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.maps.is_empty()
    }

    /// The image of the nodes `bits` under automorphism `which`.
    #[inline]
    fn image(&self, which: usize, bits: u128) -> u128 {
        let table = &self.nibbles[which];
        let (mut image, mut rest, mut at) = (0, bits, 0);
        while rest != 0 {
            image |= table[at + (rest & 15) as usize];
            rest >>= 4;
            at += 16;
        }
        image
    }

    /// The least of the images of the nodes `bits` (as numbers), and the
    /// automorphism that gives it (`None` for the identity).
    pub fn least(&self, bits: u128) -> (u128, Option<usize>) {
        let mut least = (bits, None);
        for which in 0..self.nibbles.len() {
            let image = self.image(which, bits);
            if image < least.0 {
                least = (image, Some(which));
            }
        }
        least
    }

    /// The image of the nodes `bits` under the involution at `place`
    /// among those kept, if there is one there.
    pub fn involuted(&self, place: usize, bits: u128) -> Option<u128> {
        let &(which, _) = self.involutions.get(place)?;
        Some(self.image(which, bits))
    }

    /// The involutions kept that map the nodes `bits` onto themselves and
    /// fix none of them, as bits by their places.
    pub fn mirrors(&self, bits: u128) -> u8 {
        let mut found = 0;
        for (place, &(which, fixed)) in self.involutions.iter().enumerate() {
            if fixed & bits == 0 && self.image(which, bits) == bits {
                found |= 1 << place;
            }
        }
        found
    }

    /// The node automorphism `which` maps `v` to.
    pub fn apply(&self, which: usize, v: u32) -> u32 {
        u32::from(self.maps[which][v as usize])
    }
}

/// The enumeration: generators first, by individualization and refinement
/// (the nodes of the left partition individualized in one fixed order,
/// those of the right in orders that keep the two partitions alike; each
/// pair of discrete partitions alike is a permutation, kept if it keeps
/// the edges), then the products of generators, shortest first. Kept in
/// the order a search would meet them, the first automorphisms would move
/// only the nodes individualized last: a graph with a small, very
/// symmetric piece of its own would keep only that piece's.
struct Search<'a> {
    adjacency: &'a [u128],
    maps: Vec<Box<[u8]>>,
    budget: usize,
}

impl Search<'_> {
    /// Splits the cells of an ordered partition (each a set of nodes) by
    /// how many neighbours each node has in each splitter, until no cell
    /// splits: the coarsest equitable partition finer than it, when the
    /// partition is equitable with respect to every cell but the
    /// `splitters` (every piece a cell is split into becomes a splitter in
    /// turn). Each cell is split in place, its pieces by increasing count,
    /// and the splitters are taken in the order they came, so that two
    /// partitions an automorphism maps onto each other stay so.
    fn refine(&mut self, cells: &mut Vec<u128>, splitters: &[u128]) {
        self.budget = self.budget.saturating_sub(1);
        let mut splitters: std::collections::VecDeque<u128> = splitters.iter().copied().collect();
        let mut pieces: Vec<(u32, u128)> = Vec::new();
        while let Some(by) = splitters.pop_front() {
            if cells.len() == self.adjacency.len() {
                return;
            }
            let mut split = Vec::with_capacity(cells.len());
            for &cell in cells.iter() {
                if cell.count_ones() == 1 {
                    split.push(cell);
                    continue;
                }
                pieces.clear();
                let mut rest = cell;
                while rest != 0 {
                    let v = rest.trailing_zeros();
                    rest &= rest - 1;
                    let count = (self.adjacency[v as usize] & by).count_ones();
                    match pieces.iter_mut().find(|piece| piece.0 == count) {
                        Some(piece) => piece.1 |= 1 << v,
                        None => pieces.push((count, 1 << v)),
                    }
                }
                pieces.sort_unstable_by_key(|piece| piece.0);
                split.extend(pieces.iter().map(|piece| piece.1));
                if pieces.len() > 1 {
                    splitters.extend(pieces.iter().map(|piece| piece.1));
                }
            }
            *cells = split;
        }
    }

    /// Generators of the group, one automorphism for each node that can
    /// take the place of the node individualized at each step of the path
    /// that individualizes the least node of the first cell each time
    /// (the identity's path): together they generate every automorphism,
    /// each level's spread over the whole graph, not only over the nodes
    /// individualized last.
    fn generators(&mut self, path: &[u128]) {
        let Some(cell) = path.iter().position(|cell| cell.count_ones() > 1) else {
            return;
        };
        let v = path[cell].trailing_zeros();
        let next = self.individualized(path, cell, v);
        let mut candidates = path[cell] & !(1 << v);
        while candidates != 0 && self.budget > 0 {
            let w = candidates.trailing_zeros();
            candidates &= candidates - 1;
            let right = self.individualized(path, cell, w);
            if alike(&next, &right) {
                self.one(&next, &right);
            }
        }
        self.generators(&next);
    }

    /// Keeps one automorphism that maps the partition `left` onto `right`
    /// (alike in their cells' sizes), cell by cell, if there is one;
    /// whether it found one.
    fn one(&mut self, left: &[u128], right: &[u128]) -> bool {
        if self.budget == 0 {
            return false;
        }
        let Some(cell) = left.iter().position(|cell| cell.count_ones() > 1) else {
            return self.keep_if_automorphism(left, right);
        };
        let v = left[cell].trailing_zeros();
        let left = self.individualized(left, cell, v);
        let mut candidates = right[cell];
        while candidates != 0 {
            let w = candidates.trailing_zeros();
            candidates &= candidates - 1;
            let right = self.individualized(right, cell, w);
            if alike(&left, &right) && self.one(&left, &right) {
                return true;
            }
        }
        false
    }

    /// The group the generators found generate, from the shortest products
    /// out, up to [`MOST`] elements besides the identity.
    fn close(&mut self) {
        let generators = std::mem::take(&mut self.maps);
        let n = self.adjacency.len();
        let identity: Box<[u8]> = (0..n as u8).collect();
        let mut seen: std::collections::HashSet<Box<[u8]>> = std::collections::HashSet::new();
        seen.insert(identity);
        let mut at = 0;
        for generator in &generators {
            if self.maps.len() < MOST && seen.insert(generator.clone()) {
                self.maps.push(generator.clone());
            }
        }
        while at < self.maps.len() && self.maps.len() < MOST {
            for generator in &generators {
                let product: Box<[u8]> = self.maps[at]
                    .iter()
                    .map(|&v| generator[usize::from(v)])
                    .collect();
                if self.maps.len() < MOST && seen.insert(product.clone()) {
                    self.maps.push(product);
                }
            }
            at += 1;
        }
    }

    /// `cells` with node `v` taken out of cell `cell` into a cell of its
    /// own just before it, refined.
    fn individualized(&mut self, cells: &[u128], cell: usize, v: u32) -> Vec<u128> {
        let mut cells = cells.to_vec();
        cells[cell] &= !(1 << v);
        cells.insert(cell, 1 << v);
        // The cells were equitable: only the node taken out of its cell
        // may split them now.
        self.refine(&mut cells, &[1 << v]);
        cells
    }

    /// Keeps the permutation that maps each node of `left` (a partition
    /// into single nodes) to the node of `right` in the same place, if it
    /// keeps every edge and is not the identity.
    fn keep_if_automorphism(&mut self, left: &[u128], right: &[u128]) -> bool {
        let n = self.adjacency.len();
        let mut map = vec![0u8; n];
        for (a, b) in left.iter().zip(right) {
            map[a.trailing_zeros() as usize] = b.trailing_zeros() as u8;
        }
        if map.iter().enumerate().all(|(v, &w)| v == usize::from(w)) {
            return false;
        }
        let image = |bits: u128| {
            let mut rest = bits;
            let mut image = 0u128;
            while rest != 0 {
                image |= 1 << map[rest.trailing_zeros() as usize];
                rest &= rest - 1;
            }
            image
        };
        let keeps = (0..n).all(|v| image(self.adjacency[v]) == self.adjacency[map[v] as usize]);
        if keeps {
            self.maps.push(map.into_boxed_slice());
        }
        keeps
    }
}

/// Whether two ordered partitions have cells of the same sizes, in order.
fn alike(left: &[u128], right: &[u128]) -> bool {
    left.len() == right.len()
        && left
            .iter()
            .zip(right)
            .all(|(a, b)| a.count_ones() == b.count_ones())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A graph of 128 nodes, one edge and 126 nodes on their own has a
    /// group too large to list: the most kept are found within the budget,
    /// each keeping the edge.
    #[test]
    fn a_huge_group_is_cut_short_at_the_most_kept() {
        let mut adjacency = vec![0u128; 128];
        adjacency[0] = 1 << 1;
        adjacency[1] = 1;
        let found = Automorphisms::of(&adjacency);
        assert_eq!(found.len(), MOST);
        for which in 0..found.len() {
            let image = |v: u32| found.apply(which, v);
            assert_eq!(image(0).min(image(1)), 0);
            assert_eq!(image(0).max(image(1)), 1);
        }
    }

    fn cycle(n: usize) -> Vec<u128> {
        (0..n)
            .map(|v| 1 << ((v + 1) % n) | 1 << ((v + n - 1) % n))
            .collect()
    }

    /// The generalized Petersen graph P(n, k), numbered as
    /// examples/families.game numbers it.
    fn petersen(n: usize, k: usize) -> Vec<u128> {
        let mut adjacency = vec![0u128; 2 * n];
        let mut join = |a: usize, b: usize| {
            adjacency[a] |= 1 << b;
            adjacency[b] |= 1 << a;
        };
        for i in 0..n {
            join(i, (i + 1) % n);
            join(i, n + i);
            join(n + i, n + (i + k) % n);
        }
        adjacency
    }

    /// P(26, 2) beside a complete graph of 6 nodes: the group (52 · 720
    /// elements) is kept in part, and the part kept still moves the
    /// Petersen graph's nodes, not only the small piece's (whose nodes
    /// come last in the order of individualization): every outer node's
    /// least image is node 0, every inner node's node 26.
    #[test]
    fn a_small_symmetric_piece_does_not_crowd_out_the_rest() {
        let mut adjacency = petersen(26, 2);
        adjacency.extend((52..58).map(|v| (0b111111u128 << 52) & !(1 << v)));
        let found = Automorphisms::of(&adjacency);
        assert_eq!(found.len(), MOST);
        for v in 0..26 {
            assert_eq!(found.least(1 << v).0, 1, "outer node {v}");
            assert_eq!(found.least(1 << (26 + v)).0, 1 << 26, "inner node {v}");
        }
    }

    /// How many permutations of a small graph's nodes keep its edges, by
    /// trying every one: what the enumeration must find.
    fn by_every_permutation(adjacency: &[u128]) -> usize {
        fn extend(adjacency: &[u128], map: &mut Vec<usize>, used: u32) -> usize {
            let n = adjacency.len();
            let v = map.len();
            if v == n {
                return 1;
            }
            let mut count = 0;
            for w in (0..n).filter(|&w| used >> w & 1 == 0) {
                // The edges between v and the nodes mapped before it.
                let alike = (0..v).all(|u| (adjacency[v] >> u & 1) == (adjacency[w] >> map[u] & 1));
                if alike {
                    map.push(w);
                    count += extend(adjacency, map, used | 1 << w);
                    map.pop();
                }
            }
            count
        }
        extend(adjacency, &mut Vec::new(), 0)
    }

    proptest::proptest! {
        /// On random graphs of up to 8 nodes, the automorphisms found are
        /// as many as a trial of every permutation finds (up to [`MOST`]),
        /// and each keeps the edges and maps every region onto one of its
        /// size with the same number of edges inside.
        #[test]
        fn every_automorphism_of_a_small_graph_is_found(
            n in 2usize..=8,
            edges: u64,
            density in 0u32..3,
        ) {
            let edges = match density {
                0 => edges & edges.rotate_left(17),
                1 => edges | edges.rotate_left(29),
                _ => edges,
            };
            let mut adjacency = vec![0u128; n];
            let mut bit = 0;
            for a in 0..n {
                for b in a + 1..n {
                    if edges >> bit & 1 == 1 {
                        adjacency[a] |= 1 << b;
                        adjacency[b] |= 1 << a;
                    }
                    bit += 1;
                }
            }
            let found = Automorphisms::of(&adjacency);
            let all = by_every_permutation(&adjacency);
            proptest::prop_assert_eq!(found.len() + 1, all.min(MOST + 1));
            let inside = |bits: u128| {
                (0..n).filter(|&v| bits >> v & 1 == 1)
                    .map(|v| (adjacency[v] & bits).count_ones())
                    .sum::<u32>()
            };
            for region in 0u128..1 << n {
                let (least, which) = found.least(region);
                proptest::prop_assert!(least <= region);
                proptest::prop_assert_eq!(least.count_ones(), region.count_ones());
                proptest::prop_assert_eq!(inside(least), inside(region));
                if let Some(which) = which {
                    let image = (0..n as u32)
                        .filter(|&v| region >> v & 1 == 1)
                        .fold(0u128, |image, v| image | 1 << found.apply(which, v));
                    proptest::prop_assert_eq!(image, least);
                }
            }
        }
    }

    /// The group orders the literature gives: the dihedral group of a
    /// cycle (2n), of P(n, 2) for n other than 5 and 10 (2n), 120 for the
    /// Petersen graph P(5, 2) and the dodecahedron P(10, 2), and 2^7 · 7!
    /// for the 7-cube, of which the first [`MOST`] are kept.
    #[test]
    fn the_groups_of_cycles_and_petersen_graphs_have_their_orders() {
        for n in 3..=30 {
            assert_eq!(Automorphisms::of(&cycle(n)).len(), 2 * n - 1, "C{n}");
        }
        for n in [7, 9, 11, 13, 20, 31, 64] {
            let order = (2 * n - 1).min(MOST);
            assert_eq!(Automorphisms::of(&petersen(n, 2)).len(), order, "P({n}, 2)");
        }
        // The Petersen graph and the dodecahedron: 120 each.
        assert_eq!(Automorphisms::of(&petersen(5, 2)).len(), 119);
        assert_eq!(Automorphisms::of(&petersen(10, 2)).len(), 119);
        // The 7-cube's 645,120, of which MOST are kept.
        let cube: Vec<u128> = (0..128u32)
            .map(|v| (0..7).fold(0, |bits, d| bits | 1 << (v ^ 1 << d)))
            .collect();
        assert_eq!(Automorphisms::of(&cube).len(), MOST);
    }
}
