"""A hunt's state directory: the best state (best.json), the curve (progress.jsonl) and the
fresh descents (descents.jsonl).

DIR/best.json = {"n", "conflicts", "solution": {"Z", "X", "Y"}, "hunted_seconds",
"cpu_seconds"}, written atomically; its count is recomputed when read, never trusted.
DIR/progress.jsonl: one line per new best (and at least one a minute), the best count against
the CPU and wall seconds of every hunt on the directory; appended, so a crash cuts at most
its last line, which `read_progress` skips.
DIR/descents.jsonl: one line per fresh descent (`hunt --descent`) as it ends: its seed, CPU
budget and CPU time, best count, moves, when it first reached each low count ("reached"), and
whether it ran its whole budget ("full") or was cut short by the hunt's end; appended the
same way. Its full descents are the hunt's own record of how often a descent reaches each
count (`descent_tally`) and how soon (`reach_times`).
"""

from __future__ import annotations

import contextlib
import json
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ilp_pyramid.errors import InputError
from ilp_pyramid.formats.fileio import append_line, read_text, write_atomic
from ilp_pyramid.parsing import load_json
from ilp_pyramid.puzzles.bel.lns.arrays import (
    arrays,
    conflicts_of,
    labels_to_solution,
    solution_to_labels,
)
from ilp_pyramid.puzzles.bel.solution import parse_json
from ilp_pyramid.verify.bel import verify_solution

BEST_FILE = "best.json"
LOCK_FILE = "hunt.lock"  # held by the running hunt: pid, host, start (formats/lock.py)
SOLUTION_FILE = "solution.txt"
PROGRESS_FILE = "progress.jsonl"
DESCENTS_FILE = "descents.jsonl"


@dataclass
class BestState:
    n: int
    conflicts: int
    labels: np.ndarray  # line labels in geometry order
    hunted_seconds: float = 0.0  # wall time of every hunt that worked on this directory
    cpu_seconds: float = 0.0  # CPU time of every search of every hunt on this directory

    def to_json(self) -> dict:
        return {
            "n": self.n,
            "conflicts": self.conflicts,
            "solution": labels_to_solution(self.n, self.labels).to_dict(),
            "hunted_seconds": round(self.hunted_seconds, 1),
            "cpu_seconds": round(self.cpu_seconds, 1),
        }


def load_best(state_dir: Path, n: int) -> BestState | None:
    """The saved best state, or None when the directory has none yet (InputError if bad)."""
    path = state_dir / BEST_FILE
    if not path.exists():
        return None
    try:
        data = load_json(read_text(path))
    except (OSError, InputError) as exc:
        raise InputError(f"{path}: cannot read the saved state ({exc})") from None
    if not isinstance(data, dict) or "solution" not in data:
        raise InputError(f"{path}: not a hunt state (no \"solution\")")
    if data.get("n") != n:
        raise InputError(f"{path} holds a state for N={data.get('n')}, not N={n}; "
                         f"use another --state-dir")
    try:
        solution = parse_json(json.dumps(data["solution"]))
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None
    if solution.n != n:
        raise InputError(f"{path}: the solution is for N={solution.n}, not N={n}")
    labels = solution_to_labels(solution)
    # The count on disk is recomputed, never trusted.
    hunted, cpu = data.get("hunted_seconds", 0.0) or 0.0, data.get("cpu_seconds", 0.0) or 0.0
    for name, value in (("hunted_seconds", hunted), ("cpu_seconds", cpu)):
        if type(value) not in (int, float):
            raise InputError(f"{path}: \"{name}\" is not a number")
    return BestState(n, conflicts_of(n, labels), labels, float(hunted), float(cpu))


def save_best(state_dir: Path, state: BestState) -> None:
    write_atomic(state_dir / BEST_FILE, state_text(state.to_json()))


def state_text(data: dict) -> str:
    """JSON with one line per key and one line per row of labels (readable, still JSON)."""
    out = ["{"]
    for key, value in data.items():
        if key != "solution":
            out.append(f"  {json.dumps(key)}: {json.dumps(value)},")
    out.append('  "solution": {')
    families = list(data["solution"].items())
    for index, (family, rows) in enumerate(families):
        body = ",\n".join(f"      {json.dumps(row)}" for row in rows)
        comma = "," if index < len(families) - 1 else ""
        out.append(f"    {json.dumps(family)}: [\n{body}\n    ]{comma}")
    out.append("  }")
    out.append("}")
    return "\n".join(out) + "\n"


def meets_counting(n: int, labels: np.ndarray) -> bool:
    """Every label's lines add up to N(2N+1) cells (the swaps keep whatever totals they get)."""
    a = arrays(n)
    totals = np.bincount(labels, weights=a.line_len, minlength=a.num_labels)
    return bool(np.all(totals == n * (2 * n + 1)))


def resumable(n: int, labels: np.ndarray) -> bool:
    """Whether a search can start from `labels`: label swaps keep every label's total, so
    below N=6 a state that breaks the counting condition could never become a solution; from
    N=6 the search moves single lines (lns/driver.py), which change the totals."""
    # Here, not at the top: the driver loads the numba-compiled search.
    from ilp_pyramid.puzzles.bel.lns.driver import Settings

    return Settings().single_share(n) > 0 or meets_counting(n, labels)


def log_progress(state_dir: Path, cpu: float, wall: float, best: int,
                 worker: int | None) -> None:
    """One line of the curve: cumulative CPU and wall seconds, best count, who found it."""
    line = {"cpu": round(cpu, 1), "wall": round(wall, 1), "best": best, "worker": worker,
            "time": time.strftime("%Y-%m-%dT%H:%M:%S")}
    # Appended, not rewritten: a line cut short by a crash is skipped by read_progress.
    append_line(state_dir / PROGRESS_FILE, json.dumps(line))


def read_progress(path: Path) -> list[dict]:
    """The progress lines of a state directory (a torn last line is skipped)."""
    return _read_lines(path, {"cpu", "best"})


def log_descent(state_dir: Path, record: dict) -> None:
    """One fresh descent's line, with the time it was logged."""
    append_line(state_dir / DESCENTS_FILE,
                json.dumps({**record, "time": time.strftime("%Y-%m-%dT%H:%M:%S")}))


def read_descents(state_dir: Path) -> list[dict]:
    """The descents logged in a state directory (none without the file; a torn line is
    skipped)."""
    path = state_dir / DESCENTS_FILE
    return _read_lines(path, {"budget", "best", "full"}) if path.exists() else []


def descent_tally(records: list[dict]) -> dict[float, dict[int, int]]:
    """Full descents only, by CPU budget: best count -> how many ended there. A descent cut
    short by the hunt's end had less time, so it would understate the rate at its budget."""
    tally: dict[float, Counter] = {}
    for record in records:
        if record["full"]:
            tally.setdefault(float(record["budget"]), Counter())[int(record["best"])] += 1
    return {budget: dict(sorted(bests.items())) for budget, bests in sorted(tally.items())}


def reach_times(records: list[dict], budget: float, up_to: int = 3) -> dict[int, list[float]]:
    """The full descents of `budget` that logged when they got low ("reached"; older lines did
    not): count -> the CPU seconds at which each first reached it, for counts up to `up_to`."""
    times: dict[int, list[float]] = {}
    for record in records:
        if record["full"] and float(record["budget"]) == budget:
            for count, cpu in record.get("reached", []):
                if count <= up_to:
                    times.setdefault(int(count), []).append(float(cpu))
    return dict(sorted(times.items(), reverse=True))


def _read_lines(path: Path, keys: set[str]) -> list[dict]:
    rows = []
    for line in read_text(path).splitlines():
        with contextlib.suppress(json.JSONDecodeError):
            row = json.loads(line)
            if isinstance(row, dict) and keys <= row.keys():
                rows.append(row)
    return rows


def save_solution(state_dir: Path, n: int, labels: np.ndarray) -> str:
    """Verify a solution's labels by the independent checker, then write its drawing to
    DIR/solution.txt; the drawing (RuntimeError if the labels do not verify)."""
    solution = labels_to_solution(n, labels)
    if not verify_solution(solution).valid:
        raise RuntimeError("a reported solution does not verify")
    drawing = solution.to_drawing()
    write_atomic(state_dir / SOLUTION_FILE, drawing)
    return drawing
