"""The one JSON object a command prints with --json (no Typer, no Rich: the fast path uses it)."""

from __future__ import annotations

import json
import sys
from typing import Any


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=None, separators=(", ", ": ")) + "\n")
