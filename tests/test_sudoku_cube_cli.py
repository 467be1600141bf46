"""`ilp-pyramid sudoku-cube ...` as a user runs it."""

import json

import pytest

from ilp_pyramid.puzzles.sudoku_cube.state import parse_state
from ilp_pyramid.verify.sudoku_cube import check_answer, check_faces, check_moves, simulate


@pytest.fixture
def cube(cli, tmp_path):
    path = tmp_path / "cube.txt"
    assert cli("sudoku-cube", "generate", "--seed", 42, "-o", path).code == 0
    return path


def test_generate_is_deterministic_and_parses(cli, tmp_path):
    first = cli("sudoku-cube", "generate", "--seed", 3)
    second = cli("sudoku-cube", "generate", "--seed", 3)
    other = cli("sudoku-cube", "generate", "--seed", 4, "--scramble", 10)
    assert first.code == 0 and first.out == second.out and first.out != other.out
    assert "scrambled by 10 face turns" in other.out
    state = parse_state(first.out)
    assert not check_faces(state.to_dict()).valid  # scrambled: not a solved cube any more


def test_generated_scramble_undone_gives_the_design(cli, cube):
    text = cube.read_text()
    scramble = text.splitlines()[1].lstrip("# ")
    undo = " ".join(reversed([m if m.endswith("2") else (m[:-1] if m.endswith("'") else m + "'")
                              for m in scramble.split()]))
    result = cli("sudoku-cube", "apply", cube, undo, "--json")
    assert result.code == 0, result.err
    assert check_faces(json.loads(result.out)["faces"]).valid


def test_solve_json_is_verified_here(cli, cube):
    result = cli("sudoku-cube", "solve", cube, "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["solved"] is True and data["status"] == "solved"
    faces = data["faces"]
    assert sorted(faces) == sorted("URFDLB") and all(len(t) == 9 for t in faces.values())
    assert check_faces(faces).valid
    given = parse_state(cube.read_text()).to_dict()
    assert check_moves(given, faces, data["moves"]) == []
    assert simulate(given, data["moves"]) == faces
    assert len(data["assignment"]) == 8 + 12 + 6
    assert data["invariants"]["corner_twist_mod3"] == 0


def test_solve_text_shows_faces_table_and_moves(cli, cube, tmp_path):
    out = tmp_path / "solved.txt"
    result = cli("sudoku-cube", "solve", cube, "--moves", "-o", out)
    assert result.code == 0, result.err
    for fragment in ("verified: every face shows 1-9 once", "U (", "L (", "D (",
                     "piece assignment", "corner", "moves (", "checked: simulating"):
        assert fragment in result.out
    solved = parse_state(out.read_text())
    assert check_faces(solved.to_dict()).valid
    moves = out.read_text().splitlines()[1].removeprefix("# moves: ")
    given = parse_state(cube.read_text()).to_dict()
    assert check_moves(given, solved.to_dict(), moves) == []


def test_solve_with_cbc_and_cuts(cli, cube):
    result = cli("sudoku-cube", "solve", cube, "--solver", "cbc", "--parity", "cuts", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["solver"] == "cbc" and data["parity"] == "cuts" and data["solved"]
    assert check_faces(data["faces"]).valid


def test_broken_cube_is_not_solvable_by_turning(cli, tmp_path):
    path = tmp_path / "broken.txt"
    assert cli("sudoku-cube", "generate", "--seed", 0, "--broken", "twist", "-o", path).code == 0
    result = cli("sudoku-cube", "solve", path)
    assert result.code == 1
    assert "not solvable by turning" in result.out and "twisted in place" in result.out
    data = json.loads(cli("sudoku-cube", "solve", path, "--json").out)
    assert data["solved"] is False and data["status"] == "infeasible"
    assert data["detail"] == "not_turnable"
    assert data["faces"] is None and data["moves"] is None


def bad_digits(cube, tmp_path):
    """The cube with one digit changed: it appears 7 times, another 5."""
    text = cube.read_text().splitlines()
    u = next(i for i, line in enumerate(text) if line.startswith("U:"))
    tokens = text[u].split()
    tokens[1] = ("9" if tokens[1][0] != "9" else "8") + tokens[1][1]
    text[u] = " ".join(tokens)
    path = tmp_path / "bad.txt"
    path.write_text("\n".join(text) + "\n")
    return path


def test_bad_digits_are_rejected_with_the_reason(cli, cube, tmp_path):
    result = cli("sudoku-cube", "solve", bad_digits(cube, tmp_path))
    assert result.code == 1
    assert "cannot form six 1-9 faces" in result.out and "appears 7 times" in result.out


# The keys `solve --json` had before it went through protocol.solve; it keeps them all, after
# the common ones of every puzzle.
CUBE_KEYS = {"solved", "status", "detail", "reason", "faces", "moves", "solver", "parity",
             "build_seconds", "solve_seconds", "moves_seconds", "solver_calls", "parity_cuts",
             "variables", "constraints", "invariants", "engine"}
SOLUTION_KEYS = {"directions", "assignment", "move_count"}
COMMON_KEYS = {"puzzle", "status", "solver", "form", "seconds", "model_options", "build_seconds",
               "solve_seconds"}


def test_solve_json_keeps_every_key_solved_or_not(cli, cube, tmp_path):
    broken = tmp_path / "broken.txt"
    assert cli("sudoku-cube", "generate", "--seed", 0, "--broken", "twist", "-o",
               broken).code == 0
    answers = {}
    for name, path, code in (("solved", cube, 0), ("not_turnable", broken, 1),
                             ("no_grid", bad_digits(cube, tmp_path), 1)):
        result = cli("sudoku-cube", "solve", path, "--json")
        assert result.code == code, result.err
        answers[name] = json.loads(result.out)
    assert set(answers["solved"]) == CUBE_KEYS | SOLUTION_KEYS | COMMON_KEYS
    assert list(answers["solved"])[:5] == ["puzzle", "status", "solver", "form", "seconds"]
    for name in ("not_turnable", "no_grid"):
        data = answers[name]
        assert set(data) == CUBE_KEYS | COMMON_KEYS, name
        assert data["detail"] == name and data["status"] == "infeasible" and data["reason"]
    assert answers["not_turnable"]["solver_calls"] >= 2
    assert answers["not_turnable"]["invariants"]["corner_twist_mod3"] != 0
    assert answers["no_grid"]["solver_calls"] == 0 and answers["no_grid"]["variables"] == 0


@pytest.mark.parametrize("edit, fragments", [
    (lambda t: t.replace("U: ", "U: 7x ", 1), ["face U has 10 tokens"]),
    (lambda t: t.replace(t.split("R: ")[1].split()[4], "55", 1), ["face R position"]),
    (lambda t: "\n".join(ln for ln in t.splitlines() if not ln.startswith("B:")),
     ["face B missing"]),
    (lambda t: t + "Q: 1^\n", ["unknown face 'Q'"]),
])
def test_malformed_files_are_one_line_exit_2(cli, cube, tmp_path, edit, fragments):
    path = tmp_path / "malformed.txt"
    path.write_text(edit(cube.read_text()))
    result = cli("sudoku-cube", "solve", path)
    assert result.code == 2
    assert len(result.err.strip().splitlines()) == 1 and "Traceback" not in result.err
    for fragment in fragments:
        assert fragment in result.err


@pytest.mark.parametrize("args, fragment", [
    (["solve", "/no/such/file"], "cannot read"),
    (["solve", "{cube}", "--solver", "xpress"], "unknown solver"),
    (["solve", "{cube}", "--parity", "magic"], "unknown parity mode"),
    (["solve", "{cube}", "--symmetric", "0"], "--symmetric takes digits 1-9"),
    (["generate", "--seed", "1", "--broken", "melted"], "unknown --broken"),
    (["apply", "{cube}", "R X2"], "move 2"),
    (["export", "{cube}", "-o", "model.xyz"], "unknown export format"),
])
def test_bad_arguments_are_one_line_exit_2(cli, cube, args, fragment):
    result = cli("sudoku-cube", *[a.replace("{cube}", str(cube)) for a in args])
    assert result.code == 2
    assert fragment in result.err
    assert len(result.err.strip().splitlines()) == 1


@pytest.mark.parametrize("name", ["model.lp", "model.mps", "model.mps.gz"])
def test_export(cli, cube, tmp_path, name):
    path = tmp_path / name
    result = cli("sudoku-cube", "export", cube, "-o", path)
    assert result.code == 0, result.err
    assert path.stat().st_size > 1000
    if name == "model.lp":
        text = path.read_text()
        assert "c_URF_URF_t0" in text and "perm_parity" in text and "twist_sum" in text


def test_export_takes_the_parity_mode(cli, cube, tmp_path):
    path = tmp_path / "cuts.lp"
    result = cli("sudoku-cube", "export", cube, "-o", path, "--parity", "cuts", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["parity"] == "cuts" and data["puzzle"] == "sudoku-cube"
    text = path.read_text()
    assert "twist_sum" in text and "perm_parity" not in text  # cuts: no parity rows
    assert data["constraints"] < json.loads(cli("sudoku-cube", "export", cube, "-o",
                                                tmp_path / "inv.lp", "--json").out)["constraints"]


def test_export_of_digits_that_make_no_faces_is_exit_1(cli, cube, tmp_path):
    path = tmp_path / "model.lp"
    result = cli("sudoku-cube", "export", bad_digits(cube, tmp_path), "-o", path)
    assert result.code == 1 and "appears 7 times" in result.err
    assert not path.exists()


def test_bench_one_grid_only_counts_a_grid_turning_does_not_reach(cli):
    args = ("sudoku-cube", "bench-one", "--seed", 0, "--broken", "twist", "--json")
    grid_only = cli(*args, "--grid-only")
    assert grid_only.code == 0, grid_only.err
    data = json.loads(grid_only.out)
    assert data["status"] == "solved" and data["turnable"] is False and data["turns"] == 0
    full = json.loads(cli(*args).out)
    assert full["status"] == "infeasible" and full["detail"] == "not_turnable"
    assert full["turnable"] is False and full["solver_calls"] >= 2


def test_apply_then_check_answer_round_trip(cli, cube):
    given = parse_state(cube.read_text()).to_dict()
    result = cli("sudoku-cube", "apply", cube, "R U R' U'", "--json")
    data = json.loads(result.out)
    assert data["moves"] == "R U R' U'"
    assert data["faces"] == simulate(given, "R U R' U'")
    assert check_answer(given, given, list(range(54))).map_ok


def test_bench_reports_a_table(cli):
    result = cli("sudoku-cube", "bench", "--count", 2, "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["statuses"] == {"solved": 2} and data["failed"] == []
    assert data["reachable_grids"] == 2
    assert data["stats"]["solve"]["max"] > 0


def test_time_limit_is_reported_exit_3(cli, fixtures):
    path = fixtures / "sudoku_cube" / "centre-ones-turned.txt"
    result = cli("sudoku-cube", "solve", path, "--time-limit", "0.05", "--json")
    assert result.code == 3
    data = json.loads(result.out)
    assert data["status"] == "timeout" and data["solved"] is False and data["faces"] is None
