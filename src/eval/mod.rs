//! Evaluating the lowered program's expressions: integers and conditions
//! here, on the path the search's inner loop takes; sets, lists and
//! regions in [`value`]; the assignments of a rule's bindings in
//! [`bindings`]. Lowering folds constants with it, and the interpreter
//! lists options with it.

mod bindings;
mod error;
pub mod family;
pub(crate) mod value;

use miette::SourceSpan;

use crate::program::{BinaryOp, Chain, Expr, ExprKind};
use crate::values::Value;
pub use bindings::{
    BoundRule, Budget, Spending, assignments, fixed_counts, rule_assignments, set_int,
};
pub use error::{EvalError, Noun, count, grouped, grouped_count, noun};
pub use value::value;

/// Evaluates an expression; conditions give 0 or 1.
#[inline]
pub fn eval(expr: &Expr, env: &[Value]) -> Result<i64, EvalError> {
    // Variables and chains, the arguments of most rules, inline.
    let value = match &expr.kind {
        ExprKind::Slot(slot) => env[*slot].int(),
        ExprKind::Const(value) => return Ok(*value),
        ExprKind::Chain(chain) => chain_value(chain, env),
        _ => quick(expr, env),
    };
    match value {
        Some(value) => Ok(value),
        None => explain(expr, env),
    }
}

#[inline]
fn chain_value(chain: &Chain, env: &[Value]) -> Option<i64> {
    let mut value = chain.start.get(env)?;
    for &(add, operand) in &chain.steps {
        value = match add {
            true => value.checked_add(operand.get(env)?)?,
            false => value.checked_sub(operand.get(env)?)?,
        };
    }
    Some(value)
}

/// Evaluates an expression, giving `None` for overflow or division by zero.
/// The search's inner loop runs through here: an `Option` is cheap to pass
/// back where a spanned error is not, and [`explain`] finds the error only
/// when there is one.
///
/// The kinds most rules are made of are evaluated here, in a function with
/// a small frame; the rest in [`quick_rest`].
pub(super) fn quick(expr: &Expr, env: &[Value]) -> Option<i64> {
    match &expr.kind {
        ExprKind::Const(value) => Some(*value),
        ExprKind::Slot(slot) => env[*slot].int(),
        ExprKind::Chain(chain) => chain_value(chain, env),
        ExprKind::Binary(op, lhs, rhs)
            if !matches!(op, BinaryOp::And | BinaryOp::Or | BinaryOp::In) =>
        {
            let (a, b) = (operand(lhs, env)?, operand(rhs, env)?);
            if matches!(op, BinaryOp::Div | BinaryOp::Rem | BinaryOp::NimDiv) && b == 0 {
                return None;
            }
            arithmetic(*op, a, b)
        }
        _ => quick_rest(expr, env),
    }
}

#[inline(never)]
fn quick_rest(expr: &Expr, env: &[Value]) -> Option<i64> {
    Some(match &expr.kind {
        ExprKind::Const(value) => *value,
        ExprKind::Slot(slot) => env[*slot].int()?,
        ExprKind::Neg(operand) => quick(operand, env)?.checked_neg()?,
        ExprKind::Not(operand) => (quick(operand, env)? == 0) as i64,
        ExprKind::Abs(operand) => quick(operand, env)?.checked_abs()?,
        ExprKind::Isqrt(operand) => u64::try_from(quick(operand, env)?).ok()?.isqrt() as i64,
        ExprKind::BitNot(operand) => !quick(operand, env)?,
        ExprKind::Popcount(operand) => {
            i64::from(u64::try_from(quick(operand, env)?).ok()?.count_ones())
        }
        ExprKind::NimInv(operand) => {
            let a = u64::try_from(quick(operand, env)?).ok()?;
            i64::try_from(crate::nimber::inv(a)?).ok()?
        }
        ExprKind::Min(args) => quick_fold(args, env, i64::min)?,
        ExprKind::Max(args) => quick_fold(args, env, i64::max)?,
        ExprKind::Chain(chain) => chain_value(chain, env)?,
        ExprKind::Value(value) => value.int()?,
        // Never an integer: a set, a list or a region.
        ExprKind::SetOf(_)
        | ExprKind::ListOf(_)
        | ExprKind::Comprehension(_)
        | ExprKind::Family(..)
        | ExprKind::Turned(_) => return None,
        ExprKind::Call(builtin, _) if !builtin.gives_int() => return None,
        ExprKind::Binary(BinaryOp::In, ..)
        | ExprKind::If(_)
        | ExprKind::Index(..)
        | ExprKind::Call(..) => value(expr, env).ok()?.int()?,
        ExprKind::Binary(BinaryOp::And, lhs, rhs) => {
            (quick(lhs, env)? != 0 && quick(rhs, env)? != 0) as i64
        }
        ExprKind::Binary(BinaryOp::Or, lhs, rhs) => {
            (quick(lhs, env)? != 0 || quick(rhs, env)? != 0) as i64
        }
        ExprKind::Binary(op, lhs, rhs) => {
            let (a, b) = (operand(lhs, env)?, operand(rhs, env)?);
            if matches!(op, BinaryOp::Div | BinaryOp::Rem | BinaryOp::NimDiv) && b == 0 {
                return None;
            }
            arithmetic(*op, a, b)?
        }
    })
}

/// An operand of [`quick`]: variables and constants read in place, with no
/// call.
#[inline(always)]
fn operand(expr: &Expr, env: &[Value]) -> Option<i64> {
    match &expr.kind {
        ExprKind::Const(value) => Some(*value),
        ExprKind::Slot(slot) => env[*slot].int(),
        _ => quick(expr, env),
    }
}

fn quick_fold(args: &[Expr], env: &[Value], pick: fn(i64, i64) -> i64) -> Option<i64> {
    let (first, rest) = args.split_first()?;
    rest.iter().try_fold(quick(first, env)?, |acc, arg| {
        Some(pick(acc, quick(arg, env)?))
    })
}

/// Evaluates an expression step by step, to say what failed and where.
fn explain(expr: &Expr, env: &[Value]) -> Result<i64, EvalError> {
    let overflow = |op| EvalError::Overflow {
        op,
        span: expr.span,
        context: String::new(),
    };
    Ok(match &expr.kind {
        ExprKind::Const(value) => *value,
        ExprKind::Slot(slot) => match &env[*slot] {
            Value::Int(value) => *value,
            other => {
                return Err(EvalError::WrongType {
                    expected: "an integer",
                    found: other.noun(),
                    span: expr.span,
                    context: String::new(),
                });
            }
        },
        ExprKind::Neg(operand) => eval(operand, env)?
            .checked_neg()
            .ok_or_else(|| overflow("-"))?,
        ExprKind::Not(operand) => (eval(operand, env)? == 0) as i64,
        ExprKind::Abs(operand) => eval(operand, env)?
            .checked_abs()
            .ok_or_else(|| overflow("abs"))?,
        ExprKind::Isqrt(operand) => match u64::try_from(eval(operand, env)?) {
            Ok(value) => value.isqrt() as i64,
            Err(_) => {
                return Err(EvalError::NotAnInteger {
                    what: "the square root of a negative number",
                    span: expr.span,
                    context: String::new(),
                });
            }
        },
        ExprKind::BitNot(operand) => !eval(operand, env)?,
        ExprKind::Popcount(operand) => {
            let help = "`popcount` counts the ones in the binary digits of a non-negative integer";
            i64::from(non_negative(operand, env, help)?.count_ones())
        }
        ExprKind::NimInv(operand) => {
            let a = non_negative(operand, env, NIMBERS_HELP)?;
            let inverse = crate::nimber::inv(a).ok_or_else(|| no_inverse(operand.span))?;
            i64::try_from(inverse).map_err(|_| EvalError::OutOfRange {
                what: format!("the nim-inverse of {a} is {inverse}, past the largest integer"),
                help: NIMBERS_HELP,
                span: expr.span,
                context: String::new(),
            })?
        }
        ExprKind::Min(args) | ExprKind::Max(args) if args.len() == 1 => {
            value::int(value(expr, env)?, expr.span)?
        }
        ExprKind::Min(args) => fold(args, env, i64::min)?,
        ExprKind::Max(args) => fold(args, env, i64::max)?,
        ExprKind::Chain(chain) => explain(&chain.tree, env)?,
        ExprKind::Binary(BinaryOp::In, ..)
        | ExprKind::Value(_)
        | ExprKind::If(_)
        | ExprKind::Turned(_)
        | ExprKind::SetOf(_)
        | ExprKind::ListOf(_)
        | ExprKind::Comprehension(_)
        | ExprKind::Index(..)
        | ExprKind::Family(..)
        | ExprKind::Call(..) => value::int(value(expr, env)?, expr.span)?,
        ExprKind::Binary(BinaryOp::And, lhs, rhs) => {
            (eval(lhs, env)? != 0 && eval(rhs, env)? != 0) as i64
        }
        ExprKind::Binary(BinaryOp::Or, lhs, rhs) => {
            (eval(lhs, env)? != 0 || eval(rhs, env)? != 0) as i64
        }
        ExprKind::Binary(op, lhs, rhs) => {
            let (a, b) = match (value(lhs, env)?, value(rhs, env)?) {
                (Value::Int(a), Value::Int(b)) => (a, b),
                (a, b) => {
                    let result = value::combine(*op, a, b, lhs.span, rhs.span)?;
                    return value::int(result, expr.span);
                }
            };
            if matches!(op, BinaryOp::Div | BinaryOp::Rem) && b == 0 {
                return Err(EvalError::DivisionByZero {
                    span: rhs.span,
                    context: String::new(),
                });
            }
            if let Some(error) = bits_error(*op, (a, b), (lhs, rhs), expr.span) {
                return Err(error);
            }
            if *op == BinaryOp::Pow && b < 0 {
                return Err(EvalError::NotAnInteger {
                    what: "a power with a negative exponent",
                    span: rhs.span,
                    context: String::new(),
                });
            }
            arithmetic(*op, a, b).ok_or_else(|| overflow(op.symbol()))?
        }
    })
}

fn fold(args: &[Expr], env: &[Value], pick: fn(i64, i64) -> i64) -> Result<i64, EvalError> {
    let mut values = args.iter().map(|arg| eval(arg, env));
    let first = values.next().expect("the checker requires an argument")?;
    values.try_fold(first, |acc, value| Ok(pick(acc, value?)))
}

/// A binary operation on integers; `None` on overflow. Division and
/// remainder round towards negative infinity, as in Python.
/// What is wrong with a shift or a nimber operation that has no value,
/// other than a division by zero.
fn bits_error(
    op: BinaryOp,
    (a, b): (i64, i64),
    (lhs, rhs): (&Expr, &Expr),
    span: SourceSpan,
) -> Option<EvalError> {
    let out_of_range = |what: String, help, span| {
        Some(EvalError::OutOfRange {
            what,
            help,
            span,
            context: String::new(),
        })
    };
    match op {
        BinaryOp::Shl | BinaryOp::Shr if a < 0 => out_of_range(
            format!("a shift of the negative number {a}"),
            "shifts move the bits of non-negative integers; `~`, `&`, `|` and `^` take negative ones",
            lhs.span,
        ),
        BinaryOp::Shl | BinaryOp::Shr if !(0..=63).contains(&b) => out_of_range(
            format!("a shift by {b} bits"),
            "a shift moves by 0 to 63 bits",
            rhs.span,
        ),
        BinaryOp::Shl => out_of_range(
            format!("{a} << {b} is past the largest integer"),
            "values are 64-bit signed integers: a shift to the left keeps every bit below bit 63",
            span,
        ),
        BinaryOp::NimMul | BinaryOp::NimDiv | BinaryOp::NimPow if a < 0 => {
            out_of_range(format!("{a} is not a nimber"), NIMBERS_HELP, lhs.span)
        }
        BinaryOp::NimPow if b < 0 => out_of_range(
            format!("a nim power with the negative exponent {b}"),
            "an exponent is a non-negative integer (for an inverse, `nim_inv(a)` or `1 / a`)",
            rhs.span,
        ),
        BinaryOp::NimMul | BinaryOp::NimDiv if b < 0 => {
            out_of_range(format!("{b} is not a nimber"), NIMBERS_HELP, rhs.span)
        }
        BinaryOp::NimDiv if b == 0 => Some(no_inverse(rhs.span)),
        BinaryOp::NimMul | BinaryOp::NimDiv | BinaryOp::NimPow => out_of_range(
            format!(
                "the {} of {a} and {b} is past the largest integer",
                op.symbol()
            ),
            NIMBERS_HELP,
            span,
        ),
        _ => None,
    }
}

fn no_inverse(span: SourceSpan) -> EvalError {
    EvalError::OutOfRange {
        what: "0 has no nim-inverse".into(),
        help: "every nimber but 0 has an inverse: guard the division, e.g. `if b != 0`",
        span,
        context: String::new(),
    }
}

const NIMBERS_HELP: &str = "nimbers are the integers from 0 to 9223372036854775807 (2^63 - 1); a product of two below 2^32 stays below 2^32";

/// A non-negative operand, or why it is not one.
fn non_negative(operand: &Expr, env: &[Value], help: &'static str) -> Result<u64, EvalError> {
    let a = eval(operand, env)?;
    u64::try_from(a).map_err(|_| EvalError::OutOfRange {
        what: format!("{a} is negative"),
        help,
        span: operand.span,
        context: String::new(),
    })
}

#[inline(always)]
fn arithmetic(op: BinaryOp, a: i64, b: i64) -> Option<i64> {
    Some(match op {
        BinaryOp::Add => a.checked_add(b)?,
        BinaryOp::Sub => a.checked_sub(b)?,
        BinaryOp::Mul => a.checked_mul(b)?,
        BinaryOp::Pow => match (a, u32::try_from(b)) {
            (_, Ok(b)) => a.checked_pow(b)?,
            // Past u32 exponents only 0, 1 and -1 do not overflow.
            (0 | 1, Err(_)) if b > 0 => a,
            (-1, Err(_)) if b > 0 => 1 - 2 * (b % 2),
            _ => return None,
        },
        BinaryOp::Div => {
            let (q, r) = (a.checked_div(b)?, a.checked_rem(b)?);
            if r != 0 && (r < 0) != (b < 0) {
                q - 1
            } else {
                q
            }
        }
        BinaryOp::Rem => {
            // The remainder by -1 is 0 even for the least i64.
            let r = a.wrapping_rem(b);
            if r != 0 && (r < 0) != (b < 0) {
                r + b
            } else {
                r
            }
        }
        BinaryOp::Eq => (a == b) as i64,
        BinaryOp::Ne => (a != b) as i64,
        BinaryOp::Lt => (a < b) as i64,
        BinaryOp::Le => (a <= b) as i64,
        BinaryOp::Gt => (a > b) as i64,
        BinaryOp::Ge => (a >= b) as i64,
        BinaryOp::And => (a != 0 && b != 0) as i64,
        BinaryOp::Or => (a != 0 || b != 0) as i64,
        BinaryOp::BitAnd => a & b,
        BinaryOp::BitOr => a | b,
        BinaryOp::BitXor => a ^ b,
        BinaryOp::Shl if a >= 0 && (0..64).contains(&b) => {
            let shifted = a << b;
            if shifted >> b != a {
                return None;
            }
            shifted
        }
        BinaryOp::Shr if a >= 0 && (0..64).contains(&b) => a >> b,
        BinaryOp::Shl | BinaryOp::Shr => return None,
        BinaryOp::NimMul | BinaryOp::NimDiv | BinaryOp::NimPow => nimber(op, a, b)?,
        BinaryOp::In => return None,
    })
}

/// Nimber arithmetic on non-negative integers, `None` past `i64`.
#[cold]
fn nimber(op: BinaryOp, a: i64, b: i64) -> Option<i64> {
    let (a, b) = (u64::try_from(a).ok()?, u64::try_from(b).ok()?);
    let value = match op {
        BinaryOp::NimMul => crate::nimber::mul(a, b),
        BinaryOp::NimDiv => crate::nimber::mul(a, crate::nimber::inv(b)?),
        _ => crate::nimber::pow(a, b),
    };
    i64::try_from(value).ok()
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
