"""How big a Bel count is before it is run: Knuth's estimate of the `search` method's tree.

    python docs/scripts/count_estimate.py N WALKS [--seed S] [--exhaust K]

Prints one JSON object: the estimate of the search's nodes and of its solutions (one per
class of label renamings, as the search and the "sat" enumeration list them), each with its
standard error, the labelled count it implies (solutions x (2N-1)!), how many walks reached a
solution, and the CPU seconds it took. `--exhaust K` searches the last K positions of the
search's line order in full below each walk (count_search.estimate): at N = 3 the 25 Z lines
(`--exhaust 25`) let walks reach solutions at all. An estimate, never a count: the walks'
distribution is heavy-tailed, so the standard error itself is only indicative.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import asdict


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int)
    parser.add_argument("walks", type=int)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--exhaust", type=int, default=0)
    args = parser.parse_args(argv)
    from ilp_pyramid.puzzles.bel.count_search import estimate
    from ilp_pyramid.puzzles.bel.geometry import pyramid

    geo = pyramid(args.n)
    cpu = time.process_time()
    result = estimate(geo, args.walks, args.seed, args.exhaust)
    factor = math.factorial(geo.num_labels)
    print(json.dumps({"n": args.n, **asdict(result),
                      "labelled": result.solutions * factor,
                      "labelled_error": result.solutions_error * factor,
                      "cpu_seconds": round(time.process_time() - cpu, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
