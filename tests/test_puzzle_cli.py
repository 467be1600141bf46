"""The command group written once against the puzzle protocol: in process (typer.testing) for
the commands' logic, as real processes for the CLI contract (stdout, exit codes)."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from ilp_pyramid.backends.base import Result as BackendResult
from ilp_pyramid.backends.base import Status
from ilp_pyramid.cli import puzzle as puzzle_cli
from ilp_pyramid.errors import InputError
from ilp_pyramid.formats.dimacs import read_dimacs
from ilp_pyramid.protocol import Model
from ilp_pyramid.puzzles.insanity.puzzle import PUZZLE

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures" / "insanity"
runner = CliRunner()


def invoke(app: typer.Typer, *args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def commands(app: typer.Typer) -> dict[str, typer.models.CommandInfo]:
    return {info.name: info for info in app.registered_commands}


def option_names(app: typer.Typer, command: str) -> set[str]:
    click_command = typer.main.get_command(app).commands[command]
    return {opt for param in click_command.params for opt in getattr(param, "opts", ())}


@pytest.fixture(scope="module")
def app() -> typer.Typer:
    return puzzle_cli.group(PUZZLE)


def test_the_group_has_the_standard_commands_that_apply(app):
    assert list(commands(app)) == ["solve", "verify", "export", "render", "bench"]  # no count
    assert {"--generate", "--seed", "--planted", "--solver", "-s", "--time-limit",
            "--threads", "--json", "-o", "--output", "--verbose"} <= option_names(app, "solve")
    assert {"-o", "-f", "--format", "--generate"} <= option_names(app, "export")


def test_solve_with_no_file_solves_the_classic_set(app):
    done = invoke(app, "solve")
    assert done.exit_code == 0, done.output
    assert "each long side shows each of the 4 colours once" in done.stdout
    assert "solved by highs (mip)" in done.stdout


def test_solve_json_is_one_object_with_the_verified_solution(app):
    done = invoke(app, "solve", "--solver", "cbc", "--json")
    data = json.loads(done.stdout)
    assert done.exit_code == 0 and data["status"] == "solved" and data["solver"] == "cbc"
    assert PUZZLE.verify(*PUZZLE.from_json(data["solution"])) == []


def test_solve_o_writes_what_verify_reads_and_a_change_is_caught(app, tmp_path):
    saved = tmp_path / "tower.json"
    assert invoke(app, "solve", "--solver", "kissat", "-o", str(saved)).exit_code == 0
    done = invoke(app, "verify", str(saved), "--json")
    assert done.exit_code == 0 and json.loads(done.stdout) == {
        "puzzle": "insanity", "valid": True, "reasons": []}
    data = json.loads(saved.read_text())
    first = data["placements"][0]
    first[0], first[1] = first[1], first[0]  # front and back swapped: a mirror image
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(data))
    done = invoke(app, "verify", str(broken))
    assert done.exit_code == 1 and done.stdout.startswith("invalid")
    malformed = tmp_path / "malformed.json"
    malformed.write_text("{not json")
    assert invoke(app, "verify", str(malformed)).exit_code == 2


def test_an_infeasible_instance_exits_1_and_writes_nothing(app, tmp_path):
    out = tmp_path / "none.json"
    done = invoke(app, "solve", str(FIXTURES / "colour-missing.txt"), "--json", "-o", str(out))
    assert done.exit_code == 1 and json.loads(done.stdout)["status"] == "infeasible"
    assert not out.exists()


def test_a_generated_instance_is_the_generators(app):
    done = invoke(app, "solve", "--generate", "6", "--seed", "5", "--planted", "--json")
    data = json.loads(done.stdout)
    assert done.exit_code == 0
    assert data["solution"]["cubes"] == [list(c) for c in PUZZLE.generate(6, 5, True).cubes]


@pytest.mark.parametrize("args", [["--planted"], ["x.txt", "--generate", "4"],
                                  ["--solver", "nosuch"], ["--generate", "0"]])
def test_bad_input_is_exit_2(app, args, tmp_path):
    assert invoke(app, "solve", *args).exit_code == 2


def test_export_writes_lp_mps_and_cnf_files_that_read_back(app, tmp_path):
    import pulp

    lp = tmp_path / "classic.lp"
    done = invoke(app, "export", "-o", str(lp), "--json")
    report = json.loads(done.stdout)
    assert done.exit_code == 0 and report["format"] == "lp"
    # One row per cube, one per (side, colour).
    assert report["constraints"] == 4 + 4 * 4
    assert "x_c1_o0" in lp.read_text()
    mps = tmp_path / "classic.mps.gz"
    assert invoke(app, "export", "-o", str(mps)).exit_code == 0
    plain = tmp_path / "classic.mps"
    plain.write_bytes(gzip.decompress(mps.read_bytes()))
    _names, problem = pulp.LpProblem.fromMPS(str(plain))
    assert len(problem.variables()) == report["variables"]
    # 4 cubes x 24 orientations, but the first cube only its 3 symmetry representatives.
    assert len([v for v in problem.variables() if v.name.startswith("x_")]) == 3 * 24 + 3
    assert problem.solve(pulp.HiGHS(msg=False)) == pulp.LpStatusOptimal
    cnf = tmp_path / "planted.cnf"
    done = invoke(app, "export", "--generate", "5", "--planted", "-f", "cnf", "-o", str(cnf),
                  "--json")
    report = json.loads(done.stdout)
    formula = read_dimacs(cnf.read_text())
    assert len(formula.clauses) == report["clauses"] > 0
    from pysat.solvers import Solver

    with Solver(name="cadical153", bootstrap_with=formula.clauses) as solver:
        assert solver.solve()
    assert invoke(app, "export", "-o", str(tmp_path / "x.gif")).exit_code == 2


def test_render_draws_a_checked_solution_and_refuses_a_broken_one(app, tmp_path):
    saved = tmp_path / "tower.json"
    invoke(app, "solve", "-o", str(saved))
    svg = tmp_path / "tower.svg"
    done = invoke(app, "render", str(saved), "-o", str(svg))
    assert done.exit_code == 0 and svg.read_text().startswith("<svg")
    done = invoke(app, "render", str(saved), "-f", "text")
    assert done.exit_code == 0 and "front" in done.stdout
    assert invoke(app, "render", str(saved), "-f", "png").exit_code == 2  # png needs -o
    data = json.loads(saved.read_text())
    first = data["placements"][0]
    first[2], first[3] = first[3], first[2]  # left and right swapped: a mirror image
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(data))
    done = invoke(app, "render", str(broken), "-o", str(tmp_path / "no.svg"))
    assert done.exit_code == 1 and "not a rotation" in done.stdout
    assert not (tmp_path / "no.svg").exists()


# A puzzle as small as the protocol allows, to show the group needs nothing more: pick one
# of two numbers that sums with the given one to 3.
@dataclass
class Tiny:
    name: str = "tiny"
    title: str = "Tiny: a test puzzle."
    forms: tuple[str, ...] = ("cnf",)

    def parse(self, text: str) -> int:
        try:
            return int(text)
        except ValueError:
            raise InputError(f"not a number: {text.strip()!r}") from None

    def default(self) -> int:
        return 1

    def model(self, instance: int, form: str) -> Model:
        # variable 1 true: the answer is 2, false: the answer is 1; no answer for 4 or more.
        clauses = [[1] if instance == 1 else [-1]] if instance < 3 else [[1], [-1]]
        return Model("cnf", clauses, lambda answer: 2 if 1 in answer.model else 1)

    def verify(self, instance: int, solution: int) -> list[str]:
        return [] if instance + solution == 3 else [f"{instance} + {solution} is not 3"]

    def render(self, instance: int, solution: int, fmt: str = "text") -> str:
        return f"{instance} + {solution} = 3\n"

    def to_json(self, instance: int, solution: int) -> dict:
        return {"instance": instance, "solution": solution}

    def from_json(self, data: dict) -> tuple[int, int]:
        return data["instance"], data["solution"]


class CountingTiny(Tiny):
    def count(self, instance: int, options) -> int:
        return 1 if instance < 3 else 0


def test_any_puzzle_gets_the_commands_and_no_generator_options_without_generate(tmp_path):
    app = puzzle_cli.group(Tiny())
    assert list(commands(app)) == ["solve", "verify", "export", "render", "bench"]
    assert "--generate" not in option_names(app, "solve")
    assert "--seed" in option_names(app, "solve")
    done = invoke(app, "solve", "--solver", "kissat", "--json", "-o", str(tmp_path / "t.json"))
    assert done.exit_code == 0 and json.loads(done.stdout)["solution"] == {
        "instance": 1, "solution": 2}
    assert invoke(app, "verify", str(tmp_path / "t.json")).exit_code == 0
    four = tmp_path / "four.txt"
    four.write_text("4\n")
    assert invoke(app, "solve", str(four), "-s", "kissat").exit_code == 1
    assert invoke(app, "solve", "-s", "highs").exit_code == 2  # no MIP form: bad input
    assert invoke(app, "export", "-o", str(tmp_path / "t.lp")).exit_code == 2
    assert invoke(app, "export", "-o", str(tmp_path / "t.cnf")).exit_code == 0
    assert read_dimacs((tmp_path / "t.cnf").read_text()).clauses == [[1]]


def test_count_only_where_the_puzzle_counts():
    app = puzzle_cli.group(CountingTiny())
    assert "count" in commands(app)
    done = invoke(app, "count", "--json")
    assert done.exit_code == 0 and json.loads(done.stdout) == {"puzzle": "tiny", "count": 1}


def test_a_hand_written_group_keeps_its_own_commands():
    app = typer.Typer()

    @app.command("solve")
    def own_solve() -> None:
        print("own")

    added = puzzle_cli.add_standard_commands(app, Tiny())
    assert added == ["verify", "export", "render", "bench"]
    assert invoke(app, "solve").stdout == "own\n"


def test_a_text_render_hook_draws_the_solution_in_place_of_the_puzzles_text():
    # What IQ's coloured terminal text is (cli/iq.py): a hook of the command, not a subclass.
    drawn = []

    def text_render(instance: int, solution: int) -> str:
        drawn.append((instance, solution))
        return f"drawn {instance} -> {solution}\n"

    app = typer.Typer()
    app.command("solve")(puzzle_cli.solve_command(Tiny(), text_render=text_render))
    app.command("other")(lambda: None)  # a group, so that `solve` is a name to type
    done = invoke(app, "solve", "-s", "kissat")
    assert done.exit_code == 0 and drawn == [(1, 2)]
    assert "drawn 1 -> 2\n" in done.stdout
    assert Tiny().render(1, 2, "text") not in done.stdout
    done = invoke(app, "solve", "-s", "kissat", "--json")  # --json draws nothing
    assert drawn == [(1, 2)] and json.loads(done.stdout)["status"] == "solved"


def test_a_group_builds_its_bench_only_for_the_bench_command():
    listed = puzzle_cli.app_for(Tiny(), then="solve")
    full = puzzle_cli.app_for(Tiny())
    short = {name: typer.main.get_command(app).commands["bench"].get_short_help_str(200)
             for name, app in (("listed", listed), ("full", full))}
    assert short["listed"] == short["full"] and "tiny's bench grid" in short["full"]
    assert option_names(listed, "bench") == set()  # a stand-in: no option, never run
    assert {"--n", "--solver", "--time-limit", "--results"} <= option_names(full, "bench")
    assert "--puzzle" not in option_names(full, "bench")
    # A hand-written group is completed in a copy: a command line that ran another command
    # leaves no stand-in in it for the next tree (the table of docs/cli.md).
    own = typer.Typer()
    own.command("solve")(lambda: None)
    puzzle_cli.app_for(Tiny(), own, then="solve")
    assert [info.name for info in own.registered_commands] == ["solve"]
    assert "--results" in option_names(puzzle_cli.app_for(Tiny(), own), "bench")


def test_a_solver_answer_the_checker_rejects_is_an_error_not_a_solution(monkeypatch):
    from ilp_pyramid import backends

    monkeypatch.setattr(backends, "solve", lambda form, solver, options: BackendResult(
        solver, Status.SOLVED, 0.0, model=[-1]))  # "answer 1", and 1 + 1 is not 3
    app = puzzle_cli.group(Tiny())
    done = invoke(app, "solve", "-s", "kissat", "--json")
    assert done.exit_code == 1 and json.loads(done.stdout)["status"] == "error"
    assert "solution" not in json.loads(done.stdout)


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "ilp_pyramid", "insanity", *args], cwd=cwd,
                          env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          timeout=120)


@pytest.mark.parametrize(("args", "code", "status"), [
    (["solve", "--json"], 0, "solved"),
    (["solve", "--json", "-s", "kissat"], 0, "solved"),
    (["solve", "--generate", "7", "--seed", "2", "--planted", "--json", "-s", "cadical"], 0,
     "solved"),
    (["solve", str(FIXTURES / "colour-missing.txt"), "--json"], 1, "infeasible"),
    (["solve", str(FIXTURES / "colour-missing.txt"), "--json", "-s", "kissat"], 1,
     "infeasible"),
    (["solve", "--generate", "12", "--seed", "0", "--time-limit", "0", "--json"], 3,
     "timeout"),
])
def test_a_real_process_prints_one_json_object_and_the_right_exit_code(args, code, status,
                                                                       tmp_path):
    done = run(*args, cwd=tmp_path)
    assert done.returncode == code, done.stderr
    assert json.loads(done.stdout)["status"] == status  # the whole of stdout is one object
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("args", [["solve", "missing.txt", "--json"],
                                  ["solve", "--planted", "--json"],
                                  ["verify", "missing.json", "--json"],
                                  ["solve", "-s", "nosuch", "--json"]])
def test_a_real_process_with_bad_input_exits_2_with_one_line(args, tmp_path):
    done = run(*args, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("error: ")


def test_a_real_process_round_trip_solve_o_then_verify(tmp_path):
    done = run("solve", "-s", "cbc", "-o", "tower.json", cwd=tmp_path)
    assert done.returncode == 0 and "each long side" in done.stdout
    done = run("verify", "tower.json", "--json", cwd=tmp_path)
    assert done.returncode == 0 and json.loads(done.stdout)["valid"] is True


def test_an_own_option_may_reuse_a_hidden_standard_name():
    """A puzzle may declare a standard option again (its own default or help): the standard
    code and the puzzle's own options both get the value given."""
    import inspect

    from ilp_pyramid.cli import puzzle as puzzle_cli

    seen = {}

    def standard(file=None, seed=None, **own_options):
        seen["standard"] = {"file": file, "seed": seed}
        seen["own"] = puzzle_cli._own_call(own, own_options, {"file": file, "seed": seed},
                                           ("seed",)).model

    def own(seed: int = 7, size: int = 4) -> puzzle_cli.Call:
        return puzzle_cli.Call(model={"seed": seed, "size": size})

    command = puzzle_cli._extended(standard, own, hide=("seed",))
    assert list(inspect.signature(command).parameters) == ["file", "seed", "size"]
    command(file="f", seed=3, size=5)
    assert seen == {"standard": {"file": "f", "seed": 3}, "own": {"seed": 3, "size": 5}}
