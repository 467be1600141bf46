"""The IQ exact cover as CNF: one variable per placement, exactly-one per free cell, exactly-one
(or at-most-one) per free piece, written with python-sat's cardinality encodings."""

from __future__ import annotations

from ilp_pyramid.cardinality import CardEnc, EncType
from ilp_pyramid.puzzles.iq.model import Instance


def build_cnf(instance: Instance) -> list[list[int]]:
    """Clauses over variables 1..len(placements) (placement r is variable r + 1), plus
    auxiliary variables of the sequential-counter encodings above those."""
    by_cell: dict[int, list[int]] = {c: [] for c in instance.free_cells}
    by_piece: dict[int, list[int]] = {k: [] for k in instance.free_pieces}
    for r, pl in enumerate(instance.placements):
        by_piece[pl.piece].append(r + 1)
        for c in pl.cells:
            by_cell[c].append(r + 1)
    top = len(instance.placements)
    clauses: list[list[int]] = []

    def add(encoded) -> None:
        nonlocal top
        clauses.extend(encoded.clauses)
        top = max(top, encoded.nv)

    for lits in by_cell.values():
        if not lits:
            return [[1], [-1]]  # a cell nothing can cover: unsatisfiable
        add(CardEnc.equals(lits=lits, bound=1, top_id=top, encoding=EncType.seqcounter))
    for lits in by_piece.values():
        if not lits:
            if instance.pieces_exact:
                return [[1], [-1]]
            continue
        if instance.pieces_exact:
            add(CardEnc.equals(lits=lits, bound=1, top_id=top, encoding=EncType.seqcounter))
        else:
            add(CardEnc.atmost(lits=lits, bound=1, top_id=top, encoding=EncType.seqcounter))
    return clauses


def chosen_rows(instance: Instance, model: list[int]) -> list[int]:
    n = len(instance.placements)
    return [lit - 1 for lit in model if 0 < lit <= n]
