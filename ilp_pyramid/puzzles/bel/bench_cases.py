"""Bel's bench grid, for `ilp-pyramid bench` (which knows no puzzle and gets these through
the Bel puzzle object): one case per size N, `solve N`, and which grid points Bel has.

The bench's extra axes pass `--KEY V` to `solve N`, so Bel's own options are its axes:
`--grid formulation=counts,rotations` (MIP formulations and CNF encodings), `--grid
strategy=none,LabelPermutation+Automorphism` (strategy sets; `solve` reads `A+B` as two
strategies), `--grid card=ladder` (the CNF cardinality encoding).

    >>> [case.args for case in bench_cases([2, 3])]
    [('solve', '2'), ('solve', '3')]
    >>> bench_fits({"n": 3, "formulation": "support"}, "highs")  # a CNF encoding only
    False
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ilp_pyramid import backends
from ilp_pyramid.errors import InputError
from ilp_pyramid.protocol import BenchCase
from ilp_pyramid.puzzles.bel.geometry import MAX_N
from ilp_pyramid.puzzles.bel.strategies import CATALOGUE

# The grid of `ilp-pyramid bench` with no --n: every size a MIP solver answers in seconds.
DEFAULT_SIZES = (2, 3, 4)


def bench_cases(sizes: Sequence[int] | None = None) -> list[BenchCase]:
    """`solve N` for each size (default 2..4); InputError for a size outside 1..MAX_N."""
    sizes = list(DEFAULT_SIZES if sizes is None else sizes)
    for n in sizes:
        if not 1 <= n <= MAX_N:
            raise InputError(f"--n: size {n} is out of range 1..{MAX_N}")
    return [BenchCase(args=("solve", str(n)), params={"n": n}) for n in sizes]


def bench_fits(params: Mapping[str, Any], solver: str) -> bool:
    """Whether `solve` has this grid point for `solver`: a formulation exists for one family
    of solvers only (MIP formulations, CNF encodings), so the other skips it. InputError for
    a formulation, strategy or cardinality encoding Bel does not know."""

    _check_strategies(params.get("strategy"))
    card = params.get("card")
    if card is not None:
        from ilp_pyramid.puzzles.bel.cnf import CARD_ENCODINGS

        if card not in CARD_ENCODINGS:
            raise InputError(f"--grid card={card}: unknown cardinality encoding "
                             f"(choose from {', '.join(CARD_ENCODINGS)})")
    formulation = params.get("formulation")
    if formulation is None:
        return True
    from ilp_pyramid.puzzles.bel.cnf import ENCODINGS
    from ilp_pyramid.puzzles.bel.model import FORMULATIONS

    if formulation not in FORMULATIONS and formulation not in ENCODINGS:
        known = sorted(set(FORMULATIONS) | set(ENCODINGS))
        raise InputError(f"--grid formulation={formulation}: unknown formulation "
                         f"(known: {', '.join(known)})")
    forms = backends.forms_for(solver)
    return ("mip" in forms and formulation in FORMULATIONS) or \
        ("cnf" in forms and formulation in ENCODINGS)


def _check_strategies(value: str | None) -> None:
    if value is None:
        return

    names = [name for name in str(value).split("+") if name and name != "none"]
    unknown = [name for name in names if name not in CATALOGUE]
    if unknown:
        raise InputError(f"--grid strategy={value}: unknown strategy {unknown[0]!r} "
                         f"(see `ilp-pyramid strategies`)")
