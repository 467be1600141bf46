"""One representative per class of equivalent labellings: the canonical form.

Two labellings are the same near-solution when one is the other under the pyramid's symmetry
group G (symmetry.py: slice swaps, the transpose, the top swap; as permutations of lines) and
a renaming of the labels (all (2N-1)! of them are symmetries: a cube is a multiset and the
rules never tell one label from another, so there is no separate label reversal to add).
`canonical_labels` takes every image under G, renames each image's labels in order of first
appearance (which picks the least image over the label renamings) and keeps the
lexicographically least: equivalent labellings get the same form, different ones different
forms, and the form is itself a labelling of the class, lines aligned. |G| = 4^N images
(4096 at N = 6) are compared at once with numpy.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ilp_pyramid.puzzles.bel.geometry import pyramid
from ilp_pyramid.puzzles.bel.symmetry import generators, line_permutation


@cache
def line_group(n: int) -> np.ndarray:
    """Every element of G as a permutation of line indices, one row each (row 0: identity);
    row[i] is the index of the image of line i."""
    gens = [np.asarray(line_permutation(n, g), dtype=np.int32) for g in generators(n)]
    identity = np.arange(len(pyramid(n).lines), dtype=np.int32)
    seen = {identity.tobytes(): identity}
    frontier = [identity]
    while frontier:
        nxt = []
        for perm in frontier:
            for gen in gens:
                image = gen[perm]  # perm first, then gen
                key = image.tobytes()
                if key not in seen:
                    seen[key] = image
                    nxt.append(image)
        frontier = nxt
    return np.stack(list(seen.values()))


def images(n: int, labels: np.ndarray) -> np.ndarray:
    """The labelling under every element of G, one row each (labels not renamed)."""
    perms = line_group(n)
    lab = np.asarray(labels, dtype=np.int32)
    out = np.empty(perms.shape, dtype=np.int32)
    # the label of line i moves to line perm[i]
    np.put_along_axis(out, perms, np.broadcast_to(lab, perms.shape), axis=1)
    return out


def first_appearance(rows: np.ndarray, num_labels: int) -> np.ndarray:
    """Each row's labels renamed 0, 1, 2, ... in the order they first appear in it."""
    rows = np.atleast_2d(rows)
    length = rows.shape[1]
    first = np.full((rows.shape[0], num_labels), length, dtype=np.int64)
    for label in range(num_labels):
        mask = rows == label
        first[:, label] = np.where(mask.any(axis=1), mask.argmax(axis=1), length)
    order = np.argsort(first, axis=1, kind="stable")
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(num_labels)[None, :].repeat(len(rows), 0), axis=1)
    return np.take_along_axis(rank, rows.astype(np.int64), axis=1).astype(np.int32)


def canonical_labels(n: int, labels: np.ndarray) -> np.ndarray:
    """The canonical form as line labels (geometry order): a labelling of the same class."""
    renamed = first_appearance(images(n, labels), pyramid(n).num_labels)
    least = np.lexsort(renamed.T[::-1])[0]  # lexsort's last key is the primary one
    return renamed[least]


def canonical(n: int, labels: np.ndarray) -> bytes:
    """The canonical form as bytes: equal exactly for equivalent labellings."""
    return canonical_labels(n, labels).astype(np.uint8).tobytes()
