//! The interpreter: runs a lowered [`Program`]'s rules to list the options
//! of a position, for the engine. Integer arithmetic is checked: overflow and
//! division by zero are errors with the span of the operation.

mod nodes;
mod sweep;
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
use crate::eval::{Budget, EvalError, assignments, eval, quick, value};
use crate::octal::Table;
use crate::program::*;
use crate::values::{Board, Region, Set, Value};
use sweep::{Count, Sweep};

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

/// The move rules of a program, as the engine sees them.
pub struct Interpreter<'p> {
    pub program: &'p Program,
    periods: Option<&'p Periods>,
    tables: Option<&'p Tables>,
    /// The assignments left to the sums over bindings of one sum: nested
    /// sums share it, so that a sum of sums of sums is bounded as a whole
    /// (see [`Interpreter::over_bindings`]).
    sum_budget: Budget,
    /// How deep sums over bindings nest where this one is evaluated.
    sum_depth: Cell<usize>,
}

/// Value tables of the games given by codes, filled as heaps are asked
/// for, and the threads that fill them.
#[derive(Default)]
pub struct Tables {
    tables: RefCell<HashMap<GameId, CodeTable>>,
    /// Threads for each table's long extensions; every core if none.
    threads: Option<usize>,
    /// Set to stop the work under way: read where one position's options
    /// can take long to list or fold (a large board splits anew in each),
    /// between the engine's own looks at its watcher.
    stop: Option<Arc<AtomicBool>>,
}

impl Tables {
    /// Forgets every table (their games changed).
    pub fn clear(&mut self) {
        self.tables.get_mut().clear();
    }

    /// Sets (or clears) the flag that stops the work under way.
    pub fn set_stop(&mut self, stop: Option<Arc<AtomicBool>>) {
        self.stop = stop;
    }

    /// Sets the threads of the tables to come and of those made.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = Some(threads);
        for table in self.tables.get_mut().values_mut() {
            table.table.set_threads(threads);
        }
    }
}

/// A code's table, and the period a theorem proves of it once one does:
/// the table then stops growing, and every heap is answered from it.
pub struct CodeTable {
    table: Table,
    proof: Proof,
    period: Option<Period>,
}

/// How deeply aliases (`game X(n) = …`) may nest in one expansion: a
/// bound on the memory of the aliases being expanded, far past any
/// written on purpose.
const MAX_ALIAS_DEPTH: usize = 1_000_000;

/// The least heaps a table is grown to before its period is looked for.
const FIRST_STAGE: usize = 256;

/// The work counted for each element of a set, region or list in an
/// option's position too large to be handled as bits: about what 64
/// options of a swept rule cost.
const WORK_PER_ELEMENT: u64 = 64;

/// The elements of an option's position that cost nothing beside the
/// option itself: a position as small as a set of bits (Chomp's list of
/// ten columns) is one option's work, as `--max-work` says.
const ELEMENTS_FREE: usize = 128;

impl CodeTable {
    fn new(code: &TakeBreak, threads: Option<usize>) -> Self {
        let table = match threads {
            Some(threads) => Table::with_threads(code.clone(), threads),
            None => Table::new(code.clone()),
        };
        CodeTable {
            table,
            proof: crate::analysis::proof_for(code),
            period: None,
        }
    }

    /// The value of heap `n`: from the table, or from a proven period. The
    /// table grows in stages, doubling, and after each a period is looked
    /// for if a theorem can prove one; it never grows past `limit` heaps.
    fn grundy(
        &mut self,
        n: usize,
        limit: usize,
        watch: &mut dyn FnMut(usize) -> bool,
    ) -> Result<Grundy, Unknown> {
        loop {
            if let Some(value) = self.known(n as u64) {
                return Ok(value);
            }
            let stage = match self.proof {
                Proof::None => n,
                Proof::Window { .. } | Proof::OctalTheorem { .. } => {
                    (2 * self.table.values().len()).max(FIRST_STAGE).min(n)
                }
            };
            if stage > limit {
                return Err(Unknown::PastLimit);
            }
            self.table.extend_to(stage, watch)?;
            // A theorem proves a period only past its window: before, the
            // look (which may walk the table once for each candidate) is
            // spared.
            let values = self.table.values();
            let provable = match self.proof {
                Proof::Window { t } | Proof::OctalTheorem { t } => values.len() >= t + 2,
                Proof::None => false,
            };
            self.period = provable
                .then(|| crate::analysis::find(values, self.proof))
                .flatten()
                .filter(|period| period.proven);
        }
    }

    /// A heap's value, if the table or a proven period holds it.
    fn known(&self, n: u64) -> Option<Grundy> {
        let values = self.table.values();
        match usize::try_from(n).ok().and_then(|n| values.get(n)) {
            Some(&value) => Some(value),
            None => self.period.as_ref()?.grundy(values, n),
        }
    }
}

/// Proven periods by game, each with the values it starts from.
pub type Periods = HashMap<GameId, KnownPeriod>;

/// A proven period and the values up to (at least) its first repetition.
#[derive(Debug, Clone)]
pub struct KnownPeriod {
    pub period: Period,
    pub values: Vec<Grundy>,
}

impl Rules for Interpreter<'_> {
    type Position = Component;
    type Error = EvalError;

    fn options(
        &self,
        position: &Component,
        options: &mut Options<Component>,
    ) -> Result<(), EvalError> {
        let listed = match position {
            Component::Heap(n) => {
                (0..*n).try_for_each(|k| push_option(options, [Component::Heap(k)], None))
            }
            Component::Node(graph, node) => self.program.graph(*graph).moves[node.0 as usize]
                .iter()
                .try_for_each(|to| push_option(options, [Component::Node(*graph, *to)], None)),
            Component::Game(game, args) => self.game_options(*game, args, options),
        };
        listed.map_err(|error| {
            error.while_expanding(&self.show(std::slice::from_ref(position)).to_string())
        })
    }

    fn fold_options(
        &self,
        position: &Component,
        solved: &mut Solved<'_, Component>,
        mex: &mut Mex,
        limit: usize,
    ) -> Result<(), EvalError> {
        let folded = match position {
            Component::Game(game, args) => match &self.program.game(*game).moves {
                Moves::Rules(rules) => self.fold_rules(
                    rules,
                    self.program.game(*game).slots,
                    args,
                    solved,
                    mex,
                    limit,
                ),
                Moves::Code(_) | Moves::Alias(_) | Moves::Product(..) => {
                    self.fold_listed(position, solved, mex, limit)
                }
            },
            Component::Heap(_) | Component::Node(..) => {
                self.fold_listed(position, solved, mex, limit)
            }
        };
        folded.map_err(|error| {
            error.while_expanding(&self.show(std::slice::from_ref(position)).to_string())
        })
    }

    fn factors(&self, position: &Component) -> Option<(Component, Component)> {
        let Component::Game(game, args) = position else {
            return None;
        };
        let Moves::Product(a, b) = self.program.game(*game).moves else {
            return None;
        };
        let coin =
            |game: GameId, arg: &Value| Component::Game(game, smallvec::smallvec![arg.clone()]);
        Some((coin(a, &args[0]), coin(b, &args[1])))
    }

    fn runs_off(&self, chain: &[Component]) -> bool {
        self.falling_parameter(chain).is_some()
    }

    fn grows_forever(&self, chain: &[Component]) -> bool {
        self.rising_parameter(chain).is_some()
    }

    fn as_heap(&self, position: &Component) -> Option<u64> {
        match position {
            Component::Heap(n) => Some(*n),
            _ => None,
        }
    }

    fn heap(&self, n: u64) -> Component {
        Component::Heap(n)
    }

    /// Positions of games of one to four parameters with non-negative
    /// arguments are addressed by the game and the arguments: the last is
    /// the column, the one before the row, then the plane and the volume
    /// (0 where there is none).
    fn dense(&self, position: &Component) -> Option<Address> {
        let Component::Game(game, args) = position else {
            return None;
        };
        if args.len() > 4 {
            return None;
        }
        let mut ints = [0i64; 4];
        for (int, arg) in ints.iter_mut().zip(args) {
            *int = arg.int()?;
        }
        Address::of(game.0, &ints[..args.len()])
    }

    /// Folds a position of a game of rules from its address: its
    /// parameters are the address's last coordinates, with no position
    /// built.
    fn fold_at(
        &self,
        address: Address,
        solved: &mut Solved<'_, Component>,
        mex: &mut Mex,
        limit: usize,
    ) -> Result<(), EvalError> {
        let game = self.program.games.get(address.table as usize);
        let Some((game, Moves::Rules(rules))) = game.map(|game| (game, &game.moves)) else {
            return self.fold_options(&self.at_address(address), solved, mex, limit);
        };
        let args: SmallVec<[Value; 4]> = self.address_args(address);
        self.fold_rules(rules, game.slots, &args, solved, mex, limit)
            .map_err(|error| {
                error.while_expanding(&self.show(&[self.at_address(address)]).to_string())
            })
    }

    fn box_rules(&self, position: &Component) -> Option<Box<dyn BoxRules>> {
        let Component::Game(game, _) = position else {
            return None;
        };
        let game = self.program.games.get(game.0 as usize)?;
        let (true, Moves::Rules(rules)) = (game.solves_as_box, &game.moves) else {
            return None;
        };
        let rules = rules.iter().map(|rule| rule.compiled.clone());
        let rules = rules.collect::<Option<Vec<_>>>()?;
        Some(Box::new(sweep::CompiledBox::new(rules, game.params.len())))
    }

    /// (A table outlives its game when a redeclaration drops the game: its
    /// positions are then rebuilt, with row 0 read as one parameter, only to
    /// be forgotten.)
    fn at_address(&self, address: Address) -> Component {
        Component::Game(GameId(address.table), self.address_args(address))
    }

    /// A position of a game of one parameter whose argument is a set
    /// inside `0..128`, or a region of a grid, a path or a cycle of at most
    /// 255 rows and columns whose nodes are so: the board's shape and the
    /// game in the first word, the bits in the other two.
    #[inline]
    fn packed(&self, position: &Component) -> Option<Packed> {
        let Component::Game(game, args) = position else {
            return None;
        };
        let [arg] = args.as_slice() else {
            return None;
        };
        let (shape, nodes) = match arg {
            Value::Set(set) => (Shape::Set, set),
            Value::Region(region) => (Shape::of(&region.board)?, &region.nodes),
            Value::Int(_) | Value::List(_) => return None,
        };
        let bits = nodes.bits()?;
        Some(pack(*game, shape, bits))
    }

    fn unpacked(&self, key: Packed) -> Component {
        let [head, low, high] = key.0;
        let nodes = Set::from_bits(u128::from(low) | u128::from(high) << 64);
        let (a, b) = ((head >> 2) as u32 & 0xff, (head >> 10) as u32 & 0xff);
        let game = GameId((head >> 18) as u32);
        let board = match head & 3 {
            0 => Board::Grid { rows: a, cols: b },
            1 => Board::Path(a),
            2 => Board::Cycle(a),
            _ => {
                let args = smallvec::smallvec![Value::Set(nodes)];
                return Component::Game(game, args);
            }
        };
        let region = Region { board, nodes };
        Component::Game(game, smallvec::smallvec![Value::Region(region)])
    }

    /// A heap of a game with a proven period, or of a game given by a code.
    fn known_grundy(
        &self,
        position: &Component,
        limit: usize,
        max_work: u64,
        watch: &mut dyn FnMut(usize) -> bool,
    ) -> Result<Option<Grundy>, Unknown> {
        match self.by_period(position) {
            Some(value) => Ok(Some(value)),
            None => self.by_table(position, (limit, max_work), watch),
        }
    }
}

/// What a packed key says of a position besides its bits.
#[derive(Clone, Copy)]
enum Shape {
    Grid { rows: u32, cols: u32 },
    Path(u32),
    Cycle(u32),
    Set,
}

impl Shape {
    /// The shape of a board that packs: no side longer than 255.
    #[inline]
    fn of(board: &Board) -> Option<Shape> {
        let fits = |side: u32| side < 1 << 8;
        match *board {
            Board::Grid { rows, cols } if fits(rows) && fits(cols) => {
                Some(Shape::Grid { rows, cols })
            }
            Board::Path(n) if fits(n) => Some(Shape::Path(n)),
            Board::Cycle(n) if fits(n) => Some(Shape::Cycle(n)),
            _ => None,
        }
    }
}

/// The packed key of a game's position of one argument (see
/// [`Interpreter::packed`]).
#[inline]
fn pack(game: GameId, shape: Shape, bits: u128) -> Packed {
    let (kind, a, b) = match shape {
        Shape::Grid { rows, cols } => (0, rows, cols),
        Shape::Path(n) => (1, n, 0),
        Shape::Cycle(n) => (2, n, 0),
        Shape::Set => (3, 0, 0),
    };
    // The game last, so that the first word of most keys is small (the
    // engine keeps small keys in fewer words).
    let head = kind | u64::from(a) << 2 | u64::from(b) << 10 | u64::from(game.0) << 18;
    Packed([head, bits as u64, (bits >> 64) as u64])
}

/// The XOR of the values of some parts, and whether every part had one.
type Partial = (Grundy, bool);

/// A part's value as a [`Partial`]: one with none yet adds nothing.
#[inline(always)]
fn partial(value: Option<Grundy>) -> Partial {
    (value.unwrap_or(0), value.is_some())
}

fn push_option(
    options: &mut Options<Component>,
    option: impl IntoIterator<Item = Component>,
    span: Option<SourceSpan>,
) -> Result<(), EvalError> {
    options
        .push(option)
        .map_err(|too_many| EvalError::TooManyOptions {
            limit: too_many.limit,
            what: "options",
            span: span.unwrap_or_else(|| SourceSpan::new(0.into(), 0)),
            context: String::new(),
        })
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
            ..Interpreter::new(program)
        }
    }

    /// Stops with [`EvalError::Interrupted`] once the stop flag is set.
    #[inline]
    fn go_on(&self, span: SourceSpan) -> Result<(), EvalError> {
        let stop = self.tables.and_then(|tables| tables.stop.as_deref());
        match stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
            true => Err(EvalError::Interrupted { span }),
            false => Ok(()),
        }
    }

    /// The value of a heap past the values computed, of a game with a
    /// proven period.
    pub fn by_period(&self, position: &Component) -> Option<Grundy> {
        let Component::Game(game, args) = position else {
            return None;
        };
        let n = u64::try_from(args.first()?.int()?).ok()?;
        if let Some(known) = self.periods?.get(game) {
            return (n >= known.values.len() as u64)
                .then(|| known.period.grundy(&known.values, n))
                .flatten();
        }
        // A code's table that found its period answers past its end.
        let tables = self.tables?.tables.borrow();
        let table = tables.get(game)?;
        table.period.as_ref()?;
        (n >= table.table.values().len() as u64)
            .then(|| table.known(n))
            .flatten()
    }

    /// The value of a heap of a game given by a code, from its table. A
    /// table holds as many heaps as the engine may positions (Grundy's game
    /// to the default 10,000,000 takes about twenty seconds, with progress
    /// shown and Ctrl-C heard); a heap past that is refused: its search
    /// would need as many positions, each with as many options.
    ///
    /// A code whose digits leave three heaps lists about n²/12 splits of
    /// heap n for each such digit: those are work, counted against
    /// `max_work` as the table grows (a table of `hexadecimal "0.8"` to
    /// 5,000 heaps examines some 10^10).
    fn by_table(
        &self,
        position: &Component,
        (limit, max_work): (usize, u64),
        watch: &mut dyn FnMut(usize) -> bool,
    ) -> Result<Option<Grundy>, Unknown> {
        let Component::Game(game, args) = position else {
            return Ok(None);
        };
        let Moves::Code(code) = &self.program.game(*game).moves else {
            return Ok(None);
        };
        let (Some(n), Some(tables)) = (args.first(), self.tables) else {
            return Ok(None);
        };
        let Some(Ok(n)) = n.int().map(usize::try_from) else {
            return Ok(None);
        };
        let threads = tables.threads;
        let mut tables = tables.tables.borrow_mut();
        let table = tables
            .entry(*game)
            .or_insert_with(|| CodeTable::new(code, threads));
        let (mut heaps, mut work, mut over) = (table.table.values().len(), 0u64, false);
        let mut counted = |done: usize| {
            let splits = code.three_heap_splits(done);
            work = work.saturating_add(splits.saturating_mul(done.saturating_sub(heaps) as u64));
            heaps = heaps.max(done);
            over = work > max_work;
            !over && watch(done)
        };
        match table.grundy(n, limit, &mut counted) {
            Err(Unknown::Stopped) if over => Err(Unknown::TooMuchWork { examined: work }),
            found => found.map(Some),
        }
    }

    fn game_options(
        &self,
        id: GameId,
        args: &[Value],
        options: &mut Options<Component>,
    ) -> Result<(), EvalError> {
        let game = self.program.game(id);
        let rules = match &game.moves {
            Moves::Rules(rules) => rules,
            &Moves::Product(a, b) => return self.product_options(id, (a, b), args, options),
            Moves::Alias(terms) => {
                let mut env = vec![Value::Int(0); game.slots];
                env[..args.len()].clone_from_slice(args);
                return self.alias_options(id, terms, &env, options);
            }
            Moves::Code(code) => {
                let too_many = |too_many: TooManyOptions| EvalError::TooManyOptions {
                    limit: too_many.limit,
                    what: "options",
                    span: game.span,
                    context: String::new(),
                };
                let Some(n) = args[0].int() else {
                    return Ok(());
                };
                return take_break_options(code, id, n, options).map_err(too_many);
            }
        };
        let mut env = vec![Value::Int(0); game.slots];
        env[..args.len()].clone_from_slice(args);
        for rule in rules {
            let budget = Budget::new(options.limit());
            assignments(
                &rule.bindings,
                rule.guard.as_ref(),
                &mut env,
                &budget,
                &mut |env| {
                    self.go_on(rule.span)?;
                    if let Err(error) =
                        self.position(&rule.target, env, &mut |part| options.push_part(part))
                    {
                        options.abandon_option();
                        return Err(error);
                    }
                    options
                        .end_option()
                        .map_err(|too_many| EvalError::TooManyOptions {
                            limit: too_many.limit,
                            what: "options",
                            span: rule.span,
                            context: String::new(),
                        })
                },
            )?;
        }
        Ok(())
    }

    /// The options of a head at (x, y) of a product of coin-turning games:
    /// for a move of the first game at x turning the coins A and one of the
    /// second at y turning B, the heads at every (a, b) of (A ∪ {x}) ×
    /// (B ∪ {y}) but (x, y).
    fn product_options(
        &self,
        id: GameId,
        (a, b): (GameId, GameId),
        args: &[Value],
        options: &mut Options<Component>,
    ) -> Result<(), EvalError> {
        let span = self.program.game(id).span;
        let place = |arg: &Value| {
            arg.int()
                .ok_or_else(|| crate::eval::value::wrong_type("an integer", arg, span))
        };
        let (x, y) = (place(&args[0])?, place(&args[1])?);
        let (rows, columns) = (
            self.turns(a, x, options.limit())?,
            self.turns(b, y, options.limit())?,
        );
        for row in &rows {
            for column in &columns {
                for &p in row.iter().chain([&x]) {
                    for &q in column.iter().chain([&y]) {
                        if (p, q) != (x, y) {
                            let place = smallvec::smallvec![Value::Int(p), Value::Int(q)];
                            options.push_part(Component::Game(id, place));
                        }
                    }
                }
                options
                    .end_option()
                    .map_err(|too_many| EvalError::TooManyOptions {
                        limit: too_many.limit,
                        what: "options",
                        span,
                        context: String::new(),
                    })?;
            }
        }
        Ok(())
    }

    /// The coins each move of a coin-turning game turns from its coin at
    /// `n`, besides that coin, in rule order.
    fn turns(&self, id: GameId, n: i64, limit: usize) -> Result<Vec<Vec<i64>>, EvalError> {
        let game = self.program.game(id);
        let mut env = vec![Value::Int(0); game.slots];
        env[0] = Value::Int(n);
        let mut found = Vec::new();
        for turn in game.coins.iter().flatten() {
            let budget = Budget::new(limit);
            assignments(
                &turn.bindings,
                turn.guard.as_ref(),
                &mut env,
                &budget,
                &mut |env| {
                    let turned = value(&turn.set, env)?;
                    found.push(crate::eval::value::elements(&turned, turn.set.span)?);
                    Ok(())
                },
            )?;
        }
        Ok(found)
    }

    /// Lists the options, then folds them.
    fn fold_listed(
        &self,
        position: &Component,
        solved: &mut Solved<'_, Component>,
        mex: &mut Mex,
        limit: usize,
    ) -> Result<(), EvalError> {
        let mut options = Options::new(limit);
        self.options(position, &mut options)?;
        // An alias's options are as long as the sum it stands for: each
        // component listed is work (`X(n) = X(n - 1) + *1` lists n² parts).
        if let Component::Game(game, _) = position
            && let Moves::Alias(_) = self.program.game(*game).moves
        {
            let parts: usize = options.iter().map(<[Component]>::len).sum();
            solved.examined(parts as u64);
        }
        fold_listed(self, &options, solved, mex);
        Ok(())
    }

    /// The search's inner loop for rules written in the language: each
    /// option's value is folded as its terms are evaluated, with no list of
    /// options and no allocation for games of up to two parameters; a
    /// rule's last binding is swept along the tables where it can be.
    fn fold_rules(
        &self,
        rules: &[Rule],
        slots: usize,
        args: &[Value],
        solved: &mut Solved<'_, Component>,
        mex: &mut Mex,
        limit: usize,
    ) -> Result<(), EvalError> {
        let mut env = Env {
            args,
            slots,
            values: None,
        };
        let mut count = Count {
            done: 0,
            limit,
            work: 0,
        };
        // The parameters of a position whose compiled rules take it.
        let params = compiled_params(args);
        // The set of a position whose rules compiled to bit operations
        // take it.
        let bits = match args {
            [arg] => crate::eval::value::Bits::of(arg),
            _ => None,
        };
        for rule in rules {
            let budget = Budget::new(limit);
            if let (Some(nodes), Some(position)) = (&rule.nodes, bits)
                && self.fold_nodes(
                    (nodes, rule.span),
                    position,
                    (&budget, &mut count),
                    solved,
                    mex,
                )?
            {
                continue;
            }
            if let (Some(compiled), Some(params)) = (&rule.compiled, &params) {
                let rule = (rule, compiled);
                if self.compiled(rule, params, &budget, &mut count, solved, mex)? {
                    continue;
                }
            }
            let env = env.get();
            match &rule.sweep {
                Some(plan) => {
                    let (last, outer) = rule.bindings.split_last().expect("a sweep has a binding");
                    assignments(outer, None, env, &budget, &mut |env| {
                        let sweep = Sweep {
                            rule,
                            plan,
                            binding: last,
                        };
                        self.sweep(&sweep, env, &budget, &mut count, solved, mex)
                    })?;
                }
                None => assignments(
                    &rule.bindings,
                    rule.guard.as_ref(),
                    env,
                    &budget,
                    &mut |env| {
                        // An option of a large board costs its elements:
                        // past the work limit or on Ctrl-C, the rest are
                        // skipped, and the engine stops the search.
                        if solved.exhausted() {
                            return Ok(());
                        }
                        count.add(1, rule.span)?;
                        self.go_on(rule.span)?;
                        self.fold_option(&rule.target, env, solved, mex)
                    },
                )?,
            }
        }
        solved.examined(count.work);
        Ok(())
    }

    /// Folds one option into `mex`; an option with a part not solved yet
    /// is deferred until it is (see [`Solved::defer`]).
    #[inline]
    fn fold_option(
        &self,
        target: &[Term],
        env: &[Value],
        solved: &mut Solved<'_, Component>,
        mex: &mut Mex,
    ) -> Result<(), EvalError> {
        let from = solved.noted();
        let (value, known) = self.option_value(target, env, solved)?;
        match known {
            true => mex.add(value),
            false => solved.defer(value, from),
        }
        Ok(())
    }

    /// The value of one option, read from `solved`: the XOR of its parts'
    /// values, and whether every part had one (`solved` notes those that
    /// have none yet as missing; the XOR is then of the others).
    #[inline]
    fn option_value(
        &self,
        target: &[Term],
        env: &[Value],
        solved: &mut Solved<'_, Component>,
    ) -> Result<Partial, EvalError> {
        let (mut value, mut known) = (0, true);
        for term in target {
            let (part_value, part_known) = self.term_value(term, env, solved)?;
            value ^= part_value;
            known &= part_known;
        }
        Ok((value, known))
    }

    /// The value of one term of an option, as [`Interpreter::option_value`].
    #[inline]
    fn term_value(
        &self,
        term: &Term,
        env: &[Value],
        solved: &mut Solved<'_, Component>,
    ) -> Result<Partial, EvalError> {
        Ok(partial(match term {
            Term::Heap { size, .. } => Some(heap_size(size, env)?),
            // A heap of a one-parameter game is found by its dense address,
            // without building the position.
            Term::Game { game, args, .. } if args.len() == 1 => {
                let n = match quick(&args[0], env) {
                    Some(n) => n,
                    // A small set or region: its parts found by packed key,
                    // with no value built.
                    None if let Some(bits) = crate::eval::value::quick_bits(&args[0], env) => {
                        return Ok(self.bits_value(*game, bits, solved));
                    }
                    None => match value(&args[0], env)? {
                        Value::Int(n) => n,
                        other => {
                            return self.parts_value(
                                *game,
                                smallvec::smallvec![other],
                                args[0].span,
                                solved,
                            );
                        }
                    },
                };
                let part = || Component::Game(*game, smallvec::smallvec![n.into()]);
                match Address::of(game.0, &[n]) {
                    Some(address) => solved.at(address, part),
                    None => solved.part(self, &part()),
                }
            }
            // So is a position of a game of two to four integers, in its
            // table's volume, plane, row and column.
            Term::Game { game, args, .. }
                if let Some(ints) = quick_ints(args, env)
                    && let Some(address) = Address::of(game.0, &ints) =>
            {
                let part = || {
                    let args = ints.iter().map(|&int| Value::Int(int)).collect();
                    Component::Game(*game, args)
                };
                solved.at(address, part)
            }
            Term::Game { game, args, span } => {
                return self.parts_value(*game, evaluate_args(args, env)?, *span, solved);
            }
            Term::Over(over) => {
                let (mut value, mut known, mut parts) = (0, true, 0);
                self.over_bindings(over, env, &mut |env| {
                    let (part_value, part_known) = self.option_value(&over.terms, env, solved)?;
                    value ^= part_value;
                    known &= part_known;
                    parts += 1;
                    Ok(())
                })?;
                // Each part read is work, as an option is: a sum over a
                // long run in every option is bounded by `--max-work` too.
                solved.examined(parts);
                return Ok((value, known));
            }
            Term::Node { graph, node } => solved.part(self, &Component::Node(*graph, *node)),
            Term::Let { id, .. } => {
                return self.option_value(&self.program.let_value(*id).value, env, solved);
            }
            Term::NodeAt { graph, index, span } => {
                let node = self.node_at(*graph, index, *span, env)?;
                solved.part(self, &Component::Node(*graph, node))
            }
        }))
    }

    /// Evaluates the terms of a sum under `env`, passing each component on.
    pub fn position(
        &self,
        terms: &[Term],
        env: &[Value],
        each: &mut dyn FnMut(Component),
    ) -> Result<(), EvalError> {
        self.walk(terms, env, false, each)
    }

    /// [`Interpreter::position`], but when `written`, a game that splits is
    /// passed on whole, as written, not as its parts.
    fn walk(
        &self,
        terms: &[Term],
        env: &[Value],
        written: bool,
        each: &mut dyn FnMut(Component),
    ) -> Result<(), EvalError> {
        for term in terms {
            each(match term {
                Term::Game { game, args, .. }
                    if written && self.program.game(*game).splits.is_some() =>
                {
                    Component::Game(*game, evaluate_args(args, env)?)
                }
                Term::Game { game, args, span } => {
                    self.game_parts(*game, evaluate_args(args, env)?, *span, each)?;
                    continue;
                }
                Term::Over(over) => {
                    self.over_bindings(over, env, &mut |env| {
                        self.walk(&over.terms, env, written, each)
                    })?;
                    continue;
                }
                Term::Heap { size, .. } => Component::Heap(heap_size(size, env)?),
                Term::Node { graph, node } => Component::Node(*graph, *node),
                Term::NodeAt { graph, index, span } => {
                    Component::Node(*graph, self.node_at(*graph, index, *span, env)?)
                }
                Term::Let { id, .. } => {
                    self.walk(&self.program.let_value(*id).value, env, written, each)?;
                    continue;
                }
            });
        }
        Ok(())
    }

    /// Passes on a game's position: itself, or for a game that splits, the
    /// connected parts of its region, each moved to a board of its shape,
    /// or for a coin-turning game given a set of heads, each head.
    pub fn game_parts(
        &self,
        game: GameId,
        args: Args,
        span: SourceSpan,
        each: &mut dyn FnMut(Component),
    ) -> Result<(), EvalError> {
        if let [Value::Set(heads)] = args.as_slice()
            && self.program.game(game).coins.is_some()
        {
            heads
                .iter()
                .for_each(|head| each(Component::Game(game, smallvec::smallvec![head.into()])));
            return Ok(());
        }
        let Some(splits) = self.program.game(game).splits else {
            each(Component::Game(game, args));
            return Ok(());
        };
        let region = match args.first() {
            Some(Value::Region(region)) => region,
            other => {
                let found = other.cloned().unwrap_or(Value::Int(0));
                return Err(crate::eval::value::wrong_type(
                    "a region of a board",
                    &found,
                    span,
                ));
            }
        };
        let rest = &args[1..];
        region.parts(splits.symmetric, &mut |part| {
            let mut args = Args::new();
            args.push(Value::Region(part));
            args.extend(rest.iter().cloned());
            each(Component::Game(game, args));
        });
        Ok(())
    }

    /// The value of a game's position, [`Interpreter::game_parts`] summed.
    fn parts_value(
        &self,
        game: GameId,
        args: Args,
        span: SourceSpan,
        solved: &mut Solved<'_, Component>,
    ) -> Result<Partial, EvalError> {
        let (splits, coins) = (
            self.program.game(game).splits.is_some(),
            self.program.game(game).coins.is_some(),
        );
        if let [arg] = args.as_slice()
            && let Some(bits) = crate::eval::value::Bits::of(arg)
            && !coins
        {
            return Ok(self.bits_value(game, bits, solved));
        }
        // A position too large for bits costs its elements in every option
        // (hashed, split into parts, turned to its least image, each some
        // hundreds of nanoseconds): work, as options are, so that
        // `--max-work` bounds a search of large boards in seconds as it
        // bounds one of many options.
        let elements = args.iter().map(|arg| match arg {
            Value::Int(_) => 0,
            Value::Set(set) => set.len(),
            Value::Region(region) => region.nodes.len(),
            Value::List(list) => list.len(),
        });
        let elements = elements.sum::<usize>().saturating_sub(ELEMENTS_FREE);
        solved.examined(elements as u64 * WORK_PER_ELEMENT);
        if !splits && !coins {
            return Ok(partial(solved.part(self, &Component::Game(game, args))));
        }
        let (mut value, mut known) = (0, true);
        self.game_parts(
            game,
            args,
            span,
            &mut |part| match solved.part(self, &part) {
                Some(part) => value ^= part,
                None => known = false,
            },
        )?;
        Ok((value, known))
    }

    /// The value of a game's position whose one argument is a small set or
    /// region, given by its bits: each part (the whole, for a game that
    /// does not split) found by its packed key, as [`Rules::packed`] gives
    /// it, and built as a position only when it has no value yet. This is
    /// the search's inner loop for games on sets and boards.
    fn bits_value(
        &self,
        game: GameId,
        bits: crate::eval::value::Bits,
        solved: &mut Solved<'_, Component>,
    ) -> Partial {
        let position = |value: Value| Component::Game(game, smallvec::smallvec![value]);
        let Some(board) = bits.board else {
            let set = || position(Value::Set(Set::from_bits(bits.bits)));
            return partial(solved.packed(pack(game, Shape::Set, bits.bits), set));
        };
        let mut part_value = |part: Region| match (Shape::of(&part.board), part.nodes.bits()) {
            (Some(shape), Some(bits)) => {
                solved.packed(pack(game, shape, bits), || position(Value::Region(part)))
            }
            _ => solved.part(self, &position(Value::Region(part))),
        };
        let Some(splits) = self.program.game(game).splits else {
            let region = Region {
                board: board.clone(),
                nodes: Set::from_bits(bits.bits),
            };
            return partial(part_value(region));
        };
        let (mut value, mut known) = (0, true);
        board.parts(bits.bits, splits.symmetric, |part| match part_value(part) {
            Some(part) => value ^= part,
            None => known = false,
        });
        (value, known)
    }

    /// Calls `each` under every binding of a sum over bindings. The sums
    /// nested in one sum share one budget of [`MAX_SUM_COMPONENTS`]
    /// assignments, so that `(((G(j) for j in …) for i in …) for l in …)`
    /// is refused at a million components, not built to a billion.
    fn over_bindings(
        &self,
        over: &Over,
        env: &[Value],
        each: &mut dyn FnMut(&[Value]) -> Result<(), EvalError>,
    ) -> Result<(), EvalError> {
        // A sum's bindings may have slots past those of where it is used
        // (a `let`'s sum, used in a query of no bindings).
        let slots = over.bindings.iter().map(|binding| binding.slot + 1).max();
        let mut env: SmallVec<[Value; 8]> = env.iter().cloned().collect();
        if let Some(slots) = slots
            && env.len() < slots
        {
            env.resize(slots, Value::Int(0));
        }
        let depth = self.sum_depth.get();
        if depth == 0 {
            self.sum_budget.refill();
        }
        self.sum_depth.set(depth + 1);
        let done = assignments(
            &over.bindings,
            over.guard.as_ref(),
            &mut env,
            &self.sum_budget,
            &mut |env| each(env),
        );
        self.sum_depth.set(depth);
        done
    }

    /// The options of a position of a game declared `= POSITION`: the sum
    /// it stands for, aliases in it expanded (see [`Interpreter::alias_sum`]),
    /// with a move in one of its components. The parts listed, besides the
    /// options, are bounded by the options' limit.
    fn alias_options(
        &self,
        id: GameId,
        terms: &[Term],
        env: &[Value],
        options: &mut Options<Component>,
    ) -> Result<(), EvalError> {
        let span = self.program.game(id).span;
        let limit = options.limit();
        let sum = self.alias_sum(id, terms, env, limit)?;
        let mut moved = Options::new(limit);
        let mut parts = 0usize;
        for (i, component) in sum.iter().enumerate() {
            moved.clear();
            self.options(component, &mut moved)?;
            for option in moved.iter() {
                parts = parts.saturating_add(sum.len() - 1 + option.len());
                if parts > limit {
                    return Err(EvalError::TooManyOptions {
                        limit,
                        what: "components in the options",
                        span,
                        context: String::new(),
                    });
                }
                let rest = sum[..i].iter().chain(&sum[i + 1..]).cloned();
                push_option(options, rest.chain(option.iter().cloned()), Some(span))?;
            }
        }
        Ok(())
    }

    /// The sum a position of an alias `id` stands for, with every alias in
    /// it expanded in turn, depth first, without recursion: an alias met
    /// again inside its own expansion is a cycle, and the expansions and
    /// components are bounded by `limit`, so that `game X(n) = X(n - 1)`
    /// ends with an error, not a stack overflow.
    pub fn alias_sum(
        &self,
        id: GameId,
        terms: &[Term],
        env: &[Value],
        limit: usize,
    ) -> Result<Vec<Component>, EvalError> {
        let mut sum = Vec::new();
        self.position(terms, env, &mut |component| sum.push(component))?;
        sum.reverse();
        // The components still to expand, last first, and the aliases being
        // expanded, each with where its components start in `pending`.
        let mut pending = sum;
        let mut expanding: Vec<(Component, usize)> = Vec::new();
        let mut on_path: std::collections::HashSet<Component, rustc_hash::FxBuildHasher> =
            Default::default();
        let mut expanded = Vec::new();
        let mut steps = 0usize;
        loop {
            while let Some((alias, start)) = expanding.last()
                && pending.len() <= *start
            {
                on_path.remove(alias);
                expanding.pop();
            }
            let Some(component) = pending.pop() else {
                return Ok(expanded);
            };
            let Component::Game(game, args) = &component else {
                expanded.push(component);
                continue;
            };
            let Moves::Alias(inner) = &self.program.game(*game).moves else {
                expanded.push(component);
                continue;
            };
            steps += 1;
            if on_path.contains(&component) {
                return Err(self.alias_cycle(*game, &expanding, &component));
            }
            if steps + expanded.len() > limit || expanding.len() >= MAX_ALIAS_DEPTH {
                let limit = limit.min(MAX_ALIAS_DEPTH);
                return Err(self.alias_too_deep(id, &expanding, limit));
            }
            let mut env = vec![Value::Int(0); self.program.game(*game).slots];
            env[..args.len()].clone_from_slice(args);
            let start = pending.len();
            self.position(inner, &env, &mut |part| pending.push(part))?;
            pending[start..].reverse();
            on_path.insert(component.clone());
            expanding.push((component, start));
        }
    }

    /// The error for an alias met again inside its own expansion.
    fn alias_cycle(
        &self,
        game: GameId,
        expanding: &[(Component, usize)],
        again: &Component,
    ) -> EvalError {
        let from = expanding
            .iter()
            .position(|(alias, _)| alias == again)
            .unwrap_or(0);
        let mut cycle: Vec<String> = expanding[from..]
            .iter()
            .map(|(alias, _)| self.show(std::slice::from_ref(alias)).to_string())
            .collect();
        cycle.push(self.show(std::slice::from_ref(again)).to_string());
        EvalError::AliasCycle {
            game: self.program.game(game).name.clone(),
            cycle: cycle.join(" -> "),
            span: self.program.game(game).span,
        }
    }

    /// The error for an expansion past the limit: its first and deepest
    /// aliases.
    fn alias_too_deep(
        &self,
        id: GameId,
        expanding: &[(Component, usize)],
        limit: usize,
    ) -> EvalError {
        let show = |entries: &[(Component, usize)]| {
            entries
                .iter()
                .map(|(alias, _)| self.show(std::slice::from_ref(alias)).to_string())
                .collect::<Vec<_>>()
                .join(" -> ")
        };
        let chain = match expanding.len() {
            0..=6 => show(expanding),
            n => format!(
                "{} -> … -> {}",
                show(&expanding[..3]),
                show(&expanding[n - 3..])
            ),
        };
        let game = match expanding.last() {
            Some((Component::Game(game, _), _)) => *game,
            _ => id,
        };
        EvalError::AliasTooDeep {
            game: self.program.game(game).name.clone(),
            limit,
            chain,
            span: self.program.game(game).span,
        }
    }

    /// The game and parameter that fall without end along a chain of
    /// positions: every position of one game, that parameter negative in
    /// each and smaller in each than in the one before.
    pub fn falling_parameter(&self, chain: &[Component]) -> Option<(GameId, usize)> {
        let Some(Component::Game(game, first)) = chain.first() else {
            return None;
        };
        let mut args = Vec::with_capacity(chain.len());
        for position in chain {
            match position {
                Component::Game(other, position_args)
                    if other == game && position_args.len() == first.len() =>
                {
                    args.push(position_args)
                }
                _ => return None,
            }
        }
        let int = |position: &Args, i: usize| position[i].int().unwrap_or(0);
        let falls = |i: usize| {
            args.iter().all(|position| int(position, i) < 0)
                && args
                    .windows(2)
                    .all(|pair| int(pair[1], i) < int(pair[0], i))
        };
        (0..first.len()).find(|&i| falls(i)).map(|i| (*game, i))
    }

    /// The game and parameter that grow without end along a chain of
    /// positions: every position of one game, the parameter larger in each
    /// than in the one before, and a rule of the game proven to move from
    /// the deepest position to one with that parameter larger, and so on
    /// forever (see [`rises_forever`]). A game that is finite is never
    /// named: the proof shows a play that never ends.
    pub fn rising_parameter(&self, chain: &[Component]) -> Option<(GameId, usize)> {
        let (Some(Component::Game(game, first)), Some(Component::Game(_, deepest))) =
            (chain.first(), chain.last())
        else {
            return None;
        };
        let Moves::Rules(rules) = &self.program.game(*game).moves else {
            return None;
        };
        let arity = first.len();
        let mut ints = Vec::with_capacity(chain.len());
        for position in chain {
            match position {
                Component::Game(other, args) if other == game && args.len() == arity => {
                    ints.push(args.iter().map(Value::int).collect::<Option<Vec<i64>>>()?)
                }
                _ => return None,
            }
        }
        let rises = |i: usize| ints.windows(2).all(|pair| pair[1][i] > pair[0][i]);
        let at: Vec<i64> = deepest.iter().map(Value::int).collect::<Option<_>>()?;
        (0..arity)
            .find(|&i| rises(i) && rules.iter().any(|rule| rises_forever(rule, *game, i, &at)))
            .map(|i| (*game, i))
    }

    /// Where a game's rules give parameter `i` of the game itself a new
    /// value: the first such argument, to point at for a missing guard.
    pub fn argument_moving(&self, game: GameId, i: usize) -> Option<SourceSpan> {
        let Moves::Rules(rules) = &self.program.game(game).moves else {
            return None;
        };
        rules
            .iter()
            .flat_map(|rule| &rule.target)
            .find_map(|term| match term {
                Term::Game {
                    game: target, args, ..
                } if *target == game => args
                    .get(i)
                    .filter(|arg| !matches!(arg.kind, ExprKind::Slot(slot) if slot == i))
                    .map(|arg| arg.span),
                _ => None,
            })
    }

    /// The node of a graph named by the value of an expression.
    fn node_at(
        &self,
        graph: GraphId,
        index: &Expr,
        span: SourceSpan,
        env: &[Value],
    ) -> Result<NodeId, EvalError> {
        let name = eval(index, env)?.to_string();
        let graph = self.program.graph(graph);
        match graph.nodes.get_index_of(&name) {
            Some(node) => Ok(NodeId(node as u32)),
            None => Err(EvalError::NoSuchNode {
                graph: graph.name.clone(),
                node: name,
                span,
            }),
        }
    }

    /// A sum as it is written in the language.
    pub fn show<'a>(&'a self, sum: &'a [Component]) -> Show<'a> {
        Show {
            program: self.program,
            sum,
        }
    }
}

/// The options of a heap of `n` tokens under a take-and-break code: for
/// each k in turn, leaving no heap, then one, then two heaps (a ≤ b), then
/// three (a ≤ b ≤ c).
fn take_break_options(
    code: &TakeBreak,
    game: GameId,
    n: i64,
    options: &mut Options<Component>,
) -> Result<(), TooManyOptions> {
    let Ok(n) = usize::try_from(n) else {
        return Ok(());
    };
    let heap = |size: usize| Component::Game(game, smallvec::smallvec![Value::Int(size as i64)]);
    let last = code.largest_removal().map_or(n, |largest| largest.min(n));
    for k in 0..=last {
        let digit = code.digit(k);
        let left = n - k;
        if digit.bits & 1 != 0 && left == 0 {
            options.push([])?;
        }
        if digit.bits & 2 != 0 && left >= 1 {
            options.push([heap(left)])?;
        }
        if digit.bits & 4 != 0 {
            for a in 1..=left / 2 {
                if !(digit.distinct && a == left - a) {
                    options.push([heap(a), heap(left - a)])?;
                }
            }
        }
        if digit.bits & 8 != 0 {
            for a in 1..=left / 3 {
                for b in a..=(left - a) / 2 {
                    let c = left - a - b;
                    if !(digit.distinct && (a == b || b == c)) {
                        options.push([heap(a), heap(b), heap(c)])?;
                    }
                }
            }
        }
    }
    Ok(())
}

/// Whether `rule` of `game`, at the position of integer arguments `at`,
/// moves to a position of `game` whose parameter `i` is larger by a
/// constant and whose other arguments are no smaller, and does so again
/// from there, forever: the rule has no guard and no `while`, each binding
/// ranges from a constant to an end that does not fall as parameter `i`
/// grows (and is not empty at `at`), and the target holds `game(…)` with
/// argument `i` the parameter plus a positive constant and each other
/// argument its own parameter plus a constant of zero or more.
fn rises_forever(rule: &Rule, game: GameId, i: usize, at: &[i64]) -> bool {
    use crate::program::affine::Affine;
    let arity = at.len();
    if arity > 4 || rule.guard.is_some() {
        return false;
    }
    // A form of the parameters alone: no binding (`usize::MAX` is no slot).
    let form = |expr: &Expr| Affine::of(expr, arity, usize::MAX);
    let value = |form: &Affine| {
        (0..arity).fold(i128::from(form.constant), |sum, j| {
            sum + i128::from(form.params[j]) * i128::from(at[j])
        })
    };
    let bindings_hold = rule.bindings.iter().all(|binding| {
        let Domain::Range {
            start,
            end,
            inclusive,
        } = &binding.domain
        else {
            return false;
        };
        let (Some(start), Some(end)) = (form(start), form(end)) else {
            return false;
        };
        let only_i = |form: &Affine| (0..arity).all(|j| form.params[j] == 0 || j == i);
        binding.stop.is_none()
            && start.params == [0; 4]
            && only_i(&end)
            && end.params[i] >= 0
            && match inclusive {
                true => value(&start) <= value(&end),
                false => value(&start) < value(&end),
            }
    });
    bindings_hold
        && rule.target.iter().any(|term| match term {
            Term::Game {
                game: target, args, ..
            } if *target == game && args.len() == arity => {
                args.iter().enumerate().all(|(j, arg)| {
                    form(arg).is_some_and(|form| {
                        let mut own = [0; 4];
                        own[j] = 1;
                        form.params == own && form.constant >= 0 && (j != i || form.constant > 0)
                    })
                })
            }
            _ => false,
        })
}

/// A game's arguments, evaluated in a plain loop: the search's inner loop
/// runs through here for every part of every option.
fn evaluate_args(args: &[Expr], env: &[Value]) -> Result<Args, EvalError> {
    let mut values = Args::new();
    for arg in args {
        values.push(value(arg, env)?);
    }
    Ok(values)
}

/// The size of a heap `*size`, which may not be negative.
fn heap_size(size: &Expr, env: &[Value]) -> Result<u64, EvalError> {
    let n = eval(size, env)?;
    u64::try_from(n).map_err(|_| EvalError::NegativeHeap {
        size: n,
        span: size.span,
        context: String::new(),
    })
}

/// A rule's environment, made when it is first needed (a compiled rule
/// needs none): the parameters, then a slot for each binding.
pub(super) struct Env<'a> {
    args: &'a [Value],
    slots: usize,
    values: Option<SmallVec<[Value; 8]>>,
}

impl Env<'_> {
    pub fn get(&mut self) -> &mut [Value] {
        self.values.get_or_insert_with(|| {
            let mut values: SmallVec<[Value; 8]> = SmallVec::from_elem(Value::Int(0), self.slots);
            values[..self.args.len()].clone_from_slice(self.args);
            values
        })
    }
}

/// The parameters of a position as compiled rules take them (see
/// [`program::Compiled`]): up to four integers, each below 2^32.
#[inline]
fn compiled_params(args: &[Value]) -> Option<[i64; 4]> {
    let mut params = [0; 4];
    if args.len() > 4 {
        return None;
    }
    for (param, arg) in params.iter_mut().zip(args) {
        *param = arg.int().filter(|&int| u32::try_from(int).is_ok())?;
    }
    Some(params)
}

/// The arguments of a game of two to four parameters, if each is an
/// integer evaluated without error.
#[inline]
fn quick_ints(args: &[Expr], env: &[Value]) -> Option<SmallVec<[i64; 4]>> {
    if !(2..=4).contains(&args.len()) {
        return None;
    }
    args.iter().map(|arg| quick(arg, env)).collect()
}

/// A sum written as source text: `Nim(3) + *5 + Maze.start`.
pub struct Show<'a> {
    program: &'a Program,
    sum: &'a [Component],
}

impl fmt::Display for Show<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The empty sum is the empty game, which is written `*0`.
        if self.sum.is_empty() {
            return f.write_str("*0");
        }
        for (i, component) in self.sum.iter().enumerate() {
            if i > 0 {
                f.write_str(" + ")?;
            }
            match component {
                Component::Heap(n) => write!(f, "*{n}")?,
                Component::Node(graph, node) => {
                    let graph = self.program.graph(*graph);
                    write!(f, "{}.{}", graph.name, graph.nodes[node.0 as usize])?;
                }
                Component::Game(game, args) => {
                    f.write_str(&self.program.game(*game).name)?;
                    if !args.is_empty() {
                        f.write_str("(")?;
                        for (i, arg) in args.iter().enumerate() {
                            if i > 0 {
                                f.write_str(", ")?;
                            }
                            write!(f, "{arg}")?;
                        }
                        f.write_str(")")?;
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_division_and_modulo_follow_python() {
        assert_eq!(arithmetic(BinaryOp::Div, 7, 2), Some(3));
        assert_eq!(arithmetic(BinaryOp::Div, -7, 2), Some(-4));
        assert_eq!(arithmetic(BinaryOp::Div, 7, -2), Some(-4));
        assert_eq!(arithmetic(BinaryOp::Div, -7, -2), Some(3));
        assert_eq!(arithmetic(BinaryOp::Rem, -7, 2), Some(1));
        assert_eq!(arithmetic(BinaryOp::Rem, 7, -2), Some(-1));
        assert_eq!(arithmetic(BinaryOp::Rem, -7, -2), Some(-1));
        assert_eq!(arithmetic(BinaryOp::Rem, 6, -3), Some(0));
    }

    fn leaf(kind: ExprKind) -> Expr {
        Expr::leaf(kind)
    }

    fn binary(op: BinaryOp, lhs: Expr, rhs: Expr) -> Expr {
        leaf(ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)))
    }

    proptest::proptest! {
        /// `a - b + c - 5`, compiled to a chain, gives what the tree gives,
        /// overflow included.
        #[test]
        fn chains_evaluate_as_their_trees(a: i64, b: i64, c: i64, small in -9i64..9) {
            let tree = binary(
                BinaryOp::Sub,
                binary(
                    BinaryOp::Add,
                    binary(BinaryOp::Sub, leaf(ExprKind::Slot(0)), leaf(ExprKind::Slot(1))),
                    leaf(ExprKind::Slot(2)),
                ),
                leaf(ExprKind::Const(5)),
            );
            let chain = tree.clone().compiled();
            proptest::prop_assert!(matches!(chain.kind, ExprKind::Chain(_)));
            for env in [[a, b, c], [a, small, c], [small, b, small]] {
                let env = env.map(Value::Int);
                let expected = explain(&tree, &env).ok();
                proptest::prop_assert_eq!(quick(&chain, &env), expected);
                proptest::prop_assert_eq!(eval(&chain, &env).ok(), expected);
            }
        }
    }

    #[test]
    fn overflow_is_detected() {
        assert_eq!(arithmetic(BinaryOp::Add, i64::MAX, 1), None);
        assert_eq!(arithmetic(BinaryOp::Mul, i64::MIN, -1), None);
        assert_eq!(arithmetic(BinaryOp::Div, i64::MIN, -1), None);
        assert_eq!(arithmetic(BinaryOp::Rem, i64::MIN, -1), Some(0));
    }
}
