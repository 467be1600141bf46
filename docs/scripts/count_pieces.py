"""What a split count's pieces cost: a uniform random sample of the pieces `depth` lines deep
(count_split.py), each counted by one counter in a child capped at CAP CPU seconds, one JSON
line per piece appended to docs/data/bel_count_pieces.jsonl.

    nice -n 10 python docs/scripts/count_pieces.py N DEPTH METHOD K CAP SEED
    python docs/scripts/count_pieces.py summary     # the table in docs/counts.md
    nice -n 10 python docs/scripts/count_pieces.py fixed N METHOD CAP

`fixed` counts every Burnside fixed-point formula but the identity's (count.py: one (g, pi)
per conjugacy class of g and cycle type of pi) the same way, one JSON line each appended to
docs/data/bel_count_fixed_points.jsonl.

Each piece goes through the split count's own path (count_split.cnf_pieces: the SAT solver
first, then the counter, D4 without its tree decomposition; for `cover`, count_cover's
count of the piece), so a row's CPU seconds are what that piece costs a split count. A
piece past its cap is a "timeout" row
with the cap as its CPU seconds: the mean over a sample with timeouts is a lower bound.
The machine is shared: the load average is kept with each row.
"""

from __future__ import annotations

import datetime
import json
import multiprocessing
import os
import random
import resource
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent.parent / "data" / "bel_count_pieces.jsonl"
FIXED = RESULTS.with_name("bel_count_fixed_points.jsonl")


def _child(counter, cube: tuple, cap: int, answers) -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (cap, cap + 1))
    sink = os.open(os.devnull, os.O_WRONLY)
    os.dup2(sink, 1)  # the counters' C code prints statistics
    began = time.process_time()
    models, _ = counter(cube)
    answers.put((models, time.process_time() - began))


def _capped(context, counter, cube: tuple, cap: int) -> dict:
    """`counter(cube)` (a count_split.PieceCounter) in a forked child capped at `cap` CPU s."""
    answers = context.Queue()
    child = context.Process(target=_child, args=(counter, cube, cap, answers))
    child.start()
    child.join()
    if child.exitcode == 0:
        models, cpu = answers.get()
        return {"status": "counted", "count": models, "cpu_seconds": round(cpu, 2)}
    return {"status": "timeout", "count": None, "cpu_seconds": cap}  # killed by RLIMIT_CPU


def fixed_points(n: int, method: str, cap: int) -> None:
    from ilp_pyramid.puzzles.bel.canonical import line_group
    from ilp_pyramid.puzzles.bel.count import conjugacy_classes, cycle_types
    from ilp_pyramid.puzzles.bel.count_cnf import base_cnf, fixed_by, precedence
    from ilp_pyramid.puzzles.bel.count_split import cnf_pieces
    from ilp_pyramid.puzzles.bel.geometry import pyramid

    cnf = base_cnf(n)
    base = list(cnf.formula.clauses)
    extra, top = precedence(cnf)
    m = pyramid(n).num_labels
    group = line_group(n)
    context = multiprocessing.get_context("fork")
    for g, g_size in conjugacy_classes(group):
        for pi, pi_size in cycle_types(m):
            if g == 0 and pi == list(range(m)):
                continue
            if pi == list(range(m)):
                clauses, size = base + extra + fixed_by(cnf, group[g], pi), top
            else:
                clauses, size = base + fixed_by(cnf, group[g], pi), cnf.num_variables
            counter = cnf_pieces(method, clauses, lambda _cube: [], size)
            row = {"n": n, "g": g, "g_size": g_size, "pi": pi, "pi_size": pi_size,
                   "method": method, "cap": cap, "date": datetime.date.today().isoformat(),
                   **_capped(context, counter, (), cap)}
            with open(FIXED, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(row) + "\n")
            print(json.dumps(row), flush=True)


def summary() -> str:
    """Per (N, depth, counter): the sample, and the whole split's CPU projected from it
    (pieces x the sample's mean; a lower bound where pieces reached their cap)."""
    groups: dict[tuple, list[dict]] = {}
    for line in RESULTS.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        groups.setdefault((row["n"], row["depth"], row["method"]), []).append(row)
    out = ["| N | depth | pieces | counter | sampled | no model | counted | past the cap | "
           "mean CPU s a piece | projected CPU h | mean models a piece |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for (n, depth, method), rows in sorted(groups.items()):
        pieces = rows[0]["pieces"]
        capped = [r for r in rows if r["status"] == "timeout"]
        empty = [r for r in rows if r["status"] == "counted" and r["count"] == 0]
        counted = [r for r in rows if r["status"] == "counted" and r["count"]]
        mean = sum(r["cpu_seconds"] for r in rows) / len(rows)
        bound = ">= " if capped else ""
        models = sum(r["count"] for r in counted) / len(rows) if not capped else None
        out.append(f"| {n} | {depth} | {pieces:,} | {method} | {len(rows)} | {len(empty)} | "
                   f"{len(counted)} | {len(capped)} | {bound}{mean:.1f} | "
                   f"{bound}{pieces * mean / 3600:,.1f} | "
                   + ("-" if models is None else f"{models:,.0f}") + " |")
    return "\n".join(out)


def main(argv: list[str]) -> int:
    if argv == ["summary"]:
        print(summary())
        return 0
    if argv[:1] == ["fixed"]:
        fixed_points(int(argv[1]), argv[2], int(argv[3]))
        return 0
    from ilp_pyramid.puzzles.bel.count_cnf import base_cnf, precedence
    from ilp_pyramid.puzzles.bel.count_split import cnf_pieces, line_order, open_cubes
    from ilp_pyramid.puzzles.bel.geometry import pyramid

    n, depth, method, k, cap, seed = (int(argv[0]), int(argv[1]), argv[2], int(argv[3]),
                                      int(argv[4]), int(argv[5]))
    order = line_order(n)
    if method == "cover":
        from ilp_pyramid.puzzles.bel.count_cover import count_piece, cover_tables

        tables = cover_tables(n)
        count_piece(tables, [0] * depth)  # the kernels loaded before the children fork

        def counter(cube: tuple) -> tuple[int, str]:
            return count_piece(tables, [label for _, label in cube]).models, "cover"
    else:
        cnf = base_cnf(n)
        extra, top = precedence(cnf, order)
        counter = cnf_pieces(method, cnf.formula.clauses + extra,
                             lambda cube: [[cnf.line_var(i, v)] for i, v in cube], top)
    pieces = open_cubes({}, order, pyramid(n).num_labels, depth)
    chosen = random.Random(seed).sample(range(len(pieces)), min(k, len(pieces)))
    context = multiprocessing.get_context("fork")
    for index in chosen:
        cube = pieces[index]
        load = os.getloadavg()[0]
        row = {"n": n, "depth": depth, "pieces": len(pieces), "piece": index,
               "cube": [list(pair) for pair in cube], "method": method, "cap": cap,
               "seed": seed, "load": round(load, 1),
               "date": datetime.date.today().isoformat(),
               **_capped(context, counter, cube, cap)}
        with open(RESULTS, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(row) + "\n")
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
