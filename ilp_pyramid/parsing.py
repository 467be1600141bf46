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

# A decimal number as a user types it: ASCII digits, one optional point and exponent. No
# "1_000", no "١٢" and no "inf" (float() reads all three); long enough for any time limit.
MAX_NUMBER_CHARS = 32
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _show(token: str) -> str:
    return repr(token if len(token) <= 40 else token[:37] + "...")


def parse_int(token: str, what: str = "value", noun: str = "an integer") -> int:
    """A decimal integer of at most MAX_DIGITS ASCII digits with an optional sign;
    otherwise InputError "<what>: '<token>' is not <noun>"."""
    if _INT.fullmatch(token) is None:
        raise InputError(f"{what}: {_show(token)} is not {noun}")
    return int(token)


def parse_float(token: str, what: str = "value", noun: str = "a number") -> float:
    """A finite decimal number in ASCII (at most MAX_NUMBER_CHARS characters): "60", "0.5",
    "1e3"; otherwise InputError "<what>: '<token>' is not <noun>"."""
    if len(token) > MAX_NUMBER_CHARS or _FLOAT.fullmatch(token) is None:
        raise InputError(f"{what}: {_show(token)} is not {noun}")
    value = float(token)
    if not math.isfinite(value):
        raise InputError(f"{what}: {_show(token)} is out of range")
    return value


def _shown_value(value: Any) -> str:
    """A value of decoded JSON as a message shows it: a short repr, or its kind."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int | float):
        return _show(repr(value))
    if isinstance(value, str):
        return _show(value)
    return "a list" if isinstance(value, list) else "an object"


def bounded_int(value: Any, what: str, low: int, high: int) -> int:
    """A whole number from decoded JSON or a query string: an integer, or a string parse_int
    reads, in [low, high]; otherwise InputError "<what> must be a whole number from <low> to
    <high> (got ...)"."""
    number = value if type(value) is int else None
    if isinstance(value, str):
        try:
            number = parse_int(value.strip(), what)
        except InputError:
            number = None
    if number is None or not low <= number <= high:
        raise InputError(f"{what} must be a whole number from {low} to {high} "
                         f"(got {_shown_value(value)})")
    return number


def bounded_float(value: Any, what: str, low: float, high: float) -> float:
    """A finite number from decoded JSON or a string parse_float reads, in [low, high];
    otherwise InputError "<what> must be a number from <low> to <high> (got ...)"."""
    number: float | None = None
    if type(value) in (int, float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = parse_float(value.strip(), what)
        except InputError:
            number = None
    if number is None or not low <= number <= high:  # nan fails every comparison
        raise InputError(f"{what} must be a number from {low:g} to {high:g} "
                         f"(got {_shown_value(value)})")
    return number


def check_text(value: Any, what: str, max_chars: int) -> str:
    """`value` if it is a string of at most `max_chars` characters that is Unicode text (no
    lone surrogate, which no encoding can write); InputError naming `what` otherwise."""
    if not isinstance(value, str):
        raise InputError(f"{what} must be text (got {_shown_value(value)})")
    if len(value) > max_chars:
        raise InputError(f"{what} is too long ({len(value):,} characters; at most "
                         f"{max_chars:,})")
    if not value.isascii() and _SURROGATE.search(value):
        raise InputError(f"{what} is not Unicode text (it holds a lone surrogate)")
    return value


def check_unicode(data: Any, what: str = "the input") -> None:
    """InputError if any string of decoded JSON (keys too) holds a lone surrogate: JSON's
    escapes can spell one ("\\ud800"), and nothing can encode it back."""
    todo = [data]
    while todo:
        value = todo.pop()
        if isinstance(value, dict):
            todo.extend(value)
            todo.extend(value.values())
        elif isinstance(value, list):
            todo.extend(value)
        elif isinstance(value, str) and not value.isascii() and _SURROGATE.search(value):
            raise InputError(f"{what} is not Unicode text (it holds a lone surrogate)")


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
    except InputError:  # a number the hooks refused says so itself (InputError is a ValueError)
        raise
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
