//! The order of the layers, kept: every `crate::`, `super::` and `self::`
//! path in src/ is read, resolved to the file that holds the module it
//! names, and checked. A module may import from the layers beneath its own
//! and from its own folder; not from a layer above, nor from another module
//! of its own layer; and no files may import each other in a circle.
//!
//! The layers are the ones src/lib.rs describes, from the bottom. Unit tests
//! (`#[cfg(test)] mod tests`) are left out: a test may drive its module
//! through the layers above it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The top-level modules of src/, bottom layer first.
const LAYERS: &[&[&str]] = &[
    // Foundations: nothing of the language.
    &["sources", "nimber", "files"],
    // Sets, lists, regions, boards.
    &["values"],
    // Text to syntax trees.
    &["syntax"],
    // The lowered program, and the evaluator of its expressions.
    &["program"],
    &["eval"],
    // The memoised mex over any positions.
    &["engine"],
    // Take-and-break tables, period proofs and misère quotients.
    &["octal", "analysis", "quotient"],
    // Syntax to program; the program's positions for the engine.
    &["lower"],
    &["interp"],
    // Move graphs and plots drawn.
    &["picture"],
    // Queries answered, and answers written out.
    &["session"],
    &["output"],
    // What the front ends share, then the front ends.
    &["front"],
    &["repl", "serve", "lsp"],
    &["cli"],
];

/// A file of src/ by the module path it holds (`interp::sweep`; the crate
/// root is the empty path).
type Module = Vec<String>;

/// One import: the file it is in, the file it names, and how it is written.
#[derive(Debug, Clone)]
struct Import {
    from: Module,
    to: Module,
    written: String,
}

fn module_of(relative: &Path) -> Module {
    let mut parts: Vec<String> = relative
        .with_extension("")
        .iter()
        .map(|part| part.to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The code of a file without comments and without its unit tests.
fn code(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|next| next.trim_start().starts_with("mod ") && next.ends_with('{'))
        {
            // The tests' module runs to the end of its braces.
            let mut depth = 0i64;
            for line in lines.by_ref() {
                depth += line.matches('{').count() as i64 - line.matches('}').count() as i64;
                if depth <= 0 && line.contains('}') {
                    break;
                }
            }
            continue;
        }
        out.push_str(line.split("//").next().unwrap_or(""));
        out.push('\n');
    }
    out
}

/// Every path a `use` tree names: `a::{b, c::{d, e}}` names `a::b`,
/// `a::c::d` and `a::c::e`.
fn leaves(prefix: &[String], tree: &str, out: &mut Vec<Vec<String>>) {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let path = tree.split(" as ").next().unwrap_or("");
        let mut full = prefix.to_vec();
        full.extend(
            path.split("::")
                .map(str::trim)
                .filter(|part| !part.is_empty() && *part != "self" && *part != "*")
                .map(str::to_owned),
        );
        out.push(full);
        return;
    };
    let mut head = prefix.to_vec();
    head.extend(
        tree[..open]
            .split("::")
            .map(str::trim)
            .filter(|part| !part.is_empty())
            .map(str::to_owned),
    );
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let (mut depth, mut start) = (0, 0);
    for (at, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                leaves(&head, &inner[start..at], out);
                start = at + 1;
            }
            _ => {}
        }
    }
    leaves(&head, &inner[start..], out);
}

/// The path written after `at` (which starts with `crate::`, `super::` or
/// `self::`): identifiers joined by `::`, with a brace group at its end.
fn written_path(at: &str) -> &str {
    let bytes = at.as_bytes();
    let mut end = 0;
    let mut depth = 0;
    while end < bytes.len() {
        let c = bytes[end] as char;
        match c {
            '{' => depth += 1,
            '}' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    end += 1;
                    break;
                }
            }
            _ if depth > 0 => {}
            ':' if bytes.get(end + 1) == Some(&b':') => {
                end += 2;
                continue;
            }
            _ if c.is_alphanumeric() || c == '_' => {}
            _ => break,
        }
        end += 1;
    }
    &at[..end]
}

/// Every import of every file, resolved to the files that hold what it names.
fn imports(files: &BTreeMap<Module, String>) -> Vec<Import> {
    let resolve = |path: &[String]| -> Option<Module> {
        (0..=path.len())
            .rev()
            .map(|len| path[..len].to_vec())
            .find(|prefix| files.contains_key(prefix))
    };
    let mut found = Vec::new();
    for (module, text) in files {
        let code = code(text);
        for (at, _) in code.match_indices("::") {
            let start = code[..at]
                .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
                .map_or(0, |i| i + 1);
            let word = &code[start..at];
            let boundary = code[..start].chars().next_back();
            if !matches!(word, "crate" | "super" | "self") || boundary == Some(':') {
                continue;
            }
            let written = written_path(&code[start..]);
            let mut base: Vec<String> = match word {
                "crate" => Vec::new(),
                _ => module.clone(),
            };
            let mut rest = &written[word.len() + 2..];
            if word == "super" {
                base.pop();
                while let Some(tail) = rest.strip_prefix("super::") {
                    base.pop();
                    rest = tail;
                }
            }
            let mut paths = Vec::new();
            leaves(&base, rest, &mut paths);
            for path in paths {
                if let Some(to) = resolve(&path)
                    && to != *module
                    && !to.is_empty()
                {
                    found.push(Import {
                        from: module.clone(),
                        to,
                        written: written.to_owned(),
                    });
                }
            }
        }
    }
    found
}

fn layer(module: &Module) -> Option<usize> {
    let top = module.first()?;
    LAYERS
        .iter()
        .position(|layer| layer.contains(&top.as_str()))
}

fn file_name(module: &Module) -> String {
    match module.is_empty() {
        true => "src/lib.rs".to_owned(),
        false => format!("src/{}", module.join("/")),
    }
}

/// What is wrong with the imports: each problem names the file and the
/// import.
fn problems(files: &BTreeMap<Module, String>) -> Vec<String> {
    let imports = imports(files);
    let mut problems = Vec::new();
    for module in files.keys() {
        if !module.is_empty() && layer(module).is_none() {
            problems.push(format!(
                "{} is in no layer: add `{}` to LAYERS in tests/architecture.rs and to src/lib.rs",
                file_name(module),
                module[0]
            ));
        }
    }
    for import in &imports {
        let (Some(from), Some(to)) = (layer(&import.from), layer(&import.to)) else {
            continue;
        };
        if import.from[0] == import.to[0] {
            continue;
        }
        if to >= from {
            let how = match to == from {
                true => "a module of its own layer",
                false => "a layer above it",
            };
            problems.push(format!(
                "{} imports `{}`, from {how} ({} is above or beside {})",
                file_name(&import.from),
                import.written,
                import.to[0],
                import.from[0]
            ));
        }
    }
    // Circles among files: the strongly connected parts of the graph.
    let mut edges: BTreeMap<&Module, BTreeMap<&Module, &str>> = BTreeMap::new();
    for import in &imports {
        edges
            .entry(&import.from)
            .or_default()
            .entry(&import.to)
            .or_insert(&import.written);
    }
    for circle in circles(files.keys().collect(), &edges) {
        let members: BTreeSet<&Module> = circle.iter().copied().collect();
        let mut lines = Vec::new();
        for from in &circle {
            for (to, written) in edges.get(from).into_iter().flatten() {
                if members.contains(to) {
                    lines.push(format!(
                        "  {} imports `{written}` ({})",
                        file_name(from),
                        file_name(to)
                    ));
                }
            }
        }
        problems.push(format!(
            "a circle of {} files:\n{}",
            circle.len(),
            lines.join("\n")
        ));
    }
    problems
}

/// The circles of a graph: its strongly connected parts of more than one
/// node (Tarjan's algorithm).
fn circles<'a>(
    nodes: Vec<&'a Module>,
    edges: &BTreeMap<&'a Module, BTreeMap<&'a Module, &str>>,
) -> Vec<Vec<&'a Module>> {
    struct State<'a> {
        index: BTreeMap<&'a Module, usize>,
        low: BTreeMap<&'a Module, usize>,
        stack: Vec<&'a Module>,
        on_stack: BTreeSet<&'a Module>,
        found: Vec<Vec<&'a Module>>,
    }
    fn visit<'a>(
        node: &'a Module,
        edges: &BTreeMap<&'a Module, BTreeMap<&'a Module, &str>>,
        state: &mut State<'a>,
    ) {
        let index = state.index.len();
        state.index.insert(node, index);
        state.low.insert(node, index);
        state.stack.push(node);
        state.on_stack.insert(node);
        for &next in edges.get(node).into_iter().flat_map(|next| next.keys()) {
            if !state.index.contains_key(next) {
                visit(next, edges, state);
                let low = state.low[node].min(state.low[next]);
                state.low.insert(node, low);
            } else if state.on_stack.contains(next) {
                let low = state.low[node].min(state.index[next]);
                state.low.insert(node, low);
            }
        }
        if state.low[node] == state.index[node] {
            let mut part = Vec::new();
            while let Some(top) = state.stack.pop() {
                state.on_stack.remove(top);
                part.push(top);
                if top == node {
                    break;
                }
            }
            if part.len() > 1 {
                part.reverse();
                state.found.push(part);
            }
        }
    }
    let mut state = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in nodes {
        if !state.index.contains_key(node) {
            visit(node, edges, &mut state);
        }
    }
    state.found
}

fn read_src() -> BTreeMap<Module, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = BTreeMap::new();
    let mut folders = vec![root.clone()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                let relative = path.strip_prefix(&root).unwrap();
                files.insert(module_of(relative), std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    files
}

#[test]
fn imports_only_look_down_and_close_no_circle() {
    let files = read_src();
    assert!(files.len() > 50, "src/ was not read");
    let problems = problems(&files);
    assert!(
        problems.is_empty(),
        "the layers (tests/architecture.rs, src/lib.rs) are broken:\n{}",
        problems.join("\n")
    );
}

/// The layers named here are the ones src/lib.rs lists, in its order.
#[test]
fn the_layers_are_the_ones_lib_rs_describes() {
    let lib =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
    let mut at = 0;
    for name in LAYERS.iter().flat_map(|layer| layer.iter()) {
        let needle = format!("[`{name}`]");
        let found = lib[at..].find(&needle).unwrap_or_else(|| {
            panic!("src/lib.rs does not list {needle} after the layers below it")
        });
        at += found;
    }
}

/// The checker itself: a tree with one import up the order, one across a
/// layer and a circle is refused, naming each file and import.
#[test]
fn the_checker_finds_an_upward_import_and_a_circle() {
    let mut files: BTreeMap<Module, String> = BTreeMap::new();
    let module = |path: &str| -> Module { path.split("::").map(str::to_owned).collect() };
    files.insert(Vec::new(), String::new());
    files.insert(module("values"), "use crate::syntax::Span;\n".into());
    files.insert(module("syntax"), "pub struct Span;\n".into());
    files.insert(
        module("octal"),
        "fn f() { crate::analysis::find(); }\n".into(),
    );
    files.insert(module("analysis"), "pub fn find() {}\n".into());
    files.insert(
        module("session::answer"),
        "use super::{picture::draw, rows};\n".into(),
    );
    files.insert(
        module("session::picture"),
        "// use super::answer::x;\nuse super::answer::{self as a, x};\n".into(),
    );
    files.insert(module("session::rows"), String::new());
    files.insert(
        module("session"),
        "#[cfg(test)]\nmod tests {\n    use crate::cli::main;\n}\n".into(),
    );
    let problems = problems(&files);
    let text = problems.join("\n");
    assert!(
        text.contains("src/values imports `crate::syntax::Span`, from a layer above it"),
        "{text}"
    );
    assert!(
        text.contains("src/octal imports `crate::analysis::find`, from a module of its own layer"),
        "{text}"
    );
    assert!(text.contains("a circle of 2 files"), "{text}");
    assert!(
        text.contains("src/session/picture imports `super::answer::{self as a, x}`"),
        "{text}"
    );
    // Nothing else: the comment, the unit test and the import of rows are
    // fine.
    assert_eq!(problems.len(), 3, "{text}");
}
