"""A live status line on stderr for long runs: elapsed time and the engine's own measure.

It appears only after `delay` seconds (short runs print nothing extra), only when stderr is a
terminal, and never with --json. Solvers report through `update(info)`, a callback taking a
dict (backends.base.Progress): MIP {"incumbent", "bound", "nodes"}, SAT {"conflicts"} where
the solver gives them, local search {"best"}; "elapsed" is ignored, unknown keys are shown as
they are.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from typing import Any

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
    """`with LiveStatus("N=4 exact:highs", enabled) as live: ... live.update({...})`."""

    def __init__(self, label: str, enabled: bool, delay: float = 2.0):
        self.label = label
        self.enabled = enabled
        self.delay = delay
        self.info: dict[str, Any] = {}
        self._began = time.monotonic()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def update(self, info: dict[str, Any]) -> None:
        self.info = dict(info)  # replaced whole: the drawing thread never sees half an update

    def text(self) -> str:
        elapsed = time.monotonic() - self._began
        measure = describe(self.info)
        return f"{self.label}  {elapsed:5.0f} s" + (f"  {measure}" if measure else "")

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
        from rich.live import Live

        from ilp_pyramid.cli_common import err_console

        # The line is stderr's alone: redirecting sys.stdout from this thread would swap it
        # under a solve that holds backends.process.native_output.
        with Live(self.text(), console=err_console, refresh_per_second=4, transient=True,
                  redirect_stdout=False, redirect_stderr=False) as live:
            while not self._stop.wait(0.25):
                live.update(self.text())


def with_progress(options: Any, callback: Any) -> Any:
    """`options` with its `progress` callback set, where the backend's SolveOptions has one."""
    names = {f.name for f in dataclasses.fields(options)}
    return dataclasses.replace(options, progress=callback) if "progress" in names else options
