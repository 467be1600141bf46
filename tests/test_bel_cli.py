import json
import subprocess
import sys

import pytest

from ilp_pyramid.puzzles.bel.solution import parse_drawing
from ilp_pyramid.verify.bel import verify_solution


@pytest.mark.parametrize("n", [1, 2, 3])
def test_solve_highs_prints_a_verified_drawing(cli, n):
    result = cli("solve", n)
    assert result.code == 0, result.err
    drawing = result.out[result.out.index("+"):]
    solution = parse_drawing(drawing)
    assert solution.n == n
    assert verify_solution(solution).valid


@pytest.mark.parametrize("n", [1, 2])
def test_solve_cbc(cli, n):
    result = cli("solve", n, "--solver", "cbc", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["status"] == "solved" and data["solver"] == "cbc"
    for key in ("n", "build_seconds", "solve_seconds", "variables", "constraints"):
        assert key in data


@pytest.mark.slow
def test_solve_cbc_n3(cli):
    result = cli("solve", 3, "--solver", "cbc", "--json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["status"] == "solved"


def test_solve_json_roundtrips_through_verify(cli, tmp_path):
    result = cli("solve", 2, "--json")
    data = json.loads(result.out)
    assert data["status"] == "solved"
    assert len(data["solution"]["Z"]) == 3 and len(data["solution"]["X"]) == 3
    path = tmp_path / "s.json"
    path.write_text(result.out)
    assert cli("verify", path).code == 0


def test_solve_writes_output_file(cli, tmp_path):
    out = tmp_path / "sol.txt"
    result = cli("solve", 2, "-o", out)
    assert result.code == 0
    assert cli("verify", out).out.startswith("valid")


def test_rotations_formulation_solves(cli):
    result = cli("solve", 2, "--formulation", "rotations", "--json")
    assert result.code == 0
    assert json.loads(result.out)["formulation"] == "rotations"


def test_timeout_is_reported_and_nonzero(cli):
    result = cli("solve", 5, "--time-limit", "0.5", "--json")
    assert result.code == 3
    data = json.loads(result.out)
    assert data["status"] == "timeout" and data["solution"] is None


@pytest.mark.parametrize("args, fragment", [
    (["solve", "0"], "N must be"),
    (["solve", "1000"], "N must be"),
    (["solve", "abc"], "valid integer"),
    (["solve", "3", "--solver", "xpress"], "unknown solver"),
    (["solve", "3", "--formulation", "nope"], "unknown formulation"),
    (["solve", "2", "--solver", "dlx"], "bel has no form 'dlx' takes"),
    (["solve", "2", "--solver", "cpsat", "--solver-option", "x=1"], "for the MIP solvers"),
    (["solve", "2", "--solver", "kissat", "--solver-option", "x=1"], "for the MIP solvers"),
    (["solve", "2", "--solver", "highs", "--solver-option", "x"], "expected NAME=VALUE"),
    (["verify", "/no/such/file"], "cannot read"),
    (["export", "3", "-o", "x.foo"], "unknown export format"),
])
def test_bad_input_is_one_line_exit_2(cli, args, fragment):
    result = cli(*args)
    assert result.code == 2
    assert fragment in result.err
    assert len(result.err.strip().splitlines()) == 1
    assert "Traceback" not in result.err


def test_default_strategy_per_backend_and_none(cli):
    highs = json.loads(cli("solve", 2, "--solver", "highs", "--json").out)
    assert highs["strategies"] == ["LabelPermutationImportance"]  # best measured for HiGHS
    assert json.loads(cli("solve", 2, "--solver", "cbc", "--json").out)["strategies"] == []
    assert json.loads(cli("solve", 2, "--strategy", "none", "--json").out)["strategies"] == []
    mixed = cli("solve", 2, "--strategy", "none", "--strategy", "YStep")
    assert mixed.code == 2 and "cannot be combined" in mixed.err


def test_a_strategy_set_is_one_value_as_a_bench_axis_passes_it(cli):
    from ilp_pyramid.bench.grid import puzzle_grid
    from ilp_pyramid.puzzles.bel.bench_cases import bench_cases, bench_fits

    together = cli("solve", 2, "--solver", "highs", "--strategy", "LabelPermutation+Automorphism",
                   "--json")
    assert together.code == 0, together.err
    assert json.loads(together.out)["strategies"] == ["LabelPermutation", "Automorphism"]
    runs = puzzle_grid("bel", bench_cases([2]), ["highs"],
                       [("strategy", ["none", "LabelPermutation+Automorphism"])], 10.0, 1,
                       bench_fits)
    commands = [run.command() for run in runs]
    assert [c[c.index("--strategy") + 1] for c in commands] == \
        ["none", "LabelPermutation+Automorphism"]


@pytest.mark.parametrize("args", [["--solver", "highs"], ["--solver", "kissat"], []])
def test_solve_json_has_the_common_keys_and_bels_own(cli, args):
    data = json.loads(cli("solve", 2, *args, "--json").out)
    assert list(data)[:5] == ["puzzle", "status", "solver", "form", "seconds"]
    assert data["puzzle"] == "bel" and data["status"] == "solved"
    assert data["form"] == ("mip" if data["solver"] == "highs" else "cnf")
    assert {"n", "formulation", "strategies", "build_seconds", "solve_seconds", "variables",
            "constraints", "solution", "message"} <= set(data)
    assert ("engine" in data) == (not args)  # auto names its engine
    # the model that ran, defaults resolved: HiGHS's default strategy, a CNF's card encoding
    assert data["model_options"] == (
        {"formulation": "counts", "strategy": "LabelPermutationImportance"}
        if data["solver"] == "highs" else
        {"formulation": "counts", "strategy": "none", "card": "seqcounter"})


def test_solve_json_of_a_real_process_names_the_model_options():
    """`solve 2 --json` as a script runs it (the quick path, before Typer loads), and with
    a strategy set given as one value: the options that shaped the model come out whole."""
    for args, strategy in (([], "none"), (["--solver", "kissat", "--strategy",
                                           "LabelPermutation+Automorphism"],
                                          "LabelPermutation+Automorphism")):
        done = subprocess.run([sys.executable, "-m", "ilp_pyramid", "solve", "2", *args,
                               "--json"], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        data = json.loads(done.stdout)
        assert data["model_options"] == {"formulation": "counts", "strategy": strategy,
                                         "card": "seqcounter"}


def test_a_mip_solver_takes_solver_options_by_its_family(cli):
    result = cli("solve", 1, "--solver", "highs", "--solver-option", "presolve=off", "--json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["solver"] == "highs"


def test_an_infeasible_answer_under_hypotheses_says_so(cli):
    # XStep + YStep: no labelling of that shape at N=3 (the spec), no proof about the puzzle.
    text = cli("solve", 3, "--solver", "kissat", "--strategy", "XStep+YStep")
    assert text.code == 1
    assert "infeasible under the hypotheses XStep, YStep" in text.out
    data = json.loads(cli("solve", 3, "--solver", "kissat", "--strategy", "XStep+YStep",
                          "--json").out)
    assert data["status"] == "infeasible" and data["hypotheses"] == ["XStep", "YStep"]
    assert "under the hypotheses" in data["detail"]
