//! The framing of LSP messages: `Content-Length` headers, a blank line and
//! a JSON body. The reader takes what it can and never gives up on the
//! stream: a frame it cannot read becomes a JSON-RPC error to answer, and
//! it goes on with the next frame. Headers may end in `\r\n` or in `\n`
//! alone, and a frame's header found after junk on the same line is read.

use std::collections::VecDeque;
use std::io::{self, BufRead, Read, Write};

use lsp_server::{ErrorCode, Message};
use serde_json::{Value as Json, json};

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
}

impl<R: BufRead> Reader<R> {
    pub fn new(input: R) -> Self {
        Reader {
            input,
            ready: VecDeque::new(),
            body_lost: false,
            skip: 0,
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
        if io::copy(&mut (&mut self.input).take(skip), &mut io::sink())? < skip {
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
                            "skipped {} bytes that are not an LSP header",
                            skipped + dropped
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
                &format!("skipped {junk} bytes that are not an LSP header"),
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
                        "a message of {length} bytes is longer than the {} MiB sprague reads; skipped",
                        MAX_MESSAGE >> 20
                    ),
                );
            }
            Some(Ok(length)) => {
                let mut body = Vec::new();
                (&mut self.input).take(length).read_to_end(&mut body)?;
                if (body.len() as u64) < length {
                    return Ok(false);
                }
                self.ready.push_back(message(&body));
            }
        }
        Ok(true)
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
        let mut line = Vec::new();
        let mut dropped = 0usize;
        loop {
            let available = match self.input.fill_buf() {
                Ok(available) => available,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(error),
            };
            if available.is_empty() {
                return Ok((!line.is_empty() || dropped > 0).then_some((dropped, line)));
            }
            let (taken, ended) = match available.iter().position(|&b| b == b'\n') {
                Some(at) => (at + 1, true),
                None => (available.len(), false),
            };
            line.extend_from_slice(&available[..taken]);
            self.input.consume(taken);
            if line.len() > 2 * MAX_HEADER_LINE {
                let excess = line.len() - MAX_HEADER_LINE;
                line.drain(..excess);
                dropped += excess;
            }
            if ended {
                return Ok(Some((dropped, line)));
            }
        }
    }
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
    let id = match value.get("id") {
        Some(id @ (Json::Number(_) | Json::String(_))) => id.clone(),
        _ => Json::Null,
    };
    let what = match &value {
        Json::Array(_) => "a batch (an array), which LSP does not use",
        Json::Object(_) => "not a JSON-RPC request, response or notification",
        _ => "not a JSON-RPC message (an object)",
    };
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
            // No length: one error, and the body (junk) is not another.
            (
                format!("Content-Type: x\r\n\r\n{EXIT}"),
                vec!["-32700", "exit"],
            ),
            ("Content-Length: x\r\n\r\n".into(), vec!["-32700", "exit"]),
            ("hello\r\n".into(), vec!["-32700", "exit"]),
            (
                format!("Content-Length: 10000000000\r\n\r\n{}", "x".repeat(100)),
                vec!["-32600"],
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
