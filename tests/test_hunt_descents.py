"""DIR/descents.jsonl: every fresh descent of a hunt logged as it ends, and its tally."""

from __future__ import annotations

import json

import numpy as np

from ilp_pyramid.cli.bel.hunt import print_report, result_json
from ilp_pyramid.puzzles.bel.hunt.coordinator import Hunt, HuntResult, Listener
from ilp_pyramid.puzzles.bel.hunt.state import (
    DESCENTS_FILE,
    descent_tally,
    log_descent,
    read_descents,
)
from ilp_pyramid.puzzles.bel.hunt.task import _descent_record
from tests.test_hunt_near import reporting_to


def record(seed: int, best: int, full: bool = True, budget: float = 150.0,
           reached: list | None = None) -> dict:
    row = {"seed": seed, "budget": budget, "cpu": budget if full else budget / 3,
           "best": best, "moves": 10, "full": full, "version": "0.3.0"}
    if reached is not None:  # lines logged before descents recorded it have no "reached"
        row["reached"] = reached
    return row


def test_the_tally_counts_full_descents_of_each_budget_and_skips_a_torn_line(tmp_path):
    assert read_descents(tmp_path) == []
    for rec in (record(1, 3), record(2, 2), record(3, 3), record(4, 1, full=False),
                record(5, 2, budget=60.0)):
        log_descent(tmp_path, rec)
    with open(tmp_path / DESCENTS_FILE, "a") as handle:
        handle.write('{"seed": 6, "budget": 150.0, "be')  # a writer killed mid-line
    log_descent(tmp_path, record(7, 4))
    records = read_descents(tmp_path)
    assert [r["seed"] for r in records] == [1, 2, 3, 4, 5, 7]
    assert all("time" in r for r in records)
    # the cut descent (seed 4) had a third of the budget: it does not count at 150 CPU s
    assert descent_tally(records) == {60.0: {2: 1}, 150.0: {2: 1, 3: 2, 4: 1}}


def test_a_descent_is_full_only_when_it_ran_its_budget_or_solved():
    class Outcome:
        best_conflicts, moves = 2, 99

    assert _descent_record(Outcome(), 7, 150.0, 150.2, False)["full"]
    assert not _descent_record(Outcome(), 7, 150.0, 80.0, False)["full"]
    assert _descent_record(Outcome(), 7, 150.0, 80.0, True)["full"]
    assert set(_descent_record(Outcome(), 7, 150.0, 1.0, False)) == {
        "seed", "budget", "cpu", "best", "moves", "full", "reached", "version"}


def test_a_descent_records_when_it_first_reached_each_low_count(monkeypatch):
    from ilp_pyramid.puzzles.bel.hunt import task
    from ilp_pyramid.puzzles.bel.lns import driver

    clock = iter(range(100))  # a CPU clock that moves one second a reading
    monkeypatch.setattr(task, "process_cpu", lambda: float(next(clock)))

    class Outcome:
        status, best_conflicts, moves = "timeout", 3, 99

    def walk(n, repair, *, on_best, should_stop, **kwargs):
        # improvements as a walk reports them: the high counts of its first seconds, a
        # count seen twice (a restart near its best), then lower ones
        for count in (40, 12, 10, 10, 7, 4, 3):
            on_best(count, np.zeros(3))
        return Outcome()

    monkeypatch.setattr(driver, "solve_lns", walk)
    bests, records = [], []
    task._fresh_descents(6, "sat", None, 5, None, 150.0,
                         lambda count, labels, seed: bests.append((count, seed)),
                         lambda: False, lambda: True, records.append)
    # every improvement still goes to the hunt, with the descent's seed
    assert bests == [(c, 5) for c in (40, 12, 10, 10, 7, 4, 3)]
    (record,) = records
    assert [count for count, _ in record["reached"]] == [10, 7, 4, 3]
    seconds = [cpu for _, cpu in record["reached"]]
    assert seconds == sorted(seconds) and seconds[0] > 0
    json.dumps(record)


def test_a_descent_is_logged_once_whether_its_report_or_its_result_comes_first(tmp_path):
    hunt = Hunt(6, tmp_path, None, Listener(), by="descent")
    hunt.take({"seed": 3, "cpu": 150.0, "descent": record(3, 2)})
    hunt.take_descent(record(3, 2))  # the same descent again, in its worker's result
    hunt.take_descent(record(1000006, 4, full=False))  # its report overtaken by the end
    assert [r["seed"] for r in read_descents(tmp_path)] == [3, 1000006]
    assert all(r["n"] == 6 for r in read_descents(tmp_path))


def test_the_reporter_sends_a_descents_record_at_once_with_its_best_state():
    sent = []
    reporter = reporting_to(sent)
    reporter.on_best(30, np.zeros(3), 5)
    reporter.on_best(2, np.ones(3), 5)  # within a second: pending, not sent yet
    reporter.on_descent(record(5, 2))
    assert sent[-1]["descent"]["seed"] == 5 and sent[-1]["conflicts"] == 2


def test_the_report_tells_full_and_cut_descents_apart(tmp_path, capsys):
    for rec in (record(1, 1), record(2, 3)):  # an earlier hunt's
        log_descent(tmp_path, rec)
    mine = [record(10, 2), record(11, 3), record(12, 5, full=False)]
    for rec in mine:
        log_descent(tmp_path, rec)
    result = HuntResult(6, "timeout", None, None, 10.0, 2, "local", 5, descents=mine)
    data = result_json(result, tmp_path)
    assert data["descents"] == 3 and data["descents_cut"] == 1
    assert data["descent_bests"] == {"2": 1, "3": 1}
    assert data["descents_on_file"] == {"1": 1, "2": 1, "3": 2}
    assert data["descent_reach_on_file"] == {}  # no line says when it got low
    json.dumps(data)
    print_report(result, tmp_path)
    out = " ".join(capsys.readouterr().out.split())  # the console wraps long lines
    assert "3 fresh descents (1 cut short by the hunt's end)" in out
    assert "best counts: 2 x1, 3 x1" in out
    assert "4 full descents of 150 CPU s; their best counts: 1 x1, 2 x1, 3 x2" in out
    assert "to first reach" not in out


def test_the_report_gives_the_median_time_to_reach_each_low_count(tmp_path, capsys):
    for rec in (record(1, 3),  # an older line: no "reached"
                record(2, 2, reached=[[9, 5.0], [4, 20.0], [3, 30.0], [2, 100.0]]),
                record(3, 3, reached=[[8, 4.0], [3, 50.0]]),
                record(4, 2, reached=[[3, 70.0], [2, 90.0]]),
                record(5, 2, full=False, reached=[[3, 1.0], [2, 2.0]]),  # cut short
                record(6, 1, budget=60.0, reached=[[3, 1.0], [1, 2.0]])):  # another budget
        log_descent(tmp_path, rec)
    mine = [record(4, 2, reached=[[3, 70.0], [2, 90.0]])]
    result = HuntResult(6, "timeout", None, None, 10.0, 2, "local", 5, descents=mine)
    data = result_json(result, tmp_path)
    assert data["descent_reach_on_file"] == {"3": {"descents": 3, "median_cpu": 50.0},
                                             "2": {"descents": 2, "median_cpu": 95.0}}
    print_report(result, tmp_path)
    out = " ".join(capsys.readouterr().out.split())
    assert "median CPU s to first reach 3: 50 (of 3), 2: 95 (of 2)" in out
