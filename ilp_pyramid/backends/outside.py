"""Outside solvers defined: `NAME=FORMAT:COMMAND` read into a solver line (external.py's
`OutsideSolver`) and added to the one solver table, so that `solve`, `bench` and
`ilp_pyramid.solve` take it like any other. The table's side; running the program is
external.py's."""

from __future__ import annotations

import re
import shlex

from ilp_pyramid.backends import solvers
from ilp_pyramid.backends.external import FORMATS, PLACEHOLDERS, OutsideSolver
from ilp_pyramid.errors import InputError

_NAME = re.compile(r"[a-z][a-z0-9_.+-]{0,39}")
_SPEC = re.compile(r"^\s*([^=\s]+)\s*=\s*([A-Za-z]+)\s*:(.*)$", re.S)


def parse_spec(text: str) -> OutsideSolver:
    """`NAME=FORMAT:COMMAND` as a solver line; InputError (one line) for anything else."""
    if not isinstance(text, str):
        raise InputError(f"an outside solver is NAME=FORMAT:COMMAND (got {type(text).__name__})")
    match = _SPEC.match(text)
    if match is None:
        raise InputError(f"--solver-command {text[:60]!r}: expected NAME=FORMAT:COMMAND, e.g. "
                         f"'picosat=cnf:picosat {{file}}'")
    return outside_solver(*match.groups())


def outside_solver(name: str, format: str, command: str) -> OutsideSolver:  # noqa: A002
    """The solver line of an outside program; InputError (one line) for a name the table's
    own solvers have, a format other than cnf, wcnf or mps, or a command without `{file}`
    (an mps command without `{solution}`) or with another placeholder."""
    name, format = str(name).strip().lower(), str(format).strip().lower()  # noqa: A001
    if _NAME.fullmatch(name) is None:
        raise InputError(f"outside solver name {name[:40]!r}: a letter, then letters, digits "
                         f"or _.+- (at most 40)")
    if name in solvers.builtin_names():
        raise InputError(f"outside solver name {name!r} is one of the package's own solvers")
    if format not in FORMATS:
        raise InputError(f"outside solver {name!r}: format {format!r} is none of "
                         f"{', '.join(FORMATS)}")
    try:
        words = shlex.split(command)
    except ValueError as exc:
        raise InputError(f"outside solver {name!r}: command {command[:60]!r}: {exc}") from None
    if not words:
        raise InputError(f"outside solver {name!r}: no command")
    wanted = PLACEHOLDERS if format == "mps" else PLACEHOLDERS[:1]
    for placeholder in wanted:
        if placeholder not in command:
            raise InputError(f"outside solver {name!r}: its command has no {placeholder} "
                             f"(the {'instance' if placeholder == '{file}' else 'solution'} "
                             f"file)")
    odd = [p for p in re.findall(r"\{[^{}]*\}", command) if p not in wanted]
    if odd:
        raise InputError(f"outside solver {name!r}: unknown placeholder {odd[0]} (a {format} "
                         f"command takes {' and '.join(wanted)})")
    family, native = FORMATS[format]
    return OutsideSolver(name, family, (native,), "ilp_pyramid.backends.external",
                         note=f"outside: {command.strip()}", format=format,
                         command=command.strip())


def register(spec: str | OutsideSolver) -> OutsideSolver:
    """Parse `spec` (NAME=FORMAT:COMMAND) if it is text and add it to the solver table."""
    entry = spec if isinstance(spec, OutsideSolver) else parse_spec(spec)
    solvers.register(entry)
    return entry


def spec_of(name: str) -> str | None:
    """The NAME=FORMAT:COMMAND of a registered outside solver; None for the package's own."""
    entry = solvers.solver(name)
    return entry.spec if isinstance(entry, OutsideSolver) else None
