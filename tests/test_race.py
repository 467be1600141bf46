"""`solve N --jobs J`: independent hybrid searches racing, the first verified answer winning."""

from __future__ import annotations

import json
import os
import signal

import pytest
from proctools import live_children
from test_signals import check, start, wait_until

from ilp_pyramid.puzzles.bel.lns.driver import SOLVED, solve_lns
from ilp_pyramid.puzzles.bel.lns.race import SEED_STRIDE, race_lns
from ilp_pyramid.puzzles.bel.solution import parse_json
from ilp_pyramid.verify.bel import verify_solution


def test_a_race_reports_its_winner_and_the_cpu_of_every_search(cli):
    result = cli("solve", 4, "--method", "lns", "--jobs", 2, "--seed", 7, "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["status"] == "solved" and data["jobs"] == 2
    winner = data["winner"]
    assert winner["search"] in (0, 1) and winner["seed"] == 7 + winner["search"] * SEED_STRIDE
    assert data["cpu_seconds"] > 0
    assert verify_solution(parse_json(json.dumps(data["solution"]))).valid


def test_the_text_names_the_winner(cli):
    result = cli("solve", 4, "--method", "lns", "--jobs", 2, "--seed", 3)
    assert result.code == 0, result.err
    assert "2 racing local searches" in result.out
    assert "race: 2 searches, won by search" in result.out and "CPU s in all" in result.out
    assert "verified" in result.out


@pytest.mark.parametrize("n, limit", [(4, None), (7, 0.5)])
def test_no_search_outlives_the_race(n, limit):
    before = live_children(os.getpid())
    race = race_lns(n, "sat", 2, time_limit=limit, seed=1)
    assert live_children(os.getpid()) == before
    assert race.jobs == 2
    if limit is None:
        assert race.outcome.status == SOLVED and race.winner is not None
        assert verify_solution(race.outcome.solution).valid
    else:
        assert race.outcome.status == "timeout" and race.winner is None
        assert race.outcome.solution is None and race.outcome.best_conflicts > 0


def test_jobs_1_is_the_single_search_in_process(cli):
    # The same trajectory as before --jobs existed: the driver's own run with that seed.
    result = cli("solve", 4, "--method", "lns", "--jobs", 1, "--seed", 5, "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    alone = solve_lns(4, "sat", seed=5)
    assert data["jobs"] == 1 and data["winner"] == {"search": 0, "seed": 5}
    assert data["moves"] == alone.moves and data["restarts"] == alone.restarts
    assert data["solution"] == alone.solution.to_dict()


def test_below_the_race_size_one_search_runs_by_default(cli):
    data = json.loads(cli("solve", 4, "--method", "lns", "--json").out)
    assert data["jobs"] == 1 and data["solver"].startswith("lns+")


def test_jobs_is_for_the_search_only(cli):
    result = cli("solve", 3, "--solver", "kissat", "--jobs", 2)
    assert result.code == 2 and "--jobs applies to --method lns only" in result.err


# SIGTERM under `slow` (CI's stage 8): both signals take one path, cli/signals.py.
@pytest.mark.parametrize("signum", [
    signal.SIGINT, pytest.param(signal.SIGTERM, marks=pytest.mark.slow)])
def test_ctrl_c_stops_every_search(tmp_path, signum):
    child = start(["solve", "6", "--jobs", "2"], tmp_path)
    assert child.stdout.readline().startswith(b"--method auto")
    # signalled once both searches are forked: every one of them must stop
    wait_until(lambda: len(live_children(child.pid)) >= 2, 60)
    check(child, signum)  # 130 / 143 within 2 s, one line, no process of the session left
