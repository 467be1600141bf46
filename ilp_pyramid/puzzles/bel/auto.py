"""`solve N --method auto` (the default): run the engine measured fastest for N.

The choice table is data: CHOICES below, derived from docs/auto_results.json, which
`python -m ilp_pyramid.puzzles.bel.auto measure` writes (each candidate engine run as a real
`ilp-pyramid solve` process, whole-process wall and CPU seconds, median over repeats). Re-run
it on an idle machine and paste the table it prints. Past the table (N >= 6, open) the hybrid
search runs until --time-limit or Ctrl-C.

An engine is "exact:<solver>" (one solver on the whole model: `--method exact --solver`) or
"lns+<repair>" (`--method lns --repair`: compiled local search, exact-cover repairs by SAT,
HiGHS (mip) or Dancing Links).
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass, fields
from pathlib import Path

# N -> engine. Derived by `measure --key cpu` on the shared 2-core machine (load 9-12;
# docs/auto_results.json, docs/auto.md): exact solvers while the whole model is small (HiGHS as
# fast as SAT at N <= 2), the hybrid search from N = 4 on (N = 4: HiGHS repairs within 10%
# of Kissat's, so the MIP one; N = 5: Kissat repairs, HiGHS repairs timed out at 120 s).
CHOICES: dict[int, str] = {1: "exact:highs", 2: "exact:highs", 3: "exact:cadical",
                           4: "lns+mip", 5: "lns+sat"}
BEYOND = "lns+sat"  # N past the table: open cases, the hybrid search until stopped

CANDIDATES = ("exact:highs", "exact:kissat", "exact:cadical", "lns+sat", "lns+mip", "lns+dlx")
# Engines whose medians differ by less than TIE are equally fast (the spread between repeats
# is larger); the one earlier here is chosen: the MIP solver where it is competitive.
PREFERENCE = ("exact:highs", "lns+mip", "exact:kissat", "exact:cadical", "lns+sat", "lns+dlx")
TIE = 0.10
RESULTS_FILE = Path("docs") / "auto_results.json"


@dataclass(frozen=True)
class Engine:
    name: str  # as printed and in --json "engine"
    method: str  # exact | lns
    solver: str  # --method exact: the solver; --method lns: the repair

    @property
    def uses_mip(self) -> bool:
        return self.solver in ("highs", "cbc", "mip")


def parse_engine(name: str) -> Engine:
    if name.startswith("exact:"):
        return Engine(name, "exact", name.split(":", 1)[1])
    if name.startswith("lns+"):
        return Engine(name, "lns", name.split("+", 1)[1])
    raise ValueError(f"unknown engine {name!r} (exact:<solver> or lns+<repair>)")


def choose(n: int) -> Engine:
    return parse_engine(CHOICES.get(n, BEYOND))


def table_text() -> str:
    """The choice table on one line, runs of N with the same engine merged."""
    runs: list[list] = []  # [first N, last N, engine]
    for n, engine in sorted(CHOICES.items()):
        if runs and runs[-1][2] == engine and runs[-1][1] == n - 1:
            runs[-1][1] = n
        else:
            runs.append([n, n, engine])
    cells = [f"N={a}: {e}" if a == b else f"N={a}-{b}: {e}" for a, b, e in runs]
    return "; ".join(cells) + f"; N>={max(CHOICES) + 1}: {BEYOND} until stopped"


def engine_args(engine: Engine) -> list[str]:
    if engine.method == "exact":
        return ["--method", "exact", "--solver", engine.solver]
    return ["--method", "lns", "--repair", engine.solver]


# -- running the chosen engine --------------------------------------------------------------

def named(outcome, engine: Engine):
    """An exact run's outcome whose --json also says `"method": "auto"` and the engine."""
    from ilp_pyramid.puzzles.bel.runner import BelRun

    class AutoRun(BelRun):
        def to_json(self) -> dict:
            return {**super().to_json(), "method": "auto", "engine": engine.name}

    return AutoRun(**{f.name: getattr(outcome, f.name) for f in fields(BelRun)})


def run_lns(n: int, engine: Engine, time_limit: float | None, seed: int | None,
            output: Path | None, json_out: bool) -> None:
    """The hybrid search as `--method lns` runs it; --json says `"method": "auto"` too."""
    import typer

    from ilp_pyramid.cli_common import EXIT_TIMEOUT, console, print_json
    from ilp_pyramid.puzzles.bel.lns.command import outcome_json, run_lns_command

    if not json_out:
        how = {"mip": "HiGHS", "sat": "Kissat", "dlx": "Dancing Links"}.get(engine.solver, "")
        console.print(f"--method auto: engine {engine.name} for N={n}, the fastest measured "
                      f"(exact-cover repairs by {how}; table: solve --help)")
        run_lns_command(n, engine.solver, time_limit, seed, output, json_out)
        return
    from ilp_pyramid.formats.fileio import write_atomic
    from ilp_pyramid.puzzles.bel.lns.driver import SOLVED, solve_lns

    outcome = solve_lns(n, engine.solver, time_limit=time_limit, seed=seed)
    if outcome.solution is not None and output is not None:
        write_atomic(output, outcome.solution.to_drawing())
    print_json({**outcome_json(outcome), "method": "auto", "engine": engine.name})
    if outcome.status != SOLVED:
        raise typer.Exit(EXIT_TIMEOUT)


# -- re-deriving the table ------------------------------------------------------------------

def measure_once(n: int, engine: str, time_limit: float) -> dict:
    """One whole `ilp-pyramid solve` process: wall and CPU seconds (its children included)."""
    import subprocess

    command = [sys.executable, "-m", "ilp_pyramid", "solve", str(n), "--json",
               "--time-limit", str(time_limit), *engine_args(parse_engine(engine))]
    before, began = os.times(), time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             start_new_session=True)
    try:
        out, _ = child.communicate()
    finally:
        if child.poll() is None:  # interrupted: take the child's whole group with us
            os.killpg(child.pid, 9)
            child.wait()
    wall, after = time.perf_counter() - began, os.times()
    cpu = (after.children_user + after.children_system
           - before.children_user - before.children_system)
    try:
        status = json.loads(out)["status"]
    except (ValueError, KeyError, TypeError):
        status = "error"
    return {"n": n, "engine": engine, "status": status, "wall": round(wall, 3),
            "cpu": round(cpu, 3), "load": round(os.getloadavg()[0], 2)}


def measure(ns: list[int], engines: list[str], repeat: int, time_limit: float) -> list[dict]:
    rows = []
    for n in ns:
        for engine in engines:
            for _ in range(repeat):
                rows.append(measure_once(n, engine, time_limit))
                print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    return rows


def derive(rows: list[dict], key: str = "wall", tie: float = TIE) -> dict[int, str]:
    """Per N, among the engines that solved every repeat, the lowest median `key`; an engine
    within `tie` of it that comes earlier in PREFERENCE (the MIP ones first) wins instead."""
    import statistics

    table = {}
    for n in sorted({row["n"] for row in rows}):
        medians = {}
        for engine in {row["engine"] for row in rows if row["n"] == n}:
            mine = [row for row in rows if row["n"] == n and row["engine"] == engine]
            if all(row["status"] == "solved" for row in mine):
                medians[engine] = statistics.median(row[key] for row in mine)
        if medians:
            best = min(medians.values())
            close = [e for e, m in medians.items() if m <= best * (1.0 + tie)]
            table[n] = min(close, key=_preference)
    return table


def _preference(engine: str) -> tuple[int, str]:
    return (PREFERENCE.index(engine) if engine in PREFERENCE else len(PREFERENCE), engine)


def _main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m ilp_pyramid.puzzles.bel.auto",
        description="Measure every candidate engine per N and print the auto choice table.")
    parser.add_argument("command", choices=["measure"])
    parser.add_argument("--n", default="1-5", help="N range, e.g. 1-5 or 4")
    parser.add_argument("--engines", default=",".join(CANDIDATES))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--time-limit", type=float, default=120.0)
    parser.add_argument("--key", choices=["cpu", "wall"], default="wall",
                        help="rank by whole-process wall (idle machine) or CPU seconds")
    parser.add_argument("-o", "--output", type=Path, default=RESULTS_FILE)
    args = parser.parse_args(argv)
    low, _, high = args.n.partition("-")
    ns = list(range(int(low), int(high or low) + 1))
    rows = measure(ns, args.engines.split(","), args.repeat, args.time_limit)
    table = derive(rows, args.key)
    from ilp_pyramid.formats.fileio import write_atomic

    write_atomic(args.output, json.dumps({"key": args.key, "repeat": args.repeat,
                                          "time_limit": args.time_limit, "choices": table,
                                          "runs": rows}, indent=1) + "\n")
    print(f"CHOICES = {table!r}")
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
