"""The benchmark library: every puzzle's instances as model files, with their known answers.

For each puzzle a small ramp of instances (`RAMPS`, easiest first, solvable and not), each
written as the MIP in MPS (a puzzle that builds an exact cover has it lowered, as
`backends/lowering.py` lowers it for a MIP solver) and as DIMACS CNF (the CNF, or the lowered
exact cover), or, for the optimisation puzzle (views), as a weighted CNF for MaxSAT. Sudoku
Cube's files are its two forms of the same rules (model.py, cnf.py), so one answer holds for
both.

`manifest.json` lists every file: puzzle, parameters, file name, format, its sha256 and size
in bytes, the model's size, and the known answer: the status `protocol.solve` gave (the
solver's answer checked by the puzzle's independent code) and, for views, the optimum.
Written twice, the library is the same bytes: the ramps are fixed, generated instances are
seeded, gzip carries no timestamp, and the manifest holds no time.

Everything goes through the puzzle protocol (`puzzles.get`, `Puzzle.model`, `protocol.solve`):
the library knows the puzzles by name only.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ilp_pyramid import protocol, puzzles
from ilp_pyramid.backends import lowering
from ilp_pyramid.backends.base import SolveOptions, Status
from ilp_pyramid.errors import InputError, SolverError
from ilp_pyramid.formats.dimacs import dimacs_text
from ilp_pyramid.formats.fileio import write_atomic
from ilp_pyramid.formats.mipfile import mip_text, mps_stats
from ilp_pyramid.formats.wcnf import wcnf_text

MANIFEST = "manifest.json"
GENERATOR = "ilp-pyramid models --puzzle all"
# The file kinds of a library instance, by the forms a puzzle builds.
MPS, CNF, WCNF = "mps", "cnf", "wcnf"
# A ramp instance is chosen to be answered in seconds: past this the library is wrong.
ANSWER_SECONDS = 300.0

# IQ challenges, drawn as `iq solve --given` reads them, on the board named first.
_TRIANGLE_FIVE_GIVEN = """triangle
B
BB
BBL
HLLL
HHL..
JHH...
J......
J.......
J.D......
DDDD......
"""
# The J piece walls off the top cell: no filling.
_TRIANGLE_ISOLATED = """triangle
.
J.
J..
J...
J....
......
.......
........
.........
..........
"""
_PYRAMID5_GIVEN = """pyramid5
.LBBB
LLLBB
HLIII
FHI.I
FFH..

....
....
H...
.H..

...
...
...

..
..

.
"""
# The K piece fills level 4, leaving the apex ball no piece can take alone: no filling.
_PYRAMID5_ISOLATED = """pyramid5
.....
.....
.....
.....
.....

....
....
....
....

...
...
...

KK
KK

.
"""


@dataclass(frozen=True)
class Instance:
    """One instance of the library: `label` names its files (`<puzzle>_<label>.<kind>.gz`),
    `parameters` say what it is, `make(puzzle)` builds it; `solver` answers it for the
    manifest and `model_options` shape the files' models; `sample`: in the small sample
    the package ships (models/library/)."""

    puzzle: str
    label: str
    parameters: dict[str, Any]
    make: Callable[[protocol.Puzzle], Any]
    solver: str = "highs"
    model_options: dict[str, Any] = field(default_factory=dict)
    sample: bool = False


def _bel(n: int, sample: bool = False) -> Instance:
    return Instance("bel", f"n{n}", {"n": n}, lambda p: p.instance(n), solver="kissat",
                    sample=sample)


def _insanity(n: int, seed: int, planted: bool, sample: bool = False,
              solver: str = "highs") -> Instance:
    kind = "planted" if planted else "random"
    return Instance("insanity", f"n{n}_{kind}_s{seed}", {"n": n, "seed": seed,
                                                          "planted": planted},
                    lambda p: p.generate(n, seed, planted), solver=solver, sample=sample)


def _iq(label: str, text: str, sample: bool = False) -> Instance:
    board, _, drawing = text.partition("\n")
    parameters = {"board": board, **({"given": drawing} if drawing.strip() else {})}
    return Instance("iq", label, parameters, lambda p: p.parse(text), solver="kissat",
                    sample=sample)


def _iq_generated(board: str, k: int, seed: int) -> Instance:
    """A step of the bench's ramp (`iq solve BOARD --generate-given K --seed S`): a seeded
    filling of the board with k of its pieces given."""
    return Instance("iq", f"{board}_given{k}_s{seed}",
                    {"board": board, "k": k, "seed": seed, "instance": "generated"},
                    lambda p: p.generate_given(board, k, seed), solver="kissat")


def _views(number: int, sample: bool = False) -> Instance:
    # Unsolvable views get their (infeasible) model too: the file is the proof to find.
    return Instance("views", f"{number:06}", {"number": f"{number:06}"},
                    lambda p: p.instance(number=number), model_options={"infeasible": True},
                    sample=sample)


def _views_generated(n: int, seed: int) -> Instance:
    """A step of the study's ramp (`views solve --generate N --seed S`): the views of a
    seeded random placement, answered by CBC (the faster MIP solver there)."""
    return Instance("views", f"generated_n{n}_s{seed}", {"n": n, "seed": seed},
                    lambda p: p.generate(n, seed), solver="cbc")


def _sudoku_cube(scramble: int, seed: int, sample: bool = False) -> Instance:
    return Instance("sudoku-cube", f"t{scramble}_s{seed}", {"scramble": scramble, "seed": seed},
                    lambda p: p.generate(scramble, seed), sample=sample)


# Each puzzle's ramp, easiest first, solvable and not, on to the steps of the study's hard
# end that an answer within ANSWER_SECONDS allows (docs/study.md, the ramps): views generated
# on a 16-grid, Insanity's random towers of 24 and 28 cubes (proofs of no solution that the
# MIP solvers do not finish in the study's limit; Dancing Links answers them here), the
# Sudoku Cube at its generator's longest scramble. Bel's N=5 is not here: no solver answers it
# within ANSWER_SECONDS. The sample (models/library/) keeps one or two small ones of each: a
# Sudoku Cube's MPS alone is some 110 kB gzipped (its CNF 46 kB).
RAMPS: dict[str, tuple[Instance, ...]] = {
    "bel": (_bel(2, sample=True), _bel(3, sample=True), _bel(4)),
    "views": (_views(157, sample=True), _views(0, sample=True),
              *(_views(number) for number in (1126, 91, 472, 2073, 2, 347177)),
              _views_generated(16, 0)),
    "iq": (_iq("pyramid3", "pyramid3\n", sample=True),  # 14 balls for 12 pieces: none
           _iq("pyramid5_given", _PYRAMID5_GIVEN, sample=True),
           _iq("triangle_five_given", _TRIANGLE_FIVE_GIVEN),
           _iq_generated("pyramid5", 8, 0), _iq_generated("triangle", 6, 0),
           _iq_generated("rectangle", 4, 0), _iq_generated("pyramid5", 4, 0),
           _iq("pyramid4", "pyramid4\n"),
           _iq("pyramid5_isolated", _PYRAMID5_ISOLATED),
           _iq("triangle_isolated", _TRIANGLE_ISOLATED),
           _iq("rectangle", "rectangle\n")),
    "sudoku-cube": (_sudoku_cube(5, 1, sample=True), _sudoku_cube(30, 2),
                    _sudoku_cube(100, 3), _sudoku_cube(10_000, 4)),
    "insanity": (_insanity(4, 1, True, sample=True), _insanity(4, 1, False, sample=True),
                 _insanity(8, 2, True), _insanity(8, 3, False), _insanity(12, 4, True),
                 _insanity(12, 5, False), _insanity(24, 6, False, solver="dlx"),
                 _insanity(28, 7, False, solver="dlx")),
}


def ramp(puzzle: str = "all", sample: bool = False) -> list[Instance]:
    """The library's instances: of every puzzle (registry order) or of one; with `sample`,
    only those of the shipped sample. InputError for a puzzle the library lacks."""
    names = [n for n in puzzles.names() if n in RAMPS] if puzzle == "all" else [puzzle]
    unknown = [n for n in names if n not in RAMPS]
    if unknown:
        raise InputError(f"the library has no puzzle {unknown[0]!r} (choose from all, "
                         f"{', '.join(RAMPS)})")
    return [entry for name in names for entry in RAMPS[name] if entry.sample or not sample]


@dataclass
class Written:
    """A file written: its manifest entry."""

    entry: dict[str, Any]

    @property
    def file(self) -> str:
        return self.entry["file"]


def answer(instance: Instance, puzzle: protocol.Puzzle, made: Any) -> dict[str, Any]:
    """The known answer: `protocol.solve`'s status (its solution checked by the puzzle's
    independent code) and, for a puzzle that optimizes, the proved optimum; SolverError if
    the solve gives neither a verified solution nor a proof that there is none."""
    options = SolveOptions(time_limit=ANSWER_SECONDS, seed=0)
    result = protocol.solve(puzzle, made, instance.solver, options)
    if result.status not in (Status.SOLVED, Status.INFEASIBLE):
        raise SolverError(f"{instance.puzzle} {instance.label}: no known answer "
                          f"({result.status}: {result.detail})")
    known: dict[str, Any] = {"status": str(result.status)}
    if getattr(puzzle, "optimizes", False) and result.status is Status.SOLVED:
        # the proved optimum: the MIP's objective, or the MaxSAT cost
        known["optimum"] = round(result.backend.objective)
    known["verified_by"] = {"solver": result.solver, "form": result.form}
    return known


def files_of(instance: Instance, puzzle: protocol.Puzzle, made: Any) -> Iterator[
        tuple[str, str, dict[str, int]]]:
    """(kind, text, size) of each file of the instance: the MPS, then the CNF or WCNF."""

    problem = _form(puzzle, made, "mip", instance.model_options)
    text = mip_text(problem, MPS)
    stats = mps_stats(text)
    yield MPS, text, {"variables": stats["columns"], "constraints": stats["rows"],
                      "nonzeros": stats["nonzeros"]}
    comment = [f"c ilp-pyramid models: {instance.puzzle} {instance.label}"]
    if WCNF in puzzle.forms:
        formula = _form(puzzle, made, WCNF, instance.model_options)
        text = wcnf_text(formula.hard, formula.soft, formula.wght, comment)
        yield WCNF, text, {"variables": formula.nv, "hard": len(formula.hard),
                           "soft": len(formula.soft)}
        return
    if CNF not in puzzle.forms and "exact_cover" not in puzzle.forms:
        return  # a MIP only
    form = _form(puzzle, made, CNF, instance.model_options)
    clauses = [list(c) for c in (form.clauses if hasattr(form, "clauses") else form)]
    count = max([getattr(form, "nv", 0)] + [abs(lit) for c in clauses for lit in c])
    yield CNF, dimacs_text(clauses, count, comment), {"variables": count,
                                                      "clauses": len(clauses)}


def _form(puzzle: protocol.Puzzle, made: Any, form: str, options: dict[str, Any]) -> Any:
    """The puzzle's model in `form`; an exact cover lowered for a MIP or a SAT solver."""
    if form in puzzle.forms:
        return puzzle.model(made, form, **options).form

    cover = puzzle.model(made, "exact_cover", **options).form
    return lowering.to_mip(cover).problem if form == "mip" else lowering.to_cnf(cover)


def write_instance(directory: Path, instance: Instance) -> list[Written]:
    """The instance's files in `directory`, and their manifest entries."""
    puzzle = puzzles.get(instance.puzzle)
    made = instance.make(puzzle)
    known = answer(instance, puzzle, made)
    out = []
    for kind, text, size in files_of(instance, puzzle, made):
        name = f"{instance.puzzle}_{instance.label}.{kind}.gz"
        write_atomic(directory / name, text)
        data = (directory / name).read_bytes()
        out.append(Written({"file": name, "puzzle": instance.puzzle,
                            "parameters": instance.parameters, "format": kind,
                            "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data),
                            **size, "answer": known}))
    return out


def manifest(entries: list[dict[str, Any]]) -> dict[str, Any]:
    return {"generator": GENERATOR,
            "note": "answer.status: what protocol.solve answered, its solution checked by the "
                    "puzzle's independent code ('solved') or no solution proved "
                    "('infeasible'); answer.optimum: the proved least number of cubes "
                    "(views: the MPS objective and the WCNF cost)",
            "files": entries}


def write_library(directory: Path, puzzle: str = "all", sample: bool = False,
                  written: Callable[[Written], None] | None = None) -> dict[str, Any]:
    """Write the library's files (`ramp(puzzle, sample)`) and `manifest.json` to
    `directory`; the manifest. `written` is called after each file (a progress line)."""
    entries = []
    for instance in ramp(puzzle, sample):
        for done in write_instance(directory, instance):
            entries.append(done.entry)
            if written is not None:
                written(done)
    data = manifest(entries)
    write_atomic(directory / MANIFEST, json.dumps(data, indent=2) + "\n")
    return data
