"""Show a filled (or partly filled) board: letter grids, coloured terminal text, PNG pictures."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence

from rich.text import Text

from ilp_pyramid.puzzles.iq.boards import Board
from ilp_pyramid.puzzles.iq.pieces import Piece

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


def _cell_text(letter: str, colours: Mapping[str, str]) -> Text:
    if letter in colours:
        return Text(f"{letter} ", style=f"bold #000000 on {colours[letter]}")
    return Text(f"{letter} ")


def coloured(board: Board, letters: Mapping[int, str], pieces: Sequence[Piece]) -> Text:
    """The grid as rich text, every piece on its own colour (plain when not a terminal)."""
    colours = {p.letter: p.colour for p in pieces}
    grid = letter_grid(board, letters)
    out = Text()
    if board.dims == 2:
        for row in grid:
            for ch in row:
                out.append_text(_cell_text(ch, colours) if ch != OUTSIDE else Text("  "))
            out.append("\n")
        return out
    # 3-D: the levels side by side, bottom level first.
    levels: list[list[str]] = grid  # type: ignore[assignment]
    n = len(levels)
    heads = [f"level {h + 1}".ljust(2 * (n - h)) for h in range(n)]
    out.append("   ".join(heads).rstrip() + "\n")
    for j in range(n):
        for h, level in enumerate(levels):
            m = n - h
            if j < m:
                for ch in level[j]:
                    out.append_text(_cell_text(ch, colours))
            else:
                out.append(" " * (2 * m))
            if h < n - 1:
                out.append("   ")
        out.append("\n")
    return out


def png_bytes(board: Board, letters: Mapping[int, str], pieces: Sequence[Piece],
              title: str = "") -> bytes:
    """A picture: 2-D boards as coloured squares; pyramids as balls, seen from above (upper
    levels over lower ones) next to one panel per level."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Circle, Rectangle

    colours = {p.letter: p.colour for p in pieces}

    def face(letter: str | None) -> str:
        return colours.get(letter or "", "#f4f4f4")

    if board.dims == 2:
        fig, ax = plt.subplots(figsize=(0.5 * board.width + 1, 0.5 * board.rows + 1))
        for k, (x, y) in enumerate(board.cells):
            letter = letters.get(k)
            ax.add_patch(Rectangle((x, -y - 1), 1, 1, facecolor=face(letter),
                                   edgecolor="#333333", linewidth=1))
            if letter:
                ax.text(x + 0.5, -y - 0.5, letter, ha="center", va="center", fontsize=10)
        ax.set_xlim(-0.2, board.width + 0.2)
        ax.set_ylim(-board.rows - 0.2, 0.2)
        axes = [ax]
    else:
        n = board.levels
        fig, axes = plt.subplots(1, n + 1, figsize=(2.2 * (n + 1) + 1, 3),
                                 gridspec_kw={"width_ratios": [n + 1] + [n] * n})
        top = axes[0]
        for i, j, h in sorted(board.cells, key=lambda c: c[2]):  # upper levels drawn last
            idx = board.index((i, j, h))
            letter = letters.get(idx) if idx is not None else None
            top.add_patch(Circle((2 * i + h, -(2 * j + h)), 0.97, facecolor=face(letter),
                                 edgecolor="#222222", linewidth=0.8 + 0.3 * h))
        top.set_title("from above", fontsize=9)
        top.set_xlim(-1.2, 2 * n - 0.8)
        top.set_ylim(-(2 * n - 0.8), 1.2)
        for h in range(n):
            ax = axes[h + 1]
            for i in range(n - h):
                for j in range(n - h):
                    idx = board.index((i, j, h))
                    letter = letters.get(idx) if idx is not None else None
                    ax.add_patch(Circle((2 * i, -2 * j), 0.95, facecolor=face(letter),
                                        edgecolor="#222222"))
                    if letter:
                        ax.text(2 * i, -2 * j, letter, ha="center", va="center", fontsize=8)
            ax.set_title(f"level {h + 1}", fontsize=9)
            ax.set_xlim(-1.2, 2 * n - 0.8)
            ax.set_ylim(-(2 * n - 0.8), 1.2)
    for ax in axes:
        ax.set_aspect("equal")
        ax.axis("off")
    if title:
        fig.suptitle(title, fontsize=10)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()
