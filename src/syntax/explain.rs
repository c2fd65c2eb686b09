//! pest's errors told in the language's words: what was expected, named as
//! a user knows it, what was found, and a help line that fits.

use super::*;

/// Tokens whose identity matters to the tree (which operator, which query).
pub(super) fn meaningful_token(rule: Rule) -> bool {
    matches!(
        rule,
        Rule::kw_grundy
            | Rule::kw_wins
            | Rule::kw_best_move
            | Rule::kw_moves
            | Rule::kw_play
            | Rule::kw_crosscheck
            | Rule::kw_genus
            | Rule::kw_misere
            | Rule::kw_draw
            | Rule::kw_plot
            | Rule::kw_nim
            | Rule::kw_why
            | Rule::kw_strategy
            | Rule::game_times
            | Rule::kw_remoteness
            | Rule::kw_period
            | Rule::kw_quotient
            | Rule::kw_diff
            | Rule::kw_equal
            | Rule::kw_all_but
            | Rule::kw_true
            | Rule::kw_false
            | Rule::range_inclusive
            | Rule::range_exclusive
    )
}

/// How a rule is named to a user.
pub(super) enum Name {
    /// A literal token, shown in backticks.
    Token(&'static str),
    /// A construct, described in words.
    Phrase(&'static str),
}

/// Names every grammar rule in the words of the language's users. The match
/// is exhaustive so that a new rule must be given a name.
pub(super) fn name(rule: Rule) -> Name {
    use Name::{Phrase, Token};
    match rule {
        Rule::EOI => Phrase("end of input"),
        Rule::WHITESPACE => Phrase("white space"),
        Rule::COMMENT => Phrase("a comment"),
        Rule::program | Rule::statement => Phrase("a declaration or a query"),
        Rule::position_input => Phrase("a position"),
        Rule::game_decl => Phrase("a game declaration"),
        Rule::params => Phrase("parameters"),
        Rule::move_rule => Phrase("a `move` rule"),
        Rule::graph_decl => Phrase("a graph declaration"),
        Rule::edges => Phrase("an edge"),
        Rule::family_decl => Phrase("a family of graphs"),
        Rule::family_nodes => Phrase("the nodes of a family, `nodes 0..N`"),
        Rule::edge_rule => Phrase("a rule `edge A -- B for …`"),
        Rule::edge_end => Phrase("an expression"),
        Rule::kw_nodes => Token("nodes"),
        Rule::kw_edge => Token("edge"),
        Rule::bare_arrow => Token("->"),
        Rule::targets => Phrase("the nodes an edge moves to"),
        Rule::node => Phrase("a node name"),
        Rule::node_at => Phrase("a node named by an expression, `.(x)`"),
        Rule::let_decl => Phrase("a `let` declaration"),
        Rule::query | Rule::query_kind => Phrase("a query"),
        Rule::period_query => Phrase("a `period` query"),
        Rule::quotient_query => Phrase("a `quotient` query"),
        Rule::diff_query => Phrase("a `diff` query"),
        Rule::equal_query => Phrase("an `equal?` query"),
        Rule::code => Phrase("a game code"),
        Rule::octal | Rule::hexadecimal => Phrase("a take-and-break code"),
        Rule::subtraction => Phrase("a subtraction set"),
        Rule::integer_set => Phrase("a set of integers"),
        Rule::string => Phrase("a quoted string"),
        Rule::destination => Phrase("`to \"FILE\"`"),
        Rule::draw_query => Phrase("a `draw` query"),
        Rule::plot_query => Phrase("a `plot` query"),
        Rule::nim_query => Phrase("a `nim` query"),
        Rule::bindings => Phrase("`for` bindings"),
        Rule::binding => Phrase("a binding `x in …`"),
        Rule::domain => Phrase("a range or a set"),
        Rule::subsets => Phrase("`subsets(s, k)`"),
        Rule::under => Phrase("`under(l)`"),
        Rule::alias => Phrase("`= POSITION`"),
        Rule::splits => Phrase("`splits`"),
        Rule::up_to_symmetry => Token("up to symmetry"),
        Rule::statement_start => Phrase("the next statement"),
        Rule::if_expr => Phrase("`if … then … else …`"),
        Rule::node_value => Phrase("a graph node"),
        Rule::set_expr => Phrase("a set"),
        Rule::list_expr => Phrase("a list"),
        Rule::postfix | Rule::index => Phrase("an index `[i]`"),
        Rule::bit_and => Token("&"),
        Rule::bit_or => Token("|"),
        Rule::bit_xor => Token("^"),
        Rule::shl => Token("<<"),
        Rule::shr => Token(">>"),
        Rule::bit_not => Token("~"),
        Rule::kw_then => Token("then"),
        Rule::kw_else => Token("else"),
        Rule::kw_splits => Token("splits"),
        Rule::undirected => Token("--"),
        Rule::lbracket => Token("["),
        Rule::rbracket => Token("]"),
        Rule::divisors => Phrase("`divisors(n)`"),
        Rule::range => Phrase("a range"),
        Rule::stop => Phrase("a `while` condition"),
        Rule::set => Phrase("a set"),
        Rule::guard => Phrase("an `if` condition"),
        Rule::sum | Rule::let_sum | Rule::term => Phrase("a position"),
        Rule::game_term => Phrase("a game position"),
        Rule::heap => Phrase("a Nim heap"),
        Rule::node_ref => Phrase("a graph node"),
        Rule::group => Phrase("a parenthesised sum"),
        Rule::name_ref => Phrase("a name"),
        Rule::expr | Rule::primary | Rule::paren | Rule::var => Phrase("an expression"),
        Rule::call => Phrase("a function call"),
        Rule::prefix => Phrase("`-` or `not`"),
        Rule::infix => Phrase("an operator"),
        Rule::ident | Rule::ident_char => Phrase("a name"),
        Rule::integer => Phrase("an integer"),
        Rule::keyword => Phrase("a keyword"),
        Rule::neg | Rule::sub => Token("-"),
        Rule::add | Rule::plus => Token("+"),
        Rule::mul | Rule::star => Token("*"),
        Rule::pow => Token("**"),
        Rule::kw_while => Token("while"),
        Rule::div => Token("/"),
        Rule::rem => Token("%"),
        Rule::eq => Token("=="),
        Rule::ne => Token("!="),
        Rule::le => Token("<="),
        Rule::lt => Token("<"),
        Rule::ge => Token(">="),
        Rule::gt => Token(">"),
        Rule::kw_game => Token("game"),
        Rule::kw_graph => Token("graph"),
        Rule::kw_move => Token("move"),
        Rule::kw_let => Token("let"),
        Rule::kw_for => Token("for"),
        Rule::kw_in => Token("in"),
        Rule::kw_if => Token("if"),
        Rule::kw_and => Token("and"),
        Rule::kw_or => Token("or"),
        Rule::kw_not => Token("not"),
        Rule::kw_true => Token("true"),
        Rule::kw_false => Token("false"),
        Rule::kw_grundy => Token("grundy"),
        Rule::kw_wins => Token("wins?"),
        Rule::kw_best_move => Token("best_move"),
        Rule::kw_moves => Token("moves"),
        Rule::kw_play => Token("play"),
        Rule::kw_crosscheck => Token("crosscheck"),
        Rule::kw_remoteness => Token("remoteness"),
        Rule::kw_genus => Token("genus"),
        Rule::kw_draw => Token("draw"),
        Rule::kw_plot => Token("plot"),
        Rule::kw_nim => Token("nim"),
        Rule::kw_why => Token("why"),
        Rule::kw_strategy => Token("strategy"),
        Rule::kw_coins => Token("coins"),
        Rule::kw_turn => Token("turn"),
        Rule::kw_product => Token("product"),
        Rule::coins => Phrase("a coin-turning game `coins(n) { turn … }`"),
        Rule::turn_rule => Phrase("a rule `turn SET for …`"),
        Rule::product => Phrase("a product `product A B`"),
        Rule::game_times => Token("*"),
        Rule::kw_to => Token("to"),
        Rule::kw_misere => Token("misere"),
        Rule::kw_period => Token("period"),
        Rule::kw_quotient => Token("quotient"),
        Rule::kw_up => Token("up"),
        Rule::kw_diff => Token("diff"),
        Rule::kw_equal => Token("equal?"),
        Rule::kw_octal => Token("octal"),
        Rule::kw_hexadecimal => Token("hexadecimal"),
        Rule::kw_subtraction => Token("subtraction"),
        Rule::kw_all_but => Token("all but"),
        Rule::lparen => Token("("),
        Rule::rparen => Token(")"),
        Rule::lbrace => Token("{"),
        Rule::rbrace => Token("}"),
        Rule::comma => Token(","),
        Rule::arrow => Token("->"),
        Rule::assign => Token("="),
        Rule::dot => Token("."),
        Rule::range_inclusive => Token("..="),
        Rule::range_exclusive => Token(".."),
    }
}

pub(super) fn describe(rule: Rule) -> String {
    match name(rule) {
        Name::Token(token) => format!("`{token}`"),
        Name::Phrase(phrase) => phrase.to_owned(),
    }
}

/// "a", "a or b", "a, b or c".
pub(super) fn one_of(words: &[String]) -> String {
    match words {
        [] => "something else".to_owned(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// Translates a pest error: its position, its expected rules named in words,
/// what was found there, and a help line for the construct that failed.
pub(super) fn syntax_error(
    error: &pest::error::Error<Rule>,
    text: &str,
    base: usize,
) -> ParseError {
    let position = match error.location {
        InputLocation::Pos(position) => position,
        InputLocation::Span((start, _)) => start,
    };
    let found = found_at(text, position);
    let span = SourceSpan::new(
        (base + position).into(),
        found.len().min(text.len() - position),
    );
    match &error.variant {
        ErrorVariant::ParsingError { positives, .. } => {
            let mut expected: Vec<String> = Vec::new();
            for rule in positives {
                let word = describe(*rule);
                if !expected.contains(&word) {
                    expected.push(word);
                }
            }
            let expected = operators_as_one(expected);
            let at_end = text[position..].trim().is_empty();
            let closes_block = positives.contains(&Rule::rbrace);
            let before_next = at_end || STATEMENT_WORDS.contains(&found);
            if closes_block
                && before_next
                && let Some(open) = unclosed_brace(&text[..position])
            {
                return ParseError::Unclosed {
                    open: SourceSpan::new((base + open).into(), 1),
                    span,
                    found: match at_end {
                        true => "the end of the input".to_owned(),
                        false => format!("`{found}`"),
                    },
                    at_end,
                };
            }
            let after = |c: char| text[..position].trim_end().ends_with(c);
            let help = match found {
                "=" if positives.contains(&Rule::eq) => {
                    "use `==` to compare; a rule's condition reads `if k == 1`".to_owned()
                }
                "&" if after('&') => {
                    "conditions join with `and`: `if k != 2 and k != 5` (`&` is bitwise and)"
                        .to_owned()
                }
                "|" if after('|') => {
                    "conditions join with `or`: `if k == 1 or k == 4` (`|` is bitwise or)"
                        .to_owned()
                }
                "!" => "a condition is negated with `not`: `if not (k in S)`".to_owned(),
                "(" if line_before(text, position).trim_start().starts_with("plot ") => {
                    "`plot` takes a game's name alone, as in `plot Kayles for n in 0..=30`; to plot a family of positions such as boards, declare it as a game of n, `game Row(n) = Cram(Grid(2, n))`, and plot that: `plot Row for n in 1..=8`".to_owned()
                }
                word if [Rule::statement, Rule::program, Rule::query, Rule::game_decl]
                    .iter()
                    .any(|rule| positives.contains(rule)) =>
                {
                    match closest_word(word) {
                        Some(keyword) => format!("did you mean `{keyword}`?"),
                        None => help_for(positives),
                    }
                }
                _ => help_for(positives),
            };
            ParseError::Syntax {
                help,
                expected: one_of(&expected),
                found: if at_end {
                    "end of input".to_owned()
                } else {
                    format!("`{found}`")
                },
                span,
                at_end,
            }
        }
        ErrorVariant::CustomError { .. } => ParseError::TooDeep { span },
    }
}

/// The binary operators, as [`describe`] names them.
const OPERATORS: &[&str] = &[
    "`+`", "`-`", "`**`", "`*`", "`/`", "`%`", "`==`", "`!=`", "`<=`", "`<`", "`>=`", "`>`", "`&`",
    "`|`", "`^`", "`<<`", "`>>`", "`and`", "`or`",
];

/// The expected words with the binary operators, when there are several,
/// named once as "an operator" where the first stood: after an operand
/// every operator may follow, and a list of all of them (two dozen words)
/// hides the few others that say what was meant.
fn operators_as_one(expected: Vec<String>) -> Vec<String> {
    let operators = expected
        .iter()
        .filter(|word| OPERATORS.contains(&word.as_str()))
        .count();
    if operators < 4 {
        return expected;
    }
    let mut named = false;
    let mut words = Vec::new();
    for word in expected {
        match OPERATORS.contains(&word.as_str()) {
            false => words.push(word),
            true if !named => {
                named = true;
                words.push("an operator".to_owned());
            }
            true => {}
        }
    }
    words
}

/// The words a statement starts with.
pub(super) const STATEMENT_WORDS: &[&str] = &[
    "game",
    "graph",
    "let",
    "grundy",
    "wins",
    "best_move",
    "moves",
    "play",
    "crosscheck",
    "remoteness",
    "period",
    "draw",
    "plot",
    "genus",
    "diff",
    "equal",
];

/// The statement word a mistyped word was most likely meant to be
/// (`win` for `wins?`).
pub(super) fn closest_word(word: &str) -> Option<String> {
    if word.is_empty() || STATEMENT_WORDS.contains(&word) {
        return None;
    }
    STATEMENT_WORDS
        .iter()
        .map(|keyword| (strsim::damerau_levenshtein(word, keyword), keyword))
        .filter(|&(distance, keyword)| distance <= (keyword.len() / 3).max(1))
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, keyword)| match *keyword {
            "wins" | "equal" => format!("{keyword}?"),
            keyword => keyword.to_owned(),
        })
}

/// The offset of the last `{` in `text` that no `}` closes, comments
/// skipped.
pub(super) fn unclosed_brace(text: &str) -> Option<usize> {
    let mut open = Vec::new();
    for line_start in std::iter::once(0).chain(text.match_indices('\n').map(|(at, _)| at + 1)) {
        let line = &text[line_start..];
        let line = &line[..line.find('\n').unwrap_or(line.len())];
        let code = &line[..line.find('#').unwrap_or(line.len())];
        for (at, c) in code.char_indices() {
            match c {
                '{' => open.push(line_start + at),
                '}' => {
                    open.pop();
                }
                _ => {}
            }
        }
    }
    open.pop()
}

/// The token at `position`: a word, a number or one character.
pub(super) fn found_at(text: &str, position: usize) -> &str {
    let rest = &text[position..];
    let word = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    match word {
        0 => rest
            .char_indices()
            .nth(1)
            .map_or(rest, |(end, _)| &rest[..end]),
        _ => &rest[..word],
    }
}

/// The text of the line `position` lies on, up to `position`.
fn line_before(text: &str, position: usize) -> &str {
    let start = text[..position]
        .rfind('\n')
        .map_or(0, |newline| newline + 1);
    &text[start..position]
}

pub(super) fn help_for(positives: &[Rule]) -> String {
    let wants = |rules: &[Rule]| positives.iter().any(|rule| rules.contains(rule));
    if wants(&[
        Rule::game_term,
        Rule::heap,
        Rule::node_ref,
        Rule::name_ref,
        Rule::sum,
        Rule::let_sum,
    ]) {
        "a position is `Name(args)`, `*n`, `Graph.node`, a `let` name, or a sum of these joined by `+`".into()
    } else if wants(&[
        Rule::expr,
        Rule::integer,
        Rule::var,
        Rule::call,
        Rule::paren,
    ]) {
        "an expression is an integer, a variable, `min`/`max`/`abs(…)`, or operators such as `n - k`".into()
    } else if wants(&[
        Rule::game_decl,
        Rule::query,
        Rule::let_decl,
        Rule::graph_decl,
    ]) {
        "a statement starts with `game`, `graph`, `let` or a query such as `grundy`, `wins?` or `best_move`".into()
    } else if wants(&[
        Rule::family_nodes,
        Rule::kw_nodes,
        Rule::edge_rule,
        Rule::kw_edge,
    ]) {
        "a family of graphs reads `graph Name(n) { nodes 0..n  edge i -- i + 1 for i in 0..n - 1 }`"
            .into()
    } else if wants(&[Rule::arrow, Rule::node, Rule::edges]) {
        "a graph line reads `node -> other, another`".into()
    } else {
        "check the words and punctuation of this line against the reference".into()
    }
}
