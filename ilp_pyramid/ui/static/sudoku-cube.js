// The Sudoku Cube page: a net of 54 stickers (a digit and the way its top points, the
// sticker file's "5^"), checked live by the server; Solve runs `sudoku-cube solve --moves
// --json`; the answer's face turns are stepped through on a 3-D cube and a net, the states
// simulated by the server (/api/sudoku-cube/steps).

import {api, RunPanel, showError, showTimeLimit} from "/static/common.js";
import {Scene} from "/static/scene3d.js";

const $ = (id) => document.getElementById(id);
const ARROWS = {"^": "\u2191", ">": "\u2192", "v": "\u2193", "<": "\u2190"};
const KEYS = {ArrowUp: "^", ArrowRight: ">", ArrowDown: "v", ArrowLeft: "<"};
const CHECK_DELAY_MS = 200;

let layout = null;      // /api/sudoku-cube/layout
const cells = {};       // facelet name -> {digit: input, dir: button, box: div}
const order = [];       // facelet names, face by face, row by row
const pieceOf = {};     // facelet name -> its piece {slot, facelets} (layout.pieces)
let checkTimer = null, checkSerial = 0;
let answer = null;      // {steps, step}
let scene = null;

// --- the entry net --------------------------------------------------------------------

function netGrid(container, build) {
  // The faces in render.py's net: U above F, D below, L F R B in a row.
  container.textContent = "";
  for (const face of layout.faces) {
    const [col, row] = layout.net[face];
    const block = document.createElement("div");
    block.className = "sc-face";
    block.style.gridColumn = String(col + 1);
    block.style.gridRow = String(row + 1);
    block.style.background = layout.tint[face];
    const title = document.createElement("span");
    title.className = "sc-face-name";
    title.textContent = face;
    block.append(title);
    for (let pos = 1; pos <= 9; pos++) block.append(build(`${face}${pos}`, face));
    container.append(block);
  }
}

function buildEntry() {
  netGrid($("net"), (name) => {
    const box = document.createElement("div");
    box.className = "sc-sticker";
    box.dataset.facelet = name;
    const digit = document.createElement("input");
    digit.className = "sc-digit";
    digit.inputMode = "numeric";
    digit.maxLength = 1;
    digit.autocomplete = "off";
    digit.setAttribute("aria-label", `${name} digit`);
    const dir = document.createElement("button");
    dir.type = "button";
    dir.className = "sc-dir";
    dir.setAttribute("aria-label", `${name} direction`);
    dir.title = "where the digit's top points: click to turn it a quarter clockwise";
    dir.tabIndex = -1;  // Tab goes from digit to digit; the arrow keys set the direction
    box.append(digit, dir);
    cells[name] = {digit, dir, box};
    order.push(name);
    setSticker(name, "", "^");

    digit.addEventListener("focus", () => digit.select());
    // Two keys a sticker, as the file writes it: the digit, then the arrow key where its
    // top points, which moves on to the next sticker (Enter or Space moves on as it is).
    digit.addEventListener("keydown", (e) => {
      if (/^[1-9]$/.test(e.key)) {
        e.preventDefault();
        setSticker(name, e.key, dir.dataset.dir);
        changed();
      } else if (KEYS[e.key]) {
        e.preventDefault();
        setSticker(name, digit.value, KEYS[e.key]);
        changed();
        advance(name, 1);
      } else if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        advance(name, 1);
      } else if (e.key === "Backspace" && digit.value === "") {
        e.preventDefault();
        advance(name, -1);
      }
    });
    digit.addEventListener("input", () => {  // pasted, or typed where keydown had no say
      setSticker(name, digit.value.replace(/[^1-9]/g, "").slice(-1), dir.dataset.dir);
      changed();
    });
    dir.addEventListener("click", () => {
      const next = layout.directions[(layout.directions.indexOf(dir.dataset.dir) + 1) % 4];
      setSticker(name, digit.value, next);
      changed();
    });
    box.addEventListener("mouseenter", () => highlightPiece(name, true));
    box.addEventListener("mouseleave", () => highlightPiece(name, false));
    return box;
  });
  for (const piece of layout.pieces) {
    for (const name of piece.facelets) pieceOf[name] = piece;
  }
}

function setSticker(name, digit, direction) {
  const cell = cells[name];
  cell.digit.value = digit;
  cell.dir.dataset.dir = direction;
  cell.dir.textContent = ARROWS[direction];
  // The digit is drawn turned the way it points on the cube (its top towards the arrow).
  cell.digit.style.transform = `rotate(${90 * layout.directions.indexOf(direction)}deg)`;
  cell.digit.classList.toggle("sc-mark", digit === "6" || digit === "9");
}

function advance(name, step) {
  const next = order[order.indexOf(name) + step];
  if (next) cells[next].digit.focus();
}

function highlightPiece(name, on) {
  // The piece's stickers together, as they sit on the cube in the hand: easy to compare.
  const piece = pieceOf[name] || {slot: name[0], facelets: [name]};
  const mates = piece.facelets;
  for (const mate of mates) cells[mate].box.classList.toggle("sc-piece", on);
  const kind = {1: "centre", 2: "edge", 3: "corner"}[mates.length];
  $("piece").textContent = !on ? "" : `${kind} ${piece.slot}: ` + mates.map((m) => {
    const cell = cells[m];
    return `${m} ${cell.digit.value || "?"}${ARROWS[cell.dir.dataset.dir]}`;
  }).join(", ");
}

function faces() {
  const out = {};
  for (const face of layout.faces) {
    out[face] = [];
    for (let pos = 1; pos <= 9; pos++) {
      const cell = cells[`${face}${pos}`];
      out[face].push(cell.digit.value + cell.dir.dataset.dir);
    }
  }
  return out;
}

function fill(faceTokens) {
  for (const [face, tokens] of Object.entries(faceTokens)) {
    tokens.forEach((token, k) => setSticker(`${face}${k + 1}`, token[0], token[1]));
  }
  changed();
}

function changed() {
  if (!$("answer").hidden) $("stale").hidden = false;  // the answer is of another cube now
  scheduleCheck(CHECK_DELAY_MS);
}

// --- the live check -------------------------------------------------------------------

function scheduleCheck(delay) {
  clearTimeout(checkTimer);
  $("verdict").textContent = "checking...";
  $("verdict").className = "sc-verdict";
  checkTimer = setTimeout(check, delay);
}

async function check() {
  const serial = ++checkSerial;
  let result;
  try {
    result = await api("/api/sudoku-cube/check", {faces: faces()});
  } catch (e) {
    if (serial === checkSerial) {
      $("verdict").textContent = e.message;
      $("verdict").className = "sc-verdict error";
    }
    return;
  }
  if (serial !== checkSerial) return;  // a newer check is on its way
  showCheck(result);
}

function showCheck(result) {
  const counts = $("counts");
  counts.textContent = "";
  const head = counts.insertRow(), body = counts.insertRow();
  head.insertCell().textContent = "digit";
  body.insertCell().textContent = "count";
  for (let d = 1; d <= 9; d++) {
    head.insertCell().textContent = String(d);
    const cell = body.insertCell();
    cell.textContent = String(result.counts[d]);
    cell.dataset.digit = String(d);
    cell.className = result.counts[d] === 6 ? "" : "sc-off";
  }
  for (const cell of Object.values(cells)) cell.box.classList.remove("sc-bad");
  const list = $("problems");
  list.textContent = "";
  const shown = result.problems.slice(0, 12);  // every one outlined, a dozen in words
  for (const problem of result.problems) {
    for (const name of problem.facelets) cells[name].box.classList.add("sc-bad");
  }
  for (const problem of shown) {
    const item = document.createElement("li");
    item.textContent = problem.text;
    list.append(item);
  }
  if (result.problems.length > shown.length) {
    const item = document.createElement("li");
    item.textContent = `... and ${result.problems.length - shown.length} more`;
    list.append(item);
  }
  const verdict = $("verdict");
  if (result.problems.length === 0) {
    verdict.textContent = "54 stickers, each digit six times: ready to solve. Whether these "
      + "pieces make six upright 1-9 faces, and whether turning reaches them (not after a "
      + "corner was twisted in place), Solve finds out.";
    verdict.className = "sc-verdict ok";
  } else {
    verdict.textContent = `${result.problems.length} problem`
      + (result.problems.length === 1 ? ":" : "s:");
    verdict.className = "sc-verdict error";
  }
  if (result.text !== null && document.activeElement !== $("text")) $("text").value = result.text;
}

// --- solving and the answer -----------------------------------------------------------

function drawNet(container, tokens, goes, turning) {
  netGrid(container, (name, face) => {
    const pos = Number(name.slice(1)) - 1;
    const token = tokens[face][pos];
    const box = document.createElement("div");
    box.className = "sc-cell";
    box.dataset.facelet = name;
    if (goes) box.style.background = layout.tint[goes[face][pos]];
    if (turning && turning.has(name)) box.classList.add("sc-turning");
    const glyph = document.createElement("span");
    glyph.className = "sc-glyph" + (token[0] === "6" || token[0] === "9" ? " sc-mark" : "");
    glyph.textContent = token[0];
    glyph.style.transform = `rotate(${90 * layout.directions.indexOf(token[1])}deg)`;
    box.title = `${name}: ${token}`;
    box.append(glyph);
    return box;
  });
}

function solve() {
  const given = faces();
  $("answer").hidden = true;
  $("solve").disabled = true;
  const body = {faces: given, solver: $("solver").value, parity: $("parity").value,
    symmetric: $("symmetric").value, time_limit: $("time-limit").value || null};
  panel.start("/api/sudoku-cube/solve", body,
    (event) => showAnswer(given, event, body.symmetric))
    .finally(() => { if (!panel.running) $("solve").disabled = false; });
}

// The digits of the solved grid that point against their face's upright direction: a 1
// (and a digit the user called symmetric) reads the same upside down, so the model may turn
// it either way; the page says so rather than leave it looking like a mistake.
export function turnedOver(faces, directions, symmetric) {
  const either = new Set(["1", ...String(symmetric || "").replace(/[^1-9]/g, "")]);
  const turned = [];
  for (const [face, tokens] of Object.entries(faces)) {
    tokens.forEach((token, k) => {
      if (either.has(token[0]) && token[1] !== directions[face]) turned.push(`${face}${k + 1}`);
    });
  }
  return {turned, digits: [...either].sort()};
}

async function showAnswer(given, event, symmetric) {
  $("solve").disabled = false;
  const result = event.result;
  if (!result || !result.solved) {
    if (result && result.reason) showError($("error"), new Error(result.reason));
    return;
  }
  let steps;
  try {
    steps = await api("/api/sudoku-cube/steps",
      {faces: given, moves: result.moves || "", target: result.faces});
  } catch (e) {
    showError($("error"), e);
    return;
  }
  const directions = Object.entries(result.directions)
    .map(([face, arrow]) => `${face} ${ARROWS[arrow]}`).join(", ");
  $("summary").textContent = `Solved and verified by the independent checker: every face `
    + `shows 1-9 once, upright (${directions}); reachable in ${steps.moves.length} face turns`
    + (steps.reaches_target ? ", which simulated here end on exactly this grid." : ".");
  const {turned, digits} = turnedOver(result.faces, result.directions, symmetric);
  const which = digits.length === 1 ? "a 1 reads" : `${digits.join(", ")} read`;
  $("symmetric-note").textContent = turned.length === 0 ? ""
    : `${turned.length === 1 ? "One digit is" : `${turned.length} digits are`} drawn upside `
      + `down (${turned.join(", ")}): ${which} the same both ways, so a face counts as `
      + "upright with it pointing either way.";
  $("symmetric-note").hidden = turned.length === 0;
  drawNet($("solved"), result.faces, null, null);
  const list = $("moves");
  list.textContent = "";
  steps.moves.forEach((move, k) => {
    const item = document.createElement("li");
    item.textContent = move;
    item.title = `step ${k + 1}`;
    item.addEventListener("click", () => showStep(k + 1));
    list.append(item);
  });
  answer = {steps, step: 0};
  $("stale").hidden = true;
  $("answer").hidden = false;
  if (!scene) scene = new Scene($("scene"));
  showStep(0);
}

function layerOf(move) {
  // The stickers a turn of this face moves: every facelet on a cubie of its layer.
  const face = move[0];
  const normal = layout.facelets.find((f) => f.name === `${face}5`).normal;
  const axis = normal.findIndex((v) => v !== 0);
  return new Set(layout.facelets.filter((f) => f.cubie[axis] === normal[axis])
    .map((f) => f.name));
}

function showStep(step) {
  const {steps} = answer;
  answer.step = Math.max(0, Math.min(steps.moves.length, step));
  const k = answer.step, total = steps.moves.length;
  const next = k < total ? steps.moves[k] : null;
  $("step").textContent = k === 0 ? `given cube; next: ${next || "none"} (step 0 of ${total})`
    : `after ${steps.moves[k - 1]} (step ${k} of ${total})` + (next ? `; next: ${next}` : "; solved");
  for (const [i, item] of [...$("moves").children].entries()) {
    item.classList.toggle("sc-done", i < k);
    item.classList.toggle("sc-current", i === k);
  }
  $("first").disabled = $("prev").disabled = k === 0;
  $("last").disabled = $("next").disabled = k === total;
  drawNet($("stepnet"), steps.states[k], steps.goes[k], next ? layerOf(next) : null);
  scene.set(cubeItems(steps.states[k], steps.goes[k]));
}

function cubeItems(tokens, goes) {
  // geometry.py's axes (x to R, y to U, z to F) to the scene's (z up): a proper rotation.
  const place = ([x, y, z]) => [x, -z, y];
  const key = (normal) => {
    const n = place(normal), axis = n.findIndex((v) => v !== 0);
    return (n[axis] > 0 ? "+" : "-") + "xyz"[axis];
  };
  const cubies = new Map();
  for (const f of layout.facelets) {
    const at = place(f.cubie), id = at.join(",");
    if (!cubies.has(id)) cubies.set(id, {kind: "cube", at, color: "#333333", faces: {}});
    const face = f.name[0], pos = Number(f.name.slice(1)) - 1;
    cubies.get(id).faces[key(f.normal)] = {color: layout.tint[goes[face][pos]],
      text: tokens[face][pos][0]};
  }
  return [...cubies.values()];
}

// --- the page -------------------------------------------------------------------------

const panel = new RunPanel({progress: $("progress"), stop: $("stop"), error: $("error")});

async function start() {
  layout = await api("/api/sudoku-cube/layout");
  for (const [select, names, chosen] of [[$("solver"), layout.solvers, layout.solver],
    [$("parity"), layout.parities, layout.parity]]) {
    for (const name of names) select.add(new Option(name, name, false, name === chosen));
  }
  $("scramble").value = layout.scramble;
  $("scramble").max = layout.max_scramble;
  showTimeLimit($("time-limit"), layout);
  buildEntry();
  scheduleCheck(0);

  $("example").addEventListener("click", async () => {
    showError($("error"), null);
    try {
      const cube = await api("/api/sudoku-cube/example",
        {seed: $("seed").value, scramble: $("scramble").value});
      fill(cube.faces);
    } catch (e) { showError($("error"), e); }
  });
  $("clear").addEventListener("click", () => {
    for (const name of order) setSticker(name, "", "^");
    $("text").value = "";
    changed();
    cells[order[0]].digit.focus();
  });
  $("load").addEventListener("click", async () => {
    showError($("error"), null);
    try {
      fill((await api("/api/sudoku-cube/parse", {text: $("text").value})).faces);
    } catch (e) { showError($("error"), e); }
  });
  $("solve").addEventListener("click", solve);
  $("first").addEventListener("click", () => showStep(0));
  $("prev").addEventListener("click", () => showStep(answer.step - 1));
  $("next").addEventListener("click", () => showStep(answer.step + 1));
  $("last").addEventListener("click", () => showStep(answer.steps.moves.length));
  document.body.dataset.ready = "1";
}

start().catch((e) => showError($("error"), e));
