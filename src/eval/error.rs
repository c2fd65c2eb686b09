//! Errors of evaluation: arithmetic, limits and loopy move graphs.

use miette::{Diagnostic, SourceSpan};
use thiserror::Error;

#[derive(Debug, Clone, Error, Diagnostic, PartialEq, Eq)]
pub enum EvalError {
    #[error("the positions of `{game}` run off without end: {chain}")]
    #[diagnostic(
        code(sprague::eval::runs_off),
        help(
            "guard the rule so that `{parameter}` stays at 0 or more: for an argument `{parameter} - k`, that is `if k <= {parameter}`"
        )
    )]
    RunsOff {
        game: String,
        parameter: String,
        chain: String,
        #[label(primary, "solving this never ends")]
        span: SourceSpan,
        #[label("`{parameter}` falls below 0 here, and keeps falling")]
        argument: Option<SourceSpan>,
    },

    #[error("the positions grow without end: {chain}")]
    #[diagnostic(
        code(sprague::eval::grows_forever),
        help(
            "`{parameter}` only grows along these moves, so no play ends: bound it with a guard, e.g. `if {parameter} < 100`"
        )
    )]
    GrowsForever {
        parameter: String,
        chain: String,
        #[label(primary, "solving this never ends")]
        span: SourceSpan,
        #[label("`{parameter}` grows here, with no bound")]
        argument: Option<SourceSpan>,
    },

    #[error("integer overflow{}{context}", in_op(op))]
    #[diagnostic(
        code(sprague::eval::overflow),
        help(
            "values are 64-bit signed integers, from -9223372036854775808 to 9223372036854775807"
        )
    )]
    Overflow {
        op: &'static str,
        #[label("this overflows")]
        span: SourceSpan,
        context: String,
    },

    #[error("{what} is not an integer{context}")]
    #[diagnostic(
        code(sprague::eval::not_an_integer),
        help("values are integers: guard the rule so that this is not asked, e.g. `if x >= 0`")
    )]
    NotAnInteger {
        what: &'static str,
        #[label("this has no integer value")]
        span: SourceSpan,
        context: String,
    },

    #[error("expected {expected}, found {found}{context}")]
    #[diagnostic(
        code(sprague::eval::wrong_type),
        help(
            "a parameter holds whatever its positions are given: an integer, a set `{{…}}`, a list `[…]` or a region such as `Grid(3, 4)`"
        )
    )]
    WrongType {
        expected: &'static str,
        found: &'static str,
        #[label("this is {found}")]
        span: SourceSpan,
        context: String,
    },

    #[error("{what}{context}")]
    #[diagnostic(code(sprague::eval::out_of_range), help("{help}"))]
    OutOfRange {
        what: String,
        help: &'static str,
        #[label("out of range")]
        span: SourceSpan,
        context: String,
    },

    #[error("a board of {} nodes is larger than {}", grouped(.nodes), grouped(.limit))]
    #[diagnostic(
        code(sprague::eval::board_too_large),
        help(
            "boards have at most {} nodes; the games studied on boards are solved on far smaller ones", grouped(.limit)
        )
    )]
    BoardTooLarge {
        nodes: u128,
        limit: usize,
        #[label("this board")]
        span: SourceSpan,
    },

    #[error("graph `{graph}` has no node `{node}`")]
    #[diagnostic(
        code(sprague::eval::no_such_node),
        help(
            "`Graph.(x)` names the node whose name is the number x; guard the query or rule so that x names one"
        )
    )]
    NoSuchNode {
        graph: String,
        node: String,
        #[label("no node has this number")]
        span: SourceSpan,
    },

    #[error("division by zero{context}")]
    #[diagnostic(
        code(sprague::eval::division_by_zero),
        help("guard the rule with a condition such as `if d != 0`")
    )]
    DivisionByZero {
        #[label("the divisor is 0 here")]
        span: SourceSpan,
        context: String,
    },

    #[error("a Nim heap cannot have {size} tokens{context}")]
    #[diagnostic(
        code(sprague::eval::negative_heap),
        help("heap sizes are 0 or more; guard the rule with a condition such as `if k <= n`")
    )]
    NegativeHeap {
        size: i64,
        #[label("this heap size is negative")]
        span: SourceSpan,
        context: String,
    },

    #[error("more than {}{context}", grouped_count(*.limit, .what.0, .what.1))]
    #[diagnostic(
        code(sprague::eval::too_many_options),
        help("raise the limit with `--max-states`, or narrow the bindings")
    )]
    TooManyOptions {
        limit: usize,
        what: Noun,
        #[label("this produces too many")]
        span: SourceSpan,
        context: String,
    },

    #[error("a sum over bindings of more than {}", grouped_count(*.limit, "component", "components"))]
    #[diagnostic(
        code(sprague::eval::sum_too_large),
        help(
            "a sum, with the sums nested in it, has at most {} components: narrow the bindings", grouped(.limit)
        )
    )]
    SumTooLarge {
        limit: usize,
        #[label("these bindings give too many components")]
        span: SourceSpan,
    },

    #[error("`{game}` stands for itself: {cycle}")]
    #[diagnostic(
        code(sprague::eval::alias_cycle),
        help(
            "a game declared `= POSITION` stands for that sum; where it names itself, the sum must reach a position that does not, e.g. `(X(n - 1) for j in 0..min(n, 1))`"
        )
    )]
    AliasCycle {
        game: String,
        cycle: String,
        #[label("this sum names `{game}` again with the same arguments")]
        span: SourceSpan,
    },

    #[error("the sum `{game}` stands for nests more than {limit} deep: {chain}")]
    #[diagnostic(
        code(sprague::eval::alias_too_deep),
        help(
            "a game declared `= POSITION` that names itself must reach a position that does not: bound its parameter with a sum over a range that ends, e.g. `(X(n - 1) for j in 0..min(n, 1))`; or raise `--max-states`"
        )
    )]
    AliasTooDeep {
        game: String,
        limit: usize,
        chain: String,
        #[label("expanding this never ends")]
        span: SourceSpan,
    },

    #[error("a table of more than {}", grouped_count(*.limit, "row", "rows"))]
    #[diagnostic(
        code(sprague::eval::too_many_rows),
        help("narrow the bindings, or raise the limit with `--max-rows N`")
    )]
    TooManyRows {
        limit: usize,
        #[label("these bindings give too many rows")]
        span: SourceSpan,
    },

    #[error(
        "a table that tries more than {} of its bindings",
        grouped_count(*.limit, "assignment", "assignments")
    )]
    #[diagnostic(
        code(sprague::eval::too_many_tried),
        help(
            "a table's work is every assignment of its bindings that is not a row by itself (those of the bindings before the last, and with a guard all of them) and the trial divisions of `divisors`: bind fewer values (e.g. `for j in i + 1..n` rather than `for j in 0..n if i < j`), or raise the limit with `--max-work N`"
        )
    )]
    TooManyTried {
        limit: u64,
        #[label("these bindings are tried too many times")]
        span: SourceSpan,
    },

    #[error("a list of more than {} moves to print", grouped(.limit))]
    #[diagnostic(
        code(sprague::eval::too_many_moves_listed),
        help(
            "each move is a row of this answer: raise the limit with `--max-rows N`, or ask `grundy`, `wins?` or `best_move`, which list none"
        )
    )]
    TooManyListed {
        limit: usize,
        #[label("this position has too many moves to list")]
        span: SourceSpan,
    },

    #[error("{board} has more than {} {what}", grouped(.limit))]
    #[diagnostic(
        code(sprague::eval::board_too_large),
        help(
            "a board of a family has at most {} {what}: ask for a smaller board; where the rules give an edge many times over or guard most assignments away, bind fewer values (e.g. `for j in i + 1..n` rather than `for j in 0..n if i < j`)", grouped(.limit)
        )
    )]
    TooManyEdges {
        board: String,
        limit: usize,
        what: &'static str,
        #[label("this rule gives too many")]
        span: SourceSpan,
    },

    #[error("this game is loopy: {cycle}")]
    #[diagnostic(
        code(sprague::eval::loopy),
        help(
            "this query needs every play to end; `grundy`, `wins?`, `best_move`, `moves` and `why` value loopy games (normal play)"
        )
    )]
    Loopy {
        cycle: String,
        #[label("this position reaches a cycle")]
        span: SourceSpan,
    },

    #[error("interrupted")]
    #[diagnostic(
        code(sprague::eval::interrupted),
        help(
            "it was stopped from outside (Ctrl-C, SIGTERM or SIGHUP; the page's Cancel); the queries after it \
             are not asked (in the REPL and on the page the values found so far are kept: ask again to go on; \
             `sprague run --save FILE` saves them for `--resume FILE`)"
        )
    )]
    Interrupted {
        #[label("this query was interrupted")]
        span: SourceSpan,
    },

    #[error("searching the whole sum would need {needed}, over the limit of {}", grouped(.limit))]
    #[diagnostic(
        code(sprague::eval::search_too_large),
        help("ask about a smaller sum, or raise the limit with `--max-search N`")
    )]
    SearchTooLarge {
        limit: usize,
        /// How many positions, with the noun: `more than 1 position`.
        needed: String,
        #[label("too large to search whole")]
        span: SourceSpan,
    },

    #[error(
        "a quotient up to heap {} has a row for each of {} heaps, past the limit of {}",
        grouped(.up_to), grouped(*.up_to as u64 + 1), grouped(.limit)
    )]
    #[diagnostic(
        code(sprague::eval::quotient_too_far),
        help("ask for the quotient of fewer heaps, or raise the limit with `--max-rows N`")
    )]
    QuotientTooFar {
        up_to: u32,
        limit: usize,
        #[label("this heap")]
        span: SourceSpan,
    },

    #[error(
        "the quotient's trial monoid at heap {heap} would pass {}",
        grouped_count(*.limit, "element", "elements")
    )]
    #[diagnostic(
        code(sprague::eval::quotient_too_large),
        help("ask for the quotient of fewer heaps, or raise the limit with `--max-quotient N`")
    )]
    QuotientTooLarge {
        heap: u32,
        limit: usize,
        #[label("this quotient")]
        span: SourceSpan,
    },

    #[error(
        "the quotient's trial monoid at heap {heap} has {elements} elements, and its table ({bytes}) does not fit in memory"
    )]
    #[diagnostic(
        code(sprague::eval::quotient_out_of_memory),
        help("lower `--max-quotient N` below {elements}, or ask for the quotient of fewer heaps")
    )]
    QuotientOutOfMemory {
        heap: u32,
        elements: usize,
        bytes: String,
        #[label("this quotient")]
        span: SourceSpan,
    },

    #[error(
        "no quotient was found for heap {heap}: no refinement of the trials answered every sum"
    )]
    #[diagnostic(
        code(sprague::eval::quotient_unresolved),
        help(
            "the quotients up to heap {heap} minus one are kept; misère sums with larger heaps are searched"
        )
    )]
    QuotientUnresolved {
        heap: u32,
        #[label("this quotient")]
        span: SourceSpan,
    },

    #[error("{heap} moves to {option}, which is not a sum of smaller heaps of its game")]
    #[diagnostic(
        code(sprague::eval::quotient_not_heaps),
        help(
            "a quotient is of a game of one parameter whose moves leave sums of its own smaller heaps"
        )
    )]
    QuotientNotHeaps {
        heap: String,
        option: String,
        #[label("this game's quotient")]
        span: SourceSpan,
    },

    #[error("the move graph has {count}, over the limit of {}", grouped_count(*.limit, "node", "nodes"))]
    #[diagnostic(
        code(sprague::eval::draw_too_large),
        help("draw a smaller position, or raise the limit with `--max-draw N`")
    )]
    DrawTooLarge {
        count: String,
        limit: usize,
        #[label("too large to draw")]
        span: SourceSpan,
    },

    #[error(
        "the move graph's positions are too large to draw: together they hold more than {elements}"
    )]
    #[diagnostic(
        code(sprague::eval::draw_too_heavy),
        help(
            "draw a smaller position: each node of the graph is a whole position, and a picture of a board this large could not be read"
        )
    )]
    DrawTooHeavy {
        elements: String,
        #[label("too large to draw")]
        span: SourceSpan,
    },

    #[error("a plot of more than {}", grouped_count(*.limit, "point", "points"))]
    #[diagnostic(
        code(sprague::eval::plot_too_large),
        help("plot a narrower range; a picture of more points cannot be read anyway")
    )]
    PlotTooLarge {
        limit: usize,
        #[label("too many points to plot")]
        span: SourceSpan,
    },

    #[error("`plot` needs finite values, and {position} = {value}")]
    #[diagnostic(
        code(sprague::eval::plot_infinite),
        help("a loopy position has no place on the axis; plot a range without it")
    )]
    PlotInfinite {
        position: String,
        value: String,
        #[label("this plot")]
        span: SourceSpan,
    },

    #[error("Graphviz could not draw the graph: {reason}")]
    #[diagnostic(
        code(sprague::eval::graphviz),
        help(
            "an `.svg` move graph is drawn by Graphviz's `dot`: install the graphviz package, or write DOT to a file not ending in `.svg`"
        )
    )]
    Graphviz {
        reason: String,
        #[label("this picture")]
        span: SourceSpan,
    },

    #[error("no picture format is written to a `.{extension}` file")]
    #[diagnostic(
        code(sprague::eval::unknown_format),
        help(
            "a move graph is written as .dot or .gv, or drawn by Graphviz as .svg, .png or .pdf; a plot is written as .svg or .png"
        )
    )]
    UnknownFormat {
        extension: String,
        #[label("this picture")]
        span: SourceSpan,
    },

    #[error("cannot write {path}: {reason}")]
    #[diagnostic(
        code(sprague::eval::unwritable),
        help("check that the folder exists and is writable")
    )]
    Unwritable {
        path: String,
        reason: String,
        #[label("this file")]
        span: SourceSpan,
    },

    #[error("cannot plot: {reason}")]
    #[diagnostic(
        code(sprague::eval::plot),
        help("plot a smaller range; this is a failure of the plotting library")
    )]
    PlotFailed {
        reason: String,
        #[label("this plot")]
        span: SourceSpan,
    },

    #[error("this session does not write files")]
    #[diagnostic(
        code(sprague::eval::files_refused),
        help("leave out `to \"…\"`: the picture comes back in the answer")
    )]
    FilesRefused {
        #[label("a file written on the server's machine")]
        span: SourceSpan,
    },

    #[error("`play` needs the REPL")]
    #[diagnostic(
        code(sprague::eval::play_needs_repl),
        help("run `sprague repl FILE` and type the `play` query there")
    )]
    PlayNeedsRepl {
        #[label("a game against the engine is played interactively")]
        span: SourceSpan,
    },

    #[error(
        "more than {} to look at while valuing the loopy positions {position} reaches",
        grouped_count(*.limit, "move", "moves")
    )]
    #[diagnostic(
        code(sprague::eval::too_many_moves),
        help(
            "`--max-states N` bounds the moves looked at as well as the positions: raise it, or ask about a smaller position"
        )
    )]
    TooManyMoves {
        limit: usize,
        position: String,
        #[label("valuing this needs more moves")]
        span: SourceSpan,
    },

    #[error(
        "the positions kept would hold more than {size} in their lists and sets, after {} {} solved, while expanding {position}",
        grouped(*.solved as u64), noun(*.solved as u64, "position was", "positions were")
    )]
    #[diagnostic(
        code(sprague::eval::positions_too_large),
        help(
            "`--max-table SIZE` bounds the memory of what positions hold (lists, large sets) as well as the tables': raise it if the machine has the room, set a lower state limit (`--max-states`) to stop sooner, or ask about a smaller position"
        )
    )]
    PositionsTooLarge {
        /// The bound, as `--max-table` reads it: `512 MB`.
        size: String,
        solved: usize,
        position: String,
        #[label("solving this needs more memory")]
        span: SourceSpan,
    },

    #[error("the sums searched would hold more than {size}, while expanding a sum with {position}")]
    #[diagnostic(
        code(sprague::eval::sums_too_large),
        help(
            "`--max-table SIZE` bounds the memory of the sums a search of whole sums keeps (`crosscheck`, `remoteness`, misère play) as well as the tables': raise it if the machine has the room, or ask about a smaller sum"
        )
    )]
    SumsTooLarge {
        /// The bound, as `--max-table` reads it: `512 MB`.
        size: String,
        position: String,
        #[label("searching this needs more memory")]
        span: SourceSpan,
    },

    #[error("more than {size} to hold the loopy positions {position} reaches")]
    #[diagnostic(
        code(sprague::eval::loopy_too_large),
        help(
            "`--max-table SIZE` bounds the memory of the graph loopy positions are valued on (every sum of them play reaches) as well as the tables': raise it if the machine has the room, or ask about a smaller position"
        )
    )]
    LoopyTooLarge {
        /// The bound, as `--max-table` reads it: `512 MB`.
        size: String,
        position: String,
        #[label("valuing this needs more memory")]
        span: SourceSpan,
    },

    #[error(
        "stopped after examining {} options, past the limit of {}, while expanding {position} ({})",
        grouped(*.examined), grouped(*.limit), progress(*.solved, *.of)
    )]
    #[diagnostic(code(sprague::eval::too_much_work), help("{raise}"))]
    TooMuchWork {
        limit: u64,
        examined: u64,
        position: String,
        /// Positions solved: of the table or box of `of` positions being
        /// filled, if it was one.
        solved: u64,
        of: Option<u64>,
        /// What raising the limit would allow; how many options the query
        /// needs is not known before it is solved.
        raise: String,
        #[label("solving this examines more options than the limit")]
        span: SourceSpan,
    },

    #[error(
        "stopped at the limit of {} distinct {} while expanding {position} of game `{game}`",
        grouped(*.limit as u64), noun(*.limit as u64, "position", "positions")
    )]
    #[diagnostic(code(sprague::eval::too_many_states), help("{raise}"))]
    TooManyStates {
        limit: usize,
        game: String,
        position: String,
        /// What raising the limit would allow.
        raise: String,
        #[label("solving this needs more positions")]
        span: SourceSpan,
    },

    #[error(
        "memory ran out after {} {} solved",
        grouped(*.solved as u64), noun(*.solved as u64, "position was", "positions were")
    )]
    #[diagnostic(code(sprague::eval::out_of_memory), help("{lower}"))]
    OutOfMemory {
        solved: usize,
        /// A state limit that stops the search before memory runs out.
        lower: String,
        #[label("solving this needs more memory than there is")]
        span: SourceSpan,
    },
}

/// ` in `+``, naming the operation that overflowed, when it is known.
fn in_op(op: &str) -> String {
    match op {
        "" => String::new(),
        op => format!(" in `{op}`"),
    }
}

/// The noun for a count: `one` for exactly one, `many` otherwise (`0
/// positions`, `1 position`).
pub fn noun<'a>(count: u64, one: &'a str, many: &'a str) -> &'a str {
    if count == 1 { one } else { many }
}

/// A count and its noun: `1 position`, `12 positions`.
pub fn count<N>(count: N, one: &str, many: &str) -> String
where
    N: std::fmt::Display + PartialEq + From<u8>,
{
    let noun = if count == N::from(1) { one } else { many };
    format!("{count} {noun}")
}

/// A count and its noun with the digits grouped, as limits are said in
/// diagnostics: `more than 1,000,000 rows` (answers and notes, which
/// scripts read, keep [`count`]).
pub fn grouped_count<N>(count: N, one: &str, many: &str) -> String
where
    N: std::fmt::Display + PartialEq + From<u8>,
{
    let noun = if count == N::from(1) { one } else { many };
    format!("{} {noun}", grouped(count))
}

/// How far work got: `3 positions solved so far`, or, filling a table
/// of known size, `7,932,156 positions solved of the 9,006,001 in its
/// table, 88%`.
fn progress(solved: u64, of: Option<u64>) -> String {
    match of {
        Some(of) if of > 0 => format!(
            "{} {} solved of the {} in its table, {}%",
            grouped(solved),
            noun(solved, "position", "positions"),
            grouped(of),
            u128::from(solved) * 100 / u128::from(of)
        ),
        _ => format!(
            "{} {} solved so far",
            grouped(solved),
            noun(solved, "position", "positions")
        ),
    }
}

/// A noun in the singular and the plural, to agree with a count:
/// `("option", "options")`.
pub type Noun = (&'static str, &'static str);

/// A count with its digits grouped by threes (`1,000,000`), as the
/// command line reads it back.
pub fn grouped(count: impl std::fmt::Display) -> String {
    let shown = count.to_string();
    let (sign, digits) = shown.split_at(shown.starts_with('-') as usize);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return shown;
    }
    let mut text = sign.to_owned();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            text.push(',');
        }
        text.push(digit);
    }
    text
}

impl EvalError {
    /// Forgets the operation named by an overflow when the source it marks
    /// does not show it: the checker rewrites some expressions (a bound
    /// derived from `max(k, c)` computes `c + 1`), and a report must not
    /// name an operation the user never wrote.
    pub fn as_written(mut self, marked: &str) -> Self {
        if let EvalError::Overflow { op, .. } = &mut self
            && !marked.contains(*op)
        {
            *op = "";
        }
        self
    }

    /// Says which position's options were being listed when this happened.
    pub fn while_expanding(self, position: &str) -> Self {
        self.in_context(format!(" while listing the options of {position}"))
    }

    /// Says which board of a family was being built.
    pub fn while_building(self, board: &str) -> Self {
        self.in_context(format!(" while building the board {board}"))
    }

    fn in_context(mut self, text: String) -> Self {
        match &mut self {
            EvalError::Overflow { context, .. }
            | EvalError::DivisionByZero { context, .. }
            | EvalError::NotAnInteger { context, .. }
            | EvalError::NegativeHeap { context, .. }
            | EvalError::WrongType { context, .. }
            | EvalError::OutOfRange { context, .. }
            | EvalError::TooManyOptions { context, .. } => {
                if context.is_empty() {
                    *context = text;
                }
            }
            EvalError::Loopy { .. }
            | EvalError::NoSuchNode { .. }
            | EvalError::BoardTooLarge { .. }
            | EvalError::RunsOff { .. }
            | EvalError::GrowsForever { .. }
            | EvalError::TooManyRows { .. }
            | EvalError::TooManyTried { .. }
            | EvalError::TooManyListed { .. }
            | EvalError::TooManyEdges { .. }
            | EvalError::SumTooLarge { .. }
            | EvalError::AliasCycle { .. }
            | EvalError::AliasTooDeep { .. }
            | EvalError::TooManyMoves { .. }
            | EvalError::LoopyTooLarge { .. }
            | EvalError::SumsTooLarge { .. }
            | EvalError::PositionsTooLarge { .. }
            | EvalError::TooManyStates { .. }
            | EvalError::OutOfMemory { .. }
            | EvalError::TooMuchWork { .. }
            | EvalError::Interrupted { .. }
            | EvalError::SearchTooLarge { .. }
            | EvalError::QuotientTooLarge { .. }
            | EvalError::QuotientTooFar { .. }
            | EvalError::QuotientOutOfMemory { .. }
            | EvalError::QuotientUnresolved { .. }
            | EvalError::QuotientNotHeaps { .. }
            | EvalError::DrawTooLarge { .. }
            | EvalError::DrawTooHeavy { .. }
            | EvalError::PlotInfinite { .. }
            | EvalError::PlotTooLarge { .. }
            | EvalError::Graphviz { .. }
            | EvalError::Unwritable { .. }
            | EvalError::UnknownFormat { .. }
            | EvalError::PlotFailed { .. }
            | EvalError::FilesRefused { .. }
            | EvalError::PlayNeedsRepl { .. } => {}
        }
        self
    }
}
