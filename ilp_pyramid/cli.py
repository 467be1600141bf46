"""The `ilp-pyramid` command line: Bel's Pyramid at the top level, one group per other puzzle."""

from __future__ import annotations

import os
import sys

import typer

try:  # Typer >= 0.20 vendors click; older ones depend on it.
    from typer._click import exceptions as click_exceptions
except ImportError:  # pragma: no cover
    from click import exceptions as click_exceptions

from ilp_pyramid import cli_common
from ilp_pyramid.bench import cli as bench_cli
from ilp_pyramid.errors import InputError, Interrupted, SolverError, one_line
from ilp_pyramid.puzzles.bel import cli as bel
from ilp_pyramid.puzzles.bel import hunt as bel_hunt
from ilp_pyramid.puzzles.bel import info as bel_info
from ilp_pyramid.puzzles.bel import pictures as bel_pictures
from ilp_pyramid.puzzles.iq import cli as iq_cli
from ilp_pyramid.puzzles.sudoku_cube import cli as sudoku_cli
from ilp_pyramid.puzzles.views import cli as views_cli

app = typer.Typer(
    name="ilp-pyramid",
    help="Cube-and-pyramid puzzles as integer programs: MIP (HiGHS, CBC) and SAT side by side.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=None,  # help texts hold square brackets ("ilp-pyramid[cpsat]"): no markup
)


def _version(value: bool) -> None:
    if value:
        from importlib import metadata

        try:
            version = metadata.version("ilp-pyramid")
        except metadata.PackageNotFoundError:  # run from a source tree that is not installed
            from ilp_pyramid import __version__ as version
        print(f"ilp-pyramid {version}")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit.")) -> None:
    """Cube-and-pyramid puzzles as integer programs: MIP (HiGHS, CBC) and SAT side by side."""


app.command("solve")(bel.solve)
app.command("verify")(bel.verify)
app.command("render")(bel_pictures.render)
app.command("export")(bel.export)
app.command("read-solution")(bel.read_solution)
app.command("models")(bel.models)
app.command("strategies")(bel_info.strategies)
app.command("info")(bel_info.info)
app.add_typer(bench_cli.app, name="bench")
app.command("hunt")(bel_hunt.hunt)
app.add_typer(views_cli.app, name="views")
app.add_typer(iq_cli.app, name="iq")
app.add_typer(sudoku_cli.app, name="sudoku-cube")
for _group in (bench_cli.app, views_cli.app, iq_cli.app, sudoku_cli.app):
    _group.rich_markup_mode = None


def main(argv: list[str] | None = None) -> None:
    """Entry point: every failure becomes one line on stderr and an exit code, never a traceback."""
    try:
        code = app(args=argv, prog_name="ilp-pyramid", standalone_mode=False)
        if code == 130 and not cli_common.reported:
            # Typer's answer to any KeyboardInterrupt: say which signal it was, once.
            from ilp_pyramid.backends import process

            raise Interrupted(process.last_signal or 2)
    except click_exceptions.NoArgsIsHelpError as exc:
        exc.show()
        code = 0
    except click_exceptions.ClickException as exc:
        message = one_line(exc.format_message().replace("\n", " "))
        ctx = getattr(exc, "ctx", None)
        hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
        print(f"error: {message}{hint}", file=sys.stderr)
        code = exc.exit_code
    except (getattr(click_exceptions, "Abort", typer.Abort), typer.Abort):  # vendored: no Abort
        print("error: interrupted", file=sys.stderr)
        code = 130
    except (InputError, SolverError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        code = exc.exit_code
    except KeyboardInterrupt as exc:  # errors.Interrupted carries 143 for SIGTERM
        print("error: interrupted", file=sys.stderr)
        code = getattr(exc, "exit_code", 130)
    except MemoryError:
        print("error: out of memory", file=sys.stderr)
        code = 1
    except Exception as exc:  # noqa: BLE001 - the one place that turns bugs into a line
        if os.environ.get("ILP_PYRAMID_DEBUG"):
            raise
        print(f"error: {type(exc).__name__}: {exc}", file=sys.stderr)
        code = 1
    sys.exit(code if isinstance(code, int) else 0)
