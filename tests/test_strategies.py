"""Strategies: each compiled form (MIP rows, SAT clauses) accepts exactly the labellings its
data says it should, symmetry breakers keep small pyramids feasible, and the geometric group
has the order we derive by hand."""

from __future__ import annotations

import random
from itertools import combinations

import pulp
import pytest
from pysat.solvers import Solver

from ilp_pyramid.backends.base import SolveOptions
from ilp_pyramid.backends.mip import solve as mip_solve
from ilp_pyramid.puzzles.bel import runner
from ilp_pyramid.puzzles.bel.cnf import build_cnf
from ilp_pyramid.puzzles.bel.geometry import pyramid
from ilp_pyramid.puzzles.bel.model import build_model
from ilp_pyramid.puzzles.bel.solution import BelSolution, parse_drawing
from ilp_pyramid.puzzles.bel.strategies import CATALOGUE, combine, satisfied
from ilp_pyramid.puzzles.bel.symmetry import symmetry_group
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


def full_orbit(solution: BelSolution) -> list[BelSolution]:
    """Every image under the geometric group and the label permutations."""
    from itertools import permutations, product

    n = solution.n
    images = []
    for flip, xs, ys in product([False, True], product([0, 1], repeat=n - 1),
                                product([0, 1], repeat=n - 1)):
        image = transpose(solution) if flip else solution
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
        for x in range(solution.n - 1):
            if rng.random() < 0.5:
                image = swap_x_slice(image, x)
            if rng.random() < 0.5:
                image = swap_y_slice(image, x)
        perm = list(range(2 * solution.n - 1))
        rng.shuffle(perm)
        out.append(relabel(image, perm))
    return out


def mip_accepts(n: int, name: str, labels: list[int]) -> bool:
    model = build_model(n, "counts", [name])
    for (line, label), var in model.line_vars.items():
        model.problem.addConstraint(var == (1 if labels[line] == label else 0),
                                    f"fix_{line}_{label}")
    result = mip_solve(model.problem, "highs", SolveOptions(time_limit=60))
    assert result.status in ("solved", "infeasible"), result.status
    return result.status == "solved"


def sat_accepts(n: int, name: str, labels: list[int]) -> bool:
    cnf = build_cnf(n)
    runner.add_strategy_clauses(cnf, n, [name])
    assumptions = [cnf.line_var(i, label) for i, label in enumerate(labels)]
    with Solver(name="cadical195", bootstrap_with=cnf.formula.clauses) as solver:
        return solver.solve(assumptions=assumptions)


def published(name: str) -> BelSolution:
    from tests.conftest import FIXTURES

    return parse_drawing((FIXTURES / "bel" / name).read_text())


@pytest.fixture(scope="module")
def n3() -> BelSolution:
    return published("n3-example.txt")


@pytest.fixture(scope="module")
def labellings(n3) -> list[BelSolution]:
    sample = orbit_sample(n3, 300) + orbit_sample(published("n4-published.txt"), 300)
    assert all(verify_solution(s).valid for s in sample[:20] + sample[-20:])
    return sample


def solved_with(n: int, name: str) -> BelSolution | None:
    outcome = runner.run(n, "cadical195", "counts", SolveOptions(time_limit=60),
                         strategies=[name])
    return outcome.solution


@pytest.mark.parametrize("name", list(CATALOGUE))
def test_compiled_forms_accept_and_reject_like_the_data(name, labellings):
    yes = next((s for s in labellings if satisfied(s.n, [name], labels_of(s))), None)
    if yes is None:  # hypotheses few symmetric images satisfy: take one the solver finds
        yes = solved_with(3, name)
        assert yes is not None, f"{name} should be feasible at N=3"
        assert verify_solution(yes).valid
        assert satisfied(3, [name], labels_of(yes)), "solver output breaks the strategy"
    no = next((s for s in labellings if not satisfied(s.n, [name], labels_of(s))), None)
    assert mip_accepts(yes.n, name, labels_of(yes))
    assert sat_accepts(yes.n, name, labels_of(yes))
    if CATALOGUE[name].kind == "valid":
        assert no is None  # a valid rule holds on every solution
    else:
        assert no is not None, f"no sampled solution breaks {name}"
        assert not mip_accepts(no.n, name, labels_of(no))
        assert not sat_accepts(no.n, name, labels_of(no))


SOUND = [name for name, s in CATALOGUE.items() if s.kind != "hypothesis"]
PAIRS = [(a, b) for a, b in combinations(SOUND, 2) if combine(a, b)]


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("names", [[name] for name in SOUND] + [list(p) for p in PAIRS],
                         ids=lambda names: "+".join(names))
def test_symmetry_breaking_keeps_feasibility(n, names):
    outcome = runner.run(n, "cadical195", "counts", SolveOptions(time_limit=60),
                         strategies=names)
    assert outcome.status == runner.SOLVED
    assert satisfied(n, names, labels_of(outcome.solution))


def test_symmetry_breakers_keep_an_image_of_the_published_solution(n3):
    # Soundness on the published N=3 solution itself: among all 32 * 5! images of it under
    # the symmetries, every symmetry strategy and every pair said to combine keeps one.
    orbit = [labels_of(s) for s in full_orbit(n3)]
    assert len(orbit) == 32 * 120
    for names in [[name] for name in SOUND] + [list(p) for p in PAIRS]:
        assert any(satisfied(3, names, labels) for labels in orbit), names


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_automorphism_group_order_matches_hand_count(n):
    # By hand: a symmetry may swap the two mirror "cake slices" x <-> B-1-x for each of the
    # N-1 pairs (the pair's columns have the same heights, so every cell keeps a partner,
    # and the X stacks and Z columns trade places), independently for x and for y, and may
    # transpose the square (X <-> Y). Heights t(i) differ between non-mirror positions, and
    # Z lines stay vertical, so nothing else is possible: |G| = 2^(N-1) * 2^(N-1) * 2.
    assert symmetry_group(n).order == 2 ** (2 * n - 1)


@pytest.mark.slow
def test_automorphism_group_order_n6():
    assert symmetry_group(6).order == 2 ** 11


def test_info_prints_group_order(cli):
    result = cli("info", 3, "--json")
    assert result.code == 0
    import json

    assert json.loads(result.out)["automorphism_group_order"] == 32


def test_strategies_listing(cli):
    result = cli("strategies", "--json")
    assert result.code == 0
    import json

    listing = {row["name"]: row for row in json.loads(result.out)}
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
    result = cli("solve", 3, "--strategy", "XStep", "--strategy", "YStep", "--json")
    assert result.code == 1
    assert '"status": "infeasible"' in result.out


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
