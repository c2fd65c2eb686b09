//! Printing answers and errors, as text for people and as JSON lines for
//! programs. Nothing here computes: answers arrive complete.

use miette::{GraphicalReportHandler, GraphicalTheme, JSONReportHandler, Report};
use serde_json::{Value as Json, json};

use crate::analysis::{Period, Proof};
use crate::engine::{Gamma, Grundy};
use crate::eval::count;
use crate::program::Play;
use crate::session::why::{Reason, StrategyRow, Why};
use crate::session::{Answer, Diff, MoveLine, QuotientReport, Value};

/// The answer as text: the query as asked, then its answer; lists (of
/// moves, of differences) follow on indented lines.
pub fn text(answer: &Answer) -> String {
    let question = question_text(answer);
    let by = match answer.by {
        Some(by) => format!(" (from the {by})"),
        None => String::new(),
    };
    match &answer.value {
        Value::Grundy(value) => format!("{question} = {value}{by}"),
        Value::Infinite(reaches) => {
            format!("{question} = {}{by}", Gamma::Infinite(reaches.clone()))
        }
        Value::Wins(wins) => format!("{question} = {wins}{by}"),
        Value::Draw => format!("{question} = draw: neither player can force a win"),
        Value::BestMove(Some(best)) if best.drawing => format!(
            "{question} = {}: no move wins, this one keeps the game drawn",
            move_text(best)
        ),
        Value::BestMove(Some(best)) => format!("{question} = {}", move_text(best)),
        Value::BestMove(None) if answer.play == Some(Play::Misere) => {
            format!("{question} = none: every move loses under misère play")
        }
        Value::BestMove(None) => {
            format!("{question} = none: the position has value 0, every move loses")
        }
        Value::Moves(moves) if moves.is_empty() && answer.play == Some(Play::Misere) => {
            format!("{question} = no moves: the player to move wins under misère play")
        }
        Value::Moves(moves) if moves.is_empty() => {
            format!("{question} = no moves: the player to move loses")
        }
        Value::Moves(moves) => {
            let mut text = format!("{question} = {}", count(moves.len(), "move", "moves"));
            if moves.iter().any(|line| line.result.is_none()) {
                text += ": each changes the part named, the others stay";
            }
            for (number, line) in moves.iter().enumerate() {
                let line = match answer.play {
                    Some(Play::Misere) if answer.by == Some("quotient") => quotient_move_text(line),
                    Some(Play::Misere) => misere_move_text(line),
                    _ => valued_move_text(line),
                };
                text += &format!("\n  {}. {line}", number + 1);
            }
            text
        }
        Value::Equal { other, equal } => format!("{question} {other} = {equal}"),
        Value::Crosscheck(check) => format!(
            "{question} = {}: {} {} ({}), search of the whole {} finds a {} ({} searched)",
            if check.agree() { "agree" } else { "DISAGREE" },
            match answer.play {
                Some(Play::Misere) => "genus theory gives misère Grundy value",
                _ => "the XOR rule gives",
            },
            check.grundy,
            outcome(check.grundy != 0),
            match check.boards {
                true => "board (two heads on one coin are tails)",
                false => "sum",
            },
            outcome(check.search_wins),
            count(check.positions, "position", "positions"),
        ),
        Value::Remoteness(remoteness) => {
            let mut text = format!(
                "{question} = {} ({})",
                remoteness.remoteness,
                outcome(remoteness.wins)
            );
            match &remoteness.best {
                Some(best) => text += &format!(": {}", move_text(best)),
                None => text += ": no moves",
            }
            text
        }
        Value::Genus(genus) => format!("{question} = {genus}"),
        Value::Why(why) => format!("{question} = {}{}", why.value, why_text(why)),
        Value::Strategy { n, rows } => strategy_text(&question, *n, rows),
        Value::Graph(picture) | Value::Plot(picture) => match &picture.file {
            // Without a file the picture itself is the answer, ready for a pipe.
            None => picture.content.trim_end().to_owned(),
            Some(file) => format!(
                "{question} = {}, written to {file}",
                match answer.value {
                    Value::Graph(_) => count(picture.size, "node", "nodes"),
                    _ => count(picture.size, "point", "points"),
                }
            ),
        },
        Value::Period {
            period: None,
            checked_to,
        } => {
            format!(
                "{question} = none found (values checked to n = {checked_to}; a larger --max-states, or --max-work for a game of rules, looks further)"
            )
        }
        Value::Period {
            period: Some(period),
            ..
        } => period_text(&question, period),
        Value::Diff(diff) => diff_text(&question, diff, None),
        Value::Quotient(report) => quotient_text(report),
    }
}

/// A quotient as the papers print it: order, presentation, P-portion and
/// the pretending function.
fn quotient_text(report: &QuotientReport) -> String {
    let generators: Vec<String> = report
        .generators
        .iter()
        .map(|(letter, heap)| format!("{letter} = {}({heap})", report.game))
        .collect();
    let relations: Vec<String> = report
        .relations
        .iter()
        .map(|(left, right)| format!("{left} = {right}"))
        .collect();
    let none = |list: Vec<String>| match list.is_empty() {
        true => "none".to_owned(),
        false => list.join(", "),
    };
    let pretending: Vec<String> = report
        .pretending
        .iter()
        .enumerate()
        .map(|(heap, element)| format!("{heap}:{element}"))
        .collect();
    format!(
        "quotient {} up to {} = order {}\n  generators: {}\n  relations: {}\n  elements: {}\n  P-portion: {}\n  heaps: {}",
        report.game,
        report.up_to,
        report.order,
        none(generators),
        none(relations),
        report.elements.join(", "),
        none(report.p_portion.clone()),
        pretending.join(" "),
    )
}

/// The query as asked: `grundy Kayles(3)`, `wins? misere *1 + *1`.
fn question_text(answer: &Answer) -> String {
    match answer.play {
        Some(Play::Misere) => format!("{} misere {}", answer.query.keyword(), answer.position),
        _ => format!("{} {}", answer.query.keyword(), answer.position),
    }
}

fn outcome(wins: bool) -> &'static str {
    if wins { "win" } else { "loss" }
}

fn period_text(question: &str, period: &Period) -> String {
    let (p, n0, t) = (period.period, period.preperiod, period.checked_to);
    let head = format!("{question} = {p}, preperiod {n0}, saltus {}", period.saltus);
    match period.proof {
        Proof::Window { t: window } => format!(
            "{head}: proven, each value depends on the {window} before it and G(n + {p}) = G(n) for {n0} ≤ n < {t}"
        ),
        Proof::OctalTheorem { .. } => format!(
            "{head}: proven by the octal periodicity theorem, G(n + {p}) = G(n) for {n0} ≤ n < {t}"
        ),
        Proof::None => format!("{head}: apparent, not proven (checked for n < {t})"),
    }
}

/// The rows a diff between files prints unless every row is asked for.
pub const DIFF_ROWS_SHOWN: usize = 10;

/// A diff's text with at most `shown` of its rows (every row if `None`):
/// the summary first, then which side is which, once, and the rows.
pub fn diff_summary(answer: &Answer, shown: Option<usize>) -> String {
    match &answer.value {
        Value::Diff(diff) => diff_text(&question_text(answer), diff, shown),
        _ => text(answer),
    }
}

fn diff_text(question: &str, diff: &Diff, shown: Option<usize>) -> String {
    let mut text = format!(
        "{question} = {}",
        count(diff.positions, "position", "positions")
    );
    let Some(first) = diff.rows.first() else {
        return text + ", identical";
    };
    text += &format!(
        ", {} differ, {} flip outcome; first divergence at {}",
        diff.rows.len(),
        diff.flips,
        bindings_text(&first.bindings)
    );
    text += &format!(
        "
  values in {} -> in {}:",
        diff.a, diff.b
    );
    let shown = shown.unwrap_or(diff.rows.len()).min(diff.rows.len());
    for row in &diff.rows[..shown] {
        text += &format!(
            "\n  {}: {} -> {}{}",
            bindings_text(&row.bindings),
            row.a,
            row.b,
            if row.flip { ", outcome flips" } else { "" }
        );
    }
    if shown < diff.rows.len() {
        text += &format!(
            "\n  … and {} more {} (`--all` prints every row, `--json` every row as JSON)",
            diff.rows.len() - shown,
            if diff.rows.len() - shown == 1 {
                "row"
            } else {
                "rows"
            }
        );
    }
    text
}

fn bindings_text(bindings: &[(String, i64)]) -> String {
    let parts: Vec<String> = bindings
        .iter()
        .map(|(name, value)| format!("{name} = {value}"))
        .collect();
    parts.join(", ")
}

/// The lines after `why P = g`: the proof, as the theorem gives it.
fn why_text(why: &Why) -> String {
    let mut text = String::new();
    let mut line = |line: String| {
        text.push_str("\n  ");
        text.push_str(&line);
    };
    match &why.reason {
        Reason::Mex {
            options,
            witnesses,
            reversals,
        } => {
            let g = &why.value;
            if *options == 0 {
                line("no options: the player to move loses, and the value is 0".to_owned());
                return text;
            }
            match witnesses.is_empty() {
                true => line(count(*options, "option", "options")),
                false => line(format!(
                    "{}, one of each value below {g} (the first in rule order):",
                    count(*options, "option", "options")
                )),
            }
            for witness in witnesses {
                line(format!(
                    "  {}: {} -> {}",
                    witness.grundy, witness.from, witness.to
                ));
            }
            if !reversals.is_empty() {
                line(format!(
                    "options worth more than {g} (or infinite) reverse to {g}:"
                ));
            }
            for (option, back) in reversals {
                line(match back {
                    Some(back) => format!(
                        "  {} -> {} is worth {}, and {} -> {} is worth {g}",
                        option.from, option.to, option.grundy, back.from, back.to
                    ),
                    None => format!(
                        "  {} -> {} is worth {}, with no move back to {g}",
                        option.from, option.to, option.grundy
                    ),
                });
            }
            line(format!(
                "no option has value {g}, so {g} is the least value missing (the mex)"
            ));
        }
        Reason::Infinite {
            options,
            candidate,
            unreversed,
        } => {
            line(format!(
                "{}; {candidate} is the least finite value none has",
                count(*options, "option", "options")
            ));
            match unreversed {
                Some(option) => line(format!(
                    "but {} -> {} is worth {} and has no move back to {candidate}: no finite value fits, play may go on forever",
                    option.from, option.to, option.grundy
                )),
                None => line("no finite value fits (Smith's rule)".to_owned()),
            }
        }
        Reason::Xor { best } => {
            let table = why.xor_table();
            let (finite, xor) = (&table.values, table.xor);
            let name_width = why
                .parts
                .iter()
                .map(|(name, _)| name.len())
                .max()
                .unwrap_or(3)
                .max(3);
            for (((name, _), value), digits) in why.parts.iter().zip(finite).zip(&table.digits) {
                line(format!("{name:<name_width$}  {digits}  {value}"));
            }
            line(format!(
                "{:<name_width$}  {}  {xor}",
                "XOR", table.xor_digits
            ));
            match best {
                Some((part, best)) => {
                    let g = finite[*part];
                    line(format!(
                        "{} has the XOR's highest bit: {g} ⊕ {xor} = {} < {g}, so {} -> {} leaves XOR 0",
                        best.from,
                        g ^ xor,
                        best.from,
                        best.to
                    ));
                }
                None => line(
                    "XOR 0: a move changes one part's value g to some g' ≠ g (no option of a position has its value), leaving g ⊕ g' ≠ 0, which the other player brings back to 0"
                        .to_owned(),
                ),
            }
        }
        Reason::Loopy => line(format!(
            "a part has an infinite value: {}",
            why.parts
                .iter()
                .map(|(name, value)| format!("{name} = {value}"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        Reason::Genus { genus, options } => {
            line(format!(
                "genus {genus}, from the genera of {}:",
                count(options.len(), "option", "options")
            ));
            for (option, genus) in options {
                line(format!("  {} -> {}: {genus}", option.from, option.to));
            }
            line("g and γ0 are the mex of the options' (γ0 = 1 with no option); γn = mex(options' γn, γ(n-1), γ(n-1) ⊕ 1)".to_owned());
            line(format!(
                "misère grundy γ0 = {}: the player to move {}",
                genus.misere[0],
                if genus.wins() { "wins" } else { "loses" }
            ));
        }
    }
    text
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

/// `from -> to, leaving result`, or `part N: from -> to` in a list of the
/// moves of a sum too long to repeat on every line.
pub fn move_text(line: &MoveLine) -> String {
    match &line.result {
        Some(result) => format!("{} -> {}, leaving {result}", line.from, line.to),
        None => format!("part {}: {} -> {}", line.part + 1, line.from, line.to),
    }
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

/// `strategy A`: the second player's reply to each first move in A + *n.
fn strategy_text(question: &str, n: Grundy, rows: &[StrategyRow]) -> String {
    if rows.is_empty() {
        return format!("{question} = {n}: A + *{n} has no move, and the player to move loses");
    }
    let mut text = format!(
        "{question} = {n}: in A + *{n} the second player answers every first move, restoring value 0:"
    );
    for (number, row) in rows.iter().enumerate() {
        let reply = match &row.reply {
            Some(reply) => format!("{} -> {}", reply.from, reply.to),
            None => "none".to_owned(),
        };
        let case = match row.case {
            1 => "case 1: A went to a smaller value; the heap goes down to it",
            2 => "case 2: the heap went down; A has an option of its size, as n is A's mex",
            _ => "case 3: A went to a larger value, which has an option of value n",
        };
        text += &format!(
            "\n  {}. {} -> {}; reply {reply}  ({case})",
            number + 1,
            row.first.from,
            row.first.to
        );
    }
    text
}

/// A move under misère play with the misère Grundy value it leaves,
/// marked when it wins.
fn misere_move_text(line: &MoveLine) -> String {
    let mark = if line.winning { ", winning" } else { "" };
    format!("{}: misère grundy {}{mark}", move_text(line), line.grundy)
}

/// A move under misère play, from a quotient: the outcome it leaves
/// (the quotient gives outcomes, not misère Grundy values).
fn quotient_move_text(line: &MoveLine) -> String {
    match line.winning {
        true => format!("{}: leaves a P-position, winning", move_text(line)),
        false => format!("{}: leaves an N-position", move_text(line)),
    }
}

/// A move with the value it leaves, marked when it wins.
pub fn valued_move_text(line: &MoveLine) -> String {
    let mark = match (line.winning, line.drawing) {
        (true, _) => ", winning",
        (false, true) => ", drawn",
        (false, false) => "",
    };
    format!("{}: grundy {}{mark}", move_text(line), line.grundy)
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
        // One line each, whether or not the report has a source to show.
        ErrorStyle::Json => JSONReportHandler::new()
            .render_report(&mut out, report.as_ref())
            .map(|()| out = format!("{}\n", escape_controls(&out).trim_end())),
    };
    match rendered {
        Ok(()) => out,
        Err(_) => format!("{report}"),
    }
}

/// Escapes the control characters that miette's JSON leaves raw inside its
/// strings (a source may hold any byte), so that every report is JSON.
fn escape_controls(json: &str) -> String {
    let (mut escaped, mut in_string, mut after_backslash) = (String::new(), false, false);
    for c in json.chars() {
        match c {
            _ if after_backslash => after_backslash = false,
            '\\' if in_string => after_backslash = true,
            '"' => in_string = !in_string,
            c if in_string && (c as u32) < 0x20 => {
                escaped += &format!("\\u{:04x}", c as u32);
                continue;
            }
            _ => {}
        }
        escaped.push(c);
    }
    escaped
}

#[cfg(test)]
mod tests {
    #[test]
    fn control_characters_in_json_strings_are_escaped() {
        let raw = "{\"a\": \"x\u{1}\\\"\u{0}\"}";
        let escaped = super::escape_controls(raw);
        assert_eq!(escaped, "{\"a\": \"x\\u0001\\\"\\u0000\"}");
        let value: serde_json::Value = serde_json::from_str(&escaped).expect("valid JSON");
        assert_eq!(value["a"], "x\u{1}\"\u{0}");
    }
}
