"""The one number parser and the one JSON reader every input file goes through.

Python's own `int()` and `json.loads()` accept more than a user's file should hold and fail in
ways the CLI cannot name: `int("²")` is a ValueError but `"²".isdigit()` is True, `int()` of a
5000-digit token raises a ValueError about the "integer string conversion" limit, `json.loads`
reads `Infinity`, `NaN` and `1e999` (inf) and raises RecursionError on deep nesting. Here every
such input is an InputError (exit 2, one line) that says what was wrong.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any

from ilp_pyramid.errors import InputError

# 18 digits hold every count, label, literal and seed the package reads (and fit in int64).
MAX_DIGITS = 18
_INT = re.compile(rf"[+-]?[0-9]{{1,{MAX_DIGITS}}}")  # ASCII digits only: no '²', no '٣'

# Deeper than any file the package writes (solutions nest 3 levels, hunt state 4).
MAX_JSON_DEPTH = 32


def _show(token: str) -> str:
    return repr(token if len(token) <= 40 else token[:37] + "...")


def parse_int(token: str, what: str = "value", noun: str = "an integer") -> int:
    """A decimal integer of at most MAX_DIGITS ASCII digits with an optional sign;
    otherwise InputError "<what>: '<token>' is not <noun>"."""
    if _INT.fullmatch(token) is None:
        raise InputError(f"{what}: {_show(token)} is not {noun}")
    return int(token)


def parse_ints(text: str, what: str = "value", noun: str = "an integer") -> list[int]:
    """Whitespace-separated integers, each through parse_int."""
    return [parse_int(token, what, noun) for token in text.split()]


def _reject_constant(name: str) -> Any:
    raise InputError(f"{name} is not allowed in JSON input (numbers must be finite)")


def _finite_float(token: str) -> float:
    value = float(token)
    if not math.isfinite(value):
        raise InputError(f"the number {_show(token)} is out of range")
    return value


def _int_token(token: str) -> int:
    if len(token.lstrip("-")) > MAX_DIGITS:
        raise InputError(f"the number {_show(token)} has more than {MAX_DIGITS} digits")
    return int(token)


def _depth(data: Any) -> int:
    """The nesting depth of a decoded JSON value, without recursion."""
    deepest = 0
    todo = [(data, 1)]
    while todo:
        value, depth = todo.pop()
        if isinstance(value, dict):
            value = list(value.values())
        if isinstance(value, list):
            deepest = max(deepest, depth)
            if depth > MAX_JSON_DEPTH:
                return depth
            todo.extend((item, depth + 1) for item in value)
    return deepest


def load_json(text: str) -> Any:
    """Strict JSON: finite numbers, integers of at most MAX_DIGITS digits, nesting of at most
    MAX_JSON_DEPTH levels; anything else is an InputError naming the problem."""
    try:
        data = json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float,
                          parse_int=_int_token)
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON: {exc.msg} at line {exc.lineno}") from None
    except RecursionError:
        raise InputError(f"malformed JSON: nested deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError as exc:  # e.g. a lone surrogate the decoder refuses
        raise InputError(f"malformed JSON: {exc}") from None
    if _depth(data) > MAX_JSON_DEPTH:
        raise InputError(f"malformed JSON: nested deeper than {MAX_JSON_DEPTH} levels")
    return data


def json_lines(text: str) -> Iterator[tuple[int, dict]]:
    """(line number, object) for every line of a JSON-lines file that holds a JSON object.

    Blank lines, a torn line left by a killed writer and lines that are not objects are
    skipped: a results file is appended to by runs that may die at any byte.
    """
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            record = load_json(line)
        except InputError:
            continue
        if isinstance(record, dict):
            yield number, record
