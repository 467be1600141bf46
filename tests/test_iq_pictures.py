"""Pictures of IQ boards: distinct piece colours (terminal and PNG), given pieces and pins
marked apart; checked on the rendered escape codes, the figure's artists and the PNG's pixels."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
from rich.console import Console

from ilp_pyramid import protocol
from ilp_pyramid.backends.base import Status
from ilp_pyramid.cli.iq_terminal import coloured
from ilp_pyramid.puzzles.iq.boards import board_by_name
from ilp_pyramid.puzzles.iq.given import read_challenge
from ilp_pyramid.puzzles.iq.model import build_instance
from ilp_pyramid.puzzles.iq.pieces import STANDARD_PIECES
from ilp_pyramid.puzzles.iq.puzzle import PUZZLE
from ilp_pyramid.puzzles.iq.render import GIVEN_HATCH, draw, png_bytes


def solved(name: str, given_file=None):
    board = board_by_name(name)
    challenge = read_challenge(str(given_file), board, STANDARD_PIECES) if given_file else None
    instance = build_instance(board, STANDARD_PIECES, challenge.given if challenge else None,
                              challenge.pins if challenge else None)
    result = protocol.solve(PUZZLE, instance, "dlx")
    assert result.status is Status.SOLVED
    letters = {c: STANDARD_PIECES[k].letter for c, k in result.solution.items()}
    return instance, letters


def backgrounds(ansi: str) -> dict[str, str]:
    """Letter -> the background colour its cell was printed on (SGR codes)."""
    found: dict[str, str] = {}
    for codes, letter in re.findall(r"\x1b\[([\d;]+)m([A-Z]) ", ansi):
        parts = codes.split(";")
        background = None
        for i, code in enumerate(parts):
            if code == "48":  # 256 colours (48;5;n) or truecolor (48;2;r;g;b)
                background = ";".join(parts[i:i + (3 if parts[i + 1] == "5" else 5)])
            elif 40 <= int(code) <= 47 or 100 <= int(code) <= 107:
                background = code
        assert background is not None, codes
        assert found.setdefault(letter, background) == background  # one colour per piece
    return found


@pytest.mark.parametrize("system", ["standard", "256", "truecolor"])
def test_twelve_distinct_terminal_colours(system):
    instance, letters = solved("rectangle")
    console = Console(file=io.StringIO(), color_system=system, force_terminal=True, width=120)
    console.print(coloured(instance.board, letters, instance.pieces,
                           color_system=console.color_system), end="")
    colours = backgrounds(console.file.getvalue())
    assert sorted(colours) == sorted(p.letter for p in STANDARD_PIECES)
    assert len(set(colours.values())) == 12, colours


def cell_patches(fig):
    from matplotlib.patches import Circle, Rectangle

    return [p for ax in fig.axes for p in ax.patches
            if isinstance(p, Rectangle | Circle) and p.get_facecolor()[3] > 0]


def test_png_gives_each_piece_its_colour_and_marks_the_given_ones(fixtures):
    import matplotlib.pyplot as plt

    given = fixtures / "iq" / "triangle_five_given.txt"
    instance, letters = solved("triangle", given)
    fig = draw(instance.board, letters, instance.pieces, "t", given=set(instance.given))
    cells = cell_patches(fig)
    assert len(cells) == instance.board.size
    assert len({p.get_facecolor() for p in cells}) == 12
    hatched = [p for p in cells if p.get_hatch() == GIVEN_HATCH]
    assert len(hatched) == len(instance.given) > 0
    assert all(p.get_linewidth() > 2 for p in hatched)
    assert all(p.get_linewidth() <= 1 for p in cells if p.get_hatch() is None)
    legend = [t.get_text() for leg in fig.legends for t in leg.get_texts()]
    assert legend == ["given"]
    plt.close(fig)


def test_png_pixels_hold_every_piece_colour():
    import matplotlib.image

    instance, letters = solved("rectangle")
    image = matplotlib.image.imread(io.BytesIO(png_bytes(instance.board, letters,
                                                         instance.pieces)), format="png")
    height, width = image.shape[:2]
    assert 150 < height < 2000 and 300 < width < 3000
    rgb = (image[:, :, :3] * 255).round().astype(int)
    for piece in STANDARD_PIECES:
        want = np.array([int(piece.colour[k:k + 2], 16) for k in (1, 3, 5)])
        share = np.all(np.abs(rgb - want) <= 3, axis=2).mean()
        # A piece of n of the 55 cells fills about n/55 of the board's part of the picture.
        assert share > 0.2 * piece.size / 55, (piece.letter, share)


def test_pyramid_png_marks_given_balls_in_both_views_and_pins(fixtures, tmp_path):
    import matplotlib.pyplot as plt

    given = fixtures / "iq" / "pyramid5_given.txt"
    instance, letters = solved("pyramid5", given)
    fig = draw(instance.board, letters, instance.pieces, given=set(instance.given))
    hatched = [p for p in cell_patches(fig) if p.get_hatch() == GIVEN_HATCH]
    assert len(hatched) == 2 * len(instance.given)  # the view from above and the level panels
    plt.close(fig)
    pins = tmp_path / "pins.txt"
    pins.write_text(".\n..\n...\n....\n.....\n......\n.......\n........\n.........\nk........e\n")
    instance, letters = solved("triangle", pins)
    fig = draw(instance.board, letters, instance.pieces, pins=set(instance.pins))
    rings = [p for ax in fig.axes for p in ax.patches if p.get_facecolor()[3] == 0]
    assert len(rings) == 2 * len(instance.pins)  # a white ring under a black one per pin
    legend = [t.get_text() for leg in fig.legends for t in leg.get_texts()]
    assert len(legend) == 1 and legend[0].startswith("pin")
    plt.close(fig)
