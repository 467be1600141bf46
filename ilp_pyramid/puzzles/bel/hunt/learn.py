"""What the kept near-solutions share (near.py): a first look for a structure to prescribe.

The kept states are canonical forms, so their lines are aligned: line i of one is line i of
another. Per line of the pyramid (the geometry's lines, the ones the model labels) `learn`
reports its most common label among the kept states and the share of states that hold it
(agreement 1.0: all agree). The alignment is the canonical form's, one image picked per class:
a line that looks split may still agree under another alignment, so this is a lower bound of
what the states share.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from ilp_pyramid.puzzles.bel.geometry import pyramid
from ilp_pyramid.puzzles.bel.hunt.near import NearStore


def learn(store: NearStore) -> dict:
    """Per line: the most common label, the share of kept states holding it, whether all do;
    with the totals (per family too)."""
    n = store.n
    pyr = pyramid(n)
    states = list(store)
    result: dict = {"n": n, "states": len(states),
                    "counts": {str(k): v for k, v in
                               sorted(Counter(s.count for s in states).items())}}
    if not states:
        return {**result, "lines": [], "unanimous": 0, "mean_agreement": None, "families": {}}
    stack = np.stack([s.labels for s in states])
    lines = []
    for i, line in enumerate(pyr.lines):
        values, times = np.unique(stack[:, i], return_counts=True)
        top = int(np.argmax(times))
        share = float(times[top]) / len(states)
        lines.append({"line": line.name, "length": pyr.line_lengths[i],
                      "label": int(values[top]), "agreement": round(share, 4),
                      "unanimous": bool(times[top] == len(states))})
    families = {}
    for family in ("Z", "X", "Y"):
        mine = [row for row, line in zip(lines, pyr.lines, strict=True)
                if line.family == family]
        families[family] = {"lines": len(mine),
                            "unanimous": sum(row["unanimous"] for row in mine),
                            "mean_agreement": round(
                                float(np.mean([row["agreement"] for row in mine])), 4)}
    return {**result, "lines": lines, "unanimous": sum(row["unanimous"] for row in lines),
            "mean_agreement": round(float(np.mean([row["agreement"] for row in lines])), 4),
            "families": families}


def learn_text(report: dict) -> str:
    """A few lines: the totals, per family, and the lines all kept states agree on."""
    if not report["states"]:
        return "no kept states to learn from\n"
    counts = ", ".join(f"{k} x{v}" for k, v in report["counts"].items())
    out = [f"{report['states']} kept states (repeated cubes: {counts}); "
           f"{report['unanimous']} of {len(report['lines'])} lines agree in all, mean "
           f"agreement {report['mean_agreement']:.2f}"]
    for family, row in report["families"].items():
        out.append(f"  {family}: {row['unanimous']} of {row['lines']} lines agree in all, "
                   f"mean {row['mean_agreement']:.2f}")
    agreed = [f"{row['line']}={row['label']}" for row in report["lines"] if row["unanimous"]]
    if agreed and report["states"] > 1:
        out.append("  all agree on: " + " ".join(agreed))
    return "\n".join(out) + "\n"
