"""`ilp-pyramid views battery`: the MD5 battery from the CLI, against independent recomputation."""

import json

import pytest

from ilp_pyramid.backends.base import SolveOptions
from ilp_pyramid.puzzles.views import solve
from ilp_pyramid.puzzles.views.geometry import seed_views
from ilp_pyramid.verify.views import verify_answer


def battery_json(cli, *args):
    result = cli("views", "battery", *args, "--json")
    assert result.code == 0, result.err
    return json.loads(result.out)


def test_small_battery_matches_the_mip_seed_by_seed(cli, tmp_path):
    out = tmp_path / "cases.txt"
    data = battery_json(cli, "--count", "4000", "--jobs", "2", "--output", out)
    for key in ("count", "solvable", "total_cubes", "seconds", "distribution", "slowest"):
        assert key in data
    assert data["count"] == 4000 and data["unproved"] == [] and data["verify_failed"] == []
    lines = out.read_text().splitlines()
    assert len(lines) == data["solvable"] > 0
    total = 0
    solvable = [s for s in range(4000) if seed_views(s).solvable()]
    assert [int(line.split()[0]) for line in lines] == solvable
    for line in lines:
        seed, cubes, answer = line.split()
        views = seed_views(int(seed))
        assert verify_answer(views.bits(), f"{int(answer, 16):064b}").valid
        mip = solve.run(views, "highs", SolveOptions(time_limit=30), check=False)
        assert mip.proved_by == "mip" and mip.cubes == int(cubes), seed
        total += mip.cubes
    assert data["total_cubes"] == total
    assert sum(data["distribution"].values()) == data["solvable"]


def test_jobs_and_start_do_not_change_the_result(cli):
    one = battery_json(cli, "--start", "340000", "--count", "10000", "--jobs", "1")
    two = battery_json(cli, "--start", "340000", "--count", "10000", "--jobs", "2")
    halves = [battery_json(cli, "--start", str(start), "--count", "5000")
              for start in (340000, 345000)]
    for key in ("solvable", "total_cubes", "distribution"):
        assert one[key] == two[key]
    assert one["solvable"] == sum(h["solvable"] for h in halves)
    assert one["total_cubes"] == sum(h["total_cubes"] for h in halves)


def test_cross_check_and_text_report(cli):
    result = cli("views", "battery", "--count", "20000", "--cross-check", "10")
    assert result.code == 0, result.err
    for text in ("solvable", "total optimal cubes", "slowest case", "wall time", "10/10 agree"):
        assert text in result.out


def test_cases_the_branch_and_bound_leaves_open_go_to_the_mip(cli):
    full = battery_json(cli, "--count", "3000")
    capped = battery_json(cli, "--count", "3000", "--node-limit", "1")
    assert capped["unproved"] == [] and 0 < capped["proved_by_mip"] <= capped["solvable"]
    assert full["proved_by_mip"] == 0
    for key in ("solvable", "total_cubes", "distribution"):
        assert capped[key] == full[key]


@pytest.mark.parametrize("args", [["--start", "999999", "--count", "2"], ["--count", "0"],
                                  ["--jobs", "0"], ["--solver", "glpk"]])
def test_bad_battery_arguments(cli, args):
    result = cli("views", "battery", *args)
    assert result.code == 2 and result.err.count("\n") == 1


@pytest.mark.slow
def test_full_battery(cli, tmp_path):
    out = tmp_path / "all.txt.gz"
    data = battery_json(cli, "--output", out, "--cross-check", "200")
    assert data["count"] == 1_000_000
    assert data["unproved"] == [] and data["verify_failed"] == []
    assert data["cross_check"]["agree"] == data["cross_check"]["checked"] == 200
    # The figures measured when the battery was first run (docs/views.md).
    assert (data["solvable"], data["total_cubes"]) == (5360, 69519)
