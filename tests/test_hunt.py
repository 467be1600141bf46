"""`ilp-pyramid hunt`: the state on disk, resuming, and one real run on a local Dask cluster."""

from __future__ import annotations

import json
import signal

import numpy as np
import pytest

from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles.bel.hunt.state import (
    BEST_FILE,
    PROGRESS_FILE,
    SOLUTION_FILE,
    BestState,
    load_best,
    meets_counting,
    read_descents,
    resumable,
    save_best,
)
from ilp_pyramid.puzzles.bel.lns.arrays import conflicts_of
from ilp_pyramid.puzzles.bel.lns.search import LocalSearch, random_labels
from ilp_pyramid.puzzles.bel.solution import parse_drawing, parse_json
from ilp_pyramid.verify.bel import verify_solution
from tests.conftest import SHARED_DASK
from tests.proctools import signal_at_work


def near_state(n: int, seed: int) -> np.ndarray:
    search = LocalSearch(n, random_labels(n, np.random.default_rng(seed)), seed)
    search.run(20_000, 0.3)
    assert search.best > 0
    return search.best_labels.copy()


def test_best_json_round_trip_and_form(tmp_path):
    labels = near_state(4, 1)
    save_best(tmp_path, BestState(4, conflicts_of(4, labels), labels, 12.5))
    data = json.loads((tmp_path / BEST_FILE).read_text())
    assert data["n"] == 4 and data["conflicts"] == conflicts_of(4, labels)
    assert parse_json(json.dumps(data["solution"])).n == 4  # the solve --json "solution" form
    back = load_best(tmp_path, 4)
    assert np.array_equal(back.labels, labels)
    assert back.conflicts == data["conflicts"] and back.hunted_seconds == 12.5
    assert meets_counting(4, back.labels)


def test_saved_count_is_recomputed_not_trusted(tmp_path):
    labels = near_state(4, 2)
    save_best(tmp_path, BestState(4, 0, labels))  # a lie on disk
    assert load_best(tmp_path, 4).conflicts == conflicts_of(4, labels) > 0


def test_missing_state_is_none_and_bad_states_are_input_errors(tmp_path):
    assert load_best(tmp_path, 4) is None
    save_best(tmp_path, BestState(4, 3, near_state(4, 3)))
    with pytest.raises(InputError, match="N=4, not N=5"):
        load_best(tmp_path, 5)
    (tmp_path / BEST_FILE).write_text("{not json")
    with pytest.raises(InputError, match="cannot read"):
        load_best(tmp_path, 4)


@SHARED_DASK
def test_hunt_n4_solves_on_a_dask_cluster_and_resumes(cli, tmp_path, dask_scheduler):
    labels = near_state(4, 4)
    start = conflicts_of(4, labels)
    save_best(tmp_path, BestState(4, start, labels, 30.0))
    result = cli("hunt", 4, "--state-dir", tmp_path, "--time-limit", 120, "--jobs", 1,
                 "--seed", 5, "--scheduler", dask_scheduler, "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["status"] == "solved" and data["conflicts"] == 0
    assert data["resumed_from"] == start and data["jobs"] == 1
    assert data["hunted_seconds"] >= 30.0  # the earlier hunt's time is carried on
    solution = parse_drawing((tmp_path / SOLUTION_FILE).read_text())
    assert verify_solution(solution).valid
    best = json.loads((tmp_path / BEST_FILE).read_text())
    assert best["conflicts"] == 0 and best["cpu_seconds"] > 0
    # the curve: CPU seconds never go back, the last line is the solution
    rows = [json.loads(line) for line in (tmp_path / PROGRESS_FILE).read_text().splitlines()]
    assert rows[-1]["best"] == 0 and rows[0]["best"] == start
    assert all(a["cpu"] <= b["cpu"] for a, b in zip(rows, rows[1:], strict=False))
    image = tmp_path / "curve.png"
    plotted = cli("hunt", 4, "--state-dir", tmp_path, "--plot", image, "--json")
    assert plotted.code == 0, plotted.err
    assert json.loads(plotted.out)["points"] == len(rows)
    assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_hunt_rejects_a_state_dir_of_another_n(cli, tmp_path):
    save_best(tmp_path, BestState(4, 3, near_state(4, 6)))
    result = cli("hunt", 5, "--state-dir", tmp_path, "--time-limit", 6)
    assert result.code == 2
    assert "not N=5" in result.err


def test_hunt_plot_without_progress_is_an_input_error(cli, tmp_path):
    result = cli("hunt", 5, "--state-dir", tmp_path, "--plot", tmp_path / "x.png")
    assert result.code == 2 and "no progress file" in result.err
    (tmp_path / PROGRESS_FILE).write_text('{"cpu": 1.0, "wall": 2.0, "best": 7}\n{"cpu": 3')
    result = cli("hunt", 5, "--state-dir", tmp_path, "--plot", tmp_path / "x.png", "--json")
    assert result.code == 0 and json.loads(result.out)["points"] == 1  # the torn line skipped


@pytest.mark.slow
def test_hunt_ctrl_c_stops_within_two_seconds_and_keeps_the_best(tmp_path):
    # signalled once a search has reported a state: the hunt is at work, its cluster up
    stopped = signal_at_work(["hunt", 6, "--state-dir", tmp_path, "--jobs", 1, "--seed", 3],
                             signal.SIGINT, lambda _pid: (tmp_path / BEST_FILE).exists(),
                             within=120)
    assert stopped.code == 130, stopped.err
    assert stopped.seconds < 2.0, f"took {stopped.seconds:.1f} s to stop"
    state = load_best(tmp_path, 6)
    # single-line moves (N>=6) may leave the counting condition broken: the state must
    # still be one a new hunt resumes from, with its count recomputed
    assert state is not None and resumable(6, state.labels)
    assert conflicts_of(6, state.labels) == state.conflicts
    assert state.hunted_seconds > 0


def test_hunt_rejects_an_unknown_neighbourhood(cli, tmp_path):
    result = cli("hunt", 5, "--state-dir", tmp_path, "--neighbourhood", "ring")
    assert result.code == 2
    assert "unknown neighbourhood 'ring'" in result.err and result.err.count("\n") <= 1


def test_states_that_break_the_counting_condition_resume_only_where_single_moves_run():
    for n in (4, 6):
        labels = random_labels(n, np.random.default_rng(n))
        assert resumable(n, labels)
        short = labels.copy()
        short[0] = (short[0] + 1) % (2 * n - 1)  # one line re-labelled: totals broken
        assert not meets_counting(n, short)
        # N=4 searches only swap labels (totals fixed); N=6 moves single lines
        assert resumable(n, short) == (n >= 6)


def test_hunt_rejects_an_unknown_schedule(cli, tmp_path):
    result = cli("hunt", 5, "--state-dir", tmp_path, "--schedule", "cyclic")
    assert result.code == 2
    assert "unknown schedule 'cyclic'" in result.err and result.err.count("\n") <= 1


@pytest.mark.slow  # run by CI's stage 8 (.ci/run): the default suite stays under 4 minutes
def test_hunt_with_fresh_descents_keeps_a_better_saved_state(tmp_path, fixtures):
    # a state with one repeated cube, which no descent of a few CPU seconds comes near
    saved = fixtures / "bel" / "n6-one-repeated.json"
    (tmp_path / BEST_FILE).write_text(saved.read_text())
    before = load_best(tmp_path, 6)
    assert before.conflicts == 1
    # Stopped once a descent has ended (its record on file), not by a time limit: the Dask
    # cluster's start takes what the machine gives it.
    stopped = signal_at_work(["hunt", 6, "--state-dir", tmp_path, "--jobs", 1, "--seed", 5,
                              "--descent", 2], signal.SIGINT,
                             lambda _pid: bool(read_descents(tmp_path)), within=300)
    assert stopped.code == 130, stopped.err
    said = " ".join(stopped.err.split())
    assert "holds 1 repeated cube; fresh descents of 2 CPU s each" in said, stopped.err
    logged = read_descents(tmp_path)  # every descent logged once, as it ended
    assert logged and len({r["seed"] for r in logged}) == len(logged)
    # every descent that ended ran its CPU budget, walked, and ended above the saved state
    assert all(r["full"] and r["moves"] > 0 and r["best"] > 1 for r in logged), logged
    after = load_best(tmp_path, 6)
    assert after.conflicts == 1 and np.array_equal(after.labels, before.labels)
    assert after.cpu_seconds > before.cpu_seconds  # the descents' time is counted


def test_the_hunts_lines_go_to_stderr_and_not_with_json(capsys, tmp_path):
    from ilp_pyramid.cli.bel.hunt import Lines

    state = BestState(6, 1, near_state(4, 7), hunted_seconds=90.0)
    lines = Lines(json_out=False, descent=150.0)
    lines.keeping(tmp_path / BEST_FILE, state)
    lines.new_best(12.25, 3, 7)
    lines.cluster_wrote(40, 2, tmp_path / "dask.log")
    out, err = capsys.readouterr()
    assert out == ""
    said = " ".join(err.split())  # Rich wraps long lines at the terminal's width
    assert said == (
        f"{tmp_path / BEST_FILE} holds 1 repeated cube; fresh descents of 150 CPU s each "
        f"replace it only with a lower count 12.2 s new best: 3 repeated cubes (seed 7) "
        f"note: the Dask cluster wrote 40 line(s), 2 traceback(s): see {tmp_path / 'dask.log'}")
    quiet = Lines(json_out=True, descent=None)
    quiet.started(6, 2, "local cluster")
    quiet.overrun(10.0)
    assert capsys.readouterr() == ("", "")
