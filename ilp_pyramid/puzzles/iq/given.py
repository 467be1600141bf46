"""Puzzle-book challenges: a board drawn with letters where pieces are already placed.

2-D: rows top to bottom, one character per cell at the cell's column (for the triangle, row r
holds r + 1 cells); `.` a free cell, a letter a placed piece, `#` or a space outside the board.
3-D: one square grid per level, bottom level first (level h is (n-h) x (n-h)), levels separated
by a blank line; levels left out at the top are free.

Or, as piece + cells, a JSON object: {"B": [[x, y], ...], ...} (2-D: column and row from the
top, from 0) or {"B": [[i, j, level], ...], ...} (3-D: level 0 at the bottom).

A capital letter marks a piece given whole (its cells must be a legal placement of it); a small
letter is a *pin*: that cell belongs to the piece, whose other cells are to be found (the Java
Kanoodle tool's "3-D extended" puzzles show one ball of a piece). In JSON a small-letter key
holds pins: {"h": [[2, 0, 1]]}.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ilp_pyramid.errors import InputError
from ilp_pyramid.formats.fileio import read_text
from ilp_pyramid.parsing import load_json
from ilp_pyramid.puzzles.iq.boards import MAX_BOARD_CELLS, Board
from ilp_pyramid.puzzles.iq.pieces import Piece
from ilp_pyramid.puzzles.iq.placements import piece_placements

_OUTSIDE = " #\t"


@dataclass
class Challenge:
    given: dict[int, int] = field(default_factory=dict)  # board cell -> piece placed whole
    pins: dict[int, int] = field(default_factory=dict)  # board cell -> piece that covers it


def read_challenge(path: str, board: Board, pieces: Sequence[Piece]) -> Challenge:
    try:
        text = read_text(path)
    except FileNotFoundError as exc:
        raise InputError(f"given file not found: {path}") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read given file {path}: {exc}") from exc
    return parse_challenge(text, board, pieces)


def read_given(path: str, board: Board, pieces: Sequence[Piece]) -> dict[int, int]:
    """The pieces given whole (board cell -> piece index); see `read_challenge` for pins."""
    return read_challenge(path, board, pieces).given


def parse_given(text: str, board: Board, pieces: Sequence[Piece]) -> dict[int, int]:
    return parse_challenge(text, board, pieces).given


def parse_challenge(text: str, board: Board, pieces: Sequence[Piece]) -> Challenge:
    """The given pieces and pins, by board cell index; checks each given piece's cells form a
    legal placement of it. Whether pins can be kept is the solver's answer, not an input error."""
    letters = {p.letter: k for k, p in enumerate(pieces)}
    if text.lstrip().startswith("{"):
        cells = _parse_json(text, board)  # stops at the first cell off the board or repeated
    elif (drawn := _drawn_cells(text)) > MAX_BOARD_CELLS:  # before reading it char by char
        raise InputError(f"the given grid draws {drawn:,} cells, more than the "
                         f"{MAX_BOARD_CELLS:,} a board may have")
    elif board.dims == 2:
        cells = _parse_2d(text, board)
    else:
        cells = _parse_3d(text, board)
    challenge = Challenge()
    for cell, (ch, where) in cells.items():
        if ch.upper() not in letters:
            raise InputError(f"unknown piece letter {ch!r} at {where} (pieces: "
                             f"{''.join(p.letter for p in pieces)})")
        into = challenge.pins if ch.islower() else challenge.given
        into[board.index(cell)] = letters[ch.upper()]  # type: ignore[index]
    both = set(challenge.given.values()) & set(challenge.pins.values())
    if both:
        letter = pieces[min(both)].letter
        raise InputError(f"piece {letter} is both given whole ({letter}) and pinned "
                         f"({letter.lower()})")
    check_given(challenge.given, board, pieces)
    return challenge


def check_given(given: dict[int, int], board: Board, pieces: Sequence[Piece]) -> None:
    by_piece: dict[int, set[int]] = {}
    for cell, k in given.items():
        by_piece.setdefault(k, set()).add(cell)
    for k, cells in sorted(by_piece.items()):
        legal = {p.cells for p in piece_placements(board, pieces[k], k)}
        if tuple(sorted(cells)) not in legal:
            letter = pieces[k].letter
            raise InputError(f"the given cells of piece {letter} are not a legal placement of "
                             f"{letter} ({len(cells)} cells given, the piece has "
                             f"{pieces[k].size}; a small letter {letter.lower()} pins single "
                             "cells)")


def _drawn_cells(text: str) -> int:
    """The characters of a drawn challenge that stand for cells (neither outside nor line
    ends), counted at the speed of `str.count`."""
    return len(text) - sum(text.count(ch) for ch in _OUTSIDE + "\r\n")


def _significant_lines(text: str) -> list[str]:
    lines = [line.rstrip("\r\n") for line in text.splitlines()]
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    return lines


def _parse_2d(text: str, board: Board) -> dict[tuple[int, ...], tuple[str, str]]:
    lines = _significant_lines(text)
    if len(lines) != board.rows:
        raise InputError(f"the given grid has {len(lines)} rows, board {board.name} has "
                         f"{board.rows}")
    found: dict[tuple[int, ...], tuple[str, str]] = {}
    for y, line in enumerate(lines):
        for x, ch in enumerate(line):
            where = f"row {y + 1}, column {x + 1}"
            on_board = board.index((x, y)) is not None
            if ch == "." or ch in _OUTSIDE:
                if ch in _OUTSIDE and on_board and ch != " ":
                    raise InputError(f"{where} is a board cell but marked {ch!r}")
                continue
            if not ch.isalpha():
                raise InputError(f"unexpected character {ch!r} at {where}")
            if not on_board:
                raise InputError(f"letter {ch!r} at {where} lies outside board {board.name}")
            found[(x, y)] = (ch, where)
    return found


def _parse_3d(text: str, board: Board) -> dict[tuple[int, ...], tuple[str, str]]:
    blocks: list[list[str]] = [[]]
    for line in _significant_lines(text):
        if line.strip():
            blocks[-1].append(line.strip())
        elif blocks[-1]:
            blocks.append([])
    blocks = [b for b in blocks if b]
    n = board.levels
    if len(blocks) > n:
        raise InputError(f"the given pyramid has {len(blocks)} levels, board {board.name} has {n}")
    found: dict[tuple[int, ...], tuple[str, str]] = {}
    for h, block in enumerate(blocks):
        m = n - h
        if len(block) != m or any(len(row) != m for row in block):
            raise InputError(f"level {h + 1} of the given pyramid must be {m} rows of {m} "
                             "cells (levels bottom first, separated by a blank line)")
        for j, row in enumerate(block):
            for i, ch in enumerate(row):
                if ch == ".":
                    continue
                where = f"level {h + 1}, row {j + 1}, column {i + 1}"
                if not ch.isalpha():
                    raise InputError(f"unexpected character {ch!r} at {where}")
                found[(i, j, h)] = (ch, where)
    return found


def _parse_json(text: str, board: Board) -> dict[tuple[int, ...], tuple[str, str]]:
    try:
        data = load_json(text)
    except InputError as exc:
        raise InputError(f"the given pieces are not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise InputError('the given pieces must be a JSON object {"letter": [cells], ...}')
    found: dict[tuple[int, ...], tuple[str, str]] = {}
    for letter, cells in data.items():
        where = f"piece {letter}"
        if not isinstance(cells, list) or not all(
                isinstance(c, list) and len(c) == board.dims
                and all(type(v) is int for v in c) for c in cells):
            shape = "[x, y]" if board.dims == 2 else "[i, j, level]"
            raise InputError(f"{where}: cells must be a list of {shape} integer lists")
        for c in cells:
            cell = tuple(c)
            if board.index(cell) is None:
                raise InputError(f"{where}: cell {list(cell)} is not on board {board.name}")
            if cell in found:
                raise InputError(f"{where}: cell {list(cell)} is given twice")
            found[cell] = (str(letter), where)
    return found
