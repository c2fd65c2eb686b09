//! Positions written as source text.

use super::*;

impl<'p> Interpreter<'p> {
    /// A sum as it is written in the language.
    pub fn show<'a>(&'a self, sum: &'a [Component]) -> Show<'a> {
        Show {
            program: self.program,
            sum,
        }
    }
}

/// A sum written as source text: `Nim(3) + *5 + Maze.start`.
pub struct Show<'a> {
    program: &'a Program,
    sum: &'a [Component],
}

impl fmt::Display for Show<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The empty sum is the empty game, which is written `*0`.
        if self.sum.is_empty() {
            return f.write_str("*0");
        }
        for (i, component) in self.sum.iter().enumerate() {
            if i > 0 {
                f.write_str(" + ")?;
            }
            match component {
                Component::Heap(n) => write!(f, "*{n}")?,
                Component::Node(graph, node) => {
                    let graph = self.program.graph(*graph);
                    write!(f, "{}.{}", graph.name, graph.nodes[node.0 as usize])?;
                }
                Component::Game(game, args) => {
                    f.write_str(&self.program.game(*game).name)?;
                    if !args.is_empty() {
                        f.write_str("(")?;
                        for (i, arg) in args.iter().enumerate() {
                            if i > 0 {
                                f.write_str(", ")?;
                            }
                            write!(f, "{arg}")?;
                        }
                        f.write_str(")")?;
                    }
                }
            }
        }
        Ok(())
    }
}
