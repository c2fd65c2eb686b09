//! Answers as JSON, one object each, in the field order README.md
//! documents.
//!
//! A list that may be long (the moves of `moves`, the replies of
//! `strategy`, the witnesses of `why`, the rows of `diff`) is written
//! element by element: each element's tree is built, written and dropped,
//! so that an answer of a million moves is written in the memory of a
//! few, where its tree took two gigabytes.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Value as Json, json};

use super::outcome;
use crate::analysis::Period;
use crate::engine::Gamma;
use crate::session::why::{Reason, Why};
use crate::session::{Answer, Diff, MoveLine, Value};

/// The answer as one JSON object (a tree, for those who read it back).
pub fn json(answer: &Answer) -> Json {
    serde_json::to_value(object(answer)).expect("an answer is written as JSON")
}

/// The answer as one line of JSON text, written straight from the answer.
pub fn json_text(answer: &Answer) -> String {
    serde_json::to_string(&object(answer)).expect("an answer is written as JSON")
}

/// The answer as JSON text kept whole, to be put in a larger document.
pub fn json_raw(answer: &Answer) -> Box<serde_json::value::RawValue> {
    serde_json::value::to_raw_value(&object(answer)).expect("an answer is written as JSON")
}

/// An object's fields, in order, as they are written.
#[derive(Default)]
struct Object<'a>(Vec<(&'static str, Field<'a>)>);

enum Field<'a> {
    Json(Json),
    /// An array of `len` elements, each built as it is written.
    Each {
        len: usize,
        element: Box<dyn Fn(usize) -> Json + 'a>,
    },
    Object(Object<'a>),
}

impl<'a> Object<'a> {
    fn put(&mut self, key: &'static str, value: Json) {
        self.0.push((key, Field::Json(value)));
    }

    /// An array of one element for each item, built as it is written.
    fn each<T>(&mut self, key: &'static str, items: &'a [T], element: impl Fn(&'a T) -> Json + 'a) {
        let element = Box::new(move |i: usize| element(&items[i]));
        self.0.push((
            key,
            Field::Each {
                len: items.len(),
                element,
            },
        ));
    }

    fn object(&mut self, key: &'static str, object: Object<'a>) {
        self.0.push((key, Field::Object(object)));
    }
}

impl Serialize for Object<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, field) in &self.0 {
            map.serialize_entry(key, field)?;
        }
        map.end()
    }
}

impl Serialize for Field<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Field::Json(value) => value.serialize(serializer),
            Field::Each { len, element } => serializer.collect_seq((0..*len).map(element)),
            Field::Object(object) => object.serialize(serializer),
        }
    }
}

/// The answer's fields.
fn object(answer: &Answer) -> Object<'_> {
    let mut object = Object::default();
    object.put("query", json!(answer.query.keyword()));
    match &answer.value {
        Value::Period { period, checked_to } => {
            let field = |get: fn(&Period) -> Json| period.as_ref().map_or(Json::Null, get);
            object.put("game", json!(answer.position));
            object.put("period", field(|period| json!(period.period)));
            object.put("preperiod", field(|period| json!(period.preperiod)));
            object.put("saltus", field(|period| json!(period.saltus)));
            object.put(
                "proven",
                json!(period.as_ref().is_some_and(|period| period.proven)),
            );
            object.put("checked_to", json!(checked_to));
        }
        Value::Quotient(report) => {
            object.put("game", json!(report.game));
            object.put("up_to", json!(report.up_to));
            object.put("order", json!(report.order));
            object.each(
                "generators",
                &report.generators,
                |(letter, heap)| json!({"name": letter, "heap": heap}),
            );
            object.each("relations", &report.relations, |(left, right)| {
                json!([left, right])
            });
            object.put("elements", json!(report.elements));
            object.put("p_portion", json!(report.p_portion));
            object.put("pretending", json!(report.pretending));
        }
        Value::Diff(diff) => {
            if let Some(game) = &diff.game {
                object.put("game", json!(game));
            }
            diff_fields(&mut object, diff);
        }
        value => {
            object.put("position", json!(answer.position));
            position_fields(&mut object, value, answer.by == Some("quotient"));
        }
    }
    if let Some(play) = answer.play {
        object.put("play", json!(play.name()));
    }
    if let Some(by) = answer.by {
        object.put("by", json!(by));
    }
    if !answer.bindings.is_empty() {
        object.put("bindings", bindings_json(&answer.bindings));
    }
    object
}

/// The fields of a diff after its query and game.
fn diff_fields<'a>(object: &mut Object<'a>, diff: &'a Diff) {
    object.put("a", json!(diff.a));
    object.put("b", json!(diff.b));
    object.put("positions", json!(diff.positions));
    object.put("differ", json!(diff.rows.len()));
    object.put("flips", json!(diff.flips));
    object.put(
        "first",
        diff.rows
            .first()
            .map_or(Json::Null, |row| bindings_json(&row.bindings)),
    );
    object.each("rows", &diff.rows, |row| {
        json!({
            "bindings": bindings_json(&row.bindings),
            "a": row.a,
            "b": row.b,
            "flip": row.flip,
        })
    });
}

/// The fields after `position` of an answer about a position; `by_quotient`
/// gives each move's outcome, not a misère Grundy value.
fn position_fields<'a>(object: &mut Object<'a>, value: &'a Value, by_quotient: bool) {
    let move_fields = |object: &mut Object<'a>, best: &Option<MoveLine>| {
        let (r#move, result) = match best {
            Some(best) => (
                json!({"from": best.from, "to": best.to}),
                json!(best.result),
            ),
            None => (Json::Null, Json::Null),
        };
        object.put("move", r#move);
        object.put("result", result);
        if best.as_ref().is_some_and(|best| best.drawing) {
            object.put("aim", json!("draw"));
        }
    };
    match value {
        Value::Grundy(value) => object.put("value", json!(value)),
        Value::Infinite(reaches) => {
            object.put("value", json!("inf"));
            object.put("reaches", json!(reaches));
        }
        Value::Wins(wins) => object.put("value", json!(wins)),
        Value::Draw => object.put("value", json!("draw")),
        Value::BestMove(best) => move_fields(object, best),
        Value::Moves(moves) => {
            object.each("options", moves, move |line| option_json(line, by_quotient))
        }
        Value::Equal { other, equal } => {
            object.put("other", json!(other));
            object.put("value", json!(equal));
        }
        Value::Crosscheck(check) => {
            object.put("agree", json!(check.agree()));
            object.put("grundy", json!(check.grundy));
            object.put("search", json!(outcome(check.search_wins)));
            object.put("positions", json!(check.positions));
            object.put("board", json!(check.boards));
            object.each(
                "tables",
                &check.tables,
                |table| json!({ "part": table.part, "positions": table.positions }),
            );
            let tabled: usize = check.tables.iter().map(|table| table.positions).sum();
            object.put("table_positions", json!(tabled));
        }
        Value::Remoteness(remoteness) => {
            object.put("value", json!(remoteness.remoteness));
            object.put("wins", json!(remoteness.wins));
            move_fields(object, &remoteness.best);
            object.put("positions", json!(remoteness.positions));
        }
        Value::Genus(genus) => {
            object.put("value", json!(genus.to_string()));
            object.put("grundy", json!(genus.grundy));
            object.put("misere", json!(genus.misere));
        }
        Value::Why(why) => why_fields(object, why),
        Value::Strategy { n, rows } => {
            object.put("n", json!(n));
            object.each("replies", rows, |row| {
                json!({
                    "first": line_json(&row.first),
                    "reply": row.reply.as_ref().map_or(Json::Null, line_json),
                    "case": row.case,
                })
            });
        }
        Value::Graph(picture) | Value::Plot(picture) => {
            let size = match value {
                Value::Graph(_) => "nodes",
                _ => "points",
            };
            object.put(size, json!(picture.size));
            object.put("format", json!(picture.format));
            object.put("file", json!(picture.file));
            if picture.file.is_none() {
                object.put("content", json!(picture.content));
            }
        }
        Value::Period { .. } | Value::Diff(_) | Value::Quotient(_) => {
            unreachable!("answers about games are built apart")
        }
    }
}

/// One move of `moves`.
fn option_json(line: &MoveLine, by_quotient: bool) -> Json {
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
    let fields = option.as_object_mut().expect("built as an object");
    if let Gamma::Infinite(reaches) = &line.grundy {
        fields.insert("reaches".into(), json!(reaches));
        fields.insert("drawn".into(), json!(line.drawing));
    }
    if by_quotient {
        // A quotient gives each move's outcome, not a misère Grundy value.
        fields.remove("grundy");
        let winning = fields.get("winning") == Some(&json!(true));
        fields.insert("outcome".into(), json!(if winning { "P" } else { "N" }));
    }
    option
}

/// The fields of a `why` answer (README.md documents them).
fn why_fields<'a>(object: &mut Object<'a>, why: &'a Why) {
    object.put("value", gamma_json(&why.value));
    object.each(
        "parts",
        &why.parts,
        |(position, value)| json!({ "position": position, "value": gamma_json(value) }),
    );
    let mut proof = Object::default();
    match &why.reason {
        Reason::Mex {
            options,
            witnesses,
            reversals,
        } => {
            proof.put("rule", json!("mex"));
            proof.put("options", json!(options));
            proof.each("witnesses", witnesses, line_json);
            proof.each("reversals", reversals, |(option, back)| {
                json!({
                    "option": line_json(option),
                    "back": back.as_ref().map_or(Json::Null, line_json),
                })
            });
        }
        Reason::Infinite {
            options,
            candidate,
            unreversed,
        } => {
            proof.put("rule", json!("infinite"));
            proof.put("options", json!(options));
            proof.put("candidate", json!(candidate));
            proof.put(
                "unreversed",
                unreversed.as_ref().map_or(Json::Null, line_json),
            );
        }
        Reason::Xor { best } => {
            let table = why.xor_table();
            proof.put("rule", json!("xor"));
            proof.put("binary", json!(table.digits));
            proof.put("xor", json!(table.xor_digits));
            proof.put(
                "part",
                best.as_ref().map_or(Json::Null, |(part, _)| json!(part)),
            );
            proof.put(
                "move",
                best.as_ref()
                    .map_or(Json::Null, |(_, best)| line_json(best)),
            );
        }
        Reason::Loopy => proof.put("rule", json!("loopy")),
        Reason::Genus { genus, options } => {
            proof.put("rule", json!("genus"));
            proof.put("genus", json!(genus.to_string()));
            proof.each("options", options, |(option, genus)| {
                json!({
                    "move": line_json(option),
                    "genus": genus.to_string(),
                })
            });
        }
    }
    object.object("proof", proof);
}

/// A move as JSON: `{"from", "to", "result", "value"}`.
fn line_json(line: &MoveLine) -> Json {
    json!({
        "from": line.from,
        "to": line.to,
        "result": line.result,
        "value": gamma_json(&line.grundy),
    })
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
