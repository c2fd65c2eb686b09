//! sprague: Sprague–Grundy theory for impartial games declared in the
//! `.game` language.
//!
//! The pipeline is text → [`syntax`] → [`lower`] → [`interp`] (which lists
//! a position's options) → [`engine`] (memoised mex, nim-sums, best moves)
//! → [`session`] (answers) → [`output`].
//!
//! The modules stand in layers, each importing only from the layers beneath
//! it (tests/architecture.rs keeps this; docs/ARCHITECTURE.md draws it),
//! from the bottom:
//!
//! 1. Foundations, nothing of the language: [`sources`] (named source
//!    texts), [`nimber`] (the nimber field), [`files`] (files replaced
//!    whole or not at all).
//! 2. [`values`]: sets, lists, regions and boards, and their operations.
//! 3. [`syntax`]: text to syntax trees.
//! 4. [`program`]: the lowered program, and the forms its rules compile to.
//! 5. [`eval`]: the evaluator of the program's expressions.
//! 6. [`engine`]: the memoised mex, sums, best moves, over any positions.
//! 7. [`octal`] (take-and-break tables), [`analysis`] (period proofs) and
//!    [`quotient`] (misère quotients).
//! 8. [`lower`]: syntax to program, names resolved, types checked,
//!    constants folded through [`eval`].
//! 9. [`interp`]: the program's positions and their options, for the
//!    engine.
//! 10. [`picture`]: move graphs and plots drawn.
//! 11. [`session`]: queries answered.
//! 12. [`output`]: answers written as text or JSON.
//! 13. [`front`]: what the front ends share (reading files, exit codes,
//!     progress lines and Ctrl-C).
//! 14. The front ends: [`repl`], [`serve`], [`lsp`]; then [`cli`], which
//!     starts them all.
//!
//! A session is the whole library in one call:
//!
//! ```
//! use sprague::engine::DEFAULT_MAX_STATES;
//! use sprague::session::{Event, Session, Value};
//!
//! let source = "game Sub(n) { move Sub(n - k) for k in {1, 2, 3} if k <= n }
//!               grundy Sub(10) + *1";
//! let mut values = Vec::new();
//! Session::new(DEFAULT_MAX_STATES).run("example.game", source, &mut |event| {
//!     if let Event::Answer(answer) = event {
//!         values.push(answer.value);
//!     }
//! });
//! // S(1,2,3) has values n mod 4, and a sum the XOR of its parts': 2 ^ 1.
//! assert_eq!(values, [Value::Grundy(3)]);
//! ```

/// Prints a line to standard output, like `println!`; when standard output
/// has been closed (`sprague repl | head`), the program ends quietly instead
/// of panicking.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if writeln!(std::io::stdout().lock(), $($arg)*).is_err() {
            std::process::exit(0);
        }
    }};
}

/// Prints to standard error, like `eprint!`; when standard error has been
/// closed (`sprague run f.game 2>&1 | head`), what is left is dropped
/// instead of panicking, and the run ends with its own exit code.
macro_rules! tell {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr().lock(), $($arg)*);
    }};
}

/// [`tell!`], with a newline, like `eprintln!`.
macro_rules! telln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

pub mod analysis;
pub mod cli;
pub mod engine;
pub mod eval;
pub mod files;
pub mod front;
pub mod interp;
pub mod lower;
pub mod lsp;
pub mod nimber;
pub mod octal;
pub mod output;
pub mod picture;
pub mod program;
pub mod quotient;
mod repl;
pub mod serve;
pub mod session;
pub mod sources;
pub mod syntax;
pub mod values;
