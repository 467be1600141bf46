"""Can a region around a kept state's repeated cubes go lower? RC2 proves each region's fewest.

    git show 92860f6:ilp_pyramid/puzzles/bel/lns/soft.py > ilp_pyramid/puzzles/bel/lns/soft.py
    python docs/scripts/frontier_soft_probe.py NEAR_FILE EXTRA[,EXTRA...] DRAWS SECONDS [COUNT]

The soft repair (`lns/soft.py`, deleted from the package after it lowered no count as a move
of the walk; docs/notes/frontier_log.md, "A soft repair by MaxSAT") is restored from the
history first.
For every state with COUNT (default 2) repeated cubes in NEAR_FILE (a hunt's near.jsonl.gz),
for each EXTRA and draw: the region of the lines through its repeated cubes plus EXTRA
crossing lines (`region.region_lines`, seeded by state, size and draw), every other line
kept, and RC2's optimum over it within SECONDS of wall time. One JSON line per region on
stdout; a labelling below COUNT is saved as found_STATE_EXTRA_DRAW.npy.
"""

from __future__ import annotations

import gzip
import json
import sys

import numpy as np

from ilp_pyramid.puzzles.bel.lns.arrays import conflicts_of
from ilp_pyramid.puzzles.bel.lns.region import region_lines


def main(near: str, extras: list[int], draws: int, seconds: float, count: int = 2) -> None:
    from ilp_pyramid.puzzles.bel.lns.soft import SOLVED, soft_repair  # restored (module doc)

    with gzip.open(near, "rt") as stream:
        states = [json.loads(line) for line in stream]
    for index, state in enumerate(states):
        if state["count"] != count:
            continue
        labels = np.array(state["labels"], dtype=np.int32)
        assert conflicts_of(6, labels) == count
        for extra in extras:
            for draw in range(draws):
                rng = np.random.default_rng(1000 * index + 10 * extra + draw)
                free = region_lines(6, labels, extra, rng)
                result = soft_repair(6, labels, free, time_limit=seconds)
                print(json.dumps({"state": index, "extra": extra, "draw": draw,
                                  "free": int(len(free)), "status": str(result.status),
                                  "count": result.count, "wall": round(result.seconds, 2)}),
                      flush=True)
                if result.status == SOLVED and result.count is not None and result.count < count:
                    np.save(f"found_{index}_{extra}_{draw}.npy", result.labels)


if __name__ == "__main__":
    main(sys.argv[1], [int(x) for x in sys.argv[2].split(",")], int(sys.argv[3]),
         float(sys.argv[4]), *(int(x) for x in sys.argv[5:6]))
