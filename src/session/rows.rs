//! The rows of a query's table: one assignment of its bindings each.

use crate::eval::{Budget, EvalError, assignments, fixed_count};
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
    if let (Some(count), Some(first)) = (fixed_count(&query.bindings), query.bindings.first()) {
        // Without a guard, each assignment is a row; with one, work.
        budget.afford(count, query.guard.is_none(), first.span)?;
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
