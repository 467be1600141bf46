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
needs when a model is built.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ilp_pyramid.errors import InputError
from ilp_pyramid.protocol import BenchCase, Model
from ilp_pyramid.puzzles.insanity import instance as inst
from ilp_pyramid.puzzles.insanity import verify as checker
from ilp_pyramid.puzzles.insanity.instance import Instance, Tower

# n = 4 (the commercial size) to 12: the random instances go from instant to seconds for
# both families of solvers, without a jump.
BENCH_SIZES = tuple(range(4, 13))


class Insanity:
    name = "insanity"
    title = ("Instant Insanity: stack n cubes so each long side of the tower shows all n "
             "colours once.")
    forms = ("mip", "cnf", "exact_cover")

    def parse(self, text: str) -> Instance:
        return inst.parse(text)

    def default(self) -> Instance:
        return inst.classic()

    def generate(self, size: int, seed: int = 0, planted: bool = False) -> Instance:
        from ilp_pyramid.puzzles.insanity.generate import generate

        return generate(size, seed, planted)

    def model(self, instance: Instance, form: str) -> Model:
        if form == "mip":
            from ilp_pyramid.puzzles.insanity.model import build_problem, decode_values

            problem, table = build_problem(instance)
            return Model("mip", problem,
                         lambda answer: decode_values(instance, table, answer.values))
        if form == "cnf":
            from ilp_pyramid.puzzles.insanity.cnf import build_cnf, decode_literals

            clauses, _count, table = build_cnf(instance)
            return Model("cnf", clauses,
                         lambda answer: decode_literals(instance, table, answer.model))
        if form == "exact_cover":
            from ilp_pyramid.backends import ExactCoverForm
            from ilp_pyramid.puzzles.insanity.choices import tower_of
            from ilp_pyramid.puzzles.insanity.cover import cover_rows

            rows, items, table = cover_rows(instance)
            return Model("exact_cover", ExactCoverForm(rows, items),
                         lambda answer: tower_of(instance, [table[r] for r in answer.rows]))
        raise InputError(f"insanity builds no {form!r} model (it builds "
                         f"{', '.join(self.forms)})")

    def verify(self, instance: Instance, solution: Tower) -> list[str]:
        return checker.problems([list(c) for c in instance.cubes],
                                [list(p) for p in solution.placements])

    def render(self, instance: Instance, solution: Tower | None, fmt: str = "text"
               ) -> str | bytes:
        from ilp_pyramid.puzzles.insanity.render import render

        return render(instance, solution, fmt)

    def to_json(self, instance: Instance, solution: Tower | None) -> dict:
        return inst.tower_to_json(instance, solution)

    def from_json(self, data: dict) -> tuple[Instance, Any]:
        instance, tower = inst.tower_from_json(data)
        if tower is None:
            raise InputError("no \"placements\": the file holds cubes but no tower")
        return instance, tower

    def bench_cases(self, sizes: Sequence[int] | None = None) -> list[BenchCase]:
        """Planted and random instances for each n; the bench's --seed picks the instance
        (repeat r: seed r-1), the same on every machine."""
        cases = []
        for n in sizes or BENCH_SIZES:
            for kind in ("planted", "random"):
                extra = ("--planted",) if kind == "planted" else ()
                cases.append(BenchCase(args=("insanity", "solve", "--generate", str(n), *extra),
                                       params={"n": n, "instance": kind}))
        return cases


PUZZLE = Insanity()
