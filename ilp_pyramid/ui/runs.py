"""Long runs from the page: the CLI's own commands in a child process, watched and stopped.

A run is `python -m ilp_pyramid ARGS... --json` in its own process group (it dies with the
server, `backends.process.die_with_parent`). Its live measures come through a pipe named by
ILP_PYRAMID_PROGRESS_FD (`progress.LiveStatus` writes one JSON object per line there); its
answer is the one JSON object the command prints, already verified by the command. Stop
sends SIGINT to the group, as Ctrl-C in a terminal would, and SIGKILL after
`STOP_GRACE_SECONDS` if anything is still there. Files a run reads (an upload, a board) are
written by the server into the run's own temporary folder, the run's working folder, and
named relative to it: no path comes from the page, and none goes back to it (the folder's
path is also taken out of whatever the command prints).

Bounds: a core budget, not a run count. Each run is given a number of cores (`jobs`: at most
what it asked for and all the cores but one, at least one) and the runs' cores never add up
to more than the machine's (`machine.cores()`); the page puts them on the command line
(`--jobs`, `--threads`). One run per session. Every run has a time limit (the command's
own; the server stops it `OVERTIME_SECONDS` past that), and a run whose every event stream
has closed (the page went away) is stopped after `ABANDON_SECONDS`, unless a page
reconnects meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ilp_pyramid import machine
from ilp_pyramid.backends import process
from ilp_pyramid.progress import PROGRESS_FD_VARIABLE

STOP_GRACE_SECONDS = 1.5
KEEP_FINISHED = 20  # finished runs kept for their events (a page may reconnect late)
# A run may keep one output file's bytes past the end of its folder (an IQ count's listing,
# gzipped); a larger file is dropped rather than held by the server.
MAX_KEPT_BYTES = 16_000_000
DEFAULT_TIME_LIMIT = 600.0  # a run's limit when the page gives none (the pages show it)
# Past its time limit the command stops by itself and verifies what it has; a run still
# there this much later is stopped by the server.
OVERTIME_SECONDS = 30.0
# A page that reloads or reconnects opens the stream again within this; a run nobody
# watches any more is stopped after it.
ABANDON_SECONDS = 3.0


class Busy(Exception):
    """A session that already has a run, or every core taken by runs."""


@dataclass
class Run:
    id: str
    session: str
    args: list[str]
    folder: Path
    jobs: int = 1  # the cores this run was given
    seconds: float = DEFAULT_TIME_LIMIT  # its time limit
    began: float = field(default_factory=time.monotonic)
    events: list[dict] = field(default_factory=list)
    done: bool = False
    stopped: bool = False
    why: str | None = None  # who stopped it: "page" (Stop), "abandoned", "overtime", "server"
    child: asyncio.subprocess.Process | None = None
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    keep: str | None = None  # a file of the run's folder to read before the folder goes
    kept: bytes | None = None  # its bytes, once the run is done (None: absent or too large)
    watchers: int = 0  # the event streams open on it
    timers: dict[str, asyncio.TimerHandle] = field(default_factory=dict)

    def add(self, event: dict) -> None:
        self.events.append(event)
        self.changed.set()
        self.changed = asyncio.Event()  # waiters of the next event wait on a fresh one

    def state(self) -> dict:
        last = self.events[-1] if self.events else None
        return {"run": self.id, "done": self.done, "stopped": self.stopped,
                "seconds": round(time.monotonic() - self.began, 2),
                "jobs": self.jobs, "time_limit": self.seconds, "last": last}


class RunManager:
    """One run per session; the runs' cores within `cores` (default: this machine's)."""

    def __init__(self, cores: int | None = None, abandon_seconds: float = ABANDON_SECONDS,
                 overtime_seconds: float = OVERTIME_SECONDS) -> None:
        self.cores = cores or machine.cores()
        self.abandon_seconds = abandon_seconds
        self.overtime_seconds = overtime_seconds
        self.runs: dict[str, Run] = {}
        self._stopping: dict[str, asyncio.Future] = {}

    def active(self) -> list[Run]:
        return [run for run in self.runs.values() if not run.done]

    def has_run(self, session: str) -> bool:
        return any(run.session == session for run in self.active())

    @property
    def most_per_run(self) -> int:
        """The cores one run may have: all but one, so that another page's run (a check, a
        small solve) and the server itself still have one."""
        return max(1, self.cores - 1)

    def cores_used(self) -> int:
        return sum(run.jobs for run in self.active())

    async def start(self, session: str, args: Sequence[str] | Callable[[int], Sequence[str]],
                    files: dict[str, bytes] | None = None, keep: str | None = None,
                    jobs: int = 1, seconds: float | None = None) -> Run:
        """Start `ilp-pyramid ARGS` for `session`, given at most `jobs` cores (at least one;
        `args` may be a function of the number given, to put it on the command line) for at
        most `seconds` (the command's own time limit). `files` are written into the run's
        working folder first, under their own names (no folder); the file `keep` of the
        folder, if the run wrote it, stays readable as `run.kept` after the run."""
        if self.has_run(session):
            raise Busy("a run is already going in this page: stop it first")
        free = self.cores - self.cores_used()
        if free < 1:
            raise Busy(f"all {self.cores} cores are taken by runs: stop one first")
        given = max(1, min(jobs, free, self.most_per_run))
        argv = [str(a) for a in (args(given) if callable(args) else args)]
        folder = Path(tempfile.mkdtemp(prefix="ilp-pyramid-ui-"))
        try:
            for name, data in (files or {}).items():
                (folder / Path(name).name).write_bytes(data)
            reader, writer = os.pipe()
        except OSError as exc:
            shutil.rmtree(folder, ignore_errors=True)
            raise Busy(f"the server cannot start a run now ({exc.strerror or exc})") from None
        run = Run(secrets.token_urlsafe(8), session, argv, folder, jobs=given,
                  seconds=DEFAULT_TIME_LIMIT if seconds is None else seconds, keep=keep)
        # Counted before the child starts: a start arriving meanwhile sees its cores taken.
        self.runs[run.id] = run
        env = dict(os.environ, **{PROGRESS_FD_VARIABLE: str(writer)})
        try:
            run.child = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "ilp_pyramid", *argv, stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                start_new_session=True, preexec_fn=process.die_with_parent,
                pass_fds=(writer,), env=env, cwd=folder)
        except BaseException as exc:
            del self.runs[run.id]
            os.close(reader)
            shutil.rmtree(folder, ignore_errors=True)
            if isinstance(exc, OSError):
                raise Busy(f"the server cannot start a run now ({exc.strerror or exc})"
                           ) from None
            raise
        finally:
            os.close(writer)
        self._forget_old()
        loop = asyncio.get_running_loop()
        run.timers["overtime"] = loop.call_later(run.seconds + self.overtime_seconds,
                                                 self._stop_later, run, "overtime")
        loop.create_task(self._watch(run, reader))
        return run

    def _stop_later(self, run: Run, why: str) -> None:
        run.timers.pop(why, None)
        if not run.done:
            asyncio.ensure_future(self.stop(run, why))

    def watch(self, run: Run) -> None:
        """An event stream opened on `run`."""
        run.watchers += 1
        timer = run.timers.pop("abandoned", None)
        if timer is not None:
            timer.cancel()

    def unwatch(self, run: Run) -> None:
        """An event stream on `run` closed: the last one closing stops it after the grace."""
        run.watchers = max(0, run.watchers - 1)
        if run.watchers == 0 and not run.done and "abandoned" not in run.timers:
            run.timers["abandoned"] = asyncio.get_running_loop().call_later(
                self.abandon_seconds, self._stop_later, run, "abandoned")

    async def _watch(self, run: Run, reader: int) -> None:
        assert run.child is not None
        event: dict[str, Any] = {"type": "done", "exit": None, "stopped": False,
                                 "result": None}
        try:
            progress = asyncio.create_task(_read_progress(run, reader))
            out, err = await run.child.communicate()
            await progress
            event.update(_answer(run.child.returncode, out, err, run.folder))
            if run.keep is not None:
                run.kept = _read_capped(run.folder / run.keep)
        finally:
            for timer in run.timers.values():
                timer.cancel()
            run.timers.clear()
            event.update(stopped=run.stopped, seconds=round(time.monotonic() - run.began, 2))
            if run.why is not None:
                event["why"] = run.why
            run.done = True
            run.add(event)
            shutil.rmtree(run.folder, ignore_errors=True)

    async def events(self, run: Run) -> AsyncIterator[dict]:
        """Every event of `run` from the first, then each new one until it is done."""
        seen = 0
        while True:
            waiter = run.changed
            while seen < len(run.events):
                yield run.events[seen]
                seen += 1
            if run.done:
                return
            await waiter.wait()

    async def finished(self, run: Run) -> dict:
        """The run's `done` event, once it is there (for a route that answers when the run
        has: a quick check rather than a search to watch)."""
        async for event in self.events(run):
            if event["type"] == "done":
                return event
        raise AssertionError("a run's events end with its done event")  # pragma: no cover

    async def stop(self, run: Run, why: str = "page") -> None:
        """SIGINT to the run's group (the CLI stops its solver and exits 130), SIGKILL to
        what is left after the grace. Stopping a run already being stopped waits for that
        stop (a second SIGINT would cut the CLI's own clean-up short)."""
        if run.done or run.child is None:
            return
        if run.id not in self._stopping:
            run.why = why
            self._stopping[run.id] = asyncio.ensure_future(self._stop(run))
        await asyncio.shield(self._stopping[run.id])

    async def _stop(self, run: Run) -> None:
        assert run.child is not None
        run.stopped = True
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(run.child.pid, signal.SIGINT)
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        while time.monotonic() < deadline and run.child.returncode is None:
            await asyncio.sleep(0.05)
        process.kill_group(run.child.pid)  # the CLI's own children, whatever it did

    async def stop_all(self) -> None:
        await asyncio.gather(*(self.stop(run, "server") for run in self.active()))

    def _forget_old(self) -> None:
        finished = [run for run in self.runs.values() if run.done]
        for run in finished[:-KEEP_FINISHED]:
            del self.runs[run.id]
            self._stopping.pop(run.id, None)


def _answer(code: int | None, out: bytes, err: bytes, folder: Path) -> dict[str, Any]:
    """The done event's exit code, the command's JSON answer and its one-line error."""
    answer: dict[str, Any] = {"exit": code, "result": None}
    with contextlib.suppress(ValueError):
        answer["result"] = json.loads(_scrub(out.decode(errors="replace"), folder)) \
            if out.strip() else None
    lines = _scrub(err.decode(errors="replace"), folder).strip().splitlines()
    if code != 0 and lines:
        answer["error"] = lines[-1].removeprefix("error: ")
    return answer


def _scrub(text: str, folder: Path) -> str:
    """`text` without the run folder's path (in JSON's spelling too): what a page sees names
    the run's files by their names alone."""
    for path in {str(folder), os.path.realpath(folder)}:
        for spelling in (path, json.dumps(path)[1:-1]):
            text = text.replace(spelling + "/", "").replace(spelling, ".")
    return text


def _read_capped(path: Path) -> bytes | None:
    try:
        if path.stat().st_size > MAX_KEPT_BYTES:
            return None
        return path.read_bytes()
    except OSError:
        return None


async def _read_progress(run: Run, reader: int) -> None:
    loop = asyncio.get_running_loop()
    stream = asyncio.StreamReader()
    pipe = os.fdopen(reader, "rb", buffering=0)
    transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(stream), pipe)
    try:
        while line := await stream.readline():
            try:
                info = json.loads(line)
            except ValueError:
                continue
            if isinstance(info, dict):
                run.add({"type": "progress", "info": info})
    finally:
        transport.close()
