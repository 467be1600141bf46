"""A bench session: run each spec (runner.py), record it with the machine's facts
(records.py), append it at once; SIGINT/SIGTERM stop it cleanly. The command's side (the
results file's lock, --resume, the error lines) is cli/bench.py's."""

from __future__ import annotations

import signal
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from ilp_pyramid.backends.base import Status
from ilp_pyramid.backends.process import interruptible
from ilp_pyramid.bench import cluster  # Dask: loaded only for a cluster
from ilp_pyramid.bench.commands import CommandSpec
from ilp_pyramid.bench.records import (
    ERROR,
    EXIT_STATUS,
    INFEASIBLE,
    SCHEMA,
    SOLVED,
    TIMEOUT,
    append_record,
    load_average,
    loads_object,
    machine_facts,
    model_options_of,
    now,
    plain_number,
)
from ilp_pyramid.bench.runner import run_process
from ilp_pyramid.output import say

if TYPE_CHECKING:
    from ilp_pyramid.bench.grid import Spec


def run_one(spec: Spec, kill_after: float, bench_argv: Sequence[str] = (),
            stop: Callable[[], bool] | None = None) -> dict:
    """Run `spec` in its own process group and return its record (see records.py);
    `stop` as for `runner.run_process`."""
    load_before = load_average()
    date = now()
    measured = run_process(spec.command(), kill_after, stop)
    record = {"key": spec.key(), "schema": SCHEMA, **spec.fields(),
              "argv": measured.argv, "bench_argv": list(bench_argv), "date": date,
              "machine": dict(machine_facts()), "load_before": load_before,
              "load_after": load_average(),
              "wall_seconds": measured.wall_seconds,
              # CPU of the whole run (process start, build, solve): steadier than wall time
              # on a shared machine.
              "cpu_seconds": measured.cpu_seconds,
              "exit_code": measured.exit_code, "peak_rss_mb": measured.peak_rss_mb}
    if measured.killed:
        # Past its own limit and the grace: a timeout, like any run that ran out of time
        # (`killed` says the bench stopped it, not the command).
        record.update(status=TIMEOUT, killed=True, seconds=measured.wall_seconds,
                      message=f"killed after {kill_after:g} s (hard wall-clock limit)")
        return record
    data = _last_json(measured.stdout)
    if isinstance(spec, CommandSpec):
        # Any command: the status from its --json if it printed one in the package's
        # vocabulary, else from its exit code (`iq count` says "counted": exit 0, solved; and,
        # for a program that exits 0 either way, from --solved-if).
        status = data.get("status") if data else None
        if status not in set(Status):
            status = EXIT_STATUS.get(measured.exit_code, ERROR)
            stdout = measured.stdout.decode("utf-8", "replace")
            if status == SOLVED and not spec.template.solved(stdout):
                status = INFEASIBLE
        record.update(status=status, **(reported_times(data) if data else {"seconds": None}),
                      message=_tail(measured.stdout) if status in (SOLVED, INFEASIBLE)
                      else _last_line(measured.stderr, measured.exit_code),
                      result=data)
        if data:  # model sizes, when the command reports them (solve-cnf: clauses)
            record.update(variables=_number(data.get("variables")),
                          constraints=_number(data.get("constraints", data.get("clauses"))))
            record.update(_model_options(data))
        return record
    if data is None:
        record.update(status=ERROR, seconds=measured.wall_seconds,
                      message=_last_line(measured.stderr, measured.exit_code))
        return record
    status = data.get("status")
    message = data.get("message") or data.get("detail") or ""
    record.update(
        status=status if isinstance(status, str) else ERROR,
        **reported_times(data),
        variables=_number(data.get("variables")),
        constraints=_number(data.get("constraints", data.get("clauses"))),
        message=message if isinstance(message, str) else str(message),
        solution=data.get("solution"),
        # what else the puzzle reported (each puzzle its own fields), for its own tables
        result={name: value for name, value in data.items() if name != "solution"},
        **_model_options(data),
    )
    return record


def reported_times(data: dict) -> dict:
    """The times a run's --json reports, as a record keeps them, for a puzzle's grid and an
    argv template alike: `seconds`, the solver's (its `solve_seconds`, else the one time a
    command reports, `seconds`: what scores on solver time read), and the parts
    (time_parts)."""
    return {"seconds": _number(data.get("solve_seconds", data.get("seconds"))),
            **time_parts(data)}


def time_parts(data: dict) -> dict:
    """The parts of a run's time its --json reports, as a record keeps them: the solver's
    own call (`solve_seconds`), the model's build (`build_seconds`) and the command's whole
    solve path (`run_seconds`: build, solve, decode, check); what the wall time has beyond
    that is the process's start-up and exit."""
    return {"solve_seconds": _number(data.get("solve_seconds")),
            "build_seconds": _number(data.get("build_seconds")),
            "run_seconds": _number(data.get("seconds", data.get("total_seconds")))}


def _model_options(data: dict) -> dict:
    """{"model_options": ...} of a run's --json, where it reports them as a record keeps
    them (records.model_options_of); {} for a run that does not."""
    options = model_options_of(data)
    return {} if options is None else {"model_options": options}


def _number(value):
    """A figure the run reported, if it is one a record can hold (else None)."""
    return value if plain_number(value) else None


def _last_json(out: bytes) -> dict | None:
    for line in reversed(out.decode("utf-8", "replace").splitlines()):
        line = line.strip()
        if line.startswith("{"):
            return loads_object(line)
    return None


def _tail(output: bytes) -> str:
    """The last non-blank line of an output (a run's verdict, or its error), shortened."""
    lines = [line for line in output.decode("utf-8", "replace").splitlines() if line.strip()]
    return lines[-1].strip()[:300] if lines else ""


def _last_line(err: bytes, code: int) -> str:
    if _tail(err):
        return _tail(err)
    if code < 0:
        return f"the run was killed by {signal.Signals(-code).name}"
    return f"the run exited with code {code} and printed no result"


def warm_up(pending: Sequence[Spec], times: int, kill_after: float) -> None:
    """Run the first spec of every configuration (`warm_group`) `times` times, unrecorded:
    what a first run pays once (Python writing its bytecode cache, numba compiling into its
    cache, the page cache filling) then lands in no record."""
    first: dict[tuple, Spec] = {}
    for spec in pending:
        first.setdefault(spec.warm_group(), spec)
    for spec in first.values():
        for _ in range(times):
            run_process(spec.command(), kill_after)


def run_all(pending: Sequence[Spec], kill_after: float, results: Path | None,
            done: dict[str, dict], bench_argv: Sequence[str] = (),
            quiet: bool = False, scheduler: str | None = None, warmup: int = 0) -> None:
    """Run every spec, here in turn or (`scheduler`) on a Dask cluster (cluster.py); each
    record goes to `results` (if any) and `done` as soon as its run ends.

    SIGINT/SIGTERM raise `errors.Interrupted` after the running child's group is killed
    (on a cluster: the remaining tasks cancelled, the running ones told to stop); every
    finished record is already in the file.
    """
    if not pending:
        return
    err_console = Console(stderr=True, highlight=False, soft_wrap=True)
    progress = Progress(TextColumn("{task.description}"), BarColumn(),
                        TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn(),
                        console=err_console, transient=True,
                        disable=quiet or not err_console.is_terminal)
    with interruptible(), progress:
        task = progress.add_task("bench", total=len(pending))

        def take(spec: Spec, record: dict) -> None:
            if results is not None:
                append_record(results, record)
            done[record["key"]] = record
            progress.advance(task)
            if not err_console.is_terminal and not quiet:
                where = f" on {record['host']}" if record.get("host") else ""
                say(f"{spec.describe()}: {record['status']} "
                    f"{record['wall_seconds']:.2f} s wall{where}")

        if scheduler is not None:

            progress.update(task, description=f"on {scheduler}")
            cluster.run_all(run_one, pending, kill_after, bench_argv, scheduler, take, warn)
            return
        if warmup:  # here only: on a cluster each worker's first run pays its own
            progress.update(task, description=f"warm-up ({warmup} run(s) per configuration)")
            warm_up(pending, warmup, kill_after)
        for spec in pending:
            progress.update(task, description=spec.describe())
            take(spec, run_one(spec, kill_after, bench_argv))


def warn(message: str) -> None:
    say(f"warning: {message}")
