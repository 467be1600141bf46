"""Tables and plots, computed from the records of a results file and nothing else.

One summary per configuration, which every table uses: runs, solved, min / median / max wall
seconds of the whole process, median CPU seconds, the solver's own solve seconds and model
sizes where the run reported them, and the load-average range the runs met. A configuration
is a record's label (template runs), puzzle, grid point (`params`), solver and the options
that shaped its model (`model_options`: a column per option, after the params; a param of
the same name is the same column): the columns come from the records, so a puzzle's own
params and options are columns without the bench knowing them. A record without an option
another record has shows "-" there.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Sequence
from pathlib import Path

from rich import box
from rich.table import Table

from ilp_pyramid import backends
from ilp_pyramid.bench.records import INFEASIBLE, SOLVED, TIMEOUTS, solver_seconds
from ilp_pyramid.errors import InputError
from ilp_pyramid.figures import pyplot

# Fields of every record's configuration besides its params (the solver goes after the
# first param, the size: N, solver, formulation ... as tables have always read).
OUTER_FIELDS = ("label", "puzzle")
# Bel-grid records from before `params` held their grid point at the top level.
LEGACY_PARAMS = ("n", "formulation", "strategies", "card")
# Configuration columns whose values are names, never numbers (left-aligned).
TEXT_COLUMNS = ("label", "puzzle", "solver", "formulation", "strategies", "strategy", "card")
# Fields of a summary row: a model option of that name would shadow one, so is no column.
ROW_FIELDS = frozenset({"config", "family", "runs", "solved", "infeasible", "timeouts", "errors",
                        "min_seconds", "median_seconds", "max_seconds", "median_cpu_seconds",
                        "min_solve_seconds", "median_solve_seconds", "max_solve_seconds",
                        "variables", "constraints", "peak_rss_mb", "load_min", "load_max",
                        "legacy"})


def params_of(record: dict) -> dict:
    """A record's grid point: its `params`, or (records from before) its top-level fields."""
    params = record.get("params")
    if isinstance(params, dict):
        return params
    return {name: record[name] for name in LEGACY_PARAMS if name in record}


def model_options_of(record: dict) -> dict:
    """The options that shaped a record's model ({} for a record that names none)."""
    options = record.get("model_options")
    return options if isinstance(options, dict) else {}


def config_fields(records: Sequence[dict]) -> list[str]:
    """The configuration columns of some records: label, puzzle, the params in order of first
    appearance with the solver after the first of them, then the model options that no param
    names (in order of first appearance)."""
    names: dict[str, None] = {}
    for record in records:
        names.update(dict.fromkeys(params_of(record)))
    params = [name for name in names if name not in (*OUTER_FIELDS, "solver")]
    options: dict[str, None] = {}
    for record in records:
        options.update(dict.fromkeys(model_options_of(record)))
    options = {name: None for name in options
               if name not in names and name not in (*OUTER_FIELDS, "solver", *ROW_FIELDS)}
    return [*OUTER_FIELDS, *params[:1], "solver", *params[1:], *options]


def config_value(record: dict, name: str):
    """One configuration value of a record, as tables show it ('' for none; lists as A+B):
    its param of that name where it has one (not null), else its model option."""
    if name in (*OUTER_FIELDS, "solver"):
        value = record.get(name)
    else:
        value = params_of(record).get(name)
        if value is None:
            value = model_options_of(record).get(name)
    if isinstance(value, list):
        value = "+".join(map(str, value))
    return "" if value is None else value


def config_of(record: dict, fields: Sequence[str]) -> tuple:
    """A record's configuration: its values of `fields` (see config_fields)."""
    return tuple(config_value(record, name) for name in fields)


def summarize_records(records: Sequence[dict]) -> list[dict]:
    """One row per configuration, in order of first appearance: runs, solved, infeasible, wall
    seconds (min / median / max over the answered runs: solved, or answered infeasible),
    median CPU seconds, load average range (1 min).

    A row holds its configuration twice: under `config` (column -> value, in column order)
    and flat, by column name, for readers of the JSON."""
    fields = config_fields(records)
    groups: dict[tuple, list[dict]] = {}
    for record in records:
        groups.setdefault(config_of(record, fields), []).append(record)
    rows = []
    for config, runs in groups.items():
        solved = [r for r in runs if r["status"] == SOLVED]
        # An infeasible answer is an answer (a generated instance may have none): its times
        # count beside the solved runs'.
        answered = [r for r in runs if r["status"] in (SOLVED, INFEASIBLE)]
        wall = sorted(r["wall_seconds"] for r in answered if r.get("wall_seconds") is not None)
        cpu = [r["cpu_seconds"] for r in answered if r.get("cpu_seconds") is not None]
        solve = sorted(t for r in answered if (t := solver_seconds(r)) is not None)
        sized = [r for r in runs if _is_number(r.get("variables"))
                 and _is_number(r.get("constraints"))]
        peaks = [r["peak_rss_mb"] for r in runs if r.get("peak_rss_mb") is not None]
        loads = [load[0] for r in runs for load in (r.get("load_before"), r.get("load_after"))
                 if _is_load(load)]
        columns = dict(zip(fields, config, strict=True))
        rows.append({
            **columns,
            "config": columns,
            "family": _family(runs[0].get("solver")) if not runs[0].get("label") else None,
            "runs": len(runs),
            "solved": len(solved),
            "infeasible": len(answered) - len(solved),
            "timeouts": sum(r["status"] in TIMEOUTS for r in runs),
            "errors": sum(r["status"] not in (SOLVED, INFEASIBLE, *TIMEOUTS) for r in runs),
            "min_seconds": wall[0] if wall else None,
            "median_seconds": statistics.median(wall) if wall else None,
            "max_seconds": wall[-1] if wall else None,
            "median_cpu_seconds": statistics.median(cpu) if cpu else None,
            "min_solve_seconds": solve[0] if solve else None,
            "median_solve_seconds": statistics.median(solve) if solve else None,
            "max_solve_seconds": solve[-1] if solve else None,
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


def line_style(solver: object) -> str:
    """A plot's line for a solver: dashed for one that reads MIP models, solid for the rest
    and for a label that names no solver ("solver/..." reads its first part)."""
    try:
        entry = backends.solver_of(solver.split("/")[0]) if isinstance(solver, str) else None
    except InputError:
        entry = None
    return "--" if entry is not None and entry.reads("mip") else "-"


def _family(solver) -> str | None:
    try:
        return backends.kind(solver) if isinstance(solver, str) and solver else None
    except ValueError:
        return None


SUMMARY_HEADERS = {"label": "run", "n": "N"}


def summary_columns(rows: Sequence[dict]) -> list[str]:
    """The configuration columns some row uses (a value other than ''), in column order."""
    names: dict[str, None] = {}
    for row in rows:
        names.update(dict.fromkeys(row["config"]))
    return [name for name in names if any(row["config"].get(name, "") != "" for row in rows)]


def summary_cells(rows: Sequence[dict], sizes: bool = False
                  ) -> tuple[list[str], list[list[str]]]:
    """Headers and cells of the summary table; configuration columns no row uses are left out.
    With `sizes` (the `grid` table): also the solver's own solve seconds (median, and the
    fastest and slowest run: the spread over repeats and seeds), the model's variables and
    constraints (clauses for SAT) and the peak memory."""
    used = summary_columns(rows)
    extra = ["median solve s", "solve s min-max", "vars", "cons", "peak MB"] if sizes else []
    # Shown where some run answered infeasible; the times are then over both kinds of answer.
    infeasible = any(row.get("infeasible") for row in rows)
    headers = [SUMMARY_HEADERS.get(name, name) for name in used] + [
        "runs", "solved", *["infeasible"] * infeasible, "min wall s", "median wall s",
        "max wall s", "median CPU s", *extra, "load (1 min)"]
    cells = []
    for row in rows:
        load = "-" if row["load_min"] is None else \
            f"{row['load_min']:.2f}-{row['load_max']:.2f}"
        if row["legacy"]:
            load += f" ({row['legacy']} legacy)" if row["load_min"] is not None else " (legacy)"
        config = [row["config"].get(name, "") for name in used]
        cells.append([str(value) if value != "" else "-" for value in config] + [
            str(row["runs"]), str(row["solved"]),
            *[str(row.get("infeasible", 0))] * infeasible, fmt_seconds(row["min_seconds"]),
            fmt_seconds(row["median_seconds"]), fmt_seconds(row["max_seconds"]),
            fmt_seconds(row["median_cpu_seconds"]),
            *([fmt_seconds(row["median_solve_seconds"]),
               _spread(row["min_solve_seconds"], row["max_solve_seconds"]),
               _int(row["variables"]), _int(row["constraints"]), _int(row["peak_rss_mb"])]
              if sizes else []), load])
    return headers, cells


def text_headers(headers: Sequence[str], cells: Sequence[Sequence[str]],
                 columns: int) -> set[str]:
    """Of the first `columns` headers (the configuration), those that hold names rather than
    numbers: the known ones, and any with a cell that is no number."""
    text = {SUMMARY_HEADERS.get(name, name) for name in TEXT_COLUMNS}
    for index, header in enumerate(headers[:columns]):
        if header not in text and any(not _numeric_cell(row[index]) for row in cells):
            text.add(header)
    return text & set(headers[:columns])


def _numeric_cell(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return cell == "-"
    return True


def summary_table(rows: Sequence[dict], title: str, sizes: bool = False) -> Table:
    headers, cells = summary_cells(rows, sizes)
    text = text_headers(headers, cells, len(summary_columns(rows)))
    out = Table(title=title, box=box.SIMPLE_HEAD,
                caption="wall and CPU seconds of the whole process, over answered runs (solved or "
                        "infeasible)"
                        + ("; solve s: the solver's own; cons: clauses (SAT) or constraints "
                           "(MIP); MB: peak resident memory" if sizes else ""))
    for name in headers:
        out.add_column(name, no_wrap=True, justify="left" if name in text else "right")
    for row in cells:
        out.add_row(*row)
    return out


def _spread(low: float | None, high: float | None) -> str:
    return "-" if low is None or high is None else f"{fmt_seconds(low)}-{fmt_seconds(high)}"


def fmt_seconds(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}" if value < 100 else f"{value:.0f}"


def _int(value) -> str:
    return "-" if value is None else f"{round(value):,}"


def _x_field(rows: Sequence[dict]) -> str | None:
    """The axis of a plot: the first configuration column with whole numbers (the size)."""
    for name in summary_columns(rows):
        if name not in (*OUTER_FIELDS, "solver") and any(
                _is_size(row["config"].get(name)) for row in rows):
            return name
    return None


def _is_size(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _series_name(row: dict, varying: Sequence[str]) -> str:
    config = row["config"]
    parts = [str(config["label"])] if config.get("label") else []
    if config.get("solver") and not config.get("label"):
        parts.append(str(config["solver"]))
    parts += [f"({config[name]})" if name != "strategies" else f"+{config[name]}"
              for name in varying if config.get(name, "") != ""]
    return " ".join(parts) or "runs"


def plot(rows: Sequence[dict], time_limit: float, path: Path,
         ylabel: str = "median wall time of the whole run, s",
         title: str = "median wall time", solve_seconds: bool = False) -> None:
    """Median time (bars: min..max) against the size per series (one per configuration but
    the size), log scale; x: no solution. `solve_seconds`: the solver's own times (where
    every run reported them), else the wall time of the whole run."""

    plt = pyplot()

    x = _x_field(rows)
    if x is None:
        raise ValueError("no configuration column holds a size to plot against")
    rows = [row for row in rows if _is_size(row["config"].get(x))]  # runs with a size
    metric = "solve_seconds" if solve_seconds else "seconds"
    lows, middles, highs = f"min_{metric}", f"median_{metric}", f"max_{metric}"
    # Columns that tell series apart; one value everywhere names no series.
    varying = [name for name in summary_columns(rows)
               if name not in (*OUTER_FIELDS, "solver", x)
               and len({str(row["config"].get(name, "")) for row in rows}) > 1]
    series: dict[str, list[dict]] = {}
    for row in rows:
        series.setdefault(_series_name(row, varying), []).append(row)
    figure, axes = plt.subplots(figsize=(7, 4.5), dpi=120)
    for index, (name, points) in enumerate(sorted(series.items())):
        points.sort(key=lambda r: r["config"][x])
        labelled = points[0]["config"].get("label")
        style = "-" if labelled else line_style(points[0]["config"].get("solver"))
        solved = [r for r in points if r[middles]]
        failed = [r["config"][x] for r in points if not r[middles]]
        middle = [max(r[middles], 1e-3) for r in solved]
        spread = [[m - max(r[lows], 1e-3) for r, m in zip(solved, middle, strict=True)],
                  [max(r[highs], 1e-3) - m for r, m in zip(solved, middle, strict=True)]]
        if solved:
            line = axes.errorbar([r["config"][x] for r in solved], middle, yerr=spread,
                                 fmt=style, marker="o", capsize=3, label=name).lines[0]
        else:
            (line,) = axes.plot([], [], style, marker="o", label=name)
        if failed:
            # side by side, so that several solvers failing at one size stay visible
            shift = 0.04 * (index - (len(series) - 1) / 2)
            axes.plot([n + shift for n in failed], [time_limit] * len(failed), linestyle="none",
                      marker="x", markersize=9, markeredgewidth=2, color=line.get_color())
    if any(not r[middles] for r in rows):
        axes.axhline(time_limit, color="grey", linewidth=0.8, linestyle=":")
        axes.annotate(f"time limit {time_limit:g} s (x: no solution)", (0.01, 0.97),
                      xycoords="axes fraction", va="top", fontsize=8, color="grey")
    axes.set_yscale("log")
    axes.set_xlabel(SUMMARY_HEADERS.get(x, x))
    axes.set_ylabel(ylabel)
    axes.set_xticks(sorted({r["config"][x] for r in rows}))
    axes.set_title(title)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp.png")
    figure.savefig(tmp)
    plt.close(figure)
    os.replace(tmp, path)
