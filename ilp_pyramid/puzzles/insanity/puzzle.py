"""Instant Insanity as a `protocol.Puzzle`: the one object the registry names. An instance
is an `instance.Instance` (six colours per cube), a solution an `instance.Tower`.

    >>> from ilp_pyramid import protocol
    >>> from ilp_pyramid.puzzles.insanity.puzzle import PUZZLE as insanity
    >>> planted = insanity.generate(6, seed=1, planted=True)
    >>> by_sat = protocol.solve(insanity, planted, solver="kissat")
    >>> by_sat.status, by_sat.form
    (<Status.SOLVED: 'solved'>, 'cnf')
    >>> insanity.verify(planted, by_sat.solution)
    []
    >>> protocol.solve(insanity, insanity.default(), solver="highs").form
    'mip'

Light to import (no PuLP, no python-sat, no plotting): each form's module loads what it
needs when a model is built, and the generator and pictures are imported where used (the
top-level help lists the puzzle by this object alone: tests/test_startup.py).

Every method checks its arguments at the door (`_check_instance`, `_check_tower`): anything
that is no `Instance` or no `Tower` is an InputError of one line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ilp_pyramid.backends import ExactCoverForm
from ilp_pyramid.errors import InputError
from ilp_pyramid.protocol import (
    BenchCase,
    Model,
    check_choice,
    check_flag,
    check_form,
    check_object,
    check_sizes,
    check_text,
    check_whole,
    shown,
)
from ilp_pyramid.puzzles.insanity import instance as inst
from ilp_pyramid.puzzles.insanity import verify as checker
from ilp_pyramid.puzzles.insanity.choices import tower_of
from ilp_pyramid.puzzles.insanity.cnf import build_cnf, decode_literals
from ilp_pyramid.puzzles.insanity.cover import cover_rows
from ilp_pyramid.puzzles.insanity.generate import MIN_CUBES, generate
from ilp_pyramid.puzzles.insanity.instance import MAX_CUBES, Instance, Tower
from ilp_pyramid.puzzles.insanity.model import build_problem, decode_values
from ilp_pyramid.puzzles.insanity.render import FORMATS, render

# n = 4 (the commercial size) to 12: the random instances go from instant to seconds for
# both families of solvers, without a jump.
BENCH_SIZES = tuple(range(4, 13))


class Insanity:
    name = "insanity"
    title = ("Instant Insanity: stack n cubes so each long side of the tower shows all n "
             "colours once.")
    forms = ("mip", "cnf", "exact_cover")

    def instance(self, cubes: str | Sequence[Sequence[str] | str]) -> Instance:
        """The cubes, top of the tower first: the text format (`parse`), or a list of cubes,
        each its six colours in face order (front, back, left, right, top, bottom) as a list
        of words or a string of six letters ("BYRRRG")."""
        if isinstance(cubes, str):
            return self.parse(cubes)
        if not isinstance(cubes, list | tuple):
            raise InputError(f"the cubes must be a list of six colours each (or the text "
                             f"format), not {shown(cubes)}")
        return inst.make([list(cube) if isinstance(cube, str) and len(cube) == 6 else cube
                          for cube in cubes])

    def parse(self, text: str) -> Instance:
        return inst.parse(check_text(text, "an Instant Insanity instance"))

    def default(self) -> Instance:
        return inst.classic()

    def generate(self, size: int, seed: int = 0, planted: bool = False) -> Instance:
        """`size` cubes in `size` colours (generate.py); `planted`: one with a solution."""

        size = check_whole(size, "the number of cubes", MIN_CUBES, MAX_CUBES)
        return generate(size, check_whole(seed, "seed"), check_flag(planted, "planted"))

    def model(self, instance: Instance, form: str) -> Model:
        instance, form = _check_instance(instance), check_form(self, form)
        if form == "mip":

            problem, table = build_problem(instance)
            return Model("mip", problem,
                         lambda answer: decode_values(instance, table, answer.values))
        if form == "cnf":

            clauses, _count, table = build_cnf(instance)
            return Model("cnf", clauses,
                         lambda answer: decode_literals(instance, table, answer.model))
        if form == "exact_cover":

            rows, items, table = cover_rows(instance)
            return Model("exact_cover", ExactCoverForm(rows, items),
                         lambda answer: tower_of(instance, [table[r] for r in answer.rows]))
        raise AssertionError(form)  # check_form let through a form this method lacks

    def verify(self, instance: Instance, solution: Tower) -> list[str]:
        """The reasons the tower is no solution ([] when it is), by the independent checker
        (verify.py): a placement count other than the cubes', a placement no turn of a cube
        gives, a colour twice on a side. InputError when `solution` is no `Tower`."""
        instance, tower = _check_instance(instance), _check_tower(solution)
        return checker.problems([list(c) for c in instance.cubes],
                                [list(p) for p in tower.placements])

    def render(self, instance: Instance, solution: Tower | None, fmt: str = "text"
               ) -> str | bytes:
        """"text", "svg" or "png" (extra `pictures`); with `solution` None, the cubes as
        given."""

        fmt = check_choice(fmt, "insanity's picture format", FORMATS)
        return render(*_check_pair(instance, solution), fmt)

    def to_json(self, instance: Instance, solution: Tower | None) -> dict:
        """The cubes, and the tower's placements and sides (`solution` None: the cubes
        alone)."""
        return inst.tower_to_json(*_check_pair(instance, solution))

    def from_json(self, data: dict) -> tuple[Instance, Any]:
        instance, tower = inst.tower_from_json(check_object(data, "an Instant Insanity "
                                                                  "solution"))
        if tower is None:
            raise InputError("no \"placements\": the file holds cubes but no tower")
        return instance, tower

    def bench_cases(self, sizes: Sequence[int] | None = None) -> list[BenchCase]:
        """Planted and random instances for each n; the bench's --seed picks the instance
        (repeat r: seed r-1), the same on every machine."""
        cases = []
        for n in check_sizes(sizes, "number of cubes", 1, MAX_CUBES) or BENCH_SIZES:
            for kind in ("planted", "random"):
                extra = ("--planted",) if kind == "planted" else ()
                cases.append(BenchCase(args=("insanity", "solve", "--generate", str(n), *extra),
                                       params={"n": n, "instance": kind}, seeded=True))
        return cases


def _check_instance(instance: object) -> Instance:
    """An instance is an `instance.Instance` (what `instance`, `parse`, `default` and
    `generate` make)."""
    if not isinstance(instance, Instance):
        raise InputError(f"an Instant Insanity instance is what insanity's instance, parse, "
                         f"default or generate make, not {shown(instance)}")
    return instance


def _check_tower(solution: object) -> Tower:
    """A tower: one placement per cube, each a sequence of face numbers; whether they are
    turns of a cube, and as many as the cubes, is the checker's to say."""
    if not isinstance(solution, Tower) or not isinstance(solution.placements, list | tuple) \
            or not all(isinstance(p, list | tuple) for p in solution.placements):
        raise InputError(f"an Instant Insanity solution is a Tower of placements, not "
                         f"{shown(solution)}")
    return solution


def _check_pair(instance: object, solution: object) -> tuple[Instance, Tower | None]:
    """What `render` and `to_json` take: no tower, or one placement per cube, each an
    order of the six faces (`verify` reports a misfit as its reason instead)."""
    instance = _check_instance(instance)
    if solution is None:
        return instance, None
    tower = _check_tower(solution)
    if len(tower.placements) != instance.n or not all(
            all(type(f) is int for f in p) and sorted(p) == list(range(6))
            for p in tower.placements):
        raise InputError(f"cannot draw this tower: {instance.n} placements of the faces "
                         f"0-5 expected, one per cube")
    return instance, tower


PUZZLE = Insanity()
