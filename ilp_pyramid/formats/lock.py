"""One writer at a time: an exclusive lock on a file beside what is written, naming its holder.

The lock is the kernel's (flock), so it goes with its holder however that ends, SIGKILL
included: a lock file whose holder is gone is simply taken over. The file holds who has it
(pid, host, start time, command) for the refusal message of the next comer, and is removed
on release. A holder only counts once the locked file is still the one at the path (a
releasing holder removes it; a late comer may have opened the old one).
"""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import json
import os
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

from ilp_pyramid.errors import InputError

# Locks this process holds (path -> descriptor), so that the CLI's watchdog can remove them
# before it ends the process without running `finally` blocks.
_held: dict[Path, int] = {}
_held_lock = threading.Lock()


class Busy(InputError):
    """Another live process holds the lock (exit code 2, naming it)."""


def _holder_text() -> str:
    since = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    return json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "since": since,
                       "command": " ".join(["ilp-pyramid", *sys.argv[1:]])[:300]}) + "\n"


def describe(text: str) -> str:
    """'pid 123 on host since 2025-01-01T12:00:00+00:00' from a lock file's text."""
    try:
        data = json.loads(text)
        return f"pid {data['pid']} on {data['host']} since {data['since']}"
    except (ValueError, TypeError, KeyError):
        return "another process"


def _read(fd: int) -> str:
    with contextlib.suppress(OSError):
        return os.pread(fd, 4096, 0).decode("utf-8", "replace")
    return ""


@contextlib.contextmanager
def hold(path: Path, what: str, on_stale=None) -> Iterator[None]:
    """Hold the lock file `path` for `what` (named in the refusal) until the block ends.

    Busy if a live process holds it; InputError naming the path if it cannot be created
    (read-only file system, no permission). `on_stale(text)` hears of a lock file left by
    a holder that is gone (its text), which is then taken over.
    """
    for _ in range(20):
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
        except OSError as exc:
            raise InputError(f"cannot lock {what}: {path}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = describe(_read(fd))
            os.close(fd)
            raise Busy(f"{what} is in use by {holder} (lock {path}); wait for it to end, "
                       f"or use another one") from None
        except OSError as exc:
            os.close(fd)
            raise InputError(f"cannot lock {what}: {path}: {exc.strerror or exc}") from None
        try:
            current = os.stat(path)
        except FileNotFoundError:
            current = None
        if current is not None and (current.st_ino, current.st_dev) == \
                (os.fstat(fd).st_ino, os.fstat(fd).st_dev):
            break
        os.close(fd)  # the previous holder removed it meanwhile: lock the new one
    else:  # pragma: no cover - twenty holders came and went in between
        raise Busy(f"{what} is in use (lock {path} keeps changing)")
    try:
        left = _read(fd)
        if left.strip() and on_stale is not None:
            on_stale(left)
        data = _holder_text().encode()
        os.ftruncate(fd, 0)
        os.pwrite(fd, data, 0)
    except OSError as exc:
        _unlock(path, fd)
        raise InputError(f"cannot lock {what}: {path}: {exc.strerror or exc}") from None
    with _held_lock:
        _held[path] = fd
    try:
        yield
    finally:
        _release(path)


def release_all() -> None:
    """Give up every lock this process holds (the watchdog, before it ends the process)."""
    for path in list(_held):
        _release(path)


def _release(path: Path) -> None:
    with _held_lock:
        fd = _held.pop(path, None)
    if fd is not None:  # once only: the main thread and the watchdog may both get here
        _unlock(path, fd)


def _unlock(path: Path, fd: int) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)
    with contextlib.suppress(OSError):
        fcntl.flock(fd, fcntl.LOCK_UN)  # also for children forked meanwhile (shared fd)
    os.close(fd)
