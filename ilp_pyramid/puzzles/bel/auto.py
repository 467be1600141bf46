"""`solve N --method auto` (the default): run the engine measured fastest for N.

The choice table is data: CHOICES below, derived from docs/data/auto_candidates.jsonl, which
`ilp-pyramid bench` writes (each candidate engine a labelled `solve` template, each run a
real process: whole-process wall and CPU seconds; docs/scripts/measure.sh). Re-measure on an idle
machine, then `python -m ilp_pyramid.puzzles.bel.auto` prints the table to paste here.
Past the table (N >= 6, open) the hybrid search runs until --time-limit or Ctrl-C.

An engine is "exact:<solver>" (one solver on the whole model: `--method exact --solver`),
"exact:<solver>:<strategy>+<strategy>" (the same with `--strategy`), or "lns+<repair>"
(`--method lns --repair`: compiled local search, exact-cover repairs by SAT, HiGHS (mip) or
Dancing Links).

An engine whose strategies include a hypothesis (a guess at the shape of a solution, such as
YStep) searches a part of the puzzle only: when it ends with "infeasible", that is no answer
about the puzzle, and `solve` hands over to FALLBACKS[N], the fastest hybrid search measured
at that N. This module is the table and the choice; cli/bel/auto.py runs and prints,
auto_solve.py runs it for the API (`ilp_pyramid.solve("bel", N)` without a solver).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ilp_pyramid.backends.base import Status
from ilp_pyramid.formats.fileio import read_text
from ilp_pyramid.parsing import json_lines

# N -> engine, as `python -m ilp_pyramid.puzzles.bel.auto` derives it from
# docs/data/auto_candidates.jsonl (median whole-process wall seconds; the table and its reading
# are in docs/auto.md): CaDiCaL on the whole model while it is small (N <= 3; Glucose under
# YStep ties there and the tie goes to the engine without a hypothesis). N = 4: Glucose under
# the YStep hypothesis. N = 5: the hybrid search with SAT repairs, two searches racing
# (Dancing Links and HiGHS repairs did not solve every repeat within the time limit).
CHOICES: dict[int, str] = {1: "exact:cadical", 2: "exact:cadical", 3: "exact:cadical",
                           4: "exact:glucose4:YStep+CakeSliceOrdering", 5: "lns+sat"}
# N -> the hybrid search that takes over when CHOICES[N] rests on a hypothesis and its model
# has no solution (derived from the same records, for those N only). N = 4: SAT repairs tie
# with Dancing Links repairs and come first in PREFERENCE (docs/auto.md).
FALLBACKS: dict[int, str] = {4: "lns+sat"}
BEYOND = "lns+sat"  # N past the table: open cases, the hybrid search until stopped

# From this N on, the hybrid search runs one search per core, racing (lns/race.py): the time
# to a solution is heavy-tailed over seeds there (docs/auto.md).
RACE_FROM = 5

# The MIP engines stay candidates, so that any gain on the MIP side (docs/mip.md) is picked up
# when the table is re-derived; exact:scip needs the extra scip (without it its runs fail and
# it is not chosen). New candidates go last: docs/scripts/measure.sh picks templates by position.
CANDIDATES = ("exact:highs", "exact:kissat", "exact:cadical", "lns+sat", "lns+mip", "lns+dlx",
              "exact:scip", "exact:glucose4:YStep+CakeSliceOrdering",
              "exact:cadical:YStep+CakeSliceOrdering")
# Engines whose medians differ by less than TIE are equally fast (the spread between repeats
# is larger); the one earlier here is chosen: the MIP solver where it is competitive; CaDiCaL
# before Kissat, as on the small models, where the whole process ties, CaDiCaL's own solve is
# shorter (docs/auto.md, "Reading it"), and that is what `solve 1`/`solve 2` wait on beside
# Python's start-up.
# Engines with a hypothesis come after every engine without one (not listed: last).
PREFERENCE = ("exact:highs", "exact:scip", "lns+mip", "exact:cadical", "exact:kissat",
              "lns+sat", "lns+dlx")
TIE = 0.10
CANDIDATES_FILE = Path("docs") / "data" / "auto_candidates.jsonl"


@dataclass(frozen=True)
class Engine:
    name: str  # as printed and in --json "engine"
    method: str  # exact | lns
    solver: str  # --method exact: the solver; --method lns: the repair
    strategies: tuple[str, ...] = ()  # --method exact: --strategy

    @property
    def hypotheses(self) -> list[str]:
        """What an "infeasible" of this engine rests on (empty: it would be a proof)."""
        if not self.strategies:
            return []  # and the strategy catalogue stays unloaded (`solve 1`'s start-up)
        from ilp_pyramid.puzzles.bel.strategies import hypotheses

        return hypotheses(self.strategies)


def parse_engine(name: str) -> Engine:
    if name.startswith("exact:"):
        solver, _, strategies = name.split(":", 1)[1].partition(":")
        return Engine(name, "exact", solver, tuple(filter(None, strategies.split("+"))))
    if name.startswith("lns+"):
        return Engine(name, "lns", name.split("+", 1)[1])
    raise ValueError(f"unknown engine {name!r} (exact:<solver>[:<strategy>+...] or "
                     f"lns+<repair>)")


def choose(n: int) -> Engine:
    return parse_engine(CHOICES.get(n, BEYOND))


def fallback(n: int) -> Engine:
    """The hybrid search that takes over when choose(n)'s hypotheses leave no solution (it
    never answers "infeasible", so it needs no fallback itself)."""
    return parse_engine(FALLBACKS.get(n, BEYOND))


def race_jobs(n: int, cores: int) -> int:
    """How many searches race by default at N."""
    return cores if n >= RACE_FROM else 1


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
        strategies = ["--strategy", "+".join(engine.strategies)] if engine.strategies else []
        return ["--method", "exact", "--solver", engine.solver, *strategies]
    return ["--method", "lns", "--repair", engine.solver]


def hands_over(engine: Engine | None, result: Any) -> bool:
    """Whether `engine`'s answer (a `protocol.Result`) says nothing about the puzzle: its
    hypotheses left its model without a solution ("infeasible" there is a proof about that
    part of the puzzle only), so fallback(N) answers instead."""
    return engine is not None and bool(engine.hypotheses) and \
        result.status is Status.INFEASIBLE


# -- re-deriving the table ------------------------------------------------------------------
# The candidates are timed by `ilp-pyramid bench` (the one benchmark runner), one labelled
# template per engine, into CANDIDATES_FILE; `python -m ilp_pyramid.puzzles.bel.auto
# CANDIDATES_FILE` prints the table to paste above. docs/scripts/measure.sh holds the exact command.


def candidate_templates() -> list[str]:
    """bench --command templates, one per candidate engine, labelled with the engine name."""
    # The hybrid search's seed picks its whole trajectory: repeats run seeds 0, 1, 2, ...
    # (the SAT solvers' seed would only shuffle clauses, which their repeats need not).
    return [f"{name}=solve {{n}} --json --time-limit {{time_limit}} "
            + " ".join(engine_args(parse_engine(name)))
            + (" --seed {seed}" if name.startswith("lns+") else "") for name in CANDIDATES]


def rows_from_records(records: list[dict]) -> list[dict]:
    """bench records of the candidate templates -> rows for derive()."""
    return [{"n": r["n"], "engine": r["label"], "status": r["status"],
             "wall": r["wall_seconds"], "cpu": r["cpu_seconds"]}
            for r in records if r.get("label") in CANDIDATES and r.get("n") is not None]


def derive(rows: list[dict], key: str = "wall", tie: float = TIE) -> dict[int, str]:
    """Per N, among the engines that solved every repeat, the lowest median `key`; an engine
    within `tie` of it that comes earlier in PREFERENCE (the MIP ones first, any engine with
    a hypothesis last) wins instead."""
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


def derive_fallbacks(rows: list[dict], choices: dict[int, str], key: str = "wall"
                     ) -> dict[int, str]:
    """FALLBACKS for a choice table: for every N whose choice rests on a hypothesis, the
    hybrid search that derive() picks among the hybrid searches."""
    searches = derive([row for row in rows if row["engine"].startswith("lns+")], key)
    return {n: searches[n] for n, name in choices.items()
            if parse_engine(name).hypotheses and n in searches}


def _preference(engine: str) -> tuple[int, str]:
    return (PREFERENCE.index(engine) if engine in PREFERENCE else len(PREFERENCE), engine)


def _main(argv: list[str]) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m ilp_pyramid.puzzles.bel.auto",
        description="Print the auto choice table derived from a bench results file of the "
                    "candidate engines (docs/scripts/measure.sh writes it).")
    parser.add_argument("results", type=Path, nargs="?", default=CANDIDATES_FILE)
    parser.add_argument("--key", choices=["cpu", "wall"], default="wall",
                        help="rank by whole-process wall (idle machine) or CPU seconds")
    parser.add_argument("--templates", action="store_true",
                        help="print the bench --command templates instead")
    args = parser.parse_args(argv)
    if args.templates:
        print("\n".join(candidate_templates()))
        return 0
    records = [record for _, record in json_lines(read_text(args.results))]
    rows = rows_from_records(records)
    choices = derive(rows, args.key)
    print(f"CHOICES = {choices!r}")
    print(f"FALLBACKS = {derive_fallbacks(rows, choices, args.key)!r}")
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
