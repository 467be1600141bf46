"""The search's first compile on two processes (lns/warmup.py), in a fresh numba cache."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# In a process of its own, with an empty cache: the kernels are compiled, not loaded, and the
# helpers' compile counts are this compile's only.
SCRIPT = """
import json, multiprocessing
import numpy as np
from ilp_pyramid.puzzles.bel.lns import search
from ilp_pyramid.puzzles.bel.lns.arrays import arrays
from ilp_pyramid.puzzles.bel.lns.warmup import compile_kernels

compile_kernels(3)
labels = search.random_labels(3, np.random.default_rng(0))
mine, theirs = search.helper_groups(arrays(3).geometry(), search.new_state(3, labels, 0))
def counts(group):
    return [(k.py_func.__name__, len(k.overloads), sum(k.stats.cache_hits.values()),
             [str(t) for t in k.overloads]) for k, _ in group]
s = search.LocalSearch(3, labels, 5)
print(json.dumps({"mine": counts(mine), "theirs": counts(theirs),
                  "run_moves": len(search.run_moves.overloads),
                  "best": s.run(20000, 0.3), "children": len(multiprocessing.active_children())}))
"""


@pytest.mark.slow  # a whole compile of the kernels (the rest of the suite loads them)
def test_first_compile_splits_the_helpers_and_run_moves_calls_each_with_its_listed_types(
        tmp_path):
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          env={"NUMBA_CACHE_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"},
                          timeout=300, check=True)
    seen = json.loads(done.stdout)
    # run_moves asked for no other signature than the listed one (a second overload would be
    # a helper compiled twice: once from the list, once for run_moves)
    for name, overloads, _, types in seen["mine"] + seen["theirs"]:
        assert overloads == 1, (name, types)
    # the child's group came from the cache it wrote, not from a compile here
    assert all(hits == 1 for _, _, hits, _ in seen["theirs"]), seen["theirs"]
    assert seen["run_moves"] == 1
    assert seen["best"] >= 0
    assert seen["children"] == 0
