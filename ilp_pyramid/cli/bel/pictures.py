"""Pictures and the build list of a verified Bel solution: the options
`solve --png/--html/--cubes/--cubes-csv` and the command `ilp-pyramid render SOLUTION`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import typer
from rich.table import Table

from ilp_pyramid.cli.options import (
    EXIT_NO_SOLUTION,
    Json,
    console,
    fail,
    load_input,
    print_json,
    print_table,
    save,
)
from ilp_pyramid.extras import need
from ilp_pyramid.puzzles.bel.cubes import build_list, parse_any, to_csv
from ilp_pyramid.puzzles.bel.html import html_text
from ilp_pyramid.puzzles.bel.render import png_bytes
from ilp_pyramid.puzzles.bel.solution import BelSolution
from ilp_pyramid.verify.bel import BelVerdict, verify_solution

PngOpt = typer.Option(None, "--png", help="Write a picture: the pyramid in 3-D with every "
                                          "visible face labelled, and its levels from the top.")
HtmlOpt = typer.Option(None, "--html", help="Write an interactive 3-D view (one self-contained "
                                            "HTML file, opens offline): rotate, hover a cube, "
                                            "hide levels.")
CubesOpt = typer.Option(False, "--cubes", help="Print the build list: every cell from the "
                                               "bottom up, its cube and the labels facing "
                                               "x, y and z (key \"cubes\" with --json).")
CubesCsvOpt = typer.Option(None, "--cubes-csv", help="Write the build list as CSV (readable "
                                                     "by `verify` and `render`).")


def load_solution(path: Path) -> BelSolution:
    """A user's solution file in any of its forms (Knuth's drawing, the solve --json object,
    the --cubes-csv build list written here); a malformed one is a one-line error."""
    return load_input(path, parse_any)


@dataclass
class Pictures:
    png: Path | None = None
    html: Path | None = None
    cubes: bool = False
    cubes_csv: Path | None = None

    def wanted(self) -> bool:
        return bool(self.png or self.html or self.cubes or self.cubes_csv)

    def check_extras(self) -> None:
        """InputError now, not after the solve, when a picture asked for needs an extra."""
        if self.png is not None:
            need("matplotlib")
        if self.html is not None:
            need("plotly")

    def write(self, solution: BelSolution) -> dict:
        """Write the files asked for; the --json keys that say what was made."""
        made: dict = {}
        rows = build_list(solution)
        if self.png is not None:
            save(self.png, png_bytes(solution))
            made["png"] = str(self.png)
        if self.html is not None:
            save(self.html, html_text(solution))
            made["html"] = str(self.html)
        if self.cubes_csv is not None:
            save(self.cubes_csv, to_csv(rows))
            made["cubes_csv"] = str(self.cubes_csv)
        if self.cubes:
            made["cubes"] = rows
        return made

    def show(self, made: dict) -> None:
        """The text form of what `write` made."""
        if "cubes" in made:
            print_table(cubes_table(made["cubes"]))
        for key, what in (("png", "picture"), ("html", "interactive view"),
                          ("cubes_csv", "build list")):
            if key in made:
                console.print(f"wrote the {what} to {made[key]}", markup=False)


def cubes_table(rows: list[dict]) -> Table:
    table = Table(title="build list (bottom level first)", title_justify="left",
                  caption="faces x: left and right; y: back and front; z: bottom and top",
                  caption_justify="left")
    for column, justify in (("#", "right"), ("cell (x, y, h)", "left"), ("cube", "left"),
                            ("faces x", "right"), ("faces y", "right"), ("faces z", "right")):
        table.add_column(column, justify=justify)
    for k, row in enumerate(rows, start=1):
        table.add_row(str(k), f"({row['x']}, {row['y']}, {row['h']})",
                      "{" + ", ".join(map(str, row["cube"])) + "}",
                      str(row["faces_x"]), str(row["faces_y"]), str(row["faces_z"]))
    return table


def faults(verdict: BelVerdict) -> dict:
    """An invalid labelling's faults as --json keys: `conflicts` (repeated cubes: the cells
    beyond the first that show a cube), `repeated` (each such cube and every cell showing
    it), `missing` (the cubes no cell shows), `strays` (cubes with a label out of range)."""
    return {"conflicts": verdict.conflicts,
            "repeated": [{"cube": list(cube), "cells": [{"x": x, "y": y, "h": h}
                                                        for x, y, h in cells]}
                         for cube, cells in sorted(verdict.duplicates.items())],
            "missing": [list(cube) for cube in verdict.missing],
            "strays": [list(cube) for cube in verdict.strays]}


def render(
    file: Path = typer.Argument(..., help="A solution: Knuth's drawing, the solve --json "
                                          "object or a --cubes-csv build list."),
    png: Path = PngOpt,
    html: Path = HtmlOpt,
    cubes: bool = CubesOpt,
    cubes_csv: Path = CubesCsvOpt,
    json_out: bool = Json,
) -> None:
    """Draw a solution (after verifying it): a PNG, an interactive HTML view, the build list.

    An invalid labelling (a search's best state, a hunt's best.json) is drawn nowhere, but
    --json lists its faults: the repeated cubes with the cells that show them, the missing
    cubes, and with --cubes its build list, so that a viewer can mark them.

    Exit codes: 0 drawn, 1 the solution is invalid (no file is written), 2 bad input.
    """
    pictures = Pictures(png, html, cubes, cubes_csv)
    if not pictures.wanted():
        fail("nothing to render: give --png, --html, --cubes or --cubes-csv")
    solution = load_solution(file)
    verdict = verify_solution(solution)
    if not verdict.valid:
        if json_out:
            print_json({"n": solution.n, "valid": False, "reasons": verdict.reasons(),
                        **faults(verdict),
                        **({"cubes": build_list(solution)} if cubes else {})})
        else:
            console.print(f"invalid: N={solution.n}; nothing drawn")
            for reason in verdict.reasons():
                console.print(f"  {reason}", markup=False)
        raise typer.Exit(EXIT_NO_SOLUTION)
    made = pictures.write(solution)
    if json_out:
        print_json({"n": solution.n, "valid": True, **made})
    else:
        console.print(f"valid: N={solution.n}")
        pictures.show(made)
