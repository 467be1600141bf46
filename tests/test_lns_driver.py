"""The driver's restarts (from random labels, its own best state, a shared one) and kicks."""

from __future__ import annotations

import numpy as np
import pytest
from test_lns_repair import known

from ilp_pyramid.backends.base import Status
from ilp_pyramid.puzzles.bel.hunt.state import BEST_FILE, load_best
from ilp_pyramid.puzzles.bel.lns import repair as repairs
from ilp_pyramid.puzzles.bel.lns.arrays import arrays, conflicts_of
from ilp_pyramid.puzzles.bel.lns.driver import SOLVED, TIMEOUT, Settings, _kicked, solve_lns
from ilp_pyramid.puzzles.bel.lns.repair import repair


def test_a_stalled_descent_restarts_near_a_better_shared_state(fixtures):
    solution = known(fixtures, 5)
    asked: list[int] = []

    def shared_best():
        asked.append(1)
        return 0, solution

    # Restart after every chunk; the shared state (a known solution) is kicked by 2 label
    # exchanges, close enough that the search or a repair finishes it within seconds, while
    # the fresh random start it replaced needs far longer at N=5.
    settings = Settings(chunk=20_000, restart_moves=1, kick_swaps=2, repair_at=3)
    outcome = solve_lns(5, time_limit=60, seed=1, settings=settings, shared_best=shared_best)
    assert asked and outcome.restarts >= 1
    assert outcome.status == SOLVED and conflicts_of(5, outcome.best_labels) == 0


def test_restarts_from_the_runs_own_best_keep_the_best_count(fixtures):
    settings = Settings(chunk=20_000, restart_moves=1, restart_from_best=True)
    outcome = solve_lns(6, time_limit=0.5, seed=2, settings=settings)  # dozens of restarts
    assert outcome.status == TIMEOUT and outcome.restarts >= 1
    assert conflicts_of(6, outcome.best_labels) == outcome.best_conflicts > 0


@pytest.mark.slow  # seconds of wall time: the default suite keeps its budget
def test_the_repair_share_caps_the_time_in_whole_family_repairs():
    # With single-line moves an N=5 descent reaches 1-3 repeated cubes within a second, where
    # every new state would get its repairs; a share of 0 turns them off, 1 lets them all run.
    capped = solve_lns(5, time_limit=2, seed=1, settings=Settings(p_single=1.0, repair_share=0.0))
    free = solve_lns(5, time_limit=2, seed=1, settings=Settings(p_single=1.0, repair_share=1.0))
    assert capped.status == TIMEOUT and sum(capped.repairs.values()) == 0
    assert capped.moves > 0
    assert sum(free.repairs.values()) > 0


def test_below_n6_the_search_only_swaps_labels():
    # single-line moves lost at N=5 (docs/hybrid.md): there every state the search visits
    # keeps each label's total line length, as before they existed
    outcome = solve_lns(5, time_limit=0.5, seed=1)  # a million moves and more
    a = arrays(5)
    totals = np.bincount(outcome.best_labels, weights=a.line_len, minlength=a.num_labels)
    assert np.all(totals == 5 * 11)
    assert outcome.moves > 0


def test_from_n6_whole_family_covers_are_asked_of_one_repeated_cube_only(
        fixtures, tmp_path, monkeypatch):
    # The walk from a 1-state reaches 2- and 3-states within moves; covers of those never
    # completed an N=6 state and cost the low descents their moves (docs/frontier.md).
    (tmp_path / BEST_FILE).write_text((fixtures / "bel" / "n6-one-repeated.json").read_text())
    start = load_best(tmp_path, 6).labels
    asked: list[tuple[str, int]] = []

    def recorded(n, labels, family, *args):
        asked.append((family, conflicts_of(n, labels)))
        return repair(n, labels, family, *args)

    monkeypatch.setattr(repairs, "repair", recorded)
    solve_lns(6, time_limit=2, seed=1, start=start, settings=Settings(chunk=20_000))
    assert {count for _, count in asked} == {1}
    assert {family for family, _ in asked} == {"X", "Y", "Z"}


def stopped_when(enough):
    """`progress` and `should_stop` for solve_lns: the run stops at the first look at its
    progress where `enough(progress)` holds, however slow the machine (a time limit of its own
    counts what a loaded machine fits in it, and that count is then what the test checks)."""
    seen: list = []

    def should_stop() -> bool:
        return bool(seen) and enough(seen[-1])

    return seen.append, should_stop


def z_walked(progress) -> int:
    return progress.repairs[("Z", Status.INFEASIBLE)]


def test_an_impossible_z_cover_is_followed_by_its_kicked_neighbours_and_restarts():
    # Z covers tried from 10 repeated cubes (reached within a second) are impossible almost
    # always: each is followed by at most `z_kicks` neighbours' covers and, with
    # `restart_covers=1`, by a restart from new labels. The time limit only bounds a search
    # that never gets there.
    progress, should_stop = stopped_when(lambda p: z_walked(p) >= 2 and p.restarts >= 1)
    outcome = solve_lns(5, time_limit=60, seed=1, progress=progress, should_stop=should_stop,
                        settings=Settings(repair_at=10, z_kicks=2, restart_covers=1))
    walked = outcome.repairs[("Z", Status.INFEASIBLE)]
    kicked = sum(count for (kind, _), count in outcome.repairs.items() if kind == "Zkick")
    assert walked >= 2
    assert 1 <= kicked <= 2 * walked
    assert outcome.restarts >= 1
    progress, should_stop = stopped_when(lambda p: z_walked(p) >= 2)
    plain = solve_lns(5, time_limit=60, seed=1, progress=progress, should_stop=should_stop,
                      settings=Settings(repair_at=10, z_kicks=0, restart_covers=10**9))
    assert plain.repairs[("Z", Status.INFEASIBLE)] >= 2
    assert not any(kind == "Zkick" for kind, _ in plain.repairs) and plain.restarts == 0


def z_timed_out(progress) -> int:
    return progress.repairs[("Z", Status.TIMEOUT)]


def test_a_z_cover_cut_by_the_time_limit_counts_toward_the_restart():
    # A limit of 0 s cuts every cover that reaches the solver; the impossible ones caught
    # before it (a cube with no option) alone would need a million for a restart here.
    weighed = Settings(repair_at=10, z_kicks=0, repair_time_limit=0.0,
                       restart_covers=10**6, timeout_weight=10**6)
    progress, should_stop = stopped_when(lambda p: z_timed_out(p) >= 2 and p.restarts >= 1)
    outcome = solve_lns(5, time_limit=60, seed=1, progress=progress, should_stop=should_stop,
                        settings=weighed)
    assert outcome.repairs[("Z", Status.TIMEOUT)] >= 1 and outcome.restarts >= 1
    progress, should_stop = stopped_when(lambda p: z_timed_out(p) >= 2)
    unweighed = solve_lns(5, time_limit=60, seed=1, progress=progress, should_stop=should_stop,
                          settings=Settings(repair_at=10, z_kicks=0, repair_time_limit=0.0,
                                            restart_covers=10**6, timeout_weight=0))
    assert unweighed.repairs[("Z", Status.TIMEOUT)] >= 2 and unweighed.restarts == 0


@pytest.mark.slow  # run by CI's stage 8 (.ci/run): the default suite stays under 4 minutes
def test_at_n5_the_search_asks_only_z_covers_unless_told_otherwise():
    # No X or Y cover completed an N=5 state in 60 measured runs (docs/hybrid.md): from 10
    # repeated cubes (reached within a second) every state below the level would get them.
    kinds = {kind for kind, _ in solve_lns(5, time_limit=2, seed=1, settings=Settings(
        repair_at=10, z_kicks=0)).repairs}
    assert kinds == {"Z"}
    kinds = {kind for kind, _ in solve_lns(5, time_limit=2, seed=1, settings=Settings(
        repair_at=10, z_kicks=0, xy_repairs=True)).repairs}
    assert {"X", "Y", "Z"} <= kinds


def test_a_kicked_neighbour_completes_a_state_one_exchange_from_a_solution(fixtures):
    # Exchange two X/Y lines of one length in a known solution: the Z cover of that state may
    # be impossible, but one of its neighbours (the exchange undone) is the solution, which
    # enough kicks reach; whatever they return has every cube exactly once.
    a = arrays(4)
    solution = known(fixtures, 4)
    xy = np.flatnonzero(a.family != 2)
    i = int(xy[0])
    j = int(next(k for k in xy if a.line_len[k] == a.line_len[i] and solution[k] != solution[i]))
    state = solution.copy()
    state[i], state[j] = state[j], state[i]
    assert conflicts_of(4, state) > 0
    asked: list[np.ndarray] = []

    def repair_z(labels):
        asked.append(labels)
        return repair(4, labels, "Z", "sat", 10)

    result = _kicked(4, state, 3000, np.random.default_rng(0), set(), a, repair_z)
    assert result.status == SOLVED and conflicts_of(4, result.labels) == 0
    assert len({lab.tobytes() for lab in asked}) == len(asked)  # no neighbour asked twice


def test_solved_by_names_the_repair_whose_answer_was_counted_solved():
    # N=3 with covers from 6 repeated cubes: seeds 2 and 5 are completed by a plain Z
    # cover, seeds 6 and 13 by a kicked neighbour's cover.
    names = set()
    for seed in (2, 5, 6, 13):
        outcome = solve_lns(3, time_limit=10, seed=seed,
                            settings=Settings(repair_at=6, z_kicks=4))
        assert outcome.status == SOLVED
        kind = outcome.solved_by.removeprefix("repair ")
        solved = [k for (k, status), count in outcome.repairs.items()
                  if status == Status.SOLVED for _ in range(count)]
        assert solved == [kind]
        names.add(kind)
    assert names == {"Z", "Zkick"}
