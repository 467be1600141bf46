"""The exact cover: items are the cubes and the (long side, colour) pairs; the row of a
cube in an orientation covers its cube and the four pairs it shows."""

from __future__ import annotations

from ilp_pyramid.puzzles.insanity import geometry
from ilp_pyramid.puzzles.insanity.choices import Choice, choices
from ilp_pyramid.puzzles.insanity.instance import Instance


def cover_rows(instance: Instance, break_symmetry: bool = True
               ) -> tuple[list[list[int]], int, list[Choice]]:
    """(rows, number of items, choices): row r is choice r; all items are primary."""
    table = choices(instance, break_symmetry)
    colour_index = {colour: j for j, colour in enumerate(instance.colours)}
    m = len(colour_index)
    rows = [[c.cube] + [instance.n + s * m + colour_index[c.shows[s]]
                        for s in range(len(geometry.SIDES))] for c in table]
    return rows, instance.n + len(geometry.SIDES) * m, table
