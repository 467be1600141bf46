"""The one solver table: every solver the package runs, one line each.

A solver is an object resolved once from its name (`solver("highs")`) and passed on; nothing
downstream asks again which family a name belongs to, and no module outside this table tests
a solver's name or family: what a solver can do is a field of its line (its capabilities,
below). Each line says the solver's name, its family (for listings and the bench's groups),
the forms it reads natively, the library it needs and the extra that installs it, and the
backend module that solves its native forms:

| family | native forms  | backend module            |
|--------|---------------|---------------------------|
| mip    | mip           | mip.py (PuLP, `plugin` makes PuLP's solver object) |
| sat    | cnf, wcnf     | sat.py (python-sat, `plugin` is python-sat's name; a wcnf by  |
|        |               | linear search for its optimum, linear.py)                     |
| cp     | bool, cnf     | cpsat.py (OR-Tools CP-SAT, its own interpreter)     |
| dlx    | exact_cover   | exact_cover.py (the package's Dancing Links)        |
| maxsat | wcnf          | maxsat.py (python-sat's RC2; `plugin` its SAT oracle) |

Every solver also takes the exact-cover form, lowered to its first native form that
`lowering.py` makes (mip, cnf or bool) and the answer mapped back to rows. A backend module
has `run(form, what, solver, options) -> Result` for the forms of its line; it is handed the
`Solver`, never a name (`backends.solve` resolves the name, once).

Adding a solver of a known family is one line here (and, for a MIP solver, its PuLP module
like highs.py); adding a family is one backend module and its lines here. A line may also be
added at run time (`register`), as a solver outside the package is.

    >>> from ilp_pyramid.backends.solvers import solver
    >>> highs = solver("highs")
    >>> highs.family, highs.forms, highs.threads
    ('mip', ('mip', 'exact_cover'), True)
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field, fields, replace

from ilp_pyramid import extras
from ilp_pyramid.errors import InputError

# The order of the families in listings and help texts.
FAMILIES = ("mip", "sat", "cp", "dlx", "maxsat")
EXACT_COVER = "exact_cover"  # every solver takes it, natively (dlx) or lowered


@dataclass(frozen=True)
class Solver:
    """One solver: what it is, what it reads, what it can do, whether it is here, and which
    backend module solves it. The capability fields (`CAPABILITIES`) are what callers ask
    instead of testing a name or a family."""

    name: str
    family: str  # one of FAMILIES: listings and the bench's groups, never to decide
    native: tuple[str, ...]  # the forms its backend module reads as they are, best first
    backend: str  # the module whose run(form, what, solver, options) solves its forms
    library: str | None = None  # the module it needs that a base install may lack
    plugin: str = ""  # MIP: PuLP's solver module; SAT: python-sat's own name; RC2: oracle
    note: str = ""  # one line for listings
    aliases: tuple[str, ...] = field(default=(), compare=False)
    # Capabilities (see CAPABILITIES):
    threads: bool = False
    seeds: bool = False
    parameters: bool = False
    budget: bool = False
    sessions: bool = False
    assumptions: bool = False
    phases: bool = False
    reuse: bool = False
    orbitopes: bool = False
    presolve_retry: bool = False

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
        if self.library == PYSAT:
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

    def reads(self, form: str) -> bool:
        """Whether its backend module reads a form of this kind as it is (no lowering)."""
        return form in self.native

    def __str__(self) -> str:
        return self.name


# What a solver can do, one field of its line each (all False unless the line says so).
CAPABILITIES = {
    "threads": "takes SolveOptions.threads (more than one thread)",
    "seeds": "takes SolveOptions.seed as its own random seed (python-sat's solvers have "
             "none: the SAT backend shuffles their clauses by the seed instead)",
    "parameters": "takes its own parameters by name (SolveOptions.extra, --solver-option)",
    "budget": "takes a conflict budget on a single solve, so a small formula is solved in "
              "this process in slices between which the time limit and signals hold",
    "sessions": "keeps a conflict budget across incremental solves under assumptions "
                "(sat.SatSession)",
    "assumptions": "solves under assumptions (without: as unit clauses, on a fresh solver)",
    "phases": "takes initial phases (python-sat's set_phases)",
    "reuse": "answers more than one solve on one solver object (Kissat aborts the process)",
    "orbitopes": "takes the orbitopes a MIP model declares (mip_model.orbitopes)",
    "presolve_retry": "a solve error on a lowered exact cover is asked again without presolve "
                      "(HiGHS' presolve can fail on an infeasible cover)",
}
assert set(CAPABILITIES) <= {f.name for f in fields(Solver)}

PYSAT = "pysat"  # the library of the SAT lines: python-sat builds some solvers only


def _mip(name: str, library: str | None = None, note: str = "", **can: bool) -> Solver:
    return Solver(name, "mip", ("mip",), "ilp_pyramid.backends.mip", library,
                  plugin=f"ilp_pyramid.backends.{name}", note=note, seeds=True,
                  parameters=True, **can)


# python-sat's solvers without a conflict budget (one solve, no slices), and those that
# answer one solve per object (a second solve aborts Kissat's process).
_NO_BUDGET = ("kissat404", "cadical153", "cadical103", "lingeling")
_ONE_SOLVE = ("kissat404", "lingeling")


def _sat(name: str, aliases: tuple[str, ...] = ()) -> Solver:
    budget = name not in _NO_BUDGET
    kissat = name == "kissat404"  # no assumptions and no phases in its interface
    return Solver(name, "sat", ("cnf", "wcnf"), "ilp_pyramid.backends.sat", PYSAT,
                  plugin=name, aliases=aliases, note="python-sat", budget=budget,
                  # CaDiCaL 3's conflict budget holds on a single solve only
                  sessions=budget and name != "cadical300", assumptions=not kissat,
                  phases=not kissat, reuse=name not in _ONE_SOLVE)


# python-sat's solvers, roughly fastest first on Bel N=4 (measured: docs/sat.md).
_SAT_NAMES = ("kissat404", "cadical300", "cadical195", "cadical153", "cadical103", "glucose4",
              "glucose42", "glucose3", "maplechrono", "maplecm", "maplesat", "mergesat3",
              "lingeling", "minisat22", "minisatep", "gluecard4", "minicard")
# Short names for the newest of each, accepted wherever a solver is named.
ALIASES = {"kissat": "kissat404", "cadical": "cadical300"}

# The table, in listing order; `register` adds to it at run time.
SOLVERS: list[Solver] = [
    _mip("highs", note="HiGHS through highspy, in this process", threads=True,
         presolve_retry=True),
    _mip("cbc", note="PuLP's CBC binary, in its own process group", threads=True),
    _mip("scip", "pyscipopt", note="SCIP through PySCIPOpt, in this process", orbitopes=True),
    _mip("gurobi", "gurobipy", note="Gurobi through gurobipy (size-limited without licence)",
         threads=True),
    *(_sat(name, tuple(a for a, real in ALIASES.items() if real == name))
      for name in _SAT_NAMES),
    Solver("cpsat", "cp", ("bool", "cnf"), "ilp_pyramid.backends.cpsat", "ortools",
           note="OR-Tools CP-SAT, in its own interpreter", threads=True, seeds=True),
    Solver("dlx", "dlx", (EXACT_COVER,), "ilp_pyramid.backends.exact_cover",
           note="the package's Dancing Links (exact cover only)"),
    Solver("rc2", "maxsat", ("wcnf",), "ilp_pyramid.backends.maxsat",
           plugin="g3", note="python-sat's RC2 MaxSAT (Glucose 3 oracle), in a child process"),
]
_BY_NAME: dict[str, Solver] = {}


def _index(entry: Solver) -> None:
    # An alias resolves to its line under its own name, so results say the name a user gave.
    _BY_NAME[entry.name] = entry
    for alias in entry.aliases:
        _BY_NAME[alias] = replace(entry, name=alias, aliases=())


for _entry in SOLVERS:
    _index(_entry)


def register(entry: Solver) -> Solver:
    """Add a line to the table at run time (a solver outside the package); InputError if
    its name or an alias is taken, or its family is unknown."""
    if entry.family not in FAMILIES:
        raise InputError(f"solver {entry.name!r}: unknown family {entry.family!r} "
                         f"(one of {', '.join(FAMILIES)})")
    taken = [name for name in (entry.name, *entry.aliases) if name.strip().lower() in _BY_NAME]
    if taken:
        raise InputError(f"solver name {taken[0]!r} is taken (see ilp-pyramid solvers)")
    SOLVERS.append(entry)
    _index(entry)
    return entry


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


def names(*families: str, installed: bool = False, aliases: bool = True,
          can: str | None = None) -> list[str]:
    """Solver names in table order, of `families` (default all), the short aliases first;
    with `installed`, only those that can run here; with `can` (a capability field), only
    those that have it."""
    if can is not None and can not in CAPABILITIES:
        raise ValueError(f"no capability {can!r} (one of {', '.join(CAPABILITIES)})")
    chosen = [entry for entry in SOLVERS if (not families or entry.family in families)
              and (not installed or entry.installed)
              and (can is None or getattr(entry, can))]
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
