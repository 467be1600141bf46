"""Child processes that never outlive their parent, and signals that stop a solve.

Shared by the SAT and CP-SAT workers, CBC and the benchmark runner:

- `die_with_parent` (a `preexec_fn`, or the first call in a forked child) asks Linux to
  SIGKILL the child when its parent dies, even by SIGKILL (PR_SET_PDEATHSIG).
- `start` runs a command in its own process group with that setting; `kill_group` and `stop`
  take the group down (the solver and anything it started).
- `kill_descendants` takes down every process below this one, whatever its group (the
  CLI after an interrupt, the hunt when its Dask cluster does not close).
- `interruptible()` is held while a backend waits on a solver: SIGINT and SIGTERM raise
  `errors.Interrupted` (a KeyboardInterrupt carrying exit code 130 or 143) in the main thread,
  so the backend's own cleanup (`finally: stop(child)`, HiGHS's cancel) runs before the
  interrupt reaches the CLI. Outside it the process's own handlers apply.
- `forked()` runs a solve in a forked child that answers on a pipe, and reaps it;
  `solve_forked()` is the whole round trip for a backend (the SAT, MaxSAT and linear search
  ones): the child's frame (`_child_main`) and its answers read into one `Result`.
- `exit_waiter` and `status_kb` watch a child that runs a program (the benchmark runner's
  runs, the outside solvers of external.py): a wait that wakes when it exits, its peak memory.
- `native_output()` is held while native solver code runs in this process: file descriptor 1
  points at /dev/null (or at stderr, for a log the user asked for), so nothing a C library
  prints reaches the package's stdout (highspy 1.16 prints a banner when a `Highs` object is
  made, before any option can be set).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ilp_pyramid.backends.base import Result, SolveOptions, Status
from ilp_pyramid.errors import Interrupted

if TYPE_CHECKING:
    import multiprocessing.process
    from multiprocessing.connection import Connection

# How often a wait on a solver child reports progress (SolveOptions.progress).
PROGRESS_EVERY = 1.0

PR_SET_PDEATHSIG = 1
# Time a stopped process group gets to be reaped after SIGKILL.
REAP_SECONDS = 1.0


def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(None, use_errno=True)  # the C library this process already has
    except OSError:  # pragma: no cover - no C library symbols to find
        return None


# Looked up once, here: a forked child must not call dlopen (its lock may have been held by
# another thread at the fork), so the child only calls what the parent already resolved.
_LIBC = _libc()
_PRCTL = getattr(_LIBC, "prctl", None)
_FFLUSH = getattr(_LIBC, "fflush", None)
_SIGKILL = int(signal.SIGKILL)


_forked_by = os.getpid()  # in a child: the process that forked it (set before every fork)


def _before_fork() -> None:
    global _forked_by
    _forked_by = os.getpid()


os.register_at_fork(before=_before_fork)


def die_with_parent() -> None:
    """In a child: be killed when the parent dies, so no orphan solver keeps running."""
    if _PRCTL is not None:  # pragma: no branch - Linux
        _PRCTL(PR_SET_PDEATHSIG, _SIGKILL)
    # A parent that died between the fork and the call above sends no signal any more: the
    # child is someone else's already.
    if os.getppid() != _forked_by:
        os.kill(os.getpid(), signal.SIGKILL)


def start(args: Sequence[str], **popen: object) -> subprocess.Popen:
    """Start `args` in a new process group that dies with this process."""
    return subprocess.Popen(list(args), start_new_session=True, preexec_fn=die_with_parent,
                            **popen)  # type: ignore[call-overload]


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def stop(child: subprocess.Popen) -> None:
    """Kill a child started by `start` with its whole group, and reap it."""
    kill_group(child.pid)
    with contextlib.suppress(subprocess.TimeoutExpired):
        child.wait(REAP_SECONDS)
    wait_group_gone(child.pid)


def _stat_fields(pid: int | str) -> list[bytes] | None:
    """The fields of /proc/PID/stat after the command name (state, ppid, pgrp, ...), or None
    for a process gone (or no /proc). The command name may hold spaces and parentheses: the
    fields follow the last ')'."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return None
    return stat[stat.rfind(b")") + 2:].split()


def cpu_seconds(pid: int, children: bool = False) -> float:
    """A live process's CPU seconds so far, user + system (with `children`, its reaped
    children's too), from /proc; 0.0 for a process gone. What getrusage cannot give: the
    figure of a process still running, or of one that is not this process's child."""
    fields = _stat_fields(pid)
    if fields is None:
        return 0.0
    ticks = sum(int(value) for value in fields[11:15 if children else 13])
    return ticks / os.sysconf("SC_CLK_TCK")


def _proc_stats() -> dict[int, list[bytes]]:
    """pid -> `_stat_fields` of every process (Linux /proc; {} elsewhere)."""
    try:
        entries = os.listdir("/proc")
    except OSError:  # pragma: no cover - not Linux
        return {}
    stats = {}
    for entry in entries:
        if entry.isdigit() and (fields := _stat_fields(entry)) is not None:
            stats[int(entry)] = fields
    return stats


def _group_members(pgid: int) -> list[int]:
    """The processes of group `pgid` that are not zombies."""
    return [pid for pid, fields in _proc_stats().items()
            if fields[0] != b"Z" and int(fields[2]) == pgid]


def wait_group_gone(pgid: int, timeout: float = REAP_SECONDS) -> None:
    """After SIGKILL to a group: wait until none of it runs. The signal is delivered when
    each member is next scheduled, which on a loaded machine is not at once, and a
    grandchild (re-parented when its parent died) is not ours to reap."""
    deadline = time.monotonic() + timeout
    while _group_members(pgid) and time.monotonic() < deadline:
        kill_group(pgid)
        time.sleep(0.01)


def _descendants() -> list[int]:
    """Every process below this one, parents before their children (Linux /proc)."""
    parent_of = {pid: int(fields[1]) for pid, fields in _proc_stats().items()}
    found, frontier = [], [os.getpid()]
    while frontier:
        children = [child for child, parent in parent_of.items() if parent in frontier]
        found += children
        frontier = children
    return found


def kill_descendants() -> None:
    """No child outlives an interrupt: freeze every descendant first (a frozen parent cannot
    start a replacement, as a Dask nanny would), then SIGKILL them all."""
    frozen: list[int] = []
    for _ in range(5):
        new = [pid for pid in _descendants() if pid not in frozen]
        if not new:
            break
        for pid in new:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGSTOP)
        frozen += new
    for pid in frozen:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


# The signal that last stopped a backend: Typer turns every KeyboardInterrupt into a bare
# exit code 130, so the CLI reads this to tell SIGTERM (143) from SIGINT (130).
last_signal: int | None = None


def _raise(signum: int, _frame: object) -> None:
    global last_signal
    last_signal = signum
    raise Interrupted(signum)


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """While held (main thread only), SIGINT and SIGTERM raise `Interrupted`."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    # A signal this process was started ignoring (SIGINT of `cmd &` in a script) stays
    # ignored, as the CLI's own handlers leave it: one rule for the whole command.
    watched = [sig for sig in (signal.SIGINT, signal.SIGTERM)
               if signal.getsignal(sig) is not signal.SIG_IGN]
    previous = {sig: signal.signal(sig, _raise) for sig in watched}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


_output_lock = threading.Lock()
_output = {"depth": 0, "saved": None}


def _flush_c_streams() -> None:
    # A C library's printf sits in libc's buffer until flushed; flushed after fd 1 is given
    # back, it would land on the user's stdout after all.
    if _FFLUSH is not None:  # pragma: no branch - Linux
        _FFLUSH(None)


@contextlib.contextmanager
def native_output(verbose: bool = False) -> Iterator[None]:
    """While held, fd 1 goes to stderr (`verbose`) or /dev/null, and so does Python's
    `sys.stdout` (a library's Python-level print); nested holds share one.

    `sys.stdout` is flushed first: what the package printed before reaches the user's stdout.
    """
    with _output_lock:
        if _output["depth"] == 0:
            with contextlib.suppress(AttributeError, ValueError, OSError):  # stdout closed
                sys.stdout.flush()
            _flush_c_streams()
            try:
                saved = os.dup(1)
            except OSError:  # fd 1 closed: keep it taken, so no file opened meanwhile gets it
                saved = None
            if verbose:
                os.dup2(2, 1)
            else:
                sink = os.open(os.devnull, os.O_WRONLY)
                os.dup2(sink, 1)
                os.close(sink)
            python = sys.stderr if verbose else open(os.devnull, "w")  # noqa: SIM115
            _output.update(saved=saved, stdout=sys.stdout, python=python)
            sys.stdout = python
        _output["depth"] += 1
    try:
        yield
    finally:
        with _output_lock:
            _output["depth"] -= 1
            if _output["depth"] == 0:
                _flush_c_streams()
                with contextlib.suppress(AttributeError, ValueError, OSError):
                    sys.stdout.flush()
                sys.stdout = _output["stdout"]
                if _output["python"] is not sys.stderr:
                    _output["python"].close()
                saved = _output["saved"]
                if saved is None:
                    os.close(1)
                else:
                    os.dup2(saved, 1)
                    os.close(saved)


def wait_for_answer(receiver: Connection, start: float, options: SolveOptions) -> bool:
    """True once a solver child answered on `receiver`; False when `options.time_limit`
    (counted from `start`, so a caller may wait again for the next message) passed first.
    Reports progress about once a second when asked."""
    limit = options.time_limit
    if options.progress is None:
        left = None if limit is None else max(limit - (time.perf_counter() - start), 0.0)
        return receiver.poll(left)
    while True:
        left = None if limit is None else limit - (time.perf_counter() - start)
        if left is not None and left <= 0:
            return receiver.poll(0)
        if receiver.poll(PROGRESS_EVERY if left is None else min(left, PROGRESS_EVERY)):
            return True
        options.progress({"elapsed": time.perf_counter() - start})


# Time a killed solver child gets to be reaped.
KILL_GRACE = 0.5
# What `ForkedSolver.answer` gives for a child that ended without a message: (ENDED, its exit
# code). No child sends it.
ENDED = "ended"


@dataclass
class ForkedSolver:
    """A solver child `forked` started, the end of its pipe this process reads, and when it
    started."""

    child: multiprocessing.process.BaseProcess
    receiver: Connection
    start: float

    def answer(self, options: SolveOptions) -> tuple[str, Any] | None:
        """The child's next message, (outcome, payload); None if `options.time_limit`
        (counted from `start`) passed first; (ENDED, exit code) if the child ended without
        one."""
        if not wait_for_answer(self.receiver, self.start, options):
            return None
        try:
            return self.receiver.recv()
        except EOFError:
            self.child.join(KILL_GRACE)
            return ENDED, self.child.exitcode

    def seconds(self) -> float:
        return time.perf_counter() - self.start


# What a solver child sends, (outcome, payload): MODEL (literals, objective) for each better
# model found on the way to an optimum, then one of SOLVED (literals, objective; proved
# optimal when there is an objective), UNSAT (a message or None) and ERROR (a message).
MODEL = "model"
SOLVED = "solved"
UNSAT = "unsat"
ERROR = "error"
# A solver child's work: `work(*args, send)`, `send` taking one (outcome, payload).
Work = Callable[..., None]


@contextlib.contextmanager
def forked(work: Work, args: tuple) -> Iterator[ForkedSolver]:
    """`work(*args, send)` in a forked child (it inherits `args`, no copy) that answers with
    `send` on a one-way pipe, inside the one child frame (`_child_main`). While held, SIGINT
    and SIGTERM raise `Interrupted` (`interruptible`); on leaving, the child is killed if it
    still runs, and reaped."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_child_main, args=(work, args, sender), daemon=True)
    start = time.perf_counter()
    try:
        with interruptible():
            child.start()
            sender.close()
            yield ForkedSolver(child, receiver, start)
    finally:
        reap(child)
        receiver.close()


def _child_main(work: Work, args: tuple, sender: Connection) -> None:
    # Forked from a process that may run other threads (the CLI's signal watchdog, a live
    # status line, a solver's pool): the child takes no lock one of them might have held at
    # the fork. It imports nothing new (its parent loaded the solver's library), prints only
    # a log asked for to the fd 1 the parent set up (stderr or /dev/null), and answers on its
    # own pipe; any failure goes back as one ERROR message.
    die_with_parent()
    try:
        work(*args, sender.send)
    except Exception as exc:  # noqa: BLE001 - any failure goes back as one message
        sender.send((ERROR, f"{type(exc).__name__}: {exc}"))
    finally:
        sender.close()
        with contextlib.suppress(Exception):
            sys.stdout.flush()  # a log asked for: os._exit flushes nothing
        os._exit(0)  # skip atexit handlers inherited from the parent (pytest, rich, ...)


def solve_forked(work: Work, args: tuple, solver: str, options: SolveOptions) -> Result:
    """`work` in a forked child (`forked`), its answers as one `Result` under `solver`'s
    name: SOLVED, INFEASIBLE or ERROR as the child says; at the time limit the last MODEL as
    `feasible` (optimality not proved), or `timeout` without one; a child that ended without
    an answer is an ERROR naming how it died."""
    best: tuple[list[int], float | None] | None = None
    with forked(work, args) as child:
        while True:
            answer = child.answer(options)
            if answer is None:
                return _stopped(solver, best, child.seconds(), options)
            outcome, payload = answer
            if outcome == ENDED:
                return Result(solver, Status.ERROR, child.seconds(), message=death(payload))
            if outcome != MODEL:
                break
            best = payload
    seconds = child.seconds()
    if outcome == SOLVED:
        model, objective = payload
        return Result(solver, Status.SOLVED, seconds, model=list(model), objective=objective)
    if outcome == UNSAT:
        return Result(solver, Status.INFEASIBLE, seconds, message=payload or "")
    return Result(solver, Status.ERROR, seconds, message=str(payload))


def _stopped(solver: str, best: tuple[list[int], float | None] | None, seconds: float,
             options: SolveOptions) -> Result:
    if best is None:
        return Result(solver, Status.TIMEOUT, seconds,
                      message=f"no answer within {options.time_limit:g} s; solver stopped")
    model, objective = best
    return Result(solver, Status.FEASIBLE, seconds, model=list(model), objective=objective,
                  message=f"objective {objective:g} found, optimality not proved within "
                          f"{options.time_limit:g} s")


def death(exitcode: int | None) -> str:
    """Why a solver child ended without an answer, from its exit code."""
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        hint = " (out of memory?)" if name == "SIGKILL" else ""
        return f"the solver process was killed by {name}{hint}"
    return f"the solver process exited with code {exitcode} without an answer"


def reap(child: multiprocessing.process.BaseProcess) -> None:
    """Kill a forked solver child that still runs and reap it (the SAT, MaxSAT and linear
    search backends' children)."""
    if child.pid is None:  # a signal came inside start(): nothing was forked
        return
    if child.is_alive():
        child.kill()
    child.join(KILL_GRACE)


def exit_waiter(pid: int) -> tuple[Callable[[float], object], Callable[[], None]]:
    """(pause, close): pause(s) sleeps up to s seconds but wakes the moment `pid` exits.

    Through a pidfd where the system has one (Linux 5.3+), so a run's wall time is not
    rounded up to the poll step (it was: start-up runs came out in steps of 0.05 s); a plain
    sleep elsewhere.
    """
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        return time.sleep, lambda: None
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return (lambda seconds: poller.poll(seconds * 1000)), (lambda: os.close(fd))


def status_kb(proc: Path, field: str = "VmHWM:") -> int:
    """A size in kB from /proc/PID/status (`proc` that folder): the peak resident size
    (VmHWM) by default; 0 for a process gone or a field it lacks."""
    try:
        for line in Path(proc, "status").read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0
