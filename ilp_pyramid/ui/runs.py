"""Long runs from the page: the CLI's own commands in a child process, watched and stopped.

A run is `python -m ilp_pyramid ARGS... --json` in its own process group (it dies with the
server, `backends.process.die_with_parent`). Its live measures come through a pipe named by
ILP_PYRAMID_PROGRESS_FD (`progress.LiveStatus` writes one JSON object per line there); its
answer is the one JSON object the command prints, already verified by the command. Stop
sends SIGINT to the group, as Ctrl-C in a terminal would, and SIGKILL after
`STOP_GRACE_SECONDS` if anything is still there. Files a run reads (an upload, a board) are
written by the server into the run's own temporary folder: no path ever comes from the page.
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


class Busy(Exception):
    """A session that already has a run, or every core taken by runs."""


@dataclass
class Run:
    id: str
    session: str
    args: list[str]
    folder: Path
    began: float = field(default_factory=time.monotonic)
    events: list[dict] = field(default_factory=list)
    done: bool = False
    stopped: bool = False
    child: asyncio.subprocess.Process | None = None
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    keep: str | None = None  # a file of the run's folder to read before the folder goes
    kept: bytes | None = None  # its bytes, once the run is done (None: absent or too large)

    def add(self, event: dict) -> None:
        self.events.append(event)
        self.changed.set()
        self.changed = asyncio.Event()  # waiters of the next event wait on a fresh one

    def state(self) -> dict:
        last = self.events[-1] if self.events else None
        return {"run": self.id, "done": self.done, "stopped": self.stopped,
                "seconds": round(time.monotonic() - self.began, 2),
                "last": last}


class RunManager:
    """At most one run per session and `limit` runs in all (the cores, as the CLI's caps)."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = limit or machine.cores()
        self.runs: dict[str, Run] = {}
        self._stopping: dict[str, asyncio.Future] = {}

    def active(self) -> list[Run]:
        return [run for run in self.runs.values() if not run.done]

    async def start(self, session: str, args: Sequence[str],
                    files: dict[str, bytes] | None = None,
                    build: Callable[[Path], Sequence[str]] | None = None,
                    keep: str | None = None) -> Run:
        """Start `ilp-pyramid ARGS` for `session`. `files` are written into the run's folder
        first; `build(folder)` may add arguments naming them; the file `keep` of the folder,
        if the run wrote it, stays readable as `run.kept` after the run."""
        if any(run.session == session for run in self.active()):
            raise Busy("a run is already going in this page: stop it first")
        if len(self.active()) >= self.limit:
            raise Busy(f"all {self.limit} cores are taken by runs: stop one first")
        folder = Path(tempfile.mkdtemp(prefix="ilp-pyramid-ui-"))
        for name, data in (files or {}).items():
            (folder / Path(name).name).write_bytes(data)
        argv = list(args) + (list(build(folder)) if build else [])
        run = Run(secrets.token_urlsafe(8), session, argv, folder, keep=keep)
        self.runs[run.id] = run
        self._forget_old()
        reader, writer = os.pipe()
        env = dict(os.environ, **{PROGRESS_FD_VARIABLE: str(writer)})
        try:
            run.child = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "ilp_pyramid", *argv, stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                start_new_session=True, preexec_fn=process.die_with_parent,
                pass_fds=(writer,), env=env, cwd=folder)
        finally:
            os.close(writer)
        asyncio.get_running_loop().create_task(self._watch(run, reader))
        return run

    async def _watch(self, run: Run, reader: int) -> None:
        progress = asyncio.create_task(_read_progress(run, reader))
        assert run.child is not None
        out, err = await run.child.communicate()
        await progress
        code = run.child.returncode
        event: dict[str, Any] = {"type": "done", "exit": code, "stopped": run.stopped,
                                 "seconds": round(time.monotonic() - run.began, 2)}
        try:
            event["result"] = json.loads(out) if out.strip() else None
        except ValueError:
            event["result"] = None
        lines = err.decode(errors="replace").strip().splitlines()
        if code != 0 and lines:
            event["error"] = lines[-1].removeprefix("error: ")
        if run.keep is not None:
            run.kept = _read_capped(run.folder / run.keep)
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

    async def stop(self, run: Run) -> None:
        """SIGINT to the run's group (the CLI stops its solver and exits 130), SIGKILL to
        what is left after the grace. Stopping a run already being stopped waits for that
        stop (a second SIGINT would cut the CLI's own clean-up short)."""
        if run.done or run.child is None:
            return
        if run.id not in self._stopping:
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
        await asyncio.gather(*(self.stop(run) for run in self.active()))

    def _forget_old(self) -> None:
        finished = [run for run in self.runs.values() if run.done]
        for run in finished[:-KEEP_FINISHED]:
            del self.runs[run.id]
            self._stopping.pop(run.id, None)


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
