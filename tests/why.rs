//! `why` and `strategy`: the proof behind a value, checked against the
//! theorem's statements (every value below g has an option, g has none; a
//! sum's XOR, the part with its highest bit) with values from OEIS.

mod common;

use common::{answers, sprague};
use serde_json::Value as Json;
use sprague::output;

const KAYLES: &str =
    "game Kayles(n) { move Kayles(a) + Kayles(n - k - a) for k in 1..=2, a in 0..=n - k }\n";

/// Kayles values, OEIS A002186.
const A002186: [u64; 13] = [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4];

/// The JSON answers to a source's queries.
fn json(source: &str) -> Vec<Json> {
    answers(source).iter().map(output::json).collect()
}

#[test]
fn why_names_an_option_of_each_smaller_value_and_none_of_the_value() {
    for (n, &g) in A002186.iter().enumerate() {
        let found = json(&format!("{KAYLES}why Kayles({n})\nmoves Kayles({n})"));
        let (why, moves) = (&found[0], &found[1]);
        assert_eq!(why["value"], g, "Kayles({n})");
        let proof = &why["proof"];
        assert_eq!(proof["rule"], "mex");
        let witnesses = proof["witnesses"].as_array().unwrap();
        // One witness per value below g, of that value, in order.
        let values: Vec<u64> = witnesses
            .iter()
            .map(|w| w["value"].as_u64().unwrap())
            .collect();
        assert_eq!(values, (0..g).collect::<Vec<_>>(), "Kayles({n})");
        // Every witness is a move `moves` lists, with the value it gives.
        let options = moves["options"].as_array().unwrap();
        assert_eq!(proof["options"], options.len(), "Kayles({n})");
        for witness in witnesses {
            let listed = options
                .iter()
                .find(|option| option["result"] == witness["result"])
                .unwrap_or_else(|| panic!("{witness} is no move of Kayles({n})"));
            assert_eq!(listed["grundy"], witness["value"]);
        }
        // And no option has the value itself.
        assert!(options.iter().all(|option| option["grundy"] != g));
    }
}

#[test]
fn why_a_sum_works_the_xor_in_binary() {
    let found = json("why *3 + *4 + *5\nwhy *3 + *3\nwhy *6 + *1 + *5");
    let proof = &found[0]["proof"];
    assert_eq!(found[0]["value"], 2);
    assert_eq!(proof["binary"], serde_json::json!(["011", "100", "101"]));
    assert_eq!(proof["xor"], "010");
    // 3 has the XOR's highest bit (2): 3 ⊕ 2 = 1, so *3 goes to *1.
    assert_eq!(proof["part"], 0);
    assert_eq!(proof["move"]["to"], "*1");
    assert_eq!(found[1]["value"], 0);
    assert_eq!(found[1]["proof"]["part"], Json::Null);
    // 6 ⊕ 1 ⊕ 5 = 2: *6 has bit 2 (6 ⊕ 2 = 4 < 6); *1 and *5 do not.
    assert_eq!(found[2]["proof"]["part"], 0);
    assert_eq!(found[2]["proof"]["move"]["to"], "*4");
    let text = output::text(&answers("why *3 + *4 + *5")[0]);
    assert!(text.contains("XOR  010  2"), "{text}");
    assert!(
        text.contains("*3 has the XOR's highest bit: 3 ⊕ 2 = 1 < 3"),
        "{text}"
    );
}

#[test]
fn strategy_replies_as_the_proof_does() {
    for (n, &g) in A002186.iter().enumerate().skip(1) {
        let found = json(&format!("{KAYLES}strategy Kayles({n})"));
        let strategy = &found[0];
        assert_eq!(strategy["n"], g);
        for row in strategy["replies"].as_array().unwrap() {
            let (first, reply) = (&row["first"], &row["reply"]);
            // What the first move leaves is worth n_j ⊕ g.
            let left = first["value"].as_u64().unwrap();
            let heap = format!("*{g}");
            match row["case"].as_u64().unwrap() {
                1 => {
                    // A went to n_j < g: the heap goes down to n_j.
                    assert!(left ^ g < g, "{row}");
                    assert_eq!(reply["from"], heap.as_str(), "{row}");
                    assert_eq!(reply["to"], format!("*{}", left ^ g), "{row}");
                }
                2 => {
                    // The heap went down to n′: A moves to a value n′.
                    assert_eq!(first["from"], heap.as_str(), "{row}");
                    assert_ne!(reply["from"], heap.as_str(), "{row}");
                }
                3 => {
                    // A went to n_j > g: A_j moves back to a value g.
                    assert!(left ^ g > g, "{row}");
                    assert_ne!(reply["from"], heap.as_str(), "{row}");
                }
                other => panic!("case {other}"),
            }
            // Every reply leaves value 0.
            let result = reply["result"].as_str().unwrap();
            let value = json(&format!("{KAYLES}grundy {result}"));
            assert_eq!(value[0]["value"], 0, "{row}");
        }
    }
}

#[test]
fn play_replies_with_the_strategy() {
    // In Kayles(4) + *1, taking the middle pins of four leaves
    // Kayles(1) + Kayles(1) (worth 0 < 1): the proof's reply, and play's,
    // takes the heap.
    let strategy = json(&format!("{KAYLES}strategy Kayles(4)"));
    let row = strategy[0]["replies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["first"]["to"] == "Kayles(1) + Kayles(1)")
        .unwrap()
        .clone();
    assert_eq!(row["case"], 1);
    assert_eq!(row["reply"]["from"], "*1");
    let input = format!("{KAYLES}play Kayles(4) + *1\nKayles(1) + Kayles(1) + *1\n:quit\n");
    let output = sprague(&["repl"], &input);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("sprague: *1 -> *0, leaving Kayles(1) + Kayles(1)"),
        "{text}"
    );
}

#[test]
fn why_explains_loopy_values_and_misere_genera() {
    let source = "graph Round {\n  a -> b\n  b -> c\n  c -> a, exit\n  d -> d, a\n}\n";
    let found = json(&format!(
        "{source}why Round.b\nwhy Round.d\nwhy misere *2 + *1\nwhy misere *1 + *1"
    ));
    // b = 0: its one option c is worth 2, and c reverses to exit (0).
    let b = &found[0];
    assert_eq!(b["value"], 0);
    let reversal = &b["proof"]["reversals"][0];
    assert_eq!(reversal["option"]["to"], "Round.c");
    assert_eq!(reversal["option"]["value"], 2);
    assert_eq!(reversal["back"]["value"], 0);
    // d reaches a (1) and itself: 0 would be its value, but d (∞) has no
    // move to a position of value 0.
    let d = &found[1];
    assert_eq!(d["value"], "inf");
    assert_eq!(d["proof"]["candidate"], 0);
    assert_eq!(d["proof"]["unreversed"]["to"], "Round.d");
    // Misère Nim: with a heap of 2 or more, the player to move wins iff
    // the XOR is not 0 (*2 + *1: 3); with every heap 1, iff their count is
    // even (*1 + *1: take one, and the other player must take the last).
    assert_eq!(found[2]["proof"]["rule"], "genus");
    assert_ne!(found[2]["value"], 0);
    assert_ne!(found[3]["value"], 0);
    assert_eq!(found[3]["proof"]["genus"], "0^120");
}

/// An empty board splits into no parts: `why` explains it as the terminal
/// position it is (no options, value 0), not as a sum with an empty XOR
/// table, whichever way the board was emptied.
#[test]
fn why_an_empty_board_says_it_has_no_options() {
    let cram = "game Cram(s) splits up to symmetry {\n  move Cram(s - {a, b}) for a in s, b in neighbours(s, a) if a < b\n}\n";
    for board in ["Grid(0, 3)", "Grid(3, 0)", "Grid(2, 2) - {0, 1, 2, 3}"] {
        let found = json(&format!("{cram}why Cram({board})"));
        assert_eq!(found[0]["value"], 0, "{board}");
        assert_eq!(found[0]["proof"]["rule"], "mex", "{board}: {}", found[0]);
        assert_eq!(found[0]["proof"]["options"], 0, "{board}");
    }
    let text = sprague(&["run", "-"], &format!("{cram}why Cram(Grid(0, 3))\n"));
    let stdout = String::from_utf8_lossy(&text.stdout);
    assert!(
        stdout.contains("no options: the player to move loses"),
        "{stdout}"
    );
    assert!(!stdout.contains("XOR"), "{stdout}");
}
