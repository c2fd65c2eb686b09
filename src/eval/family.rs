//! Boards built by a family's rules (`graph Name(n) { nodes … edge … }`):
//! the nodes and edges for given arguments, each board built once and kept
//! by its family, so that a board asked twice is one board with one id.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use miette::SourceSpan;
use smallvec::SmallVec;

use super::{EvalError, Spending, eval, rule_assignments};
use crate::program::{Expr, Family};
use crate::values::board::{GraphId, MAX_BOARD};
use crate::values::{GraphBoard, Value};

/// The most edges a board of a family may have.
pub const MAX_FAMILY_EDGES: usize = 1 << 22;

/// The most assignments of its edge rules' bindings one board may try.
pub const MAX_FAMILY_ASSIGNMENTS: usize = 1 << 24;

/// Ids of boards built by families, counted down from the top so that
/// they never meet the ids of declared graphs, counted up from 0.
static NEXT_ID: AtomicU32 = AtomicU32::new(u32::MAX - 1);

/// An id no declared graph has and no other board built has: for a board
/// of a family, or one built from a saved table.
pub fn fresh_id() -> GraphId {
    GraphId(NEXT_ID.fetch_sub(1, Ordering::Relaxed))
}

/// The board `family` builds for the arguments `args`, built on first
/// asking.
pub fn board(
    family: &Family,
    args: &[Expr],
    env: &[Value],
    span: SourceSpan,
) -> Result<Arc<GraphBoard>, EvalError> {
    let args = args
        .iter()
        .map(|arg| eval(arg, env))
        .collect::<Result<Vec<i64>, _>>()?;
    if let Some(board) = family.built.lock().expect("no builder panics").get(&args) {
        return Ok(board.clone());
    }
    let board = Arc::new(build(family, &args, span)?);
    let mut built = family.built.lock().expect("no builder panics");
    Ok(built.entry(args).or_insert(board).clone())
}

/// Builds a board: its nodes numbered from the start of `nodes`, its edges
/// in the order the rules give them, each pair once.
fn build(family: &Family, args: &[i64], span: SourceSpan) -> Result<GraphBoard, EvalError> {
    let shown = format!(
        "{}({})",
        family.name,
        args.iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut env: SmallVec<[Value; 8]> = args.iter().map(|&arg| Value::Int(arg)).collect();
    env.resize(family.slots.max(args.len()), Value::Int(0));
    let context = |error: EvalError| match error {
        EvalError::TooManyOptions { limit, span, .. } if limit == MAX_FAMILY_ASSIGNMENTS => {
            EvalError::TooManyEdges {
                board: shown.clone(),
                limit,
                what: "assignments of its edge rules' bindings",
                span,
            }
        }
        error => error.while_building(&shown),
    };
    let start = eval(&family.start, &env).map_err(context)?;
    let end = eval(&family.end, &env).map_err(context)?;
    let last = match family.inclusive {
        true => Some(end),
        false => end.checked_sub(1),
    };
    let count = match last {
        Some(last) if last >= start => last as i128 - start as i128 + 1,
        _ => 0,
    };
    if count > MAX_BOARD as i128 {
        return Err(EvalError::BoardTooLarge {
            nodes: count as u128,
            limit: MAX_BOARD,
            span,
        });
    }
    let nodes = count as usize;
    let mut edges: Vec<(u32, u32)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    rule_assignments(
        &family.edges,
        &mut env,
        MAX_FAMILY_ASSIGNMENTS,
        Spending::Shared,
        &mut |rule, env| {
            let end = |expr: &Expr| -> Result<u32, EvalError> {
                let node = eval(expr, env)?;
                match node.checked_sub(start) {
                    Some(index) if (0..count as i64).contains(&index) => Ok(index as u32),
                    _ => Err(EvalError::OutOfRange {
                        what: match count {
                            0 => format!("node {node} is not a node of {shown}, which has none"),
                            _ => format!(
                                "node {node} is not a node of {shown}, {start} to {}",
                                start as i128 + count - 1
                            ),
                        },
                        help: "an edge joins two of the family's nodes: guard the rule so that both ends are, e.g. `if j < n`",
                        span: expr.span,
                        context: String::new(),
                    }),
                }
            };
            let (a, b) = (end(&rule.from)?, end(&rule.to)?);
            if a == b {
                return Err(EvalError::OutOfRange {
                    what: format!(
                        "an edge of {shown} joins node {} to itself",
                        start as i128 + i128::from(a)
                    ),
                    help: "a board has no loops: guard the rule so that its two ends differ (e.g. `if i != j`)",
                    span: rule.span,
                    context: String::new(),
                });
            }
            if seen.insert((a.min(b), a.max(b))) {
                if edges.len() == MAX_FAMILY_EDGES {
                    return Err(EvalError::TooManyEdges {
                        board: shown.clone(),
                        limit: MAX_FAMILY_EDGES,
                        what: "edges",
                        span: rule.span,
                    });
                }
                edges.push((a, b));
            }
            Ok(())
        },
    )
    .map_err(context)?;
    Ok(GraphBoard::new(fresh_id(), shown, nodes, edges))
}
