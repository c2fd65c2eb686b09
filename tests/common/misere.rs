//! Misère play of heap games searched and checked here, apart from
//! sprague's own code: the options of octal codes and of a few other heap
//! games, an exhaustive misère search of sums, and a check of a quotient
//! over every sum at once. Shared by `tests/quotient.rs` and the unit
//! tests of `src/quotient/` (which include this file by its path), so it
//! uses nothing of sprague.
#![allow(dead_code)]

use std::collections::{HashMap, HashSet, VecDeque};

/// A sum of heaps.
pub type Sum = Vec<u32>;

/// The options of heaps 0..=n of an octal code "0.d1d2…": removing k
/// tokens may leave no heap (bit 1, only when k is the whole heap), one
/// (bit 2) or two (bit 4, both nonempty).
pub fn octal(code: &str, n: u32) -> Vec<Vec<Sum>> {
    let digits: Vec<u32> = code[2..]
        .chars()
        .map(|c| c.to_digit(8).expect("an octal digit"))
        .collect();
    (0..=n)
        .map(|heap| {
            let mut options = Vec::new();
            for (i, &digit) in digits.iter().enumerate() {
                let k = i as u32 + 1;
                if k > heap {
                    break;
                }
                let rest = heap - k;
                if digit & 1 != 0 && rest == 0 {
                    options.push(vec![]);
                }
                if digit & 2 != 0 && rest > 0 {
                    options.push(vec![rest]);
                }
                if digit & 4 != 0 && rest >= 2 {
                    options.extend((1..=rest / 2).map(|a| vec![a, rest - a]));
                }
            }
            options
        })
        .collect()
}

/// Grundy's game (4!.0): split a heap into two unequal heaps.
pub fn grundys_game(n: u32) -> Vec<Vec<Sum>> {
    (0..=n)
        .map(|heap| (1..heap.div_ceil(2)).map(|a| vec![a, heap - a]).collect())
        .collect()
}

/// Nim: a heap moves to any smaller heap.
pub fn nim(n: u32) -> Vec<Vec<Sum>> {
    (0..=n)
        .map(|heap| (0..heap).map(|k| vec![k]).collect())
        .collect()
}

/// Whether the player to move wins a sum under misère play: a sum with no
/// move is won, else one with a move to a sum the player to move loses.
/// `options[h]` lists heap h's options; `memo` keeps sums solved, sorted.
pub fn wins(sum: &[u32], options: &[Vec<Sum>], memo: &mut HashMap<Sum, bool>) -> bool {
    let mut key: Sum = sum
        .iter()
        .copied()
        .filter(|&h| !options[h as usize].is_empty())
        .collect();
    key.sort_unstable();
    if let Some(&known) = memo.get(&key) {
        return known;
    }
    let mut won = key.is_empty();
    for i in 0..key.len() {
        if won {
            break;
        }
        if i > 0 && key[i - 1] == key[i] {
            continue;
        }
        for option in &options[key[i] as usize] {
            let mut next: Sum = key[..i].iter().chain(&key[i + 1..]).copied().collect();
            next.extend(option);
            if !wins(&next, options, memo) {
                won = true;
                break;
            }
        }
    }
    memo.insert(key, won);
    won
}

/// Every sum of up to `parts` heaps ≤ n, as sorted multisets.
pub fn sums(n: u32, parts: usize) -> Vec<Sum> {
    let mut sums = vec![vec![]];
    let mut layer: Vec<Sum> = vec![vec![]];
    for _ in 0..parts {
        let mut next = Vec::new();
        for sum in &layer {
            for heap in sum.last().copied().unwrap_or(0)..=n {
                let mut longer = sum.clone();
                longer.push(heap);
                next.push(longer);
            }
        }
        sums.extend(next.iter().cloned());
        layer = next;
    }
    sums
}

/// A quotient as a test sees it: its order, its product, its P-portion
/// and each heap's element.
pub struct Table<'a> {
    pub order: usize,
    pub product: &'a dyn Fn(u32, u32) -> u32,
    pub is_p: &'a dyn Fn(u32) -> bool,
    pub phi: &'a [u32],
}

/// Checks that a quotient answers every sum of the heaps `options` lists
/// (the heaps `phi` covers), by a breadth-first walk of the states
/// (element of a sum, elements of its options) from the empty sum's,
/// adding one heap at a time: every sum's state is reached so, and a sum
/// is a misère P-position exactly when it has a move and no option is
/// one. Returns the number of states, or the first state that fails.
pub fn check_every_sum(table: &Table, options: &[Vec<Sum>]) -> Result<usize, String> {
    let element = |sum: &[u32]| {
        sum.iter()
            .fold(0, |x, &h| (table.product)(x, table.phi[h as usize]))
    };
    let heaps: Vec<(u32, Vec<u32>)> = (0..table.phi.len())
        .filter(|&h| !options[h].is_empty())
        .map(|h| {
            (
                table.phi[h],
                options[h].iter().map(|o| element(o)).collect(),
            )
        })
        .collect();
    let start = (0u32, Vec::<u32>::new());
    let mut seen = HashSet::from([start.clone()]);
    let mut queue = VecDeque::from([start]);
    while let Some((x, to)) = queue.pop_front() {
        let p = !to.is_empty() && to.iter().all(|&t| !(table.is_p)(t));
        if (table.is_p)(x) != p {
            return Err(format!("element {x} with options {to:?}"));
        }
        for (g, targets) in &heaps {
            let mut next: Vec<u32> = to.iter().map(|&t| (table.product)(t, *g)).collect();
            next.extend(targets.iter().map(|&t| (table.product)(x, t)));
            next.sort_unstable();
            next.dedup();
            let state = ((table.product)(x, *g), next);
            if seen.insert(state.clone()) {
                queue.push_back(state);
            }
        }
    }
    Ok(seen.len())
}

/// The number of classes of indistinguishable elements among those the
/// heaps generate: x and y are one class when xz and yz are in P together
/// for every z (split until stable, as the states of an automaton).
pub fn classes(table: &Table) -> usize {
    let generators: Vec<u32> = table.phi.to_vec();
    let mut reached = vec![0u32];
    let mut seen = HashSet::from([0u32]);
    let mut i = 0;
    while i < reached.len() {
        for &g in &generators {
            let y = (table.product)(reached[i], g);
            if seen.insert(y) {
                reached.push(y);
            }
        }
        i += 1;
    }
    let mut class: HashMap<u32, usize> = reached
        .iter()
        .map(|&x| (x, usize::from((table.is_p)(x))))
        .collect();
    let mut count = 0;
    loop {
        let mut names: HashMap<Vec<usize>, usize> = HashMap::new();
        let mut next = HashMap::new();
        for &x in &reached {
            let mut signature = vec![class[&x]];
            signature.extend(generators.iter().map(|&g| class[&(table.product)(x, g)]));
            let fresh = names.len();
            next.insert(x, *names.entry(signature).or_insert(fresh));
        }
        class = next;
        if names.len() == count {
            return count;
        }
        count = names.len();
    }
}
