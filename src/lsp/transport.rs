//! The framing of LSP messages: `Content-Length` headers, a blank line and
//! a JSON body. The reader takes what it can and never gives up on the
//! stream: a frame it cannot read becomes a JSON-RPC error to answer, and
//! it goes on with the next frame. Headers may end in `\r\n` or in `\n`
//! alone, and a frame's header found after junk on the same line is read.
//!
//! A frame whose declared length is wrong is found out by the header of
//! the next one inside its body: a line that ends in `Content-Length: N`
//! is in no JSON text (a raw line break cannot sit in a string, nor a
//! bare word outside one). The body is cut there, refused, and the
//! reader resynchronises on that header, so a frame declaring more than
//! it sends (even 10 GB) costs that frame alone, not all that follows.

use std::collections::VecDeque;
use std::io::{self, BufRead, Read, Write};

use lsp_server::{ErrorCode, Message};
use serde_json::{Value as Json, json};

use crate::eval::count;

/// The largest message body read: a longer one is skipped unread and
/// answered with an error, never held in memory.
pub const MAX_MESSAGE: u64 = 64 << 20;
/// The longest header line kept (a longer one is junk; its last bytes are
/// kept, so that a header at its end is still found).
const MAX_HEADER_LINE: usize = 8 << 10;

/// What arrives on the input: a message, or a frame that could not be
/// read as one, to be answered with a JSON-RPC error.
#[derive(Debug)]
pub enum Incoming {
    Message(Message),
    Malformed(Malformed),
}

/// A JSON-RPC error for what could not be read.
#[derive(Debug)]
pub struct Malformed {
    /// The request's id when it could be read, else `null`.
    pub id: Json,
    pub code: i32,
    pub message: String,
}

impl Malformed {
    fn new(code: ErrorCode, message: String) -> Malformed {
        Malformed {
            id: Json::Null,
            code: code as i32,
            message,
        }
    }

    /// The error response, as JSON.
    pub fn response(&self) -> Json {
        json!({
            "jsonrpc": "2.0",
            "id": self.id,
            "error": { "code": self.code, "message": self.message },
        })
    }
}

pub struct Reader<R> {
    input: R,
    ready: VecDeque<Incoming>,
    /// What could not be read has been reported, and the junk that
    /// follows (the body of a frame with no usable length, say) is not
    /// reported again until a frame is read.
    body_lost: bool,
    /// The bytes of a refused body, to skip before the next frame.
    skip: u64,
    /// A header line found inside a body, to be read first.
    replay: Option<Vec<u8>>,
}

/// How the bytes of a body declared so long ended.
enum Body {
    /// All were read.
    Whole,
    /// A header line came first: the next frame starts there.
    Cut,
    /// The input ended first.
    Ended,
}

impl<R: BufRead> Reader<R> {
    pub fn new(input: R) -> Self {
        Reader {
            input,
            ready: VecDeque::new(),
            body_lost: false,
            skip: 0,
            replay: None,
        }
    }

    /// The next message or malformed frame; `None` at the end of input.
    pub fn next(&mut self) -> io::Result<Option<Incoming>> {
        while self.ready.is_empty() {
            if !self.frame()? {
                break;
            }
        }
        Ok(self.ready.pop_front())
    }

    /// Reads one frame (a header block and its body), queueing what it
    /// yields; `false` at the end of input.
    fn frame(&mut self) -> io::Result<bool> {
        let skip = std::mem::take(&mut self.skip);
        if skip > 0 && matches!(self.body(skip, false)?.0, Body::Ended) {
            return Ok(false);
        }
        let mut length: Option<Result<u64, String>> = None;
        let mut junk = 0usize;
        let mut lines = 0;
        loop {
            let Some((dropped, line)) = self.line()? else {
                return Ok(false);
            };
            junk += dropped;
            let line = line.strip_suffix(b"\n").unwrap_or(&line);
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.is_empty() {
                if lines == 0 {
                    continue;
                }
                break;
            }
            let (skipped, header) = header(line);
            if header.is_none() && lines == 0 {
                // Junk before any header: said at once (unless it is what
                // is left of a frame already refused), and skipped.
                if !std::mem::replace(&mut self.body_lost, true) {
                    self.refuse(
                        ErrorCode::ParseError,
                        &format!(
                            "skipped {} that are not an LSP header",
                            count(skipped + dropped, "byte", "bytes")
                        ),
                    );
                    return Ok(true);
                }
                continue;
            }
            lines += 1;
            junk += skipped;
            if let Some((name, value)) = header
                && name.eq_ignore_ascii_case("content-length")
            {
                length = Some(
                    value
                        .parse::<u64>()
                        .map_err(|_| format!("`Content-Length: {value}` is not a length")),
                );
            }
        }
        let body_lost = std::mem::take(&mut self.body_lost);
        let reported = junk > 0 && !body_lost;
        if reported {
            self.refuse(
                ErrorCode::ParseError,
                &format!(
                    "skipped {} that are not an LSP header",
                    count(junk, "byte", "bytes")
                ),
            );
        }
        match length {
            None | Some(Err(_)) => {
                self.body_lost = true;
                if !reported {
                    let message = match length {
                        Some(Err(message)) => message,
                        _ => "a message with no Content-Length header".to_owned(),
                    };
                    self.refuse(ErrorCode::ParseError, &message);
                }
            }
            Some(Ok(length)) if length > MAX_MESSAGE => {
                // Refused at once, and skipped before the next frame.
                self.skip = length;
                self.refuse(
                    ErrorCode::InvalidRequest,
                    &format!(
                        "a message of {} is longer than the {} MiB sprague reads; skipped",
                        count(length, "byte", "bytes"),
                        MAX_MESSAGE >> 20
                    ),
                );
            }
            Some(Ok(length)) => match self.body(length, true)? {
                (Body::Whole, body) => self.ready.push_back(message(&body)),
                (Body::Cut, body) => self.ready.push_back(Incoming::Malformed(Malformed {
                    id: id(&body),
                    code: ErrorCode::ParseError as i32,
                    message: format!(
                        "a message declared {} long has the next header after {}; \
                         refused, and the next message read from there",
                        count(length, "byte", "bytes"),
                        count(body.len(), "byte", "bytes")
                    ),
                })),
                (Body::Ended, body) => self.refuse(
                    ErrorCode::ParseError,
                    &format!(
                        "the input ended {} into a message declared {} long",
                        count(body.len(), "byte", "bytes"),
                        count(length, "byte", "bytes")
                    ),
                ),
            },
        }
        Ok(true)
    }

    /// Reads a body of `length` bytes (kept when `keep`, else dropped as
    /// read) up to the first line that is a header, which is kept to be
    /// read next; returns how it ended, and what was kept.
    fn body(&mut self, length: u64, keep: bool) -> io::Result<(Body, Vec<u8>)> {
        let mut input = (&mut self.input).take(length);
        let mut body = Vec::new();
        loop {
            if !keep {
                body.clear();
            }
            let start = body.len();
            if read_line(&mut input, &mut body, !keep)?.is_none() {
                let end = match input.limit() {
                    0 => Body::Whole,
                    _ => Body::Ended,
                };
                return Ok((end, body));
            }
            if let Some(at) = header_line(&body[start..]) {
                self.replay = Some(body.split_off(start + at));
                return Ok((Body::Cut, body));
            }
        }
    }

    fn refuse(&mut self, code: ErrorCode, message: &str) {
        self.ready.push_back(Incoming::Malformed(Malformed::new(
            code,
            message.to_owned(),
        )));
    }

    /// One line with its end, or its last [`MAX_HEADER_LINE`] bytes when
    /// longer (with how many were dropped); `None` at the end of input.
    fn line(&mut self) -> io::Result<Option<(usize, Vec<u8>)>> {
        if let Some(line) = self.replay.take() {
            return Ok(Some((0, line)));
        }
        let mut line = Vec::new();
        Ok(read_line(&mut self.input, &mut line, true)?.map(|dropped| (dropped, line)))
    }
}

/// Adds one line with its end to `line`; when `bounded`, only its last
/// [`MAX_HEADER_LINE`] bytes or so are kept, and how many were dropped
/// is returned. `None` at the end of input, when nothing was read.
fn read_line(
    input: &mut impl BufRead,
    line: &mut Vec<u8>,
    bounded: bool,
) -> io::Result<Option<usize>> {
    let mut dropped = 0usize;
    let mut read = false;
    loop {
        let available = match input.fill_buf() {
            Ok(available) => available,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        if available.is_empty() {
            return Ok(read.then_some(dropped));
        }
        let (taken, ended) = match available.iter().position(|&b| b == b'\n') {
            Some(at) => (at + 1, true),
            None => (available.len(), false),
        };
        line.extend_from_slice(&available[..taken]);
        input.consume(taken);
        read = true;
        if bounded && line.len() > 2 * MAX_HEADER_LINE {
            let excess = line.len() - MAX_HEADER_LINE;
            line.drain(..excess);
            dropped += excess;
        }
        if ended {
            return Ok(Some(dropped));
        }
    }
}

/// Where the `Content-Length` header starts in a line that ends with
/// one, after junk perhaps; `None` when the line does not.
fn header_line(line: &[u8]) -> Option<usize> {
    const NAME: &[u8] = b"content-length:";
    let line = line.strip_suffix(b"\n")?;
    let line = line.strip_suffix(b"\r").unwrap_or(line).trim_ascii_end();
    let digits = line.iter().rev().take_while(|b| b.is_ascii_digit()).count();
    let name = line[..line.len() - digits].trim_ascii_end();
    let at = name.len().checked_sub(NAME.len())?;
    (digits > 0 && name[at..].eq_ignore_ascii_case(NAME)).then_some(at)
}

/// A header line as `(junk bytes before the header, the header)`: a
/// `Content-Length` header is found after junk on its line (what is left
/// of a body that could not be read).
fn header(line: &[u8]) -> (usize, Option<(&str, &str)>) {
    let Ok(line) = std::str::from_utf8(line) else {
        return (line.len(), None);
    };
    let start = line
        .to_ascii_lowercase()
        .find("content-length:")
        .unwrap_or(0);
    let (junk, rest) = line.split_at(start);
    match rest.split_once(':') {
        Some((name, value))
            if !name.is_empty()
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') =>
        {
            (junk.len(), Some((name, value.trim())))
        }
        _ => (line.len(), None),
    }
}

/// The message of a frame's body, or the error that answers it.
fn message(body: &[u8]) -> Incoming {
    let value: Json = match serde_json::from_slice(body) {
        Ok(value) => value,
        Err(error) => {
            return Incoming::Malformed(Malformed::new(
                ErrorCode::ParseError,
                format!("the message is not JSON: {error}"),
            ));
        }
    };
    let id = request_id(&value);
    let what = match &value {
        Json::Array(_) => "a batch (an array), which LSP does not use",
        Json::Object(_) => "not a JSON-RPC request, response or notification",
        _ => "not a JSON-RPC message (an object)",
    };
    // An id the protocol's requests cannot carry (an object, a fraction,
    // a number past 32 bits, `null`) would make the message read as a
    // notification, which is never answered: it is refused instead.
    if let Some(bad) = value.get("id").filter(|id| !usable_id(id)) {
        return Incoming::Malformed(Malformed {
            id,
            code: ErrorCode::InvalidRequest as i32,
            message: format!("the request's id {bad} is not a string or an integer of 32 bits"),
        });
    }
    match value {
        Json::Object(_) => match serde_json::from_value::<Message>(value) {
            Ok(message) => Incoming::Message(message),
            Err(error) => Incoming::Malformed(Malformed {
                id,
                code: ErrorCode::InvalidRequest as i32,
                message: format!("{what}: {error}"),
            }),
        },
        _ => Incoming::Malformed(Malformed::new(ErrorCode::InvalidRequest, what.to_owned())),
    }
}

/// Whether a request's id is one the protocol's requests carry: a string,
/// or an integer of 32 bits.
fn usable_id(id: &Json) -> bool {
    match id {
        Json::String(_) => true,
        Json::Number(number) => number.as_i64().is_some_and(|n| i32::try_from(n).is_ok()),
        _ => false,
    }
}

/// The id of a request whose body can be read, else `null`.
fn id(body: &[u8]) -> Json {
    serde_json::from_slice(body).map_or(Json::Null, |value| request_id(&value))
}

fn request_id(value: &Json) -> Json {
    match value.get("id") {
        Some(id) if usable_id(id) => id.clone(),
        _ => Json::Null,
    }
}

/// Writes a JSON-RPC message with its header.
pub fn write(output: &mut impl Write, message: &Json) -> io::Result<()> {
    let body = message.to_string();
    write!(output, "Content-Length: {}\r\n\r\n{body}", body.len())?;
    output.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(input: &[u8]) -> Vec<Incoming> {
        let mut reader = Reader::new(input);
        std::iter::from_fn(|| reader.next().unwrap()).collect()
    }

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    const EXIT: &str = r#"{"jsonrpc":"2.0","method":"exit"}"#;

    fn kinds(found: &[Incoming]) -> Vec<String> {
        found
            .iter()
            .map(|incoming| match incoming {
                Incoming::Message(Message::Notification(n)) => n.method.clone(),
                Incoming::Message(_) => "message".into(),
                Incoming::Malformed(m) => m.code.to_string(),
            })
            .collect()
    }

    #[test]
    fn frames_that_cannot_be_read_are_errors_and_the_next_is_read() {
        let cases = [
            (frame("{nope"), vec!["-32700", "exit"]),
            (frame("[]"), vec!["-32600", "exit"]),
            (frame("42"), vec!["-32600", "exit"]),
            (frame(r#"{"id":1,"method":7}"#), vec!["-32600", "exit"]),
            // Ids no request carries: refused, not read as notifications.
            (
                frame(r#"{"jsonrpc":"2.0","id":{"a":1},"method":"shutdown"}"#),
                vec!["-32600", "exit"],
            ),
            (
                frame(r#"{"jsonrpc":"2.0","id":1.5,"method":"foo"}"#),
                vec!["-32600", "exit"],
            ),
            (
                frame(r#"{"jsonrpc":"2.0","id":true,"method":"foo"}"#),
                vec!["-32600", "exit"],
            ),
            (
                frame(r#"{"jsonrpc":"2.0","id":null,"method":"foo"}"#),
                vec!["-32600", "exit"],
            ),
            (
                frame(r#"{"jsonrpc":"2.0","id":3000000000,"method":"foo"}"#),
                vec!["-32600", "exit"],
            ),
            // No length: one error, and the body (junk) is not another.
            (
                format!("Content-Type: x\r\n\r\n{EXIT}"),
                vec!["-32700", "exit"],
            ),
            ("Content-Length: x\r\n\r\n".into(), vec!["-32700", "exit"]),
            ("hello\r\n".into(), vec!["-32700", "exit"]),
            // A length longer than what comes: the next header, found in
            // the body (at a line's start or after junk), ends it.
            (
                format!("Content-Length: 10000000000\r\n\r\n{}", "x".repeat(100)),
                vec!["-32600", "exit"],
            ),
            (
                "Content-Length: 10000000000\r\n\r\n".into(),
                vec!["-32600", "exit"],
            ),
            (
                format!("Content-Length: 10000000000\n\n{}\n", "x\n".repeat(20_000)),
                vec!["-32600", "exit"],
            ),
            (
                "Content-Length: 500\r\n\r\n{}".into(),
                vec!["-32700", "exit"],
            ),
            (
                "Content-Length: -5\r\n\r\n{}".into(),
                vec!["-32700", "exit"],
            ),
            // No blank line: the body is junk, the next header is read.
            (
                format!("Content-Length: 33\r\n{EXIT}"),
                vec!["-32700", "exit"],
            ),
            (
                format!("Content-Length: {}\r\n\r\n", MAX_MESSAGE + 1)
                    + &" ".repeat(MAX_MESSAGE as usize + 1),
                vec!["-32600", "exit"],
            ),
        ];
        for (bad, expected) in cases {
            let input = format!("{bad}{}", frame(EXIT));
            assert_eq!(kinds(&read_all(input.as_bytes())), expected, "{bad:.80?}");
        }
    }

    #[test]
    fn a_body_cut_short_by_the_next_header_answers_its_request() {
        let request = r#"{"jsonrpc":"2.0","id":7,"method":"shutdown"}"#;
        let input = format!("Content-Length: 999\r\n\r\n{request}{}", frame(EXIT));
        let found = read_all(input.as_bytes());
        assert_eq!(kinds(&found), ["-32700", "exit"]);
        let Incoming::Malformed(cut) = &found[0] else {
            panic!("{found:?}")
        };
        assert_eq!(cut.id, json!(7));
    }

    #[test]
    fn a_body_ended_by_the_input_is_an_error() {
        let input = "Content-Length: 500\r\n\r\n{\"jsonrpc\"";
        assert_eq!(kinds(&read_all(input.as_bytes())), ["-32700"]);
    }

    #[test]
    fn a_header_inside_a_json_string_does_not_cut_the_body() {
        // Escaped line breaks around it, and a length after it: still a
        // string, and the body is read whole, short or over the bound.
        let text = "\\nContent-Length: 12\\r\\n\\r\\n";
        let small = format!(r#"{{"jsonrpc":"2.0","method":"exit","params":"{text}"}}"#);
        assert_eq!(kinds(&read_all(frame(&small).as_bytes())), ["exit"]);
        let padding = " ".repeat(MAX_MESSAGE as usize);
        let large = format!(r#"{{"jsonrpc":"2.0","method":"x","params":"{text}{padding}"}}"#);
        let input = format!("{}{}", frame(&large), frame(EXIT));
        assert_eq!(kinds(&read_all(input.as_bytes())), ["-32600", "exit"]);
    }

    #[test]
    fn line_feeds_alone_end_headers_too() {
        let input = format!("Content-Length: {}\n\n{EXIT}", EXIT.len());
        assert_eq!(kinds(&read_all(input.as_bytes())), ["exit"]);
    }

    #[test]
    fn a_long_junk_line_is_skipped_and_a_header_at_its_end_read() {
        let input = format!("{}{}", "x".repeat(100_000), frame(EXIT));
        assert_eq!(kinds(&read_all(input.as_bytes())), ["-32700", "exit"]);
    }
}
