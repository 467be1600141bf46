"""Solver libraries that run in this process (SCIP, Gurobi): the solve on a thread of its own
that the main thread can leave on a signal (their log is kept off stdout by the
`process.native_output` that `backends.solve` and `mip.solve` hold).

A C library's solve call blocks the thread that makes it, and no Python signal handler runs
on the main thread until it returns. So the call runs on a daemon thread (the library drops
the GIL while it works) and the main thread waits in short slices, where a signal raises
(`process.interruptible`, held by `mip.solve`). Then the library is asked to stop; if it has
not within CANCEL_WAIT (one long LP solve may not look at the request), the interrupt
propagates anyway and the thread dies with the process.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from ilp_pyramid.backends.base import Progress

SLICE = 0.1
PROGRESS_EVERY = 1.0
CANCEL_WAIT = 0.5


def run(solve: Callable[[], object], cancel: Callable[[], object], name: str,
        progress: Progress | None = None,
        stats: Callable[[], dict] | None = None) -> None:
    """Run `solve()` on a daemon thread and wait for it; an exception it raised is raised
    here. On any exception in the wait (an interrupt) call `cancel()` and re-raise.
    `progress` gets {"elapsed", **stats()} about once a second."""
    failure: list[BaseException] = []

    def target() -> None:
        try:
            solve()
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            failure.append(exc)

    thread = threading.Thread(target=target, daemon=True, name=name)
    start = shown = time.perf_counter()
    thread.start()
    try:
        while thread.is_alive():
            thread.join(SLICE)
            now = time.perf_counter()
            if progress is not None and now - shown >= PROGRESS_EVERY:
                shown = now
                progress({"elapsed": now - start, **(stats() if stats else {})})
    except BaseException:
        cancel()
        thread.join(CANCEL_WAIT)
        raise
    if failure:
        raise failure[0]
