"""Outside solvers: any program that reads a CNF, a weighted CNF or an MPS file.

The backend of a solver line made at run time from `NAME=FORMAT:COMMAND` (`outside.py`:
`--solver-command`, or `ilp_pyramid.register_solver`) and registered in the one solver table,
so that `solve`, `bench` and `ilp_pyramid.solve` take it like any other:

| FORMAT | the file `{file}`             | the answer read back                              |
|--------|-------------------------------|---------------------------------------------------|
| cnf    | DIMACS CNF                    | stdout, the SAT Competition's (`s`, `v` lines)     |
| wcnf   | the MaxSAT Evaluation's WCNF  | stdout, the MaxSAT Evaluation's (`o`, `s`, `v`)    |
| mps    | MPS (PuLP's, names renamed)   | the file `{solution}`: MIPLIB's `.sol` (`=obj=`,   |
|        |                               | `name value`), `glpsol -w`'s, or the `cbc` binary's |

The child runs as runsolver runs a solver: in its own process group (dying with this
process), the time limit kept by SIGTERM to the group and, TERM_GRACE seconds later, SIGKILL;
SIGINT/SIGTERM to this process kill the group and raise `errors.Interrupted`; nothing of the
group outlives the run. Its wall and CPU seconds (rusage, wait4) and peak memory go in
`Result.usage`. An answer is decoded by the puzzle and checked by the independent checker
like every built-in one (`protocol.solve`); an answer that cannot be read is `error` with its
reason, never a solution.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ilp_pyramid.backends import process
from ilp_pyramid.backends.base import Result, SolveOptions, Solver, Status
from ilp_pyramid.errors import InputError
from ilp_pyramid.formats import dimacs
from ilp_pyramid.formats.fileio import input_limit, read_bytes
from ilp_pyramid.formats.mipfile import read_mip_values
from ilp_pyramid.formats.wcnf import wcnf_text

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pulp


# FORMAT -> (the family whose records it joins, the model form it takes natively)
FORMATS = {"cnf": ("sat", "cnf"), "wcnf": ("maxsat", "wcnf"), "mps": ("mip", "mip")}
PLACEHOLDERS = ("{file}", "{solution}")
# How long a child gets between SIGTERM (the time limit) and SIGKILL: runsolver's way, so a
# solver that prints its best answer on SIGTERM (the MaxSAT Evaluation asks it to) can.
TERM_GRACE = 1.0
POLL_SECONDS = 0.05
_STDERR_TAIL = 200  # characters of the child's output a failure's message quotes


@dataclass(frozen=True)
class OutsideSolver(Solver):
    """A solver line for an outside program: `command` with `{file}` (and `{solution}`)."""

    format: str = "cnf"
    command: str = ""

    @property
    def spec(self) -> str:
        """The NAME=FORMAT:COMMAND it was made from (what a bench run passes on)."""
        return f"{self.name}={self.format}:{self.command}"

    @property
    def program(self) -> str:
        return shlex.split(self.command)[0]

    @property
    def installed(self) -> bool:
        return shutil.which(self.program) is not None

    def require(self) -> OutsideSolver:
        if not self.installed:
            raise InputError(f"solver {self.name!r}: {self.program!r} is not an executable "
                             f"program on PATH")
        return self


# --- the table's door -------------------------------------------------------------------


def run(form: object, what: str, solver: OutsideSolver, options: SolveOptions) -> Result:
    """The backend door (`backends.solve`): the solver's own form; an exact cover reaches it
    lowered to that form by the door, like every solver's."""
    if solver.format == "mps":
        return _solve_mps(form, solver, options)  # type: ignore[arg-type]
    if solver.format == "wcnf":
        text = wcnf_text(form.hard, form.soft, form.wght)  # type: ignore[attr-defined]
    else:
        clauses = form.clauses if hasattr(form, "clauses") else form
        top = max((abs(lit) for clause in clauses for lit in clause), default=0)
        text = dimacs.dimacs_text(clauses, max(top, getattr(form, "nv", 0)))
    with _workspace(solver) as files:
        files.instance.write_text(text)
        usage, result = _execute(solver, files, options)
        if result is None:
            result = _read_clausal(solver, files, usage, form)
    result.usage = usage.as_dict()
    return result


# --- running the child ------------------------------------------------------------------


@dataclass
class Files:
    instance: Path
    solution: Path
    stdout: Path
    stderr: Path

    def argv(self, command: str) -> list[str]:
        return [word.replace("{file}", str(self.instance)).replace("{solution}",
                                                                   str(self.solution))
                for word in shlex.split(command)]


class _workspace:  # noqa: N801 - used like a function: `with _workspace(solver) as files`
    """A temporary folder for the instance, the solution and the child's output; removed on
    every exit (an interrupt too)."""

    def __init__(self, solver: OutsideSolver) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix=f"ilp-pyramid-{solver.name}-")
        self.suffix = {"cnf": ".cnf", "wcnf": ".wcnf", "mps": ".mps"}[solver.format]

    def __enter__(self) -> Files:
        folder = Path(self._folder.name)
        return Files(folder / f"instance{self.suffix}", folder / "solution.sol",
                     folder / "stdout.txt", folder / "stderr.txt")

    def __exit__(self, *exc: object) -> None:
        self._folder.cleanup()


@dataclass
class Usage:
    """What the child used, as runsolver reports it."""

    wall_seconds: float
    cpu_seconds: float
    peak_rss_mb: float | None  # None: not measured (it ended before a sample could be taken)
    exit_code: int
    stopped: bool  # the time limit stopped it (SIGTERM, then SIGKILL if it went on)

    def as_dict(self) -> dict:
        return {"wall_seconds": round(self.wall_seconds, 3),
                "cpu_seconds": round(self.cpu_seconds, 3),
                "peak_rss_mb": None if self.peak_rss_mb is None else round(self.peak_rss_mb, 1),
                "exit_code": self.exit_code,
                "stopped_by_time_limit": self.stopped}


def _execute(solver: OutsideSolver, files: Files, options: SolveOptions
             ) -> tuple[Usage, Result | None]:
    """Run the command on `files`; (its usage, an `error` Result if it could not start)."""
    argv = files.argv(solver.command)
    with open(files.stdout, "wb") as out, open(files.stderr, "wb") as err:
        try:
            usage = run_child(argv, options, out, err)
        except OSError as exc:  # not executable, vanished from PATH since require()
            return Usage(0.0, 0.0, 0.0, -1, False), Result(
                solver.name, Status.ERROR, 0.0, message=f"cannot start {argv[0]!r}: {exc}")
    if options.verbose:  # the log asked for goes to stderr: stdout is the package's
        os.write(2, read_bytes(files.stdout, gunzip=False) + read_bytes(files.stderr,
                                                                        gunzip=False))
    return usage, None


def run_child(argv: Sequence[str], options: SolveOptions, stdout: object,
              stderr: object) -> Usage:
    """Run `argv` in its own process group and wait, keeping `options.time_limit` (SIGTERM
    to the group, SIGKILL TERM_GRACE s later); SIGINT/SIGTERM here kill the group and raise
    `errors.Interrupted`. Nothing of the group is left when it returns or raises."""
    fork_kb = process.status_kb(Path("/proc/self"), "VmRSS:")
    start = time.perf_counter()
    child = process.start(argv, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr)
    limit = options.time_limit
    termed: float | None = None
    peak_kb, reaped = 0, False
    pause, close = process.exit_waiter(child.pid)
    try:
        with process.interruptible():
            reported = start
            while True:
                pid, status, rusage = os.wait4(child.pid, os.WNOHANG)
                if pid:
                    reaped = True
                    break
                peak_kb = max(peak_kb, process.status_kb(Path(f"/proc/{child.pid}")))
                now = time.perf_counter()
                if limit is not None and termed is None and now - start >= limit:
                    _signal_group(child.pid, signal.SIGTERM)
                    termed = now
                elif termed is not None and now - termed >= TERM_GRACE:
                    process.kill_group(child.pid)
                if options.progress is not None and now - reported >= process.PROGRESS_EVERY:
                    options.progress({"elapsed": now - start})
                    reported = now
                pause(POLL_SECONDS)
    finally:
        close()
        process.kill_group(child.pid)  # what it left behind in its group, or itself
        if not reaped:
            os.wait4(child.pid, 0)
        process.wait_group_gone(child.pid)
        child.returncode = -1  # reaped here: Popen must not wait for it again
    child.returncode = os.waitstatus_to_exitcode(status)
    # rusage's peak also counts this process's image, copied at the fork before the exec:
    # the child's own only when it went above that; otherwise the samples taken as it ran.
    # None: it ended before the first sample, below that image.
    if rusage.ru_maxrss > fork_kb + 1024:
        peak_kb = max(peak_kb, rusage.ru_maxrss)
    return Usage(time.perf_counter() - start, rusage.ru_utime + rusage.ru_stime,
                 peak_kb / 1024 if peak_kb else None, child.returncode, termed is not None)


def _signal_group(pgid: int, signum: int) -> None:
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        pass


# --- reading the answer -----------------------------------------------------------------


def _output(path: Path) -> str:
    return read_bytes(path, input_limit(), gunzip=False).decode("utf-8", errors="replace")


def _no_answer(solver: OutsideSolver, files: Files, usage: Usage, what: str) -> Result:
    """A run that gave no answer: a timeout if the time limit stopped it, else an error that
    says how it ended and the end of its stderr."""
    if usage.stopped:
        return Result(solver.name, Status.TIMEOUT, usage.wall_seconds,
                      message="no answer within the time limit; solver stopped")
    said = _output(files.stderr).split() or _output(files.stdout).split()  # glpsol: stdout
    tail = " ".join(said)[-_STDERR_TAIL:]
    ended = f"exit code {usage.exit_code}" if usage.exit_code >= 0 else \
        f"killed by {signal.Signals(-usage.exit_code).name}"
    return Result(solver.name, Status.ERROR, usage.wall_seconds,
                  message=f"{what} ({ended})" + (f": {tail}" if tail else ""))


def _read_clausal(solver: OutsideSolver, files: Files, usage: Usage, form: object) -> Result:
    seconds = usage.wall_seconds
    try:
        text = _output(files.stdout)
        if solver.format == "cnf":
            status, model, cost = *dimacs.parse_certificate(text), None
        else:
            status, model, cost = parse_maxsat_output(text)
            if model and cost is not None:
                _check_cost(form, model, cost)
    except InputError as exc:
        return Result(solver.name, Status.ERROR, seconds,
                      message=f"unreadable answer from {solver.program}: {exc}")
    if status in (dimacs.SATISFIABLE, OPTIMUM) and model:
        found = Status.SOLVED if solver.format == "cnf" or status == OPTIMUM else \
            Status.FEASIBLE
        return Result(solver.name, found, seconds, model=model, objective=cost)
    if status == dimacs.UNSATISFIABLE:
        return Result(solver.name, Status.INFEASIBLE, seconds)
    return _no_answer(solver, files, usage, "no 's' answer on stdout")


OPTIMUM = "OPTIMUM FOUND"
_MAXSAT_WORDS = (OPTIMUM, dimacs.SATISFIABLE, dimacs.UNSATISFIABLE, dimacs.UNKNOWN)


def parse_maxsat_output(text: str) -> tuple[str, list[int], int | None]:
    """(status, true-or-false literals, the last `o` cost) from a MaxSAT solver's output, the
    MaxSAT Evaluation's: `o COST` lines, `s OPTIMUM FOUND | SATISFIABLE | UNSATISFIABLE |
    UNKNOWN`, and a `v` line, the bit string of 2022 on (`v 0101`, variable i the i-th
    character) or the literals of before (`v 1 -2 3`). InputError for anything else."""
    status, cost, tokens = dimacs.UNKNOWN, None, []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("c"):
            continue
        word, _, rest = line.partition(" ")
        if word == "s":
            status = " ".join(rest.split()).upper()
            if status not in _MAXSAT_WORDS:
                raise InputError(f"line {number}: unknown status 's {rest.strip()[:30]}'")
        elif word == "o":
            cost = _whole(rest.strip(), number)
        elif word == "v":
            tokens.append((number, rest.split()))
        else:
            raise InputError(f"line {number}: unexpected text {line[:40]!r}")
    words = [w for _, ws in tokens for w in ws]
    if len(words) == 1 and re.fullmatch(r"[01]+", words[0]):
        model = [i if bit == "1" else -i for i, bit in enumerate(words[0], start=1)]
    else:
        model = [lit for number, ws in tokens
                 for lit in dimacs.parse_certificate("v " + " ".join(ws))[1]] if words else []
    if status in (OPTIMUM, dimacs.SATISFIABLE) and not model:
        raise InputError(f"'s {status}' but no 'v' line")
    return status, model, cost


def _whole(text: str, number: int) -> int:
    if re.fullmatch(r"[0-9]{1,30}", text) is None:
        raise InputError(f"line {number}: 'o {text[:30]}' is not a cost")
    return int(text)


def _check_cost(form: object, model: list[int], cost: int) -> None:
    """The `o` cost claimed must be the weight of the soft clauses its model breaks."""
    true = {lit for lit in model if lit > 0}

    def holds(clause: Sequence[int]) -> bool:
        return any((lit > 0) == (abs(lit) in true) for lit in clause)

    broken = sum(w for clause, w in zip(form.soft, form.wght, strict=True)  # type: ignore[attr-defined]
                 if not holds(clause))
    if broken != cost:
        raise InputError(f"its 'o {cost}' is not what its assignment breaks ({broken})")


# --- MPS ---------------------------------------------------------------------------------


def _solve_mps(problem: pulp.LpProblem, solver: OutsideSolver, options: SolveOptions
               ) -> Result:
    """Write the problem as MPS under short names (every reader takes them: no name
    longer than 8, no space), run the command, read the solution back under the model's."""
    import pulp

    with _workspace(solver) as files:
        columns, names, _, _ = problem.writeMPS(str(files.instance),
                                                mpsSense=pulp.LpMinimize, rename=True)
        usage, result = _execute(solver, files, options)
        if result is None:
            result = _read_mip(solver, files, usage, problem, columns, names)
    result.usage = usage.as_dict()
    return result


def _read_mip(solver: OutsideSolver, files: Files, usage: Usage, problem: pulp.LpProblem,
              columns: list, names: dict[str, str]) -> Result:
    seconds = usage.wall_seconds
    if not files.solution.exists():
        return _no_answer(solver, files, usage, "no solution file written")
    renamed = [names[v.name] for v in columns]
    try:
        status, values = parse_mip_solution(_output(files.solution), renamed)
    except InputError as exc:
        return Result(solver.name, Status.ERROR, seconds,
                      message=f"unreadable solution file of {solver.program}: {exc}")
    if status == Status.INFEASIBLE:
        return Result(solver.name, Status.INFEASIBLE, seconds)
    if status not in (Status.SOLVED, Status.FEASIBLE, None) or not values:
        return _no_answer(solver, files, usage, "a solution file without a solution")
    back = {v.name: values.get(names[v.name], 0.0) for v in columns}
    objective = None
    if problem.objective is not None:
        objective = float(problem.objective.constant) + sum(
            coefficient * back.get(v.name, 0.0) for v, coefficient in problem.objective.items())
    if status is None:
        # MIPLIB's form says a solution, not whether its optimum is proved: a program that
        # ended by itself with exit code 0 is taken to have finished its search.
        status = Status.SOLVED if usage.exit_code == 0 and not usage.stopped else \
            Status.FEASIBLE
    return Result(solver.name, status, seconds, values=back, objective=objective)


# CBC's first line: "Optimal - objective value 3", "Infeasible - objective value ...",
# "Stopped on time - objective value ...", "Integer infeasible - ..."
_CBC_STATUS = re.compile(r"^\s*(Optimal|Infeasible|Integer infeasible|Stopped on \w+|"
                         r"Unbounded|Stopped)\b(.*)$", re.I)


def parse_mip_solution(text: str, columns: Sequence[str]
                       ) -> tuple[Status | None, dict[str, float]]:
    """(status, values by column name) of a MIP solution file: MIPLIB's `.sol` (`=obj=` and
    `name value` lines; `=infeas=` for none), GLPK's `glpsol -w` (`s mip ...`, `j COL VALUE`,
    columns by number in `columns`' order) or the `cbc` binary's (a status line, then `index
    name value reduced-cost`). The status is None for MIPLIB's form, which does not say
    whether the solution is optimal. InputError for a file that is none of them."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise InputError("the solution file is empty")
    first = lines[0].split()
    if any(line.split()[0] in ("=infeas=", "=infeasible=") for line in lines):
        return Status.INFEASIBLE, {}
    if any(line.startswith("s ") for line in lines) and not first[0].startswith("="):
        return _glpk(lines, columns)
    cbc = _CBC_STATUS.match(lines[0])
    wanted = set(columns)
    if cbc is not None:
        word = cbc.group(1).lower()
        if "infeasible" in word:
            return Status.INFEASIBLE, {}
        if word == "unbounded":
            raise InputError("the solver says the model is unbounded")
        status = Status.SOLVED if word == "optimal" else Status.FEASIBLE
        return status, read_mip_values("\n".join(lines[1:]), wanted)
    values = read_mip_values("\n".join(line for line in lines if not line.startswith("=")),
                             wanted)
    if not values:
        raise InputError(f"no 'name value' line of the model's columns ({lines[0][:40]!r} "
                         f"first)")
    return None, values


def _glpk(lines: list[str], columns: Sequence[str]) -> tuple[Status, dict[str, float]]:
    """GLPK's plain solution file (glp_write_mip / glp_write_sol): `s mip ROWS COLS STATUS
    OBJ` (status o optimal, f feasible, n none, u undefined) and `j COL VALUE` lines; `s bas`
    (an LP) has `j COL STAT PRIM DUAL`."""
    head = next(line.split() for line in lines if line.startswith("s "))
    if len(head) < 5 or head[1] not in ("mip", "bas"):
        raise InputError(f"GLPK solution line {' '.join(head)[:40]!r}: expected 's mip' or "
                         f"'s bas'")
    state = head[4]  # mip: o, f, n, u; bas: the primal status, n or i none
    if state in ("n", "i"):
        return Status.INFEASIBLE, {}
    if state == "u":
        return Status.TIMEOUT, {}
    value_at = 2 if head[1] == "mip" else 3
    values: dict[str, float] = {}
    for line in lines:
        words = line.split()
        if words[0] != "j":
            continue
        try:
            index, value = int(words[1]), float(words[value_at])
        except (IndexError, ValueError):
            raise InputError(f"GLPK column line {line[:40]!r} unreadable") from None
        if not 1 <= index <= len(columns):
            raise InputError(f"GLPK column {index} is not one of the model's "
                             f"{len(columns)}")
        values[columns[index - 1]] = value
    return (Status.SOLVED if state == "o" else Status.FEASIBLE), values
