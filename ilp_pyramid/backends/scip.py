"""SCIP through PuLP (PySCIPOpt, SCIP bundled in its wheel), in this process, stoppable by
Ctrl-C and SIGTERM, silent on stdout.

PuLP's SCIP_PY calls `Model.optimize()` on the main thread, holding the GIL, with SCIP's own
SIGINT handler installed (`misc/catchctrlc`) and SIGTERM unseen. Here SCIP's handler is off
and `optimizeNogil()` runs through `inprocess.run`: a signal stops the wait, SCIP is asked to
stop (`interruptSolve`, honoured at its next check) and the interrupt propagates.

SCIP writes its log through C stdio to fd 1. Without --verbose the log is off
(`hideOutput`); with it, it goes to stderr (`process.native_output`). SCIP's tree search
runs on one thread here (`--threads` does not change it); progress reports elapsed time only
(SCIP's statistics are not safe to read from another thread while it solves).

SOS1 sets declared on the PuLP problem (`problem.sos1`) become SCIP SOS1 constraints, and
orbitopes declared on it (`mip_model.declare_orbitope`, partitioning or packing) SCIP
orbitope constraints. PySCIPOpt 6.3 has no call for the latter, so `declare_orbitope` calls
SCIP's `SCIPcreateConsBasicOrbitopePP` through ctypes, on the SCIP and variable pointers
PySCIPOpt hands out; the symbol is looked up through PySCIPOpt's own extension module, whose
dependency is the SCIP library it runs.

`SolveOptions.extra` holds SCIP parameters by name (`{"misc/usesymmetry": 0}`) plus one key
of ours, `emphasis` (a `SCIP_PARAMEMPHASIS` name: `feasibility`, `easycip`, ...).
"""

from __future__ import annotations

import ctypes

import pulp

from ilp_pyramid.backends import inprocess, process
from ilp_pyramid.backends.base import Progress, SolveOptions
from ilp_pyramid.errors import InputError
from ilp_pyramid.extras import need
from ilp_pyramid.mip_model import Orbitope, orbitopes

# backends/mip.py refuses a problem with declared orbitopes for a solver whose table line
# lacks `orbitopes` (scip has it: this module writes them).
# SCIP_ORBITOPETYPE (symmetry/type_symmetry.h); "full" has another constructor, not wired.
_ORBITOPE_TYPES = {"partitioning": 1, "packing": 2}
_SCIP_OKAY = 1

# Settings this backend applies unless `extra` overrides them (`emphasis=default` for
# SCIP's own). SCIP's CP emphasis (no LP, depth-first search, 1-UIP conflicts, restarts)
# solves N=3 several times faster than SCIP's defaults (docs/mip.md, "N=3, five seeds"): the
# LP relaxation of the Bel model decides nothing.
DEFAULTS: dict[str, object] = {"emphasis": "cpsolver"}


def require() -> None:
    """InputError (exit 2) naming the extra when PySCIPOpt is not installed."""
    need("pyscipopt")


class InterruptibleSCIP(pulp.SCIP_PY):
    """pulp.SCIP_PY whose solve can be interrupted, reports progress and never prints on
    stdout."""

    def __init__(self, progress: Progress | None = None, seed: int | None = None,
                 params: dict | None = None, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.progress = progress
        self.seed = seed
        self.params = dict(params or {})

    def buildSolverModel(self, lp: pulp.LpProblem) -> None:  # noqa: N802 - PuLP's name
        super().buildSolverModel(lp)
        model = lp.solverModel
        if not self.msg:
            model.hideOutput()
        params = dict(self.params)
        emphasis = params.pop("emphasis", None)
        if emphasis is not None:
            from pyscipopt import SCIP_PARAMEMPHASIS

            setting = getattr(SCIP_PARAMEMPHASIS, str(emphasis).upper(), None)
            if setting is None:
                raise InputError(f"unknown SCIP emphasis {emphasis!r}")
            model.setEmphasis(setting, True)
        # After the emphasis: "default" resets every parameter, PuLP's time limit included.
        if self.timeLimit is not None:
            model.setParam("limits/time", self.timeLimit)
        model.setParam("misc/catchctrlc", False)  # our handler, for SIGINT and SIGTERM alike
        if self.seed is not None:
            model.setParam("randomization/randomseedshift", int(self.seed))
        for name, value in params.items():
            try:
                model.setParam(name, value)
            except (LookupError, ValueError, TypeError) as exc:
                raise InputError(f"SCIP parameter {name}={value!r}: {exc}") from None
        for name, weights in lp.sos1.items():  # PuLP's SCIP_PY leaves them out
            model.addConsSOS1([var.solverVar for var in weights], list(weights.values()),
                              name=str(name))
        for orbitope in orbitopes(lp):
            declare_orbitope(model, orbitope)

    def callSolver(self, lp: pulp.LpProblem) -> None:  # noqa: N802 - PuLP's name
        model = lp.solverModel
        with process.native_output(self.msg):
            inprocess.run(model.optimizeNogil, model.interruptSolve, "scip-solve",
                          self.progress)


def declare_orbitope(model, orbitope: Orbitope) -> None:
    """Add `orbitope` to the PySCIPOpt `model` (problem stage) as an orbitope constraint of
    SCIP's packing/partitioning handler: a model constraint (SCIP copies it to its sub-SCIPs),
    with resolved propagation (its fixings take part in conflict analysis)."""
    kind = _ORBITOPE_TYPES.get(orbitope.kind)
    if kind is None:
        raise InputError(f"SCIP here takes partitioning and packing orbitopes, not "
                         f"{orbitope.kind!r}")
    from pyscipopt import scip as native

    library = ctypes.CDLL(native.__file__)
    create = library.SCIPcreateConsBasicOrbitopePP
    create.restype = ctypes.c_int
    create.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p,
                       ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                       ctypes.c_uint, ctypes.c_uint]
    for name in ("SCIPaddCons", "SCIPreleaseCons"):
        getattr(library, name).restype = ctypes.c_int
    library.SCIPaddCons.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    library.SCIPreleaseCons.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
    capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    capsule_pointer.restype = ctypes.c_void_p
    capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    scip = capsule_pointer(model.to_ptr(False), b"scip")

    missing = [var.name for row in orbitope.rows for var in row
               if getattr(var, "solverVar", None) is None]
    if missing:  # PuLP passes on only the variables its rows and objective use
        raise InputError(f"orbitope {orbitope.name}: variable {missing[0]} is in no row")
    nrows, ncols = len(orbitope.rows), len(orbitope.rows[0])
    row_type = ctypes.c_void_p * ncols
    rows = [row_type(*(var.solverVar.ptr() for var in row)) for row in orbitope.rows]
    matrix = (ctypes.c_void_p * nrows)(*(ctypes.addressof(row) for row in rows))
    cons = ctypes.c_void_p()
    steps = ((create, (scip, ctypes.byref(cons), orbitope.name.encode(), matrix, kind, nrows,
                       ncols, 1, 1)),
             (library.SCIPaddCons, (scip, cons)),
             (library.SCIPreleaseCons, (scip, ctypes.byref(cons))))
    for call, arguments in steps:
        code = call(*arguments)
        if code != _SCIP_OKAY:
            raise RuntimeError(f"SCIP: {call.__name__} returned {code} declaring "
                               f"orbitope {orbitope.name}")


def solver(options: SolveOptions) -> pulp.LpSolver:
    require()
    return InterruptibleSCIP(progress=options.progress, seed=options.seed,
                             params={**DEFAULTS, **options.extra}, msg=options.verbose,
                             timeLimit=options.time_limit)
