"""The shared exact-cover engine: answers checked against brute force, never hard-coded."""

from __future__ import annotations

from itertools import combinations, permutations

import numpy as np
import pytest

import ilp_pyramid.backends.exact_cover as ec
from ilp_pyramid.backends.exact_cover import ExactCover, count_exact_cover, solve_exact_cover

# Knuth's example from "Dancing Links": items 0..6.
KNUTH = [[2, 4, 5], [0, 3, 6], [1, 2, 5], [0, 3], [1, 6], [3, 4, 6]]


def brute_force(rows, num_primary, num_secondary=0):
    """Every set of rows covering primaries exactly once and secondaries at most once (a row
    with no primary item is never part of a solution, as in Knuth's Algorithm X)."""
    found = []
    useful = [r for r, row in enumerate(rows) if any(i < num_primary for i in row)]
    for k in range(len(useful) + 1):
        for combo in combinations(useful, k):
            items = [i for r in combo for i in rows[r]]
            if len(items) != len(set(items)):
                continue
            if set(range(num_primary)) <= set(items):
                found.append(sorted(combo))
    return sorted(found)


def queens(n):
    """n queens as exact cover: ranks and files primary, the diagonals secondary."""
    rows = []
    for r in range(n):
        for c in range(n):
            rows.append([r, n + c, 2 * n + r + c, 2 * n + (2 * n - 1) + (r - c + n - 1)])
    return rows, 2 * n, 2 * (2 * n - 1)


def queens_brute(n):
    return sum(1 for p in permutations(range(n))
               if len({r + c for r, c in enumerate(p)}) == n
               and len({r - c for r, c in enumerate(p)}) == n)


def is_cover(rows, solution, num_primary, num_secondary=0):
    items = [i for r in solution for i in rows[r]]
    return len(items) == len(set(items)) and set(range(num_primary)) <= set(items) \
        and all(i < num_primary + num_secondary for i in items)


def test_knuth_example_matches_brute_force():
    result = solve_exact_cover(KNUTH, 7, limit=0)
    assert result.exhausted and not result.timed_out
    assert sorted(result.solutions) == brute_force(KNUTH, 7)


def test_no_solution_is_proved():
    rows = [[0, 1], [1, 2]]
    result = solve_exact_cover(rows, 3)
    assert brute_force(rows, 3) == []
    assert result.solutions == [] and result.exhausted


@pytest.mark.parametrize("n", [5, 6, 7])
def test_secondary_items_queens(n):
    rows, primary, secondary = queens(n)
    problem = ExactCover(rows, primary, secondary)
    counted = problem.count(collect=True)
    assert counted.count == queens_brute(n)
    assert counted.exhausted
    assert all(is_cover(rows, [r for r in s if r >= 0], primary, secondary)
               for s in counted.solutions)
    assert len({tuple(sorted(s)) for s in counted.solutions.tolist()}) == counted.count


def test_random_problems_match_brute_force():
    import random

    rng = random.Random(7)
    for _ in range(30):
        items = rng.randint(3, 7)
        secondary = rng.randint(0, 2)
        rows = [rng.sample(range(items + secondary), rng.randint(1, 3))
                for _ in range(rng.randint(3, 11))]
        expected = brute_force(rows, items, secondary)
        result = solve_exact_cover(rows, items, secondary, limit=0)
        assert sorted(result.solutions) == expected
        assert ExactCover(rows, items, secondary).count().count == len(expected)


def test_split_prefixes_partition_the_search():
    rows, primary, secondary = queens(8)
    problem = ExactCover(rows, primary, secondary)
    total = problem.count().count
    for depth in (1, 2, 3):
        prefixes = problem.split(depth)
        assert len(set(prefixes)) == len(prefixes)
        assert sum(problem.count(prefix=p).count for p in prefixes) == total


def test_parallel_count_matches_serial():
    rows, primary, secondary = queens(8)
    serial = count_exact_cover(rows, primary, secondary, jobs=1, depth=2, collect=True)
    parallel = count_exact_cover(rows, primary, secondary, jobs=2, depth=2, collect=True)
    assert serial.count == parallel.count == queens_brute(8)
    assert parallel.exhausted and not parallel.timed_out
    as_sets = {tuple(sorted(x for x in s if x >= 0)) for s in parallel.solutions.tolist()}
    assert len(as_sets) == parallel.count
    assert all(is_cover(rows, s, primary, secondary) for s in as_sets)


def test_auto_depth_gives_many_more_parts_than_jobs():
    rows, primary, secondary = queens(9)
    problem = ExactCover(rows, primary, secondary)
    for jobs in (1, 2):
        depth = ec.auto_depth(problem, jobs)
        assert len(problem.split(depth)) >= ec.PARTS_PER_JOB * jobs
        assert len(problem.split(depth - 1)) < ec.PARTS_PER_JOB * jobs  # the smallest such


@pytest.mark.parametrize("jobs", [1, 2])
def test_summaries_stream_one_per_part(jobs):
    """`summarise` sees batches of sub-trees' solutions where they were counted; `on_part` gets
    the results: together they hold every solution exactly once."""
    rows, primary, secondary = queens(7)
    parts: list = []
    steps: list[tuple[int, int]] = []
    result = count_exact_cover(rows, primary, secondary, jobs=jobs, depth=2,
                               summarise=lambda sols: [tuple(sorted(x for x in s if x >= 0))
                                                       for s in sols.tolist()],
                               on_part=parts.append, progress=lambda *a: steps.append(a))
    subtrees = len(ExactCover(rows, primary, secondary).split(2))
    assert steps[0] == (0, subtrees) and steps[-1] == (subtrees, subtrees)
    assert [done for done, _ in steps] == sorted(done for done, _ in steps)
    every = [s for part in parts for s in part]
    assert len(every) == len(set(every)) == result.count == queens_brute(7)
    assert all(is_cover(rows, s, primary, secondary) for s in every)


@pytest.mark.parametrize("jobs", [1, 2])
def test_time_limit_gives_a_partial_count(jobs):
    rows, primary, secondary = queens(15)  # far more than a second of search
    result = count_exact_cover(rows, primary, secondary, jobs=jobs, time_limit=0.3)
    assert result.timed_out and not result.exhausted
    # 15 queens: stopped at the limit, the partial count is below the total
    assert 0 <= result.count < 2_279_184


def test_an_exception_in_the_parent_leaves_no_worker():
    import multiprocessing

    rows, primary, secondary = queens(12)
    seen: list[int] = []

    def stop(summary: object) -> None:
        seen.extend(p.pid for p in multiprocessing.active_children())
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        count_exact_cover(rows, primary, secondary, jobs=2, summarise=len, on_part=stop)
    assert seen  # the workers were running when the interrupt came
    assert multiprocessing.active_children() == []


def test_a_failing_summary_is_reported():
    rows, primary, secondary = queens(6)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        count_exact_cover(rows, primary, secondary, jobs=2, depth=2,
                          summarise=lambda sols: 1 / 0, on_part=print)


def test_limit_and_prefix():
    rows, primary, secondary = queens(6)
    result = ExactCover(rows, primary, secondary).solve(limit=2)
    assert len(result.solutions) == 2 and not result.exhausted
    first = result.solutions[0]
    again = ExactCover(rows, primary, secondary).solve(limit=1, prefix=first[:2])
    assert again.solutions and set(first[:2]) <= set(again.solutions[0])
    clash = ExactCover(rows, primary, secondary).count(prefix=(0, 1))  # same rank twice
    assert clash.count == 0


def test_limits_stop_without_claiming_an_answer():
    rows, primary, secondary = queens(12)
    by_nodes = ExactCover(rows, primary, secondary).count(node_limit=50)
    assert by_nodes.timed_out and not by_nodes.exhausted and by_nodes.nodes <= 50
    rows, primary, secondary = queens(14)  # more than one chunk of search
    by_time = ExactCover(rows, primary, secondary).count(time_limit=0.0)
    assert by_time.timed_out and not by_time.exhausted


def test_bad_rows_are_rejected():
    with pytest.raises(ValueError):
        ExactCover([[0], []], 1)
    with pytest.raises(ValueError):
        ExactCover([[0, 5]], 2)


def queens_symmetries(n):
    """The square's 8 maps as permutations of the queens' rows (row r*n + c: a queen at r, c)."""
    maps = [lambda r, c: (r, c), lambda r, c: (c, n - 1 - r), lambda r, c: (n - 1 - r, n - 1 - c),
            lambda r, c: (n - 1 - c, r), lambda r, c: (r, n - 1 - c),
            lambda r, c: (n - 1 - r, c), lambda r, c: (c, r),
            lambda r, c: (n - 1 - c, n - 1 - r)]
    return np.array([[f(r, c)[0] * n + f(r, c)[1] for r in range(n) for c in range(n)]
                     for f in maps])


def solution_sets(solutions):
    return sorted(tuple(sorted(x for x in s if x >= 0)) for s in solutions.tolist())


@pytest.mark.parametrize("n, jobs, depth", [(6, 1, 1), (7, 2, 2), (8, 2, None), (8, 1, 3)])
def test_counting_by_orbits_loses_and_repeats_no_solution(n, jobs, depth):
    """With the board's symmetries the search runs below one row of each orbit and carries the
    rest: exactly the solutions of the plain search, each once (a map too many would repeat
    some, one too few lose some)."""
    rows, primary, secondary = queens(n)
    plain = count_exact_cover(rows, primary, secondary, jobs=1, collect=True)
    split = count_exact_cover(rows, primary, secondary, jobs=jobs, depth=depth, collect=True,
                              symmetries=queens_symmetries(n))
    assert plain.count == split.count == queens_brute(n)
    assert solution_sets(split.solutions) == solution_sets(plain.solutions)
    assert len(set(solution_sets(split.solutions))) == split.count


def test_orbits_of_a_smaller_group_and_a_group_keeping_no_item():
    rows, primary, secondary = queens(8)
    problem = ExactCover(rows, primary, secondary)
    plain = count_exact_cover(rows, primary, secondary, collect=True)
    table = queens_symmetries(8)
    # The mirror r, c -> r, 7 - c keeps every rank's rows: orbits of two rows (or one).
    plan = ec._orbit_plan(problem, (), table[[0, 4]])
    assert plan is not None and sorted(len(maps) for _, maps, _ in plan) == [2] * 4
    assert all(problem.rows[r][0] == problem.rows[plan[0][0]][0] for r, _, _ in plan)  # a rank
    mirror = count_exact_cover(rows, primary, secondary, collect=True, symmetries=table[[0, 4]])
    assert solution_sets(mirror.solutions) == solution_sets(plain.solutions)
    # The rotations move every rank and file: the count falls back to the plain search.
    assert ec._orbit_plan(problem, (), table[[0, 1, 2, 3]]) is None
    assert ec._seeds(problem, table[[0, 1, 2, 3]]) is None
    assert count_exact_cover(rows, primary, secondary,
                             symmetries=table[[0, 1, 2, 3]]).count == plain.count
    with pytest.raises(ValueError, match="permutation"):
        count_exact_cover(rows, primary, secondary, symmetries=np.zeros((2, 64), int))


def test_subtrees_counts_what_split_lists():
    rows, primary, secondary = queens(7)
    problem = ExactCover(rows, primary, secondary)
    for depth, prefix in ((0, ()), (1, ()), (2, ()), (3, ()), (2, (3,)), (1, (0, 1))):
        assert problem.subtrees(depth, prefix) == len(problem.split(depth, prefix)), prefix


def _fresh_python(code: str) -> str:
    """Run `code` in a new interpreter (kernels not loaded yet); its stdout."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_workers_start_with_every_kernel_loaded():
    # Loaded before the fork, the kernels are shared; a worker that had to load one would pay
    # numba's start-up again, in every worker.
    if ec.cores() < 2:
        pytest.skip("one core: counted in this process")
    rows, primary, secondary = queens(5)
    out = _fresh_python(
        "import os\n"
        "import ilp_pyramid.backends.exact_cover as ec\n"
        "original = ec._work\n"
        "def work(*args):\n"
        "    kernels = (ec._search, ec._split, ec._select)\n"
        "    loaded = min(len(k.signatures) for k in kernels)\n"
        "    os.write(1, f'worker {loaded}\\n'.encode())  # one write: workers share fd 1\n"
        "    original(*args)\n"
        "ec._work = work\n"
        f"print('count', ec.count_exact_cover({rows}, {primary}, {secondary}, jobs=2).count)\n")
    lines = sorted(out.splitlines())
    assert lines == ["count " + str(count_exact_cover(rows, primary, secondary).count),
                     "worker 1", "worker 1"]


def test_loading_without_cffi_counts_the_same_and_leaves_cffi_importable():
    import importlib.util

    if importlib.util.find_spec("cffi") is None:
        pytest.skip("cffi is not installed: nothing to spare")
    rows, primary, secondary = queens(4)
    out = _fresh_python(
        "import sys\n"
        "import ilp_pyramid.backends.exact_cover as ec\n"
        "ec.load_kernels(skip_cffi=True)\n"
        "print('cffi' in sys.modules)\n"
        f"print(ec.count_exact_cover({rows}, {primary}, {secondary}).count)\n"
        "import cffi\n"
        "print(cffi.FFI is not None)\n")
    assert out.split() == ["False", str(len(brute_force(rows, primary, secondary))), "True"]
