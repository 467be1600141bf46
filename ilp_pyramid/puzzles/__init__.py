"""One sub-package per puzzle, each exposing a `protocol.Puzzle`; `REGISTRY` names them.

Adding a puzzle is one folder under puzzles/ and one line in each table here.
"""

from __future__ import annotations

import importlib
from typing import Any

from ilp_pyramid.errors import InputError

# name (the CLI group, `ilp_pyramid.puzzle(name)`) -> "module:attribute" of its Puzzle.
REGISTRY = {
    "bel": "ilp_pyramid.puzzles.bel.puzzle:PUZZLE",
    "views": "ilp_pyramid.puzzles.views.puzzle:PUZZLE",
    "iq": "ilp_pyramid.puzzles.iq.puzzle:PUZZLE",
    "sudoku-cube": "ilp_pyramid.puzzles.sudoku_cube.puzzle:PUZZLE",
    "insanity": "ilp_pyramid.puzzles.insanity.puzzle:PUZZLE",
}

# name -> the Puzzle's `title`, so that `ilp-pyramid --help` lists the groups without loading
# a puzzle (tests/test_startup.py checks that each title is its Puzzle's own).
TITLES = {
    "bel": "Bel's Pyramid: label the lines of an N-level pyramid so every cube shows once",
    "views": "Top-front-side views: the fewest cubes in an n x n x n grid that show three views",
    "iq": "IQ Pyramid / Kanoodle: fill 2-D boards and ball pyramids with the 12 pieces",
    "sudoku-cube": "Sudoku Cube: a Rubik's Cube with digits, every face to show 1-9 upright",
    "insanity": "Instant Insanity: stack n cubes so each long side of the tower shows all n "
                "colours once.",
}


def names() -> list[str]:
    """The registered puzzles, in help order."""
    return list(REGISTRY)


def get(name: str) -> Any:
    """The puzzle called `name` (a `protocol.Puzzle`); InputError naming the choices for an
    unknown one. Typed Any: `protocol` looks puzzles up by name here, so importing its
    `Puzzle` back, even for type checking only, would make an import circle."""

    if not isinstance(name, str):
        raise InputError(f"a puzzle is named by a string (got {type(name).__name__}): "
                         f"{', '.join(REGISTRY)}")
    try:
        target = REGISTRY[name]
    except KeyError:
        raise InputError(f"unknown puzzle {name!r} (choose from: {', '.join(REGISTRY)})") \
            from None
    module, attribute = target.split(":")
    return getattr(importlib.import_module(module), attribute)
