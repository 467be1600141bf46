"""CSV rows with the line each ends on; a malformed CSV is an InputError naming that line.

The csv module's own errors name no line and say "Error", which reads like a bug; this is
the one CSV reader for users' files (the build list `verify` and `render` read)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

from ilp_pyramid.errors import InputError

_LONG_FIELD = "field larger than field limit"


def rows(text: str) -> Iterator[tuple[int, list[str]]]:
    """(line number, fields) of each row of `text`; line ends are LF or CRLF (we write LF).

    A CR alone does not end a line: a file of such lines is refused with its line number,
    like a field longer than the csv module's limit (131,072 characters) or any other
    syntax error."""
    # newline="\n": the lines are split at LF only, as the readers have always split them.
    reader = csv.reader(io.StringIO(text, newline="\n"))
    try:
        for fields in reader:
            yield reader.line_num, fields
    except csv.Error as exc:
        raise InputError(f"CSV line {reader.line_num}: {_reason(str(exc))}") from None


def _reason(message: str) -> str:
    if message.startswith("new-line character seen in unquoted field"):
        return "a line break inside an unquoted field (line ends must be LF or CRLF, not CR alone)"
    if message.startswith(_LONG_FIELD):
        return f"a field longer than {csv.field_size_limit():,} characters"
    return message


def locate(text: str) -> InputError | None:
    """The error `rows` finds in `text`, if any: where a parser that used the csv module
    directly failed, and on which line."""
    try:
        for _ in rows(text):
            pass
    except InputError as exc:
        return exc
    return None
