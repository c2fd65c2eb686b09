//! The assignments of a rule's bindings, left to right, and the budget
//! that bounds how many are tried.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

use miette::SourceSpan;

use super::{EvalError, eval, value};
use crate::program::{Binding, Domain, EdgeRule, Expr, ExprKind, Rule, Turn};
use crate::values::{Set, Value};

/// How many more binding assignments may be tried, out of how many.
pub struct Budget<'s> {
    left: Cell<usize>,
    limit: usize,
    /// What the assignments make, for the error past the limit.
    kind: Spent,
    /// Set from outside to stop the work (Ctrl-C, SIGTERM, the page's
    /// Cancel): read every [`STOP_EVERY`] assignments, so that a rule whose
    /// guard lets few through, or a long table, still hears it.
    stop: Option<&'s AtomicBool>,
}

/// How many assignments are tried between two readings of the stop flag.
const STOP_EVERY: usize = 1 << 12;

/// What a budget's assignments make.
enum Spent {
    /// A rule's options (`--max-states`).
    Options,
    /// A query's rows (`--max-rows`): those its guard lets through. The
    /// assignments that are not rows by themselves (of the bindings
    /// before the last, and with a guard of every one) are work
    /// (`--max-work`), counted apart.
    Rows { tried: Cell<u64>, most: u64 },
    /// The components of a sum over bindings.
    Sum,
}

impl<'s> Budget<'s> {
    pub fn new(limit: usize) -> Self {
        Budget {
            left: Cell::new(limit),
            limit,
            kind: Spent::Options,
            stop: None,
        }
    }

    /// The budget, stopped with [`EvalError::Interrupted`] once `stop` is
    /// set.
    pub fn with_stop(self, stop: Option<&'s AtomicBool>) -> Self {
        Budget { stop, ..self }
    }

    /// A budget for the components of a sum over bindings.
    pub fn sum(limit: usize) -> Self {
        Budget {
            kind: Spent::Sum,
            ..Budget::new(limit)
        }
    }

    /// Makes the whole budget available again.
    pub fn refill(&self) {
        self.left.set(self.limit);
    }

    /// A budget for the rows of a query's table: at most `limit` rows,
    /// and at most `work` of other assignments tried (see [`Spent::Rows`]).
    pub fn rows(limit: usize, work: u64) -> Self {
        Budget {
            kind: Spent::Rows {
                tried: Cell::new(0),
                most: work,
            },
            ..Budget::new(limit)
        }
    }

    /// Refuses at once a domain of `count` values that the budget could
    /// never pay for, before any of them is tried. `exact` says that each
    /// of them is a row of a table, not only an assignment tried.
    pub fn afford(&self, count: u128, exact: bool, span: SourceSpan) -> Result<(), EvalError> {
        match &self.kind {
            Spent::Rows { tried, most } if !exact => {
                match count > u128::from(most.saturating_sub(tried.get())) {
                    true => Err(EvalError::TooManyTried { limit: *most, span }),
                    false => Ok(()),
                }
            }
            _ if count > self.left.get() as u128 => Err(self.exhausted(span)),
            _ => Ok(()),
        }
    }

    pub fn exhausted(&self, span: SourceSpan) -> EvalError {
        match self.kind {
            Spent::Rows { .. } => EvalError::TooManyRows {
                limit: self.limit,
                span,
            },
            Spent::Options => EvalError::TooManyOptions {
                limit: self.limit,
                what: ("assignment of the bindings", "assignments of the bindings"),
                span,
                context: String::new(),
            },
            Spent::Sum => EvalError::SumTooLarge {
                limit: self.limit,
                span,
            },
        }
    }

    /// Spends an assignment of a binding: from the limit of a rule's work
    /// or a sum's components, each one; for a table, each one that is not
    /// `exact` (a row by itself, spent by [`Budget::row`]) is work.
    #[inline(always)]
    fn assign(&self, exact: bool, span: SourceSpan) -> Result<(), EvalError> {
        match &self.kind {
            Spent::Rows { .. } if exact => Ok(()),
            Spent::Rows { .. } => self.work(1, span),
            Spent::Options | Spent::Sum => self.spend(span),
        }
    }

    /// Spends `count` of a table's work (nothing for other budgets, which
    /// count assignments alone): the assignments it tries, and the trial
    /// divisions that find a number's divisors.
    pub fn work(&self, count: u64, span: SourceSpan) -> Result<(), EvalError> {
        let Spent::Rows { tried, most } = &self.kind else {
            return Ok(());
        };
        let before = tried.get();
        match before.checked_add(count).filter(|after| after <= most) {
            Some(after) => {
                tried.set(after);
                let step = STOP_EVERY as u64;
                self.heard((before / step) as usize, (after / step) as usize, span)
            }
            None => Err(EvalError::TooManyTried { limit: *most, span }),
        }
    }

    /// Spends a row of a table (nothing for other budgets): an assignment
    /// of every binding for which the guard holds.
    #[inline(always)]
    fn row(&self, span: SourceSpan) -> Result<(), EvalError> {
        match self.kind {
            Spent::Rows { .. } => self.spend(span),
            Spent::Options | Spent::Sum => Ok(()),
        }
    }

    /// Whether the stop flag is set.
    fn stopped(&self) -> bool {
        self.stop.is_some_and(|stop| stop.load(Ordering::Relaxed))
    }

    pub fn spend(&self, span: SourceSpan) -> Result<(), EvalError> {
        self.spend_many(1, span)
    }

    /// Whether `count` more assignments may be tried.
    pub fn room(&self, count: usize) -> bool {
        self.left.get() >= count
    }

    /// Spends `count` assignments at once, or none if fewer are left.
    pub fn spend_many(&self, count: usize, span: SourceSpan) -> Result<(), EvalError> {
        let before = self.left.get();
        let Some(left) = before.checked_sub(count) else {
            return Err(self.exhausted(span));
        };
        self.left.set(left);
        self.heard(before / STOP_EVERY, left / STOP_EVERY, span)
    }

    /// Reads the stop flag when a count crosses a multiple of
    /// [`STOP_EVERY`] (from `before` to `after` multiples).
    #[inline(always)]
    fn heard(&self, before: usize, after: usize, span: SourceSpan) -> Result<(), EvalError> {
        match before != after && self.stopped() {
            true => Err(EvalError::Interrupted { span }),
            false => Ok(()),
        }
    }
}

/// A rule that runs over bindings under a guard: a game's move rule, a
/// coin-turning game's turn or a family's edge rule.
pub trait BoundRule {
    fn bindings(&self) -> &[Binding];
    fn guard(&self) -> Option<&Expr>;
}

impl BoundRule for Rule {
    fn bindings(&self) -> &[Binding] {
        &self.bindings
    }
    fn guard(&self) -> Option<&Expr> {
        self.guard.as_ref()
    }
}

impl BoundRule for Turn {
    fn bindings(&self) -> &[Binding] {
        &self.bindings
    }
    fn guard(&self) -> Option<&Expr> {
        self.guard.as_ref()
    }
}

impl BoundRule for EdgeRule {
    fn bindings(&self) -> &[Binding] {
        &self.bindings
    }
    fn guard(&self) -> Option<&Expr> {
        self.guard.as_ref()
    }
}

/// How the rules of a list spend their limit of assignments.
#[derive(Clone, Copy)]
pub enum Spending {
    /// Each rule up to the limit: a game's rules.
    EachRule,
    /// All the rules together up to the limit: a board's edge rules.
    Shared,
}

/// Calls `each` with every rule and every assignment of its bindings for
/// which its guard holds, rule by rule, in order, trying no more
/// assignments than `limit` (see [`assignments`]).
pub fn rule_assignments<R, F>(
    rules: &[R],
    env: &mut [Value],
    limit: usize,
    spending: Spending,
    each: &mut F,
) -> Result<(), EvalError>
where
    R: BoundRule,
    F: FnMut(&R, &mut [Value]) -> Result<(), EvalError>,
{
    let budget = &Budget::new(limit);
    for rule in rules {
        if let Spending::EachRule = spending {
            budget.refill();
        }
        assignments(rule.bindings(), rule.guard(), env, budget, &mut |env| {
            each(rule, env)
        })?;
    }
    Ok(())
}

/// Calls `each` with every assignment of the bindings, left to right, for
/// which the guard holds, trying no more assignments than the budget allows.
///
/// Generic in `each`, so that the search's inner loop is compiled with the
/// fold of each option inline in the loop over the last binding.
pub fn assignments<F>(
    bindings: &[Binding],
    guard: Option<&Expr>,
    env: &mut [Value],
    budget: &Budget,
    each: &mut F,
) -> Result<(), EvalError>
where
    F: FnMut(&mut [Value]) -> Result<(), EvalError> + ?Sized,
{
    let Some((binding, rest)) = bindings.split_first() else {
        let holds = match guard {
            Some(guard) => eval(guard, env)? != 0,
            None => true,
        };
        return if holds { each(env) } else { Ok(()) };
    };
    // Each value is written into its slot before `assign` goes on.
    let slot = binding.slot;
    // Whether each value of this binding is a whole assignment: a row of
    // a table, not only work.
    let exact = rest.is_empty() && guard.is_none();
    let mut assign = |env: &mut [Value]| {
        budget.assign(exact, binding.span)?;
        if !rest.is_empty() {
            return assignments(rest, guard, env, budget, each);
        }
        if let Some(guard) = guard
            && eval(guard, env)? == 0
        {
            return Ok(());
        }
        budget.row(binding.span)?;
        each(env)
    };
    match &binding.domain {
        Domain::Range {
            start,
            end,
            inclusive,
        } => {
            let (start, end) = (eval(start, env)?, eval(end, env)?);
            let last = if *inclusive {
                Some(end)
            } else {
                end.checked_sub(1)
            };
            match (last, &binding.stop) {
                (Some(last), None) if start <= last => {
                    budget.afford(
                        (last as i128 - start as i128 + 1) as u128,
                        exact,
                        binding.span,
                    )?;
                    (start..=last).try_for_each(|value| {
                        set_int(&mut env[slot], value);
                        assign(env)
                    })
                }
                (Some(last), Some(_)) if start <= last => until_stop(
                    binding,
                    env,
                    start..=last,
                    |value, env| {
                        set_int(&mut env[slot], value);
                        Ok(())
                    },
                    &mut assign,
                ),
                _ => Ok(()),
            }
        }
        Domain::Divisors(n) => {
            let n = eval(n, env)?;
            // Finding them tries every number up to √n: that is the work.
            if n > 0 {
                let root = (n as u64).isqrt();
                budget.afford(u128::from(root), false, binding.span)?;
                budget.work(root, binding.span)?;
            }
            let divisors = divisors(n, &|| budget.stopped())
                .ok_or(EvalError::Interrupted { span: binding.span })?;
            until_stop(
                binding,
                env,
                divisors,
                |value, env| {
                    set_int(&mut env[slot], value);
                    Ok(())
                },
                &mut assign,
            )
        }
        Domain::Set(elements) => {
            // Elements are evaluated one by one, after the values before
            // them are assigned: a `while` may stop before one that fails.
            until_stop(
                binding,
                env,
                elements,
                |element, env| {
                    let value = eval(element, env)?;
                    set_int(&mut env[slot], value);
                    Ok(())
                },
                &mut assign,
            )
        }
        Domain::Each(collection) => {
            // A small set or region: its bits, with no value built.
            let bits = super::value::quick_bits(collection, env).map(|found| found.bits);
            let held;
            let values = match bits {
                Some(bits) => super::value::Elements::bits(bits),
                None => {
                    held = value(collection, env)?;
                    super::value::each(&held, collection.span)?
                }
            };
            budget.afford(values.len() as u128, exact, binding.span)?;
            until_stop(
                binding,
                env,
                values,
                |value, env| {
                    set_int(&mut env[slot], value);
                    Ok(())
                },
                &mut assign,
            )
        }
        Domain::Subsets(set, size) => {
            let set = match value(set, env)? {
                Value::Set(set) => set,
                other => return Err(super::value::wrong_type("a set", &other, set.span)),
            };
            let elements: Vec<i64> = set.iter().collect();
            // At most k elements: none for a negative k, not even the
            // empty set.
            let largest = match size {
                Some(size) => match eval(size, env)? {
                    k if k < 0 => return Ok(()),
                    k => usize::try_from(k).unwrap_or(usize::MAX),
                },
                None => elements.len(),
            }
            .min(elements.len());
            budget.afford(subsets_count(elements.len(), largest), exact, binding.span)?;
            let subsets = (0..=largest).flat_map(|size| {
                itertools::Itertools::combinations(elements.iter().copied(), size)
            });
            until_stop(
                binding,
                env,
                subsets,
                |subset, env| {
                    env[slot] = Value::Set(Set::from_values(subset));
                    Ok(())
                },
                &mut assign,
            )
        }
        Domain::Under(list) => {
            let list = match value(list, env)? {
                Value::List(values) => values,
                other => return Err(super::value::wrong_type("a list", &other, list.span)),
            };
            let count = list.iter().try_fold(1u128, |count, &bound| {
                u128::try_from(bound.max(-1) + 1)
                    .ok()
                    .map(|choices| count.saturating_mul(choices))
            });
            budget.afford(count.unwrap_or(0), exact, binding.span)?;
            let bounds: Vec<i64> = list.to_vec();
            let lists = bounds
                .into_iter()
                .map(|bound| 0..=bound)
                .multi_cartesian_product_or_unit();
            until_stop(
                binding,
                env,
                lists,
                |values, env| {
                    env[slot] = Value::list(values);
                    Ok(())
                },
                &mut assign,
            )
        }
    }
}

/// How many subsets of at most `largest` elements a set of `n` has.
fn subsets_count(n: usize, largest: usize) -> u128 {
    let mut total = 0u128;
    let mut choose = 1u128;
    for size in 0..=largest {
        total = total.saturating_add(choose);
        choose = choose.saturating_mul((n - size) as u128) / (size as u128 + 1);
    }
    total
}

/// The cartesian product of ranges, in lexicographic order; for no ranges,
/// the one empty list.
trait Product {
    fn multi_cartesian_product_or_unit(self) -> Box<dyn Iterator<Item = Vec<i64>>>;
}

impl<I> Product for I
where
    I: Iterator<Item = std::ops::RangeInclusive<i64>> + 'static,
{
    fn multi_cartesian_product_or_unit(self) -> Box<dyn Iterator<Item = Vec<i64>>> {
        let ranges: Vec<_> = self.collect();
        match ranges.is_empty() {
            true => Box::new(std::iter::once(Vec::new())),
            false => Box::new(itertools::Itertools::multi_cartesian_product(
                ranges.into_iter(),
            )),
        }
    }
}

/// Assigns the values of a domain in turn (each found by `value`), up to
/// the first for which the binding's `while`, if it has one, fails.
fn until_stop<T>(
    binding: &Binding,
    env: &mut [Value],
    domain: impl IntoIterator<Item = T>,
    set: impl Fn(T, &mut [Value]) -> Result<(), EvalError>,
    assign: &mut impl FnMut(&mut [Value]) -> Result<(), EvalError>,
) -> Result<(), EvalError> {
    for item in domain {
        set(item, env)?;
        if let Some(stop) = &binding.stop
            && eval(stop, env)? == 0
        {
            break;
        }
        assign(env)?;
    }
    Ok(())
}

/// Sets a slot to an integer; one that holds an integer is written in
/// place (the search's bindings assign millions).
#[inline(always)]
pub fn set_int(slot: &mut Value, value: i64) {
    match slot {
        Value::Int(int) => *int = value,
        other => *other = Value::Int(value),
    }
}

/// How many assignments each binding has at most, with those before it,
/// when every domain is fixed (its bounds are constants): the rows of
/// `for n in 0..=10^18, m in 0..=10` are counted before one is tried (the
/// last count), and so are the assignments tried (their sum).
pub fn fixed_counts(bindings: &[Binding]) -> Option<Vec<u128>> {
    let mut total = 1u128;
    bindings
        .iter()
        .map(|binding| {
            if binding.stop.is_some() {
                return None;
            }
            let count = match &binding.domain {
                Domain::Range {
                    start,
                    end,
                    inclusive,
                } => match (&start.kind, &end.kind) {
                    (ExprKind::Const(start), ExprKind::Const(end)) => {
                        let end = *end as i128 + i128::from(*inclusive);
                        (end - *start as i128).max(0) as u128
                    }
                    _ => return None,
                },
                Domain::Set(elements) => elements.len() as u128,
                Domain::Divisors(_) | Domain::Each(_) | Domain::Subsets(..) | Domain::Under(_) => {
                    return None;
                }
            };
            total = total.saturating_mul(count);
            Some(total)
        })
        .collect()
}

/// The positive divisors of n in increasing order, found up to √n; none
/// for n of 0 or less; `None` once `stopped` says so.
fn divisors(n: i64, stopped: &dyn Fn() -> bool) -> Option<Vec<i64>> {
    let (mut small, mut large) = (Vec::new(), Vec::new());
    let mut d = 1;
    while n > 0 && d <= n / d {
        // A billion trial divisions take seconds: a stop is heard among them.
        if d % (1 << 20) == 0 && stopped() {
            return None;
        }
        if n % d == 0 {
            small.push(d);
            if d != n / d {
                large.push(n / d);
            }
        }
        d += 1;
    }
    small.extend(large.into_iter().rev());
    Some(small)
}
