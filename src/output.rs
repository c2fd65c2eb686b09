//! Printing answers and errors, as text for people and as JSON lines for
//! programs. Nothing here computes: answers arrive complete.

use miette::{GraphicalReportHandler, GraphicalTheme, JSONReportHandler, Report};
use serde_json::{Value as Json, json};

use crate::session::{Answer, Value};

/// One line of text: the query as asked, then its answer.
pub fn text(answer: &Answer) -> String {
    let question = format!("{} {}", answer.query.keyword(), answer.position);
    match &answer.value {
        Value::Grundy(value) => format!("{question} = {value}"),
        Value::Wins(wins) => format!("{question} = {wins}"),
        Value::BestMove(Some(best)) => {
            format!(
                "{question} = {} -> {}, leaving {}",
                best.from, best.to, best.result
            )
        }
        Value::BestMove(None) => {
            format!("{question} = none: the position has value 0, every move loses")
        }
    }
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
