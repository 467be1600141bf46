"""The package's version: the installed distribution's (pyproject.toml holds it).

Apart from the package's `__init__` (which serves it as `ilp_pyramid.__version__`, looked up
on first use) so that a module inside the package can read it without importing the
package's front door, whose type-checking imports reach most of the package.
"""

from __future__ import annotations

UNKNOWN_VERSION = "0+unknown"  # a source tree that was never installed


def installed_version() -> str:
    """The installed distribution's version, looked up now (importlib.metadata costs more
    than a small solve may spend: callers keep it)."""
    from importlib import metadata

    try:
        return metadata.version("ilp-pyramid")
    except metadata.PackageNotFoundError:
        return UNKNOWN_VERSION
