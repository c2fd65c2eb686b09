//! Answers as JSON, one object each, in the field order README.md
//! documents.

use serde_json::{Value as Json, json};

use super::outcome;
use crate::analysis::Period;
use crate::engine::Gamma;
use crate::session::why::{Reason, Why};
use crate::session::{Answer, Diff, MoveLine, Value};

/// A move as JSON: `{"from", "to", "result", "value"}`.
fn line_json(line: &MoveLine) -> Json {
    json!({
        "from": line.from,
        "to": line.to,
        "result": line.result,
        "value": gamma_json(&line.grundy),
    })
}

/// The fields of a `why` answer (README.md documents them).
fn why_json(fields: &mut serde_json::Map<String, Json>, why: &Why) {
    fields.insert("value".into(), gamma_json(&why.value));
    let parts: Vec<Json> = why
        .parts
        .iter()
        .map(|(position, value)| json!({ "position": position, "value": gamma_json(value) }))
        .collect();
    fields.insert("parts".into(), json!(parts));
    let reason = match &why.reason {
        Reason::Mex {
            options,
            witnesses,
            reversals,
        } => json!({
            "rule": "mex",
            "options": options,
            "witnesses": witnesses.iter().map(line_json).collect::<Vec<_>>(),
            "reversals": reversals.iter().map(|(option, back)| json!({
                "option": line_json(option),
                "back": back.as_ref().map_or(Json::Null, line_json),
            })).collect::<Vec<_>>(),
        }),
        Reason::Infinite {
            options,
            candidate,
            unreversed,
        } => json!({
            "rule": "infinite",
            "options": options,
            "candidate": candidate,
            "unreversed": unreversed.as_ref().map_or(Json::Null, line_json),
        }),
        Reason::Xor { best } => {
            let table = why.xor_table();
            json!({
                "rule": "xor",
                "binary": table.digits,
                "xor": table.xor_digits,
                "part": best.as_ref().map_or(Json::Null, |(part, _)| json!(part)),
                "move": best.as_ref().map_or(Json::Null, |(_, best)| line_json(best)),
            })
        }
        Reason::Loopy => json!({ "rule": "loopy" }),
        Reason::Genus { genus, options } => json!({
            "rule": "genus",
            "genus": genus.to_string(),
            "options": options.iter().map(|(option, genus)| json!({
                "move": line_json(option),
                "genus": genus.to_string(),
            })).collect::<Vec<_>>(),
        }),
    };
    fields.insert("proof".into(), reason);
}

/// The fields of a diff after its query and game.
fn diff_json(diff: &Diff) -> Json {
    json!({
            "a": diff.a,
            "b": diff.b,
            "positions": diff.positions,
            "differ": diff.rows.len(),
            "flips": diff.flips,
            "first": diff.rows.first().map_or(Json::Null, |row| bindings_json(&row.bindings)),
            "rows": diff.rows.iter().map(|row| json!({
                "bindings": bindings_json(&row.bindings),
                "a": row.a,
                "b": row.b,
                "flip": row.flip,
            })).collect::<Vec<_>>(),
    })
}

/// One JSON object, in the field order documented in README.md.
pub fn json(answer: &Answer) -> Json {
    let query = answer.query.keyword();
    let mut object = match &answer.value {
        Value::Period { period, checked_to } => {
            let field = |get: fn(&Period) -> Json| period.as_ref().map_or(Json::Null, get);
            json!({
                "query": query,
                "game": answer.position,
                "period": field(|period| json!(period.period)),
                "preperiod": field(|period| json!(period.preperiod)),
                "saltus": field(|period| json!(period.saltus)),
                "proven": period.as_ref().is_some_and(|period| period.proven),
                "checked_to": checked_to,
            })
        }
        Value::Quotient(report) => json!({
            "query": query,
            "game": report.game,
            "up_to": report.up_to,
            "order": report.order,
            "generators": report
                .generators
                .iter()
                .map(|(letter, heap)| json!({"name": letter, "heap": heap}))
                .collect::<Vec<Json>>(),
            "relations": report
                .relations
                .iter()
                .map(|(left, right)| json!([left, right]))
                .collect::<Vec<Json>>(),
            "elements": report.elements,
            "p_portion": report.p_portion,
            "pretending": report.pretending,
        }),
        Value::Diff(diff) => {
            let mut object = json!({ "query": query });
            if let Some(game) = &diff.game {
                object["game"] = json!(game);
            }
            let fields = object.as_object_mut().expect("built as an object");
            fields.extend(diff_json(diff).as_object().cloned().unwrap_or_default());
            object
        }
        value => {
            let mut object = json!({ "query": query, "position": answer.position });
            position_fields(object.as_object_mut().expect("built as an object"), value);
            object
        }
    };
    let fields = object.as_object_mut().expect("built as an object");
    if answer.by == Some("quotient")
        && let Some(Json::Array(options)) = fields.get_mut("options")
    {
        // A quotient gives each move's outcome, not a misère Grundy value.
        for option in options.iter_mut().filter_map(Json::as_object_mut) {
            option.remove("grundy");
            let winning = option.get("winning") == Some(&json!(true));
            option.insert("outcome".into(), json!(if winning { "P" } else { "N" }));
        }
    }
    if let Some(play) = answer.play {
        fields.insert("play".into(), json!(play.name()));
    }
    if let Some(by) = answer.by {
        fields.insert("by".into(), json!(by));
    }
    if !answer.bindings.is_empty() {
        fields.insert("bindings".into(), bindings_json(&answer.bindings));
    }
    object
}

/// The fields after `position` of an answer about a position.
fn position_fields(fields: &mut serde_json::Map<String, Json>, value: &Value) {
    let move_fields = |fields: &mut serde_json::Map<String, Json>, best: &Option<MoveLine>| {
        let (r#move, result) = match best {
            Some(best) => (
                json!({"from": best.from, "to": best.to}),
                json!(best.result),
            ),
            None => (Json::Null, Json::Null),
        };
        fields.insert("move".into(), r#move);
        fields.insert("result".into(), result);
        if best.as_ref().is_some_and(|best| best.drawing) {
            fields.insert("aim".into(), json!("draw"));
        }
    };
    match value {
        Value::Grundy(value) => {
            fields.insert("value".into(), json!(value));
        }
        Value::Infinite(reaches) => {
            fields.insert("value".into(), json!("inf"));
            fields.insert("reaches".into(), json!(reaches));
        }
        Value::Wins(wins) => {
            fields.insert("value".into(), json!(wins));
        }
        Value::Draw => {
            fields.insert("value".into(), json!("draw"));
        }
        Value::BestMove(best) => move_fields(fields, best),
        Value::Moves(moves) => {
            let options = moves
                .iter()
                .map(|line| {
                    let mut option = json!({
                        "move": {"from": line.from, "to": line.to},
                        "result": line.result,
                        "grundy": gamma_json(&line.grundy),
                        "winning": line.winning,
                    });
                    if line.result.is_none() {
                        // The sum is too long to repeat: the part moved, from 1.
                        option["move"]["part"] = json!(line.part + 1);
                    }
                    if let Gamma::Infinite(reaches) = &line.grundy {
                        let fields = option.as_object_mut().expect("built as an object");
                        fields.insert("reaches".into(), json!(reaches));
                        fields.insert("drawn".into(), json!(line.drawing));
                    }
                    option
                })
                .collect();
            fields.insert("options".into(), Json::Array(options));
        }
        Value::Equal { other, equal } => {
            fields.insert("other".into(), json!(other));
            fields.insert("value".into(), json!(equal));
        }
        Value::Crosscheck(check) => {
            fields.insert("agree".into(), json!(check.agree()));
            fields.insert("grundy".into(), json!(check.grundy));
            fields.insert("search".into(), json!(outcome(check.search_wins)));
            fields.insert("positions".into(), json!(check.positions));
            fields.insert("board".into(), json!(check.boards));
            let tables: Vec<Json> = check
                .tables
                .iter()
                .map(|table| json!({ "part": table.part, "positions": table.positions }))
                .collect();
            let tabled: usize = check.tables.iter().map(|table| table.positions).sum();
            fields.insert("tables".into(), Json::Array(tables));
            fields.insert("table_positions".into(), json!(tabled));
        }
        Value::Remoteness(remoteness) => {
            fields.insert("value".into(), json!(remoteness.remoteness));
            fields.insert("wins".into(), json!(remoteness.wins));
            move_fields(fields, &remoteness.best);
            fields.insert("positions".into(), json!(remoteness.positions));
        }
        Value::Genus(genus) => {
            fields.insert("value".into(), json!(genus.to_string()));
            fields.insert("grundy".into(), json!(genus.grundy));
            fields.insert("misere".into(), json!(genus.misere));
        }
        Value::Why(why) => why_json(fields, why),
        Value::Strategy { n, rows } => {
            fields.insert("n".into(), json!(n));
            let rows: Vec<Json> = rows
                .iter()
                .map(|row| {
                    json!({
                        "first": line_json(&row.first),
                        "reply": row.reply.as_ref().map_or(Json::Null, line_json),
                        "case": row.case,
                    })
                })
                .collect();
            fields.insert("replies".into(), json!(rows));
        }
        Value::Graph(picture) | Value::Plot(picture) => {
            let size = match value {
                Value::Graph(_) => "nodes",
                _ => "points",
            };
            fields.insert(size.into(), json!(picture.size));
            fields.insert("format".into(), json!(picture.format));
            fields.insert("file".into(), json!(picture.file));
            if picture.file.is_none() {
                fields.insert("content".into(), json!(picture.content));
            }
        }
        Value::Period { .. } | Value::Diff(_) | Value::Quotient(_) => {
            unreachable!("answers about games are built apart")
        }
    }
}

/// A finite value as a number, ∞ as `"inf"` (its K is set beside it).
fn gamma_json(value: &Gamma) -> Json {
    match value {
        Gamma::Finite(value) => json!(value),
        Gamma::Infinite(_) => json!("inf"),
    }
}

fn bindings_json(bindings: &[(String, i64)]) -> Json {
    Json::Object(
        bindings
            .iter()
            .map(|(name, value)| (name.clone(), json!(value)))
            .collect(),
    )
}
