"""The hunt's local Dask cluster under pressure: limits checked first, its output kept apart.

- `local_jobs(jobs)` / `check_limits(jobs)`: a local cluster needs file descriptors and
  processes; with too few, Dask retries forever and floods stderr with tracebacks (hundreds
  of MB within a minute at `ulimit -n 20`). The need is checked before anything starts, and
  refused with one line (exit 2).
- `ClusterOutput`: while the cluster lives, descriptor 2 (inherited by every worker process,
  and used by Dask's loggers) goes through a pipe into STATE_DIR/dask.log, capped in size
  and with repeated lines left out; the package's own messages still reach the terminal.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import resource
import sys
import threading
from collections import Counter
from pathlib import Path

from ilp_pyramid.backends.process import kill_descendants
from ilp_pyramid.errors import InputError
from ilp_pyramid.machine import cores

# Measured on `hunt 5` (RLIMIT_NOFILE set for the whole run): with 1 job it failed at 32
# descriptors and ran at 40, with 2 jobs it failed at 48 and ran at 56 (peaks seen in
# /proc/PID/fd: 34 and 41 in the client, 19-24 per worker). The rule asks 60 and 72: a margin
# for the scheduler's comms at busy moments.
FDS_BASE = 48
FDS_PER_JOB = 12
FDS_PER_WORKER_PROCESS = 32
# Tasks (processes and threads count alike against RLIMIT_NPROC): the client's threads, the
# resource tracker, and per job a worker with its threads and a SAT solver child.
TASKS_BASE = 24
TASKS_PER_JOB = 32


def local_jobs(jobs: int | None) -> int:
    """Workers of a local cluster: `jobs`, or one per core, never more than the cores; the
    limits checked for them."""
    jobs = min(jobs or cores(), cores())
    check_limits(jobs)
    return jobs


def check_limits(jobs: int) -> None:
    """Refuse (InputError) a local cluster of `jobs` workers that the limits cannot carry."""
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    fds = max(FDS_BASE + FDS_PER_JOB * jobs, FDS_PER_WORKER_PROCESS)
    if soft != resource.RLIM_INFINITY and soft < fds:
        raise InputError(f"a local Dask cluster of {jobs} worker(s) needs about {fds} open "
                         f"files; the limit is {soft} (raise it with ulimit -n {fds}, or "
                         f"fewer --jobs)")
    limit = resource.getrlimit(resource.RLIMIT_NPROC)[0]
    if limit == resource.RLIM_INFINITY or os.geteuid() == 0:  # root is not held to it
        return
    tasks = TASKS_BASE + TASKS_PER_JOB * jobs
    running = _tasks_of(os.getuid())
    if running + tasks > limit:
        raise InputError(f"a local Dask cluster of {jobs} worker(s) needs about {tasks} "
                         f"more processes/threads; {running} of the limit of {limit} are in "
                         f"use (ulimit -u), so fewer --jobs or a higher limit")


def _tasks_of(uid: int) -> int:
    """Threads of every process of `uid` (what RLIMIT_NPROC counts)."""
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError):
            fields = dict(line.split(":", 1) for line in
                          Path(f"/proc/{entry}/status").read_text().splitlines() if ":" in line)
            if int(fields["Uid"].split()[0]) == uid:
                total += int(fields["Threads"])
    return total


LOG_FILE = "dask.log"
LOG_CAP = 2 << 20  # bytes of cluster output kept per hunt
REPEATS_KEPT = 3  # a line (numbers aside) seen more often than this is left out
_NUMBERS = re.compile(r"\d+")


class ClusterOutput:
    """`with ClusterOutput(path) as out:` descriptor 2 feeds `path` (appended, capped,
    de-duplicated); sys.stderr stays the terminal. `out.lines`, `out.tracebacks`: what the
    cluster wrote."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lines = 0
        self.tracebacks = 0
        self.dropped = 0
        self._kept = 0
        self._seen: Counter = Counter()

    def __enter__(self) -> ClusterOutput:
        self._log = None  # opened at the first line: no empty file
        reader, writer = os.pipe()
        sys.stderr.flush()
        self._saved_fd = os.dup(2)
        self._saved_stream = sys.stderr
        # The package's own lines (say, errors, the watchdog's) go to the saved terminal.
        sys.stderr = open(self._saved_fd, "w", encoding="utf-8",  # noqa: SIM115
                          errors="backslashreplace", closefd=False, buffering=1)
        os.dup2(writer, 2)
        os.close(writer)
        self._thread = threading.Thread(target=self._pump, args=(reader,), daemon=True,
                                        name="cluster-output")
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        # Workers still alive keep the pipe open: the pump is not waited for long.
        with contextlib.suppress(OSError):
            os.dup2(self._saved_fd, 2)
        sys.stderr.flush()
        sys.stderr = self._saved_stream
        self._thread.join(0.5)
        os.close(self._saved_fd)

    def _pump(self, reader: int) -> None:
        pending = b""
        while True:
            try:
                chunk = os.read(reader, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                break
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                self._take(line + b"\n")
        if pending:
            self._take(pending + b"\n")
        if self.dropped:
            self._write(f"[{self.dropped} more lines left out: repeats, or past "
                        f"{LOG_CAP >> 20} MB]\n".encode())
        os.close(reader)
        if self._log is not None:
            with contextlib.suppress(OSError):
                self._log.close()

    def _take(self, line: bytes) -> None:
        self.lines += 1
        if line.startswith(b"Traceback (most recent call last)"):
            self.tracebacks += 1
        shape = _NUMBERS.sub("#", line.decode("utf-8", "replace"))
        self._seen[shape] += 1
        if self._seen[shape] > REPEATS_KEPT or self._kept + len(line) > LOG_CAP:
            self.dropped += 1
            return
        self._kept += len(line)
        self._write(line)

    def _write(self, data: bytes) -> None:
        with contextlib.suppress(OSError):  # a full disk must not stop the hunt
            if self._log is None:
                self._log = open(self.path, "ab")  # noqa: SIM115 - closed by the pump
            self._log.write(data)
            self._log.flush()


def start_client(scheduler: str | None, jobs: int | None):
    """(client, local cluster or None, where): a local cluster of `jobs` one-thread worker
    processes, or the client of the scheduler at `scheduler`."""
    from distributed import Client, LocalCluster

    if scheduler is not None:
        return Client(scheduler, timeout="20s"), None, scheduler
    cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                           dashboard_address=":0", silence_logs=logging.ERROR)
    return Client(cluster), cluster, "local cluster"


def until_one_ends(futures: list, most: float = 0.5) -> None:
    """Back as soon as one of `futures` ends, or after `most` seconds (the caller's own
    rounds, a deadline, a progress line, come round; a signal is seen at once either way)."""
    from distributed import wait

    if futures and most > 0:
        with contextlib.suppress(TimeoutError):
            wait(futures, timeout=most, return_when="FIRST_COMPLETED")


def close_client(client, cluster, local: bool) -> None:
    """Close the client and a local cluster within seconds each; if that fails (or the
    cluster never finished starting), kill the worker processes left."""
    clean = not local or cluster is not None
    for thing, seconds in ((client, 3), (cluster, 5)):
        if thing is None:
            continue
        try:
            thing.close(timeout=seconds)
        except Exception:  # noqa: BLE001 - whatever went wrong, the processes go below
            clean = False
    if not clean:
        kill_descendants()
