"""`ilp-pyramid count`: the methods agree, each piece of the counting argument holds on its own
(the renaming multiplier, the fixed points, the classes), and the command keeps the CLI
contract."""

from __future__ import annotations

import json
import math
import signal
from itertools import permutations
from pathlib import Path

import numpy as np
import pytest

from ilp_pyramid.puzzles.bel import count as count_module
from ilp_pyramid.puzzles.bel.count import (
    COUNTED,
    COUNTERS,
    COVER_MAX_N,
    RUNNERS,
    TIMEOUT,
    count,
    count_by_sat,
    count_by_search,
    default_methods,
)
from ilp_pyramid.puzzles.bel.geometry import pyramid
from tests.proctools import command, left_alive, live_children, signal_at_work

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "data" / "bel_counts.jsonl"

d4 = pytest.importorskip("py_d4", reason="the count extra (d4Solver) is not installed")


def _sat_rows(n: int, order: tuple[int, ...] | None = None) -> np.ndarray:
    """Every solution up to renaming, by plain SAT enumeration with the precedence clauses
    (first appearance along `order`, the geometry's line order by default)."""
    from pysat.solvers import Solver

    from ilp_pyramid.puzzles.bel.count_cnf import base_cnf, line_vars, precedence

    cnf = base_cnf(n)
    extra, _ = precedence(cnf, order)
    xs = line_vars(cnf)
    m = pyramid(n).num_labels
    rows = []
    with Solver(name="minisat22", bootstrap_with=cnf.formula.clauses + extra) as solver:
        while solver.solve():
            model = solver.get_model()
            true = [v for v in xs if model[v - 1] > 0]
            solver.add_clause([-v for v in true])
            rows.append([(v - xs[0]) % m for v in true])
    return np.asarray(rows)


def _every_labelling(n: int) -> set[tuple[int, ...]]:
    """All labelled solutions: every renaming of every solution up to renaming."""
    m = pyramid(n).num_labels
    return {tuple(int(p[v]) for v in row) for row in _sat_rows(n) for p in permutations(range(m))}


@pytest.mark.parametrize("method", ["search", "cover", "d4", "ganak", "scip"])
def test_every_method_gives_the_same_two_numbers_at_n2(method):
    """Each method against the plain SAT enumeration (one test per method: on parallel test
    workers the counters' seconds are spread)."""
    extra = COUNTERS.get(method)
    if extra is not None:
        pytest.importorskip(extra, reason=f"{method}'s extra ({extra}) is not installed")
    expected = count_by_sat(2)
    # The labelled count is every renaming of what was enumerated, each once.
    assert expected.status == COUNTED and expected.labelled == len(_every_labelling(2))
    result = RUNNERS[method](2)
    assert result.status == COUNTED
    assert (result.labelled, result.classes) == (expected.labelled, expected.classes)


def test_the_cover_count_gives_the_labelled_count_alone_at_n1():
    """At N=1 the group moves the Z line onto X and Y, where the cover count has no fixed
    points: no classes, and the report's come from the methods that give them (the cover
    count's N=2 figures: test_every_method_gives_the_same_two_numbers_at_n2)."""
    report = count(1, ["cover", "sat"])
    cover = report.methods[0]
    assert (cover.status, cover.labelled, cover.classes) == (COUNTED, 1, None)
    assert (report.labelled, report.classes) == (1, 1)


def test_the_cover_counts_every_fixed_point_formula_as_the_solutions_filtered_by_hand():
    """Burnside's terms at N=2, one (g, pi) per conjugacy class of G and cycle type of S_3:
    the labellings the cover count finds fixed (s(g(i)) = pi(s(i))) are those among every
    labelled solution."""
    from ilp_pyramid.puzzles.bel.canonical import line_group
    from ilp_pyramid.puzzles.bel.count import conjugacy_classes, cycle_types
    from ilp_pyramid.puzzles.bel.count_cover import count_piece, cover_tables, labellings

    every = np.asarray(sorted(_every_labelling(2)))
    group = line_group(2)
    nonzero = 0
    for g, _ in conjugacy_classes(group):  # the terms Burnside's sum takes
        g = group[g]
        for pi, _ in cycle_types(3):
            pi = np.asarray(pi)
            expected = int(np.all(every[:, g] == pi[every], axis=1).sum())
            tables = cover_tables(2, g, pi)
            assert labellings(tables, count_piece(tables).models) == expected, (g, pi)
            nonzero += expected > 0
    assert nonzero == 3


def test_the_cover_counts_each_piece_as_the_enumeration_does_at_n2():
    """Every piece of the split order two and four lines deep, and every X/Y leaf (the
    X and Y lines all given): the cover count of the piece is the number of enumerated
    solutions in it."""
    from ilp_pyramid.puzzles.bel.count_cover import count_piece, cover_tables
    from ilp_pyramid.puzzles.bel.count_split import line_order, open_cubes

    order = line_order(2)
    rows = _sat_rows(2, order)
    tables = cover_tables(2)
    for depth in (2, 4, tables.xy_positions):
        total = 0
        for cube in open_cubes({}, order, 3, depth):
            inside = np.all([rows[:, line] == label for line, label in cube], axis=0)
            assert count_piece(tables, [v for _, v in cube]).models == int(inside.sum()), cube
            total += int(inside.sum())
        assert total == len(rows)


def test_the_cover_count_agrees_with_d4_on_pieces_of_n3():
    """Two pieces of the N=3 split ten lines deep, one with models and one without, counted by
    the cover count and by D4 (the X/Y search's pruning and the exact cover against a #SAT
    counter on the CNF)."""
    from ilp_pyramid.puzzles.bel.count_child import model_count
    from ilp_pyramid.puzzles.bel.count_cnf import base_cnf, precedence
    from ilp_pyramid.puzzles.bel.count_cover import count_piece, cover_tables
    from ilp_pyramid.puzzles.bel.count_split import line_order

    cnf = base_cnf(3)
    order = line_order(3)
    extra, top = precedence(cnf, order)
    tables = cover_tables(3)
    counts = []
    for labels in ([0, 0, 1, 1, 2, 0, 1, 3, 3, 4], [0, 0, 0, 0, 1, 1, 0, 1, 2, 3]):
        units = [[cnf.line_var(line, v)] for line, v in zip(order, labels, strict=False)]
        by_d4 = model_count("d4", cnf.formula.clauses + extra + units, top, False)
        assert count_piece(tables, labels).models == by_d4, labels
        counts.append(by_d4)
    assert counts[0] > 0 and counts[1] == 0
    # the one fixed-point formula of N=3 with models: the top swap (two lines moved) with no
    # renaming, on two of its pieces
    from ilp_pyramid.puzzles.bel.canonical import line_group
    from ilp_pyramid.puzzles.bel.count_cnf import fixed_by

    (top_swap,) = [g for g in line_group(3) if (g != np.arange(len(g))).sum() == 2]
    fixed = cover_tables(3, top_swap, list(range(5)))
    swap = fixed_by(cnf, top_swap, list(range(5)))
    for labels in ([0, 0, 1, 1, 2, 0, 1, 3, 3, 4], [0, 0, 1, 1, 2, 0, 1, 3, 3]):
        units = [[cnf.line_var(line, v)] for line, v in zip(order, labels, strict=False)]
        by_d4 = model_count("d4", cnf.formula.clauses + extra + swap + units, top, False)
        assert count_piece(fixed, labels).models == by_d4 > 0, labels


def test_the_cover_count_takes_n_up_to_3_and_splits_only_its_x_and_y_lines(cli):
    result = cli("count", "4", "--method", "cover")
    assert result.code == 2 and "N from 1 to 3" in result.err
    result = cli("count", "2", "--method", "cover", "--split", "9")  # 8 X and Y lines
    assert result.code == 2 and "the X and Y lines" in result.err
    result = cli("count", "2", "--method", "cover", "--split", "3")
    assert result.code == 0, result.err
    assert "2,112 labelled pyramids, 31 up to symmetry" in result.out
    assert "by cover alone, unchecked" in result.out
    result = cli("count", "1", "--method", "cover")
    assert result.code == 0, result.err
    assert "1 labelled pyramids, up to symmetry not counted (at least 1)" in result.out


def test_the_renaming_multiplier_is_exact():
    """D4 on the plain CNF (no symmetry broken) counts (2N-1)! times the CNF with the
    first-appearance clauses: each class of renamings has exactly one member there, along
    the geometry's line order or any other."""
    from ilp_pyramid.puzzles.bel.count_cnf import base_cnf, d4_count, precedence

    cnf = base_cnf(2)
    plain = d4_count(cnf.formula.clauses, cnf.num_variables)
    assert plain == len(_every_labelling(2))
    shuffled = np.random.default_rng(1).permutation(len(cnf.pyramid.lines)).tolist()
    for order in (None, shuffled):
        extra, top = precedence(cnf, order)
        assert plain == d4_count(cnf.formula.clauses + extra, top) * math.factorial(3)


def test_fixed_point_counts_are_the_solutions_each_symmetry_fixes():
    """Burnside's terms, D4 on the fixed-point CNF against the solutions filtered by hand."""
    from ilp_pyramid.puzzles.bel.canonical import line_group
    from ilp_pyramid.puzzles.bel.count_cnf import base_cnf, d4_count, fixed_by

    cnf = base_cnf(2)
    group = line_group(2)
    every = _every_labelling(2)
    checked_nonzero = 0
    for g in range(len(group)):
        for pi in ([0, 1, 2], [1, 0, 2], [1, 2, 0]):
            fixed = sum(1 for s in every
                        if all(s[int(group[g][i])] == pi[s[i]] for i in range(len(s))))
            counted = d4_count(cnf.formula.clauses + fixed_by(cnf, group[g], pi),
                               cnf.num_variables, decompose=False)
            assert counted == fixed, (g, pi)
            checked_nonzero += g > 0 and fixed > 0
    assert checked_nonzero  # some symmetry other than the identity fixes a solution


def test_classes_are_the_orbits_of_the_stated_group():
    """Orbits found by closing each labelling under the generators (symmetry.py's, and label
    transpositions), without the canonical form: as many as the methods' classes."""
    from ilp_pyramid.puzzles.bel.symmetry import generators, line_permutation

    n = 2
    m = pyramid(n).num_labels
    moves = [line_permutation(n, g) for g in generators(n)]
    every = _every_labelling(n)
    left, orbits = set(every), 0
    while left:
        orbits += 1
        frontier = [left.pop()]
        while frontier:
            s = frontier.pop()
            images = []
            for perm in moves:
                image = [0] * len(s)
                for i, label in enumerate(s):
                    image[perm[i]] = label
                images.append(tuple(image))
            for a, b in ((0, 1), (1, 2)) if m == 3 else ():
                images.append(tuple(b if v == a else a if v == b else v for v in s))
            for image in images:
                assert image in every  # a symmetry maps solutions to solutions
                if image in left:
                    left.remove(image)
                    frontier.append(image)
    assert orbits == count_by_sat(n).classes


def test_a_time_limit_gives_lower_bounds_not_a_count():
    report = count(3, ["search"], time_limit=1.0)
    assert report.labelled is None and report.methods[0].status == TIMEOUT
    data = report.to_dict()
    assert data["status"] == TIMEOUT and data["labelled"] is None
    assert data["labelled_at_least"] == (report.methods[0].labelled or 0)


def test_approxmc_brackets_the_exact_count():
    pytest.importorskip("pyapproxmc")
    report = count(2, ["sat"], approx=(0.8, 0.2, 1))
    estimate = report.methods[-1]
    assert estimate.method == "approxmc" and estimate.status == "estimate"
    assert estimate.detail["low"] <= report.labelled <= estimate.detail["high"]


# --- cube-and-count (--split) --------------------------------------------------------------


def _split_formula(n: int):
    from ilp_pyramid.puzzles.bel.count_cnf import base_cnf, precedence
    from ilp_pyramid.puzzles.bel.count_split import line_order

    cnf = base_cnf(n)
    extra, top = precedence(cnf, line_order(n))
    return (cnf.formula.clauses + extra, lambda cube: [[cnf.line_var(i, v)] for i, v in cube],
            top)


def test_the_pieces_partition_the_enumerated_solutions_and_d4_counts_each():
    """Each enumerated solution falls in exactly one piece, and D4's count of every piece is
    the number that fall in it: the pieces are disjoint and leave nothing out."""
    from ilp_pyramid.puzzles.bel.count_cnf import d4_count
    from ilp_pyramid.puzzles.bel.count_split import line_order, open_cubes

    order = line_order(2)
    rows = _sat_rows(2, order)
    assert len(rows) * math.factorial(3) == len(_every_labelling(2))
    clauses, units, top = _split_formula(2)
    pieces = open_cubes({}, order, 3, 4)
    assert len(pieces) == 14  # first-appearance labellings of 4 lines with 3 labels
    home = np.zeros(len(rows), dtype=int)
    for cube in pieces:
        inside = np.all([rows[:, line] == label for line, label in cube], axis=0)
        home += inside
        assert d4_count(clauses + units(cube), top, decompose=False) == int(inside.sum()), cube
    assert np.all(home == 1)


def test_split_counts_by_d4_and_ganak_sum_to_the_whole_count():
    pytest.importorskip("pyganak", reason="the count extra (pyganak) is not installed")
    from ilp_pyramid.puzzles.bel.count_split import cnf_pieces, count_split

    clauses, units, top = _split_formula(2)
    whole = len(_sat_rows(2, tuple(range(len(pyramid(2).lines)))))
    for method, depth in (("d4", 3), ("ganak", 2)):  # ganak: few calls, each has a fixed cost
        tally = count_split(method, 2, cnf_pieces(method, clauses, units, top), depth, jobs=2)
        assert tally.complete and tally.open == 0, method
        assert tally.models == whole, method


def test_a_split_count_resumes_from_its_record_and_splits_pieces_again(tmp_path, monkeypatch):
    """A record cut short (a kill mid-line too) is gone on from: only the missing pieces are
    counted again. A piece recorded as split again is replaced by its children. The progress
    kept piece by piece ends where the record's tally does."""
    from ilp_pyramid.puzzles.bel import count_split as split_module
    from ilp_pyramid.puzzles.bel.count_split import children, cnf_pieces, count_split, line_order

    clauses, units, top = _split_formula(2)
    first = count_split("d4", 2, cnf_pieces("d4", clauses, units, top), 2,
                        record_dir=tmp_path)
    assert first.complete and first.counted == 2
    (path,) = tmp_path.glob("count-*.jsonl")
    lines = path.read_text().splitlines()
    header, rows = lines[0], [json.loads(line) for line in lines[1:]]
    order = line_order(2)
    split_row = {"cube": rows[0]["cube"], "status": "split", "line": order[2],
                 "children": children(tuple(map(tuple, rows[0]["cube"])), 3), "refuted": [],
                 "cpu": 0.5}
    path.write_text("\n".join([header, json.dumps(split_row), '{"cube": [[9']) + "")
    monkeypatch.setattr(split_module, "PROGRESS_SECONDS", 0.0)
    seen: list[dict] = []
    again = count_split("d4", 2, cnf_pieces("d4", clauses, units, top), 2, record_dir=tmp_path,
                        progress=seen.append)
    assert again.complete and again.models == first.models
    assert seen and seen[-1] == again.to_dict()
    assert [s["pieces_open"] for s in seen] == sorted(s["pieces_open"] for s in seen)[::-1]
    assert again.split == 1 and again.counted == 1 + len(split_row["children"])
    kept = [json.loads(line) for line in path.read_text().splitlines()[2:] if line.endswith("}")]
    assert len(kept) == again.counted  # nothing counted twice


# --- the command line ----------------------------------------------------------------------


def test_count_2_as_typed_counts_by_d4_and_cover_in_a_real_process():
    """`ilp-pyramid count 2`, the counts page's first command, with nothing else: the
    default pair (a #SAT counter on the CNF and a search that shares only the geometry with
    it) agrees on both numbers, and stdout is one JSON object."""
    pytest.importorskip("py_d4", reason="the count extra is not installed")
    run = command("count", "2", "--json", timeout=120)
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["methods_agreeing"] == ["d4", "cover"]
    assert (data["labelled"], data["up_to_symmetry"]) == (2112, 31)


def test_the_default_pair_is_d4_and_cover_where_cover_reaches_and_sat_stands_in(monkeypatch):
    from ilp_pyramid.puzzles.bel import count_cover

    assert COVER_MAX_N == count_cover.MAX_N  # kept apart only so as not to load numba
    monkeypatch.setattr(count_module, "available", lambda module: True)
    assert [default_methods(n) for n in (1, 3, 4, 5)] == [["d4", "cover"]] * 2 + [
        ["d4", "ganak"]] * 2
    monkeypatch.setattr(count_module, "available", lambda module: module != "py_d4")
    assert default_methods(2) == ["sat", "cover"] and default_methods(4) == ["sat", "ganak"]
    monkeypatch.setattr(count_module, "available", lambda module: False)
    assert default_methods(2) == ["sat", "cover"] and default_methods(4) == ["sat"]


def test_count_json_is_one_object_and_exit_0(cli):
    result = cli("count", "2", "--json", "--method", "sat,search")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["status"] == COUNTED and data["methods_agreeing"] == ["sat", "search"]
    assert data["labelled"] == count_by_search(2).labelled
    assert data["group"]["order"] == 16 * 6


@pytest.mark.parametrize("args", [["0"], ["6"], ["2", "--method", "nope"], ["2", "--method", ","],
                                  ["two"], ["2", "--time-limit", "-1"],
                                  ["2", "--record", "x"], ["2", "--split", "18"],
                                  ["2", "--split", "2", "--cube-time", "0"]])
def test_bad_input_is_exit_2_with_one_line(cli, args):
    result = cli("count", *args)
    assert result.code == 2
    assert result.out == ""
    assert len(result.err.strip().splitlines()) == 1


def test_time_limit_is_exit_3_with_bounds_in_json(cli):
    result = cli("count", "3", "--method", "search", "--time-limit", "1", "--json")
    assert result.code == 3
    data = json.loads(result.out)
    assert data["status"] == TIMEOUT and data["labelled"] is None


def test_split_count_json_is_one_object_and_exit_0(cli, tmp_path):
    result = cli("count", "2", "--json", "--method", "d4", "--split", "3", "--record",
                 str(tmp_path))
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["status"] == COUNTED
    assert data["labelled"] == len(_every_labelling(2))
    assert data["up_to_symmetry"] == count_by_search(2).classes
    split = data["methods"][0]["detail"]["split"]
    assert split["complete"] and split["pieces_open"] == 0
    assert Path(split["record"]).parent == tmp_path


def test_a_split_count_at_its_time_limit_is_exit_3_with_a_lower_bound(cli):
    result = cli("count", "3", "--method", "d4", "--split", "5", "--time-limit", "1", "--json")
    assert result.code == 3, result.err
    data = json.loads(result.out)
    assert data["status"] == TIMEOUT and data["labelled"] is None
    split = data["methods"][0]["detail"]["split"]
    assert not split["complete"] and split["pieces_open"] > 0
    assert data["labelled_at_least"] == split["models"] * math.factorial(5)


@pytest.mark.parametrize("method, sig, code", [("d4", signal.SIGINT, 130),
                                              ("ganak", signal.SIGTERM, 143),
                                              ("sat", signal.SIGTERM, 143),
                                              ("d4 --split 5 -j 2", signal.SIGINT, 130)])
def test_a_signal_stops_a_count_within_2_s_and_leaves_no_child(method, sig, code):
    """D4, Ganak and the SAT enumeration run in a forked child, a split count's cubes one
    child each: they go with the command."""
    if method == "ganak":
        pytest.importorskip("pyganak", reason="the count extra (pyganak) is not installed")
    name, *more = method.split()
    stopped = signal_at_work(["count", 4, "--method", name, *more], sig,
                             lambda pid: bool(live_children(pid)))
    assert stopped.code == code, stopped.err
    assert stopped.seconds < 2.0
    assert stopped.out == ""
    assert not left_alive(stopped.children)


# --- N = 3, the committed results ----------------------------------------------------------


def _committed(n: int) -> dict:
    for line in RESULTS.read_text().splitlines():
        record = json.loads(line)
        if record["result"]["n"] == n and record["result"]["status"] == COUNTED:
            return record["result"]
    pytest.skip(f"no finished count of N={n} in {RESULTS.name}")


def test_the_committed_n2_count_is_what_the_methods_give_now():
    committed = _committed(2)
    fresh = count_by_sat(2)
    assert (committed["labelled"], committed["up_to_symmetry"]) == (fresh.labelled,
                                                                    fresh.classes)


def test_knuths_estimate_is_exact_when_nothing_is_sampled_and_near_it_when_sampled():
    """Walks that search every position in full count the tree; random walks estimate it
    without bias (here within four standard errors, seed fixed)."""
    from ilp_pyramid.puzzles.bel.count_search import estimate

    geo = pyramid(2)
    found = count_by_search(2)
    full = estimate(geo, 2, exhaust=len(geo.lines))
    assert full.solutions == found.detail["found_up_to_renaming"]
    assert full.nodes == found.detail["nodes"] + 1  # the root
    assert full.solutions_error == 0
    sampled = estimate(geo, 3000, seed=3)
    assert 0 < sampled.walks_to_a_solution < 3000
    assert abs(sampled.solutions - full.solutions) < 4 * sampled.solutions_error


def test_a_table_row_of_a_split_count_says_what_its_pieces_cost_over_every_run():
    """A count that goes on from a record spends little in its last run: the row shows the
    record's CPU too, not only the run's."""
    from ilp_pyramid.puzzles.bel.count import table_row

    result = {"n": 3, "status": COUNTED, "labelled": 10, "up_to_symmetry": 1,
              "group": {"geometric": 64, "label_permutations": 120},
              "methods": [{"method": "cover", "status": COUNTED, "cpu_seconds": 2.5,
                           "detail": {"fixed_point_counts": 195,
                                      "split": {"piece_cpu_seconds": 9000.4},
                                      "split fixed by g6": {"piece_cpu_seconds": 1000.2}}}]}
    row = table_row(result, "ilp-pyramid count 3", 3.0)
    assert row["methods"] == "cover counted 2.5 CPU s (its pieces 10,001 CPU s over every run)"
    del result["methods"][0]["detail"]
    assert table_row(result, "c", 3.0)["methods"] == "cover counted 2.5 CPU s"


@pytest.mark.slow  # three runs of the script and two counts: the default suite's budget is tight
def test_the_compare_script_checks_one_split_count_against_another_piece_by_piece(tmp_path):
    """docs/scripts/count_compare.py, as a reader runs it: N=2 by cover three lines deep
    against D4 five lines deep (each piece of the first against the sum below it), then with
    one of D4's pieces altered, then one record cut short (its piece left uncompared)."""
    import subprocess
    import sys

    from ilp_pyramid.puzzles.bel.count_cover import count_piece, cover_tables
    from ilp_pyramid.puzzles.bel.count_split import cnf_pieces, count_split

    pytest.importorskip("py_d4", reason="the count extra (d4Solver) is not installed")
    tables = cover_tables(2)
    count_split("cover", 2, lambda cube: (count_piece(tables, [v for _, v in cube]).models,
                                          "cover"), 3, tmp_path / "cover", jobs=2)
    clauses, units, top = _split_formula(2)
    count_split("d4", 2, cnf_pieces("d4", clauses, units, top), 5, tmp_path / "d4", jobs=2)
    (cover,), (d4,) = ((tmp_path / name).glob("count-*.jsonl") for name in ("cover", "d4"))
    script = ROOT / "docs" / "scripts" / "count_compare.py"

    def compare() -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(script), str(cover), str(d4)],
                              capture_output=True, text=True, timeout=60, check=False)

    done = compare()
    pieces = len(cover.read_text().splitlines()) - 1
    assert done.returncode == 0, done.stderr
    assert f"{pieces} of the {pieces} pieces cover (depth 3)" in done.stdout
    assert "0 differ" in done.stdout and "352 models" in done.stdout  # 2,112 / 3!
    lines = d4.read_text().splitlines()
    rows = [json.loads(line) for line in lines[1:]]
    k = next(i for i, row in enumerate(rows) if row["count"])
    rows[k]["count"] += 1
    d4.write_text("\n".join([lines[0], *map(json.dumps, rows)]) + "\n")
    done = compare()
    assert done.returncode == 1 and "1 differ" in done.stdout
    assert f"differ: {[label for _, label in rows[k]['cube'][:3]]}" in done.stdout
    d4.write_text("\n".join([lines[0], *map(json.dumps, rows[:k] + rows[k + 1:])]) + "\n")
    done = compare()  # the altered piece gone: its piece of cover's is open, not compared
    assert done.returncode == 0 and f"{pieces - 1} of the {pieces} pieces" in done.stdout
