//! Move graphs as Graphviz DOT.

use dot_writer::{Attributes, DotWriter, Style};

use super::{EdgeKind, MoveGraph, Node};
use crate::engine::{Gamma, Outcome};

/// From how many nodes a graph is laid out quickly rather than carefully.
const QUICK_LAYOUT_FROM: usize = 100;

/// The graph as DOT: each node labelled with its position and value,
/// positions of value 0 (losses for the player to move) shaded, drawn
/// loopy positions dashed, winning moves bold, the sum's own winning move
/// red, and sums of parts as boxes joined to their parts by dotted lines.
pub fn dot(graph: &MoveGraph) -> String {
    let mut bytes = Vec::new();
    {
        let mut writer = DotWriter::from(&mut bytes);
        let mut digraph = writer.digraph();
        if graph.nodes() > QUICK_LAYOUT_FROM {
            // Graphviz's crossing minimisation grows fast with the edges
            // (461 nodes of Kayles took minutes): a big graph is laid out
            // with less of it, and straight edges (the same 461 in 5 s).
            digraph
                .graph_attributes()
                .set("mclimit", "0.05", false)
                .set("nslimit", "0.5", false)
                .set("splines", "line", false);
        }
        digraph.node_attributes().set("fontname", "Helvetica", true);
        digraph.edge_attributes().set("fontname", "Helvetica", true);
        for (c, cluster) in graph.clusters.iter().enumerate() {
            let mut scope = digraph.cluster();
            scope
                .graph_attributes()
                .set_label(&cluster.nodes[0].label)
                .set("color", "gray60", true);
            for (n, node) in cluster.nodes.iter().enumerate() {
                style(&mut *scope.node_named(id(c, n)), node);
            }
            for edge in &cluster.edges {
                let mut attributes = scope.edge(id(c, edge.from), id(c, edge.to)).attributes();
                match edge.kind {
                    EdgeKind::Move => {}
                    EdgeKind::Winning => {
                        attributes.set_style(Style::Bold).set_pen_width(2.5);
                    }
                    EdgeKind::WinsTheSum => {
                        attributes
                            .set_style(Style::Bold)
                            .set_pen_width(3.0)
                            .set("color", "red", true);
                    }
                    EdgeKind::Part => {
                        attributes
                            .set_style(Style::Dotted)
                            .set("arrowhead", "none", false);
                    }
                }
            }
        }
        if let Some((sum, counts)) = &graph.sum {
            style(&mut *digraph.node_named("sum"), sum);
            for (c, &count) in counts.iter().enumerate() {
                for _ in 0..count {
                    digraph
                        .edge("sum", id(c, 0))
                        .attributes()
                        .set_style(Style::Dotted)
                        .set("arrowhead", "none", false);
                }
            }
        }
    }
    String::from_utf8(bytes).expect("DOT is written from strings")
}

fn id(cluster: usize, node: usize) -> String {
    format!("c{cluster}_{node}")
}

fn style(attributes: &mut impl Attributes, node: &Node) {
    let label = format!("{}\\n{}", node.label, value(&node.value));
    attributes.set_label(&label);
    let mut styles = Vec::new();
    if node.sum {
        attributes.set("shape", "box", false);
        styles.push("rounded");
    }
    if node.value == Gamma::Finite(0) {
        styles.push("filled");
        attributes.set("fillcolor", "gray80", true);
    }
    if node.value.outcome() == Outcome::Draw {
        styles.push("dashed");
    }
    if !styles.is_empty() {
        attributes.set("style", &styles.join(","), true);
    }
}

fn value(value: &Gamma) -> String {
    format!("g = {value}")
}
