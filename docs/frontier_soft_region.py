# ruff: noqa  (an experiment kept for the record, deleted in the next commit)
"""Soft region repairs from a saved N=6 state (issue 29; docs/frontier.md, "Soft region
repairs"): kept here for the record, deleted in the next commit.

    python docs/frontier_soft_region.py STATE_DIR K CPU_BUDGET SEED TIME_LIMIT [EXTRA] [OUT_DIR]

The pyramid's CNF with the cube constraint relaxed: each cube "at least once" may fail
through its own flag, and at most K + 1 flags may be set (K when the literal `tight` is
assumed). Missing cubes = repeated cubes, so a model under `tight` has at most K repeated
cubes. A round frees a region (lns/region.py: the lines through repeated cubes plus EXTRA
crossing lines, grown while answers come quickly), asks for at most K repeated cubes, and
otherwise for a plateau move: at most K + 1 with some line of the region changed.
"""
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
from pysat.formula import IDPool

from ilp_pyramid.backends.sat import SatSession
from ilp_pyramid.cardinality import CardEnc, EncType
from ilp_pyramid.puzzles.bel.cnf import LINE_CARD, _backward, _forward, exactly_one
from ilp_pyramid.puzzles.bel.geometry import pyramid
from ilp_pyramid.puzzles.bel.hunt import BestState, load_best, save_best
from ilp_pyramid.puzzles.bel.lns.arrays import conflicts_of
from ilp_pyramid.puzzles.bel.lns.region import region_lines


def cpu():
    t = os.times(); return t.user + t.system

n = 6
best = load_best(Path(sys.argv[1]), n)
K = int(sys.argv[2]); budget = float(sys.argv[3]); seed = int(sys.argv[4]); limit = float(sys.argv[5])
extra = int(sys.argv[6]) if len(sys.argv) > 6 else 10
out_dir = Path(sys.argv[7]) if len(sys.argv) > 7 else None
rng = np.random.default_rng(seed)
c0 = cpu(); t0 = time.perf_counter()
geo = pyramid(n)
pool = IDPool()
L = geo.num_labels
x = [[pool.id(("x", i, a)) for a in range(L)] for i in range(len(geo.lines))]
y = [[pool.id(("y", c, k)) for k in range(len(geo.cubes))] for c in range(len(geo.cells))]
clauses = []
for lits in x:
    clauses += exactly_one(lits, pool, LINE_CARD)
_forward(geo, x, y, clauses)
_backward(geo, x, y, clauses)
b = [pool.id(("b", k)) for k in range(len(geo.cubes))]  # cube k may be missing
for k in range(len(geo.cubes)):
    clauses.append([b[k]] + [y[c][k] for c in range(len(geo.cells))])
clauses += CardEnc.atmost(lits=b, bound=K + 1, vpool=pool, encoding=EncType.seqcounter).clauses
tight = pool.id("tight")  # assumed: at most K missing cubes; free: K + 1 (a plateau move)
clauses += [[-tight] + c for c in CardEnc.atmost(lits=b, bound=K, vpool=pool, encoding=EncType.seqcounter).clauses]
session = SatSession(clauses, "cadical195")
moves = {"plateau": 0, "stuck": 0}
lits = np.array(x, dtype=np.int64)
print(json.dumps({"built": round(time.perf_counter() - t0, 1), "vars": pool.top, "clauses": len(clauses), "start": best.conflicts}), flush=True)
labels = best.labels.astype(np.int64)
stats = {"solved": 0, "infeasible": 0, "timeout": 0}
rows = np.arange(len(labels))
while cpu() - c0 < budget:
    free = region_lines(n, labels, extra, rng)
    mask = np.zeros(len(labels), bool); mask[free] = True
    kept = lits[rows[~mask], labels[~mask]]
    hints = lits[rows[mask], labels[mask]]
    r = session.solve(kept.tolist() + [tight], limit, hints.tolist())
    st = str(r.status)
    stats[st] = stats.get(st, 0) + 1
    if st == "timeout":
        extra = max(0, int(extra * 0.7))
    elif r.seconds < limit / 2:
        extra += max(2, extra // 4)
    if st != "solved":
        # a plateau move: the region relabelled, some line of it changed, K + 1 allowed
        act = pool.id(("act", stats["infeasible"] + stats["timeout"] + stats["solved"]))
        session.add_clause([-act] + [-int(lits[i, labels[i]]) for i in free])
        r = session.solve(kept.tolist() + [act], limit, hints.tolist())
        session.add_clause([-act])
        if str(r.status) != "solved":
            moves["stuck"] += 1
            continue
        moves["plateau"] += 1
    model = np.asarray(r.model, dtype=np.int64)
    truth = model[lits - 1] > 0
    new = labels.copy(); new[mask] = np.argmax(truth[mask], axis=1)
    cnt = conflicts_of(n, new)
    if cnt < best.conflicts:
        print(json.dumps({"lower": cnt, "region": int(mask.sum()), "cpu": round(cpu() - c0, 1)}), flush=True)
        if out_dir is not None:
            save_best(out_dir, BestState(n, cnt, new.astype(np.int32), best.hunted_seconds, best.cpu_seconds))
            print("SAVED", cnt, flush=True)
        break
    labels = new
print(json.dumps({"stats": stats, "moves": moves, "changed_lines": int((labels != best.labels).sum()), "extra": extra, "cpu": round(cpu() - c0, 1), "wall": round(time.perf_counter() - t0, 1)}), flush=True)
