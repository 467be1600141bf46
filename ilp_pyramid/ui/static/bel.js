// The Bel's Pyramid page: solve N (the CLI's `solve N --json` in a child process, its live
// line shown while it runs), then draw the answer from its build list; or open a solution
// file. Everything drawn comes from `render --cubes --json` on the server (/api/bel/open):
// the package's checker has passed it first, and the build list is the package's own.

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

const $ = (id) => document.getElementById(id);
const panel = new RunPanel({progress: $("progress"), stop: $("stop"), error: $("error")});
const scene = new Scene($("scene"));
let cubes = [];

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
export function sceneItems(rows, levels) {
  return rows.filter((row) => row.h < levels).map((row) => {
    const x = face(row.faces_x), y = face(row.faces_y), z = face(row.faces_z);
    return {kind: "cube", at: [row.x, -row.y, row.h],
      faces: {"+x": x, "-x": x, "+y": y, "-y": y, "+z": z, "-z": z}};
  });
}

function clearAnswer() {
  $("verdict").textContent = ""; $("verdict").className = "status";
  $("reasons").replaceChildren();
  $("answer").hidden = true;
  $("scene").removeAttribute("data-cubes");
  cubes = [];
}

function busy(running) {
  $("solve").disabled = running; $("file").disabled = running;
}

function drawLevels() {
  const levels = Number($("levels").value);
  const items = sceneItems(cubes, levels);
  scene.set(items);
  $("scene").dataset.cubes = String(items.length);
  const top = Number($("levels").max);
  $("levels-text").textContent = levels === top ? `all ${top}` : `${levels} of ${top} (bottom up)`;
}

function fillBuildList(rows) {
  const body = $("build").tBodies[0];
  body.replaceChildren(...rows.map((row, k) => {
    const tr = document.createElement("tr");
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
  const n = answer.n;
  $("answer").hidden = false;
  $("levels").max = String(n); $("levels").value = String(n);
  drawLevels();
  fillBuildList(cubes);
}

function say(text, kind) {
  $("verdict").textContent = text; $("verdict").className = `status ${kind}`;
}

// Check a solution's text on the server and draw it; `what` says where it came from.
async function show(text, what) {
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
    say(`${what}invalid: N=${answer.n}`, "error");
    $("reasons").replaceChildren(...answer.reasons.map((reason) => {
      const li = document.createElement("li"); li.textContent = reason; return li;
    }));
  }
}

async function solved(event) {
  busy(false);
  const result = event.result;
  if (event.stopped) {
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
  document.body.dataset.ready = "1";
}

init();
