//! A session: the sources read so far, the declarations they made and one
//! engine whose memo lasts as long as the session. `sprague run` and the
//! REPL both feed sources to a session and print the events it yields.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use miette::{Diagnostic, Report, SourceSpan};

mod answer;
mod asked;
pub mod certificate;
mod errors;
mod events;
mod moves;
mod picture;
mod quotient;
mod rows;
pub mod saved;
mod threads;
pub mod why;
mod written;

pub use asked::{Asked, NotAName};
use events::tell;

/// The stack the evaluator runs on: deep nesting in a source recurses in
/// the parser and in expression evaluation, on the thread that reads the
/// sources and on each thread of a search. It is address space reserved,
/// not memory used: pages are touched only as deep as the recursion goes.
pub const STACK_SIZE: usize = 1 << 30;
pub use events::{
    Answer, Crosscheck, Diff, DiffRow, Event, Listing, MoveLine, Picture, PlayMove, PlayRequest,
    QuotientReport, Remoteness, Stage, Stages, Table, Value, WHOLE_SUM_PARTS,
};
pub use picture::{DEFAULT_MAX_DRAW, NotAGameName, PictureRequest};
pub use quotient::DEFAULT_MAX_QUOTIENT;
pub use saved::{DEFAULT_SAVE_EVERY, Saved};
pub use threads::address_space_limit;

use errors::engine_error;
use moves::{listed_move_line, valued_moves};

use crate::analysis::Period;
use crate::engine::{
    Engine, EngineError, Gamma, Genus, Grundy, Method, Misere, Move, Rules, Tally, Watcher,
};
use crate::interp::{Component, Interpreter, Periods, Tables};
use crate::lower::{self, CheckErrors};
use crate::program::{DeclarationKind, Play, Program, Query, QueryKind};
use crate::sources::Sources;
use crate::syntax::{self, ast};
use crate::values::{self, Board};

/// The default bound on the rows of a query's table.
pub const DEFAULT_MAX_ROWS: usize = 1_000_000;

/// The most bytes of one source: parsing and checking hold up to about
/// 170 bytes of tokens and tree for each byte of text (a file of short
/// queries; a set literal's elements about 120), so 8 MiB of text peaks at
/// about 1.4 GB, beside the evaluator's 1 GiB stack, within 4 GB; 16 MB of
/// queries did not fit.
pub const DEFAULT_MAX_SOURCE: usize = 8 * 1024 * 1024;

/// A source longer than the session reads at once.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error(
    "`{name}` is {}, more than the {} one source may hold",
    crate::eval::grouped_count(*.size, "byte", "bytes"),
    crate::eval::grouped_count(*.limit, "byte", "bytes")
)]
#[diagnostic(
    code(sprague::session::source_too_large),
    help(
        "parsing needs up to about 170 bytes of memory for each byte of text: split the file, or raise the limit with `--max-source N` if memory allows"
    )
)]
pub struct SourceTooLarge {
    name: String,
    size: usize,
    limit: usize,
    #[label("this source is too large to be read at once")]
    span: miette::SourceSpan,
}

/// The default bound on sums searched by `crosscheck` and `remoteness`.
pub const DEFAULT_MAX_SEARCH: usize = 1_000_000;

pub struct Session {
    sources: Sources,
    /// Proven periods, which answer for heaps of any size.
    periods: Periods,
    /// Value tables of the games given by codes.
    tables: Tables,
    /// The most sums a search of a whole sum may visit.
    max_search: usize,
    /// The most nodes `draw` draws.
    max_draw: usize,
    /// The declarations in force, in the order they were first made.
    declarations: Vec<Arc<ast::Statement>>,
    /// Where each name's declaration is in `declarations`.
    declared_at: rustc_hash::FxHashMap<String, usize>,
    program: Program,
    /// How many times declarations were replaced (which rebuilds the
    /// program), for [`Session::completions_since`].
    redeclared: u64,
    engine: Engine<Component>,
    /// The genera of the sums searched under misère play.
    misere: Misere<Component>,
    /// The most rows (assignments of its bindings) a query's table may have.
    max_rows: usize,
    /// The most bytes of one source.
    max_source: usize,
    /// Whether a later source may redeclare a name (the REPL), and `play`
    /// is allowed.
    interactive: bool,
    /// Whether `draw … to` and `plot … to` may write files.
    writes_files: bool,
    /// Told how far a long query went (see [`Stage`]).
    stages: Option<Stages>,
    /// The misère quotients computed, by game; misère sums of their heaps
    /// are answered from them.
    quotients: rustc_hash::FxHashMap<crate::program::GameId, crate::quotient::Quotient>,
    /// The most elements a trial monoid of a quotient may have.
    max_quotient: usize,
    /// Where the values are saved to and resumed from (`--save`, `--resume`).
    saving: saved::Saving,
}

/// How a query went: answered, failed, or stopped from outside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answered {
    Yes,
    Failed,
    Interrupted,
}

/// How far the names a completion offers were taken
/// ([`Session::completions_since`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct Completed {
    names: usize,
    graphs: usize,
    redeclared: u64,
    started: bool,
}

impl Session {
    pub fn new(max_states: usize) -> Self {
        Session {
            sources: Sources::default(),
            periods: Periods::default(),
            tables: Tables::default(),
            max_search: DEFAULT_MAX_SEARCH,
            max_draw: DEFAULT_MAX_DRAW,
            declarations: Vec::new(),
            declared_at: Default::default(),
            program: Program::default(),
            redeclared: 0,
            engine: {
                let mut engine = Engine::new(max_states);
                engine.set_max_listed(DEFAULT_MAX_ROWS);
                engine
            },
            misere: Misere::default(),
            max_rows: DEFAULT_MAX_ROWS,
            max_source: DEFAULT_MAX_SOURCE,
            interactive: false,
            writes_files: true,
            stages: None,
            quotients: Default::default(),
            max_quotient: quotient::DEFAULT_MAX_QUOTIENT,
            saving: saved::Saving::default(),
        }
    }

    /// A session for the REPL: redeclaring replaces, and `play` is allowed.
    pub fn interactive(max_states: usize) -> Self {
        Session {
            interactive: true,
            ..Session::new(max_states)
        }
    }

    /// Refuses every statement that would write a file (a session serving
    /// others: `sprague serve`).
    pub fn refuse_files(&mut self) {
        self.writes_files = false;
    }

    /// Where the next source read will start in the session's spans.
    pub fn next_offset(&self) -> usize {
        self.sources.next_offset()
    }

    /// The declarations in force made in the source read at `base`, as
    /// written, in order: empty for one that declared nothing new
    /// (queries, or declarations made again as they were).
    pub fn made_in(&self, base: usize) -> String {
        let extent = self.sources.extent(base);
        let texts: Vec<&str> = self
            .declarations
            .iter()
            .map(|statement| statement.span())
            .filter(|span| extent.contains(&span.offset()))
            .map(|span| self.sources.text(span))
            .collect();
        texts.join("\n")
    }

    /// Every declaration in force, as written, in an order in which they
    /// can be declared again, as one source: each after the `let`s and
    /// graph families it uses.
    pub fn in_force(&self) -> String {
        let texts: Vec<&str> = self
            .declarations
            .iter()
            .map(|statement| self.sources.text(statement.span()))
            .collect();
        texts.join("\n")
    }

    /// Lets go of the text of every source read but those a declaration
    /// in force was made in (which keep their whole text): a server sent
    /// the same source again and again, or sources that replace each
    /// other's declarations, keeps one text. Only once their queries are
    /// answered.
    pub fn release_unused(&mut self) {
        let mut kept: Vec<usize> = self
            .declarations
            .iter()
            .map(|statement| statement.span().offset())
            .collect();
        kept.sort_unstable();
        self.sources.release_all_but(&kept);
    }

    /// Sets the most sums `crosscheck` and `remoteness` may search.
    pub fn set_max_search(&mut self, max_search: usize) {
        self.max_search = max_search;
    }

    /// Sets the most elements a quotient's trial monoid may have
    /// (`--max-quotient`).
    pub fn set_max_quotient(&mut self, max_quotient: usize) {
        self.max_quotient = max_quotient;
    }

    /// Sets the most options one search may examine (`--max-work`).
    pub fn set_max_work(&mut self, max_work: u64) {
        self.engine.set_max_work(max_work);
    }

    /// Sets the most bytes the pruned search's table of values may hold
    /// before it forgets the cheapest (`--max-table`).
    pub fn set_max_table(&mut self, bytes: usize) {
        self.engine.set_max_table(bytes);
    }

    /// How many sessions with this one's limits may evaluate at once in
    /// a process whose address space is limited (`prlimit --as`): as many
    /// as their stacks fit beside one full table, as the threads of one
    /// search do; the server runs no more lanes at once. Without a limit,
    /// any number.
    pub fn at_once(&self) -> usize {
        threads::stacks_within_limit(self.engine.max_table())
    }

    /// The bytes the pruned search's table of values holds, and the most
    /// it held.
    pub fn table_bytes(&self) -> (usize, usize) {
        self.engine.table_bytes()
    }

    /// The positions of every box of a table the engine has solved whole
    /// since the session began, those known before counted again with
    /// each box that holds them: what asking a table costs.
    pub fn boxed(&self) -> u64 {
        self.engine.total_boxed()
    }

    /// How far the engine's work went since the session began: the
    /// positions it keeps, and those the pruned search listed.
    pub fn tally(&self) -> Tally {
        self.engine.tally()
    }

    /// Sets the threads that fill a code's table and solve a box of a
    /// game of rules (`--threads`); every core unless set.
    pub fn set_threads(&mut self, threads: usize) {
        self.tables.set_threads(threads);
        self.engine.set_threads(threads);
    }

    /// Sets how components are valued (`--method`): by the pruned search
    /// or the memo, or each where it pays.
    pub fn set_method(&mut self, method: Method) {
        self.engine.set_method(method);
    }

    /// Sets the most rows a query's table may have.
    pub fn set_max_rows(&mut self, max_rows: usize) {
        self.max_rows = max_rows;
        self.engine.set_max_listed(max_rows);
    }

    /// Sets the most bytes one source may have.
    pub fn set_max_source(&mut self, max_source: usize) {
        self.max_source = max_source;
    }

    /// Sets the most nodes `draw` may draw.
    pub fn set_max_draw(&mut self, max_draw: usize) {
        self.max_draw = max_draw;
    }

    /// Sets (or clears) the engine's progress watcher, which may interrupt.
    pub fn set_watcher(&mut self, watcher: Option<Watcher>) {
        self.engine.set_watcher(watcher);
    }

    /// Sets (or clears) a flag that interrupts the work under way once set,
    /// read also inside the listing and folding of one position's options,
    /// which on a large board take long between the watcher's calls.
    pub fn set_stop(&mut self, stop: Option<Arc<AtomicBool>>) {
        self.tables.set_stop(stop);
    }

    /// Whether the flag [`Session::set_stop`] gave is set: the work under
    /// way, and the queries after it, are to stop.
    pub fn stopped(&self) -> bool {
        self.tables.stopped()
    }

    /// Sets (or clears) the function told how far a long query went.
    pub fn set_stages(&mut self, stages: Option<Stages>) {
        self.stages = stages;
    }

    pub fn program(&self) -> &Program {
        &self.program
    }

    /// Parses and checks a source, adds its declarations to the session
    /// and answers its queries in order. Returns whether nothing failed.
    pub fn run(&mut self, name: &str, text: &str, sink: &mut dyn FnMut(Event)) -> bool {
        let queries = match self.declare(name, text, sink) {
            Ok(queries) => queries,
            Err(report) => {
                sink(Event::Error(report));
                return false;
            }
        };
        let mut ok = true;
        // Whether the last query failed for the stop, and said so.
        let mut said = false;
        for (i, query) in queries.iter().enumerate() {
            // Once stopped (Ctrl-C), the rest of the source is not asked.
            // A query the stop cut short says so itself; a stop that came
            // before any query (while a table was taken in) or between two
            // of them says so here, or the run would end without a word.
            if self.stopped() {
                let left = queries.len() - i;
                if i == 0 {
                    sink(Event::Note(format!(
                        "stopped before the queries of {name} were asked (Ctrl-C, SIGTERM or SIGHUP): none is asked"
                    )));
                } else if !said {
                    let queries = if left == 1 { "query" } else { "queries" };
                    sink(Event::Note(format!(
                        "stopped between two queries of {name} (Ctrl-C, SIGTERM or SIGHUP): the {left} {queries} left are not asked"
                    )));
                }
                return false;
            }
            let answered = self.answer_query_as(query, sink);
            said = answered == Answered::Interrupted;
            ok &= answered == Answered::Yes;
            if let Some(failure) = self.save_failure() {
                sink(Event::Note(failure));
            }
        }
        // Stopped while the last answer was given: the run ends as a
        // stopped one, and says why.
        if self.stopped() && !said && !queries.is_empty() {
            sink(Event::Note(format!(
                "stopped (Ctrl-C, SIGTERM or SIGHUP) as the last query of {name} was answered"
            )));
        }
        ok
    }

    /// Answers one of the queries [`Session::declare`] returned; an error
    /// goes to the sink. Returns whether it was answered.
    pub fn answer_query(&mut self, query: &Query, sink: &mut dyn FnMut(Event)) -> bool {
        self.answer_query_as(query, sink) == Answered::Yes
    }

    /// [`Session::answer_query`], saying whether a failure was the stop's.
    fn answer_query_as(&mut self, query: &Query, sink: &mut dyn FnMut(Event)) -> Answered {
        match self.answer(query, sink) {
            Ok(()) => Answered::Yes,
            Err(error) => {
                let interrupted = matches!(error, crate::eval::EvalError::Interrupted { .. });
                let marked = error.labels().and_then(|mut labels| labels.next());
                let marked = marked.map_or("", |label| self.sources.text(*label.inner()));
                let error = error.as_written(marked);
                sink(Event::Error(self.report(error)));
                match interrupted {
                    true => Answered::Interrupted,
                    false => Answered::Failed,
                }
            }
        }
    }

    /// Parses and checks a source and keeps its declarations, answering
    /// nothing; returns the queries it holds. In an interactive session a
    /// declaration may replace an earlier one of the same name: the values
    /// that depended on it are forgotten, and a note says so. The values
    /// a resumed table holds of the games now declared are taken in.
    pub fn declare(
        &mut self,
        name: &str,
        text: &str,
        sink: &mut dyn FnMut(Event),
    ) -> Result<Vec<Query>, Report> {
        let queries = self.declare_source(name, text, sink)?;
        self.take_in_resumed(sink)?;
        self.refresh_checkpoints();
        Ok(queries)
    }

    fn declare_source(
        &mut self,
        name: &str,
        text: &str,
        sink: &mut dyn FnMut(Event),
    ) -> Result<Vec<Query>, Report> {
        if text.len() > self.max_source {
            // Only its first line is kept, for the report to show.
            let mut first = text.find('\n').unwrap_or(text.len()).min(200);
            while !text.is_char_boundary(first) {
                first -= 1;
            }
            let base = self.sources.add(name, &text[..first]);
            return Err(self.report(SourceTooLarge {
                name: name.to_owned(),
                size: text.len(),
                limit: self.max_source,
                span: (base, first).into(),
            }));
        }
        let base = self.sources.add(name, text);
        let mut source = syntax::parse(text, base).map_err(|error| self.report(error))?;
        if self.interactive {
            // A declaration made again exactly as before (a file loaded
            // twice) changes nothing, and keeps its values.
            source
                .statements
                .retain(|statement| !self.is_unchanged(statement));
        }
        let replaced = match self.interactive {
            true => self.replacements(&source),
            false => Vec::new(),
        };
        if replaced.is_empty() {
            let statements: Vec<&ast::Statement> = source.statements.iter().collect();
            let queries = lower::lower(&mut self.program, &statements)
                .map_err(|errors| self.check_report(errors))?;
            let from = self.declarations.len();
            self.declarations.extend(
                source
                    .statements
                    .into_iter()
                    .filter(|statement| lower::declared_name(statement).is_some())
                    .map(Arc::new),
            );
            self.index_declarations(from);
            return Ok(queries);
        }
        self.redeclare(source, &replaced, sink)
    }

    /// Notes where the declarations from `from` on are, each name at its
    /// first.
    fn index_declarations(&mut self, from: usize) {
        for (index, statement) in self.declarations.iter().enumerate().skip(from) {
            if let Some(name) = lower::declared_name(statement) {
                self.declared_at.entry(name.name.clone()).or_insert(index);
            }
        }
    }

    /// Whether a declaration repeats one in force, word for word.
    fn is_unchanged(&self, statement: &ast::Statement) -> bool {
        let Some(name) = lower::declared_name(statement) else {
            return false;
        };
        self.source_of(&name.name)
            .is_some_and(|old| old == self.sources.text(statement.span()))
    }

    /// The indices of earlier declarations that `source` redeclares.
    fn replacements(&self, source: &ast::Program) -> Vec<usize> {
        let mut replaced = Vec::new();
        for statement in &source.statements {
            let Some(name) = lower::declared_name(statement) else {
                continue;
            };
            let earlier = self.declared_at.get(&name.name).copied();
            if let Some(index) = earlier.filter(|index| !replaced.contains(index)) {
                replaced.push(index);
            }
        }
        replaced
    }

    /// Lowers every declaration again with the replacements in place, and
    /// forgets the memoised values of whatever depends on a replaced name.
    fn redeclare(
        &mut self,
        source: ast::Program,
        replaced: &[usize],
        sink: &mut dyn FnMut(Event),
    ) -> Result<Vec<Query>, Report> {
        let mut declarations = self.declarations.clone();
        let mut queries = Vec::new();
        let mut seen = HashSet::new();
        for statement in source.statements {
            let Some(name) = lower::declared_name(&statement).map(|name| name.name.clone()) else {
                queries.push(statement);
                continue;
            };
            let earlier = replaced.iter().copied().find(|&index| {
                lower::declared_name(&declarations[index]).is_some_and(|old| old.name == name)
            });
            match earlier.filter(|_| seen.insert(name)) {
                Some(index) => declarations[index] = Arc::new(statement),
                None => declarations.push(Arc::new(statement)),
            }
        }
        let names: Vec<String> = replaced
            .iter()
            .filter_map(|&index| {
                lower::declared_name(&declarations[index]).map(|name| name.name.clone())
            })
            .collect();
        let lowered = |declarations: &[Arc<ast::Statement>]| {
            let statements: Vec<&ast::Statement> = declarations
                .iter()
                .map(|statement| statement.as_ref())
                .chain(&queries)
                .collect();
            let mut program = Program::default();
            lower::lower(&mut program, &statements).map(|queries| (program, queries))
        };
        // In their order, each replacement in the place of the declaration
        // it replaces; failing that (a `let k = m + 1` replacing a `k`
        // declared before the `m` it reads), each after what it names.
        // The names a declaration holds may be its own variables, so that
        // the second order may be wrong where the first is right; but an
        // order that checks is right, since nothing is read before it is
        // lowered.
        let (declarations, (program, lowered)) = match lowered(&declarations) {
            Ok(done) => (declarations, done),
            Err(errors) => {
                let reordered = uses_first(declarations.clone());
                match lowered(&reordered) {
                    Ok(done) => (reordered, done),
                    Err(_) => return Err(self.check_report(errors)),
                }
            }
        };
        let kinds_kept = names.iter().all(|name| {
            let kind =
                |program: &Program| program.names.get(name).map(|declaration| declaration.kind);
            kind(&self.program) == kind(&program)
        });
        let affected = dependents(&declarations, &names);
        self.declarations = declarations;
        self.declared_at.clear();
        self.index_declarations(0);
        self.program = program;
        self.redeclared += 1;
        self.periods.clear();
        self.tables.clear();
        self.misere.clear();
        self.quotients.clear();
        let forgotten = match kinds_kept {
            true => {
                let (games, graphs) = ids_of(&self.program, &affected);
                let interp = Interpreter::new(&self.program);
                // A region of a redeclared graph's board depends on it,
                // whatever its game: a board over 128 nodes is known by its
                // graph's id, which the new declaration keeps.
                let on_graph = |arg: &values::Value| match arg {
                    values::Value::Region(region) => match &region.board {
                        Board::Graph(graph) | Board::Edges(graph) => graphs.contains(&graph.id.0),
                        Board::Grid { .. } | Board::Path(_) | Board::Cycle(_) => false,
                    },
                    values::Value::Int(_) | values::Value::Set(_) | values::Value::List(_) => false,
                };
                self.engine.forget(&interp, |component| match component {
                    Component::Game(game, args) => {
                        games.contains(&game.0) || args.iter().any(on_graph)
                    }
                    Component::Node(graph, _) => graphs.contains(&graph.0),
                    Component::Heap(_) => false,
                })
            }
            // A name changed kind, so ids may have shifted: forget everything.
            false => self
                .engine
                .forget(&Interpreter::new(&self.program), |_| true),
        };
        for name in names {
            sink(Event::Note(format!(
                "redeclared `{name}`; forgot {forgotten} memoised value{} that depended on it",
                if forgotten == 1 { "" } else { "s" }
            )));
        }
        Ok(lowered)
    }

    /// The sum a position typed by the user stands for.
    pub fn parse_position(&mut self, name: &str, text: &str) -> Result<Vec<Component>, Report> {
        let terms = self.position_terms(name, text)?;
        let mut components = Vec::new();
        Interpreter::with_memos(&self.program, &self.periods, &self.tables)
            .position(&terms, &[], &mut |component| components.push(component))
            .map_err(|error| self.report(error))?;
        Ok(components)
    }

    /// [`Session::parse_position`], and the position as it was written: a
    /// game that splits kept whole, its region as typed (not its parts,
    /// each moved to the least of its images).
    pub fn parse_position_as_written(
        &mut self,
        name: &str,
        text: &str,
    ) -> Result<(Vec<Component>, Vec<Component>), Report> {
        let terms = self.position_terms(name, text)?;
        let interp = Interpreter::with_memos(&self.program, &self.periods, &self.tables);
        let (mut components, mut written) = (Vec::new(), Vec::new());
        interp
            .position(&terms, &[], &mut |component| components.push(component))
            .and_then(|()| interp.written_position(&terms, &[], &mut |part| written.push(part)))
            .map_err(|error| self.report(error))?;
        Ok((components, written))
    }

    /// The terms of a position typed by the user, parsed and checked.
    fn position_terms(
        &mut self,
        name: &str,
        text: &str,
    ) -> Result<Vec<crate::program::Term>, Report> {
        let base = self.sources.add(name, text);
        let sum = syntax::parse_position(text, base).map_err(|error| self.report(error))?;
        lower::position(&mut self.program, &sum).map_err(|errors| self.check_report(errors))
    }

    /// Every move of a sum, with what it leaves and the value of that.
    pub fn moves(&mut self, sum: &[Component], span: SourceSpan) -> Result<Vec<PlayMove>, Report> {
        let interp = Interpreter::with_memos(&self.program, &self.periods, &self.tables);
        let moves =
            threads::options_on_threads(&interp, &mut self.engine, sum, |interp, engine| {
                valued_moves(interp, engine, sum)
            });
        let moves = moves.map_err(|error| engine_error(&interp, error, span));
        let moves = moves.map_err(|error| self.report(error))?;
        let written_in: Arc<[Component]> = Arc::from(sum);
        Ok(moves
            .into_iter()
            .map(|(r#move, value)| PlayMove {
                line: listed_move_line(&interp, sum, &r#move, value),
                written: r#move.clone(),
                written_in: written_in.clone(),
                r#move,
            })
            .collect())
    }

    /// The sum the search makes of a position as written: a game on a
    /// board becomes its parts.
    pub fn parts(&self, position: &[Component]) -> Result<Vec<Component>, Report> {
        let interp = Interpreter::with_memos(&self.program, &self.periods, &self.tables);
        let mut sum = Vec::new();
        for term in position {
            sum.extend(
                interp
                    .parts_of_written(term)
                    .map_err(|error| self.report(error))?,
            );
        }
        Ok(sum)
    }

    /// Every move of a position as written, shown as `moves` shows it:
    /// by what it does on the board as written, leaving a position as
    /// written ([`PlayMove::leaves`]); [`PlayMove::r#move`] is the move of
    /// the search's sum, [`Session::parts`].
    pub fn written_moves(
        &mut self,
        position: &[Component],
        span: SourceSpan,
    ) -> Result<Vec<PlayMove>, Report> {
        let sum = self.parts(position)?;
        let mut moves = self.moves(&sum, span)?;
        let interp = Interpreter::with_memos(&self.program, &self.periods, &self.tables);
        let Some(written) = written::Written::of(&interp, position.to_vec(), &sum) else {
            return Ok(moves);
        };
        let mut shown = written::Shown::default();
        let written_in: Arc<[Component]> = Arc::from(position);
        for choice in &mut moves {
            let made = written.show_move(
                &interp,
                &mut self.engine,
                &sum,
                &choice.r#move,
                &mut choice.line,
                &mut shown,
            );
            let made = made.map_err(|error| engine_error(&interp, error, span));
            if let Some(made) = made.map_err(|error| self.report(error))? {
                choice.written = made.into_move();
                choice.written_in = written_in.clone();
            }
        }
        Ok(moves)
    }

    /// sprague's reply in play: the move among `moves` (those of
    /// `position`, as written or as a sum of parts) that [`why::reply`]
    /// makes, which `strategy` shows too (or one leaving the same parts);
    /// when no move restores value 0, one that keeps a loopy game drawn,
    /// else the one leaving the longest play.
    pub fn reply<'m>(
        &mut self,
        position: &[Component],
        moves: &'m [PlayMove],
        span: SourceSpan,
    ) -> Result<Option<&'m PlayMove>, Report> {
        let sum = self.parts(position)?;
        let interp = Interpreter::with_memos(&self.program, &self.periods, &self.tables);
        let best = why::reply(&interp, &mut self.engine, &sum);
        let best = best.map_err(|error| engine_error(&interp, error, span));
        let best = best.map_err(|error| self.report(error))?;
        let sorted = |r#move: &Move<Component>| {
            let mut left = r#move.apply(&sum);
            left.sort();
            left
        };
        let chosen = best.and_then(|best| {
            let left = sorted(&best);
            (moves.iter().find(|choice| choice.r#move == best))
                .or_else(|| moves.iter().find(|choice| sorted(&choice.r#move) == left))
        });
        match chosen.or_else(|| PlayMove::winning_or_drawing(moves)) {
            Some(chosen) => Ok(Some(chosen)),
            None => self.longest_play_of(&sum, moves, span),
        }
    }

    /// The move among `moves` (those of `position`) that keeps a lost game
    /// going longest: the one leaving the longest play, found by the memo
    /// from every position the parts reach (a loopy part, whose play may
    /// not end, counts nothing). Where a part is one the search values, too
    /// large for the memo to list all it reaches, the one leaving the most
    /// nodes (or the largest heaps) in play instead, which bound how long
    /// play can last. The first such move listed.
    pub fn longest_play<'m>(
        &mut self,
        position: &[Component],
        moves: &'m [PlayMove],
        span: SourceSpan,
    ) -> Result<Option<&'m PlayMove>, Report> {
        let sum = self.parts(position)?;
        self.longest_play_of(&sum, moves, span)
    }

    /// [`Session::longest_play`], of the moves of `sum`, the search's parts.
    fn longest_play_of<'m>(
        &mut self,
        sum: &[Component],
        moves: &'m [PlayMove],
        span: SourceSpan,
    ) -> Result<Option<&'m PlayMove>, Report> {
        let interp = Interpreter::with_memos(&self.program, &self.periods, &self.tables);
        let by_memo = !self.engine.searches_a_part(&interp, sum);
        let mut lengths = Vec::with_capacity(moves.len());
        for choice in moves {
            let mut length = 0u64;
            for part in choice.result(sum) {
                let part = match by_memo {
                    true => self.engine.longest(&interp, &part),
                    false => Ok(interp.weight(&part).max(interp.as_heap(&part).unwrap_or(0))),
                };
                // A loopy part has no longest play: it counts nothing.
                let part = match part {
                    Err(EngineError::Loopy { .. }) => Ok(0),
                    part => part,
                };
                let part = part.map_err(|error| engine_error(&interp, error, span));
                length = length.saturating_add(part.map_err(|error| self.report(error))?);
            }
            lengths.push(length);
        }
        // The first of the longest, in the order listed.
        let longest = (lengths.iter().enumerate().rev())
            .max_by_key(|&(_, length)| length)
            .map(|(i, _)| &moves[i]);
        Ok(longest)
    }

    /// Whether the player to move wins a position (as written, or a sum of
    /// parts) under misère play, and whether a quotient said so: from the
    /// quotient computed for its heaps when one reaches them all (never for
    /// a heap past its N), else by the misère search.
    pub fn misere_wins(
        &mut self,
        position: &[Component],
        span: SourceSpan,
    ) -> Result<(bool, bool), Report> {
        let sum = self.parts(position)?;
        let interp = Interpreter::with_memos(&self.program, &self.periods, &self.tables);
        let (engine, misere) = (&mut self.engine, &mut self.misere);
        let by_quotient =
            quotient::solve_by_quotient(&interp, engine, &self.quotients, QueryKind::Wins, &sum);
        let quoted = by_quotient.is_some();
        let solved = match by_quotient {
            Some(solved) => solved,
            None => {
                misere.begin_query(self.max_search);
                answer::solve_misere(
                    &interp,
                    engine,
                    misere,
                    QueryKind::Wins,
                    &sum,
                    self.max_search,
                )
            }
        };
        match solved.map_err(|error| engine_error(&interp, error, span)) {
            Ok(Value::Wins(wins)) => Ok((wins, quoted)),
            Ok(other) => unreachable!("`wins?` answers {other:?}"),
            Err(error) => Err(self.report(error)),
        }
    }

    /// Marks each of a position's moves (from [`Session::written_moves`])
    /// winning under misère play when it leaves a misère P-position; true
    /// when a quotient answered every one.
    pub fn mark_misere(
        &mut self,
        position: &[Component],
        moves: &mut [PlayMove],
        span: SourceSpan,
    ) -> Result<bool, Report> {
        let sum = self.parts(position)?;
        let mut quoted = true;
        for choice in moves {
            let (wins, by_quotient) = self.misere_wins(&choice.r#move.apply(&sum), span)?;
            choice.line.winning = !wins;
            choice.line.drawing = false;
            quoted &= by_quotient;
        }
        Ok(quoted)
    }

    /// The terms of a position (as written, or a sum of parts) that still
    /// have a move: what a game in progress shows, its finished parts
    /// dropped.
    pub fn unfinished(
        &mut self,
        position: &[Component],
        span: SourceSpan,
    ) -> Result<Vec<Component>, Report> {
        let mut left = Vec::new();
        for term in position {
            let parts = self.parts(std::slice::from_ref(term))?;
            let interp = Interpreter::with_memos(&self.program, &self.periods, &self.tables);
            for part in &parts {
                let options = self.engine.options(&interp, part);
                let options = options.map_err(|error| engine_error(&interp, error, span));
                if !options.map_err(|error| self.report(error))?.is_empty() {
                    left.push(term.clone());
                    break;
                }
            }
        }
        Ok(left)
    }

    /// The value of each term of a position (as written, or a sum of
    /// parts): the nim-sum of its parts'.
    pub fn values(
        &mut self,
        position: &[Component],
        span: SourceSpan,
    ) -> Result<Vec<Gamma>, Report> {
        let mut values = Vec::with_capacity(position.len());
        for term in position {
            let parts = self.parts(std::slice::from_ref(term))?;
            let interp = Interpreter::with_memos(&self.program, &self.periods, &self.tables);
            let mut value = Gamma::Finite(0);
            for part in &parts {
                let part = self.engine.gamma(&interp, part);
                let part = part.map_err(|error| engine_error(&interp, error, span));
                value = value.add(&part.map_err(|error| self.report(error))?);
            }
            values.push(value);
        }
        Ok(values)
    }

    /// The games declared, with their numbers of parameters, in order.
    pub fn games(&self) -> Vec<(String, usize)> {
        self.program
            .games
            .iter()
            .map(|game| (game.name.clone(), game.params.len()))
            .collect()
    }

    /// The declared games played on a board: their first argument is a
    /// region (they `split`), not an integer, so they have no sequence of
    /// values over n.
    pub fn games_on_boards(&self) -> Vec<String> {
        self.program
            .games
            .iter()
            .filter(|game| game.splits.is_some())
            .map(|game| game.name.clone())
            .collect()
    }

    /// The names of a declared game's parameters.
    pub fn parameters(&self, name: &str) -> Vec<String> {
        match self
            .program
            .names
            .get(name)
            .map(|declaration| declaration.kind)
        {
            Some(DeclarationKind::Game(game)) => self.program.game(game).params.clone(),
            _ => Vec::new(),
        }
    }

    /// The value of the position `name(args)` of a declared game.
    pub fn grundy_of(&mut self, name: &str, args: &[i64]) -> Result<Grundy, Report> {
        let game = match self
            .program
            .names
            .get(name)
            .map(|declaration| declaration.kind)
        {
            Some(DeclarationKind::Game(game)) => game,
            _ => panic!("`{name}` is not a game of this session"),
        };
        let interp = Interpreter::with_memos(&self.program, &self.periods, &self.tables);
        let span = self.program.game(game).span;
        let value = self
            .engine
            .grundy(
                &interp,
                &Component::Game(game, args.iter().map(|&arg| arg.into()).collect()),
            )
            .map_err(|error| engine_error(&interp, error, span));
        value.map_err(|error| self.report(error))
    }

    /// A sum as it is written in the language.
    pub fn show(&self, sum: &[Component]) -> String {
        Interpreter::with_memos(&self.program, &self.periods, &self.tables)
            .show(sum)
            .to_string()
    }

    /// The declarations in force, in order, as `:games` lists them.
    pub fn listings(&self) -> Vec<Listing> {
        let interp = Interpreter::with_memos(&self.program, &self.periods, &self.tables);
        self.program
            .names
            .iter()
            .map(|(name, declaration)| match declaration.kind {
                DeclarationKind::Game(id) => Listing {
                    kind: "game",
                    name: name.clone(),
                    detail: match self.program.game(id).params.as_slice() {
                        [] => String::new(),
                        params => format!("({})", params.join(", ")),
                    },
                },
                DeclarationKind::Graph(id) => Listing {
                    kind: "graph",
                    name: name.clone(),
                    detail: format!(
                        " ({})",
                        crate::eval::count(self.program.graph(id).nodes.len(), "node", "nodes")
                    ),
                },
                DeclarationKind::Family(id) => Listing {
                    kind: "graph",
                    name: name.clone(),
                    detail: format!("({})", self.program.family(id).params.join(", ")),
                },
                DeclarationKind::Constant(id) => Listing {
                    kind: "let",
                    name: name.clone(),
                    detail: match &self.program.constant(id).value.kind {
                        crate::program::ExprKind::Const(value) => format!(" = {value}"),
                        crate::program::ExprKind::Value(value) => format!(" = {value}"),
                        _ => String::new(),
                    },
                },
                DeclarationKind::Let(id) => {
                    let mut sum = Vec::new();
                    let shown = interp
                        .position(&self.program.let_value(id).value, &[], &mut |component| {
                            sum.push(component)
                        })
                        .map(|()| interp.show(&sum).to_string())
                        .unwrap_or_else(|error| format!("<{error}>"));
                    Listing {
                        kind: "let",
                        name: name.clone(),
                        detail: format!(" = {shown}"),
                    }
                }
            })
            .collect()
    }

    /// The kinds (`game`, `graph`, `let`) of the declarations in force
    /// that the source `name` made, in order.
    pub fn declared_in(&self, name: &str) -> Vec<&'static str> {
        self.declarations
            .iter()
            .filter(|statement| self.sources.name_at(statement.span().offset()) == name)
            .filter_map(|statement| match statement.as_ref() {
                ast::Statement::Game(_) => Some("game"),
                ast::Statement::Graph(_) | ast::Statement::Family(_) => Some("graph"),
                ast::Statement::Let(_) => Some("let"),
                ast::Statement::Query(_) => None,
            })
            .collect()
    }

    /// The source text of a declaration, as written.
    pub fn source_of(&self, name: &str) -> Option<&str> {
        Some(self.sources.text(self.declaration_span(name)?))
    }

    /// Where the whole declaration of a name in force lies.
    pub fn declaration_span(&self, name: &str) -> Option<SourceSpan> {
        let index = *self.declared_at.get(name)?;
        Some(self.declarations[index].span())
    }

    /// Every name a user may type: declarations, and each graph's nodes as
    /// `Graph.node`.
    pub fn completions(&self) -> Vec<String> {
        let mut names = Vec::new();
        self.completions_since(&mut Completed::default(), &mut names);
        names
    }

    /// Adds to `names` the completions declared since `completed`, and
    /// moves it on; when a declaration was replaced since, `names` is
    /// made anew. A REPL entry then costs what it declared, not what was
    /// declared before it (5,000 `let`s pasted at once).
    pub fn completions_since(&self, completed: &mut Completed, names: &mut Vec<String>) {
        let now = Completed {
            names: self.program.names.len(),
            graphs: self.program.graphs.len(),
            redeclared: self.redeclared,
            started: true,
        };
        if !completed.started || completed.redeclared != now.redeclared {
            names.clear();
            names.extend(
                crate::program::Builtin::ALL
                    .iter()
                    .map(|(name, ..)| name.to_string()),
            );
            *completed = Completed {
                started: true,
                ..Completed::default()
            };
        }
        let declared = self.program.names.keys();
        names.extend(declared.skip(completed.names).cloned());
        for graph in &self.program.graphs[completed.graphs..] {
            names.extend(
                graph
                    .nodes
                    .iter()
                    .map(|node| format!("{}.{node}", graph.name)),
            );
        }
        *completed = now;
    }

    pub fn report(&self, error: impl Diagnostic + Send + Sync + 'static) -> Report {
        Report::new(error).with_source_code(self.sources.clone())
    }

    /// A lone checking error is reported as itself; several, together.
    fn check_report(&self, mut errors: CheckErrors) -> Report {
        match errors.errors.len() {
            1 => self.report(errors.errors.remove(0)),
            _ => self.report(errors.grouped(
                |offset| self.sources.line_of(offset),
                |span| self.sources.text(span).to_owned(),
            )),
        }
    }
}

/// The declarations in their order, but each after the `let`s, graphs
/// and families it uses (which are lowered in order: a redeclared `let k =
/// m + 1` kept in the place of the old `k` came before the `m` it reads).
/// Games are lowered after them all, so that a use of a game orders
/// nothing; a declaration that uses itself, through others or not, stays
/// after what it uses outside the cycle, for the checker to report.
fn uses_first(declarations: Vec<Arc<ast::Statement>>) -> Vec<Arc<ast::Statement>> {
    let index: HashMap<&str, usize> = declarations
        .iter()
        .enumerate()
        .filter(|(_, statement)| !matches!(statement.as_ref(), ast::Statement::Game(_)))
        .filter_map(|(at, statement)| Some((lower::declared_name(statement)?.name.as_str(), at)))
        .collect();
    const NEW: u8 = 0;
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    let uses: Vec<Vec<&str>> = declarations
        .iter()
        .map(|statement| lower::references(statement))
        .collect();
    let mut state = vec![NEW; declarations.len()];
    let mut order = Vec::with_capacity(declarations.len());
    // A walk with a stack of its own: a chain of thousands of `let`s.
    for root in 0..declarations.len() {
        let mut stack = vec![(root, 0)];
        while let Some((at, next)) = stack.pop() {
            if next == 0 {
                if state[at] != NEW {
                    continue;
                }
                state[at] = OPEN;
            }
            match uses[at][next..]
                .iter()
                .position(|used| index.get(used).is_some_and(|&to| state[to] == NEW))
            {
                Some(skip) => {
                    let to = index[uses[at][next + skip]];
                    stack.push((at, next + skip + 1));
                    stack.push((to, 0));
                }
                None => {
                    state[at] = DONE;
                    order.push(at);
                }
            }
        }
    }
    let mut slots: Vec<Option<Arc<ast::Statement>>> = declarations.into_iter().map(Some).collect();
    order
        .into_iter()
        .filter_map(|at| slots[at].take())
        .collect()
}

/// The names whose meaning depends on any of `names`: those names and every
/// declaration that refers to one of them, directly or through others.
fn dependents(declarations: &[Arc<ast::Statement>], names: &[String]) -> HashSet<String> {
    let mut affected: HashSet<String> = names.iter().cloned().collect();
    loop {
        let before = affected.len();
        for statement in declarations {
            if let Some(name) = lower::declared_name(statement)
                && lower::references(statement)
                    .iter()
                    .any(|used| affected.contains(*used))
            {
                affected.insert(name.name.clone());
            }
        }
        if affected.len() == before {
            return affected;
        }
    }
}

/// The game and graph ids of a set of names.
fn ids_of(program: &Program, names: &HashSet<String>) -> (HashSet<u32>, HashSet<u32>) {
    let (mut games, mut graphs) = (HashSet::new(), HashSet::new());
    for name in names {
        match program.names.get(name).map(|declaration| declaration.kind) {
            Some(DeclarationKind::Game(id)) => {
                games.insert(id.0);
            }
            Some(DeclarationKind::Graph(id)) => {
                graphs.insert(id.0);
            }
            Some(
                DeclarationKind::Let(_) | DeclarationKind::Constant(_) | DeclarationKind::Family(_),
            )
            | None => {}
        }
    }
    (games, graphs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::DEFAULT_MAX_STATES;

    /// The REPL keeps its completions by what each entry declared: after
    /// every entry (a failed one, a graph redeclared with other nodes)
    /// they are the session's whole list.
    #[test]
    fn completions_kept_entry_by_entry_are_the_whole_list() {
        let mut session = Session::interactive(DEFAULT_MAX_STATES);
        let (mut completed, mut kept) = (Completed::default(), Vec::new());
        let entries = [
            "let a = 1",
            "graph G {\n  x -- y\n}",
            "let b = 2\nlet c = nope",
            "game N(n) {\n  move N(n - 1) if n > 0\n}",
            "graph G {\n  p -- q\n  q -- r\n}",
            "let d = a + 3",
            "grundy N(d)",
        ];
        for entry in entries {
            session.run("<entry>", entry, &mut |_| {});
            session.completions_since(&mut completed, &mut kept);
            let (mut kept, mut whole) = (kept.clone(), session.completions());
            kept.sort();
            whole.sort();
            assert_eq!(kept, whole, "after {entry:?}");
        }
        let has = |name: &str| kept.iter().any(|kept| kept == name);
        assert!(has("a") && has("d") && has("N") && has("G.p") && has("G.r"));
        assert!(!has("G.x") && !has("b") && !has("c"), "{kept:?}");
    }

    /// An entry that fails to check declares nothing, not even its
    /// declarations that checked: the program is taken back to where it
    /// was, and what follows is numbered from there.
    #[test]
    fn an_entry_that_fails_leaves_the_program_as_it_was() {
        let mut session = Session::interactive(DEFAULT_MAX_STATES);
        assert!(session.run("<1>", "let a = 1", &mut |_| {}));
        let before = session.program.mark();
        let failed = "game M(n) {\n  move M(n - 1) if n > 0\n}\nlet b = 2\nlet c = nope";
        assert!(!session.run("<2>", failed, &mut |_| {}));
        let after = session.program.mark();
        assert_eq!(format!("{before:?}"), format!("{after:?}"));
        assert!(!session.run("<3>", "grundy M(b)", &mut |_| {}));
        let mut answers = Vec::new();
        // Taking two at a time from 5 + a = 6: three moves, value 1.
        let fine = "game M(n) {\n  move M(n - 2) if n > 1\n}\ngrundy M(5 + a)";
        assert!(session.run("<4>", fine, &mut |event| answers.push(event)));
        assert_eq!(session.program.games.len(), 1);
        let printed = format!("{answers:?}");
        assert!(printed.contains("Grundy(1)"), "{printed}");
    }

    /// A stop that comes between two queries (the first answered, the
    /// second not begun) says so: the run ended without a word, and the
    /// queries after it were not asked.
    #[test]
    fn a_stop_between_two_queries_says_so() {
        let mut session = Session::new(DEFAULT_MAX_STATES);
        let stop = Arc::new(AtomicBool::new(false));
        session.set_stop(Some(Arc::clone(&stop)));
        let mut events = Vec::new();
        let source = "grundy *1\ngrundy *2\ngrundy *3\n";
        let ok = session.run("test.game", source, &mut |event| {
            // The first answer is heard, and the stop comes at once.
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            events.push(event);
        });
        assert!(!ok);
        let [Event::Answer(first), Event::Note(note)] = &events[..] else {
            panic!("{events:?}");
        };
        assert_eq!(first.value, Value::Grundy(1));
        let said = "stopped between two queries of test.game (Ctrl-C, SIGTERM or SIGHUP): \
                    the 2 queries left are not asked";
        assert_eq!(note, said);
    }

    /// A stop after a query that failed for its own reason (not the
    /// stop), or while the last answer was given, is said too: such runs
    /// ended with the stop's exit code and no word of it.
    #[test]
    fn a_stop_after_an_error_or_the_last_answer_says_so() {
        for (source, said) in [
            (
                "grundy *(1 / 0)\ngrundy *2\n",
                "stopped between two queries",
            ),
            (
                "grundy *1\n",
                "stopped (Ctrl-C, SIGTERM or SIGHUP) as the last query",
            ),
        ] {
            let mut session = Session::new(DEFAULT_MAX_STATES);
            let stop = Arc::new(AtomicBool::new(false));
            session.set_stop(Some(Arc::clone(&stop)));
            let mut notes = Vec::new();
            session.run("test.game", source, &mut |event| {
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
                if let Event::Note(note) = event {
                    notes.push(note);
                }
            });
            assert!(
                notes.iter().any(|note| note.starts_with(said)),
                "{source}: {notes:?}"
            );
        }
    }
}
