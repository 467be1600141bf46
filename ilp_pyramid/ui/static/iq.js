// The IQ Pyramid / Kanoodle page: pick a board, click the book's challenge piece by piece
// (each click checked by the server with the package's own placement code), then Solve
// (`iq solve --json`) or Count (`iq count --json --output`, the listing read back by pages).
// The challenge is kept as the `--given` JSON the CLI reads: {"B": [[x, y], ...]} for a piece
// given whole, a small letter {"b": [[i, j, level]]} for pinned cells.

import {api, showError, showTimeLimit, RunPanel} from "/static/common.js";
import {Scene} from "/static/scene3d.js";

const $ = (id) => document.getElementById(id);
const PAGE_SIZE = 10;
const FREE_BALL = "#ececec";

const state = {
  setup: null, pieces: {}, board: null, spec: null, given: {}, draft: null, tool: null,
  listingRun: null, listingPage: 0, refused: null,
};
const scene = new Scene($("scene"));
const panel = new RunPanel({progress: $("progress"), stop: $("stop"), error: $("run-error")});

const key = (cell) => cell.join(",");
const mode = () => document.querySelector('input[name="mode"]:checked').value;

function ink(hex) {
  const [r, g, b] = [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16) / 255);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.4 ? "#fff" : "#000";
}

function paint(element, letter) {
  const piece = letter ? state.pieces[letter.toUpperCase()] : null;
  element.style.background = piece ? piece.colour : "";
  element.style.color = piece ? ink(piece.colour) : "";
  element.textContent = letter || "";
}

// -- the board, drawn as cells (2-D) or one square grid per level (pyramids) ---------------

// `letters`: Map cell key -> letter; `marks`: Map cell key -> CSS class (given, pin, draft).
function drawBoard(container, board, letters, {marks = new Map(), onClick = null} = {}) {
  const dress = (element) => {
    element.className = "iq-cell" + (board.dims === 3 ? " ball" : "");
    const mark = marks.get(element.dataset.cell);
    if (mark) element.classList.add(mark);
    paint(element, letters.get(element.dataset.cell));
  };
  // The board drawn already (and not cleared since) is redrawn in place: a cell replaced
  // under a click in flight (pressed on the old button, released on the new one) would lose
  // that click.
  if (container.drawn === board && container.clickable === Boolean(onClick)
      && container.querySelector("[data-cell]")) {
    for (const element of container.querySelectorAll("[data-cell]")) dress(element);
    return;
  }
  container.replaceChildren();
  container.drawn = board; container.clickable = Boolean(onClick);
  container.dataset.board = board.name;
  const cell = (at, x, y) => {
    const element = document.createElement(onClick ? "button" : "div");
    if (onClick) { element.type = "button"; element.addEventListener("click", () => onClick(at)); }
    element.dataset.cell = key(at);
    element.style.gridColumn = x + 1; element.style.gridRow = y + 1;
    dress(element);
    return element;
  };
  // The grid's columns, for the page's style to fit its cells to a narrow screen.
  const columns = (cells) => String(Math.max(...cells.map((at) => at[0])) + 1);
  if (board.dims === 2) {
    const grid = document.createElement("div");
    grid.className = "iq-grid";
    grid.style.setProperty("--cols", columns(board.cells));
    for (const at of board.cells) grid.append(cell(at, at[0], at[1]));
    container.append(grid);
    return;
  }
  for (let h = 0; h < board.levels; h++) {
    const level = document.createElement("div");
    level.className = "iq-level";
    const title = document.createElement("div");
    title.className = "iq-level-title";
    title.textContent = h === 0 ? "level 1 (bottom)" : `level ${h + 1}`;
    const grid = document.createElement("div");
    grid.className = "iq-grid";
    const mine = board.cells.filter((c) => c[2] === h);
    grid.style.setProperty("--cols", columns(mine));
    for (const at of mine) grid.append(cell(at, at[0], at[1]));
    level.append(title, grid);
    container.append(level);
  }
}

// A ball pyramid in 3-D: ball (i, j) of level h at (2i+h, 2j+h, h*sqrt 2) / 2, radius 1/2.
function drawScene(board, letters) {
  const canvas = $("scene");
  canvas.hidden = board.dims !== 3;
  if (board.dims !== 3) { scene.set([]); return; }
  const items = board.cells.map(([i, j, h]) => {
    const letter = letters.get(key([i, j, h]));
    const piece = letter ? state.pieces[letter.toUpperCase()] : null;
    return {kind: "ball", at: [(2 * i + h) / 2, (2 * j + h) / 2, h * Math.SQRT1_2],
      radius: 0.5, color: piece ? piece.colour : FREE_BALL, text: letter || null};
  });
  scene.set(items);
  canvas.dataset.balls = String(items.length);
  canvas.dataset.filled = String(items.filter((item) => item.text).length);
}

function gridLetters(board, grid) {
  const letters = new Map();
  for (const at of board.cells) {
    const row = board.dims === 2 ? grid[at[1]] : (grid[at[2]] || [])[at[1]];
    const letter = row ? row[at[0]] : undefined;
    if (letter && letter !== "." && letter !== " ") letters.set(key(at), letter);
  }
  return letters;
}

// -- the challenge -------------------------------------------------------------------------

function challengeLetters() {
  const letters = new Map(), marks = new Map();
  for (const [letter, cells] of Object.entries(state.given)) {
    for (const at of cells) {
      letters.set(key(at), letter);
      marks.set(key(at), letter === letter.toUpperCase() ? "given" : "pin");
    }
  }
  if (state.draft) {
    for (const at of state.draft.cells) {
      letters.set(key(at), state.draft.letter); marks.set(key(at), "draft");
    }
  }
  return {letters, marks};
}

function drawChallenge() {
  const {letters, marks} = challengeLetters();
  drawBoard($("challenge"), state.board, letters, {marks, onClick: clickCell});
  const refused = state.refused && $("challenge").querySelector(`[data-cell="${state.refused}"]`);
  if (refused) refused.classList.add("refused");
  drawPalette();
  if ($("answer").dataset.status === "none") drawScene(state.board, letters);
  const draft = state.draft;
  $("tool").textContent = state.tool === null ? "pick a piece, then click its cells"
    : state.tool === "erase" ? "eraser: click a piece or pin to take it off"
      : mode() === "pin" ? `pin ${state.tool.toLowerCase()}: click single cells of piece ${state.tool}`
        : `piece ${state.tool}: ${draft ? draft.cells.length : 0} of ${state.pieces[state.tool].size} cells clicked`;
}

function drawPalette() {
  const palette = $("palette");
  palette.replaceChildren();
  const used = new Set(Object.keys(state.given).map((letter) => letter.toUpperCase()));
  for (const piece of Object.values(state.pieces)) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "iq-piece";
    button.dataset.piece = piece.letter;
    button.title = `piece ${piece.letter} (${piece.size} cells)`;
    if (used.has(piece.letter)) button.classList.add("used");
    if (state.tool === piece.letter) button.classList.add("selected");
    const shape = document.createElement("div");
    shape.className = "iq-shape";
    for (const [x, y] of piece.cells) {
      const square = document.createElement("div");
      square.style.gridColumn = x + 1; square.style.gridRow = y + 1;
      square.style.background = piece.colour;
      shape.append(square);
    }
    const label = document.createElement("span");
    label.textContent = piece.letter;
    button.append(shape, label);
    button.addEventListener("click", () => selectTool(piece.letter));
    palette.append(button);
  }
  const eraser = document.createElement("button");
  eraser.type = "button";
  eraser.className = "iq-piece eraser" + (state.tool === "erase" ? " selected" : "");
  eraser.dataset.piece = "erase";
  eraser.textContent = "eraser";
  eraser.addEventListener("click", () => selectTool("erase"));
  palette.append(eraser);
}

function selectTool(tool) {
  if (state.draft && state.draft.letter !== tool) {
    showError($("message"), new Error(`unfinished piece ${state.draft.letter} taken off`));
  } else {
    showError($("message"), null);
  }
  state.draft = null;
  state.tool = state.tool === tool ? null : tool;
  drawChallenge();
}

function boardSpec() { return state.spec; }

// Ask the server whether the challenge (plus `draft`) holds; it answers the package's one
// line when it does not. Returns the answer, or null after showing the refusal.
async function check(draft, refused) {
  try {
    const answer = await api("/api/iq/check", {board: boardSpec(), given: state.given, draft});
    showError($("message"), null);
    $("board-info").textContent = `${answer.free_cells} free cells, pieces left: ` +
      `${answer.free_pieces.join(" ") || "none"}; ${answer.placements} placements`;
    return answer;
  } catch (error) {
    showError($("message"), error);
    if (refused) {  // the refused cell flashes red (drawChallenge marks it while it does)
      const refusal = state.refused = key(refused);
      setTimeout(() => {
        if (state.refused !== refusal) return;
        state.refused = null;
        const element = $("challenge").querySelector(`[data-cell="${refusal}"]`);
        if (element) element.classList.remove("refused");
      }, 1200);
    }
    return null;
  }
}

// Clicks are taken one at a time, each after the server's answer to the one before: a quick
// second click must extend the piece the first one left, not race it.
let clicks = Promise.resolve();

function clickCell(at) {
  clicks = clicks.then(() => takeClick(at));
}

async function takeClick(at) {
  if (panel.running) return;
  resetAnswer(); hideListing();
  const tool = state.tool;
  if (tool === null) {
    showError($("message"), new Error("pick a piece from the palette first"));
    return;
  }
  if (tool === "erase") {
    const owner = Object.keys(state.given).find(
      (letter) => state.given[letter].some((c) => key(c) === key(at)));
    if (owner === undefined) return;
    const left = owner === owner.toLowerCase()
      ? state.given[owner].filter((c) => key(c) !== key(at)) : [];
    if (left.length) state.given[owner] = left; else delete state.given[owner];
    await check(null);
    drawChallenge();
    return;
  }
  if (mode() === "pin") {
    const answer = await check({letter: tool, cells: [at], pin: true}, at);
    if (answer) state.given = answer.given;
    drawChallenge();
    return;
  }
  const cells = state.draft ? state.draft.cells : [];
  if (cells.some((c) => key(c) === key(at))) {  // a second click takes the cell back
    const rest = cells.filter((c) => key(c) !== key(at));
    state.draft = rest.length ? {letter: tool, cells: rest} : null;
    drawChallenge();
    return;
  }
  const draft = {letter: tool, cells: [...cells, at]};
  const answer = await check(draft, at);
  if (answer && answer.draft === "placed") {
    state.given = answer.given;
    state.draft = null;
    state.tool = null;
  } else if (answer) {
    state.draft = draft;
  }
  drawChallenge();
}

// -- boards --------------------------------------------------------------------------------

async function useBoard(board, spec) {
  state.board = board; state.spec = spec; state.given = {}; state.draft = null;
  resetAnswer();
  hideListing();
  await check(null);
  drawChallenge();
}

function chooseBoard() {
  const name = $("board").value;
  $("custom").hidden = name !== "custom";
  if (name === "custom") { drawEditor(); return; }
  useBoard(state.setup.boards[name], name);
}

const custom = new Set();

function drawEditor() {
  const side = state.setup.custom_side, grid = $("custom-grid");
  grid.replaceChildren();
  grid.style.gridTemplateColumns = `repeat(${side}, minmax(0, 1.5em))`;
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      const cell = document.createElement("button");
      cell.type = "button";
      cell.dataset.edit = `${x},${y}`;
      cell.className = custom.has(`${x},${y}`) ? "on" : "";
      cell.addEventListener("click", () => {
        if (custom.has(cell.dataset.edit)) custom.delete(cell.dataset.edit);
        else custom.add(cell.dataset.edit);
        cell.className = custom.has(cell.dataset.edit) ? "on" : "";
        $("custom-count").textContent = `${custom.size} cells (the 12 pieces cover 55)`;
      });
      grid.append(cell);
    }
  }
  $("custom-count").textContent = `${custom.size} cells (the 12 pieces cover 55)`;
}

async function useCustom() {
  const cells = [...custom].map((text) => text.split(",").map(Number));
  try {
    const board = await api("/api/iq/board", {cells});
    showError($("message"), null);
    await useBoard(board, {cells: board.cells});
  } catch (error) {
    showError($("message"), error);
  }
}

// -- runs ----------------------------------------------------------------------------------

function resetAnswer() {
  const answer = $("answer");
  if (answer.dataset.status === "none") return;
  answer.dataset.status = "none";
  delete answer.dataset.pieces;
  delete answer.dataset.count;
  $("caption").textContent = "";
  $("answer-board").replaceChildren();
}

function setBusy(busy) {
  $("solve").disabled = busy; $("count").disabled = busy;
  $("board").disabled = busy; $("clear").disabled = busy;
}

function runBody() {
  const body = {board: boardSpec(), given: state.given};
  const limit = $("time-limit").value.trim();
  if (limit) body.time_limit = limit;
  return body;
}

function caption(status, text) {
  $("answer").dataset.status = status;
  $("caption").textContent = text;
}

function showSolution(grid, title) {
  const letters = gridLetters(state.board, grid);
  const marks = new Map();
  for (const [letter, cells] of Object.entries(state.given)) {
    for (const at of cells) marks.set(key(at), letter === letter.toUpperCase() ? "given" : "pin");
  }
  drawBoard($("answer-board"), state.board, letters, {marks});
  drawScene(state.board, letters);
  if (title) $("caption").textContent = title;
  return [...new Set(letters.values())].sort();
}

function ended(event) {
  if (event.stopped) { caption("stopped", `stopped after ${event.seconds} s`); return true; }
  if (event.exit === 3) {
    caption("timeout", "the time limit was reached without an answer");
    return true;
  }
  if (event.exit !== 0 && event.exit !== 1) {
    caption("error", event.error || `the run ended with exit code ${event.exit}`);
    return true;
  }
  return false;
}

async function solve() {
  resetAnswer(); hideListing();
  const body = {...runBody(), solver: $("solver").value};
  setBusy(true);
  caption("running", "solving...");
  await panel.start("/api/iq/solve", body, (event) => {
    setBusy(false);
    if (ended(event)) return;
    const result = event.result;
    if (result && result.solved) {
      const pieces = showSolution(result.grid);
      $("answer").dataset.pieces = pieces.join("");
      caption("solved", `solved by ${result.engine} in ${result.seconds} s and verified ` +
        `by the independent checker; pieces ${pieces.join(" ")}`);
    } else {
      caption("infeasible", "no solution: this challenge cannot be completed");
    }
  });
  if (!panel.running) { setBusy(false); caption("error", $("run-error").textContent); }
}

async function count() {
  resetAnswer(); hideListing();
  setBusy(true);
  caption("running", "counting...");
  let run = null;
  await panel.start("/api/iq/count", runBody(), async (event) => {
    setBusy(false);
    const result = event.result;
    if (event.exit === 3 && result && result.partial_solutions !== null) {
      caption("timeout", "time limit: the count is NOT complete; the parts finished hold " +
        `${result.partial_solutions.toLocaleString("en")} completions (a lower bound)`);
      return;
    }
    if (ended(event)) return;
    $("answer").dataset.count = String(result.solutions);
    caption("counted", `${result.solutions.toLocaleString("en")} completions ` +
      `(${result.distinct_up_to_symmetry.toLocaleString("en")} up to the ` +
      `${result.symmetries} symmetries of the board that keep the challenge in place), ` +
      `each checked by the independent checker`);
    state.listingRun = run;
    await showListing(0);
    const first = $("listing-items").querySelector(".iq-item");
    if (first) first.click();  // the first completion, large (and in 3-D for a pyramid)
  });
  run = panel.run;
  if (!panel.running) { setBusy(false); caption("error", $("run-error").textContent); }
}

function hideListing() {
  $("listing").hidden = true;
  $("listing-items").replaceChildren();
  state.listingRun = null;
}

async function showListing(page) {
  if (state.listingRun === null) return;
  let answer;
  try {
    answer = await api(`/api/iq/listing/${state.listingRun}?page=${page}&size=${PAGE_SIZE}`);
  } catch (error) {
    showError($("run-error"), error);
    return;
  }
  state.listingPage = page;
  const pages = Math.max(1, Math.ceil(answer.total / PAGE_SIZE));
  $("page-info").textContent = answer.total === 0 ? "no completion"
    : `page ${page + 1} of ${pages} (${answer.total.toLocaleString("en")} completions; ` +
      "click one to see it large)";
  $("previous").disabled = page === 0;
  $("next").disabled = page + 1 >= pages;
  const items = $("listing-items");
  items.replaceChildren();
  answer.grids.forEach((grid, k) => {
    const item = document.createElement("div");
    item.className = "iq-item";
    item.title = "click to show it large";
    const number = document.createElement("div");
    number.textContent = `#${page * PAGE_SIZE + k + 1}`;
    const board = document.createElement("div");
    board.className = "iq-board small";
    drawBoard(board, state.board, gridLetters(state.board, grid));
    item.append(number, board);
    item.addEventListener("click", () => {
      for (const other of items.querySelectorAll(".iq-item")) other.classList.remove("shown");
      item.classList.add("shown");
      showSolution(grid, null);
    });
    items.append(item);
  });
  $("listing").hidden = false;
}

// -- start ---------------------------------------------------------------------------------

async function start() {
  try {
    state.setup = await api("/api/iq/setup");
  } catch (error) {
    showError($("message"), error);
    return;
  }
  for (const piece of state.setup.pieces) state.pieces[piece.letter] = piece;
  for (const name of [...Object.keys(state.setup.boards), "custom"]) {
    const option = document.createElement("option");
    option.value = name;
    option.textContent = name === "custom" ? "custom (draw a 2-D board)" : name;
    $("board").append(option);
  }
  for (const name of state.setup.solvers) {
    const option = document.createElement("option");
    option.value = name; option.textContent = name;
    option.selected = name === state.setup.default_solver;
    $("solver").append(option);
  }
  showTimeLimit($("time-limit"), state.setup);
  $("board").addEventListener("change", chooseBoard);
  $("clear").addEventListener("click", async () => {
    state.given = {}; state.draft = null; resetAnswer(); hideListing();
    await check(null); drawChallenge();
  });
  for (const radio of document.querySelectorAll('input[name="mode"]')) {
    radio.addEventListener("change", () => { state.draft = null; drawChallenge(); });
  }
  $("custom-use").addEventListener("click", useCustom);
  $("custom-clear").addEventListener("click", () => { custom.clear(); drawEditor(); });
  $("solve").addEventListener("click", solve);
  $("count").addEventListener("click", count);
  $("previous").addEventListener("click", () => showListing(state.listingPage - 1));
  $("next").addEventListener("click", () => showListing(state.listingPage + 1));
  await useBoard(state.setup.boards[$("board").value], $("board").value);
  document.body.dataset.ready = "1";
}

start();
