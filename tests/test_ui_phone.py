"""Every workbench page on a phone: Chromium as a 390 x 844 phone (a mobile browser's viewport
rules, touch), each page used as it is meant to be (an answer drawn), then: the layout is
the phone's width (the viewport tag), nothing scrolls sideways, the controls and the
drawings lie within the screen's width, and the page caused no Content-Security-Policy
violation. `ILP_PYRAMID_PHONE_SCREENSHOTS=DIR` keeps a picture of each (ui_phone_*.png)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ilp_pyramid.puzzles.bel.cubes import parse_any
from ilp_pyramid.puzzles.bel.geometry import cell_count
from ilp_pyramid.ui.pages import PAGES
from ilp_pyramid.verify.bel import verify_solution
from tests.ui_support import PHONE, PHONE_SCREENSHOTS_VARIABLE, phone
from tests.ui_support import screenshot as save_screenshot

ROOT = Path(__file__).resolve().parents[1]
NEAR_SOLUTION = ROOT / "docs" / "data" / "bel_n6_best.json"  # a hunt's best state: 1 repeated cube
WIDTH = PHONE["viewport"]["width"]
VIEWPORT_TAG = '<meta name="viewport" content="width=device-width, initial-scale=1">'
ARROWS = {"\u2191": "^", "\u2192": ">", "\u2193": "v", "\u2190": "<"}


@pytest.fixture
def phone_page():
    with phone() as page:
        yield page


def test_every_page_has_the_viewport_tag(ui_client):
    for path in ("/", *(f"/{slug}" for slug in PAGES)):
        assert VIEWPORT_TAG in ui_client.get(path).text, path


def screenshot(page, name: str) -> None:
    save_screenshot(page, name, PHONE_SCREENSHOTS_VARIABLE)


def fits(shown, selectors: list[str]) -> None:
    """The page is laid out at the phone's width, scrolls only up and down, and every element
    of `selectors` (each must be there and shown) lies within the screen's width; no CSP
    violation so far."""
    page = shown.page
    width, scroll = page.evaluate("[innerWidth, document.documentElement.scrollWidth]")
    assert width == WIDTH, f"laid out {width} px wide on a {WIDTH} px screen"
    assert scroll <= width, f"{scroll} px wide: the page scrolls sideways"
    for selector in selectors:
        element = page.locator(selector).first
        assert element.is_visible(), selector
        box = element.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, (selector, box)
    assert shown.csp_violations() == []


def open_page(phone, url: str, slug: str) -> None:
    phone.page.goto(f"{url}/{slug}")
    if slug:
        phone.page.wait_for_selector("body[data-ready='1']")


@pytest.mark.browser
def test_the_index_on_a_phone(ui_server, phone_page):
    open_page(phone_page, ui_server.url, "")
    fits(phone_page, ["header", "h1", *(f"ul.pages a[href='/{slug}']" for slug in PAGES)])
    screenshot(phone_page.page, "ui_phone_index.png")
    # The watch sees what the policy forbids (a style attribute set by a script).
    phone_page.page.evaluate("document.body.setAttribute('style', 'color: red')")
    phone_page.page.wait_for_function("() => window.cspViolations.length > 0")
    assert phone_page.csp_violations()


@pytest.mark.browser
def test_bel_on_a_phone_draws_a_near_solution_with_its_faults(ui_server, phone_page):
    page = phone_page.page
    open_page(phone_page, ui_server.url, "bel")
    fits(phone_page, ["#n", "#engine", "#time-limit", "#solve", "#stop", "#file"])
    page.set_input_files("#file", str(NEAR_SOLUTION))
    page.wait_for_selector(f"#scene[data-cubes='{cell_count(6)}']", timeout=60_000)
    verdict = verify_solution(parse_any(NEAR_SOLUTION.read_text()))
    shown = sum(len(cells) for cells in verdict.duplicates.values())
    assert page.get_attribute("#scene", "data-repeated") == str(shown)
    fits(phone_page, ["#verdict", "#reasons", "#scene", "#levels", "#faults", "#missing li",
                      "#faults-only", ".build .scroll"])
    screenshot(page, "ui_phone_bel.png")
    page.check("#faults-only")  # the repeated cubes alone: inside the pyramid they hide
    assert page.get_attribute("#scene", "data-cubes") == str(shown)
    screenshot(page, "ui_phone_bel_repeated.png")


@pytest.mark.browser
def test_views_on_a_phone(ui_server, phone_page):
    page = phone_page.page
    open_page(phone_page, ui_server.url, "views")
    fits(phone_page, ["#size", "#number", "#load", "#grid-top", "#grid-front", "#grid-side",
                      "#solver", "#solve", "#stop"])
    page.fill("#number", "157")
    page.click("#load")
    page.wait_for_selector("#check.ok[data-input='fe88e8f9b499']")
    page.click("#solve")
    page.wait_for_selector("#status.ok", timeout=60_000)
    fits(phone_page, ["#status", "#detail", "#scene", "#layers"])
    # A floating cube (none under it, above the bottom layer) is said to be allowed.
    layers = [block.splitlines()[1:] for block in page.text_content("#layers").split("\n\n")]
    floating = sum(1 for z in range(len(layers) - 1) for y, row in enumerate(layers[z])
                   for x, ch in enumerate(row) if ch == "x" and layers[z + 1][y][x] != "x")
    note = page.locator("#floating")
    if floating:
        assert note.is_visible() and "the puzzle allows it" in note.inner_text()
        assert note.inner_text().startswith("One cube floats" if floating == 1
                                            else f"{floating} cubes float")
    else:
        assert note.is_hidden()
    assert "Cubes may float" in page.text_content("main > p")
    screenshot(page, "ui_phone_views.png")


@pytest.mark.browser
def test_iq_on_a_phone(ui_server, phone_page):
    page = phone_page.page
    open_page(phone_page, ui_server.url, "iq")
    page.select_option("#board", "rectangle")  # the widest board: 11 cells
    page.wait_for_selector("#challenge[data-board='rectangle'] [data-cell='10,4']")
    fits(phone_page, ["#board", "#palette", "#challenge", "#challenge [data-cell='10,4']",
                      "#solver", "#solve", "#count", "#stop"])
    page.click("#solve")
    page.wait_for_selector("#answer[data-status='solved']", timeout=60_000)
    fits(phone_page, ["#caption", "#answer-board", "#answer-board [data-cell='10,4']"])
    screenshot(page, "ui_phone_iq.png")
    page.select_option("#board", "custom")  # 16 x 16 cells to draw on
    fits(phone_page, ["#custom-grid", "[data-edit='15,0']", "#custom-use"])
    page.select_option("#board", "pyramid5")
    page.click("#solve")
    page.wait_for_selector("#answer[data-status='solved']", timeout=60_000)
    fits(phone_page, ["#challenge", "#answer-board", "#scene"])


@pytest.mark.browser
def test_sudoku_cube_on_a_phone(ui_server, phone_page):
    page = phone_page.page
    open_page(phone_page, ui_server.url, "sudoku-cube")
    page.click("#solve")  # on the empty net: what the live check says, not a file error
    page.wait_for_function("() => document.querySelector('#error').textContent.length > 0")
    assert page.text_content("#error").startswith("not ready to solve: U1: no digit yet;")
    page.locator("#seed").fill("11")
    page.locator("#scramble").fill("20")
    page.click("#example")
    page.wait_for_function("() => document.querySelector('#verdict').textContent.includes('ready')")
    faces = [f".sc-sticker[data-facelet='{face}5']" for face in "URFDLB"]
    fits(phone_page, ["#seed", "#example", "#clear", "#net", *faces, "#counts", "#solver",
                      "#parity", "#symmetric", "#time-limit", "#solve", "#stop"])
    page.click("#solve")
    page.wait_for_selector("#answer:not([hidden])", timeout=120_000)
    fits(phone_page, ["#summary", "#solved", "#solved [data-facelet='B9']", "#moves",
                      "#scene", "#stepnet", "#stepnet [data-facelet='B9']", "#next"])
    # A 1 drawn upside down beside "upright" is said to read the same both ways.
    summary = page.inner_text("#summary")
    upright = {face: ARROWS[arrow] for face, arrow in
               re.findall(r"([URFDLB]) ([\u2190-\u2193])", summary.split("upright (")[1])}
    titles = page.locator("#solved .sc-cell").evaluate_all("cells => cells.map(c => c.title)")
    turned = [name for name, token in (t.split(": ") for t in titles)
              if token[0] == "1" and token[1] != upright[name[0]]]
    note = page.locator("#symmetric-note")
    if turned:
        assert note.is_visible() and f"({', '.join(turned)})" in note.inner_text()
        assert "a 1 reads the same both ways" in note.inner_text()
    else:
        assert note.is_hidden()
    screenshot(page, "ui_phone_sudoku_cube.png")
