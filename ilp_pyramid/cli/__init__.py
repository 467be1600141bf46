"""The `ilp-pyramid` command line: Bel's Pyramid at the top level, one group per other puzzle."""

from __future__ import annotations

import contextlib
import importlib
import os
import resource  # here, early: under a tight ulimit -v even it may fail to load later
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING

# Only light modules at the top: the signal handlers go in before Typer, Rich and the
# commands are imported (a tenth of a second in which Ctrl-C would end in a traceback).
import ilp_pyramid
from ilp_pyramid.errors import InputError, Interrupted, SolverError, one_line

if TYPE_CHECKING:
    import typer

HELP = ("Cube-and-pyramid puzzles as integer programs: MIP (HiGHS, CBC, SCIP) and SAT side "
        "by side.")

# (name, module, attribute, is a group) in help order; after them one group per registered
# puzzle (`puzzle_groups`). Modules are imported only for the command that runs: `solve 3`
# need not load the benchmark, Dask, plotting or the other puzzles (whole-process time is
# what a user measures).
ENTRIES = (
    ("solve", "ilp_pyramid.cli.bel.solve", "solve", False),
    ("verify", "ilp_pyramid.cli.bel.files", "verify", False),
    ("render", "ilp_pyramid.cli.bel.pictures", "render", False),
    ("export", "ilp_pyramid.cli.bel.files", "export", False),
    ("read-solution", "ilp_pyramid.cli.bel.files", "read_solution", False),
    ("models", "ilp_pyramid.cli.models", "models", False),
    ("solve-cnf", "ilp_pyramid.cli.cnf", "solve_cnf", False),
    ("strategies", "ilp_pyramid.cli.bel.info", "strategies", False),
    ("info", "ilp_pyramid.cli.bel.info", "info", False),
    ("bench", "ilp_pyramid.cli.bench", "app", True),
    ("hunt", "ilp_pyramid.cli.bel.hunt", "hunt", False),
    ("ui", "ilp_pyramid.cli.ui", "ui", False),
)
# Bel's Pyramid, the flagship, has its commands at the top level rather than in a group.
TOP_LEVEL_PUZZLE = "bel"


def puzzle_groups() -> list[str]:
    """The registered puzzles that get a command group: every one but the flagship."""
    from ilp_pyramid import puzzles

    return [name for name in puzzles.names() if name != TOP_LEVEL_PUZZLE]


# What `ilp-pyramid --help` lists for each entry (the first sentence of its own help), so the
# listing loads no command module and no puzzle (a puzzle group's line is its Puzzle's
# `title`, from `puzzles.TITLES`); tests/test_startup.py checks them against the commands.
SUMMARIES = {
    "solve": "Solve Bel's Pyramid of N levels and print the verified solution in Knuth's "
             "drawing.",
    "verify": 'Check a solution: exit 0 "valid", 1 with the reasons, 2 if the file is '
              'malformed.',
    "render": "Draw a solution (after verifying it): a PNG, an interactive HTML view, the build "
              "list.",
    "export": "Export the model as LP or MPS with readable, stable variable names, or as DIMACS "
              "CNF whose comment lines map every variable (`c x 17 Z 3 4 label 2`).",
    "read-solution": "Decode an outside solver's solution of an exported model by name, verify "
                     "and draw it.",
    "models": "(Re)generate a public benchmark set: Bel N=2..max-n as .mps.gz and .cnf.gz "
              "plus manifest.json, or with --puzzle all the library of every puzzle.",
    "solve-cnf": "Solve a DIMACS CNF file with one SAT solver: exit 0 SATISFIABLE (the model "
                 "checked against every clause), 1 UNSATISFIABLE, 3 time limit.",
    "strategies": "List every strategy: what it adds, and whether it can lose solutions.",
    "info": "Sizes of the pyramid and the order of its symmetry group (by formula, instantly).",
    "hunt": "Hunt for a Bel's Pyramid solution: one hybrid search per core, as long as it "
            "takes.",
    "ui": "Start the local web workbench: one page per puzzle, enter it by clicking, watch "
          "it solve, stop it (docs/ui.md).",
    "bench": "Time runs, each in its own process: a puzzle's grid (its cases x solvers x "
             "repeats; Bel's by default), or --command / --external argv templates; tables "
             "from the records.",
}


def _load(module: str, name: str):
    return getattr(importlib.import_module(module), name)


def build_app(only: str | None = None, listing: bool = False) -> typer.Typer:
    """The command tree: every command, or just `only` (same paths, same help). `listing`:
    stand-ins that carry only SUMMARIES, for a command line that names no command (the
    top-level help, a mistyped command), where no command can run."""
    import typer

    # rich markup off: help texts hold square brackets ("ilp-pyramid[cpsat]").
    app = typer.Typer(name="ilp-pyramid", help=HELP, no_args_is_help=True,
                      pretty_exceptions_enable=False, add_completion=False,
                      rich_markup_mode=None)
    # Typer lists commands before groups: the stand-ins (all commands) keep that order.
    for name, module, attr, group in sorted(ENTRIES, key=lambda e: e[3]) if listing else ENTRIES:
        if only not in (None, name):
            continue
        if listing:
            app.command(name, help=SUMMARIES[name])(_stand_in)
        elif group:
            sub = _load(module, attr)
            sub.rich_markup_mode = None
            app.add_typer(sub, name=name)
        else:
            app.command(name)(_load(module, attr))
    for name in puzzle_groups():
        if only not in (None, name):
            continue
        from ilp_pyramid import puzzles

        if listing:
            app.command(name, help=puzzles.TITLES[name])(_stand_in)
        else:
            puzzle = puzzles.get(name)
            from ilp_pyramid.cli.puzzle import app_for

            sub = app_for(puzzle)
            sub.rich_markup_mode = None
            app.add_typer(sub, name=name, help=puzzle.title)
    # Also what keeps a one-command tree a group (a Typer with one command and no callback
    # would *be* that command, with no name to type).
    def root(version: bool = typer.Option(False, "--version", callback=_version,
                                          is_eager=True, help="Print the version and exit.")
             ) -> None:
        """Cube-and-pyramid puzzles as integer programs: MIP (HiGHS, CBC, SCIP) and SAT."""

    app.callback()(root)
    return app


def _stand_in() -> None:  # pragma: no cover - listed, never run (see build_app)
    raise RuntimeError("a listing stand-in ran")


def version_line() -> str:
    return f"ilp-pyramid {ilp_pyramid.__version__}"


def _version(value: bool) -> None:
    if value:
        import typer

        print(version_line())
        raise typer.Exit()


def __getattr__(name: str):
    if name == "app":  # the full tree, for tools that want the Typer object
        return build_app()
    raise AttributeError(name)


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


def _watchdog(reader: int) -> None:
    """Wakes on the signal byte the C-level handler writes, even while the main thread is
    stuck in a solver's C code (where no Python handler can run); gives the main thread
    GRACE_SECONDS to clean up, then ends the process itself."""
    while True:
        data = os.read(reader, 64)
        caught = [_SIGNALS[b] for b in data if b in _SIGNALS]
        if caught:
            time.sleep(GRACE_SECONDS)
            _interrupted(*caught[0])
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
    previous: dict = {sig: signal.getsignal(sig) for sig in _SIGNALS}
    if previous[signal.SIGINT] is not signal.SIG_IGN:  # e.g. started with nohup ... &
        signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGTERM, _on_signal)
    previous["wakeup"] = signal.set_wakeup_fd(_state["pipe"], warn_on_full_buffer=False)
    return previous


def _interrupted(message: str, code: int) -> int:
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


def _chosen(argv: list[str]) -> str | None:
    first = argv[0] if argv else None
    known = any(first == entry[0] for entry in ENTRIES) or first in puzzle_groups()
    return first if known else None


def _signal_seen(code: object) -> tuple[str, int] | None:
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


def _quick(args: list[str]) -> int | None:
    """What is answered before Typer loads (its import and parsing cost more than a small
    solve): --version, and `solve N [--json]` where auto runs a SAT solver
    (cli/bel/quick.py)."""
    if args == ["--version"]:
        print(version_line())
        return 0
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
        chosen = _chosen(args)
        app = build_app(chosen, listing=chosen is None)
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
        return _interrupted("interrupted", 130)


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
        code = getattr(exc, "exit_code", 130)
        code = _interrupted(_SIGNALS.get(code - 128, _SIGNALS[signal.SIGINT])[0], code)
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
        seen = _signal_seen(code)
        if seen is not None:
            code = _interrupted(*seen)
        if argv is not None and previous:  # in-process (tests): give the caller its handlers
            signal.set_wakeup_fd(previous.pop("wakeup", -1))
            for sig, handler in previous.items():
                signal.signal(sig, handler)
    code = code if isinstance(code, int) else 0
    if argv is None and code in (130, 143):
        _exit_now(code)
    sys.exit(code)


def _exit_now(code: int) -> None:
    """End an interrupted process without the interpreter's shutdown: the cleanup has run
    (finally blocks, `kill_descendants`), and a native solver thread still winding down (a
    cancelled HiGHS) would meet its static destructors there and abort the process."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, ValueError, OSError):
            stream.flush()
    os._exit(code)
