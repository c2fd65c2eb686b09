//! sprague: Sprague–Grundy theory for impartial games declared in the
//! `.game` language.

pub mod cli;
pub mod engine;
pub mod interp;
pub mod lower;
pub mod output;
mod repl;
pub mod session;
pub mod sources;
pub mod syntax;
