"""The public benchmark set in models/ is exactly what `ilp-pyramid models` writes, and an
exported model solved by an outside solver reads back through `read-solution`."""

import json
from pathlib import Path

import highspy
import pytest

MODELS = Path(__file__).resolve().parent.parent / "models"


@pytest.mark.slow  # seconds of wall time: the default suite keeps its budget
def test_models_regenerate_byte_for_byte(cli, tmp_path):
    result = cli("models", tmp_path)
    assert result.code == 0, result.err
    committed = sorted(p.name for p in MODELS.iterdir() if p.is_file())  # library/: its own
    assert sorted(p.name for p in tmp_path.iterdir()) == committed
    for name in committed:
        assert (tmp_path / name).read_bytes() == (MODELS / name).read_bytes(), name


def test_manifest_describes_every_file():
    manifest = json.loads((MODELS / "manifest.json").read_text())
    files = {entry["file"] for entry in manifest["instances"]}
    assert files == {p.name for p in MODELS.iterdir() if p.is_file()} - {"manifest.json"}
    for entry in manifest["instances"]:
        assert entry["status"] == "feasible"
        if entry["format"] == "mps":
            assert entry["rows"] > 0 and entry["columns"] > 0 and entry["nonzeros"] > 0


@pytest.mark.parametrize("n", [2, pytest.param(3, marks=pytest.mark.slow)])
def test_mps_solved_by_highspy_reads_back(cli, tmp_path, n):
    model = tmp_path / f"bel{n}.mps"
    assert cli("export", n, "-o", model).code == 0
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    highs.readModel(str(model))
    highs.run()
    assert highs.getModelStatus() == highspy.HighsModelStatus.kOptimal
    solution = tmp_path / "highs.sol"
    highs.writeSolution(str(solution), 0)
    result = cli("read-solution", model, solution)
    assert result.code == 0, result.err
    assert result.out.startswith("valid")


def test_lp_export_and_name_value_solution(cli, tmp_path, fixtures):
    # A solution in plain "name value" form, written by hand from the published N=3 drawing,
    # decodes by the exported LP's variable names.
    from ilp_pyramid.puzzles.bel.geometry import pyramid
    from ilp_pyramid.puzzles.bel.solution import parse_drawing

    model = tmp_path / "bel3.lp.gz"
    assert cli("export", 3, "-o", model).code == 0
    published = parse_drawing((fixtures / "bel" / "n3-example.txt").read_text())
    lines = []
    for line in pyramid(3).lines:
        label = published.label(line.family, line.a, line.b)
        lines += [f"x_{line.name}_l{v} {1 if v == label else 0}" for v in range(5)]
    solution = tmp_path / "plain.sol"
    solution.write_text("\n".join(lines) + "\n")
    result = cli("read-solution", model, solution, "--json")
    assert result.code == 0
    assert json.loads(result.out)["solution"]["Z"] == published.Z


def test_read_solution_rejects_a_solution_with_a_line_missing(cli, tmp_path):
    model = tmp_path / "bel2.mps"
    assert cli("export", 2, "-o", model).code == 0
    bad = tmp_path / "bad.sol"
    bad.write_text("x_Z_0_0_l0 1\n")
    result = cli("read-solution", model, bad)
    assert result.code == 2 and "has no label" in result.err


def test_read_solution_of_a_foreign_model(cli, tmp_path):
    other = tmp_path / "other.lp"
    other.write_text("\\* something else *\\\nMinimize\nobj: x\nEnd\n")
    sol = tmp_path / "s.sol"
    sol.write_text("x 1\n")
    result = cli("read-solution", other, sol)
    assert result.code == 2 and "not a Bel model" in result.err


def test_export_is_atomic_and_gzip_by_name(cli, tmp_path):
    out = tmp_path / "m.mps.gz"
    assert cli("export", 2, "-o", out).code == 0
    assert out.read_bytes()[:2] == b"\x1f\x8b"
    assert [p.name for p in tmp_path.iterdir()] == ["m.mps.gz"]  # no temp files left behind
