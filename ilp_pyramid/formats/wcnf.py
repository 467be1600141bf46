"""Weighted CNF text for MaxSAT solvers, in the MaxSAT Evaluation's format (since 2022).

No `p` line: comment lines (`c ...`), then one clause per line ended by `0`, a hard clause
led by `h`, a soft clause by its weight (a whole number >= 1). Generic over formulas, as
dimacs.py is: the caller hands its clauses and its own comment lines.

    >>> print(wcnf_text([[1, 2]], [[-1], [-2]], [1, 3], ["c example"]), end="")
    c example
    h 1 2 0
    1 -1 0
    3 -2 0
"""

from __future__ import annotations

from collections.abc import Sequence

from ilp_pyramid.errors import InputError
from ilp_pyramid.formats.dimacs import clause_lines


def wcnf_text(hard: Sequence[Sequence[int]], soft: Sequence[Sequence[int]],
              weights: Sequence[int], comments: Sequence[str] = ()) -> str:
    """The whole WCNF text: comment lines (given with their `c `), hard, then soft clauses."""
    if len(weights) != len(soft):
        raise InputError(f"{len(soft)} soft clauses but {len(weights)} weights")
    bad = next((w for w in weights if type(w) is not int or w < 1), None)
    if bad is not None:
        raise InputError(f"a soft clause's weight must be a whole number >= 1 (got {bad!r})")
    parts = list(comments)
    parts += ["h " + line for line in clause_lines(hard)]
    parts += [f"{weight} {line}" for weight, line in zip(weights, clause_lines(soft),
                                                          strict=True)]
    return "\n".join(parts) + "\n"
