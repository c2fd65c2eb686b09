//! Printing answers and errors, as text for people and as JSON lines for
//! programs. Nothing here computes: answers arrive complete.

mod json;

use miette::{GraphicalReportHandler, GraphicalTheme, JSONReportHandler, Report};

use crate::analysis::{Period, Proof};
use crate::engine::{Gamma, Grundy};
use crate::eval::count;
use crate::program::Play;
use crate::session::why::{Reason, StrategyRow, Why};
use crate::session::{Answer, Diff, MoveLine, QuotientReport, Value};
pub use json::{json, json_raw, json_text};

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

/// `from -> to, leaving result`, or `part N: from -> to` in a list of the
/// moves of a sum too long to repeat on every line.
pub fn move_text(line: &MoveLine) -> String {
    match &line.result {
        Some(result) => format!("{} -> {}, leaving {result}", line.from, line.to),
        None => format!("part {}: {} -> {}", line.part + 1, line.from, line.to),
    }
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
