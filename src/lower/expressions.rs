//! Expressions lowered and typed: operators, variables, built-in
//! functions, and constants folded.

use super::terms::closest;
use super::*;

impl Lowerer {
    pub(super) fn int(&mut self, expr: &ast::Expr, scope: &Scope) -> Expr {
        self.typed(expr, scope, Type::Int).compiled()
    }

    pub(super) fn condition(&mut self, expr: &ast::Expr, scope: &Scope) -> Expr {
        self.typed(expr, scope, Type::Bool).compiled()
    }

    pub(super) fn typed(&mut self, expr: &ast::Expr, scope: &Scope, expected: Type) -> Expr {
        let (lowered, found) = self.expr(expr, scope);
        if !found.fits(expected) {
            self.errors.push(CheckError::TypeMismatch {
                expected: expected.noun(),
                found: found.noun(),
                span: expr.span,
                help: match expected {
                    Type::Int => "heap sizes, range bounds, indices and arithmetic take integers",
                    Type::Bool => "a condition compares values, e.g. `k <= n` or `v in s`, or joins conditions with `and`, `or`, `not`",
                    Type::Any | Type::Error => "an argument is an integer, a set, a list or a region; a condition is none of these",
                    Type::Set => "write a set as `{1, 2}` or `{e for x in …}`",
                    Type::List => "write a list as `[1, 2]` or `[e for x in …]`",
                    Type::Region => "a region is a board such as `Grid(3, 4)`, `Path(n)` or a graph, less some nodes",
                },
            });
        }
        lowered
    }

    /// Lowers the bindings and guard of a comprehension or a sum over
    /// bindings, in a scope of their own.
    pub(super) fn comprehension(
        &mut self,
        list: bool,
        element: &ast::Expr,
        bindings: &[ast::Binding],
        guard: Option<&ast::Expr>,
        scope: &Scope,
    ) -> ExprKind {
        let mut inner = scope.clone();
        let bindings = self.bindings(bindings, &mut inner);
        let guard = guard.map(|guard| self.condition(guard, &inner));
        let element = self.int(element, &inner);
        ExprKind::Comprehension(Box::new(Comprehension {
            list,
            element,
            bindings,
            guard,
        }))
    }

    pub(super) fn expr(&mut self, expr: &ast::Expr, scope: &Scope) -> (Expr, Type) {
        let (kind, ty) = match &expr.kind {
            ast::ExprKind::Int(value) => (ExprKind::Const(*value), Type::Int),
            ast::ExprKind::Bool(value) => (ExprKind::Const(*value as i64), Type::Bool),
            ast::ExprKind::Var(var) => self.var(var, scope),
            ast::ExprKind::Call { function, args } => self.call(function, args, expr.span, scope),
            ast::ExprKind::If(condition, then, otherwise) => {
                let condition = self.condition(condition, scope);
                let (then, a) = self.expr(then, scope);
                let (otherwise, b) = self.expr(otherwise, scope);
                let ty = match (a, b) {
                    (a, b) if a == b => a,
                    (Type::Any, other) | (other, Type::Any) if other != Type::Bool => Type::Any,
                    _ => {
                        self.errors.push(CheckError::TypeMismatch {
                            expected: a.noun(),
                            found: b.noun(),
                            span: expr.span,
                            help: "both branches of `if … then … else …` give the same kind of value",
                        });
                        a
                    }
                };
                (
                    ExprKind::If(Box::new([condition, then.compiled(), otherwise.compiled()])),
                    ty,
                )
            }
            ast::ExprKind::Elements { list, elements } => {
                let elements = elements.iter().map(|e| self.int(e, scope)).collect();
                match list {
                    true => (ExprKind::ListOf(elements), Type::List),
                    false => (ExprKind::SetOf(elements), Type::Set),
                }
            }
            ast::ExprKind::Comprehension {
                list,
                element,
                bindings,
                guard,
            } => (
                self.comprehension(*list, element, bindings, guard.as_deref(), scope),
                if *list { Type::List } else { Type::Set },
            ),
            ast::ExprKind::Index(list, index) => (
                ExprKind::Index(
                    Box::new(self.typed(list, scope, Type::List).compiled()),
                    Box::new(self.int(index, scope)),
                ),
                Type::Int,
            ),
            ast::ExprKind::Node { graph, node } => match self.node_ref(graph, node) {
                Some(Term::Node { node, .. }) => (ExprKind::Const(i64::from(node.0)), Type::Int),
                _ => (ExprKind::Const(0), Type::Int),
            },
            ast::ExprKind::Unary(ast::UnaryOp::Neg, operand) => {
                (ExprKind::Neg(Box::new(self.int(operand, scope))), Type::Int)
            }
            ast::ExprKind::Unary(ast::UnaryOp::BitNot, operand) => (
                ExprKind::BitNot(Box::new(self.int(operand, scope))),
                Type::Int,
            ),
            ast::ExprKind::Unary(ast::UnaryOp::Not, operand) => (
                ExprKind::Not(Box::new(self.condition(operand, scope))),
                Type::Bool,
            ),
            ast::ExprKind::Binary(op, lhs, rhs) => self.binary(*op, lhs, rhs, scope),
        };
        (
            Expr {
                kind,
                span: expr.span,
            },
            ty,
        )
    }

    /// A binary operation: on integers, or on sets, lists and regions
    /// (`+` and `|` join, `-` removes, `&` keeps the common elements, `^`
    /// the uncommon, `in` asks for membership).
    pub(super) fn binary(
        &mut self,
        op: BinaryOp,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        scope: &Scope,
    ) -> (ExprKind, Type) {
        let kind = |lhs: Expr, rhs: Expr| ExprKind::Binary(op, Box::new(lhs), Box::new(rhs));
        let collections = matches!(
            op,
            BinaryOp::Add
                | BinaryOp::Sub
                | BinaryOp::BitAnd
                | BinaryOp::BitOr
                | BinaryOp::BitXor
                | BinaryOp::Eq
                | BinaryOp::Ne
        );
        if op == BinaryOp::In {
            let element = self.int(lhs, scope);
            let (collection, found) = self.expr(rhs, scope);
            if !found.is_collection() {
                self.errors.push(CheckError::TypeMismatch {
                    expected: "a set, a list or a region",
                    found: found.noun(),
                    span: rhs.span,
                    help: "`x in s` asks whether s holds x",
                });
            }
            return (kind(element, collection.compiled()), Type::Bool);
        }
        let (a, ta) = self.expr(lhs, scope);
        let (b, tb) = self.expr(rhs, scope);
        let b = b.compiled();
        // A sum that goes on (`… + k` after `… - j`) is compiled once, whole,
        // where it ends: compiled at every link, a sum of n terms made n
        // chains of up to n steps each (10,001 terms: 1.2 GB).
        let goes_on = matches!(op, BinaryOp::Add | BinaryOp::Sub)
            && matches!(b.kind, ExprKind::Const(_) | ExprKind::Slot(_))
            && matches!(a.kind, ExprKind::Binary(BinaryOp::Add | BinaryOp::Sub, ..));
        let a = if goes_on { a } else { a.compiled() };
        let result = |ty: Type| match op {
            BinaryOp::Eq | BinaryOp::Ne => Type::Bool,
            _ => ty,
        };
        let logic = matches!(op, BinaryOp::And | BinaryOp::Or);
        let ty = match (ta, tb) {
            (Type::Bool, Type::Bool) if logic => Type::Bool,
            _ if logic => Type::Error,
            (a, b) if !collections => match a.fits(Type::Int) && b.fits(Type::Int) {
                true => operator_types(op).1,
                false => Type::Error,
            },
            (Type::Int, Type::Int | Type::Any) | (Type::Any, Type::Int) => {
                result(operator_types(op).1)
            }
            (Type::Any, Type::Any) => result(Type::Any),
            (Type::Region, Type::Any | Type::Set | Type::Region) => result(Type::Region),
            (Type::Any, Type::Set | Type::Region | Type::List)
            | (Type::Set | Type::List, Type::Any) => result(Type::Any),
            (Type::Set, Type::Set | Type::Region) => result(Type::Set),
            (Type::List, Type::List)
                if matches!(op, BinaryOp::Add | BinaryOp::Eq | BinaryOp::Ne) =>
            {
                result(Type::List)
            }
            _ => Type::Error,
        };
        if ty != Type::Error {
            return (kind(a, b), ty);
        }
        let (operands, result) = operator_types(op);
        let lhs_fits = (ta.fits(operands) && ta != Type::Any)
            || (collections && matches!(ta, Type::Set | Type::List | Type::Region));
        let (found, span) = match lhs_fits {
            true => (tb, rhs.span),
            false => (ta, lhs.span),
        };
        self.errors.push(CheckError::TypeMismatch {
            expected: match (op, ta) {
                (_, Type::Set | Type::Region) if collections => "a set",
                (_, Type::List) if collections => "a list",
                _ => operands.noun(),
            },
            found: found.noun(),
            span,
            help: match op {
                BinaryOp::And | BinaryOp::Or => "`and` and `or` join conditions, e.g. `k <= n and k % 2 == 0`",
                _ if collections => "`+`, `-`, `&`, `|`, `^` work on integers, or on two sets (a region and a set); `+` joins two lists",
                _ => "arithmetic and `<`, `<=`, `>`, `>=` take integers",
            },
        });
        (kind(a, b), result)
    }

    pub(super) fn var(&mut self, var: &ast::Ident, scope: &Scope) -> (ExprKind, Type) {
        match scope.lookup(&var.name) {
            Some(slot) => (ExprKind::Slot(slot), scope.types[slot]),
            None => match self
                .program
                .names
                .get(&var.name)
                .map(|declared| (declared.kind, declared.span))
            {
                Some((DeclarationKind::Constant(id), declared))
                    if self.unlowered_constants.contains(&id.0) =>
                {
                    self.used_before_declaration(var, declared);
                    // Of no type: reported once, not again as mistyped.
                    (ExprKind::Const(0), Type::Any)
                }
                Some((DeclarationKind::Constant(id), _)) => {
                    let value = self.program.constant(id).value.clone();
                    let ty = constant_type(&value);
                    (value.kind, ty)
                }
                Some((DeclarationKind::Graph(id), _)) => {
                    let board = self.program.graph(id).board.clone();
                    (
                        ExprKind::Value(crate::values::Value::Region(board.whole())),
                        Type::Region,
                    )
                }
                _ => (self.unknown_var(var, scope), Type::Int),
            },
        }
    }

    pub(super) fn unknown_var(&mut self, var: &ast::Ident, scope: &Scope) -> ExprKind {
        match scope.lookup(&var.name) {
            Some(slot) => ExprKind::Slot(slot),
            None => {
                let names = scope.vars.iter().map(|var| var.name.as_str());
                let help = match closest(&var.name, names) {
                    Some(similar) => format!("did you mean `{similar}`?"),
                    None if scope.vars.is_empty() => {
                        format!(
                            "bind it with `for {} in …` after the query or rule",
                            var.name
                        )
                    }
                    None => format!(
                        "the variables here are {}",
                        scope
                            .vars
                            .iter()
                            .map(|var| format!("`{}`", var.name))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                self.errors.push(CheckError::UnknownVariable {
                    name: var.name.clone(),
                    span: var.span,
                    help,
                });
                ExprKind::Const(0)
            }
        }
    }

    pub(super) fn call(
        &mut self,
        function: &ast::Ident,
        args: &[ast::Expr],
        span: SourceSpan,
        scope: &Scope,
    ) -> (ExprKind, Type) {
        if let Some(declared) = self.program.names.get(&function.name).copied()
            && let DeclarationKind::Family(id) = declared.kind
        {
            return (
                self.family_call(function, id, declared, args, span, scope),
                Type::Region,
            );
        }
        if let Some((builtin, arity)) = builtin(&function.name) {
            return self.builtin(function, builtin, arity, args, span, scope);
        }
        // `min(s)` and `max(s)`: the least and greatest element.
        if let ("min" | "max", [collection]) = (function.name.as_str(), args) {
            let (lowered, found) = self.expr(collection, scope);
            if found.is_collection() && found != Type::Int {
                let lowered = vec![lowered.compiled()];
                return match function.name.as_str() {
                    "min" => (ExprKind::Min(lowered), Type::Int),
                    _ => (ExprKind::Max(lowered), Type::Int),
                };
            }
        }
        (self.integer_call(function, args, span, scope), Type::Int)
    }

    /// `Name(args)`: the board a family builds for its arguments.
    pub(super) fn family_call(
        &mut self,
        function: &ast::Ident,
        id: FamilyId,
        declared: Declaration,
        args: &[ast::Expr],
        span: SourceSpan,
        scope: &Scope,
    ) -> ExprKind {
        let family = self.program.family(id).clone();
        let args: Vec<Expr> = args
            .iter()
            .map(|arg| self.int(arg, scope).compiled())
            .collect();
        if args.len() != family.params.len() {
            let mut error = arity_error(
                &function.name,
                family.params.len(),
                args.len(),
                span,
                Some(declared.span),
            );
            if let CheckError::Arity { help, .. } = &mut error {
                *help = format!(
                    "the family `{}` builds a board from {}: write `{}({})`",
                    function.name,
                    crate::eval::count(family.params.len(), "integer", "integers"),
                    function.name,
                    family.params.join(", ")
                );
            }
            self.errors.push(error);
            return ExprKind::Const(0);
        }
        if self.in_family {
            self.errors.push(CheckError::FamilyInFamily {
                name: function.name.clone(),
                span,
            });
            return ExprKind::Const(0);
        }
        if self.unlowered_families.contains(&id.0) {
            // Its rules are not lowered yet: built now, it would be empty.
            self.used_before_declaration(function, declared.span);
            return ExprKind::Const(0);
        }
        ExprKind::Family(family, args)
    }

    /// A call of a function of sets, lists and boards.
    pub(super) fn builtin(
        &mut self,
        function: &ast::Ident,
        builtin: Builtin,
        arity: usize,
        args: &[ast::Expr],
        span: SourceSpan,
        scope: &Scope,
    ) -> (ExprKind, Type) {
        if args.len() != arity {
            let mut error = arity_error(&function.name, arity, args.len(), span, None);
            if let CheckError::Arity { help, .. } = &mut error {
                *help = format!("`{}` is built in: {}", function.name, COLLECTION_BUILTINS);
            }
            self.errors.push(error);
            return (ExprKind::Const(0), Type::Any);
        }
        let (inputs, output): (&[Type], Type) = match builtin {
            Builtin::Len => (&[Type::Any], Type::Int),
            Builtin::Sum => (&[Type::Any], Type::Int),
            Builtin::Sort => (&[Type::Any], Type::List),
            Builtin::Replace => (&[Type::List, Type::Int, Type::Int], Type::List),
            Builtin::Nodes => (&[Type::Region], Type::Set),
            Builtin::Neighbours | Builtin::Closed => (&[Type::Region, Type::Int], Type::Set),
            Builtin::Grounded => (&[Type::Region, Type::Set], Type::Region),
            Builtin::Grid => (&[Type::Int, Type::Int], Type::Region),
            Builtin::Path | Builtin::Cycle => (&[Type::Int], Type::Region),
            Builtin::Edges => (&[Type::Region], Type::Region),
        };
        let lowered = args
            .iter()
            .zip(inputs)
            .map(|(arg, ty)| self.typed(arg, scope, *ty).compiled())
            .collect();
        (ExprKind::Call(builtin, lowered), output)
    }

    pub(super) fn integer_call(
        &mut self,
        function: &ast::Ident,
        args: &[ast::Expr],
        span: SourceSpan,
        scope: &Scope,
    ) -> ExprKind {
        let mut lowered: Vec<Expr> = args.iter().map(|arg| self.int(arg, scope)).collect();
        let (kind, at_least, at_most) = match function.name.as_str() {
            "min" => (ExprKind::Min as fn(Vec<Expr>) -> ExprKind, 1, usize::MAX),
            "max" => (ExprKind::Max as fn(Vec<Expr>) -> ExprKind, 1, usize::MAX),
            "abs" => (abs as fn(Vec<Expr>) -> ExprKind, 1, 1),
            "isqrt" => (isqrt as fn(Vec<Expr>) -> ExprKind, 1, 1),
            "popcount" => (popcount as fn(Vec<Expr>) -> ExprKind, 1, 1),
            "nim_inv" => (nim_inv as fn(Vec<Expr>) -> ExprKind, 1, 1),
            "nim_mul" => (nim_mul as fn(Vec<Expr>) -> ExprKind, 2, 2),
            name if name.starts_with(|c: char| c.is_ascii_uppercase()) => {
                let help = match self
                    .suggest(name, |kind| matches!(kind, DeclarationKind::Family(_)))
                {
                    Some(similar) => similar,
                    None => format!(
                        "the boards built in are `Grid(r, c)`, `Path(n)` and `Cycle(n)`; declare a family with `graph {name}(n) {{ nodes 0..n  edge i -- i + 1 for i in 0..n - 1 }}`"
                    ),
                };
                self.errors.push(CheckError::UnknownFamily {
                    name: function.name.clone(),
                    span: function.span,
                    help,
                });
                return ExprKind::Const(0);
            }
            _ => {
                self.errors.push(CheckError::UnknownFunction {
                    name: function.name.clone(),
                    span: function.span,
                });
                return ExprKind::Const(0);
            }
        };
        if !(at_least..=at_most).contains(&lowered.len()) {
            let expected = match (at_least, at_most) {
                (1, 1) => "1 argument".to_owned(),
                (least, most) if least == most => format!("{least} arguments"),
                _ => format!(
                    "at least {}",
                    crate::eval::count(at_least, "argument", "arguments")
                ),
            };
            self.errors.push(CheckError::Arity {
                name: function.name.clone(),
                expected,
                found: args.len(),
                were: if args.len() == 1 { "was" } else { "were" },
                span,
                declared: None,
                help: format!("`{}` is built in: {}", function.name, BUILTINS),
            });
            lowered.truncate(at_most.min(lowered.len()));
            if lowered.len() < at_least {
                return ExprKind::Const(0);
            }
        }
        kind(lowered)
    }
}

pub(super) const BUILTINS: &str = "`min(a, b, …)`, `max(a, b, …)`, `abs(a)`, `isqrt(a)`, `popcount(a)`, `nim_mul(a, b)`, `nim_inv(a)`";

pub(super) const COLLECTION_BUILTINS: &str = "`len(x)`, `sum(l)`, `sort(l)`, `replace(l, i, v)`, `nodes(r)`, `neighbours(r, v)`, `closed(r, v)`, `grounded(r, g)`, `Grid(r, c)`, `Path(n)`, `Cycle(n)`, `Edges(G)`";

/// The built-in functions of integers (see [`Lowerer::integer_call`]).
pub(super) const INTEGER_FUNCTIONS: &[&str] = &[
    "min", "max", "abs", "isqrt", "popcount", "nim_inv", "nim_mul",
];

/// The built-in domains a variable ranges over, which are no values.
const DOMAINS: &[&str] = &["divisors", "subsets", "under"];

/// What to write for a built-in function or domain used as a game
/// (`grundy abs(-3)`), if `name` is one.
pub(super) fn builtin_as_game(name: &str) -> Option<String> {
    if INTEGER_FUNCTIONS.contains(&name) {
        return Some(format!(
            "`{name}` is a built-in function of integers, not a game: `*{name}(…)` is a heap of its value"
        ));
    }
    DOMAINS.contains(&name).then(|| {
        format!(
            "`{name}(…)` is a domain a variable ranges over, not a game: `{{x for x in {name}(…)}}` is the set of its values"
        )
    })
}

/// A built-in function of sets, lists and boards, and its arity.
pub(super) fn builtin(name: &str) -> Option<(Builtin, usize)> {
    Builtin::ALL
        .iter()
        .find(|(builtin, ..)| *builtin == name)
        .map(|&(_, builtin, arity)| (builtin, arity))
}

/// The type of a `let`'s value, worked out when it was declared.
pub(super) fn constant_type(value: &Expr) -> Type {
    match &value.kind {
        ExprKind::Value(crate::values::Value::Region(_)) => Type::Region,
        ExprKind::Value(crate::values::Value::Set(_)) => Type::Set,
        ExprKind::Value(crate::values::Value::List(_)) => Type::List,
        _ => Type::Int,
    }
}

pub(super) fn abs(mut args: Vec<Expr>) -> ExprKind {
    ExprKind::Abs(Box::new(args.remove(0)))
}

pub(super) fn isqrt(mut args: Vec<Expr>) -> ExprKind {
    ExprKind::Isqrt(Box::new(args.remove(0)))
}

pub(super) fn popcount(mut args: Vec<Expr>) -> ExprKind {
    ExprKind::Popcount(Box::new(args.remove(0)))
}

pub(super) fn nim_inv(mut args: Vec<Expr>) -> ExprKind {
    ExprKind::NimInv(Box::new(args.remove(0)))
}

pub(super) fn nim_mul(mut args: Vec<Expr>) -> ExprKind {
    let (b, a) = (args.remove(1), args.remove(0));
    ExprKind::Binary(BinaryOp::NimMul, Box::new(a), Box::new(b))
}

/// An expression of a `nim` query with its operators read in nimbers:
/// `+` and `-` as nim-addition (XOR), `*` as nim-multiplication, `/` as
/// division by the nim-inverse, `**` as a nim-power; a nimber is its own
/// negative. Arguments of functions, indices and conditions keep their
/// integer meaning.
pub(super) fn in_nimbers(expr: &ast::Expr) -> ast::Expr {
    use ast::ExprKind as Kind;
    let kind = match &expr.kind {
        Kind::Binary(op, lhs, rhs) => {
            let op = match op {
                BinaryOp::Add | BinaryOp::Sub => BinaryOp::BitXor,
                BinaryOp::Mul => BinaryOp::NimMul,
                BinaryOp::Div => BinaryOp::NimDiv,
                BinaryOp::Pow => {
                    // The exponent counts factors: an integer.
                    let base = in_nimbers(lhs);
                    return ast::Expr {
                        kind: Kind::Binary(BinaryOp::NimPow, Box::new(base), rhs.clone()),
                        span: expr.span,
                        depth: expr.depth,
                    };
                }
                other => *other,
            };
            Kind::Binary(op, Box::new(in_nimbers(lhs)), Box::new(in_nimbers(rhs)))
        }
        Kind::Unary(ast::UnaryOp::Neg, operand) => return in_nimbers(operand),
        Kind::If(condition, then, otherwise) => Kind::If(
            condition.clone(),
            Box::new(in_nimbers(then)),
            Box::new(in_nimbers(otherwise)),
        ),
        other => other.clone(),
    };
    ast::Expr {
        kind,
        span: expr.span,
        depth: expr.depth,
    }
}

/// The operand and result types of a binary operator.
pub(super) fn operator_types(op: BinaryOp) -> (Type, Type) {
    match op {
        BinaryOp::Add
        | BinaryOp::Sub
        | BinaryOp::Mul
        | BinaryOp::Pow
        | BinaryOp::Div
        | BinaryOp::Rem => (Type::Int, Type::Int),
        BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
            (Type::Int, Type::Bool)
        }
        BinaryOp::And | BinaryOp::Or => (Type::Bool, Type::Bool),
        BinaryOp::BitAnd
        | BinaryOp::BitOr
        | BinaryOp::BitXor
        | BinaryOp::Shl
        | BinaryOp::Shr
        | BinaryOp::NimMul
        | BinaryOp::NimDiv
        | BinaryOp::NimPow => (Type::Int, Type::Int),
        BinaryOp::In => (Type::Int, Type::Bool),
    }
}
