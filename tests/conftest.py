from __future__ import annotations

import io
import os
import signal
import socket
import subprocess
import sys
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


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def dask_cluster(tmp_path_factory):
    """(address, [worker process ids]) of a `dask scheduler` and two one-thread `dask worker`
    processes on 127.0.0.1, kept for the session and killed at its end (without nannies: a
    worker is one process, which SIGKILL ends at once, where a nanny's graceful close took
    seconds of the session's end). Processes of their own, never a LocalCluster in the test
    process: its pool and resource tracker would be every later test's in that process."""
    pytest.importorskip("distributed", reason="Dask's distributed is not installed")
    from distributed import Client

    work = tmp_path_factory.mktemp("cluster")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    dask = [sys.executable, "-m", "dask"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL,
             "stdin": subprocess.DEVNULL, "env": env, "cwd": work}
    procs = [subprocess.Popen(dask + ["scheduler", "--host", "127.0.0.1", "--port", str(port),
                                      "--no-dashboard"], **quiet)]
    try:
        for name in ("w1", "w2"):
            procs.append(subprocess.Popen(
                dask + ["worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard",
                        "--name", name, "--local-directory", str(work / name)], **quiet))
        with Client(address, timeout="30s") as client:
            client.wait_for_workers(2, timeout=60)
        yield address, [p.pid for p in procs[1:]]
    finally:
        # SIGKILL: nothing of theirs is kept, and a worker told to stop gracefully while the
        # scheduler stops too waits for it (CI once spent 15 s of the session's end there).
        for proc in procs:
            proc.kill()
        for proc in procs:
            proc.wait()


@pytest.fixture(scope="session")
def dask_scheduler(dask_cluster) -> str:
    """The address of the session's Dask scheduler."""
    return dask_cluster[0]
