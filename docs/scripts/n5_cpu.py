"""CPU seconds of single N=5 searches to a solution, per seed and per Settings arm, and the
race of two modelled from them (docs/hybrid.md, "Long covers").

CPU time, not wall, so that it can be taken on a shared machine: each search runs in this
process (`solve_lns`, MiniSat repairs in the process too, their limit on CPU time) with a CPU
budget; a search over the budget counts as not solved (infinite). Arms run seed by seed,
interleaved, so they see the same load. One JSON line per (arm, seed) goes to stdout, with
every cover's CPU seconds and answer.

    python docs/scripts/n5_cpu.py run --seeds 1000-1039 --budget 25 \
        --arm before='{"repair_time_limit": 5, "timeout_weight": 0}' --arm after={} > runs.jsonl
    python docs/scripts/n5_cpu.py race runs.jsonl --pair before --pair after

`race` models `solve 5`'s two racing searches (lns/race.py): search 0 runs the seed S with
the first arm's settings, search 1 the seed S + race.SEED_STRIDE with the second's; a race
takes as long as its faster search. Every seed's search is independent of every other's, so
all pairs of two different seeds (one from each arm) are races of the same law: their
median and quantiles are given, and, for seeds run with their partners (S and S + stride
both in the file), the races those seeds really run.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
import time


def _seeds(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out.extend(range(int(a), int(b) + 1) if b else [int(a)])
    return out


def run(arms: dict[str, dict], seeds: list[int], budget: float, partners: bool) -> None:
    from ilp_pyramid.puzzles.bel.lns import driver
    from ilp_pyramid.puzzles.bel.lns.driver import Settings, solve_lns
    from ilp_pyramid.puzzles.bel.lns.race import SEED_STRIDE
    from ilp_pyramid.puzzles.bel.lns.warmup import compile_kernels

    compile_kernels(5)
    covers: list[list] = []  # per cover of the current search: [CPU s, status]
    plain = driver.repairs.repair

    def timed(*args, **kwargs):
        before = time.process_time()
        result = plain(*args, **kwargs)
        covers.append([round(time.process_time() - before, 4), str(result.status)])
        return result

    driver.repairs.repair = timed
    todo = [s for seed in seeds for s in ((seed, seed + SEED_STRIDE) if partners else (seed,))]
    for seed in todo:
        for name, fields in arms.items():
            covers.clear()
            row = _one(solve_lns, seed, Settings(**fields), budget)
            print(json.dumps({"arm": name, "seed": seed, **row, "covers": covers}), flush=True)


def _one(solve_lns, seed: int, settings, budget: float) -> dict:
    """One search under a CPU budget: its CPU seconds, how it ended, when its best first
    stood at 4 and at 3 repeated cubes, and when it restarted (CPU s from its start)."""
    start = time.process_time()
    reached: dict[str, float] = {}
    restarted: list[float] = []

    def progress(p):
        now = round(time.process_time() - start, 2)
        while len(restarted) < p.restarts:
            restarted.append(now)
        for level in (4, 3):
            if p.best <= level:
                reached.setdefault(f"at{level}", now)

    outcome = solve_lns(5, "sat", seed=seed, settings=settings, progress=progress,
                        should_stop=lambda: time.process_time() - start > budget)
    return {"solved": outcome.status == "solved", "cpu": round(time.process_time() - start, 3),
            "moves": outcome.moves, "restarts": outcome.restarts, "by": outcome.solved_by,
            "repairs": outcome.repair_summary(), **reached, "restarted": restarted}


def _quantiles(values: list[float]) -> str:
    values = sorted(values)

    def q(p: float) -> float:
        return values[min(len(values) - 1, int(p * len(values)))]

    return (f"median {statistics.median(values):.2f}  p90 {q(0.9):.2f}  p95 {q(0.95):.2f}  "
            f"max {values[-1]:.2f}")


def race(path: str, pairs: list[str]) -> None:
    from ilp_pyramid.puzzles.bel.lns.race import SEED_STRIDE

    cpu: dict[str, dict[int, float]] = {}
    for line in open(path):
        row = json.loads(line)
        cpu.setdefault(row["arm"], {})[row["seed"]] = row["cpu"] if row["solved"] else \
            float("inf")
    # the arms compared on the same seeds: those every arm ran
    common = set.intersection(*(set(times) for times in cpu.values()))
    cpu = {arm: {s: t for s, t in times.items() if s in common} for arm, times in cpu.items()}
    for arm, times in sorted(cpu.items()):
        values = list(times.values())
        print(f"{arm:>12} single ({len(values)} seeds): {_quantiles(values)}; "
              f"over 10: {sum(v > 10 for v in values)}")
    for pair in pairs:
        first, _, second = pair.partition("+")
        a, b = cpu[first], cpu[second or first]
        modelled = [min(a[i], b[j]) for i, j in itertools.product(common, common) if i != j]
        real = [min(a[s], b[s + SEED_STRIDE]) for s in a if s + SEED_STRIDE in b]
        print(f"{pair:>12} race, all pairs of {len(common)} seeds: {_quantiles(modelled)}; "
              f"P(over 9) {sum(v > 9 for v in modelled) / len(modelled):.3f}")
        if real:
            print(f"{pair:>12} race, real pairs ({len(real)}): {_quantiles(real)}; "
                  f"over 9: {sum(v > 9 for v in real)}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run")
    p.add_argument("--seeds", required=True, help="e.g. 1000-1059 or 0-19,100-119")
    p.add_argument("--budget", type=float, default=40.0, help="CPU seconds per search")
    p.add_argument("--arm", action="append", required=True, help="name=Settings fields (JSON)")
    p.add_argument("--partners", action="store_true",
                   help="also run each seed's race partner (seed + race.SEED_STRIDE)")
    r = sub.add_parser("race")
    r.add_argument("results")
    r.add_argument("--pair", action="append", default=[],
                   help="arm (both searches) or arm0+arm1 (search 0, search 1)")
    args = parser.parse_args(argv)
    if args.command == "run":
        arms = {name: json.loads(fields) for name, _, fields in
                (arm.partition("=") for arm in args.arm)}
        run(arms, _seeds(args.seeds), args.budget, args.partners)
    else:
        race(args.results, args.pair)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
