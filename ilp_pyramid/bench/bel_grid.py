"""The Bel grid: sizes x solvers x formulations x strategy sets x repeats, each run a
`solve N --json ...` process; and the parsing of those dimensions (also used to expand
argv templates, see commands.py).

Every run is identified by its key (what --resume compares) and knows its argv.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

from ilp_pyramid.bench.commands import (
    CommandSpec,
    Template,
    check_repeats,
    check_size,
    command_grid,
    package_command,
    parse_template,
    solver_kinds,
)
from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles.bel.geometry import MAX_N

__all__ = ["CommandSpec", "RunSpec", "Spec", "Template", "command_grid", "grid",
           "parse_list", "parse_sizes", "parse_strategy_sets", "parse_template"]



@dataclass(frozen=True)
class RunSpec:
    """One run of the Bel grid: `solve N --json` with every grid option passed through."""

    n: int
    solver: str
    formulation: str
    strategies: tuple[str, ...]
    card: str | None
    time_limit: float
    repeat: int

    @property
    def seed(self) -> int:
        # repeat r runs with seed r-1: for SAT a reordering of the clauses (seed 0: none),
        # for HiGHS/CBC their random seed, so repeats sample the run-time spread.
        return self.repeat - 1

    def key(self) -> str:
        """Identity of a run in the results file (what --resume compares)."""
        parts = [f"n={self.n}", f"solver={self.solver}", f"formulation={self.formulation}",
                 f"strategies={'+'.join(self.strategies)}", f"card={self.card or ''}",
                 f"limit={self.time_limit:g}", f"repeat={self.repeat}"]
        return " ".join(parts)

    def group(self) -> tuple:
        return (self.n, self.solver, self.formulation, self.strategies, self.card)

    def describe(self) -> str:
        return f"N={self.n} {self.solver} {self.formulation} #{self.repeat}"

    def fields(self) -> dict:
        fields = asdict(self)
        fields["strategies"] = list(self.strategies)
        fields["seed"] = self.seed
        return fields

    def command(self) -> list[str]:
        argv = ["solve", str(self.n), "--solver", self.solver, "--formulation",
                self.formulation, "--json", "--time-limit", f"{self.time_limit:g}",
                "--seed", str(self.seed)]
        if self.card:
            argv += ["--card", self.card]
        for name in self.strategies or ("none",):  # "none": not the solver's default set
            argv += ["--strategy", name]
        return package_command(argv)


# --- parsing the grid -----------------------------------------------------------------------


def parse_sizes(text: str) -> list[int]:
    """'2..5' -> [2, 3, 4, 5]; '2,4' -> [2, 4]; '3' -> [3]; each within 1..MAX_N."""
    sizes: list[int] = []
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        try:
            low, high = (int(v) for v in part.split("..", 1)) if ".." in part else \
                (int(part), int(part))
        except ValueError:
            raise InputError(f"--n {text!r}: expected sizes like 2..5 or 2,3,4") from None
        if low > high:
            raise InputError(f"--n {part}: the range is empty")
        for n in (low, high):  # checked before expanding: 1..10**10 is refused, not built
            if not 1 <= n <= MAX_N:
                raise InputError(f"--n: size {n} is out of range 1..{MAX_N}")
        sizes += range(low, high + 1)
    if not sizes:
        raise InputError("--n: no sizes given")
    return list(dict.fromkeys(sizes))


def parse_list(text: str, what: str) -> list[str]:
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items:
        raise InputError(f"--{what}: nothing given")
    return list(dict.fromkeys(items))


def parse_strategy_sets(text: str) -> list[tuple[str, ...]]:
    """'none;A+B;C' -> [(), ('A', 'B'), ('C',)]: strategy sets as one more grid dimension."""
    from ilp_pyramid.puzzles.bel.strategies import CATALOGUE

    sets = []
    for item in text.split(";"):
        names = tuple(name.strip() for name in item.split("+")
                      if name.strip() and name.strip().lower() != "none")
        unknown = [name for name in names if name not in CATALOGUE]
        if unknown:
            raise InputError(f"--strategies: unknown strategy {unknown[0]!r} "
                             f"(see `ilp-pyramid strategies`)")
        sets.append(names)
    return list(dict.fromkeys(sets))


def grid(sizes: Sequence[int], solvers: Sequence[str], formulations: Sequence[str],
         strategies: Sequence[str], card: str | None, time_limit: float,
         repeats: int, strategy_sets: Sequence[tuple[str, ...]] | None = None
         ) -> list[RunSpec]:
    """The Bel grid; a formulation that exists for one family only skips the other."""
    from ilp_pyramid.puzzles.bel.cnf import ENCODINGS
    from ilp_pyramid.puzzles.bel.model import FORMULATIONS

    check_repeats(repeats)
    kinds = solver_kinds(solvers)
    valid = {"mip": FORMULATIONS, "sat": ENCODINGS}
    for formulation in formulations:
        if not any(formulation in valid[kind] for kind in kinds.values()):
            known = sorted(set(FORMULATIONS) | set(ENCODINGS))
            raise InputError(f"formulation {formulation!r} fits none of the solvers "
                             f"(known: {', '.join(known)})")
    sets = [tuple(strategies) + extra for extra in (strategy_sets or [()])]
    check_size(len(sizes) * len(sets) * len(formulations) * len(solvers) * repeats)
    return [RunSpec(n, solver, formulation, chosen, card, time_limit, r)
            for n in sizes for chosen in sets for formulation in formulations
            for solver in solvers
            if formulation in valid[kinds[solver]] for r in range(1, repeats + 1)]


Spec = RunSpec | CommandSpec
