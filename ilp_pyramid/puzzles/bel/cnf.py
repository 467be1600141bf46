"""Bel's Pyramid as CNF (python-sat), the SAT twin of `model.py`.

Variables:
- x[line, l]: line carries label l; exactly one label per line (one-hot).
- y[cell, k]: cell shows cube k, *defined* from the x literals of the cell's three lines.
- exactly one cell per cube (a cardinality constraint, encoded by `card`).

Encodings of y ("cell shows cube"):
- "counts" (default): for every ordered label triple (a, b, d) one clause
  x[X,a] & x[Y,b] & x[Z,d] -> y[cell, cube{a,b,d}], plus the converse read off the label
  counts of the cube (y -> every label of the cube occurs often enough on the three lines),
  plus the implied y -> "each of the cell's lines carries a label of the cube".
  y is then exactly "the cell shows k" and no other variable is needed.
- "support": the forward clauses only. A true y may be spurious, but it still uses up its
  cube, so "at most one cell per cube" keeps the model exact; fewer clauses, weaker propagation.
- "rotations": one variable per cell x cube x rotation (the reference tool's model, ~120k
  placement variables at N=5), r <-> x[X,a] & x[Y,b] & x[Z,d] and y <-> OR of its rotations.

- "counts-pb": "counts" plus the spec's counting condition (for every label, the lengths of
  its lines add up to N(2N+1)) as pseudo-Boolean equalities, encoded by pysat.pb (needs the
  optional `pindakaas`: `pip install ilp-pyramid[pb]`). `counting=True` adds the same to any
  encoding; `add_pb` adds a PB constraint of one's own to a built encoding.

Every variable is described by a comment line in the DIMACS text (`c x 17 Z 3 4 label 2`,
`c y 1500 cell 0 0 0 cube 0 1 2`), and the header comment `c bel n=5 encoding=counts ...`
names the model, so an outside solver's model reads back without this code (see `read_cnf`).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations, permutations, product

from pysat.formula import CNF, IDPool

from ilp_pyramid.cardinality import CardEnc, EncType, pb_clauses
from ilp_pyramid.errors import InputError
from ilp_pyramid.formats.dimacs import (  # noqa: F401 - certificate reader, moved there
    SATISFIABLE,
    UNKNOWN,
    UNSATISFIABLE,
    dimacs_text,
    parse_certificate,
)
from ilp_pyramid.formats.fileio import write_atomic
from ilp_pyramid.puzzles.bel.geometry import Pyramid, pyramid
from ilp_pyramid.puzzles.bel.solution import BelSolution

ENCODINGS = ("counts", "support", "rotations", "counts-pb")
DEFAULT_ENCODING = "counts"

# Cardinality encodings offered for the "exactly one" constraints (pysat.card names).
CARD_ENCODINGS = {
    "seqcounter": EncType.seqcounter,
    "totalizer": EncType.totalizer,
    "ladder": EncType.ladder,
    "pairwise": EncType.pairwise,
    "bitwise": EncType.bitwise,
    "sortnetwrk": EncType.sortnetwrk,
    "cardnetwrk": EncType.cardnetwrk,
    "mtotalizer": EncType.mtotalizer,
    "kmtotalizer": EncType.kmtotalizer,
}
DEFAULT_CARD = "seqcounter"
# Exactly-one over a line's 2N-1 labels: pairwise is the shortest and strongest for so few.
LINE_CARD = "pairwise"

# Numbers of at most 18 ASCII digits (parsing.MAX_DIGITS), as everywhere input is read.
_HEADER = re.compile(r"^c bel n=([0-9]{1,18})\b(.*)$", re.MULTILINE)
_X_COMMENT = re.compile(r"^c x ([0-9]{1,18}) ([XYZ]) ([0-9]{1,18}) ([0-9]{1,18}) "
                        r"label ([0-9]{1,18})\s*$", re.MULTILINE)


@dataclass
class BelCnf:
    """The CNF of one pyramid; clauses may be appended to `formula` (new variables from `pool`)."""

    pyramid: Pyramid
    encoding: str
    card: str
    counting: bool
    pool: IDPool
    formula: CNF
    build_seconds: float = 0.0
    extras: list[str] = field(default_factory=list)  # names of what was compiled on top

    @property
    def n(self) -> int:
        return self.pyramid.n

    def line_var(self, line_index: int, label: int) -> int:
        """DIMACS variable of "line `line_index` (as in Pyramid.lines) carries `label`"."""
        return self.pool.id(("x", line_index, label))

    def cell_var(self, cell_index: int, cube_index: int) -> int:
        """DIMACS variable of "cell `cell_index` shows cube `cube_index`"."""
        return self.pool.id(("y", cell_index, cube_index))

    @property
    def num_variables(self) -> int:
        return max(self.formula.nv, self.pool.top)

    @property
    def num_clauses(self) -> int:
        return len(self.formula.clauses)

    def header(self) -> str:
        extras = f" extras={','.join(self.extras)}" if self.extras else ""
        return (f"c bel n={self.n} encoding={self.encoding} card={self.card} "
                f"counting={'yes' if self.counting else 'no'}{extras}")

    def comments(self) -> list[str]:
        """Header plus one comment per named variable (line labels first, then cell/cube)."""
        geo = self.pyramid
        out = [self.header(),
               "c variables: x <var> <family> <a> <b> label <l> = line carries label l "
               "(Z a=x b=y, X a=x b=h, Y a=y b=h); y <var> cell <x> <y> <h> cube <a> <b> <c>"]
        for i, line in enumerate(geo.lines):
            for label in range(geo.num_labels):
                out.append(f"c x {self.line_var(i, label)} {line.family} {line.a} {line.b} "
                           f"label {label}")
        for c, cell in enumerate(geo.cells):
            for k, cube in enumerate(geo.cubes):
                out.append(f"c y {self.cell_var(c, k)} cell {cell.x} {cell.y} {cell.h} "
                           f"cube {cube[0]} {cube[1]} {cube[2]}")
        return out

    def dimacs(self) -> str:
        """The whole DIMACS text, comments first."""
        return dimacs_text(self.formula.clauses, self.num_variables, self.comments())

    def write(self, path: str | os.PathLike) -> None:
        """Write the DIMACS text atomically (gzip when the name ends in .gz)."""
        write_atomic(path, self.dimacs())

    def decode(self, model: Iterable[int]) -> BelSolution:
        """Line labels from a SAT model (true literals); InputError if a line has not one."""
        true = {lit for lit in model if lit > 0}
        geo = self.pyramid
        chosen = {(line.family, line.a, line.b):
                  [lab for lab in range(geo.num_labels) if self.line_var(i, lab) in true]
                  for i, line in enumerate(geo.lines)}
        return BelSolution.from_choices(self.n, chosen, "model")


def check_encoding(encoding: str, card: str) -> None:
    if encoding not in ENCODINGS:
        raise InputError(f"unknown CNF encoding {encoding!r} (choose from {', '.join(ENCODINGS)})")
    if card not in CARD_ENCODINGS:
        raise InputError(f"unknown cardinality encoding {card!r} "
                         f"(choose from {', '.join(CARD_ENCODINGS)})")


def build_cnf(n: int, encoding: str = DEFAULT_ENCODING, card: str = DEFAULT_CARD,
              counting: bool = False, strategies: Sequence[str] = ()) -> BelCnf:
    """The CNF of Bel's Pyramid with N levels (see the module doc for the encodings).

    `strategies` are compiled in as clauses, the same rules `model.build_model` adds as rows.
    """
    check_encoding(encoding, card)
    counting = counting or encoding == "counts-pb"
    start = time.perf_counter()
    geo = pyramid(n)
    pool = IDPool()
    labels = range(geo.num_labels)
    # Number the named variables first, in a fixed order: x (line, label), then y (cell, cube).
    x = [[pool.id(("x", i, lab)) for lab in labels] for i in range(len(geo.lines))]
    y = [[pool.id(("y", c, k)) for k in range(len(geo.cubes))] for c in range(len(geo.cells))]
    clauses: list[list[int]] = []
    for lits in x:
        clauses += exactly_one(lits, pool, LINE_CARD)
    if encoding == "rotations":
        _rotations(geo, x, y, pool, clauses)
    else:
        _forward(geo, x, y, clauses)
        if encoding == "counts":
            _backward(geo, x, y, clauses)
    for k in range(len(geo.cubes)):
        clauses += exactly_one([y[c][k] for c in range(len(geo.cells))], pool, card)
    if counting:
        clauses += counting_clauses(geo, x, pool)
    formula = CNF()
    formula.clauses = clauses
    formula.nv = pool.top
    cnf = BelCnf(geo, encoding, card, counting, pool, formula)
    if strategies:
        add_strategy_clauses(cnf, n, strategies)
    cnf.build_seconds = time.perf_counter() - start
    return cnf


def add_strategy_clauses(cnf: BelCnf, n: int, strategies: Sequence[str]) -> None:
    """Append the strategies' clauses to a built Bel CNF (same rules as the MIP rows)."""
    from ilp_pyramid.puzzles.bel.rules_cnf import compile_clauses
    from ilp_pyramid.puzzles.bel.strategies import rules_for

    geo = cnf.pyramid
    clauses = compile_clauses(rules_for(n, list(strategies)), cnf.line_var, cnf.pool,
                              geo.num_labels, geo.line_lengths)
    cnf.formula.extend(clauses)
    cnf.extras += list(strategies)


def exactly_one(lits: list[int], pool: IDPool, card: str) -> list[list[int]]:
    if len(lits) == 1:
        return [[lits[0]]]
    return CardEnc.equals(lits=lits, bound=1, vpool=pool, encoding=CARD_ENCODINGS[card]).clauses


def _forward(geo: Pyramid, x, y, clauses: list[list[int]]) -> None:
    """Every ordered label triple on (X, Y, Z) implies the cube it makes."""
    cube_of = {}
    for k, cube in enumerate(geo.cubes):
        for turn in set(permutations(cube)):
            cube_of[turn] = k
    triples = [(a, b, d, cube_of[a, b, d]) for a, b, d in product(range(geo.num_labels), repeat=3)]
    for c, (lx, ly, lz) in enumerate(geo.cell_lines):
        xx, xy, xz, yc = x[lx], x[ly], x[lz], y[c]
        clauses.extend([-xx[a], -xy[b], -xz[d], yc[k]] for a, b, d, k in triples)


def _backward(geo: Pyramid, x, y, clauses: list[list[int]]) -> None:
    """y[c, k] -> the three lines show k: each label of k occurs at least as often as in k.

    With one label per line, "at least count(l) of the 3 lines carry l" for every l of k fills
    all three lines, so this is the exact converse. "At least m of 3" is: every 4-m of the
    three lines contain one that carries l.

    Implied, and added for propagation: y[c, k] -> each line of c carries one of k's labels.
    Without them, a line fixed to a label outside k (a YStep line, a decision) kills y[c, k]
    only through a pigeonhole argument the solver must learn; with them, by unit propagation,
    so "one cell per cube" sees at once which cells are left for k. Measured on N=5 with
    ConstructiveTripleDiagonal + YStep: see docs/sat.md.
    """
    for c, lines in enumerate(geo.cell_lines):
        for k, cube in enumerate(geo.cubes):
            yk = -y[c][k]
            labels = sorted(set(cube))
            for label in labels:
                need = cube.count(label)
                for group in combinations(lines, 4 - need):
                    clauses.append([yk] + [x[i][label] for i in group])
            if len(labels) > 1:  # for (l,l,l) the clauses above already say it
                clauses.extend([yk] + [x[i][label] for label in labels] for i in lines)


def _rotations(geo: Pyramid, x, y, pool: IDPool, clauses: list[list[int]]) -> None:
    """r[c, (a, b, d)] <-> x[X,a] & x[Y,b] & x[Z,d];  y[c, k] <-> OR of k's rotations."""
    rotations = [sorted(set(permutations(cube))) for cube in geo.cubes]
    for c, (lx, ly, lz) in enumerate(geo.cell_lines):
        for k, turns in enumerate(rotations):
            yk = y[c][k]
            placed = []
            for a, b, d in turns:
                r = pool.id(("r", c, a, b, d))
                placed.append(r)
                clauses += [[-r, x[lx][a]], [-r, x[ly][b]], [-r, x[lz][d]],
                            [r, -x[lx][a], -x[ly][b], -x[lz][d]], [-r, yk]]
            clauses.append([-yk] + placed)


def counting_clauses(geo: Pyramid, x, pool: IDPool) -> list[list[int]]:
    """For every label: sum of the lengths of the lines carrying it == N(2N+1)."""
    out: list[list[int]] = []
    for label in range(geo.num_labels):
        lits = [x[i][label] for i in range(len(geo.lines))]
        out += pb_clauses(lits, geo.line_lengths, "==", geo.label_total, pool)
    return out


def add_pb(cnf: BelCnf, lits: Sequence[int], weights: Sequence[int], relation: str,
           bound: int) -> None:
    """Append a pseudo-Boolean constraint over `cnf`'s literals to its formula."""
    for clause in pb_clauses(lits, weights, relation, bound, cnf.pool):
        cnf.formula.append(clause)


# --- reading DIMACS back: header and variable map from the comments ----------------------


@dataclass
class CnfInfo:
    n: int
    header: str
    line_vars: dict[int, tuple[str, int, int, int]]  # var -> (family, a, b, label)


def read_cnf_info(text: str) -> CnfInfo:
    """The model's N and its x-variable map, from the comment lines of an exported CNF."""
    header = _HEADER.search(text)
    if header is None:
        raise InputError("not a Bel CNF exported by ilp-pyramid (no 'c bel n=' header)")
    n = int(header.group(1))
    line_vars = {}
    for match in _X_COMMENT.finditer(text):
        var, family, a, b, label = match.groups()
        line_vars[int(var)] = (family, int(a), int(b), int(label))
    if not line_vars:
        raise InputError("the CNF has no 'c x' comments mapping variables to line labels")
    return CnfInfo(n, header.group(0), line_vars)


def decode_certificate(info: CnfInfo, literals: Iterable[int]) -> BelSolution:
    """Line labels from the true literals, through the CNF's own variable map."""
    chosen: dict[tuple[str, int, int], list[int]] = {}
    assigned = set()
    for lit in literals:
        assigned.add(abs(lit))
        if lit > 0 and lit in info.line_vars:
            family, a, b, label = info.line_vars[lit]
            chosen.setdefault((family, a, b), []).append(label)
    missing = [v for v in info.line_vars if v not in assigned]
    if len(missing) == len(info.line_vars):
        raise InputError("the certificate assigns none of the model's line variables")
    return BelSolution.from_choices(info.n, chosen, "certificate")
