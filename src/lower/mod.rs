//! Lowering: resolves names, checks arities and types, and compiles the
//! syntax tree into the [`program`](crate::program) the interpreter runs. Every error of a source
//! is collected and reported together; nothing is evaluated if one exists.

mod declarations;
mod error;
mod expressions;
mod splitting;
mod terms;

use std::collections::HashSet;

use miette::SourceSpan;

use crate::program::*;
use crate::syntax::ast;
use error::arity_error;
pub use error::{CheckError, CheckErrors};

/// The program `source` declares, for tests of what lowering makes of it.
#[cfg(test)]
pub(crate) fn lowered(source: &str) -> Program {
    let parsed = crate::syntax::parse(source, 0).expect("the source parses");
    let statements: Vec<_> = parsed.statements.iter().collect();
    let mut program = Program::default();
    lower(&mut program, &statements).expect("the source checks");
    program
}

/// Checks `statements` against the declarations already in `program`,
/// extends it with their declarations and returns their queries in order.
/// On an error the program is left as it was. It is extended in place, not
/// copied, so that a REPL entry costs what it declares, not what was
/// declared before it.
pub fn lower(
    program: &mut Program,
    statements: &[&ast::Statement],
) -> Result<Vec<Query>, CheckErrors> {
    let mark = program.mark();
    let (queries, errors) = lent(program, |lowerer| {
        let declared = lowerer.declare_all(statements);
        for (statement, kind) in statements.iter().zip(&declared) {
            match (statement, kind) {
                (ast::Statement::Let(decl), Some(DeclarationKind::Let(id))) => {
                    lowerer.let_decl(decl, *id)
                }
                (ast::Statement::Let(decl), Some(DeclarationKind::Constant(id))) => {
                    lowerer.constant(decl, *id)
                }
                (ast::Statement::Family(decl), Some(DeclarationKind::Family(id))) => {
                    lowerer.family_decl(decl, *id)
                }
                _ => {}
            }
        }
        for (statement, kind) in statements.iter().zip(&declared) {
            if let (ast::Statement::Game(decl), Some(DeclarationKind::Game(id))) = (statement, kind)
            {
                lowerer.game_decl(decl, *id);
            }
        }
        statements
            .iter()
            .filter_map(|statement| match statement {
                ast::Statement::Query(query) => Some(lowerer.query(query)),
                _ => None,
            })
            .collect()
    });
    match errors.is_empty() {
        true => Ok(queries),
        false => {
            program.rewind(mark);
            Err(CheckErrors { errors })
        }
    }
}

/// Lowers a position with no free variables, such as a move typed in play.
/// The program is lent to the lowering, not copied: a move typed in play
/// costs what it says, not what the session declared.
pub fn position(program: &mut Program, sum: &ast::Sum) -> Result<Vec<Term>, CheckErrors> {
    let mark = program.mark();
    let (terms, errors) = lent(program, |lowerer| lowerer.sum(sum, &Scope::default()));
    // A position declares nothing; whatever it might have is dropped.
    program.rewind(mark);
    match errors.is_empty() {
        true => Ok(terms),
        false => Err(CheckErrors { errors }),
    }
}

/// Runs `lowering` with the program lent to a lowerer, taken rather than
/// copied and handed back extended; what it gives, and the errors found.
fn lent<T>(
    program: &mut Program,
    lowering: impl FnOnce(&mut Lowerer) -> T,
) -> (T, Vec<CheckError>) {
    let mut lowerer = Lowerer::new(std::mem::take(program));
    let found = lowering(&mut lowerer);
    *program = lowerer.program;
    (found, lowerer.errors)
}

/// The name a declaration declares.
pub fn declared_name(statement: &ast::Statement) -> Option<&ast::Ident> {
    match statement {
        ast::Statement::Game(decl) => Some(&decl.name),
        ast::Statement::Graph(decl) => Some(&decl.name),
        ast::Statement::Family(decl) => Some(&decl.name),
        ast::Statement::Let(decl) => Some(&decl.name),
        ast::Statement::Query(_) => None,
    }
}

/// The declared names a declaration refers to: the games, graphs and
/// `let`s its positions and expressions mention.
pub fn references(statement: &ast::Statement) -> Vec<&str> {
    use ast::{Reference, visit_bindings, visit_expr, visit_sum};
    let mut names = Vec::new();
    let f = &mut |reference| match reference {
        Reference::Var(name)
        | Reference::Name(name)
        | Reference::Game(name)
        | Reference::Graph(name)
        | Reference::Call(name) => names.push(name),
    };
    match statement {
        ast::Statement::Game(decl) => match &decl.body {
            ast::GameBody::Rules { rules, .. } => rules.iter().for_each(|rule| {
                visit_sum(&rule.target, f);
                visit_bindings(&rule.bindings, rule.guard.as_ref(), f);
            }),
            ast::GameBody::Alias(sum) => visit_sum(sum, f),
            ast::GameBody::Code(_) => {}
            ast::GameBody::Coins(turns) => {
                for turn in turns {
                    visit_expr(&turn.set, f);
                    visit_bindings(&turn.bindings, turn.guard.as_ref(), f);
                }
            }
            ast::GameBody::Product(a, b) => {
                f(Reference::Game(&a.name));
                f(Reference::Game(&b.name));
            }
        },
        ast::Statement::Let(decl) => match &decl.value {
            ast::LetValue::Position(sum) => visit_sum(sum, f),
            ast::LetValue::Value(value) => visit_expr(value, f),
        },
        ast::Statement::Query(query) => match &query.target {
            ast::Target::Position(sum) => {
                visit_sum(sum, f);
                visit_bindings(&query.bindings, query.guard.as_ref(), f);
            }
            ast::Target::Positions(a, b) => {
                visit_sum(a, f);
                visit_sum(b, f);
            }
            ast::Target::Game(game) | ast::Target::Quotient { game, .. } => {
                f(Reference::Game(&game.name))
            }
            ast::Target::Games(a, b) => {
                f(Reference::Game(&a.name));
                f(Reference::Game(&b.name));
            }
            ast::Target::Nimber(value) => {
                visit_expr(value, f);
                visit_bindings(&query.bindings, query.guard.as_ref(), f);
            }
        },
        ast::Statement::Family(decl) => {
            let nodes = &decl.nodes;
            visit_expr(&nodes.start, f);
            visit_expr(&nodes.end, f);
            for edge in &decl.edges {
                visit_expr(&edge.from, f);
                visit_expr(&edge.to, f);
                visit_bindings(&edge.bindings, edge.guard.as_ref(), f);
            }
        }
        ast::Statement::Graph(_) => {}
    }
    names
}

/// What an expression gives, as far as checking can tell: a game's
/// parameters may hold any value but a condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Type {
    Int,
    Bool,
    Set,
    List,
    Region,
    Any,
    /// A mistyped operation, reported where it is found.
    Error,
}

impl Type {
    fn noun(self) -> &'static str {
        match self {
            Type::Int => "an integer",
            Type::Bool => "a condition",
            Type::Set => "a set",
            Type::List => "a list",
            Type::Region => "a region of a board",
            Type::Any | Type::Error => "a value",
        }
    }

    /// Whether a value of this type may stand where `expected` is asked.
    fn fits(self, expected: Type) -> bool {
        self == expected
            || (self == Type::Any && expected != Type::Bool)
            || (expected == Type::Any && self != Type::Bool)
    }

    /// Whether it holds integers one may iterate over.
    fn is_collection(self) -> bool {
        matches!(self, Type::Set | Type::List | Type::Region | Type::Any)
    }
}

/// The variables in scope, in slot order, with their types.
#[derive(Default, Clone)]
struct Scope {
    vars: Vec<ast::Ident>,
    types: Vec<Type>,
}

impl Scope {
    fn lookup(&self, name: &str) -> Option<usize> {
        self.vars.iter().rposition(|var| var.name == name)
    }
}

struct Lowerer {
    program: Program,
    errors: Vec<CheckError>,
    /// `let`s of this source whose value is not lowered yet: positions,
    /// and values (constants) by their own numbers.
    unlowered_lets: HashSet<u32>,
    unlowered_constants: HashSet<u32>,
    unlowered_families: HashSet<u32>,
    /// The name of the `let` being lowered.
    lowering: Option<String>,
    /// The most slots a scope has used since this was last reset.
    max_slots: usize,
    /// Whether a family of graphs is being lowered: its rules may not
    /// build boards of a family, so that building one never recurses.
    in_family: bool,
}

impl Lowerer {
    fn new(program: Program) -> Self {
        Lowerer {
            program,
            errors: Vec::new(),
            unlowered_lets: HashSet::new(),
            unlowered_constants: HashSet::new(),
            unlowered_families: HashSet::new(),
            lowering: None,
            max_slots: 0,
            in_family: false,
        }
    }
}
