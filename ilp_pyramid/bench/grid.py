"""A puzzle's grid: its bench cases x extra axes x solvers x repeats, each run a
`python -m ilp_pyramid <case args> [--KEY V ...] --solver S --seed R [--solver-seed K]
--time-limit T --json` process (repeat r: --seed r-1, which picks a generated instance and,
without --solver-seed, seeds the solver; with the bench's --solver-seeds K each repeat runs
once per solver seed 0..K-1, the instance staying the same); and the parsing of those
dimensions (sizes and lists also expand argv templates, see commands.py).

Nothing here knows a puzzle: the cases come from the registry through the protocol
(`protocol.bench_cases`), an extra axis `KEY=V1,V2` passes `--KEY V` to the puzzle's command,
and a puzzle that offers `bench_fits(params, solver)` says which combinations it has (and
refuses the values it does not know). Every run is identified by its key (what --resume
compares) and keeps the case's params, by which tables group.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ilp_pyramid import protocol, puzzles
from ilp_pyramid.backends import solvers as solver_table
from ilp_pyramid.bench.commands import (
    PLACEHOLDERS,
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
from ilp_pyramid.extras import available
from ilp_pyramid.protocol import BenchCase

__all__ = ["CommandSpec", "PuzzleRun", "Spec", "Template", "command_grid", "parse_axis",
           "parse_list", "parse_sizes", "parse_template", "puzzle_grid", "puzzle_runs",
           "template_axes"]

DEFAULT_PUZZLE = "bel"
# A size beyond this is a typo: no grid of the package has more runs (commands.MAX_RUNS).
MAX_SIZE = 100_000
# Fields of a record and of a summary row: an axis of that name would shadow one of them.
RESERVED = frozenset({"key", "label", "puzzle", "solver", "seed", "solver_seed", "repeat",
                      "time_limit", "status", "params", "runs", "solved", "timeouts"})
_AXIS = re.compile(r"^([A-Za-z][\w-]*)=(.*)$", re.S)

Fits = Callable[[Mapping[str, Any], str], bool]


def default_solvers() -> str:
    """The default MIP-vs-SAT grid: every open MIP solver that is installed, and Kissat."""

    return ",".join(["highs", "cbc", *(["scip"] if available("pyscipopt") else []), "kissat"])


@dataclass(frozen=True)
class PuzzleRun:
    """One run of a puzzle's grid: a bench case with its axis options, one solver, one seed."""

    puzzle: str
    args: tuple[str, ...]
    params: tuple[tuple[str, Any], ...]  # the case's params, then the axes', in order
    options: tuple[tuple[str, str], ...]  # axis options: ("formulation", "counts") etc.
    solver: str
    time_limit: float | None
    repeat: int
    seed: int
    seeded: bool = False  # the seed also picks the instance (BenchCase.seeded)
    solver_command: str | None = None  # an outside solver's NAME=FORMAT:COMMAND
    solver_seed: int | None = None  # the solver's own seed (None: the solver takes --seed)

    def argv(self) -> list[str]:
        argv = list(self.args)
        for name, value in self.options:
            argv += [f"--{name}", value]
        if self.solver_command is not None:
            argv += ["--solver-command", self.solver_command]
        argv += ["--solver", self.solver, "--seed", str(self.seed)]
        if self.solver_seed is not None:
            argv += ["--solver-seed", str(self.solver_seed)]
        if self.time_limit is not None:
            argv += ["--time-limit", f"{self.time_limit:g}"]
        return argv + ["--json"]

    def command(self) -> list[str]:
        return package_command(self.argv())

    def key(self) -> str:
        # The argv without this interpreter's path: the same run from another venv resumes.
        return f"puzzle={self.puzzle} cmd={shlex.join(self.argv())} repeat={self.repeat}"

    def group(self) -> tuple:
        return (self.puzzle, self.params, self.solver)

    def warm_group(self) -> tuple:
        return self.group()

    def describe(self) -> str:
        point = [f"{name}={value}" for name, value in self.params]
        seed = [] if self.solver_seed is None else [f"solver seed {self.solver_seed}"]
        return " ".join([self.puzzle, *point, self.solver, f"#{self.repeat}", *seed])

    def fields(self) -> dict:
        fields = {"puzzle": self.puzzle, "params": dict(self.params), "solver": self.solver,
                  "time_limit": self.time_limit, "repeat": self.repeat, "seed": self.seed}
        fields |= {"solver_command": self.solver_command} if self.solver_command else {}
        if self.solver_seed is not None:
            fields["solver_seed"] = self.solver_seed
        return fields | ({"seeded_instance": True} if self.seeded else {})


Spec = PuzzleRun | CommandSpec


def puzzle_runs(name: str, sizes: Sequence[int] | None, solvers: Sequence[str],
                axes: Sequence[tuple[str, Sequence[str]]], time_limit: float | None,
                repeats: int, default_solvers: bool = False, solver_seeds: int = 0
                ) -> list[PuzzleRun]:
    """The grid of the registered puzzle `name` (InputError naming the choices if unknown).

    A solver that takes none of the forms the puzzle builds is refused; of the bench's
    default solvers (`default_solvers`) it is left out."""

    puzzle = puzzles.get(name)
    cases = protocol.bench_cases(puzzle, sizes)
    fitting = []
    for solver in solvers:
        try:
            protocol.pick_form(puzzle, solver)
        except InputError:
            if not default_solvers:
                raise
            continue
        fitting.append(solver)
    if not fitting:
        raise InputError(f"none of the solvers {', '.join(solvers)} takes a form {name} "
                         f"builds; give --solver")
    return puzzle_grid(name, cases, fitting, axes, time_limit, repeats,
                       getattr(puzzle, "bench_fits", None), solver_seeds=solver_seeds)


def puzzle_grid(puzzle: str, cases: Sequence[BenchCase], solvers: Sequence[str],
                axes: Sequence[tuple[str, Sequence[str]]], time_limit: float | None,
                repeats: int, fits: Fits | None = None, first_seed: int = 0,
                solver_seeds: int = 0) -> list[PuzzleRun]:
    """Every case x axis combination x solver x repeat that `fits` admits (all without it);
    repeat r runs with seed first_seed + r - 1, and with `solver_seeds` K once per solver
    seed 0..K-1 (0: the solver takes the run's seed). An axis value no solver takes is
    refused."""
    check_repeats(repeats)
    check_repeats(max(solver_seeds, 1), "--solver-seeds")
    solver_kinds(solvers)
    if not cases:
        raise InputError(f"{puzzle} has no bench case for these sizes")
    check_axes(axes)
    combos: list[tuple[tuple[str, str], ...]] = [()]
    for name, values in axes:
        combos = [combo + ((name, value),) for combo in combos for value in values]
    # An outside solver's definition goes with each of its runs: the run's process knows
    # only the package's own solvers.
    commands = {name: getattr(solver_table.solver(name), "spec", None) for name in solvers}
    check_size(len(cases) * len(combos) * len(solvers) * repeats * max(solver_seeds, 1))
    own_seeds: Sequence[int | None] = range(solver_seeds) if solver_seeds else [None]
    runs, used = [], set()
    for case in cases:
        for combo in combos:
            params = tuple(case.params.items()) + combo
            for solver in solvers:
                if fits is not None and not fits(dict(params), solver):
                    continue
                used.update(combo)
                runs += [PuzzleRun(puzzle, tuple(case.args), params, combo, solver,
                                   time_limit, r, first_seed + r - 1, case.seeded,
                                   commands[solver], own)
                         for r in range(1, repeats + 1) for own in own_seeds]
    for name, values in axes:
        for value in values:
            if (name, value) not in used:
                raise InputError(f"--grid {name}={value} fits none of the solvers "
                                 f"({', '.join(solvers)})")
    return runs


# --- parsing the grid -----------------------------------------------------------------------


def check_axes(axes: Sequence[tuple[str, Sequence[str]]],
               reserved: frozenset[str] = RESERVED) -> None:
    """InputError for an axis given twice or named like a field of the bench's own."""
    names = [name for name, _ in axes]
    for name in names:
        if name in reserved or names.count(name) > 1:
            raise InputError(f"--grid {name}: " + ("given twice" if names.count(name) > 1
                                                   else "a name the bench uses itself"))


def template_axes(templates: Sequence[Template], axes: Sequence[tuple[str, Sequence[str]]]
                  ) -> None:
    """The --grid of argv templates: each KEY a placeholder `{KEY}` some template names
    (the template's own placeholders are no KEY); InputError otherwise."""
    check_axes(axes, RESERVED | frozenset(PLACEHOLDERS))
    for name, _ in axes:
        if not any(template.uses(name) for template in templates):
            raise InputError(f"--grid {name}: no --command/--external names {{{name}}}")


def parse_sizes(text: str) -> list[int]:
    """'2..5' -> [2, 3, 4, 5]; '2,4' -> [2, 4]; '3' -> [3]; each at least 0 (the puzzle's
    bench cases check its own range: IQ's 0 pieces given is the empty board)."""
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
            if not 0 <= n <= MAX_SIZE:
                raise InputError(f"--n: size {n} is out of range 0..{MAX_SIZE}")
        sizes += range(low, high + 1)
    if not sizes:
        raise InputError("--n: no sizes given")
    return list(dict.fromkeys(sizes))


def parse_list(text: str, what: str) -> list[str]:
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items:
        raise InputError(f"--{what}: nothing given")
    return list(dict.fromkeys(items))


def parse_axis(text: str) -> tuple[str, list[str]]:
    """'formulation=counts,rotations' -> ('formulation', ['counts', 'rotations'])."""
    match = _AXIS.match(text.strip())
    if not match:
        raise InputError(f"--grid {text!r}: expected KEY=V1,V2 (each run gets --KEY V)")
    return match.group(1), parse_list(match.group(2), f"grid {match.group(1)}")
