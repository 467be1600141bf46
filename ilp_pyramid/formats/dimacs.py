"""DIMACS CNF: clause text out, a SAT solver's certificate back in, and its status words.

Generic over formulas: a puzzle hands `dimacs_text` its own comment lines (variable maps,
headers) and decodes the literals `parse_certificate` returns.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ilp_pyramid.errors import InputError
from ilp_pyramid.parsing import MAX_DIGITS, parse_int, parse_ints

# The SAT competition's status words, as `s <WORD>` lines carry them.
SATISFIABLE, UNSATISFIABLE, UNKNOWN = "SATISFIABLE", "UNSATISFIABLE", "UNKNOWN"
# A literal token: what parse_int takes (int() alone also reads "1_0", " ²", "+ 1").
_DIGITS = re.compile(rf"-?[0-9]{{1,{MAX_DIGITS}}}")
_ODD = re.compile(r"[^ \t\n\r0-9-]")


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


@dataclass
class Dimacs:
    """A CNF as read from DIMACS text: the header's variable count and the clauses."""

    num_variables: int
    clauses: list[list[int]]


def read_dimacs(text: str) -> Dimacs:
    """Parse DIMACS CNF text strictly: one `p cnf V C` header before any clause, every
    literal an integer in [-V, V] \\ {0}, C clauses each ended by `0`.

    Files of millions of clauses (the reference tool's exports) are read in one pass over the
    tokens; anything else than comments, the header and literals is an InputError naming it.
    """
    header = None
    body: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line == "%":  # SATLIB's end marker
            break
        if not line or line.startswith("c"):
            continue
        if line.startswith("p"):
            if header is not None:
                raise InputError(f"line {number}: a second 'p' header")
            words = line.split()
            if len(words) != 4 or words[1] != "cnf":
                raise InputError(f"line {number}: expected 'p cnf <variables> <clauses>', "
                                 f"got {line[:40]!r}")
            header = (parse_int(words[2], f"line {number}", "a variable count"),
                      parse_int(words[3], f"line {number}", "a clause count"))
            if min(header) < 0:
                raise InputError(f"line {number}: negative count in the header")
            continue
        if header is None:
            raise InputError(f"line {number}: a clause before the 'p cnf' header")
        body.append(line)
    if header is None:
        raise InputError("no 'p cnf <variables> <clauses>' header: not a DIMACS CNF file")
    num_variables, num_clauses = header
    clause_text = "\n".join(body)
    tokens = clause_text.split()
    # One C-speed scan for anything but ASCII digits, '-' and blanks (int() alone would take
    # '1_0' and non-ASCII digits); then int() can only fail on misplaced '-' or huge tokens.
    odd = _ODD.search(clause_text)
    try:
        if odd is not None:
            raise ValueError
        values = [int(token) for token in tokens]
    except ValueError:
        # A blank other than space, tab or newline (e.g. U+00A0) splits tokens but is no
        # separator DIMACS knows: name the character where no token is odd.
        bad = next((t for t in tokens if _DIGITS.fullmatch(t) is None), odd and odd.group())
        raise InputError(f"{bad[:40]!r} is not a literal") from None
    clauses: list[list[int]] = []
    start = 0
    for end, value in enumerate(values):
        if value == 0:
            clauses.append(values[start:end])
            start = end + 1
        elif not -num_variables <= value <= num_variables:
            raise InputError(f"literal {value} is outside the header's {num_variables} "
                             f"variables")
    if start != len(values):
        raise InputError("the last clause is not ended by 0")
    if len(clauses) != num_clauses:
        raise InputError(f"the header declares {num_clauses} clauses, the file has "
                         f"{len(clauses)}")
    return Dimacs(num_variables, clauses)
