"""The study (docs/study.md) and the README's MIP-vs-SAT table come from one results file,
docs/data/study.jsonl, written by the bench commands of `docs/scripts/measure.sh study`: those
commands hold every run of the file (run again with --resume, they run nothing), the file
holds no run of another command, and every family the study names has at least two MIP and
two SAT solvers (plus RC2 on the optimisation puzzle and DLX on the exact covers)."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import sys
from pathlib import Path

from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "data" / "study.jsonl"
PUZZLES = {"bel", "insanity", "iq", "views", "sudoku-cube"}


def study_commands() -> list[list[str]]:
    """The bench command lines of measure.sh's study stage, its `$B "${R[@]}"` expanded."""
    text = (ROOT / "docs" / "scripts" / "measure.sh").read_text()
    body = re.search(r"^study\(\) \{\n(.*?)^\}", text, re.S | re.M)[1].replace("\\\n", " ")
    shared = shlex.split(re.search(r'^local R=\((.*)\)$', body, re.M)[1])
    return [shared + shlex.split(line.split('"${R[@]}"', 1)[1])
            for line in body.splitlines() if line.startswith('$B "${R[@]}"')]


def records() -> list[dict]:
    return [json.loads(line) for line in RESULTS.read_text().splitlines() if line.strip()]


def test_the_study_stage_holds_every_run_of_the_file(tmp_path):
    commands = study_commands()
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

    families: dict[str, set[str]] = {}
    for record in records():
        families.setdefault(record["puzzle"], set()).add(solver(record["solver"]).family)
    assert set(families) == PUZZLES
    counts = {}
    for record in records():
        kinds = counts.setdefault(record["puzzle"], {})
        kinds.setdefault(solver(record["solver"]).family, set()).add(record["solver"])
    for puzzle, kinds in counts.items():
        assert len(kinds["mip"]) >= 2 and len(kinds["sat"]) >= 2, (puzzle, kinds)
    assert "maxsat" in counts["views"]
    assert "dlx" in counts["iq"] and "dlx" in counts["insanity"]


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
        if record["puzzle"] == "views" and record["status"] == "solved":
            optima.setdefault(scores.instance_of(record), set()).add(record["result"]["cubes"])
    assert optima and all(len(found) == 1 for found in optima.values()), optima


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


def test_the_next_studys_grids_are_valid_and_take_the_solvers_seeds(tmp_path):
    """measure.sh's hard_study (the ramps to the hard end, docs/study.md) names only grids
    the bench builds: known puzzles, sizes, solvers and strategy sets; every step of a
    generated ramp runs with solver seeds, and the whole fits the 3-hour budget unless most
    runs time out."""
    from ilp_pyramid.bench.grid import parse_axis, parse_list, parse_sizes, puzzle_runs

    calls = [argv for argv in dry_run("hard_study", tmp_path) if argv[:1] == ["bench"]
             and argv[1] not in ("plot", "render")]
    assert len(calls) >= 10
    runs = 0
    for argv in calls:
        options: dict[str, list[str]] = {}
        words = iter(argv[1:])
        for flag in words:
            options.setdefault(flag, []).append("" if flag == "--resume" else next(words))
        assert options["--time-limit"] == ["120"] and options["--results"] == \
            ["docs/data/study.jsonl"]
        if "--command" in options:
            runs += len(options["--command"]) * int(options["--repeat"][0])
            continue
        seeds = int(options.get("--solver-seeds", ["0"])[0])
        specs = puzzle_runs(options["--puzzle"][0], parse_sizes(options["--n"][0]),
                            parse_list(options["--solver"][0], "solver"),
                            [parse_axis(text) for text in options.get("--grid", [])], 120.0,
                            int(options["--repeat"][0]), solver_seeds=seeds)
        if any(spec.seeded for spec in specs):
            assert seeds >= 2, argv  # generated instances: the solver's own seeds too
        else:
            assert int(options["--repeat"][0]) >= 3, argv  # repeat r: solver seed r-1
        runs += len(specs)
    # a few hundred runs: most answer in seconds, a hard tier in minutes
    assert 500 < runs < 2000
