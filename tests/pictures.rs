//! Pictures: move graphs as DOT that Graphviz reads back, SVG plots that
//! are well-formed XML with one point per position, from the language and
//! from the `sprague draw` and `sprague plot` commands.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::{answers, sprague};
use sprague::session::Value;

/// Graphviz parses `dot` and lays it out; panics with its complaint if not.
fn graphviz_reads(dot: &str) {
    let mut child = Command::new("dot")
        .arg("-Tcanon")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("Graphviz's `dot` is installed (.ci/run installs it)");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(dot.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "dot rejected the graph: {}\n{dot}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Runs the `sprague` binary with no input; it must succeed.
fn succeeds(args: &[&str]) -> std::process::Output {
    let output = sprague(args, "");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn picture(value: &Value) -> &sprague::session::Picture {
    match value {
        Value::Graph(picture) | Value::Plot(picture) => picture,
        other => panic!("expected a picture, got {other:?}"),
    }
}

/// A position from each example, drawn and read back by Graphviz.
#[test]
fn the_examples_draw_as_dot_that_graphviz_reads() {
    let cases = [
        ("nim", "Nim(3) + Nim(2)"),
        ("subtraction", "Sub(6)"),
        ("kayles", "Kayles(4) + Kayles(2)"),
        ("dawson", "Dawson(7)"),
        ("grundy", "Grundy(7)"),
        ("wythoff", "Wythoff(2, 3)"),
        ("race", "Race.a + Line.0"),
        ("tour", "Maze.start + *2"),
        ("loopy", "Spin.a + Loop.c + Seesaw(3)"),
        ("misere", "Kayles(3) + *1"),
    ];
    for (example, position) in cases {
        let path = format!("{}/examples/{example}.game", env!("CARGO_MANIFEST_DIR"));
        let source = std::fs::read_to_string(&path).unwrap();
        let found = answers(&format!("{source}\ndraw {position}\n"));
        let drawn = picture(&found.last().unwrap().value);
        assert_eq!(drawn.format, "dot");
        assert!(drawn.size > 1, "{example}: {} nodes", drawn.size);
        graphviz_reads(&drawn.content);
    }
}

/// The DOT of a small sum, exactly: values in the labels, the P-positions
/// shaded, winning moves bold, the sum's winning move red, parts dotted.
#[test]
fn a_small_move_graph() {
    let found = answers(
        "game Kayles(n) { move Kayles(a) + Kayles(n - k - a) for k in 1..=2, a in 0..=n - k }
         draw Kayles(2) + *3",
    );
    insta::assert_snapshot!(picture(&found[0].value).content);
}

#[test]
fn a_graph_past_the_limit_is_refused_with_its_size() {
    let output = sprague(
        &["run", "-", "--max-draw", "10"],
        "game Nim(n) { move Nim(n - k) for k in 1..=n }\ndraw Nim(30)\n",
    );
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("31 nodes, over the limit of 10"),
        "{stderr}"
    );
    assert!(stderr.contains("--max-draw"), "{stderr}");
}

/// The texts an SVG shows, each trimmed (plotters puts a text's content on
/// its own line).
fn texts(svg: &str) -> Vec<String> {
    let document = roxmltree::Document::parse(svg).expect("the SVG is well-formed XML");
    document
        .descendants()
        .filter(|node| node.has_tag_name("text"))
        .map(|node| node.text().unwrap_or("").trim().to_owned())
        .collect()
}

fn circles(svg: &str) -> usize {
    let document = roxmltree::Document::parse(svg).expect("the SVG is well-formed XML");
    document
        .descendants()
        .filter(|node| node.has_tag_name("circle"))
        .count()
}

#[test]
fn plots_are_xml_with_one_point_per_position() {
    let found = answers(
        "game K = octal \"0.77\"
         game Wythoff(a, b) {
             move Wythoff(a - k, b) for k in 1..=a
             move Wythoff(a, b - k) for k in 1..=b
             move Wythoff(a - k, b - k) for k in 1..=min(a, b)
         }
         plot K for n in 0..=150
         plot Wythoff for a in 0..=9, b in 0..=4",
    );
    let kayles = picture(&found[0].value);
    assert_eq!((kayles.size, circles(&kayles.content)), (151, 151));
    // Kayles' proven period is marked.
    assert!(kayles.content.contains("period 12 from n = 71"));
    let wythoff = picture(&found[1].value);
    assert_eq!((wythoff.size, circles(&wythoff.content)), (50, 50));
    assert!(wythoff.content.contains("colour by b"));
}

#[test]
fn the_draw_and_plot_commands_write_svg() {
    let folder = tempfile::tempdir().unwrap();
    let example = format!("{}/examples/kayles.game", env!("CARGO_MANIFEST_DIR"));
    let graph = folder.path().join("moves.svg");
    succeeds(&[
        "draw",
        &example,
        "Kayles(3) + *1",
        "-o",
        graph.to_str().unwrap(),
    ]);
    let svg = std::fs::read_to_string(&graph).unwrap();
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    roxmltree::Document::parse_with_options(&svg, options).expect("Graphviz wrote well-formed SVG");
    assert!(svg.contains("Kayles(3)"));

    let plot = folder.path().join("plot.svg");
    let output = succeeds(&[
        "plot",
        &example,
        "Kayles",
        "--to",
        "40",
        "-o",
        plot.to_str().unwrap(),
    ]);
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!("plot Kayles = 41 points, written to {}\n", plot.display())
    );
    assert_eq!(circles(&std::fs::read_to_string(&plot).unwrap()), 41);

    // Without a file, the DOT itself is printed, ready for a pipe.
    let output = succeeds(&["draw", &example, "Kayles(2)"]);
    let dot = String::from_utf8_lossy(&output.stdout);
    assert!(dot.starts_with("digraph {"), "{dot}");
    graphviz_reads(&dot);
}

/// The README's plot is what the command it gives makes.
#[test]
fn the_readme_plot_is_reproduced_by_its_command() {
    let root = env!("CARGO_MANIFEST_DIR");
    let folder = tempfile::tempdir().unwrap();
    let plot = folder.path().join("kayles-plot.svg");
    let variants = format!("{root}/examples/variants/kayles.game");
    succeeds(&[
        "plot",
        &variants,
        "Pins",
        "--to",
        "120",
        "-o",
        plot.to_str().unwrap(),
    ]);
    let committed =
        std::fs::read_to_string(format!("{root}/examples/pictures/kayles-plot.svg")).unwrap();
    assert_eq!(std::fs::read_to_string(&plot).unwrap(), committed);
}

/// A move graph is written in the format its file's extension names;
/// an extension no format has is refused.
#[test]
fn draw_writes_the_format_its_file_names() {
    let dir = tempfile::tempdir().unwrap();
    let magic: [(&str, &[u8]); 4] = [
        ("png", b"\x89PNG"),
        ("pdf", b"%PDF"),
        ("svg", b"<?xml"),
        ("dot", b"digraph"),
    ];
    for (extension, starts) in magic {
        let file = dir.path().join(format!("k.{extension}"));
        succeeds(&[
            "draw",
            "examples/kayles.game",
            "Kayles(4)",
            "-o",
            file.to_str().unwrap(),
        ]);
        let written = std::fs::read(&file).unwrap();
        assert!(written.starts_with(starts), "{extension}");
    }
    let file = dir.path().join("k.jpeg2000");
    let output = sprague(
        &[
            "draw",
            "examples/kayles.game",
            "Kayles(4)",
            "-o",
            file.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown_format"));
    assert!(!file.exists());
}

/// The command line's position and file are values: a quote in the file's
/// name is part of the name, and a game argument cannot add to the query.
#[test]
fn draw_and_plot_arguments_are_values_not_source_text() {
    let dir = tempfile::tempdir().unwrap();
    let quoted = dir.path().join("my\"file.dot");
    succeeds(&[
        "draw",
        "examples/kayles.game",
        "Kayles(3)",
        "-o",
        quoted.to_str().unwrap(),
    ]);
    assert!(
        std::fs::read_to_string(&quoted)
            .unwrap()
            .starts_with("digraph")
    );

    let elsewhere = dir.path().join("elsewhere.svg");
    let asked = dir.path().join("asked.svg");
    let game = format!(
        "Kayles for n in 0..=3 to \"{}\" #",
        elsewhere.to_str().unwrap()
    );
    let output = sprague(
        &[
            "plot",
            "examples/kayles.game",
            &game,
            "--to",
            "5",
            "-o",
            asked.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(!elsewhere.exists() && !asked.exists());
    // Nor may the position given to draw end the query early.
    let output = sprague(
        &[
            "draw",
            "examples/kayles.game",
            &format!("Kayles(2) to \"{}\" #", elsewhere.to_str().unwrap()),
        ],
        "",
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(!elsewhere.exists());
}

#[test]
fn plotting_a_family_of_positions_is_refused_with_help() {
    let output = sprague(
        &[
            "plot",
            "examples/cram.game",
            "Cram(Grid(2, n))",
            "--to",
            "5",
        ],
        "",
    );
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8_lossy(&output.stderr);
    assert!(text.contains("sprague::plot::not_a_game"), "{text}");
    assert!(text.contains("grundy Cram(Grid(2, n)) for n in"), "{text}");
}

#[test]
fn a_second_binding_has_a_legend() {
    let found = answers(
        "game Wythoff(a, b) {
             move Wythoff(a - k, b) for k in 1..=a
             move Wythoff(a, b - k) for k in 1..=b
             move Wythoff(a - k, b - k) for k in 1..=min(a, b)
         }
         plot Wythoff for a in 0..=4, b in 0..=2
         plot Wythoff for a in 0..=2, b in 0..=30",
    );
    let few = &picture(&found[0].value).content;
    for b in 0..=2 {
        assert!(texts(few).contains(&format!("b = {b}")), "{few}");
    }
    let many = &picture(&found[1].value).content;
    // 31 values of b: the legend names some and says how many it leaves out.
    assert!(texts(many).contains(&"b = 0".to_owned()), "{many}");
    assert!(!texts(many).contains(&"b = 30".to_owned()), "{many}");
    assert!(many.contains("more values of b, not listed"), "{many}");
    assert_eq!(circles(many), 93);
}

/// `plot` writes a PNG, as `draw` does, when its file ends in `.png`: a
/// real PNG of the plot's size, with the points, the period's line and
/// the text drawn (the font is bundled, so no system font is needed).
#[test]
fn plot_writes_png_when_its_file_ends_in_png() {
    let folder = tempfile::tempdir().unwrap();
    let file = folder.path().join("kayles.png");
    let output = succeeds(&[
        "plot",
        "examples/variants/kayles.game",
        "Pins",
        "--to",
        "120",
        "-o",
        file.to_str().unwrap(),
    ]);
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!("plot Pins = 121 points, written to {}\n", file.display())
    );
    let bytes = std::fs::read(&file).unwrap();
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "{:?}", &bytes[..8]);
    // The first chunk is IHDR: width and height, big-endian.
    assert_eq!(&bytes[12..16], b"IHDR");
    let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    let height = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
    assert_eq!((width, height), (900, 480));

    let decoder = png::Decoder::new(std::io::Cursor::new(&bytes));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut pixels).unwrap();
    assert_eq!((frame.width, frame.height), (900, 480));
    assert_eq!(frame.color_type, png::ColorType::Rgb);
    let rgb: Vec<[u8; 3]> = pixels[..frame.buffer_size()]
        .chunks(3)
        .map(|pixel| [pixel[0], pixel[1], pixel[2]])
        .collect();
    let count = |wanted: [u8; 3]| rgb.iter().filter(|&&pixel| pixel == wanted).count();
    // Blue points, the red line where Kayles' preperiod of 71 ends, and
    // black text (caption and axis labels).
    assert!(count([0, 0, 255]) > 121 * 9, "{}", count([0, 0, 255]));
    assert!(count([255, 0, 0]) > 300, "{}", count([255, 0, 0]));
    assert!(count([0, 0, 0]) > 500, "{}", count([0, 0, 0]));

    // The language's `to` writes a PNG too.
    let file = folder.path().join("from-the-language.png");
    let source = format!(
        "game K = octal \"0.77\"\nplot K for n in 0..=20 to \"{}\"\n",
        file.display()
    );
    let output = sprague(&["run", "-"], &source);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(std::fs::read(&file).unwrap().starts_with(b"\x89PNG"));

    // Any other bitmap extension is still refused, and nothing is written.
    let file = folder.path().join("kayles.jpeg");
    let output = sprague(
        &[
            "plot",
            "examples/variants/kayles.game",
            "Pins",
            "--to",
            "20",
            "-o",
            file.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(output.status.code(), Some(1));
    let errors = String::from_utf8_lossy(&output.stderr);
    assert!(errors.contains("unknown_format"), "{errors}");
    assert!(errors.contains(".svg or .png"), "{errors}");
    assert!(!file.exists());
}

/// The number of red lines in an SVG plot: the period's marks.
fn red_lines(svg: &str) -> usize {
    let document = roxmltree::Document::parse(svg).expect("the SVG is well-formed XML");
    document
        .descendants()
        .filter(|node| node.attribute("stroke") == Some("#FF0000"))
        .count()
}

/// A game of rules of one parameter has its period looked for by `plot`
/// itself, with no `period G` asked before: S(1, 2, 3) is n mod 4 and
/// Kayles has period 12 from n = 71 (Guy and Smith); no theorem proves a
/// rule's period, so the caption calls them apparent. Nim's values n have
/// a saltus, not a repetition, and get no mark.
#[test]
fn a_rule_games_period_is_marked_without_asking() {
    let found = answers(
        "game S(n) { move S(n - k) for k in 1..=min(n, 3) }
         game N(n) { move N(n - k) for k in 1..=n }
         game Kayles(n) {
             move Kayles(a) + Kayles(n - k - a) for k in 1..=2, a in 0..=n - k
         }
         plot S for n in 0..=40
         plot N for n in 0..=40
         plot Kayles for n in 0..=120",
    );
    let s = &picture(&found[0].value).content;
    assert!(
        texts(s).contains(&"S: Grundy values (apparent period 4 from n = 0)".to_owned()),
        "{s}"
    );
    // The preperiod's end at n = 0, then n = 4, 8, …, 40.
    assert_eq!(red_lines(s), 11, "{s}");
    assert_eq!(circles(s), 41);

    let nim = &picture(&found[1].value).content;
    assert!(texts(nim).contains(&"N: Grundy values".to_owned()), "{nim}");
    assert_eq!(red_lines(nim), 0, "{nim}");

    let kayles = &picture(&found[2].value).content;
    assert!(
        texts(kayles)
            .contains(&"Kayles: Grundy values (apparent period 12 from n = 71)".to_owned()),
        "{kayles}"
    );
    // n = 71, then 83, 95, 107, 119.
    assert_eq!(red_lines(kayles), 5, "{kayles}");

    // A game that overflows past n = 62, beyond what is plotted: the search
    // for its period fails there, and the plot is drawn without a mark.
    let found = answers(
        "game O(n) { move O(n - 1) if n > 0 and 2 ** n > 0 }
         plot O for n in 0..=40",
    );
    let o = &picture(&found[0].value).content;
    assert_eq!(circles(o), 41);
    assert_eq!(red_lines(o), 0, "{o}");
}
