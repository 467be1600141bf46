"""`process.kill_descendants`: every process below this one goes, grandchildren in another
process group and session too (what the CLI does after an interrupt, and the hunt when its
Dask cluster does not close)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.proctools import alive

ROOT = Path(__file__).resolve().parents[1]

# A child shell in its own session starts two sleeping grandchildren; kill_descendants runs
# in this process, which is not their group leader: only the process tree reaches them.
PROBE = r"""
import json, os, subprocess, sys, time
from tests.proctools import descendants
shell = subprocess.Popen(["sh", "-c", "sleep 60 & sleep 60 & wait"], start_new_session=True)
deadline = time.monotonic() + 10
while len(descendants(os.getpid())) < 3 and time.monotonic() < deadline:
    time.sleep(0.05)
below = sorted(descendants(os.getpid()))
from ilp_pyramid.backends.process import kill_descendants
kill_descendants()
shell.wait(5)
print(json.dumps(below))
"""


def test_kill_descendants_takes_down_the_whole_tree():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          timeout=60, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr
    below = set(json.loads(done.stdout))
    assert len(below) >= 3, below  # the shell and its two sleeps
    assert alive(below) == set()
