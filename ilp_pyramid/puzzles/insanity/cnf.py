"""The CNF: variable v + 1 is choice v (a cube in one orientation); exactly one per cube and
exactly one per (long side, colour), through the package's cardinality encoders."""

from __future__ import annotations

from ilp_pyramid.puzzles.insanity import geometry
from ilp_pyramid.puzzles.insanity.choices import Choice, choices, tower_of
from ilp_pyramid.puzzles.insanity.instance import Instance, Tower


def build_cnf(instance: Instance, break_symmetry: bool = True
              ) -> tuple[list[list[int]], int, list[Choice]]:
    """(clauses, number of variables, choices): choices are variables 1..len(choices), the
    sequential counters' auxiliary variables come after them."""
    from ilp_pyramid.cardinality import CardEnc, EncType

    table = choices(instance, break_symmetry)
    groups: list[list[int]] = [[] for _ in range(instance.n)]
    for v, c in enumerate(table, 1):
        groups[c.cube].append(v)
    for s in range(len(geometry.SIDES)):
        for colour in instance.colours:
            groups.append([v for v, c in enumerate(table, 1) if c.shows[s] == colour])
    clauses: list[list[int]] = []
    top = len(table)
    for lits in groups:
        if not lits:  # a colour no cube can show on this side: no tower at all
            return [[1], [-1]], max(top, 1), table
        encoded = CardEnc.equals(lits=lits, bound=1, top_id=top, encoding=EncType.seqcounter)
        clauses.extend(encoded.clauses)
        top = max(top, encoded.nv)
    return clauses, top, table


def decode_literals(instance: Instance, table: list[Choice], literals: list[int]) -> Tower:
    return tower_of(instance, [table[lit - 1] for lit in literals if 0 < lit <= len(table)])
