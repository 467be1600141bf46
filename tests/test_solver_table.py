"""The one solver table: every solver is one line, resolved once into an object that knows
its family, its forms, its extra and whether it is installed; every listing reads it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import ilp_pyramid
from ilp_pyramid import backends, extras
from ilp_pyramid.backends import solvers
from ilp_pyramid.backends.base import SolveOptions, Status
from ilp_pyramid.errors import InputError

PACKAGE = Path(ilp_pyramid.__file__).resolve().parent


@pytest.mark.parametrize("name", ilp_pyramid.solvers())
def test_every_listed_solver_resolves_to_an_object_that_says_what_it_is(name):
    entry = ilp_pyramid.solver(name)
    assert entry.name == name and entry.family in solvers.FAMILIES
    assert entry.forms and entry.forms[-1] == "exact_cover" and entry.installed is True
    assert entry.extra is None or entry.extra in {e for e, _ in extras.EXTRAS.values()}
    assert backends.forms_for(name) == entry.forms


@pytest.mark.parametrize("name", ilp_pyramid.solvers())
def test_every_listed_solver_solves_the_same_small_exact_cover(name):
    form = backends.ExactCoverForm([[0, 1], [1, 2], [2], [0]], num_primary=3)
    result = backends.solve(form, ilp_pyramid.solver(name), SolveOptions(time_limit=60))
    if name == "gurobi" and result.status is Status.ERROR:
        pytest.skip("gurobipy without a usable licence here")
    assert result.status is Status.SOLVED
    assert sorted(item for row in result.rows for item in form.rows[row]) == [0, 1, 2]


def test_aliases_resolve_to_their_line_and_unknown_names_say_the_choices():
    kissat = ilp_pyramid.solver("kissat")
    assert kissat.name == "kissat" and kissat.plugin == ilp_pyramid.solver("kissat404").plugin
    assert kissat.family == "sat" and kissat.forms == ("cnf", "wcnf", "exact_cover")
    assert ilp_pyramid.solver(" HiGHS ") is solvers.solver("highs")
    with pytest.raises(InputError,
                       match=r"unknown solver .zchaff. \(choose from kissat, cadical, highs"):
        ilp_pyramid.solver("zchaff")
    with pytest.raises(InputError, match="named by a string"):
        solvers.solver(3)  # type: ignore[arg-type]


def test_a_missing_library_names_its_extra(monkeypatch):
    monkeypatch.setattr(extras, "available", lambda module: module != "pyscipopt")
    monkeypatch.setattr(extras, "need", lambda module: (_ for _ in ()).throw(
        InputError(extras.install_hint(module))))
    scip = solvers.solver("scip")
    assert scip.installed is False and scip.extra == "scip"
    assert "scip" not in ilp_pyramid.solvers()
    with pytest.raises(InputError, match=r"ilp-pyramid\[scip\]"):
        scip.require()


def test_help_listings_come_from_the_table():
    assert solvers.listing("mip") == "highs | cbc | scip | gurobi"
    assert solvers.listing("cp", "dlx") == "cpsat | dlx"
    assert set(solvers.names()) == {s.name for s in solvers.SOLVERS} | set(solvers.ALIASES)


def _asks_a_family(path: Path) -> list[str]:
    """Places outside backends/ that test a solver name against a family list or name."""
    lists = {"MIP_SOLVERS", "SAT_SOLVERS", "ALIASES", "MIP_REGISTRY"}
    asked = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Compare) and any(isinstance(op, ast.In | ast.NotIn)
                                                 for op in node.ops):
            for right in node.comparators:
                name = getattr(right, "id", None) or getattr(right, "attr", None)
                if name in lists:
                    asked.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
        if isinstance(node, ast.Attribute) and node.attr in ("is_sat_solver", "MIP_REGISTRY"):
            asked.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    return asked


def _strings(node: ast.AST) -> set[str]:
    """The string constants `node` is, or holds as a tuple, list or set of constants."""
    items = node.elts if isinstance(node, ast.Tuple | ast.List | ast.Set) else [node]
    return {item.value for item in items
            if isinstance(item, ast.Constant) and isinstance(item.value, str)}


def _names_a_family(node: ast.AST) -> bool:
    """`family`, `x.family`, `kind(...)`, `row["family"]` or `row.get("family")`: a
    solver's family (Bel's line families are compared with their own letters, no family
    string of the table; a form's kind, "mip" or "cnf", is no family)."""
    if isinstance(node, ast.Subscript) and _strings(node.slice) == {"family"}:
        return True
    if isinstance(node, ast.Call):
        if getattr(node.func, "attr", None) == "get" and node.args:
            return _strings(node.args[0]) == {"family"}
        return (getattr(node.func, "id", None) or getattr(node.func, "attr", None)) == "kind"
    return (getattr(node, "id", None) or getattr(node, "attr", None)) == "family"


def _tests_a_name(path: Path, root: Path = PACKAGE) -> list[str]:
    """Places that test a solver's name or family string: a comparison with a name of the
    table (aliases too), a family string compared with a family, a name's prefix."""
    names = {name.lower() for name in solvers.names()}
    families = set(solvers.FAMILIES)
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            strings = set().union(*(_strings(side) for side in sides))
            if strings & names or (strings & families and any(map(_names_a_family, sides))):
                found.append(f"{path.relative_to(root)}:{node.lineno}")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("startswith", "endswith") and node.args
              and _strings(node.args[0]) & names):
            found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def test_no_layer_classifies_a_solver_name_again():
    """Names are resolved once (`solvers.solver`) and what a solver can do is a field of its
    line: no module but the table itself tests a solver's name or family string, the
    backend modules included."""
    modules = sorted(PACKAGE.rglob("*.py"))
    outside = [path for path in modules if path.relative_to(PACKAGE).parts[0] != "backends"]
    assert len(outside) > 100  # the walk sees the package (a checkout's own path may say
    # "backends": only the part inside the package is looked at)
    assert [place for path in outside for place in _asks_a_family(path)] == []
    table = PACKAGE / "backends" / "solvers.py"
    assert [place for path in modules if path != table for place in _tests_a_name(path)] == []


def test_the_name_scan_finds_what_it_looks_for(tmp_path):
    """The scan above is not blind: each kind of test it refuses is found in a sample."""
    sample = tmp_path / "sample.py"
    tests = ['solver == "cpsat"', 'family in ("mip", "cp")', 'entry.family != "mip"',
             'real.startswith("kissat")', '"dlx" == name', 'kind(solver) == "sat"',
             'row.get("family") == "mip"', 'row["family"] in ("sat", "cp")']
    sample.write_text("\n".join(tests) + "\n")
    assert len(_tests_a_name(sample, tmp_path)) == len(tests)
    sample.write_text('line.family == "Z"\nform == "mip"\nmethod == "sat"\nkind == "cnf"\n')
    assert _tests_a_name(sample, tmp_path) == []


def test_the_solvers_a_puzzle_can_use_are_those_taking_one_of_its_forms():
    assert solvers.taking(("mip",)) == ["highs", "cbc", "scip", "gurobi"]
    # A weighted CNF: RC2, and the SAT solvers by their linear search; not CP-SAT or DLX.
    assert {"rc2", "kissat404", "cadical195"} <= set(solvers.taking(("mip", "wcnf")))
    assert not {"cpsat", "dlx"} & set(solvers.taking(("mip", "wcnf")))
    assert solvers.taking(("exact_cover",)) == [s.name for s in solvers.SOLVERS]
