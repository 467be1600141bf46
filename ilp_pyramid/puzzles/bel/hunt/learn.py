"""What the kept near-solutions share (near.py): a first look for a structure to prescribe.

The kept states are canonical forms, so their lines are aligned: line i of one is line i of
another. Per line of the pyramid (the geometry's lines, the ones the model labels) `learn`
reports its most common label among the kept states and the share of states that hold it
(agreement 1.0: all agree).

Two alignments. "canonical": the forms as kept. Each class's form is one image picked on its
own, so two states one line apart may get images and label names far apart (the first
appearance of a label moves): three such states of docs/bel_n6_best.json agree on 72 of 193
lines so. "reference" (the default): every state is moved onto the first kept state of the
lowest count by the image under G and the renaming of labels that make the most lines agree
(a maximum-weight assignment of labels per image, images tried by an upper bound until none
can beat the best found); the same three states then agree on all but the lines they differ in.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from ilp_pyramid.puzzles.bel.canonical import images
from ilp_pyramid.puzzles.bel.geometry import pyramid
from ilp_pyramid.puzzles.bel.hunt.near import NearStore

ALIGNMENTS = ("reference", "canonical")
SHOWN = 24  # the lines all agree on that the text names


def _assignment(weight: np.ndarray) -> tuple[float, np.ndarray]:
    """The largest total weight of a matching of the rows to the columns of a square matrix,
    and the matching (column -> row): the Hungarian method, O(K^3) for K labels."""
    size = weight.shape[0]
    cost = weight.max() - weight  # a minimum-cost assignment of this
    u, v = np.zeros(size + 1), np.zeros(size + 1)
    match = np.zeros(size + 1, dtype=int)  # column -> row (1-based; 0: none)
    for row in range(1, size + 1):
        match[0] = row
        col0 = 0
        least = np.full(size + 1, np.inf)
        used = np.zeros(size + 1, dtype=bool)
        way = np.zeros(size + 1, dtype=int)
        while True:
            used[col0] = True
            r0, delta, col1 = match[col0], np.inf, 0
            for col in range(1, size + 1):
                if not used[col]:
                    current = cost[r0 - 1, col - 1] - u[r0] - v[col]
                    if current < least[col]:
                        least[col], way[col] = current, col0
                    if least[col] < delta:
                        delta, col1 = least[col], col
            for col in range(size + 1):
                if used[col]:
                    u[match[col]] += delta
                    v[col] -= delta
                else:
                    least[col] -= delta
            col0 = col1
            if match[col0] == 0:
                break
        while col0:
            col1 = way[col0]
            match[col0] = match[col1]
            col0 = col1
    rows = match[1:] - 1
    return float(weight[rows, np.arange(size)].sum()), rows


def align(n: int, reference: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """`labels` moved onto `reference`: the image under G and the renaming of labels with
    the most lines agreeing."""
    k = pyramid(n).num_labels
    rows = images(n, labels)  # (|G|, lines)
    flat = (reference[None, :] * k + rows).ravel() + np.repeat(np.arange(len(rows)) * k * k,
                                                              rows.shape[1])
    confusion = np.bincount(flat, minlength=len(rows) * k * k).reshape(len(rows), k, k)
    bound = np.minimum(confusion.max(axis=2).sum(axis=1), confusion.max(axis=1).sum(axis=1))
    best, best_image, rename = -1.0, 0, np.arange(k)
    for g in np.argsort(-bound, kind="stable"):
        if bound[g] <= best:
            break
        score, matching = _assignment(confusion[g])
        if score > best:
            best, best_image, rename = score, g, matching  # image label -> reference label
    return rename[rows[best_image]].astype(np.int32)


def learn(store: NearStore, alignment: str = "reference") -> dict:
    """Per line: the most common label, the share of kept states holding it, whether all do;
    with the totals (per family too)."""
    if alignment not in ALIGNMENTS:
        raise ValueError(f"unknown alignment {alignment!r}")
    n = store.n
    pyr = pyramid(n)
    states = list(store)
    result: dict = {"n": n, "states": len(states), "alignment": alignment,
                    "counts": {str(k): v for k, v in
                               sorted(Counter(s.count for s in states).items())}}
    if not states:
        return {**result, "lines": [], "unanimous": 0, "mean_agreement": None, "families": {}}
    forms = [s.labels for s in states]
    if alignment == "reference":
        forms = [forms[0]] + [align(n, forms[0], form) for form in forms[1:]]
    stack = np.stack(forms)
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
    out = [f"{report['states']} kept states (repeated cubes: {counts}; aligned: "
           f"{report['alignment']}); "
           f"{report['unanimous']} of {len(report['lines'])} lines agree in all, mean "
           f"agreement {report['mean_agreement']:.2f}"]
    for family, row in report["families"].items():
        out.append(f"  {family}: {row['unanimous']} of {row['lines']} lines agree in all, "
                   f"mean {row['mean_agreement']:.2f}")
    agreed = [f"{row['line']}={row['label']}" for row in report["lines"] if row["unanimous"]]
    if agreed and report["states"] > 1:
        more = f" (+{len(agreed) - SHOWN} more: --json)" if len(agreed) > SHOWN else ""
        out.append("  all agree on: " + " ".join(agreed[:SHOWN]) + more)
    return "\n".join(out) + "\n"
