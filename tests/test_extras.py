"""The core install runs `solve N`; each optional part missing is one line naming its extra.

Each run is a real process in which the extras' packages cannot be imported
(`sys.modules[name] = None` makes `import name` fail as if it were not installed).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ilp_pyramid.extras import EXTRAS

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).parent / "fixtures"
# Everything an extra brings, including what its packages pull in by name.
EVERY_EXTRA = sorted(set(EXTRAS) | {"dask", "pysat.pb"})


def run_without(blocked: list[str], args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    code = ("import sys\n"
            f"for name in {blocked!r}:\n"
            "    sys.modules[name] = None\n"
            f"sys.argv = ['ilp-pyramid', *{args!r}]\n"
            "from ilp_pyramid.cli import main\n"
            "main()\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=120)


@pytest.mark.parametrize("n", ["3", "4"])
def test_the_main_job_needs_no_extra(tmp_path, n):
    done = run_without(EVERY_EXTRA, ["solve", n, "--json"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "solved"


@pytest.mark.parametrize(("blocked", "args", "extra"), [
    (["matplotlib"], ["solve", "2", "--solver", "kissat", "--png", "p.png"], "pictures"),
    (["matplotlib"], ["render", str(FIXTURES / "bel" / "n3-example.txt"), "--png", "p.png"],
     "pictures"),
    (["plotly"], ["render", str(FIXTURES / "bel" / "n3-example.txt"), "--html", "p.html"],
     "pictures"),
    (["distributed", "dask"], ["hunt", "3", "--state-dir", "h", "--time-limit", "5"],
     "cluster"),
    (["ortools"], ["solve", "2", "--solver", "cpsat"], "cpsat"),
    (["pindakaas", "pysat.pb"], ["export", "3", "--formulation", "counts-pb", "-o", "m.cnf"],
     "pb"),
])
def test_a_missing_extra_is_one_line_naming_it(tmp_path, blocked, args, extra):
    done = run_without(blocked, args, tmp_path)
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert f"pip install 'ilp-pyramid[{extra}]'" in lines[0]
    assert not [p for p in tmp_path.iterdir() if p.is_file()], "a file was written anyway"


def test_sudoku_moves_need_their_extra_and_the_grid_does_not(tmp_path):
    made = run_without([], ["sudoku-cube", "generate", "--seed", "3", "-o", "cube.txt"], tmp_path)
    assert made.returncode == 0, made.stderr
    asked = run_without(["kociemba"], ["sudoku-cube", "solve", "cube.txt", "--moves"], tmp_path)
    assert asked.returncode == 2, asked.stderr
    assert "pip install 'ilp-pyramid[sudoku]'" in asked.stderr
    grid = run_without(["kociemba"], ["sudoku-cube", "solve", "cube.txt", "--json"], tmp_path)
    assert grid.returncode == 0, grid.stderr
    assert json.loads(grid.stdout)["status"] == "solved"
