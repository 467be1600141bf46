"""The puzzle protocol: what a puzzle provides, and the one way to solve any of them.

A puzzle is an object (each puzzle package exposes one as `PUZZLE`, listed by name in
`ilp_pyramid.puzzles.REGISTRY`) that turns its own instances into solver *forms* and reads
the answers back; it never asks which family a solver belongs to. `solve` below is the one
solve path of every puzzle, whoever calls it (the CLI's `solve`, the Python API, the bench's
solve processes, the workbench): it resolves the solver once (`backends.solvers.solver`),
picks the form (the first of the solver's forms that the puzzle builds), builds the model
with the puzzle's own options (its `solver_defaults` for that solver under the caller's, so
every door builds the same model for the same arguments), solves, decodes, verifies, and
lets the puzzle finish (`after`: a cross-check, a plan of moves) and add its own keys to the
JSON (`json_keys`).

    >>> from ilp_pyramid import protocol, puzzles
    >>> bel = puzzles.get("bel")
    >>> result = protocol.solve(bel, bel.instance(2), solver="highs")
    >>> result.status, result.form
    (<Status.SOLVED: 'solved'>, 'mip')

Data flows one way: instance -> `model(instance, form, **options)` -> backend `Result` ->
`Model.decode` -> solution -> `verify` (the independent checker) -> `after` -> `render`.
"""

from __future__ import annotations

import numbers
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Protocol, runtime_checkable

from ilp_pyramid import backends, puzzles
from ilp_pyramid.backends.base import Result as BackendResult
from ilp_pyramid.backends.base import SolveOptions, Status
from ilp_pyramid.backends.solvers import SOLVERS, Solver
from ilp_pyramid.errors import InputError

# The forms a backend takes (backends/__init__.py): a PuLP problem, CNF clauses, exact-cover
# rows, a CP-SAT Boolean model, a weighted CNF; read from the solver table, so a new family's
# form is a puzzle's to build at once.
FORMS = tuple(dict.fromkeys(form for entry in SOLVERS for form in entry.native))
# The solver `solve` runs when given none, for a puzzle without a choice of its own
# (`auto_solve`), or when the call shapes the model.
DEFAULT_SOLVER = "highs"
AUTO = "auto"  # the solver name that asks for the puzzle's own choice, as None does


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

    `variables` and `constraints` (clauses of a CNF, rows of an exact cover) give its size,
    `build_seconds` what building it took. `hypotheses` name what the model assumes beyond
    the puzzle (a strategy that is not proved to lose no solution): an `infeasible` answer
    then holds only under them, and says so. `keys` are what the puzzle reports of the model
    in `--json` (its formulation, strategies...). `run`, where set, solves the model in its
    own rounds (a model that adds cuts between solves) instead of one `backends.solve`.

    `options` are the puzzle's options that shaped this model, defaults resolved, as plain
    values (text, numbers, flags; a set of names as one "A+B" text): what `solve --json`
    reports under "model_options" and a bench record keeps, so that a table of runs says
    which model ran (Bel: {"formulation": "counts", "strategy": "none"}). A puzzle with one
    model per form has none ({}); the form is a key of its own.
    """

    kind: str
    form: Any
    decode: Callable[[BackendResult], Any]
    build_seconds: float = 0.0
    variables: int = 0
    constraints: int = 0
    hypotheses: tuple[str, ...] = ()
    keys: dict[str, Any] = field(default_factory=dict)
    run: Callable[[Solver, SolveOptions], BackendResult] | None = None
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class BenchCase:
    """One instance of a puzzle's bench grid, as the arguments of `ilp-pyramid ... solve`.

    The bench appends `--solver S --seed R --time-limit T --json` and runs it in its own
    process; `params` are the columns a results table groups by (size first). `seeded`: the
    seed also picks the instance (a generated one), so the repeats of the case are different
    instances of one size, which scores and plots count apart.
    """

    args: tuple[str, ...]
    params: dict[str, Any] = field(default_factory=dict)
    seeded: bool = False

    @property
    def label(self) -> str:
        """The params as `k=v` words, the case's name in a results table."""
        return " ".join(f"{k}={v}" for k, v in self.params.items())


@dataclass
class Result:
    """What solving a puzzle instance gave: one `Status`, and a verified solution or none.

    `detail` says why, where the puzzle knows more than the status (e.g. which rule an
    unsolvable input breaks); it never replaces the status. `seconds` is the whole path
    (build, solve, decode, check, the puzzle's `after`); `build_seconds` and `solve_seconds`
    its two big parts. `keys` are the puzzle's own `--json` keys (`Puzzle.json_keys`).
    `model_options` are the options that shaped the model (`Model.options`; left out: the
    model's, {} when no model was built, e.g. an instance the puzzle refused without one).
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
    model: Model | None = field(default=None, repr=False)
    build_seconds: float = 0.0
    solve_seconds: float = 0.0
    keys: dict[str, Any] = field(default_factory=dict, repr=False)
    model_options: dict[str, Any] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.model_options is None:
            self.model_options = dict(self.model.options) if self.model is not None else {}

    @property
    def variables(self) -> int:
        """The model's variable count (0 without a model)."""
        return self.model.variables if self.model is not None else 0

    @property
    def constraints(self) -> int:
        """The model's constraint (row or clause) count (0 without a model)."""
        return self.model.constraints if self.model is not None else 0

    @property
    def hypotheses(self) -> tuple[str, ...]:
        """What the model assumed that may lose solutions: an `infeasible` holds under them."""
        return self.model.hypotheses if self.model is not None else ()

    @property
    def solved(self) -> bool:
        """True when the status is `solved` (the solution is then verified)."""
        return self.status is Status.SOLVED

    def render(self, fmt: str = "text") -> str | bytes:
        """The solution drawn by its puzzle ("text", "svg", "png" where the puzzle draws)."""
        if self.solution is None or self.puzzle_object is None:
            raise InputError(f"no solution to draw ({self.status})")
        return self.puzzle_object.render(self.instance, self.solution, fmt)

    def to_json(self) -> dict:
        """The common keys every puzzle's `solve --json` carries, then the puzzle's own."""
        common = {"puzzle": self.puzzle, "status": str(self.status), "solver": self.solver,
                  "form": self.form, "seconds": round(self.seconds, 4),
                  "model_options": dict(self.model_options or {}),
                  # the parts of `seconds` the bench keeps apart: the solver's own call and
                  # the model's build (the rest is the decode, the check and `after`)
                  "build_seconds": round(self.build_seconds, 4),
                  "solve_seconds": round(self.solve_seconds, 4),
                  **({"detail": self.detail} if self.detail else {}),
                  # an outside program's run, as runsolver reports it (backends/external.py)
                  **({"solver_usage": self.backend.usage}
                     if self.backend is not None and self.backend.usage else {})}
        return {**common, **{k: v for k, v in self.keys.items() if k not in common}}

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
    `bench_fits(params, solver) -> bool` (which bench grid points the puzzle has),
    `after(instance, result, options, **after_options) -> Result` (finishes a verified
    result: a cross-check, moves; or explains a status), `json_keys(instance, result) ->
    dict` (the puzzle's own `solve --json` keys; default: "solution", `to_json`'s output),
    `summary(instance, result) -> str` (the text `solve` prints under the picture),
    `solver_aliases` (the puzzle's own shorthands for solvers of the table, e.g. "auto"),
    `solver_defaults` (solver name -> the model options that solver gets unless the caller
    gives them, e.g. Bel's strategy rows for HiGHS), `auto_solve(instance, options) ->
    Result` (`solve` without a solver: the puzzle's own choice of engine, e.g. Bel's
    measured table, which need not be one solver of the table).

    Every method checks its arguments where they come in (the `check_*` helpers below, and
    each puzzle's `_check_instance` / `_check_solution`): a wrong type or a value out of range
    is an InputError of one line, never an AttributeError from inside (docs/api.md)."""

    name: str  # the CLI group and registry key, e.g. "insanity"
    title: str  # one line for --help
    forms: tuple[str, ...]  # the forms `model` builds, best first

    def parse(self, text: str) -> Any:
        """An instance from the puzzle's text format; InputError (one line) if malformed."""

    def default(self) -> Any:
        """The instance `solve` takes when given none (InputError if there is none)."""

    def model(self, instance: Any, form: str, **options: Any) -> Model:
        """`instance` as a solver form of kind `form` (one of `forms`), shaped by the
        puzzle's own `options` (a formulation, an encoding...); `Infeasible` when the puzzle
        proves, without a solver, that the instance has no solution."""

    def verify(self, instance: Any, solution: Any) -> list[str]:
        """Why `solution` does not solve `instance`, by independent code; [] when it does.
        InputError when `solution` is not the puzzle's kind of solution at all; one of the
        right kind made for another instance (another size) gets its reason in the list."""

    def render(self, instance: Any, solution: Any, fmt: str = "text") -> str | bytes:
        """A picture of the solution: "text" always; "svg" / "png" where the puzzle draws."""

    def to_json(self, instance: Any, solution: Any) -> dict:
        """Instance and solution as JSON, enough for `from_json` (what `verify FILE` reads)."""

    def from_json(self, data: dict) -> tuple[Any, Any]:
        """(instance, solution) from `to_json`'s output; InputError if malformed."""


def pick_form(puzzle: Puzzle, solver: str | Solver) -> str:
    """The first form `solver` takes that `puzzle` builds; InputError if there is none."""
    return backends.first_form(solver, puzzle.forms, puzzle.name)


def solve(puzzle: Puzzle | str, instance: Any = None, solver: str | Solver | None = None,
          options: SolveOptions | Mapping[str, Any] | None = None, form: str | None = None,
          model: Model | None = None, after: Mapping[str, Any] | None = None,
          **model_options: Any) -> Result:
    """Solve one instance: build the form the solver takes (or take `model`, one built
    with `puzzle.model` and changed by the caller), solve, decode, verify, finish.

    `puzzle` is a Puzzle or its name; `instance` None is the puzzle's default; `solver` a
    name or a `backends.solvers.Solver`; `options` a `SolveOptions` or a mapping of its
    fields ({"time_limit": 60}); `model_options` go to `puzzle.model` (e.g. Bel's
    `formulation`) after the puzzle's `solver_defaults` for that solver, which they
    override (None: keep the default), `after` to the puzzle's `after` hook (e.g. the views
    cross-check). A solution the independent checker rejects is an `error` result, never a
    solution. InputError (one line) for anything malformed in the call, before any model is
    built.

    `solver` None (or "auto") is the puzzle's own choice where it has one (`auto_solve`:
    Bel's engine measured fastest for N, as `ilp-pyramid solve N` picks it) and nothing
    shapes a model or its finish (no `form`, `model`, `after` or model options, as any
    model option on the command line means one exact solver); else DEFAULT_SOLVER.
    """
    puzzle = _puzzle(puzzle)
    options = solve_options(options)
    if solver is None or _names_auto(puzzle, solver):
        own = getattr(puzzle, "auto_solve", None)
        if own is not None and form is None and model is None and not after \
                and not model_options:
            return own(puzzle.default() if instance is None else instance, options)
        solver = DEFAULT_SOLVER
    entry = solver_for(puzzle, solver)
    if model is not None and not isinstance(model, Model):
        raise InputError(f"model must be a Model (from {puzzle.name}.model(instance, form)), "
                         f"not {shown(model)}")
    if form is not None and model is None:
        form = check_form(puzzle, form)
    after = _hook_options(puzzle, "after", after, skip=4)
    model_options = with_defaults(puzzle, entry, _hook_options(puzzle, "model", model_options,
                                                               skip=3))
    instance = puzzle.default() if instance is None else instance
    form = model.kind if model is not None else form or pick_form(puzzle, entry)
    if not entry.takes(form):
        raise InputError(f"{entry.name} does not take a {form} model (it takes "
                         f"{', '.join(entry.forms)})")
    start = time.perf_counter()
    base = {"instance": instance, "puzzle_object": puzzle}
    try:
        model = model or puzzle.model(instance, form, **model_options)
    except Infeasible as exc:
        return _finish(puzzle, Result(puzzle.name, Status.INFEASIBLE, entry.name, form,
                                      time.perf_counter() - start, detail=str(exc), **base),
                       options, after)
    built = time.perf_counter() - start
    answer = model.run(entry, options) if model.run is not None else \
        backends.solve(model.form, entry, options)
    result = Result(puzzle.name, answer.status, entry.name, form, 0.0, backend=answer,
                    model=model, build_seconds=model.build_seconds or built,
                    solve_seconds=answer.seconds, detail=answer.message, **base)
    if answer.has_solution:
        _decode_and_check(puzzle, instance, model, answer, result)
    result.seconds = time.perf_counter() - start
    return _finish(puzzle, result, options, after)


def with_defaults(puzzle: Puzzle, solver: Solver, given: Mapping[str, Any]) -> dict[str, Any]:
    """The model options `solve` builds with: the puzzle's `solver_defaults` for `solver`
    (Bel's strategy rows for HiGHS and SCIP), then `given` over them; an option given as
    None leaves its default in place (a puzzle with defaults reads None as "not given", as
    Bel's `model` does; an option without a default goes to `model` as it came)."""
    defaults = dict(getattr(puzzle, "solver_defaults", {}).get(solver.name, {}))
    return {**defaults, **{name: value for name, value in given.items()
                           if value is not None or name not in defaults}}


def _names_auto(puzzle: Puzzle, solver: str | Solver) -> bool:
    """`solver` is "auto" and the puzzle has no solver of its own by that name (IQ's
    "auto" is a shorthand for a solver of the table)."""
    return isinstance(solver, str) and solver.strip().lower() == AUTO \
        and AUTO not in getattr(puzzle, "solver_aliases", {})


def solver_for(puzzle: Puzzle, solver: str | Solver) -> Solver:
    """The table's solver a name means for this puzzle (a puzzle may name shorthands of its
    own in `solver_aliases`, e.g. IQ's "auto"), checked installed; InputError otherwise."""
    if isinstance(solver, str):
        solver = getattr(puzzle, "solver_aliases", {}).get(solver.strip().lower(), solver)
    return backends.require(solver)


def _decode_and_check(puzzle: Puzzle, instance: Any, model: Model, answer: BackendResult,
                      result: Result) -> None:
    """The answer decoded and checked by independent code: a solution, or an error."""
    try:
        solution = model.decode(answer)
    except InputError as exc:  # the solver's answer, not the user's input, is at fault
        result.status, result.detail = Status.ERROR, \
            f"the solver's answer does not decode: {exc}"
        return
    problems = puzzle.verify(instance, solution)
    if problems:
        result.status, result.detail = Status.ERROR, \
            "the solver's answer fails the check: " + "; ".join(problems[:3])
        return
    # A limit that stopped the proof of optimality: a puzzle that asks for the optimum
    # (`optimizes`) has no answer yet, a feasibility puzzle has its solution.
    result.status, result.detail = Status.SOLVED, ""
    if answer.status is Status.FEASIBLE and getattr(puzzle, "optimizes", False):
        result.status = Status.TIMEOUT
        result.detail = "a solution, but the optimum was not proved within the time limit"
    result.solution = solution


def _finish(puzzle: Puzzle, result: Result, options: SolveOptions,
            after: dict[str, Any] | None) -> Result:
    """The puzzle's `after` hook, then its JSON keys; the clock covers both."""
    hook = getattr(puzzle, "after", None)
    began = time.perf_counter()
    if hook is not None:  # `solve` checked `after` against it (`_hook_options`)
        result = hook(result.instance, result, options, **(after or {}))
    if result.status is Status.INFEASIBLE and result.hypotheses and not result.detail:
        result.detail = "under the hypotheses " + ", ".join(result.hypotheses)
    keys = getattr(puzzle, "json_keys", None)
    if keys is not None:
        result.keys = keys(result.instance, result)
    elif result.solution is not None:
        result.keys = {"solution": puzzle.to_json(result.instance, result.solution)}
    result.seconds += time.perf_counter() - began
    return result


def _puzzle(puzzle: Puzzle | str) -> Puzzle:
    if isinstance(puzzle, str):

        return puzzles.get(puzzle)
    if not isinstance(puzzle, Puzzle):
        raise InputError(f"not a puzzle: {type(puzzle).__name__} (give a puzzle or its name: "
                         f"ilp_pyramid.puzzle_names())")
    return puzzle


def _hook_options(puzzle: Puzzle, hook: str, given: Mapping[str, Any] | None,
                  skip: int) -> dict[str, Any]:
    """`given` checked against the keyword parameters of the puzzle's `hook` (its first
    `skip` parameters, self included, are the ones `solve` passes): InputError naming an
    option the hook lacks, rather than Python's TypeError from inside the solve."""
    if given is None:
        return {}
    what = "the model options" if hook == "model" else f"{hook}="
    if not isinstance(given, Mapping) or not all(isinstance(k, str) for k in given):
        raise InputError(f"{what} must be a dict of option names, not {shown(given)}")
    function = getattr(puzzle, hook, None)
    if function is None and given:
        raise InputError(f"{puzzle.name} takes no options after the solve "
                         f"({', '.join(given)})")
    code = getattr(getattr(function, "__func__", function), "__code__", None)
    if not given or code is None or code.co_flags & _VARKEYWORDS:
        return dict(given)  # nothing to check, or a hook that takes any keyword
    takes = code.co_varnames[skip:code.co_argcount + code.co_kwonlyargcount]
    unknown = [name for name in given if name not in takes]
    if unknown:
        listed = f"it takes {', '.join(takes)}" if takes else "it takes none"
        raise InputError(f"{puzzle.name}'s {hook} takes no option {unknown[0]!r} ({listed})")
    return dict(given)


_VARKEYWORDS = 0x08  # inspect.CO_VARKEYWORDS, without importing inspect on the quick path


def solve_options(options: SolveOptions | Mapping[str, Any] | None) -> SolveOptions:
    """`options` as `SolveOptions`: None is the defaults, a mapping names its fields
    ({"time_limit": 60, "threads": 1}), checked as `SolveOptions` checks them; InputError
    for anything else or a field it does not have."""
    if options is None:
        return SolveOptions()
    if isinstance(options, SolveOptions):
        return options
    if not isinstance(options, Mapping):
        raise InputError(f"options must be a SolveOptions or a dict of its fields, not "
                         f"{shown(options)}")
    names = [f.name for f in fields(SolveOptions)]
    unknown = [key for key in options if key not in names]
    if unknown:
        raise InputError(f"options: SolveOptions has no field {unknown[0]!r} (it has "
                         f"{', '.join(names)})")
    return SolveOptions(**options)


# --- the checks at the puzzles' doors: one line each, naming what was expected ----------

def shown(value: object, width: int = 60) -> str:
    """`value` as a message quotes it: its repr, clipped, and its type when that is not
    plain from the repr."""
    text = repr(value)
    if len(text) > width:
        text = text[:width - 3] + "..."
    plain = value is None or isinstance(value, bool | int | float | str | list | dict | tuple)
    return text if plain else f"{text} ({type(value).__name__})"


def check_text(text: object, what: str) -> str:
    """`text`, if it is a str; InputError otherwise (bytes too: decode them first)."""
    if not isinstance(text, str):
        raise InputError(f"{what} must be text (a str), not {shown(text)}")
    return text


def check_form(puzzle: Puzzle, form: object) -> str:
    """`form`, if `puzzle` builds it."""
    if not isinstance(form, str) or form not in puzzle.forms:
        raise InputError(f"{puzzle.name} has no {shown(form)} model (forms: "
                         f"{', '.join(puzzle.forms)})")
    return form


def check_choice(value: object, what: str, choices: Iterable[str]) -> str:
    """`value`, if it is one of `choices` (a picture format, a mode...)."""
    choices = tuple(choices)
    if not isinstance(value, str) or value not in choices:
        raise InputError(f"{what} must be one of {', '.join(choices)}, not {shown(value)}")
    return value


def check_whole(value: object, what: str, low: int | None = 0,
                high: int | None = None) -> int:
    """`value`, if it is a whole number (not a bool, not a float) in low..high (None: no
    bound on that side)."""
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) \
            or (low is not None and value < low) or (high is not None and value > high):
        span = f" between {low} and {high}" if low is not None and high is not None else \
            f" >= {low}" if low is not None else f" <= {high}" if high is not None else ""
        raise InputError(f"{what} must be a whole number{span}, not {shown(value)}")
    return int(value)


def check_flag(value: object, what: str) -> bool:
    if not isinstance(value, bool):
        raise InputError(f"{what} must be True or False, not {shown(value)}")
    return value


def check_sizes(sizes: object, what: str, low: int | None = 1,
                high: int | None = None) -> list[int] | None:
    """A bench's `sizes`: None (the puzzle's default grid), or a non-empty sequence of whole
    numbers in low..high (None: the puzzle's own bench grid checks that side)."""
    if sizes is None:
        return None
    if isinstance(sizes, str | bytes | Mapping) or not isinstance(sizes, Iterable):
        raise InputError(f"sizes must be None (the default grid) or a list of whole numbers "
                         f"(each {what}), not {shown(sizes)}")
    listed = list(sizes)
    if not listed:
        raise InputError(f"sizes must be None (the default grid) or name at least one {what}")
    return [check_whole(size, f"a {what}", low, high) for size in listed]


def check_object(data: object, what: str) -> dict:
    """A JSON object (`from_json`'s input), as a dict."""
    if not isinstance(data, Mapping):
        raise InputError(f"{what} must be a JSON object (a dict), not {shown(data)}")
    return dict(data)


def bench_cases(puzzle: Puzzle, sizes: Sequence[int] | None = None) -> list[BenchCase]:
    """The puzzle's bench grid: its own `bench_cases`, or its default instance alone."""
    own = getattr(puzzle, "bench_cases", None)
    if own is not None:
        return list(own(sizes))
    return [BenchCase(args=(puzzle.name, "solve"), params={"instance": "default"})]
