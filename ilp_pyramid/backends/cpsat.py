"""OR-Tools CP-SAT as a backend of its own, with a native form: `BoolModel`.

`BoolModel` (forms.py, named here too) is a small neutral Boolean model, the constraints
CP-SAT takes directly: Boolean variables numbered 1..num_vars as in DIMACS, clauses,
exactly-one groups and linear constraints over literals. CNF clauses (`solve_clauses`, the
path `--solver cpsat` of the SAT models) are a BoolModel with clauses only; the exact-cover
form is lowered to one exactly-one group per item (`lowering.to_bool`), which CP-SAT
propagates natively instead of through a cardinality encoding.

CP-SAT runs in a fresh interpreter: OR-Tools and highspy ship clashing HiGHS symbols and
cannot live in one process (importing either after the other fails), and this process has
highspy loaded through PuLP. The worker reads the model as one JSON document on stdin and
answers in the SAT competition format (`s SATISFIABLE`, `v ...`), read back by the DIMACS
certificate reader. It runs in its own process group that dies with this process, and is
killed on SIGINT/SIGTERM (`errors.Interrupted` is raised).

OR-Tools is optional: `pip install 'ilp-pyramid[cpsat]'`; asking for cpsat without it is
bad input (exit 2) that names the extra.
"""

from __future__ import annotations

import importlib.util
import json
import os
import select
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from ilp_pyramid.backends import process
from ilp_pyramid.backends.base import Enumeration, Result, SolveOptions, Status
from ilp_pyramid.backends.forms import BoolModel
from ilp_pyramid.errors import InputError
from ilp_pyramid.extras import need  # here: the small SAT solves load this module
from ilp_pyramid.formats.dimacs import SATISFIABLE, UNSATISFIABLE, parse_certificate

if TYPE_CHECKING:
    from ilp_pyramid.backends.base import Solver
__all__ = ["BoolModel", "available", "enumerate_models", "require", "run", "settings",
           "solve_clauses", "solve_model"]

# Time CP-SAT gets beyond its own limit (interpreter and OR-Tools start) before it is killed.
_START_GRACE = 5.0
def available() -> bool:
    try:
        return importlib.util.find_spec("ortools.sat.python.cp_model") is not None
    except ModuleNotFoundError:
        return False


def run(form: object, what: str, solver: Solver, options: SolveOptions) -> Result:
    """The backend's door (`backends.solve`): a BoolModel, or CNF clauses."""
    if what == "bool":
        return solve_model(form, solver, options)  # type: ignore[arg-type]
    return solve_clauses(form.clauses if hasattr(form, "clauses") else form, solver, options)


def require() -> None:
    """InputError (exit 2) naming the extra to install when OR-Tools is missing."""

    need("ortools")


# The worker's first part, shared by a solve and an enumeration: the model from stdin.
_MODEL = """
import json, sys
from ortools.sat.python import cp_model
data = json.loads(sys.stdin.read())
model = cp_model.CpModel()
top = data["num_vars"]
var = [None] + [model.new_bool_var(f"v{i}") for i in range(1, top + 1)]
def lit(x):
    return var[x] if x > 0 else ~var[-x]
for clause in data["clauses"]:
    model.add_bool_or([lit(x) for x in clause])
for group in data["exactly_one"]:
    model.add_exactly_one([lit(x) for x in group])
for lits, coefs, relation, bound in data["linear"]:
    total = sum(c * lit(x) for x, c in zip(lits, coefs))
    if relation == "<=":
        model.add(total <= bound)
    elif relation == ">=":
        model.add(total >= bound)
    else:
        model.add(total == bound)
engine = cp_model.CpSolver()
for key, value in data["settings"].items():
    setattr(engine.parameters, key, value)
"""
_WORKER = _MODEL + """
status = engine.solve(model)
if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
    print("s SATISFIABLE")
    print("v " + " ".join(str(i if engine.boolean_value(var[i]) else -i)
                          for i in range(1, top + 1)) + " 0")
elif status == cp_model.INFEASIBLE:
    print("s UNSATISFIABLE")
elif status == cp_model.UNKNOWN:
    print("s UNKNOWN")
else:
    print("c error CP-SAT status " + engine.status_name(status))
"""
# Every solution, one line each as it is found ("m" and its true variables), then the final
# status ("s OPTIMAL": all found; "s INFEASIBLE": there is none).
_ENUMERATOR = _MODEL + """
class Lines(cp_model.CpSolverSolutionCallback):
    def on_solution_callback(self):
        sys.stdout.write("m " + " ".join(str(i) for i in range(1, top + 1)
                                         if self.boolean_value(var[i])) + "\\n")
        sys.stdout.flush()
status = engine.solve(model, Lines())
print("s " + engine.status_name(status), flush=True)
"""


def settings(options: SolveOptions) -> dict:
    """CP-SAT parameters from the common options (its own limit a little inside ours)."""
    out: dict = {"log_search_progress": bool(options.verbose)}
    if options.time_limit is not None:
        out["max_time_in_seconds"] = max(options.time_limit - 0.2, 0.01)
    if options.threads:
        out["num_workers"] = int(options.threads)
    if options.seed is not None:
        out["random_seed"] = int(options.seed)
    return out


def solve_clauses(clauses: Sequence[Sequence[int]], solver: Solver,
                  options: SolveOptions | None = None) -> Result:
    """CNF clauses as a BoolModel with clauses only."""
    return solve_model(_clauses_only(clauses), solver, options)


def _clauses_only(clauses: Sequence[Sequence[int]]) -> BoolModel:
    top = max((abs(lit) for clause in clauses for lit in clause), default=0)
    return BoolModel(num_vars=top, clauses=[list(c) for c in clauses])


def solve_model(model: BoolModel, solver: Solver, options: SolveOptions | None = None
                ) -> Result:
    """Solve `model`: the literals of a solution in `model`, values by name where named."""

    require()
    options = options or SolveOptions()
    text = json.dumps({"settings": settings(options), **model.to_json()})
    limit = options.time_limit
    start = time.perf_counter()
    child = process.start([sys.executable, "-c", _WORKER], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        with process.interruptible():
            out, err = child.communicate(text.encode(), timeout=None if limit is None
                                         else limit + _START_GRACE)
    except subprocess.TimeoutExpired:
        return Result(solver.name, Status.TIMEOUT, time.perf_counter() - start,
                      message=f"no answer within {limit:g} s; solver stopped")
    finally:
        process.stop(child)
    seconds = time.perf_counter() - start
    if child.returncode != 0:
        lines = err.decode(errors="replace").strip().splitlines()
        return Result(solver.name, Status.ERROR, seconds, message=lines[-1] if lines
                      else f"the CP-SAT process exited with code {child.returncode}")
    try:
        status, literals = parse_certificate(out.decode(errors="replace"))
    except InputError as exc:
        return Result(solver.name, Status.ERROR, seconds,
                      message=f"unreadable CP-SAT answer: {exc}")
    if status == SATISFIABLE:
        true = {lit for lit in literals if lit > 0}
        values = {name: float(var in true) for var, name in model.names.items()}
        return Result(solver.name, Status.SOLVED, seconds, model=literals, values=values)
    if status == UNSATISFIABLE:
        return Result(solver.name, Status.INFEASIBLE, seconds)
    return Result(solver.name, Status.TIMEOUT, seconds,
                  message=f"no answer within {limit:g} s" if limit else "no answer")


def enumerate_models(form: object, what: str, solver: Solver, options: SolveOptions,
                     projection: int, on_model: Callable[[list[int]], None],
                     antichain: bool = False) -> Enumeration:
    """Every solution of a BoolModel (or CNF clauses) by CP-SAT's own enumeration
    (`enumerate_all_solutions`, one worker: CP-SAT enumerates in a single thread only, and
    keeps every feasible solution through its presolve then), each line handed to
    `on_model` as it is printed (the door `backends.count_models`). CP-SAT tells solutions
    apart on every variable, so the projection must be all of them (`antichain` changes
    nothing here)."""
    require()
    model: BoolModel = form if what == "bool" else _clauses_only(  # type: ignore[assignment]
        form.clauses if hasattr(form, "clauses") else form)
    if projection != model.num_vars:
        raise InputError(f"CP-SAT enumerates whole assignments: project on all "
                         f"{model.num_vars} variables, not {projection}")
    params = {**settings(options), "enumerate_all_solutions": True, "num_workers": 1}
    text = json.dumps({"settings": params, **model.to_json()}).encode()
    limit = options.time_limit
    start = time.perf_counter()
    found, final = 0, None
    with tempfile.TemporaryFile() as errors:
        child = process.start([sys.executable, "-c", _ENUMERATOR], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=errors)
        try:
            with process.interruptible():
                child.stdin.write(text)  # the worker reads it whole before it starts
                child.stdin.close()
                for line in _lines(child.stdout.fileno(), start, limit):
                    if line is None:
                        return Enumeration(solver.name, Status.TIMEOUT, found,
                                           time.perf_counter() - start,
                                           message=f"stopped at the time limit of {limit:g} s")
                    if line.startswith(b"m"):
                        on_model([int(var) for var in line.split()[1:]])
                        found += 1
                    elif line.startswith(b"s "):
                        final = line[2:].decode(errors="replace").strip()
                child.wait()
        finally:
            process.stop(child)
        errors.seek(0)
        tail = errors.read().decode(errors="replace").strip().splitlines()
    seconds = time.perf_counter() - start
    if final in ("OPTIMAL", "INFEASIBLE"):
        return Enumeration(solver.name, Status.SOLVED, found, seconds)
    if final in ("FEASIBLE", "UNKNOWN"):  # CP-SAT's own limit, a little inside ours
        return Enumeration(solver.name, Status.TIMEOUT, found, seconds,
                           message=f"stopped at the time limit of {limit:g} s")
    return Enumeration(solver.name, Status.ERROR, found, seconds,
                       message=tail[-1] if tail else f"CP-SAT ended with status {final} "
                                                     f"(exit code {child.returncode})")


def _lines(fd: int, start: float, limit: float | None) -> Iterator[bytes | None]:
    """The lines a child writes to `fd` as they come, until it closes it; None (and no more)
    once `limit` seconds from `start` have passed."""
    pending = b""
    while True:
        left = None if limit is None else limit - (time.perf_counter() - start)
        if left is not None and left <= 0:
            yield None
            return
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            if pending:
                yield pending
            return
        *lines, pending = (pending + chunk).split(b"\n")
        yield from lines
