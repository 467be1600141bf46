"""IQ Pyramid as exact cover: one row per placement of a free piece on free cells.

Every free cell is covered exactly once; every free piece is used exactly once when the free
pieces have exactly as many cells as the free board, at most once otherwise (the 4-level
pyramid uses 30 of the 55 cells' worth). The backends lower these rows to whatever a solver
takes (one binary per placement for a MIP solver, CNF for a SAT solver: backends/lowering.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ilp_pyramid.puzzles.iq.boards import Board
from ilp_pyramid.puzzles.iq.pieces import Piece
from ilp_pyramid.puzzles.iq.placements import Placement, all_placements


@dataclass
class Instance:
    """A board, a piece set and the given (already placed) cells: what is left to fill."""

    board: Board
    pieces: tuple[Piece, ...]
    given: dict[int, int]  # board cell -> piece index
    placements: list[Placement]  # of free pieces on free cells
    free_cells: list[int]  # board cells to cover, in item order
    free_pieces: list[int]  # piece indices still to place, in item order
    pieces_exact: bool  # every free piece must be used (else: at most once)
    pins: dict[int, int] = field(default_factory=dict)  # free cell -> the piece that covers it

    @property
    def num_items(self) -> int:
        return len(self.free_cells) + len(self.free_pieces)

    def exact_cover_rows(self) -> tuple[list[list[int]], int, int]:
        """(rows, num_primary, num_secondary): items are the free cells, then the free pieces."""
        cell_item = {c: k for k, c in enumerate(self.free_cells)}
        piece_item = {p: len(self.free_cells) + k for k, p in enumerate(self.free_pieces)}
        rows = [[cell_item[c] for c in pl.cells] + [piece_item[pl.piece]]
                for pl in self.placements]
        if self.pieces_exact:
            return rows, self.num_items, 0
        return rows, len(self.free_cells), len(self.free_pieces)

    def exact_cover_names(self) -> tuple[list[str], list[str]]:
        """(row names, item names) of `exact_cover_rows`, for a readable exported model:
        x_<letter>_<row>, cell_<board cell>, piece_<letter>."""
        rows = [var_name(self, r) for r in range(len(self.placements))]
        items = [f"cell_{c}" for c in self.free_cells] + \
            [f"piece_{self.pieces[k].letter}" for k in self.free_pieces]
        return rows, items

    def assignment(self, chosen: Sequence[int]) -> dict[int, int]:
        """Board cell -> piece index, from the givens and the chosen placement indices."""
        cells = dict(self.given)
        for r in chosen:
            pl = self.placements[r]
            for c in pl.cells:
                cells[c] = pl.piece
        return cells

    def letters(self, assignment: Mapping[int, int]) -> dict[int, str]:
        """Board cell -> piece letter, from board cell -> piece index."""
        return {c: self.pieces[k].letter for c, k in assignment.items()}

    def fixed_letters(self) -> dict[tuple[int, ...], str]:
        """Board coordinates -> letter, for every given cell and every pin: what the
        independent checker holds a filling to."""
        return {self.board.cells[c]: self.pieces[k].letter
                for c, k in {**self.given, **self.pins}.items()}


def build_instance(board: Board, pieces: Sequence[Piece],
                   given: Mapping[int, int] | None = None,
                   pins: Mapping[int, int] | None = None) -> Instance:
    """`given`: cells of pieces already placed (board cell -> piece index); `pins`: free cells
    known to belong to a piece, the rest of which is to be found."""
    given = dict(given or {})
    pins = dict(pins or {})
    used = frozenset(given.values())
    blocked = frozenset(given)
    free_cells = [c for c in range(board.size) if c not in blocked]
    free_pieces = [k for k in range(len(pieces)) if k not in used]
    placements = all_placements(board, pieces, blocked=blocked, skip=used)
    if pins:
        placements = [pl for pl in placements if _keeps_pins(pl, pins)]
    exact = sum(pieces[k].size for k in free_pieces) == len(free_cells)
    return Instance(board, tuple(pieces), given, placements, free_cells, free_pieces, exact,
                    pins)


def _keeps_pins(placement: Placement, pins: Mapping[int, int]) -> bool:
    """Pins live in the rows themselves, so every engine (MIP, SAT, DLX) obeys them alike: a
    placement may not cover another piece's pin, and a pinned piece only goes where it covers
    all of its pins. A pinned cell is still a cell every filling covers, so the pinned piece is
    then used even where pieces are "at most once" (pyramid4)."""
    cells = set(placement.cells)
    for cell, piece in pins.items():
        if (cell in cells) != (piece == placement.piece):
            return False
    return True


def var_name(instance: Instance, row: int) -> str:
    return f"x_{instance.pieces[instance.placements[row].piece].letter}_{row}"

