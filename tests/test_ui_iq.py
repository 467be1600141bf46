"""The workbench's IQ Pyramid / Kanoodle page: its endpoints in-process, and the page itself
in headless Chromium (a book challenge entered by clicking, solved and drawn; a count listed
by pages; a ball pyramid drawn in 3-D and turned by dragging)."""

from __future__ import annotations

import time

import pytest

from ilp_pyramid.verify.iq import FillingChecker, parse_solution_line, verify_filling
from tests.proctools import descendants
from tests.ui_support import done_event, screenshot

# A puzzle-book challenge on the triangle (docs/iq.md): five pieces given whole.
BOOK = {"B": [[0, 0], [0, 1], [1, 1], [0, 2], [1, 2]],
        "L": [[2, 2], [1, 3], [2, 3], [3, 3], [2, 4]],
        "H": [[0, 3], [0, 4], [1, 4], [1, 5], [2, 5]],
        "J": [[0, 5], [0, 6], [0, 7], [0, 8]],
        "D": [[2, 8], [0, 9], [1, 9], [2, 9], [3, 9]]}
# pyramid4 with two pins (docs/iq.md): 12 completions, 6 up to the mirror keeping the pins.
PINS = {"b": [[0, 0, 0]], "j": [[0, 0, 3]]}


def shapes(ui_client) -> dict[str, list]:
    return {p["letter"]: [tuple(c) for c in p["cells"]]
            for p in ui_client.get("/api/iq/setup").json()["pieces"]}


def refusal(response) -> str:
    assert response.status_code == 400, response.text
    message = response.json()["error"]
    assert message and "\n" not in message and "Traceback" not in message
    return message



def grid_cells(grid, dims: int) -> dict[tuple, str]:
    """A `iq solve --json` grid as {cell: letter}, read as the checker's line format."""
    line = "/".join(grid) if dims == 2 else "|".join("/".join(level) for level in grid)
    return parse_solution_line(line, dims)


def test_setup_lists_the_boards_pieces_and_solvers(ui_client):
    setup = ui_client.get("/api/iq/setup").json()
    sizes = {name: len(board["cells"]) for name, board in setup["boards"].items()}
    assert sizes == {"triangle": 55, "rectangle": 55, "pyramid4": 30, "pyramid5": 55}
    assert setup["boards"]["pyramid5"]["dims"] == 3 and setup["boards"]["triangle"]["dims"] == 2
    assert [p["letter"] for p in setup["pieces"]] == list("ABCDEFGHIJKL")
    assert sum(p["size"] for p in setup["pieces"]) == 55
    assert setup["solvers"][0] == "dlx" == setup["default_solver"]
    assert {"highs", "cbc", "sat"} <= set(setup["solvers"])


def test_clicks_that_no_placement_allows_are_refused_in_one_line(ui_client):
    def click(given, draft, board="triangle"):
        return ui_client.post("/api/iq/check", json={"board": board, "given": given,
                                                     "draft": draft})

    # Two cells no B can cover together.
    assert "no placement of piece B" in refusal(
        click({}, {"letter": "B", "cells": [[0, 0], [5, 9]]}))
    # Five cells, but not a B: the package's own check (given.check_given).
    assert "not a legal placement of B" in refusal(
        click({}, {"letter": "B", "cells": [[0, 0], [0, 1], [1, 1], [0, 2], [2, 2]]}))
    # On a piece already placed.
    assert "already covered by piece B" in refusal(
        click({"B": BOOK["B"]}, {"letter": "A", "cells": [[1, 2]]}))
    # Off the board (the triangle's row 0 has one cell).
    assert "not on board triangle" in refusal(click({}, {"letter": "A", "cells": [[3, 0]]}))
    assert "unknown piece" in refusal(click({}, {"letter": "Z", "cells": [[0, 0]]}))
    # A pinned piece placed whole too.
    assert "both given whole" in refusal(
        click({"b": [[4, 9]]}, {"letter": "B", "cells": BOOK["B"]}))
    # A challenge sent whole is read by the package's parser as well.
    assert "not on board" in refusal(ui_client.post(
        "/api/iq/check", json={"board": "pyramid4", "given": {"B": [[4, 4, 0]]}}))
    assert refusal(ui_client.post("/api/iq/check", json={"board": "hexagon", "given": {}}))


def test_clicks_that_hold_build_the_challenge(ui_client):
    first = ui_client.post("/api/iq/check", json={
        "board": "triangle", "given": {}, "draft": {"letter": "B", "cells": [[0, 0], [0, 1]]}})
    assert first.status_code == 200 and first.json()["draft"] == "partial"
    assert first.json()["given"] == {}
    placed = ui_client.post("/api/iq/check", json={
        "board": "triangle", "given": {}, "draft": {"letter": "B", "cells": BOOK["B"]}}).json()
    assert placed["draft"] == "placed" and placed["given"] == {"B": BOOK["B"]}
    assert placed["free_cells"] == 50 and "B" not in placed["free_pieces"]
    pinned = ui_client.post("/api/iq/check", json={
        "board": "pyramid4", "given": {"b": [[0, 0, 0]]},
        "draft": {"letter": "J", "cells": [[0, 0, 3]], "pin": True}}).json()
    assert pinned["given"] == PINS


def test_a_custom_board_is_the_board_its_file_holds(ui_client):
    board = ui_client.post("/api/iq/board", json={"cells": [[3, 2], [4, 2], [3, 3]]}).json()
    assert board["dims"] == 2 and sorted(board["cells"]) == [[0, 0], [0, 1], [1, 0]]
    assert "no cells" in refusal(ui_client.post("/api/iq/board", json={"cells": []}))
    assert "from 0 to" in refusal(ui_client.post("/api/iq/board", json={"cells": [[99, 0]]}))


def test_a_book_challenge_solves_to_a_verified_answer(ui_client):
    started = ui_client.post("/api/iq/solve", json={"board": "triangle", "given": BOOK,
                                                    "solver": "dlx"})
    assert started.status_code == 200, started.text
    done = done_event(ui_client, started.json()["run"])
    assert done["exit"] == 0 and done["result"]["solved"] and done["result"]["engine"] == "dlx"
    filling = grid_cells(done["result"]["grid"], 2)
    fixed = {tuple(c): letter for letter, cells in BOOK.items() for c in cells}
    setup = ui_client.get("/api/iq/setup").json()
    cells = [tuple(c) for c in setup["boards"]["triangle"]["cells"]]
    verdict = verify_filling(cells, shapes(ui_client), filling, fixed)
    assert verdict.valid, verdict.problems
    assert all(filling[c] == letter for c, letter in fixed.items())


def test_a_custom_board_solves_through_its_file(ui_client):
    # A 5 x 11 rectangle drawn on the page, shifted: the CLI reads it from the run's file.
    cells = [[x + 2, y + 1] for y in range(5) for x in range(11)]
    board = ui_client.post("/api/iq/board", json={"cells": cells}).json()
    started = ui_client.post("/api/iq/solve", json={"board": {"cells": board["cells"]},
                                                    "given": {}, "solver": "dlx"})
    done = done_event(ui_client, started.json()["run"])
    assert done["exit"] == 0 and done["result"]["solved"]
    filling = grid_cells(done["result"]["grid"], 2)
    verdict = verify_filling([tuple(c) for c in board["cells"]], shapes(ui_client), filling, {})
    assert verdict.valid, verdict.problems


def test_a_bad_challenge_or_solver_starts_no_run(ui_client):
    bad = {"B": [[0, 0], [0, 1], [1, 1], [0, 2], [2, 2]]}
    assert "not a legal placement" in refusal(
        ui_client.post("/api/iq/solve", json={"board": "triangle", "given": bad}))
    assert "solver must be one of" in refusal(ui_client.post(
        "/api/iq/solve", json={"board": "triangle", "given": {}, "solver": "nope"}))
    assert "time_limit" in refusal(ui_client.post(
        "/api/iq/count", json={"board": "triangle", "given": {}, "time_limit": "-1"}))
    assert not ui_client.app.state.runs.runs


def test_a_count_lists_every_completion_by_pages(ui_client):
    started = ui_client.post("/api/iq/count", json={"board": "pyramid4", "given": PINS})
    assert started.status_code == 200, started.text
    run = started.json()["run"]
    done = done_event(ui_client, run)
    assert done["exit"] == 0 and done["result"]["solutions"] == 12
    assert done["result"]["distinct_up_to_symmetry"] == 6
    first = ui_client.get(f"/api/iq/listing/{run}?page=0&size=10").json()
    second = ui_client.get(f"/api/iq/listing/{run}?page=1&size=10").json()
    assert first["total"] == second["total"] == 12
    assert len(first["grids"]) == 10 and len(second["grids"]) == 2
    setup = ui_client.get("/api/iq/setup").json()
    cells = [tuple(c) for c in setup["boards"]["pyramid4"]["cells"]]
    checker = FillingChecker(cells, shapes(ui_client), {(0, 0, 0): "B", (0, 0, 3): "J"})
    fillings = [grid_cells(grid, 3) for grid in first["grids"] + second["grids"]]
    for filling in fillings:
        verdict = checker.check(filling)
        assert verdict.valid, verdict.problems
    assert len({tuple(sorted(f.items())) for f in fillings}) == 12
    # The listing is this session's own.
    other = ui_client.get(f"/api/iq/listing/{run}", headers={"Cookie": "ilp_pyramid_session=x"})
    assert other.status_code == 404



def test_a_count_cut_by_its_time_limit_keeps_no_listing(ui_client):
    started = ui_client.post("/api/iq/count", json={"board": "rectangle", "given": {},
                                                    "time_limit": 1})
    run = started.json()["run"]
    done = done_event(ui_client, run)
    assert done["exit"] == 3 and done["result"]["complete"] is False
    assert done["result"]["solutions"] is None and done["result"]["partial_solutions"] >= 0
    assert ui_client.get(f"/api/iq/listing/{run}").status_code == 404


# -- in Chromium ----------------------------------------------------------------------------

def open_page(page, url: str, board: str | None = None) -> None:
    page.goto(url + "/iq")
    page.wait_for_selector("body[data-ready='1']")
    if board is not None:
        page.select_option("#board", board)
        page.wait_for_selector(f"#challenge[data-board='{board}'] .iq-cell")


def press(page, button: str, status: str) -> None:
    page.click(button)
    page.wait_for_selector(f"#answer[data-status='{status}']", timeout=60_000)


def click_piece(page, letter: str, cells) -> None:
    page.click(f"[data-piece='{letter}']")
    for cell in cells:
        page.click(f"#challenge [data-cell='{','.join(map(str, cell))}']")


@pytest.mark.browser
def test_a_book_challenge_entered_by_clicking_is_solved_and_drawn(ui_server, browser_page):
    page = browser_page
    open_page(page, ui_server.url)
    assert page.input_value("#board") == "triangle"
    # An illegal click shows the server's line and places nothing.
    page.click("[data-piece='A']")
    page.click("#challenge [data-cell='0,0']")
    page.click("#challenge [data-cell='9,9']")
    page.wait_for_selector("#challenge [data-cell='9,9'].refused")
    assert "no placement of piece A" in page.text_content("#message")
    assert page.locator("#challenge .iq-cell.draft").count() == 1  # 0,0 only
    page.click("[data-piece='A']")  # put A down again, unfinished
    for letter, cells in BOOK.items():
        click_piece(page, letter, cells)
        page.wait_for_selector(f"#challenge [data-cell='{','.join(map(str, cells[0]))}'].given")
    assert page.text_content("#message") == ""
    assert page.locator("#challenge .iq-cell.given").count() == 24
    page.select_option("#solver", "dlx")
    press(page, "#solve", "solved")
    assert page.get_attribute("#answer", "data-pieces") == "ABCDEFGHIJKL"
    assert "verified" in page.text_content("#caption")
    drawn = page.eval_on_selector_all(
        "#answer-board .iq-cell", "cells => cells.map(c => [c.dataset.cell, c.textContent])")
    assert len(drawn) == 55 and all(letter for _, letter in drawn)
    letters = dict(drawn)
    for letter, cells in BOOK.items():
        assert all(letters[f"{x},{y}"] == letter for x, y in cells)
    screenshot(page, "ui_iq.png")


@pytest.mark.browser
def test_a_pinned_pyramid_challenge_is_counted_and_listed(ui_server, browser_page):
    page = browser_page
    open_page(page, ui_server.url, "pyramid4")
    page.check("input[name='mode'][value='pin']")
    click_piece(page, "B", [(0, 0, 0)])
    page.wait_for_selector("#challenge [data-cell='0,0,0'].pin")
    click_piece(page, "J", [(0, 0, 3)])
    page.wait_for_selector("#challenge [data-cell='0,0,3'].pin")
    press(page, "#count", "counted")
    assert page.get_attribute("#answer", "data-count") == "12"
    page.wait_for_selector("#listing .iq-item")
    assert page.locator("#listing .iq-item").count() == 10
    assert "page 1 of 2" in page.text_content("#page-info")
    page.click("#next")
    page.wait_for_function("() => document.querySelectorAll('#listing .iq-item').length === 2")
    assert "page 2 of 2" in page.text_content("#page-info")
    page.click("#listing .iq-item")
    assert page.get_attribute("#scene", "data-filled") == "30"


@pytest.mark.browser
def test_a_ball_pyramid_is_solved_in_3d_and_turns(ui_server, browser_page):
    page = browser_page
    open_page(page, ui_server.url, "pyramid5")
    press(page, "#solve", "solved")
    assert page.get_attribute("#scene", "data-balls") == "55"
    assert page.get_attribute("#scene", "data-filled") == "55"
    before = page.eval_on_selector("#scene", "c => c.toDataURL()")
    page.locator("#scene").scroll_into_view_if_needed()
    box = page.locator("#scene").bounding_box()
    page.mouse.move(box["x"] + 200, box["y"] + 200)
    page.mouse.down()
    page.mouse.move(box["x"] + 320, box["y"] + 240, steps=5)
    page.mouse.up()
    assert page.eval_on_selector("#scene", "c => c.toDataURL()") != before


@pytest.mark.browser
def test_stop_ends_a_long_count_and_leaves_nothing_running(ui_server, browser_page):
    page = browser_page
    open_page(page, ui_server.url, "rectangle")
    page.click("#count")  # 371,020 fillings on one job: far longer than this test waits
    page.wait_for_function(
        "() => document.getElementById('progress').textContent.startsWith('running')")
    assert descendants(ui_server.process.pid)
    page.click("#stop")
    page.wait_for_selector("#answer[data-status='stopped']", timeout=10_000)
    assert page.locator("#listing .iq-item").count() == 0
    assert not page.is_disabled("#count")
    # The count's workers die with it (PR_SET_PDEATHSIG): within the 2 s a Ctrl-C has.
    deadline = time.monotonic() + 2.0
    while descendants(ui_server.process.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not descendants(ui_server.process.pid)
    # With a time limit the count ends by itself, and says it is not complete.
    page.fill("#time-limit", "1")
    press(page, "#count", "timeout")
    assert "NOT complete" in page.text_content("#caption")


@pytest.mark.browser
def test_a_click_pressed_before_a_redraw_and_released_after_it_counts(ui_server, browser_page):
    """The answer to one click redraws the board; a click whose press came before that and its
    release after lands on the same cell and counts (a board drawn anew under it lost it)."""
    page = browser_page
    open_page(page, ui_server.url)
    page.click("[data-piece='B']")
    first, second = (f"#challenge [data-cell='{x},{y}']" for x, y in BOOK["B"][:2])
    box = page.locator(second).bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.eval_on_selector(first, "cell => cell.click()")  # its answer redraws the board
    page.wait_for_selector(f"{first}.draft")
    page.mouse.up()
    page.wait_for_selector(f"{second}.draft")
    assert "2 of 5 cells clicked" in page.text_content("#tool")


@pytest.mark.browser
def test_a_custom_board_drawn_by_clicking_is_solved(ui_server, browser_page):
    page = browser_page
    open_page(page, ui_server.url)
    page.select_option("#board", "custom")
    drawn = [(x, y) for y in range(4) for x in range(6) if (x, y) != (5, 3)]
    for x, y in drawn:  # drawn away from the corner: the board moves to the top-left
        page.click(f"[data-edit='{x + 3},{y + 2}']")
    page.click("[data-edit='0,0']")
    page.click("[data-edit='0,0']")  # on, then off again
    assert "23 cells" in page.text_content("#custom-count")
    page.click("#custom-use")
    page.wait_for_selector("#challenge[data-board='custom'] [data-cell='0,0']")
    assert page.locator("#challenge .iq-cell").count() == 23
    click_piece(page, "K", [(0, 0), (1, 0), (0, 1), (1, 1)])
    page.wait_for_selector("#challenge [data-cell='1,1'].given")
    press(page, "#solve", "solved")
    letters = dict(page.eval_on_selector_all(
        "#answer-board .iq-cell", "cells => cells.map(c => [c.dataset.cell, c.textContent])"))
    assert set(letters) == {f"{x},{y}" for x, y in drawn}
    assert all(letters[c] == "K" for c in ("0,0", "1,0", "0,1", "1,1"))
    assert "K" in page.get_attribute("#answer", "data-pieces")
