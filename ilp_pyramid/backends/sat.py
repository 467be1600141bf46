"""SAT backends through python-sat, each solve in a child process that can be killed.

Some python-sat solvers cannot be interrupted in-process (cadical153 raises on interrupt,
kissat has no interrupt at all), so the time limit is kept from outside: the solve runs in a
forked child, the parent waits on a pipe for at most the limit and kills the child when the
limit passes. A killed or crashed child is reported as such, never as an answer.

Solver names are python-sat's; `kissat` and `cadical` are aliases for the newest of each.
`cpsat` (OR-Tools CP-SAT, optional: `pip install 'ilp-pyramid[cpsat]'`) solves the same
clauses as Boolean disjunctions, with its own time limit, seed and threads.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import random
import signal
import time
from collections.abc import Sequence

from ilp_pyramid.backends.base import (
    ERROR,
    INFEASIBLE,
    OPTIMAL,
    TIMEOUT,
    SolveOptions,
    SolveResult,
)
from ilp_pyramid.errors import SolverError

# python-sat's own names, roughly fastest first on Bel N=4 (measured: docs/sat.md).
SAT_SOLVERS = (
    "kissat404",
    "cadical300",
    "cadical195",
    "cadical153",
    "cadical103",
    "glucose4",
    "glucose42",
    "glucose3",
    "maplechrono",
    "maplecm",
    "maplesat",
    "mergesat3",
    "lingeling",
    "minisat22",
    "minisatep",
    "gluecard4",
    "minicard",
)
ALIASES = {"kissat": "kissat404", "cadical": "cadical300"}
CPSAT = "cpsat"
DEFAULT_SAT_SOLVER = "kissat"
# Time the child gets to notice it should stop before it is killed outright.
_KILL_GRACE = 0.5


def solver_names() -> list[str]:
    """Every accepted SAT solver name: aliases first, then python-sat's names, then cpsat."""
    names = list(ALIASES) + [name for name in SAT_SOLVERS if _available(name)]
    return names + [CPSAT] if _has_cpsat() else names


def is_sat_solver(name: str) -> bool:
    # cpsat counts even when OR-Tools is missing, so the user hears what to install.
    return name in ALIASES or name == CPSAT or (name in SAT_SOLVERS and _available(name))


def resolve(name: str) -> str:
    """python-sat's name for `name` (aliases resolved); SolverError if unknown."""
    real = ALIASES.get(name, name)
    if real == CPSAT:
        if not _has_cpsat():
            raise SolverError("solver cpsat needs OR-Tools: pip install 'ilp-pyramid[cpsat]'")
        return real
    if real not in SAT_SOLVERS or not _available(real):
        raise SolverError(f"unknown SAT solver {name!r} (choose from {', '.join(solver_names())})")
    return real


def _has_cpsat() -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec("ortools.sat.python.cp_model") is not None
    except ModuleNotFoundError:
        return False


def _available(name: str) -> bool:
    from pysat.solvers import SolverNames

    return hasattr(SolverNames, name)


def solve(clauses: Sequence[Sequence[int]], solver: str = DEFAULT_SAT_SOLVER,
          options: SolveOptions | None = None) -> SolveResult:
    """Solve CNF `clauses`; a model comes back as the list of literals (true > 0)."""
    options = options or SolveOptions()
    real = resolve(solver)
    if real == CPSAT:
        result = _solve_cpsat(clauses, options)
        result.solver = solver
        return result
    context = multiprocessing.get_context("fork")  # the child inherits the clauses, no copy
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(real, clauses, options, sender), daemon=True)
    start = time.perf_counter()
    child.start()
    sender.close()
    limit = options.time_limit
    try:
        ready = receiver.poll(None if limit is None else max(limit, 0.0))
        if not ready:
            return SolveResult(solver, TIMEOUT, time.perf_counter() - start,
                               message=f"no answer within {limit:g} s; solver stopped")
        try:
            outcome, payload = receiver.recv()
        except EOFError:
            child.join(_KILL_GRACE)
            return SolveResult(solver, ERROR, time.perf_counter() - start,
                               message=_death(child.exitcode))
    finally:
        _stop(child)
        receiver.close()
    seconds = time.perf_counter() - start
    if outcome == "sat":
        return SolveResult(solver, OPTIMAL, seconds, model=payload)
    if outcome == "unsat":
        return SolveResult(solver, INFEASIBLE, seconds)
    return SolveResult(solver, ERROR, seconds, message=str(payload))


def shuffled(clauses: Sequence[Sequence[int]], seed: int | None) -> Sequence[Sequence[int]]:
    """The clauses in a seeded random order (seed None or 0: as given).

    CDCL solvers are deterministic, so the order of the input is the one knob that turns a
    repeat into a new sample of their (heavy-tailed) run time; python-sat exposes no seed.
    """
    if not seed:
        return clauses
    rng = random.Random(seed)
    out = [list(clause) for clause in clauses]
    for clause in out:
        rng.shuffle(clause)
    rng.shuffle(out)
    return out


def _child(name: str, clauses, options: SolveOptions, sender) -> None:
    _die_with_parent()
    try:
        from pysat.solvers import Solver

        clauses = shuffled(clauses, options.seed)
        with Solver(name=name, bootstrap_with=clauses) as engine:
            found = engine.solve()
            if found:
                sender.send(("sat", engine.get_model()))
            elif found is False:
                sender.send(("unsat", None))
            else:
                sender.send(("error", "the solver gave no answer"))
    except Exception as exc:  # noqa: BLE001 - any failure goes back as one message
        sender.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        sender.close()
        os._exit(0)  # skip atexit handlers inherited from the parent (pytest, rich, ...)


# CP-SAT runs in a fresh interpreter: OR-Tools and highspy ship clashing HiGHS symbols and
# cannot live in one process (importing either after the other fails), and this process has
# highspy loaded through PuLP. The worker reads a JSON line of settings and DIMACS clauses on
# stdin and answers in the SAT competition format, read back by the certificate parser.
_CPSAT_WORKER = """
import json, sys
from ortools.sat.python import cp_model
settings = json.loads(sys.stdin.readline())
numbers = list(map(int, sys.stdin.read().split()))
model = cp_model.CpModel()
top = max((abs(v) for v in numbers), default=0)
var = [None] + [model.new_bool_var(f"v{i}") for i in range(1, top + 1)]
neg = [None] + [~v for v in var[1:]]
clause = []
for lit in numbers:
    if lit == 0:
        model.add_bool_or(clause)
        clause = []
    else:
        clause.append(var[lit] if lit > 0 else neg[-lit])
engine = cp_model.CpSolver()
for key, value in settings.items():
    setattr(engine.parameters, key, value)
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


def _solve_cpsat(clauses: Sequence[Sequence[int]], options: SolveOptions) -> SolveResult:
    import json
    import subprocess
    import sys

    from ilp_pyramid.errors import InputError
    from ilp_pyramid.formats.dimacs import (
        SATISFIABLE,
        UNSATISFIABLE,
        parse_certificate,
    )

    settings: dict = {"log_search_progress": bool(options.verbose)}
    limit = options.time_limit
    if limit is not None:
        settings["max_time_in_seconds"] = max(limit - 0.2, 0.01)
    if options.threads:
        settings["num_workers"] = int(options.threads)
    if options.seed is not None:
        settings["random_seed"] = int(options.seed)
    text = json.dumps(settings) + "\n" + "\n".join(
        " ".join(map(str, clause)) + " 0" for clause in clauses) + "\n"
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", _CPSAT_WORKER], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             preexec_fn=_die_with_parent)
    try:
        out, err = child.communicate(text.encode(), timeout=None if limit is None
                                     else limit + 5.0)  # CP-SAT keeps its own limit
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        return SolveResult(CPSAT, TIMEOUT, time.perf_counter() - start,
                           message=f"no answer within {limit:g} s; solver stopped")
    seconds = time.perf_counter() - start
    if child.returncode != 0:
        lines = err.decode(errors="replace").strip().splitlines()
        return SolveResult(CPSAT, ERROR, seconds,
                           message=lines[-1] if lines else _death(child.returncode))
    try:
        status, literals = parse_certificate(out.decode(errors="replace"))
    except InputError as exc:
        return SolveResult(CPSAT, ERROR, seconds, message=f"unreadable CP-SAT answer: {exc}")
    if status == SATISFIABLE:
        return SolveResult(CPSAT, OPTIMAL, seconds, model=literals)
    if status == UNSATISFIABLE:
        return SolveResult(CPSAT, INFEASIBLE, seconds)
    return SolveResult(CPSAT, TIMEOUT, seconds,
                       message=f"no answer within {limit:g} s" if limit else "no answer")


def _die_with_parent() -> None:
    """Ask Linux to kill this child if the parent dies, so no orphan solver keeps running."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass


def _stop(child) -> None:
    if child.is_alive():
        child.kill()
    child.join(_KILL_GRACE)


def _death(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        hint = " (out of memory?)" if name == "SIGKILL" else ""
        return f"the solver process was killed by {name}{hint}"
    return f"the solver process exited with code {exitcode} without an answer"
