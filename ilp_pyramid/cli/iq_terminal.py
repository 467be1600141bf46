"""IQ boards as coloured terminal text: every piece a letter on its own colour (rich styles;
plain letters where the output is no terminal)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.color import Color
from rich.style import Style
from rich.text import Text

from ilp_pyramid.puzzles.iq.boards import Board
from ilp_pyramid.puzzles.iq.pieces import Piece
from ilp_pyramid.puzzles.iq.render import OUTSIDE, is_dark, letter_grid

# ANSI colours dark enough to want white letters on them.
_DARK_ANSI = frozenset({0, 1, 4, 5, 8, 12})


def cell_styles(pieces: Sequence[Piece], color_system: str | None = None) -> dict[str, Style]:
    """Letter -> terminal style. In a 16-colour terminal each standard piece gets its own ANSI
    colour (rich's nearest match alone gives H and J the same magenta); else the piece's hex
    colour, which rich shows as is (truecolor) or as its nearest of 256 (all 12 distinct)."""
    styles = {}
    for p in pieces:
        if color_system == "standard" and p.ansi is not None:
            background = Color.from_ansi(p.ansi)
            dark = p.ansi in _DARK_ANSI
        else:
            background = Color.parse(p.colour)
            dark = is_dark(p.colour)
        text = Color.parse("#ffffff" if dark else "#000000")
        if color_system == "standard":
            text = Color.from_ansi(15 if dark else 0)
        styles[p.letter] = Style(color=text, bgcolor=background, bold=True)
    return styles


def _cell_text(letter: str, styles: Mapping[str, Style]) -> Text:
    style = styles.get(letter.upper())
    if style is None:
        return Text(f"{letter} ")
    if letter.islower():  # a pin: the cell is known to be this piece
        style = style + Style(underline=True)
    return Text(f"{letter} ", style=style)


def coloured(board: Board, letters: Mapping[int, str], pieces: Sequence[Piece],
             color_system: str | None = None) -> Text:
    """The grid as rich text, every piece on its own colour (plain when not a terminal); a small
    letter (a pin) underlined. `color_system`: the console's (rich's name), for the palette."""
    colours = cell_styles(pieces, color_system)
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
