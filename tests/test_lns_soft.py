"""Soft region repairs: MaxSAT (RC2) re-labels a region for the fewest repeated cubes."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ilp_pyramid.puzzles.bel.geometry import pyramid
from ilp_pyramid.puzzles.bel.lns.arrays import (
    arrays,
    conflicts_of,
    labels_to_solution,
    solution_to_labels,
)
from ilp_pyramid.puzzles.bel.lns.region import conflict_lines, region_lines
from ilp_pyramid.puzzles.bel.lns.search import random_labels
from ilp_pyramid.puzzles.bel.lns.soft import SOLVED, soft_repair
from ilp_pyramid.puzzles.bel.solution import parse_drawing, parse_json
from ilp_pyramid.verify.bel import verify_solution


def meets_counting(n: int, labels: np.ndarray) -> bool:
    a = arrays(n)
    totals = np.bincount(labels, weights=a.line_len, minlength=a.num_labels)
    return bool((totals == pyramid(n).label_total).all())


def test_the_whole_pyramid_free_gives_a_solution():
    labels = random_labels(3, np.random.default_rng(4))
    assert conflicts_of(3, labels) > 0
    result = soft_repair(3, labels, np.arange(arrays(3).num_lines), time_limit=60)
    assert result.status == SOLVED, result.message
    assert result.count == result.cost == conflicts_of(3, result.labels) == 0
    assert verify_solution(labels_to_solution(3, result.labels)).valid


def test_a_few_free_lines_do_no_worse_and_keep_the_others(fixtures):
    solution = solution_to_labels(parse_drawing(
        (fixtures / "bel" / "n4-published.txt").read_text()))
    a = arrays(4)
    rng = np.random.default_rng(3)
    near = solution.copy()
    for i in range(a.num_lines):  # one swap of labels between two lines of one length
        j = next((j for j in range(i + 1, a.num_lines) if a.line_len[j] == a.line_len[i]
                  and near[j] != near[i]), None)
        if j is not None:
            near[i], near[j] = near[j], near[i]
            break
    start = conflicts_of(4, near)
    assert start > 0
    free = region_lines(4, near, 2, rng)
    result = soft_repair(4, near, free, time_limit=60)
    assert result.status == SOLVED, result.message
    assert result.count == result.cost == conflicts_of(4, result.labels)
    assert result.count <= start
    outside = np.setdiff1d(np.arange(a.num_lines), free)
    assert np.array_equal(result.labels[outside], near[outside])
    # the state met the counting condition, so the result does too
    assert meets_counting(4, result.labels)


@pytest.mark.parametrize("seed", [1, 2])
def test_both_forms_find_the_same_optimum(seed):
    labels = random_labels(3, np.random.default_rng(seed))
    free = np.random.default_rng(seed).choice(arrays(3).num_lines, 6, replace=False)
    cells = soft_repair(3, labels, free, time_limit=60, form="cells")
    cubes = soft_repair(3, labels, free, time_limit=60, form="cubes")
    assert cells.status == cubes.status == SOLVED
    assert cells.count == cubes.count == conflicts_of(3, cells.labels) == cells.cost
    assert cells.count <= conflicts_of(3, labels)


def test_the_saved_one_cube_state_keeps_its_count(fixtures):
    # It breaks the counting condition (the walk's single-line moves), so the repair does
    # not impose it: the state itself stays allowed, and no region of it does better.
    data = json.loads((fixtures / "bel" / "n6-one-repeated.json").read_text())
    labels = solution_to_labels(parse_json(json.dumps(data["solution"])))
    assert conflicts_of(6, labels) == 1 and not meets_counting(6, labels)
    free = conflict_lines(6, labels)
    result = soft_repair(6, labels, free, time_limit=60)
    assert result.status == SOLVED, result.message
    assert result.count == result.cost == conflicts_of(6, result.labels) == 1

