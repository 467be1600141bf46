"""The hunt's last resort: whatever the cluster does (fails to start, hangs on a worker), the
hunt ends OVERRUN_SECONDS after its time limit (SIGALRM raises `Overrun` in the main thread);
the searches stop themselves at the limit and report within seconds."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

OVERRUN_SECONDS = 10.0


class Overrun(Exception):
    """The hunt ran OVERRUN_SECONDS past its time limit."""


class Alarm:
    """The armed timer: `cancel()` it once the work is over; `fired` once it rang."""

    def __init__(self) -> None:
        self.armed = False
        self.fired = False

    def cancel(self) -> None:
        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            self.armed = False


@contextlib.contextmanager
def hard_deadline(time_limit: float | None) -> Iterator[Alarm]:
    """Raise Overrun in the main thread OVERRUN_SECONDS after `time_limit` (SIGALRM), so
    that no wait inside Dask outlasts the limit; `.cancel()` it once the work is over."""
    alarm = Alarm()
    if (time_limit is None or threading.current_thread() is not threading.main_thread()
            or signal.getitimer(signal.ITIMER_REAL)[0] > 0):  # the timer is someone else's
        yield alarm
        return

    def ring(_signum, _frame) -> None:
        alarm.armed = False
        alarm.fired = True
        raise Overrun

    previous = signal.signal(signal.SIGALRM, ring)
    alarm.armed = True
    signal.setitimer(signal.ITIMER_REAL, time_limit + OVERRUN_SECONDS)
    try:
        yield alarm
    finally:
        alarm.cancel()
        signal.signal(signal.SIGALRM, previous)
