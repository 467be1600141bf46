"""One timed run of a command in its own process group: wall and CPU seconds, peak memory,
exit code, a hard kill at a wall-clock limit, and no survivor when the bench is stopped.

The child gets its own session (so the hard limit and an interrupt can kill its whole group,
solver processes included) and a parent-death signal (so a bench killed outright by SIGKILL
takes it along). CPU seconds come from the child's rusage (wait4): the child and every
descendant it waited for; peak memory from the VmHWM of its processes, sampled as it runs.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ilp_pyramid.backends import process
from ilp_pyramid.backends.process import exit_waiter, kill_group, status_kb

POLL_SECONDS = 0.05
# Time a run gets beyond its --time-limit (model building, process start) before it is killed.
GRACE_SECONDS = 30.0
GRACE_FRACTION = 0.1


def hard_limit(time_limit: float) -> float:
    """The wall-clock seconds after which a run of that time limit is killed (a timeout)."""
    return time_limit + GRACE_SECONDS + GRACE_FRACTION * time_limit


@dataclass
class Measured:
    argv: list[str]
    wall_seconds: float
    cpu_seconds: float
    peak_rss_mb: float
    exit_code: int
    killed: bool  # by the hard limit
    stdout: bytes
    stderr: bytes


class Cancelled(Exception):
    """`stop()` said so while the run went on; its process group is already killed."""


def run_process(argv: Sequence[str], kill_after: float,
                stop: Callable[[], bool] | None = None) -> Measured:
    """Run `argv` as a child process group; kill the group after `kill_after` s.

    An exception here (errors.Interrupted, any KeyboardInterrupt) kills the group before it
    propagates; so does `stop()` returning True (asked at every poll), which raises
    Cancelled.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        fork_kb = _rss_kb(Path("/proc/self"))
        start = time.perf_counter()
        child = process.start(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        killed, peak_kb = False, 0
        pause, done_waiting = exit_waiter(child.pid)
        try:
            # wait4 (not Popen.wait) so the rusage is this child's own, with its descendants.
            while True:
                pid, status, usage = os.wait4(child.pid, os.WNOHANG)
                if pid:
                    break
                peak_kb = max(peak_kb, _tree_peak_kb(child.pid))
                if stop is not None and stop():
                    raise Cancelled()
                if time.perf_counter() - start > kill_after:
                    peak_kb = max(peak_kb, _group_peak_kb(child.pid))
                    kill_group(child.pid)
                    pid, status, usage = os.wait4(child.pid, 0)
                    killed = True
                    break
                pause(POLL_SECONDS)
        except BaseException:  # interrupted: take the whole group down with us
            kill_group(child.pid)
            child.wait()
            raise
        finally:
            done_waiting()
            kill_group(child.pid)  # a solver left behind by its dead parent must not run on
        child.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        # rusage's maxrss also counts the image of this (forking) process before the exec:
        # it is the run's own peak only when the run went above that image; otherwise the
        # samples taken while it ran are.
        if usage.ru_maxrss > fork_kb + 1024:
            peak_kb = max(peak_kb, usage.ru_maxrss)
        return Measured(list(argv), round(wall, 3), round(usage.ru_utime + usage.ru_stime, 3),
                        round(peak_kb / 1024, 1), child.returncode, killed, out.read(),
                        err.read())


def _tree_peak_kb(pid: int) -> int:
    """Largest peak resident size (VmHWM) of a process and its live descendants, in kB.

    Sampled while the run goes on: Popen returns after the exec, so the child's own figure
    is that of the command, not of the bench it was forked from.
    """
    peak, todo = 0, [pid]
    while todo:
        current = todo.pop()
        peak = max(peak, status_kb(Path("/proc", str(current))))
        try:
            tasks = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                todo += [int(v) for v in
                         Path(f"/proc/{current}/task/{task}/children").read_text().split()]
            except (OSError, ValueError):
                continue
    return peak


def _rss_kb(proc: Path) -> int:
    return status_kb(proc, "VmRSS:")


def _group_peak_kb(pgid: int) -> int:
    """Largest peak resident size (VmHWM) among the live processes of a group, in kB."""
    peak = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if os.getpgid(int(entry.name)) == pgid:
                peak = max(peak, status_kb(Path(entry.path)))
        except OSError:
            continue
    return peak
