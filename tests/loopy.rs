//! Loopy games against their definitions: on random small graphs, with
//! cycles, `wins?` agrees with a retrograde win/loss/draw analysis written
//! here (for single nodes and for sums of two, analysed on the product
//! graph), and the values printed satisfy Smith's definition.

mod common;

use common::answers;
use proptest::prelude::*;
use sprague::session::Value;

/// Win, loss or draw for the player to move at each node of a graph given
/// by its followers: nodes with no move lose; a node with a losing follower
/// wins; a node whose followers all win loses; what is left is drawn.
fn retrograde(followers: &[Vec<usize>]) -> Vec<Option<bool>> {
    let count = followers.len();
    let mut outcome: Vec<Option<bool>> = vec![None; count];
    loop {
        let mut changed = false;
        for node in 0..count {
            if outcome[node].is_some() {
                continue;
            }
            let next = &followers[node];
            if next.iter().any(|&f| outcome[f] == Some(false)) {
                outcome[node] = Some(true);
                changed = true;
            } else if next.iter().all(|&f| outcome[f] == Some(true)) {
                outcome[node] = Some(false);
                changed = true;
            }
        }
        if !changed {
            return outcome;
        }
    }
}

fn source(followers: &[Vec<usize>]) -> String {
    let edges: Vec<String> = followers
        .iter()
        .enumerate()
        .filter(|(_, next)| !next.is_empty())
        .map(|(node, next)| {
            let to: Vec<String> = next.iter().map(usize::to_string).collect();
            format!(
                "  n{node} -> {}\n",
                to.iter()
                    .map(|t| format!("n{t}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
        .collect();
    // A node no edge names would not exist: an extra node, which nothing
    // moves to, moves to them all.
    let all: Vec<String> = (0..followers.len())
        .map(|node| format!("n{node}"))
        .collect();
    format!(
        "graph G {{\n{}  all -> {}\n}}\n",
        edges.concat(),
        all.join(", ")
    )
}

/// A random graph on up to 7 nodes; each node has up to three followers.
fn graph() -> impl Strategy<Value = Vec<Vec<usize>>> {
    (2usize..8).prop_flat_map(|count| {
        prop::collection::vec(prop::collection::btree_set(0..count, 0..4), count).prop_map(|sets| {
            sets.into_iter()
                .map(|set| set.into_iter().collect())
                .collect()
        })
    })
}

/// A value as the test sees it: `Some(m)` finite, `None` for ∞.
fn value(answer: &Value) -> (Option<u64>, Vec<u64>) {
    match answer {
        Value::Grundy(value) => (Some(*value), Vec::new()),
        Value::Infinite(reaches) => (None, reaches.clone()),
        other => panic!("expected a value, got {other:?}"),
    }
}

fn outcome(answer: &Value) -> Option<bool> {
    match answer {
        Value::Wins(wins) => Some(*wins),
        Value::Draw => None,
        other => panic!("expected wins?, got {other:?}"),
    }
}

proptest! {
    #[test]
    fn values_and_outcomes_agree_with_retrograde_analysis(followers in graph()) {
        let count = followers.len();
        let declared = source(&followers);
        let mut queries = String::new();
        for node in 0..count {
            queries += &format!("grundy G.n{node}\nwins? G.n{node}\n");
        }
        for a in 0..count {
            for b in a..count {
                queries += &format!("wins? G.n{a} + G.n{b}\n");
            }
        }
        let found = answers(&format!("{declared}{queries}"));
        let single = retrograde(&followers);
        let values: Vec<(Option<u64>, Vec<u64>)> =
            (0..count).map(|node| value(&found[2 * node].value)).collect();
        for node in 0..count {
            prop_assert_eq!(outcome(&found[2 * node + 1].value), single[node], "G.n{}", node);
        }
        // Smith's definition, checked node by node.
        for node in 0..count {
            let next = &followers[node];
            let finite: Vec<u64> = next.iter().filter_map(|&f| values[f].0).collect();
            match &values[node] {
                (Some(m), _) => {
                    prop_assert!(!finite.contains(m), "G.n{} = {} has an option of value {}", node, m, m);
                    prop_assert!((0..*m).all(|j| finite.contains(&j)), "G.n{} = {} misses a smaller value", node, m);
                    for &f in next {
                        if values[f].0.is_none_or(|value| value > *m) {
                            let answered = followers[f].iter().any(|&g| values[g].0 == Some(*m));
                            prop_assert!(answered, "G.n{}: option G.n{} has no option of value {}", node, f, m);
                        }
                    }
                }
                (None, reaches) => {
                    let mut expected = finite.clone();
                    expected.sort_unstable();
                    expected.dedup();
                    prop_assert_eq!(reaches, &expected, "G.n{}", node);
                }
            }
        }
        // Sums of two nodes, against retrograde analysis of the product.
        let pair = |a: usize, b: usize| a * count + b;
        let product: Vec<Vec<usize>> = (0..count * count)
            .map(|state| {
                let (a, b) = (state / count, state % count);
                followers[a].iter().map(|&f| pair(f, b))
                    .chain(followers[b].iter().map(|&f| pair(a, f)))
                    .collect()
            })
            .collect();
        let sums = retrograde(&product);
        let mut index = 2 * count;
        for a in 0..count {
            for b in a..count {
                prop_assert_eq!(outcome(&found[index].value), sums[pair(a, b)], "G.n{} + G.n{}", a, b);
                index += 1;
            }
        }
    }
}

/// The loopy example's values, worked by hand from Smith's definition.
#[test]
fn the_loopy_examples_have_the_values_worked_by_hand() {
    let source =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/loopy.game"))
            .unwrap();
    let declarations: String = source
        .lines()
        .filter(|line| {
            !line.starts_with("grundy")
                && !line.starts_with("wins?")
                && !line.starts_with("best_move")
        })
        .map(|line| format!("{line}\n"))
        .collect();
    let found = answers(&format!(
        "{declarations}
grundy Loop.exit
grundy Loop.b
grundy Loop.a
grundy Loop.c
grundy Spin.d
grundy Spin.c
grundy Spin.b
grundy Spin.a
grundy Seesaw(n) for n in 0..=8
wins? Seesaw(1) + Seesaw(1)
grundy Spin.b + *1
grundy Spin.b + Spin.a
"
    ));
    let values: Vec<(Option<u64>, Vec<u64>)> = found[..17]
        .iter()
        .map(|answer| value(&answer.value))
        .collect();
    let finite = |n| (Some(n), Vec::new());
    let infinite = |reaches: &[u64]| (None, reaches.to_vec());
    // Loop: exit has no move (0). b's only option, c, can move to exit (0),
    // so b = 0: it has no option of value 0, and its one option of larger
    // or infinite value answers with 0. a moves only to b: mex{0} = 1.
    // c moves to a (1) and exit (0): 2. A cycle, and all values finite.
    assert_eq!(values[..4], [finite(0), finite(0), finite(1), finite(2)]);
    // Spin: d = 0, c = mex{0} = 1. b moves to a and c (1): it cannot be 0,
    // for a (which moves only to b) has no option of value 0 while b is
    // unlabelled; nor 1, since it lacks an option of value 0. So b = ∞(1),
    // and a, whose one option is b, is ∞ with no finite option.
    assert_eq!(
        values[4..8],
        [finite(0), finite(1), infinite(&[1]), infinite(&[])]
    );
    // Seesaw: 0 = 0. 1, 2 and 3 move to 0, so none is 0; 4 moves only to
    // 1, 2 and 3, each answering with 0, so 4 = 0, and so is 8 (to 5, 6,
    // 7, which move to 4). Could any of 1, 2, 3, 5, 6, 7 be 1? Each has an
    // option among the others (1 -> 2, 2 -> 3, 3 -> 2, 5 -> 6, 6 -> 5,
    // 7 -> 6), which would have to answer with an option of value 1, so
    // the first of them to be 1 would need another already 1: none is.
    // They are ∞(0): wins, though no nimber.
    let seesaw: Vec<(Option<u64>, Vec<u64>)> = [0, 9, 9, 9, 0, 9, 9, 9, 0]
        .iter()
        .map(|&v| if v == 0 { finite(0) } else { infinite(&[0]) })
        .collect();
    assert_eq!(values[8..17], seesaw[..]);
    // Sums by Smith's rule: ∞(0) + ∞(0) is a draw; ∞(1) + *1 = ∞(0), a
    // win; two infinite parts make ∞ with nothing reachable.
    assert_eq!(outcome(&found[17].value), None);
    assert_eq!(value(&found[18].value), infinite(&[0]));
    assert_eq!(value(&found[19].value), infinite(&[]));
}
