"""The published N=3 count (docs/counts.md) stands on the committed records of its split
count (`count 3 --method cover --split 8 --record DIR`, gzipped): the labelled formula's and
the one fixed-point formula's with models (the top swap, no renaming). These tests check that
each record is of today's formula, that its pieces are every first-appearance labelling of
the split's lines once, that the pieces sum to the published figures by Burnside's lemma, and
(slow) that pieces drawn from them count the same today, by the cover count and by D4."""

from __future__ import annotations

import functools
import gzip
import json
import math
import random
import re
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "docs" / "data"
COUNTS = DATA / "bel_counts.jsonl"
N, LABELS = 3, 5
LABELLED = "split"
# line_group(3)'s only element besides the identity whose fixed-point formula has models
TOP_SWAP = "split fixed by g6"
RECORDS = {LABELLED: DATA / "bel_n3_cover_pieces.jsonl.gz",
           TOP_SWAP: DATA / "bel_n3_cover_pieces_top_swap.jsonl.gz"}
# D4's split count of L, the second method, committed as it grows (a resumable record:
# docs/counts.md, "What checks it")
D4_RECORD = DATA / "bel_n3_d4_pieces.jsonl.gz"


@functools.cache  # each gzipped record read once, however many tests look at it
def record(formula: str) -> tuple[dict, dict[tuple, dict]]:
    with gzip.open(RECORDS[formula], "rt") as file:
        header, *rows = (json.loads(line) for line in file)
    return header, {tuple((a, b) for a, b in row["cube"]): row for row in rows}


def first_appearance(length: int, labels: int) -> list[tuple[int, ...]]:
    """Every labelling of `length` lines in which label k appears only after 0 .. k-1.
    Written apart from count_split.open_cubes, which made the records' pieces: the check
    of a record's pieces does not use the code that chose them."""
    out: list[tuple[int, ...]] = [()]
    for _ in range(length):
        out = [seq + (label,) for seq in out
               for label in range(min(max(seq, default=-1) + 2, labels))]
    return out


def published() -> dict:
    rows = [json.loads(line)["result"] for line in COUNTS.read_text().splitlines()]
    counted = [r for r in rows if r["n"] == N and r["status"] == "counted"]
    assert counted, f"{COUNTS.name} has no N=3 count"
    return counted[-1]


def assert_of_todays_formula(header: dict, method: str, formula: str) -> None:
    """A record's first line names `method`, `formula` and today's key and line order."""
    from ilp_pyramid.puzzles.bel.count_split import SplitCount, line_order

    assert header["formula"] == formula and header["count"] == method
    assert header["key"] == SplitCount(N, method, header["depth"], formula).key
    assert header["order"] == list(line_order(N))


def models(formula: str) -> int:
    """The record's models, after checking that it is of today's formula and holds every
    piece of its split once, each counted."""
    from ilp_pyramid.puzzles.bel.count_split import line_order

    header, settled = record(formula)
    assert_of_todays_formula(header, "cover", formula)
    order = list(line_order(N))
    pieces = {tuple(zip(order, labels, strict=False))
              for labels in first_appearance(header["depth"], LABELS)}
    assert pieces == set(settled), "the record's pieces are not the split's"
    assert all(row["status"] == "counted" for row in settled.values())
    return sum(int(row["count"]) for row in settled.values())


def test_the_records_sum_to_the_published_labelled_count_and_classes():
    from ilp_pyramid.puzzles.bel.canonical import line_group
    from ilp_pyramid.puzzles.bel.count import conjugacy_classes

    result = published()
    renamings = math.factorial(LABELS)
    labelled = models(LABELLED) * renamings
    assert result["labelled"] == labelled
    group = line_group(N)
    g = int(TOP_SWAP.removeprefix("split fixed by g"))
    assert (group[g] != np.arange(group.shape[1])).sum() == 2  # the top cube's two lines
    (size,) = [s for i, s in conjugacy_classes(group) if i == g]
    # Burnside: the identity fixes every labelling, the top swap with no renaming those of
    # its record (each with its renamings), every other (g, pi) none (the slow test below)
    fixed = models(TOP_SWAP) * renamings
    order = len(group) * renamings
    assert (labelled + size * fixed) % order == 0
    assert result["up_to_symmetry"] == (labelled + size * fixed) // order
    assert result["labelled"] >= result["up_to_symmetry"] * order / 2


def test_d4s_record_so_far_agrees_with_cover_on_every_piece_it_has_finished(capsys):
    """D4's record is of today's formula, holds no piece twice, and every piece of cover's
    that D4 has counted in full (all of D4's deeper pieces below it) has the same models."""
    import importlib.util


    with gzip.open(D4_RECORD, "rt") as file:
        header, *rows = (json.loads(line) for line in file)
    assert_of_todays_formula(header, "d4", LABELLED)
    cubes = [tuple(map(tuple, row["cube"])) for row in rows]
    assert len(cubes) == len(set(cubes)), "a piece recorded twice"
    spec = importlib.util.spec_from_file_location(
        "count_compare", ROOT / "docs" / "scripts" / "count_compare.py")
    compare = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(compare)
    assert compare.main([str(RECORDS[LABELLED]), str(D4_RECORD)]) == 0
    said = capsys.readouterr().out
    found = re.search(r"; ([\d,]+) agree \(([\d,]+) models\), 0 differ", said)
    assert found, said
    pieces, models = (int(x.replace(",", "")) for x in found.groups())
    assert pieces > 0 and models > 0, said  # a check, not an empty comparison


def _drawn(formula: str, k: int, seed: int, most: float, empty: int = 0) -> list[tuple]:
    """k pieces with models that took the count at most `most` CPU s, and `empty` without."""
    _, settled = record(formula)
    cheap = sorted(c for c, row in settled.items() if row["cpu"] <= most and row["count"])
    none = sorted(c for c, row in settled.items() if not row["count"])
    rng = random.Random(seed)
    return rng.sample(cheap, k) + rng.sample(none, empty)


def _recount(formula: str, cubes: list[tuple], method: str) -> None:
    from ilp_pyramid.puzzles.bel.canonical import line_group
    from ilp_pyramid.puzzles.bel.count_child import model_count
    from ilp_pyramid.puzzles.bel.count_cnf import base_cnf, fixed_by, precedence
    from ilp_pyramid.puzzles.bel.count_cover import count_piece, cover_tables
    from ilp_pyramid.puzzles.bel.count_split import line_order

    _, settled = record(formula)
    identity = list(range(LABELS))
    g = None if formula == LABELLED else line_group(N)[int(formula.rsplit("g", 1)[1])]
    cnf = base_cnf(N)
    extra, top = precedence(cnf, line_order(N))
    if g is not None:
        extra = extra + fixed_by(cnf, g, identity)
    tables = cover_tables(N) if g is None else cover_tables(N, g, identity)
    for cube in cubes:
        if method == "cover":
            count = count_piece(tables, [v for _, v in cube]).models
        else:
            units = [[cnf.line_var(i, v)] for i, v in cube]
            count = model_count(method, cnf.formula.clauses + extra + units, top, False)
        assert count == int(settled[cube]["count"]), (formula, cube, method)


@pytest.mark.slow  # some 3 s, most of it compiling the cover count's kernels
def test_pieces_drawn_from_the_records_count_the_same_today():
    _recount(LABELLED, _drawn(LABELLED, 1, 1, 1.0, empty=1), "cover")
    _recount(TOP_SWAP, _drawn(TOP_SWAP, 1, 1, 0.5, empty=1), "cover")


@pytest.mark.slow
def test_pieces_drawn_from_the_records_count_the_same_by_d4():
    pytest.importorskip("py_d4", reason="the count extra (d4Solver) is not installed")
    _recount(LABELLED, _drawn(LABELLED, 6, 2, 2.0, empty=2), "d4")
    _recount(TOP_SWAP, _drawn(TOP_SWAP, 3, 2, 2.0, empty=1), "d4")


@pytest.mark.slow
def test_every_other_fixed_point_formula_has_no_model():
    """The zeros in Burnside's sum above, by Glucose (the count's own check is MiniSat's)."""
    from pysat.solvers import Solver

    from ilp_pyramid.puzzles.bel.canonical import line_group
    from ilp_pyramid.puzzles.bel.count import conjugacy_classes, cycle_types
    from ilp_pyramid.puzzles.bel.count_cnf import base_cnf, fixed_by

    cnf = base_cnf(N)
    group = line_group(N)
    identity = list(range(LABELS))
    top_swap = int(TOP_SWAP.rsplit("g", 1)[1])
    checked = 0
    for g, _ in conjugacy_classes(group):
        for pi, _ in cycle_types(LABELS):
            if g == 0 and pi == identity:
                continue
            with Solver(name="glucose4",
                        bootstrap_with=cnf.formula.clauses + fixed_by(cnf, group[g], pi)) as s:
                assert s.solve() == (g == top_swap and pi == identity), (g, pi)
            checked += 1
    assert checked == 195
