"""stdout belongs to the package: every command that takes --json, with every installed solver
it accepts, prints exactly one JSON object on stdout and no traceback.

A capture of `sys.stdout` never sees what a C library writes to file descriptor 1 (highspy 1.16
prints a banner when the first `Highs` object of a process is made), so what is read here is
file descriptor 1 itself. Of a real process, `python -m ilp_pyramid ...`, for one run of each
solver family and of each command that starts processes of its own (`runs_real`): a fresh
process, whose first `Highs` prints. Of this process (pytest's capfd: descriptors 1 and 2
redirected to files) for the other rows, which go through the same doors. Every row as a real
process: `pytest -m slow`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from ilp_pyramid.backends import cpsat, solvers
from ilp_pyramid.cli import build_app, main
from tests.conftest import SHARED_DASK, run_cli

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures"

SAT_SOLVERS = solvers.names("sat", installed=True)
MIP_SOLVERS = solvers.names("mip")
CPSAT = ["cpsat"] if cpsat.available() else []
# Every python-sat solver runs through the same door (a forked child, answers on a pipe, fd 1
# on /dev/null while native code runs): every command tries the aliases by default, every
# solver under `slow` (tests/test_solver_table.py solves with each one in the default suite).
COMMON_SAT = list(solvers.ALIASES)


def sat_rows(command: str, args: list[str], cp_sat: list[str]) -> list:
    return [(command, [*args, "--solver", s, "--json"], SOLVED) if s in COMMON_SAT + cp_sat
            else pytest.param(command, [*args, "--solver", s, "--json"], SOLVED,
                              marks=pytest.mark.slow)
            for s in SAT_SOLVERS + cp_sat]

# One row per run: (command path, arguments after it, exit codes that are right for it).
# {tmp} is a folder the session's files are in (see `workdir`).
SOLVED = (0,)
# Gurobi without a licence file takes models up to 2,000 variables and rows; a larger one is
# bad input (exit 2, one line on stderr, nothing on stdout).
LICENSED = (0, 2)


def mip_codes(solver: str) -> tuple[int, ...]:
    return LICENSED if solver == "gurobi" else SOLVED


def mip_rows(command: str, args: list[str], default: tuple[str, ...] = ("highs",),
             extra_codes: dict[str, tuple[int, ...]] | None = None) -> list:
    """One row per MIP solver; those beyond `default` under `slow`. Every MIP solver runs
    through one door (fd 1 on /dev/null while native code runs, a child's output read): the
    default suite tries each on `solve 2` (or tests/test_mip_solvers.py) and each command
    with HiGHS, and keeps its 5-minute budget."""
    rows = []
    for s in MIP_SOLVERS:
        row = (command, [*args, "--solver", s, "--json"],
               mip_codes(s) + (extra_codes or {}).get(s, ()))
        rows.append(row if s in default else pytest.param(*row, marks=pytest.mark.slow))
    return rows
ROWS: list[tuple[str, list[str], tuple[int, ...]]] = [
    # SCIP and Gurobi: the same run, checked more strictly, in tests/test_mip_solvers.py.
    *mip_rows("solve", ["2"], default=("highs", "cbc")),
    *sat_rows("solve", ["2"], CPSAT),
    ("solve", ["3", "--json"], SOLVED),
    ("solve", ["4", "--json"], SOLVED),
    ("solve", ["3", "--method", "lns", "--repair", "mip", "--json"], SOLVED),
    ("verify", ["{fixtures}/bel/n4-published.txt", "--json"], SOLVED),
    ("render", ["{fixtures}/bel/n3-example.txt", "--cubes", "--json"], SOLVED),
    ("export", ["2", "-o", "{tmp}/bel2.mps", "--json"], SOLVED),
    ("read-solution", ["{tmp}/model.mps", "{tmp}/highs.sol", "--json"], SOLVED),
    ("models", ["{tmp}/models", "--max-n", "2", "--json"], SOLVED),
    ("models", ["{tmp}/library", "--puzzle", "sudoku-cube", "--json"], SOLVED),  # cheapest part
    *sat_rows("solve-cnf", ["{tmp}/bel2.cnf"], []),  # DIMACS goes to python-sat only
    ("strategies", ["--json"], SOLVED),
    ("info", ["3", "--json"], SOLVED),
    # D4 and a SAT enumeration in forked children (Ganak, the other default, is the same
    # child's with another counter, and costs a few seconds more here)
    ("count", ["2", "--method", "d4,sat", "--json"], SOLVED),
    ("count", ["2", "--method", "d4", "--split", "3", "--record", "{tmp}/count2", "--json"],
     SOLVED),  # a forked child per piece, D4 printing its statistics in each
    ("hunt", ["3", "--state-dir", "{tmp}/hunt3", "--jobs", "1", "--time-limit", "60",
              "--json"], SOLVED),
    ("conquer", ["3", "--strategy", "LabelPermutation", "--record", "{tmp}/conquer3",
                 "--jobs", "1", "--json"], SOLVED),
    # A run's stdout goes to the bench, never to its own: one solver of each family (every
    # solver's own --json is the `solve 2` rows above).
    ("bench", ["--n", "2", "--solver", "highs,kissat", "--time-limit", "30", "--results",
               "{tmp}/bench.jsonl", "--json"], SOLVED),
    ("bench report", ["{tmp}/bench-fixture.jsonl", "--json"], SOLVED),
    ("bench plot", ["{tmp}/bench-fixture.jsonl", "--kind", "cactus", "-o", "{tmp}/cactus.png",
                    "--json"], SOLVED),
    ("bench render", ["{tmp}/README.md", "--json"], SOLVED),
    *mip_rows("views solve", ["--number", "347177"], default=("highs", "cbc")),
    ("views solve", ["--number", "347177", "--solver", "rc2", "--json"], SOLVED),
    ("views export", ["--number", "347177", "-o", "{tmp}/views.mps", "--json"], SOLVED),
    # With its pool, a real process in tests/test_views_battery.py (whose stdout must be
    # one JSON object) in the default suite.
    pytest.param("views battery", ["--count", "100", "--jobs", "2", "--json"], SOLVED,
                 marks=pytest.mark.slow),
    *mip_rows("views battery", ["--count", "100", "--jobs", "1", "--cross-check", "1"]),
    *[("iq solve", ["pyramid4", "--solver", s, "--json"], SOLVED) for s in ["auto", "dlx", "sat"]],
    *mip_rows("iq solve", ["pyramid4"]),
    *sat_rows("iq solve", ["pyramid4"], CPSAT),
    ("iq count", ["triangle", "--given", "{fixtures}/iq/triangle_five_given.txt", "--json"],
     SOLVED),
    ("iq verify", ["triangle", "{tmp}/iq_solutions.txt", "--given",
                   "{fixtures}/iq/triangle_five_given.txt", "--json"], SOLVED),
    ("iq export", ["pyramid4", "-o", "{tmp}/iq.lp", "--json"], SOLVED),
    ("iq show", ["pyramid4", "--json"], SOLVED),
    ("sudoku-cube generate", ["--seed", "3", "--json"], SOLVED),
    *mip_rows("sudoku-cube solve", ["{tmp}/cube.txt"]),
    ("sudoku-cube apply", ["{tmp}/cube.txt", "R U", "--json"], SOLVED),
    ("sudoku-cube export", ["{tmp}/cube.txt", "-o", "{tmp}/cube.lp", "--json"], SOLVED),
    # The puzzle group written once against the protocol (cli/puzzle.py), Instant Insanity's.
    *mip_rows("insanity solve", []),
    *sat_rows("insanity solve", [], CPSAT),
    ("insanity verify", ["{fixtures}/insanity/classic-tower.json", "--json"], SOLVED),
    ("insanity export", ["-o", "{tmp}/insanity.cnf", "--json"], SOLVED),
    ("insanity render", ["{fixtures}/insanity/classic-tower.json", "-f", "svg", "--json"],
     SOLVED),
    # The standard commands the hand-written groups get from the protocol (cli/puzzle.py).
    ("views verify", ["{fixtures}/views/solved.json", "--json"], SOLVED),
    ("views render", ["{fixtures}/views/solved.json", "-f", "svg", "-o", "{tmp}/v.svg",
                      "--json"], SOLVED),
    ("iq render", ["{fixtures}/iq/solved.json", "-f", "svg", "-o", "{tmp}/iq.svg", "--json"],
     SOLVED),
    ("sudoku-cube verify", ["{fixtures}/sudoku_cube/solved.json", "--json"], SOLVED),
    ("sudoku-cube render", ["{fixtures}/sudoku_cube/solved.json", "-f", "svg", "-o",
                            "{tmp}/cube.svg", "--json"], SOLVED),
    # A group's bench is the one bench with --puzzle fixed (cli/puzzle.py): one group's in the
    # default suite, the others (the same code, seconds of runs each) under `slow`.
    ("insanity bench", ["--n", "4", "--solver", "kissat", "--time-limit", "30",
                        "--results", "{tmp}/ins.jsonl", "--json"], SOLVED),
    pytest.param("iq bench", ["--n", "4", "--solver", "dlx", "--time-limit", "30",
                              "--results", "{tmp}/iq.jsonl", "--json"], SOLVED,
                 marks=pytest.mark.slow),
    pytest.param("views bench", ["--n", "4", "--solver", "cbc", "--time-limit", "30",
                                 "--results", "{tmp}/v.jsonl", "--json"], SOLVED,
                 marks=pytest.mark.slow),
    # A bench whose runs the licence refuses reports them failed: exit 1, still one object.
    *mip_rows("sudoku-cube bench", ["--count", "1"], default=("highs",),
              extra_codes={"gurobi": (1,)}),
    ("sudoku-cube bench-one", ["--seed", "0", "--json"], SOLVED),  # one cube of the bench
]


# Commands that start processes (a pool, a cluster, a bench's runs, a race of repairs) or
# count over forked jobs: each runs as a real process in the default suite.
FORKING = {"hunt", "bench", "count", "views battery", "iq count", "iq bench", "views bench",
           "insanity bench", "sudoku-cube bench"}
# One run of each solver family as a real process: HiGHS in process, CBC's program, a
# python-sat solver's forked child, CP-SAT, the numba DLX (`solve 2`, `iq solve pyramid4`).
FAMILIES = {("solve", "highs"), ("solve", "cbc"), ("solve", COMMON_SAT[0]),
            ("solve", "cpsat"), ("iq solve", "dlx")}


def runs_real(command: str, args: list[str]) -> bool:
    solver = args[args.index("--solver") + 1] if "--solver" in args else None
    return command in FORKING or "lns" in args or (command, solver) in FAMILIES


def split(row) -> tuple[tuple, tuple]:
    return tuple(getattr(row, "values", row)), tuple(getattr(row, "marks", ()))


SLOW = pytest.mark.slow
# Every row as a real process; those `runs_real` leaves in process under `slow`.
REAL_ROWS = [pytest.param(*values, marks=marks if marks or runs_real(*values[:2]) else (SLOW,))
             for values, marks in map(split, ROWS)]
# The rows the default suite does not run as a real process, in this process.
IN_PROCESS_ROWS = [values for values, marks in map(split, ROWS)
                   if not marks and not runs_real(*values[:2])]


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("COLUMNS", None)
    return subprocess.run([sys.executable, "-m", "ilp_pyramid", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)


def json_commands() -> set[str]:
    """Every command path of the CLI that takes --json (groups with a callback included)."""
    found = set()

    def walk(command, path: list[str]) -> None:
        if any("--json" in getattr(p, "opts", ()) for p in command.params):
            found.add(" ".join(path))
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, path + [name])

    walk(typer.main.get_command(build_app()), [])
    return found


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """The files the rows read: a CNF, an MPS with an outside solver's answer, a Sudoku Cube,
    IQ solutions, a results file and a README to render."""
    import highspy

    tmp = tmp_path_factory.mktemp("contract")
    # Inputs only, so made in this process (what is checked is the rows' own processes).
    for args in (["export", "2", "-o", str(tmp / "bel2.cnf")],
                 ["export", "2", "-o", str(tmp / "model.mps")],
                 ["sudoku-cube", "generate", "--seed", "3", "-o", str(tmp / "cube.txt")],
                 ["iq", "count", "triangle", "--given",
                  str(FIXTURES / "iq" / "triangle_five_given.txt"), "--jobs", "1", "--output",
                  str(tmp / "iq_solutions.txt")]):
        made = run_cli(*args)
        assert made.code == 0, (args, made.err)
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    highs.readModel(str(tmp / "model.mps"))
    highs.run()
    highs.writeSolution(str(tmp / "highs.sol"), 0)
    fixture = (FIXTURES / "bench" / "legacy_mip_vs_sat.jsonl").read_text()
    (tmp / "bench-fixture.jsonl").write_text(fixture)
    (tmp / "README.md").write_text(
        "# x\n\n<!-- bench:bench-fixture.jsonl:table=grid -->\n<!-- /bench -->\n")
    return tmp


def test_every_json_command_has_a_row():
    assert json_commands() == {getattr(row, "values", row)[0] for row in ROWS}


def row_ids(value):
    return "-".join(value[:4]) if isinstance(value, list) else None


def check_one_object(code: int, out: str, err: str, codes: tuple[int, ...]) -> None:
    assert code in codes, (code, err[-2000:])
    assert "Traceback" not in err, err[-2000:]
    if code == 2:  # refused: one line on stderr, nothing on stdout
        assert out == "" and len(err.strip().splitlines()) == 1, err
        return
    document = json.loads(out)  # the whole of stdout: nothing before or after
    assert isinstance(document, dict)


@pytest.mark.parametrize(("command", "args", "codes"), REAL_ROWS, ids=row_ids)
def test_json_output_of_a_real_process_is_one_object(workdir, command, args, codes):
    filled = [a.format(tmp=workdir, fixtures=FIXTURES) for a in args]
    done = run([*command.split(), *filled], workdir)
    check_one_object(done.returncode, done.stdout, done.stderr, codes)


@pytest.mark.parametrize(("command", "args", "codes"), IN_PROCESS_ROWS, ids=row_ids)
def test_json_output_read_from_file_descriptor_1_is_one_object(workdir, command, args, codes,
                                                               capfd, monkeypatch):
    filled = [a.format(tmp=workdir, fixtures=FIXTURES) for a in args]
    monkeypatch.chdir(workdir)
    monkeypatch.delenv("COLUMNS", raising=False)
    capfd.readouterr()  # what this process wrote before is not the row's
    try:
        main([*command.split(), *filled])
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capfd.readouterr()
    check_one_object(code, out, err, codes)


@pytest.mark.parametrize("args", [
    ["solve", "2", "--solver", "highs"],
    ["views", "solve", "--number", "347177"],
    ["iq", "solve", "pyramid4", "--solver", "highs"],
])
def test_text_output_carries_no_solver_banner(workdir, args):
    done = run(args, workdir)
    assert done.returncode == 0, done.stderr
    assert "HiGHS" not in done.stdout and "Copyright" not in done.stdout, done.stdout


def test_a_log_asked_for_goes_to_stderr(workdir):
    done = run(["solve", "2", "--solver", "highs", "--verbose"], workdir)
    assert done.returncode == 0, done.stderr
    assert "HiGHS" in done.stderr
    assert "HiGHS" not in done.stdout
    assert "verified" in done.stdout



@SHARED_DASK
def test_a_long_line_reaches_a_pipe_whole(workdir, dask_scheduler):
    """Text lines go out whole when stdout/stderr is a pipe (Rich would break them at 80)."""
    state = workdir / ("a-state-directory-whose-name-alone-runs-past-eighty-columns-" * 2)
    for stream in ("stdout", "stderr"):  # the first run reports its file on stdout, the
        done = run(["hunt", "3", "--state-dir", str(state), "--jobs", "1",  # second on stderr
                    "--time-limit", "20", "--scheduler", dask_scheduler], workdir)
        assert done.returncode == 0, done.stderr
        assert f"{state / 'best.json'}" in getattr(done, stream), getattr(done, stream)
    sudoku = state / "cube.txt"
    done = run(["sudoku-cube", "generate", "--seed", "3", "-o", str(sudoku)], workdir)
    assert done.returncode == 0, done.stderr
    assert f"wrote {sudoku} (seed 3," in done.stdout, done.stdout
