// The Bel's Pyramid page: solve N (the CLI's `solve N --json` in a child process, its live
// line shown while it runs), then draw the answer from its build list; or open a solution
// file. Everything drawn comes from `render --cubes --json` on the server (/api/bel/open):
// the package's checker has judged it first, and the build list is the package's own. A
// labelling that is no solution yet (the best state of a search stopped or out of time, a
// hunt's best.json) is drawn too, its faults as the checker names them: the cells of a
// repeated cube outlined, the missing cubes listed.

import {api, showError, showTimeLimit, RunPanel} from "/static/common.js";
import {Scene} from "/static/scene3d.js";

// The label colours of the package's pictures (ilp_pyramid/puzzles/bel/faces.py PALETTE),
// so the page, the PNG and the HTML view of one solution look alike.
const PALETTE = [
  "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
  "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94",
  "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5", "#393b79", "#637939", "#843c39",
];
// What the server takes in one request (ilp_pyramid/ui/web.py MAX_BODY_BYTES): a larger file
// is refused here, before it is sent.
const MAX_FILE_BYTES = 900_000;
const REPEATED = "#d50000";  // the outline of a repeated cube's cells (bel.css .repeated-key)

const $ = (id) => document.getElementById(id);
const panel = new RunPanel({progress: $("progress"), stop: $("stop"), error: $("error")});
const scene = new Scene($("scene"));
let cubes = [];
let repeatedCells = new Set();  // "x,y,h" of every cell showing a repeated cube

const cellKey = (cell) => `${cell.x},${cell.y},${cell.h}`;
const count = (k, what) => `${k} ${what}${k === 1 ? "" : "s"}`;

export function labelColour(label) { return PALETTE[label % PALETTE.length]; }

// Black or white, whichever reads better on the face (faces.py text_colour).
export function ink(background) {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(background.slice(i, i + 2), 16));
  return 0.299 * r + 0.587 * g + 0.114 * b > 140 ? "#000000" : "#ffffff";
}

function face(label) {
  const color = labelColour(label);
  return {color, text: String(label), ink: ink(color)};
}

// The spec's axes (x right, y towards the front, h up) are left-handed and the scene's are
// not: y is negated, so the page shows the pyramid itself and not its mirror image.
// `repeated`: the cells to outline; `onlyRepeated`: draw those alone.
export function sceneItems(rows, levels, repeated = new Set(), onlyRepeated = false) {
  return rows.filter((row) => row.h < levels && (!onlyRepeated || repeated.has(cellKey(row))))
    .map((row) => {
      const x = face(row.faces_x), y = face(row.faces_y), z = face(row.faces_z);
      const item = {kind: "cube", at: [row.x, -row.y, row.h],
        faces: {"+x": x, "-x": x, "+y": y, "-y": y, "+z": z, "-z": z}};
      if (repeated.has(cellKey(row))) item.outline = REPEATED;
      return item;
    });
}

function clearAnswer() {
  $("verdict").textContent = ""; $("verdict").className = "status";
  $("reasons").replaceChildren();
  $("answer").hidden = true;
  $("scene").removeAttribute("data-cubes");
  $("scene").removeAttribute("data-repeated");
  $("faults").hidden = true; $("faults-only-box").hidden = true;
  $("faults-only").checked = false;
  $("missing").replaceChildren();
  cubes = []; repeatedCells = new Set();
}

function busy(running) {
  $("solve").disabled = running; $("file").disabled = running;
}

function drawLevels() {
  const levels = Number($("levels").value);
  const items = sceneItems(cubes, levels, repeatedCells, $("faults-only").checked);
  scene.set(items);
  $("scene").dataset.cubes = String(items.length);
  $("scene").dataset.repeated = String(items.filter((item) => item.outline).length);
  const top = Number($("levels").max);
  $("levels-text").textContent = levels === top ? `all ${top}` : `${levels} of ${top} (bottom up)`;
}

function fillBuildList(rows) {
  const body = $("build").tBodies[0];
  body.replaceChildren(...rows.map((row, k) => {
    const tr = document.createElement("tr");
    if (repeatedCells.has(cellKey(row))) {
      tr.className = "repeated"; tr.title = "this cube is shown by another cell too";
    }
    const cells = [k + 1, `(${row.x}, ${row.y}, ${row.h})`, `{${row.cube.join(", ")}}`,
      row.faces_x, row.faces_y, row.faces_z];
    for (const [i, value] of cells.entries()) {
      const td = document.createElement("td");
      td.textContent = String(value);
      if (i >= 3) {
        td.style.background = labelColour(value); td.style.color = ink(labelColour(value));
      }
      tr.append(td);
    }
    return tr;
  }));
}

function draw(answer) {
  cubes = answer.cubes;
  repeatedCells = new Set((answer.repeated || []).flatMap((r) => r.cells.map(cellKey)));
  const n = answer.n;
  $("answer").hidden = false;
  $("faults").hidden = answer.valid;
  $("faults-only-box").hidden = repeatedCells.size === 0;
  $("missing").replaceChildren(...(answer.missing || []).map((cube) => {
    const li = document.createElement("li");
    li.title = `cube {${cube.join(", ")}}: no cell shows it`;
    li.append(...cube.map((label) => {
      const span = document.createElement("span");
      span.textContent = String(label);
      span.style.background = labelColour(label); span.style.color = ink(labelColour(label));
      return span;
    }));
    return li;
  }));
  $("levels").max = String(n); $("levels").value = String(n);
  drawLevels();
  fillBuildList(cubes);
}

function say(text, kind) {
  $("verdict").textContent = text; $("verdict").className = `status ${kind}`;
}

// Check a solution's text on the server and draw it; `what` says where it came from;
// `closest`: the best state of a search that found no solution.
async function show(text, what, closest = false) {
  let answer;
  try {
    answer = await api("/api/bel/open", {text});
  } catch (e) {
    showError($("error"), e);
    return;
  }
  if (answer.valid) {
    say(`${what}valid: N=${answer.n}, all ${answer.cubes.length} cubes of the set appear ` +
      "exactly once (checked by the package's checker)", "ok");
    draw(answer);
  } else {
    const faults = `${count(answer.conflicts, "repeated cube")}, ` +
      `${count(answer.missing.length, "missing cube")}`;
    say(closest ? `${what}the best state reached, N=${answer.n}: ${faults}`
      : `${what}invalid: N=${answer.n}: ${faults}`, closest ? "" : "error");
    $("reasons").replaceChildren(...answer.reasons.map((reason) => {
      const li = document.createElement("li"); li.textContent = reason; return li;
    }));
    if (answer.cubes) draw(answer);
  }
}

async function solved(event) {
  busy(false);
  const result = event.result;
  if (event.exit !== 0 && result && result.best) {
    // No solution, but the search's closest state: drawn, its repeated cubes marked.
    const why = event.stopped ? `stopped after ${event.seconds} s without a solution`
      : "time limit reached without a solution";
    await show(JSON.stringify(result.best), `${why}; `, true);
  } else if (event.stopped) {
    say("stopped: no solution", "");
  } else if (event.exit === 0 && result && result.solution) {
    const engine = result.engine || result.solver;
    await show(JSON.stringify(result), `solved by ${engine} in ${event.seconds} s; `);
  } else if (event.exit === 3) {
    const best = result && result.best_conflicts !== undefined
      ? `; the best state had ${result.best_conflicts} repeated cubes` : "";
    say(`time limit reached without a solution${best}`, "");
  } else if (event.exit === 1 && result) {
    say(`${result.status}: ${result.message || "no labelling satisfies the model"}`, "");
  }
}

async function startSolve() {
  clearAnswer();
  const limit = $("time-limit").value.trim();
  busy(true);
  await panel.start("/api/bel/solve", {
    n: Number($("n").value), engine: $("engine").value,
    time_limit: limit === "" ? null : Number(limit)}, solved);
  if (!panel.running) busy(false);  // refused: no run to wait for
}

async function openFile() {
  const file = $("file").files[0];
  if (!file) return;
  clearAnswer(); showError($("error"), null); $("progress").textContent = "";
  if (file.size > MAX_FILE_BYTES) {
    showError($("error"), new Error(`the file is too large (${file.size.toLocaleString("en")} ` +
      `bytes; at most ${MAX_FILE_BYTES.toLocaleString("en")})`));
  } else {
    busy(true);
    $("progress").textContent = `checking ${file.name}...`;
    await show(await file.text(), `${file.name}: `);
    $("progress").textContent = "";
    busy(false);
  }
  $("file").value = "";  // the same file chosen again is a new change
}

async function init() {
  try {
    const options = await api("/api/bel/options");
    $("engine").replaceChildren(...options.engines.map(({name, label}) => {
      const option = document.createElement("option");
      option.value = name; option.textContent = `${name}: ${label}`;
      return option;
    }));
    $("n").max = String(options.max_n); $("n").value = String(options.default_n);
    showTimeLimit($("time-limit"), options);
  } catch (e) {
    showError($("error"), e);
  }
  $("solve").addEventListener("click", startSolve);
  $("file").addEventListener("change", openFile);
  $("levels").addEventListener("input", drawLevels);
  $("faults-only").addEventListener("change", drawLevels);
  document.body.dataset.ready = "1";
}

init();
