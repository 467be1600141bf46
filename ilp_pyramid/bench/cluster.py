"""`bench --scheduler ADDRESS`: the runs of a bench on a Dask cluster.

Each run is one task; on its worker it is what it is here (the `run_one` the session hands
over: its own process group, the same hard limit, wall and CPU seconds, peak memory), and its
record also names the worker's host and address. Records come back as tasks finish and go
into the results file at once, so --resume works as for a bench on one machine. A run that
fails on its worker (not the command: the task) is left out with a warning, for --resume to
retry.

On SIGINT/SIGTERM the waiting tasks are cancelled and the running ones see a Dask Event
within STOP_POLL and kill their process group; the records already written stay.

The workers need this package (the same version) and whatever the runs use; their
`sys.executable` runs the package's commands. Dask is imported only here.
"""

from __future__ import annotations

import contextlib
import socket
import time
import uuid
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ilp_pyramid.bench.runner import Cancelled
from ilp_pyramid.errors import InputError

if TYPE_CHECKING:
    from ilp_pyramid.bench.grid import Spec

TOPIC = "ilp-pyramid-bench"
POLL = 0.2  # how often the client looks for finished tasks
STOP_POLL = 0.5  # how often a running task asks whether the bench was stopped
CONNECT_TIMEOUT = "20s"
CLOSE_TIMEOUT = 0.5  # the client's goodbye must fit into the 2 s a signal allows
# session.run_one, handed over by the session (which imports this module): one run and its
# record, `stop` asked at every poll.
RunOne = Callable[..., dict]


def run_remote(run_one: RunOne, spec: Spec, kill_after: float, bench_argv: list[str],
               token: str) -> dict | None:
    """On a worker: one run and its record, or None when the bench was stopped."""
    from distributed import Event, get_worker

    worker = get_worker()
    stop = Event(f"{TOPIC}-stop-{token}")
    asked = {"at": time.monotonic()}

    def stopped() -> bool:
        now = time.monotonic()
        if now - asked["at"] < STOP_POLL:
            return False
        asked["at"] = now
        try:
            return stop.is_set()
        except Exception:  # noqa: BLE001 - the scheduler busy or gone: go on, the limit holds
            return False

    try:
        record = run_one(spec, kill_after, bench_argv, stop=stopped)
    except Cancelled:
        return None
    record.update(host=socket.gethostname(), worker=worker.address)
    return record


def run_all(run_one: RunOne, pending: Sequence[Spec], kill_after: float,
            bench_argv: Sequence[str], scheduler: str, take: Callable[[Spec, dict], None],
            warn: Callable[[str], None]) -> None:
    """Send every spec to the cluster at `scheduler`, to run there by `run_one`;
    `take(spec, record)` as each ends."""
    from distributed import Client, Event

    try:
        client = Client(scheduler, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as exc:
        raise InputError(f"--scheduler {scheduler}: cannot connect ({exc})") from None
    token = uuid.uuid4().hex[:12]
    stop = Event(f"{TOPIC}-stop-{token}", client=client)
    futures = {client.submit(run_remote, run_one, spec, kill_after, list(bench_argv), token,
                             pure=False, key=f"{TOPIC}-{token}-{i}"): spec
               for i, spec in enumerate(pending)}
    try:
        while futures:
            finished = [future for future in futures if future.done()]
            for future in finished:
                spec = futures.pop(future)
                if future.status != "finished":
                    warn(f"{spec.describe()}: the task failed on its worker "
                         f"({future.exception()!r}); left for --resume")
                    continue
                record = future.result()
                if record is not None:
                    take(spec, record)
            if not finished:
                time.sleep(POLL)
    finally:
        if futures:  # stopped: no task may start, none may keep running
            with contextlib.suppress(Exception):
                stop.set()
            with contextlib.suppress(Exception):
                client.cancel(list(futures), force=True)
        with contextlib.suppress(Exception):
            client.close(timeout=CLOSE_TIMEOUT)
