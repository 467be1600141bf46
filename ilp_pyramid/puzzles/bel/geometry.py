"""The pyramid's lines, cells and cubes, read off a networkx incidence graph.

Coordinates follow the spec: base B = 2N-1, t(i) = min(i+1, B-i), column (x, y) is
min(t(x), t(y)) cubes tall, h = 0 is the bottom level. Lines of three families:
Z(x, y) vertical, X(x, h) along y, Y(y, h) along x. Cell (x, y, h) lies on X(x, h), Y(y, h)
and Z(x, y).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property
from itertools import combinations_with_replacement

import networkx as nx

FAMILIES = ("X", "Y", "Z")
MAX_N = 12  # C(12) = 2300 cells and 2300 cubes: far beyond what any solver can do


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
        self.graph = self._incidence_graph()
        self.lines: list[Line] = sorted(
            (node for node in self.graph if isinstance(node, Line)), key=_line_order
        )
        self.cells: list[Cell] = sorted(
            (node for node in self.graph if isinstance(node, Cell)),
            key=lambda c: (c.h, c.y, c.x),
        )
        self.line_index = {line: i for i, line in enumerate(self.lines)}
        self.cell_index = {cell: i for i, cell in enumerate(self.cells)}

    def t(self, i: int) -> int:
        return min(i + 1, self.base - i)

    def _incidence_graph(self) -> nx.Graph:
        graph = nx.Graph()
        for x in range(self.base):
            for y in range(self.base):
                for h in range(min(self.t(x), self.t(y))):
                    cell = Cell(x, y, h)
                    graph.add_node(cell, kind="cell")
                    for line in (Line("X", x, h), Line("Y", y, h), Line("Z", x, y)):
                        graph.add_node(line, kind="line", family=line.family)
                        graph.add_edge(line, cell)
        return graph

    @cached_property
    def cell_lines(self) -> list[tuple[int, int, int]]:
        """For every cell, the indices of its (X, Y, Z) lines."""
        result = []
        for cell in self.cells:
            by_family = {line.family: self.line_index[line] for line in self.graph[cell]}
            result.append((by_family["X"], by_family["Y"], by_family["Z"]))
        return result

    @cached_property
    def line_cells(self) -> list[list[int]]:
        return [sorted(self.cell_index[c] for c in self.graph[line]) for line in self.lines]

    @cached_property
    def line_lengths(self) -> list[int]:
        return [self.graph.degree(line) for line in self.lines]

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


@cache
def cubes(num_labels: int) -> list[tuple[int, int, int]]:
    """All size-3 multisets of the labels, as sorted triples."""
    return list(combinations_with_replacement(range(num_labels), 3))


@cache
def pyramid(n: int) -> Pyramid:
    return Pyramid(n)
