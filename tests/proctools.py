"""Processes seen through /proc: which are alive and which descend from a process."""

from __future__ import annotations

import os
from pathlib import Path


def _parents() -> dict[int, int]:
    """pid -> parent pid of every process that is not a zombie."""
    out = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry.name}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z":
            out[int(entry.name)] = int(fields[1])
    return out


def descendants(pid: int) -> set[int]:
    parents = _parents()
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier}
        found |= frontier
    return found


def alive(pids: set[int]) -> set[int]:
    parents = _parents()
    return {pid for pid in pids if pid in parents}


def live_children(pid: int) -> set[int]:
    """The direct children of `pid` that are alive."""
    return {child for child, parent in _parents().items() if parent == pid}
