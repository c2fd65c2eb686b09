//! The rows of a query's table: one assignment of its bindings each.

use crate::eval::{Budget, EvalError, assignments, fixed_counts};
use crate::program::Query;
use crate::values::Value;

/// Calls `each` with the values of the query's bindings, row by row (once,
/// with none, for a query without `for`), within the budget's rows and
/// work.
pub(super) fn each_row(
    query: &Query,
    budget: &Budget,
    each: &mut dyn FnMut(&[Value]) -> Result<(), EvalError>,
) -> Result<(), EvalError> {
    if let (Some(counts), Some(first)) = (fixed_counts(&query.bindings), query.bindings.first()) {
        // Without a guard, each assignment of the last binding is a row,
        // the others work; with one, every assignment is work.
        let (work, rows) = match query.guard {
            None => counts.split_at(counts.len() - 1),
            Some(_) => (&counts[..], &[][..]),
        };
        if let Some(&rows) = rows.first() {
            budget.afford(rows, true, first.span)?;
        }
        let work = work
            .iter()
            .fold(0u128, |sum, &count| sum.saturating_add(count));
        budget.afford(work, false, first.span)?;
    }
    let mut env = vec![Value::Int(0); query.slots.max(query.names.len())];
    assignments(
        &query.bindings,
        query.guard.as_ref(),
        &mut env,
        budget,
        &mut |env| each(env),
    )
}
