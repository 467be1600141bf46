"""The version: the installed distribution's (pyproject.toml holds it), one spelling for the
package and the command line."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata

import ilp_pyramid
from ilp_pyramid.cli import version_line


def test_the_version_is_the_installed_distributions():
    installed = metadata.version("ilp-pyramid")
    assert ilp_pyramid.__version__ == installed
    assert version_line() == f"ilp-pyramid {installed}"
    done = subprocess.run([sys.executable, "-m", "ilp_pyramid", "--version"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout == f"ilp-pyramid {installed}\n"


def test_a_source_tree_never_installed_says_so(monkeypatch):
    def missing(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", missing)
    cached = vars(ilp_pyramid).pop("__version__", None)  # looked up again below
    try:
        assert ilp_pyramid.__version__ == ilp_pyramid.UNKNOWN_VERSION == "0+unknown"
    finally:
        vars(ilp_pyramid).pop("__version__", None)
        if cached is not None:
            ilp_pyramid.__version__ = cached
