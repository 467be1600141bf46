"""The compiled local search: incremental counts agree with a plain recount."""

from __future__ import annotations

import numpy as np
import pytest

from ilp_pyramid.puzzles.bel.lns.arrays import (
    arrays,
    conflicts_of,
    labels_to_solution,
    solution_to_labels,
)
from ilp_pyramid.puzzles.bel.lns.search import LocalSearch, perturb, random_labels
from ilp_pyramid.puzzles.bel.solution import parse_drawing
from ilp_pyramid.verify.bel import verify_solution


def label_totals(n: int, labels: np.ndarray) -> np.ndarray:
    a = arrays(n)
    return np.bincount(labels, weights=a.line_len, minlength=a.num_labels)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_random_labels_meet_the_counting_condition(n):
    labels = random_labels(n, np.random.default_rng(n))
    assert labels.min() >= 0 and labels.max() < 2 * n - 1
    assert np.all(label_totals(n, labels) == n * (2 * n + 1))


def test_labels_round_trip_through_the_solution_form(fixtures):
    solution = parse_drawing((fixtures / "bel" / "n4-published.txt").read_text())
    labels = solution_to_labels(solution)
    assert conflicts_of(4, labels) == 0
    assert labels_to_solution(4, labels).to_drawing() == solution.to_drawing()


def test_conflicts_match_the_independent_checker():
    labels = random_labels(4, np.random.default_rng(7))
    verdict = verify_solution(labels_to_solution(4, labels))
    assert conflicts_of(4, labels) == verdict.conflicts > 0


@pytest.mark.parametrize("p_triple, p_scan", [(0.0, 0.0), (0.5, 0.0), (0.2, 1.0)])
def test_incremental_counts_stay_exact_and_swaps_keep_label_totals(p_triple, p_scan):
    n = 4
    search = LocalSearch(n, random_labels(n, np.random.default_rng(1)), seed=1)
    start = search.conflicts
    assert start == conflicts_of(n, search.labels)
    for _ in range(5):
        search.run(20_000, temperature=0.5, p_triple=p_triple, p_scan=p_scan)
        assert search.conflicts == conflicts_of(n, search.labels)
        assert search.best == conflicts_of(n, search.best_labels)
        assert np.all(label_totals(n, search.labels) == n * (2 * n + 1))
    assert search.best < start
    assert search.moves > 0


def test_stop_at_returns_at_the_first_low_state():
    search = LocalSearch(4, random_labels(4, np.random.default_rng(2)), seed=2)
    search.run(5_000_000, temperature=0.3, stop_at=10)
    assert search.conflicts <= 10
    assert search.moves < 5_000_000


def test_same_seed_same_walk():
    labels = random_labels(4, np.random.default_rng(3))
    one, two = LocalSearch(4, labels, seed=9), LocalSearch(4, labels, seed=9)
    one.run(30_000, 0.3)
    two.run(30_000, 0.3)
    assert np.array_equal(one.labels, two.labels)
    other = LocalSearch(4, labels, seed=10)
    other.run(30_000, 0.3)
    assert not np.array_equal(one.labels, other.labels)


def test_perturb_keeps_the_counting_condition_and_moves_some_labels():
    rng = np.random.default_rng(4)
    labels = random_labels(5, rng)
    kicked = perturb(5, labels, 10, rng)
    assert np.all(label_totals(5, kicked) == label_totals(5, labels))
    assert 0 < np.count_nonzero(kicked != labels) <= 20  # each exchange changes two lines


def test_single_line_moves_keep_counts_exact_and_may_break_the_counting_condition():
    n = 4
    search = LocalSearch(n, random_labels(n, np.random.default_rng(5)), seed=5)
    start = search.conflicts
    broken = False
    for _ in range(5):
        search.run(20_000, temperature=0.5, p_single=1.0)
        assert search.conflicts == conflicts_of(n, search.labels)
        assert search.best == conflicts_of(n, search.best_labels)
        broken |= bool(np.any(label_totals(n, search.labels) != n * (2 * n + 1)))
    # swaps alone never change a label's total (the test above); one line alone does
    assert broken
    assert search.best < start


@pytest.mark.parametrize("n", [4, 5, 6])
def test_a_weighed_move_changes_the_count_by_what_it_was_weighed_at(n):
    # The walk decides on `_delta` alone and makes only the moves it accepts: a weight off by
    # one would steer it wrong without ever making its counts wrong, so check the weight
    # against the move made, for single lines, swaps and one-for-two swaps, crossing or not.
    from ilp_pyramid.puzzles.bel.lns import search as kernels

    a = arrays(n)
    rng = np.random.default_rng(n)
    search = LocalSearch(n, random_labels(n, rng), seed=n)
    search.run(50_000, temperature=0.3)  # a low state: most moves there are worse
    for _ in range(3000):
        i, j, j2 = (int(x) for x in rng.choice(a.num_lines, size=3, replace=False))
        j, j2 = [(-1, -1), (j, -1), (j, j2)][int(rng.integers(3))]
        p = int(search.labels[i])
        q = int((p + 1 + rng.integers(a.num_labels - 1)) % a.num_labels)
        before, old = search.conflicts, search.labels.copy()
        weighed = kernels._delta(i, q, j, j2, p, search.geom, search.state)
        for line, label in ((i, q), (j, p), (j2, p)):
            if line >= 0:
                kernels._set_label(line, label, search.geom, search.state)
        assert search.conflicts - before == weighed
        assert search.conflicts == conflicts_of(n, search.labels)
        for line in (j2, j, i):
            if line >= 0:
                kernels._set_label(line, old[line], search.geom, search.state)
        assert search.conflicts == before
    assert not search.state[14].any()  # the scratch shifts are left at zero


def test_the_partner_pools_hold_exactly_the_lines_of_each_length_and_label():
    n = 5
    a = arrays(n)
    search = LocalSearch(n, random_labels(n, np.random.default_rng(6)), seed=6)
    for p_single in (0.0, 1.0):
        search.run(100_000, temperature=0.5, p_single=p_single)
        pool, size, pos = search.state[11], search.state[12], search.state[13]
        for length in range(1, int(a.line_len.max()) + 1):
            for label in range(a.num_labels):
                key = length * a.num_labels + label
                held = pool[key, :size[key]]
                expected = np.flatnonzero((a.line_len == length) & (search.labels == label))
                assert sorted(held.tolist()) == expected.tolist()
                assert all(pos[line] == at for at, line in enumerate(held))
