"""What each route to an N=6 pyramid would cost: CPU time at N=3, 4, 5, fitted, extrapolated.

    python docs/scripts/n6_routes.py measure ROUTE N SEED[,SEED...] [--cap CPU_SECONDS]
    python docs/scripts/n6_routes.py render [--check]

measure: one run per seed, one JSON line per run appended to docs/data/n6_routes.jsonl
(route, n, seed, cpu_s, wall_s, outcome, cap_s, load). Every run is a child process; its CPU is
the user+sys time of that process and its descendants (getrusage of the children), so runs
side by side with other work on a shared machine stay comparable; the load average is
recorded with each row. A child is stopped by the kernel (RLIMIT_CPU) at the cap: such a row
is censored, `outcome: capped`, and counts as "at least the cap".

ROUTE:
  cdcl:SOLVER:STRATEGY+...  `ilp-pyramid solve N --solver SOLVER --strategy ... --seed SEED`
                            (the clauses shuffled by the seed; the solution verified by the
                            package before it is printed).
  walk                      `ilp-pyramid solve N --method lns -j 1 --seed SEED`: the hybrid
                            walk from scratch, one core, to a verified solution.
  cc:STRATEGY+...           cube-and-conquer (this script, python-sat): the CNF the package
                            exports, split by lookahead (each candidate variable propagated
                            both ways, the product of the implied counts ranks it) into 2^d
                            cubes, d growing with N; the cubes solved one after another by
                            CaDiCaL in a seeded order until one is SAT (the model decoded
                            through the CNF's own variable map and verified by
                            ilp_pyramid.verify) or all are UNSAT (refuted: the hypotheses
                            have no solution).
  decomp                    the decomposition by line family, naive form: random labels for
                            the X and Y families, the Z family then an exact cover
                            (lns.repair, CaDiCaL/MiniSat through the backends) until one
                            cover exists. Measured: CPU per check and checks to a solution
                            where the cap allows; the N=6 cost is modelled from those.
  decomp-learnt             the same, its refutations fed back as clauses
                            (ilp_pyramid.puzzles.bel.decompose: a CaDiCaL master over the X
                            and Y labels, each refuted labelling's core a clause), to a
                            verified solution.
  conquer-dask:STRATEGY+... `ilp-pyramid conquer N --strategy ... --scheduler` on a Dask
                            scheduler and two one-thread workers started for the run; CPU of
                            all of them, wall beside it (measure_cluster).

render: the table between <!-- n6-routes --> and <!-- /n6-routes --> in docs/frontier.md,
from the results file; --check compares instead of writing (exit 1 if stale).
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import resource
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "data" / "n6_routes.jsonl"
PAGE = ROOT / "docs" / "frontier.md"
BLOCK = re.compile(r"(<!-- n6-routes -->\n)(.*?)(<!-- /n6-routes -->)", re.S)
CLI = [sys.executable, "-m", "ilp_pyramid"]
HOUR = 3600.0
# CPU seconds below which a run less its startup is not resolved (the startup itself varies by
# about this much between runs); smaller net times are counted at it, which flattens the fit:
# an estimate from such points is on the low side.
RESOLUTION = 0.1
REFUTED = 5  # the in-process routes' exit code for "no solution" (1 is Python's for a crash)
IN_PROCESS = ("decomp", "decomp-learnt")
WORKERS = 2  # the Dask workers of a conquer-dask run
CLUSTER_CUBE_TIME = 5.0  # its --cube-time: CPU seconds a cube gets before it is split


def cubes(n: int) -> int:
    """The number of cubes (= cells) of the N-level pyramid."""
    return n * (4 * n * n - 1) // 3


# --------------------------------------------------------------------------- measuring

def _limit_cpu(cap: float):
    def apply() -> None:
        os.nice(5)
        seconds = max(1, math.ceil(cap))
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 5))
    return apply


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def command(route: str, n: int, seed: int, cap: float) -> list[str]:
    """The child process that makes one run of the route."""
    if route.startswith("cdcl:"):
        _, solver, strategy = route.split(":", 2)
        return [*CLI, "solve", str(n), "--solver", solver, "--strategy", strategy,
                "--seed", str(seed), "--json", "--time-limit", str(cap * 20)]
    if route == "walk":
        return [*CLI, "solve", str(n), "--method", "lns", "-j", "1", "--seed", str(seed),
                "--json", "--time-limit", str(cap * 20)]
    if route.startswith("cc:") or route in IN_PROCESS:
        return [sys.executable, __file__, "_run", route, str(n), str(seed)]
    raise SystemExit(f"unknown route {route!r}")


def measure_one(route: str, n: int, seed: int, cap: float) -> dict:
    load = os.getloadavg()
    before, start = _children_cpu(), time.perf_counter()
    done = subprocess.run(command(route, n, seed, cap), capture_output=True, text=True,
                          preexec_fn=_limit_cpu(cap), cwd=ROOT)
    wall = time.perf_counter() - start
    cpu = _children_cpu() - before
    outcome, extra = "capped", {}
    in_process = route.startswith("cc:") or route in IN_PROCESS
    if done.returncode == 0:
        outcome = "verified"
    elif done.returncode == (REFUTED if in_process else 1) and _refuted(done.stdout, in_process):
        outcome = "refuted"
    if in_process:
        lines = done.stdout.strip().splitlines()
        if lines:
            extra = json.loads(lines[-1])
    if outcome == "capped" and cpu < 0.9 * cap:
        outcome = f"error {done.returncode}: {done.stderr.strip()[-200:]}"
    return {"route": route, "n": n, "seed": seed, "cpu_s": round(cpu, 3),
            "wall_s": round(wall, 3), "outcome": outcome, "cap_s": cap,
            "load": [round(x, 2) for x in load], **extra}


def measure_cluster(route: str, n: int, seed: int, cap: float) -> dict:
    """`conquer-dask:STRATEGY+...`: `ilp-pyramid conquer N --strategy ... --scheduler` as the
    client of a Dask scheduler and WORKERS one-thread workers (no nanny: the worker is the
    process whose CPU is read) started for the run. CPU: the client's (getrusage of the
    children) plus the scheduler's and the workers' from the moment all workers are up to the
    command's end (/proc); wall: the command's. The command is stopped (SIGTERM) once all of
    them have spent the cap: a wall limit would measure the machine's load. The seed only
    names the run: the conquest has no seed of its own."""
    import tempfile

    from ilp_pyramid.bench.dask_processes import scheduler_and_workers

    strategy = route.split(":", 1)[1]
    load = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp, \
            scheduler_and_workers(WORKERS, Path(tmp), niceness=5) as (address, procs):
        base = _cpu_of(procs)
        before, start = _children_cpu(), time.perf_counter()
        client = subprocess.Popen(
            [*CLI, "conquer", str(n), "--strategy", strategy, "--record", f"{tmp}/rec",
             "--scheduler", address, "--cube-time", str(CLUSTER_CUBE_TIME), "--json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            preexec_fn=_limit_cpu(cap), cwd=ROOT)
        capped = _stop_at_cpu(client, procs, base, cap)
        out, err = client.communicate()
        wall = time.perf_counter() - start
        cpu = _children_cpu() - before + _cpu_of(procs) - base
    outcome = {0: "verified", 1: "refuted"}.get(client.returncode, "capped" if capped else
                                                 f"error {client.returncode}: "
                                                 f"{err.strip()[-200:]}")
    extra: dict = {"workers": WORKERS}
    if out.strip():
        report = json.loads(out)
        extra.update(cubes=report["cubes_this_run"], solver_cpu_s=report["cpu_seconds"])
    return {"route": route, "n": n, "seed": seed, "cpu_s": round(cpu, 3),
            "wall_s": round(wall, 3), "outcome": outcome, "cap_s": cap,
            "load": [round(x, 2) for x in load], **extra}


def _cpu_of(processes: Sequence[subprocess.Popen]) -> float:
    """CPU seconds of live processes and their reaped children (0 for one gone)."""
    from ilp_pyramid.backends.process import cpu_seconds

    return sum(cpu_seconds(p.pid, children=True) for p in processes)


def _stop_at_cpu(client: subprocess.Popen, cluster: list[subprocess.Popen], base: float,
                cap: float) -> bool:
    """Wait for the client; stop it (SIGTERM: it keeps its record and prints its report)
    once it and the cluster have spent `cap` CPU seconds. True if it was stopped."""
    while client.poll() is None:
        if _cpu_of([client, *cluster]) - base >= cap:
            client.terminate()
            return True
        time.sleep(0.5)
    return False


def _refuted(stdout: str, in_process: bool) -> bool:
    """Exit 1 of `solve` is also its answer when the solver process was killed (by the cap):
    only the status `infeasible` is a refutation."""
    if in_process:
        return True
    try:
        return json.loads(stdout).get("status") == "infeasible"
    except ValueError:
        return False


def _append(row: dict) -> None:
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    with RESULTS.open("a") as out:
        out.write(json.dumps(row, sort_keys=True) + "\n")


# --------------------------------------------------------------------------- routes in-process

def _cube_and_conquer(strategy: str, n: int, seed: int) -> tuple[int, dict]:
    import tempfile

    from pysat.formula import CNF
    from pysat.solvers import Solver

    from ilp_pyramid.puzzles.bel.cnf import decode_certificate, read_cnf_info
    from ilp_pyramid.verify.bel import verify_solution

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "m.cnf"
        flags = [f for name in strategy.split("+") for f in ("--strategy", name)]
        subprocess.run([*CLI, "export", str(n), *flags, "-o", str(path)],
                       check=True, capture_output=True)
        text = path.read_text()
    info = read_cnf_info(text)
    formula = CNF(from_string=text)
    rng = random.Random(seed)
    depth = {3: 3, 4: 4, 5: 6}.get(n, 8)
    look = Solver(name="cadical153", bootstrap_with=formula.clauses)
    candidates = sorted(info.line_vars)
    rng.shuffle(candidates)
    candidates = candidates[:200]

    def split(prefix: list[int], d: int) -> list[list[int]]:
        if d == 0:
            return [prefix]
        ok, base = look.propagate(assumptions=prefix)
        if not ok:
            return []  # refuted by propagation alone: no cube
        fixed = {abs(x) for x in [*base, *prefix]}
        best, score = None, -1.0
        for var in candidates:
            if var in fixed:
                continue
            counts = []
            for lit in (var, -var):
                ok, implied = look.propagate(assumptions=[*prefix, lit])
                counts.append(len(implied) - len(base) if ok else 10**6)
            if counts[0] >= 10**6 or counts[1] >= 10**6:  # a failed literal: no split needed
                lit = -var if counts[0] >= 10**6 else var
                return split([*prefix, lit], d) if min(counts) < 10**6 else []
            value = (counts[0] + 1) * (counts[1] + 1)
            if value > score:
                best, score = var, value
        if best is None:
            return [prefix]
        return split([*prefix, best], d - 1) + split([*prefix, -best], d - 1)

    cube_list = split([], depth)
    look.delete()
    rng.shuffle(cube_list)
    solved_cubes = 0
    with Solver(name="cadical153", bootstrap_with=formula.clauses) as conquer:
        for cube in cube_list:
            solved_cubes += 1
            if conquer.solve(assumptions=cube):
                solution = decode_certificate(info, conquer.get_model())
                verdict = verify_solution(solution)
                if not verdict.valid:
                    return 4, {"cubes": len(cube_list), "cubes_solved": solved_cubes}
                return 0, {"cubes": len(cube_list), "cubes_solved": solved_cubes}
    return REFUTED, {"cubes": len(cube_list), "cubes_solved": solved_cubes}


def _decomposition(n: int, seed: int) -> tuple[int, dict]:
    import numpy as np

    from ilp_pyramid.puzzles.bel.lns.arrays import arrays, labels_to_solution
    from ilp_pyramid.puzzles.bel.lns.repair import repair
    from ilp_pyramid.verify.bel import verify_solution

    a = arrays(n)
    rng = np.random.default_rng(seed)
    checks, start = 0, time.process_time()
    while True:
        labels = rng.integers(0, a.num_labels, size=a.num_lines).astype(np.int32)
        checks += 1
        result = repair(n, labels, "Z", "sat")
        spent = time.process_time() - start
        # The row is rewritten after every check, so a capped run still says how many it made.
        print(json.dumps({"checks": checks, "cpu_per_check_s": round(spent / checks, 6)}),
              flush=True)
        if result.labels is not None:
            verdict = verify_solution(labels_to_solution(n, result.labels))
            return (0 if verdict.valid else 4), {"checks": checks,
                                              "cpu_per_check_s": round(spent / checks, 6)}


def _decomposition_learnt(n: int, seed: int) -> tuple[int, dict]:
    from ilp_pyramid.backends.base import Status
    from ilp_pyramid.puzzles.bel.decompose import decompose
    from ilp_pyramid.puzzles.bel.lns.arrays import labels_to_solution
    from ilp_pyramid.verify.bel import verify_solution

    def counts(state) -> dict:
        return {"rounds": state.rounds, "learnt": state.learnt,
                "reason_mean": round(state.reason_literals / max(state.learnt, 1), 1)}

    # The row is rewritten after every round, so a capped run still says how far it got.
    result = decompose(n, seed=seed,
                       on_round=lambda state: print(json.dumps(counts(state)), flush=True))
    if result.status == Status.SOLVED:
        verdict = verify_solution(labels_to_solution(n, result.labels))
        return (0 if verdict.valid else 4), counts(result)
    return REFUTED, counts(result)


def _run(route: str, n: int, seed: int) -> int:
    if route == "decomp":
        code, extra = _decomposition(n, seed)
    elif route == "decomp-learnt":
        code, extra = _decomposition_learnt(n, seed)
    else:
        code, extra = _cube_and_conquer(route.split(":", 1)[1], n, seed)
    print(json.dumps(extra), flush=True)
    return code


# --------------------------------------------------------------------------- fitting

def fit_line(points: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """Least squares y = a + b x; (a, b)."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in points) / sxx if sxx else 0.0
    return my - b * mx, b


def _median(values: Sequence[float]) -> float:
    s = sorted(values)
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2


def startup(rows: Sequence[dict]) -> float:
    """The route's fixed cost: its fastest run at N=1 or 2 (the command's start, imports,
    compiled kernels loaded), which would flatten the growth if it were fitted; 0 without
    such runs."""
    small = [r["cpu_s"] for r in rows if r["n"] <= 2]
    return min(small) if small else 0.0


def per_n(rows: Sequence[dict], floor: float = 0.0) -> dict[int, dict]:
    """Per N from 3 on: the median CPU (capped runs counted at their cap), whether that median
    is only a lower bound (half or more of the runs capped), the fastest and slowest run; all
    less `floor` (the startup), at least RESOLUTION, except `raw`, the median as measured."""
    out: dict[int, dict] = {}
    for n in sorted({r["n"] for r in rows if 3 <= r["n"] <= 5}):
        runs = [r for r in rows if r["n"] == n]
        cpu = [r["cpu_s"] for r in runs]
        net = [max(c - floor, RESOLUTION) for c in cpu]
        capped = sum(r["outcome"] == "capped" for r in runs)
        out[n] = {"runs": len(runs), "capped": capped, "raw": _median(cpu),
                  "median": _median(net), "low": min(net), "high": max(net),
                  "censored": 2 * capped >= len(runs),
                  "outcomes": sorted({r["outcome"] for r in runs})}
    return out


def extrapolate(stats: dict[int, dict], target: int = 6, scale=lambda n: n
                ) -> tuple[float, float, float] | None:
    """CPU seconds at N=target: (central, low, high). The central fit is least squares of
    log CPU (per-N median) against scale(N); the range spans the fits through the fastest
    and the slowest run at each N and the fit without the smallest N."""
    ns = sorted(stats)
    if len(ns) < 2:
        return None

    def at(key: str, use: Sequence[int]) -> float:
        a, b = fit_line([(scale(n), math.log(max(stats[n][key], 1e-3))) for n in use])
        return math.exp(a + b * scale(target))

    central = at("median", ns)
    others = [at("low", ns), at("high", ns)]
    if len(ns) >= 3:
        others.append(at("median", ns[1:]))
    return central, min([central, *others]), max([central, *others])


# --------------------------------------------------------------------------- rendering

def _hours(seconds: float) -> str:
    h = seconds / HOUR
    if h >= 1e4:
        return f"{h:.1e}".replace("e+0", "e").replace("e+", "e")
    if h >= 10:
        return f"{h:,.0f}"
    if h >= 0.1:
        return f"{h:.1f}"
    return f"{h:.3f}"


def _cell(stat: dict | None) -> str:
    if stat is None:
        return "-"
    bound = ">= " if stat["censored"] else ""
    cap = f", {stat['capped']} capped" if stat["capped"] else ""
    refuted = " (refuted)" if stat["outcomes"] == ["refuted"] else ""
    return f"{bound}{stat['raw']:.2f}{refuted} ({stat['runs']} runs{cap})"


def table(rows: Sequence[dict], source: str) -> str:
    routes = list(dict.fromkeys(r["route"] for r in rows))
    lines = ["| route | startup CPU s | N=3 CPU s | N=4 CPU s | N=5 CPU s "
             "| N=6 CPU h, exp in N (range) | N=6 CPU h, exp in cubes (range) "
             "| N=6 CPU h spent without an answer |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for route in routes:
        mine = [r for r in rows if r["route"] == route]
        floor = startup(mine)
        stats = per_n(mine, floor)
        lower = stats and stats[max(stats)]["censored"]
        cells = [f"{floor:.2f}", *(_cell(stats.get(n)) for n in (3, 4, 5))]
        for scale in (lambda n: n, cubes):
            est = extrapolate(stats, scale=scale)
            if est is None:
                cells.append("-")
                continue
            mark = ">= " if lower else ""
            cells.append(f"{mark}{_hours(est[0])} ({_hours(est[1])}-{_hours(est[2])})")
        spent = [r for r in mine if r["n"] == 6 and r["outcome"] == "capped"]
        where = ", ".join(sorted({r.get("source", "here") for r in spent}))
        total = sum(r["cpu_s"] for r in spent)
        cells.append(f"{_hours(total)} ({where})" if spent else "-")
        lines.append(f"| {route} | " + " | ".join(cells) + " |")
    loads = [x for r in rows if r.get("load") for x in r["load"][:1]]
    checks = {r["n"]: r for r in rows if r["route"] == "decomp" and "cpu_per_check_s" in r
              and r["n"] >= 3}
    if checks:
        lines += ["", "decomp, CPU s per exact-cover check (checks made): " + ", ".join(
            f"N={n}: {checks[n]['cpu_per_check_s']:.4f} ({checks[n]['checks']})"
            for n in sorted(checks)) + "."]
    lines += _learnt_note(rows) + _cluster_note(rows)
    measured = [r for r in rows if r.get("load")]
    lines += ["", f"From `{source}` ({len(measured)} runs here; CPU seconds: median over "
              "seeds, capped runs counted at the cap, `>=` where half or more were capped; "
              f"1-minute load during the runs {min(loads):.1f}-{max(loads):.1f} on 2 cores). "
              "N=6 by least squares on log CPU over N=3..5 less the route's startup (its "
              "fastest run at N=1), the range from the fits through the fastest and slowest "
              "runs and the fit without N=3."]
    return "\n".join(lines)


def _learnt_note(rows: Sequence[dict]) -> list[str]:
    """decomp-learnt's X-Y labellings proposed per run and CPU per labelling, per N."""
    runs = [r for r in rows if r["route"] == "decomp-learnt" and r["n"] >= 3 and "rounds" in r]
    if not runs:
        return []
    parts = []
    for n in sorted({r["n"] for r in runs}):
        mine = [r for r in runs if r["n"] == n]
        per = sum(r["cpu_s"] for r in mine) / max(sum(r["rounds"] for r in mine), 1)
        parts.append(f"N={n}: {', '.join(str(r['rounds']) for r in mine)} "
                     f"({per:.3f} CPU s a labelling, clauses of "
                     f"{_median([r['reason_mean'] for r in mine]):.0f} labels)")
    return ["", "decomp-learnt, X-Y labellings proposed per run: " + "; ".join(parts) + "."]


def _cluster_note(rows: Sequence[dict]) -> list[str]:
    """The conquer-dask runs' wall time beside their CPU, per N."""
    runs = [r for r in rows if r["route"].startswith("conquer-dask:") and r["n"] >= 3]
    if not runs:
        return []
    parts = [f"N={n}: " + ", ".join(f"{r['wall_s']:.1f} ({r['cpu_s']:.1f})"
                                    for r in runs if r["n"] == n)
             for n in sorted({r["n"] for r in runs})]
    return ["", f"conquer-dask ({runs[0]['workers']} workers), wall s (CPU s of the client, the "
            "scheduler and the workers) per run: " + "; ".join(parts) + "."]


def read_rows(path: Path = RESULTS) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def render(page: Path = PAGE, results: Path = RESULTS, check: bool = False) -> bool:
    """True if the page's block is (now) the table rendered from the results."""
    text = page.read_text()
    if not BLOCK.search(text):
        raise SystemExit(f"{page}: no <!-- n6-routes --> ... <!-- /n6-routes --> block")
    body = table(read_rows(results), results.relative_to(ROOT).as_posix()) + "\n"
    new = BLOCK.sub(lambda m: m.group(1) + body + m.group(3), text)
    if new == text:
        return True
    if check:
        return False
    page.write_text(new)
    return True


def main(argv: Sequence[str]) -> int:
    if argv[:1] == ["_run"]:
        return _run(argv[1], int(argv[2]), int(argv[3]))
    if argv[:1] == ["render"]:
        return 0 if render(check="--check" in argv) else 1
    if argv[:1] == ["measure"]:
        route, n, seeds = argv[1], int(argv[2]), [int(s) for s in argv[3].split(",")]
        cap = float(argv[argv.index("--cap") + 1]) if "--cap" in argv else 300.0
        measure = measure_cluster if route.startswith("conquer-dask:") else measure_one
        for seed in seeds:
            row = measure(route, n, seed, cap)
            _append(row)
            print(json.dumps(row), flush=True)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
