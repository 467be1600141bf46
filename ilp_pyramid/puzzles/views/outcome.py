"""What the views puzzle adds to the one solve path (`protocol.solve`), as plain functions.

- `lower_bound`, `missing_pixels`: the spec's bound, and why views are unsolvable;
- `after`: the puzzle's `after` hook, the cross-check with the exact branch and bound
  (`engine.py`). No answer is called optimal unless the solver proved it (a MIP solver on
  the MIP, a MaxSAT solver on the weighted CNF) or the branch and bound reached the same
  count; an unproved MIP optimum the branch and bound settles is taken over, and the two
  exact methods disagreeing is an error, never an answer;
- `json_keys`, `summary`: the keys of `views solve --json` and the text under the picture.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ilp_pyramid.backends.base import Status
from ilp_pyramid.errors import SolverError
from ilp_pyramid.puzzles.views.geometry import (
    EXACT_MAX_N,
    Views,
    bits_hex,
    layer_rows,
    maximal_placement,
    picture,
    placement_bits,
    projections,
)
from ilp_pyramid.verify.views import verify_answer

if TYPE_CHECKING:
    from ilp_pyramid.protocol import Result

# The detail of views no placement shows (--json "reason"); the status is "infeasible".
UNSOLVABLE_REASON = "unsolvable views"
CHECK_NODE_LIMIT = 500_000  # the cross-check gives up (and says so) beyond this
MIP, MAXSAT, BNB = "mip", "maxsat", "branch and bound"  # what proved an optimum ("proved_by")
# The solver's own proof, by the form it solved.
PROVER = {"mip": MIP, "wcnf": MAXSAT}


def lower_bound(views: Views) -> int:
    """The spec's bound: each cube shows at most one pixel of each view."""
    return int(max(views.top.sum(), views.front.sum(), views.side.sum()))


def missing_pixels(views: Views) -> list[str]:
    """Set pixels that no cell can show (the largest placement misses them)."""
    shown = projections(maximal_placement(views))
    out = []
    for name in ("top", "front", "side"):
        lack = getattr(views, name) & ~getattr(shown, name)
        out += [f"{name} row {r} column {c}" for r, c in zip(*np.nonzero(lack), strict=True)]
    return out


def after(views: Views, result: Result, check: bool = True) -> Result:
    """The verified MIP answer cross-checked by the branch and bound (always when the MIP
    did not prove its optimum, else when `check`). Its verdict goes to `result.keys`:
    "proved_by" and "check", which `json_keys` reports. SolverError when the two exact
    methods disagree."""
    result.keys = {"proved_by": None, "check": None}
    if result.status is Status.INFEASIBLE and views.solvable():
        # The views are solvable (a placement shows them): "infeasible" is a solver failure.
        result.status, result.detail = Status.ERROR, \
            f"the solver answered infeasible ({result.detail})" if result.detail else \
            "the solver answered infeasible"
        return result
    if result.solution is None:
        return result
    proved_by = PROVER.get(result.form, MIP) if result.status is Status.SOLVED else ""
    if check or not proved_by:
        proved_by = _cross_check(views, result, proved_by)
    result.keys["proved_by"] = proved_by or None
    if not proved_by:
        result.status = Status.TIMEOUT
        result.detail = (f"best found {int(result.solution.sum())} cubes, optimality not "
                         f"proved within the time limit")
        result.solution = None  # an unproved count is no answer
        return result
    result.status, result.detail = Status.SOLVED, ""
    return result


def _cross_check(views: Views, result: Result, proved_by: str) -> str:
    """Second exact method: the branch and bound must reach the same count. Returns what
    proved the optimum ("" if nothing did); takes over its cubes when they are fewer than an
    unproved MIP's."""
    if views.n > EXACT_MAX_N:
        result.keys["check"] = f"no branch and bound beyond n = {EXACT_MAX_N} (not checked)"
        return proved_by
    from ilp_pyramid.puzzles.views.engine import solve_fast

    fast = solve_fast(views, CHECK_NODE_LIMIT)
    if not fast.proved:
        result.keys["check"] = f"branch and bound stopped after {fast.nodes} nodes (not checked)"
        return proved_by
    mine = int(result.solution.sum())
    solver = "MaxSAT" if result.form == "wcnf" else "MIP"
    if proved_by and fast.cubes != mine:
        raise SolverError(f"the {solver} proved {mine} cubes but the branch and bound proved "
                          f"{fast.cubes}: one of them is wrong")
    if fast.cubes > mine:
        raise SolverError(f"the branch and bound proved {fast.cubes} cubes but the {solver} "
                          f"found a verified {mine}: the branch and bound is wrong")
    result.keys["check"] = f"branch and bound proves {fast.cubes} cubes ({fast.nodes} nodes)"
    if proved_by:
        return proved_by
    if fast.cubes < mine:
        # The MIP stopped early on a worse cover; the proved one is the answer.
        if not verify_answer(views.bits(), placement_bits(fast.placement)).valid:
            raise SolverError("the branch and bound's cubes fail the re-projection")
        result.solution = fast.placement
    return BNB


def json_keys(views: Views, result: Result) -> dict[str, Any]:
    """The keys of `views solve --json` beside the common ones (puzzle, status, solver, form,
    seconds, detail): the answer when solved (cubes, bits, hex, layers; else None), the
    input, why unsolvable views are (reason, missing), what proved the optimum, the bound,
    the model's size and times; "seed" for a battery puzzle."""
    solution = result.solution if result.status is Status.SOLVED else None
    bits = placement_bits(solution) if solution is not None else None
    unsolvable = not views.solvable()
    backend = result.backend.message if result.backend is not None else ""
    keys = {
        "solvable": not unsolvable,
        "cubes": int(solution.sum()) if solution is not None else None,
        "bits": bits,
        "hex": bits_hex(bits) if bits is not None else None,
        "layers": layer_rows(solution) if solution is not None else None,
        "n": views.n,
        "input": views.hex() or views.bits(),
        "status": str(result.status),
        "reason": UNSOLVABLE_REASON if unsolvable else None,
        "missing": missing_pixels(views) if unsolvable else None,  # the pixels no cell shows
        "solver": result.solver,
        "proved_by": result.keys.get("proved_by"),
        "check": result.keys.get("check"),
        "lower_bound": lower_bound(views),
        "variables": result.variables,
        "constraints": result.constraints,
        "build_seconds": round(result.build_seconds, 4),
        "solve_seconds": round(result.solve_seconds, 4),
        "message": "" if unsolvable else result.detail or backend,
    }
    if views.number is not None:
        keys["seed"] = f"{views.number:06}"
    return keys


def summary(views: Views, result: Result) -> str:
    """The text under the picture: the model and how the optimum was proved; without a
    solution (no picture then), the views and why there is no answer."""
    lines = [] if result.solution is not None else picture(views)
    if not views.solvable():
        return "\n".join([*lines, f"unsolvable: no cell can show "
                                  f"{', '.join(missing_pixels(views))}"]) + "\n"
    lines.append(f"model: {result.variables} variables, {result.constraints} constraints; "
                 f"build {result.build_seconds:.3f} s, solve {result.solve_seconds:.3f} s "
                 f"({result.solver})")
    if result.keys.get("check"):
        lines.append(f"check: {result.keys['check']}")
    if result.status is Status.TIMEOUT:
        lines.append(f"timeout: {result.detail or 'no solution within the time limit'}")
    elif result.status is not Status.SOLVED:
        lines.append(f"{result.status}: the solver failed {result.detail}".rstrip())
    else:
        prover = {MIP: f"the MIP ({result.solver})", MAXSAT: f"MaxSAT ({result.solver})"}.get(
            result.keys.get("proved_by"), BNB)
        lines.append(f"verified: the {int(result.solution.sum())} cubes show exactly the "
                     f"three views; optimal, proved by {prover}")
    return "\n".join(lines) + "\n"
