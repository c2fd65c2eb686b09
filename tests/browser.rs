//! The page of `sprague serve` in a real browser: headless Chromium driven
//! through chromedriver (WebDriver), clicking and typing as a person would.
//!
//! Without `chromedriver` and `chromium` on the PATH the test says so and
//! passes, unless `SPRAGUE_BROWSER_TESTS=require` (CI sets it, and
//! installs both). `SPRAGUE_SCREENSHOT=FILE` and
//! `SPRAGUE_PHONE_SCREENSHOT=FILE` keep screenshots of the page, at a
//! desktop's width and a phone's, as the accessibility test leaves it.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
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

/// chromedriver, started in a process group of its own, killed with the
/// browsers it started when the test ends, however it ends: a test that
/// never closes its session leaves no Chromium behind.
struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let group = self.0.id() as libc::pid_t;
        // SAFETY: a signal to the group chromedriver leads, which holds
        // only it and the browsers it started.
        unsafe { libc::kill(-group, libc::SIGKILL) };
        let _ = self.0.wait();
    }
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

/// `sprague serve` on a free port, and the address it prints.
fn serve() -> (Killed, String) {
    serve_with(&[])
}

/// `sprague serve ARGS` on a free port, and the address it prints.
fn serve_with(args: &[&str]) -> (Killed, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sprague"))
        .args(["serve", "--port", "0"])
        .args(args)
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

fn chromedriver() -> (Driver, u16) {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new("chromedriver")
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .expect("chromedriver starts");
    (Driver(child), port)
}

async fn connect(port: u16, profile: &std::path::Path) -> Client {
    connect_at(port, profile, (1400, 1000)).await
}

/// Below [`PHONE`] px wide the browser plays a phone (Chromium's window
/// is never narrower than 500 px): a touch screen of that size.
const PHONE: u32 = 500;

async fn connect_at(port: u16, profile: &std::path::Path, (width, height): (u32, u32)) -> Client {
    let started = Instant::now();
    for attempt in 0.. {
        // A browser that failed to start may leave its profile locked: each
        // attempt starts one with a profile of its own.
        let profile = profile.join(format!("attempt-{attempt}"));
        match try_connect(port, &profile, (width, height)).await {
            Ok(client) => return client,
            // chromedriver takes a moment to listen, and a browser started
            // on a busy machine may not answer it in time.
            Err(_) if started.elapsed() < Duration::from_secs(90) => {
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(error) => panic!("cannot start a browser session: {error}"),
        }
    }
    unreachable!("the attempts go on until one connects or the time is up")
}

async fn try_connect(
    port: u16,
    profile: &std::path::Path,
    (width, height): (u32, u32),
) -> Result<Client, fantoccini::error::NewSessionError> {
    let mut capabilities = serde_json::Map::new();
    let mut options = json!({
        "args": [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--no-first-run", "--disable-background-networking", "--disable-sync",
            "--disable-component-update", "--disable-crash-reporter", "--disable-breakpad",
            format!("--window-size={width},{height}"),
            format!("--user-data-dir={}", profile.display()),
        ]
    });
    // The page's console is kept for [`console`].
    capabilities.insert("goog:loggingPrefs".to_string(), json!({ "browser": "ALL" }));
    if width < PHONE {
        options["mobileEmulation"] = json!({
            "deviceMetrics": { "width": width, "height": height, "pixelRatio": 2, "touch": true }
        });
    }
    capabilities.insert("goog:chromeOptions".to_string(), options);
    ClientBuilder::new(HttpConnector::new())
        .capabilities(capabilities)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
}

/// chromedriver's command for the browser's log: what the page's console
/// has said since last asked (`goog:loggingPrefs` keeps it).
#[derive(Debug)]
struct ConsoleLog;

impl fantoccini::wd::WebDriverCompatibleCommand for ConsoleLog {
    fn endpoint(
        &self,
        base: &url::Url,
        session: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base.join(&format!("session/{}/se/log", session.unwrap_or_default()))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        (
            http::Method::POST,
            Some(json!({ "type": "browser" }).to_string()),
        )
    }
}

/// What the page's console said since last asked, as `LEVEL message`
/// lines.
async fn console(client: &Client) -> Vec<String> {
    let entries = client.issue_cmd(ConsoleLog).await.unwrap();
    entries
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            format!(
                "{} {}",
                entry["level"].as_str().unwrap(),
                entry["message"].as_str().unwrap()
            )
        })
        .collect()
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
    // The table of S's values is too long to sit beside its line: it is
    // cut there, and shown whole below the source.
    assert!(
        answers.contains("grundy S(0) = 0   grundy S(1) = 1"),
        "{answers}"
    );
    let details = text_when(&client, "details", |text| text.contains("line 5")).await;
    assert!(details.contains("grundy S(7) = 3"), "{details}");
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
    // K's table: beside its line as far as the pane allows, whole below.
    let details = text_when(&client, "details", |text| text.contains("line 4")).await;
    for (n, value) in [(1, 1), (2, 2), (3, 3), (4, 1)] {
        assert!(
            details.contains(&format!("grundy K({n}) = {value}")),
            "{details}"
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
    let details = text_when(&client, "details", |text| text.contains("line 1")).await;
    assert!(details.contains("XOR  010  2"), "{details}");

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
    let note = text_when(&client, "sequence-note", |text| text.contains("period 4")).await;
    assert!(note.contains("period 4 from n = 0"), "{note}");
    let dots = client
        .find_all(Locator::Css("#sequence svg circle"))
        .await
        .unwrap();
    assert_eq!(dots.len(), 41, "n from 0 to 40");

    let screenshot = client.screenshot().await.unwrap();
    assert!(screenshot.starts_with(b"\x89PNG"), "a screenshot is a PNG");
    client.close().await.unwrap();
}

/// A browser on the page of a fresh `sprague serve ARGS`, at a window size;
/// `None` (the test passes, saying so) where there is no browser, unless
/// `SPRAGUE_BROWSER_TESTS=require`.
struct Page {
    client: Client,
    server: Option<Killed>,
    _driver: Driver,
    _profile: tempfile::TempDir,
}

impl Page {
    async fn open(args: &[&str], size: (u32, u32)) -> Option<Page> {
        let required = std::env::var("SPRAGUE_BROWSER_TESTS").is_ok_and(|value| value == "require");
        if !on_path("chromedriver") || !(on_path("chromium") || on_path("google-chrome")) {
            assert!(!required, "chromedriver and chromium are required here");
            eprintln!("skipped: no chromedriver and chromium on the PATH");
            return None;
        }
        let (server, url) = serve_with(args);
        let (driver, port) = chromedriver();
        let profile = tempfile::tempdir().unwrap();
        let client = connect_at(port, profile.path(), size).await;
        client.goto(&url).await.unwrap();
        let page = Page {
            client,
            server: Some(server),
            _driver: driver,
            _profile: profile,
        };
        // The page has run its starting source and plotted.
        page.until("the page is ready", "return document.querySelector('#sequence svg circle') !== null && document.getElementById('answers').textContent !== ''").await;
        Some(page)
    }

    /// What `script` (a function body) returns.
    async fn eval(&self, script: &str) -> serde_json::Value {
        self.client.execute(script, vec![]).await.unwrap()
    }

    /// Waits until `script` returns true; fails saying `what` otherwise.
    async fn until(&self, what: &str, script: &str) {
        let started = Instant::now();
        loop {
            if self.eval(script).await == json!(true) {
                return;
            }
            if started.elapsed() > Duration::from_secs(60) {
                panic!("{what}: never came true ({script})");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Types `keys` into whatever has the focus.
    async fn keys(&self, keys: &str) {
        self.client
            .active_element()
            .await
            .unwrap()
            .send_keys(keys)
            .await
            .unwrap();
    }

    /// Replaces the editor's text and runs it with the Run button.
    async fn run(&self, source: &str) {
        type_source(&self.client, source).await;
        click(&self.client, "#run").await;
    }
}

fn key(key: Key) -> String {
    char::from(key).to_string()
}

/// Two errors found in checking: each with its line and its underline
/// (the page showed only "2 errors found while checking").
#[tokio::test]
async fn every_error_is_shown_with_its_line_and_underline() {
    let Some(page) = Page::open(&[], (1400, 1000)).await else {
        return;
    };
    page.run("# two slips\ngrundy Nope(3)\ngrundy Nada(4)\n")
        .await;
    let errors = text_when(&page.client, "errors", |text| text.contains("Nada")).await;
    assert!(errors.contains("line 2"), "{errors}");
    assert!(errors.contains("line 3"), "{errors}");
    let marked = page
        .eval("return [...document.querySelectorAll('.cm-error-span')].map(e => e.textContent)")
        .await;
    assert_eq!(marked, json!(["Nope", "Nada"]));
}

/// The editor is no keyboard trap: Tab indents, Escape then Tab leaves it;
/// Enter on a heap's + or a token keeps the focus on the board.
#[tokio::test]
async fn the_keyboard_leaves_the_editor_and_keeps_its_place_on_the_board() {
    let Some(page) = Page::open(&[], (1400, 1000)).await else {
        return;
    };
    let in_editor = "return document.getElementById('editor').contains(document.activeElement)";
    click(&page.client, ".CodeMirror").await;
    page.keys(&key(Key::Tab)).await;
    assert_eq!(page.eval(in_editor).await, json!(true), "Tab indents");
    page.keys(&format!("{}{}", key(Key::Escape), key(Key::Tab)))
        .await;
    assert_eq!(
        page.eval(in_editor).await,
        json!(false),
        "Escape, Tab leaves"
    );
    let focused = page.eval("return document.activeElement.id").await;
    assert_eq!(
        focused,
        json!("answers"),
        "the next control after the editor"
    );

    // Enter on heap 1's "+": 3 becomes 4, and the "+" keeps the focus.
    page.eval("document.querySelector('[data-key=\"size-0-1\"]').focus()")
        .await;
    page.keys(&key(Key::Enter)).await;
    page.until(
        "heap 1 has 4 tokens",
        "return document.querySelectorAll('#nim .heap:nth-child(1) .token').length === 4",
    )
    .await;
    let key_focused = page.eval("return document.activeElement.dataset.key").await;
    assert_eq!(key_focused, json!("size-0-1"));
    // Enter on the last token of heap 3 (4, 4, 5 → 4, 4, 4): sprague
    // replies, and the focus stays on the board.
    page.eval("document.querySelector('[data-key=\"token-2-4\"]').focus()")
        .await;
    page.keys(&key(Key::Enter)).await;
    text_when(&page.client, "reply", |text| text.starts_with("sprague:")).await;
    let on_board = page
        .eval("return document.getElementById('nim').contains(document.activeElement)")
        .await;
    assert_eq!(on_board, json!(true));
}

/// A run that takes minutes in the editor leaves the board and the plot
/// answering; the editor's Run is disabled meanwhile, its stale answers
/// are gone, and its Cancel stops it.
#[tokio::test]
async fn a_long_run_leaves_the_other_panels_answering() {
    let Some(page) = Page::open(&[], (1400, 1000)).await else {
        return;
    };
    page.run("game G(n) { move G(a) + G(n - a) for a in 1..n if a < n - a }\ngame Up(n) { move Up(n + 1) for k in 1..=30 if n < 100000000 }\ngrundy Up(0)\n").await;
    let editor_busy =
        "return document.getElementById('run').getAttribute('aria-disabled') === 'true'";
    page.until("Run is disabled while the editor runs", editor_busy)
        .await;
    assert_eq!(
        page.eval("return document.getElementById('answers').textContent")
            .await,
        json!(""),
        "the last run's answers are cleared"
    );
    // The board: the last token of the heap of 5 leaves 3, 4, 4; sprague
    // answers while the editor still runs.
    click(&page.client, "#nim .token[data-heap='2'][data-token='4']").await;
    text_when(&page.client, "reply", |text| text.starts_with("sprague:")).await;
    assert_eq!(page.eval(editor_busy).await, json!(true));
    // Grundy's game plotted to 200: the values are drawn at once, while
    // its period is looked for (A002188 has none known).
    page.until(
        "G is in the list",
        "return [...document.getElementById('sequence-game').options].some(o => o.value === 'G')",
    )
    .await;
    button(&page.client, "#sequence-game")
        .await
        .select_by_value("G")
        .await
        .unwrap();
    page.eval("document.getElementById('sequence-to').value = '200'")
        .await;
    click(&page.client, "#sequence-form button").await;
    page.until(
        "201 values are drawn",
        "return document.querySelectorAll('#sequence svg circle').length === 201",
    )
    .await;
    // G(1), G(2), G(3) = 0, 0, 1 (A002188), drawn as the values are.
    assert_eq!(page.eval(editor_busy).await, json!(true));
    // The editor's Cancel stops its run.
    click(&page.client, "#editor-panel .cancel").await;
    page.until(
        "the run is cancelled",
        "return document.getElementById('run').getAttribute('aria-disabled') === 'false'",
    )
    .await;
    // The status is set once the answer is shown, a moment after Run is
    // enabled again.
    page.until(
        "the editor's status says cancelled",
        "return document.querySelector('#editor-panel .lane-status').textContent === 'cancelled'",
    )
    .await;
    let errors = page
        .eval("return document.getElementById('errors').textContent")
        .await;
    let errors = errors.as_str().unwrap();
    assert!(errors.contains("interrupted"), "{errors}");
    // Its help speaks of the button that stopped it, not of Ctrl-C.
    assert!(
        errors.contains("help: Cancel stopped the search"),
        "{errors}"
    );
    assert!(!errors.contains("Ctrl-C"), "{errors}");
    // The plot's Cancel stops the search for a period: the note says so,
    // and the values stay drawn.
    click(&page.client, "#sequence-panel .cancel").await;
    let note = text_when(&page.client, "sequence-note", |text| {
        text.contains("cancelled")
    })
    .await;
    assert_eq!(note, "G: the search for a period was cancelled");
    assert_eq!(
        page.eval("return document.querySelectorAll('#sequence svg circle').length")
            .await,
        json!(201)
    );
}

/// In a source of 41 lines the answers pane scrolls with the editor, so
/// each answer stays beside its line.
#[tokio::test]
async fn the_answers_scroll_with_the_editor() {
    let Some(page) = Page::open(&[], (1400, 1000)).await else {
        return;
    };
    let source: String = (0..41).map(|k| format!("grundy *{k}\n")).collect();
    page.client
        .execute(
            "document.querySelector('.CodeMirror').CodeMirror.setValue(arguments[0])",
            vec![json!(source)],
        )
        .await
        .unwrap();
    click(&page.client, "#run").await;
    text_when(&page.client, "answers", |text| {
        text.contains("grundy *40 = 40")
    })
    .await;
    page.eval("document.querySelector('.CodeMirror').CodeMirror.scrollTo(null, 100000)")
        .await;
    page.until("the answers follow", "const cm = document.querySelector('.CodeMirror').CodeMirror; const top = cm.getScrollInfo().top; return top > 0 && Math.abs(document.getElementById('answers').scrollTop - top) <= 1").await;
    // The line at the top of the editor has its answer at the top of the pane.
    let beside = page
        .eval("const cm = document.querySelector('.CodeMirror').CodeMirror; const line = cm.lineAtHeight(cm.getScrollInfo().top + 6, 'local'); const pane = document.getElementById('answers'); const row = Math.floor((pane.scrollTop + 6 - 4) / 21); return [line, pane.textContent.split('\\n')[row]]")
        .await;
    let line = beside[0].as_u64().unwrap();
    assert_eq!(beside[1], json!(format!("grundy *{line} = {line}")));
}

/// `draw` and `plot` typed in the editor are drawn, not printed as DOT
/// and SVG text.
#[tokio::test]
async fn draw_and_plot_in_the_editor_are_pictures() {
    let Some(page) = Page::open(&[], (1400, 1000)).await else {
        return;
    };
    page.run("game T = subtraction {1, 2}\ndraw T(3)\nplot T for n in 0..=12\n")
        .await;
    page.until(
        "two pictures",
        "return document.querySelectorAll('#details svg, #details img.picture').length === 2",
    )
    .await;
    let text = page
        .eval("return document.getElementById('answers').textContent + document.getElementById('details').textContent")
        .await;
    let text = text.as_str().unwrap();
    assert!(
        !text.contains("digraph") && !text.contains("<svg"),
        "{text}"
    );
    // T(3)'s graph: T(3), T(2), T(1) and the end, *0.
    let boxes = page
        .eval("return document.querySelectorAll('#details svg rect').length")
        .await;
    assert_eq!(boxes, json!(4));
}

/// At a phone's width a plot keeps two thirds of its 900 pixels, its
/// labels legible (shrunk to the pane they were about 6 px), and scrolls
/// sideways in a region the keyboard reaches.
#[tokio::test]
async fn a_plot_on_a_phone_scrolls_at_a_legible_size() {
    let Some(page) = Page::open(&[], (390, 844)).await else {
        return;
    };
    page.run("game T = subtraction {1, 2}\nplot T for n in 0..=40\n")
        .await;
    page.until(
        "the plot is drawn",
        "const image = document.querySelector('#details img.picture'); return image && image.complete && image.naturalWidth > 0",
    )
    .await;
    let shown = page
        .eval("const image = document.querySelector('#details img.picture'); const scroll = image.parentElement; return [image.getBoundingClientRect().width, scroll.clientWidth < scroll.scrollWidth, scroll.tabIndex, scroll.getAttribute('role')]")
        .await;
    assert_eq!(shown, json!([600, true, 0, "region"]));
}

/// Collects the page's uncaught errors and rejections from now on.
const CATCH_ERRORS: &str = "window.uncaught = []; window.addEventListener('error', e => window.uncaught.push(String(e.message))); window.addEventListener('unhandledrejection', e => window.uncaught.push(String(e.reason)));";

/// A stopped server: every button says so plainly, and nothing is left
/// uncaught.
#[tokio::test]
async fn a_stopped_server_is_said_plainly() {
    let Some(mut page) = Page::open(&[], (1400, 1000)).await else {
        return;
    };
    page.eval(CATCH_ERRORS).await;
    drop(page.server.take());
    for css in [
        "#run",
        "#sequence-form button",
        "#graph-form button",
        "#check-form button",
        "#hint",
        "#nim .token[data-heap='0'][data-token='0']",
    ] {
        click(&page.client, css).await;
    }
    page.until("every panel has given up", "return [...document.querySelectorAll('[data-lane]')].every(p => p.getAttribute('aria-busy') !== 'true')").await;
    let gone = text_when(&page.client, "gone", |text| !text.is_empty()).await;
    assert!(gone.contains("not answering"), "{gone}");
    assert_eq!(page.eval("return window.uncaught").await, json!([]));
}

/// At a phone's width: a viewport, one column, nothing wider than the
/// screen, and every control at least 44 px each way.
#[tokio::test]
async fn a_phone_gets_one_column_and_targets_a_finger_can_hit() {
    let Some(page) = Page::open(&[], (390, 844)).await else {
        return;
    };
    let viewport = page
        .eval("return document.querySelector('meta[name=viewport]')?.content")
        .await;
    assert_eq!(viewport, json!("width=device-width, initial-scale=1"));
    let lefts = page
        .eval("return [...new Set([...document.querySelectorAll('.panel')].map(p => Math.round(p.getBoundingClientRect().left)))].length")
        .await;
    assert_eq!(lefts, json!(1), "one column");
    let wide = page
        .eval("return document.documentElement.scrollWidth <= window.innerWidth")
        .await;
    assert_eq!(wide, json!(true), "nothing wider than the screen");
    // With the panels in use: moves to press, a graph with its zoom, an
    // error to go to.
    click(&page.client, "#play-form button").await;
    click(&page.client, "#graph-form button").await;
    page.run("grundy Nope(3)\n").await;
    page.until(
        "the panels are in use",
        "return ['#play .moves button', '#graph .graph-tools button', '#errors button.where'].every(css => document.querySelector(css) !== null)",
    )
    .await;
    let small = page
        .eval("return [...document.querySelectorAll('main button, main input, main select')].filter(e => e.getClientRects().length > 0 && e.type !== 'checkbox').map(e => [e.textContent || e.id || e.className, e.getBoundingClientRect()]).filter(([, r]) => r.height < 44 || (r.width < 44)).map(([name]) => name)")
        .await;
    assert_eq!(small, json!([]), "controls smaller than 44 px");
}

/// The smaller things: `wins?` and `equal?` highlighted, a long table's
/// line cut beside its query (the whole below), a growing sequence said to
/// grow, and the served file first in the editor and kept by a reset.
#[tokio::test]
async fn the_served_file_opens_and_survives_a_reset() {
    let Some(page) = Page::open(&["examples/grundy.game"], (1400, 1000)).await else {
        return;
    };
    let source = page
        .eval("return document.querySelector('.CodeMirror').CodeMirror.getValue()")
        .await;
    assert!(
        source.as_str().unwrap().contains("game Grundy(n)"),
        "{source}"
    );
    // Its queries answered: Grundy(7) is a loss (A002188: G(7) = 0).
    text_when(&page.client, "answers", |text| {
        text.contains("wins? Grundy(7) = false")
    })
    .await;
    page.run("wins? *1\nequal? *1 *1\ngrundy Grundy(n) for n in 0..=300\n")
        .await;
    let keywords = page
        .eval("return [...document.querySelectorAll('.cm-keyword')].map(e => e.textContent)")
        .await;
    for word in ["wins?", "equal?", "grundy", "for", "in"] {
        assert!(
            keywords.as_array().unwrap().contains(&json!(word)),
            "{keywords}"
        );
    }
    let answers = text_when(&page.client, "answers", |text| {
        text.contains("grundy Grundy")
    })
    .await;
    assert!(
        answers.lines().all(|line| line.chars().count() <= 80),
        "{answers}"
    );
    let details = page
        .eval("return document.getElementById('details').textContent")
        .await;
    assert!(
        details.as_str().unwrap().contains("Grundy(300)"),
        "{details}"
    );
    // Reset: the file's games stay.
    click(&page.client, "#reset").await;
    text_when(&page.client, "answers", |text| {
        text.contains("session reset")
    })
    .await;
    page.until("Grundy is still declared", "return [...document.getElementById('sequence-game').options].some(o => o.value === 'Grundy')").await;
    // And the way back to the file: its source in the editor again, run.
    let restore = page
        .eval("return document.getElementById('restore').textContent")
        .await;
    assert_eq!(restore, json!("Back to the served files"));
    click(&page.client, "#restore").await;
    text_when(&page.client, "answers", |text| {
        text.contains("wins? Grundy(7) = false")
    })
    .await;
    let source = page
        .eval("return document.querySelector('.CodeMirror').CodeMirror.getValue()")
        .await;
    assert!(
        source
            .as_str()
            .unwrap()
            .starts_with("# examples/grundy.game\n"),
        "{source}"
    );
    // A saltus: the values grow.
    let note = page
        .eval("return periodNote('N', { period: 1, preperiod: 0, saltus: 1, proven: true, checked_to: 10 })")
        .await;
    assert!(note.as_str().unwrap().contains("grow"), "{note}");
}

/// axe-core, vendored by `web/vendor/axe-core/update.sh`.
const AXE: &str = include_str!("../web/vendor/axe-core/axe.min.js");

/// What axe-core finds against WCAG 2.1 A and AA: each rule broken, with
/// the first few elements breaking it.
async fn axe_violations(page: &Page) -> serde_json::Value {
    page.client.execute(AXE, vec![]).await.unwrap();
    page.client
        .execute_async(
            "const done = arguments[arguments.length - 1];
             axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
               .then(result => done(result.violations.map(v => [v.id, v.help, v.nodes.slice(0, 4).map(n => n.target.join(' '))])))
               .catch(error => done(['axe failed', String(error)]));",
            vec![],
        )
        .await
        .unwrap()
}

/// WCAG 2.1 AA as axe-core checks it, on the page with answers, errors,
/// moves and a plot in it, at a desktop's width and a phone's; and a
/// focused control is outlined.
#[tokio::test]
async fn axe_finds_no_violations() {
    for (size, screenshot) in [
        ((1280, 2300), "SPRAGUE_SCREENSHOT"),
        ((390, 844), "SPRAGUE_PHONE_SCREENSHOT"),
    ] {
        let Some(page) = Page::open(&[], size).await else {
            return;
        };
        page.run("game T = subtraction {1, 2}\ngrundy Nope(3)\n")
            .await;
        text_when(&page.client, "errors", |text| text.contains("Nope")).await;
        assert_eq!(axe_violations(&page).await, json!([]), "at {size:?}");
        let source = "# Take 1 or 2: the values are n mod 3.\ngame T = subtraction {1, 2}\ngrundy T(n) for n in 0..=9\nwins? T(6) + T(4)\nbest_move T(6) + T(4)\nwhy *3 + *4 + *5\ndraw T(4)\n";
        page.run(source).await;
        text_when(&page.client, "answers", |text| text.contains("best_move")).await;
        click(&page.client, "#play-form button").await;
        page.until(
            "the moves are listed",
            "return document.querySelectorAll('#play .moves button').length > 0",
        )
        .await;
        click(&page.client, "#check-form button").await;
        text_when(&page.client, "check", |text| text.starts_with("agreed")).await;
        page.until(
            "the product is charted against the tables",
            "return document.querySelector('#growth tbody tr') !== null",
        )
        .await;
        assert_eq!(axe_violations(&page).await, json!([]), "at {size:?}");
        let outline = page
            .eval("const b = document.getElementById('run'); b.focus({ focusVisible: true }); const s = getComputedStyle(b); return [document.activeElement.id, s.outlineStyle, s.outlineWidth]")
            .await;
        assert_eq!(outline, json!(["run", "solid", "3px"]));
        // `SPRAGUE_SCREENSHOT=page.png SPRAGUE_PHONE_SCREENSHOT=phone.png
        // cargo test --test browser` keeps a look (README's pictures).
        if let Some(path) = std::env::var_os(screenshot) {
            page.eval("window.scrollTo(0, 0); document.activeElement.blur()")
                .await;
            std::fs::write(path, page.client.screenshot().await.unwrap()).unwrap();
        }
    }
}

/// The instrument explains itself: the hint names the winning move by the
/// XOR's columns, the mex of G(n) is shown from its options' values, and
/// the cross-check sets each sum's XOR verdict beside the search's.
#[tokio::test]
async fn the_page_shows_the_winning_move_the_mex_and_both_verdicts() {
    let Some(page) = Page::open(&[], (1400, 1000)).await else {
        return;
    };
    // 3, 4, 5: XOR 010, its 1 in the 2s column, which only the heap of 3
    // (011) has: take 2 from it, leaving 1.
    click(&page.client, "#hint").await;
    let reply = text_when(&page.client, "reply", |text| text.contains("Winning moves")).await;
    assert!(reply.contains("the 2s column"), "{reply}");
    assert!(
        reply.contains("take 2 from the heap of 3, leaving 1"),
        "{reply}"
    );
    assert!(reply.contains("*3 -> *1"), "{reply}");
    // S = subtraction {1, 2, 3}: S(5) moves to S(4), S(3), S(2), of values
    // 0, 3, 2, whose mex is 1 = 5 mod 4.
    page.eval("document.getElementById('mex-n').value = '5'")
        .await;
    click(&page.client, "#mex-form button").await;
    let mex = text_when(&page.client, "mex", |text| text.contains("mex")).await;
    assert!(mex.contains("{0, 2, 3}"), "{mex}");
    assert!(mex.contains("grundy S(5) = 1"), "{mex}");
    // Every sum of the cross-check agrees: the XOR's verdict is the search's.
    page.eval("document.getElementById('check-count').value = '20'")
        .await;
    click(&page.client, "#check-form button").await;
    let check = text_when(&page.client, "check", |text| text.starts_with("agreed")).await;
    assert!(check.starts_with("agreed 20/20"), "{check}");
    let rows = page
        .eval("return [...document.querySelectorAll('#check-table tbody tr')].map(r => [r.cells[2].textContent, r.cells[3].textContent])")
        .await;
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 12, "the first 12 sums are shown");
    for row in rows {
        assert_eq!(row[0], row[1], "the XOR's verdict and the search's");
    }
    // Beside the sums searched, each part's table: a heap *n reaches the
    // n + 1 heaps 0..=n, and the tables' total is their sum.
    let rows = page
        .eval("return [...document.querySelectorAll('#check-table tbody tr')].map(r => [r.cells[0].textContent, r.cells[5].textContent])")
        .await;
    for row in rows.as_array().unwrap() {
        let (sum, tables) = (row[0].as_str().unwrap(), row[1].as_str().unwrap());
        let number = |text: &str| text.trim().replace(',', "").parse::<u64>().unwrap();
        let (total, each) = tables.split_once(" (").expect("a sum of two parts or more");
        let each: Vec<u64> = each
            .trim_end_matches(')')
            .split(" + ")
            .map(number)
            .collect();
        let parts: Vec<&str> = sum.split(" + ").collect();
        assert_eq!(each.len(), parts.len(), "{row}");
        assert_eq!(number(total), each.iter().sum::<u64>(), "{row}");
        for (part, table) in parts.iter().zip(&each) {
            if let Some(heap) = part.strip_prefix('*') {
                assert_eq!(*table, heap.parse::<u64>().unwrap() + 1, "{row}");
            }
        }
    }
}

/// The move graph: S(5) laid out in layers with every move to a smaller
/// heap visible (none drawn through a box it does not join), arrowheads of
/// one size on bold edges too, shown in a view no taller than the panel
/// allows; a sum's components each in a labelled frame; and the view
/// zoomed, panned and fitted by keyboard alone. (The page drew S(5) as
/// one column 1,900 px tall, the moves to S(3) and S(2) hidden behind the
/// boxes, with no zoom or pan.)
#[tokio::test]
async fn the_move_graph_is_laid_out_and_zooms_and_pans_by_keyboard() {
    let Some(page) = Page::open(&[], (1400, 1000)).await else {
        return;
    };
    page.run("game S = subtraction {1, 2, 3}\ngrundy S(5)\n")
        .await;
    text_when(&page.client, "answers", |text| text.contains("S(5) = 1")).await;
    page.eval("document.getElementById('graph-position').value = 'S(5)'")
        .await;
    click(&page.client, "#graph-form button").await;
    page.until(
        "the graph is drawn",
        "return document.querySelectorAll('#graph .node').length === 6",
    )
    .await;
    // S(n) moves to S(n - 1), S(n - 2) and S(n - 3) (*0 for S(0)): 12 moves.
    let crossings = page
        .eval(
            "const boxes = [...document.querySelectorAll('#graph .node')].map(g => [g.dataset.id, g.querySelector('rect').getBBox()]);
             const edges = [...document.querySelectorAll('#graph path.edge')];
             const through = [];
             for (const edge of edges) {
               const length = edge.getTotalLength();
               for (let t = 0; t <= length; t += 2) {
                 const p = edge.getPointAtLength(t);
                 for (const [id, b] of boxes) {
                   if (id === edge.dataset.from || id === edge.dataset.to) continue;
                   if (p.x > b.x + 1 && p.x < b.x + b.width - 1 && p.y > b.y + 1 && p.y < b.y + b.height - 1) through.push(edge.dataset.from + '->' + edge.dataset.to + ' through ' + id);
                 }
               }
             }
             return [edges.length, [...new Set(through)]];",
        )
        .await;
    assert_eq!(crossings, json!([12, []]), "every move visible");
    let shape = page
        .eval(
            "const view = document.querySelector('#graph .graph-view');
             const markers = [...document.querySelectorAll('#graph marker')].map(m => m.getAttribute('markerUnits'));
             const svg = view.querySelector('svg').getBoundingClientRect();
             return [view.getBoundingClientRect().height <= 420, svg.height <= 420, markers.length > 0 && markers.every(u => u === 'userSpaceOnUse')];",
        )
        .await;
    assert_eq!(shape, json!([true, true, true]), "height and arrowheads");
    // By keyboard: Tab from Draw reaches the view; + zooms in, an arrow
    // pans, 0 fits it whole again.
    page.eval("document.querySelector('#graph-form button').focus()")
        .await;
    for _ in 0..6 {
        page.keys(&key(Key::Tab)).await;
        let here = page
            .eval("return document.activeElement.classList.contains('graph-view')")
            .await;
        if here == json!(true) {
            break;
        }
    }
    let view = "const box = document.querySelector('#graph .graph-box'); return [document.activeElement.classList.contains('graph-view'), Number(box.dataset.scale), document.querySelector('#graph svg').getAttribute('viewBox')]";
    let fitted = page.eval(view).await;
    assert_eq!(fitted[0], json!(true), "the view takes the focus: {fitted}");
    page.keys("+").await;
    let zoomed = page.eval(view).await;
    assert!(
        zoomed[1].as_f64() > fitted[1].as_f64(),
        "{zoomed} after {fitted}"
    );
    page.keys(&key(Key::Right)).await;
    let panned = page.eval(view).await;
    let left = |shown: &serde_json::Value| -> f64 {
        shown[2]
            .as_str()
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    assert!(left(&panned) > left(&zoomed), "{panned} after {zoomed}");
    page.keys("0").await;
    assert_eq!(page.eval(view).await, fitted, "0 fits it again");
    // A sum: each component in a frame of its own, labelled.
    page.eval("document.getElementById('graph-position').value = 'S(2) + S(3)'")
        .await;
    click(&page.client, "#graph-form button").await;
    page.until(
        "the sum is drawn",
        "return document.querySelectorAll('#graph .frame').length === 2",
    )
    .await;
    let labels = page
        .eval("return [...document.querySelectorAll('#graph .frame-label')].map(t => t.textContent).sort()")
        .await;
    assert_eq!(labels, json!(["S(2)", "S(3)"]));
}

/// The engine moves first when asked: from 3, 4, 5 it takes 2 from the
/// heap of 3 (the only heap with a 1 in the XOR's highest column), leaving
/// XOR 0. The recurrence is built value by value: G(0) has no options and
/// value 0; S(5) = mex of S(4), S(3), S(2)'s values 0, 3, 2 = 1 (n mod 4
/// for subtraction {1, 2, 3}).
#[tokio::test]
async fn the_engine_moves_first_and_the_recurrence_is_built_value_by_value() {
    let Some(page) = Page::open(&[], (1400, 1000)).await else {
        return;
    };
    click(&page.client, "#engine-first").await;
    let reply = text_when(&page.client, "reply", |text| {
        text.contains("sprague moves first")
    })
    .await;
    assert!(reply.contains("*3 -> *1"), "{reply}");
    let binary = text_when(&page.client, "binary", |text| text.contains("XOR")).await;
    assert!(binary.contains("XOR     000  (0)"), "{binary}");
    let verdict = text_when(&page.client, "verdict", |text| !text.is_empty()).await;
    assert!(verdict.contains("XOR 0"), "{verdict}");
    // The recurrence of S, the game plotted first.
    page.eval("document.getElementById('sequence-game').value = 'S'")
        .await;
    for n in 0..6 {
        click(&page.client, "#recurrence-form button").await;
        page.until(
            "the next value",
            &format!(
                "return document.querySelectorAll('#recurrence li').length === {}",
                n + 1
            ),
        )
        .await;
    }
    let rows = page
        .eval("return [...document.querySelectorAll('#recurrence li')].map(li => li.textContent)")
        .await;
    let rows: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row.as_str().unwrap())
        .collect();
    assert_eq!(rows[0], "S(0): no options; mex{} = 0");
    assert!(
        rows[5].starts_with("S(5): options S(4) = 0, S(3) = 3, S(2) = 2"),
        "{rows:?}"
    );
    assert!(rows[5].ends_with("mex{0, 2, 3} = 1"), "{rows:?}");
    for (n, row) in rows.iter().enumerate() {
        assert!(row.ends_with(&format!("= {}", n % 4)), "{rows:?}");
    }
}

/// The Catalan number C(n): the sorted lists 0 ≤ h1 ≤ … ≤ h(n-1) with
/// h(i) ≤ i, that is the distinct sums of Nim(1) + … + Nim(n - 1) up to
/// the order of their heaps, all a search of that sum can meet.
fn catalan(n: u64) -> u64 {
    (0..n).fold(1, |c, i| c * 2 * (2 * i + 1) / (i + 2))
}

/// The product against the tables: Nim(1) + … + Nim(k) for k = 1..6,
/// each sum's real counts from a cross-check drawn as two lines and listed
/// in a table. Nim(i) reaches the i + 1 heaps 0..=i, so the k tables hold
/// 2 + 3 + … + (k + 1) = k(k + 3)/2 positions; the search meets at most
/// the Catalan number C(k + 1) of sums (14 for k = 3, 429 for k = 6).
/// Keyboard alone redraws it; at a phone's width it fits, at full size.
#[tokio::test]
async fn the_search_of_the_product_is_charted_against_the_tables() {
    for size in [(1280, 1000), (390, 844)] {
        let Some(page) = Page::open(&["examples/nim.game"], size).await else {
            return;
        };
        page.until(
            "Nim is offered for the series",
            "return document.getElementById('growth-game').value === 'Nim'",
        )
        .await;
        click(&page.client, "#growth-form button").await;
        page.until(
            "the series is charted",
            "return document.querySelectorAll('#growth tbody tr').length === 6",
        )
        .await;
        let rows = page
            .eval("return [...document.querySelectorAll('#growth tbody tr')].map(r => [...r.cells].map(c => c.textContent))")
            .await;
        let rows = rows.as_array().unwrap();
        let mut searched = Vec::new();
        for (row, k) in rows.iter().zip(1u64..) {
            let number = |i: usize| {
                row[i]
                    .as_str()
                    .unwrap()
                    .replace(',', "")
                    .parse::<u64>()
                    .unwrap()
            };
            assert_eq!(row[0], json!(k.to_string()));
            assert_eq!(number(2), k * (k + 3) / 2, "{row}");
            assert!(number(1) >= 2 && number(1) <= catalan(k + 1), "{row}");
            searched.push(number(1));
        }
        let caption = page
            .eval("return document.getElementById('growth-caption').textContent")
            .await;
        assert!(
            caption.as_str().unwrap().starts_with("Nim(1) + … + Nim(6)"),
            "{caption}"
        );
        // The numbers are the server's: the same cross-checks asked anew.
        let server = page
            .eval("const sums = [1, 2, 3, 4, 5, 6].map(k => Array.from({ length: k }, (_, i) => `Nim(${i + 1})`).join(' + ')); return request('/api/run', { source: sums.map(s => `crosscheck ${s}`).join('\\n') }).then(r => r.answers.map(a => a.positions))")
            .await;
        assert_eq!(server, json!(searched));
        // Each number is a point: a circle for the search, a square for the
        // tables, with the count in its title, the last also in the legend.
        let points = page
            .eval("return ['searched', 'tabled'].map(s => [...document.querySelectorAll(`#growth svg .growth-${s}`)].map(p => p.querySelector('title').textContent))")
            .await;
        assert_eq!(points[0][5], json!(format!("k = 6: {}", searched[5])));
        assert_eq!(points[1][5], json!("k = 6: 27"));
        let legend = page
            .eval("return [...document.querySelectorAll('#growth svg text')].map(t => t.textContent).join(' | ')")
            .await;
        let legend = legend.as_str().unwrap();
        assert!(
            legend.contains("positions in the k tables (27 at k = 6)"),
            "{legend}"
        );
        assert!(legend.contains("log scale"), "{legend}");
        // On a log scale the larger count is drawn higher.
        let heights = page
            .eval("return ['searched', 'tabled'].map(s => document.querySelectorAll(`#growth svg .growth-${s}`)[5].getBoundingClientRect().top)")
            .await;
        let (search_top, table_top) = (heights[0].as_f64().unwrap(), heights[1].as_f64().unwrap());
        assert_eq!(search_top < table_top, searched[5] > 27, "{heights}");
        // Named for a screen reader, and drawn at its own size: words as
        // large at 390 px as at 1280, nothing past the screen's edge.
        let named = page
            .eval("const s = document.querySelector('#growth svg'); return [s.getAttribute('role'), document.getElementById(s.getAttribute('aria-labelledby')).textContent.length > 0, s.getBoundingClientRect().width >= s.viewBox.baseVal.width - 1, document.documentElement.scrollWidth <= window.innerWidth]")
            .await;
        assert_eq!(named, json!(["img", true, true, true]), "at {size:?}");
        // By keyboard: k to 4, Enter, and the chart has four rows.
        page.eval("const k = document.getElementById('growth-to'); k.focus(); k.select()")
            .await;
        page.keys(&format!("4{}", key(Key::Enter))).await;
        page.until(
            "the series is charted anew",
            "return document.querySelectorAll('#growth tbody tr').length === 4",
        )
        .await;
        // `SPRAGUE_GROWTH_SCREENSHOTS=DIR` keeps a look at the panel after
        // a Check of 20 sums, which charts the series again.
        if let Some(dir) = std::env::var_os("SPRAGUE_GROWTH_SCREENSHOTS") {
            page.eval("document.getElementById('check-count').value = '20'")
                .await;
            click(&page.client, "#check-form button").await;
            text_when(&page.client, "check", |text| text.starts_with("agreed")).await;
            page.until(
                "the series is charted after the check",
                "return document.querySelector('#growth tbody tr') !== null",
            )
            .await;
            page.eval("document.activeElement.blur(); document.getElementById('check-title').scrollIntoView()")
                .await;
            let shot = page.client.screenshot().await.unwrap();
            let name = format!("growth-{}.png", size.0);
            std::fs::write(std::path::Path::new(&dir).join(name), shot).unwrap();
        }
    }
}

/// Starts a clock in the page: every 50 ms it notes how long since the
/// last tick, so a page that stops answering leaves a long gap.
const TICKS: &str = "window.gaps = []; let last = performance.now(); window.ticking = setInterval(() => { const now = performance.now(); window.gaps.push(now - last); last = now; }, 50);";

/// The longest the page went without answering since [`TICKS`], in ms.
const LONGEST_GAP: &str = "return Math.round(Math.max(0, ...window.gaps))";

/// A move graph of more positions than the panel draws at once (200) is
/// summed up: its size, the first position's moves, and a button that
/// draws it anyway. Split(40) has 420 positions: Split(1) to Split(40),
/// and a sum for each move, Split(k) having one to Split(a) + Split(k - a)
/// for each a < k - a, 2 · (0 + 1 + … + 19) = 380 moves in all; Split(40)'s
/// are those of a = 1 to 19. (Drawn at once, its layout took 7.7 s, for a
/// picture 33,000 px wide.)
#[tokio::test]
async fn a_move_graph_too_large_to_read_is_summed_up() {
    let Some(page) = Page::open(&[], (1400, 1000)).await else {
        return;
    };
    page.run("game Split(n) { move Split(a) + Split(n - a) for a in 1..n if a < n - a }\n")
        .await;
    page.until(
        "Split is declared",
        "return [...document.getElementById('sequence-game').options].some(o => o.value === 'Split')",
    )
    .await;
    page.eval("document.getElementById('graph-position').value = 'Split(40)'")
        .await;
    click(&page.client, "#graph-form button").await;
    let summary = text_when(&page.client, "graph", |text| text.contains("anyway")).await;
    assert!(summary.contains("420 positions and 380 moves"), "{summary}");
    let moves = page
        .eval("return [...document.querySelectorAll('#graph .graph-moves li')].map(item => item.textContent.split(',')[0])")
        .await;
    let expected: Vec<String> = (1..20)
        .map(|a| format!("Split({a}) + Split({})", 40 - a))
        .collect();
    assert_eq!(moves, json!(expected));
    assert_eq!(
        page.eval("return document.querySelectorAll('#graph .node').length")
            .await,
        json!(0),
        "nothing laid out unasked"
    );
    // Split(20), 110 positions, is drawn at once.
    page.eval("document.getElementById('graph-position').value = 'Split(20)'")
        .await;
    click(&page.client, "#graph-form button").await;
    page.until(
        "Split(20) is drawn",
        "return document.querySelectorAll('#graph .node').length === 110",
    )
    .await;
}

/// A move graph of hundreds of positions, drawn anyway, is laid out off
/// the page's thread: meanwhile the page answers (the board replies within
/// a second, its clock never stops for a second), the graph's panel says
/// what it is doing, and its Cancel ends the layout within a second.
/// (Split(40), 420 positions and 380 moves, held the page still for 9 s.)
#[tokio::test]
async fn a_large_move_graph_leaves_the_page_answering() {
    let Some(page) = Page::open(&[], (1400, 1000)).await else {
        return;
    };
    page.run("game Split(n) { move Split(a) + Split(n - a) for a in 1..n if a < n - a }\n")
        .await;
    page.until(
        "Split is declared",
        "return [...document.getElementById('sequence-game').options].some(o => o.value === 'Split')",
    )
    .await;
    page.eval(TICKS).await;
    page.eval("document.getElementById('graph-position').value = 'Split(40)'")
        .await;
    click(&page.client, "#graph-form button").await;
    text_when(&page.client, "graph", |text| text.contains("anyway")).await;
    click(&page.client, "#graph .graph-summary button").await;
    page.until(
        "the graph's panel says it lays the graph out",
        "return document.querySelector('#graph-panel .lane-status').textContent.startsWith('laying out 420 positions')",
    )
    .await;
    // The board answers meanwhile: the last token of the heap of 5.
    let asked = Instant::now();
    click(&page.client, "#nim .token[data-heap='2'][data-token='4']").await;
    text_when(&page.client, "reply", |text| text.starts_with("sprague:")).await;
    let answered = asked.elapsed();
    assert!(
        answered < Duration::from_secs(1),
        "the board took {answered:?}"
    );
    let busy =
        "return document.querySelector('[data-lane=graph]').getAttribute('aria-busy') === 'true'";
    assert_eq!(page.eval(busy).await, json!(true), "still laying out");
    // Cancel: the layout ends at once, and no half graph is left.
    let asked = Instant::now();
    click(&page.client, "#graph-panel .cancel").await;
    page.until(
        "the layout is cancelled",
        "return document.querySelector('[data-lane=graph]').getAttribute('aria-busy') === 'false'",
    )
    .await;
    let cancelled = asked.elapsed();
    assert!(
        cancelled < Duration::from_secs(1),
        "Cancel took {cancelled:?}"
    );
    let status = page
        .eval("return document.querySelector('#graph-panel .lane-status').textContent")
        .await;
    assert_eq!(status, json!("cancelled"));
    assert_eq!(
        page.eval("return document.querySelectorAll('#graph .node').length")
            .await,
        json!(0)
    );
    let gap = page.eval(LONGEST_GAP).await.as_u64().unwrap();
    assert!(gap < 1000, "the page stood still for {gap} ms");
    // A smaller one, asked at once, is laid out and drawn whole (the
    // Cancel did not stop it): as many boxes as the DOT the server sent
    // for Split(20) has nodes.
    page.eval("document.getElementById('graph-position').value = 'Split(20)'")
        .await;
    click(&page.client, "#graph-form button").await;
    page.until(
        "Split(20) is drawn",
        "return document.querySelectorAll('#graph .node').length > 0",
    )
    .await;
    let nodes = page
        .eval("return request('/api/run', { source: 'draw Split(20)' }).then(r => [document.querySelectorAll('#graph .node').length, r.answers[0].content.split('\\n').filter(l => /^\\s*(c\\d+_\\d+|sum) \\[label=/.test(l)).length])")
        .await;
    assert_eq!(nodes[0], nodes[1], "{nodes}");
    let gap = page.eval(LONGEST_GAP).await.as_u64().unwrap();
    assert!(gap < 1000, "the page stood still for {gap} ms");
}

/// A page used as a person would (a run, a hint, a move, a plot, a graph, a
/// cross-check) leaves nothing in the console: no error, no warning, no
/// request refused. (Every load logged a 404 for /favicon.ico.)
#[tokio::test]
async fn the_console_stays_clean() {
    let Some(page) = Page::open(&[], (1400, 1000)).await else {
        return;
    };
    click(&page.client, "#hint").await;
    text_when(&page.client, "reply", |text| text.contains("Winning moves")).await;
    click(&page.client, "#play-form button").await;
    page.until(
        "the moves are listed",
        "return document.querySelectorAll('#play .moves button').length > 0",
    )
    .await;
    click(&page.client, "#graph-form button").await;
    page.until(
        "the graph is drawn",
        "return document.querySelectorAll('#graph .node').length > 0",
    )
    .await;
    page.eval("document.getElementById('check-count').value = '10'")
        .await;
    click(&page.client, "#check-form button").await;
    text_when(&page.client, "check", |text| text.starts_with("agreed")).await;
    let said: Vec<String> = console(&page.client)
        .await
        .into_iter()
        .filter(|line| !line.starts_with("INFO") && !line.starts_with("DEBUG"))
        .collect();
    assert_eq!(said, Vec::<String>::new());
}

/// Cancel, in a panel that is not the editor, says "cancelled", not the
/// help the command line gives for Ctrl-C: Play of a position whose value
/// takes minutes, and the mex of the same.
#[tokio::test]
async fn a_cancelled_panel_says_so() {
    let Some(page) = Page::open(&[], (1400, 1000)).await else {
        return;
    };
    page.run("game Up(n) { move Up(n + 1) for k in 1..=30 if n < 100000000 }\n")
        .await;
    page.until(
        "Up is declared",
        "return [...document.getElementById('sequence-game').options].some(o => o.value === 'Up')",
    )
    .await;
    for (panel, setup, start) in [
        (
            "board",
            "document.getElementById('play-position').value = 'Up(0) + *1'",
            "#play-form button",
        ),
        (
            "sequence",
            "document.getElementById('sequence-game').value = 'Up'; document.getElementById('mex-n').value = '0'",
            "#mex-form button",
        ),
    ] {
        page.eval(setup).await;
        click(&page.client, start).await;
        let working = format!(
            "return document.querySelector('#{panel}-panel .lane-status').textContent.startsWith('working… ')"
        );
        page.until("the panel shows its progress", &working).await;
        click(&page.client, &format!("#{panel}-panel .cancel")).await;
        let status =
            format!("return document.querySelector('#{panel}-panel .lane-status').textContent");
        page.until(
            "the panel is cancelled",
            &format!("{status} === 'cancelled'"),
        )
        .await;
        let text = page
            .eval(&format!(
                "return document.getElementById('{panel}-panel').textContent"
            ))
            .await;
        assert!(!text.as_str().unwrap().contains("Ctrl-C"), "{text}");
    }
}

/// A slip at the end of the input (a bracket left open) is marked where
/// the text ends, on that line, not on the empty line after it, where
/// there is nothing to underline.
#[tokio::test]
async fn a_slip_at_the_end_of_the_input_is_marked_where_the_text_ends() {
    let Some(page) = Page::open(&[], (1400, 1000)).await else {
        return;
    };
    page.run("game T = subtraction {1, 2}\ngrundy T(\n").await;
    let errors = text_when(&page.client, "errors", |text| text.contains("end of input")).await;
    assert!(errors.contains("line 2:"), "{errors}");
    let marked = page
        .eval("return [...document.querySelectorAll('.CodeMirror-line')].map(line => line.querySelectorAll('.cm-error-span').length)")
        .await;
    assert_eq!(marked, json!([0, 1, 0]));
}

/// Beside its line, an answer is cut where the pane ends, with "…", and
/// shown whole below: nothing runs past the pane's edge, at a desktop's
/// width and a phone's. S's values for n to 30 are a line of 31 answers;
/// best_move of 3, 4, 5 is one of 56 characters, wider than a phone's pane.
#[tokio::test]
async fn answers_beside_their_lines_fit_the_pane() {
    for size in [(1400, 1000), (390, 844)] {
        let Some(page) = Page::open(&[], size).await else {
            return;
        };
        page.run(
            "game S = subtraction {1, 2, 3}\ngrundy S(n) for n in 0..=30\nbest_move *3 + *4 + *5\n",
        )
        .await;
        text_when(&page.client, "answers", |text| text.contains("best_move")).await;
        let answers = page
            .eval("return document.getElementById('answers').textContent")
            .await;
        let lines: Vec<&str> = answers.as_str().unwrap().lines().collect();
        assert!(lines[1].starts_with("grundy S(0) = 0"), "{answers}");
        assert!(lines[1].ends_with('…'), "{answers}");
        let fits = page
            .eval("const pane = document.getElementById('answers'); return pane.scrollWidth <= pane.clientWidth")
            .await;
        assert_eq!(fits, json!(true), "at {size:?}: {answers}");
        let details = page
            .eval("return document.getElementById('details').textContent")
            .await;
        let details = details.as_str().unwrap();
        // S(30) = 30 mod 4 = 2.
        assert!(details.contains("grundy S(30) = 2"), "{details}");
        let whole = "*3 -> *1, leaving *1 + *4 + *5";
        if !lines[2].ends_with('…') {
            assert!(lines[2].ends_with(whole), "{answers}");
        } else {
            assert!(details.contains(whole), "at {size:?}: {details}");
        }
        if size.0 < PHONE {
            assert!(
                lines[2].ends_with('…'),
                "a phone's pane is narrow: {answers}"
            );
        }
    }
}

/// The panels start on what the served files declare: a game on a board
/// (Node Kayles takes a region) is not offered for plotting, and the first
/// game of integers is plotted (the path's values are Dawson's Kayles',
/// OEIS A002187: 0, 1, 1, 2, 0, 3, 1, 1, 0); with the tour served (no S),
/// Play and Draw start on its first game, Nim.
#[tokio::test]
async fn the_panels_start_on_the_served_files_games() {
    let Some(page) = Page::open(&["examples/node_kayles.game"], (1400, 1000)).await else {
        return;
    };
    let offered = page
        .eval("return [...document.getElementById('sequence-game').options].map(o => o.value)")
        .await;
    assert_eq!(offered, json!(["NodeKaylesPath", "NodeKaylesLadder"]));
    let values = page
        .eval("return [...document.querySelectorAll('#sequence svg circle')].slice(0, 9).map(c => c.querySelector('title').textContent)")
        .await;
    let expected: Vec<String> = [0, 1, 1, 2, 0, 3, 1, 1, 0]
        .iter()
        .enumerate()
        .map(|(n, g)| format!("n = {n}, G(n) = {g}"))
        .collect();
    assert_eq!(values, json!(expected));
    drop(page);

    let Some(page) = Page::open(&["examples/tour.game"], (1400, 1000)).await else {
        return;
    };
    click(&page.client, "#play-form button").await;
    // Nim(7) + *2: 7 XOR 2 = 5.
    let play = text_when(&page.client, "play", |text| text.contains("grundy")).await;
    assert!(play.starts_with("Position Nim(7) + *2: grundy 5"), "{play}");
    click(&page.client, "#graph-form button").await;
    // Nim(5) moves to Nim(4), …, Nim(0): six positions.
    page.until(
        "Nim(5) is drawn",
        "return document.querySelectorAll('#graph .node').length === 6",
    )
    .await;
}

/// The answers of the last run follow their queries as the source is
/// edited: lines typed above push them down, a query's line deleted takes
/// its answer with it. (They stayed on the rows they were on, beside
/// other lines.)
#[tokio::test]
async fn answers_follow_their_lines_as_the_source_is_edited() {
    let Some(page) = Page::open(&[], (1400, 1000)).await else {
        return;
    };
    let rows = "return document.getElementById('answers').textContent.split('\\n').map(row => row.split(' ')[0])";
    let beside = |query: &str, line: usize| {
        format!(
            "const cm = document.querySelector('.CodeMirror').CodeMirror; const rows = document.getElementById('answers').textContent.split('\\n'); return cm.getLine({line}).startsWith('{query}') && rows[{line}].startsWith('{query}')"
        )
    };
    // The example: `period S` on line 6, `best_move` on line 13.
    page.until("period S is answered on line 6", &beside("period", 5))
        .await;
    page.until("best_move is answered on line 13", &beside("best_move", 12))
        .await;
    // Two lines typed at the very top.
    click(&page.client, ".CodeMirror").await;
    let to_top: String = [Key::Control.into(), char::from(Key::Home), Key::Null.into()]
        .iter()
        .collect();
    page.keys(&to_top).await;
    page.keys(&format!("{}{}", key(Key::Enter), key(Key::Enter)))
        .await;
    page.until(
        "best_move's answer is pushed down to line 15",
        &beside("best_move", 14),
    )
    .await;
    assert_eq!(page.eval(&beside("period", 7)).await, json!(true));
    // `period S` deleted, with its line.
    page.eval("const cm = document.querySelector('.CodeMirror').CodeMirror; cm.replaceRange('', { line: 7, ch: 0 }, { line: 8, ch: 0 })")
        .await;
    page.until(
        "best_move's answer comes up to line 14",
        &beside("best_move", 13),
    )
    .await;
    let shown = page.eval(rows).await;
    assert!(
        !shown.as_array().unwrap().contains(&json!("period")),
        "{shown}"
    );
}

/// A position typed with a slip and played: the panel says what is wrong
/// and how to mend it, and the console stays clean (the server's 422 was
/// logged there as a failed request).
#[tokio::test]
async fn a_slip_in_a_played_position_is_shown_and_the_console_stays_clean() {
    let Some(page) = Page::open(&[], (1400, 1000)).await else {
        return;
    };
    console(&page.client).await;
    for start in ["#play-form button", "#play-first"] {
        page.eval("document.getElementById('play').textContent = ''; document.getElementById('play-position').value = 'S(7) +'")
            .await;
        click(&page.client, start).await;
        let said = text_when(&page.client, "play", |text| !text.is_empty()).await;
        assert!(said.contains("end of input"), "{start}: {said}");
        assert!(said.contains("help:"), "{start}: {said}");
    }
    let said: Vec<String> = console(&page.client)
        .await
        .into_iter()
        .filter(|line| !line.starts_with("INFO") && !line.starts_with("DEBUG"))
        .collect();
    assert_eq!(said, Vec::<String>::new());
}

/// The plotted values are in a table under the plot, its text
/// alternative: the plot says so (`aria-describedby`), the table is a
/// region named by its caption that Tab reaches after Plot and the arrow
/// keys scroll, and it holds every n with G(n). S = subtraction {1, 2, 3}
/// has G(n) = n mod 4. (The values were only in the dots' tooltips.)
#[tokio::test]
async fn the_plotted_values_are_in_a_table_the_keyboard_reaches() {
    let Some(page) = Page::open(&[], (1400, 1000)).await else {
        return;
    };
    page.until(
        "S's period is marked",
        "return document.getElementById('sequence-note').textContent.includes('period 4')",
    )
    .await;
    let described = page
        .eval("const id = document.querySelector('#sequence svg').getAttribute('aria-describedby'); return document.getElementById(id)?.textContent")
        .await;
    assert!(
        described
            .as_str()
            .unwrap()
            .contains("G(n) of S for n = 0 to 40"),
        "{described}"
    );
    let rows = page
        .eval("return [...document.querySelectorAll('#sequence-table tbody tr')].map(row => [...row.cells].map(cell => cell.textContent))")
        .await;
    let expected: Vec<[String; 2]> = (0..=40)
        .map(|n| [n.to_string(), (n % 4).to_string()])
        .collect();
    assert_eq!(rows, json!(expected));
    let named = page
        .eval("const region = document.getElementById('sequence-table'); return [region.getAttribute('role'), document.getElementById(region.getAttribute('aria-labelledby')).tagName]")
        .await;
    assert_eq!(named, json!(["region", "CAPTION"]));
    // From Plot, Tab reaches the table; the arrow keys scroll it.
    page.eval("document.querySelector('#sequence-form button:not(.cancel)').focus()")
        .await;
    page.keys(&key(Key::Tab)).await;
    assert_eq!(
        page.eval("return document.activeElement.id").await,
        json!("sequence-table")
    );
    for _ in 0..5 {
        page.keys(&key(Key::Down)).await;
    }
    page.until(
        "the table scrolls",
        "return document.getElementById('sequence-table').scrollTop > 0",
    )
    .await;
}

/// A source past the server's cap on a request (1 MiB) is not sent to be
/// refused (a 413 in the console): the page says how large it is and what
/// to do. An empty source says so, where it showed nothing at all; and the
/// cross-check's table is a stop for the keyboard only once it holds sums.
#[tokio::test]
async fn empty_and_huge_sources_are_said_plainly() {
    let Some(page) = Page::open(&[], (1400, 1000)).await else {
        return;
    };
    console(&page.client).await;
    let status = "return document.querySelector('#editor-panel .lane-status').textContent";
    let tab_stop = "return document.getElementById('check-table').tabIndex";
    assert_eq!(page.eval(tab_stop).await, json!(-1), "an empty table");
    page.client
        .execute(
            "document.querySelector('.CodeMirror').CodeMirror.setValue('')",
            vec![],
        )
        .await
        .unwrap();
    click(&page.client, "#run").await;
    page.until(
        "the empty source is said to be empty",
        &format!("{status} === 'nothing to run: the source is empty'"),
    )
    .await;
    // 150,000 lines of 10 bytes: 1.5 MB.
    page.client
        .execute(
            "document.querySelector('.CodeMirror').CodeMirror.setValue('grundy *1\\n'.repeat(150000))",
            vec![],
        )
        .await
        .unwrap();
    click(&page.client, "#run").await;
    page.until(
        "the source is said too large",
        &format!("{status}.startsWith('too large to send')"),
    )
    .await;
    let said = page.eval(status).await;
    let said = said.as_str().unwrap();
    assert!(said.contains("1,048,576"), "{said}");
    assert!(said.contains("sprague serve FILE"), "{said}");
    let logged: Vec<String> = console(&page.client)
        .await
        .into_iter()
        .filter(|line| !line.starts_with("INFO") && !line.starts_with("DEBUG"))
        .collect();
    assert_eq!(logged, Vec::<String>::new());
    page.eval("document.getElementById('check-count').value = '5'")
        .await;
    click(&page.client, "#check-form button").await;
    text_when(&page.client, "check", |text| text.starts_with("agreed")).await;
    assert_eq!(page.eval(tab_stop).await, json!(0), "a table of sums");
}

/// A Cancel pressed from the keyboard hides itself as the computation
/// ends: the focus goes back to the control that started it (it fell to
/// the top of the page): Run for a long run, the button that drew a large
/// graph anyway for its layout.
#[tokio::test]
async fn a_cancel_from_the_keyboard_gives_the_focus_back() {
    let Some(page) = Page::open(&[], (1400, 1000)).await else {
        return;
    };
    page.run("game Split(n) { move Split(a) + Split(n - a) for a in 1..n if a < n - a }\ngame Up(n) { move Up(n + 1) for k in 1..=30 if n < 100000000 }\ngrundy Up(0)\n").await;
    page.until(
        "the editor runs",
        "return document.querySelector('#editor-panel .lane-status').textContent.startsWith('working')",
    )
    .await;
    page.eval("document.querySelector('#editor-panel .cancel').focus()")
        .await;
    page.keys(&key(Key::Enter)).await;
    page.until(
        "the run is cancelled",
        "return document.querySelector('[data-lane=editor]').getAttribute('aria-busy') === 'false'",
    )
    .await;
    assert_eq!(
        page.eval("return document.activeElement.id").await,
        json!("run")
    );
    page.eval("document.getElementById('graph-position').value = 'Split(40)'")
        .await;
    click(&page.client, "#graph-form button").await;
    text_when(&page.client, "graph", |text| text.contains("anyway")).await;
    page.eval("document.querySelector('#graph .graph-summary button').focus()")
        .await;
    page.keys(&key(Key::Enter)).await;
    page.until(
        "the graph is laid out",
        "return document.querySelector('#graph-panel .lane-status').textContent.startsWith('laying out')",
    )
    .await;
    page.eval("document.querySelector('#graph-panel .cancel').focus()")
        .await;
    page.keys(&key(Key::Enter)).await;
    page.until(
        "the layout is cancelled",
        "return document.querySelector('[data-lane=graph]').getAttribute('aria-busy') === 'false'",
    )
    .await;
    let focused = page.eval("return document.activeElement.textContent").await;
    assert_eq!(focused, json!("Draw all 420 anyway"));
}

/// A position with hundreds of moves lists 500 of them, and the next ones
/// when asked, the focus on the first of those: *1 + *2 + … + *40 has
/// 1 + 2 + … + 40 = 820 moves (a heap of k has k), and value 1 ^ 2 ^ … ^
/// 40 = 40. (50,000 heaps listed 150,000 buttons and held the page still
/// for 7 s.)
#[tokio::test]
async fn a_position_with_many_moves_lists_them_as_asked() {
    let Some(page) = Page::open(&[], (1400, 1000)).await else {
        return;
    };
    let heaps: Vec<String> = (1..=40).map(|k| format!("*{k}")).collect();
    page.client
        .execute(
            "document.getElementById('play-position').value = arguments[0]",
            vec![json!(heaps.join(" + "))],
        )
        .await
        .unwrap();
    click(&page.client, "#play-form button").await;
    let play = text_when(&page.client, "play", |text| text.contains("grundy")).await;
    assert!(play.contains(": grundy 40,"), "{play}");
    let listed = "return document.querySelectorAll('#play .moves button').length";
    assert_eq!(page.eval(listed).await, json!(500));
    let more = page
        .eval("return document.querySelector('#play .more-moves').textContent")
        .await;
    assert_eq!(more, json!("List 320 more (500 of 820 moves listed)"));
    page.eval("document.querySelector('#play .more-moves').focus()")
        .await;
    page.keys(&key(Key::Enter)).await;
    page.until("every move is listed", &format!("{listed} === 820"))
        .await;
    let focused = page
        .eval("return document.activeElement.textContent.split('.')[0]")
        .await;
    assert_eq!(focused, json!("501"));
    assert_eq!(
        page.eval("return document.querySelector('#play .more-moves')")
            .await,
        json!(null)
    );
}
