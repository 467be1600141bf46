"""A puzzle for the bench tests that the bench has never heard of: two DIMACS files solved
by `solve-cnf`, registered for a test only (`register`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace

from ilp_pyramid.protocol import BenchCase

FIXTURES = Path(__file__).parent / "fixtures" / "bench"


def _toy_cases(sizes: Sequence[int] | None = None) -> list[BenchCase]:
    return [BenchCase(args=("solve-cnf", str(FIXTURES / f"{name}.cnf")),
                      params={"instance": name}) for name in ("sat", "unsat")]


TOY = SimpleNamespace(name="toy", title="Toy: two CNF files", forms=("cnf",),
                      bench_cases=_toy_cases)


def register(registry: dict, setitem) -> None:
    """Put TOY in the registry (`setitem`: monkeypatch.setitem, undone after the test)."""
    setitem(registry, "toy", f"{__name__}:TOY")
