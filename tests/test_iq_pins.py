"""Single-ball pins in `--given` (a small letter: this cell belongs to that piece), enforced by
every engine; expected answers come from the enumerated fillings, never typed in."""

from __future__ import annotations

import json

import pytest

from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles.iq.boards import board_by_name
from ilp_pyramid.puzzles.iq.given import parse_challenge
from ilp_pyramid.puzzles.iq.pieces import STANDARD_PIECES
from ilp_pyramid.verify.iq import parse_solution_line


def lines_of(path) -> list[str]:
    return [line for line in path.read_text().splitlines() if line and not line.startswith("#")]


@pytest.fixture(scope="module")
def triangle_completions(tmp_path_factory):
    """The five-given triangle challenge's completions, as `iq count --output` lists them."""
    from conftest import FIXTURES, run_cli

    out = tmp_path_factory.mktemp("c") / "c.txt"
    given = FIXTURES / "iq" / "triangle_five_given.txt"
    assert run_cli("iq", "count", "triangle", "--given", str(given), "-o", str(out)).code == 0
    return given.read_text().split(), lines_of(out)


def pinned_rows(rows: list[str], cell: tuple[int, int], letter: str) -> str:
    x, y = cell
    rows = list(rows)
    rows[y] = rows[y][:x] + letter.lower() + rows[y][x + 1:]
    return "\n".join(rows) + "\n"


@pytest.mark.parametrize("solver", ["dlx", "highs", "cbc", "kissat"])
def test_every_engine_keeps_the_pin(cli, tmp_path, triangle_completions, solver):
    rows, completions = triangle_completions
    assert len(completions) >= 2
    first, second = (parse_solution_line(line, 2) for line in completions[:2])
    cell = next(c for c in sorted(first) if first[c] != second[c])
    for wanted in (completions[0], completions[1]):
        letter = parse_solution_line(wanted, 2)[cell]
        challenge = tmp_path / "pin.txt"
        challenge.write_text(pinned_rows(rows, cell, letter))
        result = cli("iq", "solve", "triangle", "--given", str(challenge), "-s", solver, "--json")
        assert result.code == 0, result.err
        grid = json.loads(result.out)["grid"]
        assert "/".join(grid) == wanted  # the pin picks this completion out of the two
        counted = cli("iq", "count", "triangle", "--given", str(challenge), "--json")
        assert json.loads(counted.out)["solutions"] == sum(
            parse_solution_line(c, 2)[cell] == letter for c in completions)


def test_pins_in_the_pyramid_select_exactly_the_matching_fillings(cli, tmp_path):
    every = tmp_path / "all.txt"
    assert cli("iq", "count", "pyramid4", "-o", str(every)).code == 0
    fillings = [parse_solution_line(line, 3) for line in lines_of(every)]
    top, corner = (0, 0, 3), (0, 0, 0)
    letter, other = fillings[0][top], fillings[0][corner]
    # Level 1 (4x4, bottom) with a pin in its corner, levels 2-3 free, the top ball pinned.
    pins = tmp_path / "pins.txt"
    pins.write_text(f"{other.lower()}...\n....\n....\n....\n\n...\n...\n...\n\n..\n..\n\n"
                    f"{letter.lower()}\n")
    out = tmp_path / "pinned.txt"
    result = cli("iq", "count", "pyramid4", "--given", str(pins), "-o", str(out), "--json")
    assert result.code == 0, result.err
    expected = [f for f in fillings if f[top] == letter and f[corner] == other]
    assert json.loads(result.out)["solutions"] == len(expected) > 0
    assert sorted(lines_of(out)) == sorted(
        line for line, f in zip(lines_of(every), fillings, strict=True) if f in expected)
    # The checker holds fillings to the pins too: the unpinned list breaks them.
    assert cli("iq", "verify", "pyramid4", str(out), "--given", str(pins)).code == 0
    assert cli("iq", "verify", "pyramid4", str(every), "--given", str(pins)).code == 1
    solved = cli("iq", "solve", "pyramid4", "--given", str(pins), "-s", "highs", "--json")
    assert solved.code == 0, solved.err
    levels = json.loads(solved.out)["grid"]
    assert levels[3][0] == letter and levels[0][0][0] == other


def test_pin_syntax_and_errors():
    board = board_by_name("triangle")
    rows = ["." * (r + 1) for r in range(10)]
    rows[9] = "h........."
    challenge = parse_challenge("\n".join(rows), board, STANDARD_PIECES)
    assert challenge.given == {} and list(challenge.pins.values()) == [7]  # H is piece 7
    as_json = parse_challenge('{"h": [[0, 9]]}', board, STANDARD_PIECES)
    assert as_json.pins == challenge.pins
    rows[9] = "H........."  # one capital cell is not a whole piece
    with pytest.raises(InputError, match="small letter h"):
        parse_challenge("\n".join(rows), board, STANDARD_PIECES)
    rows[9] = "JJJJh....."
    rows[8] = "j........"
    with pytest.raises(InputError, match="both given whole"):
        parse_challenge("\n".join(rows), board, STANDARD_PIECES)


def test_an_impossible_pin_is_an_answer_not_an_error(cli, tmp_path):
    rows = ["." * (r + 1) for r in range(10)]
    rows[0] = "k"  # the 2x2 square cannot cover the apex of the triangle
    challenge = tmp_path / "k.txt"
    challenge.write_text("\n".join(rows) + "\n")
    for solver in ("dlx", "highs", "kissat"):
        result = cli("iq", "solve", "triangle", "--given", str(challenge), "-s", solver)
        assert result.code == 1, (solver, result.out, result.err)
        assert "no solution" in result.out
