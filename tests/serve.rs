//! The JSON API of `sprague serve`, without a browser: shapes, status
//! codes, the Host and Origin checks, refused file writes, the body cap
//! and cancellation.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use sprague::engine::DEFAULT_MAX_STATES;
use sprague::serve::{MAX_BODY, Shared, router};
use sprague::session::Session;
use tower::ServiceExt;

const HOST: &str = "127.0.0.1:7878";

fn shared() -> Arc<Shared> {
    let addr: SocketAddr = HOST.parse().unwrap();
    Shared::new(addr, Box::new(|| Session::interactive(DEFAULT_MAX_STATES)))
}

/// Sends a request with the given headers; answers the status and JSON.
async fn send(
    shared: &Arc<Shared>,
    path: &str,
    body: Option<Value>,
    headers: &[(&str, &str)],
) -> (StatusCode, Value) {
    let mut request = Request::builder()
        .uri(path)
        .method(if body.is_some() { "POST" } else { "GET" })
        .header("content-type", "application/json");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let body = body.map_or(String::new(), |body| body.to_string());
    send_text(shared, request, body).await
}

/// Sends a request with a body of any text; answers the status and JSON.
async fn send_text(
    shared: &Arc<Shared>,
    request: axum::http::request::Builder,
    body: String,
) -> (StatusCode, Value) {
    let body = Body::from(body);
    let response = router(shared.clone())
        .oneshot(request.body(body).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let json = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    (status, json)
}

async fn post(shared: &Arc<Shared>, path: &str, body: Value) -> (StatusCode, Value) {
    send(shared, path, Some(body), &[("host", HOST)]).await
}

#[tokio::test]
async fn run_answers_as_run_json_does_and_declarations_persist() {
    let shared = shared();
    let (status, body) = post(
        &shared,
        "/api/run",
        json!({ "source": "game S = subtraction {1, 2, 3}\n\ngrundy S(n) for n in 5..=6\nbest_move *3 + *4 + *5" }),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    // S(1, 2, 3) has values n mod 4; Nim 3, 4, 5 has XOR 2: take 2 from 3.
    assert_eq!(
        body["answers"][0],
        json!({"query": "grundy", "position": "S(5)", "value": 1, "bindings": {"n": 5}})
    );
    assert_eq!(body["answers"][1]["value"], 2);
    assert_eq!(
        body["texts"][2],
        "best_move *3 + *4 + *5 = *3 -> *1, leaving *1 + *4 + *5"
    );
    assert_eq!(body["lines"], json!([2, 2, 3]));
    assert_eq!(body["errors"], json!([]));
    // S is still declared in the next source; after a reset it is not.
    let (_, body) = post(&shared, "/api/run", json!({ "source": "grundy S(8)" })).await;
    assert_eq!(body["answers"][0]["value"], 0);
    let (status, _) = post(&shared, "/api/reset", json!({})).await;
    assert_eq!(status, StatusCode::OK);
    let (_, body) = post(&shared, "/api/run", json!({ "source": "grundy S(8)" })).await;
    assert_eq!(body["errors"][0]["code"], "sprague::check::unknown_game");
}

#[tokio::test]
async fn errors_are_miette_reports_with_spans_in_the_source_sent() {
    let shared = shared();
    // An earlier source moves where the session's spans start.
    post(&shared, "/api/run", json!({ "source": "grundy *1" })).await;
    let source = "grundy *2\ngrundy Foo(3)";
    let (status, body) = post(&shared, "/api/run", json!({ "source": source })).await;
    assert_eq!(status, StatusCode::OK);
    let error = &body["errors"][0];
    assert_eq!(error["code"], "sprague::check::unknown_game");
    assert!(error["help"].as_str().unwrap().contains("declare it"));
    let span = &error["labels"][0]["span"];
    let offset = span["offset"].as_u64().unwrap() as usize;
    let length = span["length"].as_u64().unwrap() as usize;
    assert_eq!(&source[offset..offset + length], "Foo");
}

#[tokio::test]
async fn file_writes_are_refused() {
    let shared = shared();
    let source = "draw *2 to \"/tmp/sprague-serve-test.dot\"";
    let (_, body) = post(&shared, "/api/run", json!({ "source": source })).await;
    assert_eq!(body["errors"][0]["code"], "sprague::eval::files_refused");
    assert!(!std::path::Path::new("/tmp/sprague-serve-test.dot").exists());
    // Without `to`, the picture comes back in the answer.
    let (_, body) = post(&shared, "/api/run", json!({ "source": "draw *2" })).await;
    assert!(
        body["answers"][0]["content"]
            .as_str()
            .unwrap()
            .starts_with("digraph")
    );
}

#[tokio::test]
async fn other_hosts_and_other_sites_pages_are_refused() {
    let shared = shared();
    let run = Some(json!({ "source": "grundy *1" }));
    let refused = [
        vec![("host", "evil.example:7878")],
        vec![("host", "127.0.0.1:9999")],
        vec![("host", HOST), ("origin", "http://evil.example")],
        vec![("host", HOST), ("origin", "http://localhost:7878")],
    ];
    for headers in refused {
        let (status, body) = send(&shared, "/api/run", run.clone(), &headers).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{headers:?}");
        assert!(body["error"].is_string());
    }
    let allowed = [
        vec![("host", HOST)],
        vec![
            ("host", "localhost:7878"),
            ("origin", "http://localhost:7878"),
        ],
    ];
    for headers in allowed {
        let (status, _) = send(&shared, "/api/run", run.clone(), &headers).await;
        assert_eq!(status, StatusCode::OK, "{headers:?}");
    }
    let (status, _) = send(&shared, "/", None, &[("host", "evil.example")]).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn bodies_past_the_cap_are_refused() {
    let shared = shared();
    let source = "#".repeat(MAX_BODY + 1);
    let (status, body) = post(&shared, "/api/run", json!({ "source": source })).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(body["error"].as_str().is_some(), "{body}");
}

#[tokio::test]
async fn malformed_bodies_are_answered_in_json() {
    let shared = shared();
    let request = || {
        Request::builder()
            .uri("/api/run")
            .method("POST")
            .header("host", HOST)
            .header("content-type", "application/json")
    };
    let (status, body) = send_text(&shared, request(), "grundy *3".to_string()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(body["error"].as_str().unwrap().contains("JSON"), "{body}");
    let wrong_field = json!({ "src": "grundy *3" }).to_string();
    let (status, body) = send_text(&shared, request(), wrong_field).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(body["error"].as_str().unwrap().contains("source"), "{body}");
    let (status, body) = post(
        &shared,
        "/api/play",
        json!({ "position": "*3", "move": "one" }),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(body["error"].as_str().unwrap().contains("move"), "{body}");
}

#[tokio::test]
async fn moves_and_play_restore_xor_zero() {
    let shared = shared();
    let (status, body) = post(&shared, "/api/moves", json!({ "position": "*3 + *4 + *5" })).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["grundy"], 2);
    assert_eq!(body["wins"], true);
    assert_eq!(body["moves"].as_array().unwrap().len(), 3 + 4 + 5);
    // Take 3 from the heap of 4: XOR 3 ^ 1 ^ 5 = 7; the engine answers with
    // a move back to XOR 0.
    let (status, body) = post(
        &shared,
        "/api/play",
        json!({ "position": "*3 + *4 + *5", "to": "*3 + *1 + *5" }),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["you"]["leaves"], "*3 + *1 + *5");
    assert_eq!(body["reply"]["winning"], true);
    let heaps: Vec<u64> = body["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|part| part["heap"].as_u64().unwrap())
        .collect();
    assert_eq!(heaps.iter().fold(0, |x, h| x ^ h), 0, "{heaps:?}");
    assert_eq!(body["grundy"], 0);
    // By number; a number past the list is refused, in `errors` as a
    // source's slips are.
    let (status, body) = post(&shared, "/api/play", json!({ "position": "*1", "move": 1 })).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["winner"], "you");
    // A number past the list, a position not one move away: each error
    // has its code and help, as every report has.
    for asked in [json!({ "move": 2 }), json!({ "to": "*3" })] {
        let mut request = json!({ "position": "*1" });
        request
            .as_object_mut()
            .unwrap()
            .extend(asked.as_object().unwrap().clone());
        let (status, body) = post(&shared, "/api/play", request).await;
        assert_eq!(status, StatusCode::OK);
        let error = &body["errors"][0];
        assert_eq!(error["code"], "sprague::play::no_such_move", "{body}");
        assert!(error["help"].as_str().is_some(), "{body}");
    }
    assert!(
        body_message(&shared, json!({ "position": "*1", "move": 2 }))
            .await
            .contains("no move 2")
    );
}

async fn body_message(shared: &Arc<Shared>, request: Value) -> String {
    let (_, body) = post(shared, "/api/play", request).await;
    body["errors"][0]["message"].as_str().unwrap().to_owned()
}

/// The engine may move first: from 3, 4, 5 (XOR 2, a win for the player
/// to move) it leaves XOR 0; from a position with no move it says so.
#[tokio::test]
async fn the_engine_moves_first_when_asked() {
    let shared = shared();
    let first = json!({ "position": "*3 + *4 + *5", "first": true });
    let (status, body) = post(&shared, "/api/play", first).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["you"], Value::Null, "{body}");
    assert_eq!(body["reply"]["winning"], true, "{body}");
    // The heap of 3 (011) holds the XOR's highest bit: 3 ^ 2 = 1.
    assert_eq!(body["reply"]["leaves"], "*1 + *4 + *5", "{body}");
    assert_eq!(body["grundy"], 0, "{body}");
    assert_eq!(body["winner"], Value::Null, "{body}");
    // From *0 the engine has no move, and loses.
    let first = json!({ "position": "*0", "first": true });
    let (status, body) = post(&shared, "/api/play", first).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["winner"], "you", "{body}");
    assert_eq!(body["reply"], Value::Null, "{body}");
    // Taking the last token: sprague moves, and has won.
    let first = json!({ "position": "*2", "first": true });
    let (_, body) = post(&shared, "/api/play", first).await;
    assert_eq!(body["winner"], "sprague", "{body}");
}

/// The page's answer when the engine moves first from `position`, in a
/// session that has run `source`.
async fn engine_first(source: &str, position: &str) -> Value {
    let shared = shared();
    let (status, _) = post(&shared, "/api/run", json!({ "source": source })).await;
    assert_eq!(status, StatusCode::OK);
    let first = json!({ "position": position, "first": true });
    let (status, body) = post(&shared, "/api/play", first).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

/// Where every move loses, the engine keeps the game going longest. G(n)
/// moves to G(0) or G(n - 1), so G(n) = *n and lasts n moves at most:
/// from G(2) + G(2), worth 0, the move to G(0), listed first, leaves play
/// of 2 moves at most, the move to G(1) play of 3, and that is the one.
#[tokio::test]
async fn a_losing_engine_leaves_the_longest_play() {
    let source = "game G(n) {\n  move G(0) if n > 0\n  move G(n - 1) if n > 0\n}";
    let body = engine_first(source, "G(2) + G(2)").await;
    assert_eq!(body["reply"]["winning"], false, "{body}");
    assert_eq!(body["reply"]["leaves"], "G(1) + G(2)", "{body}");
}

/// A loopy game's play may not end, so it has no longest play: where
/// every move loses and none keeps the game drawn, the engine plays the
/// first. Seesaw(4) is worth 0, and each of its moves leaves a position
/// of value ∞(0), a win for the player to move.
#[tokio::test]
async fn a_losing_engine_moves_in_a_loopy_game() {
    let source = "game Seesaw(n) {\n  move Seesaw(n - k) for k in 1..=3 if k <= n\n  move Seesaw(n + 1) if n >= 1 and n < 4\n}";
    let body = engine_first(source, "Seesaw(4)").await;
    assert_eq!(body["errors"], Value::Null, "{body}");
    assert_eq!(body["reply"]["winning"], false, "{body}");
    assert_eq!(body["reply"]["leaves"], "Seesaw(3)", "{body}");
}

/// `/api/moves` and `/api/play` show a board as written, as `moves` and the
/// REPL's `play` do: each domino of Cram on a 2 × 3 grid by the cells it
/// takes (seven moves, seven different lines, where the search's parts
/// make four), and the position after a move on the grid asked.
#[tokio::test]
async fn play_shows_boards_as_written() {
    let shared = shared();
    let cram = "game Cram(s) splits up to symmetry {\n  move Cram(s - {a, b}) for a in s, b in neighbours(s, a) if a < b\n}\n";
    let (status, _) = post(&shared, "/api/run", json!({ "source": cram })).await;
    assert_eq!(status, StatusCode::OK);
    let board = "Cram(Grid(2, 3))";
    let (status, body) = post(&shared, "/api/moves", json!({ "position": board })).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["position"], board);
    // The dominoes of 2 × 3: two flat in each row, three upright.
    let mut dominoes: Vec<String> = [(0, 1), (1, 2), (3, 4), (4, 5), (0, 3), (1, 4), (2, 5)]
        .iter()
        .map(|(a, b)| format!("Cram(Grid(2, 3) - {{{a}, {b}}})"))
        .collect();
    dominoes.sort();
    let mut leaves: Vec<String> = body["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|choice| choice["leaves"].as_str().unwrap().to_string())
        .collect();
    leaves.sort();
    assert_eq!(leaves, dominoes, "{body}");
    // The left column leaves a 2 × 2 square, worth 0 (each of its moves
    // leaves one domino): a winning move, sent as the square it leaves.
    let (status, body) = post(
        &shared,
        "/api/play",
        json!({ "position": board, "to": "Cram(Grid(2, 2))" }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let square = ["Cram(Grid(2, 3) - {0, 3})", "Cram(Grid(2, 3) - {2, 5})"];
    let you = body["you"]["leaves"].as_str().unwrap();
    assert!(square.contains(&you), "{body}");
    assert_eq!(body["you"]["winning"], true);
    // sprague, facing value 0, takes a domino of the square: one domino
    // is left on the grid as written, and the user takes it.
    let left = body["position"].as_str().unwrap();
    assert!(left.starts_with("Cram(Grid(2, 3) & {"), "{body}");
    assert_eq!(body["reply"]["leaves"], left, "{body}");
    assert_eq!(body["grundy"], 1);
    assert_eq!(body["moves"].as_array().unwrap().len(), 1, "{body}");
}

/// Starts a run that takes minutes, and gives it half a second to begin.
async fn start_a_long_run(shared: &Arc<Shared>) -> tokio::task::JoinHandle<(StatusCode, Value)> {
    let long = "game Up(n) { move Up(n + 1) for k in 1..=30 if n < 100000000 }\ngrundy Up(0)";
    start_running(shared, long).await
}

/// Node Kayles on an 80 × 80 grid, as in examples/node_kayles.game: each
/// position's thousands of options each split a board of thousands of
/// cells, so that the engine looks at its watcher only every few seconds.
const BOARD_WORK: &str = "game NodeKayles(s) splits up to symmetry {\n  move NodeKayles(s - closed(s, v)) for v in s\n}\ngrundy NodeKayles(Grid(80, 80))";

/// Starts running `source`, and gives it half a second to begin.
async fn start_running(
    shared: &Arc<Shared>,
    source: &str,
) -> tokio::task::JoinHandle<(StatusCode, Value)> {
    let long = json!({ "source": source });
    let running = {
        let shared = shared.clone();
        tokio::spawn(async move { post(&shared, "/api/run", long).await })
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    running
}

/// Cancels the run under way, which must stop and answer within 20 s;
/// its answer.
async fn cancel_run(
    shared: &Arc<Shared>,
    running: tokio::task::JoinHandle<(StatusCode, Value)>,
) -> Value {
    cancel_run_in(shared, json!({}), running).await
}

/// [`cancel_run`], the cancel's body saying which lanes.
async fn cancel_run_in(
    shared: &Arc<Shared>,
    lanes: Value,
    running: tokio::task::JoinHandle<(StatusCode, Value)>,
) -> Value {
    let (_, body) = post(shared, "/api/cancel", lanes).await;
    assert_eq!(body["cancelled"], true);
    let (status, body) = tokio::time::timeout(Duration::from_secs(20), running)
        .await
        .expect("the run stops once cancelled")
        .unwrap();
    assert_eq!(status, StatusCode::OK);
    body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_run_is_cancelled_and_the_page_still_answers_meanwhile() {
    let shared = shared();
    let running = start_a_long_run(&shared).await;
    // The page loads while the session is busy.
    let (status, _) = send(&shared, "/", None, &[("host", HOST)]).await;
    assert_eq!(status, StatusCode::OK);
    let body = cancel_run(&shared, running).await;
    assert_eq!(body["errors"][0]["code"], "sprague::eval::interrupted");
    // With nothing running there is nothing to cancel.
    let (_, body) = post(&shared, "/api/cancel", json!({})).await;
    assert_eq!(body["cancelled"], false);
}

/// A cancelled run asks none of the queries after the one it stopped, as
/// `sprague run` asks none after Ctrl-C; and a run of many cheap queries
/// stops between them (before, each later query was asked and stopped
/// at once, one interrupted error each, and a quick one still answered).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_run_asks_no_query_after_the_one_stopped() {
    let shared = shared();
    let source = format!("grundy *3\n{BOARD_WORK}\ngrundy NodeKayles(Grid(81, 80))\ngrundy *5\n");
    let running = start_running(&shared, &source).await;
    let body = cancel_run(&shared, running).await;
    assert_eq!(body["texts"], json!(["grundy *3 = 3"]), "{body}");
    let errors = body["errors"].as_array().expect("errors");
    assert_eq!(errors.len(), 1, "{body}");
    assert_eq!(errors[0]["code"], "sprague::eval::interrupted");
    // Thirty thousand cheap tables of twenty-one rows (within the 1 MiB
    // a request may send): cancelled, the run ends before it answers them
    // all, and the line of each answer is its query's.
    let many = "grundy *3 + *n for n in 0..=20\n".repeat(30_000);
    let running = start_running(&shared, &many).await;
    let body = cancel_run(&shared, running).await;
    // Each row is an answer of its own.
    let answered = body["answers"].as_array().expect("answers").len();
    assert!(answered < 30_000 * 21, "{answered} answered");
    if let Some(last) = answered.checked_sub(1) {
        assert_eq!(body["lines"][last], last / 21);
    }
}

/// A cancel reaches the listing and folding of one position's options
/// (before, such a run went on for tens of seconds, to the work limit).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_stops_board_work_inside_a_position() {
    let shared = shared();
    let running = start_running(&shared, BOARD_WORK).await;
    let body = cancel_run(&shared, running).await;
    assert_eq!(body["errors"][0]["code"], "sprague::eval::interrupted");
    // So does a dropped request.
    let running = start_running(&shared, "grundy NodeKayles(Grid(81, 80))").await;
    running.abort();
    let quick = post(&shared, "/api/run", json!({ "source": "grundy *3 + *4" }));
    let (status, body) = tokio::time::timeout(Duration::from_secs(20), quick)
        .await
        .expect("the session is free again");
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["answers"][0]["value"], 7);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_request_stops_its_computation() {
    let shared = shared();
    let running = start_a_long_run(&shared).await;
    // As when the browser closes the connection: the request is dropped.
    running.abort();
    let quick = post(&shared, "/api/run", json!({ "source": "grundy *3 + *4" }));
    let (status, body) = tokio::time::timeout(Duration::from_secs(5), quick)
        .await
        .expect("the session is free again");
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["answers"][0]["value"], 7);
    // The dropped request left its lane's list: nothing is left to cancel
    // (its flag stayed there, and every cancel after said one was).
    let (_, body) = post(&shared, "/api/cancel", json!({})).await;
    assert_eq!(body["cancelled"], false);
}

/// A `sprague serve` process on a free port, with its address space
/// capped at `cap` bytes; killed when dropped.
struct Server {
    child: std::process::Child,
    port: u16,
}

impl Server {
    fn start(cap: u64, args: &[&str]) -> Server {
        use std::io::BufRead;
        use std::os::unix::process::CommandExt;
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_sprague"));
        command
            .args(["serve", "--port", "0"])
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        // SAFETY: setrlimit is async-signal-safe and touches only the child.
        unsafe {
            command.pre_exec(move || {
                let limit = libc::rlimit {
                    rlim_cur: cap,
                    rlim_max: cap,
                };
                libc::setrlimit(libc::RLIMIT_AS, &limit);
                Ok(())
            });
        }
        let mut child = command.spawn().expect("sprague serve starts");
        let stdout = child.stdout.take().expect("piped");
        let mut line = String::new();
        std::io::BufReader::new(stdout)
            .read_line(&mut line)
            .expect("the first line");
        let port = line
            .rsplit(':')
            .next()
            .and_then(|rest| rest.split('/').next())
            .and_then(|port| port.parse().ok());
        let Some(port) = port else {
            let _ = child.kill();
            let mut stderr = String::new();
            let _ = std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr);
            panic!("no address in {line:?}; stderr: {stderr}");
        };
        Server { child, port }
    }

    /// Sends a POST with a JSON body; answers the status and the body.
    fn post(&self, path: &str, body: &Value) -> (u16, String) {
        let body = body.to_string();
        let request = format!(
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.port,
            body.len()
        );
        exchange(self.port, request.as_bytes())
    }

    /// What a failed answer's message adds: whether the server still runs
    /// and, if it ended, how and what it wrote on stderr (an abort for
    /// want of memory closes every connection unanswered, status 0).
    fn postmortem(&mut self) -> String {
        match self.child.try_wait() {
            Ok(Some(status)) => {
                let mut stderr = String::new();
                if let Some(mut pipe) = self.child.stderr.take() {
                    let _ = std::io::Read::read_to_string(&mut pipe, &mut stderr);
                }
                format!("\nthe server ended ({status}); its stderr:\n{stderr}")
            }
            Ok(None) => "\nthe server still runs".to_owned(),
            Err(error) => format!("\nthe server's state is unknown: {error}"),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Writes `request` on a new connection and reads the answer to its end:
/// its status (0 when the connection closes with none) and body.
fn exchange(port: u16, request: &[u8]) -> (u16, String) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    // Far past every timeout of the server: only a server that never
    // answers reaches it.
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    stream.write_all(request).unwrap();
    let mut answer = Vec::new();
    if let Err(error) = stream.read_to_end(&mut answer) {
        assert_ne!(
            error.kind(),
            std::io::ErrorKind::WouldBlock,
            "no answer, connection still open"
        );
    }
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|status| status.parse().ok())
        .unwrap_or(0);
    let body = answer
        .split_once("\r\n\r\n")
        .map_or(String::new(), |(_, body)| body.to_owned());
    (status, body)
}

/// Under a 4 GB address space (as in the issue), the server starts and
/// answers: its threads do not reserve gigabytes of stack each.
#[test]
fn the_server_answers_within_a_4_gb_address_space() {
    let server = Server::start(4_000_000_000, &[]);
    let (status, body) = server.post("/api/run", &json!({ "source": "grundy *3 + *5" }));
    assert_eq!(status, 200, "{body}");
    let body: Value = serde_json::from_str(&body).unwrap();
    // 3 XOR 5 = 6.
    assert_eq!(body["answers"][0]["value"], 6, "{body}");
}

/// A table of a million rows (the default `--max-rows`) is answered under
/// a 4 GB address space: kept as trees of JSON values, its answers took
/// about 3 KB a row, and the server ran out of memory and died.
#[test]
fn a_table_of_a_million_rows_is_answered_within_a_4_gb_address_space() {
    let mut server = Server::start(4_000_000_000, &[]);
    // Three at once, in three lanes: they took the server past its address
    // space (each lane's stack reserves a gigabyte); now they take turns.
    let source = "nim x * y for x in 0..1000, y in 0..1000";
    for (status, body) in posted_at_once(&server, 3, |_| source.to_owned()) {
        assert_eq!(
            status,
            200,
            "{}{}",
            &body[..body.len().min(500)],
            server.postmortem()
        );
        let body: Value = serde_json::from_str(&body).unwrap();
        let answers = body["answers"].as_array().unwrap();
        assert_eq!(answers.len(), 1_000_000);
        // Nim multiplication: 2 * 2 = 3 and 2 * 3 = 1 (in GF(4)).
        assert_eq!(answers[2 * 1000 + 2]["value"], 3);
        assert_eq!(answers[2 * 1000 + 3]["value"], 1);
        // 999 * 999 by the recursion over Fermat 2-powers (a ⊗ b split at 2^8).
        assert_eq!(body["texts"][999_999], "nim 999 * 999 = 585");
        assert_eq!(body["lines"].as_array().unwrap().len(), 1_000_000);
    }
}

/// Under an address space that leaves one lane, the same table is
/// answered as far as a response holds and the rest refused with a
/// diagnostic: the server reserves room for its own threads and arenas
/// and counts what keeping each answer costs (under 1.6 GB and 1.3 GB it
/// aborted, "memory allocation failed", with every connection closed).
#[test]
fn a_table_past_a_small_address_space_is_refused_and_the_server_goes_on() {
    for cap in [1_300_000_000, 1_600_000_000] {
        let mut server = Server::start(cap, &[]);
        let source = "nim x * y for x in 0..1000, y in 0..1000";
        for (status, body) in posted_at_once(&server, 2, |_| source.to_owned()) {
            assert_eq!(
                status,
                200,
                "{}{}",
                &body[..body.len().min(500)],
                server.postmortem()
            );
            let body: Value = serde_json::from_str(&body).unwrap();
            let answers = body["answers"].as_array().unwrap();
            assert!(answers.len() < 1_000_000, "{} answers", answers.len());
            // The rows kept are the first ones, in order: 0 * y = 0.
            assert!(answers.iter().take(1000).all(|row| row["value"] == 0));
            assert_eq!(
                body["errors"][0]["code"], "sprague::serve::answers_too_large",
                "{}",
                body["errors"]
            );
        }
        let (status, body) = server.post("/api/run", &json!({ "source": "grundy *1 + *2" }));
        assert_eq!(
            (status, body.contains(r#""value":3"#)),
            (200, true),
            "{body}{}",
            server.postmortem()
        );
    }
}

/// An answer of many moves is written element by element (its tree of
/// JSON values took 2.3 GB for `strategy *250000`, and a larger one
/// aborted the server under 4 GB); a request whose answers pass what one
/// response holds is refused past them with a diagnostic (four of
/// `strategy *500000` in one request aborted it).
#[test]
fn large_answers_are_answered_or_refused_within_a_4_gb_address_space() {
    #[derive(serde::Deserialize)]
    struct Body {
        answers: Vec<Strategy>,
    }
    #[derive(serde::Deserialize)]
    struct Strategy {
        n: u64,
        replies: Vec<Reply>,
    }
    #[derive(serde::Deserialize)]
    struct Reply {
        first: Line,
        reply: Line,
    }
    #[derive(serde::Deserialize)]
    struct Line {
        to: String,
        value: u64,
    }
    let mut server = Server::start(4_000_000_000, &[]);
    let (status, body) = server.post("/api/run", &json!({ "source": "strategy *300000" }));
    assert_eq!(
        status,
        200,
        "{}{}",
        &body[..body.len().min(500)],
        server.postmortem()
    );
    let body: Body = serde_json::from_str(&body).unwrap();
    let strategy = &body.answers[0];
    // *300000 + *300000: each of the 600,000 first moves, to *k in either
    // heap, is answered by the same move in the other, leaving *k + *k = 0.
    assert_eq!(strategy.n, 300_000);
    assert_eq!(strategy.replies.len(), 600_000);
    for (i, row) in strategy.replies.iter().enumerate() {
        let k = (i % 300_000) as u64;
        assert_eq!(row.first.to, format!("*{k}"));
        assert_eq!(row.first.value, k ^ 300_000);
        assert_eq!(
            (row.reply.to.as_str(), row.reply.value),
            (row.first.to.as_str(), 0)
        );
    }
    let source = "strategy *500000\n".repeat(4) + "grundy *1";
    let (status, body) = server.post("/api/run", &json!({ "source": source }));
    assert_eq!(status, 200, "{}", &body[..body.len().min(500)]);
    let body: Value = serde_json::from_str(&body).unwrap();
    assert!(body["answers"].as_array().unwrap().len() < 4);
    let error = &body["errors"][0];
    assert_eq!(
        error["code"], "sprague::serve::answers_too_large",
        "{error}"
    );
    assert!(error["help"].as_str().unwrap().contains("sprague run"));
    let label = &error["labels"][0]["span"];
    assert_eq!(label["length"], "*500000".len(), "{error}");
    // The query after is not asked, and the server goes on answering.
    assert!(!body.to_string().contains("grundy *1"));
    let (status, body) = server.post("/api/run", &json!({ "source": "grundy *1 + *2" }));
    assert_eq!(
        (status, body.contains(r#""value":3"#)),
        (200, true),
        "{body}"
    );
}

/// `count` sources posted at once to `/api/run`, by `source(i)`, in the
/// lanes in turn; the status and body of each answer, in order.
fn posted_at_once(
    server: &Server,
    count: usize,
    source: impl Fn(usize) -> String + Sync,
) -> Vec<(u16, String)> {
    let lanes = ["editor", "board", "sequence", "graph", "check"];
    std::thread::scope(|scope| {
        let asked: Vec<_> = (0..count)
            .map(|i| {
                let body = json!({ "source": source(i), "lane": lanes[i % lanes.len()] });
                scope.spawn(move || server.post("/api/run", &body))
            })
            .collect();
        asked
            .into_iter()
            .map(|asked| asked.join().unwrap())
            .collect()
    })
}

/// Concurrent requests to a server under a 4 GB address space, in every
/// lane at once, are each answered: past the threads whose stacks fit,
/// a request waits for one to end (each reserving a gigabyte, the third
/// or fourth thread found no room, and most requests were answered 503).
#[test]
fn concurrent_requests_within_a_4_gb_address_space_wait_their_turn() {
    let mut server = Server::start(4_000_000_000, &[]);
    let source = "game Cram(s) splits up to symmetry { move Cram(s - {a, b}) for a in s, b in neighbours(s, a) if a < b }\ngrundy Cram(Grid(4, 7))";
    for (status, body) in posted_at_once(&server, 20, |_| source.to_owned()) {
        assert_eq!(status, 200, "{body}{}", server.postmortem());
        let body: Value = serde_json::from_str(&body).unwrap();
        // Cram on 4 × 7: 3, as igsolve (Beling and Rogalski) finds it.
        assert_eq!(body["answers"][0]["value"], 3, "{body}");
    }
}

/// Many quick requests at once to a server with room for one or two
/// evaluating threads: each is answered, none refused in the moment a
/// thread that ended has not yet freed its stack (about one in seven
/// was, under 2 GB).
#[test]
fn quick_requests_where_one_thread_fits_are_each_answered() {
    let server = Server::start(2_000_000_000, &[]);
    let answers = posted_at_once(&server, 200, |i| format!("grundy *{i}"));
    for (i, (status, body)) in answers.into_iter().enumerate() {
        assert_eq!(status, 200, "{body}");
        let body: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(body["answers"][0]["value"], i, "{body}");
    }
}

/// Under a 4 GB address space, a long computation in one lane with another
/// request waiting behind it there leaves the other lanes answering: the
/// request waiting for its lane holds no thread (before, it held one, and a
/// third lane's request waited for the long computation to end).
#[test]
fn a_request_waiting_for_its_lane_holds_no_thread() {
    let server = Server::start(4_000_000_000, &[]);
    let long = "game Up(n) { move Up(n + 1) for k in 1..=30 if n < 100000000 }\ngrundy Up(0)";
    std::thread::scope(|scope| {
        let running = scope.spawn(|| server.post("/api/run", &json!({ "source": long })));
        std::thread::sleep(Duration::from_millis(500));
        let waiting = scope.spawn(|| server.post("/api/run", &json!({ "source": "grundy *5" })));
        std::thread::sleep(Duration::from_millis(300));
        let started = std::time::Instant::now();
        let (status, body) = server.post(
            "/api/run",
            &json!({ "source": "grundy *1 + *2", "lane": "board" }),
        );
        let took = started.elapsed();
        assert_eq!(status, 200, "{body}");
        let body: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(body["answers"][0]["value"], 3, "{body}");
        let (status, body) = server.post("/api/cancel", &json!({ "lane": "editor" }));
        assert_eq!(status, 200, "{body}");
        assert!(
            took < Duration::from_secs(10),
            "the board lane waited {took:?}"
        );
        // The long computation is stopped, the one waiting behind it never
        // started.
        let (status, body) = running.join().unwrap();
        assert_eq!(status, 200, "{body}");
        assert!(body.contains("sprague::eval::interrupted"), "{body}");
        let (status, body) = waiting.join().unwrap();
        assert_eq!((status, body.as_str()), (503, r#"{"error":"cancelled"}"#));
    });
}

/// A chain past the default state limit, posted to a server under a 4 GB
/// address space, is answered with the limit's error, and the server goes
/// on answering: the positions waiting down the chain once took the
/// process past its address space, and an allocation failure killed it.
#[test]
fn a_chain_past_the_state_limit_leaves_the_server_answering() {
    let server = Server::start(4_000_000_000, &[]);
    let source = "game T(n) { move T(n - 1) if n > 0 }\ngrundy T(20000000)\n";
    let (status, body) = server.post("/api/run", &json!({ "source": source }));
    assert_eq!(status, 200, "{body}");
    let body: Value = serde_json::from_str(&body).unwrap();
    let code = &body["errors"][0]["code"];
    assert_eq!(code, "sprague::eval::too_many_states", "{body}");
    let (status, body) = server.post("/api/run", &json!({ "source": "grundy *3 + *5" }));
    assert_eq!(status, 200, "{body}");
    let body: Value = serde_json::from_str(&body).unwrap();
    // 3 XOR 5 = 6.
    assert_eq!(body["answers"][0]["value"], 6, "{body}");
}

/// The moves of a sum of 20,000 heaps, asked of a server under a 4 GB
/// address space, are listed, and the server goes on answering: each move
/// once kept the whole sum it leaves, and the list grew as the square of
/// the sum (some 23 GB here) until an allocation failure killed the server.
#[test]
fn the_moves_of_a_long_sum_leave_the_server_answering() {
    let server = Server::start(4_000_000_000, &[]);
    let position = vec!["*3"; 20_000].join(" + ");
    let (status, body) = server.post("/api/moves", &json!({ "position": position }));
    assert_eq!(status, 200, "{body:.2000}");
    let body: Value = serde_json::from_str(&body).unwrap();
    // An even number of equal heaps: value 0. A move takes one heap of 3
    // to k < 3 and leaves 3 XOR k, never 0.
    assert_eq!(body["grundy"], 0, "{:.2000}", body.to_string());
    let moves = body["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 3 * 20_000);
    let left: Vec<&str> = moves[..3]
        .iter()
        .map(|m| m["grundy"].as_str().unwrap())
        .collect();
    assert_eq!(left, ["3", "2", "1"], "{:.2000}", body.to_string());
    assert!(moves.iter().all(|m| m["winning"] == false));
    let (status, body) = server.post("/api/run", &json!({ "source": "grundy *3 + *5" }));
    assert_eq!(status, 200, "{body}");
}

/// A server on a free port of loopback, in this process, with timeouts of
/// a second.
async fn listening() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let timeouts = sprague::serve::Timeouts {
        header: Duration::from_secs(1),
        body: Duration::from_secs(1),
    };
    let make = Box::new(|| Session::interactive(DEFAULT_MAX_STATES));
    let shared = Shared::with_timeouts(addr, make, timeouts);
    tokio::spawn(sprague::serve::accept(
        listener,
        shared,
        std::future::pending(),
    ));
    addr.port()
}

/// A connection that sends nothing, or half its headers, or half its
/// body, is not held open: the first two are closed, the last answered
/// 408 in JSON.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_and_half_sent_requests_time_out() {
    let port = listening().await;
    let host = format!("Host: 127.0.0.1:{port}\r\n");
    let half_headers = format!("POST /api/run HTTP/1.1\r\n{host}");
    let half_body = format!(
        "POST /api/run HTTP/1.1\r\n{host}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"source\":"
    );
    let sent = tokio::task::spawn_blocking(move || {
        (
            exchange(port, b""),
            exchange(port, half_headers.as_bytes()),
            exchange(port, half_body.as_bytes()),
        )
    });
    let (idle, headers, body) = sent.await.unwrap();
    assert_eq!(idle.0, 0, "{idle:?}");
    assert!(headers.0 == 0 || headers.0 == 408, "{headers:?}");
    assert_eq!(body.0, 408, "{body:?}");
    let error: Value = serde_json::from_str(&body.1).unwrap();
    assert!(error["error"].as_str().unwrap().contains("body"), "{error}");
    // A whole request is answered as ever.
    let whole = format!(
        "POST /api/run HTTP/1.1\r\n{host}Content-Type: application/json\r\nContent-Length: 22\r\nConnection: close\r\n\r\n{{\"source\":\"grundy *2\"}}"
    );
    let (status, body) = tokio::task::spawn_blocking(move || exchange(port, whole.as_bytes()))
        .await
        .unwrap();
    assert_eq!(status, 200, "{body}");
}

/// Sends a GET or another method with no body; answers status and text.
async fn bare(shared: &Arc<Shared>, method: &str, path: &str) -> (StatusCode, String) {
    let request = Request::builder()
        .uri(path)
        .method(method)
        .header("host", HOST)
        .body(Body::empty())
        .unwrap();
    let response = router(shared.clone()).oneshot(request).await.unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8_lossy(&bytes).into_owned())
}

/// 404 and 405 say what exists: in JSON under /api/, in text elsewhere.
#[tokio::test]
async fn unknown_paths_and_methods_say_what_exists() {
    let shared = shared();
    let (status, body) = bare(&shared, "GET", "/api/nothing").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let body: Value = serde_json::from_str(&body).unwrap();
    assert!(
        body["error"].as_str().unwrap().contains("/api/nothing"),
        "{body}"
    );
    let routes: Vec<&str> = body["routes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|route| route.as_str().unwrap())
        .collect();
    assert!(routes.contains(&"POST /api/run"), "{routes:?}");
    assert!(routes.contains(&"GET /api/games"), "{routes:?}");
    let (status, body) = bare(&shared, "GET", "/api/run").await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["routes"], json!(["POST /api/run"]), "{body}");
    assert!(body["error"].as_str().unwrap().contains("GET"), "{body}");
    let (status, body) = bare(&shared, "GET", "/nothing.html").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(
        body.contains("/nothing.html") && body.contains("GET /"),
        "{body}"
    );
    let (status, body) = bare(&shared, "DELETE", "/").await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    assert!(body.contains("DELETE") && body.contains("GET /"), "{body}");
}

/// The moves of a sum of many parts name the part each changes, not the
/// whole sum it leaves: the answer grows as the moves, not as their
/// product with the sum (2,000 heaps of one: 2,000 moves, where repeating
/// the sum would take some 20 MB).
#[tokio::test]
async fn the_moves_of_a_long_sum_grow_as_the_sum() {
    let shared = shared();
    let parts = 2000;
    let mut position = vec!["*1"; parts];
    position[6] = "*2";
    let position = position.join(" + ");
    let request = Request::builder()
        .uri("/api/moves")
        .method("POST")
        .header("host", HOST)
        .header("content-type", "application/json");
    let body = json!({ "position": position }).to_string();
    let response = router(shared.clone())
        .oneshot(request.body(Body::from(body)).unwrap())
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    assert!(bytes.len() < 400 * parts, "{} bytes", bytes.len());
    let body: Value = serde_json::from_slice(&bytes).unwrap();
    // 1,999 heaps of one and a heap of two: XOR 1 ^ 2 = 3; each heap of one
    // has one move, the heap of two two.
    assert_eq!(body["grundy"], 3);
    let moves = body["moves"].as_array().unwrap();
    assert_eq!(moves.len(), parts + 1);
    let seventh: Vec<&Value> = moves.iter().filter(|choice| choice["part"] == 7).collect();
    assert_eq!(seventh.len(), 2, "{seventh:?}");
    // *2 -> *1 leaves 1,999 heaps of one and one more: XOR 0, winning.
    let to_one = seventh
        .iter()
        .find(|choice| choice["move"].as_str().unwrap().ends_with("*2 -> *1"))
        .unwrap();
    assert_eq!(to_one["winning"], true, "{to_one}");
    assert_eq!(to_one["leaves"], Value::Null, "{to_one}");
    // Playing it by the position it leaves finds it.
    let after = vec!["*1"; parts].join(" + ");
    let (status, body) = post(
        &shared,
        "/api/play",
        json!({ "position": position, "to": after }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["you"]["move"], format!("*2 -> *1, leaving {after}"));
}

/// The distinct sums of Nim heaps of at most `heaps[i]` tokens each, as
/// the search keeps them (multisets: the order of parts does not matter),
/// and the tuples a search that kept the order would walk.
fn nim_sums(heaps: &[i64]) -> (usize, usize) {
    let mut tuples: Vec<Vec<i64>> = vec![Vec::new()];
    for &heap in heaps {
        tuples = tuples
            .into_iter()
            .flat_map(|tuple| {
                (0..=heap).map(move |size| {
                    let mut longer = tuple.clone();
                    longer.push(size);
                    longer
                })
            })
            .collect();
    }
    let product = tuples.len();
    let multisets: std::collections::HashSet<Vec<i64>> = tuples
        .into_iter()
        .map(|mut tuple| {
            tuple.sort_unstable();
            tuple
        })
        .collect();
    (multisets.len(), product)
}

/// A cross-check says, beside the sums its search visited, the table each
/// part's value needs: Nim(n) reaches the n + 1 heaps 0..=n, so the XOR
/// rule values 2 + 3 + 4 = 9 positions for Nim(1) + Nim(2) + Nim(3), where
/// a search of the whole sum walks its product.
#[tokio::test]
async fn a_crosscheck_counts_the_search_of_the_product_and_the_tables_of_the_parts() {
    let shared = shared();
    let source = "game Nim(n) { move Nim(n - k) for k in 1..=n }
                  crosscheck Nim(1) + Nim(2) + Nim(3)
                  crosscheck Nim(1) + Nim(1) + Nim(1) + Nim(1) + Nim(1)
                  crosscheck Nim(1) + Nim(2) + Nim(3) + Nim(4) + Nim(5) + Nim(6)";
    let (status, body) = post(&shared, "/api/run", json!({ "source": source })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["errors"], json!([]));
    let answers = body["answers"].as_array().unwrap();
    let heaps = [vec![1, 2, 3], vec![1; 5], vec![1, 2, 3, 4, 5, 6]];
    for (answer, heaps) in answers.iter().zip(&heaps) {
        let tables: Vec<Value> = heaps
            .iter()
            .map(|n| json!({ "part": format!("Nim({n})"), "positions": n + 1 }))
            .collect();
        assert_eq!(answer["tables"], json!(tables), "{answer}");
        let tabled: i64 = heaps.iter().map(|n| n + 1).sum();
        assert_eq!(answer["table_positions"], tabled, "{answer}");
        // The search visits the root and, at most, every sum it reaches.
        let (multisets, product) = nim_sums(heaps);
        let positions = answer["positions"].as_u64().unwrap() as usize;
        assert!(
            positions > 1 && positions <= multisets,
            "{answer}: {multisets} sums"
        );
        assert!(multisets <= product);
    }
    // 1 ^ 2 ^ 3 = 0: a lost sum, so every one of its six distinct moves is
    // searched, each to a win; 14 sums are reachable, of 2 · 3 · 4 = 24
    // ordered tuples.
    let first = answers[0]["positions"].as_u64().unwrap();
    assert!((7..=14).contains(&first), "{}", answers[0]);
    assert_eq!(nim_sums(&[1, 2, 3]), (14, 24));
    // Five heaps of one: each sum of them has one distinct move (to one
    // heap fewer), so the search visits all six sums, where the tables
    // hold 5 · 2 = 10 positions and the tuples number 2^5 = 32.
    assert_eq!(answers[1]["positions"], 6, "{}", answers[1]);
    assert_eq!(answers[1]["table_positions"], 10);
    // Six heaps 1..=6: the tables hold 2 + … + 7 = 27 positions, the
    // sums number the Catalan number C(7) = 429.
    assert_eq!(answers[2]["table_positions"], 27);
    assert_eq!(nim_sums(&[1, 2, 3, 4, 5, 6]).0, 429);
}

/// A client that closes its connection while board work runs for it frees
/// the session: the server notices the close and stops the work.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_connection_stops_board_work() {
    let port = listening().await;
    let run = |source: &str, close: bool| {
        let body = json!({ "source": source }).to_string();
        let request = format!(
            "POST /api/run HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        tokio::task::spawn_blocking(move || {
            if !close {
                return exchange(port, request.as_bytes());
            }
            use std::io::Write;
            let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
            stream.write_all(request.as_bytes()).unwrap();
            std::thread::sleep(Duration::from_millis(500));
            (0, String::new())
        })
    };
    run(BOARD_WORK, true).await.unwrap();
    let (status, body) =
        tokio::time::timeout(Duration::from_secs(20), run("grundy *3 + *4", false))
            .await
            .expect("the session is free again")
            .unwrap();
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"value\":7"), "{body}");
}

/// The resident memory of a process, in kB, from `/proc`.
fn resident_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kb| kb.parse().ok())
        .expect("VmRSS in /proc")
}

/// A reset hands the memory of the session's tables back to the system
/// (it stayed with the process before: 3.6 GB after a long session).
#[test]
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn memory_returns_after_a_reset() {
    let server = Server::start(8_000_000_000, &["--max-search", "400000"]);
    let pid = server.child.id();
    let before = resident_kb(pid);
    // A whole-sum search of Grundy's game fills its table of sums up to
    // the limit, then gives up.
    let source = "game G(n) { move G(a) + G(n - a) for a in 1..n if a < n - a }\ncrosscheck G(30) + G(31) + G(29)\n";
    let (status, body) = server.post("/api/run", &json!({ "source": source }));
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("sprague::eval::search_too_large"), "{body}");
    let used = resident_kb(pid);
    assert!(
        used > before + 40_000,
        "the search used memory: {before} kB, then {used} kB"
    );
    let (status, body) = server.post("/api/reset", &json!({}));
    assert_eq!(status, 200, "{body}");
    let after = resident_kb(pid);
    assert!(
        after < before + (used - before) / 4,
        "{before} kB at first, {used} kB after the search, {after} kB after the reset"
    );
}

/// A long run in the editor's lane leaves the board's lane answering, and
/// the games list too; a cancel of another lane leaves it running, its
/// own lane's cancel stops it; an unknown lane is refused, naming them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_run_leaves_the_other_lanes_answering() {
    let shared = shared();
    let running = start_a_long_run(&shared).await;
    let moves = post(&shared, "/api/moves", json!({ "position": "*3 + *4 + *5" }));
    let (status, body) = tokio::time::timeout(Duration::from_secs(20), moves)
        .await
        .expect("the board answers while the editor runs");
    assert_eq!(status, StatusCode::OK, "{body}");
    // 3 XOR 4 XOR 5 = 2.
    assert_eq!(body["grundy"], 2, "{body}");
    let games = send(&shared, "/api/games", None, &[("host", HOST)]);
    let (status, _) = tokio::time::timeout(Duration::from_secs(20), games)
        .await
        .expect("the games list answers while the editor runs");
    assert_eq!(status, StatusCode::OK);
    let (_, body) = post(&shared, "/api/cancel", json!({ "lane": "board" })).await;
    assert_eq!(body["cancelled"], false, "nothing runs on the board");
    let (status, body) = post(&shared, "/api/cancel", json!({ "lane": "nowhere" })).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        body["error"].as_str().unwrap().contains("editor, board"),
        "{body}"
    );
    let body = cancel_run_in(&shared, json!({ "lane": "editor" }), running).await;
    assert_eq!(body["errors"][0]["code"], "sprague::eval::interrupted");
}

/// A game declared in one lane is known in the others.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_lane_knows_the_games_declared_in_another() {
    let shared = shared();
    let source = json!({ "source": "game S = subtraction {1, 2, 3}" });
    let (status, _) = post(&shared, "/api/run", source).await;
    assert_eq!(status, StatusCode::OK);
    // S(6) = 6 mod 4 = 2, in the board's lane and the plot's.
    let (_, body) = post(&shared, "/api/moves", json!({ "position": "S(6)" })).await;
    assert_eq!(body["grundy"], 2, "{body}");
    let request = json!({ "source": "grundy S(6)", "lane": "sequence" });
    let (_, body) = post(&shared, "/api/run", request).await;
    assert_eq!(body["answers"][0]["value"], 2, "{body}");
}

/// The games list says which games are played on a board: Node Kayles
/// takes a region of a graph (it `splits`), so it has no values over n;
/// the path and the grid built from it take integers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_games_list_tells_games_on_boards_from_games_of_integers() {
    let shared = shared();
    let source = json!({ "source": "game NodeKayles(s) splits { move NodeKayles(s - closed(s, v)) for v in s }\ngame NodeKaylesPath(n) = NodeKayles(Path(n))\ngame NodeKaylesGrid(r, c) = NodeKayles(Grid(r, c))\ngame S = subtraction {1, 2, 3}" });
    let (status, body) = post(&shared, "/api/run", source).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = send(&shared, "/api/games", None, &[("host", HOST)]).await;
    assert_eq!(status, StatusCode::OK);
    let games: Vec<(String, u64, bool)> = body["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|game| {
            let name = game["name"].as_str().unwrap().to_string();
            (
                name,
                game["parameters"].as_u64().unwrap(),
                game["board"] == true,
            )
        })
        .collect();
    let expected = [
        ("NodeKayles", 1, true),
        ("NodeKaylesPath", 1, false),
        ("NodeKaylesGrid", 2, false),
        ("S", 1, false),
    ];
    for (name, parameters, board) in expected {
        assert!(
            games.contains(&(name.to_string(), parameters, board)),
            "{name}: {games:?}"
        );
    }
}

/// A shared session whose queries no work limit stops: only a cancel.
fn without_work_limit() -> Arc<Shared> {
    let addr: SocketAddr = HOST.parse().unwrap();
    Shared::new(
        addr,
        Box::new(|| {
            let mut session = Session::interactive(DEFAULT_MAX_STATES);
            session.set_max_work(u64::MAX / 2);
            session
        }),
    )
}

/// What `/api/progress` says of `lane`.
async fn lane_progress(shared: Arc<Shared>, lane: &'static str) -> Value {
    let (_, body) = send(&shared, "/api/progress", None, &[("host", HOST)]).await;
    body["lanes"][lane].clone()
}

/// Long queries of each kind the engine watches in its own way: a game of
/// rules whose positions have thousands of options each (Grundy's game's
/// period), a code's table whose heaps each examine millions of splits
/// (three heaps), and a board whose options each split thousands of cells.
const LONG_QUERIES: &[(&str, &str)] = &[
    (
        "sequence",
        "game G(n) { move G(a) + G(n - a) for a in 1..n if a < n - a }\nperiod G",
    ),
    ("editor", "game H = hexadecimal \"0.F\"\ngrundy H(9000000)"),
    ("board", BOARD_WORK),
];

/// Each long query, once its lane reports the engine at work, is cancelled:
/// the cancel is taken, the query answers that it was interrupted, and
/// then the lane is free (no longer busy, and a quick query there
/// answers). The events are checked in that order; the timeouts only
/// keep a failing test from hanging.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_kind_of_long_query_is_cancelled_and_its_lane_freed() {
    let shared = without_work_limit();
    let busy = |shared: &Arc<Shared>, lane: &'static str| lane_progress(shared.clone(), lane);
    for &(lane, source) in LONG_QUERIES {
        let request = json!({ "source": source, "lane": lane });
        let running = {
            let shared = shared.clone();
            tokio::spawn(async move { post(&shared, "/api/run", request).await })
        };
        // First: the engine is at work (its watcher has reported positions).
        let working = async {
            loop {
                let state = busy(&shared, lane).await;
                if state["positions"].as_u64().is_some_and(|solved| solved > 0) {
                    break;
                }
                assert!(!running.is_finished(), "{lane}: the query ended by itself");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        };
        tokio::time::timeout(Duration::from_secs(60), working)
            .await
            .expect("the query starts");
        // Then the cancel, taken while the query still runs.
        let (_, body) = post(&shared, "/api/cancel", json!({ "lane": lane })).await;
        assert_eq!(body["cancelled"], true, "{lane}");
        // Then the query's answer: interrupted.
        let (status, body) = tokio::time::timeout(Duration::from_secs(60), running)
            .await
            .expect("the query stops once cancelled")
            .unwrap();
        assert_eq!(status, StatusCode::OK, "{lane}: {body}");
        assert_eq!(
            body["errors"][0]["code"], "sprague::eval::interrupted",
            "{lane}: {body}"
        );
        // Then the lane is free.
        assert_eq!(busy(&shared, lane).await["busy"], false, "{lane}");
        let quick = json!({ "source": "grundy *3 + *4", "lane": lane });
        let (_, body) = post(&shared, "/api/run", quick).await;
        assert_eq!(body["answers"][0]["value"], 7, "{lane}: {body}");
        let (_, body) = post(&shared, "/api/cancel", json!({ "lane": lane })).await;
        assert_eq!(body["cancelled"], false, "{lane}: nothing runs");
    }
}

/// A request that waits for its lane is counted in the lane's progress:
/// the page says so beside the computation running ahead of it, where it
/// said nothing of it before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_progress_of_a_lane_counts_the_requests_waiting_for_it() {
    let shared = without_work_limit();
    let lane = |shared: &Arc<Shared>| lane_progress(shared.clone(), "board");
    assert_eq!(lane(&shared).await["waiting"], 0);
    let run = |source: &'static str| {
        let shared = shared.clone();
        tokio::spawn(async move {
            post(
                &shared,
                "/api/run",
                json!({ "source": source, "lane": "board" }),
            )
            .await
        })
    };
    let long = run(BOARD_WORK);
    // The long query at work first, then a quick one behind it.
    let working = async {
        while lane(&shared).await["positions"]
            .as_u64()
            .is_none_or(|n| n == 0)
        {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(60), working)
        .await
        .expect("the long query starts");
    let quick = run("grundy *3 + *4");
    let waiting = async {
        loop {
            let state = lane(&shared).await;
            if state["busy"] == true && state["waiting"] == 1 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(60), waiting)
        .await
        .expect("the quick query is counted waiting");
    // Cancelled, the long query ends, the quick one is cancelled or runs,
    // and nothing is left waiting.
    post(&shared, "/api/cancel", json!({ "lane": "board" })).await;
    for request in [long, quick] {
        tokio::time::timeout(Duration::from_secs(60), request)
            .await
            .expect("each request is answered")
            .unwrap();
    }
    let state = lane(&shared).await;
    assert_eq!(
        (state["busy"].clone(), state["waiting"].clone()),
        (json!(false), json!(0))
    );
}

/// A search of whole sums keeps its sums apart from the positions it
/// solves, which stay as many while it runs (the four parts' tables, 4 ·
/// 81 positions and no more): its progress counts the sums it entered, and
/// two reports a moment apart show more of them. (The page said "44
/// positions" for as long as a cross-check ran.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_progress_of_a_crosscheck_counts_the_sums_it_searches() {
    let addr: SocketAddr = HOST.parse().unwrap();
    let shared = Shared::new(
        addr,
        Box::new(|| {
            let mut session = Session::interactive(DEFAULT_MAX_STATES);
            // 81^4, some 43 million sums: minutes of search, not a refusal.
            session.set_max_search(1 << 30);
            session
        }),
    );
    let source = "game A = subtraction {1, 2}\ngame B = subtraction {1, 3}\ngame C = subtraction {2, 3}\ngame D = subtraction {1, 4}\ncrosscheck A(80) + B(80) + C(80) + D(80)";
    let request = json!({ "source": source, "lane": "check" });
    let running = {
        let shared = shared.clone();
        tokio::spawn(async move { post(&shared, "/api/run", request).await })
    };
    let report = || async {
        let (_, body) = send(&shared, "/api/progress", None, &[("host", HOST)]).await;
        body["lanes"]["check"].clone()
    };
    // Reports while the search runs, until two show different counts.
    let mut seen: Vec<Value> = Vec::new();
    let reports = async {
        loop {
            let state = report().await;
            assert!(
                !running.is_finished(),
                "the search ended by itself: {seen:?}"
            );
            if state["busy"] == true && state["sums"].as_u64().is_some_and(|sums| sums > 0) {
                seen.push(state);
                if seen.len() >= 2 && seen[seen.len() - 1]["sums"] != seen[0]["sums"] {
                    break;
                }
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    };
    let waited = tokio::time::timeout(Duration::from_secs(60), reports).await;
    let (_, body) = post(&shared, "/api/cancel", json!({ "lane": "check" })).await;
    assert_eq!(body["cancelled"], true);
    waited.unwrap_or_else(|_| panic!("no two reports of the search differ: {seen:?}"));
    let (first, last) = (&seen[0], &seen[seen.len() - 1]);
    assert!(
        last["sums"].as_u64() > first["sums"].as_u64(),
        "{first} then {last}"
    );
    assert!(last["seconds"].as_f64() > first["seconds"].as_f64());
    // The positions are the parts' tables: A(0..=80) and the rest.
    assert!(last["positions"].as_u64().unwrap() <= 4 * 81, "{last}");
    let (status, body) = tokio::time::timeout(Duration::from_secs(60), running)
        .await
        .expect("the search stops once cancelled")
        .unwrap();
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["errors"][0]["code"], "sprague::eval::interrupted");
}

/// A position typed with a slip is answered as a source's slips are: in
/// `errors`, with status 200, each a report with its span in the position
/// sent and a help line (a 422 was an error in the browser's console
/// besides the one the page shows). A request that names no move is
/// malformed, and refused 422 with `error`.
#[tokio::test]
async fn a_position_with_a_slip_is_answered_with_its_errors() {
    let shared = shared();
    let position = "*3 + ";
    for (path, body) in [
        ("/api/moves", json!({ "position": position })),
        ("/api/play", json!({ "position": position, "first": true })),
        ("/api/play", json!({ "position": position, "to": "*1" })),
    ] {
        let (status, body) = post(&shared, path, body).await;
        assert_eq!(status, StatusCode::OK, "{path}: {body}");
        let error = &body["errors"][0];
        assert!(
            error["code"]
                .as_str()
                .unwrap()
                .starts_with("sprague::parse"),
            "{path}: {body}"
        );
        assert!(error["help"].as_str().is_some(), "{path}: {body}");
        // The slip is where the position ends: after `+ `.
        let offset = error["labels"][0]["span"]["offset"].as_u64().unwrap() as usize;
        assert!(
            offset >= "*3 +".len() && offset <= position.len(),
            "{path}: {body}"
        );
    }
    // A `to` that is no move away is about `to` too.
    let request = json!({ "position": "*3", "to": "*4" });
    let (_, body) = post(&shared, "/api/play", request).await;
    assert_eq!(body["errors"][0]["code"], "sprague::play::no_such_move");
    assert_eq!(body["errors"][0]["field"], "to", "{body}");
    // A slip in `to` points into `to`, and says so (it had no label).
    for (to, at) in [("*1 + Nope", "*1 + ".len()), ("*1 +", "*1 +".len())] {
        let request = json!({ "position": "*3", "to": to });
        let (status, body) = post(&shared, "/api/play", request).await;
        assert_eq!(status, StatusCode::OK, "{to}: {body}");
        let error = &body["errors"][0];
        assert_eq!(error["field"], "to", "{to}: {body}");
        assert!(error["help"].as_str().is_some(), "{to}: {body}");
        let offset = error["labels"][0]["span"]["offset"].as_u64();
        assert_eq!(offset, Some(at as u64), "{to}: {body}");
    }
    let (status, body) = post(&shared, "/api/play", json!({ "position": "*3" })).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("say which move"),
        "{body}"
    );
    // Two ways of naming the move, which may disagree, are refused: `move`
    // was taken silently over a `to` naming another move.
    for both in [
        json!({ "position": "*3", "move": 1, "to": "*2" }),
        json!({ "position": "*3", "first": true, "to": "*2" }),
    ] {
        let (status, body) = post(&shared, "/api/play", both).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert!(
            body["error"]
                .as_str()
                .unwrap()
                .contains("not more than one"),
            "{body}"
        );
    }
}

/// The page says a request is too large before it sends it (a refused one
/// is an error in the browser's console): its cap is the server's.
#[test]
fn the_page_knows_the_servers_cap_on_a_body() {
    let page = include_str!("../web/app.js");
    assert!(
        page.contains(&format!("const MAX_BODY = {MAX_BODY};")),
        "web/app.js's MAX_BODY is not {MAX_BODY}"
    );
}

/// A page that runs the same long source again and again (the editor's
/// Run), or queries alone in the other lanes, keeps no copy of each: every
/// run of 200 kB kept about 0.45 MB before (its text in each lane's session
/// and in the list of sources the lanes replay).
#[test]
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn running_the_same_source_again_keeps_no_copy_of_it() {
    let server = Server::start(8_000_000_000, &[]);
    let pid = server.child.id();
    let filler: String = (0..4000)
        .map(|i| format!("# line {i}: a comment that makes the source long\n"))
        .collect();
    let declared = format!("game S = subtraction {{1, 2, 3}}\n{filler}grundy S(6)\n");
    let asked = format!("{filler}grundy S(7)\n");
    let run = |source: &str, lane: &str| {
        let (status, body) = server.post("/api/run", &json!({ "source": source, "lane": lane }));
        assert_eq!(status, 200, "{body}");
        body
    };
    // S(n) = n mod 4.
    assert!(run(&declared, "editor").contains("\"value\":2"));
    assert!(run(&asked, "sequence").contains("\"value\":3"));
    let before = resident_kb(pid);
    for _ in 0..60 {
        assert!(run(&declared, "editor").contains("\"value\":2"));
        assert!(run(&asked, "sequence").contains("\"value\":3"));
    }
    let after = resident_kb(pid);
    assert!(
        after < before + 10_000,
        "120 runs of 200 kB: {before} kB before, {after} kB after"
    );
}

/// Runs `source` in `lane`, which must answer it without an error.
async fn run_cleanly(shared: &Arc<Shared>, source: &str, lane: &str) -> Value {
    let request = json!({ "source": source, "lane": lane });
    let (status, body) = post(shared, "/api/run", request).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["errors"], json!([]), "{body}");
    body
}

/// The lanes replay what the editor declared, as it now stands: a game
/// replaced by the next run, a game depending on one replaced later, and a
/// lane that saw the first version before the second came.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_lane_replays_the_declarations_as_they_now_stand() {
    let shared = shared();
    let value = |body: &Value| body["answers"][0]["value"].clone();
    // subtraction {1}: n mod 2; {1, 2}: n mod 3; {1, 2, 3}: n mod 4.
    run_cleanly(&shared, "game A = subtraction {1}\ngrundy A(5)", "editor").await;
    assert_eq!(
        value(&run_cleanly(&shared, "grundy A(5)", "graph").await),
        1
    );
    run_cleanly(
        &shared,
        "game A = subtraction {1, 2}\ngrundy A(5)",
        "editor",
    )
    .await;
    run_cleanly(&shared, "game B(n) = A(n)", "editor").await;
    run_cleanly(
        &shared,
        "game A = subtraction {1, 2, 3}\ngrundy A(5)",
        "editor",
    )
    .await;
    // The sequence lane replays everything at once, the graph's lane what
    // came after what it saw.
    for lane in ["sequence", "graph", "check"] {
        let body = run_cleanly(&shared, "grundy A(6)\ngrundy B(7)", lane).await;
        assert_eq!(value(&body), 2, "{lane}: {body}");
        assert_eq!(body["answers"][1]["value"], 3, "{lane}: {body}");
    }
}

/// A reset while a long source is being declared in another lane: the
/// declarations it makes after the reset began are known in no lane (one
/// lane knew them and another did not).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reset_during_a_declaration_leaves_no_lane_knowing_it() {
    let shared = shared();
    let mut source: String = (0..25_000)
        .map(|i| format!("game G{i} = subtraction {{1, {}}}\n", i % 7 + 2))
        .collect();
    source += "game Race = subtraction {1, 2}\n";
    let running = {
        let shared = shared.clone();
        tokio::spawn(async move {
            post(
                &shared,
                "/api/run",
                json!({ "source": source, "lane": "check" }),
            )
            .await
        })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    let (status, body) = post(&shared, "/api/reset", json!({})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let _ = running.await;
    for lane in sprague::serve::LANES {
        let (_, body) = post(
            &shared,
            "/api/run",
            json!({ "source": "grundy Race(4)", "lane": lane }),
        )
        .await;
        assert_eq!(
            body["errors"][0]["code"], "sprague::check::unknown_game",
            "{lane}: {body}"
        );
    }
}

/// Two lanes declaring in turn, each replacing what the other declared:
/// the list of sources a lane replays stays short (it grew by one a run,
/// 55 MB after 600 runs, and a fresh lane's first query replayed them
/// all), and every lane, fresh or not, knows the declarations as they now
/// stand.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lanes_declaring_in_turn_leave_a_short_list_to_replay() {
    let shared = shared();
    let run = |source: String, lane: &'static str| {
        let shared = shared.clone();
        async move { run_cleanly(&shared, &source, lane).await }
    };
    let value = |body: &Value, at: usize| body["answers"][at]["value"].clone();
    run("let base = 1".to_owned(), "editor").await;
    assert_eq!(value(&run("grundy *base".to_owned(), "graph").await, 0), 1);
    // subtraction {1, …, k}: n mod (k + 1).
    for round in 0..100 {
        let (lane, k) = match round % 2 {
            0 => ("editor", 2 + round % 5),
            _ => ("board", 2 + round % 5),
        };
        let moves: Vec<String> = (1..=k).map(|m| m.to_string()).collect();
        let source = format!(
            "let k = {k}\ngame A = subtraction {{{}}}\nlet n = k * 10 + base\ngrundy A(n)",
            moves.join(", ")
        );
        let body = run(source, lane).await;
        assert_eq!(value(&body, 0), (10 * k + 1) % (k + 1), "{round}: {body}");
    }
    assert!(shared.replayed() <= 33, "{} sources", shared.replayed());
    // The last round (99) declared k = 6 in the board's lane.
    for lane in ["graph", "sequence", "check", "editor"] {
        let body = run("grundy A(n)\ngrundy *k".to_owned(), lane).await;
        assert_eq!(value(&body, 0), 61 % 7, "{lane}: {body}");
        assert_eq!(value(&body, 1), 6, "{lane}: {body}");
    }
}

/// One lane declares over and over while another declares and reads back
/// its own: the second never reads an older value of its own declaration.
/// (The declarations in force were gathered by the first lane while the
/// second had declared but not yet kept its source: replayed, the gathered
/// source undid the newer value; found in 425–985 rounds.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lane_never_reads_an_older_value_of_its_own_declaration() {
    let shared = shared();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let other = {
        let (shared, stop) = (shared.clone(), stop.clone());
        tokio::spawn(async move {
            let mut i = 0;
            while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                let source = format!("let own_a = {i}\ngrundy *own_a");
                post(
                    &shared,
                    "/api/run",
                    json!({ "source": source, "lane": "editor" }),
                )
                .await;
                i += 1;
            }
        })
    };
    for i in 0..4000 {
        let source = format!("let own_b = {i}\ngrundy *own_b");
        let (_, body) = post(
            &shared,
            "/api/run",
            json!({ "source": source, "lane": "board" }),
        )
        .await;
        assert_eq!(body["answers"][0]["value"], i, "{body}");
        let request = json!({ "source": "grundy *own_b", "lane": "board" });
        let (_, body) = post(&shared, "/api/run", request).await;
        assert_eq!(body["answers"][0]["value"], i, "round {i}: {body}");
    }
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    other.await.unwrap();
}

/// Two lanes declaring the same name at once, round after round: every
/// lane then reads the same value (the one declared later in the list the
/// lanes replay). A lane skipped its own source though the other's came
/// before it in the list, and kept the other's value (found within 300
/// rounds).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lanes_declaring_one_name_at_once_agree_on_its_value() {
    let shared = shared();
    let read = |lane: &'static str| {
        let shared = shared.clone();
        async move {
            let request = json!({ "source": "grundy *x", "lane": lane });
            let (_, body) = post(&shared, "/api/run", request).await;
            body["answers"][0]["value"].clone()
        }
    };
    for round in 0..1000 {
        let declare = |lane: &'static str, value: i64| {
            let shared = shared.clone();
            tokio::spawn(async move {
                let request = json!({ "source": format!("let x = {value}"), "lane": lane });
                post(&shared, "/api/run", request).await
            })
        };
        let (a, b) = (
            declare("editor", 10 * round),
            declare("board", 10 * round + 1),
        );
        a.await.unwrap();
        b.await.unwrap();
        let mut values = Vec::new();
        for lane in ["editor", "board", "sequence", "graph", "check"] {
            values.push(read(lane).await);
        }
        assert!(
            values.windows(2).all(|pair| pair[0] == pair[1]),
            "round {round}: {values:?}"
        );
    }
}
