//! Guards that bound a rule's last binding become part of its range:
//! `for a in 1..n if a < n - a` is `for a in max(1, …)..min(n, …)`, so the
//! binding tries only the values the guard lets through, and the rule,
//! with no guard left on its last binding, can be swept (see `Sweep`).
//!
//! A conjunct is a bound when it compares two expressions that are linear
//! in the binding (`c·a + r` with a constant `c ≠ 0`) and safe to evaluate
//! before the binding is tried: made of constants, variables, `+`, `-`,
//! `*` by a constant, `min`, `max` and `abs`, so that evaluating it early
//! raises no error the guard would not have raised (overflow aside).

use miette::SourceSpan;

use std::collections::BTreeMap;

use super::{BinaryOp, Binding, Chain, Domain, Expr, ExprKind, Operand, Term};

/// Moves the conjuncts of `guard` that bound the last binding into its
/// range; answers the guard that is left. Each binding's `while` gives up
/// the conjuncts that end its range too (see [`absorb_stop`]).
pub fn absorb(bindings: &mut [Binding], guard: Option<Expr>) -> Option<Expr> {
    bindings.iter_mut().for_each(absorb_stop);
    let guard = guard?;
    let Some(last) = bindings.last_mut() else {
        return Some(guard);
    };
    if last.stop.is_some() || !matches!(last.domain, Domain::Range { .. }) {
        return Some(guard);
    }
    let mut kept = Vec::new();
    for conjunct in conjuncts(guard) {
        let bounds = bound(&conjunct, last.slot).map(|bound| vec![bound]);
        match bounds.or_else(|| square_bounds(&conjunct, last.slot)) {
            Some(bounds) => bounds
                .into_iter()
                .for_each(|bound| narrow(&mut last.domain, bound, conjunct.span)),
            None => kept.push(conjunct),
        }
    }
    if let Domain::Range { start, end, .. } = &mut last.domain {
        simplify(start);
        simplify(end);
    }
    and_all(kept)
}

/// Rewrites a bound made by [`narrow`] to be cheap to evaluate, as it is
/// at every position: nested `min`s (and `max`s) made one, constants
/// among them folded, and a part linear in the variables with
/// coefficients of at most 4 (`-(((c - (a - 0)) - 1) / 1)`) made a flat
/// chain (`a - c + 1`), which keeps the tree to explain an overflow.
fn simplify(expr: &mut Expr) {
    match &mut expr.kind {
        ExprKind::Min(_) | ExprKind::Max(_) => {
            let is_min = matches!(expr.kind, ExprKind::Min(_));
            let (ExprKind::Min(args) | ExprKind::Max(args)) = &mut expr.kind else {
                unreachable!("matched above");
            };
            let mut flat = Vec::new();
            for mut arg in std::mem::take(args) {
                simplify(&mut arg);
                match arg.kind {
                    ExprKind::Min(inner) if is_min => flat.extend(inner),
                    ExprKind::Max(inner) if !is_min => flat.extend(inner),
                    _ => flat.push(arg),
                }
            }
            let (constants, mut rest): (Vec<Expr>, Vec<Expr>) = flat
                .into_iter()
                .partition(|arg| matches!(arg.kind, ExprKind::Const(_)));
            let pick = |a: i64, b: i64| if is_min { a.min(b) } else { a.max(b) };
            let constant = constants.iter().fold(None, |acc, arg| match arg.kind {
                ExprKind::Const(value) => Some(acc.map_or(value, |acc| pick(acc, value))),
                _ => acc,
            });
            if let Some(value) = constant {
                rest.insert(
                    0,
                    Expr {
                        kind: ExprKind::Const(value),
                        span: expr.span,
                    },
                );
            }
            match rest.len() {
                1 => *expr = rest.pop().expect("one argument"),
                _ => *args = rest,
            }
        }
        _ => {
            if let Some(flat) =
                affine(expr).and_then(|(terms, constant)| chain(&terms, constant, expr))
            {
                *expr = flat;
            }
        }
    }
}

/// An expression as `Σ c·slot + constant`, if it is one: constants,
/// variables, chains, `-`, `+`, `-`, `*` by a constant and `/ 1`.
fn affine(expr: &Expr) -> Option<(BTreeMap<usize, i64>, i64)> {
    let scaled = |(terms, constant): (BTreeMap<usize, i64>, i64), k: i64| {
        let terms = terms
            .into_iter()
            .map(|(slot, c)| Some((slot, c.checked_mul(k)?)))
            .collect::<Option<BTreeMap<_, _>>>()?;
        Some((terms, constant.checked_mul(k)?))
    };
    let sum = |(mut terms, constant): (BTreeMap<usize, i64>, i64),
               (others, other): (BTreeMap<usize, i64>, i64)| {
        for (slot, c) in others {
            let entry = terms.entry(slot).or_insert(0);
            *entry = entry.checked_add(c)?;
        }
        Some((terms, constant.checked_add(other)?))
    };
    let operand = |operand: &Operand| match *operand {
        Operand::Const(value) => (BTreeMap::new(), value),
        Operand::Slot(slot) => (BTreeMap::from([(slot, 1)]), 0),
    };
    match &expr.kind {
        ExprKind::Const(value) => Some((BTreeMap::new(), *value)),
        ExprKind::Slot(slot) => Some((BTreeMap::from([(*slot, 1)]), 0)),
        ExprKind::Chain(chain) => chain
            .steps
            .iter()
            .try_fold(operand(&chain.start), |acc, &(add, step)| {
                sum(acc, scaled(operand(&step), if add { 1 } else { -1 })?)
            }),
        ExprKind::Neg(operand) => scaled(affine(operand)?, -1),
        ExprKind::Binary(BinaryOp::Add, a, b) => sum(affine(a)?, affine(b)?),
        ExprKind::Binary(BinaryOp::Sub, a, b) => sum(affine(a)?, scaled(affine(b)?, -1)?),
        ExprKind::Binary(BinaryOp::Mul, a, b) => match (&a.kind, &b.kind) {
            (ExprKind::Const(k), _) => scaled(affine(b)?, *k),
            (_, ExprKind::Const(k)) => scaled(affine(a)?, *k),
            _ => None,
        },
        ExprKind::Binary(BinaryOp::Div, a, b) if matches!(b.kind, ExprKind::Const(1)) => affine(a),
        _ => None,
    }
}

/// `Σ c·slot + constant` as a flat chain (the constant first), each slot
/// repeated |c| times; None for a coefficient past 4. `tree` is what the
/// chain stands for.
fn chain(terms: &BTreeMap<usize, i64>, constant: i64, tree: &Expr) -> Option<Expr> {
    let mut steps = Vec::new();
    for (&slot, &c) in terms.iter().filter(|&(_, &c)| c != 0) {
        if c.unsigned_abs() > 4 {
            return None;
        }
        steps.extend((0..c.unsigned_abs()).map(|_| (c > 0, Operand::Slot(slot))));
    }
    let kind = match (steps.as_slice(), constant) {
        ([], _) => ExprKind::Const(constant),
        ([(true, Operand::Slot(slot))], 0) => ExprKind::Slot(*slot),
        _ => ExprKind::Chain(Box::new(Chain {
            start: Operand::Const(constant),
            steps,
            tree: tree.clone(),
        })),
    };
    Some(Expr {
        kind,
        span: tree.span,
    })
}

/// Most values a guard may leave out of a rule's binding for the rule to
/// be split around them: the rule becomes up to 2^3 rules.
const MOST_LEFT_OUT: usize = 3;

/// `move N(n - k) for k in 1..=n if k != 2`: a rule of one binding whose
/// guard leaves out a few of its values (`!=`, linear in the binding) is
/// split into rules over the ranges between them (`k < 2`, `k > 2`), which
/// [`absorb`] makes part of each range, so that each can be swept; the last
/// runs to the line's end and keeps its values there, as a whole prefix
/// does. Answers each rule's guard, in the order of the binding's values
/// (a value is below or above each value left out, and the rules come in
/// the order of those answers, below first: the order of the values).
pub fn split(bindings: &[Binding], guard: Option<Expr>) -> Vec<Option<Expr>> {
    let (Some(whole), [binding]) = (&guard, bindings) else {
        return vec![guard];
    };
    if binding.stop.is_some() || !matches!(binding.domain, Domain::Range { .. }) {
        return vec![guard];
    }
    let (mut kept, mut cuts) = (Vec::new(), Vec::new());
    for conjunct in conjuncts(whole.clone()) {
        match cut(&conjunct, binding.slot) {
            Some(halves) if cuts.len() < MOST_LEFT_OUT => cuts.push(halves),
            _ => kept.push(conjunct),
        }
    }
    if cuts.is_empty() {
        return vec![guard];
    }
    let mut pieces = vec![kept];
    for (below, above) in cuts {
        pieces = pieces
            .into_iter()
            .flat_map(|piece| {
                let mut low = piece.clone();
                low.push(below.clone());
                let mut high = piece;
                high.push(above.clone());
                [low, high]
            })
            .collect();
    }
    pieces.into_iter().map(and_all).collect()
}

/// Most arguments `min(x, y)` or `max(x, y)` a rule's target may have for
/// the rule to be split at them: the rule becomes up to 2^3 rules.
const MOST_CHOICES: usize = 3;

/// `move C(a, b - k, min(c, b - k)) for k in 1..=b`: a rule of one binding
/// whose target has an argument `min(x, y)` or `max(x, y)` of two
/// expressions linear in the binding, which cross once along its range,
/// is split into the rule for the values where `x ≤ y` and the rule for
/// those where `x > y`, each with the argument that is then chosen, so that
/// each can be swept. Answers each rule's target and the conjuncts to add
/// to its guard ([`absorb`] makes them part of its range), in the order of
/// the binding's values.
pub fn choose(target: &[Term], bindings: &[Binding]) -> Vec<(Vec<Term>, Vec<Expr>)> {
    let whole = vec![(target.to_vec(), Vec::new())];
    let [binding] = bindings else {
        return whole;
    };
    if binding.stop.is_some() || !matches!(binding.domain, Domain::Range { .. }) {
        return whole;
    }
    // Where the choices are: (term, argument).
    let places: Vec<(usize, usize)> = target
        .iter()
        .enumerate()
        .filter_map(|(i, term)| match term {
            Term::Game { args, .. } => Some((i, args)),
            _ => None,
        })
        .flat_map(|(i, args)| {
            let chosen = args.iter().enumerate();
            chosen.filter_map(move |(j, arg)| choice(arg, binding.slot).map(|_| (i, j)))
        })
        .take(MOST_CHOICES)
        .collect();
    let mut pieces = whole;
    for (i, j) in places {
        pieces = pieces
            .into_iter()
            .flat_map(|(target, conjuncts)| {
                let Term::Game { args, .. } = &target[i] else {
                    unreachable!("a choice is a game's argument");
                };
                let Some(branches) = choice(&args[j], binding.slot) else {
                    unreachable!("a choice stays one");
                };
                branches.map(|(chosen, condition)| {
                    let mut target = target.clone();
                    if let Term::Game { args, .. } = &mut target[i] {
                        args[j] = chosen;
                    }
                    let mut conjuncts = conjuncts.clone();
                    conjuncts.push(condition);
                    (target, conjuncts)
                })
            })
            .collect();
    }
    pieces
}

/// The two branches of `min(x, y)` or `max(x, y)`, each with the condition
/// under which it is the one chosen, in the order of the binding's values:
/// `x` while `x ≤ y` (for `min`), `y` while `x > y`.
fn choice(arg: &Expr, slot: usize) -> Option<[(Expr, Expr); 2]> {
    let (ExprKind::Min(operands) | ExprKind::Max(operands)) = &arg.kind else {
        return None;
    };
    let [x, y] = operands.as_slice() else {
        return None;
    };
    let (cx, _) = linear(x, slot)?;
    let (cy, _) = linear(y, slot)?;
    let c = cx.checked_sub(cy)?;
    if c == 0 {
        return None;
    }
    let span = arg.span;
    let x_first = binary(BinaryOp::Le, x.clone(), y.clone(), span);
    let y_first = binary(BinaryOp::Gt, x.clone(), y.clone(), span);
    let (at_most, above) = match &arg.kind {
        ExprKind::Min(_) => ((x.clone(), x_first), (y.clone(), y_first)),
        _ => ((y.clone(), x_first), (x.clone(), y_first)),
    };
    // x - y grows with the binding when c > 0: x ≤ y comes first.
    Some(match c > 0 {
        true => [at_most, above],
        false => [above, at_most],
    })
}

/// The conjuncts that keep a binding's values below and above the one
/// that `lhs != rhs` leaves out, both linear in it.
fn cut(conjunct: &Expr, slot: usize) -> Option<(Expr, Expr)> {
    let ExprKind::Binary(BinaryOp::Ne, lhs, rhs) = &conjunct.kind else {
        return None;
    };
    let (left, _) = linear(lhs, slot)?;
    let (right, _) = linear(rhs, slot)?;
    let c = left.checked_sub(right)?;
    let span = conjunct.span;
    let compare = |op| binary(op, (**lhs).clone(), (**rhs).clone(), span);
    // lhs - rhs grows with the binding when c > 0: below, lhs < rhs.
    match c {
        0 => None,
        1.. => Some((compare(BinaryOp::Lt), compare(BinaryOp::Gt))),
        _ => Some((compare(BinaryOp::Gt), compare(BinaryOp::Lt))),
    }
}

/// `for k in 1.. while k * k <= n`: a conjunct of a `while` that holds up
/// to some value of a binding that counts up, and never after, is an end
/// of its range (`k ≤ isqrt(n)`), and the `while` need not be tried for
/// every value. Conjuncts that hold only from some value on (`while k ≥
/// 5` stops at once) stay, as do all those of a binding that is not a
/// range; a square bounds a range only from a start known not negative,
/// where `k * k` grows with `k`.
fn absorb_stop(binding: &mut Binding) {
    let Domain::Range { start, .. } = &binding.domain else {
        return;
    };
    let from_zero = matches!(start.kind, ExprKind::Const(start) if start >= 0);
    let Some(stop) = binding.stop.take() else {
        return;
    };
    let mut kept = Vec::new();
    for conjunct in conjuncts(stop) {
        let squares = || {
            square_bounds(&conjunct, binding.slot)
                .filter(|_| from_zero)
                .and_then(|bounds| bounds.into_iter().next())
        };
        match bound(&conjunct, binding.slot).or_else(squares) {
            Some(most @ Bound::AtMost(_)) => narrow(&mut binding.domain, most, conjunct.span),
            _ => kept.push(conjunct),
        }
    }
    binding.stop = and_all(kept);
}

/// `a and b`.
pub fn and(a: Expr, b: Expr) -> Expr {
    let span = a.span;
    binary(BinaryOp::And, a, b, span)
}

fn and_all(conjuncts: Vec<Expr>) -> Option<Expr> {
    conjuncts.into_iter().reduce(|all, next| {
        let span = all.span;
        binary(BinaryOp::And, all, next, span)
    })
}

/// `a and b and …` as its parts, in order.
pub(super) fn conjuncts(guard: Expr) -> Vec<Expr> {
    match guard.kind {
        ExprKind::Binary(BinaryOp::And, lhs, rhs) => {
            let mut parts = conjuncts(*lhs);
            parts.extend(conjuncts(*rhs));
            parts
        }
        _ => vec![guard],
    }
}

/// A bound on the binding: its least or its greatest value.
enum Bound {
    AtLeast(Expr),
    AtMost(Expr),
}

/// The bound a conjunct puts on the binding in `slot`, if it is one.
fn bound(conjunct: &Expr, slot: usize) -> Option<Bound> {
    let ExprKind::Binary(op, lhs, rhs) = &conjunct.kind else {
        return None;
    };
    if !matches!(
        op,
        BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge
    ) {
        return None;
    }
    let span = conjunct.span;
    // lhs - rhs = c·a + r, compared with 0.
    let (left, left_rest) = linear(lhs, slot)?;
    let (right, right_rest) = linear(rhs, slot)?;
    let (mut c, mut r) = (
        left.checked_sub(right)?,
        binary(BinaryOp::Sub, left_rest, right_rest, span),
    );
    let mut op = *op;
    if c == 0 {
        return None;
    }
    if c < 0 {
        // Both sides negated: the comparison turns round.
        c = c.checked_neg()?;
        r = Expr {
            kind: ExprKind::Neg(Box::new(r)),
            span,
        };
        op = match op {
            BinaryOp::Lt => BinaryOp::Gt,
            BinaryOp::Le => BinaryOp::Ge,
            BinaryOp::Gt => BinaryOp::Lt,
            _ => BinaryOp::Le,
        };
    }
    let constant = |value: i64| Expr {
        kind: ExprKind::Const(value),
        span,
    };
    let negated = |expr: Expr| Expr {
        kind: ExprKind::Neg(Box::new(expr)),
        span,
    };
    // With c > 0 (division floors):
    //   c·a + r <  0  ⇔  a ≤ (-r - 1) / c
    //   c·a + r ≤  0  ⇔  a ≤ -r / c
    //   c·a + r >  0  ⇔  a ≥ -((r - 1) / c)
    //   c·a + r ≥  0  ⇔  a ≥ -(r / c)
    let over_c = |expr: Expr| binary(BinaryOp::Div, expr, constant(c), span);
    Some(match op {
        BinaryOp::Lt => Bound::AtMost(over_c(binary(BinaryOp::Sub, negated(r), constant(1), span))),
        BinaryOp::Le => Bound::AtMost(over_c(negated(r))),
        BinaryOp::Gt => {
            Bound::AtLeast(negated(over_c(binary(BinaryOp::Sub, r, constant(1), span))))
        }
        _ => Bound::AtLeast(negated(over_c(r))),
    })
}

/// The bounds a conjunct `a * a ≤ e` (or `a ** 2`, `<`, or turned round)
/// puts on `a`: `a ≤ s` first, then `a ≥ -s`, for `s = isqrt(e)`, and an
/// empty range for a negative `e` (`s` is then -1).
fn square_bounds(conjunct: &Expr, slot: usize) -> Option<Vec<Bound>> {
    let ExprKind::Binary(op, lhs, rhs) = &conjunct.kind else {
        return None;
    };
    let (square, other, strict) = match op {
        BinaryOp::Le => (lhs, rhs, false),
        BinaryOp::Lt => (lhs, rhs, true),
        BinaryOp::Ge => (rhs, lhs, false),
        BinaryOp::Gt => (rhs, lhs, true),
        _ => return None,
    };
    let is_binding = |expr: &Expr| matches!(expr.kind, ExprKind::Slot(s) if s == slot);
    let squared = match &square.kind {
        ExprKind::Binary(BinaryOp::Mul, a, b) => is_binding(a) && is_binding(b),
        ExprKind::Binary(BinaryOp::Pow, a, b) => {
            is_binding(a) && matches!(b.kind, ExprKind::Const(2))
        }
        _ => false,
    };
    if !squared || other.mentions(slot) || !safe(other) {
        return None;
    }
    let span = conjunct.span;
    let constant = |value: i64| Expr {
        kind: ExprKind::Const(value),
        span,
    };
    // a² < e  ⇔  a² ≤ e - 1.
    let most = match strict {
        true => binary(BinaryOp::Sub, (**other).clone(), constant(1), span),
        false => (**other).clone(),
    };
    // isqrt(max(e, 0)) - (e < 0): -1 when no square is small enough.
    let root = Expr {
        kind: ExprKind::Isqrt(Box::new(Expr {
            kind: ExprKind::Max(vec![most.clone(), constant(0)]),
            span,
        })),
        span,
    };
    let negative = binary(BinaryOp::Lt, most, constant(0), span);
    let root = binary(BinaryOp::Sub, root, negative, span);
    let least = Expr {
        kind: ExprKind::Neg(Box::new(root.clone())),
        span,
    };
    Some(vec![Bound::AtMost(root), Bound::AtLeast(least)])
}

/// `expr` as `c·a + r`, with `r` not reading the slot of `a`; `None` if it
/// is not linear in `a` or not safe to evaluate early.
fn linear(expr: &Expr, slot: usize) -> Option<(i64, Expr)> {
    let span = expr.span;
    if !expr.mentions(slot) {
        return safe(expr).then(|| (0, expr.clone()));
    }
    Some(match &expr.kind {
        ExprKind::Slot(_) => (
            1,
            Expr {
                kind: ExprKind::Const(0),
                span,
            },
        ),
        ExprKind::Chain(chain) => return linear(&chain.tree, slot),
        ExprKind::Neg(operand) => {
            let (c, r) = linear(operand, slot)?;
            let kind = ExprKind::Neg(Box::new(r));
            (c.checked_neg()?, Expr { kind, span })
        }
        ExprKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), lhs, rhs) => {
            let ((a, ra), (b, rb)) = (linear(lhs, slot)?, linear(rhs, slot)?);
            let c = match op {
                BinaryOp::Add => a.checked_add(b)?,
                _ => a.checked_sub(b)?,
            };
            (c, binary(*op, ra, rb, span))
        }
        ExprKind::Binary(BinaryOp::Mul, lhs, rhs) => {
            let (factor, other) = match (&lhs.kind, &rhs.kind) {
                (ExprKind::Const(k), _) => (*k, rhs),
                (_, ExprKind::Const(k)) => (*k, lhs),
                _ => return None,
            };
            let (c, r) = linear(other, slot)?;
            let factor_expr = Expr {
                kind: ExprKind::Const(factor),
                span,
            };
            (
                c.checked_mul(factor)?,
                binary(BinaryOp::Mul, factor_expr, r, span),
            )
        }
        _ => return None,
    })
}

/// Whether an expression that does not read the binding can be evaluated
/// before it is tried without raising an error the guard would not.
fn safe(expr: &Expr) -> bool {
    match &expr.kind {
        ExprKind::Const(_) | ExprKind::Slot(_) | ExprKind::Chain(_) => true,
        ExprKind::Neg(operand) | ExprKind::Abs(operand) => safe(operand),
        ExprKind::Binary(BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul, lhs, rhs) => {
            safe(lhs) && safe(rhs)
        }
        ExprKind::Min(args) | ExprKind::Max(args) => args.iter().all(safe),
        _ => false,
    }
}

/// Narrows a range to a bound.
fn narrow(domain: &mut Domain, bound: Bound, span: SourceSpan) {
    let Domain::Range {
        start,
        end,
        inclusive,
    } = domain
    else {
        return;
    };
    match bound {
        Bound::AtLeast(least) => {
            let old = std::mem::replace(start, least.clone());
            *start = Expr {
                kind: ExprKind::Max(vec![old, least]),
                span,
            };
        }
        Bound::AtMost(most) => {
            // An exclusive end stays exclusive: the bound moves past it.
            let most = match inclusive {
                true => most,
                false => binary(
                    BinaryOp::Add,
                    most,
                    Expr {
                        kind: ExprKind::Const(1),
                        span,
                    },
                    span,
                ),
            };
            let old = std::mem::replace(end, most.clone());
            *end = Expr {
                kind: ExprKind::Min(vec![old, most]),
                span,
            };
        }
    }
}

fn binary(op: BinaryOp, lhs: Expr, rhs: Expr, span: SourceSpan) -> Expr {
    Expr {
        kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
        span,
    }
}
