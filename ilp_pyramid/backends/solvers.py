"""The one solver table: every solver the package runs, one line each.

A solver is an object resolved once from its name (`solver("highs")`) and passed on; nothing
downstream asks again which family a name belongs to. Each line says the solver's name, its
family, the forms it takes natively, the library it needs and the extra that installs it,
and the backend module that solves its native forms:

| family | native forms  | backend module            |
|--------|---------------|---------------------------|
| mip    | mip           | mip.py (PuLP, `plugin` makes PuLP's solver object) |
| sat    | cnf, wcnf     | sat.py (python-sat, `plugin` is python-sat's name; a wcnf by  |
|        |               | linear search for its optimum, linear.py)                     |
| cp     | bool, cnf     | cpsat.py (OR-Tools CP-SAT, its own interpreter)     |
| dlx    | exact_cover   | lowering.py (the package's Dancing Links)           |
| maxsat | wcnf          | maxsat.py (python-sat's RC2; `plugin` its SAT oracle) |

Every solver also takes the exact-cover form, lowered to its native form (lowering.py, or
the family's own module where it names exact_cover among its native forms, as maxsat.py
does). A backend module has `run(form, what, solver, options) -> Result` for the forms of its
line.

Adding a solver of a known family is one line here (and, for a MIP solver, its PuLP module
like highs.py); adding a family is one backend module and its lines here.

    >>> from ilp_pyramid.backends.solvers import solver
    >>> highs = solver("highs")
    >>> highs.family, highs.forms
    ('mip', ('mip', 'exact_cover'))
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ilp_pyramid import extras
from ilp_pyramid.errors import InputError

if TYPE_CHECKING:
    from ilp_pyramid.backends.base import Result, SolveOptions

# The order of the families in listings and help texts.
FAMILIES = ("mip", "sat", "cp", "dlx", "maxsat")
EXACT_COVER = "exact_cover"  # every solver takes it, natively (dlx) or lowered


@dataclass(frozen=True)
class Solver:
    """One solver: what it is, what it takes, whether it is here, and how it solves."""

    name: str
    family: str  # one of FAMILIES
    native: tuple[str, ...]  # the forms its backend module takes as they are, best first
    backend: str  # the module whose run(form, what, solver, options) solves its forms
    library: str | None = None  # the module it needs that a base install may lack
    plugin: str = ""  # MIP: PuLP's solver module; SAT: python-sat's own name
    note: str = ""  # one line for listings
    aliases: tuple[str, ...] = field(default=(), compare=False)

    @property
    def forms(self) -> tuple[str, ...]:
        """The model forms it takes, best first: its native ones, then the exact cover."""
        return self.native + tuple(f for f in (EXACT_COVER,) if f not in self.native)

    @property
    def extra(self) -> str | None:
        """The pip extra that installs its library (None: in the base install)."""
        return extras.EXTRAS[self.library][0] if self.library in extras.EXTRAS else None

    @property
    def installed(self) -> bool:
        """Whether it can run here: its library imports (and python-sat has it built)."""
        if self.library is not None and not extras.available(self.library):
            return False
        if self.family == "sat":
            return _pysat_has(self.plugin)
        return True

    def require(self) -> Solver:
        """Itself; InputError (one line naming the extra to install) if it is not here."""
        if self.library is not None and self.library in extras.EXTRAS:
            extras.need(self.library)
        elif not self.installed:
            raise InputError(f"solver {self.name!r} is not available in this python-sat")
        return self

    def takes(self, form: str) -> bool:
        """Whether the solver takes a form of this kind, natively or lowered."""
        return form in self.forms

    def solve(self, form: object, what: str, options: SolveOptions) -> Result:
        """Solve a form of kind `what` (one of `forms`): natively, or lowered."""
        if what not in self.native:
            module = importlib.import_module("ilp_pyramid.backends.lowering")
        else:
            module = importlib.import_module(self.backend)
        return module.run(form, what, self, options)

    def __str__(self) -> str:
        return self.name


def _mip(name: str, library: str | None = None, note: str = "") -> Solver:
    return Solver(name, "mip", ("mip",), "ilp_pyramid.backends.mip", library,
                  plugin=f"ilp_pyramid.backends.{name}", note=note)


def _sat(name: str, aliases: tuple[str, ...] = ()) -> Solver:
    return Solver(name, "sat", ("cnf", "wcnf"), "ilp_pyramid.backends.sat", plugin=name,
                  aliases=aliases, note="python-sat")


# python-sat's solvers, roughly fastest first on Bel N=4 (measured: docs/sat.md).
_SAT_NAMES = ("kissat404", "cadical300", "cadical195", "cadical153", "cadical103", "glucose4",
              "glucose42", "glucose3", "maplechrono", "maplecm", "maplesat", "mergesat3",
              "lingeling", "minisat22", "minisatep", "gluecard4", "minicard")
# Short names for the newest of each, accepted wherever a solver is named.
ALIASES = {"kissat": "kissat404", "cadical": "cadical300"}

SOLVERS: tuple[Solver, ...] = (
    _mip("highs", note="HiGHS through highspy, in this process"),
    _mip("cbc", note="PuLP's CBC binary, in its own process group"),
    _mip("scip", "pyscipopt", note="SCIP through PySCIPOpt, in this process"),
    _mip("gurobi", "gurobipy", note="Gurobi through gurobipy (size-limited without licence)"),
    *(_sat(name, tuple(a for a, real in ALIASES.items() if real == name))
      for name in _SAT_NAMES),
    Solver("cpsat", "cp", ("bool", "cnf"), "ilp_pyramid.backends.cpsat", "ortools",
           note="OR-Tools CP-SAT, in its own interpreter"),
    Solver("dlx", "dlx", (EXACT_COVER,), "ilp_pyramid.backends.lowering",
           note="the package's Dancing Links (exact cover only)"),
    Solver("rc2", "maxsat", ("wcnf", EXACT_COVER), "ilp_pyramid.backends.maxsat", plugin="g3",
           note="python-sat's RC2 MaxSAT (Glucose 3 oracle), in a child process"),
)
# An alias resolves to its line under its own name, so results say the name a user gave.
_BY_NAME = {s.name: s for s in SOLVERS} | {
    a: replace(s, name=a, aliases=()) for s in SOLVERS for a in s.aliases}
_BUILTIN = frozenset(_BY_NAME)


def register(entry: Solver) -> Solver:
    """Add a line made at run time (an outside program: external.py) to the table; a line
    of the same name added before is replaced. InputError for a name of the package's own."""
    global SOLVERS
    if entry.name in _BUILTIN:
        raise InputError(f"{entry.name!r} is one of the package's own solvers")
    SOLVERS = (*(s for s in SOLVERS if s.name != entry.name), entry)
    _BY_NAME[entry.name] = entry
    return entry


def builtin_names() -> frozenset[str]:
    """The names (aliases too) of the package's own solvers, which no added line takes."""
    return _BUILTIN


def solver(name: str | Solver) -> Solver:
    """The table's solver called `name` (aliases too); InputError naming the choices."""
    if isinstance(name, Solver):
        return name
    if not isinstance(name, str):
        raise InputError(f"a solver is named by a string (got {type(name).__name__})")
    found = _BY_NAME.get(name.strip().lower())
    if found is None:
        raise InputError(f"unknown solver {name!r} (choose from {', '.join(names())})")
    return found


def names(*families: str, installed: bool = False, aliases: bool = True) -> list[str]:
    """Solver names in table order, of `families` (default all), the short aliases first;
    with `installed`, only those that can run here."""
    chosen = [entry for entry in SOLVERS if (not families or entry.family in families)
              and (not installed or entry.installed)]
    short = [alias for entry in chosen for alias in entry.aliases] if aliases else []
    return short + [entry.name for entry in chosen]


def taking(forms: tuple[str, ...] | list[str], installed: bool = False) -> list[str]:
    """The names (no aliases) of the solvers that take one of `forms` (a puzzle's), in table
    order; with `installed`, only those that can run here."""
    return [entry.name for entry in SOLVERS if any(entry.takes(form) for form in forms)
            and (not installed or entry.installed)]


def listing(*families: str) -> str:
    """'highs | cbc | ...' for help texts, from the table (no library is imported)."""
    return " | ".join(names(*families))


def forms_for(name: str | Solver) -> tuple[str, ...]:
    """The forms `name` takes, best first; InputError for an unknown solver."""
    return solver(name).forms


def _pysat_has(name: str) -> bool:
    if importlib.util.find_spec("pysat") is None:
        return False
    from pysat.solvers import SolverNames  # python-sat: part of the base install

    return hasattr(SolverNames, name)
