//! Tables of values saved and resumed (`sprague run --save FILE --resume
//! FILE`): a resumed run answers as a fresh one with less work; a table
//! cut short, altered, foreign or saved for other rules is refused before
//! any query; and a run killed at any moment, even while it writes the
//! table, leaves the last table saved whole.

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sprague::engine::{DEFAULT_MAX_STATES, Method};
use sprague::session::{Event, Saved, Session, Value};

const NODE_KAYLES: &str = "
game NodeKayles(s) splits up to symmetry {
  move NodeKayles(s - closed(s, v)) for v in s
}
";

const CRAM: &str = "
game Cram(s) splits up to symmetry {
  move Cram(s - {a, b}) for a in s, b in neighbours(s, a) if a < b
}
";

/// Node Kayles on the 3 × n lattice, OEIS A316632 (n = 1 to 16).
const A316632: [u64; 16] = [2, 1, 1, 0, 3, 3, 2, 2, 2, 3, 3, 5, 2, 4, 1, 3];

/// What a session's run of `source` said: the values of its `grundy`
/// queries, its notes, and whether anything failed (the errors rendered).
#[derive(Debug, Default)]
struct Heard {
    values: Vec<u64>,
    notes: Vec<String>,
    errors: Vec<String>,
}

fn run_in(session: &mut Session, source: &str) -> Heard {
    let mut heard = Heard::default();
    session.run("test.game", source, &mut |event| match event {
        Event::Answer(answer) => match answer.value {
            Value::Grundy(value) => heard.values.push(value),
            other => panic!("expected a value, got {other:?}"),
        },
        Event::Note(note) => heard.notes.push(note),
        Event::Error(report) => heard.errors.push(format!("{report:?}")),
        Event::Play(_) => unreachable!(),
    });
    heard
}

/// An error as rendered, its words joined by single spaces and the
/// frame's bars left out, so that a phrase the renderer wrapped is found.
fn plain(rendered: &str) -> String {
    let words = rendered.split_whitespace().filter(|word| *word != "│");
    words.collect::<Vec<_>>().join(" ")
}

/// How many values a save wrote (a save that kept its file fails here).
fn written(saved: Saved) -> usize {
    match saved {
        Saved::Written(count) => count,
        kept => panic!("expected a table written, got {kept:?}"),
    }
}

fn session() -> Session {
    let mut session = Session::new(DEFAULT_MAX_STATES);
    session.set_method(Method::Search);
    // One thread: the positions listed and the values found are then the
    // same run to run (helpers hand values over at times of their own).
    session.set_threads(1);
    session
}

fn sources(source: &str) -> Vec<(String, String)> {
    vec![("test.game".to_owned(), source.to_owned())]
}

/// The number a note like "resumed 1234 values of `Cram` from t" gives.
fn resumed(notes: &[String]) -> usize {
    let note = notes
        .iter()
        .find(|note| note.starts_with("resumed "))
        .unwrap_or_else(|| panic!("no note says what was resumed: {notes:?}"));
    note.split(' ').nth(1).unwrap().parse().unwrap()
}

/// A search stopped midway (as Ctrl-C stops it) keeps the values it
/// found; saved and resumed, they spare the search that goes on from them
/// part of its work, and the answer is the one OEIS gives. A table saved
/// once the answer is known answers it with no search at all.
#[test]
fn a_resumed_search_answers_alike_and_lists_fewer_positions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("table");
    // Declared without symmetry, so that the search lists enough
    // positions for the watcher to be called more than once.
    let source = "game NodeKayles(s) splits {
  move NodeKayles(s - closed(s, v)) for v in s
}
grundy NodeKayles(Grid(3, 16))
";

    let mut fresh = session();
    assert_eq!(run_in(&mut fresh, source).values, [A316632[15]]);
    let whole = fresh.tally().searched;
    assert!(whole > 0);

    // Stopped at the watcher's second call: the search has listed
    // positions, and not all of them.
    let mut stopped = session();
    let calls = Arc::new(Mutex::new(0));
    let counted = Arc::clone(&calls);
    stopped.set_watcher(Some(Box::new(move |_| {
        let mut calls = counted.lock().unwrap();
        *calls += 1;
        *calls < 2
    })));
    stopped.save_to(&path, Duration::from_secs(3600));
    let heard = run_in(&mut stopped, source);
    assert!(
        heard.values.is_empty() && heard.errors.len() == 1,
        "{heard:?}"
    );
    let before = stopped.tally().searched;
    assert!(0 < before && before < whole, "{before} of {whole}");
    let saved = written(stopped.save().unwrap());
    assert!(saved > 0);

    let mut resumed_run = session();
    assert_eq!(resumed_run.resume(&path, &sources(source)).unwrap(), saved);
    resumed_run.save_to(&path, Duration::from_secs(3600));
    let heard = run_in(&mut resumed_run, source);
    assert_eq!(heard.values, [A316632[15]], "{heard:?}");
    assert_eq!(resumed(&heard.notes), saved);
    let after = resumed_run.tally().searched;
    assert!(
        0 < after && after < whole,
        "{after} listed, {whole} when fresh"
    );
    let complete = written(resumed_run.save().unwrap());
    assert!(complete > saved);

    // The position asked is in the table: its value is read.
    let mut answered = session();
    answered.resume(&path, &sources(source)).unwrap();
    let heard = run_in(&mut answered, source);
    assert_eq!(heard.values, [A316632[15]]);
    assert_eq!(resumed(&heard.notes), complete);
    assert_eq!(answered.tally().searched, 0);
}

/// The values of one game are resumed under another numbering of the
/// games: a source that declares a game before it, or in a second file.
#[test]
fn a_table_is_resumed_whatever_number_its_game_has() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("table");
    let asked = "grundy NodeKayles(Grid(3, n)) for n in 10..=14\n";
    let mut first = session();
    first.save_to(&path, Duration::from_secs(3600));
    let source = format!("{NODE_KAYLES}{asked}");
    assert_eq!(run_in(&mut first, &source).values, A316632[9..14]);
    let saved = written(first.save().unwrap());

    let other = "game Sub(n) { move Sub(n - 1) if n > 0 }\ngrundy Sub(7)\n";
    let second = format!("{NODE_KAYLES}{asked}");
    let two_files = vec![
        ("other.game".to_owned(), other.to_owned()),
        ("test.game".to_owned(), second.clone()),
    ];
    let mut later = session();
    later.resume(&path, &two_files).unwrap();
    // Sub(7) of a game with one move, n - 1: n mod 2.
    assert_eq!(run_in(&mut later, other).values, [1]);
    let before = later.tally().searched;
    let heard = run_in(&mut later, &second);
    assert_eq!(heard.values, A316632[9..14]);
    assert_eq!(resumed(&heard.notes), saved);
    assert_eq!(later.tally().searched, before);
}

/// A table holds the rules its values were found under, and the
/// declarations those refer to: a change in any of them refuses it.
#[test]
fn a_table_saved_for_other_rules_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("table");
    let take = "let Most = 3\ngame Take(n) { move Take(n - k) for k in 1..=Most if k <= n }\n";
    let board = "let Rows = 2\ngame Board(c) = Cram(Grid(Rows, c))\n";
    let source = format!("{CRAM}{take}{board}grundy Board(5)\ngrundy Take(10)\n");
    let mut first = session();
    first.save_to(&path, Duration::from_secs(3600));
    let heard = run_in(&mut first, &source);
    // Taking 1 to 3 of a heap: n mod 4.
    assert_eq!(heard.values[1], 10 % 4, "{heard:?}");
    first.save().unwrap();

    let refused = |source: &str| -> String {
        let report = session().resume(&path, &sources(source)).unwrap_err();
        format!("{report:?}")
    };
    // A rule changed, or a `let` a rule refers to.
    assert!(refused(&source.replace("a < b", "b > a")).contains("other rules"));
    assert!(refused(&source.replace("Most = 3", "Most = 4")).contains("other rules"));
    // Another game under the name.
    let node_kayles = NODE_KAYLES.replace("NodeKayles", "Cram");
    assert!(refused(&format!("{node_kayles}{take}")).contains("other rules"));
    // No game of the name.
    let said = refused(&format!("{NODE_KAYLES}{take}"));
    assert!(said.contains("`Cram`, which no source"), "{said}");
    // Spaces and line breaks are not rules.
    let spaced = source.replace("splits up", "splits\n   up");
    session().resume(&path, &sources(&spaced)).unwrap();
    // `Board(5)` is kept by address: its value depends on `Rows`, which
    // Cram's do not.
    let said = refused(&source.replace("Rows = 2", "Rows = 3"));
    assert!(
        said.contains("values of `Board` under other rules"),
        "{said}"
    );
    // A session told one source and given another refuses the table when
    // the game is declared, and asks none of the source's queries.
    let mut told = session();
    told.resume(&path, &sources(&source)).unwrap();
    let heard = run_in(&mut told, &source.replace("a < b", "b > a"));
    assert!(
        heard.values.is_empty() && heard.errors.len() == 1,
        "{heard:?}"
    );
    assert!(heard.errors[0].contains("other rules"), "{heard:?}");
    // A declaration no game saved refers to is not their rules.
    let unused = format!("let Unused = 1\n{source}");
    session().resume(&path, &sources(&unused)).unwrap();
    let unused = unused.replace("Unused = 1", "Unused = 2");
    session().resume(&path, &sources(&unused)).unwrap();
}

/// A table made by other means than `--save`, whole and with its
/// checksum right, holding one value of Cram under the packed key whose
/// first word is `head`, and node 0 in the others.
fn table_by_hand(head: u8) -> Vec<u8> {
    use sprague::session::saved::{MAGIC, VERSION};
    let rules = CRAM.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(rules.len() < 128, "its length is one byte");
    let mut body = vec![1, 0, 4];
    body.extend(b"Cram");
    body.push(rules.len() as u8);
    body.extend(rules.as_bytes());
    // No graphs; one value (0) by packed key; none by address, none ruled
    // out.
    body.extend([0, 1, head, 1, 0, 0, 0, 0]);
    let mut bytes = MAGIC.to_vec();
    bytes.extend(VERSION.to_le_bytes());
    bytes.extend((body.len() as u64).to_le_bytes());
    bytes.extend(&body);
    let checksum = crc32fast::hash(&bytes);
    bytes.extend(checksum.to_le_bytes());
    bytes
}

/// A table whose values take more memory than the run may have is
/// refused, saying so, before any query: under an address space of 1.35 GB
/// (the evaluator's stack reserves 1 GB of it) a table of 16 million
/// values by packed key (64 MB on disk, 512 MB in memory) cannot be read,
/// where a table of one value can.
#[cfg(target_os = "linux")]
#[test]
fn a_table_too_large_for_the_memory_left_is_refused_for_memory() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let file = cram_file(dir, "cram.game", "grundy Cram(Grid(1, 2))\n");
    let cap = 1_350_000_000;
    let resume = |table: &str| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_sprague"));
        command
            .args(["run", "--resume", table, &file])
            .current_dir(dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        common::cap_child(&mut command, common::Cap::AddressSpace(cap));
        command.spawn().unwrap().wait_with_output().unwrap()
    };
    std::fs::write(dir.join("small"), table_by_hand(3)).unwrap();
    let small = resume("small");
    assert!(small.status.success(), "{}", text(&small.stderr));
    assert_eq!(text(&small.stdout), "grundy Cram(Grid(1, 2)) = 1\n");

    // The one value of `table_by_hand`, 16 million times: 4 bytes each.
    let one = table_by_hand(3);
    let values = 16_000_000u64;
    let (header, checksum) = (16 + 4 + 8, 4);
    let body = &one[header..one.len() - checksum];
    let at = body.len() - 7;
    assert_eq!(
        &body[at..],
        [1, 3, 1, 0, 0, 0, 0],
        "one value, then no others"
    );
    let mut large = body[..at].to_vec();
    let mut count = values;
    while count >= 0x80 {
        large.push(count as u8 | 0x80);
        count >>= 7;
    }
    large.push(count as u8);
    large.reserve(4 * values as usize + 2);
    for _ in 0..values {
        large.extend([3, 1, 0, 0]);
    }
    large.extend([0, 0]);
    let mut bytes = one[..header - 8].to_vec();
    bytes.extend((large.len() as u64).to_le_bytes());
    bytes.extend(&large);
    let sum = crc32fast::hash(&bytes);
    bytes.extend(sum.to_le_bytes());
    std::fs::write(dir.join("large"), &bytes).unwrap();
    drop(bytes);
    let large = resume("large");
    let said = text(&large.stderr);
    assert_eq!(large.status.code(), Some(1), "{said}");
    assert!(large.stdout.is_empty(), "{}", text(&large.stdout));
    assert!(said.contains("sprague::table::memory"), "{said}");
    assert!(said.contains("`large`"), "{said}");
    assert!(said.contains("prlimit --as"), "{said}");
}

/// A key is taken in only if it is a position of its game as the rules
/// pack it: a set (kind 3) packs with no board's sides beside it.
#[test]
fn a_table_whose_key_is_no_position_of_its_game_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("table");
    let source = format!("{CRAM}grundy Cram(Grid(1, 2))\n");
    let resumed_with = |head: u8| {
        std::fs::write(&path, table_by_hand(head)).unwrap();
        let mut resumed = session();
        assert_eq!(resumed.resume(&path, &sources(&source)).unwrap(), 1);
        run_in(&mut resumed, &source)
    };
    // The set {0} of Cram: no move, value 0, as the table says.
    let heard = resumed_with(3);
    assert_eq!(resumed(&heard.notes), 1, "{heard:?}");
    // Two cells side by side: one domino, value 1.
    assert_eq!(heard.values, [1]);
    // Node 0 of a path of no nodes.
    let heard = resumed_with(1);
    assert!(
        heard.values.is_empty() && heard.errors.len() == 1,
        "{heard:?}"
    );
    let said = plain(&heard.errors[0]);
    assert!(said.contains("a key is not a position of `Cram`"), "{said}");

    // A set's kind with a number beside it is a region of a declared
    // graph, which the table must list: this one lists none.
    std::fs::write(&path, table_by_hand(3 | 1 << 2)).unwrap();
    let refused = session().resume(&path, &sources(&source)).unwrap_err();
    let said = plain(&format!("{refused:?}"));
    assert!(said.contains("graph 0, which it does not list"), "{said}");
}

/// A table keeps the values of regions of declared graphs, each graph
/// saved by what it is (its name, nodes and edges): a run that builds the
/// same graph finds them, though it numbers its graphs in another order,
/// and a run that builds another graph under the same name does not.
#[test]
fn regions_of_declared_graphs_are_saved_and_resumed() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let petersen = "
game NodeKayles(s) splits { move NodeKayles(s - closed(s, v)) for v in s }
graph Star { 0 -- 1  0 -- 2  0 -- 3 }
graph Petersen(n, k) {
  nodes 0..2 * n
  edge i -- (i + 1) % n for i in 0..n
  edge i -- n + i for i in 0..n
  edge n + i -- n + (i + k) % n for i in 0..n
}
";
    let file = |name: &str, text: &str| {
        std::fs::write(dir.join(name), text).unwrap();
        name.to_owned()
    };
    // P(16, 2) alone, then the star before it (which then takes the first
    // number), and P(16, 2) of another rule for its inner cycle.
    let first = file(
        "first.game",
        &format!(
            "{petersen}grundy NodeKayles(Petersen(16, 2))
"
        ),
    );
    let asked = "grundy NodeKayles(Star)
grundy NodeKayles(Petersen(16, 2))
";
    let again = file("again.game", &format!("{petersen}{asked}"));
    let other = petersen.replace("(i + k) % n", "(i + k + 1) % n");
    let other = file("other.game", &format!("{other}{asked}"));
    let saved = sprague_in(dir, &["run", "--method", "search", "--save", "t", &first]);
    assert!(saved.status.success(), "{}", text(&saved.stderr));
    // Node Kayles on P(16, 2) is 0 (OEIS A316533).
    assert_eq!(
        text(&saved.stdout),
        "grundy NodeKayles(Petersen(16, 2)) = 0\n"
    );
    let limited = ["run", "--method", "search", "--max-work", "20"];
    let run = |file: &str, resume: bool| {
        let mut args = limited.to_vec();
        if resume {
            args.extend(["--resume", "t"]);
        }
        args.push(file);
        sprague_in(dir, &args)
    };
    // Under a limit of 20 options the search does not reach the value...
    let fresh = run(&again, false);
    assert!(!fresh.status.success());
    assert!(text(&fresh.stderr).contains("too_much_work"));
    // ...which the table holds for the same graph...
    let resumed = run(&again, true);
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    let answers = "grundy NodeKayles(Star) = 1\ngrundy NodeKayles(Petersen(16, 2)) = 0\n";
    assert_eq!(text(&resumed.stdout), answers);
    // ...and not for another graph of the same name.
    let elsewhere = run(&other, true);
    assert!(!elsewhere.status.success());
    assert!(text(&elsewhere.stderr).contains("too_much_work"));

    // A board of a graph's edges is saved the same way: green Hackenbush
    // (which does not split: the memo values it) on the edges of P(5, 2),
    // the same graph and another.
    let hackenbush = "game Hackenbush(e) { move Hackenbush(grounded(e - {x}, {0})) for x in e }
grundy Hackenbush(Edges(Petersen(5, 2)))
";
    let edges = file("edges.game", &format!("{petersen}{hackenbush}"));
    let other = petersen.replace("(i + k) % n", "(i + k + 1) % n");
    let other = file("other_edges.game", &format!("{other}{hackenbush}"));
    let saved = sprague_in(dir, &["run", "--save", "e", &edges]);
    assert!(saved.status.success(), "{}", text(&saved.stderr));
    let limited = |file: &str, resume: bool| {
        let mut args = vec!["run", "--max-work", "20"];
        if resume {
            args.extend(["--resume", "e"]);
        }
        args.push(file);
        sprague_in(dir, &args)
    };
    assert!(!limited(&edges, false).status.success());
    let resumed = limited(&edges, true);
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    assert_eq!(resumed.stdout, saved.stdout);
    let elsewhere = limited(&other, true);
    assert!(text(&elsewhere.stderr).contains("too_much_work"));
}

/// Runs `sprague` in `dir` with these arguments.
fn sprague_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sprague"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The boards of Cram on 4 rows, and two of them of value 0 by the
/// symmetry strategy (the second player answers each domino by its image
/// through the centre).
fn cram_file(dir: &Path, name: &str, asked: &str) -> String {
    std::fs::write(dir.join(name), format!("{CRAM}{asked}")).unwrap();
    name.to_owned()
}

#[test]
fn sprague_run_saves_and_resumes_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let asked = "grundy Cram(Grid(4, 2))\ngrundy Cram(Grid(4, 4))\ngrundy Cram(Grid(4, 6))\n";
    let file = cram_file(dir, "cram.game", asked);
    let first = sprague_in(dir, &["run", "--save", "t", &file]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    assert_eq!(text(&first.stdout).matches("= 0\n").count(), 3);
    let saved = text(&first.stderr);
    let count = saved
        .strip_prefix("saved ")
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_else(|| panic!("{saved}"));
    let again = sprague_in(dir, &["run", "--resume", "t", "--save", "t", &file]);
    assert!(again.status.success(), "{}", text(&again.stderr));
    assert_eq!(again.stdout, first.stdout);
    let said = text(&again.stderr);
    assert!(
        said.contains(&format!("resumed {count} values of `Cram` from t")),
        "{said}"
    );
    // Nothing left aside.
    let names: Vec<_> = std::fs::read_dir(dir).unwrap().collect();
    assert_eq!(names.len(), 2);
    // With `--json`, the notes are JSON lines as the errors are: every
    // line of standard error is an object, each note's text as above.
    let json = sprague_in(
        dir,
        &["run", "--json", "--resume", "t", "--save", "t", &file],
    );
    assert!(json.status.success(), "{}", text(&json.stderr));
    let notes: Vec<String> = text(&json.stderr)
        .lines()
        .map(|line| {
            let note: serde_json::Value = serde_json::from_str(line).unwrap();
            note["note"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(
        notes,
        [
            format!("resumed {count} values of `Cram` from t"),
            format!("saved {count} values to t"),
        ]
    );
}

/// Each refusal names the file and why, and no query is asked.
#[test]
fn a_table_cut_short_altered_or_foreign_is_refused_before_any_query() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let file = cram_file(dir, "cram.game", "grundy Cram(Grid(4, 5))\n");
    assert!(
        sprague_in(dir, &["run", "--save", "t", &file])
            .status
            .success()
    );
    let table = std::fs::read(dir.join("t")).unwrap();
    let refused = |bytes: &[u8], expected: &str| {
        std::fs::write(dir.join("bad"), bytes).unwrap();
        let output = sprague_in(dir, &["run", "--resume", "bad", &file]);
        let said = text(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{said}");
        assert!(output.stdout.is_empty(), "{}", text(&output.stdout));
        assert!(said.contains("`bad`") && said.contains(expected), "{said}");
        assert!(said.contains("help:"), "{said}");
    };
    refused(&table[..table.len() / 2], "cut short");
    refused(&table[..table.len() - 1], "cut short");
    let mut flipped = table.clone();
    flipped[table.len() / 2] ^= 0x10;
    refused(&flipped, "altered or damaged");
    // A bit of the length the header gives (bytes 20 to 27), flipped: the
    // file is whole, and its checksum says so (it was said cut short).
    for bit in [0, 13, 40] {
        let mut length = table.clone();
        length[20 + bit / 8] ^= 1 << (bit % 8);
        let whole = table.len() - 32;
        refused(&length, &format!("checksum say {whole}"));
    }
    refused(
        &std::fs::read(dir.join(&file)).unwrap(),
        "not a table saved by sprague",
    );
    refused(b"", "cut short after 0 bytes");
    let mut newer = table.clone();
    newer[16] = 3;
    refused(&newer, "format 3; this sprague reads formats 1 to 2");
    // Saved for Cram, asked for Node Kayles.
    let other = dir.join("other.game");
    std::fs::write(
        &other,
        format!("{NODE_KAYLES}grundy NodeKayles(Grid(3, 3))\n"),
    )
    .unwrap();
    let output = sprague_in(dir, &["run", "--resume", "t", "other.game"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    assert!(text(&output.stderr).contains("`Cram`, which no source declares"));
    // A stream that is no table is refused by its first bytes: it was read
    // whole first, a gigabyte of /dev/zero before "out of memory" under an
    // address space of 3 GB (1 GB of it the evaluator's stack, reserved).
    let mut command = Command::new(env!("CARGO_BIN_EXE_sprague"));
    command
        .args(["run", "--resume", "/dev/zero", &file])
        .current_dir(dir);
    common::cap_child(&mut command, common::Cap::AddressSpace(3_000_000_000));
    let output = command.output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("not a table saved by sprague"));
    // A missing file is a usage error (exit 2), as a missing source is.
    let output = sprague_in(dir, &["run", "--resume", "missing", &file]);
    assert!(text(&output.stderr).contains("cannot read the table `missing`"));
    assert_eq!(output.status.code(), Some(2));
}

/// A table that cannot be written is said so, the answers printed.
#[test]
fn a_table_that_cannot_be_written_fails_the_run_before_its_queries() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let file = cram_file(dir, "cram.game", "grundy Cram(Grid(1, 2))\n");
    for path in ["no/such/folder/t", "."] {
        let output = sprague_in(dir, &["run", "--save", path, &file]);
        // A usage error, as a missing file is.
        assert_eq!(output.status.code(), Some(2));
        // No query is asked: a long search would end unsaved.
        assert_eq!(text(&output.stdout), "");
        let said = text(&output.stderr);
        assert!(
            said.contains(&format!("cannot save the table to `{path}`")),
            "{said}"
        );
    }
    assert!(!dir.join("no").exists());
    // Nothing is left behind by the check.
    let names: Vec<_> = std::fs::read_dir(dir).unwrap().collect();
    assert_eq!(names.len(), 1);
}

/// Killed while it writes the table (its file size capped, so the system
/// kills it with SIGXFSZ partway through), a run leaves the table saved
/// before it byte for byte.
#[test]
fn a_run_killed_while_writing_leaves_the_last_table_whole() {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let small = cram_file(dir, "small.game", "grundy Cram(Grid(2, 4))\n");
    assert!(
        sprague_in(dir, &["run", "--save", "t", &small])
            .status
            .success()
    );
    let before = std::fs::read(dir.join("t")).unwrap();
    let large = cram_file(dir, "large.game", "grundy Cram(Grid(4, 5))\n");
    let cap = (before.len() + 4096) as u64;
    let mut command = Command::new(env!("CARGO_BIN_EXE_sprague"));
    // On one thread: on two, the values the session's engine keeps depend
    // on which thread answers first (359 of 1,444 in one CI run, a table
    // too small to reach the cap).
    command
        .args(["run", "--threads", "1", "--save", "t", &large])
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    common::cap_child(&mut command, common::Cap::FileSize(cap));
    let output = command.output().unwrap();
    // Answered before the table is written (4 × 5 is 2, by search: an
    // even × even board would be proved 0 by the mirror strategy, with
    // too few values kept to pass the cap).
    assert_eq!(text(&output.stdout), "grundy Cram(Grid(4, 5)) = 2\n");
    assert_eq!(output.status.signal(), Some(libc::SIGXFSZ), "{output:?}");
    assert_eq!(std::fs::read(dir.join("t")).unwrap(), before);
    let resumed = sprague_in(dir, &["run", "--resume", "t", &small]);
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
}

/// A search long enough to be stopped midway: Cram on 4 × 9, some seconds.
fn long_run(dir: &Path, args: &[&str]) -> std::process::Child {
    let file = cram_file(dir, "long.game", "grundy Cram(Grid(4, 11))\n");
    Command::new(env!("CARGO_BIN_EXE_sprague"))
        .arg("run")
        .args(args)
        .arg(file)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// After a run stopped midway, the table it left is taken in, and a board
/// of value 0 by the symmetry strategy is answered 0 with it.
fn check_left_table(dir: &Path) {
    let file = cram_file(dir, "check.game", "grundy Cram(Grid(4, 4))\n");
    let output = sprague_in(dir, &["run", "--resume", "t", &file]);
    let said = text(&output.stderr);
    assert!(output.status.success(), "{said}");
    assert_eq!(text(&output.stdout), "grundy Cram(Grid(4, 4)) = 0\n");
    assert!(
        said.starts_with("resumed ") && !said.starts_with("resumed 0 "),
        "{said}"
    );
}

/// During a long search the table is saved now and then: killed outright
/// (SIGKILL) after one is, the run leaves it whole.
#[test]
fn a_run_killed_during_a_long_search_leaves_a_table_saved_during_it() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let mut child = long_run(dir, &["--save", "t", "--save-every", "1"]);
    let started = Instant::now();
    while !dir.join("t").exists() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the search ended before a table was saved during it"
        );
        assert!(started.elapsed() < Duration::from_secs(120));
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    child.kill().unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.stdout.is_empty(), "the search finished first");
    check_left_table(dir);
}

/// Ctrl-C stops the search, and the values it found are saved.
#[test]
fn ctrl_c_stops_a_long_search_and_saves_its_values() {
    stopped_by_a_signal_saves(libc::SIGINT, 1);
}

/// A batch system's or `timeout`'s SIGTERM (and a closed terminal's
/// SIGHUP) stops the search as Ctrl-C does, and the values are saved.
#[test]
fn sigterm_stops_a_long_search_and_saves_its_values() {
    stopped_by_a_signal_saves(libc::SIGTERM, 1);
}

/// `timeout` signals the program, then its process group: the program
/// twice at once. Signals sent together are one stop, and the values are
/// saved (heard as a second stop, the pair had ended the run at once, in
/// three runs of six, with nothing saved).
#[test]
fn signals_sent_together_are_one_stop_and_the_values_are_saved() {
    stopped_by_a_signal_saves(libc::SIGINT, 2);
    stopped_by_a_signal_saves(libc::SIGTERM, 3);
}

/// Sends `signal` `times` times at once to a long search saving to a table.
fn stopped_by_a_signal_saves(signal: libc::c_int, times: usize) {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let child = long_run(dir, &["--save", "t"]);
    std::thread::sleep(Duration::from_millis(1500));
    for time in 0..times {
        // Sent back to back, the same signal may be delivered once: a
        // millisecond apart, each is heard.
        if time > 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
        // SAFETY: the pid is our child's, not yet waited for.
        unsafe { libc::kill(child.id() as libc::pid_t, signal) };
    }
    let output = child.wait_with_output().unwrap();
    let said = text(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{said}");
    assert!(output.stdout.is_empty(), "the search finished first");
    assert!(
        said.contains("interrupted") && said.contains("saved "),
        "{said}"
    );
    check_left_table(dir);
}

/// A table resumed within limits smaller than it leaves the search room to
/// go on: within `--max-states` of half its values, or a table bound of
/// 16 KB, Cram on 4 × 7 is answered as by the run that saved it (the
/// resumed values filled the limit of states, and the search stopped at
/// it instead of forgetting), and the bound holds.
#[test]
fn a_table_resumed_within_smaller_limits_leaves_the_search_room() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t");
    let source = format!("{CRAM}grundy Cram(Grid(4, 7))\n");
    let mut first = session();
    first.save_to(&path, Duration::from_secs(3600));
    let fresh = run_in(&mut first, &source);
    assert!(fresh.errors.is_empty(), "{fresh:?}");
    let saved = written(first.save().unwrap());
    assert!(saved > 1_000, "only {saved} values");
    let mut few_states = Session::new(saved / 2);
    few_states.set_method(Method::Search);
    let taken = few_states.resume(&path, &sources(&source)).unwrap();
    assert_eq!(taken, saved);
    let heard = run_in(&mut few_states, &source);
    assert!(heard.errors.is_empty(), "{heard:?}");
    assert_eq!(heard.values, fresh.values);
    let room = saved / 2 - (saved / 2).div_ceil(16);
    assert!(
        heard
            .notes
            .iter()
            .any(|note| note.contains(&format!("resumed {room} of the {saved} values"))),
        "{heard:?}"
    );
    let mut few_bytes = session();
    few_bytes.set_max_table(16 << 10);
    few_bytes.resume(&path, &sources(&source)).unwrap();
    let heard = run_in(&mut few_bytes, &source);
    assert!(heard.errors.is_empty(), "{heard:?}");
    assert_eq!(heard.values, fresh.values);
    let (_, peak) = few_bytes.table_bytes();
    assert!(peak <= 16 << 10, "the table held {peak} bytes");
}

/// Saves the values of Cram on 4 × 7, found by search, to `t` in `dir`;
/// returns the table's bytes.
fn saved_cram_4_by_7(dir: &Path) -> Vec<u8> {
    let big = cram_file(dir, "big.game", "grundy Cram(Grid(4, 7))\n");
    let first = sprague_in(dir, &["run", "--method", "search", "--save", "t", &big]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    std::fs::read(dir.join("t")).unwrap()
}

/// The checkpoints of a long search never replace a table by one of fewer
/// values either: resumed in part (within `--max-states 300`) and saved
/// back every instant (`--save-every 0`) during a search that forgets and
/// finds values again and again, the file stays as it was (the
/// checkpoints wrote their few values over it). A run that found no value
/// leaves a file as it was too.
#[test]
fn checkpoints_and_empty_runs_keep_a_larger_table() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let before = saved_cram_4_by_7(dir);
    let other = cram_file(dir, "other.game", "grundy Cram(Grid(5, 6))\n");
    let args = ["run", "--method", "search", "--max-states", "300"];
    let tables = ["--resume", "t", "--save", "t", "--save-every", "0", &other];
    let part = sprague_in(dir, &[&args[..], &tables[..]].concat());
    let said = text(&part.stderr);
    assert!(part.status.success(), "{said}");
    assert!(said.contains("kept t as it was"), "{said}");
    assert_eq!(std::fs::read(dir.join("t")).unwrap(), before);
    let failing = cram_file(dir, "failing.game", "grundy Cram(Grid(4, 7)) + Nope(3)\n");
    let empty = sprague_in(dir, &["run", "--save", "t", &failing]);
    let said = text(&empty.stderr);
    assert!(!empty.status.success(), "{said}");
    assert!(
        said.contains("kept t as it was: this run found no value"),
        "{said}"
    );
    assert_eq!(std::fs::read(dir.join("t")).unwrap(), before);
}

/// A table is never replaced by one of fewer values: resumed in part
/// (within `--max-states`) and saved, the file stays as it was, and the
/// run says so. A `--save-every` of any size is taken (a century or more
/// is never).
#[test]
fn a_table_is_not_replaced_by_one_of_fewer_values() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let before = saved_cram_4_by_7(dir);
    let small = cram_file(dir, "small.game", "grundy Cram(Grid(1, 2))\n");
    let args = [
        "run",
        "--max-states",
        "100",
        "--resume",
        "t",
        "--save",
        "t",
        &small,
    ];
    let part = sprague_in(dir, &args);
    let said = text(&part.stderr);
    // A sixteenth of the limit is kept free for the search: 100 - 7.
    assert!(said.contains("resumed 93 of the "), "{said}");
    assert!(said.contains("kept t as it was"), "{said}");
    assert_eq!(std::fs::read(dir.join("t")).unwrap(), before);
    // The whole table resumed and saved again is written (as many values).
    let args = ["run", "--resume", "t", "--save", "t", "--save-every"];
    let whole = sprague_in(
        dir,
        &[&args[..], &["18446744073709551615", &small]].concat(),
    );
    let said = text(&whole.stderr);
    assert!(whole.status.success(), "{said}");
    assert!(
        said.contains("saved ") && !said.contains("panicked"),
        "{said}"
    );
}

/// Under a limit of work too small for the search to value any region of
/// Cram 4 × 9, the error says that asking again ends the same way, and a
/// table saved then holds no value.
#[test]
fn a_search_that_kept_nothing_says_asking_again_ends_the_same_way() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("table");
    let mut run = session();
    run.set_max_work(1_000);
    run.save_to(&path, Duration::from_secs(3600));
    let heard = run_in(&mut run, &format!("{CRAM}grundy Cram(Grid(4, 9))\n"));
    let [error] = heard.errors.as_slice() else {
        panic!("{heard:?}");
    };
    let said = plain(error);
    assert!(said.contains("too_much_work"), "{said}");
    assert!(
        said.contains("the search kept no new value before the limit")
            && said.contains("ends the same way"),
        "{said}"
    );
    assert!(
        !matches!(run.save().unwrap(), Saved::Written(count) if count > 0),
        "a table of values saved"
    );
}

/// A run stopped before its first query is asked (Ctrl-C while a large
/// table is taken in) says so, where it said nothing and answered nothing.
#[test]
fn a_run_stopped_before_its_queries_says_so() {
    let mut stopped = session();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(true));
    stopped.set_stop(Some(stop));
    let heard = run_in(&mut stopped, &format!("{CRAM}grundy Cram(Grid(2, 2))\n"));
    assert!(heard.values.is_empty(), "{heard:?}");
    let said = "stopped before the queries of test.game were asked";
    assert!(
        heard.notes.iter().any(|note| note.starts_with(said)),
        "{heard:?}"
    );
}

/// A search stopped by the work limit keeps what it found, and its error
/// says how much: as many values as a table saved then holds beyond the
/// one resumed. A round that found none says that asking again under the
/// same limit ends the same way. Round after round under a small limit,
/// Cram 4 × 9 either gets its value (1, as Beling's table has it) or
/// comes to such a round.
#[test]
fn a_search_stopped_by_the_work_limit_says_what_it_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("table");
    let source = format!("{CRAM}grundy Cram(Grid(4, 9))\n");
    let mut before = 0;
    for round in 0..40 {
        let mut run = session();
        run.set_max_work(50_000);
        if round > 0 {
            assert_eq!(run.resume(&path, &sources(&source)).unwrap(), before);
        }
        run.save_to(&path, Duration::from_secs(3600));
        let heard = run_in(&mut run, &source);
        if heard.values == [1] {
            return;
        }
        let [error] = heard.errors.as_slice() else {
            panic!("round {round}: {heard:?}");
        };
        let said = plain(error);
        assert!(said.contains("too_much_work"), "{said}");
        let saved = match run.save().unwrap() {
            Saved::Written(count) => count,
            _ => before,
        };
        if said.contains("the search kept no new value before the limit") {
            assert!(said.contains("ends the same way"), "{said}");
            assert_eq!(saved, before, "round {round}");
            return;
        }
        // "the 1 value it found is kept", "the 1,204 values it found are kept".
        let found: usize = [" value it found is kept", " values it found are kept"]
            .iter()
            .find_map(|kept| said.split_once(kept))
            .and_then(|(head, _)| head.rsplit(' ').next())
            .and_then(|count| count.replace(',', "").parse().ok())
            .unwrap_or_else(|| panic!("round {round}: {said}"));
        assert_eq!(found, saved - before, "round {round}: {said}");
        before = saved;
    }
    panic!("forty rounds neither answered nor stopped finding values");
}

/// A table resumed keeps the values its search ruled out as well as its
/// values: saved again at once, it is the table it was. The notes come in
/// the order of the saving cache's sets, and piled into a few sets of the
/// small cache that takes them in, which did not grow while less than
/// half full: a 5 × 7 table of 273,444 notes kept 156.
#[test]
fn a_table_resumed_and_saved_again_keeps_its_ruled_out_values() {
    let dir = tempfile::tempdir().unwrap();
    let (first, again) = (dir.path().join("first"), dir.path().join("again"));
    let game = dir.path().join("cram.game");
    std::fs::write(&game, CRAM).unwrap();
    let run = |args: &[&str], queries: &str| {
        let output = Command::new(env!("CARGO_BIN_EXE_sprague"))
            .args(["run", "--method", "search", "--threads", "1"])
            .args(args)
            .args([game.to_str().unwrap(), "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write;
                child.stdin.take().unwrap().write_all(queries.as_bytes())?;
                child.wait_with_output()
            })
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    run(
        &["--save", first.to_str().unwrap()],
        "grundy Cram(Grid(4, 7))\n",
    );
    let resumed = [
        "--resume",
        first.to_str().unwrap(),
        "--save",
        again.to_str().unwrap(),
    ];
    run(&resumed, "grundy *1\n");
    let size = |path: &Path| std::fs::metadata(path).unwrap().len();
    assert_eq!(size(&again), size(&first));
}
