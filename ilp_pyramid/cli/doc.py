"""The table of every option of the command line, read from the command tree itself.

    python -m ilp_pyramid.cli.doc > docs/cli.md

Each row is one parameter as the command tree defines it (flags, type, range, default, help),
the same fields `--help` draws; tests/test_cli_vocabulary.py regenerates the table, checks each
row against the real `--help` page, and checks the vocabulary: one long option per short flag,
one short flag and one type per long option.
Any command added to the tree (a new group, a new puzzle) is in the table without changes here.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ilp_pyramid.cli import build_app

PROG = "ilp-pyramid"

HEADER = """\
# Command-line options

Every option of every command, as its `--help` shows it. Generated from the command tree:
`python -m ilp_pyramid.cli.doc > docs/cli.md` (a test fails when this file and `--help`
disagree).

The vocabulary is the same everywhere: a short flag always stands for the same long option,
and a long option has one type and one meaning in every command:

- `-o/--output FILE`: the file a command writes (`.gz`: gzip); `-f/--format`: that file's
  format (`lp`, `mps`, `cnf`; default: from the file name).
- `--json`: one JSON object on stdout instead of text; every command that gives a result
  takes it.
- `--seed N`: an integer random seed (views' battery puzzles are `--number DIGITS`).
- `--time-limit SECONDS`: wall-clock seconds, a finite number >= 0.
- `-j/--jobs N`: worker processes or parallel searches, N >= 1, capped at the cores this
  process may use; the default is one per core unless the command says otherwise.
- `--threads N`: threads of one solver, N >= 1, capped at the cores.
- `-s/--solver NAME`: one solver by name (`bench`: a comma-separated list of them, one grid
  dimension); the names each command takes are in its row, from the backends' registries.
- `-v/--verbose`: the solver's log, on stderr (stdout stays the result's).

Arguments are listed as `NAME` in the long-option column.
"""


@dataclass(frozen=True)
class Row:
    """One parameter of one command: what its `--help` line says, in columns."""

    command: str  # "ilp-pyramid views solve"
    short: tuple[str, ...]  # ("-o",)
    long: tuple[str, ...]  # ("--output",), ("--check", "--no-check"), or ("SPEC",)
    shown: str  # the value's name and range: "PATH", "DIGITS", "INT x>=1", "" for a flag
    kind: str  # the type, normalised: int, float, text, path, flag, choice, ...
    repeatable: bool
    default: str  # "", "required" or the default
    meaning: str
    argument: bool


def commands(root: Any = None) -> Iterator[tuple[Any, Any]]:
    """(command, its context) for every command of the tree that is not hidden, groups
    included (a group's callback has options of its own), parents before children."""
    if root is None:
        root = _tree()
    yield from _walk(root, root.context_class(root, info_name=PROG))


def _tree() -> Any:
    import typer.main


    return typer.main.get_command(build_app())


def _walk(command: Any, ctx: Any) -> Iterator[tuple[Any, Any]]:
    yield command, ctx
    for name in getattr(command, "list_commands", lambda _ctx: [])(ctx):
        sub = command.get_command(ctx, name)
        if sub is None or getattr(sub, "hidden", False):
            continue
        yield from _walk(sub, sub.context_class(sub, info_name=name, parent=ctx))


def rows(root: Any = None) -> list[Row]:
    """Every parameter of every command (not --help, not hidden ones)."""
    found = []
    for command, ctx in commands(root):
        for param in command.get_params(ctx):
            if getattr(param, "hidden", False) or "--help" in param.opts:
                continue
            found.append(_row(ctx.command_path, param))
    return found


def _row(path: str, param: Any) -> Row:
    # From the parameter's own fields, not its rendered help line: the table must not change
    # with the Typer version's way of drawing a range or a metavar.
    argument = getattr(param, "param_type_name", "") == "argument"
    flags = list(param.opts) + list(getattr(param, "secondary_opts", []))
    kind = type_name(param)
    shown = "" if kind == "flag" else kind.upper()
    if param.metavar and not argument:  # an argument's metavar is its name, in `long`
        shown = param.metavar
    limits = _limits(param)
    return Row(command=path,
               short=tuple(flag for flag in flags if flag.startswith("-")
                           and not flag.startswith("--")),
               long=(param.name.upper(),) if argument else
               tuple(flag for flag in flags if flag.startswith("--")),
               shown=" ".join(part for part in (shown, limits) if part),
               kind=kind,
               repeatable=bool(getattr(param, "multiple", False)),
               default=_default(param),
               meaning=" ".join((getattr(param, "help", None) or "").split()),
               argument=argument)


def _limits(param: Any) -> str:
    low = getattr(param, "min", None)
    high = getattr(param, "max", None)
    if low is None and high is None:  # older Typer: the range is click's type
        kind = getattr(param, "type", None)
        low, high = getattr(kind, "min", None), getattr(kind, "max", None)
    if low is None and high is None:
        return ""
    if high is None:
        return f"x>={low}"
    return f"x<={high}" if low is None else f"{low}<=x<={high}"


def _default(param: Any) -> str:
    shown = getattr(param, "show_default", None)
    if isinstance(shown, str):
        return shown
    if param.required:
        return "required"
    value = param.default
    if value in (None, False, (), []) or callable(value):
        return ""
    if value is True and getattr(param, "secondary_opts", None):
        return param.opts[0]
    return str(value)


_TYPES = {"str": "text", "string": "text", "integer": "int", "boolean": "flag", "bool": "flag",
          "pathlib.path": "path"}


def type_name(param: Any) -> str:
    """The parameter's value type, the same word whichever Typer/click spells it."""
    if getattr(param, "is_flag", False):
        return "flag"
    bare = getattr(param, "bare_type", None)  # Typer with its own click
    if callable(bare):
        name = bare()
    else:
        name = getattr(param.type, "name", type(param.type).__name__)
    name = name.lower()
    name = re.sub(r"^list\[(.*)\]$", r"\1", name)  # repeatable: said by Row.repeatable
    name = name.removesuffix(" range")
    return _TYPES.get(name, name)


def _cell(text: str) -> str:
    return text.replace("|", "\\|") if text else ""


def markdown(root: Any = None) -> str:
    """docs/cli.md: the table of every option, one row per parameter, by command."""
    lines = [HEADER, "| command | short | long | type | default | meaning |",
             "|---|---|---|---|---|---|"]
    for row in rows(root):
        kind = row.kind + (", repeatable" if row.repeatable else "")
        shown = f"`{row.shown}`" + (", repeatable" if row.repeatable else "") \
            if row.shown else kind
        lines.append("| " + " | ".join([
            f"`{row.command}`",
            ", ".join(f"`{flag}`" for flag in row.short),
            " / ".join(f"`{flag}`" for flag in row.long) + (" (argument)" if row.argument
                                                            else ""),
            _cell(shown), _cell(f"`{row.default}`" if row.default else ""),
            _cell(row.meaning)]) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    sys.stdout.write(markdown())


if __name__ == "__main__":
    main()
