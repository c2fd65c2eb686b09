//! Sweeps: the options of a rule's last binding read along lines of the
//! engine's dense tables (see [`crate::program::Sweep`]). The arguments
//! are evaluated, checked, at the two ends of the binding's interval only;
//! in between, each moving term steps along its table, and each option costs
//! a few loads and XORs, as in a solver written by hand. An option with a
//! part not in a table (not solved yet, or kept outside the tables) is
//! evaluated the ordinary way, which notes what is missing. Whatever a
//! sweep cannot take on (an argument that is negative or fails to evaluate,
//! a part with no value) goes the ordinary way as a whole, so that errors
//! are the ones the rule gives option by option.

use miette::SourceSpan;
use smallvec::SmallVec;

use super::{Component, Interpreter};
use crate::engine::{Address, BoxRules, Cell, CellSlice, Grundy, Mex, Solved};
use crate::eval::{Budget, EvalError, assignments, eval, quick, set_int};
use crate::program::{self, Affine, Binding, Domain, Rule, Term};
use crate::values::Value;

/// A rule with a sweep plan, and its last binding.
pub(super) struct Sweep<'r> {
    pub rule: &'r Rule,
    pub plan: &'r program::Sweep,
    pub binding: &'r Binding,
}

/// Options folded so far for one position, out of how many allowed, and
/// the work they took, counted in options examined one by one.
pub(super) struct Count {
    pub done: usize,
    pub limit: usize,
    pub work: u64,
}

impl Count {
    /// Counts `count` more options, if they are allowed.
    pub fn add(&mut self, count: usize, span: SourceSpan) -> Result<(), EvalError> {
        match self.room(count) {
            true => {
                self.done += count;
                self.work += count as u64;
                Ok(())
            }
            false => Err(EvalError::TooManyOptions {
                limit: self.limit,
                what: ("option", "options"),
                span,
                context: String::new(),
            }),
        }
    }

    /// Counts the `count` options just added as read from a set of values
    /// of `words` words, not one by one.
    fn read_as_set(&mut self, count: usize, words: usize) {
        self.work = self.work - count as u64 + words as u64 + 1;
    }

    fn room(&self, count: usize) -> bool {
        self.done
            .checked_add(count)
            .is_some_and(|done| done <= self.limit)
    }
}

/// Where one moving term's values lie in its table: the cell of the
/// first option, and the step from one option's to the next's. Rows lie
/// one after another in a table, so a row, a column and a diagonal are all
/// such lines.
#[derive(Clone, Copy)]
struct Line<'a> {
    table: usize,
    cells: CellSlice<'a>,
    start: usize,
    step: isize,
}

/// The shortest line whose values are kept as a set (see
/// [`Solved::line`]); shorter ones are read cell by cell.
const LINE_SETS_FROM: usize = 32;

impl Line<'_> {
    /// The cell of the `i`th option: a value, or not (see
    /// [`Solved::is_value`]) where the table has no value.
    #[inline(always)]
    fn cell(&self, i: usize) -> Grundy {
        let index = self.start.wrapping_add_signed(self.step * i as isize);
        self.cells.get(index).unwrap_or(Grundy::MAX)
    }
}

impl Interpreter<'_> {
    /// Folds the options of a rule's last binding, under the outer
    /// bindings' assignment in `env`.
    pub(super) fn sweep(
        &self,
        sweep: &Sweep,
        env: &mut [Value],
        budget: &Budget,
        count: &mut Count,
        solved: &mut Solved<'_, Component>,
        mex: &mut Mex,
    ) -> Result<(), EvalError> {
        let Sweep {
            rule,
            plan,
            binding,
        } = *sweep;
        let Domain::Range {
            start,
            end,
            inclusive,
        } = &binding.domain
        else {
            return self.option_by_option(sweep, env, budget, count, solved, mex);
        };
        let (first, end) = (eval(start, env)?, eval(end, env)?);
        let last = match inclusive {
            true => end,
            false => match end.checked_sub(1) {
                Some(last) => last,
                None => return Ok(()),
            },
        };
        if first > last {
            return Ok(());
        }
        let length = usize::try_from(last.abs_diff(first))
            .ok()
            .and_then(|length| length.checked_add(1))
            .filter(|&length| budget.room(length) && count.room(length));
        let Some(length) = length else {
            return self.option_by_option(sweep, env, budget, count, solved, mex);
        };
        env[plan.slot] = Value::Int(first);
        if let Some(guard) = &rule.guard {
            match eval(guard, env) {
                Ok(0) => return budget.spend_many(length, binding.span),
                Ok(_) => {}
                Err(_) => return self.option_by_option(sweep, env, budget, count, solved, mex),
            }
        }
        let from = solved.noted();
        let mut lines = SmallVec::new();
        let fixed = match plan.gather {
            Some(_) => Some(0),
            None => self.lines(rule, plan, env, (first, last, length), solved, &mut lines),
        };
        let Some(fixed) = fixed else {
            // The options are looked up one by one instead: what the lines
            // noted missing is noted again there, with the options.
            solved.forget_from(from);
            env[plan.slot] = Value::Int(first);
            return self.option_by_option(sweep, env, budget, count, solved, mex);
        };
        budget.spend_many(length, binding.span)?;
        count.add(length, rule.span)?;
        if let Some(term) = plan.gather {
            return self.gather(sweep, &rule.target[term], env, (first, length), solved, mex);
        }
        if as_set(&lines, fixed, length, count, solved, mex) {
            return Ok(());
        }
        let mut slow = |i: isize, mex: &mut Mex| {
            env[plan.slot] = Value::Int(first + i as i64);
            self.fold_option(&rule.target, env, solved, mex)
        };
        fold_cells(&lines, length, fixed, &mut slow, mex)
    }

    /// Folds the options of a compiled rule (see [`program::Compiled`]) of a
    /// position of parameters `params`, each below 2^32: the ends, the
    /// lines and the options not solved yet are found by arithmetic on
    /// them, with no environment. `false`, with nothing folded, where the
    /// rule must be swept the ordinary way: a line leaves its table, or its
    /// options are more than allowed.
    pub(super) fn compiled(
        &self,
        (rule, compiled): (&Rule, &program::Compiled),
        params: &[i64; 4],
        budget: &Budget,
        count: &mut Count,
        solved: &mut Solved<'_, Component>,
        mex: &mut Mex,
    ) -> Result<bool, EvalError> {
        let (first, last) = (compiled.first.at(params), compiled.last.at(params));
        if first > last {
            return Ok(true);
        }
        let length = (last - first) as usize + 1;
        if !(budget.room(length) && count.room(length)) {
            return Ok(false);
        }
        let mut lines: SmallVec<[Line; 4]> = SmallVec::new();
        for (game, forms) in &compiled.terms {
            let grid = solved.grid(game.0 as usize);
            let Some((start, step)) = line_of(forms, params, (first, last), grid.dims) else {
                return Ok(false);
            };
            lines.push(Line {
                table: game.0 as usize,
                cells: grid.cells,
                start,
                step,
            });
        }
        let binding = &rule.bindings[0];
        budget.spend_many(length, binding.span)?;
        count.add(length, rule.span)?;
        if as_set(&lines, 0, length, count, solved, mex) {
            return Ok(true);
        }
        // An option with a part not solved yet: its parts found by address
        // (their arguments lie in the tables, as the ends' do), and built
        // only to be noted missing.
        let mut slow = |i: isize, mex: &mut Mex| {
            let k = first + i as i64;
            let (from, mut value, mut known) = (solved.noted(), 0, true);
            for (game, forms) in &compiled.terms {
                let args: SmallVec<[i64; 4]> =
                    forms.iter().map(|form| form.at(params, k)).collect();
                let address = Address::of(game.0, &args).expect("the line lies in the table");
                let part =
                    || Component::Game(*game, args.iter().map(|&arg| Value::Int(arg)).collect());
                match solved.at(address, part) {
                    Some(part) => value ^= part,
                    None => known = false,
                }
            }
            match known {
                true => mex.add(value),
                false => solved.defer(value, from),
            }
            Ok(())
        };
        fold_cells(&lines, length, 0, &mut slow, mex)?;
        Ok(true)
    }

    /// Folds the options of a gathered target (see [`program::Sweep`]), a game
    /// of one parameter: each option's argument evaluated, and its cell
    /// read from row 0 of the game's table. An option whose argument fails
    /// or leaves the table, or whose cell has no value yet, is folded the
    /// ordinary way.
    fn gather(
        &self,
        sweep: &Sweep,
        term: &Term,
        env: &mut [Value],
        (first, length): (i64, usize),
        solved: &mut Solved<'_, Component>,
        mex: &mut Mex,
    ) -> Result<(), EvalError> {
        let Term::Game { game, args, .. } = term else {
            unreachable!("a gathered term is a game's")
        };
        let grid = solved.grid(game.0 as usize);
        let slot = sweep.plan.slot;
        let mut low = 0u64;
        for k in (first..).take(length) {
            set_int(&mut env[slot], k);
            let cell = quick(&args[0], env)
                .and_then(|n| grid.index(&[n]))
                .and_then(|index| grid.cells.get(index))
                .unwrap_or(Grundy::MAX);
            match Solved::<Component>::is_value(cell) {
                true if cell < 64 => low |= 1 << cell,
                true => mex.add(cell),
                false => self.fold_option(&sweep.rule.target, env, solved, mex)?,
            }
        }
        mex.add_below_64(low);
        Ok(())
    }

    /// The rule's last binding, assignment by assignment.
    fn option_by_option(
        &self,
        sweep: &Sweep,
        env: &mut [Value],
        budget: &Budget,
        count: &mut Count,
        solved: &mut Solved<'_, Component>,
        mex: &mut Mex,
    ) -> Result<(), EvalError> {
        let rule = sweep.rule;
        let bindings = std::slice::from_ref(sweep.binding);
        assignments(bindings, rule.guard.as_ref(), env, budget, &mut |env| {
            count.add(1, rule.span)?;
            self.fold_option(&rule.target, env, solved, mex)
        })
    }

    /// The XOR of the terms that do not move, with a line for each term
    /// that does put in `lines`; `None` if the sweep cannot read them so (a
    /// part with no value, an argument that fails or leaves the tables).
    fn lines<'a>(
        &self,
        rule: &Rule,
        plan: &program::Sweep,
        env: &mut [Value],
        (first, last, length): (i64, i64, usize),
        solved: &mut Solved<'a, Component>,
        lines: &mut SmallVec<[Line<'a>; 4]>,
    ) -> Option<Grundy> {
        let mut fixed = 0;
        for (term, steps) in rule.target.iter().zip(&plan.steps) {
            let Term::Game { game, args, .. } = term else {
                fixed ^= known(self.term_value(term, env, solved))?;
                continue;
            };
            if steps.is_empty() {
                fixed ^= known(self.term_value(term, env, solved))?;
                continue;
            }
            // The arguments at both ends; between them each moves
            // steadily, so both ends in a table puts every option there.
            let mut ends = [[0i64; 4]; 2];
            for (end, at) in ends.iter_mut().zip([first, last]) {
                env[plan.slot] = Value::Int(at);
                for (value, arg) in end.iter_mut().zip(args) {
                    *value = eval(arg, env).ok()?;
                }
            }
            let in_table = |value: i64| u32::try_from(value).is_ok();
            if !ends.iter().flatten().all(|&value| in_table(value)) {
                return None;
            }
            let grid = solved.grid(game.0 as usize);
            // Where a game's arguments are in its table (see `Rules::dense`).
            let index = |args: [i64; 4]| grid.index(&args[..steps.len()]);
            let (start, end) = (index(ends[0])?, index(ends[1])?);
            let step = match length {
                1 => 0,
                _ => (end as isize - start as isize) / (length as isize - 1),
            };
            lines.push(Line {
                table: game.0 as usize,
                cells: grid.cells,
                start,
                step,
            });
        }
        Some(fixed)
    }
}

/// The line of a compiled term's options from binding `first` to `last`
/// in a table of `dims`: the first option's cell and the step to the next,
/// from each argument's value at the first option and its step. `None` if
/// either end leaves the table (or an address's 32 bits); if neither does,
/// no option does.
#[inline]
fn line_of(
    forms: &[Affine],
    params: &[i64; 4],
    (first, last): (i64, i64),
    dims: [usize; 4],
) -> Option<(usize, isize)> {
    let [_, planes, rows, stride] = dims;
    let strides = [planes * rows * stride, rows * stride, stride, 1];
    let skipped = 4 - forms.len();
    if dims[..skipped].contains(&0) {
        return None;
    }
    let (mut start, mut step) = (0, 0);
    for (d, form) in (skipped..).zip(forms) {
        let at_first = form.at(params, first);
        let at_last = at_first + form.binding * (last - first);
        let dim = (dims[d] as i64).min(1 << 32);
        if !(0..dim).contains(&at_first) || !(0..dim).contains(&at_last) {
            return None;
        }
        start += at_first as usize * strides[d];
        step += form.binding as isize * strides[d] as isize;
    }
    Some((start, step))
}

/// A game's compiled rules, as the engine's threads read them to solve its
/// table as a box (see [`crate::program::solves_as_box`]): each argument
/// of each term is its parameter plus a constant and a multiple of the
/// binding, so a line is the position's cell plus an offset.
pub(super) struct CompiledBox {
    rules: Vec<BoxRule>,
    arity: usize,
}

struct BoxRule {
    first: program::End,
    last: program::End,
    terms: SmallVec<[BoxTerm; 2]>,
}

/// A term of a rule of a [`CompiledBox`]: per coordinate (volume, plane,
/// row, column) the constant and the binding's multiple added to the
/// parameter, and, in a table of the dimensions set, the offset of the
/// option of binding 0 from the position's cell and the step to the next.
struct BoxTerm {
    moves: [(i64, i64); 4],
    offset: isize,
    step: isize,
}

impl CompiledBox {
    pub fn new(rules: Vec<program::Compiled>, arity: usize) -> Self {
        let rules = rules.into_iter().map(|compiled| BoxRule {
            terms: compiled
                .terms
                .iter()
                .map(|(_, forms)| {
                    let mut moves = [(0, 0); 4];
                    for (d, form) in (4 - forms.len()..).zip(forms) {
                        moves[d] = (form.constant, form.binding);
                    }
                    BoxTerm {
                        moves,
                        offset: 0,
                        step: 0,
                    }
                })
                .collect(),
            first: compiled.first,
            last: compiled.last,
        });
        CompiledBox {
            rules: rules.collect(),
            arity,
        }
    }
}

impl BoxRules for CompiledBox {
    fn arity(&self) -> usize {
        self.arity
    }

    fn rules(&self) -> usize {
        self.rules.len()
    }

    fn step(&self, rule: usize) -> Option<[i64; 4]> {
        let [term] = self.rules[rule].terms.as_slice() else {
            return None;
        };
        Some(term.moves.map(|(_, binding)| binding))
    }

    fn set_dims(&mut self, dims: [usize; 4]) {
        let [_, planes, rows, stride] = dims;
        let strides = [planes * rows * stride, rows * stride, stride, 1].map(|s| s as isize);
        for term in self.rules.iter_mut().flat_map(|rule| &mut rule.terms) {
            term.offset = (0..4).map(|d| term.moves[d].0 as isize * strides[d]).sum();
            term.step = (0..4).map(|d| term.moves[d].1 as isize * strides[d]).sum();
        }
    }

    #[inline]
    fn lines(
        &self,
        rule: usize,
        at: [u32; 4],
        cell: usize,
        lines: &mut SmallVec<[(usize, isize); 4]>,
    ) -> Option<usize> {
        let rule = &self.rules[rule];
        let mut params = [0; 4];
        for (param, &at) in params.iter_mut().zip(&at[4 - self.arity..]) {
            *param = i64::from(at);
        }
        let (first, last) = (rule.first.at(&params), rule.last.at(&params));
        if first > last {
            return Some(0);
        }
        for term in &rule.terms {
            // Each coordinate moves one way: both ends at or below the
            // position's (see `solves_as_box`) and at or above 0 put every
            // option in the box.
            for (&(constant, binding), &at) in term.moves.iter().zip(&at) {
                let at = i64::from(at);
                let ends = [first, last].map(|k| at + constant + binding * k);
                if ends.iter().any(|&end| !(0..=at).contains(&end)) {
                    return None;
                }
            }
            let start = cell as isize + term.offset + term.step * first as isize;
            lines.push((start as usize, term.step));
        }
        usize::try_from(last - first).ok()?.checked_add(1)
    }
}

/// Adds the options' values to `mex` as the set of values seen along a
/// line, if there is one line with nothing beside it (each option's value
/// is then its cell's) and the set is kept (a prefix of a row, column or
/// diagonal; the set is grown as positions along it are folded).
fn as_set(
    lines: &[Line],
    fixed: Grundy,
    length: usize,
    count: &mut Count,
    solved: &mut Solved<'_, Component>,
    mex: &mut Mex,
) -> bool {
    if let ([line], 0) = (lines, fixed)
        && length >= LINE_SETS_FROM
        && let Some(values) = solved.line(line.table, line.start, line.step, length)
    {
        mex.add_all(values);
        count.read_as_set(length, values.words());
        return true;
    }
    false
}

/// Folds the options read along `lines`, in a loop the compiler unrolls
/// for one to three lines (more, rare in rules, in a plain one).
fn fold_cells(
    lines: &[Line],
    length: usize,
    fixed: Grundy,
    slow: &mut impl FnMut(isize, &mut Mex) -> Result<(), EvalError>,
    mex: &mut Mex,
) -> Result<(), EvalError> {
    match *lines {
        [one] => typed::<1, false>([one], length, fixed, slow, mex),
        [one, two] => typed::<2, true>([one, two], length, fixed, slow, mex),
        [one, two, three] => typed::<3, true>([one, two, three], length, fixed, slow, mex),
        _ => each_cell(lines, length, fixed, slow, mex),
    }
}

/// A term's value, if it has one.
fn known(found: Result<(Grundy, bool), EvalError>) -> Option<Grundy> {
    match found {
        Ok((value, true)) => Some(value),
        _ => None,
    }
}

/// A line whose cells are all of one width `T`.
#[derive(Clone, Copy)]
struct Typed<'a, T> {
    cells: &'a [T],
    start: usize,
    step: isize,
}

/// [`across`] for lines read in their cells' width, when they share one
/// (they do when they run through one table, as in a sum of one game's
/// heaps); `GATHER` for two or three lines (sums: options of values below
/// 64 are most). Lines of tables of different widths are read through the
/// width of each cell.
fn typed<const N: usize, const GATHER: bool>(
    lines: [Line; N],
    length: usize,
    fixed: Grundy,
    slow: &mut impl FnMut(isize, &mut Mex) -> Result<(), EvalError>,
    mex: &mut Mex,
) -> Result<(), EvalError> {
    macro_rules! width {
        ($variant:ident) => {
            if lines
                .iter()
                .all(|line| matches!(line.cells, CellSlice::$variant(_)))
            {
                let typed = lines.map(|line| match line.cells {
                    CellSlice::$variant(cells) => Typed {
                        cells,
                        start: line.start,
                        step: line.step,
                    },
                    _ => unreachable!("every line is of this width"),
                });
                return across::<N, GATHER, _>(typed, length, fixed, slow, mex);
            }
        };
    }
    width!(U8);
    width!(U16);
    width!(U32);
    width!(U64);
    each_cell(&lines, length, fixed, slow, mex)
}

/// [`across`] for any number of lines of any widths, each cell read
/// through its width: more than three lines (rare in rules), or lines
/// through tables of different widths.
fn each_cell(
    lines: &[Line],
    length: usize,
    fixed: Grundy,
    slow: &mut impl FnMut(isize, &mut Mex) -> Result<(), EvalError>,
    mex: &mut Mex,
) -> Result<(), EvalError> {
    for i in 0..length {
        let cells = lines.iter().map(|line| line.cell(i));
        let (largest, value) = cells.fold((0, fixed), |(largest, value), cell| {
            (largest.max(cell), value ^ cell)
        });
        match Solved::<Component>::is_value(largest) {
            true => mex.add(value),
            false => slow(i as isize, mex)?,
        }
    }
    Ok(())
}

/// Adds the value of each of `length` options to `mex`, reading their
/// cells from `N` lines; `slow(i)` folds the `i`th when a cell read is no
/// value. With `GATHER`, values below 64 are gathered in a register and
/// noted at the end: noting each in the same word of the set would wait on
/// the last store every time (for lines whose values are mostly larger,
/// the test costs more than it saves).
/// Compiled apart for each width and count: in a function of its own, the
/// loop keeps its indices and the values gathered in registers.
#[inline(never)]
fn across<const N: usize, const GATHER: bool, T: Cell>(
    lines: [Typed<T>; N],
    length: usize,
    fixed: Grundy,
    slow: &mut impl FnMut(isize, &mut Mex) -> Result<(), EvalError>,
    mex: &mut Mex,
) -> Result<(), EvalError> {
    let mut low = 0u64;
    // Two lines stepping a cell at a time (a heap split in two): the
    // options whose cells are both in their tables are read from slices
    // cut to one length, where indexing needs no bounds checks.
    let first = match (N, GATHER) {
        (2, true) => pair(lines[0], lines[1], length, fixed, &mut low, slow, mex)?,
        _ => 0,
    };
    // Each line's index, stepped along rather than computed afresh.
    let mut at = lines.map(|line| line.start.wrapping_add_signed(line.step * first as isize));
    for i in first..length {
        let (mut largest, mut value) = (0, fixed);
        for (line, at) in lines.iter().zip(&mut at) {
            // In the cells' own width: a state, or a cell off the table,
            // is the largest, and the XOR is of plain values otherwise.
            let cell = line.cells.get(*at).map_or(u64::MAX, |cell| cell.raw());
            largest = largest.max(cell);
            value ^= cell;
            *at = at.wrapping_add_signed(line.step);
        }
        match largest < T::STATES {
            true if GATHER && value < 64 => low |= 1 << value,
            true => mex.add(value),
            false => slow(i as isize, mex)?,
        }
    }
    mex.add_below_64(low);
    Ok(())
}

/// The first options of two lines stepping one cell at a time, as many as
/// have both cells in their tables; returns how many were read.
fn pair<'a, T: Cell>(
    one: Typed<'a, T>,
    two: Typed<'a, T>,
    length: usize,
    fixed: Grundy,
    low: &mut u64,
    slow: &mut impl FnMut(isize, &mut Mex) -> Result<(), EvalError>,
    mex: &mut Mex,
) -> Result<usize, EvalError> {
    // The cells of a line from its start, as many as are in its table.
    fn run<T>(line: Typed<'_, T>) -> Option<&[T]> {
        match line.step {
            1 => line.cells.get(line.start..),
            -1 => line.cells.get(..=line.start),
            _ => None,
        }
    }
    let (Some(a), Some(b)) = (run(one), run(two)) else {
        return Ok(0);
    };
    let count = length.min(a.len()).min(b.len());
    // A line running back reads its run's last `count` cells.
    let cut = |run: &'a [T], back: bool| match back {
        true => &run[run.len() - count..],
        false => &run[..count],
    };
    let (a, b) = (cut(a, one.step < 0), cut(b, two.step < 0));
    match (one.step < 0, two.step < 0) {
        (false, false) => zip_fold::<false, false, _>(a, b, fixed, low, slow, mex)?,
        (false, true) => zip_fold::<false, true, _>(a, b, fixed, low, slow, mex)?,
        (true, false) => zip_fold::<true, false, _>(a, b, fixed, low, slow, mex)?,
        (true, true) => zip_fold::<true, true, _>(a, b, fixed, low, slow, mex)?,
    }
    Ok(count)
}

/// Folds the options whose cells are `a`'s and `b`'s in step, each read
/// from its end when its flag says the line runs back.
#[inline(always)]
fn zip_fold<const A_BACK: bool, const B_BACK: bool, T: Cell>(
    a: &[T],
    b: &[T],
    fixed: Grundy,
    low: &mut u64,
    slow: &mut impl FnMut(isize, &mut Mex) -> Result<(), EvalError>,
    mex: &mut Mex,
) -> Result<(), EvalError> {
    let count = a.len().min(b.len());
    let (a, b) = (&a[..count], &b[..count]);
    let mut gathered = 0u64;
    for i in 0..count {
        let a = a[if A_BACK { count - 1 - i } else { i }].raw();
        let b = b[if B_BACK { count - 1 - i } else { i }].raw();
        let value = fixed ^ a ^ b;
        match a.max(b) < T::STATES {
            true if value < 64 => gathered |= 1 << value,
            true => mex.add(value),
            false => slow(i as isize, mex)?,
        }
    }
    *low |= gathered;
    Ok(())
}
