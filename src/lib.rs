//! sprague: Sprague–Grundy theory for impartial games declared in the
//! `.game` language.

pub mod engine;
pub mod lower;
pub mod syntax;
