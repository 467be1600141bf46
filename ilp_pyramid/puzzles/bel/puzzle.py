"""Bel's Pyramid as a `protocol.Puzzle`: an instance is N, a solution a `BelSolution`.

    >>> from ilp_pyramid import protocol
    >>> from ilp_pyramid.puzzles.bel.puzzle import PUZZLE as bel
    >>> result = protocol.solve(bel, bel.instance(2), solver="highs")
    >>> result.status, bel.verify(2, result.solution)
    (<Status.SOLVED: 'solved'>, [])

Everything here goes through the modules that already do the work (model.py, cnf.py,
solution.py, render.py, verify/bel.py); the models, pictures, strategies and bench grid are
imported on first use, so importing this module loads neither PuLP nor python-sat nor
matplotlib, and `ilp-pyramid solve 2` no module it does not run (tests/test_startup.py).

Every method checks its arguments at the door: an instance is N, a whole number 1..MAX_N
(`_check_instance`), a solution a `BelSolution` of whole rows (`solution.check_solution`);
anything else is an InputError of one line.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ilp_pyramid.backends.base import SolveOptions
from ilp_pyramid.errors import InputError
from ilp_pyramid.parsing import parse_int
from ilp_pyramid.protocol import (
    BenchCase,
    Model,
    Result,
    check_choice,
    check_form,
    check_object,
    check_sizes,
    check_text,
    shown,
    solve_options,
)
from ilp_pyramid.puzzles.bel.geometry import MAX_N
from ilp_pyramid.puzzles.bel.solution import BelSolution, check_solution, parse_json
from ilp_pyramid.verify.bel import verify_solution

if TYPE_CHECKING:
    from ilp_pyramid.backends.base import SolveOptions

DEFAULT_N = 3  # the classic 35-cube pyramid
# Solver name -> the model options that solver gets unless the caller gives them
# (`protocol.solve` applies them, so `solve N --solver S`, `ilp_pyramid.solve("bel", N, S)`,
# the bench and the workbench build one model): the value-precedence rows on the centre
# lines, the best strategy set measured for HiGHS (docs/data/highs_strategies_n3.jsonl) and for
# SCIP under its CP emphasis (docs/data/mip_n3.jsonl, docs/mip.md); any other solver the plain
# model. `strategies=[]` (`--strategy none`) turns them off.
SOLVER_DEFAULTS: dict[str, dict[str, Any]] = {
    "highs": {"strategies": ("LabelPermutationImportance",)},
    "scip": {"strategies": ("LabelPermutationImportance",)},
}


class BelPuzzle:
    """Label every line of a step pyramid of N levels with 0..2N-2 so that every cube of the
    set {a <= b <= c} shows exactly once."""

    name = "bel"
    title = "Bel's Pyramid: label the lines of an N-level pyramid so every cube shows once"
    # "mip": the counts formulation (model.py); "cnf": the counts encoding (cnf.py).
    forms = ("mip", "cnf")
    solver_defaults = SOLVER_DEFAULTS

    @property
    def max_n(self) -> int:
        """The largest N `instance` (and `ilp-pyramid solve`) takes."""
        return MAX_N

    def instance(self, n: int = DEFAULT_N) -> int:
        """The pyramid of `n` levels (1 .. geometry.MAX_N); InputError otherwise."""
        return _check_instance(n)

    def parse(self, text: str) -> int:
        """N written as a decimal number (what `ilp-pyramid solve N` takes)."""
        text = check_text(text, "a Bel instance")
        return self.instance(parse_int(text.strip(), "N", "a number of levels"))

    def default(self) -> int:
        return DEFAULT_N

    def model(self, instance: int, form: str, *, formulation: str | None = None,
              card: str | None = None, strategies: Sequence[str] | None = None) -> Model:
        """The MIP (`formulation`: counts, rotations, ...) or the CNF (`formulation` is then
        the encoding: counts, support, ...; `card` the "one cell per cube" encoding), with
        the `strategies` (`ilp-pyramid strategies`) compiled in as rows or clauses (None:
        none; `protocol.solve` gives a solver its `SOLVER_DEFAULTS` first).

        A strategy that may lose every solution is a hypothesis: the model's `hypotheses`
        name them, and an `infeasible` answer then holds only under them."""
        n = _check_instance(instance)
        form = check_form(self, form)
        for name, value in (("formulation", formulation), ("card", card)):
            if value is not None and not isinstance(value, str):
                raise InputError(f"{name} must be a name (a str), not {shown(value)}")
        strategies = () if strategies is None else strategies
        if isinstance(strategies, str) or not isinstance(strategies, Sequence) or \
                not all(isinstance(name, str) for name in strategies):
            raise InputError(f"strategies must be a list of strategy names, not "
                             f"{shown(strategies)}")
        strategies = list(strategies)
        assumed = _hypotheses(strategies)
        if form == "mip":
            from ilp_pyramid.puzzles.bel.model import build_model

            formulation = formulation or "counts"
            built = build_model(n, formulation, strategies)
            return Model("mip", built.problem, lambda answer: built.decode(answer.values),
                         built.build_seconds, built.num_variables, built.num_constraints,
                         assumed, {"formulation": formulation, "strategies": strategies},
                         options=model_options(formulation, strategies))
        if form == "cnf":
            from ilp_pyramid.puzzles.bel.cnf import DEFAULT_CARD, DEFAULT_ENCODING, build_cnf

            formulation, card = formulation or DEFAULT_ENCODING, card or DEFAULT_CARD
            cnf = build_cnf(n, formulation, card, strategies=strategies)
            return Model("cnf", cnf.formula, lambda answer: cnf.decode(answer.model),
                         cnf.build_seconds, cnf.num_variables, cnf.num_clauses, assumed,
                         {"formulation": formulation, "strategies": strategies},
                         options=model_options(formulation, strategies, card))
        raise AssertionError(form)  # check_form let through a form this method lacks

    def auto_solve(self, instance: int, options: SolveOptions) -> Result:
        """`solve` without a solver: the engine measured fastest for N (auto.py's table,
        as `ilp-pyramid solve N` picks it): an exact solver, or the hybrid search (racing
        from auto.RACE_FROM, `options.threads` searches if given); a verified result whose
        keys name the engine ("method": "auto", "engine")."""
        from ilp_pyramid.puzzles.bel.auto_solve import auto_solve

        return auto_solve(self, _check_instance(instance), options)

    def json_keys(self, instance: int, result: Result) -> dict:
        """What `ilp-pyramid solve N --json` says beyond the common keys: N, the model
        (formulation, strategies, the hypotheses an `infeasible` rests on, its size), the
        build and solve times, the solution (or null) and the solver's message."""
        model = result.model.keys if result.model is not None else {}
        backend = result.backend
        return {"n": instance,
                "formulation": model.get("formulation", ""),
                "strategies": list(model.get("strategies", [])),
                **({"hypotheses": list(result.hypotheses)} if result.hypotheses else {}),
                "build_seconds": round(result.build_seconds, 4),
                "solve_seconds": round(result.solve_seconds, 4),
                "variables": result.variables,
                "constraints": result.constraints,
                "solution": result.solution.to_dict() if result.solution is not None else None,
                "message": backend.message if backend is not None else ""}

    def verify(self, instance: int, solution: BelSolution) -> list[str]:
        """The reasons the labelling does not solve the pyramid of N = `instance` ([] when
        it does): a labelling for another N, cubes shown twice, missing, or labels out of
        range. InputError when `solution` is no labelling at all."""
        n, solution = _check_instance(instance), check_solution(solution)
        if solution.n != n:
            return [_other_n(solution, n)]
        return verify_solution(solution).reasons()

    def count(self, instance: int,
              options: SolveOptions | Mapping[str, Any] | None = None) -> int:
        """The labelled pyramids of N = `instance`, by the default pair of methods (D4 and
        cover up to N = 3, D4 and Ganak past it, sat for a counter that is not installed:
        `count.default_methods`), which must agree (SolverError otherwise); TimeoutError when
        `options.time_limit` stops the count first. The count up to symmetry and each
        method's figures: `ilp_pyramid.puzzles.bel.count.count`."""
        from ilp_pyramid.puzzles.bel.count import check_n, count

        n, options = _check_instance(instance), solve_options(options)
        check_n(n)
        report = count(n, time_limit=options.time_limit)
        if report.labelled is None:
            raise TimeoutError(f"the count of N={n} stopped at the time limit")
        return report.labelled

    def render(self, instance: int, solution: BelSolution, fmt: str = "text") -> str | bytes:
        """"text": Knuth's drawing; "png" / "svg": the 3-D view and the levels (extra
        `pictures`); "html": the interactive 3-D view."""
        fmt = check_choice(fmt, "bel's picture format", ("text", "png", "svg", "html"))
        solution = _check_pair(instance, solution)
        if fmt == "text":
            return solution.to_drawing()
        if fmt == "png":
            from ilp_pyramid.puzzles.bel.render import png_bytes

            return png_bytes(solution)
        if fmt == "svg":
            from ilp_pyramid.figures import svg_text
            from ilp_pyramid.puzzles.bel.render import figure

            return svg_text(figure(solution))
        from ilp_pyramid.puzzles.bel.html import html_text

        return html_text(solution)

    def to_json(self, instance: int, solution: BelSolution) -> dict:
        """The keys `solve --json` and `verify` share: "n" and "solution" (Z, X, Y)."""
        solution = _check_pair(instance, solution)
        return {"n": solution.n, "solution": solution.to_dict()}

    def from_json(self, data: dict) -> tuple[int, BelSolution]:
        """`to_json`'s output, a `solve --json` object or a bare {"Z", "X", "Y"}; N defaults to
        the labelling's own."""
        data = check_object(data, "a Bel solution")
        try:
            text = json.dumps(data)
        except (TypeError, ValueError) as exc:  # a dict made in Python, not read from JSON
            raise InputError(f"a Bel solution must hold JSON values only ({exc})") from None
        solution = parse_json(text)  # the strict reader of `verify FILE`
        n = data.get("n", solution.n)
        return self.instance(n), solution

    def bench_cases(self, sizes: Sequence[int] | None = None) -> list[BenchCase]:
        """One `ilp-pyramid solve N` per size (default 2..4; bench_cases.py)."""
        from ilp_pyramid.puzzles.bel import bench_cases

        # The range is bench_cases.py's to check, in the words of the bench's --n.
        return bench_cases.bench_cases(check_sizes(sizes, "size N", None, None))

    def bench_fits(self, params: Mapping[str, Any], solver: str) -> bool:
        """Whether `solve` has this bench grid point for `solver` (bench_cases.py)."""
        from ilp_pyramid.puzzles.bel import bench_cases

        return bench_cases.bench_fits(params, solver)


def model_options(formulation: str, strategies: Sequence[str],
                  card: str | None = None) -> dict[str, str]:
    """The options that shape a Bel model, as `solve --json` reports them ("model_options")
    and the bench's axes name them: the formulation (a CNF: its encoding), the strategy set
    as one value ("A+B", "none" for none) and, for a CNF, the "one cell per cube"
    cardinality encoding."""
    options = {"formulation": formulation, "strategy": "+".join(strategies) or "none"}
    return options | ({"card": card} if card is not None else {})


def _check_instance(n: object) -> int:
    """A Bel instance is N, the number of levels: a whole number 1..MAX_N (not "3", 3.0 or
    True)."""
    if type(n) is not int or not 1 <= n <= MAX_N:
        raise InputError(f"N must be an integer between 1 and {MAX_N} (got {shown(n)})")
    return n


def _other_n(solution: BelSolution, n: int) -> str:
    return f"the labelling is for N={solution.n}, the instance is N={n}"


def _check_pair(instance: object, solution: object) -> BelSolution:
    """What `render` and `to_json` take: a labelling for this very N (`verify` reports
    another N as its reason instead)."""
    n, solution = _check_instance(instance), check_solution(solution)
    if solution.n != n:
        raise InputError(_other_n(solution, n))
    return solution


def _hypotheses(strategies: list[str]) -> tuple[str, ...]:
    """The strategies an `infeasible` rests on; InputError for a name the catalogue lacks.
    No strategy, no catalogue loaded (`solve 1`'s start-up)."""
    if not strategies:
        return ()
    from ilp_pyramid.puzzles.bel.strategies import CATALOGUE, hypotheses

    unknown = [name for name in strategies if name not in CATALOGUE]
    if unknown:
        raise InputError(f"unknown strategy {unknown[0]!r} (see `ilp-pyramid strategies`)")
    return tuple(hypotheses(strategies))


PUZZLE = BelPuzzle()
