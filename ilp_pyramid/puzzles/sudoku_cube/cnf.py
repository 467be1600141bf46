"""The Sudoku Cube's grid as CNF: the rules of the 0-1 program (model.py) in clauses, for SAT
solvers.

The same choices as the MIP, one Boolean each: c[i, j, t] (corner i to slot j, twist t),
e[i, j, f] (edge i to slot j, flip f), z[face, r] (centre turns), w[face, d] (the face's
direction), v[facelet, g] (the facelet shows g). The rules, one by one as in the MIP default:

- assignment: exactly one (slot, orientation) per piece, one piece per slot, one turn per
  centre, one direction per face (the package's cardinality encoders, cardinality.py);
- shown: v[b, g] <-> the OR of the placements that put a g on facelet b;
- faces: every face shows every digit exactly once (exactly one v[b, g] per face and digit);
- upright: the MIP's "imply" rows as binary clauses, c[i, j, t] -> w[face, d] (or
  w[face, d] | w[face, d + 2] for a digit that looks the same after a half turn): with one
  direction per face and every digit once, exact on its own (model.py), and unit
  propagation's favourite shape. The MIP's other upright forms are relaxation aids and have
  no CNF;
- twist: the corners' twists summed mod 3 by a chain of one-hot accumulators, ending at 0;
- flip: the edges' flips XORed by a Tseitin chain, ending at 0;
- parity ("inversions"): inv[p, q] <-> slot(q) < slot(p) for every pair of pieces, through
  prefix flags before[q, j] = [slot(q) < j]; each permutation's parity is the XOR chain of
  its inversions, the centres' the XOR of their odd turns; rule "parity" makes the corner
  and edge parities equal, rule "centres" the centres' equal to them. "cuts" leaves them out
  and the rounds (rounds.py) add a no-good clause per grid of the wrong parities, as for the
  MIP.

Variables 1..n are numbered in the order above; `CubeCnf.grid` reads a model back into the
same `Grid` as the MIP's `decode`, so everything after the solve is shared.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from ilp_pyramid.puzzles.sudoku_cube.checks import (
    DEFAULT_PARITY,
    DEFAULT_SYMMETRIC,
    PARITY_RULES,
    RULES,
    check_parity,
    known_rules,
)
from ilp_pyramid.puzzles.sudoku_cube.geometry import (
    FACES,
    NUM_FACELETS,
    corner_placements,
    edge_placements,
    geometry,
)
from ilp_pyramid.puzzles.sudoku_cube.model import (
    Grid,
    chosen_grid,
    cut_choices,
    landed,
    raise_no_digit,
)
from ilp_pyramid.puzzles.sudoku_cube.state import CubeState

Clause = list[int]


@dataclass
class CubeCnf:
    """The grid's clauses and where its choices are (variable numbers, 1-based)."""

    state: CubeState
    symmetric: frozenset[int]
    parity: str
    rules: frozenset[str]
    clauses: list[Clause]
    corner_vars: dict[tuple[int, int, int], int]
    edge_vars: dict[tuple[int, int, int], int]
    centre_vars: dict[tuple[int, int], int]
    direction_vars: dict[tuple[int, int], int]
    corner_at: dict[tuple[int, int], int] = field(default_factory=dict)
    edge_at: dict[tuple[int, int], int] = field(default_factory=dict)
    top: int = 0
    build_seconds: float = 0.0
    cuts: int = 0

    @property
    def form(self) -> list[Clause]:
        """What a SAT backend takes: the clauses (the cuts append to them)."""
        return self.clauses

    @property
    def num_variables(self) -> int:
        return self.top

    @property
    def num_constraints(self) -> int:
        return len(self.clauses)

    def grid(self, answer: Any) -> Grid:
        """The grid of a SAT answer's model, its true literals (`answer`: a backend's
        Result)."""
        true = {lit for lit in answer.model or () if lit > 0}
        return chosen_grid(self, true.__contains__)

    def add_parity_cut(self, corners: Mapping[int, int], edges: Mapping[int, int],
                       centres: Mapping[int, int] | None) -> None:
        """Forbid this corner and edge permutation (and, if given, these centre turns)."""
        clause = [-v for v in cut_choices(self, corners, edges, centres)]
        self.cuts += 1
        self.clauses.append(clause)


class _Pool:
    """Fresh variable numbers, and the clauses collected."""

    def __init__(self) -> None:
        self.top = 0
        self.clauses: list[Clause] = []

    def new(self) -> int:
        self.top += 1
        return self.top

    def exactly_one(self, lits: Sequence[int]) -> None:
        if len(lits) <= 6:  # pairwise: no auxiliary variable for a small group
            self.clauses.append(list(lits))
            self.clauses += [[-a, -b] for a, b in combinations(lits, 2)]
            return
        from ilp_pyramid.cardinality import CardEnc, EncType

        encoded = CardEnc.equals(lits=list(lits), bound=1, top_id=self.top,
                                 encoding=EncType.seqcounter)
        self.clauses += encoded.clauses
        self.top = max(self.top, encoded.nv)

    def either(self, lits: Sequence[int]) -> int:
        """A variable equal to the OR of `lits`."""
        out = self.new()
        self.clauses.append([-out, *lits])
        self.clauses += [[-lit, out] for lit in lits]
        return out

    def xor(self, a: int, b: int) -> int:
        """A variable equal to a XOR b (Tseitin)."""
        out = self.new()
        self.clauses += [[-out, a, b], [-out, -a, -b], [out, -a, b], [out, a, -b]]
        return out

    def xor_chain(self, lits: Sequence[int]) -> int:
        out = lits[0]
        for lit in lits[1:]:
            out = self.xor(out, lit)
        return out

    def equal(self, a: int, b: int) -> None:
        self.clauses += [[-a, b], [a, -b]]


def build_cnf(state: CubeState, symmetric: Iterable[int] = DEFAULT_SYMMETRIC,
              parity: str = DEFAULT_PARITY, rules: Iterable[str] = RULES) -> CubeCnf:
    """The grid's CNF for `state` with the turning invariants in `rules` (() for none: the
    seed's model); NoGrid (an InputError) for a face that can never show a digit."""
    rules = known_rules(rules)
    check_parity(parity)
    start = time.perf_counter()
    symmetric = frozenset(symmetric) | DEFAULT_SYMMETRIC
    geo = geometry()
    corners, edges = corner_placements(), edge_placements()
    pool = _Pool()
    c = {key: pool.new() for key in corners}
    e = {key: pool.new() for key in edges}
    z = {(k, r): pool.new() for k in range(6) for r in range(4)}
    w = {(k, d): pool.new() for k in range(6) for d in range(4)}

    _assignment(pool, c, len(geo.corner_names), 3)
    _assignment(pool, e, len(geo.edge_names), 2)
    for k in range(6):
        pool.exactly_one([z[k, r] for r in range(4)])
        pool.exactly_one([w[k, d] for d in range(4)])

    landing = landed(state, c, e, z)
    shown: dict[tuple[int, int], int] = {}
    for b in range(NUM_FACELETS):
        for g in sorted({digit for _, digit, _ in landing[b]}):
            shown[b, g] = pool.either([var for var, digit, _ in landing[b] if digit == g])
        face = b // 9
        for var, digit, direction in landing[b]:
            group = [direction, (direction + 2) % 4] if digit in symmetric else [direction]
            pool.clauses.append([-var, *(w[face, d] for d in group)])
    for k in range(6):
        for g in range(1, 10):
            lits = [shown[b, g] for b in range(9 * k, 9 * k + 9) if (b, g) in shown]
            if not lits:
                raise_no_digit(FACES[k], g)
            pool.exactly_one(lits)

    corner_at = _slot_flags(pool, c, len(geo.corner_names), 3)
    edge_at = _slot_flags(pool, e, len(geo.edge_names), 2)
    if "twist" in rules:
        _twist_sum(pool, c, len(geo.corner_names))
    if "flip" in rules:
        flips = [pool.either([e[i, j, 1] for j in range(len(geo.edge_names))])
                 for i in range(len(geo.edge_names))]
        pool.clauses.append([-pool.xor_chain(flips)])
    if rules & PARITY_RULES and parity == "inversions":
        pi = _permutation_parity(pool, corner_at, len(geo.corner_names))
        if "parity" in rules:
            pool.equal(pi, _permutation_parity(pool, edge_at, len(geo.edge_names)))
        if "centres" in rules:
            odd = [pool.either([z[k, 1], z[k, 3]]) for k in range(6)]
            pool.equal(pi, pool.xor_chain(odd))
    return CubeCnf(state, symmetric, parity, rules, pool.clauses, c, e, z, w,
                   corner_at, edge_at, pool.top, time.perf_counter() - start)


def _assignment(pool: _Pool, var: Mapping, n: int, orientations: int) -> None:
    for i in range(n):
        pool.exactly_one([var[i, j, t] for j in range(n) for t in range(orientations)])
    for j in range(n):
        pool.exactly_one([var[i, j, t] for i in range(n) for t in range(orientations)])


def _slot_flags(pool: _Pool, var: Mapping, n: int, orientations: int) -> dict:
    """at[i, j] = the piece from slot i sits in slot j, whatever its orientation."""
    return {(i, j): pool.either([var[i, j, t] for t in range(orientations)])
            for i in range(n) for j in range(n)}


def _twist_sum(pool: _Pool, c: Mapping, n: int) -> None:
    """The corners' twists sum to 0 mod 3: acc[m] after piece i is one-hot on the sum so far
    mod 3, pushed forward and back through each piece's one-hot twist."""
    twist = [[pool.either([c[i, j, t] for j in range(n)]) for t in range(3)] for i in range(n)]
    acc = twist[0]
    for i in range(1, n):
        nxt = [pool.new() for _ in range(3)]
        for a in range(3):
            for t in range(3):
                m = (a + t) % 3
                pool.clauses.append([-acc[a], -twist[i][t], nxt[m]])
                pool.clauses.append([-acc[a], -nxt[m], twist[i][t]])
                pool.clauses.append([-twist[i][t], -nxt[m], acc[a]])
        pool.clauses += [[-x, -y] for x, y in combinations(nxt, 2)]
        acc = nxt
    pool.clauses.append([acc[0]])


def _permutation_parity(pool: _Pool, at: Mapping, n: int) -> int:
    """A variable equal to the parity of the permutation `at` (its inversions mod 2)."""
    # before[q, j] = [slot(q) < j], a prefix OR: slot(q) < slot(p) is before[q, slot(p)].
    before: dict[tuple[int, int], int] = {}
    for q in range(n):
        for j in range(1, n):
            before[q, j] = pool.either([at[q, j - 1]] + ([before[q, j - 1]] if j > 1 else []))
    inversions = []
    for p, q in combinations(range(n), 2):
        inv = pool.new()
        inversions.append(inv)
        pool.clauses.append([-at[p, 0], -inv])  # nothing sits before slot 0
        for j in range(1, n):
            pool.clauses.append([-at[p, j], -before[q, j], inv])
            pool.clauses.append([-at[p, j], before[q, j], -inv])
    return pool.xor_chain(inversions)
