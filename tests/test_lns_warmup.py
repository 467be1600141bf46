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
mine, theirs, last = search.compile_plan(arrays(3).geometry(), search.new_state(3, labels, 0))
def counts(group):
    return [(k.py_func.__name__, len(k.overloads), sum(k.stats.cache_hits.values()),
             [str(t) for t in k.overloads]) for k, _ in group]
s = search.LocalSearch(3, labels, 5)
print(json.dumps({"mine": counts(mine), "theirs": counts(theirs), "last": counts(last),
                  "init_state": counts([(search.init_state, None)]),
                  "typed_inside": {k.py_func.__name__: len(k.overloads)
                                   for k in (search._remove_cell, search._add_cell)},
                  "best": s.run(20000, 0.3), "children": len(multiprocessing.active_children())}))
"""


@pytest.mark.slow  # a whole compile of the kernels (the rest of the suite loads them)
def test_first_compile_splits_the_kernels_and_each_is_called_with_its_listed_types(
        tmp_path):
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          env={"NUMBA_CACHE_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"},
                          timeout=300, check=True)
    seen = json.loads(done.stdout)
    # run_moves (and the search calling run_moves) asked for no other signature than the
    # listed one: a second overload would be a kernel compiled twice, once from the list
    for name, overloads, _, types in seen["mine"] + seen["theirs"] + seen["last"]:
        assert overloads == 1, (name, types)
    # the child's helpers and init_state came from the cache it wrote, not from a compile here
    for name, _, hits, _ in seen["theirs"] + seen["init_state"]:
        assert hits == 1, name
    # the cell updates are typed inside _set_label (numba's inlining): no compile of their own
    assert seen["typed_inside"] == {"_remove_cell": 0, "_add_cell": 0}
    assert seen["best"] >= 0
    assert seen["children"] == 0
