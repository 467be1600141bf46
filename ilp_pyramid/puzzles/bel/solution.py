"""A labelling of the pyramid's lines, and its two text forms: Knuth's drawing and JSON.

This module only moves labels between forms; it does not judge them (see verify.bel).
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ilp_pyramid.errors import InputError
from ilp_pyramid.parsing import load_json, parse_ints

# The largest N a file may hold: verifying N=100 checks 1.3 million cells (a few seconds);
# a larger square is a typo or a hostile file, not a solution anyone has.
MAX_READ_N = 100


def _height(i: int, base: int) -> int:
    return min(i + 1, base - i)


@dataclass
class BelSolution:
    n: int
    Z: list[list[int]]  # Z[y][x]
    X: list[list[int]]  # X[x][h], h = 0 .. t(x)-1
    Y: list[list[int]]  # Y[y][h]

    @property
    def base(self) -> int:
        return 2 * self.n - 1

    def label(self, family: str, a: int, b: int) -> int:
        """The label of line (family, a, b) in the geometry's naming (Z: a = x, b = y)."""
        if family == "Z":
            return self.Z[b][a]
        return (self.X if family == "X" else self.Y)[a][b]

    @classmethod
    def from_line_labels(cls, n: int, labels: dict[tuple[str, int, int], int]) -> BelSolution:
        base = 2 * n - 1
        z = [[labels[("Z", x, y)] for x in range(base)] for y in range(base)]
        xs = [[labels[("X", x, h)] for h in range(_height(x, base))] for x in range(base)]
        ys = [[labels[("Y", y, h)] for h in range(_height(y, base))] for y in range(base)]
        return cls(n, z, xs, ys)

    @classmethod
    def from_choices(cls, n: int, chosen: Mapping[tuple[str, int, int], Iterable[int]],
                     where: str) -> BelSolution:
        """Labels picked per line (family, a, b); InputError naming the first line that has
        none or several (`where` says where they came from: "solution", "certificate")."""
        base = 2 * n - 1
        lines = [("Z", x, y) for y in range(base) for x in range(base)]
        lines += [(f, a, h) for f in "XY" for a in range(base) for h in range(_height(a, base))]
        labels = {}
        for family, a, b in lines:
            picked = sorted(chosen.get((family, a, b), ()))
            if len(picked) != 1:
                what = "no label" if not picked else f"{len(picked)} labels {picked}"
                raise InputError(f"line {family}_{a}_{b} has {what} in the {where}")
            labels[(family, a, b)] = picked[0]
        return cls.from_line_labels(n, labels)

    def to_dict(self) -> dict:
        return {"Z": self.Z, "X": self.X, "Y": self.Y}

    # --- Knuth's drawing -------------------------------------------------------------------

    def to_drawing(self) -> str:
        base = self.base
        border = "+" + "-" * (3 * base + 1) + "+"
        rows = [border]
        for y in range(base):
            square = "".join(f"{v:3d}" for v in self.Z[y])
            side = "".join(f"{v:3d}" for v in self.Y[y])
            rows.append(f"|{square} |{side}")
        rows.append(border)
        for h in range(self.n):
            cells = "".join(
                f"{self.X[x][h]:3d}" if _height(x, base) > h else "   " for x in range(base)
            )
            rows.append((" " + cells).rstrip())
        return "\n".join(rows) + "\n"


def _drawing_part(text: str) -> str:
    """The drawing in `text`: the whole text, or what follows a "Solution:" line (the
    reference tool, acmihal/bel_pyramid, prints its parameters, then "Solution:", then the
    drawing), dedented as a pasted, indented block would be."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == "Solution:":
            lines = lines[i + 1:]
            break
    return textwrap.dedent("\n".join(lines))


def parse_drawing(text: str) -> BelSolution:
    """Read Knuth's elevation drawing; raise InputError naming the first problem."""
    lines = [line.rstrip() for line in _drawing_part(text).splitlines()]
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines or not lines[0].startswith("+"):
        raise InputError("not a Knuth drawing: the first line must be the '+---+' border")
    try:
        bottom = next(i for i in range(1, len(lines)) if lines[i].startswith("+"))
    except StopIteration:
        raise InputError("not a Knuth drawing: the closing '+---+' border is missing") from None
    rows = lines[1:bottom]
    base = len(rows)
    if base % 2 == 0:
        raise InputError(f"the square has {base} rows; it must have an odd number 2N-1")
    n = (base + 1) // 2
    _check_read_n(n)
    z, ys = [], []
    for y, row in enumerate(rows, start=1):
        parts = row.split("|")
        if len(parts) != 3 or parts[0] != "":
            raise InputError(f"square row {y}: expected '| labels | labels'")
        square = _numbers(parts[1], f"square row {y}")
        side = _numbers(parts[2], f"side triangle row {y}")
        if len(square) != base:
            raise InputError(f"square row {y} has {len(square)} labels, expected {base}")
        if len(side) != _height(y - 1, base):
            raise InputError(
                f"side triangle row {y} has {len(side)} labels, expected {_height(y - 1, base)}"
            )
        z.append(square)
        ys.append(side)
    below = [line for line in lines[bottom + 1:] if line.strip()]
    if len(below) != n:
        raise InputError(f"the triangle below the square has {len(below)} rows, expected {n}")
    xs: list[list[int]] = [[] for _ in range(base)]
    for h, row in enumerate(below):
        labels = _numbers(row, f"bottom triangle row {h + 1}")
        if len(labels) != base - 2 * h:
            raise InputError(
                f"bottom triangle row {h + 1} has {len(labels)} labels, expected {base - 2 * h}"
            )
        for offset, label in enumerate(labels):
            xs[h + offset].append(label)
    solution = BelSolution(n, z, xs, ys)
    check_labels(solution)
    return solution


def _check_read_n(n: int) -> None:
    if n > MAX_READ_N:
        raise InputError(f"the solution is for N={n}; files up to N={MAX_READ_N} are read")


def _numbers(text: str, where: str) -> list[int]:
    return parse_ints(text, where, "a label number")


def check_labels(solution: BelSolution) -> None:
    labels = 2 * solution.n - 1
    for name, family in (("Z", solution.Z), ("X", solution.X), ("Y", solution.Y)):
        for i, row in enumerate(family):
            for j, value in enumerate(row):
                if not 0 <= value < labels:
                    raise InputError(
                        f"{name} label {value} at [{i}][{j}] is out of range 0..{labels - 1}"
                    )


def parse_json(text: str) -> BelSolution:
    """Read the `solve --json` object (or just its "solution" part)."""
    data = load_json(text)
    if isinstance(data, dict) and "solution" in data and isinstance(data["solution"], dict):
        data = data["solution"]
    if not isinstance(data, dict) or not {"Z", "X", "Y"} <= data.keys():
        raise InputError("JSON solution must have the keys Z, X and Y")
    z, xs, ys = data["Z"], data["X"], data["Y"]
    if not (isinstance(z, list) and z and len(z) % 2 == 1):
        raise InputError("Z must be a non-empty list of 2N-1 rows")
    n = (len(z) + 1) // 2
    _check_read_n(n)
    solution = BelSolution(n, z, xs, ys)
    _check_rows(solution)
    check_labels(solution)
    return solution


def check_solution(solution: object) -> BelSolution:
    """`solution`, if it is a `BelSolution` of whole rows of integer labels for its own N;
    InputError (one line) otherwise. Labels out of range are the checker's to report."""
    if not isinstance(solution, BelSolution):
        kind = "None" if solution is None else type(solution).__name__
        raise InputError(f"a Bel solution is a BelSolution (what solve, from_json and "
                         f"parse_json give), not {kind}")
    n = solution.n
    if type(n) is not int or not 1 <= n:
        raise InputError(f"the solution's N must be a whole number >= 1, not {n!r}")
    _check_read_n(n)
    _check_rows(solution)
    return solution


def _check_rows(solution: BelSolution) -> None:
    """Z, X and Y as lists of rows of the lengths N asks, of integer labels."""
    base = solution.base
    for name, family in (("Z", solution.Z), ("X", solution.X), ("Y", solution.Y)):
        _check_integer_rows(name, family)
    for name, family, want in (("Z", solution.Z, lambda i: base),
                               ("X", solution.X, lambda i: _height(i, base)),
                               ("Y", solution.Y, lambda i: _height(i, base))):
        if len(family) != base:
            raise InputError(f"{name} has {len(family)} rows, expected {base}")
        for i, row in enumerate(family):
            if len(row) != want(i):
                raise InputError(f"{name}[{i}] has {len(row)} labels, expected {want(i)}")


def _check_integer_rows(name: str, family: object) -> None:
    """Rows are JSON lists and labels JSON integers: never a string read digit by digit, a
    float truncated, or `true` counted as 1."""
    if not isinstance(family, list):
        raise InputError(f"{name} must be a list of rows")
    for i, row in enumerate(family):
        if not isinstance(row, list):
            raise InputError(f"{name}[{i}] must be a list of labels")
        for j, value in enumerate(row):
            if type(value) is not int:
                raise InputError(f"{name}[{i}][{j}] = {value!r} is not an integer label")


def parse_solution_text(text: str) -> BelSolution:
    """Either form, told apart by the first non-blank character (a drawing may follow the
    reference tool's printout)."""
    stripped = text.lstrip()
    if stripped.startswith("{"):
        return parse_json(stripped)
    return parse_drawing(text)
