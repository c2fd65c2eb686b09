//! The `sprague` command as a user runs it: output shapes, exit codes,
//! standard input, and inputs that must not crash it.

mod common;

use std::process::Output;

use common::sprague;

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

const NIM: &str = "game Nim(n) { move Nim(n - k) for k in 1..=n }\n";

#[test]
fn json_lines_keep_their_documented_shapes() {
    let source = format!(
        "{NIM}let heaps = Nim(3) + Nim(4) + Nim(5)
grundy heaps
wins? heaps
best_move heaps
best_move Nim(2) + *2
grundy Nim(n) for n in 5..=5
moves Nim(1) + *1
wins? misere *1 + *1
best_move misere *2 + *2
genus *0"
    );
    let output = sprague(&["run", "--json", "-"], &source);
    assert!(output.status.success(), "{}", stderr(&output));
    let expected = [
        r#"{"query":"grundy","position":"Nim(3) + Nim(4) + Nim(5)","value":2}"#,
        r#"{"query":"wins?","position":"Nim(3) + Nim(4) + Nim(5)","value":true,"play":"normal"}"#,
        r#"{"query":"best_move","position":"Nim(3) + Nim(4) + Nim(5)","move":{"from":"Nim(3)","to":"Nim(1)"},"result":"Nim(1) + Nim(4) + Nim(5)","play":"normal"}"#,
        r#"{"query":"best_move","position":"Nim(2) + *2","move":null,"result":null,"play":"normal"}"#,
        r#"{"query":"grundy","position":"Nim(5)","value":5,"bindings":{"n":5}}"#,
        concat!(
            r#"{"query":"moves","position":"Nim(1) + *1","options":["#,
            r#"{"move":{"from":"Nim(1)","to":"Nim(0)"},"result":"Nim(0) + *1","grundy":1,"winning":false},"#,
            r#"{"move":{"from":"*1","to":"*0"},"result":"Nim(1) + *0","grundy":1,"winning":false}],"play":"normal"}"#
        ),
        r#"{"query":"wins?","position":"*1 + *1","value":true,"play":"misere"}"#,
        r#"{"query":"best_move","position":"*2 + *2","move":null,"result":null,"play":"misere"}"#,
        r#"{"query":"genus","position":"*0","value":"0^120","grundy":0,"misere":[1,2,0]}"#,
    ];
    assert_eq!(stdout(&output).lines().collect::<Vec<_>>(), expected);
}

#[test]
fn a_failing_query_is_reported_and_the_run_goes_on() {
    let source = format!("{NIM}grundy *(1 / 0)\ngrundy Nim(2)\n");
    let output = sprague(&["run", "-"], &source);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stdout(&output), "grundy Nim(2) = 2\n");
    assert!(
        stderr(&output).contains("division by zero"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn errors_in_json_mode_are_miette_json_reports() {
    let output = sprague(&["run", "--json", "-"], "grundy *(1 / 0)\ngrundy Nope(1)\n");
    assert_eq!(output.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_str(stderr(&output).trim()).unwrap();
    assert_eq!(report["code"], "sprague::check::unknown_game");
    assert_eq!(report["labels"][0]["span"]["offset"], 23);
}

#[test]
fn checking_errors_stop_evaluation() {
    let output = sprague(&["run", "-"], "grundy *1\ngrundy Nope(1)\ngrundy Nope(2)\n");
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "",
        "nothing is evaluated when checking fails"
    );
    assert!(
        stderr(&output).contains("2 errors found while checking"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn check_parses_and_checks_without_evaluating() {
    let loopy = "game T(n) { move T(n + 1) }\ngrundy T(0)\n";
    let output = sprague(&["check", "-"], loopy);
    assert!(output.status.success(), "{}", stderr(&output));
    // One line says so; the runaway query is not evaluated.
    assert_eq!(
        stdout(&output),
        "<stdin>: ok, 1 game, 0 graphs, 0 lets and 1 query\n"
    );
    assert_eq!(
        sprague(&["check", "-"], "grundy T(0)").status.code(),
        Some(1)
    );
}

#[test]
fn usage_errors_exit_with_2() {
    assert_eq!(
        sprague(&["run"], "").status.code(),
        Some(2),
        "run needs a file"
    );
    assert_eq!(sprague(&["frobnicate"], "").status.code(), Some(2));
    assert_eq!(sprague(&["run", "--bogus", "-"], "").status.code(), Some(2));
    let missing = sprague(&["run", "no/such/file.game"], "");
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).contains("cannot read `no/such/file.game`"));
}

/// With `--json` every line on standard error is JSON, one report or
/// note a line: a refused table's error (whose report shows no source)
/// ends its line, and the note that lowers `--threads` is JSON too.
#[test]
fn with_json_every_line_on_standard_error_is_json() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let table = dir.path().join("bad.table");
    std::fs::write(&table, b"not a table").expect("written");
    let table = table.to_str().expect("a path");
    let runs = [
        sprague(&["run", "--json", "--resume", table, "-"], "grundy *1\n"),
        sprague(
            &["run", "--json", "--threads", "1000", "-"],
            "grundy *1\ngrundy Nope(1)\n",
        ),
    ];
    for output in runs {
        let stderr = stderr(&output);
        assert!(stderr.ends_with('\n'), "{stderr:?}");
        for line in stderr.lines() {
            let parsed: Result<serde_json::Value, _> = serde_json::from_str(line);
            assert!(parsed.is_ok(), "not JSON: {line:?} in {stderr:?}");
        }
    }
}

/// A limit of 0 allows nothing, and the help that would raise it tenfold
/// or double it would name 0 again: it is refused as the flag is read.
#[test]
fn a_limit_of_zero_is_refused_as_a_usage_error() {
    for flag in [
        "--max-states",
        "--max-work",
        "--max-search",
        "--max-draw",
        "--max-rows",
    ] {
        let refused = sprague(&["run", flag, "0", "-"], "grundy *1\n");
        assert_eq!(
            refused.status.code(),
            Some(2),
            "{flag}: {}",
            stderr(&refused)
        );
        assert!(
            stderr(&refused).contains("allows nothing"),
            "{flag}: {}",
            stderr(&refused)
        );
        let allowed = sprague(&["run", flag, "1", "-"], "grundy *1\n");
        assert_eq!(
            allowed.status.code(),
            Some(0),
            "{flag}: {}",
            stderr(&allowed)
        );
    }
}

#[test]
fn the_state_limit_is_a_flag() {
    let source = "game Chain(n) { move Chain(n - 1) if n > 0 }\ngrundy Chain(2000)\n";
    let limited = sprague(&["run", "--max-states", "1000", "-"], source);
    assert_eq!(limited.status.code(), Some(1));
    assert!(
        stderr(&limited).contains("stopped at the limit of 1,000 distinct positions"),
        "{}",
        stderr(&limited)
    );
    let raised = sprague(&["run", "--max-states", "3000", "-"], source);
    assert_eq!(stdout(&raised), "grundy Chain(2000) = 0\n");
}

/// A code's table holds as many heaps as the state limit allows: past it, a
/// heap is refused at once, as a search would be; within it, the table
/// agrees with the same game written as rules.
#[test]
fn code_tables_keep_to_the_state_limit() {
    let source = "game G = octal \"4!.0\"
game R(n) { move R(a) + R(n - a) for a in 1..=(n - 1) / 2 }
grundy G(3000)
grundy R(3000)
";
    let limited = sprague(&["run", "--max-states", "2000", "-"], source);
    assert_eq!(limited.status.code(), Some(1));
    let errors = stderr(&limited);
    assert!(
        errors.contains("stopped at the limit of 2,000 distinct positions")
            && errors.contains("while expanding G(3000)"),
        "{errors}"
    );
    let raised = sprague(&["run", "--max-states", "5000", "-"], source);
    assert!(raised.status.success(), "{}", stderr(&raised));
    let values: Vec<String> = stdout(&raised)
        .lines()
        .map(|line| line.split(" = ").nth(1).unwrap_or_default().to_owned())
        .collect();
    assert_eq!(values.len(), 2, "{}", stdout(&raised));
    assert_eq!(values[0], values[1], "{}", stdout(&raised));
}

#[test]
fn printed_positions_parse_back_to_themselves() {
    let declarations = "game G(a, b) { }\ngraph Line { 0 -> 1 }\ngame Solo { }\n";
    let source = format!(
        "{declarations}grundy G(-5, 9223372036854775807) + *0 + Line.0 + Solo\ngrundy G(-9223372036854775807 - 1, 0)\n"
    );
    let first = stdout(&sprague(&["run", "-"], &source));
    let positions: Vec<&str> = first
        .lines()
        .map(|line| {
            line.strip_prefix("grundy ")
                .unwrap()
                .rsplit_once(" = ")
                .unwrap()
                .0
        })
        .collect();
    assert_eq!(
        positions[0],
        "G(-5, 9223372036854775807) + *0 + Line.0 + Solo"
    );
    let again: String = positions
        .iter()
        .map(|position| format!("grundy {position}\n"))
        .collect();
    let second = stdout(&sprague(&["run", "-"], &format!("{declarations}{again}")));
    assert_eq!(first, second);
}

#[test]
fn a_chain_of_a_million_positions() {
    let output = sprague(
        &["run", "-"],
        "game Chain(n) { move Chain(n - 1) if n > 0 }\ngrundy Chain(1000000)\n",
    );
    assert_eq!(
        stdout(&output),
        "grundy Chain(1000000) = 0\n",
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_path_graph_of_a_million_nodes() {
    let mut source = String::from("graph Path {\n");
    for node in 0..1_000_000 {
        source += &format!("{node} -> {}\n", node + 1);
    }
    source += "}\ngrundy Path.0 + Path.1\n";
    // 16 MB of source, past the default limit of 8 MiB.
    let output = sprague(&["run", "--max-source", "20000000", "-"], &source);
    assert_eq!(
        stdout(&output),
        "grundy Path.0 + Path.1 = 1\n",
        "{}",
        stderr(&output)
    );
}

#[test]
fn deeply_nested_expressions() {
    let depth = 5000;
    let nested = format!("grundy *({}7{})\n", "(".repeat(depth), ")".repeat(depth));
    let chain = format!("grundy *({}7)\n", "1 - 1 + ".repeat(depth / 2));
    let output = sprague(&["run", "-"], &(nested + &chain));
    assert_eq!(
        stdout(&output),
        "grundy *7 = 7\ngrundy *7 = 7\n",
        "{}",
        stderr(&output)
    );
    let too_deep = format!(
        "grundy *({}7{})\n",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    let output = sprague(&["run", "-"], &too_deep);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("nests too deeply"));
}

#[test]
fn moves_are_numbered_with_their_values() {
    let output = sprague(&["run", "-"], "moves *3 + *1\nmoves *0\n");
    let expected = "moves *3 + *1 = 4 moves
  1. *3 -> *0, leaving *0 + *1: grundy 1
  2. *3 -> *1, leaving *1 + *1: grundy 0, winning
  3. *3 -> *2, leaving *2 + *1: grundy 3
  4. *1 -> *0, leaving *3 + *0: grundy 3
moves *0 = no moves: the player to move loses
";
    assert_eq!(stdout(&output), expected);
}

#[test]
fn the_search_limit_is_a_flag() {
    let source = "crosscheck *30 + *30 + *30\n";
    let limited = sprague(&["run", "--max-search", "1000", "-"], source);
    assert_eq!(limited.status.code(), Some(1));
    assert!(
        stderr(&limited).contains("at least 29,791 positions"),
        "{}",
        stderr(&limited)
    );
    let raised = sprague(&["run", "--max-search", "40000", "-"], source);
    assert!(
        stdout(&raised).starts_with("crosscheck *30 + *30 + *30 = agree"),
        "{}",
        stderr(&raised)
    );
}

#[test]
fn diff_compares_the_games_of_two_files() {
    let variants = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/variants/");
    let output = sprague(
        &[
            "diff",
            &format!("{variants}sub123.game"),
            &format!("{variants}sub124.game"),
            "--range",
            "0..=11",
            "--json",
        ],
        "",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let report: serde_json::Value = serde_json::from_str(stdout(&output).trim()).unwrap();
    // S(1,2,3) has n mod 4, S(1,2,4) has n mod 3: they differ where those
    // differ, and the outcome flips where exactly one of them is 0.
    let differ: Vec<i64> = (0..=11).filter(|n| n % 4 != n % 3).collect();
    let flips = (0..=11).filter(|n| (n % 4 == 0) != (n % 3 == 0)).count();
    assert_eq!(report["positions"], 12);
    assert_eq!(report["differ"], differ.len());
    assert_eq!(report["flips"], flips);
    assert_eq!(report["first"]["n"], differ[0]);
}

#[test]
fn a_value_from_a_proven_period_says_so() {
    let output = sprague(
        &["run", "--json", "-"],
        "game K = octal \"0.77\"\nperiod K\ngrundy K(1000000000000000000)\n",
    );
    let printed = stdout(&output);
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(
        lines[0],
        r#"{"query":"period","game":"K","period":12,"preperiod":71,"saltus":0,"proven":true,"checked_to":156}"#
    );
    assert!(lines[1].ends_with(r#","by":"period"}"#), "{}", lines[1]);
}

#[test]
fn help_describes_every_argument_and_says_that_plain_sprague_opens_the_repl() {
    let help = stdout(&sprague(&["--help"], ""));
    assert!(
        help.contains("With no command, `sprague` opens the REPL"),
        "{help}"
    );
    let command = <sprague::cli::Cli as clap::CommandFactory>::command();
    for subcommand in command.get_subcommands() {
        for arg in subcommand.get_arguments() {
            if ["help", "version"].contains(&arg.get_id().as_str()) {
                continue;
            }
            assert!(
                arg.get_help().is_some(),
                "`sprague {}` has no description of <{}>",
                subcommand.get_name(),
                arg.get_id()
            );
        }
    }
    let version = stdout(&sprague(&["--version"], ""));
    assert_eq!(
        version.trim(),
        format!("sprague {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn completions_and_the_manual_page() {
    for (shell, mark) in [
        ("bash", "_sprague()"),
        ("zsh", "#compdef sprague"),
        ("fish", "complete -c sprague"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let output = sprague(&["completions", shell], "");
        assert!(output.status.success(), "{shell}");
        let script = stdout(&output);
        assert!(script.contains(mark), "{shell}: {script}");
        // Subcommands are completed.
        assert!(
            script.contains("certify") && script.contains("verify"),
            "{shell}"
        );
    }
    let output = sprague(&["completions", "tcsh"], "");
    assert_eq!(output.status.code(), Some(2));
    let manual = stdout(&sprague(&["man"], ""));
    assert!(manual.starts_with(".ie"), "{manual}");
    assert!(manual.contains(".TH sprague 1"), "{manual}");
    assert!(manual.contains("certify"), "{manual}");
}

/// `--threads` fills a code's table on that many threads, with the same
/// values: Grundy's game against OEIS A002188, and its largest value below
/// 2^21, 231 at heap 763,622 (tczajka/octal-games), past which the table
/// is extended in batches on several threads.
#[test]
fn threads_fill_tables_with_the_published_values() {
    let expected: Vec<i64> = common::table("tests/data/grundys_game.txt")
        .into_iter()
        .map(|row| row[1])
        .collect();
    let source = "game G = octal \"4!.0\"\ngrundy G(763622)\ngrundy G(n) for n in 0..=104\n";
    for threads in ["1", "3"] {
        let output = sprague(&["run", "--json", "--threads", threads, "-"], source);
        assert!(output.status.success(), "{}", stderr(&output));
        let lines: Vec<serde_json::Value> = stdout(&output)
            .lines()
            .map(|line| serde_json::from_str(line).expect("a JSON line"))
            .collect();
        assert_eq!(lines[0]["value"], 231, "{threads} threads");
        let values: Vec<i64> = lines[1..]
            .iter()
            .map(|line| line["value"].as_i64().expect("a value"))
            .collect();
        assert_eq!(values, expected, "{threads} threads");
    }
    let output = sprague(&["run", "--threads", "0", "-"], source);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("--threads"), "{}", stderr(&output));
}

/// `--threads` above the machine's cores is lowered to them with a note
/// (a thousand threads only wait for each other, and their stacks and
/// allocation arenas take gigabytes of address space); the answers stay.
#[test]
fn threads_past_the_cores_are_lowered_with_a_note() {
    let cores = std::thread::available_parallelism().map_or(1, |cores| cores.get());
    let source = "game G = octal \"4!.0\"\ngrundy G(763622)\n";
    let output = sprague(&["run", "--threads", "1000", "-"], source);
    assert!(output.status.success(), "{}", stderr(&output));
    // Grundy's game's largest value below 2^21 (see above).
    assert_eq!(stdout(&output).trim(), "grundy G(763622) = 231");
    let note = stderr(&output);
    assert!(
        note.contains("--threads 1000") && note.contains(&format!("using {cores}")),
        "{note}"
    );
    let output = sprague(&["run", "--threads", &cores.to_string(), "-"], source);
    assert_eq!(stderr(&output), "");
}

/// `moves` of a sum of many parts names the part each move changes
/// instead of repeating the whole sum on every line, in text and JSON: the
/// answer grows as the sum, not as its square.
#[test]
fn the_moves_of_a_long_sum_name_the_part_moved() {
    let parts = 2000;
    let mut heaps = vec!["*1"; parts];
    heaps[6] = "*2";
    let source = format!("moves {}\n", heaps.join(" + "));
    let output = sprague(&["run", "-"], &source);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.len() < 100 * parts, "{} bytes", text.len());
    let lines: Vec<&str> = text.lines().collect();
    // A heap of one has one move, of two two; the sum's value is 1 ^ 2 = 3,
    // and *2 -> *1 leaves XOR 0.
    assert!(lines[0].ends_with("= 2001 moves: each changes the part named, the others stay"));
    assert_eq!(lines.len(), 1 + parts + 1);
    assert!(
        lines.contains(&"  8. part 7: *2 -> *1: grundy 0, winning"),
        "{}",
        lines[..10].join("\n")
    );
    assert!(
        lines.contains(&"  1. part 1: *1 -> *0: grundy 2"),
        "{}",
        lines[..3].join("\n")
    );
    let output = sprague(&["run", "--json", "-"], &source);
    let json = stdout(&output);
    assert!(json.len() < 200 * parts, "{} bytes", json.len());
    let answer: serde_json::Value = serde_json::from_str(json.trim()).unwrap();
    let options = answer["options"].as_array().unwrap();
    assert_eq!(options.len(), parts + 1);
    assert_eq!(
        options[7]["move"],
        serde_json::json!({"from": "*2", "to": "*1", "part": 7})
    );
    assert_eq!(options[7]["result"], serde_json::Value::Null);
    assert_eq!(options[7]["winning"], true);
    // A short sum still shows what each move leaves.
    let output = sprague(&["run", "-"], "moves *1 + *2\n");
    assert!(
        stdout(&output).contains("  1. *1 -> *0, leaving *0 + *2: grundy 2"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn check_reads_each_file_on_its_own_and_reports_every_error() {
    // The examples each declare their own games (several a `Kayles`): as
    // one session, the second declaration of a name would be refused.
    let mut examples: Vec<String> = std::fs::read_dir("examples")
        .unwrap()
        .map(|entry| entry.unwrap().path().display().to_string())
        .filter(|path| path.ends_with(".game"))
        .collect();
    examples.sort();
    assert!(examples.len() > 10, "{examples:?}");
    let mut args = vec!["check"];
    args.extend(examples.iter().map(String::as_str));
    let output = sprague(&args, "");
    assert!(output.status.success(), "{}", stderr(&output));
    let lines: Vec<String> = stdout(&output).lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), examples.len(), "{lines:?}");
    for (line, example) in lines.iter().zip(&examples) {
        assert!(line.starts_with(&format!("{example}: ok, ")), "{line}");
    }

    // Two bad files among good ones: both errors are reported, the good
    // files after them are still checked, and the exit code says so.
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let first = file("a.game", NIM);
    let unknown = file("b.game", "grundy Nope(1)\n");
    let again = file("c.game", NIM);
    let unparsable = file("d.game", "grundy (\n");
    let missing = dir.path().join("missing.game").display().to_string();
    let output = sprague(&["check", &first, &unknown, &again, &unparsable], "");
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        format!(
            "{first}: ok, 1 game, 0 graphs, 0 lets and 0 queries\n\
             {again}: ok, 1 game, 0 graphs, 0 lets and 0 queries\n"
        )
    );
    let errors = stderr(&output);
    assert!(errors.contains("sprague::check::unknown_game"), "{errors}");
    assert!(errors.contains("d.game"), "{errors}");
    // A path that cannot be read is a usage error, and the rest are checked.
    let output = sprague(&["check", &missing, &first], "");
    assert_eq!(output.status.code(), Some(2));
    assert!(stdout(&output).starts_with(&first), "{}", stdout(&output));
}

#[test]
fn diff_prints_a_summary_and_the_first_rows_unless_all_are_asked() {
    let variants = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/variants/");
    let (old, new) = (
        format!("{variants}sub123.game"),
        format!("{variants}sub124.game"),
    );
    // S(1,2,3) has n mod 4, S(1,2,4) has n mod 3.
    let differ: Vec<i64> = (0..=100).filter(|n| n % 4 != n % 3).collect();
    let flips = (0..=100).filter(|n| (n % 4 == 0) != (n % 3 == 0)).count();
    let row = |n: &i64| {
        let flip = if (n % 4 == 0) != (n % 3 == 0) {
            ", outcome flips"
        } else {
            ""
        };
        format!("  n = {n}: {} -> {}{flip}", n % 4, n % 3)
    };
    let head = [
        format!(
            "diff Sub = 101 positions, {} differ, {flips} flip outcome; first divergence at n = {}",
            differ.len(),
            differ[0]
        ),
        format!("  values in {old} -> in {new}:"),
    ];

    let output = sprague(&["diff", &old, &new], "");
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    let mut expected: Vec<String> = head.to_vec();
    expected.extend(differ.iter().take(10).map(row));
    expected.push(format!(
        "  … and {} more rows (`--all` prints every row, `--json` every row as JSON)",
        differ.len() - 10
    ));
    assert_eq!(lines, expected);
    // Each file's path is named once, not on every row.
    assert_eq!(text.matches("sub124.game").count(), 1, "{text}");

    let output = sprague(&["diff", &old, &new, "--all"], "");
    let mut expected: Vec<String> = head.to_vec();
    expected.extend(differ.iter().map(row));
    assert_eq!(stdout(&output).lines().collect::<Vec<_>>(), expected);

    let output = sprague(&["diff", &old, &new, "--json"], "");
    let report: serde_json::Value = serde_json::from_str(stdout(&output).trim()).unwrap();
    assert_eq!(report["rows"].as_array().unwrap().len(), differ.len());
}

#[test]
fn the_manual_page_covers_every_command_and_the_language() {
    let manual = stdout(&sprague(&["man"], ""));
    assert!(manual.contains(".TH sprague 1"), "{manual}");
    for command in [
        "run",
        "draw",
        "plot",
        "check",
        "diff",
        "serve",
        "certify",
        "verify",
        "completions",
        "man",
        "lsp",
        "repl",
    ] {
        assert!(
            manual.contains(&format!(".SS \"sprague {command}\"")),
            "{command}: {manual}"
        );
    }
    // A subcommand's own options, not only the top level's.
    let verify = &manual[manual.find(".SS \"sprague verify\"").unwrap()..];
    let verify = &verify[..verify.find(".SS \"sprague completions\"").unwrap()];
    assert!(verify.contains("max\\-work"), "{verify}");
    // The language, with its examples as written.
    let language = &manual[manual.find(".SH LANGUAGE").expect("a LANGUAGE section")..];
    assert!(language.contains("game Kayles(n) {"), "{language}");
    assert!(language.contains("splits up to symmetry"), "{language}");
    // No line of the language starts a roff request by accident.
    for line in language.lines() {
        let control = line.starts_with('\'')
            || (line.starts_with('.')
                && line.len() > 1
                && line.as_bytes()[1].is_ascii_lowercase()
                && !line.starts_with(".nf")
                && !line.starts_with(".fi"));
        assert!(!control, "{line}");
    }

    let output = sprague(&["help", "language"], "");
    assert!(output.status.success());
    let reference = stdout(&output);
    assert!(reference.starts_with("# The .game language"), "{reference}");
    assert!(reference.contains("`moves P`"), "{reference}");
    // A parse error sends the user to a document the binary has.
    let output = sprague(&["run", "-"], "grundy )\n");
    assert!(
        stderr(&output).contains("sprague help language"),
        "{}",
        stderr(&output)
    );
}

/// Wythoff's losses `(⌊kφ⌋, ⌊kφ²⌋)` and their mirrors, both coordinates
/// at most `last`: ⌊kφ⌋ = ⌊(k + √(5k²)) / 2⌋ in integers, ⌊kφ²⌋ = ⌊kφ⌋ + k.
fn wythoff_losses(last: i64) -> std::collections::BTreeSet<(i64, i64)> {
    let isqrt = |n: i64| (0..).take_while(|r: &i64| r * r <= n).last().unwrap_or(0);
    (0..=last)
        .map(|k| ((k + isqrt(5 * k * k)) / 2, k))
        .map(|(low, k)| (low, low + k))
        .take_while(|&(low, _)| low <= last)
        .flat_map(|(low, high)| [(low, high), (high, low)])
        .filter(|&(a, b)| a <= last && b <= last)
        .collect()
}

#[test]
fn diff_over_a_wide_range_flips_at_wythoffs_losses() {
    let variants = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/variants/");
    let (old, new) = (
        format!("{variants}wythoff.game"),
        format!("{variants}nim2.game"),
    );
    let output = sprague(&["diff", &old, &new, "--range", "0..=150", "--json"], "");
    assert!(output.status.success(), "{}", stderr(&output));
    let report: serde_json::Value = serde_json::from_str(stdout(&output).trim()).unwrap();
    assert_eq!(report["positions"], 151 * 151);
    // Two-pile Nim loses where a = b; Wythoff's game where the pairs lie.
    // The outcome flips where exactly one of them loses: the pairs but
    // (0, 0), and the diagonal but (0, 0).
    let wythoff = wythoff_losses(150);
    // OEIS A000201 and A001950: the 34th pair is (55, 89), the 55th (88, 143).
    for pair in [(3, 5), (89, 55), (88, 143), (143, 88)] {
        assert!(wythoff.contains(&pair), "{pair:?}");
    }
    let flips: std::collections::BTreeSet<(i64, i64)> = (0..=150)
        .flat_map(|a| (0..=150).map(move |b| (a, b)))
        .filter(|&(a, b)| wythoff.contains(&(a, b)) != (a == b))
        .collect();
    let found: std::collections::BTreeSet<(i64, i64)> = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|row| row["flip"] == true)
        .map(|row| {
            let at = |name: &str| row["bindings"][name].as_i64().unwrap();
            (at("a"), at("b"))
        })
        .collect();
    assert_eq!(found, flips);
    assert_eq!(report["flips"], flips.len());
    // Every flip is a row: a loss in one file is 0 there and not in the other.
    for row in report["rows"].as_array().unwrap() {
        let (a, b) = (
            row["bindings"]["a"].as_i64().unwrap(),
            row["bindings"]["b"].as_i64().unwrap(),
        );
        assert_eq!(row["b"], a ^ b, "Nim's value at ({a}, {b})");
    }
}
