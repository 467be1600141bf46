"""Cube-and-conquer around a state (`hunt --conquer`): the neighbourhood, the cubes against a
brute force that knows no CNF, the record a rerun goes on from, and the command."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from ilp_pyramid.puzzles.bel.hunt.conquer import (
    SAT,
    SPLIT,
    UNSAT,
    Neighbourhood,
    Record,
    grow,
    neighbourhood,
    settle_cube,
)
from ilp_pyramid.puzzles.bel.hunt.state import SOLUTION_FILE, BestState, save_best
from ilp_pyramid.puzzles.bel.lns.arrays import arrays, conflicts_of
from ilp_pyramid.puzzles.bel.lns.region import conflict_lines
from ilp_pyramid.puzzles.bel.lns.search import LocalSearch, random_labels
from ilp_pyramid.puzzles.bel.solution import parse_drawing
from ilp_pyramid.verify.bel import verify_solution


def solved(n: int, seed: int) -> np.ndarray:
    search = LocalSearch(n, random_labels(n, np.random.default_rng(seed)), seed)
    search.run(2_000_000, 0.3, stop_at=0)
    assert search.best == 0
    return search.best_labels.copy()


def swapped(labels: np.ndarray, n: int, rng: np.random.Generator) -> tuple[np.ndarray, list]:
    """Two lines of one length with different labels exchanged: a state near a solution."""
    a = arrays(n)
    while True:
        i, j = rng.choice(a.num_lines, 2, replace=False)
        if a.line_len[i] == a.line_len[j] and labels[i] != labels[j]:
            out = labels.copy()
            out[i], out[j] = labels[j], labels[i]
            return out, [int(i), int(j)]


def brute_force(hood: Neighbourhood) -> bool:
    """Does some labelling of the free lines give every cube once? (no CNF, no solver)"""
    labels = np.asarray(hood.labels)
    trial = labels.copy()
    for choice in itertools.product(range(arrays(hood.n).num_labels), repeat=len(hood.lines)):
        trial[list(hood.lines)] = choice
        if conflicts_of(hood.n, trial) == 0:
            return True
    return False


def conquer_in_process(hood: Neighbourhood, record: Record, cube_time: float,
                       stop_after: int | None = None) -> str:
    done = 0
    while (left := record.open_cubes()) and (stop_after is None or done < stop_after):
        row = settle_cube(hood, left[0], cube_time)
        record.add(row)
        done += 1
        if row["status"] == SAT:
            labels = np.asarray(row["labels"])
            assert conflicts_of(hood.n, labels) == 0
            kept = [i for i in range(len(labels)) if i not in hood.lines]
            assert (labels[kept] == np.asarray(hood.labels)[kept]).all()  # the hypothesis
            return SAT
    return UNSAT if not record.open_cubes() else "open"


def test_the_neighbourhood_grows_from_the_repeated_cubes_and_is_the_same_every_time():
    state, _ = swapped(solved(4, 1), 4, np.random.default_rng(1))
    core = set(conflict_lines(4, state).tolist())
    for size in (len(core), 20, 40):
        lines = grow(4, state, size)
        assert lines == grow(4, state, size) and len(lines) == max(size, len(core))
        assert core <= set(lines)
    assert grow(4, state, 10_000) == tuple(range(arrays(4).num_lines))


def test_cubes_split_to_the_bottom_agree_with_a_brute_force(tmp_path):
    """Cube time 0: every cube splits until its lines are all labelled, so the lookahead's
    refutations and the records decide; both outcomes must come up."""
    outcomes = set()
    for seed in range(1, 6):
        rng = np.random.default_rng(seed)
        state, moved = swapped(solved(4, seed), 4, rng)
        others = [i for i in range(arrays(4).num_lines) if i not in moved]
        for lines in (sorted([*moved, int(rng.choice(others))]),
                      sorted(int(x) for x in rng.choice(others, 3, replace=False))):
            hood = Neighbourhood(4, tuple(int(x) for x in state), tuple(lines))
            folder = tmp_path / f"{seed}-{'-'.join(map(str, lines))}"
            folder.mkdir()
            got = conquer_in_process(hood, Record.open(folder, hood), 0.0)
            expected = SAT if brute_force(hood) else UNSAT
            assert got == expected, (seed, lines)
            outcomes.add(got)
    assert outcomes == {SAT, UNSAT}


def test_a_rerun_goes_on_from_the_record_and_settles_nothing_twice(tmp_path):
    state, _ = swapped(solved(4, 7), 4, np.random.default_rng(7))
    hood = neighbourhood(4, state, 16)
    assert conquer_in_process(hood, Record.open(tmp_path, hood), 0.0, stop_after=3) == "open"
    text = (tmp_path / f"conquer-{hood.key}.jsonl").read_text()
    record = Record.open(tmp_path, hood)  # as a new run reads it
    assert len(record.settled) == 3 and record.open_cubes()
    first_open = set(record.open_cubes())
    assert not first_open & set(record.settled)
    # a line cut by a kill is skipped: that cube is open again, nothing else changes
    (tmp_path / f"conquer-{hood.key}.jsonl").write_text(text + '{"status": "uns')
    assert set(Record.open(tmp_path, hood).open_cubes()) == first_open
    answer = conquer_in_process(hood, Record.open(tmp_path, hood), 0.0)
    assert answer == settle_cube(hood, (), 60.0)["status"]  # one solve of the whole question
    rows = [json.loads(x) for x in (tmp_path / f"conquer-{hood.key}.jsonl").read_text()
            .splitlines()[1:] if x.endswith("}")]
    cubes = [tuple(map(tuple, row["cube"])) for row in rows]
    assert len(cubes) == len(set(cubes))  # no cube settled twice
    assert {row["status"] for row in rows} <= {SAT, UNSAT, SPLIT}


def test_a_split_names_its_line_and_parts_its_labels():
    state, _ = swapped(solved(4, 2), 4, np.random.default_rng(2))
    hood = neighbourhood(4, state, 30)
    row = settle_cube(hood, (), 0.0)
    assert row["status"] == SPLIT and row["line"] in hood.lines
    assert sorted(row["children"] + row["refuted"]) == list(range(arrays(4).num_labels))
    assert row["cube"] == []


def hunt_command(*args: object) -> subprocess.CompletedProcess:
    """A real process: the Dask cluster's start sets thread variables in its client's
    environment, which must not leak into the test process (and its later children)."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    return subprocess.run([sys.executable, "-m", "ilp_pyramid", "hunt", *map(str, args)],
                          env=env, capture_output=True, text=True, timeout=240)


def test_hunt_conquer_solves_near_a_solution_and_a_rerun_reads_the_record(tmp_path):
    state, _ = swapped(solved(4, 3), 4, np.random.default_rng(3))
    save_best(tmp_path, BestState(4, conflicts_of(4, state), state))
    result = hunt_command(4, "--state-dir", tmp_path, "--conquer", 20, "--cube-time", 5,
                          "--jobs", 1, "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["status"] == "solved" and report["lines"] >= 20
    assert "outside the neighbourhood" in report["hypothesis"]
    drawn = parse_drawing((tmp_path / SOLUTION_FILE).read_text())
    assert verify_solution(drawn).valid
    again = hunt_command(4, "--state-dir", tmp_path, "--conquer", 20, "--json")
    assert again.returncode == 0 and json.loads(again.stdout)["cubes_this_run"] == 0


def test_hunt_conquer_input_errors(cli, tmp_path):
    result = cli("hunt", 4, "--state-dir", tmp_path, "--conquer", 20)
    assert result.code == 2 and "no saved state" in result.err
    assert result.err.strip().count("\n") == 0
    both = cli("hunt", 4, "--state-dir", tmp_path, "--conquer", 20, "--near")
    assert both.code == 2 and "separate" in both.err


@pytest.mark.slow
def test_hunt_conquer_ctrl_c_stops_within_two_seconds_and_keeps_the_record(tmp_path):
    state = random_labels(6, np.random.default_rng(5))
    save_best(tmp_path, BestState(6, conflicts_of(6, state), state))
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    run = subprocess.Popen([sys.executable, "-m", "ilp_pyramid", "hunt", "6", "--state-dir",
                            str(tmp_path), "--conquer", "120", "--cube-time", "1",
                            "--jobs", "1"], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        record = None
        while time.monotonic() < deadline:
            found = list(tmp_path.glob("conquer-*.jsonl"))
            if found and len(found[0].read_text().splitlines()) >= 3:
                record = found[0]
                break
            time.sleep(0.2)
        assert record is not None, "no cube settled after 120 s"
        run.send_signal(signal.SIGINT)
        sent = time.monotonic()
        code = run.wait(timeout=30)
        stopped = time.monotonic() - sent
    finally:
        if run.poll() is None:
            run.kill()
    assert code == 130 and stopped < 2.0, (code, stopped)
    assert len(record.read_text().splitlines()) >= 3
    leftover = subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True, text=True)
    assert leftover.stdout == ""
