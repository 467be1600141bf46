"""`ilp-pyramid strategies` and `ilp-pyramid info N`: what the package knows of Bel's Pyramid,
as tables."""

from __future__ import annotations

import time

import typer
from rich.table import Table

from ilp_pyramid.cli.options import Json, console, fail, print_json, print_table
from ilp_pyramid.puzzles.bel.geometry import MAX_N, cell_count, pyramid
from ilp_pyramid.puzzles.bel.strategies import CATALOGUE, combine


def strategies(json_out: bool = Json) -> None:
    """List every strategy: what it adds, and whether it can lose solutions."""
    names = list(CATALOGUE)
    if json_out:
        print_json({"strategies": [
            {"name": s.name, "kind": s.kind, "description": s.description,
             "combines_with": [o for o in names if o != s.name and combine(s.name, o)]}
            for s in CATALOGUE.values()]})
        return
    # Names are what a user types: they never wrap or truncate, and the partners go in a
    # second table so that both fit 80 columns.
    width = max(len(name) for name in names)
    table = Table(title="Strategies (--strategy NAME, repeatable)")
    table.add_column("name", no_wrap=True, min_width=width)
    table.add_column("kind", no_wrap=True)
    table.add_column("what it adds")
    pairs = Table(title="Sound combinations")
    pairs.add_column("name", no_wrap=True, min_width=width)
    pairs.add_column("combines soundly with")
    for s in CATALOGUE.values():
        partners = [o for o in names if o != s.name and combine(s.name, o)]
        if s.kind == "hypothesis":
            shown = "-"
        elif s.kind == "valid":
            shown = "everything"
        else:
            shown = ", ".join(p for p in partners if CATALOGUE[p].kind != "valid") + \
                (" + valid ones" if partners else "")
        table.add_row(s.name, s.kind, s.description)
        pairs.add_row(s.name, shown)
    print_table(table)
    print_table(pairs)
    console.print("symmetry: keeps at least one solution whenever one exists\n"
                  "valid: keeps every solution\n"
                  "hypothesis: may make the problem infeasible")


def info(n: int = typer.Argument(..., help="Number of levels."), json_out: bool = Json,
         group: bool = typer.Option(
             False, "--group",
             help="Also compute the symmetry group from the incidence graph (seconds from "
                  "N=5 on) and check its order against the formula.")) -> None:
    """Sizes of the pyramid and the order of its symmetry group (by formula, instantly)."""
    from ilp_pyramid.puzzles.bel.symmetry import GROUP_JUSTIFICATION, group_order

    if not 1 <= n <= MAX_N:
        fail(f"N must be between 1 and {MAX_N} (got {n})")
    geo = pyramid(n)
    data = {"n": n, "cells": cell_count(n), "labels": geo.num_labels, "lines": len(geo.lines),
            "lines_by_family": {f: len(geo.family_lines(f)) for f in "XYZ"},
            "label_total_length": geo.label_total,
            "automorphism_group_order": group_order(n),
            "label_permutations": _factorial(geo.num_labels),
            "group": GROUP_JUSTIFICATION}
    if group:
        from ilp_pyramid.puzzles.bel.symmetry import symmetry_group

        start = time.perf_counter()
        computed = symmetry_group(n)
        data["computed_group_order"] = computed.order
        data["computed_generators"] = len(computed.generators)
        data["computed_seconds"] = round(time.perf_counter() - start, 3)
    if json_out:
        print_json(data)
        return
    for key, value in data.items():
        if key != "group":
            console.print(f"{key:28} {value}")
    console.print(f"{'group':28} {GROUP_JUSTIFICATION}")


def _factorial(k: int) -> int:
    result = 1
    for i in range(2, k + 1):
        result *= i
    return result
