"""`solve N` with no options: --method auto runs the engine of the choice table, named."""

from __future__ import annotations

import json

import pytest

from ilp_pyramid.progress import LiveStatus, describe
from ilp_pyramid.puzzles.bel import auto
from ilp_pyramid.puzzles.bel.solution import parse_json
from ilp_pyramid.verify.bel import verify_solution


def test_every_table_entry_is_a_runnable_engine():
    from ilp_pyramid import backends
    from ilp_pyramid.puzzles.bel.lns.repair import REPAIRS
    from ilp_pyramid.puzzles.bel.strategies import lookup

    for n in [*auto.CHOICES, max(auto.CHOICES) + 1]:
        engine = auto.choose(n)
        if engine.method == "exact":
            assert backends.kind(engine.solver) in ("mip", "sat")
            lookup(engine.strategies)  # KeyError for a strategy the catalogue lacks
        else:
            assert engine.method == "lns" and engine.solver in REPAIRS
    assert auto.choose(max(auto.CHOICES) + 3).name == auto.BEYOND


def test_an_engine_name_carries_its_strategies_and_says_which_are_hypotheses():
    engine = auto.parse_engine("exact:glucose4:YStep+CakeSliceOrdering")
    assert (engine.method, engine.solver) == ("exact", "glucose4")
    assert engine.strategies == ("YStep", "CakeSliceOrdering") and "YStep" in engine.hypotheses
    assert auto.engine_args(engine) == ["--method", "exact", "--solver", "glucose4",
                                        "--strategy", "YStep+CakeSliceOrdering"]
    assert auto.parse_engine("exact:cadical").hypotheses == []
    assert auto.parse_engine("exact:kissat:AntiMirror").hypotheses == []  # symmetry only


def test_derive_puts_an_engine_with_a_hypothesis_last_and_names_the_search_behind_it():
    guess = "exact:glucose4:YStep+CakeSliceOrdering"
    rows = [{"n": 3, "engine": "exact:cadical", "status": "solved", "wall": 1.00},
            {"n": 3, "engine": guess, "status": "solved", "wall": 0.95},
            {"n": 3, "engine": "lns+sat", "status": "solved", "wall": 2.0},
            {"n": 4, "engine": guess, "status": "solved", "wall": 0.30},
            {"n": 4, "engine": "exact:kissat", "status": "solved", "wall": 1.2},
            {"n": 4, "engine": "lns+sat", "status": "solved", "wall": 0.65},
            {"n": 4, "engine": "lns+dlx", "status": "solved", "wall": 0.59}]
    choices = auto.derive(rows, "wall", tie=0.10)
    assert choices == {3: "exact:cadical", 4: guess}  # a tie goes to the proof-giving engine
    assert auto.derive_fallbacks(rows, choices, "wall") == {4: "lns+dlx"}


def test_unknown_engine_names_are_refused():
    with pytest.raises(ValueError, match="unknown engine"):
        auto.parse_engine("gurobi")


def test_derive_takes_the_lowest_median_among_engines_that_always_solved():
    rows = [
        {"n": 3, "engine": "exact:highs", "status": "solved", "cpu": 4.0},
        {"n": 3, "engine": "exact:highs", "status": "solved", "cpu": 5.0},
        {"n": 3, "engine": "exact:kissat", "status": "solved", "cpu": 0.9},
        {"n": 3, "engine": "exact:kissat", "status": "solved", "cpu": 1.1},
        {"n": 3, "engine": "lns+sat", "status": "solved", "cpu": 0.1},
        {"n": 3, "engine": "lns+sat", "status": "timeout", "cpu": 60.0},
        {"n": 4, "engine": "lns+sat", "status": "solved", "cpu": 2.0},
    ]
    assert auto.derive(rows, "cpu") == {3: "exact:kissat", 4: "lns+sat"}


def test_derive_prefers_the_mip_engine_when_it_is_as_fast():
    rows = [{"n": 2, "engine": "exact:kissat", "status": "solved", "wall": 1.00},
            {"n": 2, "engine": "exact:highs", "status": "solved", "wall": 1.05},
            {"n": 3, "engine": "exact:kissat", "status": "solved", "wall": 1.00},
            {"n": 3, "engine": "exact:highs", "status": "solved", "wall": 1.50}]
    assert auto.derive(rows, "wall", tie=0.10) == {2: "exact:highs", 3: "exact:kissat"}


def test_table_text_names_every_n_and_what_happens_beyond(monkeypatch):
    monkeypatch.setattr(auto, "CHOICES", {1: "exact:kissat", 2: "exact:kissat", 3: "lns+sat"})
    assert auto.table_text() == (f"N=1-2: exact:kissat; N=3: lns+sat; "
                                 f"N>=4: {auto.BEYOND} until stopped")


def test_help_shows_the_choice_table(cli):
    result = cli("solve", "--help")
    assert result.code == 0
    text = " ".join(result.out.split()).replace("│", "")
    assert " ".join(auto.table_text().split()) in " ".join(text.split())


def test_no_options_runs_the_table_engine_and_says_so(cli):
    result = cli("solve", 2, "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["method"] == "auto" and data["engine"] == auto.CHOICES[2]
    solution = parse_json(json.dumps(data["solution"]))
    assert solution.n == 2 and verify_solution(solution).valid
    text = cli("solve", 2)
    assert text.code == 0 and auto.CHOICES[2] in text.out


def test_no_solution_under_the_tables_hypotheses_hands_over_to_the_search(cli, monkeypatch):
    # XStep + YStep has no solution at N=3 (the spec; CaDiCaL proves it in milliseconds):
    # that says nothing about the puzzle, so the hybrid search answers instead, on the quick
    # path (solve N --json) and on Typer's (with a time limit) alike.
    guess = "exact:cadical:XStep+YStep"
    monkeypatch.setitem(auto.CHOICES, 3, guess)
    monkeypatch.setitem(auto.FALLBACKS, 3, "lns+sat")
    for extra in ((), ("--time-limit", 60)):
        result = cli("solve", 3, "--json", *extra)
        assert result.code == 0, result.err
        data = json.loads(result.out)
        assert data["status"] == "solved" and data["engine"] == "lns+sat"
        assert data["ruled_out"] == {"engine": guess, "hypotheses": ["XStep", "YStep"]}
        assert verify_solution(parse_json(json.dumps(data["solution"]))).valid
        assert "no solution under the hypotheses XStep + YStep" in result.err
        assert "lns+sat takes over" in result.err
    text = cli("solve", 3)
    assert text.code == 0 and "verified" in text.out and "infeasible" not in text.out


def test_only_an_infeasible_answer_of_an_engine_on_a_hypothesis_hands_over():
    from types import SimpleNamespace

    from ilp_pyramid.backends.base import Status

    guess, proof = auto.parse_engine("exact:cadical:XStep+YStep"), auto.choose(1)
    infeasible = SimpleNamespace(status=Status.INFEASIBLE)
    assert auto.hands_over(guess, infeasible)
    assert not auto.hands_over(proof, infeasible)  # no hypothesis: infeasible is a proof
    assert not auto.hands_over(guess, SimpleNamespace(status=Status.TIMEOUT))
    assert not auto.hands_over(None, infeasible)  # no engine: the user chose the method


def test_a_hand_over_that_runs_out_of_time_returns_the_timeout_code(capfd):
    # The search answers as the command would, and its exit code comes back as a value, so
    # the quick path (no Typer) and the Typer command end alike.
    from types import SimpleNamespace

    from ilp_pyramid.cli.bel.auto import hand_over

    engine = auto.parse_engine("exact:cadical:XStep+YStep")
    ruled_out = SimpleNamespace(build_seconds=0.1, solve_seconds=0.1)
    code = hand_over(6, engine, ruled_out, 1.2, 1, None, True)
    assert code == 3
    out, err = capfd.readouterr()
    data = json.loads(out)
    assert data["status"] == "timeout" and data["ruled_out"]["hypotheses"] == ["XStep", "YStep"]
    assert "takes over" in err


def test_an_engine_on_a_hypothesis_names_it_beside_its_verified_solution(cli):
    n = next(n for n in sorted(auto.CHOICES) if auto.choose(n).hypotheses)
    result = cli("solve", n, "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["engine"] == auto.CHOICES[n] and data["status"] == "solved"
    assert data["hypotheses"] == auto.choose(n).hypotheses and "ruled_out" not in data
    assert verify_solution(parse_json(json.dumps(data["solution"]))).valid


def test_an_exact_only_option_means_the_exact_method(cli):
    data = json.loads(cli("solve", 2, "--solver", "cbc", "--json").out)
    assert data["solver"] == "cbc" and "engine" not in data


def test_beyond_the_table_the_hybrid_search_stops_at_the_time_limit(cli):
    result = cli("solve", 6, "--time-limit", 1, "--json")
    assert result.code == 3, result.err
    data = json.loads(result.out)
    assert data["status"] == "timeout" and data["solution"] is None
    assert data["method"] == "auto" and data["engine"] == auto.BEYOND


def test_progress_line_shows_the_engines_measure():
    line = describe({"elapsed": 2.5, "incumbent": 3.0, "bound": 0.0, "nodes": 1200,
                     "phase": "dive"})
    assert line == "incumbent 3  bound 0  1,200 nodes  phase dive"
    assert describe({"best": 2}) == "best 2 repeated cubes"
    status = LiveStatus("N=4 exact:highs", enabled=False)
    with status:
        status.update({"conflicts": 5000})
    assert status.text().startswith("N=4 exact:highs") and "5,000 conflicts" in status.text()


def test_sudoku_cube_solve_names_its_default_engine(cli, tmp_path):
    path = tmp_path / "cube.txt"
    assert cli("sudoku-cube", "generate", "--seed", 7, "-o", path).code == 0
    data = json.loads(cli("sudoku-cube", "solve", path, "--json").out)
    assert data["solved"] is True and data["engine"] == "mip:highs"
    cbc = json.loads(cli("sudoku-cube", "solve", path, "--solver", "cbc", "--json").out)
    assert cbc["engine"] == "mip:cbc"


@pytest.mark.slow  # seconds of wall time: the default suite keeps its budget
def test_a_long_run_shows_a_live_line_on_a_terminal_only(tmp_path):
    import os
    import pty
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    args = [sys.executable, "-m", "ilp_pyramid", "solve", "4", "--solver", "highs",
            "--time-limit", "3"]
    leader, follower = pty.openpty()
    child = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=follower, env=env)
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    child.wait()
    os.close(leader)
    assert child.returncode == 3
    assert b"N=4 exact:highs" in seen and b" s" in seen
    piped = subprocess.run(args, capture_output=True, env=env)
    assert piped.returncode == 3 and b"exact:highs" not in piped.stderr


def test_the_choice_table_is_the_one_the_committed_measurements_give():
    """CHOICES is pasted from docs/data/auto_candidates.jsonl (docs/scripts/measure.sh
    candidates): a re-measurement that changes the winner must change the table too."""
    from pathlib import Path

    from ilp_pyramid.parsing import json_lines

    results = Path(__file__).parent.parent / auto.CANDIDATES_FILE
    records = [record for _, record in json_lines(results.read_text())]
    rows = auto.rows_from_records(records)
    derived = auto.derive(rows)
    assert derived, "no candidate runs in the results file"
    assert {n: auto.CHOICES[n] for n in derived} == derived
    assert auto.FALLBACKS == auto.derive_fallbacks(rows, derived)
    for n in derived:
        if auto.choose(n).hypotheses:  # a hypothesis engine needs a search behind it
            assert auto.fallback(n).method == "lns"
