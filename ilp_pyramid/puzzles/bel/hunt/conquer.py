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

`Hypotheses` is the other problem the same machinery settles (`ilp-pyramid conquer`): the
whole puzzle, no line held, under a named set of strategies compiled into the CNF; its
lookahead probes the longest lines first. An UNSAT cube chosen for it (`chosen_for_proof`)
is refuted again with a DRAT proof that an independent checker judges (backends/drat.py).
"""

from __future__ import annotations

import atexit
import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ilp_pyramid.backends import drat, solvers
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


@dataclass(frozen=True)
class Hypotheses:
    """The whole puzzle under a named set of strategies (`conquer N --strategy A+B`): no line
    held, the strategies compiled in as clauses; the lookahead probes the longest lines."""

    n: int
    strategies: tuple[str, ...]

    @property
    def key(self) -> str:
        text = json.dumps([self.n, list(self.strategies)])
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    @property
    def name(self) -> str:
        return "+".join(self.strategies) or "none"

    def to_json(self) -> dict:
        return {"n": self.n, "key": self.key, "strategies": list(self.strategies)}

    def formulation(self) -> Formulation:
        from ilp_pyramid.puzzles.bel.cnf import build_cnf

        a = arrays(self.n)
        cnf = build_cnf(self.n, strategies=self.strategies)
        lines = sorted(range(a.num_lines), key=lambda line: (-int(a.line_len[line]), line))
        return Formulation(cnf.formula.clauses, line_literals(cnf, self.n), [], [], lines)


@dataclass
class Formulation:
    """What a Conqueror solves: the clauses, the literal of each (line, label), the units
    that hold lines, the first phases, and the lines a split may take, in probing order."""

    clauses: list[list[int]]
    lits: np.ndarray
    units: list[int]
    phases: list[int]
    lines: list[int]


def line_literals(cnf, n: int) -> np.ndarray:
    a = arrays(n)
    return np.array([[cnf.line_var(i, label) for label in range(a.num_labels)]
                     for i in range(a.num_lines)], dtype=np.int64)


def neighbourhood_formulation(hood: Neighbourhood) -> Formulation:
    """The whole pyramid's CNF with every line outside the neighbourhood held by a unit."""
    from ilp_pyramid.puzzles.bel.cnf import build_cnf

    a = arrays(hood.n)
    cnf = build_cnf(hood.n)
    lits = line_literals(cnf, hood.n)
    labels = np.asarray(hood.labels, dtype=np.int64)
    free = np.zeros(a.num_lines, dtype=bool)
    free[list(hood.lines)] = True
    units = [int(lits[line, labels[line]]) for line in np.flatnonzero(~free)]
    phases = [int(lits[line, labels[line]]) for line in hood.lines]
    return Formulation(cnf.formula.clauses, lits, units, phases, hood.boundary())


Problem = Neighbourhood | Hypotheses


def formulation(problem: Problem) -> Formulation:
    if isinstance(problem, Hypotheses):
        return problem.formulation()
    return neighbourhood_formulation(problem)


class Conqueror:
    """One problem's CNF in one incremental solver (a neighbourhood: every line outside it
    held by a unit clause; hypotheses: the strategies' clauses), the cubes solved under
    assumptions (learnt clauses carry over from cube to cube)."""

    def __init__(self, problem: Problem, solver: str = "cadical195") -> None:
        form = formulation(problem)
        self.form = form
        self.lits = form.lits
        self.session = SatSession(form.clauses, solvers.solver(solver))
        for unit in form.units:
            self.session.add_clause([unit])
        self.phases = form.phases
        self.boundary = form.lines

    def literals(self, cube: Cube) -> list[int]:
        return [int(self.lits[line, label]) for line, label in cube]

    def settle(self, cube: Cube, time_limit: float, proof: bool = False) -> dict:
        """SAT (with the labels), UNSAT, or split (the line, its labels left, the labels
        refuted by propagation) after `time_limit` CPU seconds of this thread without an
        answer (CPU, not wall time: a loaded machine splits the same cubes an idle one does).
        `proof`: an UNSAT cube's refutation is written again with a DRAT proof and checked by
        drat-trim or the own DRUP checker (backends/drat.py); the row says which, and the
        verdict."""
        began = time.thread_time()
        if len(cube) == len(self.boundary):  # nothing left to split on: propagation decides
            time_limit = None
        result = self.session.solve(self.literals(cube), time_limit, self.phases,
                                    clock=time.thread_time)
        if result.status == Status.SOLVED:
            model = np.asarray(result.model, dtype=np.int64)
            labels = np.argmax(model[self.lits - 1] > 0, axis=1)
            return {"status": SAT, "labels": [int(x) for x in labels],
                    "cpu": time.thread_time() - began}
        if result.status == Status.INFEASIBLE:
            row = {"status": UNSAT, "cpu": time.thread_time() - began}
            if proof:
                row["proof"] = self.checked_proof(cube)
            return row
        line, alive, refuted = self.lookahead(cube)
        return {"status": SPLIT, "line": line, "children": alive, "refuted": refuted,
                "cpu": time.thread_time() - began}

    def lookahead(self, cube: Cube) -> tuple[int, list[int], list[int]]:
        """The boundary line to split on, its labels left, its labels refuted: the first
        LOOKAHEAD_LINES lines not yet decided (more than one label left) are probed; a line
        with no label left ends the probing (the cube is refuted, it has no children)."""
        assumed = self.literals(cube)
        taken = {line for line, _ in cube}
        best, probed = None, 0
        for line in [x for x in self.boundary if x not in taken]:
            alive, reach = [], 0
            for label in range(self.lits.shape[1]):
                consistent, implied = self.session.propagate(
                    [*assumed, int(self.lits[line, label])])
                if consistent:
                    alive.append(label)
                    reach += implied
            # a line propagation has already decided (one label left) splits nothing
            rank = (len(alive) == 1, len(alive), -reach)
            if best is None or rank < best[0]:
                best = (rank, line, alive)
            probed += len(alive) != 1
            if not alive or probed >= LOOKAHEAD_LINES:
                break
        _, line, alive = best  # not None: settle() splits only cubes that leave a line free
        refuted = [label for label in range(self.lits.shape[1]) if label not in alive]
        return line, alive, refuted

    def checked_proof(self, cube: Cube) -> dict:
        """The cube refuted anew by a proof-writing CaDiCaL, the proof checked by drat-trim or
        the own DRUP checker (the units that hold lines are part of the formula checked)."""
        began = time.process_time()
        assumed = [*self.form.units, *self.literals(cube)]
        checker = drat.checker_name()
        lines = drat.refutation(self.form.clauses, assumed)
        if lines is None:  # cannot happen unless a solver is wrong: say so in the record
            return {"checker": checker, "verdict": "rejected: satisfiable when re-solved"}
        verdict = drat.check(self.form.clauses, assumed, lines)
        return {"checker": checker, "verdict": verdict, "proof_lines": len(lines),
                "cpu": round(time.process_time() - began, 2)}

    def close(self) -> None:
        self.session.close()


_CONQUERORS: dict[str, Conqueror] = {}  # per worker process: the problem in work


@atexit.register
def _close_conquerors() -> None:
    # before the interpreter tears python-sat's module down, or its __del__ fails noisily
    for conqueror in _CONQUERORS.values():
        conqueror.close()
    _CONQUERORS.clear()


def settle_cube(hood: Problem, cube: Cube, time_limit: float, proof: bool = False) -> dict:
    """One cube, on whichever process runs it (a Dask worker or this one); the problem's
    solver is built once per process and kept. `proof`: check an UNSAT answer's proof."""
    conqueror = _CONQUERORS.get(hood.key)
    if conqueror is None:
        _close_conquerors()
        conqueror = _CONQUERORS[hood.key] = Conqueror(hood)
    return {**conqueror.settle(cube, time_limit, proof), "cube": [list(pair) for pair in cube]}


def chosen_for_proof(cube: Cube, fraction: float) -> bool:
    """Is `cube`'s refutation one of the `fraction` checked? Decided by the cube alone, so a
    resumed run picks the same cubes."""
    if fraction <= 0.0:
        return False
    digest = hashlib.sha256(json.dumps([list(pair) for pair in cube]).encode()).digest()
    return int.from_bytes(digest[:4], "big") < fraction * 2**32


@dataclass
class Record:
    """STATE_DIR/conquer-KEY.jsonl: the problem (a neighbourhood, or hypotheses), then one
    line per settled cube. The count's pieces (count_split.py) keep the same record under
    another `name` (count-KEY.jsonl), a counted piece being one more kind of settled cube."""

    path: Path
    hood: Problem
    settled: dict[Cube, dict]

    @classmethod
    def open(cls, state_dir: Path, hood: Problem, name: str = "conquer") -> Record:
        path = state_dir / f"{name}-{hood.key}.jsonl"
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

    def refuted_measure(self) -> float:
        """The share of the cube tree refuted: the root weighs 1, a split shares its weight
        equally among its labels (those refuted at once among them)."""
        total, stack = 0.0, [((), 1.0)]
        while stack:
            cube, weight = stack.pop()
            row = self.settled.get(cube)
            if row is None:
                continue
            if row["status"] == UNSAT:
                total += weight
            elif row["status"] == SPLIT:
                share = weight / max(1, len(row["children"]) + len(row["refuted"]))
                total += share * len(row["refuted"])
                stack.extend(((*cube, (row["line"], label)), share) for label in row["children"])
        return total

    def checked_proofs(self) -> dict[str, int]:
        """UNSAT cubes whose proof was checked, by the checker's verdict."""
        verdicts = [row["proof"]["verdict"] for row in self.settled.values() if "proof" in row]
        return {"checked": len(verdicts), "verified": verdicts.count("verified")}

    def cpu_seconds(self) -> float:
        return sum(float(row.get("cpu", 0.0)) for row in self.settled.values())
