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
`lowering.py` makes (mip, cnf, wcnf or bool) and the answer mapped back to rows. A backend module
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

from dataclasses import replace

from ilp_pyramid.backends.base import CAPABILITIES, EXACT_COVER, PYSAT, Solver
from ilp_pyramid.errors import InputError

__all__ = ["ALIASES", "CAPABILITIES", "EXACT_COVER", "FAMILIES", "SOLVERS", "Solver",
           "forms_for", "listing", "names", "register", "solver", "taking"]

# The order of the families in listings and help texts.
FAMILIES = ("mip", "sat", "cp", "dlx", "maxsat")


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
                  phases=not kissat, reuse=name not in _ONE_SOLVE,
                  # blocking clauses are added to the solver between its solves
                  counts=name not in _ONE_SOLVE,
                  # CaDiCaL's own random seed (its `seed` option); python-sat gives the
                  # others none, and their seed only shuffles the clauses
                  seeds=name.startswith("cadical"))


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
           note="OR-Tools CP-SAT, in its own interpreter", threads=True, seeds=True,
           counts=True),
    Solver("dlx", "dlx", (EXACT_COVER,), "ilp_pyramid.backends.exact_cover",
           note="the package's Dancing Links (exact cover only)", counts=True),
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
_BUILTIN = frozenset(_BY_NAME)


def register(entry: Solver) -> Solver:
    """Add a line to the table at run time (an outside program: outside.py); a line of the
    same name added at run time before is replaced. InputError for a name or alias of the
    package's own solvers, or an unknown family."""
    if entry.family not in FAMILIES:
        raise InputError(f"solver {entry.name!r}: unknown family {entry.family!r} "
                         f"(one of {', '.join(FAMILIES)})")
    taken = [name for name in (entry.name, *entry.aliases) if name.strip().lower() in _BUILTIN]
    if taken:
        raise InputError(f"{taken[0]!r} is one of the package's own solvers")
    SOLVERS[:] = [line for line in SOLVERS if line.name != entry.name]
    SOLVERS.append(entry)
    _index(entry)
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
