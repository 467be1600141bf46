"""SAT backends through python-sat, each solve in a child process that can be killed.

Some python-sat solvers cannot be interrupted in-process (cadical153 raises on interrupt,
kissat has no interrupt at all), so the time limit is kept from outside: the solve runs in a
forked child (`process.solve_forked`), the parent waits on a pipe for at most the limit and
kills the child when the limit passes. A killed or crashed child is reported as such, never
as an answer. A small formula (IN_PROCESS_CLAUSES) on a solver whose line has a conflict
`budget` is solved in this process instead, in conflict-budget slices between which the time
limit and signals are kept: the child would cost more than the solve.

Every function here takes a `Solver` (base.py) of a python-sat line (its `plugin` is
python-sat's name), never a name: `backends.solve` resolves names, and sends CNF for cpsat
to its own backend. What a solver can do (a budget, assumptions, phases, more than one solve
per object) is read from its line. SIGINT/SIGTERM while waiting kill the child and raise
`errors.Interrupted`.

`solve_in_process` is the door for many small, fast solves (the LNS repairs): python-sat in
this process, with assumptions and initial phases, no child and no time limit.
"""

from __future__ import annotations

import random
import signal
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ilp_pyramid.backends import linear, process
from ilp_pyramid.backends.base import Enumeration, Result, SolveOptions, Status
from ilp_pyramid.errors import Interrupted, SolverError

if TYPE_CHECKING:
    from ilp_pyramid.backends.base import Solver

# Formulas up to this many clauses are solved in this process (`_solve_here`): a child
# process (fork, pipe, the model sent back) costs more than such a solve (Bel N=2 has 1,178
# clauses). Larger ones keep the child, which also holds their memory apart.
IN_PROCESS_CLAUSES = 5_000


def check(solver: Solver) -> Solver:
    """`solver`, if it is a line of this backend (python-sat's); SolverError otherwise."""
    if solver.backend != __name__:
        raise SolverError(f"{solver.name!r} is no python-sat solver")
    return solver


def run(form: object, what: str, solver: Solver, options: SolveOptions) -> Result:
    """The backend's door (`backends.solve`): CNF clauses or a pysat CNF; a weighted CNF
    goes to the linear search for its optimum (linear.py)."""
    if what == "wcnf":
        return linear.solve(shuffled(form.hard, options.seed), form.soft, form.wght, solver,
                            options)
    clauses = form.clauses if hasattr(form, "clauses") else form
    return solve(clauses, solver, options)


def solve(clauses: Sequence[Sequence[int]], solver: Solver,
          options: SolveOptions | None = None) -> Result:
    """Solve CNF `clauses`; a model comes back as the list of literals (true > 0)."""
    options = options or SolveOptions()
    check(solver)
    if len(clauses) <= IN_PROCESS_CLAUSES and solver.budget:
        return _solve_here(clauses, solver, options)
    import pysat.solvers  # noqa: F401 - imported here, not in the child (process._child_main)

    return process.solve_forked(_search, (solver, clauses, options.seed), solver.name, options)


def _search(solver: Solver, clauses: Sequence[Sequence[int]], seed: int | None,
            send: Callable[[tuple], None]) -> None:
    # The forked child's work: one solve, one answer.
    from pysat.solvers import Solver as Engine

    with seeded_engine(Engine, solver, shuffled(clauses, seed), seed) as engine:
        found = engine.solve()
        if found:
            send((process.SOLVED, (engine.get_model(), None)))
        elif found is False:
            send((process.UNSAT, None))
        else:
            send((process.ERROR, "the solver gave no answer"))


# A child sends the models it found in batches, at least this often (seconds) or when a
# batch is this large: one pipe message per model would cost more than a small solve.
_BATCH_SECONDS = 0.2
_BATCH_MODELS = 256


def enumerate_models(form: object, what: str, solver: Solver, options: SolveOptions,
                     projection: int, on_model: Callable[[list[int]], None],
                     antichain: bool = False) -> Enumeration:
    """Every model of CNF `form`, each distinct on the variables 1..`projection` (the door
    `backends.count_models`): one incremental solver in a forked child, each model blocked by a
    clause before the next solve, until none is left. The parent hands each model to
    `on_model` and keeps the time limit and signals (the child is killed)."""

    check(solver)
    clauses = form.clauses if hasattr(form, "clauses") else form
    import pysat.solvers  # noqa: F401 - imported here, not in the child (process._child_main)

    found = 0
    args = (solver, clauses, projection, antichain, options.seed)
    with process.forked(_enumerate, args) as child:
        while True:
            answer = child.answer(options)
            if answer is None:
                return Enumeration(solver.name, Status.TIMEOUT, found, child.seconds(),
                                   message=f"stopped at the time limit of "
                                           f"{options.time_limit:g} s")
            outcome, payload = answer
            if outcome == process.MODEL:
                for model in payload:
                    on_model(model)
                    found += 1
            elif outcome == process.SOLVED:
                return Enumeration(solver.name, Status.SOLVED, found, child.seconds())
            elif outcome == process.ENDED:
                return Enumeration(solver.name, Status.ERROR, found, child.seconds(),
                                   message=process.death(payload))
            else:
                return Enumeration(solver.name, Status.ERROR, found, child.seconds(),
                                   message=str(payload))


def _enumerate(solver: Solver, clauses: Sequence[Sequence[int]], projection: int,
               antichain: bool, seed: int | None, send: Callable[[tuple], None]) -> None:
    # The forked child's work: solve, send the model's true projection variables, block the
    # model, solve again; SOLVED once no model is left.
    from pysat.solvers import Solver as Engine

    batch: list[list[int]] = []
    sent = time.monotonic()
    with seeded_engine(Engine, solver, shuffled(clauses, seed), seed) as engine:
        while engine.solve():
            model = [lit for lit in engine.get_model() if abs(lit) <= projection]
            true = [lit for lit in model if lit > 0]
            batch.append(true)
            engine.add_clause([-lit for lit in (true if antichain else model)])
            if len(batch) >= _BATCH_MODELS or time.monotonic() - sent >= _BATCH_SECONDS:
                send((process.MODEL, batch))
                batch, sent = [], time.monotonic()
    if batch:
        send((process.MODEL, batch))
    send((process.SOLVED, None))


def _solve_here(clauses: Sequence[Sequence[int]], solver: Solver, options: SolveOptions
                ) -> Result:
    """A small formula in this process, in conflict-budget slices (SatSession, one shot):
    the time limit and SIGINT/SIGTERM hold between slices as they do around a child."""
    with SatSession(shuffled(clauses, options.seed), solver, one_shot=True,
                    seed=options.seed) as session:
        found = session.solve(time_limit=options.time_limit, progress=options.progress)
    return Result(solver.name, found.status, found.seconds, model=found.model,
                  message=found.message)


def solve_in_process(clauses: Sequence[Sequence[int]], solver: Solver,
                     assumptions: Sequence[int] = (),
                     phases: Sequence[int] | None = None) -> Result:
    """Solve in this process: for many small solves, where a child would cost more.

    `assumptions` are literals held true for this call only (a solver whose line takes none,
    as Kissat's, gets them as unit clauses); `phases` are literals whose polarity the solver
    tries first (python-sat's `set_phases`; ignored by a solver whose line takes none). No
    time limit and no stop but Ctrl-C between solves: keep it to fast instances. An
    assumption that cannot hold makes the answer `infeasible`.
    """
    from pysat.solvers import Solver

    check(solver)
    start = time.perf_counter()
    with Solver(name=solver.plugin, bootstrap_with=clauses) as engine:
        if phases and solver.phases:
            engine.set_phases(list(phases))
        if not solver.assumptions:
            # On a solver used once, unit clauses are the same as assumptions.
            for lit in assumptions:
                engine.add_clause([lit])
            found = engine.solve()
        else:
            found = engine.solve(assumptions=list(assumptions))
        model = engine.get_model() if found else None
    seconds = time.perf_counter() - start
    if found:
        return Result(solver.name, Status.SOLVED, seconds, model=model)
    if found is False:
        return Result(solver.name, Status.INFEASIBLE, seconds)
    return Result(solver.name, Status.ERROR, seconds, message="the solver gave no answer")


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


def seeded_engine(make: Callable, solver: Solver, clauses: Sequence[Sequence[int]],
                  seed: int | None):
    """python-sat's engine for the line `solver` (made by `make`, python-sat's Solver)
    holding `clauses`; a line that takes a seed of its own (CaDiCaL: `seeds`) gets it first,
    through its `seed` option, which CaDiCaL takes only before any clause. Seed None or 0:
    the solver's default."""
    if not seed or not solver.seeds:
        return make(name=solver.plugin, bootstrap_with=clauses)
    engine = make(name=solver.plugin)
    engine.configure({"seed": int(seed)})
    engine.append_formula(clauses)
    return engine


class SatSession:
    """One incremental solver kept across many solves: assumptions, a time limit, phases.

    Learnt clauses carry over from one `solve` to the next, which is the point of keeping the
    solver (many related solves under different assumptions). python-sat's CaDiCaL 1.9.5
    holds the GIL while it searches and ignores `expect_interrupt`, so a solve runs as a
    series of short slices (a conflict budget each): between two slices the clock is read
    and, in the main thread, SIGINT/SIGTERM raise `errors.Interrupted`. Only solvers with a
    conflict budget are accepted: the line's `sessions` (CaDiCaL 1.9.5, Glucose, MiniSat,
    ...), or its `budget` for a `one_shot` session.

    The slices grow by a fixed schedule of conflicts (_FIRST_SLICE, doubled up to
    _MAX_SLICE), never by the clock: each slice ends the solver's search and the next one
    restarts it, so slices sized to the machine's speed made the same seed give another
    model on another run (`solve 5 --seed 0` printed a different solution each time).
    _MAX_SLICE keeps a slice well under a second on the package's largest formulas.
    """

    _FIRST_SLICE = 250
    _MAX_SLICE = 4000

    def __init__(self, clauses: Sequence[Sequence[int]], solver: Solver, *,
                 one_shot: bool = False, seed: int | None = None):
        from pysat.solvers import Solver

        check(solver)
        # `one_shot`: one solve without assumptions or phases, where CaDiCaL 3's conflict
        # budget holds too (tests/test_backend_sat_session.py times it out). Kissat solves
        # once and aborts the process when asked again: never sliced.
        if not (solver.budget if one_shot else solver.sessions):
            raise SolverError(f"{solver.name!r} takes no conflict budget; use cadical195")
        self.name = solver.name
        self._engine = seeded_engine(Solver, solver, clauses, seed)

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

    def core(self) -> list[int]:
        """After an `infeasible` solve: the assumptions that already make it so (a subset,
        not necessarily the smallest), the negation of which is a clause the formula implies."""
        return list(self._engine.get_core() or [])

    def close(self) -> None:
        self._engine.delete()

    def __enter__(self) -> SatSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
