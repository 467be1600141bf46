"""The installed wheel, run from outside the checkout: its version from the package
metadata, the licence and the workbench's assets inside it, and the main job (`solve 3`)."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
import zipfile
from pathlib import Path

wheel = Path(sys.argv[1])
names = zipfile.ZipFile(wheel).namelist()
assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), "no LICENSE in the wheel"
assert any(n.startswith("ilp_pyramid/ui/static/") for n in names), "no workbench assets"

import ilp_pyramid  # noqa: E402 - after the wheel's own checks

here = Path(ilp_pyramid.__file__).resolve()
assert "site-packages" in here.parts, f"not the installed package: {here}"
static = here.parent / "ui" / "static"
assert static.is_dir() and any(static.glob("*.js")), "the workbench's assets are missing"
version = importlib.metadata.version("ilp-pyramid")
shown = subprocess.run(["ilp-pyramid", "--version"], capture_output=True, text=True,
                       check=True).stdout
assert version in shown and ilp_pyramid.__version__ == version, (shown, version)
done = subprocess.run(["ilp-pyramid", "solve", "3", "--json"], capture_output=True, text=True,
                      check=True, timeout=300, stdin=subprocess.DEVNULL)
assert json.loads(done.stdout)["status"] == "solved", done.stdout
print(f"the wheel alone: ilp-pyramid {version} from {here.parent}, solve 3 solved")
