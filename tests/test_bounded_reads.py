"""Every file a command reads is read through one bounded reader (formats/fileio.read_bytes):
/dev/zero, a fifo, standard input, a gzip bomb and a CSV the csv module chokes on are one
line and exit 2, quickly, in a process whose memory is capped (no command may grow past it).
"""

from __future__ import annotations

import gzip
import json
import os
import resource
import subprocess
import sys
import threading
import time
import zlib
from pathlib import Path

import pytest

from ilp_pyramid.errors import InputError
from ilp_pyramid.formats import csvrows, fileio

MEMORY_CAP = 1 << 30  # what a child may map: a reader without a cap runs out of it at once
TIMEOUT = 60  # seconds: a hang fails the test instead of the suite
ROOT = Path(__file__).resolve().parent.parent
LIMIT_ENV = "ILP_PYRAMID_MAX_INPUT_BYTES"  # documented (docs/hostile_input.md): not renamed


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def run(*args: str, stdin=subprocess.DEVNULL, env: dict | None = None
        ) -> tuple[int, str, float]:
    """`python -m ilp_pyramid ARGS` in its own process under the memory cap: exit code,
    stderr and the seconds it took."""
    environ = {key: value for key, value in os.environ.items()
               if key not in ("ILP_PYRAMID_DEBUG", LIMIT_ENV)}
    environ.update(PYTHONPATH=str(ROOT), **(env or {}))
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "ilp_pyramid", *args], stdin=stdin,
                          capture_output=True, text=True, timeout=TIMEOUT, env=environ,
                          preexec_fn=_cap_memory)
    return done.returncode, done.stderr, time.monotonic() - start


def assert_one_line(code: int, err: str, *fragments: str) -> None:
    lines = err.splitlines()
    assert code == 2, (code, err)
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Error:" not in lines[0], lines[0]  # not the catch-all's "SomeError: ..."
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


# The commands that read one file argument; the puzzle groups' verify is the standard one.
READERS = [["verify"], ["solve-cnf"], ["sudoku-cube", "verify"], ["views", "verify"],
           ["insanity", "verify"], ["iq", "solve", "triangle", "--given"],
           ["iq", "solve", "triangle", "--pieces"], ["iq", "solve"]]


# Every reader in turn in one process under the cap, through the CLI's entry point as
# `python -m ilp_pyramid` calls it (one interpreter start instead of one per reader).
EACH_READER = """
import contextlib, io, json, sys, time
from ilp_pyramid.cli import main
answers = []
for command in json.loads(sys.argv[2]):
    err = io.StringIO()
    start = time.monotonic()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            main([*command, "/dev/zero"])
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    answers.append([code, err.getvalue(), time.monotonic() - start])
with open(sys.argv[1], "w") as out:
    json.dump(answers, out)
"""


@pytest.fixture(scope="module")
def dev_zero_answers(tmp_path_factory) -> dict[str, list]:
    """Each reader's [exit code, stderr, seconds] on /dev/zero, by its command line."""
    answers = tmp_path_factory.mktemp("readers") / "answers.json"
    environ = {key: value for key, value in os.environ.items()
               if key not in ("ILP_PYRAMID_DEBUG", LIMIT_ENV)}
    environ.update(PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", EACH_READER, str(answers), json.dumps(READERS)],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=TIMEOUT * len(READERS), env=environ, preexec_fn=_cap_memory)
    assert done.returncode == 0, done.stderr[-2000:]
    return dict(zip(map(" ".join, READERS), json.loads(answers.read_text()), strict=True))


@pytest.mark.parametrize("command", READERS, ids=" ".join)
def test_dev_zero_is_refused_at_the_limit(command, dev_zero_answers):
    code, err, seconds = dev_zero_answers[" ".join(command)]
    assert_one_line(code, err, "/dev/zero", "more than 64 MiB", LIMIT_ENV)
    assert seconds < TIMEOUT / 2


def test_standard_input_is_bounded_too():
    with open("/dev/zero", "rb") as zero:
        code, err, _ = run("verify", "/dev/stdin", stdin=zero)
    assert_one_line(code, err, "/dev/stdin", "more than 64 MiB")


def test_a_fifo_that_never_ends_is_bounded(tmp_path):
    fifo = tmp_path / "endless"
    os.mkfifo(fifo)

    def feed() -> None:
        with open(fifo, "wb") as out:
            chunk = b"+---+\n" * 100_000
            try:
                while True:
                    out.write(chunk)
            except BrokenPipeError:  # the reader stopped at its limit
                pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    code, err, _ = run("solve-cnf", str(fifo))
    writer.join(TIMEOUT)
    assert_one_line(code, err, str(fifo), "more than 64 MiB")
    assert not writer.is_alive()


def _gzip_bomb(path: Path, inflated: int) -> None:
    """`inflated` zero bytes gzipped, written piece by piece (the file is about 1/1000 of it)."""
    with gzip.open(path, "wb", compresslevel=9) as out:
        block = bytes(1 << 20)
        for _ in range(inflated >> 20):
            out.write(block)


@pytest.mark.parametrize("name", ["bomb.txt.gz", "bomb.txt"])  # by its name, by its magic
def test_a_gzip_bomb_is_refused_by_its_inflated_size(tmp_path, name):
    bomb = tmp_path / name
    _gzip_bomb(bomb, 80 << 20)
    assert bomb.stat().st_size < 1 << 20
    code, err, _ = run("verify", str(bomb))
    assert_one_line(code, err, str(bomb), "inflates to more than 64 MiB")


def test_the_limit_is_raised_by_the_environment(tmp_path):
    big = tmp_path / "big.cnf"
    big.write_bytes(b"c" + b" " * (2 << 20) + b"\np cnf 1 1\n1 0\n")  # 2 MiB of comment
    code, err, _ = run("solve-cnf", str(big), env={LIMIT_ENV: str(1 << 20)})
    assert_one_line(code, err, "more than 1 MiB")
    code, err, _ = run("solve-cnf", str(big), env={LIMIT_ENV: str(4 << 20)})
    assert code == 0, err


@pytest.mark.parametrize("value", ["0", "-5", "lots", "1e9", "9" * 30])
def test_a_bad_limit_in_the_environment_is_one_line(tmp_path, value, cli, monkeypatch):
    # In this process (no memory cap needed: nothing is read); a real process reads the
    # variable in test_the_limit_is_raised_by_the_environment.
    cnf = tmp_path / "small.cnf"
    cnf.write_text("p cnf 1 1\n1 0\n")
    monkeypatch.delenv("ILP_PYRAMID_DEBUG", raising=False)
    monkeypatch.setenv(LIMIT_ENV, value)
    result = cli("solve-cnf", str(cnf))
    assert_one_line(result.code, result.err, LIMIT_ENV, "not a positive whole number")


# --- the build list CSV that verify and render read -------------------------------------------

@pytest.fixture(scope="module")
def build_list(tmp_path_factory) -> str:
    where = tmp_path_factory.mktemp("csv") / "n2.csv"
    code, _, _ = run("solve", "2", "--cubes-csv", str(where))
    assert code == 0
    return where.read_text()


def test_a_build_list_with_cr_line_ends_is_one_line_with_its_line(tmp_path, build_list):
    assert build_list.count("\n") > 5
    csv_file = tmp_path / "cr.csv"
    csv_file.write_bytes(build_list.replace("\n", "\r").encode())
    for command in (["verify"], ["render", "--cubes"]):
        code, err, _ = run(*command, str(csv_file))
        assert_one_line(code, err, str(csv_file), "CSV line 1:", "CR alone")


def test_a_build_list_with_a_huge_field_is_one_line_with_its_line(tmp_path, build_list):
    lines = build_list.splitlines()
    fields = lines[2].split(",")
    fields[3] = "1" * 131_073
    lines[2] = ",".join(fields)
    csv_file = tmp_path / "long.csv"
    csv_file.write_text("\n".join(lines) + "\n")
    code, err, _ = run("verify", str(csv_file))
    assert_one_line(code, err, str(csv_file), "CSV line 3:", "longer than 131,072")


def test_a_build_list_with_crlf_line_ends_still_verifies(tmp_path, build_list):
    csv_file = tmp_path / "crlf.csv"
    csv_file.write_bytes(build_list.replace("\n", "\r\n").encode())
    code, err, _ = run("verify", str(csv_file))
    assert code == 0, err


def test_csv_rows_name_the_line_of_the_error():
    assert list(csvrows.rows("a,b\r\n1,2\n")) == [(1, ["a", "b"]), (2, ["1", "2"])]
    with pytest.raises(InputError, match="CSV line 3: a line break inside an unquoted field"):
        list(csvrows.rows("a,b\n1,2\n3,4\r5,6\n"))
    with pytest.raises(InputError, match="CSV line 2: a field longer than"):
        list(csvrows.rows("a,b\n" + "x" * 131_073 + ",1\n"))
    assert csvrows.locate("a,b\n1,2\n") is None
    assert "CSV line 1" in str(csvrows.locate("a,b\r1,2"))


# --- the reader itself ------------------------------------------------------------------------

def test_read_bytes_takes_the_limit_and_refuses_one_more(tmp_path):
    exact = tmp_path / "exact"
    exact.write_bytes(b"x" * 1000)
    assert fileio.read_bytes(exact, limit=1000) == b"x" * 1000
    with pytest.raises(InputError, match="more than 999 bytes"):
        fileio.read_bytes(exact, limit=999)
    zipped = tmp_path / "exact.gz"
    zipped.write_bytes(gzip.compress(b"y" * 1000))
    assert fileio.read_text(zipped, limit=1000) == "y" * 1000
    with pytest.raises(InputError, match="inflates to more than 999 bytes"):
        fileio.read_text(zipped, limit=999)
    assert fileio.read_bytes(zipped, limit=999, gunzip=False) == zipped.read_bytes()


def test_a_huge_regular_file_is_refused_without_reading_it(tmp_path):
    sparse = tmp_path / "sparse"
    with open(sparse, "wb") as handle:
        handle.truncate(1 << 40)  # a terabyte of hole: reading it would take hours
    start = time.monotonic()
    with pytest.raises(InputError, match="more than 64 MiB"):
        fileio.read_bytes(sparse)
    assert time.monotonic() - start < 1


def test_the_limit_comes_from_the_environment(monkeypatch):
    assert fileio.MAX_INPUT_ENV == LIMIT_ENV
    monkeypatch.delenv(LIMIT_ENV, raising=False)
    assert fileio.input_limit() == fileio.DEFAULT_MAX_INPUT_BYTES == 64 << 20
    monkeypatch.setenv(LIMIT_ENV, "12345")
    assert fileio.input_limit() == 12345
    monkeypatch.setenv(LIMIT_ENV, "12k")
    with pytest.raises(InputError, match="not a positive whole number"):
        fileio.input_limit()


def test_read_lines_streams_and_bounds_each_line(tmp_path):
    plain = tmp_path / "lines.txt"
    plain.write_bytes(b"one\r\ntwo\n\nthree")
    assert list(fileio.read_lines(plain)) == [(1, "one"), (2, "two"), (3, ""), (4, "three")]
    zipped = tmp_path / "lines.txt.gz"
    zipped.write_bytes(gzip.compress(b"a\nb\n"))
    assert list(fileio.read_lines(zipped)) == [(1, "a"), (2, "b")]
    long = tmp_path / "long.txt"
    long.write_bytes(b"short\n" + b"z" * 11 + b"\n")
    with pytest.raises(InputError, match="line 2 is longer than 10 bytes"):
        list(fileio.read_lines(long, line_limit=10))
    assert list(fileio.read_lines(long, line_limit=11)) == [(1, "short"), (2, "z" * 11)]
    broken = tmp_path / "broken.gz"
    whole = gzip.compress("".join(f"{k * k}\n" for k in range(1000)).encode())
    broken.write_bytes(whole[:len(whole) // 2])
    with pytest.raises(InputError, match="truncated gzip data"):
        list(fileio.read_lines(broken))
    with pytest.raises(InputError, match="line 1 is longer than 1 MiB"):
        next(fileio.read_lines("/dev/zero"))


def test_a_corrupt_gzip_stream_is_still_named(tmp_path):
    bad = tmp_path / "bad.gz"
    bad.write_bytes(b"\x1f\x8b" + zlib.compress(b"not gzip"))
    with pytest.raises(InputError, match="corrupt gzip data"):
        fileio.read_text(bad)
