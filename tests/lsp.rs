//! `sprague lsp`, driven as an editor drives it: JSON-RPC messages with
//! `Content-Length` headers over its standard input and output.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

use serde_json::{Value as Json, json};

/// How long a test waits for a message before it calls the server stuck
/// (a guard against hanging, not a measure of speed).
const STUCK: Duration = Duration::from_secs(120);

struct Client {
    child: Child,
    messages: Receiver<Json>,
    next: u64,
}

impl Client {
    fn start() -> Client {
        Client::start_with(&mut Command::new(env!("CARGO_BIN_EXE_sprague")))
    }

    fn start_with(command: &mut Command) -> Client {
        let mut client = Client::spawn(command);
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

    /// The server started, not yet initialised.
    fn spawn(command: &mut Command) -> Client {
        let mut child = command
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        let (sender, messages) = mpsc::channel();
        std::thread::spawn(move || {
            let mut out = out;
            while let Some(message) = read_message(&mut out) {
                if sender.send(message).is_err() {
                    break;
                }
            }
        });
        Client {
            child,
            messages,
            next: 1,
        }
    }

    fn send(&mut self, message: Json) {
        let body = message.to_string();
        self.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    fn receive(&mut self) -> Json {
        match self.messages.recv_timeout(STUCK) {
            Ok(message) => message,
            Err(RecvTimeoutError::Timeout) => panic!("the server is stuck: nothing in {STUCK:?}"),
            Err(RecvTimeoutError::Disconnected) => {
                panic!("the server has ended: {:?}", self.child.wait())
            }
        }
    }

    /// The response to request `id`, whole (its result or its error).
    fn response(&mut self, id: &Json) -> Json {
        loop {
            let message = self.receive();
            if message["id"] == *id && message.get("method").is_none() {
                return message;
            }
        }
    }

    fn request(&mut self, method: &str, params: Json) -> Json {
        let id = self.next;
        self.next += 1;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        let response = self.response(&json!(id));
        assert!(response.get("error").is_none(), "{response}");
        response["result"].clone()
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

    fn save(&mut self, text: &str) {
        self.notify(
            "textDocument/didSave",
            json!({ "textDocument": { "uri": URI }, "text": text }),
        );
    }

    fn stop(mut self) {
        self.request("shutdown", Json::Null);
        self.notify("exit", Json::Null);
        assert!(self.wait().success());
    }

    fn wait(&mut self) -> ExitStatus {
        drop(self.child.stdin.take());
        self.child.wait().unwrap()
    }
}

/// A message with its header; `None` when the output ends.
fn read_message(out: &mut impl BufRead) -> Option<Json> {
    let mut length = 0;
    loop {
        let mut line = String::new();
        if out.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if let Some(value) = line.strip_prefix("Content-Length:") {
            length = value.trim().parse().unwrap();
        }
        if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0; length];
    out.read_exact(&mut body).ok()?;
    Some(serde_json::from_slice(&body).unwrap())
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

/// Hundreds of declarations that fail, between ones that check: each
/// error is published on its own line, and every declaration that checks
/// is kept (they were found one check at a time, 20 s for a thousand).
#[test]
fn many_failing_declarations_each_get_their_line_and_the_rest_is_kept() {
    let mut client = Client::start();
    let text: String = (0..300)
        .map(|i| format!("let good{i} = {i}\nlet bad{i} = missing{i} + 1\n"))
        .collect();
    let diagnostics = client.open(&text);
    assert_eq!(diagnostics.len(), 300, "{:?}", &diagnostics[..3]);
    let mut lines: Vec<i64> = diagnostics
        .iter()
        .map(|diagnostic| diagnostic["range"]["start"]["line"].as_i64().unwrap())
        .collect();
    lines.sort_unstable();
    assert_eq!(lines, (0..300).map(|i| 2 * i + 1).collect::<Vec<i64>>());
    let symbols = client.symbols();
    assert_eq!(symbols.len(), 300, "{symbols:?}");
    assert!(symbols.iter().all(|name| name.starts_with("good")));
    client.stop();
}

/// A chain of lets on one that fails: the rest of the file is still
/// known (the chain went one check at a time, 13 s for 2,000 lets).
#[test]
fn a_chain_of_lets_on_a_failing_one_keeps_the_rest() {
    let mut client = Client::start();
    let mut text = String::from("game S = subtraction {1, 2}\nlet a0 = Unk(1)\n");
    for i in 1..2000 {
        text += &format!("let a{i} = a{} + *1\n", i - 1);
    }
    let diagnostics = client.open(&text);
    assert_eq!(diagnostics.len(), 1, "{:?}", &diagnostics[..2]);
    assert_eq!(diagnostics[0]["code"], "sprague::check::unknown_game");
    assert_eq!(client.symbols(), ["S"]);
    client.stop();
}

/// A symbol's range is its whole declaration, its selection range its
/// name, as the protocol asks (both were the name).
#[test]
fn symbols_span_their_declarations_and_select_their_names() {
    let mut client = Client::start();
    assert!(client.open(GAMES).is_empty());
    let symbols = client.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": URI } }),
    );
    let maze = symbols
        .as_array()
        .unwrap()
        .iter()
        .find(|symbol| symbol["name"] == "Maze")
        .unwrap()
        .clone();
    // `graph Maze {` on line 1 to its `}` on line 4.
    assert_eq!(
        maze["range"]["start"],
        json!({ "line": 1, "character": 0 }),
        "{maze}"
    );
    assert_eq!(
        maze["range"]["end"],
        json!({ "line": 4, "character": 1 }),
        "{maze}"
    );
    assert_eq!(
        maze["selectionRange"],
        json!({ "start": { "line": 1, "character": 6 }, "end": { "line": 1, "character": 10 } })
    );
    client.stop();
}

/// A hover on a query over two lines answers the whole query (it read
/// its first line alone, which does not parse); one in the comment after
/// a query does not answer it.
#[test]
fn hover_answers_a_query_over_lines_and_not_its_comment() {
    let mut client = Client::start();
    let text = "game S = subtraction {1, 2}\nwins? S(3) +\n  S(4) # one more heap\n";
    assert!(client.open(text).is_empty());
    // S(n) = n mod 3: 0 XOR 1 = 1, a win.
    let hover = client.at("textDocument/hover", 1, 1);
    let value = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(value.contains("wins? S(3) + S(4) = true"), "{hover}");
    let in_comment = client.at("textDocument/hover", 2, 14);
    assert_eq!(in_comment, Json::Null);
    client.stop();
}

/// A hover on a `let` shows the declaration alone, not the comments and
/// blank lines after it (which the parser took into a statement that ends
/// with a sum or an operator's operands), nor a query's after it.
#[test]
fn hover_on_a_let_shows_the_let_alone() {
    let mut client = Client::start();
    let text = "let heaps = *3 + *4\n# the heaps of the example\n\nlet k = 3 + 4\n# a comment\ngame S = subtraction {1, 2}\ngrundy S(k) + heaps\n";
    assert!(client.open(text).is_empty());
    for (line, shown) in [(0, "let heaps = *3 + *4"), (3, "let k = 3 + 4")] {
        let hover = client.at("textDocument/hover", line, 5);
        let value = hover["contents"]["value"].as_str().unwrap();
        assert_eq!(value, format!("```sprague\n{shown}\n```"), "{hover}");
    }
    client.stop();
}

/// The next response (an error, for what could not be read) to no
/// request: its `id` is `null`.
fn error_code(client: &mut Client) -> i64 {
    let response = client.response(&Json::Null);
    response["error"]["code"].as_i64().unwrap()
}

#[test]
fn frames_that_cannot_be_read_are_answered_and_the_server_goes_on() {
    let mut client = Client::start();
    client.open(GAMES);
    let frame = |body: &str| format!("Content-Length: {}\r\n\r\n{body}", body.len());
    // Not JSON: a parse error; JSON that is no message (a batch, a
    // number, a request whose method is no string): an invalid request.
    for (body, code) in [
        ("{\"jsonrpc\": \"2.0\", \"id\": ", -32700),
        ("[]", -32600),
        (
            "[{\"jsonrpc\": \"2.0\", \"method\": \"initialized\"}]",
            -32600,
        ),
        ("42", -32600),
    ] {
        client.send_raw(frame(body).as_bytes());
        assert_eq!(error_code(&mut client), code, "{body}");
        assert_eq!(client.symbols(), ["Kayles", "Maze", "heaps"]);
    }
    // A request that can be read but is no request answers with its id.
    client.send_raw(frame(r#"{"jsonrpc": "2.0", "id": 77, "method": 5}"#).as_bytes());
    let response = client.response(&json!(77));
    assert_eq!(response["error"]["code"], -32600, "{response}");
    // No Content-Length: the frame cannot be read, and is skipped.
    let body = json!({ "jsonrpc": "2.0", "id": 99, "method": "shutdown" }).to_string();
    client.send_raw(format!("Content-Type: text/plain\r\n\r\n{body}").as_bytes());
    assert_eq!(error_code(&mut client), -32700);
    assert_eq!(client.symbols(), ["Kayles", "Maze", "heaps"]);
    // Text that is no header at all.
    client.send_raw(b"hello\r\n");
    assert_eq!(error_code(&mut client), -32700);
    assert_eq!(client.symbols(), ["Kayles", "Maze", "heaps"]);
    // Headers ended by a line feed alone are read.
    let body = json!({ "jsonrpc": "2.0", "id": 100, "method": "textDocument/documentSymbol",
        "params": { "textDocument": { "uri": URI } } })
    .to_string();
    client.send_raw(format!("Content-Length: {}\n\n{body}", body.len()).as_bytes());
    let response = client.response(&json!(100));
    assert_eq!(
        response["result"].as_array().unwrap().len(),
        3,
        "{response}"
    );
    client.stop();
}

/// The server under a 4 GB address-space limit, where an allocation of
/// 10 GB aborts.
fn limited() -> Command {
    use std::os::unix::process::CommandExt;
    let mut command = Command::new(env!("CARGO_BIN_EXE_sprague"));
    // SAFETY: setrlimit is async-signal-safe.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 4_000_000_000,
                rlim_max: 4_000_000_000,
            };
            match libc::setrlimit(libc::RLIMIT_AS, &limit) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
    }
    command
}

#[test]
fn a_frame_longer_than_64_mib_is_refused_unread() {
    let mut client = Client::start_with(&mut limited());
    client.open(GAMES);
    // Over the bound: refused, its body skipped, and the next frame read.
    let length = (64 << 20) + 1;
    let mut frame = format!("Content-Length: {length}\r\n\r\n").into_bytes();
    frame.resize(frame.len() + length, b' ');
    client.send_raw(&frame);
    assert_eq!(error_code(&mut client), -32600);
    assert_eq!(client.symbols(), ["Kayles", "Maze", "heaps"]);
    // 10 GB: refused at once, never allocated; the next frame's header,
    // found in what was declared its body, is read.
    client.send_raw(b"Content-Length: 10000000000\r\n\r\n{}");
    assert_eq!(error_code(&mut client), -32600);
    assert_eq!(client.symbols(), ["Kayles", "Maze", "heaps"]);
    client.stop();
}

/// Sends `bad` bytes and, in the same write, a hover on `grundy|
/// Kayles(5)`; checks that `bad` is answered with a parse error (with
/// id `bad_id`), then the hover with its answer (Kayles(5) = 4, OEIS
/// A002186).
fn bad_then_hover(client: &mut Client, bad: &str, bad_id: Json, code: i64) {
    let id = client.next;
    client.next += 1;
    let hover = json!({ "jsonrpc": "2.0", "id": id, "method": "textDocument/hover",
        "params": { "textDocument": { "uri": URI }, "position": { "line": 6, "character": 2 } } })
    .to_string();
    client.send_raw(format!("{bad}Content-Length: {}\r\n\r\n{hover}", hover.len()).as_bytes());
    let response = client.response(&bad_id);
    assert_eq!(response["error"]["code"], code, "{bad:.80}: {response}");
    let response = client.response(&json!(id));
    let text = response["result"]["contents"]["value"].as_str().unwrap();
    assert!(text.contains("grundy Kayles(5) = 4"), "{bad:.80}: {text}");
}

#[test]
fn a_huge_length_before_initialize_costs_that_frame_alone() {
    let mut client = Client::spawn(&mut limited());
    client.send_raw(b"Content-Length: 10000000000\r\n\r\n");
    assert_eq!(error_code(&mut client), -32600);
    let result = client.request("initialize", json!({ "capabilities": {} }));
    assert!(
        !result["capabilities"]["hoverProvider"].is_null(),
        "{result}"
    );
    client.notify("initialized", json!({}));
    client.open(GAMES);
    let bad = "Content-Length: 10000000000\r\n\r\n{\"jsonrpc\": \"2.0\"}";
    bad_then_hover(&mut client, bad, Json::Null, -32600);
    client.stop();
}

#[test]
fn frames_with_wrong_lengths_are_answered_and_the_next_is_read() {
    let mut client = Client::start();
    client.open(GAMES);
    let exit = r#"{"jsonrpc": "2.0", "method": "exit"}"#;
    for bad in [
        format!("Content-Length: -5\r\n\r\n{exit}"),
        format!("Content-Length: 5e3\r\n\r\n{exit}"),
        format!("Content-Length: \r\n\r\n{exit}"),
        // No blank line after the header.
        format!("Content-Length: {}\r\n{exit}", exit.len()),
        // A length longer than the body: the next header ends it.
        format!("Content-Length: 4000\r\n\r\n{exit}"),
        format!("Content-Length: 4000\n\n{exit}\n"),
    ] {
        bad_then_hover(&mut client, &bad, Json::Null, -32700);
    }
    // A request whose length is too long is answered by its id.
    let request = json!({ "jsonrpc": "2.0", "id": 500, "method": "shutdown" }).to_string();
    let bad = format!("Content-Length: 4000\r\n\r\n{request}");
    bad_then_hover(&mut client, &bad, json!(500), -32700);
    // A body that the end of the input cuts short is answered too.
    client.send_raw(format!("Content-Length: 4000\r\n\r\n{exit}").as_bytes());
    assert_eq!(client.wait().code(), Some(1));
    assert_eq!(error_code(&mut client), -32700);
}

#[test]
fn positions_on_lines_with_emoji_are_utf16_units() {
    let mut client = Client::start();
    // An emoji is two UTF-16 units (four bytes).
    assert!(client.open(GAMES).is_empty());
    let text = format!("{GAMES}let 😀 = 1\ngrundy Kayles(2) # 😀x😀\n");
    let diagnostics = client.change(&text);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    // On line 8: `let ` is four units, the emoji the next two.
    assert_eq!(diagnostics[0]["range"]["start"]["line"], 8);
    // Hover and completion on the comment's `x` and on its emojis, and on
    // the halves of an emoji, answer without an answer to give.
    for character in 18..=24 {
        for method in ["textDocument/hover", "textDocument/completion"] {
            client.at(method, 9, character);
        }
    }
    // Hover on `Kayles` after an emoji on the line: its declaration.
    let text = format!("{GAMES}grundy *1 + Kayles(2) # 😀\n😀 grundy Kayles(3)\n");
    client.change(&text);
    let hover = client.at("textDocument/hover", 8, 14);
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("game **Kayles**(n)")
    );
    // Completing `Kay` typed after the emoji and a space (units 3 to 6).
    client.change(&format!("{GAMES}😀 Kay"));
    let found = client.at("textDocument/completion", 8, 6);
    assert_eq!(found[0]["label"], "Kayles", "{found}");
    client.stop();
}

#[test]
fn a_non_ascii_comment_before_an_error_keeps_what_checks() {
    let mut client = Client::start();
    // The comment is part of the query before it, which is blanked out
    // while the rest is checked.
    let text = format!("{GAMES}grundy *1 # à la Dudeney 😀\ngrundy Nope(3)\n");
    let diagnostics = client.open(&text);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["code"], "sprague::check::unknown_game");
    assert_eq!(diagnostics[0]["range"]["start"]["line"], 9);
    // The declarations that check are there.
    assert_eq!(client.symbols(), ["Kayles", "Maze", "heaps"]);
    let definition = client.at("textDocument/definition", 6, 9);
    assert_eq!(definition["range"]["start"]["line"], 0);
    client.stop();
}

#[test]
fn a_game_that_calls_itself_forever_is_a_diagnostic_on_save() {
    let mut client = Client::start();
    let text = format!("{GAMES}game X(n) = X(n)\ngrundy X(1)\n");
    assert!(client.open(&text).is_empty());
    client.save(&text);
    let diagnostics = client.diagnostics();
    assert!(!diagnostics.is_empty());
    // The evaluator names the cycle on the alias (line 8); a crash of the
    // worker would mark the query being answered (line 9). Either way the
    // server answers and goes on.
    assert!(
        diagnostics.iter().any(|diagnostic| {
            let line = &diagnostic["range"]["start"]["line"];
            diagnostic["code"] == "sprague::eval::alias_cycle" && (line == 8 || line == 9)
        }),
        "{diagnostics:?}"
    );
    assert_eq!(client.symbols(), ["Kayles", "Maze", "heaps", "X"]);
    client.stop();
}

#[test]
fn a_long_run_on_save_leaves_the_server_answering() {
    let mut client = Client::start();
    let nk = "game NK(s) splits up to symmetry {\n  move NK(s - closed(s, v)) for v in s\n}\n";
    let slow = format!("{nk}grundy NK(Grid(100, 100))\n");
    assert!(client.open(&slow).is_empty());
    client.save(&slow);
    // Requests are answered while it runs.
    assert_eq!(client.symbols(), ["NK"]);
    let found = client.at("textDocument/completion", 3, 9);
    assert_eq!(found[0]["label"], "NK", "{found}");
    // Saved again: the slow run's result is dropped, the new one's comes.
    let quick = format!("{nk}grundy *(1 << 64)\n");
    client.change(&quick);
    client.save(&quick);
    let diagnostics = client.diagnostics();
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["code"], "sprague::eval::out_of_range");
    // Shut down while a slow run goes on.
    client.save(&slow);
    client.stop();
}

#[test]
fn exit_without_shutdown_ends_with_code_1() {
    let mut client = Client::start();
    client.open(GAMES);
    client.notify("exit", Json::Null);
    assert_eq!(client.wait().code(), Some(1));
    // Input that ends without `exit` likewise.
    let mut client = Client::start();
    assert_eq!(client.wait().code(), Some(1));
    // With `shutdown` first: 0.
    Client::start().stop();
}
