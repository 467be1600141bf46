"""Where a family's time goes: of the wall seconds of its answered runs, the share of the
solver's own call, of building the model, of decoding and checking the answer, and of the
process's start-up and exit (everything the command's own clock does not see).

From the records alone (records.py): `solve_seconds`, `build_seconds` and `run_seconds` (the
command's whole solve path) beside `wall_seconds`; records written before those fields read
them from the run's --json kept in `result`. A run that reports no solver time or no solve
path is counted, not split.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from ilp_pyramid.bench.records import INFEASIBLE, SOLVED, plain_number
from ilp_pyramid.bench.scores import family_of

PARTS = ("solver", "build", "check", "startup")
PART_HEADERS = {"solver": "solver", "build": "build", "check": "decode and check",
                "startup": "start-up and exit"}


def _reported(record: dict, name: str, *fallbacks: str) -> float | None:
    """A time the run reported: the record's field, else its --json's (`result`)."""
    value = record.get(name)
    if plain_number(value):
        return float(value)
    result = record.get("result")
    if isinstance(result, dict):
        for key in (name, *fallbacks):
            if plain_number(result.get(key)):
                return float(result[key])
    return None


def run_parts(record: dict) -> dict[str, float] | None:
    """One run's wall seconds in its parts (they add up to the wall time), or None where the
    run does not report its solver time and its solve path."""
    wall = record.get("wall_seconds")
    solve = _reported(record, "solve_seconds")
    path = _reported(record, "run_seconds", "seconds", "total_seconds")
    if not plain_number(wall) or solve is None or path is None:
        return None
    build = _reported(record, "build_seconds") or 0.0
    solve = min(solve, wall)
    build = min(build, wall - solve)
    path = min(max(path, solve + build), wall)
    return {"solver": solve, "build": build, "check": path - solve - build,
            "startup": wall - path}


def time_split(records: Sequence[dict]) -> list[dict]:
    """Per family (in order of first appearance), over its answered runs (solved or proved
    infeasible): how many, how many report their parts, the wall seconds of those, each
    part's share of them, and the median over runs of the share outside the solver."""
    families: dict[str, list[dict]] = {}
    for record in records:
        if record["status"] in (SOLVED, INFEASIBLE):
            families.setdefault(family_of(record), []).append(record)
    rows = []
    for family, runs in families.items():
        split = [parts for r in runs if (parts := run_parts(r)) is not None]
        wall = sum(sum(parts.values()) for parts in split)
        outside = [1 - parts["solver"] / total for parts in split
                   if (total := sum(parts.values())) > 0]
        rows.append({
            "family": family, "runs": len(runs), "split_runs": len(split),
            "wall_seconds": wall,
            "shares": {name: (sum(p[name] for p in split) / wall if wall else None)
                       for name in PARTS},
            "median_outside_solver": statistics.median(outside) if outside else None,
        })
    return rows


def split_markdown(rows: Sequence[dict]) -> list[str]:
    """The split as the lines of a Markdown table, one row per family."""
    headers = ["family", "answered runs", "split", "wall s", *PART_HEADERS.values(),
               "median run outside the solver"]
    lines = ["| " + " | ".join(headers) + " |", "|---|" + "---:|" * (len(headers) - 1)]
    for row in rows:
        cells = [row["family"], str(row["runs"]), str(row["split_runs"]),
                 f"{row['wall_seconds']:.1f}" if row["split_runs"] else "-",
                 *(_percent(row["shares"][name]) for name in PARTS),
                 _percent(row["median_outside_solver"])]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _percent(share: float | None) -> str:
    return "-" if share is None else f"{100 * share:.0f}%"
