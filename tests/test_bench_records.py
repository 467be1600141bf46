"""Bench records: every field a figure needs, argv templates and outside commands, and a
results file read back defensively (torn lines, records without status, legacy records)."""

import json
import os
import re
from pathlib import Path

import pytest

from ilp_pyramid.bench.records import SCHEMA, append_record, read_results

LEGACY = Path(__file__).parent / "fixtures" / "bench" / "legacy_mip_vs_sat.jsonl"


def _bench(cli, results, *args):
    return cli("bench", "--results", results, *args)


def test_outside_commands_are_recorded_with_machine_and_command_line(cli, tmp_path):
    results = tmp_path / "r.jsonl"
    # exit codes of the CLI contract: 1 no solution, 2 bad input, 3 time limit
    result = _bench(cli, results, "--n", "1..3", "--repeat", "2", "--time-limit", "5",
                    "--external", "code=/bin/sh -c 'exit $0' {n}", "--json")
    assert result.code == 0, result.err
    records = read_results(results)
    assert [(r["n"], r["repeat"]) for r in records] == [(1, 1), (1, 2), (2, 1), (2, 2),
                                                        (3, 1), (3, 2)]
    status = {1: "infeasible", 2: "error", 3: "timeout"}
    for record in records:
        assert record["schema"] == SCHEMA and not record.get("legacy")
        assert record["label"] == "code" and record["external"] is True
        assert record["argv"] == ["/bin/sh", "-c", "exit $0", str(record["n"])]
        assert record["bench_argv"][:2] == ["ilp-pyramid", "bench"]
        assert "--external" in record["bench_argv"] and "--json" in record["bench_argv"]
        assert record["exit_code"] == record["n"] and record["status"] == status[record["n"]]
        assert record["seed"] is None  # the template takes no {seed}
        assert record["machine"]["cpu_count"] == os.cpu_count()
        assert record["machine"]["python"] and record["machine"]["package_version"]
        assert record["machine"]["platform"] and record["date"][:2] == "20"
        for load in (record["load_before"], record["load_after"]):
            assert len(load) == 3 and all(v >= 0 for v in load)
        assert 0 < record["wall_seconds"] < 5 and 0 <= record["cpu_seconds"] < 5
        assert 0 <= record["peak_rss_mb"] < 40  # the shell's, not the forking bench's
    groups = json.loads(result.out)["groups"]
    assert [(g["n"], g["runs"], g["solved"]) for g in groups] == [(1, 2, 0), (2, 2, 0),
                                                                  (3, 2, 0)]
    assert groups[2]["timeouts"] == 2


def test_package_command_template_and_a_side_by_side_outside_run(cli, tmp_path):
    results = tmp_path / "r.jsonl"
    plot = tmp_path / "p.png"
    result = _bench(cli, results, "--n", "1", "--command", "auto=solve {n} --json",
                    "--external", "ref=/bin/sleep 0.{n}", "--plot", plot)
    assert result.code == 0, result.err
    auto, ref = read_results(results)
    assert auto["label"] == "auto" and auto["argv"][1:5] == ["-m", "ilp_pyramid", "solve", "1"]
    assert auto["status"] == "solved" and auto["result"]["solution"]["Z"] == [[0]]
    # a real process: its CPU is measured (solve 1 starts in well under 0.1 s now)
    assert auto["cpu_seconds"] > 0
    # each its own process's peak: Python with python-sat above /bin/sleep
    assert ref["peak_rss_mb"] < 10 < auto["peak_rss_mb"] < 2000
    assert ref["label"] == "ref" and ref["argv"] == ["/bin/sleep", "0.1"]
    assert ref["status"] == "solved" and ref["wall_seconds"] >= 0.1
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = [line.split() for line in result.out.splitlines() if line.split()[:1] in
             (["auto"], ["ref"])]
    # the package's run names the options of its model (formulation, strategy, card); the
    # outside program none
    assert [row[:7] for row in table] == [["auto", "1", "counts", "none", "seqcounter", "1", "1"],
                                          ["ref", "1", "-", "-", "-", "1", "1"]]
    assert float(table[1][7]) == pytest.approx(ref["wall_seconds"], abs=0.006)


@pytest.mark.parametrize("args, message", [
    (["--command", "solve {n} --x {nope}"], "unknown placeholder"),
    (["--external", "/bin/true"], "give it a label"),
    (["--external", "x=/no/such/program {n}"], "not an executable"),
    (["--command", "solve {n}", "--puzzle", "bel"], "make a puzzle's grid"),
    # a --grid KEY is a placeholder only where given; one no template names is a typo
    (["--command", "solve {n} --strategy {strategy}"], "unknown placeholder {strategy}"),
    (["--command", "solve {n} --strategy {strtegy}", "--grid", "strategy=YStep"],
     "unknown placeholder {strtegy}"),
    (["--command", "solve {n}", "--grid", "strategy=YStep"], "names {strategy}"),
    (["--command", "solve {n} --x {n}", "--grid", "n=1,2"], "a name the bench uses itself"),
    (["--command", "solve {n} --x {solver}", "--grid", "solver=highs"], "the bench uses"),
    (["--command", "'unclosed"], "quotation"),
])
def test_bad_templates_are_one_line_exit_2(cli, tmp_path, args, message):
    result = _bench(cli, tmp_path / "r.jsonl", *args)
    assert result.code == 2 and message in result.err, result
    assert len(result.err.strip().splitlines()) == 1


def test_a_grid_key_fills_its_template_and_each_record_keeps_the_value(cli, tmp_path):
    results = tmp_path / "r.jsonl"
    run = _bench(cli, results, "--n", "2", "--solver", "kissat", "--time-limit", "20",
                 "--command", "s=solve {n} --solver {solver} --strategy {strategy} --json",
                 "--external", "plain=/bin/echo {n}", "--grid", "strategy=none,YStep")
    assert run.code == 0, run.err
    records = read_results(results)
    # the template without {strategy} runs once, not once per value
    assert sorted((r["label"], r["params"].get("strategy")) for r in records) == \
        [("plain", None), ("s", "YStep"), ("s", "none")]
    for record in records:
        if record["label"] == "s":
            assert record["status"] == "solved", record
            assert record["argv"][-3:] == ["--strategy", record["params"]["strategy"], "--json"]
            assert record["params"] == {"n": 2, "formulation": None,
                                        "strategy": record["params"]["strategy"]}
        else:
            assert record["params"] == {"n": 2, "formulation": None}
    assert len({r["key"] for r in records}) == 3
    # tables group by the value: one row each, its own column
    table = cli("bench", "report", results, "--table", "grid", "--where", "label=s")
    assert table.code == 0, table.err
    rows = [line.split("|")[1:-1] for line in table.out.splitlines()
            if line.startswith("| s ")]
    header = [cell.strip() for cell in table.out.splitlines()[0].split("|")[1:-1]]
    assert sorted(row[header.index("strategy")].strip() for row in rows) == ["YStep", "none"]


def _record(key, **fields):
    return {"key": key, "schema": SCHEMA, "status": "solved", "wall_seconds": 1.0, **fields}


def test_a_record_appended_after_a_torn_line_is_not_swallowed(tmp_path):
    path = tmp_path / "r.jsonl"
    append_record(path, _record("a"))
    with open(path, "a") as handle:
        handle.write('{"key":"b","status":"sol')  # the writer was killed mid-line
    append_record(path, _record("c"))
    warnings = []
    assert [r["key"] for r in read_results(path, warnings.append)] == ["a", "c"]
    assert len(warnings) == 1 and "line 2" in warnings[0]
    # A file written before this fix: the next record glued to the fragment is recovered.
    glued = tmp_path / "g.jsonl"
    glued.write_text(json.dumps(_record("a")) + "\n" + '{"key":"b","sta'
                     + json.dumps(_record("c")) + "\n")
    warnings = []
    assert [r["key"] for r in read_results(glued, warnings.append)] == ["a", "c"]
    assert "torn fragment dropped" in warnings[0]


@pytest.mark.parametrize("line, why", [
    ('{"key": "x", "wall_seconds": 1.0}', "without a status"),
    ('{"status": "solved"}', "without a key"),
    ('{"key": "x", "status": "solved", "wall_seconds": "fast"}', "non-numeric wall_seconds"),
    ('{"key": "x", "status": "solved", "seconds": Infinity}', "torn or malformed"),
    ('{"key": "x", "status": "solved", "n": true}', "non-numeric n"),
    ("[" * 100_000 + "]" * 100_000, "torn or malformed"),
    ('"just a string"', "torn or malformed"),
    ('{"key": "x", "status": "solved", "params": [3]}', "params are not a grid point"),
    ('{"key": "x", "status": "solved", "params": {"n": {"deep": 1}}}', "not a grid point"),
    ('{"key": "x", "status": "solved", "model_options": ["none"]}', "model_options are not"),
    ('{"key": "x", "status": "solved", "model_options": {"strategy": ["A"]}}',
     "model_options are not"),
])
def test_unusable_records_are_ignored_with_a_warning(tmp_path, line, why):
    path = tmp_path / "r.jsonl"
    path.write_text(line + "\n" + json.dumps(_record("good")) + "\n")
    warnings = []
    assert [r["key"] for r in read_results(path, warnings.append)] == ["good"]
    assert len(warnings) == 1 and why in warnings[0], warnings


def test_resume_reruns_a_record_without_status_and_ends_a_torn_line(cli, tmp_path):
    results = tmp_path / "r.jsonl"
    assert _bench(cli, results, "--n", "1..2", "--external", "t=/bin/echo {n}").code == 0
    first, second = read_results(results)
    del second["status"]
    results.write_text(json.dumps(first) + "\n" + json.dumps(second) + "\n"
                       + '{"key":"torn","sta')
    result = _bench(cli, results, "--n", "1..2", "--external", "t=/bin/echo {n}", "--resume",
                    "--json")
    assert result.code == 0, result.err
    # one warning for the file: how many lines, and the first of them with why
    assert result.err.count("\n") == 1 and "2 bad lines, the first at line 2" in result.err
    assert "without a status" in result.err
    records = read_results(results)
    assert [r["key"] for r in records] == [first["key"], second["key"]]
    assert records[0] == first and records[1]["status"] == "solved"
    assert json.loads(result.out)["ran_now"] == 1


def test_records_from_before_are_read_and_flagged_legacy():
    # The MIP-vs-SAT results as an earlier bench wrote them (no schema, no machine facts).
    records = read_results(LEGACY)
    assert len(records) >= 10
    assert all(r["legacy"] and "status" in r and "machine" not in r for r in records)


def test_records_a_run_killed_at_the_hard_limit_said_before_are_timeouts(tmp_path):
    """Records written before the one status vocabulary say `killed`; they still load, count
    as timeouts, and keep their word in the runs table."""
    from ilp_pyramid.bench.render import markdown
    from ilp_pyramid.bench.summary import summarize_records

    path = tmp_path / "r.jsonl"
    old = {**_record("a"), "label": "scip", "n": 4, "status": "killed", "wall_seconds": 91.0}
    new = {**_record("b"), "label": "scip", "n": 4, "status": "timeout", "killed": True}
    path.write_text(json.dumps(old) + "\n" + json.dumps(new) + "\n")
    records = read_results(path)
    assert [r["status"] for r in records] == ["killed", "timeout"]
    (row,) = summarize_records(records)
    assert row["runs"] == 2 and row["timeouts"] == 2 and row["errors"] == 0
    assert "| killed |" in markdown(records, "runs", "r.jsonl")


def test_solved_if_tells_a_verdict_from_output_for_programs_that_always_exit_0(cli, tmp_path):
    results = tmp_path / "r.jsonl"
    result = _bench(cli, results, "--n", "1..2",
                    "--external", "ref=/bin/sh -c 'test $0 = 1 && echo Solution: || "
                                  "echo No solution exists' {n}",
                    "--solved-if", "ref=^Solution:")
    assert result.code == 0, result.err
    one, two = read_results(results)
    assert one["status"] == "solved" and one["message"] == "Solution:"
    assert two["status"] == "infeasible" and two["message"] == "No solution exists"
    for bad in ("nolabel=x", "ref=(", "ref"):
        refused = _bench(cli, tmp_path / "x.jsonl", "--external", "ref=/bin/true",
                         "--solved-if", bad)
        assert refused.code == 2 and "--solved-if" in refused.err, (bad, refused.err)


def test_results_that_cannot_be_written_are_refused_before_any_run(cli, tmp_path):
    parent_is_a_file = tmp_path / "f"
    parent_is_a_file.write_text("x")
    for path in (parent_is_a_file / "r.jsonl", tmp_path / ("x" * 300), tmp_path / "no" / "r"):
        result = cli("bench", "--n", "1", "--external", "t=/bin/true", "--results", path)
        assert result.code == 2 and len(result.err.strip().splitlines()) == 1, (path, result)


def _mutations(rng, record):
    """Hostile variants of a good record line: torn, retyped, re-nested, glued, garbled."""
    line = json.dumps(record)
    values = [None, True, -1, 1e308, "x", "", [], {}, [1, 2], {"a": 1}, "²", 10**400]
    for _ in range(400):
        kind = rng.randrange(6)
        if kind == 0:
            yield line[:rng.randrange(len(line))]
        elif kind == 1:
            changed = dict(record)
            changed[rng.choice(sorted(record))] = rng.choice(values)
            yield json.dumps(changed)
        elif kind == 2:
            changed = dict(record)
            del changed[rng.choice(sorted(record))]
            yield json.dumps(changed)
        elif kind == 3:
            depth = rng.choice([10, 1000, 50_000])
            yield '{"key": "k", "status": "solved", "x": ' + "[" * depth + "]" * depth + "}"
        elif kind == 4:
            cut = rng.randrange(len(line))
            yield line[:cut] + line
        else:
            chars = list(line)
            for _ in range(3):
                chars[rng.randrange(len(chars))] = rng.choice('{}[]",:\x00\\é')
            yield "".join(chars)


def test_hostile_results_files_never_break_reading_or_tables(tmp_path):
    """Hundreds of malformed lines: reading keeps only usable records (never raises), and
    every table and summary of what it kept renders."""
    import random

    from ilp_pyramid.bench.render import markdown
    from ilp_pyramid.bench.summary import summarize_records

    rng = random.Random(16)
    good = {**_record("good"), "n": 3, "repeat": 1, "seed": 0, "cpu_seconds": 0.5,
            "load_before": [0.1, 0.2, 0.3], "load_after": [0.2, 0.2, 0.3], "label": "a",
            "strategies": ["A", "B"], "variables": 10, "constraints": 5, "seconds": 0.25}
    lines = list(_mutations(rng, good))
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join(lines) + "\n" + json.dumps(good) + "\n")
    warnings = []
    records = read_results(path, warnings.append)
    (warning,) = warnings  # one for the file, however many lines are bad
    bad = int(re.search(r": ([\d,]+) bad lines, the first at line \d+: ", warning)[1]
              .replace(",", ""))
    assert records[-1]["key"] == "good" and bad + len(records) >= len(lines)
    for record in records:
        assert isinstance(record["key"], str) and isinstance(record["status"], str)
    summarize_records(records)
    for table in ("summary", "grid", "runs"):
        assert markdown(records, table, "r.jsonl").count("\n") >= 2


def test_warmup_runs_each_configuration_first_and_records_none_of_them(cli, tmp_path):
    """--warmup K: K unrecorded runs of each configuration's first spec before the timed
    ones (a counter file shows every run the commands made)."""
    results, tally = tmp_path / "r.jsonl", tmp_path / "tally"
    count = f"a=/bin/sh -c 'echo {{n}} >> {tally}'"
    other = f"b=/bin/sh -c 'echo b{{n}} >> {tally}'"
    result = _bench(cli, results, "--n", "1..2", "--repeat", "3", "--warmup", "2",
                    "--external", count, "--external", other)
    assert result.code == 0, result.err
    records = read_results(results)
    assert len(records) == 2 * 2 * 3  # templates x sizes x repeats: no warm-up run among them
    lines = tally.read_text().split()
    # the first two runs of each of the four configurations were not recorded
    assert sorted(lines) == sorted(["1", "2", "b1", "b2"] * (3 + 2))
    assert sorted(lines[:8]) == sorted(["1", "2", "b1", "b2"] * 2)  # before any timed run


def test_warmup_runs_a_grids_points_as_one_configuration(cli, tmp_path):
    """The points of a --grid (seeds, say) are runs of one configuration: warmed up once."""
    results, tally = tmp_path / "r.jsonl", tmp_path / "tally"
    result = _bench(cli, results, "--n", "1", "--grid", "s=1,2,3", "--warmup", "1",
                    "--external", f"a=/bin/sh -c 'echo {{s}} >> {tally}'")
    assert result.code == 0, result.err
    assert len(read_results(results)) == 3
    assert tally.read_text().split() == ["1", "1", "2", "3"]  # one warm-up, then the three
