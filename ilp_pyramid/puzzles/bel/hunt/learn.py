"""What the kept near-solutions share (near.py): a first look for a structure to prescribe.

The kept states are canonical forms, so their lines are aligned: line i of one is line i of
another. Per line of the pyramid (the geometry's lines, the ones the model labels) `learn`
reports its most common label among the kept states and the share of states that hold it
(agreement 1.0: all agree).

Two alignments. "canonical": the forms as kept. Each class's form is one image picked on its
own, so two states one line apart may get images and label names far apart (the first
appearance of a label moves): three such states of docs/data/bel_n6_best.json agree on 72 of 193
lines so. "reference" (the default): every state is moved onto the first kept state of the
lowest count by the image under G and the renaming of labels that make the most lines agree
(a maximum-weight assignment of labels per image, images tried by an upper bound until none
can beat the best found); the same three states then agree on all but the lines they differ in.

Agreement is read against chance: the alignment itself makes unrelated states agree on some
lines (it picks, among the symmetry group's images, 4,096 at N=6, and every renaming of the
labels, the one agreeing most). `chance` repeats the report with every state but the reference
shuffled, its labels dealt at random among lines of one length (so each label keeps its line
lengths, the counting condition), aligned the same way: what agreement unrelated states of the
same shape reach.

`hypotheses` asks the same of the catalogue's hypothesis strategies (strategies.py) that give
each of their lines a set of labels (YStep, XStep, ZRing, the constructive ones): the fewest
of those lines a state leaves outside their sets, under the best image and renaming of
labels (0: the state satisfies the strategy up to symmetry), for the kept states and for the
same states shuffled once each.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
from numba import njit

from ilp_pyramid.puzzles.bel import strategies
from ilp_pyramid.puzzles.bel.canonical import images
from ilp_pyramid.puzzles.bel.geometry import pyramid
from ilp_pyramid.puzzles.bel.hunt.near import NearStore

ALIGNMENTS = ("reference", "canonical")
SHOWN = 24  # the lines all agree on that the text names
CHANCE_DRAWS = 10  # shuffled stores a chance baseline is measured on
CHANCE_SEED = 0  # the same store always gets the same baseline


@njit(cache=True)
def _assignment(weight: np.ndarray) -> tuple[float, np.ndarray]:
    """The largest total weight of a matching of the rows to the columns of a square matrix,
    and the matching (column -> row): the Hungarian method, O(K^3) for K labels (compiled:
    a strategy's fit runs it for thousands of images a state)."""
    size = weight.shape[0]
    cost = weight.max() - weight  # a minimum-cost assignment of this
    u, v = np.zeros(size + 1), np.zeros(size + 1)
    match = np.zeros(size + 1, dtype=np.int64)  # column -> row (1-based; 0: none)
    for row in range(1, size + 1):
        match[0] = row
        col0 = 0
        least = np.full(size + 1, np.inf)
        used = np.zeros(size + 1, dtype=np.bool_)
        way = np.zeros(size + 1, dtype=np.int64)
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
    total = 0.0
    for col in range(size):
        total += weight[rows[col], col]
    return total, rows


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


def shuffled(n: int, labels: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """`labels` dealt at random among the lines of each length (every label keeps the lengths
    of its lines)."""
    lengths = np.asarray(pyramid(n).line_lengths)
    out = labels.copy()
    for length in np.unique(lengths):
        lines = np.flatnonzero(lengths == length)
        out[lines] = labels[rng.permutation(lines)]
    return out


def _agreement(n: int, forms: list[np.ndarray], alignment: str) -> np.ndarray:
    """The forms stacked (states x lines), moved onto the first with the reference alignment."""
    if alignment == "reference":
        forms = [forms[0]] + [align(n, forms[0], form) for form in forms[1:]]
    return np.stack(forms)


def chance(n: int, forms: list[np.ndarray], alignment: str = "reference",
           draws: int = CHANCE_DRAWS, seed: int = CHANCE_SEED) -> dict:
    """Lines all agree on and mean agreement when every state but the first is shuffled:
    min, mean and max over `draws` shuffled stores."""
    rng = np.random.default_rng(seed)
    unanimous, mean = [], []
    for _ in range(draws):
        stack = _agreement(n, [forms[0]] + [shuffled(n, f, rng) for f in forms[1:]],
                           alignment)
        unanimous.append(int((stack == stack[0]).all(axis=0).sum()))
        mean.append(float(np.mean([np.unique(column, return_counts=True)[1].max()
                                   for column in stack.T]) / len(stack)))
    return {"draws": draws, "unanimous": [min(unanimous), round(float(np.mean(unanimous)), 1),
                                          max(unanimous)],
            "mean_agreement": [round(min(mean), 4), round(float(np.mean(mean)), 4),
                               round(max(mean), 4)]}


def domains(n: int, name: str) -> tuple[np.ndarray, np.ndarray] | None:
    """A strategy as (its lines, lines x labels: allowed), when every rule of it is a set of
    labels for one line; None for any other strategy."""
    rules = strategies.rules_for(n, [name])
    if not rules or not all(isinstance(rule, strategies.Allowed) and len(rule.lines) == 1
                            for rule in rules):
        return None
    allowed = np.zeros((len(rules), pyramid(n).num_labels), dtype=bool)
    for i, rule in enumerate(rules):
        for (label,) in rule.tuples:
            allowed[i, label] = True
    return np.array([rule.lines[0] for rule in rules]), allowed


def strategy_gap(n: int, labels: np.ndarray, lines: np.ndarray, allowed: np.ndarray) -> int:
    """The fewest of `lines` outside their allowed labels over every image of `labels` under
    G and every renaming of its labels (a minimum-cost assignment per image, the images
    tried in order of a lower bound until none can beat the best)."""
    return _gap(images(n, labels), lines, allowed)


def _gap(every_image: np.ndarray, lines: np.ndarray, allowed: np.ndarray) -> int:
    """`strategy_gap` from the state's images (one row per element of G)."""
    k = allowed.shape[1]
    rows = every_image[:, lines].astype(np.int64)
    count = len(rows)
    flat = (np.arange(count)[:, None] * k + rows).ravel()
    outside = (~allowed).astype(np.float64)
    # cost[g, a, b]: lines of image g with label a that label b is not allowed on
    cost = np.stack([np.bincount(flat, weights=np.tile(outside[:, b], count),
                                 minlength=count * k).reshape(count, k)
                     for b in range(k)], axis=2)
    bound = np.maximum(cost.min(axis=2).sum(axis=1), cost.min(axis=1).sum(axis=1))
    best = len(lines)
    for g in np.argsort(bound, kind="stable"):
        if bound[g] >= best:
            break
        score, _ = _assignment(-cost[g])
        best = min(best, round(-score))
    return int(best)


def hypotheses(n: int, forms: list[np.ndarray], seed: int = CHANCE_SEED) -> dict:
    """Per fitting hypothesis strategy: its lines, and min/mean/max of `strategy_gap` over
    the kept states and over the same states shuffled once each."""
    rng = np.random.default_rng(seed)
    fits = {name: domains(n, name) for name, strategy in strategies.CATALOGUE.items()
            if strategy.kind == "hypothesis"}
    fits = {name: fit for name, fit in fits.items() if fit is not None}
    kept: dict[str, list[int]] = {name: [] for name in fits}
    luck: dict[str, list[int]] = {name: [] for name in fits}
    for form in forms:  # each state's images made once, for every strategy
        for gaps, rows in ((kept, images(n, form)), (luck, images(n, shuffled(n, form, rng)))):
            for name, fit in fits.items():
                gaps[name].append(_gap(rows, *fit))
    return {name: {"lines": len(fit[0]), "kept": _spread(kept[name]),
                   "chance": _spread(luck[name])} for name, fit in fits.items()}


def _spread(values: list[int]) -> list[float]:
    return [min(values), round(float(np.mean(values)), 1), max(values)]


def learn(store: NearStore, alignment: str = "reference", draws: int = CHANCE_DRAWS) -> dict:
    """Per line: the most common label, the share of kept states holding it, whether all do;
    with the totals (per family too), and the same totals by chance (`chance`, over `draws`
    shuffled stores; none with fewer than two states or no draws)."""
    if alignment not in ALIGNMENTS:
        raise ValueError(f"unknown alignment {alignment!r}")
    n = store.n
    pyr = pyramid(n)
    states = list(store)
    result: dict = {"n": n, "states": len(states), "alignment": alignment,
                    "counts": {str(k): v for k, v in
                               sorted(Counter(s.count for s in states).items())}}
    if not states:
        return {**result, "lines": [], "unanimous": 0, "mean_agreement": None, "families": {},
                "chance": None, "hypotheses": None}
    forms = [s.labels for s in states]
    stack = _agreement(n, forms, alignment)
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
            "families": families,
            "chance": chance(n, forms, alignment, draws) if len(forms) > 1 and draws else None,
            "hypotheses": hypotheses(n, forms) if draws else None}


def learn_text(report: dict) -> str:
    """A few lines: the totals, per family, and the lines all kept states agree on."""
    if not report["states"]:
        return "no kept states to learn from\n"
    counts = ", ".join(f"{k} x{v}" for k, v in report["counts"].items())
    out = [f"{report['states']} kept states (repeated cubes: {counts}; aligned: "
           f"{report['alignment']}); "
           f"{report['unanimous']} of {len(report['lines'])} lines agree in all, mean "
           f"agreement {report['mean_agreement']:.2f}"]
    luck = report.get("chance")
    if luck:
        low, mean, high = luck["unanimous"]
        out.append(f"  by chance (the states but the first shuffled among lines of their "
                   f"lengths, {luck['draws']} draws): {low}-{high} lines agree in all (mean "
                   f"{mean:g}), mean agreement {luck['mean_agreement'][1]:.2f}")
    for family, row in report["families"].items():
        out.append(f"  {family}: {row['unanimous']} of {row['lines']} lines agree in all, "
                   f"mean {row['mean_agreement']:.2f}")
    fits = report.get("hypotheses")
    if fits:
        out.append("  lines off each hypothesis strategy (best image and renaming; min/mean/"
                   "max, kept | shuffled):")
        for name, row in fits.items():
            kept, luck = row["kept"], row["chance"]
            out.append(f"    {name} ({row['lines']} lines): {kept[0]:g}/{kept[1]:g}/{kept[2]:g}"
                       f" | {luck[0]:g}/{luck[1]:g}/{luck[2]:g}")
    agreed = [f"{row['line']}={row['label']}" for row in report["lines"] if row["unanimous"]]
    if agreed and report["states"] > 1:
        more = f" (+{len(agreed) - SHOWN} more: --json)" if len(agreed) > SHOWN else ""
        out.append("  all agree on: " + " ".join(agreed[:SHOWN]) + more)
    return "\n".join(out) + "\n"
