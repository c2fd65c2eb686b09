//! Sweeps: the options of a rule's last binding read along lines of the
//! engine's dense tables (see [`crate::lower::ir::Sweep`]). The arguments
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

use super::{Budget, Component, EvalError, Interpreter, assignments, eval};
use crate::engine::{Grundy, Mex, Solved};
use crate::lower::ir::{self, Binding, Domain, Rule, Term};

/// A rule with a sweep plan, and its last binding.
pub(super) struct Sweep<'r> {
    pub rule: &'r Rule,
    pub plan: &'r ir::Sweep,
    pub binding: &'r Binding,
}

/// Options folded so far for one position, out of how many allowed.
pub(super) struct Count {
    pub done: usize,
    pub limit: usize,
}

impl Count {
    /// Counts `count` more options, if they are allowed.
    pub fn add(&mut self, count: usize, span: SourceSpan) -> Result<(), EvalError> {
        match self.room(count) {
            true => {
                self.done += count;
                Ok(())
            }
            false => Err(EvalError::TooManyOptions {
                limit: self.limit,
                what: "options",
                span,
                context: String::new(),
            }),
        }
    }

    fn room(&self, count: usize) -> bool {
        self.done
            .checked_add(count)
            .is_some_and(|done| done <= self.limit)
    }
}

/// Where one moving term's values lie in its table: a cell, and the step
/// from one option to the next.
#[derive(Clone, Copy)]
enum Line<'a> {
    /// Along one row (a game of one parameter, or a fixed first argument).
    Row {
        cells: &'a [Grundy],
        col: isize,
        step: isize,
    },
    /// Across rows.
    Rows {
        rows: &'a [Vec<Grundy>],
        row: isize,
        col: isize,
        row_step: isize,
        col_step: isize,
    },
}

/// A line's cells, when it lies whole within one row: in the order of the
/// options, or the reverse.
enum Cells<'a> {
    Up(&'a [Grundy]),
    Down(&'a [Grundy]),
}

impl<'a> Line<'a> {
    /// The line's `length` cells, if they are all in one row.
    fn cells(&self, length: usize) -> Option<Cells<'a>> {
        let Line::Row { cells, col, step } = *self else {
            return None;
        };
        let col = col as usize;
        match step {
            1 => cells.get(col..col.checked_add(length)?).map(Cells::Up),
            -1 => cells
                .get(col.checked_sub(length - 1)?..=col)
                .map(Cells::Down),
            _ => None,
        }
    }

    /// The value at the `i`th option, if it is in the table.
    #[inline(always)]
    fn at(&self, i: isize) -> Option<Grundy> {
        match *self {
            Line::Row { cells, col, step } => Solved::<Component>::known(cells, col + step * i),
            Line::Rows {
                rows,
                row,
                col,
                row_step,
                col_step,
            } => {
                let cells = rows.get((row + row_step * i) as usize)?;
                Solved::<Component>::known(cells, col + col_step * i)
            }
        }
    }
}

impl Interpreter<'_> {
    /// Folds the options of a rule's last binding, under the outer
    /// bindings' assignment in `env`.
    pub(super) fn sweep(
        &self,
        sweep: &Sweep,
        env: &[i64],
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
        let mut env: SmallVec<[i64; 8]> = SmallVec::from_slice(env);
        let env = env.as_mut_slice();
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
        env[plan.slot] = first;
        if let Some(guard) = &rule.guard {
            match eval(guard, env) {
                Ok(0) => return budget.spend_many(length, binding.span),
                Ok(_) => {}
                Err(_) => return self.option_by_option(sweep, env, budget, count, solved, mex),
            }
        }
        let Some((fixed, lines)) = self.lines(rule, plan, env, first, last, solved) else {
            env[plan.slot] = first;
            return self.option_by_option(sweep, env, budget, count, solved, mex);
        };
        budget.spend_many(length, binding.span)?;
        count.add(length, rule.span)?;
        let mut slow = |i: isize, mex: &mut Mex| {
            env[plan.slot] = first + i as i64;
            if let Some(value) = self.option_value(&rule.target, env, solved)? {
                mex.add(value);
            }
            Ok(())
        };
        // Lines that lie whole within one row are read as slices, which the
        // compiler turns into a loop of loads and XORs.
        use Cells::{Down, Up};
        match lines.as_slice() {
            [one] => match one.cells(length) {
                Some(Up(xs)) => tight(xs.iter().map(|&x| (x, x)), fixed, &mut slow, mex),
                Some(Down(xs)) => tight(xs.iter().rev().map(|&x| (x, x)), fixed, &mut slow, mex),
                None => along(length, fixed, |i| one.at(i), &mut slow, mex),
            },
            [one, two] => match (one.cells(length), two.cells(length)) {
                (Some(Up(xs)), Some(Up(ys))) => {
                    tight(pairs(xs.iter(), ys.iter()), fixed, &mut slow, mex)
                }
                (Some(Up(xs)), Some(Down(ys))) => {
                    tight(pairs(xs.iter(), ys.iter().rev()), fixed, &mut slow, mex)
                }
                (Some(Down(xs)), Some(Up(ys))) => {
                    tight(pairs(xs.iter().rev(), ys.iter()), fixed, &mut slow, mex)
                }
                (Some(Down(xs)), Some(Down(ys))) => tight(
                    pairs(xs.iter().rev(), ys.iter().rev()),
                    fixed,
                    &mut slow,
                    mex,
                ),
                _ => along(
                    length,
                    fixed,
                    |i| Some(one.at(i)? ^ two.at(i)?),
                    &mut slow,
                    mex,
                ),
            },
            lines => along(
                length,
                fixed,
                |i| {
                    lines
                        .iter()
                        .try_fold(0, |value, line| Some(value ^ line.at(i)?))
                },
                &mut slow,
                mex,
            ),
        }
    }

    /// The rule's last binding, assignment by assignment.
    fn option_by_option(
        &self,
        sweep: &Sweep,
        env: &mut [i64],
        budget: &Budget,
        count: &mut Count,
        solved: &mut Solved<'_, Component>,
        mex: &mut Mex,
    ) -> Result<(), EvalError> {
        let rule = sweep.rule;
        let bindings = std::slice::from_ref(sweep.binding);
        assignments(bindings, rule.guard.as_ref(), env, budget, &mut |env| {
            count.add(1, rule.span)?;
            if let Some(value) = self.option_value(&rule.target, env, solved)? {
                mex.add(value);
            }
            Ok(())
        })
    }

    /// The XOR of the terms that do not move, and a line for each term
    /// that does; `None` if the sweep cannot read them so (a part with no
    /// value, an argument that fails or leaves the tables).
    fn lines<'a>(
        &self,
        rule: &Rule,
        plan: &ir::Sweep,
        env: &mut [i64],
        first: i64,
        last: i64,
        solved: &mut Solved<'a, Component>,
    ) -> Option<(Grundy, SmallVec<[Line<'a>; 4]>)> {
        let (mut fixed, mut lines) = (0, SmallVec::new());
        for (term, steps) in rule.target.iter().zip(&plan.steps) {
            let Term::Game { game, args, .. } = term else {
                fixed ^= self.term_value(term, env, solved).ok()??;
                continue;
            };
            if steps.is_empty() {
                fixed ^= self.term_value(term, env, solved).ok()??;
                continue;
            }
            // The arguments at both ends; between them each moves
            // steadily, so both ends in a table puts every option there.
            let mut ends = [[0i64; 2]; 2];
            for (end, at) in ends.iter_mut().zip([first, last]) {
                env[plan.slot] = at;
                for (value, arg) in end.iter_mut().zip(args) {
                    *value = eval(arg, env).ok()?;
                }
            }
            let in_table = |value: i64| u32::try_from(value).is_ok();
            if !ends.iter().flatten().all(|&value| in_table(value)) {
                return None;
            }
            let table = game.0 as usize;
            let rows = solved.rows(table);
            lines.push(match steps.as_slice() {
                [step] => Line::Row {
                    cells: rows.first().map_or(&[], Vec::as_slice),
                    col: ends[0][0] as isize,
                    step: *step as isize,
                },
                [0, step] => Line::Row {
                    cells: rows.get(ends[0][0] as usize).map_or(&[], Vec::as_slice),
                    col: ends[0][1] as isize,
                    step: *step as isize,
                },
                [row_step, col_step] => Line::Rows {
                    rows,
                    row: ends[0][0] as isize,
                    col: ends[0][1] as isize,
                    row_step: *row_step as isize,
                    col_step: *col_step as isize,
                },
                _ => return None,
            });
        }
        Some((fixed, lines))
    }
}

/// The cells of two lines side by side, as (the larger, the XOR): the
/// larger says whether both are values.
#[inline(always)]
fn pairs<'a>(
    xs: impl Iterator<Item = &'a Grundy>,
    ys: impl Iterator<Item = &'a Grundy>,
) -> impl Iterator<Item = (Grundy, Grundy)> {
    xs.zip(ys).map(|(&x, &y)| (x.max(y), x ^ y))
}

/// Adds the value of each option to `mex`, given as (the largest cell
/// read, the XOR of the cells read); `slow(i)` folds the `i`th when a cell
/// read is no value.
#[inline(always)]
fn tight(
    cells: impl Iterator<Item = (Grundy, Grundy)>,
    fixed: Grundy,
    slow: &mut impl FnMut(isize, &mut Mex) -> Result<(), EvalError>,
    mex: &mut Mex,
) -> Result<(), EvalError> {
    for (i, (largest, value)) in cells.enumerate() {
        match Solved::<Component>::is_value(largest) {
            true => mex.add(fixed ^ value),
            false => slow(i as isize, mex)?,
        }
    }
    Ok(())
}

/// Adds the value of each of `length` options to `mex`: `value(i)` reads
/// the `i`th from the tables; `slow(i)` folds one that is not there.
#[inline(always)]
fn along(
    length: usize,
    fixed: Grundy,
    value: impl Fn(isize) -> Option<Grundy>,
    slow: &mut impl FnMut(isize, &mut Mex) -> Result<(), EvalError>,
    mex: &mut Mex,
) -> Result<(), EvalError> {
    for i in 0..length as isize {
        match value(i) {
            Some(value) => mex.add(fixed ^ value),
            None => slow(i, mex)?,
        }
    }
    Ok(())
}
