//! Pictures of games: move graphs as Graphviz DOT (drawn to SVG by the
//! `dot` program when it is installed) and Grundy values as SVG scatter
//! plots (with `plotters`). The session gathers what to draw; this module
//! only turns it into text and files.

mod dot;
mod plot;

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

pub use dot::dot;
pub use plot::{plot, plot_png};

use crate::analysis::Period;
use crate::engine::Gamma;

/// The move graph of a position: one cluster per distinct component, and
/// the sum itself when it has more than one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveGraph {
    pub clusters: Vec<Cluster>,
    /// The whole sum, with how many times each cluster's root occurs in it.
    pub sum: Option<(Node, Vec<usize>)>,
}

/// The positions reached from one component; node 0 is the component.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cluster {
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub label: String,
    pub value: Gamma,
    /// A sum of several components, reached as one option.
    pub sum: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub kind: EdgeKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EdgeKind {
    /// A move.
    Move,
    /// A move to a position of value 0: it wins in the component alone.
    Winning,
    /// A move of the whole sum's winning move, in this component.
    WinsTheSum,
    /// From a sum to one of its parts.
    Part,
}

impl MoveGraph {
    pub fn nodes(&self) -> usize {
        self.clusters
            .iter()
            .map(|cluster| cluster.nodes.len())
            .sum()
    }
}

/// A game's values over a range, for a scatter plot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plot {
    pub game: String,
    /// The names of the bindings: the first is the x axis, a second colour.
    pub names: Vec<String>,
    /// (x, the second binding's value, the Grundy value).
    pub points: Vec<(i64, Option<i64>, u64)>,
    /// A proven period, marked on the plot.
    pub period: Option<Period>,
}

/// Why a picture could not be made or written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PictureError {
    /// `dot` is not installed, or failed.
    Graphviz(String),
    /// The plotting library failed.
    Plot(String),
    /// The file could not be written.
    Write(String),
    /// The file's extension names no format this picture is written in.
    Format(String),
    /// Stopped from outside while `dot` drew it (`dot` is then stopped too).
    Interrupted,
}

/// The formats a move graph is written in, by the file's extension: DOT
/// as it is, the rest drawn by Graphviz.
pub const DRAW_FORMATS: &[&str] = &["dot", "gv", "svg", "png", "pdf"];

/// The picture in the format a file name asks for, and that format's name:
/// `.svg`, `.png` and `.pdf` are drawn by Graphviz, `.dot` and `.gv` (or a
/// name without an extension) are DOT; anything else is refused.
/// Graphviz is stopped once `stop` is set.
pub fn render_dot(
    dot: String,
    path: &str,
    stop: Option<&AtomicBool>,
) -> Result<(Vec<u8>, &'static str), PictureError> {
    let extension = Path::new(path)
        .extension()
        .map(|ext| ext.to_string_lossy().to_lowercase());
    match extension.as_deref() {
        None | Some("dot" | "gv") => Ok((dot.into_bytes(), "dot")),
        Some(format @ ("svg" | "png" | "pdf")) => {
            let format = DRAW_FORMATS
                .iter()
                .find(|known| **known == format)
                .expect("listed");
            Ok((graphviz(&dot, format, stop)?, format))
        }
        Some(other) => Err(PictureError::Format(other.to_owned())),
    }
}

/// A plot as the file name asks for it: SVG (`svg` given), or PNG for a
/// `.png` file (drawn again, by `png`); any other extension is refused.
pub fn render_plot(
    svg: String,
    path: &str,
    png: impl FnOnce() -> Result<Vec<u8>, PictureError>,
) -> Result<(Vec<u8>, &'static str), PictureError> {
    match Path::new(path).extension() {
        Some(extension) if extension.eq_ignore_ascii_case("png") => Ok((png()?, "png")),
        Some(extension) if !extension.eq_ignore_ascii_case("svg") => Err(PictureError::Format(
            extension.to_string_lossy().into_owned(),
        )),
        _ => Ok((svg.into_bytes(), "svg")),
    }
}

/// Runs `dot -Tsvg` on a graph.
pub fn graphviz_svg(dot: &str) -> Result<String, PictureError> {
    graphviz(dot, "svg", None).map(|svg| String::from_utf8_lossy(&svg).into_owned())
}

/// How often a drawing under way looks at the stop flag.
const STOP_POLL: Duration = Duration::from_millis(20);

/// Runs Graphviz's `dot` on a graph, for a picture in `format`. A large
/// graph takes `dot` minutes: once `stop` is set, `dot` is killed and the
/// drawing given up.
fn graphviz(dot: &str, format: &str, stop: Option<&AtomicBool>) -> Result<Vec<u8>, PictureError> {
    let failed = |error: std::io::Error| PictureError::Graphviz(error.to_string());
    let mut child = Command::new("dot")
        .arg(format!("-T{format}"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| PictureError::Graphviz(format!("cannot run `dot`: {error}")))?;
    let mut stdin = child.stdin.take().expect("stdin was piped");
    let mut stdout = child.stdout.take().expect("stdout was piped");
    let mut stderr = child.stderr.take().expect("stderr was piped");
    let stopped = || stop.is_some_and(|stop| stop.load(Ordering::Relaxed));
    std::thread::scope(|scope| {
        // The pipes are written and read beside the wait, so that neither
        // side waits on the other's full pipe.
        let written = scope.spawn(move || stdin.write_all(dot.as_bytes()));
        let drawn = scope.spawn(move || {
            let mut drawn = Vec::new();
            stdout.read_to_end(&mut drawn).map(|_| drawn)
        });
        let said = scope.spawn(move || {
            let mut said = Vec::new();
            let _ = stderr.read_to_end(&mut said);
            said
        });
        let status = loop {
            if let Some(status) = child.try_wait().map_err(failed)? {
                break status;
            }
            if stopped() {
                // Its pipes close with it, and the threads end.
                let _ = child.kill();
                let _ = child.wait();
                return Err(PictureError::Interrupted);
            }
            std::thread::sleep(STOP_POLL);
        };
        let drawn = drawn.join().expect("the reader does not panic");
        let said = said.join().expect("the reader does not panic");
        let written = written.join().expect("the writer does not panic");
        match status.success() {
            true => {
                written.map_err(failed)?;
                drawn.map_err(failed)
            }
            false => Err(PictureError::Graphviz(
                String::from_utf8_lossy(&said).trim().to_owned(),
            )),
        }
    })
}

/// Writes a picture to its file.
pub fn write(path: &str, content: &[u8]) -> Result<(), PictureError> {
    std::fs::write(path, content).map_err(|error| PictureError::Write(error.to_string()))
}
