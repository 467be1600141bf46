"""Backends behind one interface. `kind(name)` tells which model form a solver takes."""

from __future__ import annotations

# highspy before PuLP: PuLP imports it under a bare `except:`, so a Ctrl-C during that import
# would be swallowed and HiGHS reported "Not Available" instead of the run stopping.
import highspy  # noqa: F401

from ilp_pyramid.backends.mip import MIP_SOLVERS


def kind(solver: str) -> str:
    """'mip' or 'sat' for a known solver name; ValueError otherwise."""
    if solver in MIP_SOLVERS:
        return "mip"
    try:
        from ilp_pyramid.backends import sat
    except ImportError:  # pragma: no cover - sat backend is part of the package
        sat = None
    if sat is not None and sat.is_sat_solver(solver):
        return "sat"
    raise ValueError(f"unknown solver {solver!r} (try: {', '.join(all_solvers())})")


def all_solvers() -> list[str]:
    names = list(MIP_SOLVERS)
    try:
        from ilp_pyramid.backends import sat

        names += sat.solver_names()
    except ImportError:  # pragma: no cover
        pass
    return names
