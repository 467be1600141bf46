"""SIGINT and SIGTERM for every command: raised as `errors.Interrupted` in the main thread so
that cleanup runs as for any exception, a watchdog that ends the process when a solver's C code
holds the main thread, one line on stderr and exit 130 / 143 within the 2 s the CLI promises.

Light on purpose (the standard library and errors.py): installed before Typer, Rich and the
commands are imported.
"""

from __future__ import annotations

import _thread
import contextlib
import os
import signal
import sys
import threading
import time

from ilp_pyramid.errors import Interrupted

# Cleanup after a signal (finally blocks, pools, clusters) gets this long; then the watchdog
# kills what is left and exits, so every command stops within the 2 s the CLI promises.
GRACE_SECONDS = 1.2
_SIGNALS = {signal.SIGINT: ("interrupted", 130),
            signal.SIGTERM: ("interrupted (SIGTERM)", 143)}
_state: dict = {"pid": 0, "said": False, "caught": None, "pipe": None}
_said = threading.Lock()


def _on_signal(signum, frame) -> None:
    if os.getpid() != _state["pid"]:
        # A forked worker inherited this handler: die of the signal as it would have.
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return
    _state["caught"] = _SIGNALS[signum]
    for sig in _SIGNALS:  # a second Ctrl-C during cleanup must not print a traceback
        signal.signal(sig, signal.SIG_IGN)
    raise Interrupted(signum)


def _raise_again(unraisable) -> None:
    """sys.unraisablehook: a signal that landed in code whose exceptions Python swallows (an
    at-fork callback such as logging's, a __del__) raises its Interrupted again in the main
    thread once it has left that code, where cleanup runs as for any signal, instead of being
    printed as "Exception ignored" and leaving the watchdog to end the process."""
    exc = unraisable.exc_value
    if not isinstance(exc, Interrupted) or os.getpid() != _state["pid"]:
        _state["unraisablehook"](unraisable)
        return
    # Raised from another thread, a moment later: raised here it would be swallowed again.
    threading.Thread(target=_interrupt_main_soon, args=(exc.signum,), daemon=True).start()
    signal.signal(exc.signum, _on_signal)


def _interrupt_main_soon(signum: int) -> None:
    time.sleep(0.02)
    for _ in range(100):  # the main thread re-arms the handler as it leaves the hook
        if signal.getsignal(signum) is _on_signal:
            _thread.interrupt_main(signum)
            return
        time.sleep(0.01)


def _watchdog(reader: int) -> None:
    """Wakes on the signal byte the C-level handler writes, even while the main thread is
    stuck in a solver's C code (where no Python handler can run); gives the main thread
    GRACE_SECONDS to clean up, then ends the process itself."""
    while True:
        data = os.read(reader, 64)
        caught = [_SIGNALS[b] for b in data if b in _SIGNALS]
        if caught:
            time.sleep(GRACE_SECONDS)
            interrupted(*caught[0])
            locks = sys.modules.get("ilp_pyramid.formats.lock")
            if locks is not None:  # no `finally` runs after os._exit: no lock file left
                locks.release_all()
            os._exit(caught[0][1])


def _forget_wakeup_fd() -> None:
    # A forked child must not wake the parent's watchdog with its own signals.
    try:
        signal.set_wakeup_fd(-1)
    except ValueError:  # pragma: no cover - forked from a thread other than the main one
        pass


def install_signal_handlers() -> dict:
    """SIGINT and SIGTERM raise errors.Interrupted in the main thread, so cleanup
    runs as for any exception, and the watchdog stands by; returns what to restore."""
    _state.update(pid=os.getpid(), said=False, caught=None)
    if _state["pipe"] is None:
        reader, writer = os.pipe()
        os.set_blocking(writer, False)
        _state["pipe"] = writer
        threading.Thread(target=_watchdog, args=(reader,), daemon=True,
                         name="signal-watchdog").start()
        os.register_at_fork(after_in_child=_forget_wakeup_fd)
        _state["unraisablehook"] = sys.unraisablehook
        sys.unraisablehook = _raise_again
    previous: dict = {sig: signal.getsignal(sig) for sig in _SIGNALS}
    if previous[signal.SIGINT] is not signal.SIG_IGN:  # e.g. started with nohup ... &
        signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGTERM, _on_signal)
    previous["wakeup"] = signal.set_wakeup_fd(_state["pipe"], warn_on_full_buffer=False)
    return previous


def interrupted(message: str, code: int) -> int:
    """Kill what is left below us and say so, once (main and the watchdog may both get here)."""
    # Here, not at the top: `--version` loads nothing but this module and errors.
    from ilp_pyramid.backends.process import kill_descendants

    kill_descendants()
    with _said:
        # a command may have said it (cli/options.py's fail)
        reported = getattr(sys.modules.get("ilp_pyramid.cli.options"), "reported", False)
        if not _state["said"] and not reported:
            _state["said"] = True
            print(f"error: {message}", file=sys.stderr, flush=True)
    return code


def signal_seen(code: object) -> tuple[str, int] | None:
    """The signal that stopped the command, if one did: ours, or a backend's own handler's
    (Typer turns any KeyboardInterrupt into a bare exit code 130)."""
    if _state["caught"] is not None:
        return _state["caught"]
    process = sys.modules.get("ilp_pyramid.backends.process")
    if code == 130 and process is not None and process.last_signal in _SIGNALS:
        return _SIGNALS[process.last_signal]
    if code == 130:
        return _SIGNALS[signal.SIGINT]
    return None


def exit_now(code: int) -> None:
    """End an interrupted process without the interpreter's shutdown: the cleanup has run
    (finally blocks, `kill_descendants`), and a native solver thread still winding down (a
    cancelled HiGHS) would meet its static destructors there and abort the process."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, ValueError, OSError):
            stream.flush()
    os._exit(code)


def interrupted_with(code: int) -> int:
    """`interrupted` for an exit code of 130 (SIGINT) or 143 (SIGTERM)."""
    return interrupted(_SIGNALS.get(code - 128, _SIGNALS[signal.SIGINT])[0], code)
