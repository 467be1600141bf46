"""What this machine gives the process: its cores (for --jobs/--threads and worker pools)."""

from __future__ import annotations

import os


def cores() -> int:
    """The cores this process may run on: its CPU affinity, not the machine's count (a
    process pinned by taskset or a container's cpuset gets fewer)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1
