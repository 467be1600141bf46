"""Region repairs: SAT re-labels the lines through the conflicting cells (plus crossing
lines) of a scrambled known solution, every other line kept."""

from __future__ import annotations

import numpy as np
import pytest

from ilp_pyramid.puzzles.bel.lns.arrays import (
    arrays,
    conflicts_of,
    labels_to_solution,
    solution_to_labels,
)
from ilp_pyramid.puzzles.bel.lns.driver import SOLVED as RUN_SOLVED
from ilp_pyramid.puzzles.bel.lns.driver import Settings, solve_lns
from ilp_pyramid.puzzles.bel.lns.region import (
    RegionNeighbourhood,
    RegionRepairer,
    conflict_lines,
    region_lines,
)
from ilp_pyramid.puzzles.bel.lns.repair import INFEASIBLE, SOLVED
from ilp_pyramid.puzzles.bel.lns.search import random_labels
from ilp_pyramid.puzzles.bel.solution import parse_drawing
from ilp_pyramid.verify.bel import verify_solution


def known(fixtures, n: int) -> np.ndarray:
    name = {4: "n4-published.txt", 5: "n5-lns.txt"}[n]
    labels = solution_to_labels(parse_drawing((fixtures / "bel" / name).read_text()))
    assert conflicts_of(n, labels) == 0
    return labels


def swapped(labels: np.ndarray, n: int, pairs: int, seed: int) -> np.ndarray:
    """The solution with `pairs` exchanges of labels between lines of equal length."""
    a = arrays(n)
    rng = np.random.default_rng(seed)
    out = labels.copy()
    done = 0
    while done < pairs:
        i, j = rng.choice(a.num_lines, 2, replace=False)
        if a.line_len[i] == a.line_len[j] and out[i] != out[j]:
            out[i], out[j] = out[j], out[i]
            done += 1
    assert conflicts_of(n, out) > 0
    return out


def test_region_lines_hold_every_conflict_line_and_grow():
    labels = random_labels(4, np.random.default_rng(2))
    seed = set(conflict_lines(4, labels).tolist())
    assert seed
    small = region_lines(4, labels, 0, np.random.default_rng(0))
    grown = region_lines(4, labels, 5, np.random.default_rng(0))
    assert set(small.tolist()) == seed
    assert seed < set(grown.tolist()) and len(grown) <= len(seed) + 5
    a = arrays(4)
    two = region_lines(4, labels, 5, np.random.default_rng(0), fixed_family=2)
    assert not np.any(a.family[two] == 2)


@pytest.mark.parametrize("n", [4, pytest.param(5, marks=pytest.mark.slow)])
def test_region_repair_returns_a_verified_solution(fixtures, n):
    solution = known(fixtures, n)
    near = swapped(solution, n, pairs=1, seed=n)
    repairer = RegionRepairer(n)
    free = region_lines(n, near, 0, np.random.default_rng(1))
    result = repairer.repair(near, free, time_limit=30)
    assert result.status == SOLVED, result.message
    assert verify_solution(labels_to_solution(n, result.labels)).valid
    outside = np.setdiff1d(np.arange(len(near)), free)
    assert np.array_equal(result.labels[outside], near[outside])
    # the same solver, a second repair elsewhere: learnt clauses must not spoil it
    other = swapped(solution, n, pairs=1, seed=n + 10)
    again = repairer.repair(other, region_lines(n, other, 4, np.random.default_rng(2)), 30)
    assert again.status == SOLVED
    assert verify_solution(labels_to_solution(n, again.labels)).valid
    repairer.close()


def test_a_region_that_cannot_be_repaired_is_infeasible():
    # a random N=4 labelling: its conflict lines alone cannot fix everything, some conflicting
    # cube lies in cells whose lines are all kept... unless every line is a conflict line, so
    # free only one conflict line
    labels = random_labels(4, np.random.default_rng(5))
    assert conflicts_of(4, labels) > 3
    repairer = RegionRepairer(4)
    result = repairer.repair(labels, conflict_lines(4, labels)[:1], time_limit=30)
    assert result.status == INFEASIBLE
    repairer.close()


def test_neighbourhood_grows_after_fast_answers(fixtures):
    labels = swapped(known(fixtures, 4), 4, pairs=1, seed=4)
    hood = RegionNeighbourhood(4, extra=0)
    result = hood.attempt(labels, np.random.default_rng(0), time_limit=30)
    assert result.status in (SOLVED, INFEASIBLE)
    assert hood.extra == 2
    hood.close()


@pytest.mark.parametrize("hood", ["region", "region2"])
def test_driver_solves_n3_by_region_repairs_alone(hood):
    # no whole-family repairs (repair_at=0): the region repair at <= 4 repeated cubes must do it
    settings = Settings(neighbourhood=hood, repair_at=0, region_at=4, region_time_limit=30)
    outcome = solve_lns(3, seed=1, time_limit=120, settings=settings)
    assert outcome.status == RUN_SOLVED
    assert outcome.solved_by in ("repair region", "search")
    assert outcome.repairs[("region", "solved")] == (outcome.solved_by == "repair region")
    assert sum(count for (kind, _), count in outcome.repairs.items() if kind == "region") >= 1
    assert verify_solution(outcome.solution).valid


def test_unknown_neighbourhood_is_refused():
    with pytest.raises(ValueError, match="neighbourhood"):
        solve_lns(3, settings=Settings(neighbourhood="ring"), time_limit=1)
