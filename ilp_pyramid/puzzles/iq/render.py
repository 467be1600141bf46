"""Show a filled (or partly filled) board: letter grids, PNG and SVG pictures (the coloured
terminal text is the command line's: cli/iq_terminal.py)."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING

from ilp_pyramid.figures import pyplot
from ilp_pyramid.puzzles.iq.boards import Board
from ilp_pyramid.puzzles.iq.pieces import Piece

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FREE, OUTSIDE = ".", " "


def letter_grid(board: Board, letters: Mapping[int, str]) -> list[str] | list[list[str]]:
    """2-D: row strings top to bottom (outside cells as spaces, trailing ones dropped).
    3-D: one list of row strings per level, bottom level first. Unfilled cells show `.`."""
    if board.dims == 2:
        rows = [[OUTSIDE] * board.width for _ in range(board.rows)]
        for k, (x, y) in enumerate(board.cells):
            rows[y][x] = letters.get(k, FREE)
        return ["".join(row).rstrip() for row in rows]
    levels = []
    for h in range(board.levels):
        m = board.level_size(h)
        rows = [[FREE] * m for _ in range(m)]
        levels.append(rows)
    for k, (i, j, h) in enumerate(board.cells):
        levels[h][j][i] = letters.get(k, FREE)
    return [["".join(row) for row in level] for level in levels]


def is_dark(hex_colour: str) -> bool:
    """Luminance under 0.4 (of 1): white letters read better there than black."""
    try:
        r, g, b = (int(hex_colour.lstrip("#")[k:k + 2], 16) / 255 for k in (0, 2, 4))
    except ValueError:
        return False
    return 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.4


GIVEN_HATCH = "///"
GIVEN_EDGE = 2.6  # line width around a given cell (placed ones: 1)


def draw(board: Board, letters: Mapping[int, str], pieces: Sequence[Piece], title: str = "",
         given: AbstractSet[int] = frozenset(), pins: AbstractSet[int] = frozenset()) -> Figure:
    """The picture as a matplotlib figure: 2-D boards as coloured squares; pyramids as balls,
    seen from above (upper levels over lower ones) next to one panel per level. Cells of given
    pieces are hatched with a thick outline, pinned cells carry a ring, and a legend says so."""

    plt = pyplot()
    from matplotlib.lines import Line2D
    from matplotlib.patches import Circle, Patch, Rectangle

    colours = {p.letter: p.colour for p in pieces}

    def style(index: int | None) -> dict:
        letter = letters.get(index) if index is not None else None
        fixed = index in given
        return {"facecolor": colours.get((letter or "").upper(), "#f4f4f4"),
                "edgecolor": "#000000" if fixed else "#333333",
                "linewidth": GIVEN_EDGE if fixed else 1.0,
                "hatch": GIVEN_HATCH if fixed else None}

    def ink(index: int | None) -> str:
        return "#ffffff" if is_dark(style(index)["facecolor"]) else "#000000"

    def pin(ax, x: float, y: float, radius: float) -> None:
        ax.add_patch(Circle((x, y), radius, facecolor="none", edgecolor="#ffffff",
                            linewidth=2.0, zorder=3))
        ax.add_patch(Circle((x, y), radius, facecolor="none", edgecolor="#000000",
                            linewidth=0.8, zorder=4))

    if board.dims == 2:
        fig, ax = plt.subplots(figsize=(0.5 * board.width + 1, 0.5 * board.rows + 1.4))
        for k, (x, y) in enumerate(board.cells):
            ax.add_patch(Rectangle((x, -y - 1), 1, 1, **style(k)))
            letter = letters.get(k)
            if letter:
                ax.text(x + 0.5, -y - 0.5, letter.upper(), ha="center", va="center",
                        fontsize=10, zorder=5, color=ink(k), fontweight="bold")
            if k in pins:
                pin(ax, x + 0.5, -y - 0.5, 0.36)
        ax.set_xlim(-0.2, board.width + 0.2)
        ax.set_ylim(-board.rows - 0.2, 0.2)
        axes = [ax]
    else:
        n = board.levels
        fig, axes = plt.subplots(1, n + 1, figsize=(2.2 * (n + 1) + 1, 3.4),
                                 gridspec_kw={"width_ratios": [n + 1] + [n] * n})
        top = axes[0]
        for i, j, h in sorted(board.cells, key=lambda c: c[2]):  # upper levels drawn last
            idx = board.index((i, j, h))
            cell = style(idx)
            if idx not in given:
                cell["linewidth"] = 0.8 + 0.3 * h
            top.add_patch(Circle((2 * i + h, -(2 * j + h)), 0.97, **cell))
        top.set_title("from above", fontsize=9)
        top.set_xlim(-1.2, 2 * n - 0.8)
        top.set_ylim(-(2 * n - 0.8), 1.2)
        for h in range(n):
            ax = axes[h + 1]
            for i in range(n - h):
                for j in range(n - h):
                    idx = board.index((i, j, h))
                    ax.add_patch(Circle((2 * i, -2 * j), 0.95, **style(idx)))
                    letter = letters.get(idx) if idx is not None else None
                    if letter:
                        ax.text(2 * i, -2 * j, letter.upper(), ha="center", va="center",
                                fontsize=8, zorder=5, color=ink(idx), fontweight="bold")
                    if idx in pins:
                        pin(ax, 2 * i, -2 * j, 0.7)
            ax.set_title(f"level {h + 1}", fontsize=9)
            ax.set_xlim(-1.2, 2 * n - 0.8)
            ax.set_ylim(-(2 * n - 0.8), 1.2)
    for ax in axes:
        ax.set_aspect("equal")
        ax.axis("off")
    legend = []
    if given:
        legend.append(Patch(facecolor="#ffffff", edgecolor="#000000", linewidth=GIVEN_EDGE,
                            hatch=GIVEN_HATCH, label="given"))
    if pins:
        legend.append(Line2D([], [], marker="o", linestyle="none", markerfacecolor="none",
                             markeredgecolor="#000000", markersize=9,
                             label="pin (cell known to be that piece)"))
    if legend:
        fig.legend(handles=legend, loc="lower center", ncol=len(legend), fontsize=8,
                   frameon=False)
    if title:
        fig.suptitle(title, fontsize=10)
    return fig


def png_bytes(board: Board, letters: Mapping[int, str], pieces: Sequence[Piece],
              title: str = "", given: AbstractSet[int] = frozenset(),
              pins: AbstractSet[int] = frozenset()) -> bytes:
    """`draw` as PNG bytes."""
    fig = draw(board, letters, pieces, title, given, pins)  # InputError without matplotlib
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()
