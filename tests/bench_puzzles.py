"""Puzzles for the bench tests, registered in place of the registry's (or beside it):

- BEL: Bel's bench grid (puzzles/bel/bench_cases.py), for a registry that has no Bel puzzle
  object yet; the runs are the real `solve N` processes;
- TOY: a puzzle the bench has never heard of, two DIMACS files solved by `solve-cnf`.

`python -m tests.bench_puzzles ARGS` is `ilp-pyramid ARGS` with them registered (from the
repository's root), for the tests that need a bench of its own process.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace

from ilp_pyramid.protocol import BenchCase
from ilp_pyramid.puzzles.bel import bench_cases as bel_bench

FIXTURES = Path(__file__).parent / "fixtures" / "bench"


def _toy_cases(sizes: Sequence[int] | None = None) -> list[BenchCase]:
    return [BenchCase(args=("solve-cnf", str(FIXTURES / f"{name}.cnf")),
                      params={"instance": name}) for name in ("sat", "unsat")]


BEL = SimpleNamespace(name="bel", title="Bel's Pyramid: stand-in", forms=("mip", "cnf"),
                      bench_cases=bel_bench.bench_cases, bench_fits=bel_bench.bench_fits)
TOY = SimpleNamespace(name="toy", title="Toy: two CNF files", forms=("cnf",),
                      bench_cases=_toy_cases)
# name -> where the registry finds it; Bel only where no Bel puzzle is registered.
ENTRIES = {"bel": f"{__name__}:BEL", "toy": f"{__name__}:TOY"}


def register(registry: dict, setitem=None) -> None:
    """Add the entries the registry lacks (`setitem`: monkeypatch.setitem, to undo it)."""
    for name, target in ENTRIES.items():
        if name not in registry:
            (setitem or dict.__setitem__)(registry, name, target)


if __name__ == "__main__":
    from ilp_pyramid import puzzles
    from ilp_pyramid.cli import main

    register(puzzles.REGISTRY)
    main(sys.argv[1:])
