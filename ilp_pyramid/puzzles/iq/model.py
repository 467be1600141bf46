"""IQ Pyramid as exact cover, and the same exact cover as a 0-1 program ("bitflag" style).

One binary per placement of a free piece on free cells. Every free cell is covered exactly
once; every free piece is used exactly once when the free pieces have exactly as many cells as
the free board, at most once otherwise (the 4-level pyramid uses 30 of the 55 cells' worth).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ilp_pyramid.puzzles.iq.boards import Board
from ilp_pyramid.puzzles.iq.pieces import Piece
from ilp_pyramid.puzzles.iq.placements import Placement, all_placements

if TYPE_CHECKING:  # PuLP is loaded by build_model alone: counting and DLX solves never need it
    import pulp


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


@dataclass
class IQModel:
    instance: Instance
    problem: pulp.LpProblem
    variables: list[pulp.LpVariable]
    build_seconds: float

    def chosen(self, values: Mapping[str, float]) -> list[int]:
        return [r for r, v in enumerate(self.variables) if values.get(v.name, 0.0) > 0.5]


def build_model(instance: Instance) -> IQModel:
    import pulp

    start = time.perf_counter()
    problem = pulp.LpProblem(f"iq_{instance.board.name}".replace(".", "_"), pulp.LpMinimize)
    variables = [problem.add_variable(var_name(instance, r), cat=pulp.LpBinary)
                 for r in range(len(instance.placements))]
    by_cell: dict[int, list[pulp.LpVariable]] = {c: [] for c in instance.free_cells}
    by_piece: dict[int, list[pulp.LpVariable]] = {k: [] for k in instance.free_pieces}
    for var, pl in zip(variables, instance.placements, strict=True):
        by_piece[pl.piece].append(var)
        for c in pl.cells:
            by_cell[c].append(var)
    # A feasibility problem: the objective is the constant 0.
    problem.setObjective(pulp.LpAffineExpression([]))
    for c, terms in by_cell.items():
        expression = pulp.LpAffineExpression([(v, 1) for v in terms])
        problem.addConstraint(pulp.LpConstraint(expression, pulp.LpConstraintEQ, rhs=1),
                              f"cell_{c}")
    sense = pulp.LpConstraintEQ if instance.pieces_exact else pulp.LpConstraintLE
    for k, terms in by_piece.items():
        if not terms and not instance.pieces_exact:
            continue  # "at most once" of a piece that fits nowhere says nothing
        expression = pulp.LpAffineExpression([(v, 1) for v in terms])
        problem.addConstraint(pulp.LpConstraint(expression, sense, rhs=1),
                              f"piece_{instance.pieces[k].letter}")
    return IQModel(instance, problem, variables, time.perf_counter() - start)
