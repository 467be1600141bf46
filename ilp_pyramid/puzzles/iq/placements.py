"""Every placement of every piece on a board, duplicates by covered cells removed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from operator import add

from ilp_pyramid.puzzles.iq.boards import Board
from ilp_pyramid.puzzles.iq.pieces import Piece


@dataclass(frozen=True)
class Placement:
    piece: int  # index into the piece set
    cells: tuple[int, ...]  # sorted board cell indices


def orientation_frames(board: Board) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Ordered pairs (u, v) of perpendicular neighbour vectors: each is one way to lay the
    piece's (column, row) axes in the lattice (4 rotations x 2 reflections per plane)."""
    vectors = board.neighbour_vectors
    return [(u, v) for u in vectors for v in vectors if board.dot(u, v) == 0
            and board.dot(u, u) == board.dot(v, v)]


def piece_placements(board: Board, piece: Piece, piece_index: int) -> list[Placement]:
    frames = orientation_frames(board)
    a0, b0 = piece.cells[0]
    offsets = [(a - a0, b - b0) for a, b in piece.cells]
    seen: set[tuple[int, ...]] = set()
    found: list[Placement] = []
    # The piece's cells as lattice vectors, once per frame (the same at every cell).
    shapes = [[tuple(a * uk + b * vk for uk, vk in zip(u, v, strict=True)) for a, b in offsets]
              for u, v in frames]
    for cell in board.cells:
        p = board.point(cell)
        for shape in shapes:
            covered = []
            for d in shape:
                hit = board.index_at(tuple(map(add, p, d)))
                if hit is None:
                    break
                covered.append(hit)
            else:
                key = tuple(sorted(covered))
                if key not in seen:
                    seen.add(key)
                    found.append(Placement(piece_index, key))
    return found


def all_placements(board: Board, pieces: Sequence[Piece],
                   blocked: frozenset[int] = frozenset(),
                   skip: frozenset[int] = frozenset()) -> list[Placement]:
    """Placements of every piece not in `skip` that avoid the `blocked` cells."""
    found: list[Placement] = []
    for k, piece in enumerate(pieces):
        if k in skip:
            continue
        found.extend(p for p in piece_placements(board, piece, k)
                     if not blocked.intersection(p.cells))
    return found
