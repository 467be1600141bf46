"""A solved grid: the target sticker state, where each sticker came from, and how to print it."""

from __future__ import annotations

from dataclasses import dataclass, field

from ilp_pyramid.puzzles.sudoku_cube.geometry import (
    DIRECTIONS,
    FACES,
    NUM_FACELETS,
    corner_placements,
    edge_placements,
    geometry,
)
from ilp_pyramid.puzzles.sudoku_cube.model import Grid
from ilp_pyramid.puzzles.sudoku_cube.simulate import Move, format_moves
from ilp_pyramid.puzzles.sudoku_cube.state import CubeState, Sticker


@dataclass
class CubeSolution:
    given: CubeState
    grid: Grid
    target: CubeState
    source: list[int]  # source[b] = the given facelet whose sticker ends on facelet b
    moves: list[Move] | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def directions(self) -> dict[str, str]:
        return {FACES[k]: DIRECTIONS[d] for k, d in sorted(self.grid.directions.items())}

    def assignment(self) -> list[dict]:
        """One row per piece: where it is now, where it goes, how it turns."""
        geo = geometry()
        rows = []
        for i, (j, t) in sorted(self.grid.corners.items()):
            rows.append({"piece": "corner", "from": geo.corner_names[i],
                         "to": geo.corner_names[j], "twist": t})
        for i, (j, f) in sorted(self.grid.edges.items()):
            rows.append({"piece": "edge", "from": geo.edge_names[i], "to": geo.edge_names[j],
                         "flip": f})
        for k, r in sorted(self.grid.centres.items()):
            rows.append({"piece": "centre", "from": FACES[k], "to": FACES[k],
                         "quarter_turns": r})
        return rows

    def to_json(self) -> dict:
        return {
            "faces": self.target.to_dict(),
            "directions": self.directions,
            "assignment": self.assignment(),
            "moves": format_moves(self.moves) if self.moves is not None else None,
            "move_count": len(self.moves) if self.moves is not None else None,
        }


def assemble(given: CubeState, grid: Grid) -> CubeSolution:
    """Carry every sticker of `given` where the grid puts its piece, turning its direction."""
    geo = geometry()
    target: list[Sticker | None] = [None] * NUM_FACELETS
    source = [-1] * NUM_FACELETS
    tables = ((grid.corners, corner_placements()), (grid.edges, edge_placements()))
    for chosen, table in tables:
        for i, (j, t) in chosen.items():
            for a, b, turn in table[i, j, t].moves:
                digit, direction = given.stickers[a]
                target[b] = (digit, (direction + turn) % 4)
                source[b] = a
    for k, b in enumerate(geo.centres):
        digit, direction = given.stickers[b]
        target[b] = (digit, (direction + grid.centres[k]) % 4)
        source[b] = b
    if any(s is None for s in target):  # pragma: no cover - decode checks the assignment
        raise ValueError("the grid leaves a facelet empty")
    return CubeSolution(given, grid, CubeState(tuple(target)), source)  # type: ignore[arg-type]
