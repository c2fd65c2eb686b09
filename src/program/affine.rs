//! Swept rules compiled to arithmetic on the parameters. Most rules of
//! games of up to four parameters (Nim's, Wythoff's, Chomp's, after the
//! guards and choices are taken apart in `bounds.rs`) range one binding
//! between ends that are sums and differences of the parameters, and move
//! to positions whose arguments are too. For such a rule the ends and the
//! lines of options are found with a few multiply-adds on the position's
//! integers, with no environment and no expression walked (see
//! `interp::sweep`).
//!
//! A form is built only from constants of at most 2^32 in magnitude,
//! parameters, the binding, `+`, `-` and negation, with at most
//! [`MAX_LEAVES`] leaves; the fast path takes only parameters below 2^32,
//! so the binding stays within 2^40 and nothing can overflow, neither the
//! form nor the expression as written: both give the same value always.

use smallvec::SmallVec;

use super::{BinaryOp, Binding, Domain, Expr, ExprKind, GameId, Operand, Rule, Term};

/// The most leaves (constants, parameters and bindings) a form is built
/// from.
const MAX_LEAVES: usize = 16;

/// The largest constant a form takes.
const MAX_CONSTANT: i64 = 1 << 32;

/// `constant + Σ params[i]·pᵢ + binding·k`: an integer linear in a game's
/// parameters and a rule's binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Affine {
    pub constant: i64,
    pub params: [i64; 4],
    pub binding: i64,
}

impl Affine {
    /// The form of `expr`, with the parameters in slots `0..arity` and the
    /// binding in `slot`; `None` if it is not such a form (or is too large
    /// to be sure of, see the module's notes).
    /// The form of parameter `j` alone.
    fn param(j: usize) -> Affine {
        let mut form = Affine::default();
        form.params[j] = 1;
        form
    }

    pub fn of(expr: &Expr, arity: usize, slot: usize) -> Option<Affine> {
        let mut form = Affine::default();
        let mut leaves = 0;
        form.add(expr, 1, arity, slot, &mut leaves)?;
        Some(form)
    }

    /// Adds `sign · expr` to the form.
    fn add(
        &mut self,
        expr: &Expr,
        sign: i64,
        arity: usize,
        slot: usize,
        leaves: &mut usize,
    ) -> Option<()> {
        match &expr.kind {
            ExprKind::Const(value) => {
                self.operand(Operand::Const(*value), sign, arity, slot, leaves)
            }
            ExprKind::Slot(read) => self.operand(Operand::Slot(*read), sign, arity, slot, leaves),
            ExprKind::Chain(chain) => {
                self.operand(chain.start, sign, arity, slot, leaves)?;
                for &(add, operand) in &chain.steps {
                    let sign = if add { sign } else { -sign };
                    self.operand(operand, sign, arity, slot, leaves)?;
                }
                Some(())
            }
            ExprKind::Neg(operand) => self.add(operand, -sign, arity, slot, leaves),
            ExprKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), lhs, rhs) => {
                self.add(lhs, sign, arity, slot, leaves)?;
                let sign = if *op == BinaryOp::Add { sign } else { -sign };
                self.add(rhs, sign, arity, slot, leaves)
            }
            _ => None,
        }
    }

    fn operand(
        &mut self,
        operand: Operand,
        sign: i64,
        arity: usize,
        slot: usize,
        leaves: &mut usize,
    ) -> Option<()> {
        *leaves += 1;
        if *leaves > MAX_LEAVES {
            return None;
        }
        match operand {
            Operand::Const(value) if value.abs() <= MAX_CONSTANT => self.constant += sign * value,
            Operand::Const(_) => return None,
            Operand::Slot(read) if read < arity => self.params[read] += sign,
            Operand::Slot(read) if read == slot => self.binding += sign,
            Operand::Slot(_) => return None,
        }
        Some(())
    }

    /// The value at parameters `params` (each below 2^32) and binding `k`
    /// (within 2^40).
    #[inline(always)]
    pub fn at(&self, params: &[i64; 4], k: i64) -> i64 {
        self.constant
            + self.params[0] * params[0]
            + self.params[1] * params[1]
            + self.params[2] * params[2]
            + self.params[3] * params[3]
            + self.binding * k
    }
}

/// An end of a binding's range: one form, or the least or the greatest of
/// a few (`1..=min(a, b)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct End {
    pub least: bool,
    pub forms: SmallVec<[Affine; 2]>,
}

impl End {
    fn of(expr: &Expr, arity: usize, slot: usize) -> Option<End> {
        let (least, args) = match &expr.kind {
            ExprKind::Min(args) => (true, args.as_slice()),
            ExprKind::Max(args) => (false, args.as_slice()),
            _ => (true, std::slice::from_ref(expr)),
        };
        let forms = args
            .iter()
            .map(|arg| Affine::of(arg, arity, slot).filter(|form| form.binding == 0))
            .collect::<Option<SmallVec<_>>>()?;
        (!forms.is_empty() && forms.len() <= MAX_LEAVES).then_some(End { least, forms })
    }

    #[inline]
    pub fn at(&self, params: &[i64; 4]) -> i64 {
        let values = self.forms.iter().map(|form| form.at(params, 0));
        let value = match self.least {
            true => values.min(),
            false => values.max(),
        };
        value.expect("an end has a form")
    }
}

/// A swept rule compiled: its one binding runs from `first` to `last`
/// (inclusive), and each term of its target is a game (with its id) of up
/// to four parameters whose arguments are forms, each moving with the binding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compiled {
    pub first: End,
    pub last: End,
    pub terms: Vec<(GameId, SmallVec<[Affine; 4]>)>,
}

impl Compiled {
    /// The compiled form of a rule of a game of `arity` parameters, if it
    /// has one: a sweep (not gathered) of its one binding, with no guard,
    /// over a range whose ends are forms (or the least or greatest of a
    /// few), to targets made of games whose arguments are forms and move.
    pub fn plan(rule: &Rule, arity: usize) -> Option<Compiled> {
        let plan = rule.sweep.as_ref()?;
        let [
            Binding {
                slot,
                domain:
                    Domain::Range {
                        start,
                        end,
                        inclusive,
                    },
                stop: None,
                ..
            },
        ] = rule.bindings.as_slice()
        else {
            return None;
        };
        if arity > 4 || rule.guard.is_some() || plan.gather.is_some() {
            return None;
        }
        let first = End::of(start, arity, *slot)?;
        let mut last = End::of(end, arity, *slot)?;
        if !inclusive {
            last.forms.iter_mut().for_each(|form| form.constant -= 1);
        }
        let terms = rule
            .target
            .iter()
            .zip(&plan.steps)
            .map(|(term, steps)| match term {
                Term::Game { game, args, .. } if !steps.is_empty() && args.len() <= 4 => {
                    let forms = args.iter().map(|arg| Affine::of(arg, arity, *slot));
                    Some((*game, forms.collect::<Option<SmallVec<_>>>()?))
                }
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Compiled { first, last, terms })
    }
}

/// Whether the rules of game `game` of `arity` parameters let its table
/// be solved as a box, in address order: from a position, every position
/// whose arguments are each between 0 and its own is reachable (for each
/// parameter there is the rule `move G(…, p - k, …) for k in 1..=p`), and
/// every option is such a position, smaller (each rule is compiled, a
/// game's only, and moves no argument up and one down). Solving the box
/// in order then solves every position it holds, each with its options
/// solved already, and nothing that the position does not reach.
pub fn solves_as_box(rules: &[Rule], game: GameId, arity: usize) -> bool {
    let descends = |rule: &Rule| {
        let Some(compiled) = &rule.compiled else {
            return false;
        };
        // The least the binding can be, if its first end says.
        let least = compiled
            .first
            .forms
            .iter()
            .filter(|form| form.params == [0; 4])
            .map(|form| form.constant);
        let least = match (compiled.first.least, compiled.first.forms.len()) {
            (_, 1) | (false, _) => least.max(),
            (true, _) => None,
        };
        compiled.terms.iter().all(|(target, forms)| {
            if *target != game || forms.len() != arity {
                return false;
            }
            // Each argument's most change, over the binding's values.
            let changes = forms.iter().enumerate().map(|(j, form)| {
                match (form.params == Affine::param(j).params, form.binding, least) {
                    (false, ..) => None,
                    (true, 0, _) => Some(form.constant),
                    (true, step, Some(least)) if step < 0 => {
                        form.constant.checked_add(step.checked_mul(least)?)
                    }
                    _ => None,
                }
            });
            let changes: Option<Vec<i64>> = changes.collect();
            changes.is_some_and(|changes| {
                changes.iter().all(|&change| change <= 0)
                    && changes.iter().any(|&change| change < 0)
            })
        })
    };
    let steps_down = |j: usize| {
        rules.iter().any(|rule| {
            let Some(compiled) = &rule.compiled else {
                return false;
            };
            let one = Affine {
                constant: 1,
                ..Affine::default()
            };
            // `G(…, p - k, …)`: every argument its parameter, the `j`th
            // less the binding.
            let one_step = |(_, forms): &(GameId, SmallVec<[Affine; 4]>)| {
                forms.iter().enumerate().all(|(i, form)| match i == j {
                    true => {
                        *form
                            == Affine {
                                binding: -1,
                                ..Affine::param(j)
                            }
                    }
                    false => *form == Affine::param(i),
                })
            };
            matches!(compiled.terms.as_slice(), [term] if one_step(term))
                && compiled.first.forms.as_slice() == [one]
                && compiled.last.forms.as_slice() == [Affine::param(j)]
        })
    };
    (1..=4).contains(&arity) && rules.iter().all(descends) && (0..arity).all(steps_down)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::Moves;

    /// Whether each rule of the one game `source` declares is compiled.
    fn compiled(source: &str) -> Vec<bool> {
        let program = crate::lower::lowered(source);
        let Moves::Rules(rules) = &program.games[0].moves else {
            panic!("a game of rules")
        };
        rules.iter().map(|rule| rule.compiled.is_some()).collect()
    }

    #[test]
    fn wythoffs_and_chomps_rules_are_compiled() {
        let wythoff = "game W(a, b) {
            move W(a - k, b) for k in 1..=a
            move W(a, b - k) for k in 1..=b
            move W(a - k, b - k) for k in 1..=min(a, b)
        }";
        assert_eq!(compiled(wythoff), [true; 3]);
        // Each `min` in a target splits its rule, each part compiled.
        let chomp = "game C(a, b, c) {
            move C(a - k, min(b, a - k), min(c, a - k)) for k in 1..=a - 1
            move C(a, b - k, min(c, b - k)) for k in 1..=b
            move C(a, b, c - k) for k in 1..=c
        }";
        let rules = compiled(chomp);
        assert!(rules.len() > 3 && rules.iter().all(|&compiled| compiled));
    }

    /// Whether the one game `source` declares (after any it uses) is
    /// solved as a box.
    fn as_box(source: &str) -> bool {
        let program = crate::lower::lowered(source);
        program.games.last().expect("a game").solves_as_box
    }

    #[test]
    fn games_that_step_down_every_parameter_are_solved_as_boxes() {
        let nim = "move N(a - k, b) for k in 1..=a move N(a, b - k) for k in 1..=b";
        assert!(as_box(&format!("game N(a, b) {{ {nim} }}")));
        // Wythoff's diagonal moves down too.
        assert!(as_box(&format!(
            "game N(a, b) {{ {nim} move N(a - k, b - k) for k in 1..=min(a, b) }}"
        )));
        assert!(as_box("game N(a) { move N(a - k) for k in 1..=a }"));
        // Not all reached: no single steps down b, or steps of two only.
        assert!(!as_box("game N(a, b) { move N(a - k, b) for k in 1..=a }"));
        assert!(!as_box(
            "game N(a, b) { move N(a - k, b) for k in 2..=a move N(a, b - k) for k in 1..=b }"
        ));
        // An option above in some argument, or of another game, or one
        // that may stay put, or a rule that is not compiled.
        for other in [
            "move N(a - k, b + 1) for k in 1..=a",
            "move M(a - k) for k in 1..=a",
            "move N(a - k, b) for k in 0..=a",
            "move N(a - k, b) for k in 1..=a if k % 2 == 0",
        ] {
            let source = format!(
                "game M(n) {{ move M(n - k) for k in 1..=n }}\ngame N(a, b) {{ {nim} {other} }}"
            );
            assert!(!as_box(&source), "{other}");
        }
        // Three-row Chomp's positions keep a >= b >= c: not a box.
        assert!(!as_box(
            "game C(a, b, c) {
                move C(a - k, min(b, a - k), min(c, a - k)) for k in 1..=a - 1
                move C(a, b - k, min(c, b - k)) for k in 1..=b
                move C(a, b, c - k) for k in 1..=c }"
        ));
    }

    #[test]
    fn what_is_not_linear_or_not_a_game_is_not_compiled() {
        // A product, a guard on the binding, a heap beside, a binding
        // that stops, two bindings.
        for rule in [
            "move G(a - 2 * k, b) for k in 1..=a",
            "move G(a - k, b) for k in 1..=a if k % 2 == 0",
            "move G(a - k, b) + *1 for k in 1..=a",
            "move G(a - k, b) for k in 1.. while k <= a",
            "move G(a - k, b - j) for j in 0..=b, k in 1..=a",
        ] {
            let source = format!("game G(a, b) {{ {rule} }}");
            assert_eq!(compiled(&source), [false], "{rule}");
        }
    }

    #[test]
    fn forms_add_up_their_terms() {
        // `n - k - a + 3 - n`, in slots n = 0, a = 1 and k = 2 (the binding).
        let leaf = |kind| Expr::leaf(kind);
        let binary = |op, lhs, rhs| leaf(ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)));
        let chain = binary(
            BinaryOp::Sub,
            binary(
                BinaryOp::Sub,
                leaf(ExprKind::Slot(0)),
                leaf(ExprKind::Slot(2)),
            ),
            leaf(ExprKind::Slot(1)),
        )
        .compiled();
        let expr = binary(
            BinaryOp::Sub,
            binary(BinaryOp::Add, chain, leaf(ExprKind::Const(3))),
            leaf(ExprKind::Slot(0)),
        );
        let form = Affine::of(&expr, 2, 2).expect("a linear form");
        assert_eq!(
            form,
            Affine {
                constant: 3,
                params: [0, -1, 0, 0],
                binding: -1,
            }
        );
        assert_eq!(form.at(&[7, 4, 0, 0], 5), 3 - 4 - 5);
        // A slot that is neither a parameter nor the binding, and a
        // constant too large to be sure of, make no form.
        assert_eq!(Affine::of(&leaf(ExprKind::Slot(3)), 2, 2), None);
        assert_eq!(Affine::of(&leaf(ExprKind::Const(1 << 40)), 2, 2), None);
    }
}
