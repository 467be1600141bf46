"""The compiled local search: incremental counts agree with a plain recount."""

from __future__ import annotations

import math

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


@pytest.mark.parametrize("p_triple", [0.0, 0.5])
def test_incremental_counts_stay_exact_and_swaps_keep_label_totals(p_triple):
    n = 4
    search = LocalSearch(n, random_labels(n, np.random.default_rng(1)), seed=1)
    start = search.conflicts
    assert start == conflicts_of(n, search.labels)
    for _ in range(5):
        search.run(20_000, temperature=0.5, p_triple=p_triple)
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
    from numba import njit

    from ilp_pyramid.puzzles.bel.lns import search as kernels

    # The helpers have no Python entry (only compiled code calls them): reached through two
    # small compiled functions here, called with the types the walk calls them with.
    weigh = njit(lambda i, q, j, j2, p, geom, state: kernels._delta(i, q, j, j2, p, geom, state))
    relabel = njit(lambda line, label, geom, state: kernels._set_label(line, label, geom, state))
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
        counts = search.state[2].copy()
        weighed = weigh(i, q, j, j2, p, search.geom, search.state)
        assert np.array_equal(search.state[2], counts)  # weighing puts the counts back
        for line, label in ((i, q), (j, p), (j2, p)):
            if line >= 0:
                relabel(line, label, search.geom, search.state)
        assert search.conflicts - before == weighed
        assert search.conflicts == conflicts_of(n, search.labels)
        for line in (j2, j, i):
            if line >= 0:
                relabel(line, int(old[line]), search.geom, search.state)
        assert search.conflicts == before


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


# -- the walk against a plain statement of it -----------------------------------------------

MASK = 2**64 - 1


class PlainWalk:
    """The single-line walk (the N=6 default) in plain Python, from the same seed: the same
    xorshift64* draws, the same lists the draws pick from (kept in the same order), and each
    move weighed by recounting the repeated cubes from scratch (conflicts_of)."""

    def __init__(self, n: int, labels: np.ndarray, seed: int):
        self.n, self.a = n, arrays(n)
        self.x = (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) % 2**64 or 1
        self.lab = np.array(labels, dtype=np.int64)
        a = self.a
        self.shown = [int(a.cube_id[tuple(self.lab[a.cell_line[c]])]) for c in range(a.num_cells)]
        cubes = int(a.cube_id.max()) + 1
        self.bucket = [[] for _ in range(cubes)]
        for c, k in enumerate(self.shown):
            self.bucket[k].append(c)
        self.conf = [k for k in range(cubes) if len(self.bucket[k]) > 1]
        self.best, self.best_lab = self.count(), self.lab.copy()

    def count(self) -> int:
        return conflicts_of(self.n, self.lab)

    def draw(self) -> int:
        x = self.x
        x ^= x >> 12
        x ^= (x << 25) & MASK
        x ^= x >> 27
        self.x = x
        return ((x * 2685821657736338717) & MASK) >> 11

    def below(self, n: int) -> int:
        return (self.draw() * n) >> 53

    def uniform(self) -> float:
        return self.draw() / 2**53

    def relabel(self, i: int, q: int) -> None:
        a = self.a
        self.lab[i] = q
        for c in a.line_cells[a.line_start[i]:a.line_start[i + 1]]:
            old, new = self.shown[c], int(a.cube_id[tuple(self.lab[a.cell_line[c]])])
            if new == old:
                continue
            cells = self.bucket[old]  # taken out by moving the last cell into its place
            cells[cells.index(c)] = cells[-1]
            cells.pop()
            if len(cells) == 1:
                self.conf[self.conf.index(old)] = self.conf[-1]
                self.conf.pop()
            if len(self.bucket[new]) == 1:
                self.conf.append(new)
            self.bucket[new].append(c)
            self.shown[c] = new

    def run(self, moves: int, temperature: float, p_target: float) -> int:
        a, labels = self.a, self.a.num_labels
        made = 0
        for _ in range(moves):
            cur = self.count()
            if cur == 0:
                break
            made += 1
            k = self.conf[self.below(len(self.conf))]
            c = self.bucket[k][self.below(len(self.bucket[k]))]
            i = int(a.cell_line[c, self.below(3)])
            p, q = int(self.lab[i]), -1
            if self.uniform() < p_target:  # a label that shows a cube no cell shows, if any
                u, v = (int(self.lab[line]) for line in a.cell_line[c] if line != i)
                seen = 0
                for label in range(labels):
                    if label != p and len(self.bucket[a.cube_id[label, u, v]]) == 0:
                        seen += 1
                        if self.below(seen) == 0:
                            q = label
            if q < 0:
                q = self.below(labels - 1)
                q += q >= p
            self.uniform()  # the draw for the kind of move: always a single line here
            self.lab[i] = q
            delta = self.count() - cur
            self.lab[i] = p
            if delta <= 0 or self.uniform() < math.exp(-delta / temperature):
                self.relabel(i, q)
                if self.count() < self.best:
                    self.best, self.best_lab = self.count(), self.lab.copy()
        return made


@pytest.mark.parametrize("n, temperature, p_target", [(4, 0.5, 0.5), (5, 0.3, 0.5),
                                                      (5, 0.8, 1.0)])
def test_the_compiled_walk_is_the_plain_walk_move_for_move(n, temperature, p_target):
    # Pins the trajectory, not just the counts: a faster kernel must visit the same states
    # from the same seed (docs/notes/frontier_log.md, "Profiling the N=6 kernel").
    labels = random_labels(n, np.random.default_rng(11))
    search, plain = LocalSearch(n, labels, seed=3), PlainWalk(n, labels, seed=3)
    for _ in range(3):
        search.run(1500, temperature, p_target=p_target, p_single=1.0)
        plain.run(1500, temperature, p_target)
        assert np.array_equal(search.labels, plain.lab)
        assert search.best == plain.best and np.array_equal(search.best_labels, plain.best_lab)
        assert int(search.state[10][0]) == plain.x  # the same number of draws, too
    assert search.moves == 4500
    assert plain.best < conflicts_of(n, labels)  # the walk went somewhere


def test_the_acceptance_table_holds_the_chances_the_walk_used_to_compute():
    search = LocalSearch(5, random_labels(5, np.random.default_rng(12)), seed=12)
    for temperature in (0.3, 0.45):
        search.run(10, temperature, p_single=1.0)
        table = search.state[15]
        assert table.tolist() == [math.exp(-d / temperature) for d in range(len(table))]
