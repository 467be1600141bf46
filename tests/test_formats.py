"""formats/: MIP solution files read back by name, DIMACS text and certificates."""

from __future__ import annotations

import re

import highspy
import pytest

from ilp_pyramid.formats.dimacs import SATISFIABLE, dimacs_text, parse_certificate
from ilp_pyramid.formats.mipfile import read_mip_values, write_mip
from ilp_pyramid.puzzles.bel.model import build_model

LINE_NAMES = re.compile(r"x_[XYZ]_\d+_\d+_l\d+")


@pytest.fixture(scope="module")
def highs_solutions(tmp_path_factory):
    """Bel N=2 solved by HiGHS (highspy) and written in both of its .sol styles."""
    where = tmp_path_factory.mktemp("sol")
    model = build_model(2)
    write_mip(model.problem, str(where / "m.mps"), "mps")
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    highs.readModel(str(where / "m.mps"))
    highs.run()
    truth = dict(zip(highs.allVariableNames(), highs.allVariableValues(), strict=True))
    texts = {}
    for style, name in ((0, "raw"), (1, "pretty")):
        highs.writeSolution(str(where / f"{name}.sol"), style)
        texts[name] = (where / f"{name}.sol").read_text()
    return truth, texts


@pytest.mark.parametrize("style", ["raw", "pretty"])
def test_highs_solution_files_read_back_exactly(highs_solutions, style):
    truth, texts = highs_solutions
    values = read_mip_values(texts[style], LINE_NAMES)
    expected = {name: value for name, value in truth.items() if LINE_NAMES.fullmatch(name)}
    assert values == pytest.approx(expected) and len(values) == len(expected) > 0
    # The solution decodes to a labelling with exactly one label per line.
    assert sum(v > 0.5 for v in values.values()) == len(build_model(2).pyramid.lines)


def test_pretty_values_never_come_from_the_next_line():
    """The name ends a pretty row; the next row starts with its index (issue 14 item 9)."""
    text = ("Columns\n"
            "    Index Status        Lower        Upper       Primal         Dual  Type"
            "        Name\n"
            "        7                   0            1            0               Integer"
            "     x_X_0_0_l0\n"
            "        8                   0            1            1               Integer"
            "     x_X_0_0_l1\n"
            "Rows\n"
            "    Index Status        Lower        Upper       Primal         Dual  Name\n"
            "        0                   1            1            1               x_X_0_0_l0\n")
    assert read_mip_values(text, LINE_NAMES) == {"x_X_0_0_l0": 0.0, "x_X_0_0_l1": 1.0}


def test_cbc_and_plain_files_and_name_sets():
    cbc = ("Optimal - objective value 0\n"
           "      0 x_Z_0_0_l0        1       0\n"
           "**    1 y_c0_k0           0.5     0\n")
    assert read_mip_values(cbc, LINE_NAMES) == {"x_Z_0_0_l0": 1.0}
    assert read_mip_values(cbc, {"y_c0_k0"}) == {"y_c0_k0": 0.5}
    plain = "a 1\nb nan\nc 1e999\nd -2.5\n"
    assert read_mip_values(plain, {"a", "b", "c", "d"}) == {"a": 1.0, "d": -2.5}


def test_dimacs_text_and_certificate_round_trip():
    text = dimacs_text([[1, -2], [2]], 2, ["c two clauses"])
    assert text == "c two clauses\np cnf 2 2\n1 -2 0\n2 0\n"
    assert parse_certificate("s SATISFIABLE\nv 1 2 0\n") == (SATISFIABLE, [1, 2])
