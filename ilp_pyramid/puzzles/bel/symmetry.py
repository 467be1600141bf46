"""The geometric symmetry group of the pyramid, computed from its incidence graph.

An automorphism permutes lines and cells so that incidences are kept, each line family keeps
its role (Z to Z; X to X and Y to Y, or X and Y swapped together). We find the group the way
nauty does, on a small scale: colour refinement, then a stabiliser chain. At each level one
base point is chosen and its orbit found by asking networkx's VF2 matcher for one
isomorphism per candidate image; |G| is the product of the orbit sizes, and the isomorphisms
found generate G. Enumerating every element instead takes minutes from N = 4 on.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from functools import cache

import networkx as nx
from networkx.algorithms.isomorphism import GraphMatcher

from ilp_pyramid.puzzles.bel.geometry import Line, pyramid

Perm = dict[Hashable, Hashable]


@dataclass
class SymmetryGroup:
    order: int
    generators: list[Perm]  # permutations of the graph's nodes (lines and cells)


def _refine_pair(graph: nx.Graph, first: dict, second: dict) -> tuple[dict, dict]:
    """Refine two colourings of `graph` in lockstep, so equal ids mean equal colours."""
    while True:
        names: dict = {}
        new = []
        for colour in (first, second):
            signature = {v: (colour[v], tuple(sorted((colour[u] for u in graph[v]), key=repr)))
                         for v in graph}
            for sig in sorted(set(signature.values()), key=repr):
                names.setdefault(sig, len(names))
            new.append({v: names[signature[v]] for v in graph})
        if all(len(set(n.values())) == len(set(o.values()))
               for n, o in zip(new, (first, second), strict=True)):
            return new[0], new[1]
        first, second = new


def _find_isomorphism(graph: nx.Graph, source: dict, target: dict) -> Perm | None:
    source, target = _refine_pair(graph, source, target)
    if sorted(source.values(), key=repr) != sorted(target.values(), key=repr):
        return None
    left, right = nx.Graph(graph), nx.Graph(graph)
    nx.set_node_attributes(left, source, "colour")
    nx.set_node_attributes(right, target, "colour")
    matcher = GraphMatcher(left, right, node_match=lambda a, b: a["colour"] == b["colour"])
    return next(matcher.isomorphisms_iter(), None)


def _individualise(colour: dict, node: Hashable, tag: int) -> dict:
    marked = dict(colour)
    marked[node] = ("fixed", tag)
    return marked


def _orbit(point: Hashable, generators: list[Perm]) -> set:
    orbit, frontier = {point}, [point]
    while frontier:
        p = frontier.pop()
        for g in generators:
            q = g[p]
            if q not in orbit:
                orbit.add(q)
                frontier.append(q)
    return orbit


def _stabiliser_chain(graph: nx.Graph, colour: dict) -> SymmetryGroup:
    colour, _ = _refine_pair(graph, colour, colour)
    order, generators, depth = 1, [], 0
    while True:
        classes: dict = {}
        for v, c in colour.items():
            classes.setdefault(c, []).append(v)
        nontrivial = [members for members in classes.values() if len(members) > 1]
        if not nontrivial:
            return SymmetryGroup(order, generators)
        members = min(nontrivial, key=lambda m: (len(m), repr(sorted(map(repr, m))[0])))
        members.sort(key=repr)
        base = members[0]
        level_generators: list[Perm] = []
        orbit = {base}
        fixed = _individualise(colour, base, depth)
        for candidate in members[1:]:
            if candidate in orbit:
                continue
            mapping = _find_isomorphism(graph, fixed, _individualise(colour, candidate, depth))
            if mapping is not None:
                level_generators.append(mapping)
                orbit = _orbit(base, level_generators)
        order *= len(orbit)
        generators += level_generators
        colour, _ = _refine_pair(graph, fixed, fixed)
        depth += 1


def _family_colour(node: Hashable, swap: bool = False) -> str:
    if not isinstance(node, Line):
        return "cell"
    if swap and node.family in "XY":
        return "Y" if node.family == "X" else "X"
    return node.family


@cache
def symmetry_group(n: int) -> SymmetryGroup:
    """Automorphisms of the incidence graph that keep line families (or swap X and Y)."""
    graph = pyramid(n).graph
    keep = {v: _family_colour(v) for v in graph}
    group = _stabiliser_chain(graph, keep)
    swap = _find_isomorphism(graph, keep, {v: _family_colour(v, swap=True) for v in graph})
    if swap is not None:
        group = SymmetryGroup(group.order * 2, group.generators + [swap])
    return group


def line_permutation(n: int, mapping: Perm) -> list[int]:
    """A graph automorphism as a permutation of line indices: image[i] = index of g(line i)."""
    geo = pyramid(n)
    return [geo.line_index[mapping[line]] for line in geo.lines]
