"""Cube-and-conquer around a state (`hunt --conquer`): the neighbourhood, the cubes against a
brute force that knows no CNF, the record a rerun goes on from, and the command."""

from __future__ import annotations

import itertools
import json
import signal
import subprocess
from pathlib import Path

import numpy as np
import pytest

from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles.bel.hunt.conquer import (
    FAMILIES,
    SAT,
    SPLIT,
    UNSAT,
    Neighbourhood,
    Record,
    family_name,
    grow,
    neighbourhood,
    settle_cube,
)
from ilp_pyramid.puzzles.bel.hunt.state import SOLUTION_FILE, BestState, load_best, save_best
from ilp_pyramid.puzzles.bel.lns.arrays import arrays, conflicts_of
from ilp_pyramid.puzzles.bel.lns.region import conflict_lines
from ilp_pyramid.puzzles.bel.lns.search import LocalSearch, random_labels
from ilp_pyramid.puzzles.bel.solution import parse_drawing
from ilp_pyramid.verify.bel import verify_solution
from tests.proctools import command, record_lines, signal_at_work


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


def backtrack(hood: Neighbourhood) -> bool:
    """The same question as brute_force, for neighbourhoods too large to enumerate (no CNF,
    no solver): the free lines labelled one at a time, always the line with the fewest
    labels left. A label is left to a line while its lines add up to no more cells than the
    cubes hold of it and the cells it completes show cubes not shown yet; a branch is cut
    when a line has no label left, or when every cell left waits on one line only and some
    cube is on none of their labels."""
    a = arrays(hood.n)
    labels = np.asarray(hood.labels).copy()
    known = np.ones(a.num_lines, dtype=bool)
    known[list(hood.lines)] = False
    room = np.full(a.num_labels, hood.n * (2 * hood.n + 1))
    np.subtract.at(room, labels[known], a.line_len[known])
    num_cubes = int(a.cube_id.max()) + 1
    shown: set[int] = set()
    for cell in np.flatnonzero(known[a.cell_line].all(axis=1)):
        shown.add(int(a.cube_id[tuple(labels[a.cell_line[cell]])]))

    def options(line: int) -> list[tuple[int, set[int]]]:
        cells = a.line_cells[a.line_start[line]:a.line_start[line + 1]]
        known[line] = True
        done = cells[known[a.cell_line[cells]].all(axis=1)]
        found = []
        for label in range(a.num_labels):
            if room[label] >= a.line_len[line]:
                labels[line] = label
                cubes = {int(a.cube_id[tuple(labels[a.cell_line[cell]])]) for cell in done}
                if len(cubes) == len(done) and not cubes & shown:
                    found.append((label, cubes))
        known[line] = False
        return found

    def place() -> bool:
        left = np.flatnonzero(~known)
        if not len(left):
            return True
        choices = {int(line): options(int(line)) for line in left}
        if (~known[a.cell_line]).sum(axis=1).max() == 1:
            reachable = set().union(*(cubes for found in choices.values()
                                      for _, cubes in found))
            if len(reachable | shown) < num_cubes:
                return False
        line = min(choices, key=lambda i: len(choices[i]))
        known[line] = True
        for label, cubes in choices[line]:
            labels[line] = label
            shown.update(cubes)
            room[label] -= a.line_len[line]
            if place():
                return True
            room[label] += a.line_len[line]
            shown.difference_update(cubes)
        known[line] = False
        return False

    return place()


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


def test_a_whole_family_neighbourhood_holds_the_family_and_the_repeated_cubes_lines():
    state, _ = swapped(solved(4, 1), 4, np.random.default_rng(1))
    a = arrays(4)
    core = set(conflict_lines(4, state).tolist())
    for family, code in FAMILIES.items():
        whole = set(np.flatnonzero(a.family == code).tolist())
        least = grow(4, state, 1, family)
        assert set(least) == whole | core  # never fewer than the family and the core
        lines = grow(4, state, len(least) + 5, family)
        assert len(lines) == len(least) + 5 and set(least) < set(lines)
        assert lines == grow(4, state, len(least) + 5, family)
    assert grow(4, state, 30) != grow(4, state, 30, "Z")  # the family changes the lines
    assert family_name("z") == "Z" and family_name(None) is None
    with pytest.raises(InputError, match="not a family of lines"):
        family_name("W")


# One seed in the default suite (both answers come up in it); three under slow.
@pytest.mark.parametrize("seeds", [(1,), pytest.param((1, 2, 3), marks=pytest.mark.slow)])
def test_whole_family_cubes_agree_with_a_backtracking_search(tmp_path, seeds):
    """N=3 solutions with one line re-labelled, inside the free family (a solution is in the
    neighbourhood) or outside it (the family alone must make up for it): the cubes, split to
    the bottom or in one solve, against a search without CNF; both answers must come up."""
    a = arrays(3)
    outcomes = set()
    for seed in seeds:
        rng = np.random.default_rng(seed)
        labels = solved(3, seed)
        for family, code in (("Z", FAMILIES["Z"]), ("X", FAMILIES["X"])):
            whole = np.flatnonzero(a.family == code)
            for moved in (rng.choice(whole), rng.choice(np.flatnonzero(a.family != code))):
                state = labels.copy()
                state[moved] = (state[moved] + rng.integers(1, a.num_labels)) % a.num_labels
                hood = Neighbourhood(3, tuple(int(x) for x in state),
                                     tuple(int(x) for x in whole))
                expected = SAT if backtrack(hood) else UNSAT
                for cube_time in (0.0, 30.0):
                    folder = tmp_path / f"{seed}-{family}-{moved}-{cube_time}"
                    folder.mkdir()
                    got = conquer_in_process(hood, Record.open(folder, hood), cube_time)
                    assert got == expected, (seed, family, moved, cube_time)
                    outcomes.add(got)
    assert outcomes == {SAT, UNSAT}


def test_the_committed_whole_family_record_of_the_best_n6_state_leaves_no_cube_open(tmp_path):
    """docs/data/bel_n6_conquer holds the 125-line neighbourhood of docs/data/bel_n6_best.json
    settled: the same state and options must still give its lines (or a rerun would start
    afresh), and the record must leave no cube open, with no SAT cube in it."""
    docs = Path(__file__).resolve().parents[1] / "docs" / "data"
    (tmp_path / "best.json").write_bytes((docs / "bel_n6_best.json").read_bytes())
    best = load_best(tmp_path, 6)
    hood = neighbourhood(6, best.labels, 125, "Z")
    path = docs / "bel_n6_conquer" / f"conquer-{hood.key}.jsonl"
    assert path.is_file(), f"no record {path.name}: the neighbourhood's lines changed"
    assert len(hood.lines) == 125
    record = Record.open(path.parent, hood)
    assert record.settled and not record.open_cubes() and record.solution() is None
    assert {row["status"] for row in record.settled.values()} <= {UNSAT, SPLIT}


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
    return command("hunt", *args)


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


def test_hunt_conquer_a_whole_family_finds_a_solution_two_of_its_lines_away(tmp_path):
    labels = solved(4, 4)
    a = arrays(4)
    rng = np.random.default_rng(4)
    z = np.flatnonzero(a.family == FAMILIES["Z"])
    while True:  # two Z lines of one length exchanged: the solution is in the neighbourhood
        i, j = rng.choice(z, 2, replace=False)
        if a.line_len[i] == a.line_len[j] and labels[i] != labels[j]:
            break
    state = labels.copy()
    state[i], state[j] = labels[j], labels[i]
    save_best(tmp_path, BestState(4, conflicts_of(4, state), state))
    result = hunt_command(4, "--state-dir", tmp_path, "--conquer", 1, "--whole-family", "z",
                          "--jobs", 1, "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["status"] == "solved" and report["whole_family"] == "Z"
    assert report["lines"] == len(grow(4, state, 1, "Z")) >= len(z)
    assert verify_solution(parse_drawing((tmp_path / SOLUTION_FILE).read_text())).valid


def test_hunt_conquer_input_errors(cli, tmp_path):
    result = cli("hunt", 4, "--state-dir", tmp_path, "--conquer", 20)
    assert result.code == 2 and "no saved state" in result.err
    assert result.err.strip().count("\n") == 0
    both = cli("hunt", 4, "--state-dir", tmp_path, "--conquer", 20, "--near")
    assert both.code == 2 and "separate" in both.err
    alone = cli("hunt", 4, "--state-dir", tmp_path, "--whole-family", "Z")
    assert alone.code == 2 and "--whole-family goes with --conquer" in alone.err
    bad = cli("hunt", 4, "--state-dir", tmp_path, "--conquer", 20, "--whole-family", "W")
    assert bad.code == 2 and "not a family of lines" in bad.err
    assert bad.err.strip().count("\n") == 0


@pytest.mark.slow
def test_hunt_conquer_ctrl_c_stops_within_two_seconds_and_keeps_the_record(tmp_path):
    state = random_labels(6, np.random.default_rng(5))
    save_best(tmp_path, BestState(6, conflicts_of(6, state), state))
    stopped = signal_at_work(["hunt", 6, "--state-dir", tmp_path, "--conquer", 120,
                              "--cube-time", 1, "--jobs", 1], signal.SIGINT,
                             lambda _: record_lines(tmp_path) >= 3, within=120)
    assert stopped.code == 130 and stopped.seconds < 2.0, (stopped.code, stopped.seconds)
    assert record_lines(tmp_path) >= 3
    leftover = subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True, text=True)
    assert leftover.stdout == ""
