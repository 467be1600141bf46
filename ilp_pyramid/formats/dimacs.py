"""DIMACS CNF: clause text out, a SAT solver's certificate back in, and its status words.

Generic over formulas: a puzzle adds its own comment lines (variable maps, headers) around
`clause_lines` and decodes the literals `parse_certificate` returns.
"""

from __future__ import annotations

from collections.abc import Sequence

from ilp_pyramid.errors import InputError
from ilp_pyramid.parsing import parse_ints

# The SAT competition's status words, as `s <WORD>` lines carry them.
SATISFIABLE, UNSATISFIABLE, UNKNOWN = "SATISFIABLE", "UNSATISFIABLE", "UNKNOWN"


def clause_lines(clauses: Sequence[Sequence[int]]) -> list[str]:
    """One `l1 l2 ... 0` line per clause."""
    return [" ".join(map(str, clause)) + " 0" for clause in clauses]


def dimacs_text(clauses: Sequence[Sequence[int]], num_variables: int,
                comments: Sequence[str] = ()) -> str:
    """The whole DIMACS text: comment lines (given with their `c `), header, clauses."""
    parts = list(comments)
    parts.append(f"p cnf {num_variables} {len(clauses)}")
    parts.extend(clause_lines(clauses))
    return "\n".join(parts) + "\n"


def parse_certificate(text: str) -> tuple[str, list[int]]:
    """(status, literals) from a SAT solver's output.

    Reads the competition format (`s SATISFIABLE`, `v 1 -2 ... 0` lines) as Kissat and CaDiCaL
    print it, MiniSat's result file (`SAT` then one line of literals), or bare literal lines.
    """
    status = UNKNOWN
    literals: list[int] = []
    saw_v = False
    bare: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("c"):
            continue
        if line.startswith("s "):
            status = _status_word(line[2:].strip(), number)
        elif line in ("SAT", "UNSAT", "INDET"):
            status = {"SAT": SATISFIABLE, "UNSAT": UNSATISFIABLE, "INDET": UNKNOWN}[line]
        elif line.startswith("v"):
            saw_v = True
            literals += _literals(line[1:], number)
        else:
            bare.append((number, line))
    if not saw_v:
        for number, line in bare:
            literals += _literals(line, number)
    elif bare:
        number, line = bare[0]
        raise InputError(f"line {number}: unexpected text {line[:40]!r} in the certificate")
    literals = [lit for lit in literals if lit != 0]
    if literals and status == UNKNOWN:
        status = SATISFIABLE
    if status == SATISFIABLE and not literals:
        raise InputError("the certificate says SATISFIABLE but lists no 'v' literals")
    return status, literals


def _status_word(word: str, number: int) -> str:
    word = word.upper()
    if word in (SATISFIABLE, UNSATISFIABLE, UNKNOWN):
        return word
    raise InputError(f"line {number}: unknown status 's {word}' in the certificate")


def _literals(text: str, number: int) -> list[int]:
    return parse_ints(text, f"line {number}", "a literal")
