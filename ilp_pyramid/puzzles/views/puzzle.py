"""The views puzzle as a `protocol.Puzzle`: an instance is a `Views`, a solution the
placement [z, y, x] (a boolean numpy array) of the fewest cubes.

    >>> from ilp_pyramid import protocol
    >>> from ilp_pyramid.puzzles.views.puzzle import PUZZLE as views
    >>> puzzle = views.instance("fe88e8f9b499")
    >>> result = protocol.solve(views, puzzle, solver="highs")
    >>> result.status, int(result.solution.sum())
    (<Status.SOLVED: 'solved'>, 12)

Through geometry.py, model.py, render.py and verify/views.py, imported on first use: importing
this module loads neither numpy nor PuLP.

Every method checks its arguments at the door (`_check_instance`, `_check_placement`):
anything that is no `Views` or no placement is an InputError of one line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ilp_pyramid.errors import InputError, SolverError
from ilp_pyramid.figures import svg_text
from ilp_pyramid.protocol import (
    BenchCase,
    Infeasible,
    Model,
    Result,
    check_choice,
    check_flag,
    check_form,
    check_object,
    check_sizes,
    check_text,
    check_whole,
    shown,
)

if TYPE_CHECKING:
    import numpy as np

    from ilp_pyramid.backends.base import SolveOptions
    from ilp_pyramid.puzzles.views.geometry import Views

# The spec's solvable example (the battery's puzzle 000157), docs/views.md.
DEFAULT_SPEC = "fe88e8f9b499"
# The bench's default ramp of generated views (grid sides n): HiGHS proves each in well
# under a second, the SAT solvers' linear search takes seconds at n = 10 and 12 (docs/views.md).
BENCH_SIZES = (4, 6, 8, 10, 12)


class ViewsPuzzle:
    """The fewest unit cubes in an n x n x n grid that show given top, front and side views."""

    name = "views"
    title = "Top-front-side views: the fewest cubes in an n x n x n grid that show three views"
    forms = ("mip", "wcnf")
    optimizes = True  # the fewest cubes: an unproved optimum is no answer yet

    def instance(self, spec: str | None = None, *, number: int | str | None = None,
                 top: str | None = None, front: str | None = None, side: str | None = None,
                 n: int | None = None) -> Views:
        """The views from exactly one of: `spec` (hex digits or a 0/1 string, see
        `geometry.parse_spec`), `number` (the battery's puzzle of that number, 0..999999:
        MD5 of its six digits), or the rows of `top`, `front` and `side` ("xx..,xxxx,...")."""
        from ilp_pyramid.puzzles.views import geometry

        rows = (top, front, side)
        ways = [spec is not None, number is not None, any(r is not None for r in rows)]
        if sum(ways) != 1:
            raise InputError("give the views one way: spec, number, or top/front/side")
        if n is not None:
            n = check_whole(n, "n", 1, geometry.MAX_N)
        if spec is not None:
            return geometry.parse_spec(check_text(spec, "the views' spec"), n)
        if number is not None:
            if not isinstance(number, str):
                number = check_whole(number, "the battery's number", 0,
                                     geometry.BATTERY_SIZE - 1)
            return geometry.seed_views(geometry.parse_seed(number))
        if any(r is None for r in rows):
            raise InputError("top, front and side go together")
        for name, text in zip(("top", "front", "side"), rows, strict=True):
            check_text(text, f"the {name} view's rows")
        views = geometry.from_rows(top, front, side)  # type: ignore[arg-type]
        if n is not None and views.n != n:
            raise InputError(f"the views are {views.n} x {views.n}, not {n} x {n}")
        return views

    def generate(self, size: int, seed: int = 0, planted: bool = False) -> Views:
        """The views of a random placement in a `size` x `size` x `size` grid, the same for
        a seed on every machine (geometry.generate). Such views always have a solution, so
        `planted` changes nothing."""
        from ilp_pyramid.puzzles.views import geometry

        size = check_whole(size, "the grid side n", 1, geometry.MAX_N)
        seed, _ = check_whole(seed, "seed"), check_flag(planted, "planted")
        return geometry.generate(size, seed)

    def parse(self, text: str) -> Views:
        """The puzzle string: hex digits or 3 n^2 bits (`views solve SPEC`)."""
        from ilp_pyramid.puzzles.views.geometry import parse_spec

        return parse_spec(check_text(text, "a views instance"))

    def default(self) -> Views:
        return self.parse(DEFAULT_SPEC)

    def model(self, instance: Views, form: str, *, infeasible: bool = False) -> Model:
        """The minimum set cover (model.py): a MIP ("mip"), or a weighted CNF ("wcnf": hard
        clauses cover the pixels, one soft clause per cell) for a MaxSAT solver. Views that
        no placement shows raise `protocol.Infeasible` naming the pixels no cell can show,
        after the independent checker agreed; with `infeasible`, they get their (infeasible)
        model instead, for a benchmark file."""
        instance, _ = _check_instance(instance), check_form(self, form)
        if not infeasible and not instance.solvable():
            from ilp_pyramid.puzzles.views.outcome import UNSOLVABLE_REASON, missing_pixels
            from ilp_pyramid.verify.views import verify_unsolvable

            if not verify_unsolvable(instance.bits()).valid:
                raise SolverError("internal error: the unsolvable verdict failed its check")
            raise Infeasible(f"{UNSOLVABLE_REASON}: no cell can show "
                             f"{', '.join(missing_pixels(instance))}")
        if form == "wcnf":
            from ilp_pyramid.puzzles.views.model import build_wcnf

            cover = build_wcnf(instance, infeasible)
            return Model("wcnf", cover.wcnf, lambda answer: cover.decode(answer.model),
                         build_seconds=cover.build_seconds, variables=cover.num_variables,
                         constraints=cover.num_clauses)
        from ilp_pyramid.puzzles.views.model import build_model

        built = build_model(instance, infeasible)
        return Model("mip", built.problem, lambda answer: built.decode(answer.values),
                     build_seconds=built.build_seconds, variables=built.num_variables,
                     constraints=built.num_constraints)

    def after(self, instance: Views, result: Result, options: SolveOptions,
              check: bool = True) -> Result:
        """The cross-check with the exact branch and bound (outcome.after): always when the
        MIP did not prove its optimum (the proved count is then the answer, or the result a
        timeout), and when `check`. SolverError when the two exact methods disagree."""
        from ilp_pyramid.puzzles.views.outcome import after

        return after(instance, result, check)

    def json_keys(self, instance: Views, result: Result) -> dict:
        """`views solve --json`'s own keys (outcome.json_keys)."""
        from ilp_pyramid.puzzles.views.outcome import json_keys

        return json_keys(instance, result)

    def summary(self, instance: Views, result: Result) -> str:
        """The model, the check and the proof under the picture (outcome.summary)."""
        from ilp_pyramid.puzzles.views.outcome import summary

        return summary(instance, result)

    def verify(self, instance: Views, solution: np.ndarray) -> list[str]:
        """Whether the cubes show exactly the views, by re-projection (verify/views.py): the
        reasons they do not ([] when they do), a placement for another n among them.
        That they are the fewest is the solver's proof (`optimizes`), not checked here.
        InputError when `solution` is no placement at all."""
        from ilp_pyramid.puzzles.views.geometry import placement_bits
        from ilp_pyramid.verify.views import verify_answer

        instance, placement = _check_instance(instance), _check_placement(solution)
        if placement.shape[0] != instance.n:
            return [_other_n(placement, instance)]
        return verify_answer(instance.bits(), placement_bits(placement)).reasons()

    def render(self, instance: Views, solution: np.ndarray, fmt: str = "text") -> str | bytes:
        """"text": the views and the layers side by side, the cubes (and the spec's lower
        bound) and the answer bits; "png" / "svg": the views beside the cubes as voxels
        (extra `pictures`)."""
        from ilp_pyramid.puzzles.views import geometry
        from ilp_pyramid.puzzles.views.outcome import lower_bound

        fmt = check_choice(fmt, "views' picture format", ("text", "png", "svg"))
        instance, solution = _check_pair(instance, solution)
        if fmt == "text":
            layers = geometry.layer_rows(solution)
            bits = geometry.placement_bits(solution)
            code = geometry.bits_hex(bits)
            lines = geometry.picture(instance)
            lines += geometry.side_by_side(layers, [f"z={z}" for z in range(len(layers))])
            lines.append(f"cubes: {int(solution.sum())} (lower bound from the fullest view: "
                         f"{lower_bound(instance)})")
            lines.append(f"answer: {code} ({len(bits)} bits: {bits})" if code else
                         f"answer: {bits}")
            return "\n".join(lines) + "\n"
        title = f"views {instance.hex() or instance.bits()}{geometry.origin(instance)}"
        if fmt == "png":
            from ilp_pyramid.puzzles.views.render import png_bytes

            return png_bytes(instance, solution, title)
        from ilp_pyramid.puzzles.views.render import figure

        return svg_text(figure(instance, solution, title))

    def to_json(self, instance: Views, solution: np.ndarray) -> dict:
        """The keys of `views solve --json` that say what was asked and answered."""
        from ilp_pyramid.puzzles.views.geometry import bits_hex, layer_rows, placement_bits

        instance, solution = _check_pair(instance, solution)
        bits = placement_bits(solution)
        return {"n": instance.n, "input": instance.hex() or instance.bits(),
                "cubes": int(solution.sum()), "bits": bits, "hex": bits_hex(bits),
                "layers": layer_rows(solution)}

    def from_json(self, data: dict) -> tuple[Views, np.ndarray]:
        """`to_json`'s output or a solved `views solve --json` object: "input" and "bits"."""
        from ilp_pyramid.puzzles.views.geometry import parse_spec, placement_from_bits

        data = check_object(data, "a views solution")
        spec, bits = data.get("input"), data.get("bits")
        if not isinstance(spec, str) or not isinstance(bits, str):
            raise InputError('a views solution needs "input" (the views) and "bits" (the '
                             'cubes) as strings')
        n = data.get("n")
        if n is not None and type(n) is not int:
            raise InputError('"n" must be an integer')
        views = parse_spec(spec, n)
        return views, placement_from_bits(bits, views.n)

    def bench_cases(self, sizes: Sequence[int] | None = None) -> list[BenchCase]:
        """Generated views for each grid side n (default BENCH_SIZES); the bench's --seed
        picks the instance (repeat r: seed r-1), the same on every machine."""
        from ilp_pyramid.puzzles.views.geometry import MAX_N

        return [BenchCase(("views", "solve", "--generate", str(n)),
                          {"n": n, "instance": "random"}, seeded=True)
                for n in check_sizes(sizes, "grid side n", 1, MAX_N) or BENCH_SIZES]


def _check_instance(instance: object) -> Views:
    """A views instance is a `geometry.Views` (what `instance`, `parse`, `default` make)."""
    from ilp_pyramid.puzzles.views.geometry import Views

    if not isinstance(instance, Views):
        raise InputError(f"a views instance is what views.instance(...), parse or default "
                         f"make, not {shown(instance)}")
    return instance


def _check_placement(solution: object) -> np.ndarray:
    """A placement is an n x n x n numpy array [z, y, x] of booleans (or of 0 and 1)."""
    import numpy as np

    if not isinstance(solution, np.ndarray) or solution.ndim != 3 or solution.size == 0 \
            or len(set(solution.shape)) != 1 or solution.dtype.kind not in "biu" \
            or (solution.dtype.kind != "b" and not np.isin(solution, (0, 1)).all()):
        raise InputError(f"a views solution is an n x n x n numpy array of booleans "
                         f"[z, y, x], not {_described(solution)}")
    return solution.astype(bool, copy=False)


def _described(value: object) -> str:
    shape = getattr(value, "shape", None)
    if shape is not None:
        return f"{type(value).__name__} of shape {shape} ({getattr(value, 'dtype', '?')})"
    return shown(value)


def _other_n(placement: np.ndarray, views: Views) -> str:
    n = placement.shape[0]
    return f"the placement is {n} x {n} x {n}, the views are {views.n} x {views.n}"


def _check_pair(instance: object, solution: object) -> tuple[Views, np.ndarray]:
    """What `render` and `to_json` take: a placement of the views' own n (`verify` reports
    another n as its reason instead)."""
    views, placement = _check_instance(instance), _check_placement(solution)
    if placement.shape[0] != views.n:
        raise InputError(_other_n(placement, views))
    return views, placement


PUZZLE = ViewsPuzzle()
