"""Honest test instances: design a solved Sudoku Cube, then scramble it by random face turns."""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, replace

from ilp_pyramid.puzzles.sudoku_cube.checks import DEFAULT_SYMMETRIC
from ilp_pyramid.puzzles.sudoku_cube.geometry import FACES, corner_placements, edge_placements
from ilp_pyramid.puzzles.sudoku_cube.simulate import Move, apply_moves, format_moves
from ilp_pyramid.puzzles.sudoku_cube.state import CubeState

DEFAULT_SCRAMBLE = 30
# Ways to reassemble a cube wrongly, as a person with a screwdriver would.
BREAKS = {
    "twist": "the corner in slot URF twisted in place",
    "flip": "the edge in slot UR flipped in place",
    "swap": "the edges in slots UR and UF swapped",
    "centre": "the U centre turned a quarter in place",
}


@dataclass(frozen=True)
class Instance:
    seed: int
    design: CubeState  # the solved cube it was made from
    scramble: list[Move]
    state: CubeState  # what the solver is given

    broken_by: str = ""  # a key of BREAKS when the cube was reassembled wrongly

    def header(self) -> str:
        text = (f"Sudoku Cube, generated with seed {self.seed}: a random design (every face 1-9 "
                f"upright), scrambled by {len(self.scramble)} face turns:\n"
                f"{format_moves(self.scramble)}")
        if self.broken_by:
            text += f"\nthen reassembled wrongly: {BREAKS[self.broken_by]}"
        return text

    def to_text(self) -> str:
        return self.state.to_text(self.header())

    def broken(self, how: str) -> Instance:
        """The same cube taken apart and put back wrongly (see BREAKS)."""
        return replace(self, state=reassemble(self.state, how), broken_by=how)


def reassemble(state: CubeState, how: str) -> CubeState:
    """Move pieces by hand: twist a corner, flip an edge, swap two edges, turn a centre."""
    if how == "twist":
        moved = [corner_placements()[0, 0, 1]]
    elif how == "flip":
        moved = [edge_placements()[0, 0, 1]]
    elif how == "swap":
        moved = [edge_placements()[0, 1, 0], edge_placements()[1, 0, 0]]
    elif how == "centre":
        digit, direction = state.stickers[4]
        stickers = list(state.stickers)
        stickers[4] = (digit, (direction + 1) % 4)
        return CubeState(tuple(stickers))
    else:
        raise ValueError(f"unknown way to break a cube: {how!r}")
    stickers = list(state.stickers)
    for placement in moved:
        for a, b, turn in placement.moves:
            digit, direction = state.stickers[a]
            stickers[b] = (digit, (direction + turn) % 4)
    return CubeState(tuple(stickers))


def random_design(rng: random.Random, symmetric: Iterable[int] = DEFAULT_SYMMETRIC) -> CubeState:
    """Every face a random permutation of 1-9, all pointing up; a digit that looks the same
    after a half turn points up or down at random, as it might on a real cube."""
    symmetric = set(symmetric) | set(DEFAULT_SYMMETRIC)
    stickers = []
    for _ in FACES:
        digits = list(range(1, 10))
        rng.shuffle(digits)
        stickers += [(d, rng.choice((0, 2)) if d in symmetric else 0) for d in digits]
    return CubeState(tuple(stickers))


def random_turns(rng: random.Random, count: int) -> list[Move]:
    """`count` face turns, never the same face twice in a row (that would merge into one)."""
    moves: list[Move] = []
    while len(moves) < count:
        face = rng.choice(FACES)
        if moves and moves[-1][0] == face:
            continue
        moves.append((face, rng.choice((1, 2, 3))))
    return moves


def generate(seed: int, scramble: int = DEFAULT_SCRAMBLE,
             symmetric: Iterable[int] = DEFAULT_SYMMETRIC) -> Instance:
    rng = random.Random(seed)
    design = random_design(rng, symmetric)
    turns = random_turns(rng, scramble)
    return Instance(seed, design, turns, apply_moves(design, turns))
