"""The near-solutions a hunt keeps: the canonical form, DIR/near.jsonl.gz, `hunt --near`,
`hunt --learn`, and the hunt feeding them."""

from __future__ import annotations

import gzip
import itertools
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles.bel.canonical import canonical, canonical_labels, line_group
from ilp_pyramid.puzzles.bel.geometry import pyramid
from ilp_pyramid.puzzles.bel.hunt import near as near_module
from ilp_pyramid.puzzles.bel.hunt.coordinator import Hunt, Listener
from ilp_pyramid.puzzles.bel.hunt.learn import (
    _assignment,
    domains,
    learn,
    learn_text,
    shuffled,
    strategy_gap,
)
from ilp_pyramid.puzzles.bel.hunt.near import (
    NEAR_FILE,
    NearStore,
    load_near,
    update_near,
)
from ilp_pyramid.puzzles.bel.hunt.state import BEST_FILE, load_best
from ilp_pyramid.puzzles.bel.lns.arrays import conflicts_of
from ilp_pyramid.puzzles.bel.symmetry import generators, group_order, line_permutation

ROOT = Path(__file__).resolve().parent.parent


def one_repeated(fixtures, tmp_path) -> np.ndarray:
    (tmp_path / BEST_FILE).write_text((fixtures / "bel" / "n6-one-repeated.json").read_text())
    return load_best(tmp_path, 6).labels


def random_image(n: int, labels: np.ndarray, rng) -> np.ndarray:
    """`labels` under a random element of G and a random renaming of the labels."""
    perm = line_group(n)[rng.integers(len(line_group(n)))]
    moved = np.empty_like(labels)
    moved[perm] = labels
    return rng.permutation(pyramid(n).num_labels).astype(np.int32)[moved]


def test_the_line_group_is_the_whole_group():
    for n in (1, 2, 3, 4):
        group = line_group(n)
        assert len(group) == group_order(n)
        assert len({row.tobytes() for row in group}) == len(group)


def test_every_image_of_a_state_has_one_canonical_form(fixtures, tmp_path):
    labels = one_repeated(fixtures, tmp_path)
    rng = np.random.default_rng(7)
    form = canonical(6, labels)
    for _ in range(8):
        image = random_image(6, labels, rng)
        assert conflicts_of(6, image) == 1
        assert canonical(6, image) == form
    # the form is a labelling of the same class: same count, labels renamed 0, 1, ...
    aligned = canonical_labels(6, labels)
    assert conflicts_of(6, aligned) == 1 and aligned[0] == 0


def test_different_states_have_different_forms(fixtures, tmp_path):
    labels = one_repeated(fixtures, tmp_path)
    changed = labels.copy()
    # one line relabelled so that the labels' line counts (an invariant) change
    sizes = np.bincount(labels, minlength=11)
    old = int(labels[0])
    new = next(k for k in range(11) if k != old and sorted(
        np.bincount(np.r_[labels[1:], k], minlength=11)) != sorted(sizes))
    changed[0] = new
    assert canonical(6, changed) != canonical(6, labels)


def _orbit(n: int, labels: tuple) -> set:
    """The class of `labels` built independently: the named generators and every renaming."""
    gens = [line_permutation(n, g) for g in generators(n)]
    seen, frontier = {labels}, [labels]
    while frontier:
        state = frontier.pop()
        for perm in gens:
            image = [0] * len(state)
            for i, label in enumerate(state):
                image[perm[i]] = label
            image = tuple(image)
            if image not in seen:
                seen.add(image)
                frontier.append(image)
    k = pyramid(n).num_labels
    return {tuple(rename[x] for x in state) for state in seen
            for rename in itertools.permutations(range(k))}


def test_equal_forms_exactly_for_equivalent_labellings_at_n3():
    n, rng = 3, np.random.default_rng(3)
    k, lines = pyramid(n).num_labels, len(pyramid(n).lines)
    for _ in range(6):
        x = rng.integers(k, size=lines).astype(np.int32)
        orbit = _orbit(n, tuple(int(v) for v in x))
        others = [random_image(n, x, rng) for _ in range(3)]
        others += [rng.integers(k, size=lines).astype(np.int32) for _ in range(3)]
        for y in others:
            assert (canonical(n, y) == canonical(n, x)) == (tuple(int(v) for v in y) in orbit)


def test_the_store_keeps_the_two_lowest_counts_once_per_class(fixtures, tmp_path):
    labels = one_repeated(fixtures, tmp_path)
    rng = np.random.default_rng(1)
    store = NearStore(6)
    assert store.add(labels, {"by": "test"})
    assert not store.add(random_image(6, labels, rng))  # the same class
    worse = {}
    for i in range(len(labels)):
        for k in range(11):
            other = labels.copy()
            other[i] = k
            worse.setdefault(conflicts_of(6, other), other)
        if {2, 3} <= worse.keys():
            break
    assert store.add(worse[3]) and store.counts() == [1, 3]
    assert store.add(worse[2]) and store.counts() == [1, 2]  # the 3 is dropped
    assert not store.add(worse[3])
    state = next(iter(store))
    repeated, missing = state.cubes()
    assert state.count == 1 and len(repeated) == 1 and repeated[0][1] == 2 and len(missing) == 1


def test_the_store_is_bounded_dropping_the_oldest_of_the_worst_count(fixtures, tmp_path,
                                                                     monkeypatch):
    monkeypatch.setattr(near_module, "MAX_KEPT", 3)
    labels = one_repeated(fixtures, tmp_path)
    twos = []
    for i in range(len(labels)):  # one line relabelled: states of two repeated cubes
        other = labels.copy()
        other[i] = (other[i] + 1) % 11
        if conflicts_of(6, other) == 2:
            twos.append(other)
        if len(twos) == 3:
            break
    store = NearStore(6)
    assert store.add(labels)
    assert store.add(twos[0]) and store.add(twos[1])
    assert store.add(twos[2]) and len(store) == 3  # the oldest state of count 2 goes
    kept = {s.key for s in store}
    assert canonical(6, twos[0]) not in kept
    assert {canonical(6, x) for x in (labels, twos[1], twos[2])} == kept


def test_the_file_round_trips_and_bad_lines_are_input_errors(fixtures, tmp_path):
    labels = one_repeated(fixtures, tmp_path)
    store = update_near(tmp_path, 6, [(labels, {"by": "hunt", "seed": 4, "run_seed": 9})])
    assert len(store) == 1
    rows = [json.loads(line) for line in gzip.open(tmp_path / NEAR_FILE, "rt")]
    assert rows[0]["count"] == 1 and rows[0]["source"]["run_seed"] == 9
    assert {"n", "count", "labels", "repeated", "missing", "found", "source"} <= rows[0].keys()
    back = load_near(tmp_path, 6)
    assert [s.key for s in back] == [s.key for s in store]
    rows[0]["count"] = 0  # a lie on disk: the count is recomputed
    (tmp_path / NEAR_FILE).write_bytes(gzip.compress((json.dumps(rows[0]) + "\n").encode()))
    assert next(iter(load_near(tmp_path, 6))).count == 1
    with pytest.raises(InputError, match="not a kept state of N=5"):
        load_near(tmp_path, 5)


def test_learn_finds_agreement_where_states_agree():
    n = 4
    rng = np.random.default_rng(2)
    base = rng.integers(7, size=len(pyramid(n).lines)).astype(np.int32)
    store = NearStore(n)
    store.add(base)
    # images of one state: one class, so every line agrees
    for _ in range(3):
        store.add(random_image(n, base, rng))
    report = learn(store)
    assert report["states"] == 1 and report["unanimous"] == len(pyramid(n).lines)
    # canonical forms stacked by hand: a line that differs in one of two states is at 0.5
    a = canonical_labels(n, base)
    b = a.copy()
    b[-1] = (b[-1] + 1) % 7
    two = NearStore(n)
    two.states = {a.tobytes(): near_module.NearState(n, 0, a, ""),
                  b.tobytes(): near_module.NearState(n, 0, b, "")}
    report = learn(two)
    assert report["unanimous"] == len(a) - 1
    assert report["lines"][-1]["agreement"] == 0.5 and not report["lines"][-1]["unanimous"]
    assert f"{len(a) - 1} of {len(a)} lines agree in all" in learn_text(report)


def test_the_assignment_is_the_best_matching():
    rng = np.random.default_rng(4)
    for _ in range(10):
        weight = rng.integers(0, 9, size=(5, 5))
        best = max(sum(weight[p[c], c] for c in range(5))
                   for p in itertools.permutations(range(5)))
        score, matching = _assignment(weight)
        assert score == best == sum(weight[matching[c], c] for c in range(5))
        assert sorted(matching) == list(range(5))


@pytest.mark.parametrize("name", ["YStep", "ConstructiveBottom", "ZRing"])
def test_a_strategys_gap_is_the_fewest_lines_off_over_images_and_renamings(name):
    n = 3
    k = pyramid(n).num_labels
    lines, allowed = domains(n, name)
    group = line_group(n)
    rng = np.random.default_rng(5)
    for _ in range(3):
        labels = rng.integers(k, size=len(pyramid(n).lines)).astype(np.int32)
        brute = len(lines)
        for perm in group:  # every image, every renaming, counted line by line
            moved = np.empty_like(labels)
            moved[perm] = labels
            for rename in itertools.permutations(range(k)):
                named = np.asarray(rename)[moved[lines]]
                brute = min(brute, int((~allowed[np.arange(len(lines)), named]).sum()))
        assert strategy_gap(n, labels, lines, allowed) == brute
    # a state that keeps the strategy, moved and renamed, is 0 lines off it
    keeps = rng.integers(k, size=len(pyramid(n).lines)).astype(np.int32)
    for i, line in enumerate(lines):
        keeps[line] = np.flatnonzero(allowed[i])[0]
    assert strategy_gap(n, random_image(n, keeps, rng), lines, allowed) == 0


def test_only_strategies_of_one_line_domains_have_a_gap():
    assert domains(4, "BottomCenter012") is None  # one rule over three lines
    assert domains(4, "IncreasingXAxis") is None  # an order, no set of labels
    lines, allowed = domains(4, "YStep")
    assert len(lines) == 16 and allowed.sum(axis=1).tolist() == [1] * 16  # every Y line


def test_learn_aligns_states_a_line_apart_onto_the_first(fixtures, tmp_path):
    labels = one_repeated(fixtures, tmp_path)
    rng = np.random.default_rng(8)
    store = NearStore(6)
    for line in (None, 5, 150):  # the state, and two images of it one line apart
        other = labels.copy()
        if line is not None:
            other[line] = (other[line] + 1) % 11
        form = canonical_labels(6, random_image(6, other, rng))
        store.states[form.tobytes()] = near_module.NearState(6, 1, form, "")
    # canonical forms a line apart may be far apart; moved onto the first they are not
    report = learn(store, "reference", draws=3)
    assert report["unanimous"] == len(labels) - 2
    assert learn(store, "canonical", draws=0)["unanimous"] < len(labels) - 2
    # shuffled states of the same shape agree far less: the agreement is not the alignment's
    low, mean, high = report["chance"]["unanimous"]
    assert report["chance"]["draws"] == 3 and low <= mean <= high < len(labels) // 2
    assert report["chance"] == learn(store, "reference", draws=3)["chance"]  # seeded
    assert "by chance" in learn_text(report)
    assert report["hypotheses"]["YStep"]["lines"] == 36 and "YStep (36 lines)" in \
        learn_text(report)


def test_a_shuffled_state_keeps_each_labels_line_lengths():
    n = 6
    lengths = np.asarray(pyramid(n).line_lengths)
    rng = np.random.default_rng(3)
    labels = rng.integers(11, size=len(lengths)).astype(np.int32)
    mixed = shuffled(n, labels, rng)
    assert not np.array_equal(mixed, labels)
    for length in np.unique(lengths):
        lines = lengths == length
        assert sorted(mixed[lines]) == sorted(labels[lines])


def test_the_hunt_feeds_the_kept_states(fixtures, tmp_path):
    labels = one_repeated(fixtures, tmp_path)
    hunt = Hunt(6, tmp_path, None, Listener(), by="descent")
    hunt.take({"seed": 3, "run_seed": 1000006, "cpu": 1.0,
               "labels": [int(x) for x in labels]})
    hunt.drain()
    state = next(iter(load_near(tmp_path, 6)))
    assert state.count == 1
    assert state.source == {"by": "descent", "seed": 3, "run_seed": 1000006}
    assert hunt.near_limit is None  # one count kept so far: any state may enter


def reporting_to(sent: list):
    """A worker's Reporter whose reports land in `sent`."""
    from ilp_pyramid.puzzles.bel.hunt.task import Reporter

    class Worker:
        def log_event(self, topic, message):
            sent.append(message)

    reporter = Reporter(5, "t")
    reporter.worker = Worker()
    return reporter


def test_a_new_descent_does_not_hide_the_last_ones_best():
    sent = []
    reporter = reporting_to(sent)
    reporter.on_best(30, np.zeros(3), 5)
    reporter.on_best(2, np.ones(3), 5)  # within a second: pending, not sent yet
    reporter.on_best(40, np.zeros(3), 1000008)  # the next descent's first state
    assert [m["conflicts"] for m in sent][-1] == 2 and sent[-1]["run_seed"] == 5


def test_hunt_near_and_learn_on_the_command_line(cli, fixtures, tmp_path):
    labels = one_repeated(fixtures, tmp_path)
    update_near(tmp_path, 6, [(labels, {"by": "best.json"})])
    listed = cli("hunt", 6, "--state-dir", tmp_path, "--near")
    assert listed.code == 0, listed.err
    assert "1 kept states" in listed.out and "1 repeated" in listed.out
    data = json.loads(cli("hunt", 6, "--state-dir", tmp_path, "--near", "--json").out)
    assert data["counts"] == {"1": 1} and set(data["states"][0]["solution"]) == {"Z", "X", "Y"}
    learned = json.loads(cli("hunt", 6, "--state-dir", tmp_path, "--learn", "--json").out)
    assert learned["states"] == 1 and learned["unanimous"] == len(labels)
    assert learned["chance"] is None  # nothing to compare with one state
    assert cli("hunt", 6, "--state-dir", tmp_path / "none", "--near").code == 2
    assert cli("hunt", 6, "--state-dir", tmp_path, "--near", "--learn").code == 2


@pytest.mark.slow  # run by CI's stage 8 (.ci/run): a real descent of a few CPU seconds
def test_fresh_descents_of_the_measuring_script_feed_the_kept_states(tmp_path):
    script = ROOT / "docs" / "scripts" / "frontier_measure.py"
    run = subprocess.run([sys.executable, str(script), "n6",
                          "covers-at-1", "3", "2", "--near", str(tmp_path)],
                         capture_output=True, text=True, timeout=280, check=True)
    row = json.loads(run.stdout)
    assert row["near_kept"] == 1
    state = next(iter(load_near(tmp_path, 6)))
    assert state.count == row["best"] and state.source["by"] == "measure"
    assert state.source["method"] == "covers-at-1"  # the method asked for, not its schedule
