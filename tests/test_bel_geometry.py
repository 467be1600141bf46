from collections import Counter

import pytest

from ilp_pyramid.puzzles.bel.geometry import cell_count, pyramid


@pytest.mark.parametrize("n, cells", [(1, 1), (2, 10), (3, 35), (4, 84), (5, 165), (6, 286),
                                      (7, 455)])
def test_cells_and_cubes_match_the_spec(n, cells):
    geo = pyramid(n)
    assert cell_count(n) == cells == len(geo.cells) == len(geo.cubes)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_line_families_and_lengths(n):
    geo = pyramid(n)
    base = 2 * n - 1
    families = Counter(line.family for line in geo.lines)
    assert families == {"Z": base * base, "X": n * n, "Y": n * n}
    for i, line in enumerate(geo.lines):
        if line.family == "Z":
            assert geo.line_lengths[i] == min(geo.t(line.a), geo.t(line.b))
        else:
            # X(x, h) runs along y over the columns at least h+1 tall.
            assert geo.line_lengths[i] == sum(1 for y in range(base)
                                              if min(geo.t(line.a), geo.t(y)) > line.b)
    # every cell lies on exactly one line of each family
    assert sum(geo.line_lengths) == 3 * len(geo.cells)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_counting_condition_total(n):
    # Each label occurs 3*C(N)/L times over all cubes (by symmetry of the multisets).
    geo = pyramid(n)
    occurrences = Counter(label for cube in geo.cubes for label in cube)
    assert set(occurrences.values()) == {geo.label_total}


def test_the_incidence_table_is_what_the_graph_gives():
    # incidence_table.py spares small solves the networkx import; networkx stays the source.
    from ilp_pyramid.puzzles.bel.geometry import (
        TABLE_MAX,
        graph_incidence,
        incidence_graph,
        tabled_incidence,
    )

    for n in range(1, TABLE_MAX + 1):
        lines, cells, cell_lines = graph_incidence(incidence_graph(n))
        assert tabled_incidence(n) == (tuple(map(tuple, lines)), tuple(map(tuple, cells)),
                                       tuple(map(tuple, cell_lines)))
    assert tabled_incidence(TABLE_MAX + 1) is None


@pytest.mark.parametrize("n", [3, 7])
def test_line_cells_are_the_graph_neighbours(n):
    geo = pyramid(n)
    for i, line in enumerate(geo.lines):
        assert geo.line_cells[i] == sorted(geo.cell_index[c] for c in geo.graph[line])
