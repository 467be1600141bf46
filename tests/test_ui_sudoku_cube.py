"""The workbench's Sudoku Cube page: the live check, the example, a solve through the CLI's
own command, the face turns stepped through; and the same typed into the net in Chromium.

Answers are judged by ilp_pyramid/verify/sudoku_cube.py (its own cube, its own simulator),
not by the code the page runs.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from ilp_pyramid.puzzles.sudoku_cube.generate import generate
from ilp_pyramid.verify.sudoku_cube import check_faces, check_moves, simulate
from tests.ui_support import done_event, screenshot

FACES = "URFDLB"
ARROWS = {"^": "\u2191", ">": "\u2192", "v": "\u2193", "<": "\u2190"}  # as the page shows them


def _copy(faces: dict[str, list[str]]) -> dict[str, list[str]]:
    return {face: list(tokens) for face, tokens in faces.items()}


def _other_digit(token: str) -> str:
    return ("2" if token[0] == "1" else "1") + token[1]



def test_layout_gives_the_net_the_facelets_and_the_pieces(ui_client):
    layout = ui_client.get("/api/sudoku-cube/layout").json()
    assert layout["faces"] == FACES and layout["directions"] == "^>v<"
    assert sorted(layout["net"]) == sorted(FACES)
    assert len(layout["facelets"]) == 54 and layout["facelets"][4]["name"] == "U5"
    sizes = sorted(len(piece["facelets"]) for piece in layout["pieces"])
    assert sizes == [2] * 12 + [3] * 8
    # Every facelet but the six centres belongs to exactly one piece.
    covered = [name for piece in layout["pieces"] for name in piece["facelets"]]
    assert len(covered) == len(set(covered)) == 48
    assert "highs" in layout["solvers"] and layout["solver"] == "highs"
    assert "cadical" in layout["solvers"]  # SAT beside MIP, as on the command line


def test_the_example_is_the_generators_cube(ui_client):
    cube = ui_client.post("/api/sudoku-cube/example", json={"seed": 5, "scramble": 12}).json()
    assert cube["faces"] == generate(5, 12).state.to_dict()
    other = ui_client.post("/api/sudoku-cube/example", json={"seed": 6, "scramble": 12}).json()
    assert other["faces"] != cube["faces"]
    bad = ui_client.post("/api/sudoku-cube/example", json={"seed": 5, "scramble": 10**6})
    assert bad.status_code == 400 and "scramble" in bad.json()["error"]


def test_the_live_check_lists_every_problem(ui_client):
    faces = generate(2, 20).state.to_dict()
    good = ui_client.post("/api/sudoku-cube/check", json={"faces": faces}).json()
    assert good["problems"] == [] and good["complete"]
    assert good["counts"] == {str(d): 6 for d in range(1, 10)}
    assert good["text"].splitlines()[0].startswith("U: ")

    wrong = _copy(faces)
    wrong["F"][4] = _other_digit(faces["F"][4])
    check = ui_client.post("/api/sudoku-cube/check", json={"faces": wrong}).json()
    [problem] = check["problems"]
    assert "each digit must appear exactly 6 times" in problem["text"]
    new, old = wrong["F"][4][0], faces["F"][4][0]
    assert f"{new} appears 7 times" in problem["text"]
    assert f"{old} appears 5 times" in problem["text"]
    assert check["counts"][new] == 7 and check["counts"][old] == 5
    assert "F5" in problem["facelets"]

    unfinished = _copy(faces)
    unfinished["U"][0], unfinished["D"][8], unfinished["B"][2] = "^", "7", "x<"
    check = ui_client.post("/api/sudoku-cube/check", json={"faces": unfinished}).json()
    texts = [p["text"] for p in check["problems"]]
    assert texts[0] == "U1: no digit yet"
    assert "D9: 7 has no direction (^ > v <)" in texts
    assert any(t.startswith("B3: 'x<' is not a digit") for t in texts)
    assert not check["complete"] and check["text"] is None


def test_a_bad_sticker_state_is_one_line_as_the_cli_says(ui_client, tmp_path):
    faces = generate(1, 5).state.to_dict()
    faces["L"][6] = "0^"
    text = "\n".join(f"{face}: {' '.join(tokens)}" for face, tokens in faces.items())
    page = ui_client.post("/api/sudoku-cube/parse", json={"text": text})
    assert page.status_code == 400
    message = page.json()["error"]
    assert "\n" not in message and "Traceback" not in message
    path = tmp_path / "cube.txt"
    path.write_text(text)
    cli = subprocess.run([sys.executable, "-m", "ilp_pyramid", "sudoku-cube", "solve", str(path)],
                         capture_output=True, text=True, timeout=120)
    assert cli.returncode == 2
    # The CLI names its file first; the page has none.
    assert cli.stderr.strip().splitlines()[-1] == f"error: {path}: {message}"
    assert message.endswith("face L position 7: bad token '0^' (want a digit 1-9 and a "
                            "direction ^ > v <, e.g. 5^)")

    faces = generate(1, 5).state.to_dict()
    faces["R"][3] = "5?"
    solve = ui_client.post("/api/sudoku-cube/solve", json={"faces": faces})
    assert solve.status_code == 400
    assert solve.json()["error"] == \
        "not ready to solve: R4: '5?' is not a digit 1-9 and a direction ^ > v <"
    assert ui_client.post("/api/sudoku-cube/solve",
                          json={"faces": {"U": ["1^"] * 9}}).status_code == 400
    good = generate(1, 5).state.to_dict()
    wrong_solver = ui_client.post("/api/sudoku-cube/solve",
                                  json={"faces": good, "solver": "minisat"})
    assert wrong_solver.status_code == 400 and "solver must be one of" in \
        wrong_solver.json()["error"]
    steps = ui_client.post("/api/sudoku-cube/steps", json={"faces": good, "moves": "R X2"})
    assert steps.status_code == 400 and steps.json()["error"].startswith("move 2: 'X2'")


def test_solve_on_an_unfinished_net_says_what_the_live_check_says(ui_client):
    faces = generate(2, 20).state.to_dict()
    faces["U"][3], faces["D"][8], faces["B"][2] = "^", "7", "x<"
    live = ui_client.post("/api/sudoku-cube/check", json={"faces": faces}).json()
    texts = [problem["text"] for problem in live["problems"]]
    assert len(texts) == 3
    solve = ui_client.post("/api/sudoku-cube/solve", json={"faces": faces})
    assert solve.status_code == 400
    # The live check's words, not the sticker file parser's ("line 1: ... bad token '^'").
    assert solve.json()["error"] == "not ready to solve: " + "; ".join(texts)
    assert "bad token" not in solve.json()["error"]
    # An empty net: the first three problems, and how many more the live check lists.
    empty = {face: [""] * 9 for face in FACES}
    live = ui_client.post("/api/sudoku-cube/check", json={"faces": empty}).json()
    texts = [problem["text"] for problem in live["problems"]]
    solve = ui_client.post("/api/sudoku-cube/solve", json={"faces": empty})
    assert solve.status_code == 400
    assert solve.json()["error"] == ("not ready to solve: " + "; ".join(texts[:3])
                                     + f"; and {len(texts) - 3} more (the live check lists "
                                       "them)")
    # Every sticker there but the digit counts wrong: the command's own verdict (exit 1).
    wrong = generate(2, 20).state.to_dict()
    wrong["F"][4] = _other_digit(wrong["F"][4])
    started = ui_client.post("/api/sudoku-cube/solve", json={"faces": wrong})
    assert started.status_code == 200, started.text
    event = done_event(ui_client, started.json()["run"])
    assert event["exit"] == 1 and "each digit must appear exactly 6 times" in \
        event["result"]["reason"]


@pytest.mark.parametrize("solver", ["highs", "cadical"])
def test_a_scrambled_cube_solves_to_a_verified_answer_with_moves(ui_client, solver):
    given = generate(7, 25).state.to_dict()
    started = ui_client.post("/api/sudoku-cube/solve",
                             json={"faces": given, "solver": solver, "time_limit": 120})
    assert started.status_code == 200, started.text
    assert started.json()["args"][started.json()["args"].index("--solver") + 1] == solver
    assert started.json()["args"][:4] == ["sudoku-cube", "solve", "--moves", "--json"]
    event = done_event(ui_client, started.json()["run"])
    assert event["exit"] == 0, event
    result = event["result"]
    assert result["solved"] and result["move_count"] > 0
    target = result["faces"]
    assert check_faces(target).faces_ok  # every face 1-9 once, upright
    assert check_moves(given, target, result["moves"]) == []

    steps = ui_client.post("/api/sudoku-cube/steps",
                           json={"faces": given, "moves": result["moves"],
                                 "target": target}).json()
    moves = result["moves"].split()
    assert steps["moves"] == moves and steps["reaches_target"] is True
    assert len(steps["states"]) == len(moves) + 1
    assert steps["states"][0] == given and steps["states"][-1] == target
    for k in (1, len(moves) // 2, len(moves)):  # the checker's own simulator agrees
        assert steps["states"][k] == simulate(given, " ".join(moves[:k]))
    # Each sticker is tinted with the face it ends on: at the end, every face is one tint.
    assert all(steps["goes"][-1][face] == [face] * 9 for face in FACES)
    assert steps["goes"][0] != steps["goes"][-1]


def test_a_cube_put_back_wrongly_says_why_it_cannot_be_turned(ui_client):
    given = generate(3, 20).broken("twist").state.to_dict()
    check = ui_client.post("/api/sudoku-cube/check", json={"faces": given}).json()
    assert check["problems"] == []  # the digits are right: only the model can tell
    started = ui_client.post("/api/sudoku-cube/solve", json={"faces": given})
    event = done_event(ui_client, started.json()["run"])
    assert event["exit"] == 1
    assert not event["result"]["solved"] and event["result"]["detail"] == "not_turnable"
    assert "corner twists" in event["result"]["reason"]


def _sticker(page, name: str):
    return page.locator(f'.sc-sticker[data-facelet="{name}"]')


def _net_tokens(page, selector: str) -> dict[str, list[str]]:
    titles = page.locator(f"{selector} .sc-cell").evaluate_all("cells => cells.map(c => c.title)")
    tokens = dict(title.split(": ") for title in titles)
    return {face: [tokens[f"{face}{pos}"] for pos in range(1, 10)] for face in FACES}


def _verdict(page):
    return page.locator("#verdict")


@pytest.mark.browser
def test_type_a_cube_into_the_net_solve_it_and_step_through_the_turns(ui_server,
                                                                      browser_page):
    page = browser_page
    page.goto(ui_server.url + "/sudoku-cube")
    page.wait_for_selector("body[data-ready='1']")
    given = generate(11, 20).state.to_dict()
    arrows = {"^": "ArrowUp", ">": "ArrowRight", "v": "ArrowDown", "<": "ArrowLeft"}
    for face in "URF":
        for pos, token in enumerate(given[face], start=1):
            sticker = _sticker(page, f"{face}{pos}")
            digit = token[0]
            if face == "F" and pos == 5:  # a slip first: the live check must say so
                digit = _other_digit(token)[0]
            sticker.locator("input").press(digit)
            if face in "UR":  # the arrow button turns a quarter clockwise per click
                for _ in range("^>v<".index(token[1])):
                    sticker.locator("button").click()
            else:
                sticker.locator("input").press(arrows[token[1]])
    # D, L and B from the keyboard alone: a digit, then the arrow key, which moves on.
    _sticker(page, "D1").locator("input").click()
    for face in "DLB":
        for token in given[face]:
            page.keyboard.press(token[0])
            page.keyboard.press(arrows[token[1]])
    _sticker(page, "U9").hover()
    assert page.locator("#piece").inner_text() == (
        f"corner URF: U9 {given['U'][8][0]}{ARROWS[given['U'][8][1]]}, "
        f"R1 {given['R'][0][0]}{ARROWS[given['R'][0][1]]}, "
        f"F3 {given['F'][2][0]}{ARROWS[given['F'][2][1]]}")
    verdict = _verdict(page)
    page.wait_for_function(
        "() => document.querySelector('#problems').textContent.includes('appears 7 times')")
    assert "problem" in verdict.inner_text()
    assert "sc-bad" in _sticker(page, "F5").get_attribute("class")
    _sticker(page, "F5").locator("input").press(given["F"][4][0])
    page.wait_for_function("() => document.querySelector('#verdict').textContent.includes('ready')")
    assert page.locator("#problems li").count() == 0
    assert page.locator("#text").input_value().splitlines()[2] == "F: " + " ".join(given["F"])

    page.locator("#solve").click()
    page.wait_for_selector("#answer:not([hidden])", timeout=120_000)
    solved = _net_tokens(page, "#solved")
    assert check_faces(solved).faces_ok
    moves = page.locator("#moves li").all_inner_texts()
    assert len(moves) > 0 and check_moves(given, solved, " ".join(moves)) == []
    assert "simulated here end on exactly this grid" in page.locator("#summary").inner_text()
    assert _net_tokens(page, "#stepnet") == given
    page.locator("#next").click()
    assert page.locator("#step").inner_text().startswith(f"after {moves[0]} (step 1 of")
    assert _net_tokens(page, "#stepnet") == simulate(given, moves[0])
    page.locator("#next").click()
    page.locator("#prev").click()
    assert _net_tokens(page, "#stepnet") == simulate(given, moves[0])
    assert "sc-current" in page.locator("#moves li").nth(1).get_attribute("class")
    screenshot(page, "ui_sudoku_cube.png")
    page.locator("#last").click()
    assert _net_tokens(page, "#stepnet") == solved
    assert page.locator("#step").inner_text().endswith("solved")
    assert page.locator("#next").is_disabled()
    assert page.locator("#stale").is_hidden()
    _sticker(page, "B9").locator("input").press(_other_digit(given["B"][8])[0])
    assert page.locator("#stale").is_visible()  # the answer is of the cube before the edit


@pytest.mark.browser
def test_the_example_edited_in_the_net_and_pasted_files(ui_server, browser_page):
    page = browser_page
    page.goto(ui_server.url + "/sudoku-cube")
    page.wait_for_selector("body[data-ready='1']")
    page.locator("#seed").fill("4")
    page.locator("#scramble").fill("15")
    page.locator("#example").click()
    expected = generate(4, 15).state.to_dict()
    page.wait_for_function("() => document.querySelector('#verdict').textContent.includes('ready')")
    assert _sticker(page, "L7").locator("input").input_value() == expected["L"][6][0]
    assert _sticker(page, "L7").locator("button").get_attribute("data-dir") == expected["L"][6][1]

    _sticker(page, "B2").locator("input").fill("")
    page.wait_for_function(
        "() => document.querySelector('#problems').textContent.includes('B2: no digit yet')")
    _sticker(page, "B2").locator("input").press(expected["B"][1][0])
    page.wait_for_function("() => document.querySelector('#verdict').textContent.includes('ready')")

    other = generate(8, 10).state
    page.locator("#file summary").click()
    page.locator("#text").fill(other.to_text().replace("D: ", "D: 9^ ", 1))
    page.locator("#load").click()
    page.wait_for_function("() => document.querySelector('#error').textContent.includes('face D')")
    page.locator("#text").fill(other.to_text())
    page.locator("#load").click()
    page.wait_for_function("() => document.querySelector('#verdict').textContent.includes('ready')")
    assert _sticker(page, "D1").locator("input").input_value() == other.to_dict()["D"][0][0]

    # A cube put back with a corner twisted: the digits pass, Solve says why it cannot turn.
    page.locator("#text").fill(generate(3, 20).broken("twist").to_text())
    page.locator("#load").click()
    page.wait_for_function("() => document.querySelector('#verdict').textContent.includes('ready')")
    page.locator("#solve").click()
    page.wait_for_function(
        "() => document.querySelector('#error').textContent.includes('not solvable by turning')",
        timeout=120_000)
    assert "corner twists" in page.locator("#error").inner_text()
    assert page.locator("#answer").is_hidden()
    assert page.locator("#solve").is_enabled()
