"""`process.kill_descendants`: every process below this one goes, grandchildren in another
process group and session too (what the CLI does after an interrupt, and the hunt when its
Dask cluster does not close); and the two edges of a forked solver child: reaped when it never
started, gone when its parent died before it asked to die with it."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from ilp_pyramid.backends import process
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


def test_reaping_a_child_that_never_started_is_quiet():
    # a signal inside child.start() leaves an unstarted Process for the backend to reap
    child = multiprocessing.get_context("fork").Process(target=time.sleep, args=(5,))
    process.reap(child)  # raised "can only join a started process" before
    assert child.pid is None


def test_a_child_whose_parent_died_before_it_asked_to_die_with_it_kills_itself():
    pid = os.fork()
    if pid == 0:  # the child: pretend another process forked it, one that is gone
        process._forked_by = -1
        process.die_with_parent()
        os._exit(0)  # not reached
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    # its own parent alive: the call returns
    pid = os.fork()
    if pid == 0:
        process.die_with_parent()
        os._exit(7)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 7


def test_cpu_seconds_reads_a_running_process_and_with_children_its_reaped_ones():
    """A child that spins for 0.3 CPU s inside a shell: the shell's own figure stays near 0,
    with its reaped children it holds the spin; a process gone reads 0.0."""
    shell = subprocess.Popen(
        ["sh", "-c", f"{sys.executable} -c 'import time\nt = time.process_time()\n"
                     "while time.process_time() - t < 0.3: pass'; read line"],
        stdin=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while process.cpu_seconds(shell.pid, children=True) < 0.3 \
                and time.monotonic() < deadline:
            time.sleep(0.05)
        assert process.cpu_seconds(shell.pid, children=True) >= 0.3
        assert process.cpu_seconds(shell.pid) < 0.2
    finally:
        shell.communicate(b"\n", timeout=30)
    assert process.cpu_seconds(shell.pid) == 0.0
