//! A short fuzzing run on every `cargo test` (fixed seeds, so that it is
//! repeatable), and every input the fuzzer ever saved, replayed. The long
//! run is `cargo run --release --example fuzz -- SECONDS`.

mod fuzzing;

use std::path::Path;

fn sprague() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_sprague"))
}

#[test]
fn saved_inputs_get_an_answer_or_a_clear_error() {
    let mut replayed = 0;
    for entry in std::fs::read_dir(fuzzing::corpus_dir()).unwrap() {
        let path = entry.unwrap().path();
        let input = std::fs::read(&path).unwrap();
        if let Err(problem) = fuzzing::check(sprague(), &[], &input) {
            panic!("{}: {problem}", path.display());
        }
        replayed += 1;
    }
    assert!(replayed > 0, "the corpus is empty");
}

#[test]
fn mutated_inputs_get_an_answer_or_a_clear_error() {
    let seeds = fuzzing::seeds();
    assert!(seeds.len() > 20, "only {} seeds", seeds.len());
    let mut random = fuzzing::Random::new(2026);
    for round in 0..120 {
        let input = fuzzing::input(&mut random, &seeds);
        if let Err(problem) = fuzzing::check(sprague(), &[], &input) {
            let saved = fuzzing::save(&input);
            panic!(
                "round {round}: {problem}; input saved as {}",
                saved.display()
            );
        }
    }
}
