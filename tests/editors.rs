//! The editor files under `editors/` against the language's grammar: the
//! TextMate grammar parses, its keywords (and the Vim syntax file's, and
//! the language server's completions) are exactly the keywords of
//! `grammar/sprague.pest`, and the VS Code extension names files that
//! exist.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value as Json;

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

/// The quoted words of the pest rule `name`, up to the rule's end.
fn rule_words(grammar: &str, name: &str) -> BTreeSet<String> {
    let start = grammar
        .find(&format!("\n{name} = "))
        .unwrap_or_else(|| panic!("no rule {name}"));
    let body = &grammar[start + 1..];
    let end = body.find("\n}").or_else(|| body.find('\n')).unwrap();
    quoted(&body[..end])
}

fn quoted(text: &str) -> BTreeSet<String> {
    text.split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// The reserved words, and the words reserved only where they are met
/// (`= octal "…"`, `coins(n) { turn … }`, `all but`, `up to symmetry`).
fn grammar_keywords() -> (BTreeSet<String>, BTreeSet<String>) {
    let grammar = read("grammar/sprague.pest");
    let reserved = rule_words(&grammar, "keyword");
    let mut contextual = BTreeSet::new();
    for line in grammar.lines() {
        if let Some(rest) = line.strip_prefix("kw_")
            && !rest.starts_with("all_but")
            && let Some(word) = quoted(rest).into_iter().next()
            && !reserved.contains(&word)
        {
            contextual.insert(word);
        }
    }
    // Words joined by white space are written with their parts.
    for (rule, words) in [
        ("kw_all_but", "all but"),
        ("up_to_symmetry", "up to symmetry"),
    ] {
        assert!(grammar.contains(&format!("\n{rule} = ")), "{rule}");
        contextual.insert(words.to_owned());
    }
    (reserved, contextual)
}

/// The words of an alternation `\b(a|b|c)\b` in a TextMate pattern, with
/// `\?` read as `?` and `\s+` as a space.
fn alternatives(pattern: &str) -> BTreeSet<String> {
    pattern
        .replace("\\s+", " ")
        .replace("\\?", "?")
        .split('|')
        .map(|word| {
            word.trim_start_matches("\\b(")
                .trim_start_matches("\\b")
                .trim_end_matches(")\\b")
                .trim_end_matches("\\b")
                .trim_end_matches(')')
                .to_owned()
        })
        .collect()
}

#[test]
fn the_textmate_grammar_has_the_languages_keywords() {
    let grammar: Json =
        serde_json::from_str(&read("editors/vscode/syntaxes/sprague.tmLanguage.json"))
            .expect("the TextMate grammar is JSON");
    assert_eq!(grammar["scopeName"], "source.sprague");
    // Every included rule exists.
    let repository = grammar["repository"].as_object().unwrap();
    for pattern in grammar["patterns"].as_array().unwrap() {
        let include = pattern["include"].as_str().unwrap();
        assert!(
            repository.contains_key(include.trim_start_matches('#')),
            "{include}"
        );
    }
    let (reserved, contextual) = grammar_keywords();
    let keywords = alternatives(repository["keyword"]["match"].as_str().unwrap());
    assert_eq!(keywords, reserved);
    let others = alternatives(repository["contextual"]["match"].as_str().unwrap());
    assert_eq!(others, contextual);
}

#[test]
fn the_vim_syntax_file_has_the_languages_keywords() {
    let syntax = read("editors/nvim/syntax/sprague.vim");
    let (reserved, contextual) = grammar_keywords();
    let mut found = BTreeSet::new();
    let mut found_contextual = BTreeSet::new();
    for line in syntax.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["syn", "keyword", "spragueKeyword", rest @ ..] => {
                found.extend(rest.iter().map(|word| word.to_string()));
            }
            ["syn", "keyword", "spragueContextual", rest @ ..] => {
                found_contextual.extend(rest.iter().map(|word| word.to_string()));
            }
            _ => {}
        }
    }
    assert!(syntax.contains(r#"syn match spragueKeyword "\<\(wins\|equal\)?""#));
    found.extend(["wins?".to_owned(), "equal?".to_owned()]);
    assert_eq!(found, reserved);
    found_contextual.extend(["all but".to_owned(), "up to symmetry".to_owned()]);
    assert_eq!(found_contextual, contextual);
}

#[test]
fn the_language_server_completes_every_keyword() {
    let (reserved, contextual) = grammar_keywords();
    let single: BTreeSet<String> = reserved
        .into_iter()
        .chain(contextual)
        .filter(|word| !word.contains(' '))
        .collect();
    let completed: BTreeSet<String> = sprague::syntax::KEYWORDS
        .iter()
        .map(|w| w.to_string())
        .collect();
    assert_eq!(completed, single);
}

#[test]
fn the_vscode_extension_names_files_that_exist() {
    let package: Json = serde_json::from_str(&read("editors/vscode/package.json")).unwrap();
    let contributes = &package["contributes"];
    let language = &contributes["languages"][0];
    assert_eq!(language["extensions"][0], ".game");
    for path in [
        language["configuration"].as_str().unwrap(),
        contributes["grammars"][0]["path"].as_str().unwrap(),
        package["main"].as_str().unwrap(),
    ] {
        let path = format!("editors/vscode/{}", path.trim_start_matches("./"));
        let text = read(&path);
        if path.ends_with(".json") {
            serde_json::from_str::<Json>(&text).unwrap_or_else(|error| panic!("{path}: {error}"));
        }
    }
    assert!(read("editors/vscode/extension.js").contains(r#"args: ["lsp"]"#));
}

#[test]
fn the_page_highlights_every_keyword() {
    let app = read("web/app.js");
    let start =
        app.find("const KEYWORDS = [").expect("the page's keywords") + "const KEYWORDS = [".len();
    let end = start + app[start..].find("];").unwrap();
    let words: BTreeSet<String> = app[start..end]
        .split(',')
        .map(|word| word.trim().trim_matches('"').to_owned())
        .filter(|word| !word.is_empty())
        .collect();
    let (reserved, contextual) = grammar_keywords();
    for word in reserved.iter().chain(&contextual) {
        assert!(words.contains(word), "the page does not highlight `{word}`");
    }
}
