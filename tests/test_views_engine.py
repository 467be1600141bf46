"""The compiled branch and bound against the MIP (the second exact method) and the checker."""

import numpy as np
import pytest

from ilp_pyramid import protocol
from ilp_pyramid.backends.base import SolveOptions, Status
from ilp_pyramid.puzzles.views.battery import engine_masks, seed_inputs
from ilp_pyramid.puzzles.views.engine import min_cubes, solvable_batch, solve_fast, view_masks
from ilp_pyramid.puzzles.views.geometry import (
    parse_spec,
    placement_bits,
    projections,
    seed_hex,
    seed_views,
)
from ilp_pyramid.puzzles.views.puzzle import PUZZLE
from ilp_pyramid.verify.views import verify_answer, verify_batch


def mip_proved_cubes(views) -> int | None:
    """The optimum the MIP alone proved (no cross-check), None if it proved none."""
    result = protocol.solve(PUZZLE, views, "highs", SolveOptions(time_limit=30),
                            after={"check": False})
    if result.status is Status.SOLVED and result.keys["proved_by"] == "mip":
        return result.keys["cubes"]
    return None


@pytest.fixture(scope="module")
def screened():
    """Seeds 0..59999: inputs, engine masks and the compiled solvability screen."""
    values = seed_inputs(0, 60_000)
    masks = engine_masks(values)
    return values, masks, solvable_batch(4, *masks)


def test_seed_inputs_and_masks_match_the_spec_decoding(screened):
    values, (tops, fronts, sides), _ = screened
    for seed in range(0, 60_000, 997):
        assert f"{int(values[seed]):012x}" == seed_hex(seed)
        top, front, side = view_masks(seed_views(seed))
        assert (int(tops[seed]), int(fronts[seed]), int(sides[seed])) == (top, front, side)


def test_screen_agrees_with_the_numpy_definition(screened):
    _, _, solvable = screened
    for seed in range(0, 6000):
        assert bool(solvable[seed]) == seed_views(seed).solvable(), seed


def test_branch_and_bound_matches_the_mip_on_300_seeds(screened):
    values, (tops, fronts, sides), solvable = screened
    seeds = np.nonzero(solvable)[0][:300]
    assert len(seeds) == 300
    for seed in seeds:
        cubes, flat, _nodes, proved = min_cubes(4, tops[seed], fronts[seed], sides[seed],
                                                10**7)
        assert proved
        views = parse_spec(f"{int(values[seed]):012x}")
        assert verify_answer(views.bits(), placement_bits(flat)).valid, seed
        mip = mip_proved_cubes(views)
        assert cubes == mip, f"seed {seed:06}: branch and bound {cubes}, MIP {mip}"


def test_branch_and_bound_matches_the_mip_on_other_sizes():
    rng = np.random.default_rng(11)
    for n, density in [(1, 0.5), (2, 0.3), (3, 0.3), (4, 0.2), (5, 0.15), (5, 0.3), (6, 0.1)]:
        for _ in range(2):
            placement = rng.random((n, n, n)) < density
            placement[n - 1, 0, n - 1] = True
            views = projections(placement)
            fast = solve_fast(views)
            assert fast.proved
            assert verify_answer(views.bits(), placement_bits(fast.placement)).valid
            assert fast.cubes == mip_proved_cubes(views), (n, density)


def test_unsolvable_seeds_are_unsolvable_to_the_engine_too():
    for seed in (0, 1):
        assert solve_fast(seed_views(seed)).cubes == -1


def test_node_limit_says_unproved_but_keeps_a_valid_cover():
    views = seed_views(347177)
    stopped = solve_fast(views, node_limit=1)
    assert not stopped.proved
    assert verify_answer(views.bits(), placement_bits(stopped.placement)).valid
    full = solve_fast(views)
    assert full.proved and full.cubes == 18 and full.nodes > 1


def test_verify_batch_checks_both_verdicts(screened):
    values, (tops, fronts, sides), solvable = screened
    first = 2000
    answers = np.zeros(first, dtype=np.uint64)
    for i in np.nonzero(solvable[:first])[0]:
        _, flat, _, _ = min_cubes(4, tops[i], fronts[i], sides[i], 10**7)
        answers[i] = int(placement_bits(flat), 2)
    assert verify_batch(4, values[:first], answers, solvable[:first]).all()
    # Claiming a solvable seed unsolvable, or an unsolvable one solvable, must fail.
    flipped = solvable[:first].copy()
    i, j = np.nonzero(flipped)[0][0], np.nonzero(~flipped)[0][0]
    flipped[i], flipped[j] = False, True
    holds = verify_batch(4, values[:first], answers, flipped)
    assert not holds[i] and not holds[j] and holds.sum() == first - 2
