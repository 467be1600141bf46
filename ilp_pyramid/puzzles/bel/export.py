"""Write a Bel model as LP or MPS (gzip when the name ends in .gz), atomically."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pulp

from ilp_pyramid.fileio import write_atomic

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
