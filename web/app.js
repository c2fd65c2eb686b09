// The page of `sprague serve`: every panel speaks to the session through
// the JSON API the README documents, each in a lane of its own, so that a
// long run in one panel leaves the others answering.
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

// ---- requests: each panel's lane, its status, its Cancel button ----

/** Thrown when the server does not answer at all. */
class ServerGone extends Error {}
/** Thrown when a computation was cancelled. */
class Cancelled extends Error {}

const busy = {};
/** The control each lane's computation was started from. */
const startedFrom = {};

function panelOf(lane) {
  return document.querySelector(`[data-lane="${lane}"]`);
}

function setBusy(lane, on) {
  busy[lane] = on;
  if (on) startedFrom[lane] = document.activeElement;
  // A Cancel pressed from the keyboard hides itself: the focus goes back
  // to what started the computation, not to the top of the page.
  const focused = document.activeElement;
  const onCancel = !on && focused && focused.classList.contains("cancel");
  const panel = panelOf(lane);
  if (panel) {
    panel.setAttribute("aria-busy", on ? "true" : "false");
    // Buttons that would queue another computation behind this one.
    panel.querySelectorAll(".busy-off").forEach((button) => button.setAttribute("aria-disabled", on ? "true" : "false"));
    panel.querySelectorAll(".cancel").forEach((button) => { button.hidden = !on; });
    if (!on) laneStatus(lane, "");
  }
  $("cancel-all").hidden = !Object.values(busy).some(Boolean);
  if (onCancel && focused.hidden) {
    const back = startedFrom[lane];
    const shown = back && back.isConnected && back.getClientRects().length > 0;
    (shown ? back : panel?.querySelector("button:not([hidden])"))?.focus();
  }
  if (on) watchProgress();
}

function laneStatus(lane, text) {
  const status = panelOf(lane)?.querySelector(".lane-status");
  if (status) status.textContent = text;
}

let watching = false;

// While anything runs, asks how far each lane's computation has gone.
async function watchProgress() {
  if (watching) return;
  watching = true;
  try {
    while (Object.values(busy).some(Boolean)) {
      await new Promise((resolve) => setTimeout(resolve, 400));
      let progress;
      try {
        progress = await (await fetch("/api/progress")).json();
      } catch (error) {
        break;
      }
      // A run declares its games before it answers: the lists follow.
      if (busy.editor) await refreshGames().catch(() => {});
      for (const [lane, state] of Object.entries(progress.lanes || {})) {
        if (!busy[lane]) continue;
        const more = state.waiting ? ` (${thousands(state.waiting)} more waiting)` : "";
        if (state.busy) laneStatus(lane, `working… ${state.seconds.toFixed(1)} s, ${progressCounts(state)}${more}`);
        // Listed but not running: waiting for a thread another lane holds.
        else if (state.waiting) laneStatus(lane, "waiting for another computation to end…");
      }
    }
  } finally {
    watching = false;
  }
}

/** What a lane's computation has gone through: the positions solved, and
 * the sums a search of whole sums entered or the positions the pruned
 * search listed (while these run, the positions solved stay as many). */
function progressCounts(state) {
  const counts = [`${thousands(state.positions)} positions`];
  if (state.sums) counts.push(`${thousands(state.sums)} sums searched`);
  if (state.listed) counts.push(`${thousands(state.listed)} positions listed`);
  return counts.join(", ");
}

/** The largest request body the server takes (`MAX_BODY` in
 * src/serve/mod.rs; tests/serve.rs keeps the two equal). */
const MAX_BODY = 1048576;

async function request(path, body) {
  const sent = body === undefined ? undefined : JSON.stringify(body);
  // Said here, not sent to be refused: a refused request is an error in
  // the browser's console too.
  const size = sent === undefined ? 0 : new Blob([sent]).size;
  if (size > MAX_BODY) {
    throw new Error(`too large to send: ${thousands(size)} bytes, where the server takes ${thousands(MAX_BODY)} a request; serve a long source as a file (sprague serve FILE) instead`);
  }
  let response;
  try {
    response = await fetch(path, {
      method: body === undefined ? "GET" : "POST",
      headers: { "Content-Type": "application/json" },
      body: sent,
    });
  } catch (error) {
    serverGone();
    throw new ServerGone("the server is not answering");
  }
  let json;
  try {
    json = await response.json();
  } catch (error) {
    serverGone();
    throw new ServerGone("the server's answer was cut off");
  }
  if (response.status === 503) throw json.error === "cancelled" ? new Cancelled("cancelled") : new Error(json.error);
  if (json.error) throw new Error(json.error);
  $("gone").hidden = true;
  return json;
}

/** Whether a run's answer says its Cancel stopped it. */
function interrupted(result) {
  return (result.errors || []).some((error) => error.code === "sprague::eval::interrupted");
}

/**
 * Asks the server in a panel's lane, showing the panel busy meanwhile. A
 * computation its Cancel stopped is `Cancelled` (the editor alone shows
 * what its run answered before).
 */
async function api(lane, path, body) {
  setBusy(lane, true);
  laneStatus(lane, "working…");
  let result;
  try {
    result = await request(path, body === undefined ? undefined : { ...body, lane });
  } finally {
    setBusy(lane, false);
  }
  if (lane !== "editor" && interrupted(result)) throw new Cancelled("cancelled");
  return result;
}

function serverGone() {
  const banner = $("gone");
  banner.textContent = "The server is not answering: `sprague serve` may have stopped. Start it again, then reload this page.";
  banner.hidden = false;
}

/**
 * A handler for a panel: ignored while the panel is busy; an error is
 * shown in the panel's status line, never left uncaught.
 */
function handler(lane, work) {
  return async (event) => {
    if (event && event.preventDefault) event.preventDefault();
    if (busy[lane]) return;
    try {
      await work(event);
    } catch (error) {
      if (error instanceof Cancelled) laneStatus(lane, "cancelled");
      else if (error instanceof ServerGone) laneStatus(lane, "no answer: the server is gone");
      else laneStatus(lane, String(error.message || error));
    }
  };
}

document.querySelectorAll("[data-lane]").forEach((panel) => {
  panel.querySelectorAll(".cancel").forEach((button) => button.addEventListener("click", () => cancelLane(panel.dataset.lane)));
});
$("cancel-all").addEventListener("click", () => Object.keys(busy).filter((lane) => busy[lane]).forEach(cancelLane));

/**
 * Stops what a lane is doing: its layout, which the page ends itself, or
 * else its computation in the server. (A cancel sent to a server already
 * done would stop the lane's next computation instead.)
 */
function cancelLane(lane) {
  if (!stopLayout(lane)) request("/api/cancel", { lane }).catch(() => {});
}

function say(element, text, kind) {
  element.textContent = text;
  element.classList.remove("win", "lose");
  if (kind) element.classList.add(kind);
}

// ---- the editor ----

// The language's words (tests/editors.rs checks them against the grammar).
const KEYWORDS = [
  "game", "graph", "move", "let", "for", "in", "while", "if", "then", "else", "and", "or",
  "not", "true", "false", "splits", "up to symmetry", "grundy", "wins?", "best_move", "moves",
  "play", "period", "diff", "equal?", "crosscheck", "remoteness", "genus", "misere", "draw",
  "plot", "to", "nim", "why", "strategy", "octal", "hexadecimal", "subtraction", "coins", "turn",
  "product", "all but", "subsets", "under", "divisors", "quotient", "up", "nodes", "edge",
];

// Longest first, so that `moves` is not read as `move`; a word ends where
// no letter, digit or `_` follows (`\b` would not end `wins?`).
const KEYWORD = new RegExp(`(?:${[...KEYWORDS].sort((a, b) => b.length - a.length)
  .map((word) => word.replace("?", "\\?")).join("|")})(?![A-Za-z0-9_])`);

CodeMirror.defineSimpleMode("sprague", {
  start: [
    { regex: /#.*/, token: "comment" },
    { regex: /"(?:[^\\"]|\\.)*"/, token: "string" },
    { regex: KEYWORD, token: "keyword" },
    { regex: /\*?\d+(?:\.\d+)?/, token: "number" },
    { regex: /[A-Z][A-Za-z0-9_]*/, token: "variable-2" },
    { regex: /[a-z_][A-Za-z0-9_]*/, token: "variable" },
  ],
  meta: { lineComment: "#" },
});

// Tab indents, as in any code editor; Escape then Tab (or Shift-Tab)
// leaves the editor for the next (or previous) control, as CodeMirror 6
// does, so the editor is no keyboard trap.
let leaving = false;

function focusables() {
  return [...document.querySelectorAll("button, input, select, textarea, a[href], [tabindex]:not([tabindex='-1'])")]
    .filter((element) => !element.disabled && !element.hidden && element.getClientRects().length > 0);
}

function leaveEditor(step) {
  leaving = false;
  const all = focusables();
  const inside = all.filter((element) => $("editor").contains(element));
  const at = all.indexOf(step > 0 ? inside[inside.length - 1] : inside[0]);
  const next = all[at + step];
  if (next) next.focus();
  else editor.getInputField().blur();
}

const editor = CodeMirror($("editor"), {
  value: "",
  mode: "sprague",
  lineNumbers: true,
  screenReaderLabel: "source: Ctrl-Enter runs; Escape then Tab leaves the editor",
  extraKeys: {
    "Ctrl-Enter": () => runEditor(),
    "Cmd-Enter": () => runEditor(),
    Esc: () => { leaving = true; },
    Tab: (cm) => (leaving ? leaveEditor(1) : CodeMirror.Pass),
    "Shift-Tab": (cm) => (leaving ? leaveEditor(-1) : cm.execCommand("indentLess")),
  },
});
editor.on("keydown", (cm, event) => {
  if (!["Escape", "Tab", "Shift"].includes(event.key)) leaving = false;
});
editor.on("blur", () => { leaving = false; });

// The answers sit beside their lines: the pane scrolls with the editor.
editor.on("scroll", () => { $("answers").scrollTop = editor.getScrollInfo().top; });
$("answers").addEventListener("scroll", () => {
  if (Math.abs(editor.getScrollInfo().top - $("answers").scrollTop) > 1) editor.scrollTo(null, $("answers").scrollTop);
});

let marks = [];

/**
 * The last run: what it answered (null while it runs), and where each line
 * of the source it ran is now (`at[line]`, -1 once deleted), as the source
 * is edited after it: its answers stay beside their queries.
 */
let lastRun = null;

editor.on("change", (cm, { from, removed, text }) => {
  if (!lastRun) return;
  const [gone, added] = [removed.length - 1, text.length - 1];
  if (gone === 0 && added === 0) return;
  // Of the lines the change touched, one still starts a line: the first,
  // unless the change began at its start (then the last, whose rest
  // follows what was typed). The others are gone.
  const kept = from.ch === 0 ? from.line + gone : from.line;
  lastRun.at = lastRun.at.map((line) => {
    if (line < from.line) return line;
    if (line > from.line + gone) return line - gone + added;
    if (line !== kept) return -1;
    return from.ch === 0 ? from.line + added : line;
  });
  if (lastRun.result) showBeside();
});

/** The longest answer shown beside its line; the rest goes below. */
const BESIDE = 72;

/** How many characters fit across the answers pane: no wider is shown beside a line. */
function paneColumns() {
  const pane = $("answers");
  const probe = document.createElement("span");
  probe.textContent = "0".repeat(20);
  pane.appendChild(probe);
  const glyph = probe.getBoundingClientRect().width / 20;
  probe.remove();
  const style = getComputedStyle(pane);
  const inner = pane.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return Math.max(16, Math.min(BESIDE, Math.floor(inner / glyph)));
}

/** The move graphs of the last run, laid out, by their DOT: a resize redraws from them. */
let laidOut = new Map();

const runEditor = handler("editor", async () => {
  const source = editor.getValue();
  marks.forEach((mark) => mark.clear());
  marks = [];
  // What the last run answered no longer matches the source.
  $("answers").textContent = "";
  $("details").textContent = "";
  $("errors").textContent = "";
  lastRun = { result: null, source, at: source.split("\n").map((_, line) => line) };
  laidOut = new Map();
  let result;
  try {
    result = await api("editor", "/api/run", { source });
  } catch (error) {
    lastRun = null;
    throw error;
  }
  lastRun.result = result;
  if (!result.answers.length && !result.errors.length) {
    laneStatus("editor", source.trim() ? "done: the source has no queries to answer" : "nothing to run: the source is empty");
  }
  const graphs = showAnswers(result);
  showErrors(result.errors || [], source);
  await refreshGames();
  await drawGraphs("editor", graphs);
  if (interrupted(result)) laneStatus("editor", "cancelled");
});

/** Lays out and draws each move graph an answer holds, in the place kept
 * for it; `again` draws only those laid out before. */
async function drawGraphs(lane, graphs, again = false) {
  for (const [place, graph, dot] of graphs) {
    try {
      if (again && !laidOut.has(dot)) throw new Cancelled("cancelled");
      const placed = laidOut.get(dot) || (await layOut(lane, graph));
      laidOut.set(dot, placed);
      place.replaceWith(drawGraph(graph, placed));
    } catch (error) {
      place.textContent = error instanceof Cancelled ? "The layout was cancelled." : String(error.message || error);
      throw error;
    }
  }
}

/** What an answer shows beside its query: its first line, or what is drawn below. */
function firstLine(result, i, json) {
  const answer = result.answers[i];
  if (!json && (answer.query === "draw" || answer.query === "plot") && answer.content) return `${answer.query} ${answer.position}: drawn below`;
  return (json ? JSON.stringify(answer) : result.texts[i]).split("\n")[0];
}

/** Each line's answers (a table has many), by the line of its query in the source run. */
function answersByLine(result, json) {
  const byLine = [];
  (result.answers || []).forEach((answer, i) => {
    const line = result.lines[i];
    (byLine[line] = byLine[line] || []).push(firstLine(result, i, json));
  });
  return byLine;
}

/**
 * Shows the last run's answers: beside their lines, and below the source
 * in full where they do not fit there. Returns the move graphs still to
 * lay out, each with the place kept for it.
 */
function showAnswers(result) {
  const json = $("show-json").checked;
  const graphs = [];
  // An answer of several lines (moves, why, strategy), a line of answers
  // too wide for the pane (a table) and a picture show their first line
  // beside the query, cut if need be, and the whole below the source, so
  // that the answers stay beside their lines.
  const below = new Set();
  const figures = [];
  (result.answers || []).forEach((answer, i) => {
    const line = result.lines[i];
    const text = json ? JSON.stringify(answer) : result.texts[i];
    const picture = !json && (answer.query === "draw" || answer.query === "plot") && answer.content;
    if (picture) {
      const label = `${answer.query} ${answer.position}`;
      let shown;
      if (answer.format === "dot") {
        shown = document.createElement("p");
        shown.className = "note";
        shown.textContent = "laying out…";
        graphs.push([shown, parseDot(answer.content), answer.content]);
      } else {
        shown = svgImage(answer.content, label);
      }
      figures.push(figure(line, label, shown));
    } else if (text.includes("\n")) {
      below.add(line);
      figures.push(figure(line, "", preformatted(text)));
    }
  });
  const columns = paneColumns();
  answersByLine(result, json).forEach((answers, line) => {
    if (answers.join("   ").length > columns && (answers.length > 1 || !below.has(line))) {
      figures.push(figure(line, "", preformatted(answers.join("\n"))));
    }
  });
  $("answers").dataset.columns = columns;
  showBeside();
  $("details").textContent = "";
  figures.sort((a, b) => a.line - b.line).forEach((block) => $("details").appendChild(block));
  return graphs;
}

/** The answers pane: each line's answers beside the line its query is on
 * now, cut where the pane ends; then the run's notes. */
function showBeside() {
  const { result, at } = lastRun;
  const columns = Number($("answers").dataset.columns);
  const byLine = [];
  answersByLine(result, $("show-json").checked).forEach((answers, line) => {
    if (at[line] >= 0) byLine[at[line]] = answers;
  });
  const lines = [];
  for (let line = 0; line < Math.max(byLine.length, editor.lineCount()); line += 1) {
    const beside = (byLine[line] || []).join("   ");
    lines.push(beside.length <= columns ? beside : beside.slice(0, columns - 1) + "…");
  }
  (result.notes || []).forEach((note) => lines.push("note: " + note));
  $("answers").textContent = lines.join("\n");
  $("answers").scrollTop = editor.getScrollInfo().top;
}

/** What a line answered, in full, below the source. */
function figure(line, label, content) {
  const block = document.createElement("figure");
  block.line = line;
  const title = document.createElement("figcaption");
  title.textContent = `line ${line + 1}${label ? ": " + label : ""}`;
  block.appendChild(title);
  block.appendChild(content);
  return block;
}

function preformatted(text) {
  const pre = document.createElement("pre");
  pre.textContent = text;
  // Scrollable, so reachable by keyboard.
  pre.tabIndex = 0;
  return pre;
}

/**
 * An SVG the server drew, shown as an image: no script in it runs. On a
 * phone it scrolls sideways at a legible size, so the keyboard reaches it.
 */
function svgImage(text, label) {
  const image = document.createElement("img");
  image.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(text);
  image.alt = label;
  image.className = "picture";
  const scroll = document.createElement("div");
  scroll.className = "picture-scroll";
  scroll.tabIndex = 0;
  scroll.setAttribute("role", "region");
  scroll.setAttribute("aria-label", label);
  scroll.appendChild(image);
  return scroll;
}

// A pane grown or shrunk past a character shows the answers cut anew.
new ResizeObserver(() => {
  if (!lastRun?.result || busy.editor || paneColumns() === Number($("answers").dataset.columns)) return;
  drawGraphs("editor", showAnswers(lastRun.result), true).catch(() => {});
}).observe($("answers"));

$("show-json").addEventListener("change", handler("editor", async () => {
  if (lastRun?.result) await drawGraphs("editor", showAnswers(lastRun.result));
}));

// A span's offsets count bytes of UTF-8; CodeMirror counts UTF-16 units.
function position(source, byteOffset) {
  const bytes = new TextEncoder().encode(source);
  const before = new TextDecoder().decode(bytes.slice(0, byteOffset));
  return editor.posFromIndex(before.length);
}

/** Each error, and each of the errors a report gathers, with its lines underlined. */
function showErrors(errors, source) {
  const box = $("errors");
  box.textContent = "";
  const each = [];
  for (const error of errors) {
    if ((error.related || []).length > 0) {
      const summary = document.createElement("p");
      summary.className = "summary";
      summary.textContent = error.message + (error.help ? ` (${error.help})` : "");
      box.appendChild(summary);
      each.push(...error.related);
    } else {
      each.push(error);
    }
  }
  for (const error of each) box.appendChild(showError(error, source));
}

/** The place just after the last word before `at` (blanks and line ends skipped). */
function afterLastWord(at) {
  const text = editor.getValue();
  let index = editor.indexFromPos(at);
  while (index > 0 && /\s/.test(text[index - 1])) index -= 1;
  return editor.posFromIndex(index);
}

/** A mark where a slip has no text of its own to underline. */
function slipMark(title) {
  const mark = document.createElement("span");
  mark.className = "cm-error-span cm-error-here";
  mark.title = title;
  mark.textContent = "\u2002";
  return mark;
}

/** The help of an error as the page's user acts on it: a query the
 * Cancel button stopped is not one Ctrl-C stopped. */
function helpOf(error) {
  if (error.code !== "sprague::eval::interrupted") return error.help;
  return "Cancel stopped the search; the queries after it were not asked. The values found so far are kept: Run again to go on.";
}

function showError(error, source) {
  error = { ...error, help: helpOf(error) };
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
    let from = position(source, label.span.offset);
    let to = position(source, label.span.offset + Math.max(label.span.length, 1));
    const title = `${error.message}${label.label ? ": " + label.label : ""}${error.help ? "\nhelp: " + error.help : ""}`;
    if (editor.getRange(from, to).trim() === "") {
      // Nothing there to underline (the end of the input, or of a line):
      // the slip is marked just after the last word before it.
      from = to = afterLastWord(from);
      marks.push(editor.setBookmark(from, { widget: slipMark(title), insertLeft: true }));
    } else {
      marks.push(editor.markText(from, to, { className: "cm-error-span", attributes: { title } }));
    }
    const where = document.createElement("button");
    where.className = "where";
    where.textContent = `line ${from.line + 1}: ${label.label || ""}`;
    where.title = "go to this line in the editor";
    where.addEventListener("click", () => { editor.focus(); editor.setSelection(from, to); });
    div.appendChild(where);
  }
  if (error.help) {
    const help = document.createElement("div");
    help.className = "help";
    help.textContent = "help: " + error.help;
    div.appendChild(help);
  }
  return div;
}

$("run").addEventListener("click", runEditor);

/** What the editor opens on: the served files, or else the example. */
function startingSource() {
  return files.length ? files.map((file) => `# ${file.name}\n${file.text}`).join("\n") : START;
}

// The way back to the served files (or the example) after an edit or a
// Reset: their source in the editor again, run.
$("restore").addEventListener("click", handler("editor", async () => {
  editor.setValue(startingSource());
  await runEditor();
}));
$("reset").addEventListener("click", async () => {
  try {
    await request("/api/reset", {});
    lastRun = null;
    $("answers").textContent = "session reset: every declaration forgotten but the served files'";
    $("details").textContent = "";
    await refreshGames();
  } catch (error) {
    laneStatus("editor", String(error.message || error));
  }
});

// ---- the board: Nim heaps, then any declared position ----

let heaps = [3, 4, 5];

function nimPosition(sizes) {
  return sizes.length ? sizes.map((n) => "*" + n).join(" + ") : "*0";
}

/** Redraws the heaps; the control named `focus` (or the nearest left) keeps the focus. */
function drawNim(focus) {
  const box = $("nim");
  box.textContent = "";
  heaps.forEach((size, h) => {
    const row = document.createElement("div");
    row.className = "heap";
    row.setAttribute("role", "group");
    row.setAttribute("aria-label", `heap ${h + 1} of ${size}`);
    const label = document.createElement("span");
    label.className = "label";
    label.textContent = `heap ${h + 1}`;
    row.appendChild(label);
    const tokens = document.createElement("span");
    tokens.className = "tokens";
    for (let t = 0; t < size; t += 1) {
      const token = document.createElement("button");
      token.className = "token";
      const taken = size - t;
      token.setAttribute("aria-label", `take ${taken} from heap ${h + 1}, leaving ${t}`);
      token.title = `take this token and the ${size - t - 1} to its right`;
      token.dataset.heap = h;
      token.dataset.token = t;
      token.dataset.key = `token-${h}-${t}`;
      token.addEventListener("mouseenter", () => tokens.querySelectorAll(".token").forEach((other, i) => other.classList.toggle("doomed", i >= t)));
      token.addEventListener("mouseleave", () => tokens.querySelectorAll(".token").forEach((other) => other.classList.remove("doomed")));
      token.addEventListener("click", handler("board", () => take(h, t)));
      tokens.appendChild(token);
    }
    row.appendChild(tokens);
    // The heap's size buttons wrap together, never one alone.
    const sizes = document.createElement("span");
    sizes.className = "sizes";
    row.appendChild(sizes);
    for (const [text, change, title] of [["−", -1, "one token fewer"], ["+", 1, "one token more"], ["×", 0, "remove the heap"]]) {
      const button = document.createElement("button");
      button.className = "size";
      button.textContent = text;
      button.title = title;
      button.setAttribute("aria-label", `heap ${h + 1}: ${title}`);
      button.dataset.key = `size-${h}-${change}`;
      button.addEventListener("click", () => {
        if (change === 0) heaps.splice(h, 1);
        else heaps[h] = Math.max(0, Math.min(30, heaps[h] + change));
        $("reply").textContent = "";
        $("hint-text")?.remove();
        drawNim(change === 0 ? `size-${Math.max(0, h - 1)}-0` : `size-${h}-${change}`);
      });
      sizes.appendChild(button);
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
  if (focus) {
    const [kind, h] = focus.split("-");
    const near = [focus, `size-${h}-1`, `token-${h}-0`, kind === "size" ? "size-0-1" : ""].map((key) => box.querySelector(`[data-key="${key}"]`)).find(Boolean);
    (near || $("add-heap")).focus();
  }
}

async function take(h, t) {
  const after = heaps.slice();
  after[h] = t;
  const result = await api("board", "/api/play", { position: nimPosition(heaps), to: nimPosition(after) });
  if (result.errors) {
    $("reply").textContent = result.errors.map((e) => e.message).join("; ");
    return;
  }
  heaps = result.parts.map((part) => part.heap);
  drawNim(`token-${h}-${t}`);
  $("reply").textContent = result.reply
    ? `sprague: ${result.reply.move}. Why: ${result.why}.`
    : result.why;
}

// The engine moves first from the heaps as they stand.
$("engine-first").addEventListener("click", handler("board", async () => {
  const result = await api("board", "/api/play", { position: nimPosition(heaps), first: true });
  if (result.errors) {
    $("reply").textContent = result.errors.map((e) => e.message).join("; ");
    return;
  }
  heaps = result.parts.map((part) => part.heap).filter((n) => n > 0);
  drawNim();
  $("reply").textContent = result.reply
    ? `sprague moves first: ${result.reply.move}. Why: ${result.why}.${result.winner === "sprague" ? " You have no move: sprague wins." : " Your move."}`
    : `${result.why}.`;
}));

$("add-heap").addEventListener("click", () => { heaps.push(1); drawNim(); });
$("new-nim").addEventListener("click", () => { heaps = [3, 4, 5]; $("reply").textContent = ""; drawNim(); });

// The winning move, as the XOR rule finds it: the highest 1 of the XOR,
// a heap with a 1 in that column, and the size that clears the XOR;
// the engine's own winning move beside it.
$("hint").addEventListener("click", handler("board", async () => {
  const xor = heaps.reduce((a, b) => a ^ b, 0);
  const state = await api("board", "/api/moves", { position: nimPosition(heaps) });
  const winning = (state.moves || []).filter((choice) => choice.winning).map((choice) => choice.move);
  let text;
  if (xor === 0) {
    text = "The XOR is 0: every move leaves a nonzero XOR, so no move wins; take one token and hope.";
  } else {
    const column = 1 << (31 - Math.clz32(xor));
    const h = heaps.findIndex((n) => (n & column) !== 0);
    const target = heaps[h] ^ xor;
    text = `The XOR is ${xor.toString(2)}; its highest 1 is in the ${column}s column. Heap ${h + 1} (${heaps[h]} = ${heaps[h].toString(2)}) has a 1 there: take ${heaps[h] - target} from the heap of ${heaps[h]}, leaving ${target}, and the XOR is 0.`;
  }
  $("reply").textContent = `${text} Winning moves: ${winning.length ? winning.join(", ") : "none"}.`;
}));

/** The most moves listed at once: a sum of thousands of parts has tens of
 * thousands (50,000 heaps of 3, 150,000 moves, held the page still for
 * 7 s), so more are listed when asked. */
const MOVES_LISTED = 500;

function showPlay(state, note) {
  const box = $("play");
  box.textContent = "";
  const head = document.createElement("p");
  const verdict = state.wins === null ? "a draw with best play" : state.wins ? "the player to move wins" : "the player to move loses";
  head.textContent = `${note ? note + " " : ""}Position ${state.position}: grundy ${state.grundy}, ${verdict}.`;
  box.appendChild(head);
  if (state.parts.length === 1) box.appendChild(mexLine(state));
  const list = document.createElement("div");
  list.className = "moves";
  box.appendChild(list);
  listMoves(state, list, 0);
}

/** Lists `MOVES_LISTED` of a position's moves from the `from`-th, and a
 * button for the next ones if there are more; answers the first listed. */
function listMoves(state, list, from) {
  const buttons = state.moves.slice(from, from + MOVES_LISTED).map((choice, k) => {
    const i = from + k;
    const button = document.createElement("button");
    button.textContent = `${i + 1}. ${choice.move}: grundy ${choice.grundy}`;
    if (choice.winning) button.classList.add("winning");
    button.addEventListener("click", handler("board", async () => {
      const result = await api("board", "/api/play", { position: state.position, move: i + 1 });
      if (result.errors) return showPlayErrors(result.errors);
      const said = result.reply ? `You: ${result.you.move}. sprague: ${result.reply.move} (${result.why}).` : `You: ${result.you.move}. ${result.why}.`;
      showPlay(result, said + (result.winner === "sprague" ? " You have no move: sprague wins." : ""));
      $("play").querySelector("button")?.focus();
    }));
    list.appendChild(button);
    return button;
  });
  const next = from + buttons.length;
  if (next < state.moves.length) {
    const more = document.createElement("button");
    more.type = "button";
    more.className = "more-moves";
    more.textContent = `List ${thousands(Math.min(MOVES_LISTED, state.moves.length - next))} more (${thousands(next)} of ${thousands(state.moves.length)} moves listed)`;
    more.addEventListener("click", () => {
      more.remove();
      listMoves(state, list, next)?.focus();
    });
    list.after(more);
  }
  return buttons[0];
}

/** The mex, shown: a position's options' values and the smallest missing one. */
function mexLine(state) {
  const line = document.createElement("p");
  line.className = "mex";
  const values = [...new Set(state.moves.map((choice) => choice.grundy))];
  const numbers = values.filter((v) => /^\d+$/.test(v)).map(Number).sort((a, b) => a - b);
  if (numbers.length !== values.length) {
    line.textContent = `The options' values: ${values.join(", ")}.`;
    return line;
  }
  let mex = 0;
  while (numbers.includes(mex)) mex += 1;
  line.textContent = `The options' values: {${numbers.join(", ")}}; the smallest number missing (the mex) is ${mex}, so grundy ${state.position} = ${mex}.`;
  return line;
}

function showPlayErrors(errors) {
  $("play").textContent = errors.map((e) => e.message + (e.help ? ` (help: ${e.help})` : "")).join("\n");
}

$("play-first").addEventListener("click", handler("board", async () => {
  const result = await api("board", "/api/play", { position: $("play-position").value, first: true });
  if (result.errors) return showPlayErrors(result.errors);
  const said = result.reply ? `sprague moves first: ${result.reply.move} (${result.why}).` : `${result.why}.`;
  showPlay(result, said + (result.winner === "sprague" ? " You have no move: sprague wins." : ""));
}));

$("play-form").addEventListener("submit", handler("board", async () => {
  const result = await api("board", "/api/moves", { position: $("play-position").value });
  if (result.errors) return showPlayErrors(result.errors);
  showPlay(result);
}));

// ---- the sequence of a one-parameter game ----

let games = [];
let files = [];

/** The games whose values can be plotted: one parameter, an integer (a
 * game on a board takes a region of it). */
function plottable() {
  return games.filter((g) => g.parameters === 1 && !g.board).map((g) => g.name);
}

async function refreshGames() {
  const result = await request("/api/games");
  games = result.games || [];
  files = result.files || [];
  const names = plottable();
  listGames($("sequence-game"), names.map((name) => [name, name]));
  listGames($("growth-game"), [...names.map((name) => [name, name]), ["*", "heaps *n"]]);
}

/** Fills a list with [value, label] choices, keeping the one chosen. */
function listGames(select, choices) {
  // Unchanged, the list is left alone (it may be open).
  if (choices.map(([value]) => value).join(" ") === [...select.options].map((o) => o.value).join(" ")) return;
  const chosen = select.value;
  select.textContent = "";
  for (const [value, label] of choices) {
    const option = document.createElement("option");
    option.value = value;
    option.textContent = label;
    select.appendChild(option);
  }
  if ([...select.options].some((o) => o.value === chosen)) select.value = chosen;
}

// The values first, drawn at once; then the period, asked separately: its
// search may run long, and Cancel (or another Plot) stops it, leaving the
// values drawn.
const plotSequence = handler("sequence", async () => {
  const game = $("sequence-game").value;
  const to = Math.max(1, Math.min(2000, Number($("sequence-to").value) || 40));
  if (!game) return;
  const result = await api("sequence", "/api/run", { source: `grundy ${game}(n) for n in 0..=${to}` });
  if (result.errors.length) {
    $("sequence-note").textContent = result.errors.map((e) => e.message).join("; ");
    return;
  }
  const values = result.answers.filter((a) => a.query === "grundy").map((a) => a.value);
  drawSequence(game, values, null);
  $("sequence-note").textContent = `${game}: looking for a period… (Cancel stops the search; the values stay)`;
  let period;
  try {
    period = (await api("sequence", "/api/run", { source: `period ${game}` })).answers[0];
  } catch (error) {
    if (error instanceof Cancelled) {
      $("sequence-note").textContent = `${game}: the search for a period was cancelled`;
      return;
    }
    throw error;
  }
  drawSequence(game, values, period);
});

/**
 * A picture's numbers as a table, its text alternative: a region the
 * keyboard reaches (and scrolls, when it is long), named by its caption,
 * whose id is `${id}-caption` for the picture's `aria-describedby`.
 */
function numbersTable(id, caption, columns, rows) {
  const region = document.createElement("div");
  region.className = "numbers";
  region.id = id;
  region.tabIndex = 0;
  region.setAttribute("role", "region");
  region.setAttribute("aria-labelledby", `${id}-caption`);
  const table = document.createElement("table");
  const named = table.createCaption();
  named.id = `${id}-caption`;
  named.textContent = caption;
  const head = table.createTHead().insertRow();
  for (const title of columns) {
    const cell = document.createElement("th");
    cell.scope = "col";
    cell.textContent = title;
    head.appendChild(cell);
  }
  const body = table.createTBody();
  for (const texts of rows) {
    const row = body.insertRow();
    for (const text of texts) row.insertCell().textContent = text;
  }
  region.appendChild(table);
  return region;
}

function svg(tag, attributes, parent) {
  const element = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  if (parent) parent.appendChild(element);
  return element;
}

function periodNote(game, period) {
  if (!period || !period.period) {
    return period ? `${game}: no period found (values checked to n = ${period.checked_to})` : "";
  }
  const how = period.proven ? "proven" : `apparent, checked to n = ${period.checked_to}`;
  if (period.saltus) {
    return `${game}: the values grow: G(n + ${period.period}) = G(n) + ${period.saltus} from n = ${period.preperiod} (${how})`;
  }
  return `${game}: period ${period.period} from n = ${period.preperiod} (${how})`;
}

function drawSequence(game, values, period) {
  const [width, height, pad] = [640, 260, 34];
  const top = Math.max(1, ...values.filter((v) => typeof v === "number"));
  const x = (n) => pad + (n * (width - 2 * pad)) / Math.max(1, values.length - 1);
  const y = (g) => height - pad - (g * (height - 2 * pad)) / top;
  const root = svg("svg", {
    viewBox: `0 0 ${width} ${height}`,
    role: "img",
    "aria-label": `${game}: Grundy values for n from 0 to ${values.length - 1}`,
    "aria-describedby": "sequence-table-caption",
  });
  svg("line", { x1: pad, y1: height - pad, x2: width - pad, y2: height - pad, stroke: "#667085" }, root);
  svg("line", { x1: pad, y1: pad, x2: pad, y2: height - pad, stroke: "#667085" }, root);
  svg("text", { x: pad, y: height - 8 }, root).textContent = "0";
  svg("text", { x: width - pad - 20, y: height - 8 }, root).textContent = String(values.length - 1);
  svg("text", { x: 4, y: y(top) + 4 }, root).textContent = String(top);
  if (period && period.period && !period.saltus) {
    const start = period.preperiod;
    for (let n = start; n < values.length; n += period.period) {
      svg("line", { x1: x(n), y1: pad - 6, x2: x(n), y2: height - pad, stroke: "#8da2e8", "stroke-dasharray": "3 3" }, root);
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
  const rows = values.map((g, n) => [String(n), String(g)]);
  $("sequence-values").textContent = "";
  $("sequence-values").appendChild(numbersTable("sequence-table", `The plot's values: G(n) of ${game} for n = 0 to ${values.length - 1}`, ["n", "G(n)"], rows));
  $("sequence-note").textContent = periodNote(game, period);
}

// Another Plot stops the search for a period of the last one first.
let replot = null;
$("sequence-form").addEventListener("submit", (event) => {
  event.preventDefault();
  if (!busy.sequence) {
    plotSequence();
    return;
  }
  if (replot) return;
  replot = new MutationObserver(() => {
    if (busy.sequence) return;
    replot.disconnect();
    replot = null;
    plotSequence();
  });
  replot.observe(panelOf("sequence"), { attributes: true, attributeFilter: ["aria-busy"] });
  request("/api/cancel", { lane: "sequence" }).catch(() => {});
});

// The recurrence: G(n) is the mex of the values of G(n)'s options.
$("mex-form").addEventListener("submit", handler("sequence", async () => {
  const game = $("sequence-game").value;
  if (!game) return;
  const n = Math.max(0, Number($("mex-n").value) || 0);
  const state = await api("sequence", "/api/moves", { position: `${game}(${n})` });
  const box = $("mex");
  box.textContent = "";
  if (state.errors) {
    box.textContent = state.errors.map((e) => e.message).join("; ");
    return;
  }
  const list = document.createElement("ul");
  for (const choice of state.moves) {
    const item = document.createElement("li");
    item.textContent = `${choice.move}: grundy ${choice.grundy}`;
    list.appendChild(item);
  }
  box.appendChild(mexLine(state));
  box.appendChild(list);
}));

// The recurrence built value by value: each press values the next n from
// its options' values (each option's value found before it), and shows
// the mex that makes G(n).
let recurrence = { game: null, next: 0 };
$("recurrence-form").addEventListener("submit", handler("sequence", async () => {
  const game = $("sequence-game").value;
  if (!game) return;
  if (recurrence.game !== game) {
    recurrence = { game, next: 0 };
    $("recurrence").textContent = "";
  }
  const n = recurrence.next;
  const state = await api("sequence", "/api/moves", { position: `${game}(${n})` });
  const item = document.createElement("li");
  if (state.errors) {
    item.textContent = state.errors.map((e) => e.message).join("; ");
    $("recurrence").appendChild(item);
    return;
  }
  const options = state.moves.map((choice) => `${choice.leaves || choice.move} = ${choice.grundy}`);
  const values = [...new Set(state.moves.map((choice) => Number(choice.grundy)))].sort((a, b) => a - b);
  item.textContent = options.length
    ? `${game}(${n}): options ${options.join(", ")}; mex{${values.join(", ")}} = ${state.grundy}`
    : `${game}(${n}): no options; mex{} = ${state.grundy}`;
  $("recurrence").appendChild(item);
  recurrence.next = n + 1;
}));
$("recurrence-restart").addEventListener("click", () => {
  recurrence = { game: null, next: 0 };
  $("recurrence").textContent = "";
});

// ---- the move graph: the `draw` query's DOT, laid out in layers by dagre
// (vendored), drawn here, and looked at through a view that zooms and pans
// by keyboard, buttons, wheel and drag ----

function parseDot(dot) {
  const nodes = new Map();
  const edges = [];
  const clusters = [];
  let cluster = null;
  const unquote = (text) => text.replace(/\\n/g, "\n").replace(/\\"/g, '"');
  for (const line of dot.split("\n")) {
    if (/^\s*subgraph cluster_\d+ \{/.test(line)) {
      cluster = { id: `cluster${clusters.length}`, label: "" };
      clusters.push(cluster);
      continue;
    }
    if (cluster && /^\s*\}\s*$/.test(line)) { cluster = null; continue; }
    const label = line.match(/^\s*graph \[label="((?:[^"\\]|\\.)*)"/);
    if (label && cluster) { cluster.label = unquote(label[1]); continue; }
    const node = line.match(/^\s*(c\d+_\d+|sum) \[label="((?:[^"\\]|\\.)*)"(.*)\];/);
    if (node) {
      nodes.set(node[1], { id: node[1], label: unquote(node[2]), terminal: node[3].includes("box"), zero: node[3].includes("filled"), cluster: cluster && cluster.id });
      continue;
    }
    const edge = line.match(/^\s*(c\d+_\d+|sum) -> (c\d+_\d+)(.*);/);
    if (edge) {
      const kind = edge[3].includes("dotted") ? "part" : edge[3].includes("red") ? "wins" : edge[3].includes("bold") ? "best" : "move";
      edges.push({ from: edge[1], to: edge[2], kind });
    }
  }
  return { nodes, edges, clusters };
}

/** The longest label a box shows whole; longer ones are cut, whole in a
 * tooltip (`layout.js` sizes the boxes for it). */
const LABEL_CHARS = 28;

/** Each lane's layout under way: its worker, and how to say it was cancelled. */
const layouts = {};

/**
 * Lays a graph out in a worker (`layout.js`, dagre), so that the page
 * answers meanwhile: a graph of hundreds of positions takes dagre seconds.
 * The lane shows busy, with the seconds so far; its Cancel ends the worker.
 */
async function layOut(lane, graph) {
  const started = performance.now();
  const moves = graph.edges.filter((edge) => edge.kind !== "part").length;
  const what = `laying out ${thousands(graph.nodes.size)} positions and ${thousands(moves)} moves…`;
  setBusy(lane, true);
  laneStatus(lane, what);
  const clock = setInterval(() => laneStatus(lane, `${what} ${((performance.now() - started) / 1000).toFixed(1)} s`), 500);
  let worker;
  try {
    return await new Promise((resolve, reject) => {
      worker = new Worker("/assets/layout.js");
      layouts[lane] = { worker, reject };
      worker.onmessage = ({ data }) => resolve(data);
      worker.onerror = (event) => {
        event.preventDefault();
        reject(new Error(`the layout failed: ${event.message || "the worker could not start"}`));
      };
      worker.postMessage(graph);
    });
  } finally {
    clearInterval(clock);
    worker.terminate();
    if (layouts[lane]?.worker === worker) delete layouts[lane];
    setBusy(lane, false);
  }
}

/** Ends a lane's layout, if one is under way (it is cancelled); says whether one was. */
function stopLayout(lane) {
  const running = layouts[lane];
  if (!running) return false;
  running.worker.terminate();
  delete layouts[lane];
  running.reject(new Cancelled("cancelled"));
  return true;
}

/** The colour and width of each kind of edge, and its arrowhead's marker. */
const EDGE_STYLE = {
  move: { stroke: "#8a94a6", width: 1.2 },
  best: { stroke: "#1b7f3b", width: 2.5 },
  wins: { stroke: "#b4232a", width: 3 },
  part: { stroke: "#667085", width: 1.2, dash: "3 3" },
};

/** A path through dagre's points, its corners rounded: straight to the
 * middle of each leg, a curve round each bend. */
function smooth(points) {
  const at = (p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`;
  const mid = (a, b) => ({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 });
  let d = `M${at(points[0])}`;
  for (let i = 1; i < points.length - 1; i += 1) d += ` L${at(mid(points[i - 1], points[i]))} Q${at(points[i])} ${at(mid(points[i], points[i + 1]))}`;
  return d + ` L${at(points[points.length - 1])}`;
}

/** The graph drawn where `layOut` placed its boxes and routed its moves. */
function drawGraph({ nodes, edges, clusters }, { width, height, boxes, frames, routes }) {
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": `move graph of ${nodes.size} positions` });
  root.dataset.width = width;
  root.dataset.height = height;
  // The position drawn: where the view starts when the graph is too big
  // to show whole.
  const top = boxes[nodes.has("sum") ? "sum" : "c0_0"];
  root.dataset.rootX = top ? top.x : width / 2;
  const defs = svg("defs", {}, root);
  // Arrowheads of one size whatever the edge's width (a marker scaled by
  // the stroke made blobs of the bold edges' heads).
  for (const [kind, style] of Object.entries(EDGE_STYLE)) {
    if (kind === "part") continue;
    const marker = svg("marker", { id: `arrow-${kind}`, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 9, markerHeight: 9, markerUnits: "userSpaceOnUse", orient: "auto" }, defs);
    svg("path", { d: "M0,1 L10,5 L0,9 z", fill: style.stroke }, marker);
  }
  for (const c of clusters) {
    const frame = frames[c.id];
    if (!frame) continue;
    const [x, y] = [frame.x - frame.width / 2, frame.y - frame.height / 2];
    svg("rect", { class: "frame", x, y, width: frame.width, height: frame.height, rx: 6, fill: "none", stroke: "#98a2b3", "stroke-dasharray": "5 3" }, root);
    svg("text", { x: x + 8, y: y + 15, class: "frame-label" }, root).textContent = c.label;
  }
  edges.forEach((edge, i) => {
    const points = routes[i];
    if (!points) return;
    const style = EDGE_STYLE[edge.kind];
    const d = smooth(points);
    const path = svg("path", { d, fill: "none", stroke: style.stroke, "stroke-width": style.width, class: `edge ${edge.kind}`, "data-from": edge.from, "data-to": edge.to }, root);
    if (style.dash) path.setAttribute("stroke-dasharray", style.dash);
    else path.setAttribute("marker-end", `url(#arrow-${edge.kind})`);
  });
  for (const [id, node] of nodes) {
    const at = boxes[id];
    const [x, y] = [at.x - at.width / 2, at.y - at.height / 2];
    const group = svg("g", { class: "node", "data-id": id }, root);
    svg("title", {}, group).textContent = node.label.replace("\n", ", ");
    svg("rect", { x, y, width: at.width, height: at.height, rx: node.terminal ? 10 : 4, fill: node.zero ? "#e4e7ec" : "#fff", stroke: "#475467" }, group);
    node.label.split("\n").forEach((text, i) => {
      const shown = text.length > LABEL_CHARS ? text.slice(0, LABEL_CHARS - 1) + "…" : text;
      svg("text", { x: at.x, y: y + 15 + i * 13, "text-anchor": "middle" }, group).textContent = shown;
    });
  }
  return graphView(root);
}

/** The graph in a view of its own: + and − (or the buttons, or the wheel)
 * zoom, the arrow keys (or a drag) pan, 0 (or Fit) shows it whole. The
 * graph is drawn at its own size, never stretched to the panel's width. */
function graphView(picture) {
  const [width, height] = [Number(picture.dataset.width), Number(picture.dataset.height)];
  const box = document.createElement("div");
  box.className = "graph-box";
  const tools = document.createElement("div");
  tools.className = "toolbar graph-tools";
  const view = document.createElement("div");
  view.className = "graph-view";
  view.tabIndex = 0;
  view.setAttribute("role", "group");
  view.setAttribute("aria-label", "move graph: + and − zoom, arrow keys pan, 0 fits it whole");
  view.appendChild(picture);
  const zoomShown = document.createElement("span");
  zoomShown.className = "zoom-level";
  zoomShown.setAttribute("aria-live", "polite");
  // What the view shows: the part of the graph from (x, y), `scale` screen
  // pixels to a unit of the graph.
  const state = { x: 0, y: 0, scale: 1 };
  const size = () => [view.clientWidth || 600, view.clientHeight || 400];
  const show = () => {
    const [w, h] = size();
    picture.setAttribute("width", w);
    picture.setAttribute("height", h);
    picture.setAttribute("viewBox", `${state.x.toFixed(1)} ${state.y.toFixed(1)} ${(w / state.scale).toFixed(1)} ${(h / state.scale).toFixed(1)}`);
    zoomShown.textContent = `${Math.round(state.scale * 100)}%`;
    box.dataset.scale = state.scale;
  };
  const zoom = (factor, [cx, cy] = size().map((side) => side / 2)) => {
    const scale = Math.min(4, Math.max(0.05, state.scale * factor));
    state.x += cx / state.scale - cx / scale;
    state.y += cy / state.scale - cy / scale;
    state.scale = scale;
    show();
  };
  const pan = (dx, dy) => { state.x += dx / state.scale; state.y += dy / state.scale; show(); };
  const fit = () => {
    const [w, h] = size();
    state.scale = Math.min(1, w / width, h / height);
    state.x = (width - w / state.scale) / 2;
    state.y = (height - h / state.scale) / 2;
    show();
  };
  // At first: whole if it fits at a readable size, else from the top (the
  // position drawn) at that size.
  const start = () => {
    const [w, h] = size();
    if (Math.min(w / width, h / height) >= 0.6) return fit();
    state.scale = Math.max(0.6, Math.min(1, w / width));
    state.x = Number(picture.dataset.rootX) - w / state.scale / 2;
    state.y = 0;
    show();
  };
  const button = (text, label, act) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = text;
    b.setAttribute("aria-label", label);
    b.addEventListener("click", act);
    tools.appendChild(b);
    return b;
  };
  button("+", "zoom in", () => zoom(1.25));
  button("−", "zoom out", () => zoom(0.8));
  button("Fit", "fit the whole graph", fit);
  tools.appendChild(zoomShown);
  const step = 60;
  view.addEventListener("keydown", (event) => {
    const act = {
      "+": () => zoom(1.25), "=": () => zoom(1.25), "-": () => zoom(0.8), "0": fit,
      ArrowLeft: () => pan(-step, 0), ArrowRight: () => pan(step, 0), ArrowUp: () => pan(0, -step), ArrowDown: () => pan(0, step),
    }[event.key];
    if (!act || event.ctrlKey || event.metaKey || event.altKey) return;
    event.preventDefault();
    act();
  });
  view.addEventListener("wheel", (event) => {
    event.preventDefault();
    const r = view.getBoundingClientRect();
    zoom(event.deltaY < 0 ? 1.15 : 1 / 1.15, [event.clientX - r.left, event.clientY - r.top]);
  }, { passive: false });
  let drag = null;
  view.addEventListener("pointerdown", (event) => { drag = [event.clientX, event.clientY]; view.setPointerCapture(event.pointerId); });
  view.addEventListener("pointermove", (event) => {
    if (!drag) return;
    pan(drag[0] - event.clientX, drag[1] - event.clientY);
    drag = [event.clientX, event.clientY];
  });
  const drop = () => { drag = null; };
  view.addEventListener("pointerup", drop);
  view.addEventListener("pointercancel", drop);
  box.append(tools, view);
  // Laid out once the view is on the page and has a size.
  new ResizeObserver(() => (box.dataset.scale ? show() : start())).observe(view);
  return box;
}

/** The most positions the panel draws at once. Past it a graph is too
 * wide to read (Split(40)'s 420 positions lie 33,000 px wide) and laying
 * it out takes seconds: the panel says what it holds, and draws it only
 * when asked. */
const GRAPH_DRAWN = 200;

$("graph-form").addEventListener("submit", handler("graph", async () => {
  const result = await api("graph", "/api/run", { source: `draw ${$("graph-position").value}` });
  if (result.errors.length) {
    $("graph").textContent = result.errors.map((e) => e.message + (e.help ? ` (help: ${e.help})` : "")).join("\n");
    return;
  }
  $("graph").textContent = "";
  const graph = parseDot(result.answers[0].content);
  if (graph.nodes.size > GRAPH_DRAWN) $("graph").appendChild(graphSummary(graph));
  else await drawInPanel(graph);
}));

/** Lays a graph out and draws it in the panel, the view focused if asked. */
async function drawInPanel(graph, focus = false) {
  const drawn = drawGraph(graph, await layOut("graph", graph));
  $("graph").textContent = "";
  $("graph").appendChild(drawn);
  if (focus) drawn.querySelector(".graph-view").focus();
}

/** A graph too large to read drawn: how large, the first position's moves
 * (or a sum's parts) with their values, and a button that draws it all. */
function graphSummary(graph) {
  const box = document.createElement("div");
  box.className = "graph-summary";
  const top = graph.nodes.has("sum") ? "sum" : "c0_0";
  const moves = graph.edges.filter((edge) => edge.kind !== "part");
  const first = graph.edges.filter((edge) => edge.from === top);
  const note = document.createElement("p");
  note.className = "note";
  note.textContent = `${graph.nodes.get(top).label.replace("\n", ", ")}: ${thousands(graph.nodes.size)} positions and ${thousands(moves.length)} moves, more than the ${GRAPH_DRAWN} drawn at once: drawn whole the graph is too wide to read, and laying it out takes seconds. ${first.some((edge) => edge.kind === "part") ? "Its parts" : "Its moves"}:`;
  const list = document.createElement("ul");
  list.className = "graph-moves";
  // A long list scrolls: the keyboard reaches it.
  list.tabIndex = 0;
  list.setAttribute("aria-label", `the moves of ${graph.nodes.get(top).label.split("\n")[0]}`);
  for (const edge of first) {
    const item = document.createElement("li");
    item.textContent = graph.nodes.get(edge.to).label.replace("\n", ", ");
    list.appendChild(item);
  }
  const draw = document.createElement("button");
  draw.type = "button";
  draw.className = "busy-off";
  draw.textContent = `Draw all ${thousands(graph.nodes.size)} anyway`;
  draw.addEventListener("click", handler("graph", () => drawInPanel(graph, true)));
  box.append(note, list, draw);
  return box;
}

// ---- the cross-check of the XOR rule ----

function randomSum() {
  const pick = (n) => Math.floor(Math.random() * n);
  const parts = [];
  const count = 2 + pick(2);
  const usable = games.filter((g) => g.parameters >= 1 && g.parameters <= 2 && !g.board);
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

// Each sum's minimax verdict beside its XOR verdict, and the positions the
// whole-sum search visited against the values the XOR rule needs.
function showChecks(checks) {
  const table = document.createElement("table");
  const head = table.createTHead().insertRow();
  for (const title of ["sum", "XOR of values", "XOR says", "minimax says", "sums searched", "table positions", "agree"]) {
    const cell = document.createElement("th");
    cell.textContent = title;
    head.appendChild(cell);
  }
  const body = table.createTBody();
  for (const check of checks.slice(0, 12)) {
    const row = body.insertRow();
    const tables = check.tables.map((table) => thousands(table.positions)).join(" + ");
    const tabled = check.tables.length > 1 ? `${thousands(check.table_positions)} (${tables})` : thousands(check.table_positions);
    for (const text of [check.position, String(check.grundy), check.grundy === 0 ? "loss" : "win", check.search, thousands(check.positions), tabled, check.agree ? "yes" : "NO"]) {
      row.insertCell().textContent = text;
    }
  }
  $("check-table").textContent = "";
  $("check-table").appendChild(table);
  // A stop for the keyboard once it holds something.
  $("check-table").tabIndex = 0;
}

/** A count with its thousands grouped: 1,000,000. */
function thousands(n) {
  return n.toLocaleString("en");
}

$("check-form").addEventListener("submit", handler("check", async () => {
  await refreshGames();
  const count = Math.max(1, Math.min(5000, Number($("check-count").value) || 300));
  const sums = Array.from({ length: count }, randomSum);
  say($("check"), `checking ${count} random sums…`);
  let result;
  try {
    result = await api("check", "/api/run", { source: sums.map((sum) => `crosscheck ${sum}`).join("\n") });
  } catch (error) {
    say($("check"), String(error.message || error), "lose");
    return;
  }
  const checks = result.answers.filter((a) => a.query === "crosscheck");
  const agreed = checks.filter((a) => a.agree).length;
  const searched = checks.reduce((total, check) => total + check.positions, 0);
  const failed = result.errors.length ? ` (${result.errors.length} could not be searched: ${result.errors[0].message})` : "";
  const tabled = checks.reduce((total, check) => total + check.table_positions, 0);
  say($("check"), `agreed ${agreed}/${checks.length}${failed}; the searches visited ${thousands(searched)} positions of whole sums, the parts' tables hold ${thousands(tabled)}`, agreed === checks.length && checks.length > 0 ? "win" : "lose");
  showChecks(checks);
  await chartGrowth();
}));

// ---- the product of the parts' trees against the XOR's tables ----

/** The i-th part of a series: G(i), or the heap *i. */
function seriesPart(game, i) {
  return game === "*" ? `*${i}` : `${game}(${i})`;
}

/** A sum of a series, short: G(1) + … + G(k) past two parts. */
function seriesName(game, k) {
  const parts = k <= 2 ? Array.from({ length: k }, (_, i) => seriesPart(game, i + 1)) : [seriesPart(game, 1), "…", seriesPart(game, k)];
  return parts.join(" + ");
}

// Cross-checks G(1), G(1) + G(2), …, G(1) + … + G(k): each answer's real
// counts, the sums searched and the positions of the parts' tables. The
// series ends at the first sum refused (past the search limit).
async function chartGrowth() {
  const game = $("growth-game").value || "*";
  const to = Math.max(1, Math.min(12, Number($("growth-to").value) || 6));
  const sums = Array.from({ length: to }, (_, k) => Array.from({ length: k + 1 }, (_, i) => seriesPart(game, i + 1)).join(" + "));
  say($("growth"), `searching ${seriesName(game, to)}…`);
  let result;
  try {
    result = await api("check", "/api/run", { source: sums.map((sum) => `crosscheck ${sum}`).join("\n") });
  } catch (error) {
    growth = null;
    say($("growth"), error instanceof Cancelled ? "the series was cancelled" : String(error.message || error), "lose");
    return;
  }
  const points = [];
  result.answers.forEach((answer, i) => {
    const k = result.lines[i] + 1;
    if (answer.query === "crosscheck" && k === points.length + 1) {
      points.push({ k, searched: answer.positions, tabled: answer.table_positions });
    }
  });
  const refused = points.length < to && result.errors.length ? `k = ${points.length + 1}: ${result.errors[0].message}` : "";
  growth = { game, points, refused };
  drawGrowth();
}

let growth = null;

/** Positions on a log scale: 1, 10, …, 1,000,000, then 10^7, …. */
function power(p) {
  return p <= 6 ? thousands(10 ** p) : `10^${p}`;
}

// The last series as two lines on a log scale, drawn at the width it has
// (so its words stay readable on a phone), with the numbers in a table.
function drawGrowth() {
  const box = $("growth");
  box.textContent = "";
  box.classList.remove("win", "lose");
  box.dataset.width = box.clientWidth;
  if (!growth) return;
  const { game, points, refused } = growth;
  const figure = document.createElement("figure");
  const caption = document.createElement("figcaption");
  caption.id = "growth-caption";
  caption.textContent = `${seriesName(game, Math.max(1, points.length))}: sums searched against table positions, for k = 1 to ${points.length}`;
  figure.appendChild(caption);
  if (points.length) figure.appendChild(growthChart(game, points));
  box.appendChild(figure);
  if (points.length) box.appendChild(growthTable(game, points));
  if (refused) {
    const note = document.createElement("p");
    note.className = "note";
    note.textContent = `The series stops at ${refused}`;
    box.appendChild(note);
  }
}

const SERIES = [
  { key: "searched", label: "search of the sum: sums visited", colour: "#2f5fd0", dash: "", mark: "circle" },
  { key: "tabled", label: "XOR: positions in the k tables", colour: "#8a4b00", dash: "6 4", mark: "square" },
];

function growthChart(game, points) {
  const width = Math.max(300, Math.min(720, $("growth").clientWidth || 560));
  const [height, left, right, top, bottom] = [290, 70, 24, 68, 44];
  const largest = Math.max(10, ...points.flatMap((p) => [p.searched, p.tabled]));
  const decades = Math.ceil(Math.log10(largest));
  const x = (k) => left + (points.length === 1 ? (width - left - right) / 2 : ((k - 1) * (width - left - right)) / (points.length - 1));
  const y = (n) => height - bottom - (Math.log10(Math.max(1, n)) * (height - top - bottom)) / decades;
  const last = points[points.length - 1];
  const root = svg("svg", {
    viewBox: `0 0 ${width} ${height}`,
    width, height,
    role: "img",
    "aria-labelledby": "growth-caption",
    "aria-describedby": "growth-table-caption",
  });
  for (let p = 0; p <= decades; p += 1) {
    svg("line", { x1: left, y1: y(10 ** p), x2: width - right, y2: y(10 ** p), stroke: p ? "#e4e7ec" : "#667085" }, root);
    svg("text", { x: left - 6, y: y(10 ** p) + 4, "text-anchor": "end" }, root).textContent = power(p);
  }
  svg("line", { x1: left, y1: top - 6, x2: left, y2: height - bottom, stroke: "#667085" }, root);
  svg("text", { x: 4, y: top - 14 }, root).textContent = "positions (log scale)";
  for (const { k } of points) {
    svg("text", { x: x(k), y: height - bottom + 16, "text-anchor": "middle" }, root).textContent = String(k);
  }
  svg("text", { x: left + (width - left - right) / 2, y: height - 6, "text-anchor": "middle" }, root).textContent = `k, the parts of ${seriesName(game, 2)} + …`;
  SERIES.forEach((series, row) => {
    const legend = 14 + row * 17;
    svg("line", { x1: 8, y1: legend - 4, x2: 36, y2: legend - 4, stroke: series.colour, "stroke-width": 2.5, "stroke-dasharray": series.dash }, root);
    growthMark(series, 22, legend - 4, root);
    svg("text", { x: 44, y: legend }, root).textContent = `${series.label} (${thousands(last[series.key])} at k = ${last.k})`;
    const line = points.map((p) => `${x(p.k)},${y(p[series.key])}`).join(" ");
    svg("polyline", { points: line, fill: "none", stroke: series.colour, "stroke-width": 2.5, "stroke-dasharray": series.dash }, root);
    for (const p of points) {
      const mark = growthMark(series, x(p.k), y(p[series.key]), root);
      mark.classList.add(`growth-${series.key}`);
      svg("title", {}, mark).textContent = `k = ${p.k}: ${thousands(p[series.key])}`;
    }
  });
  return root;
}

function growthMark(series, cx, cy, parent) {
  return series.mark === "circle"
    ? svg("circle", { cx, cy, r: 4, fill: series.colour }, parent)
    : svg("rect", { x: cx - 4, y: cy - 4, width: 8, height: 8, fill: "#fff", stroke: series.colour, "stroke-width": 2 }, parent);
}

/** The chart's numbers, row by row: its text alternative. */
function growthTable(game, points) {
  const caption = `The chart's numbers: for each k, the sums the search of ${seriesName(game, 2)} + … + ${seriesPart(game, "k")} visited and the positions in its k tables`;
  const rows = points.map((p) => {
    const ratio = p.searched / p.tabled;
    return [String(p.k), thousands(p.searched), thousands(p.tabled), ratio < 10 ? ratio.toFixed(1) : thousands(Math.round(ratio))];
  });
  return numbersTable("growth-table", caption, ["k", "sums searched", "table positions", "searched ÷ tables"], rows);
}

$("growth-form").addEventListener("submit", handler("check", chartGrowth));
new ResizeObserver(() => {
  const width = $("growth").clientWidth;
  if (growth && Math.abs(width - (Number($("growth").dataset.width) || 0)) > 8) {
    $("growth").dataset.width = width;
    drawGrowth();
  }
}).observe($("growth"));

// ---- start: the served files (or an example), 3-4-5, and S plotted ----

(async () => {
  drawNim();
  try {
    await refreshGames();
  } catch (error) {
    return;
  }
  $("restore").textContent = files.length ? "Back to the served files" : "Back to the example";
  editor.setValue(startingSource());
  await runEditor();
  // S, the example's game, or else the first the files declare that has
  // integer positions, is plotted, played and drawn first.
  const first = plottable().includes("S") ? "S" : plottable()[0];
  if (first) $("sequence-game").value = first;
  $("play-position").value = first ? `${first}(7) + *2` : "*3 + *4 + *5";
  $("graph-position").value = first ? `${first}(5)` : "*3 + *2";
  await plotSequence();
})();
