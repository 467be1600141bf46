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
