"""Fillings as one line of text each: what `iq count --output` writes and `iq verify` reads.

A line is the letter grid of `iq solve` on one line: 2-D, the rows top to bottom joined by `/`
(a space for a column outside the board); 3-D, each level's rows joined by `/` and the levels,
bottom first, joined by `|`. The triangle's first filling reads `A/AA/...`; a pyramid4 one
`ABBC/...|...|..|.` shaped 4x4 | 3x3 | 2x2 | 1. Lines starting with `#` are comments.
`ilp_pyramid.verify.iq.parse_solution_line` reads a line back without the package.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ilp_pyramid.formats.fileio import read_lines
from ilp_pyramid.puzzles.iq.boards import Board
from ilp_pyramid.puzzles.iq.model import Instance
from ilp_pyramid.puzzles.iq.render import letter_grid
from ilp_pyramid.verify.iq import FillingChecker, parse_solution_line


def grid_line(grid: list[str] | list[list[str]], dims: int) -> str:
    if dims == 2:
        return "/".join(grid)  # type: ignore[arg-type]
    return "|".join("/".join(level) for level in grid)  # type: ignore[arg-type]


class LineFormat:
    """Writes many fillings of one instance as lines, vectorised: a filling is a row of
    placement indices (-1 padded), as the exact-cover engine returns them."""

    def __init__(self, instance: Instance) -> None:
        board = instance.board
        # The line with every cell marked by its index tells where each cell's letter goes.
        marks = {c: chr(0x100 + c) for c in range(board.size)}
        template = grid_line(letter_grid(board, marks), board.dims)
        position = {ord(ch) - 0x100: at for at, ch in enumerate(template) if ord(ch) >= 0x100}
        self.width = len(template)
        blank = bytearray(ord(ch) if ord(ch) < 0x100 else ord(".") for ch in template)
        for cell, piece in instance.given.items():
            blank[position[cell]] = ord(instance.pieces[piece].letter)
        # One spare column past the newline takes the writes of padding (-1) entries.
        self._blank = np.frombuffer(bytes(blank) + b"\n\n", np.uint8)
        spare = self.width + 1
        size = max((len(pl.cells) for pl in instance.placements), default=0)
        self._where = np.full((len(instance.placements) + 1, size), spare, np.int64)
        self._letter = np.zeros(len(instance.placements) + 1, np.uint8)
        for r, pl in enumerate(instance.placements):
            self._where[r, : len(pl.cells)] = [position[c] for c in pl.cells]
            self._letter[r] = ord(instance.pieces[pl.piece].letter)
        self._last = len(instance.placements)

    def lines(self, solutions: np.ndarray) -> bytes:
        """Every filling (one per row of placement indices) as a line ending in a newline."""
        if solutions.shape[0] == 0:
            return b""
        rows = np.where(solutions >= 0, solutions, self._last).astype(np.int64)
        out = np.tile(self._blank, (rows.shape[0], 1))
        where = self._where[rows]  # filling x piece x cell -> position in the line
        out[np.arange(rows.shape[0])[:, None, None], where] = self._letter[rows][:, :, None]
        return out[:, : self.width + 1].tobytes()


@dataclass
class FileCheck:
    fillings: int = 0
    invalid: int = 0
    duplicates: int = 0
    problems: list[str] = field(default_factory=list)  # the first few, with line numbers


def check_file(path: str | os.PathLike, board: Board,
               shapes: Mapping[str, Sequence[tuple[int, int]]],
               fixed: Mapping[tuple[int, ...], str], max_problems: int = 10) -> FileCheck:
    """Read a file of fillings line by line (never whole: the shared bounded reader, gzip
    read too, a line past its limit an InputError) and judge each with the independent
    checker; repeated lines are reported too. Bytes that are not UTF-8 read as U+FFFD, a
    character no filling has: the line is then invalid."""
    checker = FillingChecker(board.cells, shapes, fixed)
    report = FileCheck()
    seen: set[bytes] = set()
    for number, line in read_lines(path):
        if not line.strip() or line.startswith("#"):
            continue
        report.fillings += 1
        try:
            verdict = checker.check(parse_solution_line(line, board.dims))
            problem = None if verdict.valid else verdict.problems[0]
        except ValueError as exc:
            problem = str(exc)
        key = hashlib.blake2b(line.encode(), digest_size=16).digest()
        if problem is None and key in seen:
            problem = "the same filling as an earlier line"
            report.duplicates += 1
        elif problem is not None:
            report.invalid += 1
        seen.add(key)
        if problem is not None and len(report.problems) < max_problems:
            report.problems.append(f"line {number}: {problem}")
    return report
