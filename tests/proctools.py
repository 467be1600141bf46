"""Processes seen through /proc: which are alive and which descend from a process; a
command signalled once it is at work."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from ilp_pyramid.errors import Interrupted


def _living() -> dict[int, list[str]]:
    """pid -> the fields of /proc/PID/stat after the command name (state, parent, group,
    session, ...) of every process that is not a zombie."""
    out = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry.name}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z":
            out[int(entry.name)] = fields
    return out


def _parents() -> dict[int, int]:
    """pid -> parent pid of every process that is not a zombie."""
    return {pid: int(fields[1]) for pid, fields in _living().items()}


def descendants(pid: int) -> set[int]:
    parents = _parents()
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier}
        found |= frontier
    return found


def alive(pids: set[int]) -> set[int]:
    parents = _parents()
    return {pid for pid in pids if pid in parents}


def catches(pid: int, signum: int) -> bool:
    """Whether process `pid` has a handler of its own for `signum` (its SigCgt mask). For
    SIGTERM, which the interpreter leaves alone: the package's handlers are installed."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = next((line.split()[1] for line in status.splitlines()
                   if line.startswith("SigCgt:")), "0")
    return bool(int(caught, 16) >> (signum - 1) & 1)


def left_alive(pids: set[int], within: float = 10.0) -> set[int]:
    """The processes of `pids` still alive after up to `within` seconds: a killed process
    may still be tearing down its memory, for longer on a loaded machine."""
    end = time.monotonic() + within
    while (left := alive(pids)) and time.monotonic() < end:
        time.sleep(0.05)
    return left


def live_children(pid: int) -> set[int]:
    """The direct children of `pid` that are alive."""
    return {child for child, parent in _parents().items() if parent == pid}


def signal_and_time(child: subprocess.Popen, signum: int, wait: float = 10.0
                    ) -> tuple[int, float]:
    """Send `signum` to `child`; its exit code and the seconds it took to exit."""
    sent = time.perf_counter()
    child.send_signal(signum)
    code = child.wait(wait)
    return code, time.perf_counter() - sent


def interrupted(solve: Callable[[], object], signum: int, after: float = 0.5,
                when: Callable[[], bool] | None = None) -> tuple[int, float, set[int]]:
    """Run `solve()` in this process and send the process `signum` `after` seconds in, or
    once `when()` holds (asked every 0.05 s): the exit code of the `Interrupted` it must
    raise, the seconds from the signal until it did, and the children it left alive."""
    before = descendants(os.getpid())
    sent: list[float] = []
    over = threading.Event()

    def send() -> None:
        if when is None:
            if over.wait(after):
                return
        else:
            while not when():
                if over.wait(0.05):
                    return
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signum)

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    try:
        with pytest.raises(Interrupted) as caught:
            solve()
    finally:
        over.set()
        sender.join()
    took = time.perf_counter() - sent[0]
    return caught.value.exit_code, took, left_alive(descendants(os.getpid()) - before)


def session_members(sid: int) -> set[int]:
    """The live (not zombie) processes of session `sid`: whatever a command started in its
    own session, found even once re-parented to init."""
    return {pid for pid, fields in _living().items() if int(fields[3]) == sid}


def gone(sessions: set[int], within: float = 1.0) -> set[int]:
    """The processes of `sessions` still alive after `within` seconds (a process killed at
    the end may still be tearing down its memory); killed, so no test leaves them."""
    end = time.monotonic() + within
    left = set()
    while time.monotonic() < end:
        left = set().union(*(session_members(sid) for sid in sessions))
        if not left:
            return set()
        time.sleep(0.05)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return left


ROOT = Path(__file__).resolve().parents[1]


def command(*args: object, timeout: float = 240) -> subprocess.CompletedProcess:
    """`ilp-pyramid ARGS` as a real process, run to its end: what it printed, how it exited."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "ilp_pyramid", *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=timeout)


def record_lines(directory: Path) -> int:
    """Lines of the conquer record in DIRECTORY (the problem, then one a settled cube)."""
    found = list(directory.glob("conquer-*.jsonl"))
    return len(found[0].read_text().splitlines()) if found else 0


@dataclass
class Stopped:
    """A command stopped by a signal: how it exited, what it printed, the seconds from the
    signal to its exit, and its descendants when the signal was sent."""

    code: int
    out: str
    err: str
    seconds: float
    children: set[int]


def signal_at_work(args: list[object], signum: int, at_work: Callable[[int], bool],
                   settle: float = 0.0, within: float = 60.0) -> Stopped:
    """`ilp-pyramid ARGS` as a real process, sent `signum` once `at_work(pid)` holds (asked
    every 0.1 s, for at most `within` seconds) and `settle` seconds more."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "ilp_pyramid", *map(str, args)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + within
        while not at_work(proc.pid):
            assert time.monotonic() < deadline and proc.poll() is None, \
                f"not at work after {within:g} s: {' '.join(map(str, args))}"
            time.sleep(0.1)
        time.sleep(settle)
        children = descendants(proc.pid)
        sent = time.monotonic()
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=30)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return Stopped(proc.returncode, out, err, took, children)
