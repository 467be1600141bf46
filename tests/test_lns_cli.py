"""`ilp-pyramid solve N --method lns`: the exact method's output, found by the hybrid search."""

from __future__ import annotations

import json

import pytest

from ilp_pyramid.puzzles.bel.solution import parse_drawing, parse_json
from ilp_pyramid.verify.bel import verify_solution


@pytest.mark.parametrize("repair", ["sat", "mip", "dlx"])
def test_json_has_the_exact_methods_keys_and_a_verified_solution(cli, repair):
    result = cli("solve", 3, "--method", "lns", "--repair", repair, "--seed", 2, "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    exact = json.loads(cli("solve", 2, "--method", "exact", "--json").out)
    assert set(exact) <= set(data)
    assert data["status"] == "solved" and data["method"] == "lns" and data["repair"] == repair
    # no solver model: the search's settings, in the names the exact method's options have
    assert data["model_options"] == {"formulation": "lns", "strategy": "none", "repair": repair}
    assert data["best_conflicts"] == 0
    solution = parse_json(json.dumps(data["solution"]))
    assert solution.n == 3 and verify_solution(solution).valid
    assert result.err == ""  # no live line with --json


def test_n4_text_output_is_a_verified_drawing(cli, tmp_path):
    out = tmp_path / "n4.txt"
    result = cli("solve", 4, "--method", "lns", "--seed", 1, "--time-limit", 120, "-o", out)
    assert result.code == 0, result.err
    assert "verified" in result.out
    drawing = result.out[result.out.index("+--"):]
    solution = parse_drawing(drawing)
    assert solution.n == 4 and verify_solution(solution).valid
    assert out.read_text() == solution.to_drawing()


def test_time_limit_gives_status_timeout_and_exit_3(cli, tmp_path):
    out = tmp_path / "none.txt"
    result = cli("solve", 7, "--method", "lns", "--time-limit", 0.5, "--json", "-o", out)
    assert result.code == 3
    data = json.loads(result.out)
    assert data["status"] == "timeout" and data["solution"] is None
    assert data["best_conflicts"] > 0
    assert not out.exists()


def test_timeout_in_text_mode_says_so(cli):
    result = cli("solve", 6, "--method", "lns", "--time-limit", 0.3)
    assert result.code == 3
    assert "timeout" in result.out and "+--" not in result.out


@pytest.mark.parametrize("args, word", [
    (["--method", "magic"], "unknown method"),
    (["--method", "lns", "--repair", "guess"], "unknown repair"),
])
def test_bad_choices_exit_2_with_one_line(cli, args, word):
    result = cli("solve", 3, *args)
    assert result.code == 2
    assert word in result.err and len(result.err.strip().splitlines()) == 1


@pytest.mark.slow
def test_n5_is_solved_and_verified(cli):
    # ~20-120 s on a shared 2-core machine (docs/hybrid.md)
    result = cli("solve", 5, "--method", "lns", "--seed", 1, "--time-limit", 900, "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    solution = parse_json(json.dumps(data["solution"]))
    assert solution.n == 5 and verify_solution(solution).valid


def test_lns_refuses_options_of_the_exact_method(cli):
    result = cli("solve", 4, "--method", "lns", "--strategy", "YStep", "--solver", "kissat")
    assert result.code == 2
    assert "--solver, --strategy applies to --method exact only" in result.err


def test_run_lns_command_reports_progress_to_a_caller(capsys):
    from ilp_pyramid.cli.bel.lns import run_lns_command

    seen: list[tuple[int, float]] = []
    code = run_lns_command(6, "sat", 1.0, 1, None, True,
                           on_progress=lambda b, s: seen.append((b, s)))
    assert code == 3  # N=6 in one second: a timeout, reported as one
    assert seen and all(best > 0 for best, _ in seen)
    assert [s for _, s in seen] == sorted(s for _, s in seen)
    assert [b for b, _ in seen] == sorted((b for b, _ in seen), reverse=True)
    assert json.loads(capsys.readouterr().out)["status"] == "timeout"
