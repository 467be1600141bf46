"""Face turns in standard notation, applied to a sticker state facelet by facelet.

A turn moves every sticker of its layer to its new facelet and turns the sticker's direction
with it (the centre of the turned face included), so a simulated sequence shows exactly what a
real Sudoku Cube shows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles.sudoku_cube.geometry import FACES, NUM_FACELETS, face_turn
from ilp_pyramid.puzzles.sudoku_cube.state import CubeState

Move = tuple[str, int]  # (face, quarter turns clockwise 1..3)

_MOVE = re.compile(r"^([URFDLB])(2'?|'|)$")
_SUFFIX = {1: "", 2: "2", 3: "'"}


def parse_moves(text: str) -> list[Move]:
    """'R U2 F'' -> [('R', 1), ('U', 2), ('F', 3)]; commas and extra spaces are ignored."""
    moves = []
    for position, word in enumerate(text.replace(",", " ").split(), start=1):
        match = _MOVE.match(word)
        if not match:
            raise InputError(f"move {position}: {word!r} is not a face turn (want one of "
                             f"{' '.join(FACES)} with nothing, 2 or ' after it)")
        suffix = match.group(2)
        moves.append((match.group(1), 2 if suffix.startswith("2") else 3 if suffix else 1))
    return moves


def format_moves(moves: Iterable[Move]) -> str:
    return " ".join(f"{face}{_SUFFIX[q % 4]}" for face, q in moves if q % 4)


def inverse(moves: Sequence[Move]) -> list[Move]:
    return [(face, (4 - q) % 4) for face, q in reversed(moves) if q % 4]


def simplify(moves: Iterable[Move]) -> list[Move]:
    """Merge neighbouring turns of one face (R R -> R2, R R' -> nothing): same effect, shorter."""
    out: list[Move] = []
    for face, q in moves:
        if out and out[-1][0] == face:
            q = (out.pop()[1] + q) % 4
        if q % 4:
            out.append((face, q % 4))
    return out


def apply_moves(state: CubeState, moves: Iterable[Move]) -> CubeState:
    stickers = list(state.stickers)
    for face, quarters in moves:
        turn = face_turn(face, quarters)
        moved = list(stickers)
        for s in range(NUM_FACELETS):
            digit, direction = stickers[s]
            moved[turn.dest[s]] = (digit, (direction + turn.turn[s]) % 4)
        stickers = moved
    return CubeState(tuple(stickers))


def apply_labels(labels: Sequence, moves: Iterable[Move]) -> list:
    """Move arbitrary per-facelet labels (colours, sticker ids) without directions."""
    current = list(labels)
    for face, quarters in moves:
        dest = face_turn(face, quarters).dest
        moved = list(current)
        for s in range(NUM_FACELETS):
            moved[dest[s]] = current[s]
        current = moved
    return current
