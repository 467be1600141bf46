"""The pyramid's lines, cells and cubes, read off a networkx incidence graph.

The graph is the source; for the sizes a user waits on (N <= TABLE_MAX) its incidence was read
off it once and is kept in `incidence_table.py` (a test re-derives it from the graph), so a
`solve 1` does not spend 70 ms importing networkx. Past that, or where `.graph` itself is
wanted (the symmetry group), networkx is loaded.

Coordinates follow the spec: base B = 2N-1, t(i) = min(i+1, B-i), column (x, y) is
min(t(x), t(y)) cubes tall, h = 0 is the bottom level. Lines of three families:
Z(x, y) vertical, X(x, h) along y, Y(y, h) along x. Cell (x, y, h) lies on X(x, h), Y(y, h)
and Z(x, y).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property
from itertools import combinations_with_replacement
from pathlib import Path
from typing import TYPE_CHECKING

from ilp_pyramid.formats.fileio import write_atomic
from ilp_pyramid.puzzles.bel.incidence_table import TABLE

if TYPE_CHECKING:
    import networkx as nx

MAX_N = 12  # C(12) = 2300 cells and 2300 cubes: far beyond what any solver can do
TABLE_MAX = 6  # incidence_table.py holds N = 1..TABLE_MAX


@dataclass(frozen=True, order=True)
class Line:
    family: str  # "X", "Y" or "Z"
    a: int  # X: x, Y: y, Z: x
    b: int  # X: h, Y: h, Z: y

    @property
    def name(self) -> str:
        return f"{self.family}_{self.a}_{self.b}"


@dataclass(frozen=True, order=True)
class Cell:
    x: int
    y: int
    h: int


def cell_count(n: int) -> int:
    return n * (4 * n * n - 1) // 3


class Pyramid:
    """Geometry of Bel's Pyramid of N levels; every incidence comes from `graph`."""

    def __init__(self, n: int):
        if not 1 <= n <= MAX_N:
            raise ValueError(f"N must be between 1 and {MAX_N}, got {n}")
        self.n = n
        self.base = 2 * n - 1
        self.num_labels = 2 * n - 1
        lines, cells, cell_lines = tabled_incidence(n) or graph_incidence(incidence_graph(n))
        self.lines: list[Line] = [Line(*line) for line in lines]
        self.cells: list[Cell] = [Cell(*cell) for cell in cells]
        self.cell_lines: list[tuple[int, int, int]] = [tuple(row) for row in cell_lines]
        self.line_index = {line: i for i, line in enumerate(self.lines)}
        self.cell_index = {cell: i for i, cell in enumerate(self.cells)}

    def t(self, i: int) -> int:
        return min(i + 1, self.base - i)

    @cached_property
    def graph(self) -> nx.Graph:
        return incidence_graph(self.n)

    @cached_property
    def line_cells(self) -> list[list[int]]:
        cells: list[list[int]] = [[] for _ in self.lines]
        for c, row in enumerate(self.cell_lines):  # cells in index order: each list sorted
            for line in row:
                cells[line].append(c)
        return cells

    @cached_property
    def line_lengths(self) -> list[int]:
        return [len(cells) for cells in self.line_cells]

    @cached_property
    def cubes(self) -> list[tuple[int, int, int]]:
        return cubes(self.num_labels)

    @cached_property
    def cube_index(self) -> dict[tuple[int, int, int], int]:
        return {cube: k for k, cube in enumerate(self.cubes)}

    def family_lines(self, family: str) -> list[int]:
        return [i for i, line in enumerate(self.lines) if line.family == family]

    def line(self, family: str, a: int, b: int) -> int:
        return self.line_index[Line(family, a, b)]

    @property
    def label_total(self) -> int:
        """Counting condition: every label is carried by lines of total length N(2N+1)."""
        return self.n * (2 * self.n + 1)


def _line_order(line: Line) -> tuple:
    # Z first (row by row: y, then x), then X, then Y, as the drawing reads them.
    family_rank = {"Z": 0, "X": 1, "Y": 2}[line.family]
    if line.family == "Z":
        return (family_rank, line.b, line.a)
    return (family_rank, line.a, line.b)


def incidence_graph(n: int) -> nx.Graph:
    """Cells and lines of N levels as nodes, an edge where a line holds a cell."""
    import networkx as nx

    base = 2 * n - 1
    graph = nx.Graph()
    for x in range(base):
        for y in range(base):
            for h in range(min(x + 1, base - x, y + 1, base - y)):
                cell = Cell(x, y, h)
                graph.add_node(cell, kind="cell")
                for line in (Line("X", x, h), Line("Y", y, h), Line("Z", x, y)):
                    graph.add_node(line, kind="line", family=line.family)
                    graph.add_edge(line, cell)
    return graph


def graph_incidence(graph: nx.Graph) -> tuple[list, list, list]:
    """Lines as (family, a, b) in drawing order, cells as (x, y, h) level by level, and every
    cell's (X, Y, Z) line indices, all read off the incidence graph."""
    lines = sorted((node for node in graph if isinstance(node, Line)), key=_line_order)
    cells = sorted((node for node in graph if isinstance(node, Cell)),
                   key=lambda c: (c.h, c.y, c.x))
    index = {line: i for i, line in enumerate(lines)}
    cell_lines = []
    for cell in cells:
        by_family = {line.family: index[line] for line in graph[cell]}
        cell_lines.append((by_family["X"], by_family["Y"], by_family["Z"]))
    return ([(line.family, line.a, line.b) for line in lines],
            [(cell.x, cell.y, cell.h) for cell in cells], cell_lines)


def tabled_incidence(n: int) -> tuple | None:
    """graph_incidence of N as kept in incidence_table.py, or None past TABLE_MAX."""
    if n > TABLE_MAX:
        return None

    return TABLE[n]


def write_table(path: str) -> None:
    """(Re)write incidence_table.py from the graphs: `python -m ilp_pyramid.puzzles.bel.geometry
    ilp_pyramid/puzzles/bel/incidence_table.py`."""
    import pprint


    table = {n: tuple(tuple(map(tuple, part)) for part in graph_incidence(incidence_graph(n)))
             for n in range(1, TABLE_MAX + 1)}
    out = ['"""graph_incidence(incidence_graph(n)) for n = 1..TABLE_MAX, kept so that the small',
           'sizes start without networkx. Generated by geometry.write_table; do not edit."""',
           "", "TABLE = " + pprint.pformat(table, width=99, compact=True)]
    write_atomic(Path(path), "\n".join(out) + "\n")


@cache
def cubes(num_labels: int) -> list[tuple[int, int, int]]:
    """All size-3 multisets of the labels, as sorted triples."""
    return list(combinations_with_replacement(range(num_labels), 3))


@cache
def pyramid(n: int) -> Pyramid:
    return Pyramid(n)


if __name__ == "__main__":
    import sys

    write_table(sys.argv[1])
