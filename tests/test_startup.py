"""What a small solve loads: the modules, not the time (the time is a benchmark's, docs/)."""

import json
import re
import subprocess
import sys
from importlib import metadata

import pytest

# Runs the command as the console script does, then lists every module the process loaded.
PROBE = r"""
import json, sys
from ilp_pyramid import cli
try:
    cli.main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""

# The quick path (cli/bel/quick.py) solves through the one solve path (protocol.py, Bel's
# Puzzle object in puzzles/bel/puzzle.py) and prints through cli/bel/exact.py, as the
# Typer command does.
SOLVE_SMALL = {
    "ilp_pyramid", "ilp_pyramid.cli", "ilp_pyramid.cli.signals", "ilp_pyramid.cli.tree",
    "ilp_pyramid.errors", "ilp_pyramid.output",
    "ilp_pyramid.parsing", "ilp_pyramid.progress", "ilp_pyramid.protocol",
    "ilp_pyramid.backends", "ilp_pyramid.backends.base", "ilp_pyramid.backends.forms",
    "ilp_pyramid.backends.linear",
    "ilp_pyramid.backends.process", "ilp_pyramid.backends.sat",
    "ilp_pyramid.backends.solvers", "ilp_pyramid.cardinality", "ilp_pyramid.extras",
    "ilp_pyramid.cli.bel", "ilp_pyramid.cli.bel.exact", "ilp_pyramid.cli.bel.quick",
    "ilp_pyramid.formats", "ilp_pyramid.formats.dimacs", "ilp_pyramid.formats.fileio",
    "ilp_pyramid.puzzles", "ilp_pyramid.puzzles.bel", "ilp_pyramid.puzzles.bel.auto",
    "ilp_pyramid.puzzles.bel.cnf", "ilp_pyramid.puzzles.bel.geometry",
    "ilp_pyramid.puzzles.bel.incidence_table", "ilp_pyramid.puzzles.bel.puzzle",
    "ilp_pyramid.puzzles.bel.solution",
    "ilp_pyramid.verify", "ilp_pyramid.verify.bel",
}


# Standard-library packages a small solve has no use for (each costs milliseconds to load).
UNUSED_STDLIB = {"argparse", "asyncio", "concurrent", "email", "http", "logging", "sqlite3",
                 "unittest", "urllib", "xml", "zipfile"}


def probe(*args: str) -> tuple[int, set[str], set[str], str]:
    """Exit code, the package's modules, the third-party distributions (and, for the
    standard library's, `stdlib`), and stdout."""
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True,
                          text=True, timeout=120)
    *printed, last = done.stdout.splitlines()
    data = json.loads(last)
    data["modules"] = set(data["modules"]) - _at_start()  # site's own (.pth hooks)
    ours = {name for name in data["modules"] if name.split(".")[0] == "ilp_pyramid"}
    owners = metadata.packages_distributions()
    tops = {name.split(".")[0] for name in data["modules"]}
    third = {dist for top in tops if top not in sys.stdlib_module_names
             for dist in owners.get(top, []) if dist != "ilp-pyramid"}
    probe.stdlib = {top for top in tops if top in sys.stdlib_module_names}
    return data["code"], ours, third, "\n".join(printed)


def _at_start() -> set[str]:
    bare = subprocess.run([sys.executable, "-c", "import json, sys; "
                           "print(json.dumps(sorted(sys.modules)))"], capture_output=True,
                          text=True, timeout=60)
    return set(json.loads(bare.stdout))


@pytest.mark.parametrize("args", [["solve", "1"], ["solve", "2", "--json"]])
def test_a_small_solve_loads_only_the_sat_path(args):
    code, ours, third, out = probe(*args)
    assert code == 0, out
    # No Typer, Rich, Pydantic, networkx, numpy, PuLP: python-sat is all it needs.
    assert third == {"python-sat"}
    assert ours - {"ilp_pyramid.output"} == SOLVE_SMALL - {"ilp_pyramid.output"}
    assert not probe.stdlib & UNUSED_STDLIB, sorted(probe.stdlib & UNUSED_STDLIB)


# `--version` (and what `--help` loads before Typer): the entry point, the signals it installs
# first, the tree's table, the errors.
VERSION = {"ilp_pyramid", "ilp_pyramid.cli", "ilp_pyramid.cli.signals", "ilp_pyramid.cli.tree",
           "ilp_pyramid.version",
           "ilp_pyramid.errors"}


def test_version_loads_nothing_else():
    code, ours, third, out = probe("--version")
    assert code == 0 and out.startswith("ilp-pyramid ")
    assert third == set()
    assert ours == VERSION


def test_other_command_lines_still_go_through_typer():
    code, ours, third, out = probe("solve", "2", "--seed", "1")
    assert code == 0 and "typer" in third


def _untimed(text: str) -> str:
    return re.sub(r"\d+\.\d\d s", "T s", text)


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ilp_pyramid", *args], capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("n", [1, 3])
def test_the_quick_path_prints_what_the_usual_one_prints(n):
    # `--method auto` spelled out takes the Typer path to the same engine.
    quick, usual = _cli("solve", str(n)), _cli("solve", str(n), "--method", "auto")
    assert quick.returncode == usual.returncode == 0
    assert _untimed(quick.stdout).splitlines()[:3] == _untimed(usual.stdout).splitlines()[:3]
    assert quick.stdout.count("\n") == usual.stdout.count("\n")
    assert quick.stderr == usual.stderr == ""
    keys = json.loads(_cli("solve", str(n), "--json").stdout).keys()
    assert keys == json.loads(_cli("solve", str(n), "--method", "auto", "--json").stdout).keys()


def test_bad_n_on_the_quick_path_is_the_usual_error():
    done = _cli("solve", "13")
    assert done.returncode == 2
    assert done.stderr.startswith("error: N must be between 1 and 12")


def test_the_top_level_help_lists_what_the_commands_say_without_loading_them():
    import typer

    from ilp_pyramid.cli import build_app

    full = typer.main.get_command(build_app())
    listed = typer.main.get_command(build_app(listing=True))
    ctx = None  # TyperGroup lists and finds its commands without one
    assert full.list_commands(ctx) == listed.list_commands(ctx)
    for name in full.list_commands(ctx):
        assert (full.get_command(ctx, name).get_short_help_str(limit=200)
                == listed.get_command(ctx, name).get_short_help_str(limit=200)), name
    code, ours, third, out = probe("--help")
    assert code == 0 and "sudoku-cube" in out
    # Typer, not one command module: no solver library, no numba, no plotting.
    assert not {"numba", "numpy", "PuLP", "matplotlib", "python-sat"} & third
    # No puzzle (a group's line is its title, from the registry's TITLES) and no command.
    puzzle_modules = {name for name in ours if name.startswith("ilp_pyramid.puzzles.")}
    assert not puzzle_modules, sorted(puzzle_modules)
    commands = {name for name in ours if name.startswith("ilp_pyramid.cli.")} - VERSION
    assert not commands, sorted(commands)


# What a puzzle's command does not load: the bench (its group's `bench` is built only when it
# is the command that runs).
KEPT_OFF_A_PUZZLE_COMMAND = {"ilp_pyramid.cli.bench", "ilp_pyramid.bench"}


def test_a_puzzle_command_loads_no_bench():
    code, ours, third, out = probe("insanity", "solve", "--json")
    assert code == 0 and json.loads(out)["status"] == "solved"
    assert "ilp_pyramid.cli.puzzle" in ours
    loaded = {name for name in ours for kept in KEPT_OFF_A_PUZZLE_COMMAND
              if name == kept or name.startswith(kept + ".")}
    assert not loaded, sorted(loaded)


HEAVY = ("pulp", "highspy", "numba", "numpy", "pysat", "ortools", "matplotlib", "plotly",
         "typer", "rich", "networkx")


def test_importing_the_package_and_its_puzzles_loads_no_solver_and_no_plotting():
    code = ("import json, sys, ilp_pyramid\n"
            "for name in ilp_pyramid.puzzle_names():\n"
            "    ilp_pyramid.puzzle(name)\n"
            "ilp_pyramid.solve, ilp_pyramid.Status\n"
            "print(json.dumps(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = {name.split(".")[0] for name in json.loads(done.stdout)}
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_the_python_bench_loads_no_command_line():
    # ilp_pyramid.run_bench and the session it runs: the bench's library, not its command.
    code = ("import json, sys, ilp_pyramid\n"
            "ilp_pyramid.run_bench\n"
            "import ilp_pyramid.bench.session\n"
            "print(json.dumps(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout))
    assert "ilp_pyramid.bench.api" in loaded
    assert not {"typer", "click"} & {name.split(".")[0] for name in loaded}
    assert not {name for name in loaded if name.split(".")[:2] == ["ilp_pyramid", "cli"]}


def test_the_registry_titles_are_the_puzzles_own():
    from ilp_pyramid import puzzles

    assert list(puzzles.TITLES) == puzzles.names()
    assert {name: puzzles.get(name).title for name in puzzles.names()} == puzzles.TITLES


def test_the_puzzle_commands_load_no_package_metadata():
    # The bench's records name the package's version; read when a record is written, the
    # metadata (about 14 ms) stays out of every command that merely builds the bench's options.
    code = ("import sys, ilp_pyramid.cli.puzzle\n"
            "print('importlib.metadata' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
