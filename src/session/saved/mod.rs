//! Tables of values saved to a file and read back, so that a long run
//! (a record board, searched for hours) can stop and go on: `sprague run
//! --save FILE` writes the values the engine found at the end of the run,
//! Ctrl-C included, and now and then during a long search; `--resume FILE`
//! reads them before the queries.
//!
//! A table is written aside and renamed into place (see
//! [`crate::files::write_aside`]), so a kill at any moment leaves the last
//! table saved whole. One read back is checked before any value is used:
//! the file's own checks ([`format`]: whose it is, its version, its
//! length, its checksum, every count and value), then the games: each
//! game whose values it holds must be declared by the sources, under the
//! rules it was saved for ([`rules_text`]). A game's values are taken in
//! once it is declared, its keys renumbered to the game's number in this
//! run, and each key checked to be a position of the game.

mod format;
mod refused;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use miette::{NamedSource, Report};

pub use format::{MAGIC, VERSION};
use format::{SavedGame, SavedGraph, Table};
pub use refused::Refused;

use super::{Event, Session};
use crate::engine::{Address, Checkpoints, Packed, Rules, Snapshot, SnapshotWriter};
use crate::eval::count;
use crate::interp::{
    Component, Interpreter, graphs, packed_fits, packed_game, packed_graph, regraphed, repacked,
};
use crate::lower;
use crate::program::{DeclarationKind, GameId};
use crate::syntax::{self, ast};

/// The least time between two tables written during a long search,
/// unless `--save-every` says otherwise.
pub const DEFAULT_SAVE_EVERY: Duration = Duration::from_secs(60);

/// How a session saves and resumes its values.
#[derive(Default)]
pub(super) struct Saving {
    /// A table read, whose games' values are taken in as the games are
    /// declared: what is left of it.
    resumed: Option<Resumed>,
    /// Where the values are saved, and the least time between two tables
    /// written during a search.
    save: Option<(PathBuf, Duration)>,
    /// Why the last table written during a search could not be, until told.
    failure: Arc<Mutex<Option<String>>>,
    /// The table read, and how many values it held.
    read: Option<(PathBuf, usize)>,
    /// How many values the save file holds: the table last written to it
    /// in this run (by a checkpoint too), or read from it.
    held: Arc<AtomicUsize>,
}

/// What [`Session::save`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Saved {
    /// The table was written, with this many values.
    Written(usize),
    /// The file was kept as it was: it holds more values than the session
    /// has now (a query stopped by the limit of states or memory gives up
    /// what it found since the last checkpoint wrote it; a table resumed in
    /// part has fewer), and a table of fewer would replace them.
    Kept { held: usize, now: usize },
    /// The file was kept as it was: the session found no value.
    Empty,
}

/// A table read, with the games not declared yet.
struct Resumed {
    path: String,
    table: Table,
}

impl Session {
    /// Reads the table saved in the file at `path`, before the sources
    /// are run: refused (with why) unless it is whole, unaltered, of this
    /// format, and every game it holds values of is declared by `sources`
    /// (names and texts) under the rules it was saved for. Its values are
    /// taken in as their games are declared; returns how many it holds.
    pub fn resume(&mut self, path: &Path, sources: &[(String, String)]) -> Result<usize, Report> {
        let shown = path.display().to_string();
        let file = std::fs::File::open(path);
        let bytes = file
            .and_then(format::read)
            .map_err(|error| match error.kind() {
                std::io::ErrorKind::OutOfMemory => Refused::Memory {
                    path: shown.clone(),
                    doing: "read",
                    size: std::fs::metadata(path).map_or_else(
                        |_| "its bytes".to_owned(),
                        |file| format!("{} bytes", file.len()),
                    ),
                    help: READ_MEMORY,
                },
                _ => Refused::Unreadable {
                    path: shown.clone(),
                    reason: error.to_string(),
                },
            })?;
        let table = format::decode(&shown, &bytes)?;
        check_games(&shown, &table, sources)?;
        let held = table.values.len();
        self.saving.read = Some((path.to_path_buf(), held));
        self.saving.resumed = Some(Resumed { path: shown, table });
        self.take_in_resumed(&mut |_| {})?;
        Ok(held)
    }

    /// Saves the session's values to the file at `path` when
    /// [`Session::save`] is called, and during a long search at most
    /// every `every` (and no more than about a twentieth of the time).
    pub fn save_to(&mut self, path: &Path, every: Duration) {
        // A century is as good as never, and an instant that far on is
        // one the clock can hold.
        let every = every.min(Duration::from_secs(100 * 365 * 24 * 3600));
        if let Some((read, held)) = &self.saving.read
            && same_file(read, path)
        {
            self.saving.held.store(*held, Ordering::Relaxed);
        }
        self.saving.save = Some((path.to_path_buf(), every));
        self.refresh_checkpoints();
    }

    /// Whether the file [`Session::save_to`] named can be written, asked
    /// before the queries, so that a long search does not end unsaved.
    pub fn check_save(&self) -> Result<(), Report> {
        let Some((path, _)) = &self.saving.save else {
            return Ok(());
        };
        crate::files::writable(path).map_err(|error| {
            Report::new(Refused::Unwritable {
                path: path.display().to_string(),
                reason: error.to_string(),
            })
        })
    }

    /// Writes the values found so far to the file [`Session::save_to`]
    /// named, replacing it whole, unless it holds more values than the
    /// session has now (see [`Saved::Kept`]).
    pub fn save(&mut self) -> Result<Saved, Report> {
        let Some((path, _)) = &self.saving.save else {
            return Ok(Saved::Written(0));
        };
        let memory = || {
            Report::new(Refused::Memory {
                path: path.display().to_string(),
                doing: "write",
                size: count(self.engine.states(), "value", "values"),
                help: WRITE_MEMORY,
            })
        };
        let values = self.engine.snapshot().map_err(|_| memory())?;
        let table = table_of(&self.saved_games(), values);
        let (now, held) = (table.values.len(), self.saving.held.load(Ordering::Relaxed));
        if now < held {
            return Ok(Saved::Kept { held, now });
        }
        // A run that found nothing (its first query failed) leaves a file
        // as it was: an empty table is no use, and the file may be one.
        if now == 0 && std::fs::metadata(path).is_ok_and(|metadata| metadata.len() > 0) {
            return Ok(Saved::Empty);
        }
        let bytes = format::encode(&table).map_err(|_| memory())?;
        write_bytes(path, &bytes).map_err(|reason| {
            Report::new(Refused::Unwritable {
                path: path.display().to_string(),
                reason,
            })
        })?;
        self.saving.held.store(now, Ordering::Relaxed);
        Ok(Saved::Written(now))
    }

    /// Why the last table written during a search could not be, once.
    pub(super) fn save_failure(&self) -> Option<String> {
        let mut failure = self.saving.failure.lock().ok()?;
        failure.take()
    }

    /// Takes in the values of the resumed table's games that are now
    /// declared, saying so; refuses the table (and forgets it) if one is
    /// declared under other rules, or a key is no position of its game.
    pub(super) fn take_in_resumed(&mut self, sink: &mut dyn FnMut(Event)) -> Result<(), Report> {
        let Some(Resumed { path, table }) = self.saving.resumed.take() else {
            return Ok(());
        };
        let declared = self.declared_texts();
        let mut renumbered: HashMap<u32, GameId> = HashMap::new();
        let (mut taken, mut left) = (Vec::new(), Vec::new());
        for game in table.games {
            let kind = self.program.names.get(&game.name).map(|name| name.kind);
            let Some(DeclarationKind::Game(id)) = kind else {
                left.push(game);
                continue;
            };
            if rules_text(&declared, &game.name).as_deref() != Some(game.rules.as_str()) {
                return Err(self.other_rules(&declared, path, game.name));
            }
            renumbered.insert(game.id, id);
            taken.push(game.name);
        }
        if taken.is_empty() {
            self.saving.resumed = Some(Resumed {
                path,
                table: Table {
                    games: left,
                    ..table
                },
            });
            return Ok(());
        }
        let (values, rest) = self
            .renumbered(&table.values, &renumbered, &table.graphs)
            .map_err(|unread| match unread {
                format::Unread::Malformed(reason) => Refused::Malformed {
                    path: path.clone(),
                    reason,
                },
                format::Unread::Memory => Refused::Memory {
                    path: path.clone(),
                    doing: "take in",
                    size: count(table.values.len(), "value", "values"),
                    help: READ_MEMORY,
                },
            })?;
        drop(table.values);
        let kept = self.engine.restore(&values);
        let games: Vec<String> = taken.iter().map(|name| format!("`{name}`")).collect();
        let of = values.len();
        let some = match kept < of {
            true => format!("{kept} of the {} values", of),
            false => count(kept, "value", "values"),
        };
        let left_out = match kept < of {
            true => {
                " (the rest past the room `--max-states` and `--max-table` leave, with a sixteenth kept free for the search: raise them to take in more)"
            }
            false => "",
        };
        sink(Event::Note(format!(
            "resumed {some} of {} from {path}{left_out}",
            games.join(", ")
        )));
        if !left.is_empty() {
            let table = Table {
                games: left,
                graphs: table.graphs,
                values: rest,
            };
            self.saving.resumed = Some(Resumed { path, table });
        }
        Ok(())
    }

    /// The refusal of a table for `game`, declared here under other rules
    /// than the table was saved for.
    fn other_rules(
        &self,
        declared: &[(&ast::Statement, &str)],
        path: String,
        game: String,
    ) -> Report {
        let statement = declared.iter().find(|(statement, _)| {
            lower::declared_name(statement).is_some_and(|name| name.name == game)
        });
        let (offset, text) = statement.map_or((0, ""), |(statement, text)| {
            (statement.span().offset(), *text)
        });
        Report::new(Refused::OtherRules {
            path,
            game,
            text: Arc::new(NamedSource::new(
                self.sources.name_at(offset),
                text.to_owned(),
            )),
            span: (0, text.len()).into(),
        })
    }

    /// The values of the games `renumbered` names, under their numbers in
    /// this session, each key checked to be a position of its game; and
    /// the values of the other games, as they were. A key of a region of
    /// one of the table's `graphs` is renumbered to the graph's number in
    /// this run (see [`graphs::resumed`]).
    fn renumbered(
        &self,
        values: &Snapshot,
        renumbered: &HashMap<u32, GameId>,
        saved_graphs: &[SavedGraph],
    ) -> Result<(Snapshot, Snapshot), format::Unread> {
        let interp = Interpreter::new(&self.program);
        let (mut taken, mut rest) = (Snapshot::default(), Snapshot::default());
        let game_of = |key| renumbered.get(&packed_game(key).0).copied();
        // Only the graphs of the values taken in are numbered.
        let saved: HashMap<u16, &graphs::Identity> = saved_graphs
            .iter()
            .map(|graph| (graph.number, &graph.identity))
            .collect();
        let mut regraphed_to: HashMap<u16, Option<u16>> = HashMap::new();
        let keys = values.packed.iter().chain(&values.ruled_out);
        for (key, _) in keys.filter(|&&(key, _)| game_of(key).is_some()) {
            if let Some(number) = packed_graph(*key) {
                regraphed_to.entry(number).or_insert_with(|| {
                    let identity = saved.get(&number)?;
                    graphs::resumed(identity)
                });
            }
        }
        // Room made first, as much as each side takes.
        let of = |keys: &[(Packed, u64)]| {
            keys.iter()
                .filter(|&&(key, _)| game_of(key).is_some())
                .count()
        };
        let dense = values
            .dense
            .iter()
            .filter(|(address, _)| renumbered.contains_key(&address.table))
            .count();
        let counts = [of(&values.packed), dense, of(&values.ruled_out)];
        let lengths = [
            values.packed.len(),
            values.dense.len(),
            values.ruled_out.len(),
        ];
        let [packed, dense, ruled_out] = counts;
        taken.packed.try_reserve_exact(packed)?;
        taken.dense.try_reserve_exact(dense)?;
        taken.ruled_out.try_reserve_exact(ruled_out)?;
        let [packed, dense, ruled_out] = [0, 1, 2].map(|i| lengths[i] - counts[i]);
        rest.packed.try_reserve_exact(packed)?;
        rest.dense.try_reserve_exact(dense)?;
        rest.ruled_out.try_reserve_exact(ruled_out)?;
        let position = |key| {
            let Some(game) = game_of(key) else {
                return Taken::Rest;
            };
            let mut key = repacked(key, game);
            if let Some(number) = packed_graph(key) {
                // The table lists every graph its keys are of.
                match regraphed_to.get(&number).copied().flatten() {
                    Some(number) => key = regraphed(key, number),
                    None => return Taken::Unnumbered,
                }
            }
            match packed_fits(key) && interp.packed(&interp.unpacked(key)) == Some(key) {
                true => Taken::As(key),
                false => Taken::NoPosition,
            }
        };
        let not_one = |game: &str| format!("a key is not a position of `{game}`").into();
        for &(key, value) in &values.packed {
            match position(key) {
                Taken::As(key) => taken.packed.push((key, value)),
                Taken::NoPosition => return Err(not_one(&self.game_name(game_of(key)))),
                Taken::Unnumbered => {}
                Taken::Rest => rest.packed.push((key, value)),
            }
        }
        for &(key, bits) in &values.ruled_out {
            match position(key) {
                Taken::As(key) => taken.ruled_out.push((key, bits)),
                Taken::NoPosition => return Err(not_one(&self.game_name(game_of(key)))),
                Taken::Unnumbered => {}
                Taken::Rest => rest.ruled_out.push((key, bits)),
            }
        }
        for &(address, value) in &values.dense {
            let Some(&game) = renumbered.get(&address.table) else {
                rest.dense.push((address, value));
                continue;
            };
            let address = Address {
                table: game.0,
                ..address
            };
            let params = self.program.game(game).params.len();
            let position: Component = interp.at_address(address);
            if !(1..=4).contains(&params) || interp.dense(&position) != Some(address) {
                return Err(not_one(&self.program.game(game).name));
            }
            taken.dense.push((address, value));
        }
        Ok((taken, rest))
    }

    fn game_name(&self, game: Option<GameId>) -> String {
        game.map_or_else(String::new, |game| self.program.game(game).name.clone())
    }

    /// Hands the engine a writer of the session's values during a long
    /// search, for the games declared now, if the values are saved.
    pub(super) fn refresh_checkpoints(&mut self) {
        let Some((path, every)) = self.saving.save.clone() else {
            return;
        };
        let games = self.saved_games();
        let failure = self.saving.failure.clone();
        let held = self.saving.held.clone();
        let writer: SnapshotWriter = Box::new(move |values| {
            let table = values.map(|values| table_of(&games, values));
            let written = table.as_ref().map_err(|_| NO_MEMORY.to_owned());
            let written = written.and_then(|table| {
                // Never fewer values than the file holds: a table resumed
                // in part, or a search that forgot some since the last
                // checkpoint, leaves the file as it was (all its values
                // are true).
                match table.values.len() < held.load(Ordering::Relaxed) {
                    true => Ok(false),
                    false => write(&path, table).map(|()| true),
                }
            });
            // A checkpoint writes whatever the search holds, fewer values
            // too once it forgets some to keep within its bound.
            if let (Ok(true), Ok(table)) = (&written, &table) {
                held.store(table.values.len(), Ordering::Relaxed);
            }
            if let (Err(reason), Ok(mut failure)) = (written, failure.lock()) {
                *failure = Some(format!(
                    "could not save the table to {} during the search: {reason}",
                    path.display()
                ));
            }
        });
        self.engine
            .set_checkpoints(Some(Checkpoints::new(every, writer)));
    }

    /// Every game declared, by number, as a table records it (`None` for
    /// a number whose game a redeclaration replaced).
    fn saved_games(&self) -> Vec<Option<SavedGame>> {
        let declared = self.declared_texts();
        let games = self.program.games.iter().enumerate();
        games
            .map(|(id, game)| {
                let kind = self.program.names.get(&game.name).map(|name| name.kind);
                let current = kind == Some(DeclarationKind::Game(GameId(id as u32)));
                Some(SavedGame {
                    id: id as u32,
                    name: game.name.clone(),
                    rules: rules_text(&declared, &game.name).filter(|_| current)?,
                })
            })
            .collect()
    }

    /// The declarations in force, each with its text.
    fn declared_texts(&self) -> Vec<(&ast::Statement, &str)> {
        let declarations = self.declarations.iter();
        declarations
            .map(|statement| (statement.as_ref(), self.sources.text(statement.span())))
            .collect()
    }
}

/// A game's rules as a table records them: the text of its declaration
/// and of every declaration it refers to, directly or through others, in
/// order of name, each with its runs of white space made one space. Two
/// runs that agree on it agree on every value of the game. `None` if no
/// game of that name is declared.
fn rules_text(declared: &[(&ast::Statement, &str)], game: &str) -> Option<String> {
    let mut by_name: HashMap<&str, (&ast::Statement, &str)> = HashMap::new();
    for &(statement, text) in declared {
        if let Some(name) = lower::declared_name(statement) {
            by_name
                .entry(name.name.as_str())
                .or_insert((statement, text));
        }
    }
    let (statement, _) = by_name.get(game)?;
    if !matches!(statement, ast::Statement::Game(_)) {
        return None;
    }
    let mut reached = BTreeSet::from([game]);
    let mut waiting = vec![game];
    while let Some(name) = waiting.pop() {
        for used in lower::references(by_name[name].0) {
            if by_name.contains_key(used) && reached.insert(used) {
                waiting.push(used);
            }
        }
    }
    let texts = reached.iter().map(|name| {
        let text = by_name[name].1;
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    });
    Some(texts.collect::<Vec<_>>().join("\n"))
}

/// Refuses a table unless every game it holds values of is declared by
/// the sources under the rules it was saved for. A source that does not
/// parse is passed over (running it reports why), and a game it may have
/// declared is then not missed.
fn check_games(path: &str, table: &Table, sources: &[(String, String)]) -> Result<(), Refused> {
    let parsed: Vec<(&str, &str, ast::Program)> = sources
        .iter()
        .filter_map(|(name, text)| {
            Some((name.as_str(), text.as_str(), syntax::parse(text, 0).ok()?))
        })
        .collect();
    let all_parsed = parsed.len() == sources.len();
    let mut declared = Vec::new();
    for (name, text, program) in &parsed {
        for statement in &program.statements {
            let span = statement.span();
            let written = text.get(span.offset()..span.offset() + span.len());
            declared.push((statement, written.unwrap_or(""), *name, *text));
        }
    }
    let texts: Vec<(&ast::Statement, &str)> = declared
        .iter()
        .map(|&(statement, written, ..)| (statement, written))
        .collect();
    for game in &table.games {
        let Some(rules) = rules_text(&texts, &game.name) else {
            if !all_parsed {
                continue;
            }
            return Err(Refused::NotDeclared {
                path: path.to_owned(),
                game: game.name.clone(),
            });
        };
        if rules != game.rules {
            let (statement, _, name, text) = declared
                .iter()
                .find(|(statement, ..)| {
                    lower::declared_name(statement).is_some_and(|name| name.name == game.name)
                })
                .expect("a game with rules is declared");
            return Err(Refused::OtherRules {
                path: path.to_owned(),
                game: game.name.clone(),
                text: Arc::new(NamedSource::new(*name, text.to_string())),
                span: statement.span(),
            });
        }
    }
    Ok(())
}

/// What a key of a table read is in this run (see [`Session::renumbered`]).
enum Taken {
    /// A position of a game taken in, under this key.
    As(Packed),
    /// Of a game taken in, but no position of it: the table is refused.
    NoPosition,
    /// Of a graph this run has no number left for: left out.
    Unnumbered,
    /// Of a game not declared yet.
    Rest,
}

/// The table of `values` whose games are among `games` (by number), with
/// the graphs their keys are of, each saved by what it is (see
/// [`graphs::Identity`]).
fn table_of(games: &[Option<SavedGame>], mut values: Snapshot) -> Table {
    let mut identities = BTreeMap::new();
    let keys = values.packed.iter().chain(&values.ruled_out);
    for number in keys.filter_map(|&(key, _)| packed_graph(key)) {
        identities
            .entry(number)
            .or_insert_with(|| graphs::identity(number));
    }
    let known = |id: u32| games.get(id as usize).is_some_and(Option::is_some);
    let kept = |key| {
        let graph = packed_graph(key).map(|number| &identities[&number]);
        known(packed_game(key).0) && graph.is_none_or(Option::is_some)
    };
    values.packed.retain(|&(key, _)| kept(key));
    values.ruled_out.retain(|&(key, _)| kept(key));
    values.dense.retain(|&(address, _)| known(address.table));
    let mut used = BTreeSet::new();
    used.extend(values.packed.iter().map(|&(key, _)| packed_game(key).0));
    used.extend(values.ruled_out.iter().map(|&(key, _)| packed_game(key).0));
    used.extend(values.dense.iter().map(|&(address, _)| address.table));
    let games = used
        .into_iter()
        .filter_map(|id| games[id as usize].clone())
        .collect();
    // Only the graphs of the keys kept: those of games not saved go.
    let mut numbers = BTreeSet::new();
    let keys = values.packed.iter().chain(&values.ruled_out);
    numbers.extend(keys.filter_map(|&(key, _)| packed_graph(key)));
    let graphs = numbers
        .into_iter()
        .filter_map(|number| {
            let identity = identities.remove(&number).flatten()?;
            Some(SavedGraph { number, identity })
        })
        .collect();
    Table {
        games,
        graphs,
        values,
    }
}

/// Why a table could not be written when memory for it was refused.
const NO_MEMORY: &str = "there is not memory enough to write it (a limit on address space, `ulimit -v` or `prlimit --as`, is the usual cause)";

/// Writes a table to `path`, aside and renamed into place.
fn write(path: &Path, table: &Table) -> Result<(), String> {
    let bytes = format::encode(table).map_err(|_| NO_MEMORY.to_owned())?;
    write_bytes(path, &bytes)
}

/// Writes the bytes of a table to `path`, aside and renamed into place.
fn write_bytes(path: &Path, bytes: &[u8]) -> Result<(), String> {
    crate::files::write_aside(path, |writer| writer.write_all(bytes))
        .map_err(|error| error.to_string())
}

/// The help of a table that could not be read or taken in for memory.
pub(super) const READ_MEMORY: &str = "run it with more memory: a limit on address space (`ulimit -v`, `prlimit --as`) is the usual cause; or leave `--resume` out";

/// The help of a table that could not be written for memory.
const WRITE_MEMORY: &str = "run it with more memory: a limit on address space (`ulimit -v`, `prlimit --as`) is the usual cause; a smaller `--max-table` or `--max-states` keeps the table smaller";

/// Whether two paths name one file (both existing), or are the same path.
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}
