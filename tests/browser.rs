//! The page of `sprague serve` in a real browser: headless Chromium driven
//! through chromedriver (WebDriver), clicking and typing as a person would.
//!
//! Without `chromedriver` and `chromium` on the PATH the test says so and
//! passes, unless `SPRAGUE_BROWSER_TESTS=require` (CI sets it, and
//! installs both). `SPRAGUE_SCREENSHOT=FILE` keeps a screenshot of the
//! page as the test leaves it.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::elements::Element;
use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::json;

/// A child process killed when the test ends, however it ends.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

/// `sprague serve` on a free port, and the address it prints.
fn serve() -> (Killed, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sprague"))
        .args(["serve", "--port", "0"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("sprague serve starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    // "sprague serve: http://127.0.0.1:PORT/ (Ctrl-C stops)"
    let url = line
        .split_whitespace()
        .find(|word| word.starts_with("http://"))
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    (Killed(child), url)
}

fn chromedriver() -> (Killed, u16) {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new("chromedriver")
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    (Killed(child), port)
}

async fn connect(port: u16, profile: &std::path::Path) -> Client {
    let mut capabilities = serde_json::Map::new();
    capabilities.insert(
        "goog:chromeOptions".to_string(),
        json!({
            "args": [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--no-first-run", "--disable-background-networking", "--disable-sync",
                "--disable-component-update", "--window-size=1400,1000",
                format!("--user-data-dir={}", profile.display()),
            ]
        }),
    );
    let started = Instant::now();
    loop {
        let client = ClientBuilder::new(HttpConnector::new())
            .capabilities(capabilities.clone())
            .connect(&format!("http://127.0.0.1:{port}"))
            .await;
        match client {
            Ok(client) => return client,
            // chromedriver takes a moment to listen.
            Err(_) if started.elapsed() < Duration::from_secs(20) => {
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(error) => panic!("cannot start a browser session: {error}"),
        }
    }
}

/// The text of an element once `done` holds of it, or a failure saying
/// what it last was.
async fn text_when(client: &Client, id: &str, done: impl Fn(&str) -> bool) -> String {
    let started = Instant::now();
    loop {
        let text = client
            .find(Locator::Id(id))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        if done(&text) {
            return text;
        }
        if started.elapsed() > Duration::from_secs(30) {
            panic!("#{id} never became as expected; it reads:\n{text}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Replaces the editor's text by typing, as a person would.
async fn type_source(client: &Client, source: &str) {
    let input = client
        .find(Locator::Css(".CodeMirror textarea"))
        .await
        .unwrap();
    client
        .find(Locator::Css(".CodeMirror"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    // Select all, then type over it.
    let select_all: String = [Key::Control.into(), 'a', Key::Null.into()]
        .iter()
        .collect();
    input.send_keys(&select_all).await.unwrap();
    input.send_keys(source).await.unwrap();
}

async fn run_with_ctrl_enter(client: &Client) {
    let input = client
        .find(Locator::Css(".CodeMirror textarea"))
        .await
        .unwrap();
    let chord: String = [Key::Control, Key::Enter, Key::Null]
        .map(char::from)
        .iter()
        .collect();
    input.send_keys(&chord).await.unwrap();
}

async fn button(client: &Client, css: &str) -> Element {
    client.find(Locator::Css(css)).await.unwrap()
}

/// Clicks the element `css` finds.
async fn click(client: &Client, css: &str) {
    button(client, css).await.click().await.unwrap();
}

#[tokio::test]
async fn the_page_answers_plays_and_plots_in_a_real_browser() {
    let required = std::env::var("SPRAGUE_BROWSER_TESTS").is_ok_and(|value| value == "require");
    if !on_path("chromedriver") || !(on_path("chromium") || on_path("google-chrome")) {
        assert!(!required, "chromedriver and chromium are required here");
        eprintln!("skipped: no chromedriver and chromium on the PATH");
        return;
    }
    let (_server, url) = serve();
    let (_driver, port) = chromedriver();
    let profile = tempfile::tempdir().unwrap();
    let client = connect(port, profile.path()).await;
    client.goto(&url).await.unwrap();

    // The starting example runs by itself: S = subtraction {1, 2, 3} has
    // values n mod 4, and Nim 3 + 4 + 5 (XOR 2) is won by taking 2 from 3.
    let answers = text_when(&client, "answers", |text| text.contains("best_move")).await;
    assert!(answers.contains("grundy S(7) = 3"), "{answers}");
    assert!(
        answers.contains("*3 -> *1, leaving *1 + *4 + *5"),
        "{answers}"
    );

    // A game typed in and run with Ctrl-Enter: subtraction {1, 2} has
    // values n mod 3; Kayles 1..=4 are OEIS A002186's 1, 2, 3, 1.
    type_source(
        &client,
        "game T = subtraction {1, 2}\ngrundy T(5)\ngame K = octal \"0.77\"\ngrundy K(n) for n in 1..=4\n",
    )
    .await;
    run_with_ctrl_enter(&client).await;
    let answers = text_when(&client, "answers", |text| text.contains("grundy T(5)")).await;
    assert!(answers.contains("grundy T(5) = 2"), "{answers}");
    for (n, value) in [(1, 1), (2, 2), (3, 3), (4, 1)] {
        assert!(
            answers.contains(&format!("grundy K({n}) = {value}")),
            "{answers}"
        );
    }

    // An answer of several lines: its first beside the query, the proof
    // below the source, and the next answer still beside its own line.
    type_source(&client, "why *3 + *4 + *5\nnim 3 * 5\n").await;
    run_with_ctrl_enter(&client).await;
    let answers = text_when(&client, "answers", |text| text.contains("nim 3 * 5")).await;
    let lines: Vec<&str> = answers.lines().collect();
    assert_eq!(lines[0], "why *3 + *4 + *5 = 2", "{answers}");
    assert_eq!(lines[1], "nim 3 * 5 = 15", "{answers}");
    assert!(answers.contains("XOR  010  2"), "{answers}");

    // A mistake is underlined in the editor and explained beside it.
    type_source(&client, "# a slip\ngrundy Nope(3)\n").await;
    click(&client, "#run").await;
    let errors = text_when(&client, "errors", |text| text.contains("Nope")).await;
    assert!(errors.contains("line 2"), "{errors}");
    assert!(errors.contains("help:"), "{errors}");
    let marked = client
        .find_all(Locator::Css(".cm-error-span"))
        .await
        .unwrap();
    assert!(!marked.is_empty(), "the unknown name is underlined");
    assert_eq!(marked[0].text().await.unwrap(), "Nope");

    // The Nim board: 3, 4, 5 has XOR 2 and the player to move wins.
    let verdict = text_when(&client, "verdict", |text| !text.is_empty()).await;
    assert!(verdict.starts_with("XOR 2"), "{verdict}");
    // A move that is not the winning one: the last token of the heap of 5,
    // leaving 3, 4, 4 (XOR 3). sprague replies at once and restores XOR 0.
    click(&client, "#nim .token[data-heap='2'][data-token='4']").await;
    let reply = text_when(&client, "reply", |text| text.starts_with("sprague:")).await;
    assert!(reply.contains("Why"), "{reply}");
    let verdict = text_when(&client, "verdict", |text| text.starts_with("XOR 0")).await;
    assert!(verdict.contains("loses"), "{verdict}");
    let tokens = client.find_all(Locator::Css("#nim .token")).await.unwrap();
    assert!(tokens.len() < 3 + 4 + 4, "sprague took at least one token");
    // Back to 3, 4, 5; two tokens fewer in the heap of 3 leave 1, 4, 5:
    // XOR 0 again, a loss for the player to move.
    click(&client, "#new-nim").await;
    text_when(&client, "verdict", |text| text.starts_with("XOR 2")).await;
    for _ in 0..2 {
        click(&client, "#nim .heap:nth-child(1) button.size").await;
    }
    let binary = text_when(&client, "binary", |text| text.contains("(1)")).await;
    assert!(binary.contains("XOR     000  (0)"), "{binary}");

    // A sequence plotted: S's values n mod 4 with their period marked.
    let select = button(&client, "#sequence-game").await;
    select.select_by_value("S").await.unwrap();
    click(&client, "#sequence-form button").await;
    let note = text_when(&client, "sequence-note", |text| text.starts_with("S:")).await;
    assert!(note.contains("period 4 from n = 0"), "{note}");
    let dots = client
        .find_all(Locator::Css("#sequence svg circle"))
        .await
        .unwrap();
    assert_eq!(dots.len(), 41, "n from 0 to 40");

    // `SPRAGUE_SCREENSHOT=page.png cargo test --test browser` keeps a look.
    let screenshot = client.screenshot().await.unwrap();
    assert!(screenshot.starts_with(b"\x89PNG"), "a screenshot is a PNG");
    if let Some(path) = std::env::var_os("SPRAGUE_SCREENSHOT") {
        std::fs::write(path, &screenshot).unwrap();
    }
    client.close().await.unwrap();
}
