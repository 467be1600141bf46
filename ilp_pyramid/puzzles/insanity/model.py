"""The MIP: one binary per (cube, orientation), exactly one per cube, and for each long side
and each colour exactly one chosen orientation showing that colour there. No objective."""

from __future__ import annotations

from ilp_pyramid.puzzles.insanity import geometry
from ilp_pyramid.puzzles.insanity.choices import Choice, choices, tower_of
from ilp_pyramid.puzzles.insanity.instance import Instance, Tower


def var_name(choice: Choice) -> str:
    return f"x_c{choice.cube}_o{choice.orientation}"


def build_problem(instance: Instance, break_symmetry: bool = True):
    """(the PuLP problem, its choices) for `instance`."""
    import pulp

    table = choices(instance, break_symmetry)
    problem = pulp.LpProblem(f"insanity_n{instance.n}", pulp.LpMinimize)
    x = [problem.add_variable(var_name(c), cat=pulp.LpBinary) for c in table]
    problem += pulp.lpSum([])  # a feasibility problem
    by_cube: list[list] = [[] for _ in range(instance.n)]
    by_side = [{colour: [] for colour in instance.colours} for _ in geometry.SIDES]
    for v, c in zip(x, table, strict=True):
        by_cube[c.cube].append(v)
        for s, colour in enumerate(c.shows):
            by_side[s][colour].append(v)
    for k, chosen in enumerate(by_cube):
        problem += (pulp.lpSum(chosen) == 1, f"cube_{k}")
    for s, name in enumerate(geometry.SIDE_NAMES):
        for j, colour in enumerate(instance.colours):
            problem += (pulp.lpSum(by_side[s][colour]) == 1, f"{name}_{j}")
    return problem, table


def decode_values(instance: Instance, table: list[Choice], values: dict[str, float]) -> Tower:
    """The tower from a MIP solver's values (variables above 1/2 are chosen)."""
    return tower_of(instance, [c for c in table if values.get(var_name(c), 0.0) > 0.5])
