"""Two split counts of one formula compared piece by piece: the check of one method by another
before (and after) either finishes.

    python docs/scripts/count_compare.py RECORD_A RECORD_B

Each RECORD is a split count's record (`count N --split K --record DIR` writes
DIR/count-KEY.jsonl; gzipped ones are read too) of the same N and formula by two methods,
split at any depths (docs/counts.md, "Counting in cubes"). The pieces of a split are the
labellings of the first lines of one order, so each counted piece of the deeper record lies
below exactly one piece of the shallower: every piece of the shallower record that the other
has counted in full (no piece below it still open) is compared with the sum below it.

Prints what was compared, and every disagreement. Exit 0 when every comparable piece agrees
(none may be comparable yet), 1 on any disagreement, 2 for records that are not of one
formula.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

from ilp_pyramid.puzzles.bel.count_split import PIECE, Cube, open_cubes
from ilp_pyramid.puzzles.bel.geometry import pyramid


def read(path: Path) -> tuple[dict, dict[Cube, dict]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as file:
        header, *rows = (json.loads(line) for line in file if line.strip())
    return header, {tuple((int(a), int(b)) for a, b in row["cube"]): row for row in rows}


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    (head_a, rows_a), (head_b, rows_b) = read(Path(argv[0])), read(Path(argv[1]))
    for field in ("n", "formula", "order"):
        if head_a[field] != head_b[field]:
            print(f"not one formula: {field} {head_a[field]!r} against {head_b[field]!r}",
                  file=sys.stderr)
            return 2
    if head_a["depth"] > head_b["depth"]:
        (head_a, rows_a), (head_b, rows_b) = (head_b, rows_b), (head_a, rows_a)
    pieces = {cube: row for cube, row in rows_a.items() if row["status"] == PIECE}
    below: dict[Cube, int] = {}
    unfinished: set[Cube] = set()
    beyond = 0  # pieces of B above A's pieces (B split less deep there): not compared

    def home(cube: Cube) -> Cube | None:
        for k in range(len(cube), -1, -1):
            if cube[:k] in pieces:
                return cube[:k]
        return None

    for cube, row in rows_b.items():
        if row["status"] != PIECE:
            continue
        at = home(cube)
        if at is None:
            beyond += 1
        else:
            below[at] = below.get(at, 0) + int(row["count"])
    labels = pyramid(head_b["n"]).num_labels
    for cube in open_cubes(rows_b, tuple(head_b["order"]), labels, head_b["depth"]):
        at = home(cube)
        if at is not None:
            unfinished.add(at)
    compared = [cube for cube in pieces if cube not in unfinished and cube in below]
    wrong = [cube for cube in compared if int(pieces[cube]["count"]) != below[cube]]
    agreed = sum(below[cube] for cube in compared if cube not in wrong)
    names = f"{head_a['count']} (depth {head_a['depth']})", \
        f"{head_b['count']} (depth {head_b['depth']})"
    print(f"N={head_a['n']} {head_a['formula']}: {len(compared):,} of the {len(pieces):,} "
          f"pieces {names[0]} counted are counted in full by {names[1]}; "
          f"{len(compared) - len(wrong):,} agree ({agreed:,} models), {len(wrong):,} differ"
          + (f"; {beyond:,} of {names[1]}'s pieces lie above {names[0]}'s, not compared"
             if beyond else ""))
    for cube in wrong:
        print(f"differ: {[label for _, label in cube]}: {pieces[cube]['count']} by "
              f"{head_a['count']}, {below[cube]} by {head_b['count']}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
