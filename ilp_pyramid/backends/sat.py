"""SAT backends through python-sat, each solve in a child process that can be killed.

Some python-sat solvers cannot be interrupted in-process (cadical153 raises on interrupt,
kissat has no interrupt at all), so the time limit is kept from outside: the solve runs in a
forked child, the parent waits on a pipe for at most the limit and kills the child when the
limit passes. A killed or crashed child is reported as such, never as an answer. A small
formula (IN_PROCESS_CLAUSES) is solved in this process instead, in conflict-budget slices
between which the time limit and signals are kept: the child would cost more than the solve.

Solver names are python-sat's; `kissat` and `cadical` are aliases for the newest of each.
`cpsat` is accepted here too: the clauses go to the CP-SAT backend (`backends/cpsat.py`).
SIGINT/SIGTERM while waiting kill the child and raise `errors.Interrupted`.

`solve_in_process` is the door for many small, fast solves (the LNS repairs): python-sat in
this process, with assumptions and initial phases, no child and no time limit.
"""

from __future__ import annotations

import os
import random
import signal
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ilp_pyramid.backends import linear, process, solvers
from ilp_pyramid.backends.base import Result, SolveOptions, Status
from ilp_pyramid.errors import Interrupted, SolverError

if TYPE_CHECKING:
    from ilp_pyramid.backends.solvers import Solver

# The SAT lines of the one solver table (solvers.py): python-sat's names, and the aliases.
SAT_SOLVERS = tuple(solvers.names("sat", aliases=False))
ALIASES = solvers.ALIASES
CPSAT = "cpsat"  # takes CNF too, in its own backend (cpsat.py)
DEFAULT_SAT_SOLVER = "kissat"
# Formulas up to this many clauses are solved in this process (`_solve_here`): a child
# process (fork, pipe, the model sent back) costs 20-45 ms, more than such a solve (Bel N=2,
# 1,178 clauses: 5 ms in CaDiCaL 3). Larger ones keep the child, which also holds their
# memory apart.
IN_PROCESS_CLAUSES = 5_000
# No conflict budget to slice a solve with (Kissat: one solve per solver): always a child.
_NO_BUDGET = ("kissat", "cadical153", "cadical103", "lingeling")
# The python-sat solvers whose own random seed it can set (`configure`).
_SEEDED = ("cadical153", "cadical195", "cadical300")


def solver_names() -> list[str]:
    """Every installed solver that takes CNF: the SAT aliases and names, then cpsat."""
    return solvers.names("sat", "cp", installed=True)


def resolve(name: str) -> str:
    """python-sat's name for a SAT solver (aliases resolved), or "cpsat"; InputError for a
    name the table does not have, SolverError for one that takes no CNF or is not here."""
    entry = solvers.solver(name)
    if entry.family == "cp":
        entry.require()
        return CPSAT
    if entry.family != "sat" or not entry.installed:
        raise SolverError(f"unknown SAT solver {name!r} (choose from {', '.join(solver_names())})")
    return entry.plugin


def run(form: object, what: str, solver: Solver, options: SolveOptions) -> Result:
    """The solver table's door (`Solver.solve`): CNF clauses or a pysat CNF; a weighted CNF
    goes to the linear search for its optimum (linear.py)."""
    if what == "wcnf":
        return linear.solve(shuffled(form.hard, options.seed), form.soft, form.wght, solver,
                            options)
    clauses = form.clauses if hasattr(form, "clauses") else form
    return solve(clauses, solver.name, options)


def solve(clauses: Sequence[Sequence[int]], solver: str = DEFAULT_SAT_SOLVER,
          options: SolveOptions | None = None) -> Result:
    """Solve CNF `clauses`; a model comes back as the list of literals (true > 0)."""
    options = options or SolveOptions()
    real = resolve(solver)
    if real == CPSAT:
        from ilp_pyramid.backends import cpsat

        return cpsat.solve_clauses(clauses, options)
    if len(clauses) <= IN_PROCESS_CLAUSES and not real.startswith(_NO_BUDGET):
        return _solve_here(clauses, solver, real, options)
    import pysat.solvers  # noqa: F401 - imported here, not in the child (see _child)

    with process.forked(_child, (real, clauses, options)) as child:
        answer = child.answer(options)
        if answer is None:
            return Result(solver, Status.TIMEOUT, child.seconds(),
                          message=f"no answer within {options.time_limit:g} s; solver stopped")
        outcome, payload = answer
        if outcome == process.ENDED:
            return Result(solver, Status.ERROR, child.seconds(), message=_death(payload))
    seconds = child.seconds()
    if outcome == "sat":
        return Result(solver, Status.SOLVED, seconds, model=payload)
    if outcome == "unsat":
        return Result(solver, Status.INFEASIBLE, seconds)
    return Result(solver, Status.ERROR, seconds, message=str(payload))


def _solve_here(clauses: Sequence[Sequence[int]], solver: str, real: str,
                options: SolveOptions) -> Result:
    """A small formula in this process, in conflict-budget slices (SatSession, one shot):
    the time limit and SIGINT/SIGTERM hold between slices as they do around a child."""
    with SatSession(shuffled(clauses, options.seed), real, one_shot=True,
                    seed=options.seed) as session:
        found = session.solve(time_limit=options.time_limit, progress=options.progress)
    return Result(solver, found.status, found.seconds, model=found.model,
                  message=found.message)


def solve_in_process(clauses: Sequence[Sequence[int]], solver: str = DEFAULT_SAT_SOLVER,
                     assumptions: Sequence[int] = (),
                     phases: Sequence[int] | None = None) -> Result:
    """Solve in this process: for many small solves, where a child would cost more.

    `assumptions` are literals held true for this call only (Kissat, which takes none, gets
    them as unit clauses); `phases` are literals whose polarity the solver tries first
    (python-sat's `set_phases`; Kissat has none and ignores them). No time limit and no stop
    but Ctrl-C between solves: keep it to fast instances. An assumption that cannot hold
    makes the answer `infeasible`.
    """
    from pysat.solvers import Solver

    real = resolve(solver)
    if real == CPSAT:
        raise SolverError("cpsat has no in-process door; use backends.solve")
    start = time.perf_counter()
    with Solver(name=real, bootstrap_with=clauses) as engine:
        if phases and not real.startswith("kissat"):  # kissat has no phase interface
            engine.set_phases(list(phases))
        if real.startswith("kissat"):
            # Kissat takes no assumptions; on a solver used once, unit clauses are the same.
            for lit in assumptions:
                engine.add_clause([lit])
            found = engine.solve()
        else:
            found = engine.solve(assumptions=list(assumptions))
        model = engine.get_model() if found else None
    seconds = time.perf_counter() - start
    if found:
        return Result(solver, Status.SOLVED, seconds, model=model)
    if found is False:
        return Result(solver, Status.INFEASIBLE, seconds)
    return Result(solver, Status.ERROR, seconds, message="the solver gave no answer")


def shuffled(clauses: Sequence[Sequence[int]], seed: int | None) -> Sequence[Sequence[int]]:
    """The clauses in a seeded random order (seed None or 0: as given).

    CDCL solvers are deterministic, so the order of the input is the knob that turns a
    repeat into a new sample of their (heavy-tailed) run time; of python-sat's solvers only
    CaDiCaL takes a random seed of its own as well (seeded_engine), Kissat none.
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
    # Forked from a process that may run other threads (the CLI's signal watchdog, a live
    # status line, a solver's pool): the child takes no lock one of them might have held at
    # the fork. It imports nothing new, loads no library, writes nothing to stdout or
    # stderr, and answers on its own pipe.
    process.die_with_parent()
    try:
        from pysat.solvers import Solver

        clauses = shuffled(clauses, options.seed)
        with seeded_engine(Solver, name, clauses, options.seed) as engine:
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


def seeded_engine(make: Callable, name: str, clauses: Sequence[Sequence[int]],
                  seed: int | None):
    """python-sat's solver `name` (made by `make`, its Solver) holding `clauses`; CaDiCaL
    with its own random seed set first (its `seed` option, which CaDiCaL takes only before
    any clause). Seed None or 0: the solver's default."""
    if not seed or not name.startswith(_SEEDED):
        return make(name=name, bootstrap_with=clauses)
    engine = make(name=name)
    engine.configure({"seed": int(seed)})
    engine.append_formula(clauses)
    return engine


def _death(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        hint = " (out of memory?)" if name == "SIGKILL" else ""
        return f"the solver process was killed by {name}{hint}"
    return f"the solver process exited with code {exitcode} without an answer"



class SatSession:
    """One incremental solver kept across many solves: assumptions, a time limit, phases.

    Learnt clauses carry over from one `solve` to the next, which is the point of keeping the
    solver (many related solves under different assumptions). python-sat's CaDiCaL 1.9.5
    holds the GIL while it searches and ignores `expect_interrupt`, so a solve runs as a
    series of short slices (a conflict budget each): between two slices the clock is read
    and, in the main thread, SIGINT/SIGTERM raise `errors.Interrupted`. Only solvers with a
    conflict budget are accepted (CaDiCaL 1.9.5, Glucose, MiniSat, ...).

    The slices grow by a fixed schedule of conflicts (_FIRST_SLICE, doubled up to
    _MAX_SLICE), never by the clock: each slice ends the solver's search and the next one
    restarts it, so slices sized to the machine's speed made the same seed give another
    model on another run (`solve 5 --seed 0` printed a different solution each time).
    _MAX_SLICE keeps a slice well under a second on the package's largest formulas.
    """

    _FIRST_SLICE = 250
    _MAX_SLICE = 4000

    def __init__(self, clauses: Sequence[Sequence[int]], solver: str = "cadical195", *,
                 one_shot: bool = False, seed: int | None = None):
        from pysat.solvers import Solver

        real = resolve(solver)
        # `one_shot`: one solve without assumptions or phases, where CaDiCaL 3's conflict
        # budget holds too (tests/test_backend_sat_session.py times it out). Kissat solves
        # once and aborts the process when asked again: never sliced.
        refused = _NO_BUDGET if one_shot else (*_NO_BUDGET, "cadical300")
        if real == CPSAT or real.startswith(refused):
            raise SolverError(f"{solver!r} takes no conflict budget; use cadical195")
        self.name = real
        self._engine = seeded_engine(Solver, real, clauses, seed)

    def add_clause(self, clause: Sequence[int]) -> None:
        self._engine.add_clause(list(clause))

    def solve(self, assumptions: Sequence[int] = (), time_limit: float | None = None,
              phases: Sequence[int] | None = None,
              progress: Callable[[dict], None] | None = None,
              clock: Callable[[], float] = time.perf_counter) -> Result:
        """Satisfiable under `assumptions`? `phases`: literals whose polarity is tried first.

        `infeasible` means no model with these assumptions; `timeout` that the limit passed,
        read on `clock` (wall time by default; `time.thread_time` makes it this thread's CPU
        time, the same work on a loaded machine as on an idle one).
        `progress` is called between slices, about once a second, as `SolveOptions.progress`.
        """
        from pysat.solvers import pysolvers

        engine = self._engine
        if phases:
            engine.set_phases(list(phases))
        assumed = list(assumptions)
        budget = self._FIRST_SLICE
        start = reported = time.perf_counter()
        spent_from = clock()
        found = None
        with process.interruptible():
            while found is None:
                if time_limit is not None and clock() - spent_from >= time_limit:
                    return Result(self.name, Status.TIMEOUT, time.perf_counter() - start,
                                  message=f"no answer within {time_limit:g} s")
                began = time.perf_counter()
                if progress is not None and began - reported >= process.PROGRESS_EVERY:
                    progress({"elapsed": began - start})
                    reported = began
                engine.conf_budget(budget)
                try:
                    found = engine.solve_limited(assumptions=assumed)
                except pysolvers.error as exc:
                    # in the main thread python-sat catches SIGINT itself and raises this
                    if "interrupt" not in str(exc):
                        raise
                    process.last_signal = signal.SIGINT
                    raise Interrupted(signal.SIGINT) from None
                budget = min(2 * budget, self._MAX_SLICE)
        seconds = time.perf_counter() - start
        if found:
            return Result(self.name, Status.SOLVED, seconds, model=engine.get_model())
        return Result(self.name, Status.INFEASIBLE, seconds)

    def propagate(self, assumptions: Sequence[int]) -> tuple[bool, int]:
        """Unit propagation alone under `assumptions`: (no conflict, literals implied).

        A lookahead's probe: a literal whose propagation fails is refuted without search.
        """
        consistent, implied = self._engine.propagate(assumptions=list(assumptions))
        return bool(consistent), len(implied)

    def close(self) -> None:
        self._engine.delete()

    def __enter__(self) -> SatSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
