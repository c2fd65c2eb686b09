//! What a game that `splits` may say. Such a game is solved one connected
//! part of its region at a time, each part moved to a board of its own
//! (and, `up to symmetry`, turned to a canonical orientation), and the
//! parts' values XORed. That gives the game's value only when
//!
//! - every move acts within one part and leaves the others as they are:
//!   the option is the same game on the region less a set of nodes near
//!   one node, plus terms that read only that neighbourhood;
//! - nothing a rule reads depends on how the nodes are numbered (`v < 3`,
//!   `s - {0}`, a node's number used as an integer), nor on what lies
//!   outside the part (`len(s)`).
//!
//! This module checks a form that guarantees both. The nodes a rule binds
//! are anchored: the first `for v in s`, each later one among the
//! `neighbours(s, u)` or `closed(s, u)` of a node bound before, so all lie
//! in one part. The sets a move reads or removes are local: built from
//! those nodes, their `neighbours` and `closed` sets, with `+ | & -`. The
//! target is one term `G(s - L)` of the same game (its other arguments its
//! own parameters), and other terms that read only local sets (a heap
//! `*len(closed(s, v))`, another game's count of them). Guards
//! compare nodes with `==`, `!=`, test `in` a local set, and count local
//! sets with `len`. One order comparison is allowed, the one that names
//! each unordered pair once (`for a in s, b in neighbours(s, a) if a < b`),
//! when the target and the other conditions read the same with `a` and `b`
//! swapped: the options listed are then the same for every numbering.

use std::collections::HashMap;

use miette::SourceSpan;

use super::error::CheckError;
use crate::syntax::ast::{
    self, BinaryOp, Binding, Domain, Expr, ExprKind, MoveRule, Reference, Sum, Term,
    visit_bindings, visit_expr, visit_term,
};

/// What a name of a rule stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Name {
    /// The region.
    Region,
    /// A node, bound in one part of the region.
    Node,
    /// A set of nodes near the bound ones (from `subsets`).
    Local,
    /// A parameter past the region, or a binding that names no node.
    Plain,
}

/// The errors of a splitting game's rules.
pub(super) fn check(decl: &ast::GameDecl, rules: &[MoveRule]) -> Vec<CheckError> {
    let Some(region) = decl.params.first() else {
        return Vec::new();
    };
    let mut errors = Vec::new();
    for rule in rules {
        let mut check = Check {
            names: HashMap::from([(region.name.clone(), Name::Region)]),
            decl,
            pair: pair_order(rule),
            found: None,
        };
        for param in &decl.params[1..] {
            check.names.insert(param.name.clone(), Name::Plain);
        }
        check.rule(rule);
        errors.extend(check.found);
    }
    errors
}

struct Check<'a> {
    names: HashMap<String, Name>,
    decl: &'a ast::GameDecl,
    /// The comparison `a < b` that names each pair once, if the rule has one.
    pair: Option<SourceSpan>,
    /// The first problem found: one a rule is enough to say.
    found: Option<CheckError>,
}

impl Check<'_> {
    fn numbering(&mut self, span: SourceSpan, what: &'static str) {
        self.found.get_or_insert(CheckError::NodeNumbering {
            game: self.decl.name.name.clone(),
            what,
            span,
        });
    }

    fn not_local(&mut self, span: SourceSpan, what: &'static str) {
        self.found.get_or_insert(CheckError::SplitsNotLocal {
            game: self.decl.name.name.clone(),
            what,
            span,
        });
    }

    fn rule(&mut self, rule: &MoveRule) {
        let mut rooted = false;
        for binding in &rule.bindings {
            let name = self.binding(binding, &mut rooted);
            self.names.insert(binding.var.name.clone(), name);
        }
        if let Some(guard) = &rule.guard {
            self.condition(guard);
        }
        self.target(&rule.target);
    }

    fn binding(&mut self, binding: &Binding, rooted: &mut bool) -> Name {
        if let Some(stop) = &binding.stop {
            self.condition(stop);
        }
        match &binding.domain {
            Domain::Each(set) if self.is_region(set) => {
                if std::mem::replace(rooted, true) {
                    self.not_local(
                        set.span,
                        "a second node anywhere in the region: it may lie in another part",
                    );
                }
                Name::Node
            }
            Domain::Each(set) => match &set.kind {
                ExprKind::Call { function, args }
                    if matches!(function.name.as_str(), "neighbours" | "closed")
                        && args.len() == 2
                        && self.is_region(&args[0])
                        && self.is_node(&args[1]) =>
                {
                    Name::Node
                }
                _ => {
                    self.plain(set);
                    Name::Plain
                }
            },
            Domain::Subsets(set, size) => {
                if let Some(size) = size {
                    self.plain(size);
                }
                if self.local(set) {
                    Name::Local
                } else {
                    self.plain(set);
                    Name::Plain
                }
            }
            Domain::Range { start, end, .. } => {
                self.plain(start);
                if let Some(end) = end {
                    self.plain(end);
                }
                Name::Plain
            }
            Domain::Set(elements) => {
                elements.iter().for_each(|element| self.plain(element));
                Name::Plain
            }
            Domain::Divisors(expr) | Domain::Under(expr) => {
                self.plain(expr);
                Name::Plain
            }
        }
    }

    fn name(&self, expr: &Expr) -> Option<Name> {
        match &expr.kind {
            ExprKind::Var(var) => self.names.get(&var.name).copied(),
            _ => None,
        }
    }

    fn is_region(&self, expr: &Expr) -> bool {
        self.name(expr) == Some(Name::Region)
    }

    fn is_node(&self, expr: &Expr) -> bool {
        self.name(expr) == Some(Name::Node)
    }

    /// Whether a set is local: built from bound nodes and their
    /// neighbourhoods. Reports nothing.
    fn local(&self, expr: &Expr) -> bool {
        match &expr.kind {
            ExprKind::Var(_) => self.name(expr) == Some(Name::Local),
            ExprKind::Elements {
                list: false,
                elements,
            } => elements.iter().all(|element| self.is_node(element)),
            ExprKind::Call { function, args } => {
                matches!(function.name.as_str(), "neighbours" | "closed")
                    && args.len() == 2
                    && self.is_region(&args[0])
                    && self.is_node(&args[1])
            }
            ExprKind::Binary(BinaryOp::Add | BinaryOp::BitOr, left, right) => {
                self.local(left) && self.local(right)
            }
            ExprKind::Binary(BinaryOp::BitAnd, left, right) => {
                (self.local(left) && (self.local(right) || self.is_region(right)))
                    || (self.is_region(left) && self.local(right))
            }
            ExprKind::Binary(BinaryOp::Sub, left, right) => self.local(left) && self.local(right),
            _ => false,
        }
    }

    /// `s - L` (or `s - L1 - L2`): the region less a local set.
    fn rest(&self, expr: &Expr) -> bool {
        match &expr.kind {
            ExprKind::Binary(BinaryOp::Sub, left, right) => {
                (self.is_region(left) || self.rest(left)) && self.local(right)
            }
            _ => false,
        }
    }

    /// Reads no node and not the region.
    fn free(&self, expr: &Expr) -> bool {
        let mut free = true;
        visit_vars(expr, &mut |name| {
            free &= matches!(self.names.get(name), None | Some(Name::Plain));
        });
        free
    }

    /// An expression that must read no node and not the region.
    fn plain(&mut self, expr: &Expr) {
        if self.free(expr) {
            return;
        }
        match &expr.kind {
            ExprKind::Var(_) if self.is_node(expr) => {
                self.numbering(expr.span, "a node's number used as an integer")
            }
            ExprKind::Binary(_, left, right) => {
                self.plain(left);
                self.plain(right);
            }
            ExprKind::Unary(_, operand) => self.plain(operand),
            // `min(a, b)`, `[a, b][0]`: nodes, and nothing of the region.
            _ if !self.reads_sets(expr) => {
                self.numbering(expr.span, "a node's number used as an integer")
            }
            _ => self.not_local(expr.span, "this reads the region outside one part"),
        }
    }

    /// Reads the region or a set of nodes.
    fn reads_sets(&self, expr: &Expr) -> bool {
        let mut reads = false;
        visit_vars(expr, &mut |name| {
            reads |= matches!(self.names.get(name), Some(Name::Region | Name::Local));
        });
        reads
    }

    fn condition(&mut self, expr: &Expr) {
        if self.free(expr) {
            return;
        }
        match &expr.kind {
            ExprKind::Binary(BinaryOp::And | BinaryOp::Or, left, right) => {
                self.condition(left);
                self.condition(right);
            }
            ExprKind::Unary(ast::UnaryOp::Not, operand) => self.condition(operand),
            ExprKind::Binary(BinaryOp::Eq | BinaryOp::Ne, left, right)
                if (self.is_node(left) && self.is_node(right))
                    || (self.local(left) && self.local(right)) => {}
            ExprKind::Binary(BinaryOp::In, left, right)
                if self.is_node(left) && (self.local(right) || self.is_region(right)) => {}
            ExprKind::Binary(
                BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge,
                left,
                right,
            ) if self.is_node(left) && self.is_node(right) => {
                if self.pair != Some(expr.span) {
                    self.numbering(expr.span, "an order of nodes by their numbers");
                }
            }
            ExprKind::Binary(_, left, right) => {
                self.count(left);
                self.count(right);
            }
            _ => self.plain(expr),
        }
    }

    /// An integer in a condition or a term: plain, or counting the nodes
    /// of local sets.
    fn count(&mut self, expr: &Expr) {
        match &expr.kind {
            ExprKind::Call { function, args }
                if function.name == "len" && args.len() == 1 && self.local(&args[0]) => {}
            ExprKind::Binary(_, left, right) if !self.free(expr) => {
                self.count(left);
                self.count(right);
            }
            _ => self.plain(expr),
        }
    }

    fn target(&mut self, sum: &Sum) {
        let mut rests = 0;
        for term in &sum.terms {
            match term {
                Term::Game { name, args, span } => {
                    let own = name.name == self.decl.name.name;
                    let [first, others @ ..] = args.as_slice() else {
                        continue;
                    };
                    if own && self.rest(first) {
                        rests += 1;
                        let unchanged = others.iter().zip(&self.decl.params[1..]).all(
                            |(arg, param)| matches!(&arg.kind, ExprKind::Var(v) if v.name == param.name),
                        );
                        if !unchanged {
                            self.not_local(*span, "the parameters past the region change");
                        }
                    } else if !self.local(first) {
                        self.plain(first);
                        if !self.free(first) {
                            continue;
                        }
                    }
                    others.iter().for_each(|arg| self.count(arg));
                }
                // `*len(closed(s, v))`: the same in the part as in the
                // whole region, whatever the numbering.
                Term::Heap { size, .. } => self.count(size),
                Term::NodeAt { index, .. } => self.plain(index),
                Term::Node { .. } | Term::Name(_) => {}
                Term::Group(_) | Term::Over { .. } => {
                    let mut free = true;
                    visit_term_vars(term, &mut |name| {
                        free &= matches!(self.names.get(name), None | Some(Name::Plain))
                    });
                    if !free {
                        self.not_local(sum.span, "a move must leave one term `G(s - …)`");
                    }
                }
            }
        }
        if rests != 1 {
            self.not_local(
                sum.span,
                "a move must leave the same game on the region less nodes near one node, once",
            );
        }
    }
}

/// Calls `f` with the name of every variable an expression reads.
fn visit_vars<'a>(expr: &'a Expr, f: &mut dyn FnMut(&'a str)) {
    visit_expr(expr, &mut |reference| {
        if let Reference::Var(name) = reference {
            f(name)
        }
    });
}

/// Calls `f` with every variable and bare name a term reads (not the
/// games and graphs it names).
fn visit_term_vars<'a>(term: &'a Term, f: &mut dyn FnMut(&'a str)) {
    visit_term(term, &mut |reference| {
        if let Reference::Var(name) | Reference::Name(name) = reference {
            f(name)
        }
    });
}

/// The span of a rule's comparison `a < b` (or `>`, `<=`, `>=`) that
/// names each unordered pair of nodes once: `b` bound among the
/// `neighbours` (or `closed`) of `a`, which is bound over the region, and
/// the target and the other conditions the same with the two swapped.
fn pair_order(rule: &MoveRule) -> Option<SourceSpan> {
    let guard = rule.guard.as_ref()?;
    let mut conditions = Vec::new();
    conjuncts(guard, &mut conditions);
    let (index, x, y, span) = conditions
        .iter()
        .enumerate()
        .find_map(|(index, condition)| {
            let ExprKind::Binary(
                BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge,
                left,
                right,
            ) = &condition.kind
            else {
                return None;
            };
            let (ExprKind::Var(a), ExprKind::Var(b)) = (&left.kind, &right.kind) else {
                return None;
            };
            Some((index, a.name.as_str(), b.name.as_str(), condition.span))
        })?;
    let place = |name: &str| rule.bindings.iter().position(|b| b.var.name == name);
    let (first, second) = match (place(x)?, place(y)?) {
        (i, j) if i < j => (i, j),
        (i, j) if j < i => (j, i),
        _ => return None,
    };
    let (earlier, later) = (&rule.bindings[first], &rule.bindings[second]);
    let (e, l) = (earlier.var.name.as_str(), later.var.name.as_str());
    let next_to = match &later.domain {
        Domain::Each(Expr {
            kind: ExprKind::Call { function, args },
            ..
        }) => {
            matches!(function.name.as_str(), "neighbours" | "closed")
                && matches!(&args[..], [_, Expr { kind: ExprKind::Var(v), .. }] if v.name == e)
        }
        _ => false,
    };
    let swap = Swap { a: e, b: l };
    let others = rule
        .bindings
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != first && i != second);
    let unswapped = Swap { a: "", b: "" };
    if !next_to
        || earlier.stop.is_some()
        || later.stop.is_some()
        || others
            .clone()
            .any(|(_, b)| b.var.name == e || b.var.name == l)
    {
        return None;
    }
    // Bindings other than the pair must read neither.
    let mut reads = false;
    for (_, binding) in others {
        visit_bindings(std::slice::from_ref(binding), None, &mut |reference| {
            reads |= reference == Reference::Var(e) || reference == Reference::Var(l);
        });
    }
    if reads {
        return None;
    }
    let written = |swap: &Swap| {
        let mut rest: Vec<String> = conditions
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != index)
            .map(|(_, condition)| canon(condition, swap))
            .collect();
        rest.sort();
        (rest, sum_canon(&rule.target, swap))
    };
    (written(&unswapped) == written(&swap)).then_some(span)
}

fn conjuncts<'e>(expr: &'e Expr, into: &mut Vec<&'e Expr>) {
    match &expr.kind {
        ExprKind::Binary(BinaryOp::And, left, right) => {
            conjuncts(left, into);
            conjuncts(right, into);
        }
        _ => into.push(expr),
    }
}

/// Exchanges two names (none, when both are empty).
struct Swap<'a> {
    a: &'a str,
    b: &'a str,
}

impl Swap<'_> {
    fn name(&self, name: &str) -> String {
        if !self.a.is_empty() && name == self.a {
            self.b.to_string()
        } else if !self.b.is_empty() && name == self.b {
            self.a.to_string()
        } else {
            name.to_string()
        }
    }

    fn touches(&self, name: &str) -> bool {
        !name.is_empty() && (name == self.a || name == self.b)
    }
}

/// An expression written out with `swap` applied, the operands of
/// operations that commute, the elements of sets and the subtrahends of a
/// chain of `-` in a fixed order: two expressions written out alike have
/// the same value.
fn canon(expr: &Expr, swap: &Swap) -> String {
    match &expr.kind {
        ExprKind::Int(value) => value.to_string(),
        ExprKind::Bool(value) => value.to_string(),
        ExprKind::Var(var) => format!("${}", swap.name(&var.name)),
        ExprKind::Node { graph, node } => format!("{}.{}", graph.name, node.name),
        ExprKind::Call { function, args } => {
            let args: Vec<String> = args.iter().map(|arg| canon(arg, swap)).collect();
            format!("{}({})", function.name, args.join(","))
        }
        ExprKind::Unary(op, operand) => format!("({op:?} {})", canon(operand, swap)),
        ExprKind::Binary(BinaryOp::Sub, _, _) => {
            // a - b - c: the subtrahends in any order.
            let mut subtrahends = Vec::new();
            let mut base = expr;
            while let ExprKind::Binary(BinaryOp::Sub, left, right) = &base.kind {
                subtrahends.push(canon(right, swap));
                base = left;
            }
            subtrahends.sort();
            format!("({} - {})", canon(base, swap), subtrahends.join(" - "))
        }
        ExprKind::Binary(op, left, right) => {
            let mut sides = [canon(left, swap), canon(right, swap)];
            if matches!(
                op,
                BinaryOp::Add
                    | BinaryOp::Mul
                    | BinaryOp::Eq
                    | BinaryOp::Ne
                    | BinaryOp::And
                    | BinaryOp::Or
                    | BinaryOp::BitAnd
                    | BinaryOp::BitOr
                    | BinaryOp::BitXor
            ) {
                sides.sort();
            }
            format!("({} {op:?} {})", sides[0], sides[1])
        }
        ExprKind::If(condition, then, otherwise) => format!(
            "(if {} {} {})",
            canon(condition, swap),
            canon(then, swap),
            canon(otherwise, swap)
        ),
        ExprKind::Elements { list, elements } => {
            let mut elements: Vec<String> = elements.iter().map(|e| canon(e, swap)).collect();
            if !list {
                elements.sort();
            }
            format!("{}{}]", if *list { "[" } else { "{[" }, elements.join(","))
        }
        ExprKind::Index(list, index) => format!("{}[{}]", canon(list, swap), canon(index, swap)),
        ExprKind::Comprehension { .. } => {
            let mut touched = false;
            visit_vars(expr, &mut |name| touched |= swap.touches(name));
            binder(&format!("{:?}", expr.kind), touched)
        }
    }
}

/// What binds variables of its own (a comprehension, a sum over bindings),
/// written out as it is, without its places. A swap is not carried into
/// it: one that reads a swapped name is marked, so that it never compares
/// equal to itself swapped.
fn binder(debug: &str, touched: bool) -> String {
    // Spans print as `SourceSpan { offset: SourceOffset(N), length: M }`.
    let mut text = String::with_capacity(debug.len());
    let mut rest = debug;
    while let Some(start) = rest.find("SourceSpan {") {
        text.push_str(&rest[..start]);
        rest = rest[start..]
            .find('}')
            .map_or("", |end| &rest[start + end + 1..]);
    }
    text.push_str(rest);
    if touched {
        text.push_str("#swapped");
    }
    text
}

fn sum_canon(sum: &Sum, swap: &Swap) -> String {
    let mut terms: Vec<String> = sum
        .terms
        .iter()
        .map(|term| term_canon(term, swap))
        .collect();
    terms.sort();
    terms.join(" + ")
}

fn term_canon(term: &Term, swap: &Swap) -> String {
    match term {
        Term::Game { name, args, .. } => {
            let args: Vec<String> = args.iter().map(|arg| canon(arg, swap)).collect();
            format!("{}({})", name.name, args.join(","))
        }
        Term::Heap { size, .. } => format!("*{}", canon(size, swap)),
        Term::Node { graph, node } => format!("{}.{}", graph.name, node.name),
        Term::NodeAt { graph, index, .. } => format!("{}.({})", graph.name, canon(index, swap)),
        Term::Name(name) => name.name.clone(),
        Term::Group(sum) => format!("({})", sum_canon(sum, swap)),
        Term::Over { .. } => {
            let mut touched = false;
            visit_term_vars(term, &mut |name| touched |= swap.touches(name));
            binder(&format!("{term:?}"), touched)
        }
    }
}
