"""The one JSON object a command prints with --json, and its own lines on stderr (no Typer,
no Rich: the fast path uses them)."""

from __future__ import annotations

import json
import sys
from typing import Any


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=None, separators=(", ", ": ")) + "\n")


def say(line: str) -> None:
    """One line on stderr, in one write: print() sends the end of line apart, and a Ctrl-C
    between the two would glue the interruption's own line to this one."""
    sys.stderr.write(line + "\n")
    sys.stderr.flush()
