"""n cubes in n colours, seeded and reproducible: random ones (most have no solution) and
planted ones (a solved tower, scrambled), so both kinds exist at every n.

Random: the 6n faces carry each colour six times, shuffled; equal counts rule out the
instances a colour count alone refutes (a colour on fewer than four faces), so a "no" has to
be proved by search. Planted: each long side of the tower gets a random permutation of the
colours, top and bottom random colours; then every cube turns to a random one of its 24
orientations and the cubes are shuffled. The same (n, seed, planted) gives the same instance
on every machine (Python's `random.Random` with an integer seed).
"""

from __future__ import annotations

import random

from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles.insanity import geometry
from ilp_pyramid.puzzles.insanity.instance import MAX_CUBES, Instance, make

MIN_CUBES = 1


def colour_names(n: int) -> list[str]:
    """A..Z up to 26 colours (one letter each, so the text format writes `ABCDEF`), else
    1..n."""
    if n <= 26:
        return [chr(ord("A") + k) for k in range(n)]
    return [str(k + 1) for k in range(n)]


def check_size(n: int) -> None:
    if not MIN_CUBES <= n <= MAX_CUBES:
        raise InputError(f"--generate {n}: the number of cubes must be between {MIN_CUBES} "
                         f"and {MAX_CUBES}")


def generate(n: int, seed: int = 0, planted: bool = False) -> Instance:
    """An instance of n cubes and n colours; `planted`: one that has a solution."""
    check_size(n)
    rng = random.Random(f"insanity {n} {seed} {planted}")
    colours = colour_names(n)
    if not planted:
        faces = colours * 6
        rng.shuffle(faces)
        return make([faces[6 * k:6 * k + 6] for k in range(n)])
    columns = {side: rng.sample(colours, n) for side in geometry.SIDES}
    rotations = geometry.orientations()
    cubes = []
    for k in range(n):
        at_position = [""] * 6
        for side in geometry.SIDES:
            at_position[side] = columns[side][k]
        at_position[geometry.TOP] = rng.choice(colours)
        at_position[geometry.BOTTOM] = rng.choice(colours)
        # The cube, read in its own frame after a random turn: position -> face is a
        # bijection, so the face `o[position]` carries the colour seen at `position`.
        o = rotations[rng.randrange(len(rotations))]
        own = [""] * 6
        for position in range(6):
            own[o[position]] = at_position[position]
        cubes.append(own)
    rng.shuffle(cubes)
    return make(cubes)
