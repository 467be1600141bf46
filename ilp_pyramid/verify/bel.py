"""Check a Bel's Pyramid labelling against the spec, from first principles."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from itertools import combinations_with_replacement


@dataclass
class BelVerdict:
    valid: bool
    duplicates: dict[tuple[int, int, int], list[tuple[int, int, int]]] = field(default_factory=dict)
    missing: list[tuple[int, int, int]] = field(default_factory=list)
    strays: list[tuple[int, int, int]] = field(default_factory=list)  # labels out of range

    @property
    def conflicts(self) -> int:
        """Repeated cubes: cells beyond the first that show an already-shown cube."""
        return sum(len(cells) - 1 for cells in self.duplicates.values())

    def reasons(self) -> list[str]:
        out = []
        for cube, cells in sorted(self.duplicates.items()):
            where = ", ".join(f"(x={x}, y={y}, h={h})" for x, y, h in cells)
            out.append(f"cube {_fmt(cube)} appears {len(cells)} times: at {where}")
        for cube in self.missing:
            out.append(f"cube {_fmt(cube)} is missing")
        for cube in self.strays:
            out.append(f"cube {_fmt(cube)} is not in the set (a label out of range)")
        return out


def _fmt(cube: tuple[int, int, int]) -> str:
    return "{" + ",".join(map(str, cube)) + "}"


def shown_cubes(n: int, z, xs, ys) -> dict[tuple[int, int, int], tuple[int, int, int]]:
    """Cell (x, y, h) -> the sorted multiset {X(x,h), Y(y,h), Z(x,y)} it shows."""
    base = 2 * n - 1

    def t(i: int) -> int:
        return min(i + 1, base - i)

    return {
        (x, y, h): tuple(sorted((xs[x][h], ys[y][h], z[y][x])))
        for x in range(base)
        for y in range(base)
        for h in range(min(t(x), t(y)))
    }


def verify_bel(n: int, z, xs, ys) -> BelVerdict:
    """Every size-3 multiset of the 2N-1 labels must be shown by exactly one cell."""
    shown = shown_cubes(n, z, xs, ys)
    where = defaultdict(list)
    for cell, cube in shown.items():
        where[cube].append(cell)
    every = list(combinations_with_replacement(range(2 * n - 1), 3))
    in_set = set(every)  # built once: the check stays linear in the number of cells
    duplicates = {cube: sorted(where[cube]) for cube in every if len(where.get(cube, ())) > 1}
    missing = [cube for cube in every if cube not in where]
    strays = sorted(cube for cube in where if cube not in in_set)
    valid = not duplicates and not missing and not strays
    return BelVerdict(valid, duplicates, missing, strays)


def verify_solution(solution) -> BelVerdict:
    """Convenience for objects with n, Z, X, Y attributes."""
    return verify_bel(solution.n, solution.Z, solution.X, solution.Y)
