//! `sprague certify` and `sprague verify`: certificates made through the
//! engine's fast paths (sweeps, code tables, packed boards) verify through
//! the plain interpreter, and a certificate with one value altered, one
//! witness removed or one position dropped is refused, naming the claim.

mod common;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use common::sprague;
use serde_json::Value as Json;

/// The games certified, one file.
const GAMES: &str = "
game Kayles(n) { move Kayles(a) + Kayles(n - k - a) for k in 1..=2, a in 0..=n - k }
game GrundyCode = octal \"4!.0\"
game Wythoff(a, b) {
    move Wythoff(a - k, b)     for k in 1..=a
    move Wythoff(a, b - k)     for k in 1..=b
    move Wythoff(a - k, b - k) for k in 1..=min(a, b)
}
game NodeKayles(s) splits { move NodeKayles(s - closed(s, v)) for v in s }
graph Round {
    a -> b
    b -> c
    c -> a, exit
    d -> d, a
    e -> d, exit
}
";

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

/// Certifies `position`, and answers the certificate as JSON.
fn certify(dir: &Path, games: &str, position: &str) -> Json {
    let out = dir.join("cert.json");
    certify_into(dir, games, position, &out);
    serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap()
}

/// Certifies `position` into `out`, which must succeed.
fn certify_into(dir: &Path, games: &str, position: &str, out: &Path) {
    let file = write(dir, "games.game", games);
    let output = sprague(
        &["certify", &file, position, "-o", &out.to_string_lossy()],
        "",
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Verifies a certificate: the exit code, and what was printed.
fn verify(dir: &Path, games: &str, certificate: &Json) -> (bool, String) {
    let file = write(dir, "games.game", games);
    let cert = write(dir, "check.json", &certificate.to_string());
    let output = sprague(&["verify", &file, &cert], "");
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.code() == Some(0), text)
}

fn claim<'a>(certificate: &'a mut Json, position: &str) -> &'a mut Json {
    certificate["claims"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|claim| claim["position"] == position)
        .unwrap_or_else(|| panic!("no claim of {position}"))
}

#[test]
fn certificates_of_every_kind_of_game_verify() {
    let dir = tempfile::tempdir().unwrap();
    for (position, value, kind) in [
        // Kayles, OEIS A002186: K(10) = 2, so with *2 the sum is 0.
        ("Kayles(10) + *2", Json::from(0), "acyclic"),
        // Grundy's game as a code (its table), OEIS A002188: G(12) = 1.
        ("GrundyCode(12)", Json::from(1), "acyclic"),
        // Wythoff (swept rules): (3, 5) = (⌊2φ⌋, ⌊2φ²⌋) is a P-position.
        ("Wythoff(3, 5)", Json::from(0), "acyclic"),
        // Node Kayles on a 2 × 3 grid: a board split into parts (packed
        // keys); its value is compared with the query's below.
        ("NodeKayles(Grid(2, 3))", Json::Null, "acyclic"),
        // A graph with cycles, as in examples/loopy.game: exit = 0, b = 0
        // (its option c, worth 2, reverses to exit), a = 1. d stays or
        // goes to a (1): 0 is the only candidate, and d itself has no
        // move to 0, so d = ∞. e goes to d or exit (0): 1, since d
        // reverses to a.
        ("Round.a", Json::from(1), "loopy"),
        ("Round.d", Json::from("inf"), "loopy"),
        ("Round.e", Json::from(1), "loopy"),
    ] {
        let mut certificate = certify(dir.path(), GAMES, position);
        assert_eq!(certificate["kind"], kind, "{position}");
        if !value.is_null() {
            assert_eq!(certificate["value"], value, "{position}");
        }
        if value == "inf" {
            let blocked = claim(&mut certificate, position)["blocked"].clone();
            assert_eq!(blocked, "Round.d", "d blocks itself");
        }
        let (ok, text) = verify(dir.path(), GAMES, &certificate);
        assert!(ok, "{position}: {text}");
        let expected = format!(
            "verified: {position} = {}",
            certificate["value"]
                .as_u64()
                .map_or("∞".into(), |v| v.to_string())
        );
        assert!(text.starts_with(&expected), "{text}");
    }
}

/// A region of a game that splits up to symmetry is certified under the
/// name it was asked by, not the least of its images (which its claim
/// names), and the certificate verifies. Cram on 3 × 4 less cell 5 is the
/// mirror image of 3 × 4 less cell 6.
#[test]
fn a_region_is_certified_as_it_was_asked() {
    let dir = tempfile::tempdir().unwrap();
    let games = "game Cram(s) splits up to symmetry {\n  move Cram(s - {a, b}) for a in s, b in neighbours(s, a) if a < b\n}\n";
    let asked = "Cram(Grid(3, 4) - {5})";
    let certificate = certify(dir.path(), games, asked);
    assert_eq!(certificate["position"], asked);
    let claimed: Vec<&Json> = certificate["claims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|claim| &claim["position"])
        .collect();
    assert!(
        claimed.contains(&&Json::from("Cram(Grid(3, 4) - {6})")),
        "{claimed:?}"
    );
    let (ok, text) = verify(dir.path(), games, &certificate);
    assert!(ok, "{text}");
    assert!(text.starts_with(&format!("verified: {asked} = ")), "{text}");
}

#[test]
fn values_agree_with_the_query() {
    // The certified value is the one `grundy` answers.
    let dir = tempfile::tempdir().unwrap();
    let certificate = certify(dir.path(), GAMES, "NodeKayles(Grid(2, 3))");
    let output = sprague(
        &["run", "-"],
        &format!("{GAMES}\ngrundy NodeKayles(Grid(2, 3))"),
    );
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.trim()
            .ends_with(&format!("= {}", certificate["value"])),
        "{text}"
    );
}

#[test]
fn an_altered_value_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut certificate = certify(dir.path(), GAMES, "Kayles(8)");
    // Kayles(4) = 1 (A002186); claim 2.
    *claim(&mut certificate, "Kayles(4)")
        .get_mut("value")
        .unwrap() = Json::from(2);
    let (ok, text) = verify(dir.path(), GAMES, &certificate);
    assert!(!ok);
    assert!(text.contains("claim Kayles("), "{text}");
}

#[test]
fn a_removed_witness_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut certificate = certify(dir.path(), GAMES, "Kayles(8)");
    // Kayles(8) = 1: its one witness is an option of value 0.
    claim(&mut certificate, "Kayles(8)")["witnesses"]
        .as_array_mut()
        .unwrap()
        .clear();
    let (ok, text) = verify(dir.path(), GAMES, &certificate);
    assert!(!ok);
    assert!(
        text.contains("claim Kayles(8) = 1 fails: no witness of an option of value 0"),
        "{text}"
    );
}

#[test]
fn a_dropped_position_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut certificate = certify(dir.path(), GAMES, "Wythoff(2, 3)");
    certificate["claims"]
        .as_array_mut()
        .unwrap()
        .retain(|claim| claim["position"] != "Wythoff(1, 1)");
    let (ok, text) = verify(dir.path(), GAMES, &certificate);
    assert!(!ok);
    assert!(
        text.contains("Wythoff(1, 1) is part of an option"),
        "{text}"
    );
}

#[test]
fn a_cycle_claimed_acyclic_or_a_loopy_claim_without_reversal_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    // Round.b = 0 only because its option c (2) reverses to exit (0).
    let mut certificate = certify(dir.path(), GAMES, "Round.b");
    assert_eq!(claim(&mut certificate, "Round.b")["value"], 0);
    claim(&mut certificate, "Round.b")
        .as_object_mut()
        .unwrap()
        .remove("reversals");
    let (ok, text) = verify(dir.path(), GAMES, &certificate);
    assert!(!ok);
    assert!(text.contains("has no reversal"), "{text}");
    // The same claims called acyclic: the ranks cannot fall round a cycle.
    let mut certificate = certify(dir.path(), GAMES, "Round.b");
    certificate["kind"] = Json::from("acyclic");
    let (ok, text) = verify(dir.path(), GAMES, &certificate);
    assert!(!ok, "{text}");
    // A draw claimed finite: d -> d forever, with a way out to a (1).
    let mut certificate = certify(dir.path(), GAMES, "Round.e");
    *claim(&mut certificate, "Round.d").get_mut("value").unwrap() = Json::from(0);
    let (ok, text) = verify(dir.path(), GAMES, &certificate);
    assert!(!ok, "{text}");
}

#[test]
fn certificates_are_checked_against_the_file_given() {
    // The same certificate against rules where Kayles may also take three.
    let dir = tempfile::tempdir().unwrap();
    let certificate = certify(dir.path(), GAMES, "Kayles(6)");
    let changed = GAMES.replace("k in 1..=2", "k in 1..=3");
    let (ok, text) = verify(dir.path(), &changed, &certificate);
    assert!(!ok);
    assert!(text.contains("fails"), "{text}");
}

#[test]
fn a_circular_justification_is_refused() {
    // a and b move to each other and nowhere else: play never ends, both
    // are ∞. Claiming a = 0 and b = 1 satisfies the mex rule at each, and
    // a's option b (1) "reverses" to a (0); only the counters show that a
    // is justified by itself.
    let games = "graph Pair {\n  a -> b\n  b -> a\n}\n";
    let forged = serde_json::json!({
        "format": "sprague certificate 1",
        "kind": "loopy",
        "position": "Pair.a",
        "value": 0,
        "claims": [
            {"position": "Pair.a", "value": 0, "rank": 1, "reversals": [["Pair.b", "Pair.a"]]},
            {"position": "Pair.b", "value": 1, "rank": 0, "witnesses": ["Pair.a"]},
        ]
    });
    let dir = tempfile::tempdir().unwrap();
    let (ok, text) = verify(dir.path(), games, &forged);
    assert!(!ok, "{text}");
    assert!(text.contains("counter"), "{text}");
    // The true values verify.
    let certificate = certify(dir.path(), games, "Pair.a");
    assert_eq!(certificate["value"], "inf");
    let (ok, text) = verify(dir.path(), games, &certificate);
    assert!(ok, "{text}");
}

#[test]
fn a_loopy_sum_certifies_and_its_certificate_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let games = "graph Pair {\n  a -> b\n  b -> a\n}\ngraph Loop {\n  a -> b\n  b -> c\n  c -> a, exit\n}\n";
    // A part of infinite γ makes the sum's γ infinite (Smith: ∞ absorbs
    // in γ(G + H) = γ(G) ⊕ γ(H)); finite parts add as nimbers.
    for (position, value) in [
        ("Pair.a + *1", Json::from("inf")),
        ("Pair.a + Loop.c", Json::from("inf")),
        ("Pair.a + Pair.b", Json::from("inf")),
        ("Loop.a + Loop.c", Json::from(1 ^ 2)),
    ] {
        let certificate = certify(dir.path(), games, position);
        assert_eq!(certificate["value"], value, "{position}");
        let (ok, text) = verify(dir.path(), games, &certificate);
        assert!(ok, "{position}: {text}");
        // And a sum with an infinite part claimed finite is refused.
        let mut forged = certificate.clone();
        forged["value"] = Json::from(0);
        if value == "inf" {
            let (ok, text) = verify(dir.path(), games, &forged);
            assert!(!ok, "{position}: {text}");
        }
    }
}

/// Runs `sprague verify` with extra flags.
fn verify_with(dir: &Path, games: &str, certificate: &Json, flags: &[&str]) -> (bool, String) {
    let file = write(dir, "games.game", games);
    let cert = write(dir, "check.json", &certificate.to_string());
    let mut args = vec!["verify", &file, &cert];
    args.extend(flags);
    let output = sprague(&args, "");
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.code() == Some(0), text)
}

#[test]
fn verify_keeps_to_the_limits_run_has_and_takes_the_same_flags() {
    let dir = tempfile::tempdir().unwrap();
    let certificate = certify(dir.path(), GAMES, "Kayles(12)");
    let claims = certificate["claims"].as_array().unwrap().len();
    assert_eq!(claims, 13, "Kayles(0) to Kayles(12)");
    assert!(verify_with(dir.path(), GAMES, &certificate, &[]).0);
    let (ok, text) = verify_with(dir.path(), GAMES, &certificate, &["--max-states", "12"]);
    assert!(!ok);
    assert!(
        text.contains("sprague::verify::too_many_positions"),
        "{text}"
    );
    assert!(text.contains("--max-states"), "{text}");
    // Kayles(n) has 2n - 1 options for n ≥ 1 (by this rule): 144 in all to 12.
    let options: u64 = (1..=12).map(|n| 2 * n - 1).sum();
    let (ok, text) = verify_with(
        dir.path(),
        GAMES,
        &certificate,
        &["--max-work", &(options - 1).to_string()],
    );
    assert!(!ok);
    assert!(text.contains("sprague::verify::too_much_work"), "{text}");
    assert!(text.contains("raise the"), "{text}");
    let raised = ["--max-work", &options.to_string()];
    assert!(verify_with(dir.path(), GAMES, &certificate, &raised).0);

    // A short certificate claiming a huge board stops at the work limit.
    let forged = serde_json::json!({
        "format": "sprague certificate 1",
        "kind": "acyclic",
        "position": "NodeKayles(Grid(1000, 1000))",
        "value": 1,
        "claims": [{"position": "NodeKayles(Grid(1000, 1000))", "value": 1, "rank": 1}]
    });
    let (ok, text) = verify_with(dir.path(), GAMES, &forged, &["--max-work", "1000"]);
    assert!(!ok);
    assert!(text.contains("sprague::verify::too_much_work"), "{text}");
    // At the default limits too: each option of a board of 90,000 cells
    // copies and splits it, work the limit counts (listing all 90,000
    // options took minutes).
    let board = "NodeKayles(Grid(300, 300))";
    let forged = serde_json::json!({
        "format": "sprague certificate 1",
        "kind": "acyclic",
        "position": board,
        "value": 1,
        "claims": [{"position": board, "value": 1, "rank": 1}]
    });
    let (ok, text) = verify_with(dir.path(), GAMES, &forged, &[]);
    assert!(!ok);
    assert!(text.contains("sprague::verify::too_much_work"), "{text}");
}

/// A session stopped (as Ctrl-C stops it) before certifying or verifying.
fn stopped_session() -> sprague::session::Session {
    let mut session = sprague::session::Session::new(1 << 20);
    session.declare("games", GAMES, &mut |_| {}).unwrap();
    let stop = Arc::new(AtomicBool::new(true));
    session.set_stop(Some(stop));
    session
}

#[test]
fn certify_and_verify_stop_at_the_stop_flag() {
    let dir = tempfile::tempdir().unwrap();
    let certificate = certify(dir.path(), GAMES, "Kayles(12)");
    let certificate = serde_json::from_value(certificate).unwrap();
    let mut session = sprague::session::Session::new(1 << 20);
    session.declare("games", GAMES, &mut |_| {}).unwrap();
    assert!(session.verify("cert", &certificate).is_ok());
    let code = |report: miette::Report| report.code().map(|code| code.to_string());
    let refused = stopped_session().verify("cert", &certificate).unwrap_err();
    assert_eq!(
        code(refused).as_deref(),
        Some("sprague::verify::interrupted")
    );
    let refused = stopped_session()
        .certify("position", "Kayles(12)")
        .unwrap_err();
    assert_eq!(
        code(refused).as_deref(),
        Some("sprague::certify::interrupted")
    );
}

#[test]
fn certify_needs_memory_linear_in_its_positions_and_keeps_to_the_work_limit() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "games.game", GAMES);
    let out = dir.path().join("cert.json");
    let out = out.to_string_lossy();
    // Kayles(2000) has 2,000 parts and 4 million options in all: kept,
    // they took half a gigabyte; listed and dropped, a few megabytes. The
    // walk that measures the longest play once kept every part of every
    // option not yet measured on its stack, 135 MB here and 4 GB at
    // Kayles(10000); it keeps a frame for each position on its path.
    let (code, peak_kb) =
        common::sprague_with_peak_memory(&["certify", &file, "Kayles(2000)", "-o", &out], "");
    assert_eq!(code, Some(0));
    assert!(peak_kb < 50_000, "peak {peak_kb} kB");
    let certificate: Json = serde_json::from_str(&std::fs::read_to_string(&*out).unwrap()).unwrap();
    assert_eq!(certificate["claims"].as_array().unwrap().len(), 2001);

    // Past the work limit: a clear error, and no file, whole or half.
    let refused = dir.path().join("refused.json");
    let output = sprague(
        &[
            "certify",
            &file,
            "Kayles(2000)",
            "-o",
            &refused.to_string_lossy(),
            "--max-work",
            "100000",
        ],
        "",
    );
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8_lossy(&output.stderr);
    assert!(text.contains("sprague::certify::too_much_work"), "{text}");
    assert!(text.contains("raise the limit with"), "{text}");
    // A chain of 501 positions, each with one option, claims more than 100.
    let chain = write(
        dir.path(),
        "chain.game",
        "game Chain(n) { move Chain(n - 1) for k in 1..=min(n, 1) }\n",
    );
    let output = sprague(
        &[
            "certify",
            &chain,
            "Chain(500)",
            "-o",
            &refused.to_string_lossy(),
            "--max-states",
            "100",
        ],
        "",
    );
    let text = String::from_utf8_lossy(&output.stderr);
    assert!(
        text.contains("sprague::certify::too_many_positions"),
        "{text}"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !left.iter().any(|name| name.contains("refused")),
        "{left:?}"
    );
    assert!(!left.iter().any(|name| name.ends_with(".part")), "{left:?}");
}

/// A certificate written to a path that is not a regular file (a pipe
/// here; `/dev/null` in use) goes into it, and the path stays what it was:
/// writing aside and renaming over it would replace the device or pipe
/// with a plain file. A link is followed, and stays a link.
#[cfg(unix)]
#[test]
fn certify_writes_into_a_pipe_or_through_a_link_and_leaves_them_in_place() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let pipe = dir.path().join("pipe");
    let name = std::ffi::CString::new(pipe.to_string_lossy().as_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o644) }, 0);
    let reader = {
        let pipe = pipe.clone();
        std::thread::spawn(move || std::fs::read_to_string(pipe).unwrap())
    };
    certify_into(dir.path(), GAMES, "Kayles(6)", &pipe);
    // Checked before the reader is waited for: had the pipe been replaced,
    // its reader would wait forever.
    assert!(
        std::fs::symlink_metadata(&pipe)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    let text = reader.join().unwrap();
    let certificate: Json = serde_json::from_str(&text).unwrap();
    assert_eq!(certificate["value"], 3, "Kayles(6) has value 3 (A002186)");

    let target = dir.path().join("target.json");
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    certify_into(dir.path(), GAMES, "Kayles(6)", &link);
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let certificate: Json =
        serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
    assert_eq!(certificate["value"], 3);
}

/// Counts read as English: a certificate of one position says "1
/// position", and so does a limit of one.
#[test]
fn one_position_is_counted_in_the_singular() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "games.game", GAMES);
    let out = dir.path().join("one.json");
    // Kayles(0) has no options: its certificate claims it alone.
    let output = sprague(
        &["certify", &file, "Kayles(0)", "-o", &out.to_string_lossy()],
        "",
    );
    let said = String::from_utf8_lossy(&output.stderr).into_owned()
        + &String::from_utf8_lossy(&output.stdout);
    assert!(
        said.starts_with("certified: Kayles(0) = 0 (1 position), written to"),
        "{said}"
    );
    let certificate: Json = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let (ok, text) = verify(dir.path(), GAMES, &certificate);
    assert!(ok, "{text}");
    assert!(
        text.starts_with("verified: Kayles(0) = 0 (1 position)\n"),
        "{text}"
    );
    // A limit of one position: the chain C(3), C(2), C(1), C(0) has four.
    let chain = write(
        dir.path(),
        "chain.game",
        "game C(n) { move C(n - 1) if n > 0 }\n",
    );
    let output = sprague(
        &[
            "certify",
            "--max-states",
            "1",
            &chain,
            "C(3)",
            "-o",
            &out.to_string_lossy(),
        ],
        "",
    );
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("claim more than 1 position"), "{said}");
    assert!(!said.contains("1 positions"), "{said}");
}
