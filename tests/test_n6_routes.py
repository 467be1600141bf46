"""docs/scripts/n6_routes.py: the fit behind docs/frontier.md's N=6 cost table, the table it
renders from a results file, and the page's block being the table of docs/data/n6_routes.jsonl."""

import importlib.util
import math
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = Path(__file__).parent / "fixtures" / "n6_routes_small.jsonl"


@pytest.fixture(scope="module")
def routes():
    spec = importlib.util.spec_from_file_location("n6_routes", ROOT / "docs/scripts/n6_routes.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_fit_recovers_a_known_line(routes):
    a, b = routes.fit_line([(x, 1.5 - 0.25 * x) for x in (3, 4, 5, 7)])
    assert a == pytest.approx(1.5) and b == pytest.approx(-0.25)


def test_extrapolation_of_an_exact_exponential_is_exact(routes):
    rows = [{"route": "r", "n": n, "seed": s, "cpu_s": 0.5 * 7.0 ** n, "outcome": "verified"}
            for n in (3, 4, 5) for s in (1, 2)]
    central, low, high = routes.extrapolate(routes.per_n(rows))
    assert central == pytest.approx(0.5 * 7.0 ** 6)
    assert low == pytest.approx(central) and high == pytest.approx(central)
    # in the number of cubes instead: log CPU linear in N(4N^2-1)/3
    rows = [dict(r, cpu_s=math.exp(0.05 * routes.cubes(r["n"]))) for r in rows]
    central, _, _ = routes.extrapolate(routes.per_n(rows), scale=routes.cubes)
    assert central == pytest.approx(math.exp(0.05 * 286))


def test_spread_of_seeds_widens_the_range(routes):
    rows = [{"route": "r", "n": n, "seed": s, "cpu_s": 10.0 ** n * f, "outcome": "verified"}
            for n in (3, 4, 5) for s, f in ((1, 0.5), (2, 1.0), (3, 2.0))]
    central, low, high = routes.extrapolate(routes.per_n(rows))
    assert low < central < high
    assert central == pytest.approx(1e6)


def test_capped_runs_make_the_median_a_lower_bound(routes):
    rows = [{"route": "r", "n": 5, "seed": s, "cpu_s": c, "outcome": o}
            for s, c, o in ((1, 60.2, "capped"), (2, 61.0, "capped"), (3, 5.0, "verified"))]
    stat = routes.per_n(rows)[5]
    assert stat["censored"] and stat["capped"] == 2 and stat["median"] == 60.2


def test_table_from_a_small_results_file(routes):
    text = routes.table(routes.read_rows(FIXTURE), "x.jsonl")
    lines = text.splitlines()
    walk = next(line for line in lines if line.startswith("| walk |"))
    # 1, 10, 100 CPU s at N=3, 4, 5: 1000 s at N=6, 0.3 h, no range
    # (the N=6 row, a record from elsewhere, is no point of the fit)
    assert walk.split(" | ")[1:6] == ["0.00", "1.00 (2 runs)", "10.00 (1 runs)",
                                      "100.00 (1 runs)", "0.3 (0.3-0.3)"]
    assert walk.endswith(" | 10 (hunt) |")
    cc = next(line for line in lines if line.startswith("| cc:YStep |"))
    cells = cc.split(" | ")
    assert cells[2] == "2.00 (refuted) (1 runs)" and cells[3] == "-"
    assert cells[4] == ">= 60.50 (1 runs, 1 capped)"
    assert cells[5].startswith(">= 0.092 ")  # 60.5 * sqrt(60.5 / 2) s, at least
    assert cells[-1] == "- |"
    assert "6 runs here" in text and "load during the runs 2.0-3.0" in text


def test_startup_is_taken_off_before_the_fit(routes):
    rows = [{"route": "r", "n": n, "seed": 1, "cpu_s": 0.4 + 3.0 ** n, "outcome": "verified"}
            for n in (3, 4, 5)]
    rows.append({"route": "r", "n": 1, "seed": 1, "cpu_s": 0.4, "outcome": "verified"})
    floor = routes.startup(rows)
    assert floor == 0.4
    central, _, _ = routes.extrapolate(routes.per_n(rows, floor))
    assert central == pytest.approx(3.0 ** 6)


def test_render_writes_the_block_and_check_sees_it(routes, tmp_path):
    page = tmp_path / "page.md"
    page.write_text("before\n<!-- n6-routes -->\nstale\n<!-- /n6-routes -->\nafter\n")
    results = tmp_path / "r.jsonl"
    shutil.copy(FIXTURE, results)
    routes.ROOT = tmp_path
    try:
        assert not routes.render(page, results, check=True)
        assert routes.render(page, results)
        assert routes.render(page, results, check=True)
    finally:
        routes.ROOT = ROOT
    text = page.read_text()
    assert "stale" not in text and "| walk |" in text and text.endswith("after\n")


def test_the_page_is_rendered_from_the_results_file(routes):
    assert routes.render(check=True), "run: python docs/scripts/n6_routes.py render"


def test_the_notes_of_the_learnt_decomposition_and_the_cluster_runs(routes):
    rows = [{"route": "decomp-learnt", "n": 4, "seed": s, "cpu_s": c, "outcome": "verified",
             "rounds": k, "learnt": k - 1, "reason_mean": m}
            for s, c, k, m in ((1, 2.0, 100, 20.0), (2, 4.0, 300, 30.0), (3, 1.0, 100, 24.0))]
    rows += [{"route": "conquer-dask:YStep", "n": 5, "seed": s, "cpu_s": c, "wall_s": w,
              "outcome": "capped", "workers": 2, "load": [3.0, 3.0, 3.0]}
             for s, c, w in ((1, 61.0, 40.0), (2, 70.5, 42.25))]
    text = routes.table(rows, "x.jsonl")
    # 7 CPU s over 500 labellings; the median of the clauses' mean sizes
    assert ("decomp-learnt, X-Y labellings proposed per run: N=4: 100, 300, 100 "
            "(0.014 CPU s a labelling, clauses of 24 labels).") in text
    assert "(2 workers)" in text and "N=5: 40.0 (61.0), 42.2 (70.5)." in text
