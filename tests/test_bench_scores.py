"""`bench report --score` and `bench plot`: PAR-2, the virtual best solver, cactus and
performance-profile data, computed from any results file."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from ilp_pyramid.bench import scores
from ilp_pyramid.bench.records import SCHEMA

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 10.0
STARTUP = 0.25  # what a run's process spends outside the solver, in these records
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

# solver -> instance (n) -> the repeats' (status, wall seconds)
RUNS = {
    "highs": {1: [("solved", 1.0), ("solved", 3.0), ("solved", 2.0)],   # median 2
              2: [("solved", 4.0), ("solved", 5.0), ("solved", 6.0)],   # 5
              3: [("solved", 1.0), ("solved", 1.5), ("solved", 0.5)],   # 1
              4: [("timeout", 10.5), ("timeout", 10.4), ("timeout", 10.6)]},  # unsolved: 20
    "kissat": {1: [("solved", 0.5), ("solved", 0.7), ("solved", 0.6)],  # 0.6
               2: [("solved", 8.0), ("solved", 9.0), ("solved", 7.0)],  # 8
               3: [("solved", 2.0), ("solved", 2.0), ("solved", 2.0)],  # 2
               4: [("solved", 3.0), ("timeout", 10.3), ("solved", 4.0)]},  # median(3, 4, inf)
    "cbc": {1: [("solved", 1.0), ("solved", 1.0), ("solved", 1.0)],     # 1
            2: [("solved", 2.0), ("solved", 2.5), ("solved", 3.0)],     # 2.5
            3: [("solved", 0.25), ("solved", 0.75), ("solved", 0.5)],   # 0.5
            4: [("solved", 9.0), ("solved", 9.5), ("solved", 8.5)]},    # 9
}
# By hand: the mean over the 4 instances of the median time, 2 x 10 s where unsolved.
PAR2 = {"highs": (2 + 5 + 1 + 20) / 4, "kissat": (0.6 + 8 + 2 + 4) / 4,
        "cbc": (1 + 2.5 + 0.5 + 9) / 4}
SOLVED = {"highs": 3, "kissat": 4, "cbc": 4}
# Per instance the best solver's median: 0.6 (kissat), 2.5 (cbc), 0.5 (cbc), 4 (kissat).
VBS = (0.6 + 2.5 + 0.5 + 4) / 4
# Repeat r ran with solver seed r - 1: PAR-2 over each seed's runs alone, lowest and highest.
SEED_PAR2 = {"highs": ((1 + 4 + 1 + 20) / 4, (3 + 5 + 1.5 + 20) / 4),  # seeds 0 and 1
             "kissat": ((0.5 + 8 + 2 + 3) / 4, (0.7 + 9 + 2 + 20) / 4),  # seeds 0 and 1
             "cbc": ((1 + 2 + 0.25 + 9) / 4, (1 + 2.5 + 0.75 + 9.5) / 4)}  # seeds 0 and 1


def record(solver, params, repeat, status, wall, puzzle=None, limit=LIMIT, **extra):
    """A run whose solver took `wall` seconds (scores use the solver's time by default) and
    whose process took STARTUP more."""
    out = {"key": f"{puzzle} {params} {solver} {repeat}", "schema": SCHEMA, "solver": solver,
           "repeat": repeat, "seed": repeat - 1, "time_limit": limit, "status": status,
           "solve_seconds": wall, "wall_seconds": wall + STARTUP, **extra}
    if puzzle:
        out |= {"puzzle": puzzle, "params": params}
    else:  # a Bel-grid record from before: no puzzle, its grid point at the top level
        out |= params
    return out


def grid_records(puzzle=None) -> list[dict]:
    return [record(solver, {"n": n, "formulation": "counts"}, r, status, wall, puzzle)
            for solver, instances in RUNS.items() for n, runs in instances.items()
            for r, (status, wall) in enumerate(runs, 1)]


def write(path: Path, records) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_par2_and_the_virtual_best_by_hand(cli, tmp_path):
    path = write(tmp_path / "runs.jsonl", grid_records())
    result = cli("bench", "report", path, "--score", "par2", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert (data["score"], data["aggregate"], data["repeats"]) == ("par2", "mean", "median")
    (family,) = data["families"]
    assert family["family"] == "bel"  # records without a puzzle
    assert family["instances"] == 4 and family["time_limits"] == [LIMIT]
    rows = {row["solver"]: row for row in family["solvers"]}
    assert {s: row["score"] for s, row in rows.items()} == pytest.approx(PAR2)
    assert {s: row["solved"] for s, row in rows.items()} == SOLVED
    assert [row["solver"] for row in family["solvers"]] == sorted(PAR2, key=PAR2.get)
    assert rows["highs"]["timeout_runs"] == 3 and rows["kissat"]["timeout_runs"] == 1
    assert family["virtual_best"]["score"] == pytest.approx(VBS)
    assert family["virtual_best"]["solved"] == 4
    assert [i["best"] for i in family["per_instance"]] == pytest.approx([0.6, 2.5, 0.5, 4])

    text = cli("bench", "report", path, "--score", "par2")
    assert text.code == 0, text.err
    lines = text.out.splitlines()
    assert "mean" in lines[0] and "median" in lines[0] and "2 x the time limit" in lines[1]
    assert any(line.startswith("bel: 4 instances, time limit 10 s") for line in lines)
    table = {line.split()[0]: line.split()[1:] for line in lines
             if line.split() and line.split()[0] in PAR2}
    # beside each score, its range over the solver's seeds
    assert table == {s: ["4", str(SOLVED[s]), f"{PAR2[s]:.2f}",
                         "{:.2f}-{:.2f}".format(*SEED_PAR2[s])] for s in PAR2}
    assert {s: row["score_range"] for s, row in rows.items()} == \
        {s: pytest.approx(list(span)) for s, span in SEED_PAR2.items()}
    assert [line for line in lines if line.startswith("virtual best")][0].split()[2:] == \
        ["4", "4", f"{VBS:.2f}", "-"]
    # aligned: every row of the table ends in the same column
    rows_text = [line for line in lines if line.split() and line.split()[0] in
                 (*PAR2, "solver", "virtual")]
    assert len({len(line) for line in rows_text}) == 1


def test_families_instances_and_filters(cli, tmp_path):
    path = write(tmp_path / "runs.jsonl", grid_records() + grid_records("insanity"))
    data = json.loads(cli("bench", "report", path, "--score", "par2", "--json").out)
    assert [f["family"] for f in data["families"]] == ["bel", "insanity"]
    assert all(f["virtual_best"]["score"] == pytest.approx(VBS) for f in data["families"])
    assert [i["instance"] for i in data["families"][1]["per_instance"]] == \
        [f"n={n} formulation=counts" for n in (1, 2, 3, 4)]
    some = json.loads(cli("bench", "report", path, "--score", "par10", "--json",
                          "--where", "n=4", "--where", "solver=highs,cbc").out)
    rows = {r["solver"]: r["score"] for r in some["families"][0]["solvers"]}
    assert rows == {"cbc": 9.0, "highs": 100.0}  # PAR-10: 10 x the limit


def test_infeasible_proved_counts_solved_and_repeats_need_a_majority(tmp_path):
    runs = [record("highs", {"n": 1}, 1, "infeasible", 2.0),
            record("kissat", {"n": 1}, 1, "infeasible", 1.0),
            record("cbc", {"n": 1}, 1, "timeout", 10.0),
            # an even count: one of two repeats solved it: not solved
            record("highs", {"n": 2}, 1, "solved", 1.0),
            record("highs", {"n": 2}, 2, "timeout", 10.0),
            record("kissat", {"n": 2}, 1, "solved", 3.0),
            record("cbc", {"n": 2}, 1, "infeasible", 0.1)]  # wrong: kissat solved it
    (family,) = scores.families(runs)
    assert family.infeasible == ["n=1"] and family.disagreements == ["n=2"]
    assert family.times("highs") == [2.0, None]
    assert family.times("kissat") == [1.0, 3.0]
    assert family.times("cbc") == [None, None]
    assert family.best() == [1.0, 3.0]


def test_a_solver_param_makes_formulations_solvers_of_one_instance(cli, tmp_path):
    runs = [record("highs", {"n": 3, "formulation": "counts"}, 1, "solved", 4.0, "bel"),
            record("kissat", {"n": 3, "formulation": "ladder"}, 1, "solved", 1.0, "bel")]
    path = write(tmp_path / "runs.jsonl", runs)
    apart = json.loads(cli("bench", "report", path, "--score", "par2", "--json").out)
    assert apart["families"][0]["instances"] == 2
    together = json.loads(cli("bench", "report", path, "--score", "par2", "--json",
                              "--solver-param", "formulation").out)
    family = together["families"][0]
    assert family["instances"] == 1
    assert [r["solver"] for r in family["solvers"]] == ["kissat/ladder", "highs/counts"]
    assert family["virtual_best"]["score"] == 1.0


def test_solver_seconds_by_default_wall_when_asked_and_bad_options(cli, tmp_path):
    runs = [record("highs", {"n": 1}, 1, "solved", 0.5, wall_seconds=2.0),
            record("kissat", {"n": 1}, 1, "solved", 0.75, wall_seconds=1.0),
            # a record from before `solve_seconds`: its `seconds` are the solver's
            record("cbc", {"n": 1}, 1, "solved", 0.25, wall_seconds=3.0, solve_seconds=None,
                   seconds=0.25)]
    path = write(tmp_path / "runs.jsonl", runs)

    def best(*args):
        data = json.loads(cli("bench", "report", path, "--score", "par2", "--json", *args).out)
        assert data["time"] == (args[-1] if args else "solve")
        return data["families"][0]["virtual_best"]["score"]

    assert best() == best("--time", "solve") == 0.25
    assert best("--time", "wall") == 1.0
    no_seconds = write(tmp_path / "wall.jsonl", [{**r, "solve_seconds": None}
                                                 for r in grid_records()])
    assert cli("bench", "report", no_seconds, "--score", "par2", "--time", "wall").code == 0
    for args in ([path, "--score", "par"], [path, "--score", "par2", "--table", "runs"],
                 [path, "--time", "solve"], [path, "--score", "par2", "--time", "cpu"],
                 [path, "--score", "par2", "--solver-param", "colour"],
                 [no_seconds, "--score", "par2"]):
        bad = cli("bench", "report", *args)
        assert bad.code == 2 and len(bad.err.strip().splitlines()) == 1, (args, bad.err)
    assert "--time wall" in bad.err  # the way out for records without the solver's time


def test_the_real_results_file_reports_through_the_cli():
    path = ROOT / "docs" / "data" / "mip_vs_sat.jsonl"
    run = subprocess.run([sys.executable, "-m", "ilp_pyramid", "bench", "report", str(path),
                          "--score", "par2", "--json"], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stderr
    (family,) = json.loads(run.stdout)["families"]
    assert family["family"] == "bel" and family["instances"] == 3
    assert family["time_limits"] == [30.0]
    best = family["virtual_best"]
    assert best["solved"] == max(row["solved"] for row in family["solvers"])
    assert best["score"] <= min(row["score"] for row in family["solvers"])
    text = subprocess.run([sys.executable, "-m", "ilp_pyramid", "bench", "report", str(path),
                           "--score", "par2"], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)
    assert text.returncode == 0, text.stderr
    assert "time limit 30 s" in text.stdout and "virtual best" in text.stdout


def test_cactus_points_are_the_sorted_solved_times():
    assert scores.cactus_points([3.0, None, 1.0, 2.5, None]) == ([1.0, 2.5, 3.0], [1, 2, 3])
    assert scores.cactus_points([None, None]) == ([], [])
    (family,) = scores.families(grid_records())
    xs, ys = scores.cactus_points(family.times("highs"))
    assert xs == [1.0, 2.0, 5.0] and ys == [1, 2, 3]


def test_the_performance_profile():
    (family,) = scores.families(grid_records())
    times = {s: family.times(s) for s in family.solvers}
    times["nothing"] = [None] * len(family.instances)
    ratios = scores.ratios(times)
    best = family.best()
    for solver, solver_times in times.items():
        # at tau = 1: the share of instances where the solver is (one of) the fastest
        fastest = sum(t is not None and t == b for t, b in zip(solver_times, best, strict=True))
        assert scores.fraction_within(ratios[solver], 1.0) == fastest / len(best)
        taus = [1.0, 1.5, 2.0, 4.0, 8.0, 16.0, 1e9]
        curve = [scores.fraction_within(ratios[solver], tau) for tau in taus]
        assert curve == sorted(curve)  # non-decreasing
        solved = sum(t is not None for t in solver_times)
        assert curve[-1] == solved / len(best)
        steps, fractions = scores.profile_steps(ratios[solver])
        assert steps[0] == 1.0 and fractions == sorted(fractions)
    assert all(scores.fraction_within(ratios["nothing"], tau) == 0 for tau in (1, 2, 1e12))
    assert ratios["nothing"] == [math.inf] * 4
    assert ratios["kissat"] == pytest.approx([1.0, 8 / 2.5, 4.0, 1.0])
    assert scores.largest_ratio(ratios) == pytest.approx(max(8 / 2.5, 4.0, 5 / 2.5, 9 / 4))
    tie = scores.ratios({"a": [0.0, 1.0], "b": [0.0, None]})  # a 0 s best is no division
    assert tie == {"a": [1.0, 1.0], "b": [1.0, math.inf]}


@pytest.mark.parametrize("kind", ["cactus", "profile"])
def test_plots_are_written_as_png(cli, tmp_path, kind):
    path = write(tmp_path / "runs.jsonl", grid_records() + grid_records("insanity"))
    out = tmp_path / "plots" / f"{kind}.png"
    result = cli("bench", "plot", path, "--kind", kind, "-o", out, "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["output"] == str(out) and [f["family"] for f in data["families"]] == \
        ["bel", "insanity"]
    content = out.read_bytes()
    assert content.startswith(PNG_SIGNATURE) and len(content) > len(PNG_SIGNATURE)
    assert [p.name for p in out.parent.iterdir()] == [out.name]  # no temp file left


def test_plot_without_matplotlib_is_the_install_hint(cli, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    path = write(tmp_path / "runs.jsonl", grid_records())
    result = cli("bench", "plot", path, "-o", tmp_path / "c.png")
    assert result.code == 2
    assert "pip install 'ilp-pyramid[pictures]'" in result.err
    assert len(result.err.strip().splitlines()) == 1
    assert not (tmp_path / "c.png").exists()
    assert cli("bench", "plot", path, "--kind", "pie", "-o", tmp_path / "c.png").code == 2


def test_a_par2_block_renders_the_report_scores(cli, tmp_path):
    """`table=par2` in a page's marker gives the same PAR-2 and virtual best as `bench report
    --score par2`, per family, ranked, with the limit stated; filters apply first."""
    write(tmp_path / "runs.jsonl", grid_records("bel") + [
        record("dlx", {"n": 9}, 1, "timeout", 31.0, "iq", limit=30.0),
        record("dlx", {"n": 10}, 1, "solved", 3.0, "iq", limit=30.0),
        record("kissat", {"n": 10}, 1, "solved", 1.0, "iq", limit=30.0)])
    page = tmp_path / "study.md"
    page.write_text("<!-- bench:runs.jsonl:table=par2 -->\n<!-- /bench -->\n"
                    "<!-- bench:runs.jsonl:table=par2:solver=highs -->\n<!-- /bench -->\n")
    assert cli("bench", "render", page).code == 0
    whole, highs_only = page.read_text().split("<!-- /bench -->")[:2]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in whole.splitlines()
            if line.startswith("| bel") or line.startswith("| iq")]
    bel = [r for r in rows if r[0] == "bel"]
    assert [r[1] for r in bel] == ["cbc", "kissat", "highs", "virtual best"]  # by score
    for _, solver, instances, solved, score, spread in bel[:3]:
        assert (int(instances), int(solved)) == (4, SOLVED[solver])
        assert float(score) == pytest.approx(PAR2[solver], abs=0.005)
        assert spread == "{:.2f}-{:.2f}".format(*SEED_PAR2[solver])
    assert float(bel[3][4]) == pytest.approx(VBS, abs=0.005)
    # n=9 unsolved: 2 x its 30 s limit; kissat never ran n=9: unsolved too, and said so.
    # One run per instance: no spread over seeds.
    assert ["iq", "dlx", "2", "1", f"{(60 + 3) / 2:.2f}", "-"] in rows
    assert ["iq", "kissat", "2", "1", f"{(60 + 1) / 2:.2f}", "-"] in rows
    assert "instances not run (counted unsolved): kissat 1" in whole
    assert "bel: time limit 10 s;" in whole and "iq: time limit 30 s," in whole
    assert "| bel | kissat |" not in highs_only and "| bel | highs |" in highs_only
    assert cli("bench", "render", page, "--check").code == 0


def test_the_wide_par2_block_has_a_row_per_family_and_a_column_per_solver(cli, tmp_path):
    write(tmp_path / "runs.jsonl", grid_records("bel") + [
        record("dlx", {"n": 9}, 1, "timeout", 31.0, "iq", limit=30.0),
        record("dlx", {"n": 10}, 1, "solved", 3.0, "iq", limit=30.0)])
    page = tmp_path / "readme.md"
    page.write_text("<!-- bench:runs.jsonl:table=par2-wide -->\n<!-- /bench -->\n")
    assert cli("bench", "render", page).code == 0
    rows = [[c.strip() for c in line.strip("|").split("|")]
            for line in page.read_text().splitlines() if line.startswith("| ")]
    assert rows[0] == ["family", "instances", "highs", "kissat", "cbc", "dlx", "virtual best"]
    bel, iq = rows[1:]
    assert bel[:2] == ["bel", "4"] and bel[5] == "-" and iq[2:5] == ["-", "-", "-"]
    for column, solver in ((2, "highs"), (3, "kissat"), (4, "cbc")):
        spread = "{:.2f}-{:.2f}".format(*SEED_PAR2[solver])
        assert bel[column] == f"{PAR2[solver]:.2f} [{spread}] ({SOLVED[solver]})"
    assert bel[6] == f"{VBS:.2f} (4)"
    assert iq[1] == "2" and iq[5] == iq[6] == f"{(60 + 3) / 2:.2f} (1)"
    assert "cells: PAR-2 mean s [lowest-highest PAR-2 over the solver's seeds" in page.read_text()


def test_generated_instances_picked_by_the_seed_count_apart(cli, tmp_path):
    """Insanity's random n=8 of seed 0 may be solvable and that of seed 1 not: two instances,
    not one with a disagreement; a case whose seed only seeds the solver keeps one."""
    runs = [record(solver, {"n": 8, "instance": "random"}, r, status, wall, "insanity",
                   seeded_instance=True)
            for solver in ("highs", "kissat")
            for r, status, wall in ((1, "solved", 1.0), (2, "infeasible", 2.0))]
    (family,) = scores.families(runs)
    assert family.instances == ["n=8 instance=random seed=0", "n=8 instance=random seed=1"]
    assert family.infeasible == ["n=8 instance=random seed=1"] and not family.disagreements
    data = json.loads(cli("bench", "report", write(tmp_path / "r.jsonl", runs),
                          "--score", "par2", "--json").out)
    assert [row["solved"] for row in data["families"][0]["solvers"]] == [2, 2]
    (bel,) = scores.families([{**r, "puzzle": "bel", "seeded_instance": False} for r in runs])
    assert len(bel.instances) == 1 and bel.disagreements


def test_the_bench_marks_runs_whose_seed_picks_the_instance():
    from ilp_pyramid import protocol
    from ilp_pyramid.bench.grid import puzzle_grid

    cases = [protocol.BenchCase(("insanity", "solve", "--generate", "8"), {"n": 8}, seeded=True),
             protocol.BenchCase(("solve", "3"), {"n": 3})]
    runs = puzzle_grid("x", cases, ["highs"], [], 10.0, 2)
    assert [run.fields().get("seeded_instance") for run in runs] == [True, True, None, None]
    from ilp_pyramid import puzzles

    def seeded(name, sizes=None):
        return {case.seeded for case in protocol.bench_cases(puzzles.get(name), sizes)}

    assert seeded("insanity") == seeded("views") == seeded("sudoku-cube") == {True}
    assert seeded("bel") == {False} and seeded("iq", [0]) == {False}
    assert seeded("iq", [2]) == {True}


def test_a_template_with_a_solver_scores_as_a_family_of_its_own(cli, tmp_path):
    """Real runs: a template taking {solver} is its own family, one column per solver; a
    label-only template stays in "runs" under its label, as before."""
    results = tmp_path / "r.jsonl"
    run = cli("bench", "--results", results, "--n", "1..2", "--solver", "highs,kissat",
              "--time-limit", "20",
              "--command", "sv=solve {n} --solver {solver} --time-limit {time_limit} --json",
              "--command", "auto=solve {n} --json", "--json")
    assert run.code == 0, run.err
    report = cli("bench", "report", results, "--score", "par2", "--json")
    assert report.code == 0, report.err
    families = {f["family"]: f for f in json.loads(report.out)["families"]}
    assert set(families) == {"sv", "runs"}
    assert sorted(row["solver"] for row in families["sv"]["solvers"]) == ["highs", "kissat"]
    assert [row["solver"] for row in families["runs"]["solvers"]] == ["auto"]
    for family in families.values():
        # one instance per N, each solver timed on it: on the solver's own seconds, which
        # `solve --json` reports
        assert [i["instance"].split()[0] for i in family["per_instance"]] == ["n=1", "n=2"]
        assert all(None not in i["seconds"].values() for i in family["per_instance"])
        assert all(row["solved"] == 2 for row in family["solvers"])
    wide = tmp_path / "w.md"
    wide.write_text(f"<!-- bench:{results.name}:table=par2-wide -->\n<!-- /bench -->\n")
    assert cli("bench", "render", wide).code == 0
    header = next(line for line in wide.read_text().splitlines() if line.startswith("| family"))
    assert [cell.strip() for cell in header.split("|")[3:-2]] == ["highs", "kissat", "auto"]
    for kind in ("cactus", "profile"):
        drawn = cli("bench", "plot", results, "--kind", kind, "-o", tmp_path / f"{kind}.png",
                    "--json")
        if drawn.code == 2 and "pictures" in drawn.err:
            pytest.skip("needs the pictures extra")
        assert drawn.code == 0, drawn.err
        assert {f["family"]: f["solvers"] for f in json.loads(drawn.out)["families"]} == \
            {"sv": ["highs", "kissat"], "runs": ["auto"]}


def test_template_records_of_either_kind_by_family_and_solver():
    with_solver = {"label": "iq-count", "solver": "dlx", "params": {"n": None, "board": "t"}}
    label_only = {"label": "auto", "solver": None, "n": 3, "formulation": None}
    assert (scores.family_of(with_solver), scores.solver_of(with_solver)) == ("iq-count", "dlx")
    assert scores.instance_of(with_solver) == "board=t"
    assert (scores.family_of(label_only), scores.solver_of(label_only)) == ("runs", "auto")
    assert scores.instance_of(label_only) == "n=3"


def test_a_command_that_reports_one_time_scores_on_it(cli, tmp_path):
    """`iq count --json` reports `seconds` alone: a template run keeps it as the solver's
    time, as a puzzle grid's run does, so scores on solver time work."""
    program = tmp_path / "count.sh"
    program.write_text('#!/bin/sh\necho \'{"status": "counted", "count": 1, "seconds": 0.5}\'\n')
    program.chmod(0o755)
    results = tmp_path / "r.jsonl"
    run = cli("bench", "--external", f"c={program} {{board}}", "--grid", "board=a,b",
              "--results", results, "--time-limit", "10", "--json")
    assert run.code == 0, run.err
    report = cli("bench", "report", results, "--score", "par2", "--json")
    assert report.code == 0, report.err
    (family,) = json.loads(report.out)["families"]
    assert [i["instance"] for i in family["per_instance"]] == ["board=a", "board=b"]
    assert family["solvers"][0]["score"] == pytest.approx(0.5)
