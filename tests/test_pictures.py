"""The pictures look at what they draw: faces and labels, pixel colours, the HTML's data, and
the build list read back through verify."""

import csv
import io
import json
import re
from collections import Counter
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.image  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from ilp_pyramid.puzzles.bel import cubes as bel_cubes  # noqa: E402
from ilp_pyramid.puzzles.bel import html as bel_html  # noqa: E402
from ilp_pyramid.puzzles.bel import render as bel_render  # noqa: E402
from ilp_pyramid.puzzles.bel.faces import PALETTE, label_colour, visible_faces  # noqa: E402
from ilp_pyramid.puzzles.bel.geometry import pyramid  # noqa: E402
from ilp_pyramid.puzzles.bel.solution import parse_drawing  # noqa: E402
from ilp_pyramid.verify.bel import verify_solution  # noqa: E402


@pytest.fixture(scope="module")
def n3():
    return parse_drawing((FIXTURES / "bel" / "n3-example.txt").read_text())


FIXTURES = Path(__file__).parent / "fixtures"


def pixels(png: bytes) -> np.ndarray:
    """RGB bytes of a PNG, one row per image row."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    image = matplotlib.image.imread(io.BytesIO(png), format="png")
    return np.rint(image[..., :3] * 255).astype(np.uint8)


def colour_count(image: np.ndarray, hex_colour: str) -> int:
    rgb = np.array([int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)], dtype=np.uint8)
    return int(np.all(image == rgb, axis=-1).sum())


def line_labels(solution) -> dict:
    return {(line.family, line.a, line.b): solution.label(line.family, line.a, line.b)
            for line in pyramid(solution.n).lines}


# --- Bel: what the picture shows -------------------------------------------------------------

def test_visible_faces_show_every_line_exactly_once(n3):
    faces = visible_faces(n3)
    assert Counter(f.line for f in faces) == Counter(line_labels(n3).keys())
    for face in faces:
        assert face.label == line_labels(n3)[face.line]
        x, y, h = face.cell
        # the face is on its cube: the cube's own lines are the face's line
        own = {"x": ("Y", y, h), "y": ("X", x, h), "z": ("Z", x, y)}[face.axis]
        assert own == face.line
        outward = {"x": 0, "y": 1, "z": 2}[face.axis]
        assert {c[outward] for c in face.corners} == {face.cell[outward] + 1}


def test_png_figure_labels_every_visible_face(n3):
    fig = bel_render.figure(n3)
    try:
        ax3d, *levels = fig.axes
        faces = visible_faces(n3)
        assert len(ax3d.patches) == len(faces) == len(pyramid(3).lines)
        texts = [t.get_text() for t in ax3d.texts]
        assert Counter(texts) == Counter(str(f.label) for f in faces)
        # every face in its label's colour, and each label its own colour
        colours = Counter(matplotlib.colors.to_hex(p.get_facecolor()) for p in ax3d.patches)
        assert colours == Counter(label_colour(f.label) for f in faces)
        assert len({label_colour(k) for k in range(5)}) == 5
        legend = [t.get_text() for t in ax3d.get_legend().get_texts()]
        assert legend == [f"label {k}" for k in range(5)]
        # the levels from the top: (2n+1)^2 cells, each with its three labels
        assert len(levels) == 3
        for level, ax in enumerate(levels):
            h = 2 - level
            side = 2 * level + 1
            assert len(ax.patches) == 3 * side * side
            shown = Counter(t.get_text() for t in ax.texts)
            want = Counter()
            for cell in (c for c in pyramid(3).cells if c.h == h):
                for family, a, b in (("Z", cell.x, cell.y), ("Y", cell.y, h), ("X", cell.x, h)):
                    want[str(n3.label(family, a, b))] += 1
            assert shown == want
    finally:
        plt.close(fig)


def test_png_pixels_show_each_label_colour(n3):
    image = pixels(bel_render.png_bytes(n3, dpi=60))
    height, width = image.shape[:2]
    assert 300 <= width <= 3000 and 300 <= height <= 3000
    # all five labels cover real areas (far more than a legend swatch), no sixth colour
    counts = [colour_count(image, label_colour(k)) for k in range(5)]
    assert min(counts) > 1500, counts
    # (an anti-aliased edge may hit another palette colour by chance, never an area)
    assert max(colour_count(image, c) for c in PALETTE[5:]) < min(counts) / 20


# --- Bel: the interactive view ----------------------------------------------------------------

def plotly_traces(page: str) -> list[dict]:
    start = page.index("Plotly.newPlot(")
    data_start = page.index("[", start)
    traces, _ = json.JSONDecoder().raw_decode(page[data_start:])
    return traces


def test_html_holds_the_solution_and_plotly(n3):
    page = bel_html.html_text(n3)
    assert not re.search(r"<script[^>]*src=[\"']?https?:", page, re.I)
    assert len(page) > 1_000_000 and "plotly.js" in page  # the library itself, inline
    blob = re.search(r'<script type="application/json" id="bel-solution">(.*?)</script>',
                     page, re.S).group(1)
    data = json.loads(blob)
    assert data["solution"] == n3.to_dict()
    assert {(r["x"], r["y"], r["h"]) for r in data["cubes"]} == {
        (c.x, c.y, c.h) for c in pyramid(3).cells}
    traces = plotly_traces(page)
    meshes = [t for t in traces if t["type"] == "mesh3d"]
    assert [t["name"] for t in meshes] == ["level 0 (h=2)", "level 1 (h=1)", "level 2 (h=0)"]
    # plotly maps a hover text to the hovered vertex or, with face colours, to the hovered
    # triangle: both indices must lead to the same cube's text
    for mesh in meshes:
        assert len(mesh["hovertext"]) == len(mesh["x"]) == len(mesh["i"])
        for k, corner in enumerate(mesh["i"]):
            assert mesh["hovertext"][k] == mesh["hovertext"][corner]
    # hovering any cube shows its cell, its three line labels and its orientation
    hover = {text for t in meshes for text in t["hovertext"]}
    for cell in pyramid(3).cells:
        x, y, h = cell.x, cell.y, cell.h
        X, Y, Z = n3.label("X", x, h), n3.label("Y", y, h), n3.label("Z", x, y)
        want = (f"cell (x={x}, y={y}, h={h})<br>cube {{{', '.join(map(str, sorted((X, Y, Z))))}}}"
                f"<br>X({x},{h}) = {X}, Y({y},{h}) = {Y}, Z({x},{y}) = {Z}<br>"
                f"orientation: x-faces {Y}, y-faces {X}, z-faces {Z}")
        assert want in hover
    # one level hides as a whole: each label trace shares its mesh's legend group
    groups = Counter(t["legendgroup"] for t in traces)
    assert set(groups.values()) == {2} and len(groups) == 3


# --- Bel: the build list ----------------------------------------------------------------------

def test_build_list_reads_back_to_the_same_solution(n3):
    rows = bel_cubes.build_list(n3)
    assert [(r["h"], r["y"], r["x"]) for r in rows] == sorted((r["h"], r["y"], r["x"])
                                                                for r in rows)
    assert sorted(tuple(r["cube"]) for r in rows) == pyramid(3).cubes
    for r in rows:  # Y(y, h) runs along x, so it shows on the faces looking along x
        x, y, h = r["x"], r["y"], r["h"]
        assert (r["faces_x"], r["faces_y"], r["faces_z"]) == (
            n3.label("Y", y, h), n3.label("X", x, h), n3.label("Z", x, y))
    text = bel_cubes.to_csv(rows)
    back = bel_cubes.parse_build_list(text)
    assert back.to_dict() == n3.to_dict() and verify_solution(back).valid


def test_build_list_csv_through_verify(cli, tmp_path):
    csv_file = tmp_path / "build.csv"
    result = cli("solve", 2, "--solver", "kissat", "--json", "--cubes", "--cubes-csv", csv_file)
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert len(data["cubes"]) == 10 and data["cubes_csv"] == str(csv_file)
    assert cli("verify", csv_file).code == 0
    verdict = json.loads(cli("verify", csv_file, "--json").out)
    assert verdict == {"n": 2, "valid": True, "reasons": []}
    rows = list(csv.DictReader(io.StringIO(csv_file.read_text())))
    assert [int(r["faces_z"]) for r in rows if r["h"] == "0"] == [
        v for row in data["solution"]["Z"] for v in row]
    # a cube moved to another cell no longer agrees with its lines
    swapped = csv_file.read_text().splitlines()
    first, last = swapped[1].split(","), swapped[-1].split(",")
    swapped[1] = ",".join(first[:3] + last[3:])
    swapped[-1] = ",".join(last[:3] + first[3:])
    (tmp_path / "bad.csv").write_text("\n".join(swapped) + "\n")
    bad = cli("verify", tmp_path / "bad.csv")
    assert bad.code in (1, 2) and bad.code != 0


def test_solve_cubes_prints_the_table(cli):
    result = cli("solve", 2, "--solver", "kissat", "--cubes")
    assert result.code == 0, result.err
    rows = [line for line in result.out.splitlines() if re.match(r"^\W*\d+ \W+\(\d, \d, \d\)",
                                                                  line)]
    assert len(rows) == 10
    assert "(1, 1, 1)" in rows[-1]  # the top cube comes last


def test_render_draws_a_valid_solution_only(cli, tmp_path, fixtures, n3):
    png, html = tmp_path / "p.png", tmp_path / "p.html"
    result = cli("render", fixtures / "bel" / "n3-example.txt", "--png", png, "--html", html,
                 "--json")
    assert result.code == 0, result.err
    assert json.loads(result.out) == {"n": 3, "valid": True, "png": str(png),
                                      "html": str(html)}
    assert pixels(png.read_bytes()).shape[1] > 300 and "bel-solution" in html.read_text()
    broken = (fixtures / "bel" / "n3-example.txt").read_text().replace(
        "|  2  1  1  4  3 |", "|  2  1  1  4  4 |")
    (tmp_path / "broken.txt").write_text(broken)
    other = tmp_path / "q.png"
    result = cli("render", tmp_path / "broken.txt", "--png", other)
    assert result.code == 1 and not other.exists()
    assert "appears 2 times" in result.out
    assert cli("render", tmp_path / "broken.txt").code == 2  # nothing asked for
    assert cli("render", tmp_path / "missing.txt", "--cubes").code == 2


def test_lns_refuses_pictures(cli, tmp_path):
    result = cli("solve", 3, "--method", "lns", "--png", tmp_path / "p.png")
    assert result.code == 2 and "render" in result.err


# --- Views ------------------------------------------------------------------------------------

def test_views_png_shows_the_views_and_the_cubes(cli, tmp_path):
    from ilp_pyramid.puzzles.views import geometry
    from ilp_pyramid.puzzles.views import render as views_render

    views = geometry.seed_views(157)
    png = tmp_path / "v.png"
    result = cli("views", "solve", "--number", "000157", "--png", png, "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    placement = np.array([[[ch == "x" for ch in row] for row in layer]
                          for layer in data["layers"]])
    fig = views_render.figure(views, placement)
    try:
        *flat, ax3d = fig.axes
        for ax, view in zip(flat, (views.top, views.front, views.side), strict=True):
            fills = Counter(matplotlib.colors.to_hex(p.get_facecolor()) for p in ax.patches)
            assert fills == Counter({views_render.SET: int(view.sum()),
                                     views_render.CLEAR: int(view.size - view.sum())})
        assert len(ax3d.collections) == data["cubes"]  # one voxel per cube
    finally:
        plt.close(fig)
    image = pixels(png.read_bytes())
    assert 300 <= image.shape[1] <= 3000
    cells = sum(int(v.sum()) for v in (views.top, views.front, views.side))
    set_px = colour_count(image, views_render.SET)
    clear_px = colour_count(image, views_render.CLEAR)
    ratio = set_px / (set_px + clear_px)
    assert abs(ratio - cells / (3 * views.n ** 2)) < 0.05


# --- Sudoku Cube ------------------------------------------------------------------------------

def test_sudoku_cube_png_turns_every_digit(cli, tmp_path):
    from ilp_pyramid.puzzles.sudoku_cube import render as cube_render
    from ilp_pyramid.puzzles.sudoku_cube.geometry import FACES
    from ilp_pyramid.puzzles.sudoku_cube.state import parse_state, state_from_dict

    given = tmp_path / "cube.txt"
    assert cli("sudoku-cube", "generate", "--seed", "3", "-o", given).code == 0
    png = tmp_path / "c.png"
    result = cli("sudoku-cube", "solve", given, "--png", png, "--json")
    assert result.code == 0, result.err
    before = parse_state(given.read_text())
    after = state_from_dict(json.loads(result.out)["faces"])
    fig = cube_render.figure(before, after)
    try:
        for ax, state in zip(fig.axes, (before, after), strict=True):
            digits = [t for t in ax.texts if t.get_text().isdigit()]
            assert len(digits) == 54
            want = Counter((str(d), cube_render.ROTATION[r] % 360) for d, r in state.stickers)
            assert Counter((t.get_text(), round(t.get_rotation()) % 360)
                           for t in digits) == want
            assert sorted(t.get_text() for t in ax.texts if t.get_text().isalpha()) == sorted(
                FACES)
    finally:
        plt.close(fig)
    image = pixels(png.read_bytes())
    assert 300 <= image.shape[1] <= 3000
    for face in FACES:  # each face's tint covers its nine facelets in both nets
        assert colour_count(image, cube_render.TINT[face]) > 2 * 9 * 200
