"""The results file: JSON lines, one record per finished run, read back defensively.

A record of this version (`schema` 2) carries what is needed to judge and redo the figure:
the timed argv and the bench invocation, the machine (cores, platform, Python, package
version), the date, the load average just before and just after the run, wall and CPU
seconds of the process and, beside them, the parts its --json reports (`solve_seconds`: the
solver's own call; `build_seconds`; `run_seconds`: build, solve, decode and check; `seconds`:
the solver's time where reported, else the command's), status, exit code, peak memory,
repeat, seed and `solver_seed` (the solver's own random seed, where the run set one); a run
of a puzzle's grid also the puzzle and its `params` (the grid point: the bench case's params
and the axes' values); a run whose --json says which options shaped its model (`solve
--json`'s "model_options": Bel's formulation, strategy set and card, the Sudoku Cube's
parity...) also those, as
`model_options`, defaults resolved, so a table says which model ran even where no axis named
it; a run on a Dask cluster (`bench --scheduler`) also its worker's `host` and `worker`
address. Records without `model_options` (written before, or of a command that does not
report them) are read as they are.
Bel-grid records from before name their grid point in top-level `n`, `formulation`,
`strategies` and `card`, and are read so (summary.params_of). Older records
(docs/*.jsonl from before) lack the machine facts: they are read as they are and flagged
`legacy`.
"""

from __future__ import annotations

import datetime
import functools
import json
import math
import os
import platform
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path

from ilp_pyramid.backends.base import Status
from ilp_pyramid.errors import InputError
from ilp_pyramid.formats.fileio import append_line, read_text
from ilp_pyramid.version import installed_version

SCHEMA = 2
# A run's status is the package's one vocabulary (`Status`): the command's own, or `timeout`
# (with `killed: true` and a message) when the bench's hard limit stopped it.
SOLVED, INFEASIBLE, TIMEOUT, ERROR = (Status.SOLVED, Status.INFEASIBLE, Status.TIMEOUT,
                                      Status.ERROR)
# What records written before said of a run past the hard limit; read as a timeout.
LEGACY_KILLED = "killed"
TIMEOUTS = (TIMEOUT, LEGACY_KILLED)
# Exit code -> status for commands that print no JSON (the CLI contract of the package).
EXIT_STATUS = {0: SOLVED, 1: INFEASIBLE, 3: TIMEOUT}
# Fields that must be numbers (or absent / null) for a record to be used.
NUMERIC = ("n", "repeat", "seed", "solver_seed", "seconds", "solve_seconds", "build_seconds",
           "run_seconds", "wall_seconds", "cpu_seconds", "peak_rss_mb", "variables",
           "constraints")

# Fields that must be text (or absent / null): they name a configuration.
TEXT = ("label", "puzzle", "solver", "formulation", "card", "date", "host", "worker")

Warn = Callable[[str], None]


@functools.cache
def machine_facts() -> dict:
    return {"cpu_count": os.cpu_count(), "platform": platform.platform(),
            # read here, not imported at the top: the version costs importlib.metadata,
            # which every command that loads the bench would pay
            "python": platform.python_version(), "package_version": installed_version()}


def load_average() -> list[float] | None:
    try:
        return [round(value, 2) for value in os.getloadavg()]
    except OSError:  # pragma: no cover - not available on this system
        return None


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def check_results_path(path: Path, writable: bool = False) -> None:
    """A results file must be a regular file (or not exist yet) in an existing directory;
    with `writable`, it is opened for appending now, so that a run is not lost to a file
    that cannot be written after it."""
    try:
        if path.exists() and not path.is_file():
            kind = "a directory" if path.is_dir() else "not a regular file"
            raise InputError(f"--results {path} is {kind}; give a file name")
        parent = path.parent if str(path.parent) else Path(".")
        if not parent.is_dir():
            raise InputError(f"--results {path}: {parent} is not a directory")
        if writable:
            with open(path, "a", encoding="utf-8"):
                pass
    except OSError as exc:
        raise InputError(f"--results {path}: {exc.strerror or exc}") from None


def read_results(path: Path, warn: Warn | None = None) -> list[dict]:
    """Every usable record of a results file, in file order.

    A torn line (the writer was killed mid-line) is skipped; if a record was appended right
    after such a fragment, it is recovered from the joined line. A record missing `status`
    or with a non-numeric time is ignored. `warn` hears once per file about the lines left
    out: how many, and the first of them with why (a corrupt file is one line, not one per
    bad line).
    """
    if not path.exists():
        return []
    check_results_path(path)
    try:
        text = read_text(path)
    except (OSError, EOFError, zlib.error) as exc:
        raise InputError(f"cannot read results file {path}: {exc}") from None
    records, bad, first = [], 0, ""
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        record, problem = _parse_line(line)
        if problem:
            bad += 1
            first = first or f"line {number}: {problem}"
        if record is not None:
            records.append(record)
    if bad and warn:
        warn(bad_lines_text(path, bad, first))
    return records


def bad_lines_text(path: Path, bad: int, first: str) -> str:
    """The one warning of a file with bad lines: how many, and the first with why."""
    if bad == 1:
        return f"{path} {first}"
    return f"{path}: {bad:,} bad lines, the first at {first}"


def _parse_line(line: str) -> tuple[dict | None, str]:
    record = loads_object(line)
    if record is None:
        # A fragment with a whole record glued to its end (an append after a torn line).
        start = line.find('{"key"', 1)
        while start != -1:
            record = loads_object(line[start:])
            if record is not None:
                problem = _invalid(record)
                return (None, problem) if problem else (record, "torn fragment dropped")
            start = line.find('{"key"', start + 1)
        return None, "torn or malformed line skipped"
    problem = _invalid(record)
    return (None, problem) if problem else (record, "")


def loads_object(line: str) -> dict | None:
    """A JSON object from one line, or None (malformed, not an object, NaN/Infinity, or
    nested too deep to parse)."""
    try:
        value = json.loads(line, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number a run can take")


def _invalid(record: dict) -> str:
    """Why a parsed record cannot be used ('' if it can); legacy ones are flagged."""
    if not isinstance(record.get("key"), str):
        return "record without a key ignored"
    if not isinstance(record.get("status"), str):
        return "record without a status ignored"
    for name in NUMERIC:
        value = record.get(name)
        if value is not None and not plain_number(value):
            return f"record with a non-numeric {name} ignored"
    for name in TEXT:
        if not isinstance(record.get(name), str | None):
            return f"record whose {name} is not text ignored"
    strategies = record.get("strategies")
    if not (strategies is None or isinstance(strategies, str) or (
            isinstance(strategies, list) and all(isinstance(s, str) for s in strategies))):
        return "record whose strategies are not names ignored"
    params = record.get("params")
    if params is not None and not _plain_values(params):
        return "record whose params are not a grid point ignored"
    if record.get("model_options") is not None and model_options_of(record) is None:
        return "record whose model_options are not options ignored"
    if record.get("schema") != SCHEMA:
        record["legacy"] = True  # no machine facts: readable, but flagged wherever shown
    return ""


def _plain_values(mapping) -> bool:
    """A dict of names to text, flags, numbers or null (a grid point, a model's options)."""
    return isinstance(mapping, dict) and all(
        isinstance(name, str) and (isinstance(value, str | bool | None) or plain_number(value))
        for name, value in mapping.items())


def model_options_of(data: dict) -> dict | None:
    """The "model_options" of a run's --json or of a record: a dict of option names to plain
    values; None when there are none, or they are not such a dict."""
    options = data.get("model_options")
    return dict(options) if _plain_values(options) else None


def plain_number(value) -> bool:
    """A number a run can have: not a bool, finite, and not beyond any time or size."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return abs(value) < 1e15 and math.isfinite(value)


def solver_seconds(record: dict) -> float | None:
    """The solver's own seconds of a run: its `solve_seconds`, else (records from before,
    and commands that report only one time) its `seconds`; None where it has neither."""
    for name in ("solve_seconds", "seconds"):
        if record.get(name) is not None:
            return float(record[name])
    return None


def latest_by_key(records: Iterable[dict]) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for record in records:
        out[record["key"]] = record
    return out


def append_record(path: Path, record: dict) -> None:
    """Append one record; end a torn last line first, so the record gets a line of its own."""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            if handle.tell():
                handle.seek(-1, os.SEEK_END)
                if handle.read(1) != b"\n":
                    append_line(path, "")
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None
    append_line(path, json.dumps(record, separators=(",", ":"), allow_nan=False))
