"""The runs behind docs/counts.md: one JSON line per run, appended to docs/data/bel_counts.jsonl.

    python docs/scripts/count_measure.py N [ilp-pyramid count options...]

Runs `nice -n 10 ilp-pyramid count N --json OPTIONS` (the console script next to this
Python) and records its JSON object with the exact command, the CPU seconds of the run (the
child's user + system time), the wall seconds, the load average before and after (the
machine is shared: wall times are noisy, CPU times less so) and the date. Nothing is
recorded for a run that printed no JSON object (bad input, interrupted).
"""

from __future__ import annotations

import datetime
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent.parent / "data" / "bel_counts.jsonl"


def main(argv: list[str]) -> int:
    script = Path(sys.executable).with_name("ilp-pyramid")
    command = ["nice", "-n", "10", str(script), "count", *argv, "--json"]
    load_before = os.getloadavg()
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.PIPE, check=False)
    wall = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        result = json.loads(done.stdout)
    except ValueError:
        print(f"no JSON object (exit {done.returncode})", file=sys.stderr)
        return done.returncode or 1
    from ilp_pyramid import __version__
    from ilp_pyramid.bench.records import SCHEMA
    from ilp_pyramid.machine import cores
    from ilp_pyramid.puzzles.bel.count import table_row

    shown = "ilp-pyramid count " + " ".join([*argv, "--json"])
    cpu = round(usage.ru_utime + usage.ru_stime, 1)
    record = {"key": "count " + " ".join(argv), "status": result["status"],
              "seconds": round(wall, 1), "schema": SCHEMA, "command": shown,
              "niced": 10, "exit_code": done.returncode,
              "cpu_seconds": cpu,
              "wall_seconds": round(wall, 1),
              "load_before": [round(x, 2) for x in load_before],
              "load_after": [round(x, 2) for x in os.getloadavg()],
              "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
              "machine": {"cpu_count": cores(), "package_version": __version__},
              "result": result, "row": table_row(result, shown, cpu)}
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    with RESULTS.open("a") as out:
        out.write(json.dumps(record) + "\n")
    print(json.dumps(record))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
