//! The long fuzzing run: `cargo run --release --example fuzz -- SECONDS
//! [SEED]`. Mutated inputs run through sprague until the time is up; any
//! that crashes, hangs or prints an error that is not JSON is saved under
//! `tests/fuzzing/corpus/`, which `cargo test` replays from then on.
//!
//! This program is its own sprague: run with `SPRAGUE_FUZZ_CHILD` set, it
//! is the command line itself, so that nothing else needs building.

#[path = "../tests/fuzzing/mod.rs"]
mod fuzzing;

use std::process::ExitCode;
use std::time::{Duration, Instant};

const CHILD: &str = "SPRAGUE_FUZZ_CHILD";

fn main() -> ExitCode {
    if std::env::var_os(CHILD).is_some() {
        return sprague::cli::main();
    }
    let mut args = std::env::args().skip(1);
    let seconds: u64 = args.next().and_then(|arg| arg.parse().ok()).unwrap_or(60);
    let seed: u64 = args
        .next()
        .and_then(|arg| arg.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |time| time.as_secs())
        });
    let program = std::env::current_exe().expect("the fuzzer's own path");
    let seeds = fuzzing::seeds();
    let mut random = fuzzing::Random::new(seed);
    let (started, limit) = (Instant::now(), Duration::from_secs(seconds));
    let (mut runs, mut failures) = (0u64, 0u64);
    println!(
        "fuzzing for {seconds} s from seed {seed}, {} seed inputs",
        seeds.len()
    );
    while started.elapsed() < limit {
        let input = fuzzing::input(&mut random, &seeds);
        runs += 1;
        if let Err(problem) = fuzzing::check(&program, &[(CHILD, "1")], &input) {
            failures += 1;
            println!("{problem}: saved as {}", fuzzing::save(&input).display());
        }
    }
    println!("{runs} inputs, {failures} failures");
    match failures {
        0 => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    }
}
