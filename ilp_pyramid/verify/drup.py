"""Check a DRUP refutation: every lemma follows by unit propagation, the last is the empty clause.

An independent forward checker for the clausal proofs a CDCL solver writes (DRAT in text or
binary form, as drat-trim reads them). It shares no code with the solvers or with the package:
clauses and proof steps are plain integers, and the verdict is recomputed from them alone.

Each added lemma must be RUP (reverse unit propagation): the formula so far, with every literal
of the lemma set false, propagates to a conflict. CDCL solvers without inprocessing that adds
clauses by the RAT rule (CaDiCaL as the package runs it) write only such lemmas; a lemma that
needs RAT is rejected as "not RUP", never guessed at. The proof is accepted when the empty
clause is RUP, i.e. the formula with the lemmas propagates to a conflict by itself: at the
empty clause the proof adds, or at its end when it leaves the empty clause unstated (drat-trim
accepts those too).

Every lemma is judged, used or not: drat-trim checks backwards and judges only the lemmas the
refutation needs, so a proof with a broken lemma it never uses passes there and fails here.

Deletions remove a clause, except a unit clause or the reason of a literal the formula already
implies: those deletions are ignored, as drat-trim ignores unit deletions. Keeping a clause the
proof has deleted is safe for RUP: every clause kept is implied by the formula, and more clauses
can only make propagation find more.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

MAX_INPUT_BYTES = 2_000_000_000  # a formula or proof file read whole: refuse anything larger
_DEADLINE_EVERY = 256  # lemmas between looks at the clock


class ProofError(ValueError):
    """A formula or proof that cannot be read (not a rejected proof: that is a verdict)."""


@dataclass(frozen=True)
class Verdict:
    verified: bool
    reason: str  # "" when verified, else the first thing found wrong
    lemmas: int  # lemmas checked (the empty clause included)
    deletions_ignored: int  # unit or reason clauses the proof deleted and the checker kept


def read_limited(path: str | Path, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of `path`, refused (ProofError) when there are more than `limit`."""
    with open(path, "rb") as source:
        data = source.read(limit + 1)
    if len(data) > limit:
        raise ProofError(f"{path}: larger than {limit:,} bytes")
    return data


def parse_dimacs(text: str | bytes) -> list[list[int]]:
    """The clauses of a DIMACS CNF (comments and the `p cnf` line skipped)."""
    if isinstance(text, bytes):
        text = text.decode("ascii", errors="strict")
    numbers: list[int] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped[0] in "cp%":
            continue
        try:
            numbers.extend(int(token) for token in stripped.split())
        except ValueError:
            raise ProofError(f"not a DIMACS clause line: {stripped[:60]!r}") from None
    clauses, current = [], []
    for number in numbers:
        if number:
            current.append(number)
        else:
            clauses.append(current)
            current = []
    if current:
        raise ProofError("the last clause of the formula has no terminating 0")
    return clauses


def is_binary_proof(data: bytes) -> bool:
    """drat-trim's rule: a byte that text DRAT never holds, among the first ones, means binary
    (a text proof opening with a comment line is text)."""
    text_bytes = set(b"d\n\r\t -0123456789")
    return not data.startswith(b"c") and any(byte not in text_bytes for byte in data[:16])


def parse_proof(data: str | bytes | Iterable[str]) -> list[tuple[bool, list[int]]]:
    """Proof steps (deleted?, literals) from text DRAT (a string, lines, or bytes) or binary
    DRAT (bytes). Line breaks in text are only whitespace; a line opening with "c" is a
    comment."""
    if isinstance(data, bytes):
        if is_binary_proof(data):
            return _parse_binary(data)
        data = data.decode("ascii", errors="strict")
    lines = data.splitlines() if isinstance(data, str) else data
    steps: list[tuple[bool, list[int]]] = []
    deleting, current = False, []
    for line in lines:
        tokens = line.split()
        if tokens and tokens[0].startswith("c"):
            continue
        for token in tokens:
            if token == "d" and not current and not deleting:
                deleting = True
                continue
            try:
                number = int(token)
            except ValueError:
                raise ProofError(f"not a DRAT token: {token[:20]!r}") from None
            if number:
                current.append(number)
            else:
                steps.append((deleting, current))
                deleting, current = False, []
    if current or deleting:
        raise ProofError("the last proof step has no terminating 0")
    return steps


def _parse_binary(data: bytes) -> list[tuple[bool, list[int]]]:
    steps: list[tuple[bool, list[int]]] = []
    at, size = 0, len(data)
    while at < size:
        kind = data[at]
        at += 1
        if kind not in (0x61, 0x64):  # 'a' adds, 'd' deletes
            raise ProofError(f"binary DRAT: unknown step byte {kind:#x} at {at - 1}")
        literals = []
        while True:
            value, shift = 0, 0
            while True:
                if at >= size:
                    raise ProofError("binary DRAT: the proof ends inside a step")
                byte = data[at]
                at += 1
                value |= (byte & 0x7F) << shift
                shift += 7
                if byte < 0x80:
                    break
            if value == 0:
                break
            literals.append(-(value >> 1) if value & 1 else value >> 1)
        steps.append((kind == 0x64, literals))
    return steps


class _Checker:
    """Clauses with two watched literals over a root-level assignment kept fully propagated.

    Arrays by literal are lists of 2 * variables + 1 indexed by the literal itself: -v lands
    at the far end (Python's negative index), apart from every +v."""

    def __init__(self, variables: int) -> None:
        size = 2 * variables + 1
        self.value = [0] * size  # by literal: 1 true, -1 false, 0 open
        self.reason = [-1] * size  # by true root-level literal: the clause that implied it
        self.watches: list[list[int]] = [[] for _ in range(size)]
        self.clauses: list[list[int] | None] = []
        self.by_key: dict[tuple[int, ...], list[int]] = {}
        self.trail: list[int] = []
        self.inconsistent = False  # the formula alone propagates to a conflict
        self.deletions_ignored = 0

    def assign(self, literal: int, reason: int) -> None:
        self.value[literal] = 1
        self.value[-literal] = -1
        self.reason[literal] = reason
        self.trail.append(literal)

    def propagate(self, head: int) -> bool:
        """Unit propagation from trail[head:]; False on a conflict."""
        value, watches, clauses, reason = self.value, self.watches, self.clauses, self.reason
        trail = self.trail
        while head < len(trail):
            false = -trail[head]
            head += 1
            watching = watches[false]
            kept = 0
            at = 0
            count = len(watching)
            while at < count:
                index = watching[at]
                at += 1
                clause = clauses[index]
                if clause is None:  # deleted: its watches go lazily
                    continue
                if clause[0] == false:
                    clause[0], clause[1] = clause[1], false
                other = clause[0]
                if value[other] == 1:
                    watching[kept] = index
                    kept += 1
                    continue
                for position in range(2, len(clause)):
                    candidate = clause[position]
                    if value[candidate] != -1:
                        clause[1], clause[position] = candidate, false
                        watches[candidate].append(index)
                        break
                else:
                    watching[kept] = index
                    kept += 1
                    if value[other] == -1:
                        del watching[kept:at]
                        return False
                    value[other] = 1
                    value[-other] = -1
                    reason[other] = index
                    trail.append(other)
            del watching[kept:]
        return True

    def is_rup(self, lemma: Sequence[int]) -> bool:
        if self.inconsistent:
            return True
        value = self.value
        start = len(self.trail)
        conflict = False
        for literal in lemma:
            state = value[literal]
            if state == 1:
                conflict = True
                break
            if state == 0:
                self.assign(-literal, -1)
        if not conflict:
            conflict = not self.propagate(start)
        for literal in self.trail[start:]:
            value[literal] = value[-literal] = 0
        del self.trail[start:]
        return conflict

    def add(self, literals: Sequence[int]) -> None:
        """Add a clause implied by the formula, and propagate it at the root."""
        clause = list(dict.fromkeys(literals))
        present = set(clause)
        if self.inconsistent or any(-literal in present for literal in clause):
            return  # nothing more to learn, or a tautology: never propagates
        index = len(self.clauses)
        self.by_key.setdefault(tuple(sorted(clause)), []).append(index)
        value = self.value
        clause.sort(key=lambda literal: value[literal] == -1)  # open or true ones first
        self.clauses.append(clause)
        if not clause or value[clause[0]] == -1:
            self.inconsistent = True
            return
        if len(clause) >= 2:
            self.watches[clause[0]].append(index)
            self.watches[clause[1]].append(index)
        if (len(clause) == 1 or value[clause[1]] == -1) and value[clause[0]] == 0:
            start = len(self.trail)
            self.assign(clause[0], index)
            if not self.propagate(start):
                self.inconsistent = True

    def delete(self, literals: Sequence[int]) -> None:
        indices = self.by_key.get(tuple(sorted(set(literals))))
        if not indices:
            return  # drat-trim too ignores deleting a clause it does not hold
        index = indices[-1]
        clause = self.clauses[index]
        value, reason = self.value, self.reason
        if len(clause) == 1 or any(value[literal] == 1 and reason[literal] == index
                                   for literal in clause):
            self.deletions_ignored += 1
            return
        indices.pop()
        self.clauses[index] = None


def check(clauses: Iterable[Sequence[int]], steps: Iterable[tuple[bool, Sequence[int]]],
          time_limit: float | None = None) -> Verdict:
    """The verdict on a refutation of `clauses` given as proof `steps` (parse_proof)."""
    clauses = [list(clause) for clause in clauses]
    steps = list(steps)
    variables = max((abs(literal) for rows in (clauses, (s for _, s in steps))
                     for row in rows for literal in row), default=0)
    checker = _Checker(variables)
    for clause in clauses:
        checker.add(clause)
    deadline = None if time_limit is None else time.monotonic() + time_limit
    lemmas = 0
    for number, (deleted, literals) in enumerate(steps, start=1):
        if deleted:
            checker.delete(literals)
            continue
        lemmas += 1
        if deadline is not None and lemmas % _DEADLINE_EVERY == 0 and time.monotonic() > deadline:
            return Verdict(False, f"time limit reached at lemma {lemmas}", lemmas,
                           checker.deletions_ignored)
        if not checker.is_rup(literals):
            return Verdict(False, f"lemma {lemmas} is not RUP (RAT checking is not implemented;"
                                  f" proof step {number})", lemmas, checker.deletions_ignored)
        if not literals:
            return Verdict(True, "", lemmas, checker.deletions_ignored)
        checker.add(literals)
    if checker.is_rup([]):  # the lemmas' units clash: the empty clause follows unstated
        return Verdict(True, "", lemmas, checker.deletions_ignored)
    return Verdict(False, "the proof does not derive the empty clause", lemmas,
                   checker.deletions_ignored)


def check_files(cnf: str | Path, proof: str | Path, time_limit: float | None = None,
                limit: int = MAX_INPUT_BYTES) -> Verdict:
    """The verdict on the proof file `proof` (text or binary DRAT) for the DIMACS file `cnf`."""
    return check(parse_dimacs(read_limited(cnf, limit)), parse_proof(read_limited(proof, limit)),
                 time_limit)
