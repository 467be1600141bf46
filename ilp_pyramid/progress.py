"""A live status line on stderr for long runs: elapsed time and the engine's own measure.

It appears only after `delay` seconds (short runs print nothing extra), only when stderr is a
terminal, and never with --json. Solvers report through `update(info)`, a callback taking a
dict (backends.base.Progress): MIP {"incumbent", "bound", "nodes"}, SAT {"conflicts"} where
the solver gives them, local search {"best"}; "elapsed" is ignored, unknown keys are shown as
they are.
"""

from __future__ import annotations

import dataclasses
import json
import os
import threading
import time
from typing import Any

# A file descriptor to which every update is also written as one JSON line (the workbench's
# run watcher, ilp_pyramid/ui/runs.py, reads it; a terminal line is no use to a page).
PROGRESS_FD_VARIABLE = "ILP_PYRAMID_PROGRESS_FD"
FEED_EVERY_SECONDS = 0.25
_feed: dict[str, Any] = {"fd": None, "looked": False, "last": 0.0}

# How each known key is shown; the order is the order on the line.
LABELS = {"best": "best {} repeated cubes", "incumbent": "incumbent {}", "bound": "bound {}",
          "gap": "gap {}", "nodes": "{} nodes", "conflicts": "{} conflicts"}


SHOWN_ANYWAY = {"elapsed"}  # the line has its own clock


def describe(info: dict[str, Any]) -> str:
    """The measure part of the line, e.g. 'incumbent 3  bound 0  1,200 nodes'."""
    parts = []
    for key, template in LABELS.items():
        if info.get(key) is not None:
            parts.append(template.format(_number(info[key])))
    parts += [f"{key} {_number(value)}" for key, value in info.items()
              if key not in LABELS and key not in SHOWN_ANYWAY and value is not None]
    return "  ".join(parts)


def _number(value: Any) -> str:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


class LiveStatus:
    """`with LiveStatus("N=4 exact:highs", enabled) as live: ... live.update({...})`.

    `note`: shown at the end of the line, e.g. that the run has no time limit (a MIP solver's
    bound and node count can stand still for minutes: the line says it is not hung)."""

    def __init__(self, label: str, enabled: bool, delay: float = 2.0, note: str = ""):
        self.label = label
        self.enabled = enabled
        self.delay = delay
        self.note = note
        self.info: dict[str, Any] = {}
        self._began = time.monotonic()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def update(self, info: dict[str, Any]) -> None:
        self.info = dict(info)  # replaced whole: the drawing thread never sees half an update
        feed({"elapsed": time.monotonic() - self._began, **self.info})

    def text(self) -> str:
        elapsed = time.monotonic() - self._began
        parts = [f"{self.label}  {elapsed:5.0f} s", describe(self.info), self.note]
        return "  ".join(part for part in parts if part)

    def __enter__(self) -> LiveStatus:
        self._began = time.monotonic()
        if self.enabled:
            self._thread = threading.Thread(target=self._draw, daemon=True, name="live-status")
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1.0)

    def _draw(self) -> None:
        if self._stop.wait(self.delay):
            return
        from rich.console import Console
        from rich.live import Live

        # The line is stderr's alone: redirecting sys.stdout from this thread would swap it
        # under a solve that holds backends.process.native_output. Its own console, which
        # wraps: Live moves the cursor back over the lines it rendered, and the package's
        # consoles leave long lines to the terminal to fold (cli/options.py).
        with Live(self.text(), console=Console(stderr=True, highlight=False),
                  refresh_per_second=4, transient=True,
                  redirect_stdout=False, redirect_stderr=False) as live:
            while not self._stop.wait(0.25):
                live.update(self.text())


def with_progress(options: Any, callback: Any) -> Any:
    """`options` with its `progress` callback set, where the backend's SolveOptions has one."""
    names = {f.name for f in dataclasses.fields(options)}
    return dataclasses.replace(options, progress=callback) if "progress" in names else options


def _feed_fd() -> int | None:
    if not _feed["looked"]:
        _feed["looked"] = True
        value = os.environ.get(PROGRESS_FD_VARIABLE, "")
        if value.isdigit():
            try:
                os.fstat(int(value))
                os.set_blocking(int(value), False)  # a slow reader never holds up a solve
                _feed["fd"] = int(value)
            except OSError:
                pass
    return _feed["fd"]


def feed(info: dict[str, Any], force: bool = False) -> None:
    """Write `info` as one JSON line to the progress fd, if the process was given one, at
    most every FEED_EVERY_SECONDS (a full pipe drops the line rather than wait)."""
    fd = _feed_fd()
    now = time.monotonic()
    if fd is None or (not force and now - _feed["last"] < FEED_EVERY_SECONDS):
        return
    _feed["last"] = now
    line = json.dumps(info, default=_plain, separators=(",", ":")) + "\n"
    try:
        os.write(fd, line.encode())
    except (BlockingIOError, BrokenPipeError):
        pass
    except OSError:
        _feed["fd"] = None


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): v for k, v in value.items()}
    if hasattr(value, "item"):  # a numpy scalar
        return value.item()
    return str(value)
