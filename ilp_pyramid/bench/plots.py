"""The field's two pictures of a solver comparison, one panel per family (bench/scores.py):

- cactus: per solver, the instances solved (y) within a time (x, log scale);
- performance profile (Dolan and More 2002): per solver, the share of instances solved
  within tau x the best solver's time on each (x = tau, log2 scale, from 1 to the largest
  finite ratio).

matplotlib is loaded only here (the `pictures` extra); the PNG is written atomically.
"""

from __future__ import annotations

import math
from pathlib import Path

from ilp_pyramid.bench.scores import (
    DEFAULT_TIME,
    TIME_MEANINGS,
    VIRTUAL_BEST,
    Family,
    cactus_points,
    largest_ratio,
    profile_steps,
    ratios,
)
from ilp_pyramid.bench.summary import line_style
from ilp_pyramid.errors import InputError
from ilp_pyramid.figures import png_bytes, pyplot
from ilp_pyramid.formats.fileio import write_atomic

KINDS = ("cactus", "profile")
PANEL_INCHES = (5.5, 4.2)
MAX_COLUMNS = 3


def write_plot(kind: str, families: list[Family], path: Path,
               time: str = DEFAULT_TIME) -> None:
    """Draw `kind` (cactus | profile) of the families into the PNG file `path`."""
    if kind not in KINDS:
        raise InputError(f"unknown plot kind {kind!r} (choose from {', '.join(KINDS)})")
    if not families:
        raise InputError("no records to plot")
    plt = pyplot()
    columns = min(len(families), MAX_COLUMNS)
    rows = math.ceil(len(families) / columns)
    figure, axes = plt.subplots(rows, columns, squeeze=False,
                                figsize=(PANEL_INCHES[0] * columns, PANEL_INCHES[1] * rows))
    panels = [a for row in axes for a in row]
    for panel, family in zip(panels, families, strict=False):
        (_cactus if kind == "cactus" else _profile)(panel, family, time)
    for panel in panels[len(families):]:
        panel.set_visible(False)
    figure.tight_layout()
    write_atomic(path, png_bytes(figure, dpi=120))


def _cactus(axes, family: Family, time: str) -> None:
    for solver in family.solvers:
        xs, ys = cactus_points(family.times(solver))
        # a step from 0 at the first time up to k: the count solved by then
        axes.step([xs[0], *xs] if xs else [], [0, *ys] if xs else [], where="post",
                  linestyle=line_style(solver), label=f"{solver} ({len(xs)})")
    xs, ys = cactus_points(family.best())
    if xs:
        axes.step([xs[0], *xs], [0, *ys], where="post", color="black", linewidth=0.8,
                  linestyle=":", label=f"{VIRTUAL_BEST} ({len(xs)})")
    for limit in family.time_limits():
        axes.axvline(limit, color="grey", linewidth=0.8, linestyle=":")
    axes.set_xscale("log")
    axes.set_ylim(0, len(family.instances) + 0.5)
    axes.set_xlabel(f"time, s ({TIME_MEANINGS[time]}); grey: the time limit")
    axes.set_ylabel("instances solved")
    axes.yaxis.get_major_locator().set_params(integer=True)
    axes.set_title(f"{family.name}: {len(family.instances)} instances")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8, loc="best")


def _profile(axes, family: Family, time: str) -> None:
    by_solver = ratios({s: family.times(s) for s in family.solvers})
    right = largest_ratio(by_solver)
    right = right * 1.05 if right > 1 else 2.0  # a tie everywhere still gets a width
    for solver, solver_ratios in by_solver.items():
        taus, fractions = profile_steps(solver_ratios)
        axes.step([*taus, right], [*fractions, fractions[-1]], where="post",
                  linestyle=line_style(solver), label=solver)
    axes.set_xscale("log", base=2)
    axes.set_xlim(1, right)
    axes.set_ylim(0, 1.02)
    axes.set_xlabel(f"tau: within tau x the best solver's time ({TIME_MEANINGS[time]})")
    axes.set_ylabel("share of instances")
    axes.set_title(f"{family.name}: {len(family.instances)} instances")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8, loc="best")
