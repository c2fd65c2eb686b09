//! Grammar rule tests: each rule consumes exactly the input given, or
//! rejects it; and the tree built from a few statements.

use super::*;

/// Whether `rule` matches all of `input` (not merely a prefix of it).
fn consumes(rule: Rule, input: &str) -> bool {
    Grammar::parse(rule, input)
        .ok()
        .and_then(|mut pairs| pairs.next())
        .is_some_and(|pair| pair.as_span().end() == input.len())
}

#[test]
fn identifiers_exclude_keywords_but_not_their_prefixes() {
    assert!(consumes(Rule::ident, "Kayles"));
    assert!(consumes(Rule::ident, "gamey"));
    assert!(consumes(Rule::ident, "_x1"));
    assert!(!consumes(Rule::ident, "game"));
    assert!(!consumes(Rule::ident, "for"));
    assert!(!consumes(Rule::ident, "1x"));
}

#[test]
fn ranges_and_sets() {
    assert!(consumes(Rule::range, "1..=n"));
    assert!(consumes(Rule::range, "0..=n - k"));
    assert!(consumes(Rule::range, "a..b"));
    assert!(consumes(Rule::set, "{1, 2, 3}"));
    assert!(consumes(Rule::set, "{}"));
    assert!(!consumes(Rule::range, "1...3"));
}

#[test]
fn bindings_list_several_variables() {
    assert!(consumes(Rule::bindings, "for k in 1..=2, a in 0..=n - k"));
    assert!(!consumes(Rule::bindings, "for k 1..=2"));
}

#[test]
fn sums_of_every_kind_of_term() {
    assert!(consumes(
        Rule::sum,
        "Nim(3) + *5 + Maze.start + heaps + (A(1) + *0)"
    ));
    assert!(consumes(Rule::sum, "*(n + 1)"));
    assert!(consumes(Rule::sum, "G.3"));
    assert!(!consumes(Rule::sum, "Nim(3) +"));
}

#[test]
fn a_heap_takes_a_primary_so_plus_joins_the_sum() {
    let sum = Grammar::parse(Rule::sum, "*3 + *5")
        .unwrap()
        .next()
        .unwrap();
    let terms: Vec<_> = sum
        .into_inner()
        .filter(|pair| pair.as_rule() == Rule::heap)
        .collect();
    assert_eq!(terms.len(), 2);
}

#[test]
fn statements() {
    assert!(consumes(
        Rule::game_decl,
        "game Nim(n) { move Nim(n - k) for k in 1..=n }"
    ));
    assert!(consumes(Rule::game_decl, "game Empty { }"));
    assert!(consumes(Rule::graph_decl, "graph G { a -> b, c\n b -> c }"));
    // A forgotten comma is an error, not a node standing alone.
    assert!(!consumes(Rule::graph_decl, "graph G { a -> b c }"));
    // A node with no moves may be declared alone, with an arrow to nothing.
    assert!(consumes(Rule::graph_decl, "graph G { a -> b\n c ->\n}"));
    assert!(consumes(Rule::let_decl, "let heaps = Nim(3) + Nim(4)"));
    assert!(consumes(Rule::query, "wins? Wythoff(3, 5)"));
    assert!(consumes(
        Rule::query,
        "grundy Kayles(n) for n in 0..=12 if n % 2 == 0"
    ));
    assert!(!consumes(Rule::query, "wins Nim(3)"));
}

#[test]
fn comments_and_line_breaks_are_white_space() {
    assert!(consumes(
        Rule::program,
        "# a comment\ngrundy *3 # another\n\nwins? *1\n"
    ));
}

fn expr(text: &str) -> Expr {
    let pair = Grammar::parse(Rule::expr, text).unwrap().next().unwrap();
    Builder { base: 0 }.expr(pair).unwrap()
}

/// Renders an expression fully parenthesised, to read its precedence.
fn shape(expr: &Expr) -> String {
    match &expr.kind {
        ExprKind::Int(n) => n.to_string(),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Var(v) => v.name.clone(),
        ExprKind::Call { function, args } => {
            let args: Vec<_> = args.iter().map(shape).collect();
            format!("{}({})", function.name, args.join(", "))
        }
        ExprKind::Unary(UnaryOp::Neg, e) => format!("(-{})", shape(e)),
        ExprKind::Unary(UnaryOp::Not, e) => format!("(not {})", shape(e)),
        ExprKind::Unary(UnaryOp::BitNot, e) => format!("(~{})", shape(e)),
        ExprKind::Binary(op, a, b) => format!("({} {} {})", shape(a), op.symbol(), shape(b)),
        ExprKind::If(c, a, b) => format!("(if {} then {} else {})", shape(c), shape(a), shape(b)),
        ExprKind::Elements { list, elements } => {
            let elements: Vec<_> = elements.iter().map(shape).collect();
            match list {
                true => format!("[{}]", elements.join(", ")),
                false => format!("{{{}}}", elements.join(", ")),
            }
        }
        ExprKind::Comprehension { element, .. } => format!("[{} for …]", shape(element)),
        ExprKind::Index(a, i) => format!("{}[{}]", shape(a), shape(i)),
        ExprKind::Node { graph, node } => format!("{}.{}", graph.name, node.name),
    }
}

#[test]
fn operator_precedence_and_associativity() {
    assert_eq!(shape(&expr("1 + 2 * 3")), "(1 + (2 * 3))");
    assert_eq!(shape(&expr("n - k - a")), "((n - k) - a)");
    assert_eq!(shape(&expr("-a % 3")), "((-a) % 3)");
    assert_eq!(
        shape(&expr("not a < b and c or d")),
        "(((not (a < b)) and c) or d)"
    );
    assert_eq!(shape(&expr("min(a, b) * (c + 1)")), "(min(a, b) * (c + 1))");
    // Set operators sit between comparisons and sums, as in Python.
    assert_eq!(shape(&expr("s - {v} | t & u")), "((s - {v}) | (t & u))");
    assert_eq!(shape(&expr("a ^ b == c")), "((a ^ b) == c)");
    assert_eq!(shape(&expr("x in s and y in t")), "((x in s) and (y in t))");
    assert_eq!(shape(&expr("h[i] + 1")), "(h[i] + 1)");
    assert_eq!(shape(&expr("l[i][j]")), "l[i][j]");
    assert_eq!(
        shape(&expr("if a < b then a else b + 1")),
        "(if (a < b) then a else (b + 1))"
    );
    // Bit operators rank as in Rust: shifts below sums, then `&`, `^`, `|`.
    assert_eq!(shape(&expr("1 + 2 << 3")), "((1 + 2) << 3)");
    assert_eq!(shape(&expr("a << 1 & b")), "((a << 1) & b)");
    assert_eq!(
        shape(&expr("a | b ^ c & d >> 2")),
        "(a | (b ^ (c & (d >> 2))))"
    );
    assert_eq!(shape(&expr("~a + 1")), "((~a) + 1)");
    assert_eq!(shape(&expr("a << b << c")), "((a << b) << c)");
    assert_eq!(shape(&expr("a >> 1 < b")), "((a >> 1) < b)");
}

#[test]
fn spans_are_shifted_by_the_base_offset() {
    let program = parse("grundy *3", 100).unwrap();
    let Statement::Query(query) = &program.statements[0] else {
        panic!("expected a query, got {:?}", program.statements[0]);
    };
    assert_eq!(query.span, SourceSpan::new(100.into(), 9));
    assert_eq!(query.target.span(), SourceSpan::new(107.into(), 2));
}

#[test]
fn errors_name_tokens_in_words() {
    let error = parse("graph G { a -> ; }", 0).unwrap_err();
    let ParseError::Syntax {
        expected, found, ..
    } = &error
    else {
        panic!("expected a syntax error, got {error:?}");
    };
    assert_eq!(expected, "a node name or `}`");
    assert_eq!(found, "`;`");
}

#[test]
fn an_error_at_the_end_is_incomplete() {
    assert!(parse("game Nim(n) {", 0).unwrap_err().is_incomplete());
    assert!(parse("grundy *3 +", 0).unwrap_err().is_incomplete());
    assert!(!parse("grundy ) *3", 0).unwrap_err().is_incomplete());
}

#[test]
fn integer_literals_past_64_bits_are_errors() {
    assert!(matches!(
        parse("grundy *99999999999999999999", 0),
        Err(ParseError::IntegerTooLarge { .. })
    ));
}

#[test]
fn nesting_past_the_limit_is_an_error_not_a_stack_overflow() {
    let too_deep = |text: String| matches!(parse(&text, 0), Err(ParseError::TooDeep { .. }));
    let parens = |depth| format!("grundy *({}1{})", "(".repeat(depth), ")".repeat(depth));
    assert!(too_deep(parens(MAX_NESTING)));
    // Lists too: 400,000 brackets overflowed the stack.
    for depth in [MAX_NESTING, 400_000] {
        let lists = format!("grundy *(len({}1{}))", "[".repeat(depth), "]".repeat(depth));
        assert!(too_deep(lists));
    }
    assert!(too_deep(format!(
        "grundy *({}1)",
        "- ".repeat(MAX_NESTING + 1)
    )));
    assert!(too_deep(format!(
        "grundy *1 if {}true",
        "not ".repeat(MAX_NESTING + 1)
    )));
    // A flat sum is a chain, not nesting: 10,001 terms are taken, and
    // only a chain twice the nesting limit is refused. (Dropping such a
    // tree recurses along it, so this runs on a stack as large as the
    // evaluator's, not a test's 2 MB.)
    let chains = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let chain = |terms: usize| format!("grundy *({}1)", "1 - ".repeat(terms - 1));
            let too_long = |text: String| match parse(&text, 0) {
                Err(ParseError::TooLong { span, .. }) => Some(span.len()),
                _ => None,
            };
            (
                too_long(chain(MAX_NESTING + 1)),
                too_long(chain(2 * MAX_NESTING + 1)),
            )
        })
        .unwrap()
        .join()
        .unwrap();
    // Refused at the one term past the limit.
    assert_eq!(chains, (None, Some(1)));
    // Other operators nest to the left, one level per operator.
    assert!(too_deep(format!(
        "grundy *({}1)",
        "1 * ".repeat(MAX_NESTING + 1)
    )));
    assert!(!too_deep(parens(100)));
    assert!(!too_deep(format!("grundy *({}1)", "not ".repeat(2) + "- ")));
}

/// The nodes of each edge line of the one graph a source declares.
fn graph_lines(source: &str) -> Vec<(String, Vec<String>)> {
    let program = parse(source, 0).unwrap();
    let Statement::Graph(graph) = &program.statements[0] else {
        panic!("expected a graph, got {:?}", program.statements[0]);
    };
    graph
        .edges
        .iter()
        .map(|edges| {
            let to = edges.to.iter().map(|node| node.name.clone()).collect();
            (edges.from.name.clone(), to)
        })
        .collect()
}

#[test]
fn an_arrow_to_nothing_may_end_any_line() {
    let line =
        |from: &str, to: &[&str]| (from.to_owned(), to.iter().map(|t| t.to_string()).collect());
    // Not only on the last line: `a ->` then `b -> a` is two lines, a with no moves.
    assert!(consumes(Rule::graph_decl, "graph G { a ->\n b -> a }"));
    assert_eq!(
        graph_lines("graph G { a ->\n b -> a }"),
        vec![line("a", &[]), line("b", &["a"])]
    );
    assert_eq!(
        graph_lines("graph G { a -> # no moves\r\n b -- a\n c ->\n d -> }"),
        vec![
            line("a", &[]),
            line("b", &["a"]),
            line("c", &[]),
            line("d", &[])
        ]
    );
    // Targets may still go on the next line when no arrow follows them.
    assert_eq!(
        graph_lines("graph G { a ->\n b, c\n b -> c }"),
        vec![line("a", &["b", "c"]), line("b", &["c"])]
    );
    // A chain on one line is not two lines read silently.
    assert!(!consumes(Rule::graph_decl, "graph G { a -> b -> a }"));
    assert!(!consumes(Rule::graph_decl, "graph G { a -> -> b }"));
}
