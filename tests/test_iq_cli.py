"""`ilp-pyramid iq ...` end to end: outputs, exit codes, one-line errors."""

from __future__ import annotations

import json

import pytest

from ilp_pyramid.puzzles.iq.pieces import STANDARD_PIECES

SHAPES = {p.letter: p.cells for p in STANDARD_PIECES}


def iq_fixture(fixtures, name):
    return str(fixtures / "iq" / name)


def test_solve_triangle_challenge_json(cli, fixtures):
    given = iq_fixture(fixtures, "triangle_five_given.txt")
    result = cli("iq", "solve", "triangle", "--given", given, "--solver", "dlx", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["solved"] is True
    grid = data["grid"]
    assert [len(row) for row in grid] == list(range(1, 11))
    # The givens are kept and every letter appears as often as its piece has cells.
    given_rows = (fixtures / "iq" / "triangle_five_given.txt").read_text().split()
    for row, out in zip(given_rows, grid, strict=True):
        assert all(g in (".", o) for g, o in zip(row, out, strict=True))
    letters = "".join(grid)
    assert all(letters.count(k) == len(v) for k, v in SHAPES.items())


def test_solve_prints_letters_and_exit_0(cli):
    result = cli("iq", "solve", "rectangle", "-s", "dlx")
    assert result.code == 0, result.err
    rows = [line.replace(" ", "") for line in result.out.splitlines()[1:6]]
    assert all(len(row) == 11 for row in rows)
    assert "verified" in result.out


@pytest.mark.parametrize("solver", ["dlx", "highs", "cbc"])
def test_isolated_cell_is_an_answer_exit_1(cli, fixtures, solver):
    given = iq_fixture(fixtures, "triangle_isolated.txt")
    result = cli("iq", "solve", "triangle", "--given", given, "-s", solver)
    assert result.code == 1
    assert "no solution" in result.out
    assert result.err == ""


def test_pyramid_challenge_and_png(cli, fixtures, tmp_path):
    png = tmp_path / "p.png"
    given = iq_fixture(fixtures, "pyramid5_given.txt")
    result = cli("iq", "solve", "pyramid5", "--given", given, "--json", "--png", str(png))
    assert result.code == 0, result.err
    levels = json.loads(result.out)["grid"]
    assert [len(level) for level in levels] == [5, 4, 3, 2, 1]
    assert levels[0][0][1:] == "LBBB"  # the given pieces stay where they were
    assert png.read_bytes().startswith(b"\x89PNG")


def test_pyramid_isolated_no_solution_json(cli, fixtures):
    given = iq_fixture(fixtures, "pyramid5_isolated.txt")
    result = cli("iq", "solve", "pyramid5", "--given", given, "-s", "dlx", "--json")
    assert result.code == 1
    assert json.loads(result.out)["solved"] is False


def test_count_pyramid4_json(cli):
    result = cli("iq", "count", "pyramid4", "--jobs", "1", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["solutions"] == 184
    assert data["distinct_up_to_symmetry"] * data["symmetries"] == 184
    assert data["seconds"] >= 0


def test_count_challenge_text(cli, fixtures):
    given = iq_fixture(fixtures, "triangle_five_given.txt")
    result = cli("iq", "count", "triangle", "--given", given)
    assert result.code == 0, result.err
    assert "solutions" in result.out and "wall time" in result.out


@pytest.mark.parametrize("fmt", ["lp", "mps"])
def test_export(cli, tmp_path, fmt):
    out = tmp_path / f"tri.{fmt}"
    result = cli("iq", "export", "triangle", "-o", str(out), "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["constraints"] == 55 + 12  # one per cell, one per piece
    assert "x_A_" in out.read_text()


def test_custom_text_board(cli, tmp_path):
    board = tmp_path / "board.txt"
    board.write_text("#.#\n...\n#.#\n")  # a plus: only the X-pentomino (L) fills it
    result = cli("iq", "solve", str(board), "-s", "dlx", "--json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["grid"] == [" L", "LLL", " L"]
    board.write_text("....\n")  # four in a row: the I-tetromino, J
    result = cli("iq", "solve", str(board), "--json")
    assert json.loads(result.out)["grid"] == ["JJJJ"]
    board.write_text("..\n")  # no piece has two cells
    assert cli("iq", "solve", str(board), "-s", "dlx").code == 1


def one_line_error(result):
    assert result.code == 2, (result.out, result.err)
    assert result.err.startswith("error:") and len(result.err.strip().splitlines()) == 1
    return result.err


def test_bad_inputs_are_one_line_errors(cli, tmp_path, fixtures):
    assert "unknown board" in one_line_error(cli("iq", "solve", "hexagon"))
    bad_board = tmp_path / "bad.txt"
    bad_board.write_text("..x\n...\n")
    assert "unexpected character" in one_line_error(cli("iq", "solve", str(bad_board)))
    unknown = tmp_path / "unknown.txt"
    rows = (fixtures / "iq" / "triangle_five_given.txt").read_text().splitlines()
    rows[0] = "Z"
    unknown.write_text("\n".join(rows) + "\n")
    assert "'Z'" in one_line_error(cli("iq", "solve", "triangle", "--given", str(unknown)))
    illegal = tmp_path / "illegal.txt"
    rows = ["." * (r + 1) for r in range(10)]
    rows[9] = "CCCCC....."  # five in a row is no placement of C (an L)
    illegal.write_text("\n".join(rows) + "\n")
    err = one_line_error(cli("iq", "solve", "triangle", "--given", str(illegal)))
    assert "piece C" in err
    short = tmp_path / "short.txt"
    short.write_text("A\nAA\n")
    assert "rows" in one_line_error(cli("iq", "solve", "triangle", "--given", str(short)))
    assert "unknown solver" in one_line_error(cli("iq", "solve", "triangle", "-s", "xpress"))
    bad_pieces = tmp_path / "pieces.json"
    bad_pieces.write_text('[{"letter": "A", "cells": [[0, 0], [2, 0]]}]')
    assert "not connected" in one_line_error(
        cli("iq", "solve", "triangle", "--pieces", str(bad_pieces)))


def test_default_engine_is_auto_dlx_and_named(cli):
    result = cli("iq", "solve", "pyramid4", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert (data["solver"], data["engine"]) == ("auto", "dlx")
    text = cli("iq", "solve", "pyramid4")
    assert "engine dlx (auto)" in text.out and "(engine dlx)" in text.out
    chosen = json.loads(cli("iq", "solve", "pyramid4", "-s", "kissat", "--json").out)
    assert (chosen["solver"], chosen["engine"]) == ("kissat", "kissat")


def test_export_writes_to_the_output_option_only(cli, tmp_path):
    by_option = tmp_path / "a.lp"
    result = cli("iq", "export", "pyramid4", "-o", str(by_option), "--json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["path"] == str(by_option)
    # 0.1.0's positional OUTPUT is gone: the error asks for -o/--output, nothing is written.
    by_argument = tmp_path / "b.lp"
    assert "'--output'" in one_line_error(cli("iq", "export", "pyramid4", str(by_argument)))
    assert not by_argument.exists()
    assert "unexpected extra argument" in one_line_error(
        cli("iq", "export", "pyramid4", str(by_argument), "-o", str(tmp_path / "c.lp"))).lower()
    assert not by_argument.exists() and not (tmp_path / "c.lp").exists()


COMMON_KEYS = {"puzzle", "status", "solver", "form", "seconds", "model_options", "build_seconds",
               "solve_seconds"}
IQ_KEYS = {"solved", "board", "engine", "grid"}  # what `iq solve --json` has always printed


def test_solve_json_has_the_common_keys_and_iq_s_own_for_every_outcome(cli, fixtures):
    given = iq_fixture(fixtures, "triangle_five_given.txt")
    solved = json.loads(cli("iq", "solve", "triangle", "--given", given, "--json").out)
    impossible = cli("iq", "solve", "triangle", "--given",
                     iq_fixture(fixtures, "triangle_isolated.txt"), "--json")
    # A limit of 0: the SAT child is stopped before it can answer, whatever the machine.
    timeout = cli("iq", "solve", "pyramid5", "-s", "kissat", "--time-limit", "0", "--json")
    assert (impossible.code, timeout.code) == (1, 3)
    for data, status in ((solved, "solved"), (json.loads(impossible.out), "infeasible"),
                         (json.loads(timeout.out), "timeout")):
        assert COMMON_KEYS | IQ_KEYS <= set(data) <= COMMON_KEYS | IQ_KEYS | {"detail"}
        assert (data["puzzle"], data["status"], data["form"]) == ("iq", status, "exact_cover")
        assert data["solved"] is (status == "solved")
        assert (data["grid"] is None) is (status != "solved")


def test_sat_is_a_shorthand_for_kissat(cli):
    data = json.loads(cli("iq", "solve", "pyramid4", "-s", "sat", "--json").out)
    assert (data["solver"], data["engine"], data["solved"]) == ("sat", "kissat", True)


def test_solver_help_lists_the_shorthands_and_the_table(cli):
    from ilp_pyramid.backends import solvers

    page = " ".join(cli("iq", "solve", "--help").out.split())
    for part in ("auto (dlx, the fastest measured: docs/iq.md)", "sat (kissat)",
                 solvers.listing("mip"), solvers.listing("sat"), solvers.listing("cp"),
                 solvers.listing("dlx")):
        assert part in page, part


def test_export_writes_cnf_too_and_names_the_board(cli, tmp_path):
    out = tmp_path / "p4.cnf"
    result = cli("iq", "export", "pyramid4", "-o", str(out), "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert (data["board"], data["format"], data["path"]) == ("pyramid4", "cnf", str(out))
    header = next(line for line in out.read_text().splitlines() if line.startswith("p cnf"))
    assert header.split()[2:] == [str(data["variables"]), str(data["clauses"])]


def test_a_100_kb_one_row_board_is_refused_at_once_by_the_real_command(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    board = tmp_path / "row.txt"
    board.write_text("." * 100_000 + "\n")
    root = Path(__file__).resolve().parents[1]
    for command in ("show", "solve", "count"):
        proc = subprocess.run([sys.executable, "-m", "ilp_pyramid", "iq", command, str(board)],
                              env={**os.environ, "PYTHONPATH": str(root)}, capture_output=True,
                              text=True, timeout=60)
        # refused by the cap on the board's cells (its one line), before any placement: they
        # took 75 s before the cap, past the run's timeout
        assert proc.returncode == 2, (command, proc.stderr)
        assert proc.stdout == ""
        assert len(proc.stderr.splitlines()) == 1 and "more than the 2,000" in proc.stderr
