"""The dual walk (cubes placed, lines in conflict): counts exact, solutions verified."""

from __future__ import annotations

import numpy as np
import pytest
from test_lns_repair import known

from ilp_pyramid.puzzles.bel.geometry import pyramid
from ilp_pyramid.puzzles.bel.lns.arrays import arrays, conflicts_of, labels_to_solution
from ilp_pyramid.puzzles.bel.lns.dual import DualSearch, lines_in_conflict
from ilp_pyramid.puzzles.bel.lns.search import random_labels
from ilp_pyramid.verify.bel import verify_solution


def disagreeing_cells(n: int, tup: np.ndarray) -> int:
    """Per line, its cells minus the most cells that show one label: plainly."""
    a = arrays(n)
    total = 0
    for i in range(a.num_lines):
        shown = [int(tup[c, f]) for c in range(a.num_cells) for f in range(3)
                 if a.cell_line[c, f] == i]
        total += len(shown) - max(shown.count(label) for label in set(shown))
    return total


def assert_consistent(dual: DualSearch) -> None:
    n = dual.n
    tup, cube_at, where = dual.state[0], dual.state[1], dual.state[2]
    cubes = pyramid(n).cubes
    # a bijection of cubes onto cells, each cell showing its own cube's labels
    assert sorted(cube_at.tolist()) == list(range(len(cubes)))
    assert all(where[cube_at[c]] == c for c in range(len(cube_at)))
    assert all(tuple(sorted(tup[c].tolist())) == cubes[cube_at[c]] for c in range(len(cube_at)))
    assert dual.lines_in_conflict == lines_in_conflict(n, tup)
    assert dual.state[7][0] == disagreeing_cells(n, tup)


@pytest.mark.parametrize("n, seed", [(3, 1), (4, 1)])
def test_the_dual_walk_finds_a_verified_solution(n, seed):
    dual = DualSearch.random(n, np.random.default_rng(seed), seed, w_lines=0.0)
    assert dual.lines_in_conflict > 0
    for _ in range(100):  # 20 M moves at most; seed 1 at N=4 needs about 2 M
        dual.run(200_000, temperature=0.2)
        if dual.lines_in_conflict == 0:
            break
    assert dual.lines_in_conflict == 0
    labels = dual.labels()
    assert conflicts_of(n, labels) == 0
    assert verify_solution(labels_to_solution(n, labels)).valid


@pytest.mark.parametrize("w_cells, w_lines", [(1.0, 0.0), (0.0, 1.0), (1.0, 1.0)])
def test_incremental_counts_match_a_plain_recount(w_cells, w_lines):
    dual = DualSearch.random(4, np.random.default_rng(5), 5, w_cells=w_cells, w_lines=w_lines)
    assert_consistent(dual)
    start = dual.energy
    for _ in range(4):
        dual.run(20_000, temperature=0.4, p_turn=0.3)
        assert_consistent(dual)
    assert dual.best[0] < start


def test_a_solution_has_no_line_in_conflict_and_two_swapped_cubes_break_their_lines(fixtures):
    labels = known(fixtures, 4)
    dual = DualSearch.from_labels(4, labels, np.random.default_rng(0), 0)
    assert dual.lines_in_conflict == 0 and dual.energy == 0
    assert np.array_equal(dual.labels(best=False), labels)
    # Two cells that share no line swap the labels they show: each of their six lines (none
    # of them a one-cell line, which can never be in conflict) is then in conflict.
    a = arrays(4)
    tup = dual.state[0].copy()
    long_lines = [c for c in range(a.num_cells) if min(a.line_len[a.cell_line[c]]) >= 2]
    c1 = long_lines[0]
    c2 = next(c for c in long_lines
              if not set(a.cell_line[c]) & set(a.cell_line[c1])
              and all(tup[c, f] != tup[c1, f] for f in range(3)))
    tup[[c1, c2]] = tup[[c2, c1]]
    cube_at = dual.state[1].copy()
    cube_at[[c1, c2]] = cube_at[[c2, c1]]
    swapped = DualSearch(4, cube_at, tup, 0)
    assert swapped.lines_in_conflict == lines_in_conflict(4, tup) == 6
    assert swapped.state[7][0] == 6  # one cell off its line's label on each of them


def test_from_labels_keeps_every_cube_shown_once_where_it_is():
    labels = random_labels(5, np.random.default_rng(3))
    dual = DualSearch.from_labels(5, labels, np.random.default_rng(3), 3)
    assert_consistent(dual)
    a = arrays(5)
    lab_tup = labels[a.cell_line]
    kept = np.all(dual.state[0] == lab_tup, axis=1).sum()
    # every cube the labels show at least once stays on one of its cells, facing as they say
    assert kept >= a.num_cells - conflicts_of(5, labels)
