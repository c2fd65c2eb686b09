//! A quotient written as the papers write it: generators a, b, c, … (the
//! heaps that are not products of earlier ones), relations, the P-portion
//! and each heap's element as words in the generators.
//!
//! Each element is named by its least word: fewest letters, then first in
//! alphabetical order of its letters (so `aab` before `abb`). That order
//! is kept by multiplication, so a divisor of a least word is least too;
//! the relations are then the words that are not least while every word
//! dividing them is, each equated to the least word of its element.

use super::{Heap, Monoid};

/// A word in the generators: each generator's exponent.
pub type Exponents = Vec<u32>;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Presentation {
    /// The heap each generator is, in order (a, b, c, …).
    pub generators: Vec<Heap>,
    /// `left = right`, as words.
    pub relations: Vec<(Exponents, Exponents)>,
    /// The least word of each element, in the order of the words.
    pub elements: Vec<Exponents>,
    /// The elements of the P-portion, as indices into `elements`.
    pub p_portion: Vec<usize>,
    /// Each heap's element, as an index into `elements`.
    pub pretending: Vec<usize>,
}

impl Presentation {
    pub(super) fn of(monoid: &Monoid, p: &[bool], phi: &[u32]) -> Presentation {
        // Generators: heaps whose element is not reached by earlier ones.
        let mut generators: Vec<Heap> = Vec::new();
        let mut images: Vec<u32> = Vec::new();
        let mut reached = vec![false; monoid.size()];
        reached[0] = true;
        for (heap, &x) in phi.iter().enumerate() {
            if !reached[x as usize] {
                generators.push(heap as Heap);
                images.push(x);
                reached = vec![false; monoid.size()];
                for (y, _) in monoid.generated(&images) {
                    reached[y as usize] = true;
                }
            }
        }
        let letters = generators.len();
        // Least words, degree by degree.
        let mut least: Vec<Option<Exponents>> = vec![None; monoid.size()];
        least[0] = Some(vec![0; letters]);
        let mut layer: Vec<(Exponents, u32)> = vec![(vec![0; letters], 0)];
        let mut relations = Vec::new();
        while !layer.is_empty() {
            let mut next: Vec<(Exponents, u32)> = Vec::new();
            for (word, x) in &layer {
                for (g, &image) in images.iter().enumerate() {
                    let mut longer = word.clone();
                    longer[g] += 1;
                    next.push((longer, monoid.product(*x, image)));
                }
            }
            next.sort_by_key(|a| spelled(&a.0));
            next.dedup_by(|a, b| a.0 == b.0);
            let mut kept = Vec::new();
            for (word, x) in next {
                if least[x as usize].is_none() {
                    least[x as usize] = Some(word.clone());
                    kept.push((word, x));
                    continue;
                }
                // Not least: a relation if every word dividing it is.
                let divisors_least = (0..letters).filter(|&g| word[g] > 0).all(|g| {
                    let mut smaller = word.clone();
                    smaller[g] -= 1;
                    least.iter().flatten().any(|w| *w == smaller)
                });
                if divisors_least {
                    let right = least[x as usize].clone().expect("set above");
                    relations.push((word, right));
                }
            }
            layer = kept;
        }
        let mut order: Vec<usize> = (0..monoid.size()).collect();
        let word = |x: usize| least[x].clone().unwrap_or_default();
        order.sort_by(|&a, &b| {
            let (a, b) = (word(a), word(b));
            let degree = |w: &Exponents| w.iter().sum::<u32>();
            degree(&a)
                .cmp(&degree(&b))
                .then_with(|| spelled(&a).cmp(&spelled(&b)))
        });
        let mut position = vec![0; monoid.size()];
        for (i, &x) in order.iter().enumerate() {
            position[x] = i;
        }
        Presentation {
            generators,
            relations,
            elements: order.iter().map(|&x| word(x)).collect(),
            p_portion: {
                let mut p: Vec<usize> = (0..monoid.size())
                    .filter(|&x| p[x])
                    .map(|x| position[x])
                    .collect();
                p.sort_unstable();
                p
            },
            pretending: phi.iter().map(|&x| position[x as usize]).collect(),
        }
    }

    /// A word as the papers print it: `1`, `a`, `ab^2`.
    pub fn word(&self, exponents: &[u32]) -> String {
        let mut text = String::new();
        for (g, &k) in exponents.iter().enumerate() {
            let letter = letter(g);
            match k {
                0 => {}
                1 => text += &letter,
                k => text += &format!("{letter}^{k}"),
            }
        }
        match text.is_empty() {
            true => "1".to_owned(),
            false => text,
        }
    }
}

/// The name of generator g: a … z, then a1, b1, ….
pub fn letter(g: usize) -> String {
    let name = (b'a' + (g % 26) as u8) as char;
    match g / 26 {
        0 => name.to_string(),
        round => format!("{name}{round}"),
    }
}

/// The word's letters in order, for comparing words of one degree.
fn spelled(word: &[u32]) -> Vec<usize> {
    word.iter()
        .enumerate()
        .flat_map(|(g, &k)| std::iter::repeat_n(g, k as usize))
        .collect()
}
