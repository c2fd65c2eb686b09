//! The Sprague–Grundy theorem as an oracle: the XOR answer for a sum must
//! agree with a brute-force minimax over the whole sum, played with move
//! rules written here directly in Rust.

mod common;

use std::collections::HashMap;

use common::answers;
use proptest::prelude::*;
use sprague::session::Value;

const DECLARATIONS: &str = "
game Nim(n) { move Nim(n - k) for k in 1..=n }
game Sub(n) { move Sub(n - k) for k in {1, 2, 3} if k <= n }
game Kayles(n) { move Kayles(a) + Kayles(n - k - a) for k in 1..=2, a in 0..=n - k }
game Dawson(n) { move Dawson(a) + Dawson(n - 2 - a) for a in 0..=n - 2 }
game Split(n) { move Split(a) + Split(n - a) for a in 1..n if a < n - a }
game Wythoff(a, b) {
    move Wythoff(a - k, b)     for k in 1..=a
    move Wythoff(a, b - k)     for k in 1..=b
    move Wythoff(a - k, b - k) for k in 1..=min(a, b)
}
graph Race { a -> b, c  b -> d  c -> d, e  d -> f  e -> f }
";

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Game {
    Heap(u32),
    Nim(u32),
    Sub(u32),
    Kayles(u32),
    Dawson(u32),
    Split(u32),
    Wythoff(u32, u32),
    Race(char),
}

impl Game {
    fn source(&self) -> String {
        match self {
            Game::Heap(n) => format!("*{n}"),
            Game::Nim(n) => format!("Nim({n})"),
            Game::Sub(n) => format!("Sub({n})"),
            Game::Kayles(n) => format!("Kayles({n})"),
            Game::Dawson(n) => format!("Dawson({n})"),
            Game::Split(n) => format!("Split({n})"),
            Game::Wythoff(a, b) => format!("Wythoff({a}, {b})"),
            Game::Race(node) => format!("Race.{node}"),
        }
    }

    /// The options of one component, each a sum of components.
    fn options(&self) -> Vec<Vec<Game>> {
        match *self {
            Game::Heap(n) => (0..n).map(|k| vec![Game::Heap(k)]).collect(),
            Game::Nim(n) => (0..n).rev().map(|k| vec![Game::Nim(k)]).collect(),
            Game::Sub(n) => (1..=3.min(n)).map(|k| vec![Game::Sub(n - k)]).collect(),
            Game::Kayles(n) => (1..=2.min(n))
                .flat_map(|k| {
                    (0..=n - k).map(move |a| vec![Game::Kayles(a), Game::Kayles(n - k - a)])
                })
                .collect(),
            Game::Dawson(n) => (0..=n.saturating_sub(2))
                .filter(|_| n >= 2)
                .map(|a| vec![Game::Dawson(a), Game::Dawson(n - 2 - a)])
                .collect(),
            Game::Split(n) => (1..n)
                .filter(|a| 2 * a < n)
                .map(|a| vec![Game::Split(a), Game::Split(n - a)])
                .collect(),
            Game::Wythoff(a, b) => {
                let mut options: Vec<Vec<Game>> =
                    (1..=a).map(|k| vec![Game::Wythoff(a - k, b)]).collect();
                options.extend((1..=b).map(|k| vec![Game::Wythoff(a, b - k)]));
                options.extend((1..=a.min(b)).map(|k| vec![Game::Wythoff(a - k, b - k)]));
                options
            }
            Game::Race(node) => {
                let to: &[char] = match node {
                    'a' => &['b', 'c'],
                    'b' => &['d'],
                    'c' => &['d', 'e'],
                    'd' | 'e' => &['f'],
                    _ => &[],
                };
                to.iter().map(|&node| vec![Game::Race(node)]).collect()
            }
        }
    }
}

/// The sums one move away, each with the moved component replaced in place.
fn moves(sum: &[Game]) -> Vec<Vec<Game>> {
    let mut result = Vec::new();
    for (i, component) in sum.iter().enumerate() {
        for option in component.options() {
            let mut next = sum[..i].to_vec();
            next.extend(option);
            next.extend_from_slice(&sum[i + 1..]);
            result.push(next);
        }
    }
    result
}

/// Whether the player to move wins the whole sum, and its remoteness (the
/// winner hurries, the loser delays), by minimax over the product of the
/// components (memoised on the sorted multiset).
fn solve(sum: &[Game], memo: &mut HashMap<Vec<Game>, (bool, u64)>) -> (bool, u64) {
    let mut key = sum.to_vec();
    key.sort();
    if let Some(&known) = memo.get(&key) {
        return known;
    }
    let children: Vec<(bool, u64)> = moves(sum).iter().map(|next| solve(next, memo)).collect();
    let losing = children
        .iter()
        .filter(|child| !child.0)
        .map(|child| child.1)
        .min();
    let result = match losing {
        Some(fastest) => (true, fastest + 1),
        None => (
            false,
            children.iter().map(|child| child.1 + 1).max().unwrap_or(0),
        ),
    };
    memo.insert(key, result);
    result
}

/// Whether the player to move wins the whole sum under misère play, where
/// the player who cannot move wins.
fn misere_wins(sum: &[Game], memo: &mut HashMap<Vec<Game>, bool>) -> bool {
    let mut key = sum.to_vec();
    key.sort();
    if let Some(&known) = memo.get(&key) {
        return known;
    }
    let next = moves(sum);
    let wins = next.is_empty() || next.iter().any(|next| !misere_wins(next, memo));
    memo.insert(key, wins);
    wins
}

fn wins(sum: &[Game], memo: &mut HashMap<Vec<Game>, (bool, u64)>) -> bool {
    solve(sum, memo).0
}

fn game() -> impl Strategy<Value = Game> {
    prop_oneof![
        (0u32..5).prop_map(Game::Heap),
        (0u32..5).prop_map(Game::Nim),
        (0u32..8).prop_map(Game::Sub),
        (0u32..6).prop_map(Game::Kayles),
        (0u32..7).prop_map(Game::Dawson),
        (0u32..9).prop_map(Game::Split),
        (0u32..3, 0u32..3).prop_map(|(a, b)| Game::Wythoff(a, b)),
        prop::sample::select(vec!['a', 'b', 'c', 'd', 'e', 'f']).prop_map(Game::Race),
    ]
}

fn show(sum: &[Game]) -> String {
    sum.iter().map(Game::source).collect::<Vec<_>>().join(" + ")
}

proptest! {
    #[test]
    fn the_xor_answer_agrees_with_minimax_over_the_sum(sum in prop::collection::vec(game(), 1..4)) {
        let position = show(&sum);
        let source = format!(
            "{DECLARATIONS}\ngrundy {position}\nwins? {position}\nbest_move {position}\nmoves {position}\n\
             crosscheck {position}\nremoteness {position}"
        );
        let found = answers(&source);
        let mut memo = HashMap::new();
        let wins = wins(&sum, &mut memo);

        prop_assert_eq!(&found[0].position, &position);
        prop_assert_eq!(found[0].value == Value::Grundy(0), !wins);
        prop_assert_eq!(&found[1].value, &Value::Wins(wins));
        match &found[2].value {
            Value::BestMove(Some(best)) => {
                prop_assert!(wins, "a best move in a lost position");
                let losing: Vec<String> = moves(&sum)
                    .iter()
                    .filter(|next| !self::wins(next, &mut memo))
                    .map(|next| show(next))
                    .collect();
                let result = best.result.clone().expect("a best move shows what it leaves");
                prop_assert!(losing.contains(&result), "{} is not a losing move from {}", result, position);
            }
            Value::BestMove(None) => prop_assert!(!wins, "no best move in a won position"),
            other => prop_assert!(false, "unexpected answer {:?}", other),
        }
        // Every move, in order, each marked winning iff it leaves a loss.
        let Value::Moves(listed) = &found[3].value else {
            panic!("expected moves, got {:?}", found[3].value);
        };
        let expected: Vec<(Option<String>, bool)> = moves(&sum)
            .iter()
            .map(|next| (Some(show(next)), !self::wins(next, &mut memo)))
            .collect();
        let listed: Vec<(Option<String>, bool)> = listed.iter().map(|line| (line.result.clone(), line.winning)).collect();
        prop_assert_eq!(listed, expected);
        // The engine's own search of the whole sum agrees, and finds the
        // same remoteness as the search written here.
        let Value::Crosscheck(check) = &found[4].value else {
            panic!("expected a crosscheck, got {:?}", found[4].value);
        };
        prop_assert!(check.agree() && check.search_wins == wins);
        let Value::Remoteness(remoteness) = &found[5].value else {
            panic!("expected remoteness, got {:?}", found[5].value);
        };
        prop_assert_eq!((remoteness.wins, remoteness.remoteness), solve(&sum, &mut memo));
    }
}

proptest! {
    #[test]
    fn misere_answers_agree_with_minimax_over_the_sum(sum in prop::collection::vec(game(), 1..4)) {
        let position = show(&sum);
        let source = format!(
            "{DECLARATIONS}\nwins? misere {position}\nbest_move misere {position}\n\
             moves misere {position}\ncrosscheck misere {position}"
        );
        let found = answers(&source);
        let mut memo = HashMap::new();
        let wins = misere_wins(&sum, &mut memo);

        prop_assert_eq!(&found[0].value, &Value::Wins(wins));
        let losing: Vec<String> = moves(&sum)
            .iter()
            .filter(|next| !misere_wins(next, &mut memo))
            .map(|next| show(next))
            .collect();
        match &found[1].value {
            Value::BestMove(Some(best)) => {
                let result = best.result.clone().expect("a best move shows what it leaves");
                prop_assert!(losing.contains(&result), "{} is not a losing move from {}", result, position);
            }
            Value::BestMove(None) => prop_assert!(losing.is_empty(), "no best move in a won position"),
            other => prop_assert!(false, "unexpected answer {:?}", other),
        }
        let Value::Moves(listed) = &found[2].value else {
            panic!("expected moves, got {:?}", found[2].value);
        };
        let expected: Vec<(Option<String>, bool)> = moves(&sum)
            .iter()
            .map(|next| (Some(show(next)), !misere_wins(next, &mut memo)))
            .collect();
        let listed: Vec<(Option<String>, bool)> = listed.iter().map(|line| (line.result.clone(), line.winning)).collect();
        prop_assert_eq!(listed, expected);
        let Value::Crosscheck(check) = &found[3].value else {
            panic!("expected a crosscheck, got {:?}", found[3].value);
        };
        prop_assert!(check.agree() && check.search_wins == wins);
    }
}
