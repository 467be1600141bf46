"""The `ilp-pyramid` command line: Bel's Pyramid at the top level, one group per other puzzle.

main() is the entry point. The tree (one table of every command and group) is tree.py; the
signals signals.py; the option vocabulary options.py; a puzzle's standard commands puzzle.py.
Nothing outside this package imports it: the puzzles, the bench's library, the workbench and
the Python API know no command line (tests/test_layers.py).
"""

from __future__ import annotations

import contextlib
import os
import resource  # here, early: under a tight ulimit -v even it may fail to load later
import signal
import sys
import threading

# Only light modules at the top: the signal handlers go in before Typer, Rich and the
# commands are imported (a tenth of a second in which Ctrl-C would end in a traceback).
from ilp_pyramid.cli.signals import (
    exit_now,
    install_signal_handlers,
    interrupted,
    interrupted_with,
    signal_seen,
)
from ilp_pyramid.cli.tree import build_app, chosen, version_line
from ilp_pyramid.errors import InputError, SolverError, one_line

__all__ = ["build_app", "install_signal_handlers", "main", "version_line"]


def __getattr__(name: str):
    if name == "app":  # the full tree, for tools that want the Typer object
        return build_app()
    raise AttributeError(name)


def _quick(args: list[str]) -> int | None:
    """What is answered before Typer loads (its import and parsing cost more than a small
    solve): --version, `solve N [--json]` where auto runs a SAT solver (cli/bel/quick.py),
    and `iq count BOARD [--jobs N] [--json]` (cli/iq_count.py)."""
    if args == ["--version"]:
        print(version_line())
        return 0
    if args[:2] == ["iq", "count"]:  # measured against a C++ solver: see cli/iq_count.py
        from ilp_pyramid.cli import iq_count

        return iq_count.quick(args)
    if args[:1] != ["solve"]:
        return None
    # Here, not at the top: `--version` and every other command need none of it.
    from ilp_pyramid.cli.bel import quick

    return quick.run(args)


def _run_app(args: list[str]) -> object:
    """The command line through Typer; click's own errors become one line and an exit code."""
    import typer

    try:  # Typer >= 0.20 vendors click; older ones depend on it.
        from typer._click import exceptions as click_exceptions
    except ImportError:  # pragma: no cover
        from click import exceptions as click_exceptions
    try:
        first = chosen(args)
        app = build_app(first, listing=first is None, then=(args[1:2] or [None])[0])
        return app(args=args, prog_name="ilp-pyramid", standalone_mode=False)
    except click_exceptions.NoArgsIsHelpError as exc:
        exc.show()
        return 0
    except click_exceptions.ClickException as exc:
        message = one_line(exc.format_message().replace("\n", " "))
        ctx = getattr(exc, "ctx", None)
        hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
        print(f"error: {message}{hint}", file=sys.stderr)
        return exc.exit_code
    except (getattr(click_exceptions, "Abort", typer.Abort), typer.Abort):  # vendored: no Abort
        return interrupted("interrupted", 130)


def _standard_streams() -> str | None:
    """Make the standard streams safe to use; a reason to refuse the command, if any.

    A closed descriptor 0-2 gets /dev/null, so that no file opened later takes its number
    (a solver writing to fd 1 would write into it). Text that the streams' encoding cannot
    show is escaped (PYTHONIOENCODING=ascii and a file name with an accent), not an error.
    """
    closed = []
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            closed.append(fd)
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd, inheritable=True)
                os.close(null)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, ValueError):  # a test's StringIO
            stream.reconfigure(errors="backslashreplace")
    # Python leaves a stream None when its descriptor was closed at start-up.
    if sys.stderr is None or 2 in closed:
        sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)
    if sys.stdout is None or 1 in closed:
        return "standard output is closed: the command could print nothing (use >/dev/null)"
    return None


def _memory_refusal(exc: BaseException) -> str | None:
    """'out of memory ...' when loading a library failed under an address-space limit
    (ulimit -v): the loader's own message names the library, not the cause."""
    text = str(exc)
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    if limit == resource.RLIM_INFINITY or not isinstance(exc, OSError | ImportError):
        return None
    if not any(hint in text for hint in ("shared object", "cannot allocate memory",
                                         "failed to map segment")):
        return None
    return _address_space_note("out of memory: a library could not be loaded") + \
        "; raise the limit"


def _address_space_note(message: str) -> str:
    """`message`, naming the address-space limit (ulimit -v) when one is set: it, not the
    machine's memory, is then what ran out."""
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    if limit == resource.RLIM_INFINITY:
        return message
    return f"{message} within the address-space limit of {limit / 2**20:.0f} MiB (ulimit -v)"


def main(argv: list[str] | None = None) -> None:
    """Entry point: every failure becomes one line on stderr and an exit code, never a traceback.

    SIGINT exits 130 and SIGTERM 143, within 2 s, after stopping every child process.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous = install_signal_handlers() if in_main_thread else {}
    code: object = 1
    try:
        refusal = _standard_streams()
        if refusal is not None:
            raise InputError(refusal)
        code = _quick(args)
        if code is None:
            code = _run_app(args)
    except (InputError, SolverError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        code = exc.exit_code
    except KeyboardInterrupt as exc:  # errors.Interrupted carries 143 for SIGTERM
        code = interrupted_with(getattr(exc, "exit_code", 130))
    except MemoryError:
        print(f"error: {_address_space_note('out of memory')}", file=sys.stderr)
        code = 1
    except Exception as exc:  # noqa: BLE001 - the one place that turns bugs into a line
        if os.environ.get("ILP_PYRAMID_DEBUG"):
            raise
        memory = _memory_refusal(exc)
        print(f"error: {memory or f'{type(exc).__name__}: {exc}'}", file=sys.stderr)
        code = 1
    finally:
        seen = signal_seen(code)
        if seen is not None:
            code = interrupted(*seen)
        if argv is not None and previous:  # in-process (tests): give the caller its handlers
            signal.set_wakeup_fd(previous.pop("wakeup", -1))
            for sig, handler in previous.items():
                signal.signal(sig, handler)
    code = code if isinstance(code, int) else 0
    if argv is None and code in (130, 143):
        exit_now(code)
    sys.exit(code)


