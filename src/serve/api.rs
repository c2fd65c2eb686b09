//! The JSON API: `/api/run`, `/api/reset`, `/api/cancel`, `/api/games`,
//! `/api/progress`, `/api/moves` and `/api/play`. Answers are the objects `sprague run
//! --json` prints; errors are miette's JSON reports, their spans counted
//! from the start of the source sent.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Json as Body;
use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use miette::{Report, SourceSpan};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Value as Json, json};

use super::{Shared, Unanswered};
use crate::engine::Gamma;
use crate::eval::count;
use crate::interp::Component;
use crate::output::{self, ErrorStyle};
use crate::session::{Event, PlayMove, Session};

/// A request's JSON body. One that is not JSON, or not of the fields
/// asked, is answered in JSON too: `{"error": …}` with the status axum
/// gives it (400, 415 or 422).
pub struct Request<T>(pub T);

impl<S, T> FromRequest<S> for Request<T>
where
    Body<T>: FromRequest<S, Rejection = JsonRejection>,
    S: Send + Sync,
{
    type Rejection = Response;

    async fn from_request(request: axum::extract::Request, state: &S) -> Result<Self, Response> {
        match Body::<T>::from_request(request, state).await {
            Ok(Body(value)) => Ok(Request(value)),
            Err(rejection) => {
                let body = json!({ "error": rejection.body_text() });
                Err((rejection.status(), Body(body)).into_response())
            }
        }
    }
}

#[derive(Deserialize)]
pub struct RunRequest {
    source: String,
    /// The lane to compute in (see [`super::LANES`]); `editor` by default.
    lane: Option<String>,
}

#[derive(Deserialize)]
pub struct MovesRequest {
    position: String,
    /// `board` by default.
    lane: Option<String>,
}

#[derive(Deserialize)]
pub struct CancelRequest {
    /// Every lane's computations when absent.
    lane: Option<String>,
}

#[derive(Deserialize)]
pub struct PlayRequest {
    position: String,
    /// `board` by default.
    lane: Option<String>,
    /// The move's number in the list `/api/moves` gives, from 1.
    #[serde(rename = "move")]
    number: Option<usize>,
    /// Or the position the move leaves.
    to: Option<String>,
    /// Or no move of the user's: the engine moves first, from `position`.
    #[serde(default)]
    first: bool,
}

/// The move a play request asks for.
enum Asked {
    /// None: the engine moves first.
    First,
    /// The move of this number in the list `/api/moves` gives, from 1.
    Number(usize),
    /// The move that leaves this position.
    To(String),
}

impl PlayRequest {
    /// The move asked for, or why the request does not say one: none of
    /// `move`, `to` and `first`, or more than one (which may disagree).
    fn asked(&self) -> Result<Asked, &'static str> {
        match (self.first, self.number, &self.to) {
            (true, None, None) => Ok(Asked::First),
            (false, Some(number), None) => Ok(Asked::Number(number)),
            (false, None, Some(to)) => Ok(Asked::To(to.clone())),
            (false, None, None) => Err(
                "say which move: `move` (a number), `to` (a position), or `first` for sprague to move first",
            ),
            _ => Err(
                "say one move: `move` (a number), `to` (a position) or `first`, not more than one",
            ),
        }
    }
}

/// A move asked for that the position does not have, as a report in
/// miette's JSON shape (with no label: the text named is not the
/// position's).
fn no_such_move(message: String, help: &str) -> Json {
    json!({
        "message": message,
        "code": "sprague::play::no_such_move",
        "severity": "error",
        "help": help,
        "labels": [],
        "related": [],
    })
}

/// A lane a request named that does not exist: answered 400, naming the
/// lanes there are.
pub struct UnknownLane(String);

impl IntoResponse for UnknownLane {
    fn into_response(self) -> Response {
        let error = format!(
            "there is no lane `{}`: the lanes are {}",
            self.0,
            super::LANES.join(", ")
        );
        (StatusCode::BAD_REQUEST, Body(json!({ "error": error }))).into_response()
    }
}

/// The lane a request names, or `default`.
fn lane(named: Option<&str>, default: &'static str) -> Result<&'static str, UnknownLane> {
    match named {
        None => Ok(default),
        Some(named) => Shared::lane(named).ok_or_else(|| UnknownLane(named.to_owned())),
    }
}

/// `POST /api/run`: the source's declarations join the session (every
/// lane's), its queries are answered in order.
pub async fn run(
    State(shared): State<Arc<Shared>>,
    Request(request): Request<RunRequest>,
) -> Response {
    let lane = match lane(request.lane.as_deref(), "editor") {
        Ok(lane) => lane,
        Err(refused) => return refused.into_response(),
    };
    let (name, began) = shared.entry();
    let declaring = shared.clone();
    let max_answered = shared.max_answered;
    let outcome = shared
        .compute(lane, move |session| {
            let sent = Sent::new(session, &request.source);
            let source = &request.source;
            let (mut answers, mut texts, mut lines) = (Vec::new(), Vec::new(), Vec::new());
            let (mut errors, mut notes, mut plays) = (Vec::new(), Vec::new(), Vec::new());
            let line = std::cell::Cell::new(0);
            // The bytes of answers kept; past the room, the rest are
            // dropped and no more queries asked.
            let (mut answered, room) = (0usize, max_answered);
            let full = std::cell::Cell::new(false);
            let mut asked = SourceSpan::from(0..0);
            let mut sink = |event| match event {
                Event::Answer(_) if full.get() => {}
                Event::Answer(answer) => {
                    let (json, text) = (output::json_raw(&answer), output::text(&answer));
                    let bytes = json.get().len() + text.len() + ANSWER_KEEPING;
                    answered = answered.saturating_add(bytes);
                    if answered > room {
                        full.set(true);
                        return;
                    }
                    answers.push(json);
                    texts.push(text);
                    lines.push(line.get());
                }
                Event::Error(report) => errors.push(sent.error(&report)),
                Event::Note(note) => notes.push(Json::String(note)),
                Event::Play(play) => plays.push(play.position),
            };
            let declared = session.declare(&name, source, &mut sink);
            if declared.is_ok() {
                declaring.declared(lane, (sent.base, began), &name, session);
            }
            if let Ok(queries) = declared.map_err(|report| {
                sink(Event::Error(report));
            }) {
                // The lines before each query, counted on from the last
                // (the queries come in the source's order).
                let (mut counted, mut lines_before) = (0, 0);
                for query in &queries {
                    // Cancelled: the queries after the one stopped are not
                    // asked, as `sprague run` asks none after Ctrl-C.
                    if session.stopped() || full.get() {
                        break;
                    }
                    let at = query
                        .target_span
                        .offset()
                        .saturating_sub(sent.base)
                        .min(sent.length);
                    if at < counted {
                        (counted, lines_before) = (0, 0);
                    }
                    lines_before += source
                        .get(counted..at)
                        .map_or(0, |text| text.matches('\n').count());
                    counted = at;
                    line.set(lines_before);
                    asked = query.target_span;
                    session.answer_query(query, &mut sink);
                }
            }
            if full.get() {
                let refused = AnswersTooLarge { room, span: asked };
                errors.push(sent.error(&Report::new(refused)));
            }
            notes.extend(plays.iter().map(|position| {
                json!(format!(
                    "play {}: play it on the board",
                    session.show(position)
                ))
            }));
            Ran {
                answers,
                errors,
                notes,
                texts,
                lines,
            }
        })
        .await;
    match outcome {
        Ok(body) => Body(body).into_response(),
        Err(unanswered) => unanswered.into_response(),
    }
}

/// What keeping one answer costs besides its text and JSON: the two
/// boxes that hold them, each with the allocator's header, and its line.
/// A million small rows take more in these than in their text.
const ANSWER_KEEPING: usize = size_of::<Box<RawValue>>() + size_of::<String>() + 2 * 16 + 8;

/// A response past the bytes of answers it may hold.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error(
    "the answers pass {} MB, more than one response holds: the rest are not sent, and the queries after are not asked",
    crate::eval::grouped(.room >> 20)
)]
#[diagnostic(
    code(sprague::serve::answers_too_large),
    help(
        "ask fewer or smaller queries in one run (a table over fewer rows, a smaller position for `moves`, `strategy` and `why`), or run the file with `sprague run`, which writes each answer as it comes"
    )
)]
struct AnswersTooLarge {
    room: usize,
    #[label("its answers filled the response")]
    span: SourceSpan,
}

/// What `/api/run` answers. Each answer is kept as the JSON text it is
/// sent as: a table of a million rows kept as trees of JSON values took
/// about 3 KB a row, and ran out of memory under a limit of 4 GB.
#[derive(Serialize)]
struct Ran {
    answers: Vec<Box<RawValue>>,
    errors: Vec<Json>,
    notes: Vec<Json>,
    texts: Vec<String>,
    lines: Vec<usize>,
}

/// Where a text sent in a request (a source, a position) lies among the
/// session's entries: the offset it starts at, and its length.
struct Sent {
    base: usize,
    length: usize,
}

impl Sent {
    fn new(session: &Session, text: &str) -> Sent {
        Sent {
            base: session.next_offset(),
            length: text.len(),
        }
    }

    /// A position sent, parsed in the session, and where it lies.
    fn position(
        session: &mut Session,
        name: &str,
        text: &str,
    ) -> Result<(Sent, Vec<Component>), Json> {
        let sent = Sent::new(session, text);
        let sum = session
            .parse_position(name, text)
            .map_err(|report| sent.error(&report))?;
        Ok((sent, sum))
    }

    /// The whole text, as a span among the session's entries.
    fn span(&self) -> SourceSpan {
        SourceSpan::from(self.base..self.base + self.length)
    }

    /// miette's JSON report, with the labels inside the text sent counted
    /// from its start; labels pointing into earlier sources are left out.
    fn error(&self, report: &Report) -> Json {
        let text = output::error(report, ErrorStyle::Json);
        let mut error: Json =
            serde_json::from_str(&text).unwrap_or_else(|_| json!({ "message": text }));
        relative_spans(&mut error, self.base, self.length);
        error
    }
}

/// Counts the spans of a report and its related reports from `base`.
fn relative_spans(error: &mut Json, base: usize, length: usize) {
    if let Some(Json::Array(related)) = error.get_mut("related") {
        related
            .iter_mut()
            .for_each(|error| relative_spans(error, base, length));
    }
    if let Some(Json::Array(labels)) = error.get_mut("labels") {
        labels.retain_mut(|label| {
            let offset = label["span"]["offset"]
                .as_u64()
                .map(|offset| offset as usize);
            match offset {
                Some(offset) if (base..=base + length).contains(&offset) => {
                    label["span"]["offset"] = json!(offset - base);
                    true
                }
                _ => false,
            }
        });
    }
}

/// `POST /api/reset`: forgets every declaration and value but the served
/// files'.
pub async fn reset(State(shared): State<Arc<Shared>>) -> Response {
    match shared.reset().await {
        Ok(()) => Body(json!({ "reset": true })).into_response(),
        Err(unanswered) => unanswered.into_response(),
    }
}

/// `POST /api/cancel`: stops the computations of a lane, or of all, running
/// or waiting. The body may be empty.
pub async fn cancel(State(shared): State<Arc<Shared>>, body: axum::body::Bytes) -> Response {
    let request: CancelRequest = match body.is_empty() {
        true => CancelRequest { lane: None },
        false => match serde_json::from_slice(&body) {
            Ok(request) => request,
            Err(error) => {
                let body = json!({ "error": format!("the body is not a cancel request: {error}") });
                return (StatusCode::BAD_REQUEST, Body(body)).into_response();
            }
        },
    };
    let named = match request.lane.as_deref() {
        None => None,
        Some(named) => match lane(Some(named), "editor") {
            Ok(lane) => Some(lane),
            Err(refused) => return refused.into_response(),
        },
    };
    Body(json!({ "cancelled": shared.cancel(named) })).into_response()
}

/// `GET /api/games`: the games declared, with their parameters, and the
/// files served; answered at once, whatever is running.
pub async fn games(State(shared): State<Arc<Shared>>) -> Response {
    let games: Vec<Json> = shared
        .games()
        .into_iter()
        .map(
            |game| json!({ "name": game.name, "parameters": game.parameters, "board": game.board }),
        )
        .collect();
    let files: Vec<Json> = shared
        .files()
        .into_iter()
        .map(|(name, text)| json!({ "name": name, "text": text }))
        .collect();
    Body(json!({ "games": games, "files": files })).into_response()
}

/// `GET /api/progress`: each lane's computation running, if any: the
/// seconds it has run, the positions it has solved, and the sums and
/// positions its searches went through since it started; and the requests
/// waiting to run (after it, or for a thread another lane holds).
pub async fn progress(State(shared): State<Arc<Shared>>) -> Response {
    let lanes: serde_json::Map<String, Json> = shared
        .progress()
        .into_iter()
        .map(|lane| {
            let state = match lane.running {
                Some(progress) => json!({
                    "busy": true,
                    "seconds": progress.time.as_secs_f64(),
                    "positions": progress.positions,
                    "sums": progress.sums,
                    "listed": progress.listed,
                    "waiting": lane.waiting,
                }),
                None => json!({ "busy": false, "waiting": lane.waiting }),
            };
            (lane.lane.to_owned(), state)
        })
        .collect();
    Body(json!({ "lanes": lanes })).into_response()
}

/// `POST /api/moves`: a position, its value and its moves.
pub async fn moves(
    State(shared): State<Arc<Shared>>,
    Request(request): Request<MovesRequest>,
) -> Response {
    let lane = match lane(request.lane.as_deref(), "board") {
        Ok(lane) => lane,
        Err(refused) => return refused.into_response(),
    };
    let name = shared.entry_name();
    let outcome = shared
        .compute(lane, move |session| {
            let (sent, sum) = Sent::position(session, &name, &request.position)?;
            state(session, &sum).map_err(|report| sent.error(&report))
        })
        .await;
    reply(outcome)
}

/// `POST /api/play`: the user's move (or none, with `first`: the engine
/// moves first), then the engine's reply and why.
pub async fn play(
    State(shared): State<Arc<Shared>>,
    Request(request): Request<PlayRequest>,
) -> Response {
    let lane = match lane(request.lane.as_deref(), "board") {
        Ok(lane) => lane,
        Err(refused) => return refused.into_response(),
    };
    let asked = match request.asked() {
        Ok(asked) => asked,
        Err(error) => {
            return (
                StatusCode::UNPROCESSABLE_ENTITY,
                Body(json!({ "error": error })),
            )
                .into_response();
        }
    };
    let name = shared.entry_name();
    let outcome = shared
        .compute(lane, move |session| {
            let (sent, position) = Sent::position(session, &name, &request.position)?;
            let failed = |report: Report| sent.error(&report);
            let span = sent.span();
            let moves = session.written_moves(&position, span).map_err(failed)?;
            let chosen = match asked {
                Asked::First => None,
                Asked::Number(number) => Some(number
                    .checked_sub(1)
                    .and_then(|i| moves.get(i))
                    .ok_or_else(|| {
                        no_such_move(
                            format!("there is no move {number}: the position has {}", count(moves.len(), "move", "moves")),
                            "moves are numbered from 1 in the order `/api/moves` lists them",
                        )
                    })?),
                Asked::To(to) => {
                    // Compared as the parts the search makes of each, so
                    // that a move is found whether its position is sent on
                    // the board as written or not.
                    // Its errors point into it, and say so.
                    let in_to = |mut error: Json| {
                        error["field"] = json!("to");
                        error
                    };
                    let (sent_to, wanted) = Sent::position(session, &name, &to).map_err(in_to)?;
                    let wanted = session
                        .parts(&wanted)
                        .map_err(|report| in_to(sent_to.error(&report)))?;
                    let sum = session.parts(&position).map_err(failed)?;
                    let change = Change::between(&sum, &wanted);
                    Some(moves
                        .iter()
                        .find(|choice| change.is(&sum, choice))
                        .ok_or_else(|| {
                            in_to(no_such_move(
                                format!("{to} is not one move away"),
                                "`to` is the whole position a move leaves, every part of the sum included; `/api/moves` lists them",
                            ))
                        })?)
                }
            };
            let leaves;
            let (you, after) = match chosen {
                Some(chosen) => {
                    leaves = chosen.leaves();
                    (move_json(session, chosen), &leaves)
                }
                None => (Json::Null, &position),
            };
            let replies = session.written_moves(after, span).map_err(failed)?;
            let Some(answer) = session.reply(after, &replies, span).map_err(failed)? else {
                let mut body = state(session, after).map_err(failed)?;
                body["you"] = you;
                body["reply"] = Json::Null;
                body["why"] = json!(match chosen {
                    Some(_) => "you took the last move: you win",
                    None => "sprague has no move: you win",
                });
                body["winner"] = json!("you");
                return Ok(body);
            };
            let why = match (answer.line.winning, answer.line.drawing) {
                (true, _) => "sprague leaves value 0 (the XOR of the parts' values is 0): every move from there leaves a nonzero value it can bring back to 0",
                (false, true) => "no move wins; sprague keeps the game going round, where neither can force a win",
                (false, false) => "every move loses against best play; sprague plays the one that keeps the game longest (on a board too large to measure that, the one that leaves the most of it)",
            };
            let reply = move_json(session, answer);
            let mut body = state(session, &answer.leaves()).map_err(failed)?;
            let over = body["moves"].as_array().is_some_and(Vec::is_empty);
            body["you"] = you;
            body["reply"] = reply;
            body["why"] = json!(why);
            body["winner"] = if over { json!("sprague") } else { Json::Null };
            Ok(body)
        })
        .await;
    reply(outcome)
}

/// A state, or the errors of what the user wrote (a position that does
/// not parse, a move that is not one), answered as `/api/run` answers its
/// source's: in `errors`, with status 200, for the request was read and
/// answered. (A 422 for a slip in a typed position was an error in the
/// browser's console besides the one the page shows.)
fn reply(outcome: Result<Result<Json, Json>, Unanswered>) -> Response {
    match outcome {
        Ok(Ok(body)) => Body(body).into_response(),
        Ok(Err(error)) => Body(json!({ "errors": [error] })).into_response(),
        Err(unanswered) => unanswered.into_response(),
    }
}

/// How a position differs from another, as counts of each component
/// gained (positive) or lost (negative): a move of `sum` leaves `wanted`
/// when it makes the same change. Found in the time of the sum, not of the
/// sum for each move.
struct Change(BTreeMap<Component, i64>);

impl Change {
    fn between(sum: &[Component], wanted: &[Component]) -> Change {
        let mut counts = BTreeMap::new();
        for part in wanted {
            *counts.entry(part.clone()).or_insert(0) += 1;
        }
        for part in sum {
            *counts.entry(part.clone()).or_insert(0) -= 1;
        }
        counts.retain(|_, count| *count != 0);
        Change(counts)
    }

    /// Whether the move makes this change.
    fn is(&self, sum: &[Component], choice: &PlayMove) -> bool {
        let r#move = &choice.r#move;
        Change::between(&sum[r#move.component..=r#move.component], &r#move.to).0 == self.0
    }
}

/// A position as the board shows it, as written: its terms (with heap
/// sizes), value, verdict and moves.
fn state(session: &mut Session, sum: &[Component]) -> Result<Json, Report> {
    let span = SourceSpan::from(0..0);
    let values = session.values(sum, span)?;
    let moves = session.written_moves(sum, span)?;
    let finite: Option<u64> = values.iter().try_fold(0, |total, value| match value {
        Gamma::Finite(value) => Some(total ^ value),
        Gamma::Infinite(_) => None,
    });
    let parts: Vec<Json> = sum
        .iter()
        .zip(&values)
        .map(|(part, value)| {
            let heap = match part {
                Component::Heap(n) => json!(n),
                _ => Json::Null,
            };
            json!({ "position": session.show(std::slice::from_ref(part)), "heap": heap, "grundy": value.to_string() })
        })
        .collect();
    let wins = match finite {
        Some(value) => json!(value != 0),
        None => Json::Null,
    };
    Ok(json!({
        "position": session.show(sum),
        "parts": parts,
        "grundy": finite.map_or_else(|| json!("∞"), |value| json!(value)),
        "wins": wins,
        "moves": moves.iter().map(listed_move_json).collect::<Vec<_>>(),
    }))
}

/// A move of a list: with what it leaves when the list shows the whole sum
/// (see [`crate::session::WHOLE_SUM_PARTS`]), else with the part it
/// changes, counted from 1.
fn listed_move_json(choice: &PlayMove) -> Json {
    let mut body = json!({
        "move": output::move_text(&choice.line),
        "leaves": choice.line.result,
        "grundy": choice.line.grundy.to_string(),
        "winning": choice.line.winning,
        "drawing": choice.line.drawing,
    });
    if choice.line.result.is_none() {
        body["part"] = json!(choice.line.part + 1);
    }
    body
}

/// The move made, with the whole position it leaves, as written.
fn move_json(session: &Session, choice: &PlayMove) -> Json {
    let mut line = choice.line.clone();
    let leaves = session.show(&choice.leaves());
    line.result = Some(leaves.clone());
    json!({
        "move": output::move_text(&line),
        "leaves": leaves,
        "grundy": line.grundy.to_string(),
        "winning": line.winning,
        "drawing": line.drawing,
    })
}
