//! What a session tells whoever runs it: events, each answer with its
//! value (a nimber, an outcome, moves, a picture, …), and the stages of a
//! long query.

use super::*;

/// The answer to one query, or one row of a query's table, ready to print.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub query: QueryKind,
    /// The position asked about, or for `period` and `diff` the games.
    pub position: String,
    /// The values of the query's bindings, for a table row.
    pub bindings: Vec<(String, i64)>,
    pub value: Value,
    /// The play convention, for the queries that may be asked under either.
    pub play: Option<Play>,
    /// How the answer was found, when not by search: `"period"`,
    /// `"quotient"`.
    pub by: Option<&'static str>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Grundy(Grundy),
    /// The value ∞(K) of a loopy position: K, the finite values it reaches.
    Infinite(Vec<Grundy>),
    Wins(bool),
    /// `wins?` of a position that neither player can win: play goes on
    /// forever.
    Draw,
    /// The winning move, or `None` when the position has value 0.
    BestMove(Option<MoveLine>),
    /// Every move, in order.
    Moves(Vec<MoveLine>),
    /// Whether the position equals `other` as a game.
    Equal {
        other: String,
        equal: bool,
    },
    /// A search of the whole sum against the XOR rule.
    Crosscheck(Crosscheck),
    Remoteness(Remoteness),
    Genus(Genus),
    /// A move graph, from `draw`.
    Graph(Picture),
    /// A scatter plot of values, from `plot`.
    Plot(Picture),
    /// The period of a game, or `None` when none was found.
    Period {
        period: Option<Period>,
        checked_to: usize,
    },
    Diff(Diff),
    /// The proof of a value, from `why`.
    Why(why::Why),
    /// The second player's replies in A + *n, n the value of A.
    Strategy {
        n: Grundy,
        rows: Vec<why::StrategyRow>,
    },
    /// A misère quotient, from `quotient G up to N`.
    Quotient(QuotientReport),
}

/// A misère quotient as the papers print it: every element a word in the
/// generators, each the least word of its element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuotientReport {
    pub game: String,
    pub up_to: u32,
    pub order: usize,
    /// Each generator's letter and the heap it is.
    pub generators: Vec<(String, u32)>,
    /// `left = right`.
    pub relations: Vec<(String, String)>,
    pub elements: Vec<String>,
    /// The elements whose sums the player to move loses.
    pub p_portion: Vec<String>,
    /// The element of each heap 0..=up_to.
    pub pretending: Vec<String>,
}

/// A picture: its text (DOT or SVG), the file it was written to, and how
/// many nodes (`draw`) or points (`plot`) it has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picture {
    pub format: &'static str,
    pub content: String,
    pub file: Option<String>,
    pub size: usize,
}

/// The theory's answer beside a search of the whole sum: under normal play
/// the XOR rule's value, under misère play the misère Grundy value genus
/// theory gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Crosscheck {
    pub grundy: Grundy,
    pub search_wins: bool,
    pub positions: usize,
    /// Whether the search met two heads on one coin and turned them to
    /// tails: it searched boards of coins, not sums of heads.
    pub boards: bool,
    /// Each part of the sum with the positions it reaches: the table of
    /// values the theory needs for it, where the search walks the product.
    pub tables: Vec<Table>,
}

/// One part of a sum and the positions a table of its values holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    pub part: String,
    pub positions: usize,
}

impl Crosscheck {
    pub fn agree(&self) -> bool {
        (self.grundy != 0) == self.search_wins
    }
}

/// Moves to the end when the winner hurries and the loser delays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remoteness {
    pub remoteness: u64,
    pub wins: bool,
    /// The move that achieves it.
    pub best: Option<MoveLine>,
    pub positions: usize,
}

/// Two games compared position by position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diff {
    /// The game compared, when `a` and `b` are the files that declare it.
    pub game: Option<String>,
    pub a: String,
    pub b: String,
    pub positions: usize,
    pub flips: usize,
    /// The positions whose values differ, in order.
    pub rows: Vec<DiffRow>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffRow {
    pub bindings: Vec<(String, i64)>,
    pub a: Grundy,
    pub b: Grundy,
    /// Whether the outcome (win or loss for the player to move) differs.
    pub flip: bool,
}

/// A move: component `part` of the sum (counted from 0), `from`, becomes
/// `to`, leaving `result` of value `grundy`; it is `winning` when that value
/// is 0, and `drawing` when it leaves a draw (a loopy position the next
/// player cannot win). In a list of the moves of a sum of more than
/// [`WHOLE_SUM_PARTS`] parts, `result` is left out: written on every line,
/// the whole sum would make the list grow as the square of the sum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveLine {
    pub part: u32,
    pub from: String,
    pub to: String,
    pub result: Option<String>,
    pub grundy: Gamma,
    pub winning: bool,
    pub drawing: bool,
}

/// The most parts a sum may have for each of its listed moves to repeat
/// the whole sum it leaves.
pub const WHOLE_SUM_PARTS: usize = 16;

/// A position and its moves, for a game played against the engine.
#[derive(Debug, Clone)]
pub struct PlayMove {
    pub line: MoveLine,
    /// The move: which part becomes what (see [`PlayMove::result`]).
    pub r#move: Move<Component>,
    /// The move as written: `written` made in `written_in`, the position
    /// as written (see [`Session::written_moves`] and
    /// [`PlayMove::leaves`]). Every move of a list shares one
    /// `written_in`, so a list of a long sum's moves does not grow as the
    /// square of the sum.
    pub written: Move<Component>,
    pub written_in: Arc<[Component]>,
}

impl PlayMove {
    /// The position the move leaves, as written.
    pub fn leaves(&self) -> Vec<Component> {
        self.written.apply(&self.written_in)
    }

    /// The sum the move leaves, of the sum it was listed from.
    pub fn result(&self, sum: &[Component]) -> Vec<Component> {
        self.r#move.apply(sum)
    }

    /// The first winning move, else the first that keeps a loopy game
    /// drawn (else, the engine plays [`Session::longest_play`]).
    pub fn winning_or_drawing(moves: &[PlayMove]) -> Option<&PlayMove> {
        moves
            .iter()
            .find(|choice| choice.line.winning)
            .or_else(|| moves.iter().find(|choice| choice.line.drawing))
    }
}

/// A request to play a position against the engine, from a `play` query.
#[derive(Debug, Clone)]
pub struct PlayRequest {
    /// The position as written: a game on a board kept whole.
    pub position: Vec<Component>,
    /// Normal play, or misère (`play misere P`).
    pub play: Play,
    pub span: SourceSpan,
}

/// What running a source yields, in order.
#[derive(Debug)]
pub enum Event {
    Answer(Answer),
    /// Something the user should know that is neither answer nor error.
    Note(String),
    /// A `play` query, in an interactive session.
    Play(PlayRequest),
    Error(Report),
}

/// How far a long query of the session's own went, for a front end to
/// show beside the engine's progress (see [`Session::set_stages`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stage {
    /// `period G`: `values` computed, and no period up to `largest` (half
    /// of them) proven from them.
    Period {
        game: String,
        values: usize,
        largest: usize,
    },
    /// `sprague certify`: the positions found so far, the work of listing
    /// their options (`--max-work`'s count), and the claims made.
    Certify {
        parts: usize,
        listed: u64,
        claimed: usize,
    },
    /// `sprague verify`: the claims checked so far, of all.
    Verify { checked: usize, claims: usize },
    /// `quotient G up to N`: heaps 0..=`heap` done, the quotient of order
    /// `order`.
    Quotient {
        game: String,
        heap: usize,
        order: usize,
    },
}

/// Told of each [`Stage`] a long query reaches.
pub type Stages = Box<dyn FnMut(&Stage) + Send>;

/// Tells the front end, if it listens, how far a long query went.
pub(super) fn tell(stages: &mut Option<Stages>, stage: Stage) {
    if let Some(stages) = stages.as_mut() {
        stages(&stage);
    }
}

/// A declaration as it is listed by `:games`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    pub kind: &'static str,
    pub name: String,
    pub detail: String,
}
