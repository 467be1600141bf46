"""The benchmark library (`ilp-pyramid models --puzzle all`): the shipped sample in
models/library/ is exactly what the command writes, its manifest describes every file, and
the files, solved by python-sat and HiGHS directly (never through the package's backends),
give the answers the manifest records."""

from __future__ import annotations

import doctest
import hashlib
import json
from pathlib import Path

import highspy
import pytest
from pysat.examples.rc2 import RC2
from pysat.formula import CNF, WCNF
from pysat.solvers import Solver

from ilp_pyramid import library, puzzles
from ilp_pyramid.errors import InputError
from ilp_pyramid.formats import wcnf as wcnf_format

LIBRARY = Path(__file__).resolve().parent.parent / "models" / "library"
MANIFEST = json.loads((LIBRARY / "manifest.json").read_text())
ENTRIES = {entry["file"]: entry for entry in MANIFEST["files"]}
# HiGHS takes seconds on Bel N=3's MPS: the long checks run it.
SLOW_MPS = {"bel_n3.mps.gz"}


def by_format(fmt: str) -> list:
    return [pytest.param(name, marks=pytest.mark.slow) if name in SLOW_MPS else name
            for name, entry in ENTRIES.items() if entry["format"] == fmt]


def test_the_sample_regenerates_byte_for_byte(cli, tmp_path):
    result = cli("models", tmp_path, "--puzzle", "all", "--sample")
    assert result.code == 0, result.err
    shipped = sorted(p.name for p in LIBRARY.iterdir())
    assert sorted(p.name for p in tmp_path.iterdir()) == shipped
    for name in shipped:
        assert (tmp_path / name).read_bytes() == (LIBRARY / name).read_bytes(), name


def test_the_manifest_describes_every_file():
    assert set(ENTRIES) == {p.name for p in LIBRARY.iterdir()} - {"manifest.json"}
    assert {e["puzzle"] for e in ENTRIES.values()} == set(puzzles.names())
    for name, entry in ENTRIES.items():
        data = (LIBRARY / name).read_bytes()
        assert entry["bytes"] == len(data) and entry["sha256"] == hashlib.sha256(data).hexdigest()
        assert name == f"{entry['puzzle']}_{library_label(entry)}.{entry['format']}.gz"
        assert entry["format"] in ("mps", "cnf", "wcnf") and entry["variables"] > 0
        answer = entry["answer"]
        assert answer["status"] in ("solved", "infeasible")
        assert ("optimum" in answer) is (entry["puzzle"] == "views"
                                         and answer["status"] == "solved")
    # Solvable and unsolvable instances both, and views as MaxSAT (WCNF) only.
    assert {e["answer"]["status"] for e in ENTRIES.values()} == {"solved", "infeasible"}
    assert {e["format"] for e in ENTRIES.values() if e["puzzle"] == "views"} == {"mps", "wcnf"}
    assert not [e for e in ENTRIES.values() if e["puzzle"] != "views" and e["format"] == "wcnf"]
    assert sum(e["bytes"] for e in ENTRIES.values()) < 400_000  # a small sample


def library_label(entry: dict) -> str:
    """The instance label of the library's ramp with these parameters."""
    found = [i.label for i in library.RAMPS[entry["puzzle"]]
             if i.parameters == entry["parameters"]]
    assert len(found) == 1, entry
    return found[0]


@pytest.mark.parametrize("name", by_format("cnf"))
def test_a_cnf_file_solved_by_python_sat_directly_gives_the_manifests_answer(name):
    formula = CNF(from_file=str(LIBRARY / name))
    assert formula.nv == ENTRIES[name]["variables"]
    assert len(formula.clauses) == ENTRIES[name]["clauses"]
    with Solver(name="cadical195", bootstrap_with=formula.clauses) as engine:
        satisfiable = engine.solve()
        if satisfiable:
            model = set(engine.get_model())
            assert all(any(lit in model for lit in clause) for clause in formula.clauses)
    assert satisfiable is (ENTRIES[name]["answer"]["status"] == "solved")


@pytest.mark.parametrize("name", by_format("wcnf"))
def test_a_wcnf_file_solved_by_rc2_directly_gives_the_manifests_optimum(name):
    formula = WCNF(from_file=str(LIBRARY / name))
    entry = ENTRIES[name]
    assert (len(formula.hard), len(formula.soft)) == (entry["hard"], entry["soft"])
    with RC2(formula) as rc2:
        model = rc2.compute()
        cost = rc2.cost
    if entry["answer"]["status"] == "infeasible":
        assert model is None
        return
    assert model is not None and cost == entry["answer"]["optimum"]


@pytest.mark.parametrize("name", by_format("mps"))
def test_an_mps_file_solved_by_highspy_directly_gives_the_manifests_answer(name):
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    assert highs.readModel(str(LIBRARY / name)) == highspy.HighsStatus.kOk
    lp = highs.getLp()
    entry = ENTRIES[name]
    assert (lp.num_col_, lp.num_row_) == (entry["variables"], entry["constraints"])
    highs.run()
    status = highs.getModelStatus()
    if entry["answer"]["status"] == "infeasible":
        assert status == highspy.HighsModelStatus.kInfeasible
        return
    assert status == highspy.HighsModelStatus.kOptimal
    if "optimum" in entry["answer"]:
        assert round(highs.getInfo().objective_function_value) == entry["answer"]["optimum"]


def test_one_puzzles_part_of_the_library_with_json(cli, tmp_path):
    result = cli("models", tmp_path, "--puzzle", "views", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["directory"] == str(tmp_path)
    files = data["files"]
    assert {e["puzzle"] for e in files} == {"views"}
    assert [e["file"] for e in files] == \
        [f"views_{i.label}.{kind}.gz" for i in library.RAMPS["views"] for kind in ("mps", "wcnf")]
    optima = {e["parameters"].get("number", e["file"].split(".")[0]): e["answer"].get("optimum")
              for e in files}
    assert optima["347177"] == 18 and optima["000157"] == 12 and optima["000000"] is None
    # the ramp's hard end: generated views, their optimum proved too
    assert optima["views_generated_n16_s0"] > 0
    on_disk = json.loads((tmp_path / "manifest.json").read_text())
    assert on_disk["files"] == files


@pytest.mark.parametrize(("args", "message"), [
    (["--puzzle", "nope"], "the library has no puzzle 'nope'"),
    (["--puzzle", "all", "--max-n", "3"], "--max-n is for --puzzle bel"),
    (["--sample"], "--sample is for the library"),
])
def test_bad_options_are_bad_input(cli, tmp_path, args, message):
    result = cli("models", tmp_path / "out", *args)
    assert result.code == 2 and message in result.err and result.out == ""
    assert not (tmp_path / "out").exists()


def test_the_default_is_still_bels_classic_set(cli, tmp_path):
    result = cli("models", tmp_path, "--max-n", 2, "--json")
    assert result.code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "bel_n2_counts.cnf.gz", "bel_n2_counts.mps.gz", "manifest.json"]
    assert json.loads(result.out)["instances"][0]["status"] == "feasible"


def test_every_ramp_has_solvable_and_unsolvable_instances_where_the_puzzle_has_them():
    for name in puzzles.names():
        assert library.RAMPS[name], name
        assert any(i.sample for i in library.RAMPS[name]), name
    assert [i.label for i in library.ramp("all", sample=True)] == \
        [i.label for name in puzzles.names() for i in library.RAMPS[name] if i.sample]
    with pytest.raises(InputError, match="no puzzle"):
        library.ramp("chess")


def test_the_wcnf_writer():
    assert doctest.testmod(wcnf_format).failed == 0
    with pytest.raises(InputError, match="weights"):
        wcnf_format.wcnf_text([], [[1]], [])
    with pytest.raises(InputError, match="whole number >= 1"):
        wcnf_format.wcnf_text([], [[1]], [0])


@pytest.mark.slow  # the whole ramp: about ten seconds, Bel N=4's and IQ's largest files
def test_the_whole_library_is_written_twice_the_same(cli, tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    assert cli("models", first, "--puzzle", "all").code == 0
    assert cli("models", second, "--puzzle", "all").code == 0
    names = sorted(p.name for p in first.iterdir())
    assert names == sorted(p.name for p in second.iterdir())
    assert all((first / n).read_bytes() == (second / n).read_bytes() for n in names)
    manifest = json.loads((first / "manifest.json").read_text())
    for entry in manifest["files"]:
        if entry["format"] == "cnf":
            formula = CNF(from_file=str(first / entry["file"]))
            with Solver(name="cadical195", bootstrap_with=formula.clauses) as engine:
                assert engine.solve() is (entry["answer"]["status"] == "solved"), entry
