"""One sub-package per puzzle, each exposing a `protocol.Puzzle`; `REGISTRY` names them.

Adding a puzzle is one folder under puzzles/ and one line here.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ilp_pyramid.protocol import Puzzle

# name (the CLI group, `ilp_pyramid.puzzle(name)`) -> "module:attribute" of its Puzzle.
REGISTRY = {
    "bel": "ilp_pyramid.puzzles.bel.puzzle:PUZZLE",
    "views": "ilp_pyramid.puzzles.views.puzzle:PUZZLE",
    "iq": "ilp_pyramid.puzzles.iq.puzzle:PUZZLE",
    "sudoku-cube": "ilp_pyramid.puzzles.sudoku_cube.puzzle:PUZZLE",
    "insanity": "ilp_pyramid.puzzles.insanity.puzzle:PUZZLE",
}


def names() -> list[str]:
    """The registered puzzles, in help order."""
    return list(REGISTRY)


def get(name: str) -> Puzzle:
    """The puzzle called `name`; InputError naming the choices for an unknown one."""
    from ilp_pyramid.errors import InputError

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
