"""`bench report` and `bench render`: tables computed from records, README blocks that cannot
drift from their results files."""

import json
import statistics
from pathlib import Path

import pytest

from ilp_pyramid.bench.records import SCHEMA
from ilp_pyramid.bench.render import render_text
from ilp_pyramid.errors import InputError

ROOT = Path(__file__).parent.parent
MARKER = "<!-- bench:data/runs.jsonl:table=summary -->"


def _record(label, n, repeat, wall, cpu, status="solved", load=(0.5, 0.4, 0.3)):
    return {"key": f"{label} {n} {repeat}", "schema": SCHEMA, "label": label, "n": n,
            "repeat": repeat, "seed": repeat - 1, "status": status, "wall_seconds": wall,
            "cpu_seconds": cpu, "load_before": list(load), "load_after": [1.5, 0.5, 0.3],
            "machine": {"cpu_count": 2, "package_version": "0.1.0"},
            "date": "2026-11-23T04:00:00+00:00"}


def _write(path, records):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def _table_rows(text):
    return [[c.strip() for c in line.strip("|").split("|")] for line in text.splitlines()
            if line.startswith("| ") and not line.startswith("| run")]


def test_summary_rows_are_computed_from_the_records(cli, tmp_path):
    walls = [3.0, 1.0, 2.5, 9.0]
    records = [_record("auto", 3, r + 1, w, w / 2) for r, w in enumerate(walls)]
    records += [_record("auto", 3, 5, 100.0, 99.0, status="timeout", load=(2.25, 1, 1)),
                _record("ref", 3, 1, 7.0, 6.5)]
    path = tmp_path / "runs.jsonl"
    _write(path, records)
    result = cli("bench", "report", path)
    assert result.code == 0, result.err
    auto, ref = _table_rows(result.out)
    assert auto == ["auto", "3", "5", "4", "1.00", f"{statistics.median(walls):.2f}", "9.00",
                    f"{statistics.median(walls) / 2:.2f}", "0.50-2.25"]
    assert ref[:4] == ["ref", "3", "1", "1"] and ref[5] == "7.00"
    assert "6 runs from" in result.out and "2 cores" in result.out
    runs = cli("bench", "report", path, "--table", "runs", "--where", "label=ref")
    assert runs.code == 0 and len(_table_rows(runs.out)) == 1
    data = json.loads(cli("bench", "report", path, "--json").out)
    assert [g["runs"] for g in data["groups"]] == [5, 1]
    for args in (["--table", "nope"], ["--where", "colour=red"], ["--where", "label=none"]):
        bad = cli("bench", "report", path, *args)
        assert bad.code == 2 and len(bad.err.strip().splitlines()) == 1, (args, bad.err)
    assert cli("bench", "report", tmp_path).code == 2


def test_render_fills_blocks_and_check_catches_drift(cli, tmp_path):
    data = tmp_path / "data" / "runs.jsonl"
    _write(data, [_record("auto", 2, 1, 1.25, 1.0), _record("auto", 2, 2, 1.75, 1.0)])
    readme = tmp_path / "README.md"
    readme.write_text(f"# Title\n\ntext before\n\n{MARKER}\nstale, hand-edited\n"
                      "<!-- /bench -->\n\ntext after\n")
    stale = cli("bench", "render", readme, "--check")
    assert stale.code == 1 and "data/runs.jsonl" in stale.out
    assert "hand-edited" in readme.read_text()  # --check changes nothing
    assert cli("bench", "render", readme).code == 0
    text = readme.read_text()
    assert text.startswith("# Title\n\ntext before\n\n" + MARKER + "\n| run |")
    assert text.endswith("_\n<!-- /bench -->\n\ntext after\n")
    assert "| auto | 2 | 2 | 2 | 1.25 | 1.50 | 1.75 |" in text
    assert cli("bench", "render", readme, "--check").code == 0
    assert render_text(text, tmp_path) == text  # rendering twice changes nothing
    # New data, old README: the check fails until the README is rendered again.
    _write(data, [_record("auto", 2, 1, 1.25, 1.0)])
    assert cli("bench", "render", readme, "--check").code == 1
    assert cli("bench", "render", readme).code == 0
    assert cli("bench", "render", readme, "--check").code == 0


@pytest.mark.parametrize("body, message", [
    ("<!-- bench:data/runs.jsonl -->\nno end\n", "no closing"),
    ("<!-- bench:data/missing.jsonl -->\n<!-- /bench -->\n", "not a file"),
    ("<!-- bench:data/runs.jsonl:table=pie -->\n<!-- /bench -->\n", "unknown table"),
    ("<!-- bench:data/runs.jsonl:colour=red -->\n<!-- /bench -->\n", "unknown field 'colour'"),
    ("<!-- bench:data/runs.jsonl:n or x=2 -->\n<!-- /bench -->\n", "is no field name"),
    ("`<!-- bench:data/runs.jsonl -->`\n<!-- bench:data/runs.jsonl -->\n", "no closing"),
])
def test_render_refuses_broken_markers_with_one_line(cli, tmp_path, body, message):
    _write(tmp_path / "data" / "runs.jsonl", [_record("auto", 2, 1, 1.0, 1.0)])
    readme = tmp_path / "README.md"
    readme.write_text(body)
    result = cli("bench", "render", readme)
    assert result.code == 2 and message in result.err, result
    assert len(result.err.strip().splitlines()) == 1
    assert readme.read_text() == body


def test_filters_select_records_of_a_block(tmp_path):
    _write(tmp_path / "r.jsonl", [_record("auto", 2, 1, 1.0, 1.0), _record("auto", 3, 1, 2.0, 1.0),
                                  _record("ref", 3, 1, 3.0, 1.0)])
    text = "<!-- bench:r.jsonl:n=3:label=auto -->\n<!-- /bench -->\n"
    rows = _table_rows(render_text(text, tmp_path))
    assert [row[:2] for row in rows] == [["auto", "3"]]


@pytest.mark.parametrize("name", ["README.md", *sorted(
    str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*.md")
    if "<!-- bench:" in p.read_text())])
def test_the_committed_readme_and_docs_match_their_data(cli, name):
    """Every measured table of the README and docs is rendered from a results file under
    docs/data/: this fails as soon as a marked block and its data disagree, or a page's markers
    cannot be read (a page without markers passes)."""
    result = cli("bench", "render", ROOT / name, "--check")
    assert result.code == 0, result.out + result.err


def test_markers_shown_in_code_fences_are_examples_not_blocks(tmp_path):
    _write(tmp_path / "r.jsonl", [_record("auto", 2, 1, 1.0, 1.0)])
    example = "```markdown\n<!-- bench:missing.jsonl -->\n<!-- /bench -->\n```\n"
    text = example + "<!-- bench:r.jsonl -->\n<!-- /bench -->\n" + example
    rendered = render_text(text, tmp_path)
    assert rendered.startswith(example) and rendered.endswith(example)
    assert rendered.count("| auto |") == 1


def test_markers_in_inline_code_are_examples_even_without_their_closing(tmp_path):
    """docs/bench.md names markers in running text: `<!-- bench:PATH -->` opens no block,
    and `<!-- /bench -->` in code closes none."""
    _write(tmp_path / "r.jsonl", [_record("auto", 2, 1, 1.0, 1.0)])
    prose = ("A block opens with `<!-- bench:missing.jsonl:n=3,4 -->` and ends with\n"
             "``<!-- /bench -->``; e.g.\n\n")
    text = prose + "<!-- bench:r.jsonl -->\n<!-- /bench -->\n\nThen `<!-- bench:x -->`.\n"
    rendered = render_text(text, tmp_path)
    assert rendered.startswith(prose) and rendered.endswith("\n\nThen `<!-- bench:x -->`.\n")
    assert rendered.count("| auto |") == 1
    assert render_text(rendered, tmp_path) == rendered



def test_grid_table_of_legacy_records_gives_solve_seconds_and_sizes(cli):
    from ilp_pyramid.bench.records import read_results

    path = ROOT / "tests" / "fixtures" / "bench" / "legacy_mip_vs_sat.jsonl"
    result = cli("bench", "report", path, "--table", "grid")
    assert result.code == 0, result.err
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in result.out.splitlines()
            if line.startswith("| ") and not line.startswith("| N")]
    records = read_results(path)
    assert len(rows) == len(records)  # one run per configuration in this file
    for row, record in zip(rows, records, strict=True):
        assert row[:2] == [str(record["n"]), record["solver"]]
        solved = record["status"] == "solved"
        assert row[9] == (f"{record['seconds']:.2f}" if solved else "-")
        # one run: its spread is that run alone
        assert row[10] == (f"{record['seconds']:.2f}-{record['seconds']:.2f}" if solved
                           else "-")
        assert row[11] == f"{record['variables']:,}" and row[12] == f"{record['constraints']:,}"
        assert row[-1] == "- (legacy)"
    assert f"{len(records)} legacy records" in result.out


def test_runs_table_shows_the_solve_seconds_and_only_seeds_a_command_took(cli, tmp_path):
    took_seed = {**_record("a", 5, 2, 10.0, 9.0), "template": "solve {n} --seed {seed}",
                 "seconds": 8.25}
    by_repeat = {**_record("b", 5, 2, 20.0, 19.0), "template": "solve-cnf f --seed {repeat}",
                 "seconds": 17.5}
    path = tmp_path / "runs.jsonl"
    _write(path, [took_seed, by_repeat])
    result = cli("bench", "report", path, "--table", "runs")
    assert result.code == 0, result.err
    header = next(line for line in result.out.splitlines() if line.startswith("| run"))
    columns = [c.strip() for c in header.strip("|").split("|")]
    rows = [dict(zip(columns, row, strict=True)) for row in _table_rows(result.out)]
    assert [(r["seed"], r["solve s"]) for r in rows] == [("1", "8.25"), ("-", "17.50")]


def test_model_options_are_columns_and_records_without_them_show_a_dash(cli, tmp_path):
    """A record keeps the options that shaped its model: a column each (a param of the same
    name is that column), "-" for a record written before they were kept; a file of such
    records alone renders as it always did."""
    old = [{**_record("", 2, 1, 1.0, 0.5), "puzzle": "bel", "solver": "highs",
            "params": {"n": 2}}]
    new = [{**_record("", 2, r, 2.0, 1.0), "puzzle": "bel", "solver": solver,
            "params": {"n": 2, "strategy": "none"} if axis else {"n": 2},
            "model_options": {"formulation": "counts", "strategy": strategy}}
           for r, (solver, strategy, axis) in enumerate(
               [("highs", "LabelPermutationImportance", False), ("kissat", "none", True)], 1)]
    for record in old + new:
        del record["label"]
    path = tmp_path / "data" / "runs.jsonl"
    _write(path, old)
    before = cli("bench", "report", path)
    assert before.code == 0, before.err
    assert before.out.splitlines()[0].startswith("| puzzle | N | solver | runs |")
    _write(path, old + new)
    result = cli("bench", "report", path)
    assert result.code == 0, result.err
    header, *_ = result.out.splitlines()
    assert header.startswith("| puzzle | N | solver | strategy | formulation | runs |")
    rows = [row[:5] for row in _table_rows(result.out)[1:]]  # below the header
    assert rows == [["bel", "2", "highs", "-", "-"],
                    ["bel", "2", "highs", "LabelPermutationImportance", "counts"],
                    ["bel", "2", "kissat", "none", "counts"]]
    picked = cli("bench", "report", path, "--where", "strategy=none")
    assert [row[2] for row in _table_rows(picked.out)[1:]] == ["kissat"]
    runs = cli("bench", "report", path, "--table", "runs")
    assert "| strategy | formulation |" in runs.out.splitlines()[0]
    text = MARKER.replace("summary", "grid") + "\n<!-- /bench -->\n"
    assert "| LabelPermutationImportance | counts |" in render_text(text, tmp_path)


def test_an_infeasible_answer_counts_in_its_own_column_and_in_the_times(tmp_path):
    """A generated instance may have no solution: a run that says so answered, and its time
    is one of the row's; the column shows only where some run answered infeasible."""
    from ilp_pyramid.bench.render import markdown

    runs = [_record("insanity", 12, 1, 2.0, 1.9), _record("insanity", 12, 2, 4.0, 3.9,
                                                          status="infeasible"),
            _record("insanity", 12, 3, 31.0, 30.9, status="timeout")]
    rows = _table_rows(markdown(runs, "summary", "x.jsonl"))
    header = markdown(runs, "summary", "x.jsonl").splitlines()[0]
    assert "| runs | solved | infeasible | min wall s | median wall s | max wall s |" in header
    assert rows[0][:8] == ["insanity", "12", "3", "1", "1", "2.00", "3.00", "4.00"]
    assert "infeasible" not in markdown(runs[:1], "summary", "x.jsonl")


def test_the_hard_table_names_the_instances_the_virtual_best_needs_ten_seconds_for(tmp_path):
    def run(solver, n, status, seconds):
        return {"key": f"{solver} {n}", "schema": SCHEMA, "puzzle": "bel", "params": {"n": n},
                "solver": solver, "repeat": 1, "seed": 0, "time_limit": 60.0,
                "status": status, "solve_seconds": seconds, "wall_seconds": seconds + 0.5}

    _write(tmp_path / "r.jsonl", [
        run("highs", 3, "solved", 2.0), run("kissat", 3, "solved", 0.5),     # easy: left out
        run("highs", 4, "timeout", 60.0), run("kissat", 4, "solved", 12.0),  # hard
        run("highs", 5, "timeout", 60.0), run("kissat", 5, "timeout", 60.0),  # nobody
        run("cbc", 3, "solved", 9.0)])  # cbc: run at n=3 only
    text = render_text("<!-- bench:r.jsonl:table=hard -->\n<!-- /bench -->\n", tmp_path)
    rows = _table_rows(text)[1:]  # below the header
    assert [row[1:] for row in rows] == [["n=4", "12.00", "kissat 12.00", "highs", "cbc"],
                                         ["n=5", "none", "-", "highs, kissat", "cbc"]]
    assert "bel: 2 of 3, failing an instance it ran: kissat, highs" in text


def test_over_pools_the_runs_a_grid_key_told_apart(tmp_path):
    """Seeds given through `--grid s=...` are params; `over=s` makes them one configuration's
    runs (min / median / max over all of them), and a name no record has is bad input."""
    data = tmp_path / "data" / "r.jsonl"
    walls = {"after": [1.0, 5.0, 2.0], "before": [3.0, 4.0, 9.0]}
    _write(data, [{**_record(label, 5, 1, wall, wall * 2), "key": f"{label} {s}",
                   "params": {"n": 5, "s": str(s)}}
                  for label, times in walls.items()
                  for s, wall in zip((0, 1, 100), times, strict=True)])
    page = tmp_path / "p.md"
    page.write_text("<!-- bench:data/r.jsonl:table=summary:over=s -->\n<!-- /bench -->\n")
    rows = _table_rows(render_text(page.read_text(), tmp_path))
    assert [(r[0], r[2], r[4], r[5], r[6]) for r in rows] == [
        ("after", "3", "1.00", "2.00", "5.00"), ("before", "3", "3.00", "4.00", "9.00")]
    split = _table_rows(render_text(page.read_text().replace(":over=s", ""), tmp_path))
    assert len(split) == 6
    with pytest.raises(InputError, match="over=seed: no record has that param"):
        render_text(page.read_text().replace("over=s", "over=seed"), tmp_path)
