//! `play P`: a game against the engine, the user moving first. When the
//! engine can win it plays a winning move, restoring value 0 after any move
//! out of a position of value 0 (the second player's strategy in the proof
//! of the Sprague–Grundy theorem); when it cannot, it plays the move that
//! leaves the longest possible play, to make the game last. `play misere P`
//! is played under misère play (whoever moves last loses): moves are
//! judged by the misère outcome of what they leave, from a quotient
//! computed for the heaps (`quotient G up to N`) when one reaches them
//! all, else by the misère search.

use std::collections::HashSet;

use miette::SourceSpan;

use crate::engine::{Gamma, Outcome};
use crate::interp::Component;
use crate::output;
use crate::program::Play;
use crate::session::{PlayMove, PlayRequest};

use super::Repl;
use super::input::Input;

const PLAY_HELP: &str = "type a move's number or the position it leaves; \
:hint shows the winning move, :undo takes back your last move and the reply, :quit resigns";

/// How many moves are listed before the list is cut short.
const LISTED: usize = 40;

pub fn play(repl: &mut Repl, request: PlayRequest) {
    let PlayRequest {
        mut position,
        play,
        span,
    } = request;
    let mut history: Vec<Vec<Component>> = Vec::new();
    let under = match play {
        Play::Normal => "",
        Play::Misere => " under misère play (whoever moves last loses)",
    };
    say!(
        "playing {}{under}: you move first; {PLAY_HELP}",
        repl.session.show(&position)
    );
    // Parts with no move are left out of what is shown from the start.
    match repl.session.unfinished(&position, span) {
        Ok(left) => position = left,
        Err(report) => return repl.report(&report),
    }
    loop {
        let Some(moves) = list_moves(repl, &position, play, span) else {
            return;
        };
        show(repl, &position, &moves, play, span);
        if moves.is_empty() {
            match play {
                Play::Normal => say!("you have no move: sprague wins"),
                Play::Misere => say!("you have no move: under misère play you win"),
            }
            return;
        }
        let chosen = loop {
            match repl.reader.read("play> ") {
                Input::Line(line) => match line.trim() {
                    "" => continue,
                    // A bare `quit` or `exit`, as at the prompt outside a game,
                    // leaves too: no move is written so.
                    ":quit" | ":q" | ":resign" | "quit" | "exit" => {
                        match is_drawn(repl, &position, span) {
                            true => {
                                say!("you stop: the game is drawn, neither can force a win")
                            }
                            false => say!("you resign: sprague wins"),
                        }
                        return;
                    }
                    ":help" => say!("{PLAY_HELP}"),
                    ":hint" => hint(&moves, play),
                    ":undo" => match history.pop() {
                        Some(before) => {
                            position = before;
                            say!("took back your last move and sprague's reply");
                            break None;
                        }
                        None => say!("nothing to undo"),
                    },
                    text => match choose(repl, &moves, text) {
                        Some(chosen) => break Some(chosen),
                        None => continue,
                    },
                },
                Input::Interrupted => continue,
                Input::End => return,
            }
        };
        let Some(chosen) = chosen else { continue };
        say!("you: {}", output::move_text(&chosen.line));
        let after = leaves(repl, &chosen, span);
        history.push(std::mem::replace(&mut position, after));
        let Some(replies) = list_moves(repl, &position, play, span) else {
            return;
        };
        let reply = match play {
            Play::Normal => repl.session.reply(&position, &replies, span),
            // The first move to a misère P-position, else the longest play.
            Play::Misere => match PlayMove::winning_or_drawing(&replies) {
                Some(reply) => Ok(Some(reply)),
                None => repl.session.longest_play(&position, &replies, span),
            },
        };
        let reply = match reply {
            Ok(reply) => reply,
            Err(report) => return repl.report(&report),
        };
        let Some(reply) = reply else {
            match play {
                Play::Normal => say!("sprague has no move: you win"),
                Play::Misere => say!("sprague has no move: under misère play sprague wins"),
            }
            return;
        };
        say!("sprague: {}", output::move_text(&reply.line));
        position = leaves(repl, reply, span);
    }
}

/// What a move leaves, as written, its finished parts dropped.
fn leaves(repl: &mut Repl, choice: &PlayMove, span: SourceSpan) -> Vec<Component> {
    let result = choice.leaves();
    repl.session.unfinished(&result, span).unwrap_or(result)
}

/// The moves of a position as written, each shown as `moves` shows it
/// and leaving a different position: moves that leave the same terms in
/// another order (`Kayles(0) + Kayles(2)` and `Kayles(2) + Kayles(0)`) are
/// one move. Finished parts are dropped from what each leaves. Under
/// misère play a move is marked winning when it leaves a misère
/// P-position.
fn list_moves(
    repl: &mut Repl,
    position: &[Component],
    play: Play,
    span: SourceSpan,
) -> Option<Vec<PlayMove>> {
    repl.progress.start();
    let moves = repl
        .session
        .written_moves(position, span)
        .and_then(|mut moves| {
            if play == Play::Misere {
                repl.session.mark_misere(position, &mut moves, span)?;
            }
            let mut seen = HashSet::new();
            let mut distinct = Vec::new();
            for mut choice in moves {
                let result = repl.session.unfinished(&choice.leaves(), span)?;
                choice.line.result = Some(repl.session.show(&result));
                let mut parts = result;
                parts.sort();
                if seen.insert(parts) {
                    distinct.push(choice);
                }
            }
            Ok(distinct)
        });
    repl.progress.finish();
    match moves {
        Ok(moves) => Some(moves),
        Err(report) => {
            repl.report(&report);
            None
        }
    }
}

/// The position, each component's value and the nim-sum (under misère
/// play, its outcome and how it was found), and the moves.
fn show(repl: &mut Repl, position: &[Component], moves: &[PlayMove], play: Play, span: SourceSpan) {
    say!("position: {}", repl.session.show(position));
    if play == Play::Misere {
        match repl.session.misere_wins(position, span) {
            Ok((wins, quoted)) => say!(
                "misère outcome: the player to move {}{}",
                if wins { "wins" } else { "loses" },
                if quoted { " (by the quotient)" } else { "" }
            ),
            Err(report) => repl.report(&report),
        }
    } else if let Ok(values) = repl.session.values(position, span) {
        let nim_sum = values
            .iter()
            .fold(Gamma::Finite(0), |acc, value| acc.add(value));
        let terms: Vec<String> = values.iter().map(Gamma::to_string).collect();
        match terms.len() {
            0 | 1 => say!("value: {nim_sum}"),
            _ => say!("values: {} = {nim_sum}", terms.join(" ⊕ ")),
        }
    }
    if moves.is_empty() {
        return;
    }
    say!("your move:");
    for (number, choice) in moves.iter().enumerate().take(LISTED) {
        say!("  {}. {}", number + 1, output::move_text(&choice.line));
    }
    if moves.len() > LISTED {
        say!(
            "  … and {} more: type the position a move leaves",
            moves.len() - LISTED
        );
    }
}

/// Whether a loopy position is a draw with best play.
fn is_drawn(repl: &mut Repl, position: &[Component], span: SourceSpan) -> bool {
    repl.session.values(position, span).is_ok_and(|values| {
        let sum = values
            .iter()
            .fold(Gamma::Finite(0), |acc, value| acc.add(value));
        sum.outcome() == Outcome::Draw
    })
}

fn hint(moves: &[PlayMove], play: Play) {
    match moves.iter().position(|choice| choice.line.winning) {
        Some(index) => say!(
            "hint: move {} wins: {}",
            index + 1,
            output::move_text(&moves[index].line)
        ),
        None => match moves.iter().position(|choice| choice.line.drawing) {
            Some(index) => say!(
                "hint: no move wins; move {} keeps the game drawn: {}",
                index + 1,
                output::move_text(&moves[index].line)
            ),
            None => match play {
                Play::Normal => {
                    say!("hint: the position has value 0; every move loses against best play")
                }
                Play::Misere => say!(
                    "hint: the position is a misère P-position; every move loses against best play"
                ),
            },
        },
    }
}

/// The move the user typed: a number from the list, or the position it
/// leaves (components in any order).
fn choose(repl: &mut Repl, moves: &[PlayMove], text: &str) -> Option<PlayMove> {
    if let Ok(number) = text.parse::<usize>() {
        return match number.checked_sub(1).and_then(|index| moves.get(index)) {
            Some(choice) => Some(choice.clone()),
            None => {
                say!("there is no move {number}: choose 1 to {}", moves.len());
                None
            }
        };
    }
    let typed = match repl.session.parse_position("<move>", text) {
        Ok(typed) => typed,
        Err(_) => {
            say!(
                "`{text}` is not a move: type its number, 1 to {}, or the position it leaves (:help)",
                moves.len()
            );
            return None;
        }
    };
    // Compared as the parts the search makes of each, so that a move is
    // found whether its position is typed on the board as written or not.
    let span = SourceSpan::from(0..0);
    let mut parts = |position: &[Component]| {
        let parts = repl.session.parts(position).ok()?;
        let mut parts = repl.session.unfinished(&parts, span).ok()?;
        parts.sort();
        Some(parts)
    };
    let wanted = parts(&typed);
    let found = moves
        .iter()
        .find(|choice| wanted.is_some() && parts(&choice.leaves()) == wanted);
    if found.is_none() {
        say!(
            "{} is not one move away; {PLAY_HELP}",
            repl.session.show(&typed)
        );
    }
    found.cloned()
}
