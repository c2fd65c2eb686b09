//! Evaluating expressions whose values are sets, lists and regions, and the
//! built-in functions over them. Integer expressions keep their own fast
//! path ([`super::eval`]); this one is taken where a value may be more than
//! an integer: a game's arguments, comprehensions, set operations.

use miette::SourceSpan;
use smallvec::SmallVec;

use super::error::grouped;
use super::{Budget, EvalError, assignments, chain_value, eval, quick};
use crate::program::{BinaryOp, Builtin, Comprehension, Expr, ExprKind};
use crate::values::board::MAX_BOARD;
use crate::values::{Board, Region, Set, SetIter, SetOp, Value};

/// The most elements a comprehension may list.
pub const MAX_ELEMENTS: usize = 1 << 20;

/// Evaluates an expression to whatever value it has.
pub fn value(expr: &Expr, env: &[Value]) -> Result<Value, EvalError> {
    Ok(match &expr.kind {
        ExprKind::Slot(slot) => env[*slot].clone(),
        ExprKind::Const(value) => Value::Int(*value),
        ExprKind::Value(value) => value.clone(),
        ExprKind::Chain(chain) => match chain_value(chain, env) {
            Some(value) => Value::Int(value),
            None => value(&chain.tree, env)?,
        },
        ExprKind::Binary(BinaryOp::In, element, collection) => {
            let element = eval(element, env)?;
            Value::Int(contains(&value(collection, env)?, element, collection.span)? as i64)
        }
        ExprKind::Binary(op, lhs, rhs) if !matches!(op, BinaryOp::And | BinaryOp::Or) => {
            if let Some(value) = quick(expr, env) {
                return Ok(Value::Int(value));
            }
            match (value(lhs, env)?, value(rhs, env)?) {
                (Value::Int(_), Value::Int(_)) => Value::Int(eval(expr, env)?),
                (a, b) => combine(*op, a, b, lhs.span, rhs.span)?,
            }
        }
        ExprKind::Min(args) | ExprKind::Max(args) if args.len() == 1 => {
            let collection = value(&args[0], env)?;
            if let Value::Int(value) = collection {
                return Ok(Value::Int(value));
            }
            let values = elements(&collection, args[0].span)?;
            let extreme = match expr.kind {
                ExprKind::Min(_) => values.iter().min(),
                _ => values.iter().max(),
            };
            match extreme {
                Some(&extreme) => Value::Int(extreme),
                None => {
                    return Err(EvalError::NotAnInteger {
                        what: "the least or greatest element of nothing",
                        span: expr.span,
                        context: String::new(),
                    });
                }
            }
        }
        ExprKind::If(parts) => match eval(&parts[0], env)? {
            0 => value(&parts[2], env)?,
            _ => value(&parts[1], env)?,
        },
        ExprKind::SetOf(elements) => Value::Set(Set::from_values(
            elements
                .iter()
                .map(|element| eval(element, env))
                .collect::<Result<SmallVec<[i64; 4]>, _>>()?,
        )),
        ExprKind::ListOf(elements) => Value::list(
            elements
                .iter()
                .map(|element| eval(element, env))
                .collect::<Result<_, _>>()?,
        ),
        ExprKind::Comprehension(comprehension) => comprehend(comprehension, env)?,
        ExprKind::Index(list, index) => {
            let list = value(list, env)?;
            let index = eval(index, env)?;
            let Value::List(values) = &list else {
                return Err(wrong_type("a list", &list, expr.span));
            };
            match usize::try_from(index).ok().and_then(|i| values.get(i)) {
                Some(&element) => Value::Int(element),
                None => {
                    return Err(EvalError::OutOfRange {
                        what: format!("index {index} of a list of {}", values.len()),
                        help: "a list's indices run from 0 to len(l) - 1: guard with `if i < len(l)`",
                        span: expr.span,
                        context: String::new(),
                    });
                }
            }
        }
        ExprKind::Call(builtin, args) => call(*builtin, args, env, expr.span)?,
        ExprKind::Family(family, args) => {
            Value::Region(super::family::board(family, args, env, expr.span)?.whole())
        }
        ExprKind::Turned(set) => {
            let turned = value(set, env)?;
            let coin = env[0].int().unwrap_or_default();
            let elements = elements(&turned, set.span)?;
            if let Some(&wrong) = elements.iter().find(|&&t| !(0..coin).contains(&t)) {
                return Err(EvalError::OutOfRange {
                    what: format!("the move from the coin at {coin} turns the coin at {wrong}"),
                    help: "a coin-turning move turns coins left of its own: places from 0 to n - 1 (guard the rule, e.g. `if i < n`)",
                    span: set.span,
                    context: String::new(),
                });
            }
            turned
        }
        _ => Value::Int(eval(expr, env)?),
    })
}

/// A small set or region, as [`quick_bits`] finds it: its nodes as bits,
/// and for a region its board.
#[derive(Clone, Copy)]
pub struct Bits<'a> {
    pub board: Option<&'a Board>,
    pub bits: u128,
}

impl<'a> Bits<'a> {
    /// A set inside `0..128`, or a region of a board of at most 128 nodes.
    #[inline]
    pub fn of(value: &'a Value) -> Option<Bits<'a>> {
        match value {
            Value::Set(set) => Some(Bits {
                board: None,
                bits: set.bits()?,
            }),
            Value::Region(region) if region.board.size() <= 128 => Some(Bits {
                board: Some(&region.board),
                bits: region.nodes.bits()?,
            }),
            Value::Region(_) | Value::Int(_) | Value::List(_) => None,
        }
    }
}

/// The search's fast path for set and region expressions, as [`quick`] is
/// for integers: the value as bits, with no value built, where everything
/// met is small (sets inside `0..128`, boards of at most 128 nodes).
/// `None` sends the expression to [`value`], which reports any error.
pub fn quick_bits<'a>(expr: &'a Expr, env: &'a [Value]) -> Option<Bits<'a>> {
    match &expr.kind {
        ExprKind::Slot(slot) => Bits::of(&env[*slot]),
        ExprKind::Value(value) => Bits::of(value),
        ExprKind::SetOf(elements) => {
            let mut bits = 0u128;
            for element in elements.iter() {
                bits |= 1
                    << u32::try_from(quick(element, env)?)
                        .ok()
                        .filter(|&v| v < 128)?;
            }
            Some(Bits { board: None, bits })
        }
        ExprKind::Binary(op, lhs, rhs) => {
            let (a, b) = (quick_bits(lhs, env)?, quick_bits(rhs, env)?);
            let bits = match op {
                BinaryOp::Add | BinaryOp::BitOr => a.bits | b.bits,
                BinaryOp::Sub => a.bits & !b.bits,
                BinaryOp::BitAnd => a.bits & b.bits,
                BinaryOp::BitXor => a.bits ^ b.bits,
                _ => return None,
            };
            // As `combine`: a region less (or with) a set, or two regions
            // of one board, are a region; a set with a region is a set.
            let board = match (a.board, b.board) {
                (Some(a), Some(b)) if a != b => return None,
                (board, _) => board,
            };
            let outside = |board: &Board| match board.size() {
                size if size >= 128 => 0,
                size => bits >> size,
            };
            match board {
                Some(board) if outside(board) != 0 => None,
                _ => Some(Bits { board, bits }),
            }
        }
        ExprKind::Call(builtin @ (Builtin::Neighbours | Builtin::Closed), args) => {
            let region = quick_bits(&args[0], env)?;
            let board = region.board?;
            let v = u32::try_from(quick(&args[1], env)?)
                .ok()
                .filter(|&v| (v as usize) < board.size())?;
            let own = match builtin {
                Builtin::Closed => 1u128 << v,
                _ => 0,
            };
            Some(Bits {
                board: None,
                bits: board.neighbour_bits(v) & region.bits | own,
            })
        }
        _ => None,
    }
}

/// An integer, or the error of a value that is none.
pub fn int(value: Value, span: SourceSpan) -> Result<i64, EvalError> {
    match value {
        Value::Int(value) => Ok(value),
        other => Err(wrong_type("an integer", &other, span)),
    }
}

pub fn wrong_type(expected: &'static str, found: &Value, span: SourceSpan) -> EvalError {
    EvalError::WrongType {
        expected,
        found: found.noun(),
        span,
        context: String::new(),
    }
}

/// The integers a set, list or region holds, in order.
pub fn elements(collection: &Value, span: SourceSpan) -> Result<Vec<i64>, EvalError> {
    Ok(match collection {
        Value::Set(set) => set.iter().collect(),
        Value::List(values) => values.to_vec(),
        Value::Region(region) => region.nodes.iter().collect(),
        Value::Int(_) => return Err(wrong_type("a set, a list or a region", collection, span)),
    })
}

/// The integers a set, list or region holds, in order, one by one.
pub fn each(collection: &Value, span: SourceSpan) -> Result<Elements<'_>, EvalError> {
    Ok(match collection {
        Value::Set(set) => Elements(set.iter()),
        Value::List(values) => Elements(SetIter::Slice(values.iter())),
        Value::Region(region) => Elements(region.nodes.iter()),
        Value::Int(_) => return Err(wrong_type("a set, a list or a region", collection, span)),
    })
}

/// What [`each`] gives: the elements of a collection, with their count.
pub(crate) struct Elements<'a>(SetIter<'a>);

impl Elements<'_> {
    /// The elements of a set inside `0..128`, given by its bits.
    pub fn bits(bits: u128) -> Elements<'static> {
        Elements(SetIter::Bits(bits))
    }

    pub fn len(&self) -> usize {
        match &self.0 {
            SetIter::Bits(bits) => bits.count_ones() as usize,
            SetIter::Slice(values) => values.len(),
        }
    }
}

impl Iterator for Elements<'_> {
    type Item = i64;

    #[inline]
    fn next(&mut self) -> Option<i64> {
        self.0.next()
    }
}

fn contains(collection: &Value, element: i64, span: SourceSpan) -> Result<bool, EvalError> {
    Ok(match collection {
        Value::Set(set) => set.contains(element),
        Value::List(values) => values.contains(&element),
        Value::Region(region) => region.nodes.contains(element),
        Value::Int(_) => return Err(wrong_type("a set, a list or a region", collection, span)),
    })
}

/// A binary operation with a set, list or region on one side.
pub fn combine(
    op: BinaryOp,
    a: Value,
    b: Value,
    a_span: SourceSpan,
    b_span: SourceSpan,
) -> Result<Value, EvalError> {
    if matches!(op, BinaryOp::Eq | BinaryOp::Ne) {
        return Ok(Value::Int(((a == b) == (op == BinaryOp::Eq)) as i64));
    }
    let set_op = match op {
        BinaryOp::Add | BinaryOp::BitOr => Some(SetOp::Union),
        BinaryOp::Sub => Some(SetOp::Difference),
        BinaryOp::BitAnd => Some(SetOp::Intersection),
        BinaryOp::BitXor => Some(SetOp::SymmetricDifference),
        _ => None,
    };
    let Some(set_op) = set_op else {
        let (bad, span) = match a {
            Value::Int(_) => (b, b_span),
            _ => (a, a_span),
        };
        return Err(wrong_type("an integer", &bad, span));
    };
    Ok(match (a, b) {
        (Value::Set(a), Value::Set(b)) => Value::Set(a.combine(&b, set_op)),
        (Value::Set(a), Value::Region(b)) => Value::Set(a.combine(&b.nodes, set_op)),
        (Value::List(a), Value::List(b)) if op == BinaryOp::Add => {
            Value::list(a.iter().chain(b.iter()).copied().collect())
        }
        (Value::Region(a), Value::Set(b)) => {
            let nodes = a.nodes.combine(&b, set_op);
            on_board(&a.board, &nodes, b_span)?;
            Value::Region(Region {
                board: a.board,
                nodes,
            })
        }
        (Value::Region(a), Value::Region(b)) => {
            if a.board != b.board {
                return Err(EvalError::WrongType {
                    expected: "a region of the same board",
                    found: "a region of another board",
                    span: b_span,
                    context: String::new(),
                });
            }
            Value::Region(Region {
                nodes: a.nodes.combine(&b.nodes, set_op),
                board: a.board,
            })
        }
        (a @ Value::Int(_), _) => return Err(wrong_type("a set", &a, a_span)),
        (a, b) => {
            let expected = match a {
                Value::List(_) => "a list",
                _ => "a set",
            };
            return Err(wrong_type(expected, &b, b_span));
        }
    })
}

/// Refuses nodes outside a board.
fn on_board(board: &Board, nodes: &Set, span: SourceSpan) -> Result<(), EvalError> {
    let size = board.size() as i64;
    let outside = match (nodes.min(), nodes.max()) {
        (Some(min), _) if min < 0 => min,
        (_, Some(max)) if max >= size => max,
        _ => return Ok(()),
    };
    let what = match size {
        0 => format!("node {outside} is not on the board, which has no nodes"),
        size => format!(
            "node {outside} is not on the board, whose {} nodes are 0 to {}",
            grouped(size),
            grouped(size - 1)
        ),
    };
    Err(EvalError::OutOfRange {
        what,
        help: "a board's nodes are numbered from 0 to its size less 1",
        span,
        context: String::new(),
    })
}

/// `{e for …}` or `[e for …]`.
fn comprehend(comprehension: &Comprehension, env: &[Value]) -> Result<Value, EvalError> {
    let mut env: SmallVec<[Value; 8]> = env.iter().cloned().collect();
    let mut found = Vec::new();
    let budget = Budget::new(MAX_ELEMENTS);
    assignments(
        &comprehension.bindings,
        comprehension.guard.as_ref(),
        &mut env,
        &budget,
        &mut |env| {
            found.push(eval(&comprehension.element, env)?);
            Ok(())
        },
    )?;
    Ok(match comprehension.list {
        true => Value::list(found),
        false => Value::Set(Set::from_values(found)),
    })
}

fn call(
    builtin: Builtin,
    args: &[Expr],
    env: &[Value],
    span: SourceSpan,
) -> Result<Value, EvalError> {
    let arg = |i: usize| value(&args[i], env);
    let int_arg = |i: usize| eval(&args[i], env);
    // A board's side or length: 0 or more.
    let size_arg = |i: usize| match int_arg(i)? {
        size if size < 0 => Err(EvalError::OutOfRange {
            what: format!("a board cannot have {size} rows, columns or nodes"),
            help: "`Grid(r, c)`, `Path(n)` and `Cycle(n)` take sizes of 0 or more (0 is an empty board); guard the rule or query that builds this one so that its sizes stay so",
            span: args[i].span,
            context: String::new(),
        }),
        size => Ok(size),
    };
    let region_arg = |i: usize| match arg(i)? {
        Value::Region(region) => Ok(region),
        other => Err(wrong_type("a region of a board", &other, args[i].span)),
    };
    Ok(match builtin {
        Builtin::Len => {
            let collection = arg(0)?;
            Value::Int(match &collection {
                Value::Set(set) => set.len(),
                Value::List(values) => values.len(),
                Value::Region(region) => region.nodes.len(),
                Value::Int(_) => {
                    return Err(wrong_type(
                        "a set, a list or a region",
                        &collection,
                        args[0].span,
                    ));
                }
            } as i64)
        }
        Builtin::Sum => {
            let collection = arg(0)?;
            let values = elements(&collection, args[0].span)?;
            let total = values
                .iter()
                .try_fold(0i64, |total, &value| total.checked_add(value));
            match total {
                Some(total) => Value::Int(total),
                None => {
                    return Err(EvalError::Overflow {
                        op: "sum",
                        span,
                        context: String::new(),
                    });
                }
            }
        }
        Builtin::Sort => {
            let mut values = elements(&arg(0)?, args[0].span)?;
            values.sort_unstable();
            Value::list(values)
        }
        Builtin::Replace => {
            let list = arg(0)?;
            let Value::List(values) = &list else {
                return Err(wrong_type("a list", &list, args[0].span));
            };
            let (index, element) = (int_arg(1)?, int_arg(2)?);
            let mut values = values.to_vec();
            match usize::try_from(index).ok().and_then(|i| values.get_mut(i)) {
                Some(slot) => *slot = element,
                None => {
                    return Err(EvalError::OutOfRange {
                        what: format!("index {index} of a list of {}", values.len()),
                        help: "a list's indices run from 0 to len(l) - 1",
                        span: args[1].span,
                        context: String::new(),
                    });
                }
            }
            Value::list(values)
        }
        Builtin::Nodes => Value::Set(region_arg(0)?.nodes),
        Builtin::Neighbours | Builtin::Closed => {
            let region = region_arg(0)?;
            let v = int_arg(1)?;
            let size = region.board.size();
            let Some(v) = u32::try_from(v).ok().filter(|&v| (v as usize) < size) else {
                return Err(EvalError::OutOfRange {
                    what: format!("node {v} of a board of {size}"),
                    help: "a board's nodes are numbered from 0 to its size less 1",
                    span: args[1].span,
                    context: String::new(),
                });
            };
            if let (Some(nodes), true) = (region.nodes.bits(), size <= 128) {
                let own = match builtin {
                    Builtin::Closed => 1u128 << v,
                    _ => 0,
                };
                let found = region.board.neighbour_bits(v);
                return Ok(Value::Set(Set::from_bits(found & nodes | own)));
            }
            let mut found: SmallVec<[i64; 8]> = SmallVec::new();
            if builtin == Builtin::Closed {
                found.push(i64::from(v));
            }
            region.board.neighbours(v, &mut |w| {
                if region.nodes.contains(i64::from(w)) {
                    found.push(i64::from(w));
                }
            });
            Value::Set(Set::from_values(found))
        }
        Builtin::Grounded => {
            let region = region_arg(0)?;
            let ground = match arg(1)? {
                Value::Set(set) => set,
                other => return Err(wrong_type("a set", &other, args[1].span)),
            };
            Value::Region(region.grounded(&ground))
        }
        Builtin::Grid => {
            let (rows, cols) = (size_arg(0)?, size_arg(1)?);
            let (rows, cols) = match board_size(rows.saturating_mul(cols), span)? {
                0 => (0, 0),
                _ => (rows as u32, cols as u32),
            };
            Value::Region(Board::Grid { rows, cols }.whole())
        }
        Builtin::Path | Builtin::Cycle => {
            let n = board_size(size_arg(0)?, span)?;
            Value::Region(match builtin {
                Builtin::Path => Board::Path(n).whole(),
                _ => Board::Cycle(n).whole(),
            })
        }
        Builtin::Edges => {
            let region = region_arg(0)?;
            let Board::Graph(graph) = region.board else {
                return Err(EvalError::WrongType {
                    expected: "a declared graph",
                    found: "another board",
                    span: args[0].span,
                    context: String::new(),
                });
            };
            Value::Region(Board::Edges(graph).whole())
        }
    })
}

/// A board's size (0 or more), refused past [`MAX_BOARD`].
fn board_size(nodes: i64, span: SourceSpan) -> Result<u32, EvalError> {
    match usize::try_from(nodes) {
        Ok(nodes) if nodes <= MAX_BOARD => Ok(nodes as u32),
        _ => Err(EvalError::BoardTooLarge {
            nodes: nodes as u128,
            limit: MAX_BOARD,
            span,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn leaf(kind: ExprKind) -> Expr {
        Expr::leaf(kind)
    }

    /// Set and region expressions over: slot 0, a region of a 3 × 4 grid;
    /// slot 1, a region of a path of 10; slot 2, a set (one of its elements
    /// may lie past 127); slot 3, an integer that may be off the boards.
    fn expression() -> impl Strategy<Value = Expr> {
        let leaves = prop_oneof![
            (0usize..3).prop_map(|slot| leaf(ExprKind::Slot(slot))),
            (-1i64..14).prop_map(|k| leaf(ExprKind::SetOf(vec![
                leaf(ExprKind::Slot(3)),
                leaf(ExprKind::Const(k))
            ]))),
        ];
        leaves.prop_recursive(3, 12, 2, |inner| {
            let ops = [
                BinaryOp::Add,
                BinaryOp::Sub,
                BinaryOp::BitAnd,
                BinaryOp::BitOr,
                BinaryOp::BitXor,
            ];
            prop_oneof![
                (
                    proptest::sample::select(ops.to_vec()),
                    inner.clone(),
                    inner.clone()
                )
                    .prop_map(|(op, a, b)| leaf(ExprKind::Binary(
                        op,
                        Box::new(a),
                        Box::new(b)
                    ))),
                (any::<bool>(), inner).prop_map(|(closed, region)| {
                    let builtin = if closed {
                        Builtin::Closed
                    } else {
                        Builtin::Neighbours
                    };
                    leaf(ExprKind::Call(
                        builtin,
                        vec![region, leaf(ExprKind::Slot(3))],
                    ))
                }),
            ]
        })
    }

    proptest! {
        /// Where the fast path answers, it answers what `value` does.
        #[test]
        fn quick_bits_agree_with_values(
            expr in expression(),
            grid in 0u128..1 << 12,
            path in 0u128..1 << 10,
            set in proptest::collection::vec(0i64..16, 0..5),
            large in any::<bool>(),
            v in -1i64..14,
        ) {
            let region = |board: Board, bits: u128| {
                Value::Region(Region { board, nodes: Set::from_bits(bits) })
            };
            let mut set = set;
            if large {
                set.push(200);
            }
            let env = [
                region(Board::Grid { rows: 3, cols: 4 }, grid),
                region(Board::Path(10), path),
                Value::Set(Set::from_values(set)),
                Value::Int(v),
            ];
            if let Some(bits) = quick_bits(&expr, &env) {
                let nodes = Set::from_bits(bits.bits);
                let expected = match bits.board {
                    Some(board) => Value::Region(Region { board: board.clone(), nodes }),
                    None => Value::Set(nodes),
                };
                prop_assert_eq!(value(&expr, &env).ok(), Some(expected));
            }
        }
    }
}
