//! Errors found while checking a program, before anything is evaluated.

use miette::{Diagnostic, SourceSpan};
use thiserror::Error;

#[derive(Debug, Clone, Error, Diagnostic, PartialEq, Eq)]
pub enum CheckError {
    #[error("unknown game `{name}`")]
    #[diagnostic(code(sprague::check::unknown_game), help("{help}"))]
    UnknownGame {
        name: String,
        #[label("no game is declared with this name")]
        span: SourceSpan,
        help: String,
    },

    #[error("unknown graph `{name}`")]
    #[diagnostic(code(sprague::check::unknown_graph), help("{help}"))]
    UnknownGraph {
        name: String,
        #[label("no graph is declared with this name")]
        span: SourceSpan,
        help: String,
    },

    #[error("graph `{graph}` has no node `{node}`")]
    #[diagnostic(code(sprague::check::unknown_node), help("{help}"))]
    UnknownNode {
        graph: String,
        node: String,
        #[label("not a node of `{graph}`")]
        span: SourceSpan,
        help: String,
    },

    #[error("unknown variable `{name}`")]
    #[diagnostic(code(sprague::check::unknown_variable), help("{help}"))]
    UnknownVariable {
        name: String,
        #[label("not a parameter or a bound variable here")]
        span: SourceSpan,
        help: String,
    },

    #[error("unknown name `{name}`")]
    #[diagnostic(code(sprague::check::unknown_name), help("{help}"))]
    UnknownName {
        name: String,
        #[label("no `let`, game or graph has this name")]
        span: SourceSpan,
        help: String,
    },

    #[error("unknown function `{name}`")]
    #[diagnostic(
        code(sprague::check::unknown_function),
        help("the functions are `min(a, b, …)`, `max(a, b, …)`, `abs(a)` and `isqrt(a)`")
    )]
    UnknownFunction {
        name: String,
        #[label("not a function")]
        span: SourceSpan,
    },

    #[error("unknown board `{name}`")]
    #[diagnostic(code(sprague::check::unknown_family), help("{help}"))]
    UnknownFamily {
        name: String,
        #[label("no family of graphs has this name")]
        span: SourceSpan,
        help: String,
    },

    #[error("a family of graphs builds a board of another family: `{name}`")]
    #[diagnostic(
        code(sprague::check::family_in_family),
        help("a family's rules speak of integers: write the other family's edges out in this one")
    )]
    FamilyInFamily {
        name: String,
        #[label("a board of a family, inside a family")]
        span: SourceSpan,
    },

    #[error("`{name}` takes {expected}, but {found} {were} given")]
    #[diagnostic(code(sprague::check::arity), help("{help}"))]
    Arity {
        name: String,
        expected: String,
        found: usize,
        were: &'static str,
        #[label(primary, "{found} given here")]
        span: SourceSpan,
        #[label("`{name}` declared here")]
        declared: Option<SourceSpan>,
        help: String,
    },

    #[error("`{name}` is declared twice")]
    #[diagnostic(
        code(sprague::check::duplicate_declaration),
        help("games, graphs and `let` names share one namespace: rename one of them")
    )]
    Duplicate {
        name: String,
        #[label(primary, "declared again here")]
        span: SourceSpan,
        #[label("first declared here")]
        first: SourceSpan,
    },

    #[error("`{name}` is bound twice")]
    #[diagnostic(
        code(sprague::check::duplicate_variable),
        help("parameters and bound variables in one rule need distinct names")
    )]
    DuplicateVariable {
        name: String,
        #[label(primary, "bound again here")]
        span: SourceSpan,
        #[label("first bound here")]
        first: SourceSpan,
    },

    #[error("`{name}` is {actual}, not {wanted}")]
    #[diagnostic(code(sprague::check::wrong_kind), help("{help}"))]
    WrongKind {
        name: String,
        actual: &'static str,
        wanted: &'static str,
        #[label(primary, "used as {wanted} here")]
        span: SourceSpan,
        #[label("declared as {actual} here")]
        declared: SourceSpan,
        help: String,
    },

    #[error("`{name}` is used before its declaration")]
    #[diagnostic(code(sprague::check::let_before_declaration))]
    LetBeforeDeclaration {
        name: String,
        #[label(primary, "used here")]
        span: SourceSpan,
        #[label("declared here")]
        declared: SourceSpan,
        #[help]
        help: String,
    },

    #[error("this sum has {components} components, more than the {} a sum may have", crate::eval::grouped(.limit))]
    #[diagnostic(
        code(sprague::check::sum_too_large),
        help(
            "a `let` used twice in another doubles it; write the sum with fewer components (two equal components cancel: G + G = *0)"
        )
    )]
    SumTooLarge {
        components: String,
        limit: u128,
        #[label("this sum is too large")]
        span: SourceSpan,
    },

    #[error("an open range needs a `while` to end it")]
    #[diagnostic(
        code(sprague::check::open_range),
        help("write the end (`k in 1..=n`), or stop early: `k in 1.. while k * k <= n`")
    )]
    OpenRange {
        #[label("this binding has no end")]
        span: SourceSpan,
    },

    #[error("malformed code: {problem}")]
    #[diagnostic(code(sprague::check::malformed_code), help("{help}"))]
    MalformedCode {
        problem: String,
        #[label("here")]
        span: SourceSpan,
        help: &'static str,
    },

    #[error("`{name}` has {params} parameters; {query} needs a game of one")]
    #[diagnostic(code(sprague::check::not_one_parameter), help("{help}"))]
    NotOneParameter {
        name: String,
        params: usize,
        query: &'static str,
        /// What the query is for, said to the user.
        help: &'static str,
        #[label("this game")]
        span: SourceSpan,
    },

    #[error(
        "`diff` needs one binding per parameter: `{a}` takes {arity}, and {bindings} {were} bound"
    )]
    #[diagnostic(
        code(sprague::check::diff_arity),
        help(
            "compare games of the same arity, binding each parameter: `diff A B for a in 0..10, b in 0..10`"
        )
    )]
    DiffArity {
        a: String,
        arity: usize,
        bindings: usize,
        were: &'static str,
        #[label("these games")]
        span: SourceSpan,
    },

    #[error(
        "`plot` draws games of one or two parameters, one binding each; `{name}` has {arity} and the plot binds {bindings}"
    )]
    #[diagnostic(
        code(sprague::check::plot_arity),
        help(
            "bind each parameter in order: `plot G for n in 0..=100`, or `plot W for a in 0..=20, b in 0..=20` (the second as colour)"
        )
    )]
    PlotArity {
        name: String,
        arity: usize,
        bindings: usize,
        #[label("this plot")]
        span: SourceSpan,
    },

    #[error("`{query}` has no misère form")]
    #[diagnostic(
        code(sprague::check::no_misere),
        help(
            "misère play is asked with `grundy misere P`, `wins? misere P`, `best_move misere P`, `moves misere P`, `crosscheck misere P` or `play misere P`; `genus P` gives a position's misère values"
        )
    )]
    NoMisere {
        query: &'static str,
        #[label("not with `{query}`")]
        span: SourceSpan,
    },

    #[error("heap {} is past the largest heap a quotient may reach, {}", crate::eval::grouped(.up_to), crate::eval::grouped(.limit))]
    #[diagnostic(
        code(sprague::check::quotient_too_far),
        help("a quotient is grown heap by heap; ask for one up to at most {}", crate::eval::grouped(.limit))
    )]
    QuotientTooFar {
        up_to: u64,
        limit: u64,
        #[label("this heap")]
        span: SourceSpan,
    },

    #[error("expected {expected}, found {found}")]
    #[diagnostic(code(sprague::check::type_mismatch), help("{help}"))]
    TypeMismatch {
        expected: &'static str,
        found: &'static str,
        #[label("this is {found}")]
        span: SourceSpan,
        help: &'static str,
    },

    #[error("a game that splits needs a parameter for its region")]
    #[diagnostic(
        code(sprague::check::splits_without_region),
        help(
            "declare the region first, `game NodeKayles(s) splits {{ … }}`: a position splits into the connected parts of its first argument"
        )
    )]
    SplitsWithoutRegion {
        #[label("this game has no parameters")]
        span: SourceSpan,
    },

    #[error("`{game}` splits, but its rule reads how the board's nodes are numbered")]
    #[diagnostic(
        code(sprague::check::node_numbering),
        help(
            "a game that splits is solved on each connected part, renumbered on a board of its own, so a rule may use its nodes only in sets, `neighbours`, `closed`, `in`, `==` and `!=`; `a < b` is allowed to name each pair once (`for a in s, b in neighbours(s, a) if a < b`, the target the same with a and b swapped). Drop `splits`, or write the rule without numbers"
        )
    )]
    NodeNumbering {
        game: String,
        what: &'static str,
        #[label("{what}")]
        span: SourceSpan,
    },

    #[error("`{game}` splits, but a move of its rule may reach beyond one connected part")]
    #[diagnostic(
        code(sprague::check::splits_not_local),
        help(
            "a game that splits is solved on each connected part alone, so each move must act near one node: bind `v in s`, then nodes among `neighbours(s, v)` or `closed(s, v)`, and move to `{game}(s - …)` less a set built from them (`{{a, b}}`, `closed(s, v)`); or drop `splits`"
        )
    )]
    SplitsNotLocal {
        game: String,
        what: &'static str,
        #[label("{what}")]
        span: SourceSpan,
    },

    #[error("`{name}` is not a coin-turning game")]
    #[diagnostic(
        code(sprague::check::not_coin_turning),
        help(
            "a product's factors are coin-turning games, declared `game {name} = coins(n) {{ turn SET for … }}`"
        )
    )]
    NotCoinTurning {
        name: String,
        #[label("a product of games that turn coins needs their turns")]
        span: SourceSpan,
    },

    #[error("the value of `{name}` cannot be worked out")]
    #[diagnostic(code(sprague::check::bad_value))]
    BadValue {
        name: String,
        #[source]
        #[diagnostic_source]
        error: crate::eval::EvalError,
    },
}

/// Every error found in one source, reported together.
#[derive(Debug, Clone, Error, Diagnostic, PartialEq, Eq)]
#[error("{} found while checking", crate::eval::count(errors.len(), "error", "errors"))]
#[diagnostic(
    code(sprague::check::errors),
    help("nothing was evaluated; fix these and run again")
)]
pub struct CheckErrors {
    #[related]
    pub errors: Vec<CheckError>,
}

/// Errors of one kind on one line (33 unknown nodes in one long sum),
/// reported once: the first one's message, help and labels.
#[derive(Debug, Error)]
#[error("{first} (and {} more like it on this line: {others})", count - 1)]
pub struct Grouped {
    first: CheckError,
    count: usize,
    /// What the others point at, as written.
    others: String,
    labels: Vec<miette::LabeledSpan>,
}

impl Diagnostic for Grouped {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.first.code()
    }

    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.first.help()
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        Some(Box::new(self.labels.iter().cloned()))
    }
}

/// Checking errors after grouping, reported together.
#[derive(Debug, Error, Diagnostic)]
#[error("{} found while checking", crate::eval::count(*count, "error", "errors"))]
#[diagnostic(
    code(sprague::check::errors),
    help("nothing was evaluated; fix these and run again")
)]
pub struct Reported {
    count: usize,
    #[related]
    errors: Vec<Box<dyn Diagnostic + Send + Sync>>,
}

/// How many errors of one kind on one line are reported one by one.
const ALONE: usize = 3;
/// How many of a group's other errors are named.
const SHOWN: usize = 10;

impl CheckErrors {
    /// The errors to report: those of one kind on one line (`line_of` says
    /// which line a span starts on) are grouped when there are more than a
    /// few, in the order their first members came.
    pub fn grouped<L: Eq + std::hash::Hash>(
        self,
        line_of: impl Fn(usize) -> L,
        text_of: impl Fn(SourceSpan) -> String,
    ) -> Reported {
        let count = self.errors.len();
        let key = |error: &CheckError| {
            let code = error.code().map(|code| code.to_string());
            let line = error
                .labels()
                .and_then(|mut labels| labels.next())
                .map(|label| line_of(label.offset()));
            (code, line)
        };
        let mut groups: indexmap::IndexMap<_, Vec<CheckError>> = indexmap::IndexMap::new();
        for error in self.errors {
            groups.entry(key(&error)).or_default().push(error);
        }
        let mut errors: Vec<Box<dyn Diagnostic + Send + Sync>> = Vec::new();
        for (_, group) in groups {
            if group.len() <= ALONE {
                errors.extend(group.into_iter().map(|error| Box::new(error) as _));
                continue;
            }
            // The first is pointed at; the rest are counted.
            let labels = group
                .iter()
                .take(1)
                .flat_map(|error| error.labels().into_iter().flatten())
                .collect();
            let mut others: Vec<String> = group[1..]
                .iter()
                .filter_map(|error| error.labels()?.next())
                .map(|label| format!("`{}`", text_of(*label.inner())))
                .take(SHOWN)
                .collect();
            if group.len() - 1 > SHOWN {
                others.push("…".to_owned());
            }
            let count = group.len();
            let first = group.into_iter().next().expect("a group has members");
            errors.push(Box::new(Grouped {
                first,
                count,
                others: others.join(", "),
                labels,
            }));
        }
        Reported { count, errors }
    }
}

impl From<crate::program::code::Malformed> for CheckError {
    fn from(malformed: crate::program::code::Malformed) -> Self {
        CheckError::MalformedCode {
            problem: malformed.problem,
            span: malformed.span,
            help: malformed.help,
        }
    }
}

pub(super) fn arity_error(
    name: &str,
    expected: usize,
    found: usize,
    span: SourceSpan,
    declared: Option<SourceSpan>,
) -> CheckError {
    let expected_words = match expected {
        0 => "no arguments".to_owned(),
        1 => "1 argument".to_owned(),
        n => format!("{n} arguments"),
    };
    CheckError::Arity {
        name: name.to_owned(),
        help: format!("write `{name}` with {expected_words}"),
        expected: expected_words,
        found,
        were: if found == 1 { "was" } else { "were" },
        span,
        declared,
    }
}
