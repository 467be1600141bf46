"""The first `solve N` of a fresh install against a later one: cold against warm numba cache.

Each pair runs `ilp-pyramid solve N --seed S --json` twice in a new, empty NUMBA_CACHE_DIR:
the first run compiles the search's kernels (a fresh install, or a wiped cache), the second
loads them (every later run). Cold and warm alternate, so both see the same load on the
machine; the wall and CPU seconds of each run (CPU: the command and its children, which is
less sensitive to other work on the machine than wall time) go out as JSON lines, with the
load average before and after, and a summary line per N (min/median/max of cold, warm and
cold - warm over the pairs).

    python docs/scripts/compile_cold_warm.py --n 5 --seeds 1 2 3 4 5 \
        -o docs/data/compile_cold_warm.jsonl

Issue 68's target: the median of cold - warm within 2 s. Run it on an otherwise idle machine:
with other work running, the compile's share of the wall time is not the program's.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def command() -> list[str]:
    script = Path(sys.executable).with_name("ilp-pyramid")
    if script.exists():
        return [str(script)]
    found = shutil.which("ilp-pyramid")
    return [found] if found else [sys.executable, "-m", "ilp_pyramid"]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(args: list[str], cache: str, timeout: float) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    load = os.getloadavg()[0]
    cpu0, began = children_cpu(), time.perf_counter()
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=timeout,
                          check=False)
    wall = time.perf_counter() - began
    status = None
    try:
        status = json.loads(done.stdout).get("status")
    except ValueError:
        pass
    return {"exit": done.returncode, "status": status, "wall_s": round(wall, 3),
            "cpu_s": round(children_cpu() - cpu0, 3), "load_before": load,
            "load_after": os.getloadavg()[0]}


def spread(values: list[float]) -> dict:
    return {"min": round(min(values), 3), "median": round(statistics.median(values), 3),
            "max": round(max(values), 3)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[5])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    parser.add_argument("--time-limit", type=float, default=600.0,
                        help="a run's time limit (passed to solve)")
    parser.add_argument("-o", "--output", type=Path,
                        default=Path("docs/data/compile_cold_warm.jsonl"))
    options = parser.parse_args()
    base = command()
    options.output.parent.mkdir(parents=True, exist_ok=True)
    with options.output.open("a", encoding="utf-8") as out:
        def emit(row: dict) -> None:
            line = json.dumps(row, sort_keys=True)
            print(line, flush=True)
            out.write(line + "\n")
            out.flush()

        for n in options.n:
            pairs = []
            for seed in options.seeds:
                args = base + ["solve", str(n), "--seed", str(seed), "--json",
                               "--time-limit", str(options.time_limit)]
                with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
                    cold = run(args, cache, options.time_limit + 60)
                    warm = run(args, cache, options.time_limit + 60)
                row = {"kind": "pair", "n": n, "seed": seed, "cold": cold, "warm": warm,
                       "extra_wall_s": round(cold["wall_s"] - warm["wall_s"], 3),
                       "extra_cpu_s": round(cold["cpu_s"] - warm["cpu_s"], 3),
                       "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                       "cores": os.cpu_count()}
                pairs.append(row)
                emit(row)
            emit({"kind": "summary", "n": n, "pairs": len(pairs),
                  "cold_wall_s": spread([p["cold"]["wall_s"] for p in pairs]),
                  "warm_wall_s": spread([p["warm"]["wall_s"] for p in pairs]),
                  "extra_wall_s": spread([p["extra_wall_s"] for p in pairs]),
                  "cold_cpu_s": spread([p["cold"]["cpu_s"] for p in pairs]),
                  "warm_cpu_s": spread([p["warm"]["cpu_s"] for p in pairs]),
                  "extra_cpu_s": spread([p["extra_cpu_s"] for p in pairs]),
                  "load_before": pairs[0]["cold"]["load_before"],
                  "load_after": pairs[-1]["warm"]["load_after"]})
    return 0


if __name__ == "__main__":
    sys.exit(main())
