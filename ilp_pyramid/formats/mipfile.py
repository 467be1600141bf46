"""MIP model files: write a PuLP problem as LP or MPS (gzip when the name ends in .gz,
atomically), and read variable values back from a MIP solver's solution file.

Nothing here knows a puzzle: names are kept as the model gave them, and the reader takes the
names (a pattern or a set) the caller wants back.
"""

from __future__ import annotations

import math
import os
import re
import tempfile
from collections.abc import Container
from pathlib import Path
from typing import TYPE_CHECKING

from ilp_pyramid.formats.fileio import write_atomic

if TYPE_CHECKING:  # only the MIP path needs PuLP; the models load it
    import pulp

MIP_FORMATS = ("lp", "mps")


def format_from_name(path: str) -> str | None:
    name = path[:-3] if path.endswith(".gz") else path
    suffix = Path(name).suffix.lstrip(".").lower()
    return suffix or None


def mip_text(problem: pulp.LpProblem, fmt: str) -> str:
    """The LP or MPS text of `problem`, names kept as they are (so solutions read back)."""
    fd, tmp = tempfile.mkstemp(suffix=f".{fmt}")
    try:  # removed on every exit, KeyboardInterrupt included: a big model leaves no tmp*.mps
        os.close(fd)
        if fmt == "lp":
            problem.writeLP(tmp, writeSOS=0)
        else:
            problem.writeMPS(tmp, rename=0)
        return Path(tmp).read_text()
    finally:
        os.unlink(tmp)


def write_mip(problem: pulp.LpProblem, path: str, fmt: str) -> None:
    write_atomic(path, mip_text(problem, fmt))


def mps_stats(text: str) -> dict:
    """Rows, columns and non-zeros of an MPS text, counted from the text itself."""
    section, rows, columns, nonzeros = "", 0, set(), 0
    for line in text.splitlines():
        if not line or line.startswith("*"):
            continue
        if not line[0].isspace():
            section = line.split()[0]
            continue
        tokens = line.split()
        if section == "ROWS" and tokens[0] != "N":
            rows += 1
        elif section == "COLUMNS" and "MARKER" not in line:
            columns.add(tokens[0])
            nonzeros += (len(tokens) - 1) // 2
    return {"rows": rows, "columns": len(columns), "nonzeros": nonzeros}


# A HiGHS "pretty" solution (write_solution_style=1) is a table whose blank Status and Dual
# cells leave no fixed token position; its numbers are right-aligned under their header, so
# the Primal value is the token that ends where the header word "Primal" ends.
_PRETTY_HEADER = re.compile(r"^\s*Index\s+Status\b.*\bPrimal\b.*\bName\s*$")
# Where a solution file's variable part ends: HiGHS's row sections (raw and pretty).
_ROWS = re.compile(r"^\s*(# Rows\b|Rows\s*$|# Dual solution values)")


def read_mip_values(text: str, names: re.Pattern[str] | Container[str] | None = None
                    ) -> dict[str, float]:
    """Variable values from a MIP solution file, by variable name.

    Reads HiGHS's raw and "pretty" .sol files, CBC's solution file (`index name value
    reduced-cost`, `**` marking infeasible rows) and plain `name value` lines (Gurobi, SCIP
    and most others). `names` picks the variables: a compiled pattern a name must match in
    full, a set of names, or None for every name that has a value. Each line is read on its
    own, so a value is never taken from the next line; non-finite numbers are ignored.
    """
    wanted = _matcher(names)
    values: dict[str, float] = {}
    primal_end: int | None = None
    for line in text.splitlines():
        if _ROWS.match(line):
            break
        if _PRETTY_HEADER.match(line):
            primal_end = line.index("Primal") + len("Primal")
            continue
        tokens = [(m.group(), m.end()) for m in re.finditer(r"\S+", line)]
        if primal_end is not None:
            found = _pretty_value(tokens, primal_end, wanted)
        else:
            found = _plain_value([t for t, _ in tokens], wanted)
        if found is not None:
            values[found[0]] = found[1]
    return values


def _matcher(names):
    if names is None:
        return lambda name: _number(name) is None
    if isinstance(names, re.Pattern):
        return lambda name: names.fullmatch(name) is not None
    return lambda name: name in names


def _number(token: str) -> float | None:
    try:
        value = float(token)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _plain_value(tokens: list[str], wanted) -> tuple[str, float] | None:
    """`name value` anywhere on the line (after CBC's index and `**`): the first wanted name
    followed by a number."""
    for position, token in enumerate(tokens[:-1]):
        if wanted(token):
            value = _number(tokens[position + 1])
            return (token, value) if value is not None else None
    return None


def _pretty_value(tokens: list[tuple[str, int]], primal_end: int,
                  wanted) -> tuple[str, float] | None:
    if not tokens or not wanted(tokens[-1][0]):
        return None
    for token, end in tokens[:-1]:
        if end == primal_end:
            value = _number(token)
            return (tokens[-1][0], value) if value is not None else None
    return None
