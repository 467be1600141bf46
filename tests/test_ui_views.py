"""The workbench's Views page: its endpoints in-process (bad grids, the live check, a battery
puzzle, solved and impossible views through `views solve` runs) and the page in Chromium
(click the three grids, Solve, see the cubes; an impossible instance shows why)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ilp_pyramid.puzzles.views.geometry import (
    from_rows,
    parse_spec,
    placement_from_bits,
    projections,
    view_rows,
)
from ilp_pyramid.verify.views import verify_answer
from tests.ui_support import done_event, drag_turns_the_scene, screenshot

ROWS_347177 = {"top": ["xx..", "xxxx", "xxxx", "xx.x"], "front": ["xxxx"] * 4,
               "side": ["x.x.", "xxxx", "xxxx", "x.xx"]}  # the spec's puzzle that needs 18
# The top view's back-left pixel wants a cube at the back (y = 0), which the front view puts
# in the top layer; the side view (its left column is the front) says the top layer's cubes
# are all at the front (y = 3): no cube can show that pixel, the others one cube shows.
ROWS_IMPOSSIBLE = {"top": ["x...", "....", "....", "x..."],
                   "front": ["x...", "....", "....", "...."],
                   "side": ["x...", "....", "....", "...."]}



def solve(client, body: dict) -> dict:
    started = client.post("/api/views/solve", json=body)
    assert started.status_code == 200, started.text
    assert started.json()["args"][:2] == ["views", "solve"]
    return done_event(client, started.json()["run"])


def fewest_by_search(rows: dict) -> int:
    """The minimum by brute force over subsets of the candidate cells (small cases only)."""
    views = from_rows(",".join(rows["top"]), ",".join(rows["front"]), ",".join(rows["side"]))
    cells = [tuple(c) for c in np.argwhere(views.candidates())]
    for size in range(len(cells) + 1):
        for chosen in itertools.combinations(cells, size):
            placement = np.zeros((views.n,) * 3, dtype=bool)
            for cell in chosen:
                placement[cell] = True
            if projections(placement) == views:
                return size
    raise AssertionError("no placement shows the views")


# --- endpoints ---------------------------------------------------------------------------

@pytest.mark.parametrize("body, message", [
    ({"n": 4, **ROWS_347177, "side": ["x.x.", "xxxx", "xxxx", "x.x"]}, "--side row 4"),
    ({"n": 4, **ROWS_347177, "top": ["xx..", "xxqx", "xxxx", "xx.x"]}, "unexpected 'q'"),
    ({"n": 3, **ROWS_347177}, "not 3 x 3"),
    ({"n": 4, **ROWS_347177, "front": ["xxx", "xxx", "xxx"]}, "same size"),
    ({"n": 4, **ROWS_347177, "top": "xx..,xxxx"}, "list of rows"),
    ({"n": 9, **ROWS_347177}, "n must be"),
    ({"number": "12x"}, "number must be"),
    ({"number": 1_000_000}, "number must be"),
])
def test_bad_views_get_400_and_one_line(ui_client, body, message):
    for path in ("/api/views/check", "/api/views/solve"):
        answer = ui_client.post(path, json=body)
        assert answer.status_code == 400, (path, answer.text)
        error = answer.json()["error"]
        assert message in error and "\n" not in error and "Traceback" not in error
    assert not ui_client.app.state.runs.runs  # no run started for bad input


def test_a_bad_solver_or_time_limit_gets_400(ui_client):
    for extra, message in (({"solver": "minisat"}, "solver must be"),
                           ({"time_limit": -1}, "time_limit must be")):
        answer = ui_client.post("/api/views/solve", json={"n": 4, **ROWS_347177, **extra})
        assert answer.status_code == 400 and message in answer.json()["error"]


def test_options_offer_the_sizes_and_the_solvers_of_the_views_forms(ui_client):
    from ilp_pyramid.backends import solvers
    from ilp_pyramid.puzzles.views.geometry import EXACT_MAX_N

    options = ui_client.get("/api/views/options").json()
    assert options["sizes"] == list(range(1, EXACT_MAX_N + 1)) and options["default_n"] == 4
    # The installed solvers of the table that take the MIP or the weighted CNF (the SAT
    # solvers by their linear search).
    assert options["solvers"] == solvers.names("mip", "sat", "maxsat", installed=True,
                                               aliases=False)
    assert options["default_solver"] == "highs"


def test_the_live_check_names_the_pixels_no_cube_can_show(ui_client):
    good = ui_client.post("/api/views/check", json={"n": 4, **ROWS_347177}).json()
    assert good["solvable"] and good["missing"] == [] and good["lower_bound"] == 16
    assert good["shown"]["side"] == ROWS_347177["side"]
    bad = ui_client.post("/api/views/check", json={"n": 4, **ROWS_IMPOSSIBLE}).json()
    assert not bad["solvable"] and bad["reason"] == "unsolvable views"
    assert bad["missing"] == ["top row 0 column 0"]
    assert bad["shown"]["top"] == ["....", "....", "....", "x..."]


def test_a_battery_puzzle_by_number(ui_client):
    loaded = ui_client.post("/api/views/battery", json={"number": "157"}).json()
    assert loaded["number"] == "000157" and loaded["input"] == "fe88e8f9b499"
    assert loaded["n"] == 4 and loaded["solvable"]
    assert ui_client.post("/api/views/battery", json={}).status_code == 400


def test_solving_clicked_views_gives_the_verified_minimum(ui_client):
    done = solve(ui_client, {"n": 4, **ROWS_347177, "solver": "highs"})
    result = done["result"]
    assert done["exit"] == 0 and result["status"] == "solved" and result["cubes"] == 18
    placement = placement_from_bits(result["bits"], 4)
    assert int(placement.sum()) == 18
    views = from_rows(*(",".join(ROWS_347177[k]) for k in ("top", "front", "side")))
    assert result["input"] == views.hex()
    assert verify_answer(views.bits(), result["bits"]).valid  # the independent checker
    assert result["proved_by"] == "mip" and "proves 18 cubes" in result["check"]


def test_a_small_instance_matches_a_brute_force_minimum(ui_client):
    heap = np.zeros((3, 3, 3), dtype=bool)  # [z, y, x]: views some heap shows
    for cell in [(0, 0, 0), (0, 1, 2), (1, 2, 1), (2, 0, 1), (2, 2, 2), (1, 1, 0)]:
        heap[cell] = True
    shown = projections(heap)
    rows = {name: view_rows(getattr(shown, name)) for name in ("top", "front", "side")}
    done = solve(ui_client, {"n": 3, **rows, "solver": "highs"})
    assert done["exit"] == 0, done
    result = done["result"]
    assert result["cubes"] == fewest_by_search(rows)
    views = from_rows(*(",".join(rows[k]) for k in ("top", "front", "side")))
    assert projections(placement_from_bits(result["bits"], 3)) == views


def test_a_battery_number_is_solved_through_number(ui_client):
    started = ui_client.post("/api/views/solve", json={"number": 157, "solver": "highs",
                                                       "time_limit": "30"})
    args = started.json()["args"]
    assert args[2:4] == ["--number", "000157"] and args[-2:] == ["--time-limit", "30"]
    done = done_event(ui_client, started.json()["run"])
    assert done["exit"] == 0 and done["result"]["seed"] == "000157"
    assert done["result"]["cubes"] == 12


def test_impossible_views_say_why(ui_client):
    done = solve(ui_client, {"n": 4, **ROWS_IMPOSSIBLE})
    result = done["result"]
    assert done["exit"] == 1 and result["status"] == "infeasible"
    assert result["reason"] == "unsolvable views" and result["cubes"] is None
    assert result["missing"] == ["top row 0 column 0"]


# --- the page in Chromium ----------------------------------------------------------------

def click_views(page, rows: dict) -> None:
    for name, view in rows.items():
        for r, row in enumerate(view):
            for c, ch in enumerate(row):
                if ch == "x":
                    page.click(f"#grid-{name} td[data-row='{r}'][data-col='{c}']")


def canvas_ink(page) -> int:
    """How many of the canvas's pixels are drawn (not transparent)."""
    return page.evaluate("""() => {
        const c = document.getElementById('scene');
        const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let ink = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i] > 0) ink++;
        return ink;
    }""")


def wait_for_check(page, rows: dict, verdict: str) -> None:
    """Until the page shows the server's verdict ("ok" or "error") on exactly these views."""
    code = from_rows(*(",".join(rows[k]) for k in ("top", "front", "side"))).hex()
    page.wait_for_selector(f"#check.{verdict}[data-input='{code}']")


def open_page(page, url: str) -> None:
    page.goto(url + "/views")
    page.wait_for_selector("body[data-ready='1']")
    assert page.locator("#grid-top td").count() == 16  # 4 x 4 by default


@pytest.mark.browser
def test_a_click_pressed_before_a_redraw_and_released_after_it_counts(ui_server, browser_page):
    """The server's verdict on a click redraws the grids; a click whose press came before
    that and its release after lands on the same pixel and counts (grids drawn anew under
    it lost it)."""
    page = browser_page
    open_page(page, ui_server.url)
    first = "#grid-top td[data-row='0'][data-col='0']"
    second = "#grid-top td[data-row='0'][data-col='1']"
    box = page.locator(second).bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.eval_on_selector(first, "cell => cell.click()")  # its verdict redraws the grids
    wait_for_check(page, {"top": ["x...", "....", "....", "...."],
                          "front": ["...."] * 4, "side": ["...."] * 4}, "error")
    page.mouse.up()
    page.wait_for_selector(f"{second}.on")
    assert page.locator("#grid-top td.on").count() == 2


@pytest.mark.browser
def test_click_three_views_solve_and_see_the_cubes(ui_server, browser_page):
    page = browser_page
    open_page(page, ui_server.url)
    click_views(page, ROWS_347177)
    wait_for_check(page, ROWS_347177, "ok")
    assert "at least 16 cubes" in page.text_content("#check")
    assert page.locator("#grid-top td.on").count() == 13
    page.click("#solve")
    page.wait_for_selector("#status.ok", timeout=60_000)
    assert page.text_content("#status").startswith("18 cubes")
    assert page.get_attribute("#scene", "data-cubes") == "18"
    assert canvas_ink(page) > 10_000
    assert "z=0 (top layer)" in page.text_content("#layers")
    screenshot(page, "ui_views.png")
    assert drag_turns_the_scene(page, (200, 200), (300, 230))


@pytest.mark.browser
def test_a_battery_puzzle_loads_and_solves(ui_server, browser_page):
    page = browser_page
    open_page(page, ui_server.url)
    page.fill("#number", "157")
    page.click("#load")
    page.wait_for_selector("#check.ok[data-input='fe88e8f9b499']")
    assert page.input_value("#number") == "000157"
    top = parse_spec("fe88e8f9b499").top  # the spec's puzzle 000157
    assert page.locator("#grid-top td.on").count() == int(top.sum())
    page.select_option("#solver", "cbc")
    page.click("#solve")
    page.wait_for_selector("#status.ok", timeout=60_000)
    assert page.text_content("#status").startswith("12 cubes")
    assert "proved by the MIP (cbc)" in page.text_content("#detail")
    assert page.get_attribute("#scene", "data-cubes") == "12"
    page.select_option("#size", "3")  # another size: empty 3 x 3 views, the answer gone
    assert page.locator("#grid-side td").count() == 9
    assert page.locator("td.on").count() == 0 and page.is_hidden("#answer")
    assert page.input_value("#number") == ""


@pytest.mark.browser
def test_impossible_views_show_why(ui_server, browser_page):
    page = browser_page
    open_page(page, ui_server.url)
    click_views(page, ROWS_IMPOSSIBLE)
    wait_for_check(page, ROWS_IMPOSSIBLE, "error")
    assert "no cell can show top row 0 column 0 (" in page.text_content("#check")
    assert page.locator("td.missing").count() == 1
    assert page.locator("#grid-top td.missing").get_attribute("title") == "top row 0 column 0"
    page.click("#solve")
    page.wait_for_selector("#status.error", timeout=60_000)
    assert "No heap of cubes shows these views (unsolvable views)" in \
        page.text_content("#status")
    assert "No cell can show top row 0 column 0:" in page.text_content("#detail")
    assert page.is_hidden("#scene")
