"""The study (docs/study.md) and the README's MIP-vs-SAT table come from one results file,
docs/data/study.jsonl, written by the bench commands of `docs/scripts/measure.sh study`: those
commands hold every run of the file (run again with --resume, they run nothing), the file
holds no run of another command, and every family the study names has at least two MIP and
two SAT solvers (plus RC2 on the optimisation puzzle and DLX on the exact covers)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "data" / "study.jsonl"
PUZZLES = {"bel", "insanity", "iq", "views", "sudoku-cube"}


def records() -> list[dict]:
    return [json.loads(line) for line in RESULTS.read_text().splitlines() if line.strip()]


def study_calls(tmp_path: Path) -> list[list[str]]:
    """The bench command lines of measure.sh's study stage (its plots and renders left out)."""
    return [argv[1:] for argv in dry_run("study", tmp_path)
            if argv[:1] == ["bench"] and argv[1] not in ("plot", "render")]


def test_the_study_stage_holds_every_run_of_the_file(tmp_path, monkeypatch):
    from ilp_pyramid.backends import solvers

    # the in-process bench registers the study's outside solvers: the table as it was after
    monkeypatch.setattr(solvers, "SOLVERS", list(solvers.SOLVERS))
    monkeypatch.setattr(solvers, "_BY_NAME", dict(solvers._BY_NAME))
    commands = study_calls(tmp_path)
    assert len(commands) >= 5
    copy = tmp_path / "study.jsonl"
    shutil.copyfile(RESULTS, copy)
    for words in commands:
        words = [str(copy) if w == "docs/data/study.jsonl" else w for w in words]
        # In this process: a bench with every run already done starts no process of its own.
        done = run_cli("bench", *words)
        assert done.code == 0, done.err
        assert "already done" in done.out, done.out[-500:]
    assert copy.read_bytes() == RESULTS.read_bytes()  # nothing was missing: nothing ran
    # ... and the file holds the runs of these commands only.
    assert len({json.dumps(r["bench_argv"]) for r in records()}) == len(commands)


def test_every_family_has_two_mip_and_two_sat_solvers_and_the_rest_where_they_apply():
    from ilp_pyramid import solver

    counts: dict[str, dict[str, set[str]]] = {}
    for record in records():
        if "--solver-command" in record["argv"] or not record.get("puzzle"):
            continue  # an outside solver's run, or a template's (IQ's counts): below
        kinds = counts.setdefault(record["puzzle"], {})
        kinds.setdefault(solver(record["solver"]).family, set()).add(record["solver"])
    assert set(counts) == PUZZLES
    for puzzle, kinds in counts.items():
        assert len(kinds["mip"]) >= 2 and len(kinds["sat"]) >= 2, (puzzle, kinds)
    assert "maxsat" in counts["views"]
    assert "dlx" in counts["iq"] and "dlx" in counts["insanity"]
    # outside solvers, columns of their own: picosat on the CNF families, GLPK on views
    outside = {(r["puzzle"], r["solver"]) for r in records() if "--solver-command" in r["argv"]}
    assert {("bel", "picosat"), ("insanity", "picosat"), ("iq", "picosat"),
            ("sudoku-cube", "picosat"), ("views", "glpk")} <= outside
    # IQ's hard task, counting every filling, by three solver families
    counting = {r["solver"] for r in records() if r.get("label") == "iq-count"}
    assert {"dlx", "cpsat"} <= counting and len(counting) >= 3


def test_no_run_failed_and_no_two_solvers_disagree():
    """An answer that fails the independent check is an error, not `solved`: none here; no
    instance is solved by one run and infeasible by another; on the views puzzle every solver
    that proved an optimum found the same fewest cubes."""
    from ilp_pyramid.bench import scores

    for record in records():
        assert record["status"] in ("solved", "infeasible", "timeout", "feasible"), record["key"]
    for family in scores.families(records()):
        assert not family.disagreements, (family.name, family.disagreements)
    optima: dict[str, set[int]] = {}
    for record in records():
        if record.get("puzzle") == "views" and record["status"] == "solved":
            optima.setdefault(scores.instance_of(record), set()).add(record["result"]["cubes"])
    assert optima and all(len(found) == 1 for found in optima.values()), optima
    # every finished count of a board is the same number, whoever counted
    counts: dict[str, set[int]] = {}
    for record in records():
        if record.get("label") == "iq-count" and record["status"] == "solved":
            counts.setdefault(record["params"]["board"], set()).add(
                record["result"]["solutions"])
    assert counts and all(len(found) == 1 for found in counts.values()), counts


def dry_run(stage: str, tmp_path: Path) -> list[list[str]]:
    """The `ilp-pyramid` command lines a measure.sh stage runs, as bash expands them: run with
    a `python` on PATH that only writes its arguments down (FRESH=0: no file is removed)."""
    import os
    import subprocess

    log = tmp_path / "argv.jsonl"
    fake = tmp_path / "bin" / "python"
    fake.parent.mkdir()
    fake.write_text(f"#!{sys.executable}\nimport json, sys\n"
                    f"with open({str(log)!r}, 'a') as out:\n"
                    "    out.write(json.dumps(sys.argv[1:]) + '\\n')\n")
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{fake.parent}:{os.environ['PATH']}", "FRESH": "0"}
    script = ROOT / "docs" / "scripts" / "measure.sh"
    run = subprocess.run(["bash", str(script), stage], env=env,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return [json.loads(line)[2:] for line in log.read_text().splitlines()]


# Steps run once per instance and solver seed 0 only: a family shown failing in the limit.
ONE_RUN_STEPS = {("bel", "4", "highs,scip"), ("views", "10", "kissat,rc2")}


def test_the_studys_grids_are_valid_and_take_the_solvers_seeds(tmp_path, monkeypatch):
    """measure.sh's study (the ramps to the hard end, docs/study.md) names only grids the
    bench builds: known puzzles, sizes, solvers and strategy sets; every step runs each solver
    at least twice (two generated instances, or the solver's own seeds) but the steps that
    show a family failing; one time limit; a run count that fits the budget."""
    from ilp_pyramid.backends import outside, solvers
    from ilp_pyramid.bench.grid import parse_axis, parse_list, parse_sizes, puzzle_runs

    # the study's outside solvers leave the table as it was
    monkeypatch.setattr(solvers, "SOLVERS", list(solvers.SOLVERS))
    monkeypatch.setattr(solvers, "_BY_NAME", dict(solvers._BY_NAME))

    calls = study_calls(tmp_path)
    assert len(calls) >= 10
    runs = 0
    for argv in calls:
        options: dict[str, list[str]] = {}
        words = iter(argv)
        for flag in words:
            options.setdefault(flag, []).append("" if flag == "--resume" else next(words))
        for spec in options.get("--solver-command", []):
            outside.register(spec)
        assert options["--time-limit"] == ["120"] and options["--results"] == \
            ["docs/data/study.jsonl"]
        repeat = int(options.get("--repeat", ["1"])[0])
        if "--command" in options:
            (template,) = options["--command"]
            grid = [parse_axis(text) for text in options.get("--grid", [])]
            points = 1
            for axis in grid:
                points *= len(axis[1])
            runs += points * len(parse_list(options["--solver"][0], "solver")) * repeat
            continue
        seeds = int(options.get("--solver-seeds", ["1"])[0])
        specs = puzzle_runs(options["--puzzle"][0], parse_sizes(options["--n"][0]),
                            parse_list(options["--solver"][0], "solver"),
                            [parse_axis(text) for text in options.get("--grid", [])], 120.0,
                            repeat, solver_seeds=seeds if "--solver-seeds" in options else 0)
        step = (options["--puzzle"][0], options["--n"][0], options["--solver"][0])
        if step not in ONE_RUN_STEPS:
            assert repeat * seeds >= 2, argv
        runs += len(specs)
    # several hundred runs: most answer in seconds, a hard tier in minutes
    assert 500 < runs < 1500, runs
