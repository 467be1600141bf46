"""Parallel tempering: exchanges keep every replica's state exact; the driver solves with it."""

from __future__ import annotations

import numpy as np
from test_lns_repair import known

from ilp_pyramid.puzzles.bel.lns.arrays import conflicts_of
from ilp_pyramid.puzzles.bel.lns.driver import SOLVED, Settings, solve_lns
from ilp_pyramid.puzzles.bel.lns.search import random_labels
from ilp_pyramid.puzzles.bel.lns.tempering import Tempering

LADDER = (0.25, 0.3, 0.37, 0.45)


def test_exchanges_keep_every_replicas_state_valid():
    walk = Tempering(5, random_labels(5, np.random.default_rng(1)), 1, LADDER, segment=5_000)
    for _ in range(6):
        walk.run(40_000, p_single=0.5)
        assert sorted(walk.at) == list(range(len(LADDER)))
        assert sorted(walk.temperatures().values()) == list(LADDER)
        for replica in walk.replicas:
            assert replica.conflicts == conflicts_of(5, replica.labels)
            assert replica.best == conflicts_of(5, replica.best_labels)
        assert walk.best == conflicts_of(5, walk.best_labels)
        assert walk.best == min(r.best for r in walk.replicas)
    assert walk.exchanges[1] > 0 and walk.exchanges[0] > 0


def test_a_lower_state_always_moves_down_the_ladder_and_a_far_higher_one_never(fixtures):
    solution = known(fixtures, 4)
    walk = Tempering(4, random_labels(4, np.random.default_rng(2)), 2, (0.25, 0.45))
    cold, hot = walk.at
    walk.replicas[hot].reset(solution)  # the hot replica holds a solution: 0 repeated cubes
    assert walk.replicas[cold].conflicts > 0
    walk.exchange()
    assert walk.at == [hot, cold]  # (E_cold - E_hot) > 0: accepted with probability 1
    assert walk.temperatures()[hot] == 0.25
    # now the cold one is at 0 and the hot one at some 30 repeated cubes: exp(-30 * 1.78)
    assert walk.replicas[cold].conflicts >= 20
    for _ in range(100):
        walk.exchange()
    assert walk.at == [hot, cold]


def test_the_driver_solves_n4_with_tempering():
    outcome = solve_lns(4, time_limit=120, seed=1, settings=Settings(schedule="tempering"))
    assert outcome.status == SOLVED
    assert conflicts_of(4, outcome.best_labels) == 0
