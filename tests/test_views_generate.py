"""Generated views (`views solve --generate N --seed S`) and the bench's ramp of them: the same
seed gives the same views on every machine, they always have a solution, and the bench case
of size n runs `views solve --generate n`."""

from __future__ import annotations

import json

import pytest

from ilp_pyramid import protocol
from ilp_pyramid.backends.base import Status
from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles.views.geometry import EXACT_MAX_N, MAX_N
from ilp_pyramid.puzzles.views.puzzle import BENCH_SIZES
from ilp_pyramid.puzzles.views.puzzle import PUZZLE as VIEWS


def test_a_seed_gives_the_same_solvable_views_everywhere():
    # numpy's PCG64 stream is fixed for a seed: these are the views on any machine.
    assert VIEWS.generate(4, 0).hex() == "ffff7fffdfff"
    assert VIEWS.generate(4, 1).hex() == "ff5fffbfff6f"
    for n in (1, 3, 7, 12):
        views = VIEWS.generate(n, seed=5)
        assert views.n == n and views.solvable() and views == VIEWS.generate(n, seed=5)
    assert len({VIEWS.generate(8, seed).bits() for seed in range(5)}) == 5


@pytest.mark.parametrize("args", [(0,), (MAX_N + 1,), (4, -1), (4, 0, "yes")])
def test_bad_generate_arguments_are_input_errors(args):
    with pytest.raises(InputError):
        VIEWS.generate(*args)


def test_the_cli_solves_and_exports_the_generated_views(cli, tmp_path):
    solved = cli("views", "solve", "--generate", "5", "--seed", "3", "--json", "--no-bnb-check")
    assert solved.code == 0, solved.err
    data = json.loads(solved.out)
    assert data["status"] == "solved" and data["n"] == 5
    assert data["input"] == VIEWS.generate(5, 3).bits()
    exported = cli("views", "export", "--generate", "6", "--seed", "2", "-o",
                   tmp_path / "v.lp", "--json")
    assert exported.code == 0, exported.err
    model = VIEWS.model(VIEWS.generate(6, 2), "mip")
    assert json.loads(exported.out)["variables"] == model.variables


@pytest.mark.parametrize("args, message", [
    (["fe88e8f9b499", "--generate", "4"], "only one way"),
    (["--generate", "4", "--size", "4"], "--size"),
    (["--generate", str(MAX_N + 1)], "--generate"),
])
def test_the_generated_views_exclude_the_other_ways(cli, args, message):
    result = cli("views", "solve", *args)
    assert result.code == 2 and message in result.err


def test_beyond_the_branch_and_bound_the_solver_proof_stands_alone():
    result = protocol.solve(VIEWS, VIEWS.generate(EXACT_MAX_N + 2, 0), "highs")
    assert result.status is Status.SOLVED and result.keys["proved_by"] == "mip"
    assert "not checked" in result.keys["check"]


def test_the_bench_cases_are_the_generated_ramp():
    cases = VIEWS.bench_cases([4, 10])
    assert [c.args for c in cases] == [("views", "solve", "--generate", "4"),
                                       ("views", "solve", "--generate", "10")]
    assert [c.params for c in cases] == [{"n": 4, "instance": "random"},
                                         {"n": 10, "instance": "random"}]
    assert [c.params["n"] for c in VIEWS.bench_cases()] == list(BENCH_SIZES)
    with pytest.raises(InputError):
        VIEWS.bench_cases([MAX_N + 1])
