//! Printing answers and errors, as text for people and as JSON lines for
//! programs. Nothing here computes: answers arrive complete.

use miette::{GraphicalReportHandler, GraphicalTheme, JSONReportHandler, Report};
use serde_json::{Value as Json, json};

use crate::session::{Answer, MoveLine, Value};

/// The answer as text: the query as asked, then its answer; a list of moves
/// follows on numbered lines.
pub fn text(answer: &Answer) -> String {
    let question = format!("{} {}", answer.query.keyword(), answer.position);
    match &answer.value {
        Value::Grundy(value) => format!("{question} = {value}"),
        Value::Wins(wins) => format!("{question} = {wins}"),
        Value::BestMove(Some(best)) => format!("{question} = {}", move_text(best)),
        Value::BestMove(None) => {
            format!("{question} = none: the position has value 0, every move loses")
        }
        Value::Moves(moves) if moves.is_empty() => {
            format!("{question} = no moves: the player to move loses")
        }
        Value::Moves(moves) => {
            let count = match moves.len() {
                1 => "1 move".to_owned(),
                n => format!("{n} moves"),
            };
            let mut text = format!("{question} = {count}");
            for (number, line) in moves.iter().enumerate() {
                text += &format!("\n  {}. {}", number + 1, valued_move_text(line));
            }
            text
        }
    }
}

/// `from -> to, leaving result`.
pub fn move_text(line: &MoveLine) -> String {
    format!("{} -> {}, leaving {}", line.from, line.to, line.result)
}

/// A move with the value it leaves, marked when it wins.
pub fn valued_move_text(line: &MoveLine) -> String {
    let mark = if line.winning { ", winning" } else { "" };
    format!("{}: grundy {}{mark}", move_text(line), line.grundy)
}

/// One JSON object, in the field order documented in README.md.
pub fn json(answer: &Answer) -> Json {
    let mut object = json!({
        "query": answer.query.keyword(),
        "position": answer.position,
    });
    let fields = object.as_object_mut().expect("built as an object");
    match &answer.value {
        Value::Grundy(value) => {
            fields.insert("value".into(), json!(value));
        }
        Value::Wins(wins) => {
            fields.insert("value".into(), json!(wins));
        }
        Value::BestMove(best) => {
            let (r#move, result) = match best {
                Some(best) => (
                    json!({"from": best.from, "to": best.to}),
                    json!(best.result),
                ),
                None => (Json::Null, Json::Null),
            };
            fields.insert("move".into(), r#move);
            fields.insert("result".into(), result);
        }
        Value::Moves(moves) => {
            let options = moves
                .iter()
                .map(|line| {
                    json!({
                        "move": {"from": line.from, "to": line.to},
                        "result": line.result,
                        "grundy": line.grundy,
                        "winning": line.winning,
                    })
                })
                .collect();
            fields.insert("options".into(), Json::Array(options));
        }
    }
    if !answer.bindings.is_empty() {
        let bindings = answer
            .bindings
            .iter()
            .map(|(name, value)| (name.clone(), json!(value)))
            .collect();
        fields.insert("bindings".into(), Json::Object(bindings));
    }
    object
}

/// How errors are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorStyle {
    /// miette's graphical report, in colour when `colour` is set.
    Graphical { colour: bool, width: usize },
    /// miette's JSON report, one object per line.
    Json,
}

pub fn error(report: &Report, style: ErrorStyle) -> String {
    let mut out = String::new();
    let rendered = match style {
        ErrorStyle::Graphical { colour, width } => {
            let theme = match colour {
                true => GraphicalTheme::unicode(),
                false => GraphicalTheme::unicode_nocolor(),
            };
            GraphicalReportHandler::new_themed(theme)
                .with_width(width)
                .render_report(&mut out, report.as_ref())
        }
        ErrorStyle::Json => JSONReportHandler::new().render_report(&mut out, report.as_ref()),
    };
    match rendered {
        Ok(()) => out,
        Err(_) => format!("{report}"),
    }
}
