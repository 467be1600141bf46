"""Strategies: symmetry breakers keep small pyramids feasible, and the symmetry group has the
order we derive by hand. (The compiled forms against the data: test_strategy_properties.py.)"""

from __future__ import annotations

import random
from itertools import combinations

import pulp
import pytest

from ilp_pyramid import protocol
from ilp_pyramid.backends.base import SolveOptions, Status
from ilp_pyramid.puzzles.bel.geometry import pyramid
from ilp_pyramid.puzzles.bel.model import build_model
from ilp_pyramid.puzzles.bel.puzzle import PUZZLE as BEL
from ilp_pyramid.puzzles.bel.solution import BelSolution, parse_drawing
from ilp_pyramid.puzzles.bel.strategies import (
    CATALOGUE,
    combine,
    holds,
    hypotheses,
    rules_for,
    satisfied,
    unsound_pairs,
)
from ilp_pyramid.puzzles.bel.symmetry import (
    generators,
    group_order,
    line_permutation,
    symmetry_group,
)
from ilp_pyramid.verify.bel import verify_solution


def labels_of(solution: BelSolution) -> list[int]:
    geo = pyramid(solution.n)
    return [solution.label(line.family, line.a, line.b) for line in geo.lines]


def relabel(solution: BelSolution, perm: list[int]) -> BelSolution:
    def f(rows):
        return [[perm[v] for v in row] for row in rows]

    return BelSolution(solution.n, f(solution.Z), f(solution.X), f(solution.Y))


def swap_x_slice(solution: BelSolution, x: int) -> BelSolution:
    """Swap slice x with its mirror B-1-x: X stacks and Z columns trade places."""
    other = solution.base - 1 - x
    xs = [list(row) for row in solution.X]
    xs[x], xs[other] = xs[other], xs[x]
    z = [list(row) for row in solution.Z]
    for row in z:
        row[x], row[other] = row[other], row[x]
    return BelSolution(solution.n, z, xs, [list(r) for r in solution.Y])


def transpose(solution: BelSolution) -> BelSolution:
    z = [list(col) for col in zip(*solution.Z, strict=True)]
    return BelSolution(solution.n, z, [list(r) for r in solution.Y], [list(r) for r in solution.X])


def swap_y_slice(solution: BelSolution, y: int) -> BelSolution:
    return transpose(swap_x_slice(transpose(solution), y))


def top_swap(solution: BelSolution) -> BelSolution:
    """Trade the labels of the top cube's X and Y lines, nothing else."""
    c, top = solution.n - 1, solution.n - 1
    xs, ys = [list(r) for r in solution.X], [list(r) for r in solution.Y]
    xs[c][top], ys[c][top] = ys[c][top], xs[c][top]
    return BelSolution(solution.n, [list(r) for r in solution.Z], xs, ys)


def full_orbit(solution: BelSolution) -> list[BelSolution]:
    """Every image under the geometric group and the label permutations."""
    from itertools import permutations, product

    n = solution.n
    images = []
    for top, flip, xs, ys in product([False, True], [False, True],
                                     product([0, 1], repeat=n - 1),
                                     product([0, 1], repeat=n - 1)):
        image = top_swap(solution) if top else solution
        image = transpose(image) if flip else image
        for x, on in enumerate(xs):
            image = swap_x_slice(image, x) if on else image
        for y, on in enumerate(ys):
            image = swap_y_slice(image, y) if on else image
        images.append(image)
    return [relabel(image, list(perm)) for image in images
            for perm in permutations(range(2 * n - 1))]


def orbit_sample(solution: BelSolution, count: int, seed: int = 7) -> list[BelSolution]:
    """Random images of a solution under label permutations and geometric symmetries."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        image = solution
        if rng.random() < 0.5:
            image = transpose(image)
        if rng.random() < 0.5:
            image = top_swap(image)
        for x in range(solution.n - 1):
            if rng.random() < 0.5:
                image = swap_x_slice(image, x)
            if rng.random() < 0.5:
                image = swap_y_slice(image, x)
        perm = list(range(2 * solution.n - 1))
        rng.shuffle(perm)
        out.append(relabel(image, perm))
    return out


def published(name: str) -> BelSolution:
    from tests.conftest import FIXTURES

    return parse_drawing((FIXTURES / "bel" / name).read_text())


@pytest.fixture(scope="module")
def n3() -> BelSolution:
    return published("n3-example.txt")


SOUND = [name for name, s in CATALOGUE.items() if s.kind != "hypothesis"]
PAIRS = [(a, b) for a, b in combinations(SOUND, 2) if combine(a, b)]




def covering_pairs(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Few pairs in which every strategy that combines at all takes part: those of two
    strategies not yet paired first, then one pair for any strategy still left out."""
    chosen: list[tuple[str, str]] = []
    paired: set[str] = set()
    for pair in pairs:
        if not paired & set(pair):
            chosen.append(pair)
            paired |= set(pair)
    for pair in pairs:
        if not set(pair) <= paired:
            chosen.append(pair)
            paired |= set(pair)
    return chosen


# Every strategy alone solved at N=2 and N=3, and pairs at N=2 in which every strategy takes
# part; every other pair, and the pairs at N=3, under slow. That each pair keeps a solution is
# the published solution's orbit test below (no solver, every pair), and a pair's clauses are
# its two strategies' own, each solved alone here.
COVERING = covering_pairs(PAIRS)
FEASIBILITY = [pytest.param(n, names, marks=(pytest.mark.slow,) if len(names) > 1 and (
                                n == 3 or tuple(names) not in COVERING) else (),
                            id=f"{'+'.join(names)}-{n}")
               for names in [[name] for name in SOUND] + [list(p) for p in PAIRS]
               for n in (2, 3)]


def test_the_covering_pairs_take_in_every_strategy_that_combines():
    assert {name for pair in COVERING for name in pair} == {name for p in PAIRS for name in p}
    assert len(COVERING) < len(PAIRS)


@pytest.mark.parametrize(("n", "names"), FEASIBILITY)
def test_symmetry_breaking_keeps_feasibility(n, names):
    outcome = protocol.solve(BEL, n, "cadical195", SolveOptions(time_limit=60),
                             formulation="counts", strategies=names)
    assert outcome.status is Status.SOLVED
    assert satisfied(n, names, labels_of(outcome.solution))


def test_symmetry_breakers_keep_an_image_of_the_published_solution(n3):
    # Soundness on the published N=3 solution itself: among all 64 * 5! images of it under
    # the symmetries, every symmetry strategy and every pair said to combine keeps one.
    orbit = [labels_of(s) for s in full_orbit(n3)]
    assert len(orbit) == 64 * 120
    assert all(verify_solution(s).valid for s in full_orbit(n3)[::97])
    lengths = pyramid(3).line_lengths
    for names in [[name] for name in SOUND] + [list(p) for p in PAIRS]:
        rules = rules_for(3, names)
        assert any(all(holds(rule, labels, lengths) for rule in rules) for labels in orbit), names


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_computed_group_order_matches_the_formula(n):
    # Computed from the incidence graph alone (families not told apart), against the formula
    # 4^N (N >= 2), 6 (N = 1) derived in symmetry.py.
    assert symmetry_group(n).order == group_order(n)


@pytest.mark.slow
def test_computed_group_order_n5():
    assert symmetry_group(5).order == group_order(5) == 4 ** 5


def closure(perms: list[list[int]]) -> set[tuple[int, ...]]:
    identity = tuple(range(len(perms[0])))
    seen, frontier = {identity}, [identity]
    while frontier:
        p = frontier.pop()
        for g in perms:
            q = tuple(g[i] for i in p)
            if q not in seen:
                seen.add(q)
                frontier.append(q)
    return seen


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_explicit_generators_are_automorphisms_and_generate_the_group(n):
    geo = pyramid(n)
    gens = generators(n)
    for g in gens:
        assert sorted(g.values(), key=repr) == sorted(geo.graph.nodes, key=repr)
        assert all(geo.graph.has_edge(g[u], g[v]) for u, v in geo.graph.edges)
        assert all(type(g[v]) is type(v) for v in geo.graph)
    # Lines determine cells (a cell is its set of lines): the action on lines is faithful.
    assert len(closure([line_permutation(n, g) for g in gens])) == group_order(n)


@pytest.mark.parametrize("name", ["n4-published.txt", "n5-lns.txt"])
def test_top_swap_is_a_symmetry_of_published_solutions(name):
    # These two have different labels on the top X and Y lines: the swap makes a new solution.
    solution = published(name)
    assert labels_of(top_swap(solution)) != labels_of(solution)
    assert verify_solution(top_swap(solution)).valid


def test_info_prints_group_order(cli):
    import json

    result = cli("info", 3, "--json")
    assert result.code == 0
    data = json.loads(result.out)
    assert data["automorphism_group_order"] == group_order(3)
    assert "computed_group_order" not in data  # computed only on demand
    assert "top swap" in data["group"]
    computed = json.loads(cli("info", 3, "--group", "--json").out)
    assert computed["computed_group_order"] == computed["automorphism_group_order"]


def test_strategies_listing(cli):
    result = cli("strategies", "--json")
    assert result.code == 0
    import json

    listing = {row["name"]: row for row in json.loads(result.out)["strategies"]}
    assert set(listing) == set(CATALOGUE)
    assert listing["YStep"]["kind"] == "hypothesis"
    assert listing["LabelPermutation"]["kind"] == "symmetry"


def test_unknown_strategy_is_a_usage_error(cli):
    result = cli("solve", 2, "--strategy", "Nope")
    assert result.code == 2 and "unknown strategy" in result.err


@pytest.mark.parametrize("name", ["ConstructiveBottom", "ConstructiveShell"])
def test_constructions_feasible_at_n3(cli, name):
    result = cli("solve", 3, "--strategy", name, "--solver", "cadical195", "--json")
    assert result.code == 0


def test_xstep_with_ystep_is_infeasible_at_n3(cli):
    import json

    result = cli("solve", 3, "--strategy", "XStep", "--strategy", "YStep", "--json")
    assert result.code == 1
    data = json.loads(result.out)
    assert data["status"] == "infeasible"
    assert data["hypotheses"] == ["XStep", "YStep"]
    text = cli("solve", 3, "--strategy", "XStep", "--strategy", "YStep", "--solver",
               "cadical195")
    assert text.code == 1
    assert "infeasible under the hypotheses XStep, YStep: no labelling of this kind" in text.out


def test_sound_strategies_name_no_hypotheses(cli):
    import json

    result = cli("solve", 3, "--strategy", "TopCubeOrdering", "--strategy", "Automorphism",
                 "--solver", "cadical195", "--json")
    assert result.code == 0 and result.err == ""
    assert "hypotheses" not in json.loads(result.out)  # absent: infeasible would be a proof


def test_unsound_combination_warns_and_counts_as_hypothesis(cli):
    import json

    result = cli("solve", 2, "--strategy", "LabelPermutation", "--strategy", "BottomCenter012",
                 "--solver", "cadical195", "--json")
    assert result.code == 0
    assert len(result.err.strip().splitlines()) == 1
    assert "warning" in result.err and "LabelPermutation + BottomCenter012" in result.err
    assert json.loads(result.out)["hypotheses"] == ["LabelPermutation", "BottomCenter012"]


def test_hypotheses_of_strategy_sets():
    assert hypotheses(["FacePBEQ", "LabelPermutation"]) == []
    assert hypotheses(["ZRing", "FacePBEQ"]) == ["ZRing"]
    # A symmetry breaker next to a hypothesis may cut off every solution of that kind.
    assert hypotheses(["YStep", "LabelPermutation"]) == ["YStep", "LabelPermutation"]
    assert unsound_pairs(["YStep", "XStep"]) == []
    for a, b in PAIRS:
        assert hypotheses([a, b]) == []


@pytest.mark.slow
@pytest.mark.parametrize("name", ["ConstructiveBottom", "ConstructiveShell"])
def test_constructions_infeasible_at_n4(cli, name):
    result = cli("solve", 4, "--strategy", name, "--solver", "kissat", "--json",
                 "--time-limit", "1800")
    assert result.code == 1
    assert '"status": "infeasible"' in result.out


def test_exports_carry_strategies(cli, tmp_path):
    plain, with_strategy = tmp_path / "a.lp", tmp_path / "b.lp"
    assert cli("export", 3, "-o", plain).code == 0
    assert cli("export", 3, "-o", with_strategy, "--strategy", "YStep").code == 0
    assert len(with_strategy.read_text()) > len(plain.read_text())
    cnf = tmp_path / "c.cnf"
    assert cli("export", 3, "-o", cnf, "--strategy", "LabelPermutation").code == 0
    assert "LabelPermutation" in cnf.read_text().splitlines()[0]


def test_mip_fixing_uses_plain_rows():
    # Rules compile to linear rows without big-M: every coefficient is 0/±1 or a line length.
    model = build_model(3, "counts", ["LabelPermutation", "Automorphism", "FacePBEQ"])
    lengths = set(pyramid(3).line_lengths)
    for constraint in model.problem.constraints():
        for coefficient in constraint.values():
            assert abs(coefficient) in {1} | lengths
    assert isinstance(model.problem, pulp.LpProblem)
