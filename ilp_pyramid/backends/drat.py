"""Refutations others can check: a DRAT proof written by CaDiCaL, checked independently.

`refutation(clauses, assumptions)` solves the clauses with the assumptions as unit clauses in
a fresh CaDiCaL 1.5.3 (python-sat's solver that writes a proof) and returns its DRAT lines;
`check(clauses, assumptions, proof)` has an independent checker judge them. drat-trim is
preferred when there is one (not part of the package: the program named by
$ILP_PYRAMID_DRAT_TRIM, else `drat-trim` on the PATH, built from its public source,
docs/frontier.md); its verdict is its own "s VERIFIED" line, nothing less. Without it the
package's own DRUP checker (ilp_pyramid/verify/drup.py) judges: the proofs CaDiCaL writes
here need no RAT step. `checker_name()` says which of the two checks.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from ilp_pyramid.verify import drup

CHECKER_ENV = "ILP_PYRAMID_DRAT_TRIM"
OWN_CHECKER = "ilp-pyramid drup"  # verify/drup.py, the checker when drat-trim is missing
VERIFIED, REJECTED = "verified", "rejected"
PROOF_SOLVER = "cadical153"  # python-sat's CaDiCaL that keeps a DRAT proof (with_proof)


def checker() -> str | None:
    """The drat-trim program to run, or None when there is none (the own checker judges)."""
    named = os.environ.get(CHECKER_ENV)
    if named:
        return named if os.access(named, os.X_OK) else None
    return shutil.which("drat-trim")


def checker_name() -> str:
    """The checker `check` runs: "drat-trim", or OWN_CHECKER when there is no drat-trim."""
    return OWN_CHECKER if checker() is None else "drat-trim"


def refutation(clauses: Sequence[Sequence[int]], assumptions: Sequence[int]) -> list[str] | None:
    """The DRAT proof (lines) that `clauses` with `assumptions` as unit clauses are
    unsatisfiable, or None when they are satisfiable."""
    from pysat.solvers import Solver

    with Solver(name=PROOF_SOLVER, bootstrap_with=formula(clauses, assumptions),
                with_proof=True) as engine:
        if engine.solve():
            return None
        return list(engine.get_proof())


def formula(clauses: Sequence[Sequence[int]], assumptions: Sequence[int]) -> list[list[int]]:
    return [list(clause) for clause in clauses] + [[int(lit)] for lit in assumptions]


def check(clauses: Sequence[Sequence[int]], assumptions: Sequence[int], proof: Sequence[str],
          time_limit: float = 600.0) -> str:
    """The checker's verdict on `proof` for `clauses` plus `assumptions` as units: VERIFIED,
    or REJECTED with the checker's last line (drat-trim's) or reason (the own checker's)."""
    program = checker()
    rows = formula(clauses, assumptions)
    if program is None:
        try:
            judged = drup.check(rows, drup.parse_proof(proof), time_limit)
        except drup.ProofError as error:  # a proof that cannot be read proves nothing
            return f"{REJECTED}: {error}"
        return VERIFIED if judged.verified else f"{REJECTED}: {judged.reason}"
    variables = max((abs(lit) for row in rows for lit in row), default=0)
    with tempfile.TemporaryDirectory(prefix="ilp-pyramid-drat-") as folder:
        cnf, drat = Path(folder) / "cube.cnf", Path(folder) / "cube.drat"
        with cnf.open("w") as out:
            out.write(f"p cnf {variables} {len(rows)}\n")
            out.writelines(" ".join(map(str, row)) + " 0\n" for row in rows)
        with drat.open("w") as out:
            out.writelines(line if line.endswith("\n") else line + "\n" for line in proof)
        # drat-trim's own timeout (-t) in whole seconds; its exit code says little: the
        # "s VERIFIED" line is the verdict.
        run = subprocess.run([program, str(cnf), str(drat), "-t", str(int(time_limit))],
                             capture_output=True, text=True, stdin=subprocess.DEVNULL,
                             timeout=time_limit + 30)
    lines = run.stdout.splitlines()
    if "s VERIFIED" in lines:
        return VERIFIED
    last = next((line for line in reversed(lines) if line.strip()), "no output")
    return f"{REJECTED}: {last}"
