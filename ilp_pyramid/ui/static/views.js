// The Views page: three clickable n x n grids (or a battery puzzle by number), checked by the
// server at every click; Solve runs `views solve ... --json` and draws the fewest cubes in 3-D
// or says why no heap of cubes shows the views.

import {api, RunPanel, showError, showTimeLimit} from "/static/common.js";
import {Scene} from "/static/scene3d.js";

const NAMES = ["top", "front", "side"];
// Cubes coloured by height, so the layers read apart when the heap is turned.
const LAYER_COLORS = ["#f2a541", "#e07a5f", "#81b29a", "#3d85c6", "#9c6ade", "#f4d35e",
  "#5fb49c", "#ee6c4d"];

const $ = (id) => document.getElementById(id);
const state = {n: 4, views: null, number: null, check: null, checking: 0};
const scene = new Scene($("scene"));
const panel = new RunPanel({progress: $("progress"), stop: $("stop"), error: $("error")});

function empty(n) {
  return Object.fromEntries(NAMES.map((name) => [name,
    Array.from({length: n}, () => Array(n).fill(false))]));
}

function rows(view) { return view.map((row) => row.map((on) => (on ? "x" : ".")).join("")); }

function fromRows(list) { return list.map((row) => Array.from(row, (ch) => ch === "x")); }

function drawGrids() {
  for (const name of NAMES) {
    const table = $(`grid-${name}`);
    // A grid of the size drawn already is redrawn in place: a cell replaced under a click in
    // flight (pressed on the old cell, released on the new one) would lose that click.
    if (table.drawn !== state.n) buildGrid(table, name);
    const shown = state.check && state.check.shown ? state.check.shown[name] : null;
    for (const td of table.querySelectorAll("td")) {
      const r = Number(td.dataset.row), c = Number(td.dataset.col);
      const on = state.views[name][r][c];
      td.classList.toggle("on", on);
      // A set pixel the largest placement does not show: no cube can show it.
      td.classList.toggle("missing", on && shown !== null && shown[r][c] !== "x");
    }
  }
}

function buildGrid(table, name) {
  table.replaceChildren();
  table.drawn = state.n;
  // Row and column numbers, as the reasons name the pixels ("top row 0 column 1").
  const head = table.insertRow();
  head.append(document.createElement("th"));
  for (let c = 0; c < state.n; c++) head.append(Object.assign(document.createElement("th"),
    {textContent: String(c)}));
  for (let r = 0; r < state.n; r++) {
    const tr = table.insertRow();
    tr.append(Object.assign(document.createElement("th"), {textContent: String(r)}));
    for (let c = 0; c < state.n; c++) {
      const td = tr.insertCell();
      td.dataset.row = r; td.dataset.col = c;
      td.title = `${name} row ${r} column ${c}`;
      td.addEventListener("click", () => toggle(name, r, c));
    }
  }
}

function toggle(name, r, c) {
  if (panel.running) return;
  state.views[name][r][c] = !state.views[name][r][c];
  forgetNumber();
  changed();
}

// Views changed by hand are no longer the battery puzzle that was loaded.
function forgetNumber() {
  state.number = null;
  $("number").value = "";
}

function changed() {
  state.check = null;
  $("check").className = "check";
  delete $("check").dataset.input;
  $("answer").hidden = true;
  showError($("error"), null);
  drawGrids();
  check();
}

function request() {
  if (state.number !== null) return {number: state.number};
  const body = {n: state.n};
  for (const name of NAMES) body[name] = rows(state.views[name]);
  return body;
}

// The server's verdict on the views as they are now; an older answer arriving late is dropped.
async function check() {
  const ticket = ++state.checking;
  let verdict;
  try {
    verdict = await api("/api/views/check", request());
  } catch (e) {
    if (ticket === state.checking) { $("check").textContent = ""; showError($("error"), e); }
    return;
  }
  if (ticket !== state.checking) return;
  state.check = verdict;
  drawGrids();
  const line = $("check");
  line.className = verdict.solvable ? "check ok" : "check error";
  line.dataset.input = verdict.input;  // which views this verdict is about
  line.textContent = verdict.solvable
    ? `Some heap of cubes shows these views: at least ${verdict.lower_bound} cubes (the `
      + "fullest view)."
    : `No heap of cubes shows these views (${verdict.reason}): no cell can show `
      + `${verdict.missing.join(", ")} (a cube there would need all three of its `
      + "projections set).";
}

function setSize(n) {
  state.n = n;
  state.views = empty(n);
  forgetNumber();
  changed();
}

async function load() {
  const text = $("number").value.trim();
  showError($("error"), null);
  let data;
  try {
    data = await api("/api/views/battery", {number: text});
  } catch (e) {
    showError($("error"), e);
    return;
  }
  state.n = data.n;
  $("size").value = String(data.n);
  state.views = Object.fromEntries(NAMES.map((name) => [name, fromRows(data[name])]));
  state.number = data.number;
  $("number").value = data.number;
  changed();
}

function solve() {
  if (panel.running) return;
  $("answer").hidden = true;
  const body = request();
  body.solver = $("solver").value;
  const limit = $("time-limit").value.trim();
  if (limit !== "") body.time_limit = limit;
  busy(true);
  panel.start("/api/views/solve", body, (event) => {
    busy(false);
    show(event);
  }).then(() => { if (!panel.running) busy(false); });
}

// While a run goes the views stay as they were sent, so the answer drawn is theirs.
function busy(on) {
  for (const id of ["size", "clear", "number", "load", "solver", "time-limit", "solve"]) {
    $(id).disabled = on;
  }
}

function show(event) {
  const result = event.result;
  if (event.stopped || !result) return;  // the panel already says stopped / the error
  $("answer").hidden = false;
  const status = $("status"), detail = $("detail");
  if (result.status === "solved") {
    const cubes = [];
    result.layers.forEach((layer, z) => layer.forEach((row, y) => Array.from(row).forEach(
      (ch, x) => {
        // The package's z = 0 is the top layer and y = 0 the back row; the scene's z is up
        // and its larger y farther from the viewer.
        if (ch === "x") {
          cubes.push({kind: "cube", at: [x, result.n - 1 - y, result.n - 1 - z],
            color: LAYER_COLORS[(result.n - 1 - z) % LAYER_COLORS.length]});
        }
      })));
    scene.set(cubes);
    $("scene").dataset.cubes = String(cubes.length);
    status.className = "status ok";
    status.textContent = `${result.cubes} cubes: the fewest that show these views`;
    const prover = result.proved_by === "mip" ? `the MIP (${result.solver})` : result.proved_by;
    detail.textContent = `Optimal, proved by ${prover}; checked by re-projection. `
      + `Lower bound (the fullest view): ${result.lower_bound}.`
      + (result.check ? ` Cross-check: ${result.check}.` : "")
      + (result.hex ? ` Answer: ${result.hex}.` : "");
    const floating = floatingCubes(result.layers);
    $("floating").textContent = floating === 0 ? ""
      : `${floating === 1 ? "One cube floats" : `${floating} cubes float`} (nothing under `
        + "them): the puzzle allows it, it asks only that the heap show the three views, not "
        + "that it could stand.";
    $("floating").hidden = floating === 0;
    $("layers").textContent = result.layers.map((layer, z) => [
      `z=${z}${z === 0 ? " (top layer)" : ""}`, ...layer].join("\n")).join("\n\n");
    $("scene").hidden = false; $("layers").hidden = false;
    return;
  }
  scene.set([]);
  $("scene").dataset.cubes = "0";
  $("floating").hidden = true;
  $("scene").hidden = true; $("layers").hidden = true;
  status.className = "status error";
  if (result.status === "infeasible") {
    status.textContent = `No heap of cubes shows these views (${result.reason})`;
    detail.textContent = `No cell can show ${(result.missing || []).join(", ")}: every `
      + "cube there would show a pixel the other views leave clear.";
  } else {
    status.textContent = `No answer (${result.status})`;
    detail.textContent = result.message || "";
  }
}

// Cubes with no cube right under them and above the bottom layer (the package's z = 0 is
// the top layer, so "under" is the next layer, z + 1).
export function floatingCubes(layers) {
  let floating = 0;
  layers.forEach((layer, z) => layer.forEach((row, y) => Array.from(row).forEach((ch, x) => {
    if (ch === "x" && z + 1 < layers.length && layers[z + 1][y][x] !== "x") floating++;
  })));
  return floating;
}

async function start() {
  let options;
  try {
    options = await api("/api/views/options");
  } catch (e) {
    showError($("error"), e);
    return;
  }
  for (const n of options.sizes) $("size").add(new Option(`${n} x ${n}`, String(n)));
  for (const name of options.solvers) $("solver").add(new Option(name, name));
  $("size").value = String(options.default_n);
  $("solver").value = options.default_solver;
  $("number").max = String(options.battery_size - 1);
  showTimeLimit($("time-limit"), options);
  $("size").addEventListener("change", () => setSize(Number($("size").value)));
  $("clear").addEventListener("click", () => setSize(state.n));
  $("load").addEventListener("click", load);
  $("number").addEventListener("keydown", (e) => { if (e.key === "Enter") load(); });
  $("solve").addEventListener("click", solve);
  setSize(options.default_n);
  document.body.dataset.ready = "1";
}

start();
