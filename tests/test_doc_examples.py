"""The Python examples of README.md and docs/api.md run, as a reader would paste them, and
the `>>>` examples in the API's docstrings hold."""

from __future__ import annotations

import doctest
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# docs/api.md's examples solve with several solvers (about 13 s): a long check.
DOCUMENTS = ["README.md", pytest.param("docs/api.md", marks=pytest.mark.slow)]
# The modules whose docstrings carry `>>>` examples of the public API.
DOCTESTED = ["ilp_pyramid", "ilp_pyramid.protocol"]
FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def python_blocks(document: str) -> list[str]:
    return FENCE.findall((ROOT / document).read_text())


@pytest.mark.parametrize("document", DOCUMENTS)
def test_the_python_examples_of_a_document_run(document, tmp_path):
    blocks = python_blocks(document)
    assert blocks, f"{document} has no ```python example"
    # One interpreter per document, blocks in order: later blocks use earlier names, as in a
    # notebook; a fresh process, so the examples import ilp_pyramid themselves.
    script = "\n".join(f"# --- block {i}\n{block}" for i, block in enumerate(blocks, 1))
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True,
                          text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.parametrize("module", DOCTESTED)
def test_the_docstring_examples_hold(module):
    try:
        loaded = importlib.import_module(module)
    except ModuleNotFoundError:
        pytest.fail(f"{module} is listed as documented but does not exist")
    failed, attempted = doctest.testmod(loaded, optionflags=doctest.ELLIPSIS)
    assert attempted > 0, f"{module} has no >>> example"
    assert failed == 0
