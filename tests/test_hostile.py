"""One regression test per reproducer of the hostile-input audit (issue 14): each exits as
the CLI contract says (0 solved/valid, 1 no solution/invalid, 2 bad input with one line)."""

from __future__ import annotations

import gzip
import json
import os
import tempfile
from pathlib import Path

import pytest

from ilp_pyramid.cli import options as cli_common
from ilp_pyramid.errors import InputError
from ilp_pyramid.formats import fileio
from ilp_pyramid.parsing import json_lines, load_json, parse_int
from ilp_pyramid.puzzles.bel.solution import parse_drawing
from tests.conftest import FIXTURES


def assert_input_error(result, fragment: str = "") -> None:
    """Exit 2, exactly one line on stderr, and not the generic handler's line."""
    lines = [line for line in result.err.splitlines() if not line.startswith("note:")]
    assert result.code == 2, (result.code, result.out, result.err)
    assert len(lines) == 1, result.err
    assert lines[0].startswith("error: ")
    assert "Error:" not in lines[0] and "Exception:" not in lines[0], lines[0]
    assert fragment in lines[0], lines[0]


def _n3_json() -> dict:
    return parse_drawing((FIXTURES / "bel" / "n3-example.txt").read_text()).to_dict()


def _write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


# --- 1. N read from a file gets the CLI's range check ---------------------------------------

@pytest.mark.parametrize("header", ["bel_n0_counts", "bel_n100000_counts",
                                    "bel_n" + "9" * 5000 + "_counts"])
def test_read_solution_refuses_an_n_out_of_range(cli, tmp_path, header):
    model = _write(tmp_path / "m.lp", header + "\n")
    sol = _write(tmp_path / "s.sol", "x_Z_0_0_l0 1\n")
    result = cli("read-solution", model, sol)
    assert_input_error(result)
    assert "valid" not in result.out


def test_read_solution_refuses_a_cnf_with_n_0(cli, tmp_path):
    model = _write(tmp_path / "m.cnf", "c bel n=0 counts\nc x 1 Z 0 0 label 0\np cnf 1 1\n1 0\n")
    cert = _write(tmp_path / "c.txt", "s SATISFIABLE\nv 1 0\n")
    assert_input_error(cli("read-solution", model, cert), "N must be between")


# --- 2. gzip magic: truncated or corrupt streams ----------------------------------------------

# mtime=0 and explicit ids: gzip stamps the clock into its header, and xdist's workers must
# collect the same test ids even when their collection straddles a second.
@pytest.mark.parametrize("data, word", [
    (gzip.compress(b"+---+\n", mtime=0)[:12], "truncated"),
    (b"\x1f\x8b" + b"garbage" * 10, "corrupt"),
], ids=["truncated", "corrupt"])
def test_broken_gzip_is_one_line(cli, tmp_path, data, word):
    assert_input_error(cli("verify", _write(tmp_path / "s.txt", data)), word)
    assert_input_error(cli("verify", _write(tmp_path / "s.txt.gz", data)), word)


def test_gzip_is_read_transparently(cli, tmp_path):
    text = (FIXTURES / "bel" / "n3-example.txt").read_bytes()
    assert cli("verify", _write(tmp_path / "s.txt", gzip.compress(text))).code == 0


# --- 3. verify JSON: labels are integers, rows are lists --------------------------------------

@pytest.mark.parametrize("alter", [
    lambda d: d["Z"][0].__setitem__(0, d["Z"][0][0] + 0.7),
    lambda d: d["Z"][0].__setitem__(0, float(d["Z"][0][0])),
    lambda d: d["Y"].__setitem__(4, "".join(map(str, d["Y"][4]))),
    lambda d: d["X"][0].__setitem__(0, True),
    lambda d: d["Z"][1].__setitem__(2, str(d["Z"][1][2])),
    lambda d: d.__setitem__("X", {"0": d["X"][0]}),
])
def test_verify_json_types_are_not_converted(cli, tmp_path, alter):
    data = _n3_json()
    assert cli("verify", _write(tmp_path / "ok.json", json.dumps(data))).code == 0
    alter(data)
    assert_input_error(cli("verify", _write(tmp_path / "bad.json", json.dumps(data))))


# --- 4. raw exceptions: numbers, JSON, options, paths -----------------------------------------

@pytest.mark.parametrize("token", ["--5", "²", "9" * 5000, "٣", "1e3", "0x1"])
def test_bad_label_tokens_in_a_drawing(cli, tmp_path, token):
    text = (FIXTURES / "bel" / "n3-example.txt").read_text()
    text = text.replace("|  2  1  1  4  3 |", f"|  2  1  1  4  {token} |", 1)
    assert_input_error(cli("verify", _write(tmp_path / "s.txt", text)), "square row 1")


@pytest.mark.parametrize("token", ["--5", "²", "9" * 5000])
def test_bad_literal_tokens_in_a_certificate(cli, tmp_path, token):
    model = tmp_path / "m.cnf"
    assert cli("export", "2", "-o", model).code == 0
    cert = _write(tmp_path / "c.txt", f"s SATISFIABLE\nv 1 -2 {token} 0\n")
    assert_input_error(cli("read-solution", model, cert), "line 2")


@pytest.mark.parametrize("text", ["Infinity", '{"Z": [[NaN]]}', "[1e999]", "[" * 100_000,
                                  '{"Z": ' + "[" * 40 + "]" * 40 + "}", "1" * 5000])
def test_hostile_json_in_verify(cli, tmp_path, text):
    assert_input_error(cli("verify", _write(tmp_path / "s.json", text.replace("Infinity",
                                                                             '{"Z": Infinity}'))))


@pytest.mark.parametrize("text", ['{"B": [[0, Infinity]]}', '{"B": [[1e999, 0]]}',
                                  "{" + '"a":[' * 50_000, '{"B": [[0.0, 0]]}',
                                  '{"B": [[true, 0]]}'])
def test_hostile_json_in_iq_given(cli, tmp_path, text):
    assert_input_error(cli("iq", "show", "triangle", "--given", _write(tmp_path / "g.json", text)))


@pytest.mark.parametrize("cells", ['[{"0": 1}]', '[[0, Infinity]]', '[[0, 1e999]]', '"ab"',
                                   '[[0, "1"]]', '[[0.5, 1]]', '[[true, 0]]', '[[0]]',
                                   "[[0, 0, 0]]"])
def test_hostile_cells_in_iq_pieces(cli, tmp_path, cells):
    text = '[{"letter": "A", "cells": ' + cells + "}]"
    assert_input_error(cli("iq", "show", "triangle", "--pieces",
                           _write(tmp_path / "p.json", text)))


def test_deep_json_in_iq_pieces(cli, tmp_path):
    path = _write(tmp_path / "p.json", "[" * 100_000 + "]" * 100_000)
    assert_input_error(cli("iq", "show", "triangle", "--pieces", path))


@pytest.mark.parametrize("text", ["[" * 100_000, '{"n": 2, "solution": Infinity}',
                                  '{"n": 2, "hunted_seconds": 1e999}',
                                  '{"n": 2, "solution": {"Z": [[1.5]]}}'])
def test_hostile_hunt_state(tmp_path, text):
    from ilp_pyramid.puzzles.bel.hunt.state import BEST_FILE, load_best

    _write(tmp_path / BEST_FILE, text)
    with pytest.raises(InputError):
        load_best(tmp_path, 2)


@pytest.mark.parametrize("seed", ["²", "١٢٣", "-1", "1234567"])
def test_views_seed_is_ascii_digits(cli, seed):
    assert_input_error(cli("views", "solve", "--number", seed), "seed")


@pytest.mark.parametrize("value", ["inf", "nan", "-inf", "1e400", "1e300"])
def test_time_limit_must_be_finite(cli, value):
    assert_input_error(cli("solve", "2", "--solver", "kissat", "--time-limit", value),
                       "--time-limit")


def test_output_under_a_file_is_one_line(cli, tmp_path):
    _write(tmp_path / "afile", "x")
    assert_input_error(cli("export", "2", "-o", tmp_path / "afile" / "x.lp"), "cannot write")


def test_a_300_character_file_name_is_one_line(cli, tmp_path):
    long = tmp_path / ("a" * 300 + ".lp")
    assert_input_error(cli("export", "2", "-o", long), "cannot write")
    assert_input_error(cli("verify", long), "cannot read")


def test_a_250_character_name_is_written(cli, tmp_path):
    # The temp file beside it must fit in NAME_MAX too.
    name = tmp_path / ("b" * 250 + ".lp")
    assert cli("export", "2", "-o", name).code == 0
    assert name.read_text().startswith("\\*")
    assert [p.name for p in tmp_path.iterdir()] == [name.name]


def test_a_directory_as_input_is_one_line(cli, tmp_path):
    assert_input_error(cli("verify", tmp_path), "cannot read")


def test_shared_json_lines_reader_skips_hostile_lines():
    text = '{"key": 1}\n' + "[" * 100_000 + '\n{"key": Infinity}\n[1]\n{"key": 2}\n{"ke'
    assert [record["key"] for _, record in json_lines(text)] == [1, 2]


def test_parse_int_is_strict():
    assert parse_int("-17") == -17 and parse_int("+3") == 3
    for token in ("--5", "²", "٣", "9" * 19, "", "1.0", " 1", "1_000"):
        with pytest.raises(InputError):
            parse_int(token)


def test_load_json_is_strict():
    assert load_json('{"a": [1, 2.5]}') == {"a": [1, 2.5]}
    for text in ("NaN", "-Infinity", "1e999", "[" * 50 + "]" * 50, "9" * 19, "{"):
        with pytest.raises(InputError):
            load_json(text)


# --- 5. atomic writes and special files --------------------------------------------------------

def test_write_goes_through_a_symlink(cli, tmp_path):
    target = tmp_path / "real.lp"
    link = tmp_path / "link.lp"
    link.symlink_to(target)
    assert cli("export", "2", "-o", link).code == 0
    assert link.is_symlink() and target.read_text().startswith("\\*")


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_a_non_regular_target_is_refused(cli, tmp_path, kind):
    target = tmp_path / "out.lp"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.mkdir()
    assert_input_error(cli("export", "2", "-o", target), "not a regular file")
    assert (target.is_fifo() if kind == "fifo" else target.is_dir())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.lp"]


def test_a_symlink_to_a_fifo_is_refused(cli, tmp_path):
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "link.lp").symlink_to(tmp_path / "fifo")
    assert_input_error(cli("export", "2", "-o", tmp_path / "link.lp"), "not a regular file")
    assert (tmp_path / "link.lp").is_symlink() and (tmp_path / "fifo").is_fifo()


@pytest.mark.parametrize("exc", [KeyboardInterrupt, SystemExit, OSError])
def test_interrupted_write_leaves_no_temp_file(tmp_path, monkeypatch, exc):
    def boom(fd):
        raise exc()

    monkeypatch.setattr(fileio.os, "fsync", boom)
    with pytest.raises((exc, InputError)):
        fileio.write_atomic(tmp_path / "x.txt", "data")
    assert list(tmp_path.iterdir()) == []


def test_interrupted_export_leaves_no_pulp_temp_file(tmp_path, monkeypatch):
    from ilp_pyramid.formats.mipfile import mip_text
    from ilp_pyramid.puzzles.bel.model import build_model

    problem = build_model(2, "counts").problem

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(problem, "writeMPS", interrupted)
    with pytest.raises(KeyboardInterrupt):
        mip_text(problem, "mps")
    assert list(tmp_path.iterdir()) == []


# --- 6. caps -----------------------------------------------------------------------------------

def test_threads_are_capped_with_a_note(cli, monkeypatch):
    monkeypatch.setattr(cli_common, "cores", lambda: 2)
    result = cli("solve", "2", "--solver", "kissat", "--threads", "100000", "--json")
    assert "note: --threads 100000 capped at the machine's 2 cores" in result.err


def test_jobs_are_capped_with_a_note(cli, monkeypatch):
    monkeypatch.setattr(cli_common, "cores", lambda: 2)
    result = cli("iq", "count", "no-such-board", "--jobs", "64")
    assert "note: --jobs 64 capped at the machine's 2 cores" in result.err
    assert result.code == 2


def test_a_model_too_big_for_memory_is_refused_with_the_estimate(cli, tmp_path, monkeypatch):
    monkeypatch.setattr(cli_common, "available_memory", lambda: 10 * 2**20)
    result = cli("export", "4", "-o", tmp_path / "x.lp")
    assert_input_error(result, "would need about")
    assert not (tmp_path / "x.lp").exists()
    assert cli("export", "2", "-o", tmp_path / "x.lp").code == 0


def test_verify_names_labels_out_of_range():
    from ilp_pyramid.verify.bel import verify_bel

    data = _n3_json()
    data["Z"][0][0] = 7
    verdict = verify_bel(3, data["Z"], data["X"], data["Y"])
    assert not verdict.valid
    assert any("not in the set" in reason for reason in verdict.reasons())


# --- 8. a torn last line in a JSON-lines file --------------------------------------------------

def test_append_after_a_torn_line_starts_a_new_line(tmp_path):
    path = _write(tmp_path / "r.jsonl", '{"key": 1}\n{"key": 2, "sta')
    fileio.append_line(path, json.dumps({"key": 3}))
    fileio.append_line(path, json.dumps({"key": 4}))
    assert [r["key"] for _, r in json_lines(path.read_text())] == [1, 3, 4]
    assert path.read_text().endswith('{"key": 4}\n')


# --- the reference tool's printout -------------------------------------------------------------

def test_verify_accepts_the_reference_printout(cli, tmp_path):
    fixture = FIXTURES / "bel" / "n3-reference-printout.txt"
    assert cli("verify", fixture).code == 0
    indented = "".join("    " + line for line in fixture.read_text().splitlines(True))
    assert cli("verify", _write(tmp_path / "p.txt", indented)).code == 0
    broken = fixture.read_text().replace("|  4  3  4  4  1 |", "|  4  3  4  4  4 |")
    assert cli("verify", _write(tmp_path / "b.txt", broken)).code == 1


def test_a_file_beyond_the_largest_readable_n_is_refused(cli, tmp_path):
    data = {"Z": [[0]] * 201, "X": [], "Y": []}
    assert_input_error(cli("verify", _write(tmp_path / "big.json", json.dumps(data))), "N=101")


def test_every_time_limit_is_finite(cli):
    # --time-limit is checked by one callback for every command that takes it.
    for args in (["iq", "solve", "triangle"], ["views", "solve", "0123456789ab"],
                 ["sudoku-cube", "solve", "x.txt"]):
        assert_input_error(cli(*args, "--time-limit", "inf"), "--time-limit")


# --- found by the fuzz module -------------------------------------------------------------------

def test_an_error_quoting_a_line_break_stays_one_line(cli, tmp_path):
    given = _write(tmp_path / "g.json", '{"\\u0085": null}')
    assert_input_error(cli("iq", "show", "pyramid5", "--given", given), "\\x85")
    assert_input_error(cli("verify", tmp_path / "no\nsuch\u2028file"), "cannot read")


def test_a_symlink_reached_through_dot_dot_is_written_through(cli, tmp_path):
    state = FIXTURES / "sudoku_cube" / "centre-ones-turned.txt"
    (tmp_path / "afile").write_text("keep\n")
    (tmp_path / "link").symlink_to(tmp_path / "afile")
    result = cli("sudoku-cube", "apply", state, "R", "-o", tmp_path / "new" / ".." / "link")
    assert result.code == 0, result.err
    assert (tmp_path / "link").is_symlink()
    assert (tmp_path / "afile").read_text().startswith("#")
