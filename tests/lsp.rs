//! `sprague lsp`, driven as an editor drives it: JSON-RPC messages with
//! `Content-Length` headers over its standard input and output.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdout, Command, Stdio};

use serde_json::{Value as Json, json};

struct Client {
    child: Child,
    out: BufReader<ChildStdout>,
    next: u64,
}

impl Client {
    fn start() -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_sprague"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        let mut client = Client {
            child,
            out,
            next: 1,
        };
        let capabilities = client.request("initialize", json!({ "capabilities": {} }));
        let capabilities = &capabilities["capabilities"];
        for provider in [
            "hoverProvider",
            "completionProvider",
            "definitionProvider",
            "documentSymbolProvider",
        ] {
            assert!(
                !capabilities[provider].is_null(),
                "{provider}: {capabilities}"
            );
        }
        client.notify("initialized", json!({}));
        client
    }

    fn send(&mut self, message: Json) {
        let body = message.to_string();
        let stdin = self.child.stdin.as_mut().unwrap();
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        stdin.flush().unwrap();
    }

    fn receive(&mut self) -> Json {
        let mut length = 0;
        loop {
            let mut line = String::new();
            self.out.read_line(&mut line).unwrap();
            if let Some(value) = line.strip_prefix("Content-Length:") {
                length = value.trim().parse().unwrap();
            }
            if line == "\r\n" {
                break;
            }
        }
        let mut body = vec![0; length];
        self.out.read_exact(&mut body).unwrap();
        serde_json::from_slice(&body).unwrap()
    }

    fn request(&mut self, method: &str, params: Json) -> Json {
        let id = self.next;
        self.next += 1;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        loop {
            let message = self.receive();
            if message["id"] == id {
                return message["result"].clone();
            }
        }
    }

    fn notify(&mut self, method: &str, params: Json) {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// The diagnostics published next.
    fn diagnostics(&mut self) -> Vec<Json> {
        loop {
            let message = self.receive();
            if message["method"] == "textDocument/publishDiagnostics" {
                return message["params"]["diagnostics"].as_array().unwrap().clone();
            }
        }
    }

    fn open(&mut self, text: &str) -> Vec<Json> {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": URI, "languageId": "sprague", "version": 1, "text": text } }),
        );
        self.diagnostics()
    }

    fn change(&mut self, text: &str) -> Vec<Json> {
        self.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": URI, "version": 2 }, "contentChanges": [{ "text": text }] }),
        );
        self.diagnostics()
    }

    fn at(&mut self, method: &str, line: u32, character: u32) -> Json {
        self.request(
            method,
            json!({ "textDocument": { "uri": URI }, "position": { "line": line, "character": character } }),
        )
    }

    /// The names of the document's symbols.
    fn symbols(&mut self) -> Vec<String> {
        let symbols = self.request(
            "textDocument/documentSymbol",
            json!({ "textDocument": { "uri": URI } }),
        );
        symbols
            .as_array()
            .unwrap()
            .iter()
            .map(|symbol| symbol["name"].as_str().unwrap().to_owned())
            .collect()
    }

    fn stop(mut self) {
        self.request("shutdown", Json::Null);
        self.notify("exit", Json::Null);
        assert!(self.child.wait().unwrap().success());
    }
}

const URI: &str = "file:///games/test.game";

const GAMES: &str = "\
game Kayles(n) { move Kayles(a) + Kayles(n - k - a) for k in 1..=2, a in 0..=n - k }
graph Maze {
  start -> left, right
  left -> goal
}
let heaps = *3 + *4 + *5
grundy Kayles(5)
grundy heaps
";

#[test]
fn errors_are_published_as_the_file_is_edited() {
    let mut client = Client::start();
    assert!(client.open(GAMES).is_empty());
    let diagnostics = client.change(&format!("{GAMES}grundy Nope(3)\n"));
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    let diagnostic = &diagnostics[0];
    assert_eq!(diagnostic["code"], "sprague::check::unknown_game");
    assert_eq!(diagnostic["source"], "sprague");
    assert!(
        diagnostic["message"]
            .as_str()
            .unwrap()
            .starts_with("unknown game `Nope`"),
        "{diagnostic}"
    );
    // Line 8 (from 0), the name `Nope` at characters 7 to 11.
    assert_eq!(
        diagnostic["range"],
        json!({ "start": { "line": 8, "character": 7 }, "end": { "line": 8, "character": 11 } })
    );
    // A parse error, where it is.
    let diagnostics = client.change("game G(n) { move G(n - 1) if n > 0 \n");
    assert_eq!(diagnostics[0]["code"], "sprague::parse::unclosed");
    client.stop();
}

#[test]
fn evaluation_errors_come_on_save() {
    let mut client = Client::start();
    let text = format!("{GAMES}grundy *(1 << 64)\n");
    // Checking finds nothing wrong: the shift is too far only when run.
    assert!(client.open(&text).is_empty());
    client.notify(
        "textDocument/didSave",
        json!({ "textDocument": { "uri": URI }, "text": text }),
    );
    let diagnostics = client.diagnostics();
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["code"], "sprague::eval::out_of_range");
    assert_eq!(diagnostics[0]["range"]["start"]["line"], 8);
    // A runaway query is stopped by the limits, and said so.
    let text = format!("{GAMES}grundy Kayles(100000)\n");
    client.notify(
        "textDocument/didSave",
        json!({ "textDocument": { "uri": URI }, "text": text }),
    );
    let diagnostics = client.diagnostics();
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    client.stop();
}

#[test]
fn completion_hover_definition_and_symbols() {
    let mut client = Client::start();
    client.open(GAMES);
    let labels = |result: &Json| -> Vec<String> {
        result
            .as_array()
            .unwrap()
            .iter()
            .map(|item| item["label"].as_str().unwrap().to_owned())
            .collect()
    };
    // `grundy Kay|les(5)`: the game; `gr|undy`: keywords.
    let found = labels(&client.at("textDocument/completion", 6, 10));
    assert_eq!(found, ["Kayles"]);
    let found = labels(&client.at("textDocument/completion", 6, 2));
    assert!(found.contains(&"grundy".to_owned()) && found.contains(&"graph".to_owned()));
    // While a line is half typed, the last text that checked completes it:
    // `Maze.` offers the graph's nodes.
    client.change(&format!("{GAMES}grundy Maze."));
    let found = labels(&client.at("textDocument/completion", 8, 12));
    assert!(found.contains(&"Maze.start".to_owned()), "{found:?}");
    assert!(found.contains(&"Maze.goal".to_owned()), "{found:?}");
    client.change(GAMES);
    // Hover on a game: its declaration; on a query: its answer (Kayles(5)
    // = 4, OEIS A002186; 3 ⊕ 4 ⊕ 5 = 2).
    let hover = client.at("textDocument/hover", 6, 9);
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(text.contains("game **Kayles**(n)"), "{text}");
    let hover = client.at("textDocument/hover", 6, 2);
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("grundy Kayles(5) = 4")
    );
    let hover = client.at("textDocument/hover", 7, 2);
    assert!(hover["contents"]["value"].as_str().unwrap().contains("= 2"));
    // A query too large to answer at once is not computed.
    client.change(&format!("{GAMES}grundy Kayles(100000)\n"));
    let hover = client.at("textDocument/hover", 8, 2);
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(text.starts_with("not computed"), "{text}");
    // Go to definition: the game's name on line 0, the graph's on line 1,
    // the let's on line 5.
    let definition = client.at("textDocument/definition", 6, 9);
    assert_eq!(
        definition["range"]["start"],
        json!({ "line": 0, "character": 5 })
    );
    assert_eq!(definition["uri"], URI);
    client.change(&format!("{GAMES}grundy Maze.start\n"));
    let definition = client.at("textDocument/definition", 8, 8);
    assert_eq!(definition["range"]["start"]["line"], 1);
    let definition = client.at("textDocument/definition", 7, 9);
    assert_eq!(definition["range"]["start"]["line"], 5);
    // The declarations as symbols.
    assert_eq!(client.symbols(), ["Kayles", "Maze", "heaps"]);
    client.stop();
}

#[test]
fn a_file_with_errors_still_declares_what_checks() {
    let mut client = Client::start();
    // Never checked whole: a query and a declaration name unknown games.
    let text = format!("{GAMES}grundy Nope(3)\ngame Bad(n) {{ move Worse(n) }}\n");
    let diagnostics = client.open(&text);
    assert_eq!(diagnostics.len(), 2, "{diagnostics:?}");
    // The rest is there: hover answers, definitions are found, and the
    // declarations that check are the symbols.
    let hover = client.at("textDocument/hover", 6, 2);
    assert!(hover["contents"]["value"].as_str().unwrap().contains("= 4"));
    let definition = client.at("textDocument/definition", 6, 9);
    assert_eq!(definition["range"]["start"]["line"], 0);
    assert_eq!(client.symbols(), ["Kayles", "Maze", "heaps"]);
    client.stop();
}
