"""What the suite's own set-up relies on from its test tools."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest


@pytest.mark.slow  # starts two pytest-xdist workers of its own
def test_xdist_keeps_a_group_on_one_worker(tmp_path):
    """conftest.SHARED_DASK puts the tests that share one Dask cluster in one xdist group, so
    that only one worker starts the cluster. With pytest 9.2 and pytest-xdist 3.8 the group is
    silently ignored (pytest-dev/pytest-xdist#1386; pyproject.toml bounds pytest below 9.2)."""
    (tmp_path / "test_grouped.py").write_text(textwrap.dedent("""
        import os
        import pytest

        @pytest.mark.xdist_group("one")
        @pytest.mark.parametrize("k", range(6))
        def test_where(k):
            print("worker", os.environ["PYTEST_XDIST_WORKER"])
    """))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-c", "/dev/null",
         "-n", "2", "--dist", "loadgroup", "-rA", "-q", "--rootdir", str(tmp_path),
         str(tmp_path)], capture_output=True, text=True, timeout=120, check=False,
        cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    workers = {line.split()[1] for line in done.stdout.splitlines()
               if line.startswith("worker gw")}
    assert len(workers) == 1, done.stdout
