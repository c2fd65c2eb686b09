// The move graph's layout, in a worker of its own: dagre (vendored) takes
// seconds over a graph of hundreds of positions, and the page must answer
// meanwhile (and its Cancel end the layout at once, by ending the worker).
// The page sends the graph `parseDot` read; the worker answers with each
// box's place, each frame's and each move's route, and nothing else.
"use strict";

importScripts("/assets/dagre.min.js");

/** The longest label a box shows whole (app.js cuts the rest). */
const LABEL_CHARS = 28;

/** Lays the graph out with dagre: boxes in layers, every move pointing
 * down, edges that skip layers routed between the boxes, each component of
 * a sum in a frame of its own. */
function layoutGraph({ nodes, edges, clusters }) {
  const layout = new dagre.graphlib.Graph({ compound: true, multigraph: true });
  layout.setGraph({ rankdir: "TB", nodesep: 18, ranksep: 42, edgesep: 8, marginx: 12, marginy: 12 });
  const framed = clusters.length > 1;
  if (framed) clusters.forEach((c) => layout.setNode(c.id, { label: c.label, paddingTop: 22 }));
  for (const [id, node] of nodes) {
    const longest = Math.max(...node.label.split("\n").map((text) => Math.min(text.length, LABEL_CHARS)));
    layout.setNode(id, { width: Math.max(56, longest * 6.6 + 18), height: 36 });
    if (framed && node.cluster) layout.setParent(id, node.cluster);
  }
  edges.forEach((edge, i) => layout.setEdge(edge.from, edge.to, { minlen: 1 }, `e${i}`));
  dagre.layout(layout);
  return layout;
}

/** What the page draws from: places and routes, as plain data. */
function placed(graph) {
  const layout = layoutGraph(graph);
  const box = (id) => {
    const { x, y, width, height } = layout.node(id);
    return { x, y, width, height };
  };
  const boxes = {};
  for (const id of graph.nodes.keys()) boxes[id] = box(id);
  const frames = {};
  for (const c of graph.clusters) {
    if (layout.hasNode(c.id) && layout.node(c.id).width) frames[c.id] = box(c.id);
  }
  const routes = graph.edges.map((edge, i) => {
    const route = layout.edge({ v: edge.from, w: edge.to, name: `e${i}` });
    return route ? route.points.map(({ x, y }) => ({ x, y })) : null;
  });
  const { width, height } = layout.graph();
  return { width, height, boxes, frames, routes };
}

onmessage = ({ data }) => postMessage(placed(data));
