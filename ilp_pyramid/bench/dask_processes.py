"""A Dask scheduler and one-thread workers on this machine, each a process of its own: what a
measurement of `--scheduler` runs (docs/scripts/n6_routes.py) and the tests' shared cluster
(tests/conftest.py) talk to, as a real cluster's client would.

No nannies: a worker is then one process, whose CPU can be read from /proc and which SIGKILL
ends at once (a nanny's graceful close takes seconds). Every process is started in a group of
its own that dies with this process (`backends.process.start`) and is killed on the way out:
nothing of theirs is kept.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from ilp_pyramid.backends.process import start, stop

# These processes show no dashboard, so the workers' statistical profiler (a stack sample every
# 10 ms, for the dashboard's profile page) and the event loop's 20 ms tick check only spend
# CPU: two-thirds of an idle cluster's (a scheduler and two workers over 30 s: 1.06 CPU s
# with them, 0.36 without), which a measurement of these processes counts as the run's. A
# caller's own setting of either wins.
QUIET = {"DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False",
         "DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL": "1000ms"}


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def scheduler_and_workers(workers: int, directory: Path, env: dict | None = None,
                          niceness: int = 0) -> Iterator[tuple[str, list[subprocess.Popen]]]:
    """(address, [scheduler, *workers]) once every worker has joined the scheduler; the
    processes' output is dropped, their files go under `directory`."""
    from distributed import Client

    address = f"tcp://127.0.0.1:{free_port()}"
    # nice(1) execs the interpreter: the pid stays the worker's, every thread has the niceness
    dask = [*(["nice", "-n", str(niceness)] if niceness else []), sys.executable, "-m", "dask"]
    env = {**QUIET, **(os.environ if env is None else env)}
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL,
             "stdin": subprocess.DEVNULL, "env": env, "cwd": directory}
    procs = [start([*dask, "scheduler", "--host", "127.0.0.1", "--port",
                    address.rsplit(":", 1)[1], "--no-dashboard"], **quiet)]
    try:
        for i in range(workers):
            procs.append(start([*dask, "worker", address, "--nthreads", "1", "--no-nanny",
                                "--no-dashboard", "--name", f"w{i + 1}", "--local-directory",
                                str(Path(directory) / f"w{i + 1}")], **quiet))
        with Client(address, timeout="60s") as client:
            client.wait_for_workers(workers, timeout=120)
        yield address, procs
    finally:
        for proc in procs:
            stop(proc)
