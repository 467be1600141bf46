import json

import pytest

from ilp_pyramid.puzzles.bel.solution import parse_drawing

FIXTURE_NAMES = ["n3-example.txt", "n4-published.txt"]


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_fixtures_are_valid(cli, fixtures, name):
    result = cli("verify", fixtures / "bel" / name)
    assert result.code == 0
    assert result.out.startswith("valid")


@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_drawing_roundtrips_exactly(fixtures, name):
    text = (fixtures / "bel" / name).read_text()
    assert parse_drawing(text).to_drawing() == text


def test_altered_z_label_names_the_duplicate_and_the_missing_cube(cli, fixtures, tmp_path):
    text = (fixtures / "bel" / "n3-example.txt").read_text()
    # Z(4, 0) 3 -> 4: the cell (4, 0, 0) shows {X(4,0)=0, Y(0,0)=1, 4} = {0,1,4}, which
    # (2, 1, 0) already shows, and {0,1,3} is no longer shown anywhere.
    altered = text.replace("|  2  1  1  4  3 |  1", "|  2  1  1  4  4 |  1")
    path = tmp_path / "bad.txt"
    path.write_text(altered)
    result = cli("verify", path)
    assert result.code == 1
    assert "cube {0,1,4} appears 2 times" in result.out
    assert "(x=4, y=0, h=0)" in result.out and "(x=2, y=1, h=0)" in result.out
    assert "cube {0,1,3} is missing" in result.out


def test_altered_n4_x_label_is_rejected(cli, fixtures, tmp_path):
    text = (fixtures / "bel" / "n4-published.txt").read_text()
    lines = text.splitlines()
    lines[-1] = lines[-1].replace("4", "0")  # X(3, 3): the top cube changes
    path = tmp_path / "bad4.txt"
    path.write_text("\n".join(lines) + "\n")
    result = cli("verify", path)
    assert result.code == 1
    assert "appears 2 times" in result.out and "is missing" in result.out


def test_swapping_two_labels_everywhere_keeps_validity(cli, fixtures, tmp_path):
    # A label permutation maps the cube set onto itself: the relabelled pyramid is valid too.
    solution = parse_drawing((fixtures / "bel" / "n3-example.txt").read_text())
    swap = {0: 1, 1: 0}
    relabel = [[swap.get(v, v) for v in row] for row in solution.Z]
    data = {"Z": relabel,
            "X": [[swap.get(v, v) for v in row] for row in solution.X],
            "Y": [[swap.get(v, v) for v in row] for row in solution.Y]}
    path = tmp_path / "swap.json"
    path.write_text(json.dumps(data))
    assert cli("verify", path).code == 0


@pytest.mark.parametrize("mutate, fragment", [
    (lambda t: t.replace("|  2  1  1  4  3 |  1", "|  2  1  1  4 |  1"), "has 4 labels"),
    (lambda t: t.replace("|  2  1  1  4  3 |  1", "|  2  1  a  4  3 |  1"), "not a label"),
    (lambda t: t.replace("|  2  1  1  4  3 |  1", "|  2  1  9  4  3 |  1"), "out of range"),
    (lambda t: "\n".join(t.splitlines()[:-1]) + "\n", "triangle below"),
    (lambda t: t.replace("|  4  2\n", "|  4\n"), "side triangle row 2"),
    (lambda t: "hello\n", "not a Knuth drawing"),
    (lambda t: "{\"Z\": [[0]]}", "keys Z, X and Y"),
    (lambda t: "{bad json", "malformed JSON"),
])
def test_malformed_files_exit_2_with_one_line(cli, fixtures, tmp_path, mutate, fragment):
    text = (fixtures / "bel" / "n3-example.txt").read_text()
    path = tmp_path / "m.txt"
    path.write_text(mutate(text))
    result = cli("verify", path)
    assert result.code == 2, result.out
    assert fragment in result.err
    assert len(result.err.strip().splitlines()) == 1
