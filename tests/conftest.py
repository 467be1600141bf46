from __future__ import annotations

import io
import os
import signal
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

import pytest

from ilp_pyramid.cli import main
from tests.ui_support import (  # noqa: F401 - fixtures
    browser_page,
    stub_children,
    ui_client,
    ui_server,
)

FIXTURES = Path(__file__).parent / "fixtures"

# The signal tests send SIGINT as a terminal's Ctrl-C would. A runner that starts pytest in
# the background of a script (`pytest &`: SIGINT ignored) would pass the ignore on to every
# command they start, and the package honours an inherited ignore. Start them as from a
# terminal: a Python handler is reset to the default in an exec'd child, SIG_IGN is not.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@dataclass
class CliResult:
    code: int
    out: str
    err: str


def run_cli(*args: str) -> CliResult:
    """Run the real entry point in-process, as a shell would, and capture what it prints."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            main([str(a) for a in args])
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    return CliResult(code, out.getvalue(), err.getvalue())


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def no_drat_trim(monkeypatch):
    """The machine as if drat-trim were never built: off the PATH (this process's and its
    children's) and unnamed, not deleted."""
    from ilp_pyramid.backends import drat

    monkeypatch.delenv(drat.CHECKER_ENV, raising=False)
    folders = os.environ.get("PATH", "").split(os.pathsep)
    monkeypatch.setenv("PATH", os.pathsep.join(
        folder for folder in folders if not (Path(folder) / "drat-trim").exists()))
    assert drat.checker() is None


# The tests that run a command as the client of a Dask scheduler share one cluster
# (`dask_cluster`) instead of each starting its own: they carry this mark, so that under
# pytest-xdist (`--dist loadgroup`) they run on one worker, the only one that starts it. The
# start of a command's own local cluster is the other tests' (tests/test_signals.py, the
# `hunt` row of tests/test_stdout_contract.py).
SHARED_DASK = pytest.mark.xdist_group("dask")


@pytest.fixture(scope="session")
def dask_cluster(tmp_path_factory):
    """(address, [worker process ids]) of a `dask scheduler` and two one-thread `dask worker`
    processes on 127.0.0.1, kept for the session and killed at its end. Processes of their
    own, never a LocalCluster in the test process: its pool and resource tracker would be
    every later test's in that process."""
    pytest.importorskip("distributed", reason="Dask's distributed is not installed")
    from ilp_pyramid.bench.dask_processes import scheduler_and_workers

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    with scheduler_and_workers(2, tmp_path_factory.mktemp("cluster"), env) as (address, procs):
        yield address, [p.pid for p in procs[1:]]


@pytest.fixture(scope="session")
def dask_scheduler(dask_cluster) -> str:
    """The address of the session's Dask scheduler."""
    return dask_cluster[0]
