"""The Sudoku Cube's bench grid, for `ilp-pyramid bench` (which knows no puzzle): one case,
`sudoku-cube bench-one` with the cube's settings, run once per seed (a generated cube each).

The cube has no size: the bench's repeats are the cubes, repeat r generating from seed r-1
(`sudoku-cube bench` starts at --start instead).

    >>> (case,) = bench_cases(scramble=10, broken="twist")
    >>> case.args[:4], case.params["broken"]
    (('sudoku-cube', 'bench-one', '--scramble', '10'), 'twist')
"""

from __future__ import annotations

from collections.abc import Sequence

from ilp_pyramid.errors import InputError
from ilp_pyramid.protocol import BenchCase


def bench_cases(sizes: Sequence[int] | None = None, scramble: int | None = None,
                parity: str | None = None, moves: bool = True, grid_only: bool = False,
                broken: str | None = None) -> list[BenchCase]:
    """`sudoku-cube bench-one` with these settings (defaults: the generator's scramble, the
    model's parity rule); `grid_only`: the seed's model, no turning rules and no moves."""
    from ilp_pyramid.puzzles.sudoku_cube.generate import DEFAULT_SCRAMBLE
    from ilp_pyramid.puzzles.sudoku_cube.model import DEFAULT_PARITY

    if sizes:
        raise InputError("the Sudoku Cube has no sizes: its bench solves generated cubes, "
                         "one per repeat (seed r-1)")
    scramble = DEFAULT_SCRAMBLE if scramble is None else scramble
    parity = parity or DEFAULT_PARITY
    args = ["sudoku-cube", "bench-one", "--scramble", str(scramble), "--parity", parity,
            "--moves" if moves else "--no-moves", *["--grid-only"] * grid_only,
            *(["--broken", broken] if broken else [])]
    params = {"scramble": scramble, "parity": "none" if grid_only else parity,
              "moves": moves and not grid_only, "broken": broken}
    return [BenchCase(args=tuple(args), params=params)]
