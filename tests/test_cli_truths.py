"""Small truths a user meets at the command line: help texts keep their brackets and carry no
measured timing, --version, the strategies table at 80 columns, instant `info`, -o/--output
and --json everywhere."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from ilp_pyramid.cli import doc as cli_doc
from ilp_pyramid.puzzles.bel.strategies import CATALOGUE

ROOT = Path(__file__).resolve().parent.parent


def flat(text: str) -> str:
    return " ".join(text.split())


def test_help_keeps_square_brackets(cli):
    solve = cli("solve", "--help")
    assert solve.code == 0
    assert "ilp-pyramid[cpsat]" in flat(solve.out)
    assert ".cnf[.gz]" in flat(cli("read-solution", "--help").out)
    assert '"cells": [[col, row], ...]' in flat(cli("iq", "solve", "--help").out)


# A timing: a number with a unit of time, or a speed-up ("3x faster"). A default's own
# parentheses, "(default: time limit + 30 s)", hold a setting, not a measurement.
TIMING = re.compile(r"\b\d+(?:\.\d+)?\s*(?:ms|s|secs?|seconds?|min|minutes?|h|hours?)\b"
                    r"|\b\d+(?:\.\d+)?\s*(?:x|×)\s*(?:faster|slower|quicker)"
                    # a measured comparison without a number ages just the same
                    r"|\b(?:faster|slower|quicker)\s+than\b|\b(?:was|were)\s+(?:faster|slower)\b",
                    re.I)
DEFAULT = re.compile(r"\(default:[^)]*\)")


def timings(text: str) -> list[str]:
    return TIMING.findall(DEFAULT.sub("", flat(text)))


def test_no_help_text_carries_a_measured_timing():
    """Timings belong to the documents that say how they were measured (docs/auto.md,
    docs/study.md); a --help page, read on any machine, says what a command does."""
    found = {}
    for command, ctx in cli_doc.commands():
        texts = [command.help, command.epilog, *(getattr(p, "help", None) for p in command.params)]
        if hits := [hit for text in texts if text for hit in timings(text)]:
            found[ctx.command_path] = hits
    assert found == {}


def test_the_timing_finder_tells_a_timing_from_a_setting():
    assert timings("solves N=4 in 0.4 s here, N=5 in 12\nseconds") == ["0.4 s", "12 seconds"]
    assert timings("HiGHS was 3x faster, CBC 2.5 × slower") == ["3x faster", "2.5 × slower"]
    assert timings("faster than plain at N=3; the breakers were slower") == [
        "faster than", "were slower"]
    assert timings("auto (dlx, the fastest measured: docs/iq.md)") == []
    assert timings("a 3 min run; 250ms each") == ["3 min", "250ms"]
    assert timings("a hard kill (default: time limit + 30 s + 10%)") == []
    assert timings("N=3 is the classic 35-cube pyramid; 2 solvers, seconds of wall time") == []


def test_version_comes_from_the_package_metadata(cli):
    result = cli("--version")
    assert result.code == 0
    assert result.out.strip() == f"ilp-pyramid {metadata.version('ilp-pyramid')}"


def test_strategies_table_fits_80_columns_and_never_cuts_a_name():
    env = dict(os.environ, COLUMNS="80", PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-m", "ilp_pyramid", "strategies"], env=env,
                         capture_output=True, text=True, check=True, cwd=ROOT).stdout
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "…" not in out
    first_cells = {line.split("│")[1].strip() for line in lines if line.count("│") >= 3}
    assert set(CATALOGUE) <= first_cells  # every name whole, in its own cell


def test_info_prints_sizes_without_computing_the_group(cli, monkeypatch):
    from ilp_pyramid.puzzles.bel import symmetry

    def refuse(n):
        raise AssertionError("info computed the group without --group")

    monkeypatch.setattr(symmetry, "symmetry_group", refuse)
    result = cli("info", 7, "--json")
    assert result.code == 0
    data = json.loads(result.out)
    assert data["automorphism_group_order"] == symmetry.group_order(7)
    assert data["cells"] == 455


def test_iq_export_takes_the_output_option_only(cli, tmp_path):
    by_option, by_position = tmp_path / "a.lp", tmp_path / "b.lp"
    result = cli("iq", "export", "triangle", "-o", by_option, "--json")
    assert result.code == 0 and json.loads(result.out)["path"] == str(by_option)
    assert cli("iq", "export", "triangle", by_position).code == 2
    assert not by_position.exists()
    missing = cli("iq", "export", "triangle")
    assert missing.code == 2 and "'--output'" in missing.err


def test_every_puzzle_exports_with_format_and_json(cli, tmp_path):
    cube = tmp_path / "cube.txt"
    assert cli("sudoku-cube", "generate", "--seed", 4, "-o", cube).code == 0
    exports = {"bel": ["export", 2], "iq": ["iq", "export", "triangle"],
               "views": ["views", "export", "--number", "347177"],
               "sudoku-cube": ["sudoku-cube", "export", cube]}
    for name, args in exports.items():
        # -f/--format names the format whatever the file is called.
        path = tmp_path / f"{name}.model"
        result = cli(*args, "-o", path, "-f", "mps", "--json")
        assert result.code == 0, (name, result.err)
        data = json.loads(result.out)
        assert data["path"] == str(path) and data["format"] == "mps", name
        assert data["variables"] > 0 and data["constraints"] > 0, name
        assert path.read_text().startswith(("*", "NAME")), name


def test_bel_export_json(cli, tmp_path):
    lp, cnf = tmp_path / "m.lp", tmp_path / "m.cnf"
    data = json.loads(cli("export", 2, "-o", lp, "--json").out)
    assert data["path"] == str(lp) and data["format"] == "lp" and lp.exists()
    assert data["variables"] > 0 and data["constraints"] > 0
    data = json.loads(cli("export", 2, "-o", cnf, "--json").out)
    assert data["format"] == "cnf" and data["clauses"] > 0 and cnf.exists()


def test_models_json_and_output_option(cli, tmp_path):
    result = cli("models", "-o", tmp_path / "set", "--max-n", 2, "--json")
    assert result.code == 0
    data = json.loads(result.out)
    assert [entry["n"] for entry in data["instances"]] == [2, 2]
    assert (tmp_path / "set" / "manifest.json").exists()


def test_sudoku_generate_json(cli, tmp_path):
    result = cli("sudoku-cube", "generate", "--seed", 4, "--json")
    assert result.code == 0
    data = json.loads(result.out)
    assert data["seed"] == 4 and data["cube"].startswith("#")
    path = tmp_path / "cube.txt"
    data = json.loads(cli("sudoku-cube", "generate", "--seed", 4, "-o", path, "--json").out)
    assert data["output"] == str(path) and path.read_text() == data["cube"]
