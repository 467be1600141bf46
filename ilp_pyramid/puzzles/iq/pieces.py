"""The 12 IQ Pyramid / Kanoodle pieces, and custom piece sets read from JSON."""

from __future__ import annotations

from dataclasses import dataclass

from ilp_pyramid.errors import InputError
from ilp_pyramid.formats.fileio import read_text
from ilp_pyramid.parsing import load_json

Cell = tuple[int, int]


@dataclass(frozen=True)
class Piece:
    letter: str
    cells: tuple[Cell, ...]  # (column, row) inside the piece's own box
    colour: str  # a hex colour, for the terminal and for pictures
    # The colour in a 16-colour terminal (ANSI number), where rich's nearest match would give
    # two pieces the same one (H and J both magenta); None: rich's nearest match.
    ansi: int | None = None

    @property
    def size(self) -> int:
        return len(self.cells)


# Kanoodle colours, as hex so rich and matplotlib read them alike.
STANDARD_PIECES: tuple[Piece, ...] = (
    Piece("A", ((0, 0), (0, 1), (0, 2), (1, 2)), "#ff8c00", 3),  # orange, L-tetromino
    Piece("B", ((0, 0), (0, 1), (1, 1), (0, 2), (1, 2)), "#e0201b", 1),  # red, P
    Piece("C", ((0, 0), (0, 1), (0, 2), (0, 3), (1, 3)), "#1f4fd0", 4),  # blue, L
    Piece("D", ((0, 0), (0, 1), (0, 2), (1, 2), (0, 3)), "#ff69b4", 13),  # pink, Y
    Piece("E", ((0, 0), (0, 1), (0, 2), (1, 2), (1, 3)), "#1e9e3a", 2),  # green, N
    Piece("F", ((0, 0), (0, 1), (1, 1)), "#b0b0b0", 7),  # grey, V-tromino
    Piece("G", ((0, 0), (0, 1), (0, 2), (1, 2), (2, 2)), "#6ec6ff", 14),  # light blue, V
    Piece("H", ((0, 0), (0, 1), (1, 1), (1, 2), (2, 2)), "#c71585", 5),  # magenta, W
    Piece("I", ((0, 0), (1, 0), (0, 1), (0, 2), (1, 2)), "#ffd700", 11),  # yellow, U
    Piece("J", ((0, 0), (0, 1), (0, 2), (0, 3)), "#7b2fbe", 12),  # purple, I-tetromino
    Piece("K", ((0, 0), (1, 0), (0, 1), (1, 1)), "#90ee90", 10),  # light green, O-tetromino
    Piece("L", ((1, 0), (0, 1), (1, 1), (2, 1), (1, 2)), "#555555", 8),  # dark grey, X
)

_FALLBACK_COLOURS = ("#8dd3c7", "#fb8072", "#80b1d3", "#fdb462", "#b3de69", "#fccde5",
                     "#bc80bd", "#ccebc5", "#ffed6f", "#bebada")


def piece_set(name_or_path: str | None) -> tuple[Piece, ...]:
    """The standard set (None or "standard") or a set read from a JSON file."""
    if name_or_path in (None, "", "standard"):
        return STANDARD_PIECES
    return load_pieces(name_or_path)


def load_pieces(path: str) -> tuple[Piece, ...]:
    """Read pieces from JSON: a list (or {"pieces": list}) of
    {"letter": "A", "cells": [[col, row], ...], "colour": "#ff8c00"} (colour optional)."""
    try:
        data = load_json(read_text(path))
    except FileNotFoundError as exc:
        raise InputError(f"piece file not found: {path}") from exc
    except OSError as exc:
        raise InputError(f"cannot read piece file {path}: {exc.strerror or exc}") from exc
    except InputError as exc:
        raise InputError(f"cannot read piece file {path}: {exc}") from None
    if isinstance(data, dict):
        data = data.get("pieces")
    if not isinstance(data, list) or not data:
        raise InputError(f"{path}: expected a non-empty list of pieces")
    pieces: list[Piece] = []
    for index, entry in enumerate(data):
        pieces.append(piece_from_json(entry, index, path))
    letters = [p.letter for p in pieces]
    duplicates = sorted({x for x in letters if letters.count(x) > 1})
    if duplicates:
        raise InputError(f"{path}: piece letter {duplicates[0]!r} is used twice")
    return tuple(pieces)


def piece_from_json(entry: object, index: int, path: str) -> Piece:
    if not isinstance(entry, dict):
        raise InputError(f"{path}: piece {index + 1} is not an object")
    letter = entry.get("letter")
    if not isinstance(letter, str) or len(letter) != 1 or not letter.isalpha():
        raise InputError(f"{path}: piece {index + 1} needs a one-letter 'letter'")
    cells = entry.get("cells")
    # Lists of two JSON integers, checked by type: int() would take "3", 1.7, true or fail
    # with a KeyError on {"0": 1}.
    if not isinstance(cells, list) or not all(
            isinstance(c, list) and len(c) == 2 and all(type(v) is int for v in c)
            for c in cells):
        raise InputError(f"{path}: piece {letter} needs 'cells' as a list of [col, row]")
    parsed = tuple((c[0], c[1]) for c in cells)
    if not parsed:
        raise InputError(f"{path}: piece {letter} has no cells")
    if len(set(parsed)) != len(parsed):
        raise InputError(f"{path}: piece {letter} lists a cell twice")
    if not _connected(set(parsed)):
        raise InputError(f"{path}: piece {letter} is not connected")
    colour = entry.get("colour", entry.get("color"))
    if colour is None:
        colour = _FALLBACK_COLOURS[index % len(_FALLBACK_COLOURS)]
    if not isinstance(colour, str):
        raise InputError(f"{path}: piece {letter} has a colour that is not a string")
    return Piece(letter.upper(), parsed, colour)


def _connected(cells: set[Cell]) -> bool:
    start = next(iter(cells))
    seen = {start}
    todo = [start]
    while todo:
        x, y = todo.pop()
        for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if n in cells and n not in seen:
                seen.add(n)
                todo.append(n)
    return len(seen) == len(cells)
