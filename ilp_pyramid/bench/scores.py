"""The field's standard scores from records: PAR-k, the virtual best solver, and the data of
cactus plots and performance profiles. Only the records are read; no puzzle is known.

- A *family* is a record's `puzzle`; Bel-grid records from before the key existed have none
  and are Bel's ("bel"); template runs (`--command`/`--external`) name no puzzle: a template
  that takes `{solver}` is a family of its own, its label (its runs' solvers compared on its
  instances); the others together are "runs".
- A *solver* is the record's `solver` (a template run without `{solver}`: its label), plus
  the values of the params named in `solver_params` (e.g. the formulation, when MIP
  formulations and CNF encodings differ and should be compared on the same instance).
- An *instance* is the record's grid point (`summary.params_of`) without the solver's params:
  the repeats of one instance and solver are its runs. Where the seed picked a generated
  instance (`seeded_instance`: the puzzle's bench case said so), each seed is an instance
  of its own, run once per solver.
- A run is solved when its status is `solved`, or `infeasible` on an instance no run of any
  solver solved (the infeasibility was proved); a run whose instance another run solved
  cannot be infeasible, and its instance is reported as a disagreement.
- One instance and solver: the median over the repeats of the run times, an unsolved run
  counting as infinitely slow; the instance is solved when that median is finite (more than
  half of the repeats solved it).
- PAR-k of a solver: the mean over the family's instances of its time where it solved the
  instance, else k x its time limit there (the largest `time_limit` of its runs: merged
  files may differ). An instance a solver has no run of counts as unsolved, with the
  instance's largest limit.
- The virtual best solver: per instance the fastest solver that solved it (none did: the
  lowest penalty).
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ilp_pyramid.bench.records import INFEASIBLE, SOLVED, TIMEOUTS, plain_number
from ilp_pyramid.bench.summary import OUTER_FIELDS, config_fields, config_value, params_of
from ilp_pyramid.errors import InputError

# Which time of a run scores: the solver's own seconds (the backend's call, from the run's
# --json; records from before keep it as `seconds`), or the whole process's wall seconds
# (every record has them: start-up, build and check included). Fields tried in order.
TIME_FIELDS = {"solve": ("solve_seconds", "seconds"), "wall": ("wall_seconds",)}
DEFAULT_TIME = "solve"
TIME_MEANINGS = {"wall": "wall seconds of the whole run",
                 "solve": "the solver's own seconds"}
# Fields of a record that never tell instances apart.
NOT_INSTANCE = frozenset({"solver", "repeat", "seed", "time_limit"})
LEGACY_FAMILY = "bel"
TEMPLATE_FAMILY = "runs"
VIRTUAL_BEST = "virtual best"
# A time below the timer's resolution would make ratios meaningless (0 s best): floor.
MIN_RATIO_SECONDS = 1e-3
_SCORE = re.compile(r"^par([1-9][0-9]?)$")


def penalty_factor(score: str) -> int:
    """'par2' -> 2, 'par10' -> 10; InputError for anything else."""
    match = _SCORE.match(score.strip().lower())
    if not match:
        raise InputError(f"unknown score {score!r} (par2, par10, ... parK with K 1..99)")
    return int(match.group(1))


def time_fields(time: str) -> tuple[str, ...]:
    """The record fields of a time, first found wins ('wall' -> wall_seconds); InputError
    for another name."""
    if time not in TIME_FIELDS:
        raise InputError(f"unknown time {time!r} (choose from {', '.join(TIME_FIELDS)})")
    return TIME_FIELDS[time]


def run_time(record: dict, fields: Sequence[str]) -> float | None:
    """A record's time of the first of `fields` it has (None: none)."""
    for name in fields:
        value = record.get(name)
        if value is not None:
            return float(value)
    return None


def family_of(record: dict) -> str:
    puzzle = record.get("puzzle")
    if puzzle:
        return str(puzzle)
    if _takes_solver(record):
        return str(record["label"])
    return TEMPLATE_FAMILY if record.get("label") else LEGACY_FAMILY


def solver_of(record: dict, solver_params: Sequence[str] = ()) -> str:
    label = None if _takes_solver(record) else record.get("label")
    name = str(label or record.get("solver") or "-")
    extra = [str(config_value(record, p)) for p in solver_params
             if config_value(record, p) != ""]
    return "/".join([name, *extra])


def _takes_solver(record: dict) -> bool:
    """A template run whose template took {solver}: the only template runs with a solver."""
    return bool(record.get("label")) and bool(record.get("solver"))


def instance_of(record: dict, solver_params: Sequence[str] = ()) -> str:
    """The instance as text, `n=3 formulation=counts` (params in the record's order; empty
    values left out), and `seed=S` where the run's seed picked the instance (a generated
    one: `seeded_instance` in the record)."""
    parts = []
    for name in params_of(record):
        if name in NOT_INSTANCE or name in solver_params:
            continue
        value = config_value(record, name)
        if value != "":
            parts.append(f"{name}={value}")
    if record.get("seeded_instance") and record.get("seed") is not None:
        parts.append(f"seed={record['seed']}")
    return " ".join(parts) or "-"


@dataclass(frozen=True)
class Outcome:
    """One solver on one instance, over its repeats."""

    runs: int
    seconds: float | None  # the median time when solved, else None
    limit: float  # the largest time limit of these runs
    statuses: tuple[str, ...]
    # per run, in file order: its time (inf: unsolved) and the solver's seed (run_seed)
    times: tuple[float, ...] = ()
    seeds: tuple[int | None, ...] = ()

    @property
    def solved(self) -> bool:
        return self.seconds is not None

    def spread(self) -> tuple[float, float] | None:
        """The fastest and slowest of the repeats (the slowest inf where one did not solve
        it); None for fewer than two runs."""
        return (min(self.times), max(self.times)) if len(self.times) > 1 else None

    def seconds_with(self, seed: int) -> float | None:
        """The time of the runs with solver seed `seed` (their median; None: unsolved or no
        such run)."""
        times = [t for t, s in zip(self.times, self.seeds, strict=True) if s == seed]
        middle = statistics.median(times) if times else math.inf
        return middle if math.isfinite(middle) else None


def run_seed(record: dict) -> int | None:
    """The solver's own random seed of a run: its `solver_seed`, else its `seed` where that
    did not pick the instance (the package's --seed seeds the solver too); None for a run
    whose seed only picked a generated instance, or that took none."""
    seed = record.get("solver_seed")
    if seed is None and not record.get("seeded_instance") and not record.get("label"):
        seed = record.get("seed")
    return int(seed) if plain_number(seed) else None


@dataclass
class Family:
    """The runs of one family as a table: instances x solvers."""

    name: str
    instances: list[str] = field(default_factory=list)
    solvers: list[str] = field(default_factory=list)
    outcomes: dict[tuple[str, str], Outcome] = field(default_factory=dict)
    limits: dict[str, float] = field(default_factory=dict)  # instance -> its time limit
    infeasible: list[str] = field(default_factory=list)  # instances proved infeasible
    disagreements: list[str] = field(default_factory=list)

    def outcome(self, instance: str, solver: str) -> Outcome:
        missing = Outcome(0, None, self.limits[instance], ())
        return self.outcomes.get((instance, solver), missing)

    def penalties(self, solver: str, factor: int) -> list[float]:
        """Per instance, what the solver scores there if unsolved: k x its time limit."""
        return [factor * self.outcome(i, solver).limit for i in self.instances]

    def times(self, solver: str) -> list[float | None]:
        """Per instance (in order), the solver's time where it solved it, else None."""
        return [self.outcome(i, solver).seconds for i in self.instances]

    def best(self) -> list[float | None]:
        """Per instance, the virtual best solver's time (None: no solver solved it)."""
        out = []
        for instance in self.instances:
            solved = [t for s in self.solvers
                      if (t := self.outcome(instance, s).seconds) is not None]
            out.append(min(solved) if solved else None)
        return out

    def best_penalties(self, factor: int) -> list[float]:
        """Per instance, the virtual best's score where no solver solved it."""
        return [min(factor * self.outcome(i, s).limit for s in self.solvers)
                for i in self.instances]

    def time_limits(self) -> list[float]:
        """Every time limit the runs had."""
        return sorted({o.limit for o in self.outcomes.values()})

    def seeds(self) -> list[int]:
        """The solver seeds (run_seed) shared by every solver's runs on every instance it ran
        with two seeds or more, in order: those a comparison seed by seed can use. A study
        may run its hard steps with one seed and its easy ones with several."""
        seeds = [found for o in self.outcomes.values()
                 if len(found := {s for s in o.seeds if s is not None}) >= 2]
        return sorted(set.intersection(*seeds)) if seeds else []

    def scores_by_seed(self, factor: int) -> dict[int, dict[str, float]]:
        """Per solver seed, each solver's PAR-k over the runs with that seed alone; where a
        solver ran an instance with one seed only, that run counts for every seed (a
        solver without runs on an instance counts unsolved there). {} for fewer than two
        seeds, where nothing varies."""
        seeds = self.seeds()
        if len(seeds) < 2:
            return {}

        def time(instance: str, solver: str, seed: int) -> float | None:
            outcome = self.outcome(instance, solver)
            several = len({s for s in outcome.seeds if s is not None}) >= 2
            return outcome.seconds_with(seed) if several else outcome.seconds

        return {seed: {solver: par_mean([time(i, solver, seed) for i in self.instances],
                                        self.penalties(solver, factor))
                       for solver in self.solvers}
                for seed in seeds}


def families(records: Iterable[dict], time: str = DEFAULT_TIME,
             solver_params: Sequence[str] = ()) -> list[Family]:
    """The records grouped into families, instances and solvers (in order of first
    appearance); InputError when a solved run lacks the time asked for."""
    key = time_fields(time)
    records = list(records)
    params = [n for n in config_fields(records) if n not in (*OUTER_FIELDS, "solver")]
    for name in solver_params:
        if name not in params:
            raise InputError(f"--solver-param {name!r} is no param of these records "
                             f"(they have: {', '.join(params) or 'none'})")
    cells: dict[str, dict[str, dict[str, list[dict]]]] = {}  # family -> instance -> solver
    for record in records:
        instances = cells.setdefault(family_of(record), {})
        solvers = instances.setdefault(instance_of(record, solver_params), {})
        solvers.setdefault(solver_of(record, solver_params), []).append(record)
    out = []
    for name, instances in cells.items():
        family = Family(name, instances=list(instances))
        for instance, solvers in instances.items():
            family.solvers += [s for s in solvers if s not in family.solvers]
            runs = [r for rs in solvers.values() for r in rs]
            limits = [float(r["time_limit"]) for r in runs if _positive(r.get("time_limit"))]
            if not limits:
                raise InputError(f"{name} {instance}: no record gives a time_limit to "
                                 "penalize unsolved runs by")
            family.limits[instance] = max(limits)
            statuses = {r["status"] for r in runs}
            if INFEASIBLE in statuses:
                (family.disagreements if SOLVED in statuses else family.infeasible
                 ).append(instance)
            for solver, rs in solvers.items():
                # each run is penalized by its own limit (files merged may differ)
                own = [float(r["time_limit"]) for r in rs if _positive(r.get("time_limit"))]
                family.outcomes[instance, solver] = _outcome(
                    rs, instance in family.infeasible, key, max(own or limits),
                    f"{name} {instance}")
        out.append(family)
    return out


def _positive(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


def _outcome(runs: Sequence[dict], infeasible: bool, key: Sequence[str], limit: float,
             where: str) -> Outcome:
    times = []
    for record in runs:
        if record["status"] == SOLVED or (infeasible and record["status"] == INFEASIBLE):
            value = run_time(record, key)
            if value is None:
                other = "wall" if key != TIME_FIELDS["wall"] else "solve"
                raise InputError(f"{where}: a solved run of {record.get('key')!r} has no "
                                 f"{key[0]} (score another time: --time {other})")
            times.append(value)
        else:
            times.append(math.inf)
    middle = statistics.median(sorted(times))
    return Outcome(len(runs), middle if math.isfinite(middle) else None, limit,
                   tuple(r["status"] for r in runs), tuple(times),
                   tuple(run_seed(r) for r in runs))


def _range(values: Sequence[float]) -> list[float] | None:
    """[lowest, highest] of some scores, None for fewer than two."""
    return [min(values), max(values)] if len(values) > 1 else None


def _json_range(spread: tuple[float, float]) -> list[float | None]:
    """A spread for JSON: an unsolved repeat (inf) as null."""
    return [t if math.isfinite(t) else None for t in spread]


def par_mean(times: Sequence[float | None], penalties: Sequence[float]) -> float:
    """PAR-k, mean over instances: the time, or the penalty (k x the limit) where None."""
    scores = [p if t is None else t for t, p in zip(times, penalties, strict=True)]
    return sum(scores) / len(scores) if scores else math.nan


def score_report(records: Iterable[dict], factor: int = 2, time: str = DEFAULT_TIME,
                 solver_params: Sequence[str] = ()) -> dict:
    """The PAR-k table of every family and its virtual best solver, as one JSON object."""
    time_fields(time)
    out = {"score": f"par{factor}", "penalty_factor": factor, "aggregate": "mean",
           "time": time, "time_meaning": TIME_MEANINGS[time], "repeats": "median",
           "solver_params": list(solver_params), "families": []}
    for family in families(records, time, solver_params):
        rows = []
        by_seed = family.scores_by_seed(factor)
        for solver in family.solvers:
            outcomes = [family.outcome(i, solver) for i in family.instances]
            rows.append({
                "solver": solver,
                "instances": len(outcomes),
                "solved": sum(o.solved for o in outcomes),
                "infeasible": sum(o.solved for i, o in zip(family.instances, outcomes,
                                                           strict=True)
                                  if i in family.infeasible),
                "missing": sum(o.runs == 0 for o in outcomes),
                "runs": sum(o.runs for o in outcomes),
                "timeout_runs": sum(s in TIMEOUTS for o in outcomes for s in o.statuses),
                "error_runs": sum(s not in (SOLVED, INFEASIBLE, *TIMEOUTS)
                                  for o in outcomes for s in o.statuses),
                "score": par_mean(family.times(solver), family.penalties(solver, factor)),
                "score_range": _range([by_seed[seed][solver] for seed in by_seed]),
            })
        rows.sort(key=lambda row: row["score"])  # ranked; ties keep the file's order
        best = family.best()
        winners = {seed: min(scores, key=scores.get) for seed, scores in by_seed.items()}
        out["families"].append({
            "family": family.name,
            "time_limits": family.time_limits(),
            "instances": len(family.instances),
            "infeasible_instances": list(family.infeasible),
            "disagreements": list(family.disagreements),
            "solvers": rows,
            "virtual_best": {"solver": VIRTUAL_BEST, "instances": len(best),
                             "solved": sum(t is not None for t in best),
                             "score": par_mean(best, family.best_penalties(factor))},
            # the best solver by PAR-k on the runs of each solver seed alone; more than one
            # name here: the family's winner changes with the seed
            "winner_by_seed": {str(seed): name for seed, name in winners.items()},
            "winner_changes_with_seed": len(set(winners.values())) > 1,
            "per_instance": [
                {"instance": instance, "time_limit": family.limits[instance],
                 "best": best[index],
                 "seconds": {s: family.outcome(instance, s).seconds for s in family.solvers},
                 "runs": {s: family.outcome(instance, s).runs for s in family.solvers},
                 # fastest and slowest repeat (null: unsolved by that one; absent: one run)
                 "spread": {s: _json_range(spread) for s in family.solvers
                            if (spread := family.outcome(instance, s).spread()) is not None}}
                for index, instance in enumerate(family.instances)],
        })
    return out


def score_text(report: dict) -> str:
    """The report as plain aligned text: a header per family, one row per solver, the
    virtual best last."""
    factor = report["penalty_factor"]
    lines = [f"PAR-{factor}: the mean over instances of the median time over repeats "
             f"({report['time_meaning']})",
             f"where solved, else {factor} x the time limit; solvers ranked by it"]
    for family in report["families"]:
        limits = ", ".join(f"{limit:g}" for limit in family["time_limits"])
        plural = "s" if len(family["time_limits"]) > 1 else ""
        lines += ["", f"{family['family']}: {_count(family['instances'], 'instance')}, "
                      f"time limit{plural} {limits} s (unsolved counts {factor} x the limit)"]
        seeded = any(row.get("score_range") for row in family["solvers"])
        headers = ["solver", "instances", "solved", f"PAR-{factor} mean s",
                   *["over solver seeds"] * seeded]
        cells = [[row["solver"], str(row["instances"]), str(row["solved"]),
                  f"{row['score']:.2f}", *[range_text(row.get("score_range"))] * seeded]
                 for row in [*family["solvers"], family["virtual_best"]]]
        lines += _aligned(headers, cells)
        notes = [f"{row['solver']}: {_count(row['error_runs'], 'run')} ended in error "
                 "(counted unsolved)" for row in family["solvers"] if row["error_runs"]]
        notes += [f"{row['solver']}: no runs of {_count(row['missing'], 'instance')} "
                  "(counted unsolved)" for row in family["solvers"] if row["missing"]]
        if family["infeasible_instances"]:
            notes.append("proved infeasible (counted solved): "
                         + ", ".join(family["infeasible_instances"]))
        if family["disagreements"]:
            notes.append("solved by one run, infeasible by another (infeasible runs count "
                         "unsolved): " + ", ".join(family["disagreements"]))
        if family["winner_changes_with_seed"]:
            notes.append(winner_note(family))
        lines += [f"  {note}" for note in notes]
    return "\n".join(lines)


def range_text(span: Sequence[float] | None) -> str:
    """'1.20-3.40' for a [lowest, highest] pair; '-' for none."""
    return "-" if not span else f"{span[0]:.2f}-{span[1]:.2f}"


def winner_note(family: dict) -> str:
    """The sentence of a family whose best solver changes with the solver's seed."""
    by_seed = ", ".join(f"seed {seed}: {name}" for seed, name in
                        family["winner_by_seed"].items())
    return f"the winner changes with the solver's seed ({by_seed})"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _aligned(headers: Sequence[str], cells: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(row[c]) for row in [headers, *cells]) for c in range(len(headers))]

    def line(row: Sequence[str]) -> str:
        return "  ".join([row[0].ljust(widths[0]),
                          *(cell.rjust(w) for cell, w in zip(row[1:], widths[1:], strict=True))
                          ]).rstrip()

    return [line(headers), *(line(row) for row in cells)]


def cactus_points(times: Sequence[float | None]) -> tuple[list[float], list[int]]:
    """A solver's cactus line: the times of the instances it solved, sorted (x), against
    the number solved by then, 1..k (y)."""
    xs = sorted(t for t in times if t is not None)
    return xs, list(range(1, len(xs) + 1))


def ratios(times: Mapping[str, Sequence[float | None]]) -> dict[str, list[float]]:
    """Per solver and instance, its time over the best solver's time on that instance
    (infinite where it did not solve it); times below MIN_RATIO_SECONDS count as that."""
    solvers = list(times)
    count = len(next(iter(times.values()))) if times else 0
    out: dict[str, list[float]] = {s: [] for s in solvers}
    for index in range(count):
        solved = [max(t, MIN_RATIO_SECONDS) for s in solvers
                  if (t := times[s][index]) is not None]
        best = min(solved) if solved else None
        for s in solvers:
            t = times[s][index]
            out[s].append(math.inf if t is None or best is None
                          else max(t, MIN_RATIO_SECONDS) / best)
    return out


def fraction_within(solver_ratios: Sequence[float], tau: float) -> float:
    """The performance profile rho(tau): the share of instances solved within tau x the
    best time."""
    if not solver_ratios:
        return 0.0
    return sum(r <= tau for r in solver_ratios) / len(solver_ratios)


def profile_steps(solver_ratios: Sequence[float]) -> tuple[list[float], list[float]]:
    """The profile as a step function: from tau = 1, each distinct finite ratio where it
    rises, and the fraction from there on."""
    taus = sorted({1.0, *(r for r in solver_ratios if math.isfinite(r))})
    return taus, [fraction_within(solver_ratios, tau) for tau in taus]


def largest_ratio(all_ratios: Mapping[str, Sequence[float]]) -> float:
    """The largest finite ratio over the solvers (1 when every solver ties or none solved)."""
    return max((r for rs in all_ratios.values() for r in rs if math.isfinite(r)), default=1.0)
