"""The Bel's Pyramid page: its API in-process (the CLI's own commands as runs) and the page
in headless Chromium (solve N=4 and see it drawn, Stop an N=6 search and see its best state
drawn, open a file: a solution, a near-solution with its faults marked)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ilp_pyramid.puzzles.bel import auto
from ilp_pyramid.puzzles.bel.cubes import build_list, parse_any, to_csv
from ilp_pyramid.puzzles.bel.faces import PALETTE
from ilp_pyramid.puzzles.bel.geometry import MAX_N, cell_count
from ilp_pyramid.puzzles.bel.lns.repair import REPAIR_SOLVERS, REPAIRS
from ilp_pyramid.puzzles.bel.solution import parse_json
from ilp_pyramid.ui.pages import bel as page
from ilp_pyramid.verify.bel import verify_solution
from tests.proctools import gone, live_children
from tests.ui_support import drag_turns_the_scene, screenshot

FIXTURES = Path(__file__).parent / "fixtures" / "bel"
VALID = FIXTURES / "n3-example.txt"
INVALID = FIXTURES / "n3-one-label-changed.txt"  # one Z label of VALID changed: 1 for 2
# A hunt's best state of N=6 (its best.json): one cube repeated, one missing.
NEAR = Path(__file__).resolve().parents[1] / "docs" / "data" / "bel_n6_best.json"
STATIC = Path(page.__file__).resolve().parents[1] / "static"


def run_to_end(client, answer) -> dict:
    """Follow a started run's events; its done event."""
    assert answer.status_code == 200, answer.text
    return done_of(client, answer.json()["run"])


def done_of(client, run_id: str) -> dict:
    """The run's done event (its events read to the end)."""
    with client.stream("GET", f"/api/runs/{run_id}/events") as events:
        for line in events.iter_lines():
            if line.startswith("data: ") and json.loads(line[6:])["type"] == "done":
                return json.loads(line[6:])
    raise AssertionError("no done event")


# --- the API -------------------------------------------------------------------------------

def test_the_page_offers_the_cli_engines_and_its_range_of_n(ui_client):
    options = ui_client.get("/api/bel/options").json()
    names = [engine["name"] for engine in options["engines"]]
    assert names[0] == "auto"
    assert {name.removeprefix("lns+") for name in names if name.startswith("lns+")} \
        == set(REPAIRS)
    # The page's copy of the repairs and their solvers is the search's own.
    assert {repair: solver for repair, (_, solver) in page.REPAIRS.items()} == REPAIR_SOLVERS
    assert {"exact:highs", "exact:scip", "exact:kissat", "exact:cpsat"} <= set(names)
    assert options["max_n"] == MAX_N


# One engine of each family as its own process (the numba DLX is test_ui_iq's); the others,
# whose command is the same `solve` with another name after --solver or --repair, in this
# process (conftest's run_cli), and as their own process under slow.
OWN_PROCESS = {"auto", "lns+sat", "exact:highs", "exact:cbc", "exact:kissat", "exact:cpsat"}


def check_engine_answer(engine: str, code: int, out: str, err: str) -> None:
    assert code == 0, err
    answer = json.loads(out)
    solver = answer["solver"]
    shown = answer.get("engine") or (solver if solver.startswith("lns+") else f"exact:{solver}")
    assert shown == engine or (engine == "auto" and answer["method"] == "auto")
    assert verify_solution(parse_json(out)).valid


def engine_args(engine: str) -> list[str]:
    args = page.solve_args({"n": 2, "engine": engine, "time_limit": 60})
    assert args[:3] == ["solve", "2", "--json"] and args[-2:] == ["--time-limit", "60"]
    return args


@pytest.mark.parametrize("engine", [
    e if e in OWN_PROCESS else pytest.param(e, marks=pytest.mark.slow) for e in page.engines()])
def test_every_engine_offered_is_a_solve_the_cli_takes(engine):
    args = engine_args(engine)
    # Its own process, as the workbench runs it (and not a fork of this threaded one).
    done = subprocess.run([sys.executable, "-m", "ilp_pyramid", *args], capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=120)
    check_engine_answer(engine, done.returncode, done.stdout, done.stderr)


@pytest.mark.parametrize("engine", [e for e in page.engines() if e not in OWN_PROCESS])
def test_every_other_engine_offered_is_a_solve_the_cli_takes_in_process(cli, engine):
    done = cli(*engine_args(engine))
    check_engine_answer(engine, done.code, done.out, done.err)


@pytest.mark.parametrize(("body", "message"), [
    ({"n": 0}, "n must be a whole number from 1 to 12"),
    ({"n": MAX_N + 1}, "n must be a whole number from 1 to 12"),
    ({"n": "four"}, "n must be a whole number"),
    ({"n": 3, "engine": "exact:nosuch"}, "engine must be one of: auto, lns+sat"),
    ({"n": 3, "time_limit": -1}, "time_limit must be a number from 0.1"),
    ({"n": 3, "time_limit": "soon"}, "time_limit must be a number"),
])
def test_bad_input_is_the_one_line_answer(ui_client, body, message):
    answer = ui_client.post("/api/bel/solve", json=body)
    assert answer.status_code == 400
    assert answer.json()["error"].startswith(message) and "\n" not in answer.json()["error"]


def test_a_solve_is_the_cli_command_and_its_answer_is_verified(ui_client):
    done = run_to_end(ui_client, ui_client.post("/api/bel/solve", json={"n": 2}))
    assert done["exit"] == 0 and not done["stopped"]
    result = done["result"]
    assert result["n"] == 2 and result["engine"] == auto.choose(2).name
    assert verify_solution(parse_json(json.dumps(result))).valid


def test_a_time_limit_without_a_solution_is_exit_3(ui_client):
    body = {"n": 6, "engine": "lns+sat", "time_limit": 0.5}  # N=6: open, never solved yet
    done = run_to_end(ui_client, ui_client.post("/api/bel/solve", json=body))
    assert done["exit"] == 3 and done["result"]["status"] == "timeout"
    assert done["result"]["best_conflicts"] > 0


def test_stop_keeps_the_best_state_and_its_count(ui_client):
    started = ui_client.post("/api/bel/solve", json={"n": 6, "time_limit": 120})
    assert started.status_code == 200, started.text
    run_id = started.json()["run"]
    # Watched through its state (the test client hands a stream over only once complete).
    deadline = time.monotonic() + 60
    while True:
        state = ui_client.get(f"/api/runs/{run_id}").json()
        last = state["last"] or {}
        if last.get("type") == "progress" and last["info"].get("best") is not None:
            break
        assert time.monotonic() < deadline and not state["done"], state
        time.sleep(0.1)
    seen = last["info"]["best"]
    assert ui_client.post(f"/api/runs/{run_id}/stop", json={}).status_code == 200
    done = done_of(ui_client, run_id)
    assert done["exit"] == 130 and done["stopped"]
    result = done["result"]
    assert result["status"] == "interrupted" and result["solution"] is None
    best = result["best"]
    assert best["n"] == 6 and 0 < best["conflicts"] == result["best_conflicts"] <= seen
    # The labels are the state counted: the checker finds that many repeated cubes.
    assert verify_solution(parse_json(json.dumps(best))).conflicts == best["conflicts"]
    # What the page then draws: the build list of every cell, the repeated cubes' cells.
    drawn = ui_client.post("/api/bel/open", json={"text": json.dumps(best)}).json()
    assert not drawn["valid"] and drawn["conflicts"] == best["conflicts"]
    assert len(drawn["cubes"]) == cell_count(6)
    assert sum(len(r["cells"]) - 1 for r in drawn["repeated"]) == best["conflicts"]


def test_a_near_solution_opened_comes_back_with_its_faults_and_build_list(ui_client):
    text = NEAR.read_text()
    answer = ui_client.post("/api/bel/open", json={"text": text})
    assert answer.status_code == 200
    answer = answer.json()
    solution = parse_any(text)
    verdict = verify_solution(solution)
    assert answer["n"] == 6 and answer["valid"] is False
    assert answer["reasons"] == verdict.reasons()
    assert answer["conflicts"] == verdict.conflicts == json.loads(text)["conflicts"]
    assert answer["cubes"] == build_list(solution)
    assert answer["missing"] == [list(cube) for cube in verdict.missing] != []
    assert [r["cube"] for r in answer["repeated"]] == [list(c) for c in sorted(verdict.duplicates)]
    # Each repeated cube's cells are exactly the build list's cells showing that cube.
    for repeated in answer["repeated"]:
        cells = [{"x": row["x"], "y": row["y"], "h": row["h"]} for row in answer["cubes"]
                 if row["cube"] == repeated["cube"]]
        assert len(cells) > 1 and sorted(cells, key=lambda c: (c["x"], c["y"], c["h"])) \
            == repeated["cells"]


@pytest.mark.parametrize("form", ["drawing", "json", "csv"])
def test_a_solution_opened_is_verified_and_its_build_list_comes_back(ui_client, form):
    solution = parse_any(VALID.read_text())
    text = {"drawing": VALID.read_text(),
            "json": json.dumps({"n": 3, "solution": solution.to_dict()}),
            "csv": to_csv(build_list(solution))}[form]
    answer = ui_client.post("/api/bel/open", json={"text": text})
    assert answer.status_code == 200
    assert answer.json() == {"n": 3, "valid": True, "cubes": build_list(solution)}
    assert len(answer.json()["cubes"]) == cell_count(3)


def test_an_invalid_solution_comes_back_with_the_checkers_reasons(ui_client):
    answer = ui_client.post("/api/bel/open", json={"text": INVALID.read_text()})
    assert answer.status_code == 200
    solution = parse_any(INVALID.read_text())
    reasons = verify_solution(solution).reasons()
    assert {key: answer.json()[key] for key in ("n", "valid", "reasons")} == \
        {"n": 3, "valid": False, "reasons": reasons}
    assert reasons == ["cube {1,1,2} appears 2 times: at (x=0, y=0, h=0), (x=2, y=1, h=1)",
                       "cube {1,2,2} is missing"]
    # Drawn anyway, its faults marked: the cells of {1,1,2}, the missing {1,2,2}.
    assert answer.json()["cubes"] == build_list(solution)
    assert answer.json()["repeated"] == [{"cube": [1, 1, 2], "cells": [
        {"x": 0, "y": 0, "h": 0}, {"x": 2, "y": 1, "h": 1}]}]
    assert answer.json()["missing"] == [[1, 2, 2]] and answer.json()["conflicts"] == 1


@pytest.mark.parametrize(("text", "message"), [
    ("garbage", "not a Knuth drawing: the first line must be the '+---+' border"),
    ('{"Z": [[0]]}', "JSON solution must have the keys Z, X and Y"),
    ("", "text must be a solution"),
    (None, "text must be a solution"),
])
def test_a_malformed_file_is_the_readers_one_line(ui_client, text, message):
    answer = ui_client.post("/api/bel/open", json={"text": text})
    assert answer.status_code == 400
    error = answer.json()["error"]
    # The reader's own message, without the name of the server's temporary file.
    assert error == message or error.startswith(message)
    assert "/" not in error.replace("'+---+'", "") and "solution.txt" not in error


def test_the_pages_colours_are_the_pictures(ui_client):
    script = ui_client.get("/static/bel.js").text
    listed = re.search(r"const PALETTE = \[(.*?)\];", script, re.S).group(1)
    assert re.findall(r'"(#[0-9a-f]{6})"', listed) == list(PALETTE)


def test_the_page_loads_its_script_and_keeps_the_frames_header(ui_client):
    html = ui_client.get("/bel").text
    assert '<script type="module" src="/static/bel.js"></script>' in html
    assert '<a href="/iq">IQ / Kanoodle</a>' in html and "<h1>Bel's Pyramid</h1>" in html
    for name in ("bel.js", "bel.css", "common.js", "scene3d.js"):
        assert ui_client.get(f"/static/{name}").status_code == 200, name


# --- in Chromium ---------------------------------------------------------------------------

WATCH_PROGRESS = """() => {
    window.progressSeen = [];
    const line = document.getElementById("progress");
    new MutationObserver(() => window.progressSeen.push(line.textContent))
        .observe(line, {childList: true, characterData: true, subtree: true});
}"""
# How many pixels of the canvas are drawn on (not blank): the pyramid is there.
PAINTED = """() => {
    const c = document.getElementById("scene");
    const data = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let painted = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] > 0) painted++;
    return painted;
}"""


def open_page(page, url: str) -> None:
    page.goto(url + "/bel")
    page.wait_for_selector("body[data-ready]")


@pytest.mark.browser
def test_solve_4_shows_progress_then_the_pyramid_and_its_build_list(ui_server, browser_page):
    page = browser_page
    open_page(page, ui_server.url)
    page.fill("#n", "4")
    page.select_option("#engine", "auto")
    page.evaluate(WATCH_PROGRESS)
    page.click("#solve")
    page.wait_for_selector(f'#scene[data-cubes="{cell_count(4)}"]', timeout=120_000)
    seen = page.evaluate("window.progressSeen")
    assert any(re.match(r"running +\d+ s", text) for text in seen), seen
    assert page.text_content("#progress").startswith("finished in")
    verdict = page.text_content("#verdict")
    assert f"solved by {auto.choose(4).name}" in verdict, verdict
    assert "valid: N=4, all 84 cubes" in verdict, verdict
    assert page.locator("#build tbody tr").count() == cell_count(4)
    assert page.evaluate(PAINTED) > 20_000
    screenshot(page, "ui_bel.png")
    # Dragging turns it: the picture changes.
    assert drag_turns_the_scene(page, (300, 250), (380, 270))
    # Fewer levels shown: fewer cubes drawn (the bottom level of N=4 has 49).
    page.locator("#levels").fill("1")
    assert page.get_attribute("#scene", "data-cubes") == "49"


@pytest.mark.browser
def test_stop_on_a_search_of_6_stops_it_and_leaves_no_process(ui_server, browser_page):
    page = browser_page
    open_page(page, ui_server.url)
    page.fill("#n", "6")
    page.fill("#time-limit", "600")
    page.click("#solve")
    # The live line shows the search's own measures (the CLI's status line's).
    page.wait_for_function("() => document.getElementById('progress').textContent"
                           ".includes('repeated cubes')", timeout=120_000)
    assert re.search(r"best \d+ repeated cubes .*[\d,]+ moves", page.text_content("#progress"))
    runs = live_children(ui_server.process.pid)
    assert len(runs) == 1
    assert page.is_disabled("#solve") and not page.is_disabled("#stop")
    seen = int(re.search(r"best (\d+) repeated", page.text_content("#progress")).group(1))
    page.click("#stop")
    page.wait_for_function("() => document.getElementById('progress').textContent"
                           ".startsWith('stopped after')", timeout=10_000)
    assert page.text_content("#error") == ""  # asked for, not an error
    assert gone(runs, within=2.0) == set()
    assert not page.is_disabled("#solve")
    # The best state reached is kept and drawn, its repeated cubes outlined (the page has it
    # checked by `render`, a run of its own, which is over once it is drawn).
    page.wait_for_selector(f"#scene[data-cubes='{cell_count(6)}']", timeout=30_000)
    assert live_children(ui_server.process.pid) == set()
    verdict = page.text_content("#verdict")
    found = re.fullmatch(r"stopped after [\d.]+ s without a solution; the best state reached, "
                         r"N=6: (\d+) repeated cubes?, (\d+) missing cubes?", verdict)
    assert found, verdict
    count = int(found.group(1))
    assert 0 < count <= seen
    repeated = int(page.get_attribute("#scene", "data-repeated"))
    assert count < repeated <= 2 * count  # every cell of a repeated cube: the first ones too
    assert page.locator("#build tr.repeated").count() == repeated
    assert page.locator("#reasons li").count() == len(re.findall(
        r"appears", page.text_content("#reasons"))) + int(found.group(2))
    page.check("#faults-only")
    assert page.get_attribute("#scene", "data-cubes") == str(repeated)


@pytest.mark.browser
def test_a_solution_file_is_verified_and_drawn(ui_server, browser_page):
    page = browser_page
    open_page(page, ui_server.url)
    page.set_input_files("#file", str(VALID))
    page.wait_for_selector(f'#scene[data-cubes="{cell_count(3)}"]', timeout=30_000)
    assert page.text_content("#verdict").startswith(
        "n3-example.txt: valid: N=3, all 35 cubes of the set appear exactly once")
    assert page.locator("#build tbody tr").count() == cell_count(3)
    first = page.locator("#build tbody tr").first.inner_text().split()
    row = build_list(parse_any(VALID.read_text()))[0]
    assert first[-3:] == [str(row["faces_x"]), str(row["faces_y"]), str(row["faces_z"])]
    assert page.evaluate(PAINTED) > 10_000
    assert page.locator("#faults").is_hidden() and page.locator("#faults-only").is_hidden()
    # A wrong labelling: the checker's reasons, and drawn with its faults marked.
    page.set_input_files("#file", str(INVALID))
    page.wait_for_function("() => document.getElementById('verdict').textContent"
                           ".includes('invalid')", timeout=30_000)
    assert page.text_content("#verdict") == \
        "n3-one-label-changed.txt: invalid: N=3: 1 repeated cube, 1 missing cube"
    verdict = verify_solution(parse_any(INVALID.read_text()))
    assert page.locator("#reasons li").all_text_contents() == verdict.reasons()
    page.wait_for_selector(f"#scene[data-cubes='{cell_count(3)}']")
    [(cube, cells)] = verdict.duplicates.items()
    assert page.get_attribute("#scene", "data-repeated") == str(len(cells))
    assert page.locator("#build tr.repeated").count() == len(cells)
    marked = [row.split()[1:4] for row in page.locator("#build tr.repeated").all_inner_texts()]
    assert marked == [[f"({x},", f"{y},", f"{h})"] for x, y, h in cells]
    assert page.locator("#missing li").all_text_contents() == [
        "".join(map(str, missing)) for missing in verdict.missing]
    # A hunt's near-solution of N=6: the same, among 286 cubes; alone on request.
    page.set_input_files("#file", str(NEAR))
    page.wait_for_selector(f"#scene[data-cubes='{cell_count(6)}']", timeout=30_000)
    near = verify_solution(parse_any(NEAR.read_text()))
    shown = sum(len(cells) for cells in near.duplicates.values())
    assert page.get_attribute("#scene", "data-repeated") == str(shown)
    assert page.locator("#missing li").count() == len(near.missing)
    page.check("#faults-only")
    assert page.get_attribute("#scene", "data-cubes") == str(shown)
    assert page.evaluate(PAINTED) > 1_000
    page.uncheck("#faults-only")
    assert page.get_attribute("#scene", "data-cubes") == str(cell_count(6))
    # A file that is no solution: the reader's one line.
    page.set_input_files("#file", files=[{"name": "notes.txt", "mimeType": "text/plain",
                                          "buffer": b"hello"}])
    page.wait_for_function("() => document.getElementById('error').textContent.length > 0",
                           timeout=30_000)
    assert page.text_content("#error") == \
        "not a Knuth drawing: the first line must be the '+---+' border"
