"""The Sudoku Cube's bench grid, for `ilp-pyramid bench` (which knows no puzzle and gets it
through the puzzle object) and for `sudoku-cube bench`: one case per scramble length,
`sudoku-cube bench-one` with the cube's settings, run once per seed (a generated cube each).

The cube has no size: the bench's sizes are scramble lengths, and its repeats are the
cubes, repeat r generating from seed r-1 (`sudoku-cube bench` starts at --start instead).

    >>> [case.params["scramble"] for case in bench_cases()]
    [1, 2, 3, 5, 10, 30]
    >>> (case,) = bench_cases([10], broken="twist")
    >>> case.args[:4], case.params["broken"]
    (('sudoku-cube', 'bench-one', '--scramble', '10'), 'twist')
"""

from __future__ import annotations

from collections.abc import Sequence

from ilp_pyramid.protocol import BenchCase

# A ramp from one turn off solved to the generator's default. The grid is found as fast at
# any length past a few turns (docs/sudoku_cube.md), the face turns take longer to plan:
# the short ones show a solver's fixed cost, the long ones the rest.
BENCH_SCRAMBLES = (1, 2, 3, 5, 10, 30)


def bench_cases(sizes: Sequence[int] | None = None, parity: str | None = None,
                moves: bool = True, grid_only: bool = False,
                broken: str | None = None) -> list[BenchCase]:
    """`sudoku-cube bench-one` for each scramble length in `sizes` (default BENCH_SCRAMBLES,
    1 to 30 turns) with these settings (parity: the model's default); `grid_only`: the
    seed's model, no turning rules and no moves."""
    from ilp_pyramid.puzzles.sudoku_cube.model import DEFAULT_PARITY

    parity = parity or DEFAULT_PARITY
    cases = []
    for scramble in sizes or BENCH_SCRAMBLES:
        args = ["sudoku-cube", "bench-one", "--scramble", str(scramble), "--parity", parity,
                "--moves" if moves else "--no-moves", *["--grid-only"] * grid_only,
                *(["--broken", broken] if broken else [])]
        params = {"scramble": scramble, "parity": "none" if grid_only else parity,
                  "moves": moves and not grid_only, "broken": broken}
        cases.append(BenchCase(args=tuple(args), params=params, seeded=True))
    return cases
