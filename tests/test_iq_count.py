"""`iq count`: every filling written to a file and read back, time limits, real signals."""

from __future__ import annotations

import gzip
import json
import re
import signal
from pathlib import Path

import pytest

from ilp_pyramid.puzzles.iq.boards import board_by_name
from ilp_pyramid.puzzles.iq.pieces import STANDARD_PIECES
from ilp_pyramid.verify.iq import parse_solution_line, verify_filling
from tests.proctools import left_alive, live_children, signal_at_work

SHAPES = {p.letter: p.cells for p in STANDARD_PIECES}


def fillings(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if line and not line.startswith("#")]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_pyramid4_output_holds_184_fillings_each_verified_when_read_back(cli, tmp_path, jobs):
    out = tmp_path / "s.txt"
    result = cli("iq", "count", "pyramid4", "--jobs", jobs, "--output", str(out), "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    lines = fillings(out)
    assert data["complete"] is True and data["output"] == str(out)
    assert len(lines) == data["solutions"] == 184
    assert len(set(lines)) == len(lines)
    board = board_by_name("pyramid4")
    for line in lines:  # the independent checker, on the text as written
        verdict = verify_filling(board.cells, SHAPES, parse_solution_line(line, 3))
        assert verdict.valid, (line, verdict.problems)
    assert data["distinct_up_to_symmetry"] * data["symmetries"] == 184
    assert [p.name for p in tmp_path.iterdir()] == ["s.txt"]  # no temp file left behind
    checked = cli("iq", "verify", "pyramid4", str(out), "--json")
    assert checked.code == 0, checked.out
    assert json.loads(checked.out)["fillings"] == 184


def test_verify_rejects_a_broken_or_repeated_line(cli, tmp_path):
    out = tmp_path / "s.txt"
    assert cli("iq", "count", "pyramid4", "-o", str(out)).code == 0
    first = fillings(out)[0]
    swapped = first.replace("J", "#").replace("F", "J").replace("#", "F")  # shapes no longer fit
    out.write_text("\n".join([first, swapped, first, "ABC|junk"]) + "\n")
    result = cli("iq", "verify", "pyramid4", str(out), "--json")
    assert result.code == 1
    data = json.loads(result.out)
    assert (data["fillings"], data["invalid"], data["duplicates"]) == (4, 2, 1)
    assert any(p.startswith("line 2:") for p in data["problems"])


def test_triangle_challenge_output_keeps_the_givens(cli, fixtures, tmp_path):
    given = fixtures / "iq" / "triangle_five_given.txt"
    out = tmp_path / "c.txt.gz"
    result = cli("iq", "count", "triangle", "--given", str(given), "-o", str(out), "--json")
    assert result.code == 0, result.err
    checked = cli("iq", "verify", "triangle", str(out), "--given", str(given), "--json")
    assert checked.code == 0, checked.out
    assert json.loads(checked.out)["fillings"] == json.loads(result.out)["solutions"] > 0
    rows = "".join(given.read_text().split())
    for line in gzip.decompress(out.read_bytes()).decode().splitlines():
        for want, got in zip(rows, line.replace("/", ""), strict=True):
            assert want in (".", got)


def test_time_limit_prints_a_partial_count_and_exit_3(cli, tmp_path):
    out = tmp_path / "r.txt"
    result = cli("iq", "count", "rectangle", "--time-limit", "0.5", "-o", str(out), "--json")
    assert result.code == 3, result.err
    data = json.loads(result.out)
    assert data["complete"] is False and data["status"] == "timeout"
    assert data["solutions"] is None and data["distinct_up_to_symmetry"] is None
    assert isinstance(data["partial_solutions"], int)
    assert list(tmp_path.iterdir()) == []  # neither the output nor its temp file
    text = cli("iq", "count", "rectangle", "--time-limit", "0.5")
    assert text.code == 3
    assert "partial" in text.out.lower() and "not the answer" in text.out


def test_unwritable_output_is_bad_input(cli, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    for target in (blocker / "s.txt", tmp_path):  # under a file; a directory
        result = cli("iq", "count", "pyramid4", "-o", str(target))
        assert result.code == 2
        assert result.err.startswith("error:") and len(result.err.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


# Each path with one signal and each signal on one path in the default suite; the other two
# under `slow` (CI's stage 8): both signals take one path, cli/signals.py.
@pytest.mark.parametrize("written, sig, code", [
    pytest.param(True, signal.SIGINT, 130, id="output-2-130"),
    pytest.param(False, signal.SIGTERM, 143, id="quick-path-15-143"),
    pytest.param(True, signal.SIGTERM, 143, id="output-15-143", marks=pytest.mark.slow),
    pytest.param(False, signal.SIGINT, 130, id="quick-path-2-130", marks=pytest.mark.slow)])
def test_a_signal_stops_a_parallel_count_within_2_s_and_leaves_nothing(tmp_path, sig, code,
                                                                      written):
    args = ["iq", "count", "rectangle", "--jobs", 2] + (["-o", tmp_path / "r.txt"] if written
                                                          else [])
    stopped = signal_at_work(args, sig, lambda pid: len(live_children(pid)) >= 2, settle=0.3)
    assert stopped.code == code, stopped.err
    assert stopped.seconds < 2.0
    err = stopped.err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("error:")
    assert not left_alive(stopped.children)
    assert list(tmp_path.iterdir()) == []  # neither the output nor its temp file


# pyramid5 (seconds: its plain search) is the same path on a larger board: under `slow`.
@pytest.mark.parametrize("board", ["pyramid4",
                                   pytest.param("pyramid5", marks=pytest.mark.slow)])
def test_counting_by_orbits_writes_the_fillings_of_the_plain_search(board):
    """The count searches below one placement per orbit of the board's symmetries and carries
    the rest over: the very fillings of the search without symmetry, each once."""
    from ilp_pyramid.backends.exact_cover import count_exact_cover
    from ilp_pyramid.puzzles.iq.count import placement_permutations, symmetry_group
    from ilp_pyramid.puzzles.iq.lines import LineFormat
    from ilp_pyramid.puzzles.iq.model import build_instance

    instance = build_instance(board_by_name(board), STANDARD_PIECES)
    rows, primary, secondary = instance.exact_cover_rows()
    table = placement_permutations(instance, symmetry_group(instance))
    assert len(table) == 8
    plain = count_exact_cover(rows, primary, secondary, jobs=1, collect=True)
    orbits = count_exact_cover(rows, primary, secondary, jobs=2, collect=True, symmetries=table)
    fmt = LineFormat(instance)
    lines = fmt.lines(orbits.solutions).splitlines()
    assert sorted(lines) == sorted(fmt.lines(plain.solutions).splitlines())
    assert len(set(lines)) == len(lines) == plain.count > 0
    assert orbits.nodes < plain.nodes


def test_check_lines_finds_the_first_bad_line_as_the_line_checker_names_it():
    """The array-speed judge of many lines agrees with `check` line by line: a shape broken,
    a given cell changed, a piece left out, a stray character, a line of another length."""
    from ilp_pyramid.backends.exact_cover import count_exact_cover
    from ilp_pyramid.puzzles.iq.lines import LineFormat
    from ilp_pyramid.puzzles.iq.model import build_instance
    from ilp_pyramid.verify.iq import FillingChecker

    board = board_by_name("pyramid4")
    instance = build_instance(board, STANDARD_PIECES)
    found = count_exact_cover(*instance.exact_cover_rows(), collect=True).solutions
    lines = LineFormat(instance).lines(found).decode().splitlines()
    first = lines[0]
    given = {board.cells[0]: first[0]}
    other = "L" if first[0] != "L" else "K"

    def judge(text_lines: list[str]) -> tuple[int, str] | None:
        return FillingChecker(board.cells, SHAPES, given).check_lines(
            "".join(f"{line}\n" for line in text_lines).encode(), 3)

    assert judge(lines[:1]) is None  # the first line is valid with its own first cell given
    fixed = [line for line in lines if line[0] == first[0]]
    assert len(fixed) > 1 and judge(fixed) is None
    swapped = first.replace("J", "#").replace("F", "J").replace("#", "F")
    broken = {
        "shape": swapped if swapped != first else first.replace("A", "B"),
        "given": other + first[1:],
        "stray": first[:-1] + "?",
        "length": first + "A",
        "layout": first.replace("/", "|", 1),
    }
    checker = FillingChecker(board.cells, SHAPES, given)
    for what, bad in broken.items():
        try:
            want = checker.check(parse_solution_line(bad, 3)).problems[0]
        except ValueError as exc:
            want = str(exc)
        assert judge([*fixed[:2], bad, *fixed[2:]]) == (2, want), what


def _untimed(data: dict) -> dict:
    return {k: v for k, v in data.items() if k not in ("seconds", "cpu_seconds",
                                                       "worker_cpu_seconds")}


def test_the_quick_path_loads_no_typer_and_counts_as_the_command_does(cli):
    """`iq count BOARD [--jobs N] [--json]` is answered before Typer loads (cli/iq_count.py);
    `--solver dlx` spelled out takes the Typer command to the same count."""
    from tests.test_startup import probe

    code, ours, third, out = probe("iq", "count", "pyramid4", "--jobs", "1", "--json")
    assert code == 0, out
    assert not {"typer", "pydantic"} & third
    assert "ilp_pyramid.cli.iq" not in ours  # the Typer command's module
    quick = json.loads(out)
    usual = cli("iq", "count", "pyramid4", "--jobs", "1", "--json", "--solver", "dlx")
    assert usual.code == 0, usual.err
    assert _untimed(quick) == _untimed(json.loads(usual.out))
    assert quick["solutions"] == 184 and quick["jobs"] == 1
    text = [cli("iq", "count", "pyramid4", *extra).out for extra in ([], ["--solver", "dlx"])]
    assert [re.sub(r"\d+\.\d\d s", "T s", t) for t in text] == \
        [re.sub(r"\d+\.\d\d s", "T s", text[1])] * 2
    assert "184" in text[0]


@pytest.mark.parametrize("args, err", [
    (["nowhere"], "error: unknown board 'nowhere'"),
    (["pyramid99"], "error: a pyramid needs 1 to 12 levels"),
    (["triangle", "--jobs", "0"], "Invalid value for '--jobs' / '-j'"),
])
def test_what_the_quick_path_leaves_gets_the_usual_error(cli, args, err):
    done = cli("iq", "count", *args)
    assert done.code == 2
    assert err in done.err and len(done.err.strip().splitlines()) == 1
