"""Tables and plots, computed from the records of a results file and nothing else.

Two views: the Bel grid's own table (solver-reported solve seconds, model sizes), and the
per-configuration summary every README table uses: runs, solved, min / median / max wall
seconds of the whole process, median CPU seconds, and the load-average range the runs met.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Sequence
from pathlib import Path

from rich import box
from rich.table import Table

from ilp_pyramid import backends
from ilp_pyramid.bench.bel_grid import RunSpec
from ilp_pyramid.bench.records import KILLED, SOLVED, TIMEOUT

# What makes a configuration: a record's label (template runs) and its grid point.
CONFIG_FIELDS = ("label", "n", "solver", "formulation", "strategies", "card")



def summarize(specs: Sequence[RunSpec], records: dict[str, dict]) -> list[dict]:
    """One row per (size, solver, formulation, strategies, card) over the grid's records."""
    groups: dict[tuple, list[dict]] = {}
    for spec in specs:
        if spec.key() in records:
            groups.setdefault(spec.group(), []).append(records[spec.key()])
    rows = []
    for (n, solver, formulation, strategies, card), runs in groups.items():
        solved = [r for r in runs if r["status"] == SOLVED]
        times = sorted(float(r["seconds"]) for r in solved if r.get("seconds") is not None)
        cpu = [float(r["cpu_seconds"]) for r in solved if r.get("cpu_seconds") is not None]
        sized = [r for r in runs if r.get("variables") is not None]
        peaks = [r["peak_rss_mb"] for r in runs if r.get("peak_rss_mb") is not None]
        rows.append({
            "n": n,
            "solver": solver,
            "family": backends.kind(solver),
            "formulation": formulation,
            "strategies": list(strategies),
            "card": card,
            "runs": len(runs),
            "solved": len(solved),
            "timeouts": sum(r["status"] in (TIMEOUT, KILLED) for r in runs),
            "errors": sum(r["status"] not in (SOLVED, TIMEOUT, KILLED) for r in runs),
            "min_seconds": times[0] if times else None,
            "median_seconds": statistics.median(times) if times else None,
            "max_seconds": times[-1] if times else None,
            "median_cpu_seconds": statistics.median(cpu) if cpu else None,
            "variables": sized[0]["variables"] if sized else None,
            "constraints": sized[0]["constraints"] if sized else None,
            "peak_rss_mb": max(peaks) if peaks else None,
        })
    return rows


def config_of(record: dict) -> tuple:
    """A record's configuration: its label and grid point (strategies as 'A+B')."""
    values = []
    for name in CONFIG_FIELDS:
        value = record.get(name)
        if isinstance(value, list):
            value = "+".join(map(str, value))
        values.append("" if value is None else value)
    return tuple(values)


def summarize_records(records: Sequence[dict]) -> list[dict]:
    """One row per configuration, in order of first appearance: runs, solved, wall seconds
    (min / median / max over solved runs), median CPU seconds, load average range (1 min)."""
    groups: dict[tuple, list[dict]] = {}
    for record in records:
        groups.setdefault(config_of(record), []).append(record)
    rows = []
    for config, runs in groups.items():
        solved = [r for r in runs if r["status"] == SOLVED]
        wall = sorted(r["wall_seconds"] for r in solved if r.get("wall_seconds") is not None)
        cpu = [r["cpu_seconds"] for r in solved if r.get("cpu_seconds") is not None]
        solve = [r["seconds"] for r in solved if r.get("seconds") is not None]
        sized = [r for r in runs if _is_number(r.get("variables"))
                 and _is_number(r.get("constraints"))]
        peaks = [r["peak_rss_mb"] for r in runs if r.get("peak_rss_mb") is not None]
        loads = [load[0] for r in runs for load in (r.get("load_before"), r.get("load_after"))
                 if _is_load(load)]
        rows.append({
            **dict(zip(CONFIG_FIELDS, config, strict=True)),
            "family": _family(runs[0].get("solver")) if not runs[0].get("label") else None,
            "runs": len(runs),
            "solved": len(solved),
            "timeouts": sum(r["status"] in (TIMEOUT, KILLED) for r in runs),
            "min_seconds": wall[0] if wall else None,
            "median_seconds": statistics.median(wall) if wall else None,
            "max_seconds": wall[-1] if wall else None,
            "median_cpu_seconds": statistics.median(cpu) if cpu else None,
            "median_solve_seconds": statistics.median(solve) if solve else None,
            "variables": sized[0]["variables"] if sized else None,
            "constraints": sized[0]["constraints"] if sized else None,
            "peak_rss_mb": max(peaks) if peaks else None,
            "load_min": min(loads) if loads else None,
            "load_max": max(loads) if loads else None,
            "legacy": sum(bool(r.get("legacy")) for r in runs),
        })
    return rows


def _is_load(value) -> bool:
    return isinstance(value, list) and bool(value) and _is_number(value[0])


def _is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _family(solver) -> str | None:
    try:
        return backends.kind(solver) if isinstance(solver, str) and solver else None
    except ValueError:
        return None


SUMMARY_HEADERS = {"label": "run", "n": "N", "solver": "solver", "formulation": "formulation",
                   "strategies": "strategies", "card": "card"}


def summary_cells(rows: Sequence[dict], sizes: bool = False
                  ) -> tuple[list[str], list[list[str]]]:
    """Headers and cells of the summary table; configuration columns no row uses are left out.
    With `sizes` (the `grid` table): also the solver's own median solve seconds, the model's
    variables and constraints (clauses for SAT) and the peak memory."""
    used = [name for name in CONFIG_FIELDS if any(row[name] != "" for row in rows)]
    extra = ["median solve s", "vars", "cons", "peak MB"] if sizes else []
    headers = [SUMMARY_HEADERS[name] for name in used] + [
        "runs", "solved", "min wall s", "median wall s", "max wall s", "median CPU s",
        *extra, "load (1 min)"]
    cells = []
    for row in rows:
        load = "-" if row["load_min"] is None else \
            f"{row['load_min']:.2f}-{row['load_max']:.2f}"
        if row["legacy"]:
            load += f" ({row['legacy']} legacy)" if row["load_min"] is not None else " (legacy)"
        cells.append([str(row[name]) if row[name] != "" else "-" for name in used] + [
            str(row["runs"]), str(row["solved"]), fmt_seconds(row["min_seconds"]),
            fmt_seconds(row["median_seconds"]), fmt_seconds(row["max_seconds"]),
            fmt_seconds(row["median_cpu_seconds"]),
            *([fmt_seconds(row["median_solve_seconds"]), _int(row["variables"]),
               _int(row["constraints"]), _int(row["peak_rss_mb"])] if sizes else []), load])
    return headers, cells


def summary_table(rows: Sequence[dict], title: str) -> Table:
    headers, cells = summary_cells(rows)
    out = Table(title=title, box=box.SIMPLE_HEAD,
                caption="wall and CPU seconds of the whole process, over solved runs")
    for name in headers:
        out.add_column(name, no_wrap=True,
                       justify="left" if name in ("run", "solver", "formulation",
                                                  "strategies", "card") else "right")
    for row in cells:
        out.add_row(*row)
    return out


def table(rows: Sequence[dict], time_limit: float) -> Table:
    out = Table(title=f"Bel's Pyramid, limit {time_limit:g} s; seconds over solved runs",
                caption="t/o: timeouts and killed runs; med cpu: CPU seconds of the whole run "
                        "(start, build, solve); cons: clauses (SAT) or constraints (MIP); "
                        "MB: peak resident memory", box=box.SIMPLE_HEAD)
    for name in ("N", "solver", "formulation", "solved", "t/o", "min s", "med s", "max s",
                 "med cpu", "vars", "cons", "MB"):
        out.add_column(name, justify="left" if name in ("solver", "formulation") else "right",
                       no_wrap=True)
    for row in rows:
        label = row["formulation"]
        if row["strategies"]:
            label += "+" + "+".join(row["strategies"])
        if row["card"]:
            label += f" ({row['card']})"
        out.add_row(str(row["n"]), row["solver"], label, f"{row['solved']}/{row['runs']}",
                    str(row["timeouts"]), fmt_seconds(row["min_seconds"]),
                    fmt_seconds(row["median_seconds"]), fmt_seconds(row["max_seconds"]),
                    fmt_seconds(row["median_cpu_seconds"]),
                    _int(row["variables"]), _int(row["constraints"]),
                    _int(row["peak_rss_mb"]))
    return out


def fmt_seconds(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}" if value < 100 else f"{value:.0f}"


def _int(value) -> str:
    return "-" if value is None else f"{round(value):,}"


def _series_name(row: dict) -> str:
    parts = [row["label"]] if row.get("label") else []
    if row.get("solver") and not row.get("label"):
        parts.append(row["solver"])
    if row.get("formulation") and row["formulation"] != "counts":
        parts.append(f"({row['formulation']})")
    strategies = row.get("strategies")
    if strategies:
        parts.append("+" + (strategies if isinstance(strategies, str) else "+".join(strategies)))
    return " ".join(parts) or "runs"


def plot(rows: Sequence[dict], time_limit: float, path: Path,
         ylabel: str = "median solve time, s",
         title: str = "Bel's Pyramid: MIP (dashed) vs SAT (solid)") -> None:
    """Median time (bars: min..max) against N per series, log scale; x: no solution."""
    from ilp_pyramid.figures import pyplot

    plt = pyplot()

    series: dict[str, list[dict]] = {}
    rows = [row for row in rows if isinstance(row.get("n"), int)]  # x: N, so runs with an N
    for row in rows:
        series.setdefault(_series_name(row), []).append(row)
    figure, axes = plt.subplots(figsize=(7, 4.5), dpi=120)
    for index, (name, points) in enumerate(sorted(series.items())):
        points.sort(key=lambda r: r["n"])
        style = "--" if points[0].get("family") == "mip" else "-"
        solved = [r for r in points if r["median_seconds"]]
        failed = [r["n"] for r in points if not r["median_seconds"]]
        middle = [max(r["median_seconds"], 1e-3) for r in solved]
        spread = [[m - max(r["min_seconds"], 1e-3) for r, m in zip(solved, middle, strict=True)],
                  [max(r["max_seconds"], 1e-3) - m for r, m in zip(solved, middle, strict=True)]]
        if solved:
            line = axes.errorbar([r["n"] for r in solved], middle, yerr=spread, fmt=style,
                                 marker="o", capsize=3, label=name).lines[0]
        else:
            (line,) = axes.plot([], [], style, marker="o", label=name)
        if failed:
            # side by side, so that several solvers failing at one N stay visible
            shift = 0.04 * (index - (len(series) - 1) / 2)
            axes.plot([n + shift for n in failed], [time_limit] * len(failed), linestyle="none",
                      marker="x", markersize=9, markeredgewidth=2, color=line.get_color())
    if any(not r["median_seconds"] for r in rows):
        axes.axhline(time_limit, color="grey", linewidth=0.8, linestyle=":")
        axes.annotate(f"time limit {time_limit:g} s (x: no solution)", (0.01, 0.97),
                      xycoords="axes fraction", va="top", fontsize=8, color="grey")
    axes.set_yscale("log")
    axes.set_xlabel("N (levels)")
    axes.set_ylabel(ylabel)
    axes.set_xticks(sorted({r["n"] for r in rows}))
    axes.set_title(title)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp.png")
    figure.savefig(tmp)
    plt.close(figure)
    os.replace(tmp, path)


