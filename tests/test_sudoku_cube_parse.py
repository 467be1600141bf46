"""The sticker-state text format: round trips, and one-line errors naming face and position."""

import pytest

from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles.sudoku_cube.generate import generate
from ilp_pyramid.puzzles.sudoku_cube.state import parse_state, state_from_dict

GOOD = """\
# a comment line
U: 1^ 2^ 3^ 4^ 5^ 6^ 7^ 8^ 9^
R: 1> 2> 3> 4> 5> 6> 7> 8> 9>   # trailing comment

F: 1v 2v 3v 4v 5v 6v 7v 8v 9v
D: 1< 2< 3< 4< 5< 6< 7< 8< 9<
B: 9^ 8^ 7^ 6^ 5^ 4^ 3^ 2^ 1^
L: 5^ 5> 5v 5< 5^ 5^ 5^ 5^ 5^
"""


def test_parses_faces_in_any_order_with_comments_and_blank_lines():
    state = parse_state(GOOD)
    assert state.face_tokens("R")[0] == "1>"
    assert state.face_tokens("F")[8] == "9v"
    assert state.face_tokens("L")[:4] == ["5^", "5>", "5v", "5<"]
    assert state.face_tokens("B")[0] == "9^"


def test_text_and_dict_round_trip():
    state = generate(3).state
    assert parse_state(state.to_text("header\nline two")) == state
    assert state_from_dict(state.to_dict()) == state


@pytest.mark.parametrize("text, fragments", [
    (GOOD.replace("F: 1v 2v 3v", "F: 1v 2x 3v"), ["line 5", "face F position 2", "'2x'"]),
    (GOOD.replace("U: 1^", "U: 0^"), ["face U position 1", "'0^'"]),
    (GOOD.replace("D: 1< 2<", "D: 1<"), ["face D has 8 tokens"]),
    (GOOD.replace("B: 9^ 8^", "X: 9^ 8^"), ["unknown face 'X'"]),
    (GOOD.replace("L: 5^", "U: 5^"), ["line 8: face U given twice (first on line 2)"]),
    (GOOD.replace("L: 5^ 5> 5v 5< 5^ 5^ 5^ 5^ 5^\n", ""), ["face L missing"]),
    ("", ["faces U R F D L B missing"]),
    (GOOD.replace("R: ", "R "), ["line 3", "expected 'FACE: nine tokens'"]),
    (GOOD.replace("U: 1^ 2^", "U: 1^ 2^ 3^"), ["face U has 10 tokens"]),
])
def test_malformed_files_get_one_line_errors(text, fragments):
    with pytest.raises(InputError) as info:
        parse_state(text)
    message = str(info.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message
