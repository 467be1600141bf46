"""Cube-and-conquer around a state: settle every re-labelling of a neighbourhood of lines.

The hypothesis is named, never hidden: every line outside the neighbourhood keeps the state's
label. Under it, "does some labelling of the neighbourhood's lines complete a solution?" is
split into cubes (a few neighbourhood lines given labels), each settled by CaDiCaL with the
state's labels as first phases: SAT (a solution, verified by the caller), UNSAT, or, past its
CPU time, split again on the line a lookahead picks. The lookahead probes the boundary lines
(those crossing the most fixed lines) label by label with unit propagation alone, takes the
line with the fewest labels left (then the furthest propagation), and records the labels that
fail by propagation as UNSAT at once.

The neighbourhood grows from the lines through the repeated cubes' cells, adding the line
that crosses the region most often (ties: the lowest index), so the same state and size
always give the same lines. It may also start from one whole family of lines (`family`):
lines of one family never cross, so with the other two families held, each of its lines
only chooses which cubes its own cells show, and the question is close to an exact cover
that CaDiCaL settles at sizes (121 Z lines and more) where a region grown line by line
is out of reach. Its record, one JSON object per line, lets a resumed run skip
every settled cube; `open_cubes` rebuilds the cubes left from it.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ilp_pyramid.backends import solvers
from ilp_pyramid.backends.base import Status
from ilp_pyramid.backends.sat import SatSession
from ilp_pyramid.errors import InputError
from ilp_pyramid.formats.fileio import append_line, read_text
from ilp_pyramid.puzzles.bel.lns.arrays import arrays
from ilp_pyramid.puzzles.bel.lns.region import conflict_lines

Cube = tuple[tuple[int, int], ...]  # (line, label) pairs, in the order they were split

SAT, UNSAT, SPLIT, OPEN = "sat", "unsat", "split", "open"
LOOKAHEAD_LINES = 12  # boundary lines probed per split (each probe: one propagation a label)


FAMILIES = {"X": 0, "Y": 1, "Z": 2}  # as arrays(n).family codes them


def family_name(family: str | None) -> str | None:
    """`family` as FAMILIES names it (any case), None for none; InputError otherwise."""
    if family is None:
        return None
    if family.upper() not in FAMILIES:
        raise InputError(f"{family!r} is not a family of lines (X, Y or Z)")
    return family.upper()


def lines_text(count: int, family: str | None) -> str:
    """"125 lines (every Z line among them)": a neighbourhood's size as the reports say it."""
    return f"{count} lines" + ("" if family is None else f" (every {family} line among them)")


def grow(n: int, labels: np.ndarray, size: int, family: str | None = None) -> tuple[int, ...]:
    """`size` lines around the repeated cubes of `labels` (all lines if fewer), starting
    from every line of `family` too when one is named (then never fewer than those)."""
    a = arrays(n)
    region = {int(i) for i in conflict_lines(n, labels)}
    if family is not None:
        region |= {int(i) for i in np.flatnonzero(a.family == FAMILIES[family])}
    size = min(size, a.num_lines)
    crossings = np.zeros(a.num_lines, dtype=np.int64)

    def add(line: int) -> None:
        region.add(line)
        cells = a.line_cells[a.line_start[line]:a.line_start[line + 1]]
        np.add.at(crossings, a.cell_line[cells].ravel(), 1)

    for line in sorted(region):
        region.discard(line)
        add(line)
    while len(region) < size:
        score = crossings.copy()
        score[list(region)] = -1
        add(int(np.argmax(score)))  # argmax takes the lowest index among ties
    return tuple(sorted(region))


@dataclass(frozen=True)
class Neighbourhood:
    """The free lines and the state that fixes every other line."""

    n: int
    labels: tuple[int, ...]
    lines: tuple[int, ...]

    @property
    def key(self) -> str:
        text = json.dumps([self.n, self.labels, self.lines])
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    def boundary(self) -> list[int]:
        """The free lines, those crossing the most fixed lines first."""
        a = arrays(self.n)
        free = np.zeros(a.num_lines, dtype=bool)
        free[list(self.lines)] = True
        fixed_crossings = {}
        for line in self.lines:
            cells = a.line_cells[a.line_start[line]:a.line_start[line + 1]]
            fixed_crossings[line] = int((~free[a.cell_line[cells]]).sum())
        return sorted(self.lines, key=lambda line: (-fixed_crossings[line], line))

    def to_json(self) -> dict:
        return {"n": self.n, "key": self.key, "labels": list(self.labels),
                "lines": list(self.lines)}


def neighbourhood(n: int, labels: np.ndarray, size: int,
                  family: str | None = None) -> Neighbourhood:
    labels = np.asarray(labels)
    return Neighbourhood(n, tuple(int(x) for x in labels), grow(n, labels, size, family))


class Conqueror:
    """One neighbourhood's CNF in one incremental solver: the whole pyramid's CNF with every
    line outside the neighbourhood held by a unit clause, the cubes solved under assumptions
    (learnt clauses carry over from cube to cube)."""

    def __init__(self, hood: Neighbourhood, solver: str = "cadical195") -> None:
        from ilp_pyramid.puzzles.bel.cnf import build_cnf

        a = arrays(hood.n)
        cnf = build_cnf(hood.n)
        self.hood = hood
        self.lits = np.array([[cnf.line_var(i, label) for label in range(a.num_labels)]
                              for i in range(a.num_lines)], dtype=np.int64)
        self.session = SatSession(cnf.formula.clauses, solvers.solver(solver))
        labels = np.asarray(hood.labels, dtype=np.int64)
        free = np.zeros(a.num_lines, dtype=bool)
        free[list(hood.lines)] = True
        for line in np.flatnonzero(~free):
            self.session.add_clause([int(self.lits[line, labels[line]])])
        self.phases = [int(self.lits[line, labels[line]]) for line in hood.lines]
        self.boundary = hood.boundary()

    def literals(self, cube: Cube) -> list[int]:
        return [int(self.lits[line, label]) for line, label in cube]

    def settle(self, cube: Cube, time_limit: float) -> dict:
        """SAT (with the labels), UNSAT, or split (the line, its labels left, the labels
        refuted by propagation) after `time_limit` CPU seconds of this thread without an
        answer (CPU, not wall time: a loaded machine splits the same cubes an idle one does)."""
        began = time.thread_time()
        if len(cube) == len(self.hood.lines):  # nothing left to split on: propagation decides
            time_limit = None
        result = self.session.solve(self.literals(cube), time_limit, self.phases,
                                    clock=time.thread_time)
        if result.status == Status.SOLVED:
            model = np.asarray(result.model, dtype=np.int64)
            labels = np.argmax(model[self.lits - 1] > 0, axis=1)
            return {"status": SAT, "labels": [int(x) for x in labels],
                    "cpu": time.thread_time() - began}
        if result.status == Status.INFEASIBLE:
            return {"status": UNSAT, "cpu": time.thread_time() - began}
        line, alive, refuted = self.lookahead(cube)
        return {"status": SPLIT, "line": line, "children": alive, "refuted": refuted,
                "cpu": time.thread_time() - began}

    def lookahead(self, cube: Cube) -> tuple[int, list[int], list[int]]:
        """The boundary line to split on, its labels left, its labels refuted."""
        assumed = self.literals(cube)
        taken = {line for line, _ in cube}
        best = None
        for line in [x for x in self.boundary if x not in taken][:LOOKAHEAD_LINES]:
            alive, reach = [], 0
            for label in range(self.lits.shape[1]):
                consistent, implied = self.session.propagate(
                    [*assumed, int(self.lits[line, label])])
                if consistent:
                    alive.append(label)
                    reach += implied
            rank = (len(alive), -reach)
            if best is None or rank < best[0]:
                best = (rank, line, alive)
        _, line, alive = best  # not None: settle() splits only cubes that leave a line free
        refuted = [label for label in range(self.lits.shape[1]) if label not in alive]
        return line, alive, refuted

    def close(self) -> None:
        self.session.close()


_CONQUERORS: dict[str, Conqueror] = {}  # per worker process: the neighbourhood in work


@atexit.register
def _close_conquerors() -> None:
    # before the interpreter tears python-sat's module down, or its __del__ fails noisily
    for conqueror in _CONQUERORS.values():
        conqueror.close()
    _CONQUERORS.clear()


def settle_cube(hood: Neighbourhood, cube: Cube, time_limit: float) -> dict:
    """One cube, on whichever process runs it (a Dask worker or this one); the neighbourhood's
    solver is built once per process and kept."""
    conqueror = _CONQUERORS.get(hood.key)
    if conqueror is None:
        _close_conquerors()
        conqueror = _CONQUERORS[hood.key] = Conqueror(hood)
    return {**conqueror.settle(cube, time_limit), "cube": [list(pair) for pair in cube]}


@dataclass
class Record:
    """STATE_DIR/conquer-KEY.jsonl: the neighbourhood, then one line per settled cube."""

    path: Path
    hood: Neighbourhood
    settled: dict[Cube, dict]

    @classmethod
    def open(cls, state_dir: Path, hood: Neighbourhood) -> Record:
        path = state_dir / f"conquer-{hood.key}.jsonl"
        settled: dict[Cube, dict] = {}
        if path.exists():
            for text in read_text(path).splitlines()[1:]:
                try:
                    row = json.loads(text)
                except json.JSONDecodeError:  # a line cut by a kill: that cube is open
                    continue
                settled[tuple((int(a), int(b)) for a, b in row["cube"])] = row
        else:
            append_line(path, json.dumps(hood.to_json()))
        return cls(path, hood, settled)

    def add(self, row: dict) -> None:
        cube = tuple((int(a), int(b)) for a, b in row["cube"])
        kept = {k: (round(v, 2) if k == "cpu" else v) for k, v in row.items()}
        self.settled[cube] = kept
        append_line(self.path, json.dumps(kept))

    def open_cubes(self) -> list[Cube]:
        """Every cube not settled: the root, or the children of split cubes, depth first."""
        left, stack = [], [()]
        while stack:
            cube = stack.pop()
            row = self.settled.get(cube)
            if row is None:
                left.append(cube)
            elif row["status"] == SPLIT:
                stack.extend((*cube, (row["line"], label)) for label in
                             reversed(row["children"]))
        return left

    def solution(self) -> np.ndarray | None:
        """The labels of a SAT cube, if one was found (the caller verifies them)."""
        for row in self.settled.values():
            if row["status"] == SAT:
                return np.asarray(row["labels"], dtype=np.int32)
        return None

    def counts(self) -> dict[str, int]:
        """Settled cubes by outcome (labels refuted by a lookahead count as UNSAT cubes)."""
        unsat = sum(1 for row in self.settled.values() if row["status"] == UNSAT)
        refuted = sum(len(row.get("refuted", ())) for row in self.settled.values())
        split = sum(1 for row in self.settled.values() if row["status"] == SPLIT)
        return {"unsat": unsat + refuted, "split": split, "open": len(self.open_cubes())}

    def cpu_seconds(self) -> float:
        return sum(float(row.get("cpu", 0.0)) for row in self.settled.values())
