"""What every puzzle's PuLP model reports about itself, and the symmetry it may declare."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pulp


class ModelSize:
    """Mixin for model records that hold their PuLP problem as `self.problem`."""

    problem: pulp.LpProblem

    @property
    def num_variables(self) -> int:
        return self.problem.numVariables()

    @property
    def num_constraints(self) -> int:
        return self.problem.numConstraints()


ORBITOPE_KINDS = ("partitioning", "packing", "full")


@dataclass(frozen=True)
class Orbitope:
    """A symmetry of the problem declared rather than written as rows: every permutation of
    the columns of `rows` (a matrix of 0/1 variables) maps solutions to solutions. Declaring
    it asks for one solution per orbit: the one whose columns are lexicographically
    non-increasing (read top row first). `kind` says what each row sums to: exactly 1
    ("partitioning"), at most 1 ("packing") or anything ("full"). A backend that cannot
    declare it refuses the problem (backends/mip.py); none writes it as rows."""

    kind: str
    rows: tuple[tuple[pulp.LpVariable, ...], ...]
    name: str = "orbitope"

    def __post_init__(self) -> None:
        if self.kind not in ORBITOPE_KINDS:
            raise ValueError(f"orbitope kind {self.kind!r} (one of {ORBITOPE_KINDS})")
        if not self.rows or len({len(row) for row in self.rows}) != 1:
            raise ValueError("an orbitope is a non-empty matrix with rows of one length")

    def holds(self, values: Mapping[str, float]) -> bool:
        """Is the point `values` (by variable name) the representative the declaration
        keeps: columns lexicographically non-increasing?"""
        columns = [tuple(round(values[row[j].name]) for row in self.rows)
                   for j in range(len(self.rows[0]))]
        return all(left >= right for left, right in zip(columns, columns[1:], strict=False))


def declare_orbitope(problem: pulp.LpProblem, orbitope: Orbitope) -> None:
    """Attach `orbitope` to `problem` (PuLP keeps no such list: an attribute of ours, as PuLP
    has its own `sos1`)."""
    problem.__dict__.setdefault("orbitopes", []).append(orbitope)


def orbitopes(problem: pulp.LpProblem) -> list[Orbitope]:
    """The orbitopes declared on `problem` (none for a problem built elsewhere)."""
    return list(problem.__dict__.get("orbitopes", ()))
