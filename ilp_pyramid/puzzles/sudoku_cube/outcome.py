"""What solving a Sudoku Cube reports: `CubeResult` (a `protocol.Result` with the cube's own
findings), its `solve --json` keys and the text `solve` prints under the net.

The puzzle's `after` hook (finish.py) makes the `CubeResult`; this module only reads it, and
imports no PuLP.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from ilp_pyramid.backends.base import Status
from ilp_pyramid.protocol import Result
from ilp_pyramid.puzzles.sudoku_cube.checks import NO_GRID

if TYPE_CHECKING:
    from ilp_pyramid.puzzles.sudoku_cube.solution import CubeSolution
    from ilp_pyramid.puzzles.sudoku_cube.state import Cube


@dataclass
class CubeResult(Result):
    """A cube's result: `detail` is NO_GRID or NOT_TURNABLE for an `infeasible` cube (""
    otherwise), `reason` says why in words for every answer but `solved`.

    `parity` is the model's parity mode (None: no model was built, the digits were refused
    first); `solver_calls` and `cuts` count the rounds and the diagnosis; `invariants` are
    the checker's for the grid found (or for the grid that breaks one rule, for a cube that
    turning cannot solve); `grid` is the grid a model found, checked, even one turning does
    not reach (a model given fewer `rules`), with `turnable` saying whether it does.
    """

    parity: str | None = None
    reason: str = ""
    moves_seconds: float = 0.0
    solver_calls: int = 0
    cuts: int = 0
    invariants: dict[str, int] = field(default_factory=dict)
    turnable: bool = False
    grid: CubeSolution | None = field(default=None, repr=False)

    @classmethod
    def of(cls, result: Result, **extra: Any) -> CubeResult:
        """`result` with the cube's fields (`extra`; the defaults for the others)."""
        return cls(**{f.name: getattr(result, f.name) for f in fields(Result)}, **extra)


def json_keys(result: Result) -> dict[str, Any]:
    """The keys `sudoku-cube solve --json` has always had (the common ones come first and
    win: puzzle, status, solver, form, seconds)."""
    cube = result if isinstance(result, CubeResult) else CubeResult.of(result)
    data: dict[str, Any] = {"solved": cube.solved, "status": str(cube.status),
                            "detail": cube.detail or None, "reason": cube.reason or None,
                            "faces": None, "moves": None}
    if cube.solution is not None:
        data.update(cube.solution.to_json())
    data.update({
        "solver": cube.solver,
        "parity": cube.parity,
        "build_seconds": round(cube.build_seconds, 4),
        "solve_seconds": round(cube.solve_seconds, 4),
        "moves_seconds": round(cube.moves_seconds, 4),
        "solver_calls": cube.solver_calls,
        "parity_cuts": cube.cuts,
        "variables": cube.variables,
        "constraints": cube.constraints,
        "invariants": cube.invariants or None,
        "engine": f"{cube.form}:{cube.solver}",  # the same key as Bel's `solve --json`
    })
    return data


def summary(instance: Cube, result: Result) -> str:
    """What `solve` prints under the solved net: the run, the model, and the verdict (the
    piece table and the moves' check), or why there is no grid."""
    cube = result if isinstance(result, CubeResult) else CubeResult.of(result)
    digits = ", ".join(map(str, sorted(instance.symmetric)))
    parity = f", parity {cube.parity}" if cube.parity else ""
    lines = [f"Sudoku Cube: solver {cube.solver}{parity}, half-turn-symmetric digits {digits}"]
    if cube.variables:
        calls = f"{cube.solver_calls} solver call{'s' if cube.solver_calls != 1 else ''}"
        rows = "clauses" if cube.form == "cnf" else "constraints"
        lines.append(f"model: {cube.variables} variables, {cube.constraints} {rows}; "
                     f"build {cube.build_seconds:.3f} s, solve {cube.solve_seconds:.3f} s "
                     f"({calls})")
    if cube.solution is None:
        lines.append(_failure(cube))
    else:
        lines += _verdict(cube, cube.solution)
    return "\n".join(lines) + "\n"


def _failure(cube: CubeResult) -> str:
    if cube.detail == NO_GRID:
        return f"no solution: {cube.reason}"
    label = {Status.TIMEOUT: "timeout", Status.ERROR: "error",
             Status.INTERRUPTED: "interrupted"}.get(cube.status)
    return f"{label}: {cube.reason}" if label else cube.reason


def _verdict(cube: CubeResult, solution: CubeSolution) -> list[str]:
    inv = cube.invariants
    lines = ["verified: every face shows 1-9 once, upright; reachable by turning (corner "
             f"twists {inv['corner_twist_mod3']} mod 3, edge flips {inv['edge_flip_mod2']} "
             f"mod 2, both permutations {'odd' if inv['corner_parity'] else 'even'}, centre "
             f"quarter turns {'odd' if inv['centre_turns_mod2'] else 'even'})"]
    lines += assignment_lines(solution.assignment())
    if solution.moves is not None:
        lines.append(f"moves ({len(solution.moves)} face turns, found in "
                     f"{cube.moves_seconds:.3f} s): the line under the net")
        lines.append("checked: simulating these turns on the given cube shows exactly the "
                     "faces above, every digit's direction included")
    return lines


def assignment_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The piece assignment as a text table: corners, edges and centres side by side, each
    from slot -> to slot and how it turns."""
    header = ("corner", "twist", "edge", "flip", "centre", "quarter turns")
    groups = {kind: [r for r in rows if r["piece"] == kind]
              for kind in ("corner", "edge", "centre")}
    table = [header]
    for i in range(max(len(g) for g in groups.values())):
        cells: list[str] = []
        for kind, turn in (("corner", "twist"), ("edge", "flip"), ("centre", "quarter_turns")):
            if i < len(groups[kind]):
                row = groups[kind][i]
                where = row["from"] if kind == "centre" else f"{row['from']} -> {row['to']}"
                cells += [where, str(row[turn])]
            else:
                cells += ["", ""]
        table.append(tuple(cells))
    widths = [max(len(row[c]) for row in table) for c in range(len(header))]
    numbers = (1, 3)  # twist and flip, right-aligned
    return ["piece assignment"] + [
        "  ".join(cell.rjust(w) if c in numbers else cell.ljust(w)
                  for c, (cell, w) in enumerate(zip(row, widths, strict=True))).rstrip()
        for row in table]
