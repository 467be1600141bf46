"""The views puzzle: conventions, parsing, the spec's examples, solve/export from the CLI."""

import json

import numpy as np
import pulp
import pytest

from ilp_pyramid import protocol
from ilp_pyramid.backends.base import Result, Status
from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles.views import geometry
from ilp_pyramid.puzzles.views.geometry import (
    from_rows,
    parse_spec,
    placement_bits,
    projections,
    seed_hex,
    seed_views,
)
from ilp_pyramid.puzzles.views.puzzle import PUZZLE
from ilp_pyramid.verify.views import verify_answer, verify_unsolvable

ROWS_347177 = ("xx..,xxxx,xxxx,xx.x", "xxxx,xxxx,xxxx,xxxx", "x.x.,xxxx,xxxx,x.xx")


def solve_json(cli, *args):
    result = cli("views", "solve", *args, "--json")
    return result, (json.loads(result.out) if result.out.strip() else None)


# --- conventions ---------------------------------------------------------------------------

@pytest.mark.parametrize("seed, hex_digits", [(0, "670b14728ad9"), (1, "04fc711301f3"),
                                              (157, "fe88e8f9b499")])
def test_seed_hex_is_the_first_12_digits_of_md5(seed, hex_digits):
    assert seed_hex(seed) == hex_digits


def test_hex_and_bit_string_read_the_same_msb_first():
    views = parse_spec("fe88e8f9b499")
    assert views.n == 4
    assert views.bits() == f"{0xfe88e8f9b499:048b}"
    assert parse_spec(views.bits()) == views
    assert views.top[0].tolist() == [True, True, True, True]  # f = 1111: top row, bits 0-3
    assert views.top[1].tolist() == [True, True, True, False]  # e = 1110


def test_one_cube_at_the_back_top_left_shows_in_the_side_view_right_column():
    # Cube at x = 0, y = 0 (back), z = 0 (top): seen from the right, the back is on the right.
    placement = np.zeros((4, 4, 4), dtype=bool)
    placement[0, 0, 0] = True
    views = projections(placement)
    assert np.argwhere(views.top).tolist() == [[0, 0]]
    assert np.argwhere(views.front).tolist() == [[0, 0]]
    assert np.argwhere(views.side).tolist() == [[0, 3]]
    assert views.bits() == "1" + "0" * 15 + "1" + "0" * 15 + "0001" + "0" * 12
    assert placement_bits(placement) == "1" + "0" * 63


def test_the_answer_bits_run_layer_row_column(cli):
    # One cube at x = 1, y = 2, z = 3: answer bit 3*16 + 2*4 + 1 = 57.
    placement = np.zeros((4, 4, 4), dtype=bool)
    placement[3, 2, 1] = True
    result, data = solve_json(cli, projections(placement).bits())
    assert result.code == 0, result.err
    assert data["cubes"] == 1 and data["bits"].index("1") == 57
    assert data["layers"][3][2] == ".x.." and data["hex"] == f"{1 << (63 - 57):016x}"


def test_mirrored_side_view_is_unsolvable():
    placement = np.zeros((4, 4, 4), dtype=bool)
    placement[0, 0, 0] = True
    views = projections(placement)
    mirrored = geometry.Views(4, views.top, views.front, views.side[:, ::-1].copy())
    assert views.solvable() and not mirrored.solvable()


# --- the spec's examples --------------------------------------------------------------------

@pytest.mark.parametrize("seed", ["000000", "000001"])
def test_spec_unsolvable_examples(cli, seed):
    result, data = solve_json(cli, "--number", seed)
    assert result.code == 1
    assert data["solvable"] is False and data["cubes"] is None and data["bits"] is None
    assert verify_unsolvable(seed_views(int(seed)).bits()).valid


def test_spec_solvable_example_000157(cli):
    result, data = solve_json(cli, "--number", "000157")
    assert result.code == 0, result.err
    assert data["solvable"] is True and data["proved_by"] == "mip"
    assert verify_answer(parse_spec("fe88e8f9b499").bits(), data["bits"]).valid
    assert data["cubes"] == data["bits"].count("1") >= data["lower_bound"]


def test_spec_347177_needs_18_from_rows_and_from_seed(cli):
    top, front, side = ROWS_347177
    assert from_rows(top, front, side) == seed_views(347177)
    result, data = solve_json(cli, "--top", top, "--front", front, "--side", side)
    assert result.code == 0, result.err
    assert data["cubes"] == 18
    assert verify_answer(seed_views(347177).bits(), data["bits"]).valid
    assert ["".join(row) for row in data["layers"][0]] == list(data["layers"][0])
    result, data = solve_json(cli, "--number", "347177", "--solver", "cbc")
    assert result.code == 0, result.err
    assert data["cubes"] == 18 and data["solver"] == "cbc"


def test_original_challenge_examples(cli):
    # A 2x2 square in every view: 4 cubes on two diagonals, not the 8 of a 2x2x2 block.
    square = "....,.xx.,.xx.,...."
    result, data = solve_json(cli, "--top", square, "--front", square, "--side", square)
    assert result.code == 0 and data["cubes"] == 4
    # The top says column 1, the front says column 2: impossible.
    result, data = solve_json(cli, "--top", "....,....,.x..,....",
                              "--front", "....,..x.,....,....", "--side", "....,....,.x..,....")
    assert result.code == 1 and data["solvable"] is False


# What `views solve --json` has always carried (the workbench's Views page reads these), and
# the keys every puzzle's `solve --json` carries.
VIEWS_KEYS = {"solvable", "cubes", "bits", "hex", "layers", "n", "input", "status", "reason",
              "missing", "solver", "proved_by", "check", "lower_bound", "variables",
              "constraints", "build_seconds", "solve_seconds", "message"}
COMMON_KEYS = {"puzzle", "status", "solver", "form", "seconds", "model_options", "build_seconds",
               "solve_seconds"}


@pytest.mark.parametrize("args, code, status", [
    (["--number", "347177"], 0, "solved"),
    (["--number", "000000"], 1, "infeasible"),
    (["--number", "347177", "--time-limit", "0"], 3, "timeout"),
    (["fe88e8f9b499"], 0, "solved"),
])
def test_solve_json_keeps_its_keys_and_has_the_common_ones(cli, args, code, status):
    result, data = solve_json(cli, *args)
    assert result.code == code and data["status"] == status, result.err
    seed = {"seed"} if "--number" in args else set()
    detail = {"detail"} if status == "infeasible" else set()
    assert set(data) == VIEWS_KEYS | COMMON_KEYS | seed | detail
    assert data["puzzle"] == "views" and data["form"] == "mip" and data["seconds"] >= 0
    if seed:
        assert data["seed"] == args[1]
    if status == "infeasible":
        assert data["reason"] == "unsolvable views" and data["detail"].startswith(
            "unsolvable views: no cell can show " + data["missing"][0])


def test_text_output_shows_views_layers_cubes_answer(cli):
    result = cli("views", "solve", "--number", "347177")
    assert result.code == 0, result.err
    out = result.out
    for text in ("top", "front", "side", "z=0", "z=3", "cubes: 18", "answer: ", "verified"):
        assert text in out
    answer = out.split("answer: ")[1].split()[0]
    assert len(answer) == 16 and verify_answer(seed_views(347177).bits(),
                                               f"{int(answer, 16):064b}").valid
    unsolvable = cli("views", "solve", "670b14728ad9")
    assert unsolvable.code == 1 and "unsolvable" in unsolvable.out


def test_other_sizes(cli):
    rng = np.random.default_rng(5)
    for n in (1, 2, 3, 5):
        placement = rng.random((n, n, n)) < 0.3
        placement[0, 0, 0] = True
        views = projections(placement)
        result, data = solve_json(cli, views.bits())
        assert result.code == 0, result.err
        assert data["n"] == n and len(data["bits"]) == n ** 3
        assert verify_answer(views.bits(), data["bits"]).valid
        assert data["cubes"] <= int(placement.sum())


def test_n8_hex_needs_n_when_it_looks_like_bits():
    text = "01" * 24
    assert parse_spec(text).n == 4
    assert parse_spec(text, n=8).n == 8


# --- malformed input ------------------------------------------------------------------------

@pytest.mark.parametrize("args, fragment", [
    (["670b14728ad"], "11 characters"),
    (["670b14728ad9a"], "13 characters"),
    (["zz0b14728ad9"], "bad character 'z'"),
    (["0" * 47], "47 characters"),
    (["--top", "xx..,xxxx,xxxx,xx.x", "--front", "xxx,xxx,xxx", "--side", "x.x.,xxxx,xxxx,x.xx"],
     "same size"),
    (["--top", "xx..,xxx,xxxx,xx.x", "--front", "xxxx,xxxx,xxxx,xxxx",
      "--side", "x.x.,xxxx,xxxx,x.xx"], "row 2"),
    (["--top", "xx..,xxxx,xxxx,xx.x"], "go together"),
    (["--top", "ab,cd", "--front", "xx,xx", "--side", "xx,xx"], "unexpected 'a'"),
    (["--number", "12a"], "seed"),
    (["--number", "1234567"], "seed"),
    (["fe88e8f9b499", "--number", "1"], "only one way"),
    ([], "give the views"),
    (["fe88e8f9b499", "--solver", "xpress"], "unknown solver"),
])
def test_malformed_input_is_one_line_exit_2(cli, args, fragment):
    result = cli("views", "solve", *args)
    assert result.code == 2
    assert fragment in result.err
    assert result.err.count("\n") == 1 and "Traceback" not in result.err


def test_parse_errors_are_input_errors():
    with pytest.raises(InputError):
        parse_spec("")
    with pytest.raises(InputError):
        from_rows("xx,xx", "xx,xx", "xx,x")


# --- status handling: no unproved answer is printed as a solution --------------------------

def test_timeout_exits_3_without_an_answer(cli, monkeypatch):
    from ilp_pyramid.backends import mip

    monkeypatch.setattr(mip, "solve", lambda *a, **k: Result("highs", Status.TIMEOUT, 1.0))
    result = cli("views", "solve", "--number", "347177")
    assert result.code == 3
    assert "timeout" in result.out and "answer:" not in result.out


def test_unproved_incumbent_is_settled_by_the_branch_and_bound(monkeypatch):
    from ilp_pyramid.backends import mip
    from ilp_pyramid.puzzles.views.model import cell_var_name

    views = seed_views(347177)
    every = {cell_var_name(x, y, z): 1.0 for z, y, x in np.argwhere(views.candidates())}
    monkeypatch.setattr(mip, "solve",
                        lambda *a, **k: Result("highs", Status.FEASIBLE, 1.0, every))
    outcome = protocol.solve(PUZZLE, views, "highs", after={"check": False})
    assert outcome.status is Status.SOLVED and outcome.keys["proved_by"] == "branch and bound"
    assert int(outcome.solution.sum()) == outcome.keys["cubes"] == 18
    assert verify_answer(views.bits(), placement_bits(outcome.solution)).valid


def test_an_incumbent_the_branch_and_bound_cannot_prove_is_a_timeout_without_answer(
        cli, monkeypatch):
    from ilp_pyramid.backends import mip
    from ilp_pyramid.puzzles.views import engine
    from ilp_pyramid.puzzles.views.model import cell_var_name

    views = seed_views(347177)
    every = {cell_var_name(x, y, z): 1.0 for z, y, x in np.argwhere(views.candidates())}
    monkeypatch.setattr(mip, "solve",
                        lambda *a, **k: Result("highs", Status.FEASIBLE, 1.0, every))
    real = engine.solve_fast
    monkeypatch.setattr(engine, "solve_fast", lambda v, limit: real(v, 1))  # stops at once
    result, data = solve_json(cli, "--number", "347177")
    assert result.code == 3 and data["status"] == "timeout" and data["cubes"] is None
    assert data["proved_by"] is None and "not checked" in data["check"]
    assert f"best found {int(views.candidates().sum())} cubes" in data["detail"]
    text = cli("views", "solve", "--number", "347177")
    assert text.code == 3 and "timeout: best found" in text.out and "answer:" not in text.out


def test_the_two_exact_methods_disagreeing_is_an_error_not_an_answer(cli, monkeypatch):
    from ilp_pyramid.puzzles.views import engine

    real = engine.solve_fast

    def one_cube_short(views, limit):
        fast = real(views, limit)
        fast.cubes -= 1
        return fast

    monkeypatch.setattr(engine, "solve_fast", one_cube_short)
    result, data = solve_json(cli, "--number", "347177")
    assert result.code == 1 and data is None
    assert "the MIP proved 18 cubes but the branch and bound proved 17" in result.err
    # Without the cross-check the MIP's proved optimum stands alone.
    result, data = solve_json(cli, "--number", "347177", "--no-bnb-check")
    assert result.code == 0 and data["cubes"] == 18 and data["check"] is None


# --- export ---------------------------------------------------------------------------------

@pytest.mark.parametrize("suffix", ["lp", "mps"])
def test_export_round_trips_through_a_solver(cli, tmp_path, suffix):
    path = tmp_path / f"v.{suffix}"
    result = cli("views", "export", "--number", "347177", "-o", path)
    assert result.code == 0, result.err
    assert "42 variables" in result.out
    if suffix == "mps":
        _vars, problem = pulp.LpProblem.fromMPS(str(path), sense=pulp.LpMinimize)
        problem.solve(pulp.HiGHS(msg=False))
        assert round(pulp.value(problem.objective)) == 18
    else:
        text = path.read_text()
        assert "Minimize" in text and "c_x0_y0_z1" in text and "top_r0_c0" in text


def test_export_unsolvable_fails(cli, tmp_path):
    result = cli("views", "export", "670b14728ad9", "-o", tmp_path / "v.lp")
    assert result.code == 1 and "unsolvable" in result.err
    assert not (tmp_path / "v.lp").exists()


def test_export_unknown_format(cli, tmp_path):
    result = cli("views", "export", "fe88e8f9b499", "-o", tmp_path / "v.txt")
    assert result.code == 2 and "format" in result.err


# --- the independent checker ----------------------------------------------------------------

def test_verify_rejects_a_missing_and_an_extra_cube():
    views = seed_views(157)
    assert verify_answer(views.bits(), placement_bits(views.candidates())).valid
    best = protocol.solve(PUZZLE, views).solution
    assert verify_answer(views.bits(), placement_bits(best)).valid
    # A minimum placement loses a pixel whichever cube goes.
    for cell in np.argwhere(best):
        fewer = best.copy()
        fewer[tuple(cell)] = False
        verdict = verify_answer(views.bits(), placement_bits(fewer))
        assert not verdict.valid and any("misses" in r for r in verdict.reasons())
    more = np.ones((4, 4, 4), dtype=bool)
    verdict = verify_answer(views.bits(), placement_bits(more))
    assert not verdict.valid and any("lacks" in r for r in verdict.reasons())
    assert not verify_unsolvable(views.bits()).valid
