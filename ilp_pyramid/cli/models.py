"""`ilp-pyramid models`: the public benchmark sets. By default (`--puzzle bel`) Bel's N=2..5
as .mps.gz and .cnf.gz, as it has always been (models/); `--puzzle all` (or one puzzle's
name) the benchmark library of every puzzle with its known answers (library.py;
models/library/ ships its `--sample`)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from ilp_pyramid import library
from ilp_pyramid.cli.options import Json, console, fail, print_json
from ilp_pyramid.errors import InputError
from ilp_pyramid.formats import mipfile
from ilp_pyramid.formats.fileio import write_atomic

BEL = "bel"  # the classic set: Bel alone, the default
DEFAULT_MAX_N = 5


def models(
    directory: Path = typer.Argument(Path("models"), help="Where to write the benchmark set."),
    puzzle: str = typer.Option(BEL, "--puzzle",
                               help="bel: Bel's N=2..--max-n (the classic set, models/); "
                                    "all: the library of every puzzle, each instance as MPS "
                                    "and CNF (WCNF for views) with its known answer; or one "
                                    f"puzzle's part of it: "
                                    f"{', '.join(n for n in library.RAMPS if n != BEL)}."),
    sample: bool = typer.Option(False, "--sample",
                                help="With --puzzle all (or a puzzle): only the small sample "
                                     "models/library/ ships, one or two instances per "
                                     "puzzle."),
    max_n: int | None = typer.Option(None, "--max-n", min=2, max=8,
                                     help=f"--puzzle bel: the largest N (default "
                                          f"{DEFAULT_MAX_N})."),
    output: Path = typer.Option(None, "-o", "--output", help="Same as DIRECTORY."),
    json_out: bool = Json,
) -> None:
    """(Re)generate a public benchmark set: Bel N=2..max-n as .mps.gz and .cnf.gz plus
    manifest.json, or with --puzzle all the library of every puzzle. The output is
    byte-for-byte reproducible (gzip without timestamps, seeded instances, no times)."""
    directory = output or directory
    if puzzle == BEL:
        if sample:
            fail("--sample is for the library (--puzzle all or a puzzle's name)")
        bel_set(directory, max_n or DEFAULT_MAX_N, json_out)
        return
    if max_n is not None:
        fail("--max-n is for --puzzle bel (the library's ramps are fixed)")
    try:
        library.ramp(puzzle)  # an unknown puzzle is bad input before any file is written
    except InputError as exc:
        fail(str(exc))

    def written(done: library.Written) -> None:
        if not json_out:
            console.print(f"wrote {directory / done.file} ({done.entry['answer']['status']})",
                          markup=False)

    try:
        manifest = library.write_library(directory, puzzle, sample, written)
    except InputError as exc:
        fail(str(exc))
    if json_out:
        print_json({"directory": str(directory), **manifest})
    else:
        console.print(f"wrote {directory / library.MANIFEST}: {len(manifest['files'])} files",
                      markup=False)


def bel_set(directory: Path, max_n: int, json_out: bool) -> None:
    """Bel N=2..max_n as .mps.gz and .cnf.gz, and its manifest.json."""
    entries = []
    for n in range(2, max_n + 1):
        written = _benchmark_files(directory, n)
        entries += written
        if not json_out:
            names = ", ".join(str(directory / entry["file"]) for entry in written)
            console.print(f"wrote {names}", markup=False)
    manifest = {
        "generator": "ilp-pyramid models",
        "note": "status 'feasible': a verified solution is known (N=2..4 solved by this "
                "package; N=5 by SAT and by the hybrid search)",
        "instances": entries,
    }
    write_atomic(directory / "manifest.json", json.dumps(manifest, indent=2) + "\n")
    if json_out:
        print_json({"directory": str(directory), **manifest})


def _benchmark_files(directory: Path, n: int) -> list[dict]:
    """N's MPS and CNF in `directory`; their manifest entries."""
    from ilp_pyramid.puzzles.bel.cnf import build_cnf  # python-sat
    from ilp_pyramid.puzzles.bel.model import build_model  # PuLP

    model = build_model(n, "counts")
    text = mipfile.mip_text(model.problem, "mps")
    name = f"bel_n{n}_counts.mps.gz"
    write_atomic(directory / name, text)
    cnf = build_cnf(n)
    cnf_name = f"bel_n{n}_{cnf.encoding}.cnf.gz"
    write_atomic(directory / cnf_name, cnf.dimacs())
    return [{"file": name, "puzzle": "bel", "n": n, "format": "mps",
             "formulation": "counts", **mipfile.mps_stats(text), "status": "feasible"},
            {"file": cnf_name, "puzzle": "bel", "n": n, "format": "cnf",
             "encoding": cnf.encoding, "card": cnf.card, "variables": cnf.num_variables,
             "clauses": cnf.num_clauses, "status": "feasible"}]
