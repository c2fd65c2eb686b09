// The page of `sprague serve`: every panel speaks to the session through
// the JSON API the README documents.
"use strict";

const START = `# The subtraction game {1, 2, 3}: take 1, 2 or 3 tokens. Its values are
# n mod 4, so a multiple of 4 loses for the player to move.
game S = subtraction {1, 2, 3}

grundy S(n) for n in 0..=8
period S

# Kayles: knock down one pin or two side by side.
game Kayles(n) { move Kayles(a) + Kayles(n - k - a) for k in 1..=2, a in 0..=n - k }
grundy Kayles(n) for n in 0..=12

# Nim 3, 4, 5: the XOR is 2, take 2 from the heap of 3.
best_move *3 + *4 + *5
`;

const $ = (id) => document.getElementById(id);

// ---- requests, with the status line and the Cancel button ----

let pending = 0;

async function api(path, body) {
  pending += 1;
  $("status").textContent = "working…";
  $("cancel").hidden = false;
  try {
    const response = await fetch(path, {
      method: body === undefined ? "GET" : "POST",
      headers: { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await response.json();
    if (response.status === 503) throw new Error("cancelled");
    return json;
  } finally {
    pending -= 1;
    if (pending === 0) {
      $("status").textContent = "";
      $("cancel").hidden = true;
    }
  }
}

$("cancel").addEventListener("click", () => fetch("/api/cancel", { method: "POST" }));

function say(element, text, kind) {
  element.textContent = text;
  element.className = element.className.replace(/ ?(win|lose)/g, "") + (kind ? " " + kind : "");
}

// ---- the editor ----

CodeMirror.defineSimpleMode("sprague", {
  start: [
    { regex: /#.*/, token: "comment" },
    { regex: /"(?:[^\\"]|\\.)*"/, token: "string" },
    {
      regex: /(?:game|graph|move|let|for|in|while|if|then|else|and|or|not|true|false|splits|up to symmetry|grundy|wins\?|best_move|moves|play|period|diff|equal\?|crosscheck|remoteness|genus|misere|draw|plot|to|nim|why|strategy|octal|hexadecimal|subtraction|coins|turn|product|all but|subsets|under|divisors)\b/,
      token: "keyword",
    },
    { regex: /\*?\d+(?:\.\d+)?/, token: "number" },
    { regex: /[A-Z][A-Za-z0-9_]*/, token: "variable-2" },
    { regex: /[a-z_][A-Za-z0-9_]*/, token: "variable" },
  ],
  meta: { lineComment: "#" },
});

const editor = CodeMirror($("editor"), {
  value: START,
  mode: "sprague",
  lineNumbers: true,
  extraKeys: { "Ctrl-Enter": () => run(), "Cmd-Enter": () => run() },
});

let marks = [];
let lastRun = null;

async function run() {
  const source = editor.getValue();
  marks.forEach((mark) => mark.clear());
  marks = [];
  let result;
  try {
    result = await api("/api/run", { source });
  } catch (error) {
    $("answers").textContent = String(error);
    return;
  }
  lastRun = result;
  showAnswers(result);
  showErrors(result.errors || [], source);
  await refreshGames();
}

function showAnswers(result) {
  const json = $("show-json").checked;
  const rows = [];
  // An answer of several lines (moves, why, strategy) shows its first
  // beside its query, and the rest below the source, so that the answers
  // stay beside their lines.
  const details = [];
  (result.answers || []).forEach((answer, i) => {
    const line = result.lines[i];
    const [first, ...rest] = json ? [JSON.stringify(answer)] : result.texts[i].split("\n");
    rows[line] = (rows[line] ? rows[line] + "   " : "") + first;
    if (rest.length > 0) {
      details.push("", `line ${line + 1}: ${first}`, ...rest);
    }
  });
  const lines = [];
  for (let line = 0; line < Math.max(rows.length, editor.lineCount()); line += 1) {
    lines.push(rows[line] || "");
  }
  lines.push(...details);
  (result.notes || []).forEach((note) => lines.push("note: " + note));
  $("answers").textContent = lines.join("\n");
}

$("show-json").addEventListener("change", () => lastRun && showAnswers(lastRun));

// A span's offsets count bytes of UTF-8; CodeMirror counts UTF-16 units.
function position(source, byteOffset) {
  const bytes = new TextEncoder().encode(source);
  const before = new TextDecoder().decode(bytes.slice(0, byteOffset));
  return editor.posFromIndex(before.length);
}

function showErrors(errors, source) {
  const box = $("errors");
  box.textContent = "";
  for (const error of errors) {
    const div = document.createElement("div");
    div.className = "error";
    const message = document.createElement("div");
    message.textContent = error.message;
    const code = document.createElement("span");
    code.className = "code";
    code.textContent = error.code ? " " + error.code : "";
    message.appendChild(code);
    div.appendChild(message);
    for (const label of error.labels || []) {
      const from = position(source, label.span.offset);
      const to = position(source, label.span.offset + Math.max(label.span.length, 1));
      const title = `${error.message}${label.label ? ": " + label.label : ""}${error.help ? "\nhelp: " + error.help : ""}`;
      marks.push(editor.markText(from, to, { className: "cm-error-span", attributes: { title } }));
      const where = document.createElement("div");
      where.textContent = `line ${from.line + 1}: ${label.label || ""}`;
      div.appendChild(where);
    }
    if (error.help) {
      const help = document.createElement("div");
      help.className = "help";
      help.textContent = "help: " + error.help;
      div.appendChild(help);
    }
    box.appendChild(div);
  }
}

$("run").addEventListener("click", run);
$("reset").addEventListener("click", async () => {
  await api("/api/reset", {});
  $("answers").textContent = "session reset: every declaration forgotten";
  await refreshGames();
});

// ---- the board: Nim heaps, then any declared position ----

let heaps = [3, 4, 5];

function nimPosition(sizes) {
  return sizes.length ? sizes.map((n) => "*" + n).join(" + ") : "*0";
}

function drawNim() {
  const box = $("nim");
  box.textContent = "";
  heaps.forEach((size, h) => {
    const row = document.createElement("div");
    row.className = "heap";
    const label = document.createElement("span");
    label.className = "label";
    label.textContent = `heap ${h + 1}`;
    row.appendChild(label);
    for (let t = 0; t < size; t += 1) {
      const token = document.createElement("button");
      token.className = "token";
      token.title = `take this token and the ${size - t - 1} to its right`;
      token.setAttribute("data-heap", h);
      token.setAttribute("data-token", t);
      token.addEventListener("mouseenter", () => row.querySelectorAll(".token").forEach((other, i) => other.classList.toggle("doomed", i >= t)));
      token.addEventListener("mouseleave", () => row.querySelectorAll(".token").forEach((other) => other.classList.remove("doomed")));
      token.addEventListener("click", () => take(h, t));
      row.appendChild(token);
    }
    for (const [text, change, title] of [["−", -1, "one token fewer"], ["+", 1, "one token more"], ["×", 0, "remove the heap"]]) {
      const button = document.createElement("button");
      button.className = "size";
      button.textContent = text;
      button.title = title;
      button.addEventListener("click", () => {
        if (change === 0) heaps.splice(h, 1);
        else heaps[h] = Math.max(0, Math.min(30, heaps[h] + change));
        $("reply").textContent = "";
        drawNim();
      });
      row.appendChild(button);
    }
    box.appendChild(row);
  });
  const width = Math.max(1, ...heaps.map((n) => n.toString(2).length));
  const xor = heaps.reduce((a, b) => a ^ b, 0);
  const lines = heaps.map((n, h) => `heap ${h + 1}  ${n.toString(2).padStart(width, "0")}  (${n})`);
  lines.push(`XOR     ${xor.toString(2).padStart(width, "0")}  (${xor})`);
  $("binary").textContent = lines.join("\n");
  if (xor !== 0) say($("verdict"), `XOR ${xor} ≠ 0: the player to move wins`, "win");
  else say($("verdict"), "XOR 0: the player to move loses", "lose");
}

async function take(h, t) {
  const after = heaps.slice();
  after[h] = t;
  const result = await api("/api/play", { position: nimPosition(heaps), to: nimPosition(after) });
  if (result.errors) {
    $("reply").textContent = result.errors.map((e) => e.message).join("; ");
    return;
  }
  heaps = result.parts.map((part) => part.heap);
  drawNim();
  $("reply").textContent = result.reply
    ? `sprague: ${result.reply.move}. Why: ${result.why}.`
    : result.why;
}

$("add-heap").addEventListener("click", () => { heaps.push(1); drawNim(); });
$("new-nim").addEventListener("click", () => { heaps = [3, 4, 5]; $("reply").textContent = ""; drawNim(); });

function showPlay(state, note) {
  const box = $("play");
  box.textContent = "";
  const head = document.createElement("p");
  const verdict = state.wins === null ? "a draw with best play" : state.wins ? "the player to move wins" : "the player to move loses";
  head.textContent = `${note ? note + " " : ""}Position ${state.position}: grundy ${state.grundy}, ${verdict}.`;
  box.appendChild(head);
  const list = document.createElement("div");
  list.className = "moves";
  state.moves.forEach((choice, i) => {
    const button = document.createElement("button");
    button.textContent = `${i + 1}. ${choice.move}: grundy ${choice.grundy}`;
    if (choice.winning) button.classList.add("winning");
    button.addEventListener("click", async () => {
      const result = await api("/api/play", { position: state.position, move: i + 1 });
      if (result.errors) return showPlayErrors(result.errors);
      const said = result.reply ? `You: ${result.you.move}. sprague: ${result.reply.move} (${result.why}).` : `You: ${result.you.move}. ${result.why}.`;
      showPlay(result, said + (result.winner === "sprague" ? " You have no move: sprague wins." : ""));
    });
    list.appendChild(button);
  });
  box.appendChild(list);
}

function showPlayErrors(errors) {
  $("play").textContent = errors.map((e) => e.message + (e.help ? ` (help: ${e.help})` : "")).join("\n");
}

$("play-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const result = await api("/api/moves", { position: $("play-position").value });
  if (result.errors) return showPlayErrors(result.errors);
  showPlay(result);
});

// ---- the sequence of a one-parameter game ----

let games = [];

async function refreshGames() {
  const result = await api("/api/games");
  games = result.games || [];
  const select = $("sequence-game");
  const chosen = select.value;
  select.textContent = "";
  for (const game of games.filter((g) => g.parameters === 1)) {
    const option = document.createElement("option");
    option.value = game.name;
    option.textContent = game.name;
    select.appendChild(option);
  }
  if ([...select.options].some((o) => o.value === chosen)) select.value = chosen;
}

async function plotSequence() {
  const game = $("sequence-game").value;
  const to = Math.max(1, Math.min(2000, Number($("sequence-to").value) || 40));
  if (!game) return;
  const result = await api("/api/run", { source: `grundy ${game}(n) for n in 0..=${to}\nperiod ${game}` });
  if (result.errors.length) {
    $("sequence-note").textContent = result.errors.map((e) => e.message).join("; ");
    return;
  }
  const values = result.answers.filter((a) => a.query === "grundy").map((a) => a.value);
  const period = result.answers.find((a) => a.query === "period");
  drawSequence(values, period);
}

function svg(tag, attributes, parent) {
  const element = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  if (parent) parent.appendChild(element);
  return element;
}

function drawSequence(values, period) {
  const [width, height, pad] = [640, 260, 34];
  const top = Math.max(1, ...values.filter((v) => typeof v === "number"));
  const x = (n) => pad + (n * (width - 2 * pad)) / Math.max(1, values.length - 1);
  const y = (g) => height - pad - (g * (height - 2 * pad)) / top;
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img" });
  svg("line", { x1: pad, y1: height - pad, x2: width - pad, y2: height - pad, stroke: "#98a2b3" }, root);
  svg("line", { x1: pad, y1: pad, x2: pad, y2: height - pad, stroke: "#98a2b3" }, root);
  svg("text", { x: pad, y: height - 8 }, root).textContent = "0";
  svg("text", { x: width - pad - 20, y: height - 8 }, root).textContent = String(values.length - 1);
  svg("text", { x: 4, y: y(top) + 4 }, root).textContent = String(top);
  if (period && period.period && period.proven) {
    const start = period.preperiod;
    for (let n = start; n < values.length; n += period.period) {
      svg("line", { x1: x(n), y1: pad - 6, x2: x(n), y2: height - pad, stroke: "#c7d2fe", "stroke-dasharray": "3 3" }, root);
    }
    svg("text", { x: x(start) + 3, y: pad - 10 }, root).textContent = `period ${period.period}, preperiod ${period.preperiod}`;
  }
  values.forEach((g, n) => {
    if (typeof g !== "number") return;
    const dot = svg("circle", { cx: x(n), cy: y(g), r: 3.5, fill: "#2f5fd0" }, root);
    svg("title", {}, dot).textContent = `n = ${n}, G(n) = ${g}`;
  });
  $("sequence").textContent = "";
  $("sequence").appendChild(root);
  $("sequence-note").textContent = period && period.period
    ? `${$("sequence-game").value}: period ${period.period} from n = ${period.preperiod}${period.proven ? " (proven)" : ""}`
    : "no period found";
}

$("sequence-form").addEventListener("submit", (event) => { event.preventDefault(); plotSequence(); });

// ---- the move graph, laid out here from the `draw` query's DOT ----

function parseDot(dot) {
  const nodes = new Map();
  const edges = [];
  for (const line of dot.split("\n")) {
    const node = line.match(/^\s*(c\d+_\d+) \[label="((?:[^"\\]|\\.)*)"(.*)\];/);
    if (node) {
      nodes.set(node[1], { id: node[1], label: node[2].replace(/\\n/g, "\n").replace(/\\"/g, '"'), terminal: node[3].includes("box"), zero: node[3].includes("filled") });
      continue;
    }
    const edge = line.match(/^\s*(c\d+_\d+) -> (c\d+_\d+)(.*);/);
    if (edge) edges.push({ from: edge[1], to: edge[2], best: edge[3].includes("bold") });
  }
  return { nodes, edges };
}

function drawGraph({ nodes, edges }) {
  // Layers by the longest path from the root: every edge points down.
  const depth = new Map([...nodes.keys()].map((id) => [id, 0]));
  for (let round = 0; round < nodes.size; round += 1) {
    let changed = false;
    for (const edge of edges) {
      if (edge.from === edge.to) continue;
      const d = depth.get(edge.from) + 1;
      if (d > depth.get(edge.to) && d < nodes.size) { depth.set(edge.to, d); changed = true; }
    }
    if (!changed) break;
  }
  const layers = [];
  for (const [id, d] of depth) (layers[d] = layers[d] || []).push(id);
  const [boxWidth, boxHeight, gapX, gapY] = [130, 36, 20, 46];
  const widest = Math.max(1, ...layers.map((layer) => (layer || []).length));
  const width = widest * (boxWidth + gapX) + gapX;
  const height = layers.length * (boxHeight + gapY) + gapY;
  const place = new Map();
  layers.forEach((layer, d) => (layer || []).forEach((id, i) => {
    const offset = (width - layer.length * (boxWidth + gapX) + gapX) / 2;
    place.set(id, { x: offset + i * (boxWidth + gapX), y: gapY / 2 + d * (boxHeight + gapY) });
  }));
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img" });
  const defs = svg("defs", {}, root);
  const arrow = svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto" }, defs);
  svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "#475467" }, arrow);
  for (const edge of edges) {
    const a = place.get(edge.from);
    const b = place.get(edge.to);
    if (!a || !b) continue;
    svg("line", {
      x1: a.x + boxWidth / 2, y1: a.y + boxHeight, x2: b.x + boxWidth / 2, y2: b.y,
      stroke: edge.best ? "#1b7f3b" : "#98a2b3", "stroke-width": edge.best ? 2.5 : 1, "marker-end": "url(#arrow)",
    }, root);
  }
  for (const [id, node] of nodes) {
    const at = place.get(id);
    svg("rect", { x: at.x, y: at.y, width: boxWidth, height: boxHeight, rx: node.terminal ? 10 : 4, fill: node.zero ? "#e4e7ec" : "#fff", stroke: "#475467" }, root);
    node.label.split("\n").forEach((text, i) => {
      svg("text", { x: at.x + boxWidth / 2, y: at.y + 15 + i * 13, "text-anchor": "middle" }, root).textContent = text.length > 22 ? text.slice(0, 21) + "…" : text;
    });
  }
  $("graph").textContent = "";
  $("graph").appendChild(root);
}

$("graph-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const result = await api("/api/run", { source: `draw ${$("graph-position").value}` });
  if (result.errors.length) {
    $("graph").textContent = result.errors.map((e) => e.message + (e.help ? ` (help: ${e.help})` : "")).join("\n");
    return;
  }
  drawGraph(parseDot(result.answers[0].content));
});

// ---- the cross-check of the XOR rule ----

function randomSum() {
  const pick = (n) => Math.floor(Math.random() * n);
  const parts = [];
  const count = 2 + pick(2);
  const usable = games.filter((g) => g.parameters >= 1 && g.parameters <= 2);
  for (let i = 0; i < count; i += 1) {
    if (!usable.length || pick(4) === 0) {
      parts.push("*" + pick(6));
      continue;
    }
    const game = usable[pick(usable.length)];
    const args = Array.from({ length: game.parameters }, () => pick(game.parameters === 1 ? 10 : 5));
    parts.push(`${game.name}(${args.join(", ")})`);
  }
  return parts.join(" + ");
}

$("check-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  await refreshGames();
  const count = Math.max(1, Math.min(5000, Number($("check-count").value) || 300));
  const sums = Array.from({ length: count }, randomSum);
  say($("check"), `checking ${count} random sums…`);
  let result;
  try {
    result = await api("/api/run", { source: sums.map((sum) => `crosscheck ${sum}`).join("\n") });
  } catch (error) {
    say($("check"), String(error), "lose");
    return;
  }
  const checks = result.answers.filter((a) => a.query === "crosscheck");
  const agreed = checks.filter((a) => a.agree).length;
  const failed = result.errors.length ? ` (${result.errors.length} could not be searched: ${result.errors[0].message})` : "";
  say($("check"), `agreed ${agreed}/${checks.length}${failed}`, agreed === checks.length && checks.length > 0 ? "win" : "lose");
});

// ---- start: run the example, show 3-4-5 and plot S ----

(async () => {
  drawNim();
  await run();
  if ([...$("sequence-game").options].some((o) => o.value === "S")) $("sequence-game").value = "S";
  await plotSequence();
})();
