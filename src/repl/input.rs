//! Where entries come from: a line editor on a terminal, or plain lines
//! from a pipe, gathered until they make a whole statement.

use std::io::BufRead;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use owo_colors::OwoColorize;
use rustyline::error::ReadlineError;
use rustyline::history::FileHistory;
use rustyline::{
    Cmd, CompletionType, ConditionalEventHandler, Config, Editor, Event, EventContext,
    EventHandler, KeyEvent, RepeatCount,
};

use super::helper::{Continuation, ReplHelper};

/// One read.
pub enum Input {
    /// A whole entry, possibly of several lines.
    Line(String),
    /// Ctrl-C at the prompt: the line was dropped.
    Interrupted,
    /// Ctrl-D, or the end of the input.
    End,
}

pub trait Reader {
    fn read(&mut self, prompt: &str) -> Input;
}

/// A line editor with history kept in the user's data directory.
pub struct Terminal {
    editor: Editor<ReplHelper, FileHistory>,
    history: Option<PathBuf>,
    /// Set when Ctrl-C ended the line (see [`ClearingInterrupt`]).
    interrupted: Arc<AtomicBool>,
}

/// Ctrl-C at a prompt: the line is accepted, which takes the history hint
/// off the screen as Enter does (an interrupted line would keep it, looking
/// typed), and the flag tells the reader to drop it.
struct ClearingInterrupt(Arc<AtomicBool>);

impl ConditionalEventHandler for ClearingInterrupt {
    fn handle(&self, _: &Event, _: RepeatCount, _: bool, _: &EventContext) -> Option<Cmd> {
        self.0.store(true, Ordering::SeqCst);
        Some(Cmd::AcceptLine)
    }
}

impl Terminal {
    pub fn new(names: Arc<Mutex<Vec<String>>>) -> rustyline::Result<Self> {
        let config = Config::builder()
            .auto_add_history(false)
            .completion_type(CompletionType::List)
            .history_ignore_dups(true)?
            .build();
        let mut editor = Editor::with_config(config)?;
        editor.set_helper(Some(ReplHelper::new(names)));
        let interrupted = Arc::new(AtomicBool::new(false));
        editor.bind_sequence(
            KeyEvent::ctrl('C'),
            EventHandler::Conditional(Box::new(ClearingInterrupt(interrupted.clone()))),
        );
        let history = history_file();
        if let Some(path) = &history {
            let _ = editor.load_history(path);
        }
        Ok(Terminal {
            editor,
            history,
            interrupted,
        })
    }
}

/// `sprague/history` in the user's data directory.
fn history_file() -> Option<PathBuf> {
    let directory = dirs::data_dir()?.join("sprague");
    std::fs::create_dir_all(&directory).ok()?;
    Some(directory.join("history"))
}

/// The prompt of a line that continues an unfinished statement.
const CONTINUATION: &str = "   ...> ";

impl Reader for Terminal {
    /// Reads lines until they make a whole entry: a line that leaves a
    /// statement unfinished is followed by one under the continuation prompt.
    fn read(&mut self, prompt: &str) -> Input {
        let mut entry = String::new();
        let mut prompt = prompt;
        let mut continuation = Continuation::default();
        loop {
            let styled = prompt.green().bold().to_string();
            match self.editor.readline(&(prompt, styled.as_str())) {
                Ok(_) if self.interrupted.swap(false, Ordering::SeqCst) => {
                    return Input::Interrupted;
                }
                Ok(line) => {
                    let _ = self.editor.add_history_entry(line.as_str());
                    // Saved as we go, so that a crash or a kill loses nothing.
                    if let Some(path) = &self.history {
                        let _ = self.editor.save_history(path);
                    }
                    entry += &line;
                    entry.push('\n');
                    if !continuation.needs_more(&entry) {
                        return Input::Line(entry);
                    }
                    prompt = CONTINUATION;
                }
                // Ctrl-C drops the whole unfinished entry, and so does
                // Ctrl-D at a continuation prompt.
                Err(ReadlineError::Interrupted) => return Input::Interrupted,
                Err(_) if !entry.is_empty() => return Input::Interrupted,
                Err(_) => return Input::End,
            }
        }
    }
}

/// Lines from a pipe, without prompts.
pub struct Piped {
    lines: std::io::Lines<std::io::StdinLock<'static>>,
}

impl Piped {
    pub fn new() -> Self {
        Piped {
            lines: std::io::stdin().lock().lines(),
        }
    }
}

impl Reader for Piped {
    fn read(&mut self, _prompt: &str) -> Input {
        let mut entry = String::new();
        let mut continuation = Continuation::default();
        for line in self.lines.by_ref() {
            let Ok(line) = line else { break };
            entry += &line;
            entry.push('\n');
            if !continuation.needs_more(&entry) {
                return Input::Line(entry);
            }
        }
        match entry.is_empty() {
            true => Input::End,
            // An unfinished statement at the end of input: let it fail.
            false => Input::Line(entry),
        }
    }
}
