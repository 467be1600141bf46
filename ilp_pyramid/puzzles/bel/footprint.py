"""How much memory a Bel model takes, estimated before it is built.

Variables and rows grow like C(N) cells x C(N) cubes, so memory does too. Bytes per
(cell, cube) pair, measured as peak RSS growth of building the model and writing its text
(`models`, `export`; N=4..6, Python 3.11, PuLP 3.3, python-sat 1.8): counts 2.1 KB (MIP),
rotations 13 KB (MIP), CNF 3.5 KB. The estimate rounds these up; it only has to tell
N=8 (fine) from N=12 (gigabytes) before any of it is allocated.
"""

from __future__ import annotations

from ilp_pyramid.puzzles.bel.geometry import cell_count

_BYTES_PER_PAIR = {"counts": 2_500, "counts-mult": 2_500, "counts-sos1": 3_500,
                   "rotations": 15_000, "cnf": 4_000}


def model_bytes(n: int, formulation: str, form: str = "mip") -> int:
    """Estimated peak bytes of building (and writing) the model of N levels in `form` ("mip"
    or "cnf")."""
    per_pair = _BYTES_PER_PAIR["cnf"] if form == "cnf" else _BYTES_PER_PAIR.get(
        formulation, _BYTES_PER_PAIR["rotations"])
    return per_pair * cell_count(n) ** 2
