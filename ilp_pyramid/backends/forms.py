"""The model forms a backend takes, apart from the solvers that take them.

| kind          | form                                                           |
|---------------|----------------------------------------------------------------|
| `mip`         | a `pulp.LpProblem` (PuLP loaded by `load_pulp`)                |
| `cnf`         | CNF: a list of clauses, or anything with `.clauses` (pysat CNF)  |
| `wcnf`        | a `pysat.formula.WCNF`: hard and weighted soft clauses           |
| `exact_cover` | `ExactCoverForm`: rows of items, every solver takes it           |
| `bool`        | `BoolModel`: Boolean variables, clauses, exactly-one groups and  |
|               | linear constraints over literals (CP-SAT's native form)         |

`form_kind` names a form's kind; the solver table (`solvers.py`) says which kinds a solver
reads, and `lowering.py` turns an exact cover into the others. This module imports no backend
and no solver library.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ilp_pyramid.errors import InputError


@dataclass(frozen=True)
class ExactCoverForm:
    """Choose rows so that every primary item is in exactly one chosen row and every
    secondary item (numbered after the primary ones) in at most one.

    Every solver takes it; the answer is `Result.rows`, the chosen rows. The names are
    optional and only for people reading a lowered model (an exported LP keeps them as
    variable and constraint names): `row_names[r]`, `item_names[i]`, the model's `name`.

        >>> from ilp_pyramid import backends
        >>> form = backends.ExactCoverForm([[0, 1], [1, 2], [2]], num_primary=3)
        >>> sorted(backends.solve(form, "highs").rows), sorted(backends.solve(form, "dlx").rows)
        ([0, 2], [0, 2])
    """

    rows: Sequence[Sequence[int]]
    num_primary: int
    num_secondary: int = 0
    row_names: Sequence[str] | None = None
    item_names: Sequence[str] | None = None
    name: str = "exact_cover"

    @property
    def num_items(self) -> int:
        return self.num_primary + self.num_secondary

    def uncovered(self) -> list[int]:
        """The primary items no row holds: when there are any, no cover exists."""
        held = {item for row in self.rows for item in row}
        return [item for item in range(self.num_primary) if item not in held]


RELATIONS = ("<=", ">=", "==")


@dataclass
class BoolModel:
    """Boolean variables 1..num_vars; a literal is +v (v true) or -v (v false)."""

    num_vars: int = 0
    clauses: list[list[int]] = field(default_factory=list)
    exactly_one: list[list[int]] = field(default_factory=list)
    # sum(coefficient * literal) <relation> bound, a true literal counting 1
    linear: list[tuple[list[int], list[int], str, int]] = field(default_factory=list)
    names: dict[int, str] = field(default_factory=dict)  # optional: values come back by name

    def new_var(self, name: str | None = None) -> int:
        self.num_vars += 1
        if name is not None:
            self.names[self.num_vars] = name
        return self.num_vars

    def add_linear(self, literals: Sequence[int], coefficients: Sequence[int], relation: str,
                   bound: int) -> None:
        if relation not in RELATIONS or len(literals) != len(coefficients):
            raise ValueError(f"bad linear constraint: relation {relation!r}, "
                             f"{len(literals)} literals, {len(coefficients)} coefficients")
        self.linear.append((list(literals), list(coefficients), relation, int(bound)))

    def to_json(self) -> dict:
        return {"num_vars": self.num_vars, "clauses": self.clauses,
                "exactly_one": self.exactly_one, "linear": self.linear}


def load_pulp():
    """PuLP, with highspy imported first: PuLP imports it under a bare `except:`, so a Ctrl-C
    during that import would be swallowed and HiGHS reported "Not Available" instead of the
    run stopping. Loaded on first use: the SAT and hybrid paths never pay for it."""
    import highspy  # noqa: F401
    import pulp

    return pulp


def form_kind(form: object) -> str:
    """'mip', 'cnf', 'wcnf', 'exact_cover' or 'bool' for a model form; InputError otherwise."""
    import sys

    pulp = sys.modules.get("pulp")  # no PuLP problem exists before PuLP is loaded
    if pulp is not None and isinstance(form, pulp.LpProblem):
        return "mip"
    if isinstance(form, ExactCoverForm):
        return "exact_cover"
    if isinstance(form, BoolModel):
        return "bool"
    if hasattr(form, "soft") and hasattr(form, "wght"):  # a WCNF: before any other clauses
        return "wcnf"
    if hasattr(form, "clauses") or isinstance(form, list | tuple):
        return "cnf"
    raise InputError(f"not a model form a backend takes: {type(form).__name__}")
