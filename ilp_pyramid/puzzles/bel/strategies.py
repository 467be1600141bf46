"""Strategies: extra constraints written once, as data, and compiled for MIP and SAT alike.

A strategy is a list of *rules* over line labels. Five kinds of rule cover the whole
catalogue of the reference tool, and one more declares a Precedence instead of compiling it:

- Allowed(lines, tuples): the labels of `lines` form one of `tuples` (fixings, domains,
  the bottom-centre cube).
- LexLeq(left, right): the label list of `left` is lexicographically <= that of `right`.
- Monotone(lines): labels are non-decreasing along `lines`.
- Precedence(lines): reading `lines` in order, each new label is at most one more than the
  largest seen so far (value precedence: breaks the (2N-1)! label permutations).
- Orbitope(lines): the meaning of Precedence(lines), declared to the MIP solver as a
  partitioning orbitope (rows: the lines in that order, columns: the labels) instead of
  written as rows; the CNF gets precedence clauses.
- LengthSum(lines, label, sense, rhs): the lengths of those of `lines` that carry `label`
  add up to (==) or at most (<=) rhs.

`kind` says what a strategy may do to the problem: "symmetry" keeps at least one solution
whenever one exists, "valid" keeps every solution, "hypothesis" may make it infeasible.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import permutations

from ilp_pyramid.puzzles.bel.geometry import Pyramid, pyramid


@dataclass(frozen=True)
class Allowed:
    lines: tuple[int, ...]
    tuples: frozenset[tuple[int, ...]]


@dataclass(frozen=True)
class LexLeq:
    left: tuple[int, ...]
    right: tuple[int, ...]


@dataclass(frozen=True)
class Monotone:
    lines: tuple[int, ...]


@dataclass(frozen=True)
class Precedence:
    lines: tuple[int, ...]


@dataclass(frozen=True)
class Orbitope(Precedence):
    """Precedence(lines) as a partitioning orbitope: each line carries exactly one label and
    any permutation of the labels maps solutions to solutions, so the x[line, label] matrix
    is one. The representative SCIP's orbitope keeps (columns lexicographically
    non-increasing, rows read in `lines` order) is exactly value precedence in that order."""


@dataclass(frozen=True)
class LengthSum:
    lines: tuple[int, ...]
    label: int
    sense: str  # "==" or "<="
    rhs: int


Rule = Allowed | LexLeq | Monotone | Precedence | Orbitope | LengthSum


@dataclass(frozen=True)
class Strategy:
    name: str
    kind: str  # "symmetry", "valid" or "hypothesis"
    description: str
    rules: Callable[[Pyramid], list[Rule]] = field(repr=False, compare=False)
    # Symmetries this strategy spends; two symmetry strategies combine only as listed below.
    spends: frozenset[str] = frozenset()


# ---- helpers over the geometry -------------------------------------------------------------

def _fix(geo: Pyramid, family: str, a: int, b: int, label: int) -> Allowed:
    return Allowed((geo.line(family, a, b),), frozenset({(label,)}))


def _below(line: int, bound: int) -> Allowed:
    return Allowed((line,), frozenset((label,) for label in range(bound)))


def _stack(geo: Pyramid, family: str, a: int) -> tuple[int, ...]:
    return tuple(geo.line(family, a, h) for h in range(geo.t(a)))


def _reading_order(geo: Pyramid) -> tuple[int, ...]:
    """Z row by row, then X (by x, then h), then Y: the order the drawing is read in."""
    return tuple(range(len(geo.lines)))


def _centre(geo: Pyramid) -> int:
    return geo.n - 1


# ---- the catalogue -------------------------------------------------------------------------

def _bottom_centre(geo: Pyramid) -> list[Rule]:
    c = _centre(geo)
    lines = (geo.line("X", c, 0), geo.line("Y", c, 0), geo.line("Z", c, c))
    canonical = [(0, 0, 0), (0, 0, 1), (0, 1, 2)]
    tuples = {turn for cube in canonical for turn in permutations(cube)
              if max(turn) < geo.num_labels}
    return [Allowed(lines, frozenset(tuples))]


def _top_cube(geo: Pyramid) -> list[Rule]:
    # The top swap (symmetry.py) trades just these two labels: X <= Y is "V <=lex swap(V)"
    # in the reading order, where X comes before Y.
    c = _centre(geo)
    return [Monotone((geo.line("X", c, c), geo.line("Y", c, c)))]


def _cake_slices(geo: Pyramid) -> list[Rule]:
    rules: list[Rule] = []
    for family in ("X", "Y"):
        for a in range(geo.n - 1):
            rules.append(LexLeq(_stack(geo, family, a), _stack(geo, family, geo.base - 1 - a)))
    return rules


def _all_x_before_y(geo: Pyramid) -> list[Rule]:
    xs = tuple(i for a in range(geo.base) for i in _stack(geo, "X", a))
    ys = tuple(i for a in range(geo.base) for i in _stack(geo, "Y", a))
    return [LexLeq(xs, ys)]


def _anti_mirror(geo: Pyramid) -> list[Rule]:
    return _bottom_centre(geo) + _top_cube(geo) + _cake_slices(geo) + _all_x_before_y(geo)


def _increasing_x(geo: Pyramid) -> list[Rule]:
    return [Monotone(tuple(geo.line("X", x, 0) for x in range(geo.base)))]


def _label_permutation(geo: Pyramid) -> list[Rule]:
    return [Precedence(_reading_order(geo))]


def _label_orbitope(geo: Pyramid) -> list[Rule]:
    return [Orbitope(_reading_order(geo))]


def _label_permutation_importance(geo: Pyramid) -> list[Rule]:
    c = _centre(geo)
    lines = [geo.line("Z", c, c)] + list(_stack(geo, "X", c)) + list(_stack(geo, "Y", c))
    lines.sort(key=lambda i: -geo.line_lengths[i])  # stable: Z, then X, then Y on ties
    return [Precedence(tuple(lines))]


def _face_eq(geo: Pyramid) -> list[Rule]:
    every = tuple(range(len(geo.lines)))
    return [LengthSum(every, label, "==", geo.label_total) for label in range(geo.num_labels)]


def _face_le(geo: Pyramid) -> list[Rule]:
    # In one family, the cells whose line of that family carries l show distinct cubes that
    # contain l: at most C(L+1, 2) of them.
    labels = geo.num_labels
    containing = labels * (labels + 1) // 2
    return [LengthSum(tuple(geo.family_lines(family)), label, "<=", containing)
            for family in ("X", "Y", "Z") for label in range(labels)]


def _nested_bound(geo: Pyramid, level_of: Callable[[str, int, int], int]) -> list[Rule]:
    """Lines in the k-th nested sub-pyramid carry only labels < 2(N-k)-1."""
    rules: list[Rule] = []
    for i, line in enumerate(geo.lines):
        k = level_of(line.family, line.a, line.b)
        if k >= 1:
            rules.append(_below(i, 2 * (geo.n - k) - 1))
    return rules


def _constructive_bottom(geo: Pyramid) -> list[Rule]:
    # The cells at height >= k form a pyramid of N-k levels; a line reaching height k must
    # carry one of its 2(N-k)-1 labels.
    def level(family: str, a: int, b: int) -> int:
        if family == "Z":
            return min(geo.t(a), geo.t(b)) - 1
        return b

    return _nested_bound(geo, level)


def _constructive_shell(geo: Pyramid) -> list[Rule]:
    # Peeling k shells leaves the cells k <= x, y <= B-1-k, h < min(t(x), t(y)) - k: a
    # pyramid of N-k levels.
    def level(family: str, a: int, b: int) -> int:
        if family == "Z":
            return min(geo.t(a), geo.t(b)) - 1
        return geo.t(a) - 1 - b

    return _nested_bound(geo, level)


def _constructive_diagonal(geo: Pyramid) -> list[Rule]:
    # The pyramid of N-k levels in the corner x, y < 2(N-k)-1 (its own t_k).
    def level(family: str, a: int, b: int) -> int:
        best = 0
        for k in range(1, geo.n):
            base_k = 2 * (geo.n - k) - 1

            def t_k(i: int, base_k: int = base_k) -> int:
                return min(i + 1, base_k - i)

            inside = (a < base_k and b < base_k) if family == "Z" else (
                a < base_k and b < t_k(a))
            if inside:
                best = k
        return best

    return _nested_bound(geo, level)


def _triple_diagonal(geo: Pyramid) -> list[Rule]:
    rules: list[Rule] = []
    for label in range(geo.num_labels):
        rules += [_fix(geo, "X", label, 0, label), _fix(geo, "Y", label, 0, label),
                  _fix(geo, "Z", label, label, label)]
    return rules


def _z_ring(geo: Pyramid) -> list[Rule]:
    last = geo.base - 1
    fixed = {}
    for i in range(geo.base):
        fixed[(0, i)] = i
        fixed[(last, i)] = i
        fixed[(i, 0)] = 0
        fixed[(i, last)] = last
    return [_fix(geo, "Z", x, y, label) for (x, y), label in sorted(fixed.items())]


def _y_step(geo: Pyramid) -> list[Rule]:
    return [_fix(geo, "Y", y, h, y + h) for y in range(geo.base) for h in range(geo.t(y))]


def _x_step(geo: Pyramid) -> list[Rule]:
    return [_fix(geo, "X", x, h, x - h) for x in range(geo.base) for h in range(geo.t(x))]


def _automorphism(geo: Pyramid) -> list[Rule]:
    # Lex-leader for each generator g of the problem's group (slice swaps, transpose, top
    # swap): V <= g(V), V read in the reading order. Positions g leaves alone compare equal
    # and are dropped.
    from ilp_pyramid.puzzles.bel.symmetry import generators, line_permutation

    rules: list[Rule] = []
    for generator in generators(geo.n):
        image = line_permutation(geo.n, generator)
        # V <= g(V) compares V[i] with V[g^-1(i)]: the label g moves onto position i.
        inverse = [0] * len(image)
        for i, j in enumerate(image):
            inverse[j] = i
        pairs = [(i, inverse[i]) for i in _reading_order(geo) if inverse[i] != i]
        if pairs:
            left, right = zip(*pairs, strict=True)
            rules.append(LexLeq(tuple(left), tuple(right)))
    return rules


_LABELS, _TRANSPOSE, _SLICES, _TOP = "labels", "transpose", "slices", "top swap"

CATALOGUE: dict[str, Strategy] = {s.name: s for s in [
    Strategy("BottomCenter012", "symmetry",
             "bottom centre cube is {0,0,0}, {0,0,1} or {0,1,2} (any turn)",
             _bottom_centre, frozenset({_LABELS})),
    Strategy("TopCubeOrdering", "symmetry", "at the top cube, X label <= Y label",
             _top_cube, frozenset({_TOP})),
    Strategy("CakeSliceOrdering", "symmetry",
             "X(x,.) <=lex X(B-1-x,.) and Y(y,.) <=lex Y(B-1-y,.) for every mirror pair",
             _cake_slices, frozenset({_SLICES})),
    Strategy("AntiMirror", "symmetry",
             "BottomCenter012 + TopCubeOrdering + CakeSliceOrdering + all X <=lex all Y",
             _anti_mirror, frozenset({_LABELS, _TRANSPOSE, _SLICES, _TOP})),
    Strategy("IncreasingXAxis", "hypothesis", "X(0,0) <= X(1,0) <= ... <= X(B-1,0)",
             _increasing_x, frozenset({_LABELS})),
    Strategy("LabelPermutation", "symmetry",
             "value precedence reading Z row by row, then X, then Y",
             _label_permutation, frozenset({_LABELS})),
    Strategy("LabelOrbitope", "symmetry",
             "LabelPermutation declared to SCIP as a partitioning orbitope (lines x labels), "
             "not as rows; MIP: SCIP only",
             _label_orbitope, frozenset({_LABELS})),
    Strategy("LabelPermutationImportance", "symmetry",
             "value precedence on the centre Z and centre X/Y stacks, longest first",
             _label_permutation_importance, frozenset({_LABELS})),
    Strategy("Automorphism", "symmetry",
             "lex-leader (reading order) for the generators of the incidence graph's "
             "automorphism group (slice swaps, transpose, top swap)",
             _automorphism, frozenset({_TRANSPOSE, _SLICES, _TOP})),
    Strategy("FacePBEQ", "valid", "per label, the lengths of its lines add up to N(2N+1)",
             _face_eq),
    Strategy("FacePBLE", "valid",
             "per family and label, total line length <= number of cubes containing it",
             _face_le),
    Strategy("ConstructiveBottom", "hypothesis",
             "top N-1 levels use only labels < 2N-3, recursively (UNSAT at N=4)",
             _constructive_bottom),
    Strategy("ConstructiveShell", "hypothesis",
             "inner N-1 pyramid under the shell uses only labels < 2N-3, recursively "
             "(UNSAT at N=4)", _constructive_shell),
    Strategy("ConstructiveDiagonal", "hypothesis",
             "an N-1 pyramid in the corner x, y < 2N-3 uses labels < 2N-3, recursively "
             "(UNSAT at N=5)", _constructive_diagonal),
    Strategy("ConstructiveTripleDiagonal", "hypothesis",
             "cube (l,l,l) at (l,l,0) for every label l", _triple_diagonal),
    Strategy("ZRing", "hypothesis",
             "Z(0,y)=y, Z(B-1,y)=y, Z(x,0)=0, Z(x,B-1)=B-1", _z_ring),
    Strategy("YStep", "hypothesis", "Y(y,h) = y + h", _y_step),
    Strategy("XStep", "hypothesis", "X(x,h) = x - h (with YStep: UNSAT at N=3)", _x_step),
]}

# Pairs of symmetry strategies proved to keep a solution together (see docs/strategies.md):
# BottomCenter012's cube is mapped onto itself by every element of the geometric group, so it
# combines with the geometric breakers. TopCubeOrdering spends only the top swap, which moves
# no other line: it combines with CakeSliceOrdering (disjoint lines), and it is the lex-leader
# constraint V <= swap(V) in the reading order, so it combines with the other lex-leader
# constraints of that order (LabelPermutation, Automorphism) and with
# LabelPermutationImportance, whose order ends with the top X then the top Y line. AntiMirror
# is sound on its own (relabel, sort slices, transpose, top swap, in that order) and combines
# with its own parts.
COMBINE = {
    frozenset({"BottomCenter012", "TopCubeOrdering"}),
    frozenset({"BottomCenter012", "CakeSliceOrdering"}),
    frozenset({"BottomCenter012", "Automorphism"}),
    frozenset({"TopCubeOrdering", "CakeSliceOrdering"}),
    frozenset({"TopCubeOrdering", "Automorphism"}),
    frozenset({"TopCubeOrdering", "LabelPermutation"}),
    frozenset({"TopCubeOrdering", "LabelPermutationImportance"}),
    frozenset({"LabelPermutation", "Automorphism"}),
    # LabelOrbitope keeps exactly the solutions LabelPermutation keeps (Orbitope's docstring):
    # it combines with what LabelPermutation combines with.
    frozenset({"TopCubeOrdering", "LabelOrbitope"}),
    frozenset({"LabelOrbitope", "Automorphism"}),
    frozenset({"AntiMirror", "BottomCenter012"}),
    frozenset({"AntiMirror", "TopCubeOrdering"}),
    frozenset({"AntiMirror", "CakeSliceOrdering"}),
}


def combine(first: str, second: str) -> bool:
    """Do two strategies keep a solution together (whenever the problem has one)?"""
    a, b = CATALOGUE[first], CATALOGUE[second]
    if "hypothesis" in (a.kind, b.kind):
        return False
    if "valid" in (a.kind, b.kind):
        return True
    return frozenset({first, second}) in COMBINE


def unsound_pairs(names: list[str] | tuple[str, ...]) -> list[tuple[str, str]]:
    """Pairs of `names` not known to keep a solution together. Valid strategies lose nothing
    next to anything, and two hypotheses are hypotheses either way: neither pair counts."""
    unique = list(dict.fromkeys(names))
    kinds = {name: CATALOGUE[name].kind for name in unique}
    return [(a, b) for i, a in enumerate(unique) for b in unique[i + 1:]
            if not combine(a, b) and "valid" not in (kinds[a], kinds[b])
            and not kinds[a] == kinds[b] == "hypothesis"]


def hypotheses(names: list[str] | tuple[str, ...]) -> list[str]:
    """The strategies an "infeasible" verdict rests on: every hypothesis, and every strategy
    in a pair not known to combine soundly. Empty: infeasible is a proof."""
    suspect = {name for pair in unsound_pairs(names) for name in pair}
    return [name for name in dict.fromkeys(names)
            if CATALOGUE[name].kind == "hypothesis" or name in suspect]


def lookup(names: list[str] | tuple[str, ...]) -> list[Strategy]:
    unknown = [name for name in names if name not in CATALOGUE]
    if unknown:
        raise KeyError(unknown[0])
    return [CATALOGUE[name] for name in dict.fromkeys(names)]


def rules_for(n: int, names: list[str] | tuple[str, ...]) -> list[Rule]:
    geo = pyramid(n)
    return [rule for strategy in lookup(names) for rule in strategy.rules(geo)]


# ---- semantics: does a labelling satisfy a rule? (used by tests and `check`) -----------

def holds(rule: Rule, labels: list[int], lengths: list[int]) -> bool:
    """`labels[i]` is the label of line i."""
    if isinstance(rule, Allowed):
        return tuple(labels[i] for i in rule.lines) in rule.tuples
    if isinstance(rule, LexLeq):
        return [labels[i] for i in rule.left] <= [labels[i] for i in rule.right]
    if isinstance(rule, Monotone):
        seq = [labels[i] for i in rule.lines]
        return all(a <= b for a, b in zip(seq, seq[1:], strict=False))
    if isinstance(rule, Precedence):
        top = -1
        for i in rule.lines:
            if labels[i] > top + 1:
                return False
            top = max(top, labels[i])
        return True
    total = sum(lengths[i] for i in rule.lines if labels[i] == rule.label)
    return total == rule.rhs if rule.sense == "==" else total <= rule.rhs


def satisfied(n: int, names: list[str], labels: list[int]) -> bool:
    lengths = pyramid(n).line_lengths
    return all(holds(rule, labels, lengths) for rule in rules_for(n, names))
