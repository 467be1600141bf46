"""The puzzle protocol: what a puzzle provides, and the one way to solve any of them.

A puzzle is an object (each puzzle package exposes one as `PUZZLE`, listed by name in
`ilp_pyramid.puzzles.REGISTRY`) that turns its own instances into solver *forms* and reads
the answers back; it never asks which family a solver belongs to. `solve` below picks the
form: the first of the solver's forms (`backends.forms_for`) that the puzzle builds.

    >>> from ilp_pyramid import protocol, puzzles
    >>> bel = puzzles.get("bel")
    >>> result = protocol.solve(bel, bel.instance(2), solver="highs")
    >>> result.status, result.form
    (<Status.SOLVED: 'solved'>, 'mip')

Data flows one way: instance -> `model(instance, form)` -> backend `Result` ->
`Model.decode` -> solution -> `verify` (the independent checker) -> `render`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ilp_pyramid.backends.base import Result as BackendResult
from ilp_pyramid.backends.base import SolveOptions, Status
from ilp_pyramid.errors import InputError

# The forms a backend takes (backends/__init__.py): a PuLP problem, CNF clauses, exact-cover
# rows, a CP-SAT Boolean model.
FORMS = ("mip", "cnf", "exact_cover", "bool")


class Infeasible(Exception):
    """Raised by `Puzzle.model` when the instance has no solution and the puzzle can say why
    without a solver (views that no placement shows, digits that cannot make six faces):
    `solve` answers `infeasible` with the message as its detail."""


@dataclass
class Model:
    """One instance as one solver form, and the way back from the solver's answer.

    `form` is what `backends.solve` takes (a `pulp.LpProblem` for "mip", a list of clauses or
    a pysat CNF for "cnf", a `backends.ExactCoverForm`, a `cpsat.BoolModel`); `decode` turns
    the backend's `Result` (values, model literals or rows) into the puzzle's solution.
    """

    kind: str
    form: Any
    decode: Callable[[BackendResult], Any]


@dataclass
class BenchCase:
    """One instance of a puzzle's bench grid, as the arguments of `ilp-pyramid ... solve`.

    The bench appends `--solver S --seed R --time-limit T --json` and runs it in its own
    process; `params` are the columns a results table groups by (size first).
    """

    args: tuple[str, ...]
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return " ".join(f"{k}={v}" for k, v in self.params.items())


@dataclass
class Result:
    """What solving a puzzle instance gave: one `Status`, and a verified solution or none.

    `detail` says why, where the puzzle knows more than the status (e.g. which rule an
    unsolvable input breaks); it never replaces the status.
    """

    puzzle: str
    status: Status
    solver: str
    form: str
    seconds: float
    solution: Any = None
    detail: str = ""
    backend: BackendResult | None = None  # the solver's own answer (values, literals, rows)
    instance: Any = field(default=None, repr=False)
    puzzle_object: Any = field(default=None, repr=False)  # draws the solution in a notebook

    @property
    def solved(self) -> bool:
        return self.status is Status.SOLVED

    def render(self, fmt: str = "text") -> str | bytes:
        """The solution drawn by its puzzle ("text", "svg", "png" where the puzzle draws)."""
        if self.solution is None or self.puzzle_object is None:
            raise InputError(f"no solution to draw ({self.status})")
        return self.puzzle_object.render(self.instance, self.solution, fmt)

    def to_json(self) -> dict:
        return {"puzzle": self.puzzle, "status": str(self.status), "solver": self.solver,
                "form": self.form, "seconds": round(self.seconds, 4),
                **({"detail": self.detail} if self.detail else {})}

    def __str__(self) -> str:
        text = f"{self.puzzle}: {self.status} by {self.solver} ({self.form}) in " \
               f"{self.seconds:.3f} s"
        return f"{text} - {self.detail}" if self.detail else text

    def _repr_html_(self) -> str:
        """A notebook shows the status line and the solution's picture (SVG, else text)."""
        import html

        out = f"<p>{html.escape(str(self))}</p>"
        if self.solution is None or self.puzzle_object is None:
            return out
        try:
            return out + str(self.render("svg"))
        except (InputError, ValueError, ImportError):  # a puzzle that draws no SVG
            return out + f"<pre>{html.escape(str(self.render('text')))}</pre>"

    def _repr_png_(self) -> bytes | None:
        """The solution as PNG where the puzzle draws one (the `pictures` extra), else None."""
        if self.solution is None or self.puzzle_object is None:
            return None
        try:
            picture = self.render("png")
        except (InputError, ValueError, ImportError):
            return None
        return picture if isinstance(picture, bytes) else None


@runtime_checkable
class Puzzle(Protocol):
    """What every puzzle provides. Optional extras, looked up with `getattr`: `optimizes`
    (True: the puzzle asks for an optimum, so an unproved one is a timeout), `generate(size,
    seed, planted) -> instance`, `count(instance, options) -> int`, `bench_cases(sizes)`,
    `bench_fits(params, solver) -> bool` (which bench grid points the puzzle has)."""

    name: str  # the CLI group and registry key, e.g. "insanity"
    title: str  # one line for --help
    forms: tuple[str, ...]  # the forms `model` builds, best first

    def parse(self, text: str) -> Any:
        """An instance from the puzzle's text format; InputError (one line) if malformed."""

    def default(self) -> Any:
        """The instance `solve` takes when given none (InputError if there is none)."""

    def model(self, instance: Any, form: str) -> Model:
        """`instance` as a solver form of kind `form` (one of `forms`); `Infeasible` when
        the puzzle proves, without a solver, that the instance has no solution."""

    def verify(self, instance: Any, solution: Any) -> list[str]:
        """Why `solution` does not solve `instance`, by independent code; [] when it does."""

    def render(self, instance: Any, solution: Any, fmt: str = "text") -> str | bytes:
        """A picture of the solution: "text" always; "svg" / "png" where the puzzle draws."""

    def to_json(self, instance: Any, solution: Any) -> dict:
        """Instance and solution as JSON, enough for `from_json` (what `verify FILE` reads)."""

    def from_json(self, data: dict) -> tuple[Any, Any]:
        """(instance, solution) from `to_json`'s output; InputError if malformed."""


def pick_form(puzzle: Puzzle, solver: str) -> str:
    """The first form `solver` takes that `puzzle` builds; InputError if there is none."""
    from ilp_pyramid import backends

    takes = backends.forms_for(solver)
    for form in takes:
        if form in puzzle.forms:
            return form
    raise InputError(f"{puzzle.name} has no model that {solver!r} takes "
                     f"({solver} takes {', '.join(takes)}; {puzzle.name} builds "
                     f"{', '.join(puzzle.forms)})")


def solve(puzzle: Puzzle, instance: Any, solver: str = "highs",
          options: SolveOptions | None = None, form: str | None = None,
          model: Model | None = None) -> Result:
    """Solve one instance: build the form the solver takes (or take `model`, one built
    with `puzzle.model` and changed by the caller), solve, decode, verify.

    A solution the independent checker rejects is an `error` result, never a solution.
    """
    from ilp_pyramid import backends

    options = options or SolveOptions()
    form = model.kind if model is not None else form or pick_form(puzzle, solver)
    start = time.perf_counter()
    try:
        model = model or puzzle.model(instance, form)
    except Infeasible as exc:
        return Result(puzzle.name, Status.INFEASIBLE, solver, form,
                      time.perf_counter() - start, detail=str(exc), instance=instance,
                      puzzle_object=puzzle)
    answer = backends.solve(model.form, solver, options)
    seconds = time.perf_counter() - start
    done = {"backend": answer, "instance": instance, "puzzle_object": puzzle}
    if not answer.has_solution:
        return Result(puzzle.name, answer.status, solver, form, seconds, detail=answer.message,
                      **done)
    try:
        solution = model.decode(answer)
    except InputError as exc:  # the solver's answer, not the user's input, is at fault
        return Result(puzzle.name, Status.ERROR, solver, form, seconds,
                      detail=f"the solver's answer does not decode: {exc}", **done)
    problems = puzzle.verify(instance, solution)
    if problems:
        return Result(puzzle.name, Status.ERROR, solver, form, seconds,
                      detail="the solver's answer fails the check: " + "; ".join(problems[:3]),
                      **done)
    # A limit that stopped the proof of optimality: a puzzle that asks for the optimum
    # (`optimizes`) has no answer yet, a feasibility puzzle has its solution.
    status = Status.SOLVED
    if answer.status is Status.FEASIBLE and getattr(puzzle, "optimizes", False):
        status = Status.TIMEOUT
    return Result(puzzle.name, status, solver, form, seconds, solution=solution, **done)


def bench_cases(puzzle: Puzzle, sizes: Sequence[int] | None = None) -> list[BenchCase]:
    """The puzzle's bench grid: its own `bench_cases`, or its default instance alone."""
    own = getattr(puzzle, "bench_cases", None)
    if own is not None:
        return list(own(sizes))
    return [BenchCase(args=(puzzle.name, "solve"), params={"instance": "default"})]
