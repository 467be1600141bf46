"""The Python API's error contract: bad input is an `ilp_pyramid.InputError` (a ValueError)
with a one-line message, raised where the mistake is made, not frames deep in a library."""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import numpy as np
import pytest

import ilp_pyramid
from ilp_pyramid import InputError, SolveOptions
from ilp_pyramid.errors import InputError as ErrorsInputError


def test_input_error_is_a_value_error_exported_at_the_top():
    assert ilp_pyramid.InputError is ErrorsInputError
    assert issubclass(InputError, ValueError)
    with pytest.raises(ValueError, match="bad"):
        raise InputError("bad")
    assert InputError("bad").exit_code == 2


def test_input_error_keeps_its_message_on_one_line():
    message = str(InputError("line one\nline two\r\u2028three"))
    assert len(message.splitlines()) == 1
    assert message == "line one\\nline two\\r\\u2028three"


BAD_OPTIONS = [
    ({"time_limit": -1}, "time_limit"),
    ({"time_limit": -0.001}, "time_limit"),
    ({"time_limit": math.nan}, "time_limit"),
    ({"time_limit": math.inf}, "time_limit"),
    ({"time_limit": -math.inf}, "time_limit"),
    ({"time_limit": 10**400}, "time_limit"),
    ({"time_limit": "x"}, "time_limit"),
    ({"time_limit": "60"}, "time_limit"),
    ({"time_limit": True}, "time_limit"),
    ({"time_limit": [60]}, "time_limit"),
    ({"threads": 0}, "threads"),
    ({"threads": -2}, "threads"),
    ({"threads": 2.0}, "threads"),
    ({"threads": "4"}, "threads"),
    ({"threads": True}, "threads"),
    ({"seed": -1}, "seed"),
    ({"seed": 1.5}, "seed"),
    ({"seed": "7"}, "seed"),
    ({"seed": False}, "seed"),
    ({"verbose": 1}, "verbose"),
    ({"verbose": "yes"}, "verbose"),
    ({"verbose": None}, "verbose"),
    ({"extra": None}, "extra"),
    ({"extra": [("presolve", "off")]}, "extra"),
    ({"progress": 3}, "progress"),
    ({"progress": "print"}, "progress"),
]


@pytest.mark.parametrize(("options", "name"), BAD_OPTIONS,
                         ids=[f"{k}={v!r}"[:30] for k, v in
                              (next(iter(o.items())) for o, _ in BAD_OPTIONS)])
def test_solve_options_refuse_misuse_when_made(options, name):
    with pytest.raises(InputError) as caught:
        SolveOptions(**options)
    message = str(caught.value)
    assert message.startswith(f"SolveOptions {name} must be "), message
    assert len(message.splitlines()) == 1 and len(message) < 200, message


def test_solve_options_refuse_misuse_through_replace_too():
    with pytest.raises(InputError, match="threads"):
        dataclasses.replace(SolveOptions(), threads=0)


def test_solve_options_take_every_sensible_value():
    options = SolveOptions(time_limit=0, threads=1, seed=0, verbose=True,
                           extra={"presolve": "off"}, progress=print)
    assert (options.time_limit, options.threads, options.seed) == (0, 1, 0)
    assert SolveOptions(time_limit=2.5).time_limit == 2.5
    assert SolveOptions(time_limit=Fraction(1, 2)).time_limit == 0.5
    assert SolveOptions() == SolveOptions(None, None, None, False, {}, None)
    # numpy's numbers are numbers; its integers come out as Python ints
    numpy_made = SolveOptions(time_limit=np.float64(1.5), threads=np.int64(2), seed=np.uint8(3))
    assert numpy_made.time_limit == 1.5
    assert type(numpy_made.threads) is int and numpy_made.threads == 2
    assert type(numpy_made.seed) is int and numpy_made.seed == 3


def test_a_bad_time_limit_fails_before_any_solver_runs():
    """What used to fail nine frames deep inside PuLP fails in the caller's own line."""
    with pytest.raises(InputError) as caught:
        ilp_pyramid.solve("insanity", None, "highs", options=SolveOptions(time_limit="x"))
    assert caught.traceback[-1].name == "_refuse"
    assert all("pulp" not in str(entry.path) for entry in caught.traceback)


# --- the misuse matrix: every public method of every puzzle, and `solve` -----------------
#
# Each call below is a mistake a caller of the Python API can make; each must raise an
# InputError whose message is one line, never an AttributeError or TypeError from frames
# deep inside. A call is a function of `g`, the puzzles with a good instance and solution
# each (built once), so that every entry misuses exactly one argument.

NAMES = ["bel", "iq", "views", "sudoku-cube", "insanity"]
IQ_CHALLENGE = {"B": [[0, 0], [0, 1], [1, 1], [0, 2], [1, 2]]}
INTERNALS = ("object has no attribute", "is not iterable", "unhashable", "not subscriptable",
             "not supported between", "takes no keyword", "unexpected keyword",
             "Traceback")


class Good:
    """Each puzzle by name, with a small instance and a solution the checker accepts."""

    def __init__(self) -> None:
        self.puzzle = {name: ilp_pyramid.puzzle(name) for name in NAMES}
        self.inst = {"bel": 2, "iq": self.puzzle["iq"].instance("triangle", IQ_CHALLENGE),
                     "views": self.puzzle["views"].default(),
                     "sudoku-cube": self.puzzle["sudoku-cube"].generate(3, seed=1),
                     "insanity": self.puzzle["insanity"].default()}
        self.sol = {}
        for name in NAMES:
            if name == "views":  # every cell the three views allow: it shows them exactly
                self.sol[name] = self.inst[name].candidates()
                continue
            solver = "highs" if name == "sudoku-cube" else "kissat" if name != "iq" else "dlx"
            result = ilp_pyramid.solve(self.puzzle[name], self.inst[name], solver)
            assert result.solution is not None, result
            self.sol[name] = result.solution
        for name in NAMES:
            assert self.puzzle[name].verify(self.inst[name], self.sol[name]) == [], name

    def __getitem__(self, name: str):
        return self.puzzle[name]

    def form(self, name: str) -> str:
        return self.puzzle[name].forms[0]


@pytest.fixture(scope="module")
def g() -> Good:
    return Good()


def _refused(call, g) -> str:
    try:
        call(g)
    except InputError as exc:
        message = str(exc)
    except Exception as exc:  # noqa: BLE001 - the point: no other type may escape
        pytest.fail(f"{type(exc).__name__} instead of InputError: {exc}")
    else:
        pytest.fail("accepted")
    assert message and "\n" not in message and message == message.strip(), repr(message)
    assert not any(word in message for word in INTERNALS), message
    return message


# The calls of the issue (each raised an AttributeError, TypeError or ValueError from inside,
# or answered nonsense, before the checks at the doors).
ISSUE = [
    ("issue: iq.instance(None)", lambda g: g["iq"].instance(None)),
    ("issue: solve(bel, options=dict with a bad field)",
     lambda g: ilp_pyramid.solve(g["bel"], 2, "highs", options={"time_limit": "1"})),
    ("issue: solve(bel, options=dict with an unknown field)",
     lambda g: ilp_pyramid.solve(g["bel"], 2, "highs", options={"time": 1})),
    ("issue: bel.verify(inst, None)", lambda g: g["bel"].verify(2, None)),
    ("issue: bel.verify(inst, 'garbage')", lambda g: g["bel"].verify(2, "garbage")),
    ("issue: bel.verify(inst, {})", lambda g: g["bel"].verify(2, {})),
    ("issue: bel.parse(None)", lambda g: g["bel"].parse(None)),
    ("issue: bel.render(inst, None)", lambda g: g["bel"].render(2, None)),
    ("issue: iq.verify(inst, None)", lambda g: g["iq"].verify(g.inst["iq"], None)),
    ("issue: bel.verify('3', sol)", lambda g: g["bel"].verify("3", g.sol["bel"])),
    ("issue: insanity.instance(None)", lambda g: g["insanity"].instance(None)),
    ("issue: solve('nope')", lambda g: ilp_pyramid.solve("nope", None, "highs")),
    ("issue: solve(['bel'])", lambda g: ilp_pyramid.solve(["bel"], None, "highs")),
    ("issue: solve(bel, 2, 'kissat', bogus=1)",
     lambda g: ilp_pyramid.solve("bel", 2, "kissat", bogus=1)),
    ("issue: solve(views, after={'bogus': 1})",
     lambda g: ilp_pyramid.solve("views", None, "highs", after={"bogus": 1})),
    ("issue: solve(bel, after=5)", lambda g: ilp_pyramid.solve("bel", 2, "kissat", after=5)),
    ("issue: solve(iq, 'triangle')", lambda g: ilp_pyramid.solve("iq", "triangle", "dlx")),
    ("issue: iq.render(inst, None)", lambda g: g["iq"].render(g.inst["iq"], None)),
    ("issue: views.verify(inst, None)", lambda g: g["views"].verify(g.inst["views"], None)),
    ("issue: insanity.generate(None)", lambda g: g["insanity"].generate(None)),
    ("issue: sudoku-cube.instance(state, symmetric=None)",
     lambda g: g["sudoku-cube"].instance(g.inst["sudoku-cube"].state, None)),
]


def _common(name: str) -> list[tuple[str, object]]:
    """The misuse of each method every puzzle has, its arguments one at a time."""
    p = lambda g: g[name]  # noqa: E731
    i = lambda g: g.inst[name]  # noqa: E731
    s = lambda g: g.sol[name]  # noqa: E731
    f = lambda g: g.form(name)  # noqa: E731
    calls = [
        ("parse(None)", lambda g: p(g).parse(None)),
        ("parse(5)", lambda g: p(g).parse(5)),
        ("parse(bytes)", lambda g: p(g).parse(b"3")),
        ("parse([])", lambda g: p(g).parse([])),
        ("parse('')", lambda g: p(g).parse("")),
        ("parse(blank)", lambda g: p(g).parse("  \n\t\n")),
        ("parse(garbage)", lambda g: p(g).parse("\x00garbage}{")),
        ("model(None, form)", lambda g: p(g).model(None, f(g))),
        ("model(str, form)", lambda g: p(g).model("garbage", f(g))),
        ("model({}, form)", lambda g: p(g).model({}, f(g))),
        ("model(inst, None)", lambda g: p(g).model(i(g), None)),
        ("model(inst, 5)", lambda g: p(g).model(i(g), 5)),
        ("model(inst, 'nope')", lambda g: p(g).model(i(g), "nope")),
        ("model(inst, '')", lambda g: p(g).model(i(g), "")),
        ("verify(None, sol)", lambda g: p(g).verify(None, s(g))),
        ("verify(str, sol)", lambda g: p(g).verify("garbage", s(g))),
        ("verify(inst, None)", lambda g: p(g).verify(i(g), None)),
        ("verify(inst, str)", lambda g: p(g).verify(i(g), "garbage")),
        ("verify(inst, 5)", lambda g: p(g).verify(i(g), 5)),
        ("verify(inst, [])", lambda g: p(g).verify(i(g), [])),
        ("render(None, sol)", lambda g: p(g).render(None, s(g))),
        ("render(str, sol)", lambda g: p(g).render("garbage", s(g))),
        ("render(inst, str)", lambda g: p(g).render(i(g), "garbage")),
        ("render(inst, 5)", lambda g: p(g).render(i(g), 5)),
        ("render(inst, sol, None)", lambda g: p(g).render(i(g), s(g), None)),
        ("render(inst, sol, 5)", lambda g: p(g).render(i(g), s(g), 5)),
        ("render(inst, sol, 'gif')", lambda g: p(g).render(i(g), s(g), "gif")),
        ("to_json(None, sol)", lambda g: p(g).to_json(None, s(g))),
        ("to_json(str, sol)", lambda g: p(g).to_json("garbage", s(g))),
        ("to_json(inst, str)", lambda g: p(g).to_json(i(g), "garbage")),
        ("to_json(inst, 5)", lambda g: p(g).to_json(i(g), 5)),
        ("from_json(None)", lambda g: p(g).from_json(None)),
        ("from_json(str)", lambda g: p(g).from_json('{"n": 2}')),
        ("from_json([])", lambda g: p(g).from_json([])),
        ("from_json(5)", lambda g: p(g).from_json(5)),
        ("from_json({})", lambda g: p(g).from_json({})),
        ("from_json(garbage)", lambda g: p(g).from_json({"garbage": [1, {}]})),
        ("bench_cases(str)", lambda g: p(g).bench_cases("abc")),
        ("bench_cases(5)", lambda g: p(g).bench_cases(5)),
        ("bench_cases([-1])", lambda g: p(g).bench_cases([-1])),
        ("bench_cases(['3'])", lambda g: p(g).bench_cases(["3"])),
        ("bench_cases([2.5])", lambda g: p(g).bench_cases([2.5])),
        ("bench_cases([True])", lambda g: p(g).bench_cases([True])),
        ("bench_cases([None])", lambda g: p(g).bench_cases([None])),
    ]
    if name != "iq":  # an empty filling is an IQ filling, of no cell: the checker says why
        calls.append(("verify(inst, {})", lambda g: p(g).verify(i(g), {})))
    if name != "insanity":  # insanity draws and writes the cubes alone, without a tower
        calls += [("render(inst, None)", lambda g: p(g).render(i(g), None)),
                  ("to_json(inst, None)", lambda g: p(g).to_json(i(g), None))]
    return [(f"{name}.{label}", call) for label, call in calls]


def _generate(name: str) -> list[tuple[str, object]]:
    p = lambda g: g[name]  # noqa: E731
    calls = [
        ("generate('6')", lambda g: p(g).generate("6")),
        ("generate(6.5)", lambda g: p(g).generate(6.5)),
        ("generate(True)", lambda g: p(g).generate(True)),
        ("generate(-1)", lambda g: p(g).generate(-1)),
        ("generate(10**9)", lambda g: p(g).generate(10**9)),
        ("generate(6, seed='x')", lambda g: p(g).generate(6, seed="x")),
        ("generate(6, seed=None)", lambda g: p(g).generate(6, seed=None)),
        ("generate(6, seed=-1)", lambda g: p(g).generate(6, seed=-1)),
        ("generate(6, seed=1.5)", lambda g: p(g).generate(6, seed=1.5)),
        ("generate(6, seed=True)", lambda g: p(g).generate(6, seed=True)),
        ("generate(6, planted='yes')", lambda g: p(g).generate(6, planted="yes")),
        ("generate(6, planted=None)", lambda g: p(g).generate(6, planted=None)),
        ("generate(6, planted=1)", lambda g: p(g).generate(6, planted=1)),
    ]
    return [(f"{name}.{label}", call) for label, call in calls]


INSTANCE = [
    ("bel.instance(None)", lambda g: g["bel"].instance(None)),
    ("bel.instance('3')", lambda g: g["bel"].instance("3")),
    ("bel.instance(3.0)", lambda g: g["bel"].instance(3.0)),
    ("bel.instance(True)", lambda g: g["bel"].instance(True)),
    ("bel.instance(0)", lambda g: g["bel"].instance(0)),
    ("bel.instance(13)", lambda g: g["bel"].instance(13)),
    ("bel.instance([3])", lambda g: g["bel"].instance([3])),
    ("iq.instance(5)", lambda g: g["iq"].instance(5)),
    ("iq.instance('nope')", lambda g: g["iq"].instance("nope")),
    ("iq.instance([board])", lambda g: g["iq"].instance(["triangle"])),
    ("iq.instance(board, 5)", lambda g: g["iq"].instance("triangle", 5)),
    ("iq.instance(board, [cells])", lambda g: g["iq"].instance("triangle", [[0, 0]])),
    ("iq.instance(board, {B: 5})", lambda g: g["iq"].instance("triangle", {"B": 5})),
    ("iq.instance(board, {Z: cells})",
     lambda g: g["iq"].instance("triangle", {"Z": [[0, 0]]})),
    ("iq.instance(board, {5: cells})", lambda g: g["iq"].instance("triangle", {5: [[0, 0]]})),
    ("iq.instance(board, {B: off the board})",
     lambda g: g["iq"].instance("triangle", {"B": [[90, 90]]})),
    ("iq.instance(board, garbage)", lambda g: g["iq"].instance("triangle", "}{garbage")),
    ("iq.instance(board, pieces=5)", lambda g: g["iq"].instance("triangle", pieces=5)),
    ("iq.instance(board, pieces=[1, 2])",
     lambda g: g["iq"].instance("triangle", pieces=[1, 2])),
    ("iq.instance(board, pieces=[])", lambda g: g["iq"].instance("triangle", pieces=[])),
    ("iq.instance(board, pieces=no file)",
     lambda g: g["iq"].instance("triangle", pieces="/nonexistent/pieces.json")),
    ("views.instance()", lambda g: g["views"].instance()),
    ("views.instance(None)", lambda g: g["views"].instance(None)),
    ("views.instance(5)", lambda g: g["views"].instance(5)),
    ("views.instance('')", lambda g: g["views"].instance("")),
    ("views.instance('zz')", lambda g: g["views"].instance("zz")),
    ("views.instance(spec, number)", lambda g: g["views"].instance("fe88e8f9b499", number=1)),
    ("views.instance(number=-1)", lambda g: g["views"].instance(number=-1)),
    ("views.instance(number=1.5)", lambda g: g["views"].instance(number=1.5)),
    ("views.instance(number=True)", lambda g: g["views"].instance(number=True)),
    ("views.instance(number=10**7)", lambda g: g["views"].instance(number=10**7)),
    ("views.instance(number=[1])", lambda g: g["views"].instance(number=[1])),
    ("views.instance(top=)", lambda g: g["views"].instance(top="xx,xx")),
    ("views.instance(top=5, ...)", lambda g: g["views"].instance(top=5, front=5, side=5)),
    ("views.instance(spec, n='4')", lambda g: g["views"].instance("fe88e8f9b499", n="4")),
    ("views.instance(spec, n=0)", lambda g: g["views"].instance("fe88e8f9b499", n=0)),
    ("views.instance(spec, n=99)", lambda g: g["views"].instance("fe88e8f9b499", n=99)),
    ("sudoku-cube.instance(None)", lambda g: g["sudoku-cube"].instance(None)),
    ("sudoku-cube.instance(5)", lambda g: g["sudoku-cube"].instance(5)),
    ("sudoku-cube.instance('garbage')", lambda g: g["sudoku-cube"].instance("garbage")),
    ("sudoku-cube.instance({})", lambda g: g["sudoku-cube"].instance({})),
    ("sudoku-cube.instance({U: 5})", lambda g: g["sudoku-cube"].instance({"U": 5})),
    ("sudoku-cube.instance(state, 5)",
     lambda g: g["sudoku-cube"].instance(g.inst["sudoku-cube"].state, 5)),
    ("sudoku-cube.instance(state, [0])",
     lambda g: g["sudoku-cube"].instance(g.inst["sudoku-cube"].state, [0])),
    ("sudoku-cube.instance(state, ['1'])",
     lambda g: g["sudoku-cube"].instance(g.inst["sudoku-cube"].state, ["1"])),
    ("insanity.instance(5)", lambda g: g["insanity"].instance(5)),
    ("insanity.instance('')", lambda g: g["insanity"].instance("")),
    ("insanity.instance([])", lambda g: g["insanity"].instance([])),
    ("insanity.instance([five colours])", lambda g: g["insanity"].instance([["R"] * 5])),
    ("insanity.instance([5])", lambda g: g["insanity"].instance([5])),
    ("insanity.instance(['BYRRR'])", lambda g: g["insanity"].instance(["BYRRR"])),
    ("insanity.instance([[1, 2, 3, 4, 5, 6]])",
     lambda g: g["insanity"].instance([[1, 2, 3, 4, 5, 6]])),
    ("insanity.instance(201 cubes)", lambda g: g["insanity"].instance(["BYRRRG"] * 201)),
]

OTHER_METHODS = [
    ("iq.count(None)", lambda g: g["iq"].count(None)),
    ("iq.count('garbage')", lambda g: g["iq"].count("garbage")),
    ("iq.count(inst, 5)", lambda g: g["iq"].count(g.inst["iq"], 5)),
    ("iq.count(inst, 'x')", lambda g: g["iq"].count(g.inst["iq"], "x")),
    ("iq.count(inst, {bogus})", lambda g: g["iq"].count(g.inst["iq"], {"bogus": 1})),
    ("iq.count(inst, {threads: 0})", lambda g: g["iq"].count(g.inst["iq"], {"threads": 0})),
    ("sudoku-cube.default()", lambda g: g["sudoku-cube"].default()),
    ("bel.bench_cases([13])", lambda g: g["bel"].bench_cases([13])),
    ("bel.bench_cases([0])", lambda g: g["bel"].bench_cases([0])),
    ("insanity.bench_cases([0])", lambda g: g["insanity"].bench_cases([0])),
    ("sudoku-cube.bench_cases([10**6])", lambda g: g["sudoku-cube"].bench_cases([10**6])),
    ("bel.model(2, mip, formulation=5)", lambda g: g["bel"].model(2, "mip", formulation=5)),
    ("bel.model(2, mip, formulation=nope)",
     lambda g: g["bel"].model(2, "mip", formulation="nope")),
    ("bel.model(2, cnf, card=nope)", lambda g: g["bel"].model(2, "cnf", card="nope")),
    ("bel.model(2, mip, strategies='XStep')",
     lambda g: g["bel"].model(2, "mip", strategies="XStep")),
    ("bel.model(2, mip, strategies=[5])", lambda g: g["bel"].model(2, "mip", strategies=[5])),
    ("sudoku-cube.model(inst, mip, parity=5)",
     lambda g: g["sudoku-cube"].model(g.inst["sudoku-cube"], "mip", parity=5)),
    ("sudoku-cube.model(inst, mip, rules=5)",
     lambda g: g["sudoku-cube"].model(g.inst["sudoku-cube"], "mip", rules=5)),
    ("sudoku-cube.model(inst, mip, rules=['nope'])",
     lambda g: g["sudoku-cube"].model(g.inst["sudoku-cube"], "mip", rules=["nope"])),
]

SOLVE = [
    ("puzzle(None)", lambda g: ilp_pyramid.puzzle(None)),
    ("puzzle(5)", lambda g: ilp_pyramid.puzzle(5)),
    ("puzzle(['bel'])", lambda g: ilp_pyramid.puzzle(["bel"])),
    ("puzzle('nope')", lambda g: ilp_pyramid.puzzle("nope")),
    ("solver(None)", lambda g: ilp_pyramid.solver(None)),
    ("solver('nope')", lambda g: ilp_pyramid.solver("nope")),
    ("solve(None)", lambda g: ilp_pyramid.solve(None, 2, "kissat")),
    ("solve(5)", lambda g: ilp_pyramid.solve(5, 2, "kissat")),
    ("solve(object())", lambda g: ilp_pyramid.solve(object(), 2, "kissat")),
    ("solve(bel, '3')", lambda g: ilp_pyramid.solve("bel", "3", "kissat")),
    ("solve(bel, 0)", lambda g: ilp_pyramid.solve("bel", 0, "kissat")),
    ("solve(bel, 99)", lambda g: ilp_pyramid.solve("bel", 99, "kissat")),
    ("solve(views, 5)", lambda g: ilp_pyramid.solve("views", 5, "highs")),
    ("solve(insanity, [cubes])",
     lambda g: ilp_pyramid.solve("insanity", [list("BYRRRG")], "kissat")),
    ("solve(sudoku-cube, None)", lambda g: ilp_pyramid.solve("sudoku-cube", None, "highs")),
    ("solve(bel, 2, 5)", lambda g: ilp_pyramid.solve("bel", 2, 5)),
    ("solve(bel, 2, 'nope')", lambda g: ilp_pyramid.solve("bel", 2, "nope")),
    ("solve(bel, 2, '')", lambda g: ilp_pyramid.solve("bel", 2, "")),
    ("solve(bel, 2, object())", lambda g: ilp_pyramid.solve("bel", 2, object())),
    ("solve(options=5)", lambda g: ilp_pyramid.solve("bel", 2, "kissat", options=5)),
    ("solve(options='x')", lambda g: ilp_pyramid.solve("bel", 2, "kissat", options="x")),
    ("solve(options=[1])", lambda g: ilp_pyramid.solve("bel", 2, "kissat", options=[1])),
    ("solve(options={1: 2})", lambda g: ilp_pyramid.solve("bel", 2, "kissat", options={1: 2})),
    ("solve(options={threads: 0})",
     lambda g: ilp_pyramid.solve("bel", 2, "kissat", options={"threads": 0})),
    ("solve(form=5)", lambda g: ilp_pyramid.solve("bel", 2, "kissat", form=5)),
    ("solve(form='nope')", lambda g: ilp_pyramid.solve("bel", 2, "kissat", form="nope")),
    ("solve(bel, form=exact_cover)",
     lambda g: ilp_pyramid.solve("bel", 2, "dlx", form="exact_cover")),
    ("solve(highs, form=cnf)", lambda g: ilp_pyramid.solve("bel", 2, "highs", form="cnf")),
    ("solve(model='x')", lambda g: ilp_pyramid.solve("bel", 2, "kissat", model="x")),
    ("solve(model=5)", lambda g: ilp_pyramid.solve("bel", 2, "kissat", model=5)),
    ("solve(highs, model=cnf model)",
     lambda g: ilp_pyramid.solve("bel", 2, "highs", model=g["bel"].model(2, "cnf"))),
    ("solve(after='x')", lambda g: ilp_pyramid.solve("views", None, "highs", after="x")),
    ("solve(after=[1])", lambda g: ilp_pyramid.solve("views", None, "highs", after=[1])),
    ("solve(bel, after={moves})",
     lambda g: ilp_pyramid.solve("bel", 2, "kissat", after={"moves": True})),
    ("solve(bel, formulation=5)",
     lambda g: ilp_pyramid.solve("bel", 2, "kissat", formulation=5)),
    ("solve(iq, bogus=1)", lambda g: ilp_pyramid.solve("iq", g.inst["iq"], "dlx", bogus=1)),
]

MISUSE = ISSUE + INSTANCE + OTHER_METHODS + SOLVE + [
    entry for name in NAMES for entry in _common(name)] + [
    entry for name in ("insanity", "sudoku-cube") for entry in _generate(name)]


@pytest.mark.parametrize("call", [pytest.param(call, id=label) for label, call in MISUSE])
def test_misuse_is_an_input_error_of_one_line(call, g):
    _refused(call, g)


def test_the_matrix_names_each_call_once():
    labels = [label for label, _ in MISUSE]
    assert len(labels) == len(set(labels)) and len(labels) >= 250


# --- what the doors let through --------------------------------------------------------

def test_solve_takes_a_puzzle_by_its_name():
    result = ilp_pyramid.solve("bel", 2, "kissat")
    assert result.status is ilp_pyramid.Status.SOLVED and result.puzzle == "bel"


def test_solve_takes_its_options_as_a_mapping_of_solve_options_fields():
    from ilp_pyramid import protocol

    assert protocol.solve_options({"time_limit": 5, "seed": 2}) == \
        SolveOptions(time_limit=5, seed=2)
    assert protocol.solve_options(None) == SolveOptions()
    seen = []
    result = ilp_pyramid.solve("bel", 2, "highs",
                               options={"time_limit": 60, "progress": seen.append})
    assert result.status is ilp_pyramid.Status.SOLVED


def test_the_options_mapping_names_the_fields_it_lacks(g):
    message = _refused(lambda g: ilp_pyramid.solve("bel", 2, "highs",
                                                   options={"time": 1}), g)
    assert "time" in message and "time_limit" in message


def test_a_string_instance_is_refused_with_what_an_instance_is(g):
    message = _refused(lambda g: g["bel"].verify("3", g.sol["bel"]), g)
    assert "'3'" in message and "N" in message


def test_insanity_builds_an_instance_from_cubes_like_the_others():
    insanity = ilp_pyramid.puzzle("insanity")
    classic = insanity.default()
    assert insanity.instance([list(cube) for cube in classic.cubes]) == classic
    assert insanity.instance(["".join(cube) for cube in classic.cubes]) == classic
    assert insanity.instance(classic.text()) == classic
    assert insanity.instance(tuple(classic.cubes)) == classic
    result = ilp_pyramid.solve(insanity, insanity.instance(["BYRRRG"] * 3), "kissat")
    assert result.status is ilp_pyramid.Status.INFEASIBLE  # three colours short


def test_a_solution_of_the_right_type_that_is_wrong_gets_its_reasons(g):
    """verify answers InputError for what is no solution at all, and the reasons for a
    solution of the right type that does not solve the instance (docs/api.md)."""
    assert g["bel"].verify(3, g.sol["bel"]) == ["the labelling is for N=2, the instance is N=3"]
    assert g["iq"].verify(g.inst["iq"], {}) != []
    off_board = {**g.sol["iq"], 999: 0}
    assert any("not on board" in reason for reason in g["iq"].verify(g.inst["iq"], off_board))
    small = np.zeros((2, 2, 2), dtype=bool)
    assert g["views"].verify(g.inst["views"], small) != []
    tower = g.sol["insanity"]
    assert g["insanity"].verify(g.inst["insanity"], type(tower)(tower.placements[:2])) != []


def test_what_cannot_be_drawn_is_refused_not_drawn(g):
    off_board = {**g.sol["iq"], 999: 0}
    for fmt in ("text", "svg"):
        _refused(lambda g, fmt=fmt: g["iq"].render(g.inst["iq"], off_board, fmt), g)
    _refused(lambda g: g["iq"].to_json(g.inst["iq"], off_board), g)
    _refused(lambda g: g["bel"].to_json(3, g.sol["bel"]), g)
    small = np.zeros((2, 2, 2), dtype=bool)
    _refused(lambda g: g["views"].render(g.inst["views"], small), g)
    tower = g.sol["insanity"]
    _refused(lambda g: g["insanity"].render(g.inst["insanity"],
                                            type(tower)(tower.placements[:2])), g)


def test_the_good_calls_still_work(g):
    for name in NAMES:
        puzzle, instance, solution = g[name], g.inst[name], g.sol[name]
        assert isinstance(puzzle.render(instance, solution, "text"), str)
        data = puzzle.to_json(instance, solution)
        assert puzzle.verify(*puzzle.from_json(data)) == []
        assert puzzle.model(instance, g.form(name)).kind == g.form(name)
        assert puzzle.bench_cases(None)
