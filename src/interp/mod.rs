//! The interpreter: runs a lowered [`Program`]'s rules to list the options
//! of a position, for the engine ([`rules`] answers the engine's questions).
//! A position's options are listed in [`options`], read along tables in
//! [`sweep`] and as bit operations in [`nodes`]; positions are built from
//! sums in [`positions`]; codes' tables and proven periods are in
//! [`tables`]; aliases in [`aliases`]; and positions are shown as written
//! in [`show`] and [`written`]. Expressions are evaluated by
//! [`crate::eval`].

mod aliases;
mod chains;
pub mod graphs;
mod mirrors;
mod nodes;
mod options;
mod positions;
mod rules;
mod show;
mod sweep;
mod tables;
mod written;

use std::fmt;

use miette::SourceSpan;

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use smallvec::SmallVec;

use crate::analysis::{Period, Proof};
use crate::engine::{
    Address, BoxRules, Grundy, Mex, Options, Packed, Rules, Solved, TooManyOptions, Unknown,
    fold_listed,
};
use crate::eval::{Budget, EvalError, Spending, assignments, eval, quick, rule_assignments, value};
use crate::octal::Table;
use crate::program::*;
use crate::values::{Board, Region, Set, Value};
pub use rules::{packed_fits, packed_game, packed_graph, regraphed, repacked};
use sweep::{Count, Sweep};
pub use tables::{CodeTable, KnownPeriod, Periods, Tables};

/// A game's arguments, kept inline for up to two (most games have one).
pub type Args = SmallVec<[Value; 2]>;

/// A position of one game: what the engine interns and memoises.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Component {
    /// `*n`, whose value n is known without search.
    Heap(u64),
    /// `Name(args)`.
    Game(GameId, Args),
    /// `Graph.node`.
    Node(GraphId, NodeId),
}

/// What an interpreter on another thread is made of (see
/// [`Interpreter::for_thread`]).
#[derive(Clone, Copy)]
pub struct ForThreads<'p> {
    program: &'p Program,
    periods: Option<&'p Periods>,
}

/// The move rules of a program, as the engine sees them.
pub struct Interpreter<'p> {
    pub program: &'p Program,
    periods: Option<&'p Periods>,
    tables: Option<&'p Tables>,
    /// Set to stop the work under way (see [`Tables::set_stop`]).
    stop: Option<&'p AtomicBool>,
    /// The assignments left to the sums over bindings of one sum: nested
    /// sums share it, so that a sum of sums of sums is bounded as a whole
    /// (see [`Interpreter::over_bindings`]).
    sum_budget: Budget<'p>,
    /// How deep sums over bindings nest where this one is evaluated.
    sum_depth: Cell<usize>,
}

/// The work counted for each element of a set, region or list in an
/// option's position too large to be handled as bits: about what 64
/// options of a swept rule cost.
const WORK_PER_ELEMENT: u64 = 64;

/// The elements of an option's position that cost nothing beside the
/// option itself: a position as small as a set of bits (Chomp's list of
/// ten columns) is one option's work, as `--max-work` says.
const ELEMENTS_FREE: usize = 128;

/// The work an option of a position with these arguments costs beside
/// itself: its elements past the first [`ELEMENTS_FREE`].
fn elements_work(args: &[Value]) -> u64 {
    let elements = args_elements(args).saturating_sub(ELEMENTS_FREE);
    (elements as u64).saturating_mul(WORK_PER_ELEMENT)
}

/// The elements of a position's arguments: its sets', regions' and lists'
/// (an integer counts none).
fn args_elements(args: &[Value]) -> usize {
    let elements = args.iter().map(|arg| match arg {
        Value::Int(_) => 0,
        Value::Set(set) => set.len(),
        Value::Region(region) => region.nodes.len(),
        Value::List(list) => list.len(),
    });
    elements.sum()
}

/// The elements a position holds (see [`args_elements`]): what a copy of
/// it costs in memory, beside a word or two.
pub fn elements(position: &Component) -> usize {
    match position {
        Component::Game(_, args) => args_elements(args),
        Component::Heap(_) | Component::Node(..) => 0,
    }
}

/// The work (`--max-work`'s count) of each option listed of a position:
/// one, and the elements of a large board, which every option copies and
/// splits (see [`WORK_PER_ELEMENT`]).
pub fn work_per_option(position: &Component) -> u64 {
    match position {
        Component::Game(_, args) => elements_work(args).saturating_add(1),
        Component::Heap(_) | Component::Node(..) => 1,
    }
}

impl<'p> Interpreter<'p> {
    /// The arguments of the position at a dense address: the address's
    /// last coordinates, as many as its game has parameters (a table whose
    /// game was dropped is read by its leading zeros, see
    /// [`Rules::at_address`]).
    fn address_args<C: FromIterator<Value>>(&self, address: Address) -> C {
        let at = address.point();
        let arity = match self.program.games.get(address.table as usize) {
            Some(game) => game.params.len().clamp(1, 4),
            None => 4 - at[..3].iter().take_while(|&&at| at == 0).count(),
        };
        at[4 - arity..]
            .iter()
            .map(|&at| Value::Int(i64::from(at)))
            .collect()
    }

    pub fn new(program: &'p Program) -> Self {
        Interpreter {
            program,
            periods: None,
            tables: None,
            stop: None,
            sum_budget: Budget::sum(MAX_SUM_COMPONENTS as usize),
            sum_depth: Cell::new(0),
        }
    }

    /// An interpreter that answers from proven periods and code tables
    /// where it can.
    pub fn with_memos(program: &'p Program, periods: &'p Periods, tables: &'p Tables) -> Self {
        Interpreter {
            periods: Some(periods),
            tables: Some(tables),
            ..Interpreter::stopped_with(program, tables)
        }
    }

    /// An interpreter for another thread of a search: the same program
    /// and proven periods, without the code tables this thread fills.
    /// `threads` is what [`Interpreter::threads`] gives.
    pub fn for_thread(threads: ForThreads<'p>) -> Interpreter<'p> {
        Interpreter {
            periods: threads.periods,
            ..Interpreter::new(threads.program)
        }
    }

    /// What another thread needs to make an interpreter of its own (see
    /// [`Interpreter::for_thread`]).
    pub fn threads(&self) -> ForThreads<'p> {
        ForThreads {
            program: self.program,
            periods: self.periods,
        }
    }

    /// The plain interpreter, stopped by the flag that stops `tables`' work
    /// but answering from none of them.
    pub fn stopped_with(program: &'p Program, tables: &'p Tables) -> Self {
        Interpreter {
            stop: tables.stop.as_deref(),
            sum_budget: Budget::sum(MAX_SUM_COMPONENTS as usize).with_stop(tables.stop.as_deref()),
            ..Interpreter::new(program)
        }
    }

    /// Whether the flag that stops the work under way is set.
    pub fn stopped(&self) -> bool {
        self.stop.is_some_and(|stop| stop.load(Ordering::Relaxed))
    }

    /// Stops with [`EvalError::Interrupted`] once the stop flag is set.
    #[inline]
    fn go_on(&self, span: SourceSpan) -> Result<(), EvalError> {
        match self.stopped() {
            true => Err(EvalError::Interrupted { span }),
            false => Ok(()),
        }
    }
}
