"""The examples a reader pastes: every ```python block of README.md and docs/*.md runs on its
own in a fresh interpreter, the code cells of examples/researchers_loop.ipynb run in order, and
the `>>>` examples in the API's docstrings hold.

Each block's first line names what it needs, `# needs: ilp-pyramid` or `# needs:
ilp-pyramid[EXTRA,...]`; a block whose extra is not installed here is skipped (the test extra
installs every part, so in CI they all run). The notebook's cells are run as plain Python, no
Jupyter kernel: the default suite checks them wherever it runs, with no Jupyter dependency,
and a cell that needs IPython (a magic, a shell escape) is refused by a test instead.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.metadata
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = ["README.md", *sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))]
NOTEBOOK = "examples/researchers_loop.ipynb"
# The modules whose docstrings carry `>>>` examples of the public API.
DOCTESTED = ["ilp_pyramid", "ilp_pyramid.protocol"]
FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
NEEDS = re.compile(r"# needs: ilp-pyramid(?:\[(?P<extras>[a-z0-9,-]+)\])?")
# What a block's run may take (the slowest, HiGHS on Bel N=3, about 10 s on a busy machine).
RUN_SECONDS = 240


def python_blocks(document: str) -> list[str]:
    return FENCE.findall((ROOT / document).read_text())


BLOCKS = [(document, number, block) for document in DOCUMENTS
          for number, block in enumerate(python_blocks(document), 1)]


def needed_extras(code: str, where: str) -> list[str]:
    """The extras a block's first line names; fails the test when the line is missing."""
    first = code.lstrip("\n").split("\n", 1)[0].strip()
    match = NEEDS.fullmatch(first)
    assert match, (f"{where}: the first line must say what it needs, `# needs: ilp-pyramid` "
                   f"or `# needs: ilp-pyramid[EXTRA]`, not {first!r}")
    return match["extras"].split(",") if match["extras"] else []


def _optional_dependencies() -> dict[str, list[str]]:
    with open(ROOT / "pyproject.toml", "rb") as file:
        return tomllib.load(file)["project"]["optional-dependencies"]


def _distributions(extra: str, seen: frozenset[str] = frozenset()) -> list[str]:
    """The distributions an extra brings, its references to other extras followed."""
    names = []
    for requirement in _optional_dependencies()[extra]:
        name = re.match(r"[A-Za-z0-9_.-]+", requirement)[0]
        if name == "ilp-pyramid":
            inner = re.search(r"\[(.*)\]", requirement)[1].split(",")
            names += [d for e in inner if e not in seen
                      for d in _distributions(e, seen | {extra})]
        else:
            names.append(name)
    return names


def missing(extras: list[str]) -> list[str]:
    absent = []
    for extra in extras:
        for name in _distributions(extra):
            try:
                importlib.metadata.distribution(name)
            except importlib.metadata.PackageNotFoundError:
                absent.append(name)
    return absent


def run_python(code: str, cwd: Path) -> subprocess.CompletedProcess:
    # A fresh process in an empty folder: the example imports what it uses itself, and a
    # picture it writes lands in the temporary folder. Agg: a plot's show() opens no window.
    env = {**os.environ, "MPLBACKEND": "Agg"}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=RUN_SECONDS)


def test_the_readme_and_the_api_page_have_examples():
    """The collection below cannot silently shrink to nothing (a changed fence, a moved page)."""
    documents = {document for document, _, _ in BLOCKS}
    assert {"README.md", "docs/api.md", "docs/drawing.md"} <= documents
    assert len(BLOCKS) >= 10


@pytest.mark.parametrize("document,number,block", BLOCKS,
                         ids=[f"{d}:{n}" for d, n, _ in BLOCKS])
def test_every_block_says_which_extra_it_needs(document, number, block):
    extras = needed_extras(block, f"{document}, python block {number}")
    unknown = set(extras) - set(_optional_dependencies())
    assert not unknown, f"{document}, python block {number}: no extra named {sorted(unknown)}"


@pytest.mark.parametrize("document,number,block", BLOCKS,
                         ids=[f"{d}:{n}" for d, n, _ in BLOCKS])
@pytest.mark.slow  # run by CI's stage 8 (.ci/run): the default suite stays under 4 minutes
def test_a_python_example_runs_on_its_own(document, number, block, tmp_path):
    absent = missing(needed_extras(block, f"{document}, python block {number}"))
    if absent:
        pytest.skip(f"needs {', '.join(absent)} (not installed here)")
    done = run_python(block, tmp_path)
    assert done.returncode == 0, f"{document}, python block {number}:\n{done.stderr[-3000:]}"


def notebook_code_cells() -> list[str]:
    notebook = json.loads((ROOT / NOTEBOOK).read_text())
    assert notebook["nbformat"] == 4, f"{NOTEBOOK} is not an nbformat 4 notebook"
    return ["".join(cell["source"]) for cell in notebook["cells"]
            if cell["cell_type"] == "code"]


def test_the_notebook_is_plain_python_that_says_what_it_needs():
    cells = notebook_code_cells()
    assert len(cells) >= 3, f"{NOTEBOOK} has {len(cells)} code cells"
    needed_extras(cells[0], f"{NOTEBOOK}, first code cell")
    for number, cell in enumerate(cells, 1):
        ipython = [line for line in cell.splitlines() if line.lstrip().startswith(("%", "!"))]
        assert not ipython, f"{NOTEBOOK}, code cell {number}: IPython syntax {ipython}"
        compile(cell, f"{NOTEBOOK}, code cell {number}", "exec")


@pytest.mark.slow  # run by CI's stage 8 (.ci/run): the default suite stays under 4 minutes
def test_the_notebook_runs_its_cells_in_order(tmp_path):
    cells = notebook_code_cells()
    absent = missing(needed_extras(cells[0], f"{NOTEBOOK}, first code cell"))
    if absent:
        pytest.skip(f"needs {', '.join(absent)} (not installed here)")
    script = "\n".join(f"# --- cell {i}\n{cell}" for i, cell in enumerate(cells, 1))
    done = run_python(script, tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "solved" in done.stdout


@pytest.mark.parametrize("module", DOCTESTED)
def test_the_docstring_examples_hold(module):
    try:
        loaded = importlib.import_module(module)
    except ModuleNotFoundError:
        pytest.fail(f"{module} is listed as documented but does not exist")
    failed, attempted = doctest.testmod(loaded, optionflags=doctest.ELLIPSIS)
    assert attempted > 0, f"{module} has no >>> example"
    assert failed == 0
