"""The rules of turning, what a Sudoku Cube answer's status means, and the checks that need
no model.

The model keeps the rules of turning in RULES (corner twists, edge flips, equal corner and
edge permutation parities, centre quarter turns matching that parity), the parities either
counted in the model ("inversions") or by cuts between solves ("cuts", rounds.py).

Both kinds of "no solution" are `infeasible` (the one status vocabulary, backends/base.py);
which one is the result's `detail`, why in words its `reason`:

- NO_GRID: the digits cannot form six 1-9 faces at all (`digit_count_problem` sees it
  before any model; the model's own pre-check or a solver sees the rest);
- NOT_TURNABLE: 1-9 faces exist, but only for a cube taken apart and put back differently;
  `broken_rules` names the rules of turning a grid breaks, from the checker's invariants.

Light to import: no PuLP, no solver.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from itertools import combinations

from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles.sudoku_cube.state import CubeState

RULES = ("twist", "flip", "parity", "centres")
PARITY_RULES = frozenset({"parity", "centres"})
PARITY_MODES = ("inversions", "cuts")
DEFAULT_PARITY = "inversions"
# Digits that look the same after a half turn, so upright pointing up or down: 1 always.
DEFAULT_SYMMETRIC = frozenset({1})

NOT_TURNABLE = "not_turnable"
NO_GRID = "no_grid"


def known_rules(rules: Iterable[str]) -> frozenset[str]:
    """`rules` as a set, every one of RULES (an InputError names those that are not)."""
    rules = frozenset(rules)
    if not rules <= set(RULES):
        raise InputError(f"unknown rules {sorted(rules - set(RULES))} (known: {', '.join(RULES)})")
    return rules


def check_parity(parity: str) -> None:
    """An InputError unless `parity` is one of PARITY_MODES."""
    if parity not in PARITY_MODES:
        raise InputError(f"unknown parity mode {parity!r} (choose from {', '.join(PARITY_MODES)})")


def digit_count_problem(state: CubeState) -> str:
    """Six 1-9 faces need every digit exactly six times; say which are off ("" if none)."""
    counts = Counter(state.digits())
    wrong = [f"{d} appears {counts[d]} times" for d in range(1, 10) if counts[d] != 6]
    if not wrong:
        return ""
    return ("the digits cannot form six 1-9 faces: each digit must appear exactly 6 times, "
            f"but {', '.join(wrong)}")


def permutation_parity(perm: Mapping[int, int]) -> int:
    """0 for an even permutation (slot -> slot), 1 for an odd one: its inversions mod 2."""
    return sum(1 for a, b in combinations(sorted(perm), 2) if perm[a] > perm[b]) % 2


def broken_rules(invariants: Mapping[str, int]) -> set[str]:
    """Which of RULES a grid with these invariants (from the checker) breaks."""
    out = set()
    if invariants["corner_twist_mod3"]:
        out.add("twist")
    if invariants["edge_flip_mod2"]:
        out.add("flip")
    if invariants["corner_parity"] != invariants["edge_parity"]:
        out.add("parity")
    if invariants["centre_turns_mod2"] != invariants["corner_parity"]:
        out.add("centres")
    return out
