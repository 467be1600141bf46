"""Instances: n cubes, six colours each; the text format, the classic set, solutions.

Text format: one line per cube, its six colours in the face order of `geometry.FACES`
(front, back, left, right, top, bottom: opposite faces adjacent). A colour is a word of
letters, digits or `_`; the six are separated by blanks, or written as six letters with no
blank (`BYRRRG`). `#` starts a comment; blank lines are skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles.insanity import geometry

# The MIP has 24 n binaries and 4 n^2 rows: far past what a solver finishes, and what a
# typo in a generated size would ask for, well before memory runs out.
MAX_CUBES = 200
_COLOUR = re.compile(r"[A-Za-z0-9_]{1,16}")


@dataclass(frozen=True)
class Instance:
    """The cubes, each as its six colours in face order (front, back, left, right, top,
    bottom). The tower keeps the cubes in this order, first cube on top."""

    cubes: tuple[tuple[str, ...], ...]

    @property
    def n(self) -> int:
        return len(self.cubes)

    @property
    def colours(self) -> tuple[str, ...]:
        """Every colour used, in order of first appearance."""
        return tuple(dict.fromkeys(c for cube in self.cubes for c in cube))

    def text(self) -> str:
        """The instance in its own text format (what `parse` reads back)."""
        short = all(len(c) == 1 for c in self.colours)
        sep = "" if short else " "
        return "".join(sep.join(cube) + "\n" for cube in self.cubes)


@dataclass(frozen=True)
class Tower:
    """A solution: for each cube, the orientation it takes (`geometry` numbering: the cube's
    own face at each tower position)."""

    placements: tuple[tuple[int, ...], ...]


def parse(text: str) -> Instance:
    """An instance from its text; InputError (one line) if malformed."""
    cubes = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        if len(words) == 1 and len(words[0]) == 6:
            words = list(words[0])
        if len(words) != 6:
            raise InputError(f"line {number}: a cube has 6 faces, this line gives "
                             f"{len(words)} colours")
        for word in words:
            if not _COLOUR.fullmatch(word):
                raise InputError(f"line {number}: {word[:20]!r} is not a colour (letters, "
                                 f"digits or _, at most 16)")
        cubes.append(tuple(words))
    return make(cubes)


def make(cubes) -> Instance:
    """An instance from a list of six-colour lists; InputError if the shape is wrong."""
    if not cubes:
        raise InputError("no cubes: give one line of six colours per cube")
    if len(cubes) > MAX_CUBES:
        raise InputError(f"{len(cubes)} cubes: at most {MAX_CUBES} are taken")
    checked = []
    for k, cube in enumerate(cubes, 1):
        if not isinstance(cube, list | tuple) or len(cube) != 6 \
                or not all(isinstance(c, str) and _COLOUR.fullmatch(c) for c in cube):
            raise InputError(f"cube {k}: six colours expected (words of letters, digits, _)")
        checked.append(tuple(cube))
    return Instance(tuple(checked))


# The commercial puzzle (Parker Brothers, 1967), after Jaap Scherphuis's nets at
# https://www.jaapsch.net/puzzles/insanity.htm (docs/insanity.md): R red, G green, B blue,
# Y yellow (white on some editions). Each net's row of four faces is a band round the cube
# (1st and 3rd opposite, 2nd and 4th opposite), its top and bottom faces the third pair.
CLASSIC_NETS = (
    # (top, band of four, bottom)
    ("B", "RRRG", "Y"),
    ("R", "GYGB", "B"),
    ("R", "BGRY", "Y"),
    ("G", "BRYG", "Y"),
)


def from_net(top: str, band: str, bottom: str) -> tuple[str, ...]:
    """A cube from its net, in face order: band = front, right, back, left."""
    front, right, back, left = band
    return (front, back, left, right, top, bottom)


def classic() -> Instance:
    return make([from_net(*net) for net in CLASSIC_NETS])


def tower_to_json(instance: Instance, tower: Tower | None) -> dict:
    data: dict = {"puzzle": "insanity", "faces": list(geometry.FACES),
                  "cubes": [list(cube) for cube in instance.cubes]}
    if tower is not None:
        data["placements"] = [list(p) for p in tower.placements]
        data["sides"] = {name: [instance.cubes[k][p[side]] for k, p in
                                enumerate(tower.placements)]
                         for name, side in zip(geometry.SIDE_NAMES, geometry.SIDES,
                                               strict=True)}
    return data


def tower_from_json(data: object) -> tuple[Instance, Tower | None]:
    """(instance, tower) from `tower_to_json`'s object (or a `solve --json` object holding
    it under "solution"); InputError if malformed."""
    if isinstance(data, dict) and isinstance(data.get("solution"), dict):
        data = data["solution"]
    if not isinstance(data, dict) or not isinstance(data.get("cubes"), list):
        raise InputError("not an Instant Insanity solution: no \"cubes\" list")
    instance = make(data["cubes"])
    placements = data.get("placements")
    if placements is None:
        return instance, None
    if not isinstance(placements, list) or len(placements) != instance.n or not all(
            isinstance(p, list) and len(p) == 6 and all(type(f) is int for f in p)
            for p in placements):
        raise InputError(f"\"placements\" must be {instance.n} lists of six face numbers")
    return instance, Tower(tuple(tuple(p) for p in placements))
