"""Solutions invariant under a symmetry: which pairs (g, sigma) could carry one (issue 29).

A labelling is invariant under (g, sigma) when label(g(l)) = sigma(label(l)) for every line
l, g in the incidence group G (symmetry.py) and sigma a permutation of the labels. Then the
cube at g(c) is sigma of the cube at c. In a solution, cells and cubes are in bijection, and
that bijection carries g's action on the cells to sigma's action on the cubes. Two necessary
conditions follow, both counts:

1. g on the cells and sigma on the cubes have the same cycle type (so every power of g has
   as many cells in cycles of each length as that power of sigma has cubes);
2. a line that g fixes carries a label that sigma fixes, so the cells whose three lines g
   fixes show different cubes made of sigma's f fixed labels: at most C(f + 2, 3) of them;
   and the same for every power g^k with sigma^k (an invariant labelling is invariant under
   (g^k, sigma^k) too).

Pairs conjugate under G x S_labels are equivalent (conjugating maps invariant solutions to
invariant solutions), so one g per conjugacy class of G and one sigma per cycle type is
enough. What passes the counts is left to SAT: the pyramid's CNF plus the clauses
x(l, a) -> x(g(l), sigma(a)).

    python -m ilp_pyramid.puzzles.bel.invariant N [--sat-limit SECONDS]

prints one JSON line per pair that passes condition 1 (and its SAT answer where asked).
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ilp_pyramid.backends import solvers
from ilp_pyramid.backends.sat import SatSession
from ilp_pyramid.puzzles.bel.geometry import pyramid
from ilp_pyramid.puzzles.bel.symmetry import generators, group_order

if TYPE_CHECKING:
    from ilp_pyramid.puzzles.bel.cnf import BelCnf


@dataclass(frozen=True)
class Pair:
    g: np.ndarray  # g on the node indices: lines 0..L-1, then cells L..L+C-1
    class_size: int  # how many elements of G are conjugate to g
    sigma: tuple[int, ...]  # a label permutation: sigma[a]
    cycle_type: tuple[int, ...]  # sigma's cycle lengths, largest first
    fixed_cells_ok: bool  # condition 2, for every power


@functools.cache
def _node_arrays(n: int) -> tuple[list[np.ndarray], int]:
    """G's generators as permutations of node indices (lines first), and the line count."""
    geo = pyramid(n)
    index = {line: i for i, line in enumerate(geo.lines)}
    index.update({cell: len(geo.lines) + i for i, cell in enumerate(geo.cells)})
    gens = []
    for perm in generators(n):
        arr = np.empty(len(index), dtype=np.int64)
        for node, image in perm.items():
            arr[index[node]] = index[image]
        gens.append(arr)
    return gens, len(geo.lines)


def group_elements(n: int) -> list[np.ndarray]:
    """Every element of G (closure of the generators), the identity first."""
    gens, _ = _node_arrays(n)
    identity = np.arange(len(gens[0]), dtype=np.int64)
    seen = {identity.tobytes()}
    elements, todo = [identity], [identity]
    while todo:
        element = todo.pop()
        for s in gens:
            product = s[element]
            key = product.tobytes()
            if key not in seen:
                seen.add(key)
                elements.append(product)
                todo.append(product)
    return elements


@functools.cache
def conjugacy_classes(n: int) -> list[list[np.ndarray]]:
    """G's conjugacy classes (every generator is an involution: h g h^-1 = h[g[h]])."""
    gens, _ = _node_arrays(n)
    classes, placed = [], set()
    for element in group_elements(n):
        if element.tobytes() in placed:
            continue
        members, todo = {element.tobytes(): element}, [element]
        while todo:
            g = todo.pop()
            for h in gens:
                conj = h[g[h]]
                if conj.tobytes() not in members:
                    members[conj.tobytes()] = conj
                    todo.append(conj)
        placed.update(members)
        classes.append(list(members.values()))
    return classes


def cycle_type(perm: np.ndarray | list[int]) -> tuple[int, ...]:
    """Cycle lengths of the permutation `perm` (perm[i] = image of i), largest first."""
    seen, lengths = set(), []
    for start in range(len(perm)):
        if start in seen:
            continue
        length, i = 0, start
        while i not in seen:
            seen.add(i)
            i = int(perm[i])
            length += 1
        lengths.append(length)
    return tuple(sorted(lengths, reverse=True))


def partitions(total: int, largest: int | None = None) -> Iterator[tuple[int, ...]]:
    """Every partition of `total`, parts largest first."""
    largest = total if largest is None else largest
    if total == 0:
        yield ()
        return
    for part in range(min(total, largest), 0, -1):
        for rest in partitions(total - part, part):
            yield (part, *rest)


def permutation_of_type(parts: tuple[int, ...]) -> tuple[int, ...]:
    """A label permutation with these cycle lengths: consecutive labels, each cycle a shift."""
    sigma, start = [], 0
    for part in parts:
        sigma += [start + (k + 1) % part for k in range(part)]
        start += part
    return tuple(sigma)


def cube_permutation(n: int, sigma: tuple[int, ...]) -> list[int]:
    """sigma on the cubes: image[k] = index of the cube sigma makes of cube k."""
    geo = pyramid(n)
    return [geo.cube_index[tuple(sorted(sigma[a] for a in cube))] for cube in geo.cubes]


def pairs(n: int) -> Iterator[Pair]:
    """Every (class of g != identity, cycle type of sigma) passing condition 1."""
    geo = pyramid(n)
    lines, cells = len(geo.lines), len(geo.cells)
    sigmas = [permutation_of_type(p) for p in partitions(geo.num_labels)]
    by_cube_type: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
    for sigma in sigmas:
        by_cube_type.setdefault(cycle_type(cube_permutation(n, sigma)), []).append(sigma)
    cell_lines = np.array(geo.cell_lines, dtype=np.int64)
    for members in conjugacy_classes(n):
        g = members[0]
        if np.array_equal(g, np.arange(len(g))):
            continue
        on_cells = cycle_type([int(g[lines + c]) - lines for c in range(cells)])
        order = math.lcm(*cycle_type(g))
        powers, power = [], g
        for _ in range(1, order):  # cells whose three lines g^k fixes, k = 1 .. order - 1
            powers.append(int((power[:lines] == np.arange(lines))[cell_lines].all(axis=1).sum()))
            power = g[power]
        for sigma in by_cube_type.get(on_cells, []):
            ok, sigma_k = True, np.array(sigma)
            for cells_fixed in powers:
                fixed = int((sigma_k == np.arange(len(sigma))).sum())
                ok = ok and cells_fixed <= math.comb(fixed + 2, 3)
                sigma_k = np.array(sigma)[sigma_k]
            yield Pair(g, len(members), sigma, cycle_type(list(sigma)), ok)


def invariant_clauses(n: int, cnf: BelCnf, pair: Pair) -> list[list[int]]:
    """x(l, a) -> x(g(l), sigma(a)) for every line and label."""
    lines = len(pyramid(n).lines)
    return [[-cnf.line_var(i, a), cnf.line_var(int(pair.g[i]), pair.sigma[a])]
            for i in range(lines) for a in range(len(pair.sigma))]


def describe(n: int, pair: Pair) -> dict:
    """What g does, in words a reader can check: its cycle types on lines and cells."""
    geo = pyramid(n)
    lines, cells = len(geo.lines), len(geo.cells)
    moved = Counter(geo.lines[i].family for i in range(lines) if pair.g[i] != i)
    return {"g_lines": _runs(cycle_type(pair.g[:lines])),
            "g_cells": _runs(cycle_type([int(pair.g[lines + c]) - lines for c in range(cells)])),
            "g_moves": dict(sorted(moved.items())), "class_size": pair.class_size,
            "sigma_cycles": list(pair.cycle_type), "condition_2": pair.fixed_cells_ok}


def _runs(lengths: tuple[int, ...]) -> dict[str, int]:
    return {str(k): v for k, v in sorted(Counter(lengths).items(), reverse=True)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m ilp_pyramid.puzzles.bel.invariant")
    parser.add_argument("n", type=int)
    parser.add_argument("--sat-limit", type=float, default=0.0,
                        help="SAT on every pair passing condition 1, seconds each (0: none)")
    args = parser.parse_args(argv)
    from ilp_pyramid.puzzles.bel.cnf import build_cnf

    n = args.n
    began = time.perf_counter()
    found = list(pairs(n))
    cnf = build_cnf(n) if args.sat_limit > 0 else None
    print(json.dumps({"n": n, "group_order": group_order(n), "classes": len(conjugacy_classes(n)),
                      "label_cycle_types": sum(1 for _ in partitions(pyramid(n).num_labels)),
                      "pairs_condition_1": len(found),
                      "pairs_both": sum(p.fixed_cells_ok for p in found),
                      "seconds": round(time.perf_counter() - began, 1)}), flush=True)
    for pair in found:
        row = {"n": n, **describe(n, pair)}
        if cnf is not None:
            session = SatSession(cnf.formula.clauses + invariant_clauses(n, cnf, pair),
                                 solvers.solver("cadical195"), one_shot=True)
            try:
                answer = session.solve((), args.sat_limit)
            finally:
                session.close()
            row.update(sat=str(answer.status), sat_seconds=round(answer.seconds, 2))
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
