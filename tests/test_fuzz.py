"""Property-based fuzzing of every input parser, through the CLI's own entry point.

The contract checked for every generated input: the exit code is 0, 1 or 2 (never 3 for a
parse, never 130); exit 2 comes with exactly one `error:` line on stderr; no exception other
than the package's InputError leaves a parser (ILP_PYRAMID_DEBUG makes the catch-all in
cli.main re-raise, so an unexpected exception fails the test with its traceback); no input
hangs (an alarm per example); and `verify` never accepts a valid solution with one label
changed.

Two sizes: the default suite runs a bounded number of examples per parser (BOUNDED); the
`slow` variants (`python -m pytest -m slow -k fuzz`) run SLOW per parser, 10,000+ in all.
ILP_PYRAMID_FUZZ_EXAMPLES overrides both.
"""

from __future__ import annotations

import functools
import gzip
import json
import os
import signal
import string
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
import typer.main
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ilp_pyramid.errors import InputError
from ilp_pyramid.parsing import json_lines
from ilp_pyramid.puzzles.bel.solution import BelSolution, parse_drawing
from tests.conftest import FIXTURES, CliResult, run_cli

BOUNDED, SLOW = 50, 1000  # examples per run: each run draws new ones (no fixed seed)
HANG_SECONDS = 30  # far above any parse; a loaded machine must not make it flaky

PROFILES = [pytest.param(BOUNDED, id="bounded"),
            pytest.param(SLOW, id="slow", marks=pytest.mark.slow)]


class Hang(BaseException):
    """Raised by the alarm: a BaseException, so no handler in the package swallows it."""


@pytest.fixture(autouse=True, scope="module")
def _fast_debug_cli():
    """Unexpected exceptions propagate (ILP_PYRAMID_DEBUG); Typer's click command is built
    once, not per call (building it is 90% of an in-process call's time)."""
    old_env = os.environ.get("ILP_PYRAMID_DEBUG")
    os.environ["ILP_PYRAMID_DEBUG"] = "1"
    original = typer.main.get_command
    typer.main.get_command = functools.lru_cache(maxsize=None)(original)
    try:
        yield
    finally:
        typer.main.get_command = original
        if old_env is None:
            os.environ.pop("ILP_PYRAMID_DEBUG", None)
        else:
            os.environ["ILP_PYRAMID_DEBUG"] = old_env


def fuzz(examples: int, strategy: st.SearchStrategy, check: Callable[[object], None]) -> None:
    """Run `check` on `examples` values drawn from `strategy`, each under an alarm."""
    examples = int(os.environ.get("ILP_PYRAMID_FUZZ_EXAMPLES", examples))

    def on_alarm(signum, frame):
        raise Hang(f"no answer within {HANG_SECONDS} s")

    @settings(max_examples=examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def run(value):
        previous = signal.signal(signal.SIGALRM, on_alarm)
        signal.alarm(HANG_SECONDS)
        try:
            check(value)
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)

    run()


def contract(result: CliResult, codes: tuple[int, ...] = (0, 1, 2)) -> CliResult:
    assert result.code in codes, (result.code, result.out[-300:], result.err[-300:])
    errors = [line for line in result.err.splitlines() if not line.startswith("note:")]
    if result.code == 2:
        assert len(errors) == 1 and errors[0].startswith("error: "), result.err[-500:]
    return result


# --- building blocks ---------------------------------------------------------------------------

HOSTILE_TOKENS = ["--5", "-", "+", "²", "٣", "9" * 5000, "1e3", "0x1", "1.5", "inf", "nan",
                  "-0", "+7", "00", "\t", "|", "+---+", "{", "}", "[", "]", "Solution:",
                  "\u00a0", "\ufeff", "\r", "\\", '"', "Infinity", "NaN", "true", "null",
                  "-9223372036854775809", "18446744073709551616", "#", ":", "\x0b", "\x1f\x8b"]
token = st.one_of(st.sampled_from(HOSTILE_TOKENS), st.integers(-30, 30).map(str),
                  st.text(max_size=6))
json_leaf = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20),
                      st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=5))
json_value = st.recursive(json_leaf, lambda inner: st.one_of(
    st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=3), inner, max_size=4)),
    max_leaves=20)
HOSTILE_JSON = ["Infinity", "-Infinity", "NaN", "1e999", "-1e999", "[" * 100_000,
                '{"a":' * 100_000,
                "9" * 5000, '"\\ud800"', "1.7", "true", '"20342"', "[[[[[[[[[[[[]]]]]]]]]]]]"]
raw_json = st.one_of(st.sampled_from(HOSTILE_JSON), json_value.map(json.dumps))


@st.composite
def mutated(draw, text: str, alphabet: str = string.printable) -> str:
    """`text` with a few edits: tokens or characters replaced, inserted, lines dropped."""
    lines = text.splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 4))):
        if not lines:
            lines = [""]
        i = draw(st.integers(0, len(lines) - 1))
        edit = draw(st.sampled_from(["token", "char", "drop", "dup", "insert"]))
        line = lines[i]
        if edit == "token":
            parts = line.split(" ")
            j = draw(st.integers(0, len(parts) - 1))
            parts[j] = draw(token)
            lines[i] = " ".join(parts)
        elif edit == "char" and line:
            j = draw(st.integers(0, len(line) - 1))
            lines[i] = line[:j] + draw(st.text(alphabet, min_size=0, max_size=2)) + line[j + 1:]
        elif edit == "drop":
            del lines[i]
        elif edit == "dup":
            lines.insert(i, line)
        else:
            lines.insert(i, draw(st.text(alphabet, max_size=20)) + "\n")
    return "".join(lines)


@st.composite
def gzipped(draw, text: str) -> bytes:
    """`text` gzipped, then maybe cut short or with a byte changed (or just gzip's magic)."""
    data = gzip.compress(text.encode())
    how = draw(st.sampled_from(["whole", "cut", "flip", "magic"]))
    if how == "cut":
        data = data[:draw(st.integers(0, len(data) - 1))]
    elif how == "flip":
        i = draw(st.integers(0, len(data) - 1))
        data = data[:i] + bytes([data[i] ^ draw(st.integers(1, 255))]) + data[i + 1:]
    elif how == "magic":
        data = b"\x1f\x8b" + text.encode()
    return data


def written(directory: Path, name: str) -> Callable[[str | bytes], Path]:
    def write(content: str | bytes) -> Path:
        path = directory / name
        if isinstance(content, str):
            content = content.encode("utf-8", "surrogatepass")
        path.write_bytes(content)
        return path
    return write


@pytest.fixture(scope="module")
def workdir():
    with tempfile.TemporaryDirectory(prefix="ilp-fuzz-") as name:
        yield Path(name)


BEL_FIXTURES = ["n3-example.txt", "n4-published.txt", "n5-kissat.txt"]


def bel(name: str) -> BelSolution:
    return parse_drawing((FIXTURES / "bel" / name).read_text())


# --- Bel: drawing and JSON through `verify` ----------------------------------------------------

@pytest.mark.parametrize("examples", PROFILES)
def test_fuzz_bel_drawing(workdir, examples):
    texts = [(FIXTURES / "bel" / n).read_text() for n in BEL_FIXTURES[:2]]
    texts.append((FIXTURES / "bel" / "n3-reference-printout.txt").read_text())
    write = written(workdir, "drawing.txt")
    strategy = st.one_of(st.sampled_from(texts).flatmap(mutated), st.text(max_size=200),
                         st.sampled_from(texts).flatmap(gzipped))
    fuzz(examples, strategy, lambda text: contract(run_cli("verify", write(text))))


@st.composite
def mutated_json(draw) -> str:
    data = bel(draw(st.sampled_from(BEL_FIXTURES[:2]))).to_dict()
    if draw(st.booleans()):
        data = {"n": 3, "solution": data}
    target = data.get("solution", data)
    family = draw(st.sampled_from(["Z", "X", "Y"]))
    rows = target[family]
    i = draw(st.integers(0, len(rows) - 1))
    how = draw(st.sampled_from(["label", "row", "family", "raw"]))
    if how == "label" and rows[i]:
        rows[i][draw(st.integers(0, len(rows[i]) - 1))] = draw(json_leaf)
    elif how == "row":
        rows[i] = draw(json_value)
    elif how == "family":
        target[family] = draw(json_value)
    text = json.dumps(data)
    if how == "raw":
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(HOSTILE_JSON)) + text[at:]
    return text


@pytest.mark.parametrize("examples", PROFILES)
def test_fuzz_bel_json(workdir, examples):
    write = written(workdir, "solution.json")
    strategy = st.one_of(mutated_json(), raw_json)
    fuzz(examples, strategy, lambda text: contract(run_cli("verify", write(text))))


@st.composite
def one_label_changed(draw) -> tuple[str, str]:
    solution = bel(draw(st.sampled_from(BEL_FIXTURES)))
    data = solution.to_dict()
    family = draw(st.sampled_from(["Z", "X", "Y"]))
    rows = data[family]
    i = draw(st.integers(0, len(rows) - 1))
    j = draw(st.integers(0, len(rows[i]) - 1))
    labels = 2 * solution.n - 1
    form = draw(st.sampled_from(["drawing", "json", "json-type"]))
    if form == "json-type":  # a label of another JSON type: never converted (issue 14, 3)
        value = rows[i][j]
        rows[i][j] = draw(st.sampled_from([value + 0.7, float(value), str(value), value == 1,
                                           [value], None]))
        return form, json.dumps(data)
    rows[i][j] = (rows[i][j] + draw(st.integers(1, labels - 1))) % labels
    altered = BelSolution(solution.n, data["Z"], data["X"], data["Y"])
    return form, altered.to_drawing() if form == "drawing" else json.dumps(altered.to_dict())


@pytest.mark.parametrize("examples", PROFILES)
def test_fuzz_verify_never_accepts_an_altered_solution(workdir, examples):
    write = written(workdir, "altered.txt")

    def check(case):
        form, text = case
        result = run_cli("verify", write(text))
        if form == "json-type":
            contract(result, codes=(2,))
        else:
            assert result.code == 1, (result.code, result.out[:300], result.err)
            assert result.out.startswith("invalid")

    fuzz(examples, one_label_changed(), check)


# --- read-solution: MIP values and DIMACS certificates ----------------------------------------

@pytest.fixture(scope="module")
def exported(workdir):
    """The N=2 model as LP and CNF, and a known solution of it."""
    lp, cnf = workdir / "bel2.lp", workdir / "bel2.cnf"
    assert run_cli("export", "2", "-o", lp).code == 0
    assert run_cli("export", "2", "-o", cnf).code == 0
    solved = run_cli("solve", "2", "--json")
    assert solved.code == 0, solved.err
    data = json.loads(solved.out)["solution"]
    return lp, cnf, BelSolution(2, data["Z"], data["X"], data["Y"])


def _value_lines(solution: BelSolution) -> list[str]:
    base = solution.base
    lines = []
    for family in "ZXY":
        for a in range(base):
            count = base if family == "Z" else min(a + 1, base - a)
            for b in range(count):
                label = solution.label(family, a, b)
                for value in range(base):
                    lines.append(f"x_{family}_{a}_{b}_l{value} {int(value == label)}\n")
    return lines


@pytest.mark.parametrize("examples", PROFILES)
def test_fuzz_mip_solution_values(workdir, exported, examples):
    lp, _cnf, solution = exported
    good = "".join(_value_lines(solution))
    write = written(workdir, "values.sol")
    model_write = written(workdir, "model.lp")
    headers = st.one_of(st.just(None), st.builds(lambda t: f"\\* bel_n{t}_counts *\\\n", token))

    def check(case):
        text, header = case
        model = lp if header is None else model_write(header + lp.read_text())
        result = contract(run_cli("read-solution", model, write(text), "--json"))
        if result.code == 0:  # valid only for the model's own N (issue 14, 1: not for N=0)
            assert json.loads(result.out)["n"] == 2

    strategy = st.tuples(st.one_of(mutated(good), st.text(max_size=300)), headers)
    fuzz(examples, strategy, check)


@pytest.mark.parametrize("examples", PROFILES)
def test_fuzz_dimacs_certificates(workdir, exported, examples):
    from ilp_pyramid.puzzles.bel.cnf import read_cnf_info

    _lp, cnf, solution = exported
    info = read_cnf_info(cnf.read_text())
    literals = [var if solution.label(f, a, b) == label else -var
                for var, (f, a, b, label) in sorted(info.line_vars.items())]
    good = "s SATISFIABLE\n" + "".join(
        "v " + " ".join(map(str, literals[i:i + 10])) + "\n" for i in range(0, len(literals), 10)
    ) + "v 0\n"
    assert run_cli("read-solution", cnf, written(workdir, "good.cert")(good)).code == 0
    write = written(workdir, "cert.txt")
    model_write = written(workdir, "model.cnf")
    certificates = st.one_of(mutated(good), st.text(max_size=300),
                             st.lists(token, max_size=30).map(lambda ts: "v " + " ".join(ts)))
    headers = st.one_of(st.just(None), token)

    def check(case):
        text, header = case
        model = cnf if header is None else model_write(
            cnf.read_text().replace("c bel n=2", f"c bel n={header}", 1))
        result = contract(run_cli("read-solution", model, write(text), "--json"))
        if result.code == 0:
            assert json.loads(result.out)["n"] == 2

    fuzz(examples, st.tuples(certificates, headers), check)


@pytest.mark.parametrize("examples", PROFILES)
def test_fuzz_dimacs_files(workdir, examples):
    """solve-cnf reads any DIMACS a user hands it: a mutated small CNF is solved, refuted
    (exit 1) or named as bad input (exit 2, one line), never a crash."""
    good = "c small\np cnf 3 4\n1 2 0\n-1 3 0\n-2 -3 0\n2 3 0\n"
    assert run_cli("solve-cnf", written(workdir, "good.cnf")(good)).code == 0
    write = written(workdir, "fuzz.cnf")
    strategy = st.one_of(mutated(good), st.text(max_size=200),
                         st.lists(token, max_size=20).map(lambda ts: "p cnf 3 1\n" + " ".join(ts)))
    fuzz(examples, strategy, lambda text: contract(run_cli("solve-cnf", write(text), "--json")))


# --- IQ: given boards (2-D, 3-D, JSON) and piece sets -----------------------------------------

@pytest.mark.parametrize("examples", PROFILES)
def test_fuzz_iq_given(workdir, examples):
    boards = {"triangle": (FIXTURES / "iq" / "triangle_five_given.txt").read_text(),
              "pyramid5": (FIXTURES / "iq" / "pyramid5_given.txt").read_text()}
    write = written(workdir, "given.txt")
    json_given = st.dictionaries(st.text(max_size=2), json_value, max_size=4).map(json.dumps)
    strategy = st.tuples(
        st.sampled_from(sorted(boards)),
        st.one_of(st.sampled_from(sorted(boards.values())).flatmap(
                      lambda t: mutated(t, ".ABCDEFGHIJKL# xy\t")),
                  json_given, raw_json, st.text(max_size=100)))

    def check(case):
        board, text = case
        contract(run_cli("iq", "show", board, "--given", write(text)))

    fuzz(examples, strategy, check)


@pytest.mark.parametrize("examples", PROFILES)
def test_fuzz_iq_pieces(workdir, examples):
    write = written(workdir, "pieces.json")
    cell = st.one_of(st.lists(st.integers(-3, 6), min_size=2, max_size=2), json_value)
    piece = st.fixed_dictionaries({"letter": st.one_of(st.sampled_from("ABZ"), json_leaf),
                                   "cells": st.one_of(st.lists(cell, max_size=5), json_value)},
                                  optional={"colour": json_leaf})
    pieces = st.one_of(st.lists(piece, max_size=3),
                       st.lists(piece, max_size=3).map(lambda p: {"pieces": p}))
    strategy = st.one_of(pieces.map(json.dumps), raw_json)
    fuzz(examples, strategy,
         lambda text: contract(run_cli("iq", "show", "triangle", "--pieces", write(text))))


@pytest.mark.parametrize("examples", PROFILES)
def test_fuzz_iq_boards(workdir, examples):
    write = written(workdir, "board.txt")
    names = st.one_of(st.sampled_from(["triangle", "RECTANGLE", " pyramid4 ", "pyramid0",
                                       "pyramid13", "pyramid" + "9" * 5000, "pyramid²",
                                       "pyramid٣", "pyramid-1"]),
                      st.text(string.ascii_letters + string.digits, max_size=12))
    files = st.text(".# \n\t", max_size=60).map(lambda text: ("file", text))

    def check(case):
        kind, value = case
        board = write(value) if kind == "file" else value
        contract(run_cli("iq", "show", board))

    fuzz(examples, st.one_of(names.map(lambda name: ("name", name)), files), check)


# --- Sudoku Cube: sticker files and moves ------------------------------------------------------

@pytest.mark.parametrize("examples", PROFILES)
def test_fuzz_sudoku_cube_file_and_moves(workdir, examples):
    state = (FIXTURES / "sudoku_cube" / "centre-ones-turned.txt").read_text()
    write = written(workdir, "cube.txt")
    moves = st.one_of(st.lists(st.sampled_from(["R", "U2", "F'", "D", "L2'", "B", "X", "R3",
                                                "u", "2", "'", "²"]), max_size=6).map(" ".join),
                      st.text(max_size=20))
    strategy = st.tuples(st.one_of(mutated(state, "123456789^>v<UDFBLR: #"), st.text(max_size=80)),
                         moves)

    def check(case):
        text, turns = case
        contract(run_cli("sudoku-cube", "apply", write(text), turns))

    fuzz(examples, strategy, check)


# --- views: specs, rows and seeds --------------------------------------------------------------

@pytest.mark.parametrize("examples", PROFILES)
def test_fuzz_views_specs(workdir, examples):
    out = workdir / "views.lp"
    spec = st.one_of(st.text("0123456789abcdefABCDEFx", max_size=40), st.text(max_size=20),
                     st.text("01", min_size=45, max_size=50))
    rows = st.text("x.X,;/ 01", max_size=30)
    strategy = st.one_of(
        st.tuples(st.just("spec"), spec, st.one_of(st.none(), st.integers(-2, 10).map(str))),
        st.tuples(st.just("seed"), st.one_of(token, st.text("0123456789²", max_size=8)),
                  st.none()),
        st.tuples(st.just("rows"), st.tuples(rows, rows, rows), st.none()))

    def check(case):
        kind, value, n = case
        if kind == "spec":
            args = ["views", "export", value, "-o", out] + ([] if n is None else ["--size", n])
        elif kind == "seed":
            args = ["views", "export", "--number", value, "-o", out]
        else:
            top, front, side = value
            args = ["views", "export", "--top", top, "--front", front, "--side", side, "-o", out]
        contract(run_cli(*args))

    fuzz(examples, strategy, check)


# --- hunt state and bench results (read directly: running them starts workers) ---------------

@pytest.mark.parametrize("examples", PROFILES)
def test_fuzz_hunt_state(workdir, examples):
    from ilp_pyramid.puzzles.bel.hunt.state import BEST_FILE, load_best

    state = workdir / "hunt"
    state.mkdir(exist_ok=True)
    write = written(state, BEST_FILE)
    good = {"n": 3, "conflicts": 0, "solution": bel("n3-example.txt").to_dict(),
            "hunted_seconds": 1.0}

    @st.composite
    def states(draw):
        data = json.loads(json.dumps(good))
        key = draw(st.sampled_from(["n", "conflicts", "solution", "hunted_seconds", "Z"]))
        if key == "Z":
            data["solution"]["Z"][0] = draw(json_value)
        else:
            data[key] = draw(json_value)
        return json.dumps(data)

    def check(text):
        write(text)
        try:
            load_best(state, 3)
        except InputError:
            pass

    fuzz(examples, st.one_of(states(), raw_json, st.text(max_size=50)), check)


@pytest.mark.parametrize("examples", PROFILES)
def test_fuzz_results_lines(examples):
    record = json.dumps({"key": "n2-highs", "status": "solved", "seconds": 0.5})
    line = st.one_of(st.just(record), raw_json, st.text(max_size=40),
                     st.just(record).flatmap(mutated))

    def check(lines):
        text = "\n".join(lines)
        for number, parsed in json_lines(text):
            assert isinstance(parsed, dict) and number >= 1

    fuzz(examples, st.lists(line, max_size=8), check)


# --- numeric options and output paths ----------------------------------------------------------

NUMBERS = ["0", "-1", "1", "2", "inf", "-inf", "nan", "1e400", "1e300", "²", "--5", "9" * 5000,
           "0x10", "1_000", " 3", "3 ", "", "100000", "1.5", "-0.0", "+4", "١"]
number = st.one_of(st.sampled_from(NUMBERS), st.integers(-10**6, 10**6).map(str),
                   st.floats().map(str), st.text(max_size=6))


@pytest.mark.parametrize("examples", PROFILES)
def test_fuzz_numeric_options(examples):
    def check(case):
        command, n, limit, threads, seed = case
        if command == "solve":  # an unknown solver: every value is parsed, nothing is run
            args = ["solve", n, "--solver", "no-such", "--time-limit", limit,
                    "--threads", threads, "--seed", seed]
        elif command == "iq":
            args = ["iq", "count", "no-such-board", "--jobs", threads, "--depth", seed]
        else:
            args = ["sudoku-cube", "solve", "/no/such/file", "--time-limit", limit,
                    "--threads", threads, "--seed", seed]
        contract(run_cli(*args), codes=(2,))

    strategy = st.tuples(st.sampled_from(["solve", "iq", "cube"]), number, number, number, number)
    fuzz(examples, strategy, check)


path_part = st.one_of(st.sampled_from(["afile", "adir", "fifo", "link", "dangling", "..", ".",
                                       "x" * 300, "y" * 250, "out.txt", "new", "out.gz", ""]),
                      st.text(string.ascii_letters + string.digits + "._-", min_size=1,
                              max_size=12))


@pytest.mark.parametrize("examples", PROFILES)
def test_fuzz_output_paths(workdir, examples):
    state = FIXTURES / "sudoku_cube" / "centre-ones-turned.txt"
    root = workdir / "paths"

    def fresh_root() -> None:
        import shutil

        if root.exists():
            shutil.rmtree(root)
        root.mkdir()
        (root / "afile").write_text("keep\n")
        (root / "adir").mkdir()
        os.mkfifo(root / "fifo")
        (root / "link").symlink_to(root / "afile")
        (root / "dangling").symlink_to(root / "adir" / "made-through-link")

    def check(parts):
        fresh_root()
        target = root.joinpath(*parts)
        result = contract(run_cli("sudoku-cube", "apply", state, "R", "-o", target),
                          codes=(0, 2))
        assert (root / "fifo").is_fifo() and (root / "adir").is_dir()
        assert (root / "link").is_symlink()
        if result.code == 0:
            assert os.path.isfile(os.path.realpath(target))
        leftovers = [p for p in root.rglob("*.tmp")]
        assert not leftovers, leftovers

    fuzz(examples, st.lists(path_part, min_size=1, max_size=3), check)
