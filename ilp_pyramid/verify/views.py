"""Check top-front-side answers by re-projecting them, straight from the spec's conventions.

Imports no solver and no model code: the bit orders are decoded here again on purpose, so a
convention slip elsewhere shows up as a failed check instead of agreeing with itself.

- input bits (3 n^2, bit 0 first): top[y][x], then front[z][x], then side[z][c] (y = n-1-c),
  each row by row, left to right;
- answer bits (n^3, bit 0 first): cell (x, y, z) is bit z*n*n + y*n + x.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import reduce

import numpy as np

VIEW_NAMES = ("top", "front", "side")


@dataclass
class ViewsVerdict:
    valid: bool
    cubes: int = 0
    problems: list[str] = field(default_factory=list)

    def reasons(self) -> list[str]:
        return list(self.problems)


def _bits_array(bits: str) -> np.ndarray:
    if set(bits) - {"0", "1"}:
        raise ValueError("bits must be a 0/1 string")
    return np.array([ch == "1" for ch in bits], dtype=bool)


def input_views(input_bits: str) -> tuple[int, np.ndarray]:
    """(n, views[3, n, n]) with views[0] = top[y, x], views[1] = front[z, x], views[2] = side."""
    flat = _bits_array(input_bits)
    n = round((len(flat) / 3) ** 0.5)
    if 3 * n * n != len(flat) or n < 1:
        raise ValueError(f"{len(flat)} input bits are not three square views")
    return n, flat.reshape(3, n, n)


def shown_views(placement: np.ndarray) -> np.ndarray:
    """views[3, n, n] that cubes at placement[..., z, y, x] show (batched over leading axes)."""
    cubes = np.asarray(placement, dtype=bool)
    n = cubes.shape[-1]
    # OR of n slices: many times faster than .any() over a short axis of a big batch.
    top = reduce(np.logical_or, [cubes[..., z, :, :] for z in range(n)])  # [y, x]
    front = reduce(np.logical_or, [cubes[..., :, y, :] for y in range(n)])  # [z, x]
    side = reduce(np.logical_or, [cubes[..., :, :, x] for x in range(n)])  # [z, y]
    return np.stack([top, front, side[..., ::-1]], axis=-3)  # side column c is y = n-1-c


def verify_answer(input_bits: str, answer_bits: str) -> ViewsVerdict:
    """Do the cubes of `answer_bits` show exactly the views of `input_bits`?"""
    n, views = input_views(input_bits)
    cells = _bits_array(answer_bits)
    if len(cells) != n ** 3:
        return ViewsVerdict(False, 0, [f"the answer has {len(cells)} bits, n = {n} needs "
                                       f"{n ** 3}"])
    shown = shown_views(cells.reshape(n, n, n))
    problems = []
    for v, name in enumerate(VIEW_NAMES):
        for r, c in zip(*np.nonzero(shown[v] != views[v]), strict=True):
            what = "shows a pixel the view lacks" if shown[v, r, c] else "misses a set pixel"
            problems.append(f"{name} view row {r} column {c}: the placement {what}")
    return ViewsVerdict(not problems, int(cells.sum()), problems)


def verify_unsolvable(input_bits: str) -> ViewsVerdict:
    """An "unsolvable" verdict holds iff the largest placement fails to show the views.

    The largest placement fills every cell whose three projections are set; any placement
    that shows the views is a subset of it, so if it misses a pixel, every placement does.
    """
    n, views = input_views(input_bits)
    fullest = _fullest(views[None])[0]
    verdict = verify_answer(input_bits, "".join("1" if b else "0" for b in fullest.ravel()))
    if verdict.valid:
        return ViewsVerdict(False, 0, ["the views are solvable: the largest placement "
                                       "shows them exactly"])
    return ViewsVerdict(True, 0, verdict.problems)


def _fullest(views: np.ndarray) -> np.ndarray:
    top, front, side = views[:, 0], views[:, 1], views[:, 2][:, :, ::-1]  # side -> [z, y]
    return top[:, None, :, :] & front[:, :, None, :] & side[:, :, :, None]


def _unpack(values: np.ndarray, width: int) -> np.ndarray:
    """Rows of `width` bits, bit 0 = the most significant of the `width`-bit value."""
    octets = np.asarray(values).astype(">u8").view(np.uint8).reshape(-1, 8)
    return np.unpackbits(octets, axis=1)[:, 64 - width:].astype(bool)


def verify_batch(n: int, inputs: np.ndarray, answers: np.ndarray,
                 solvable: np.ndarray) -> np.ndarray:
    """Element-wise: does each verdict hold? (n <= 4, so the answer fits 64 bits.)

    inputs: 3 n^2-bit integers (bit 0 = most significant); answers: n^3-bit integers, read
    only where `solvable`; where not solvable the verdict "unsolvable" is checked instead.
    """
    if n > 4:
        raise ValueError("verify_batch packs answers in 64 bits: n <= 4")
    views = _unpack(np.asarray(inputs), 3 * n * n).reshape(-1, 3, n, n)
    solvable = np.asarray(solvable, dtype=bool)
    ok = np.zeros(len(views), dtype=bool)
    if solvable.any():
        cubes = _unpack(np.asarray(answers)[solvable], n ** 3).reshape(-1, n, n, n)
        ok[solvable] = (shown_views(cubes) == views[solvable]).all(axis=(1, 2, 3))
    if (~solvable).any():
        shown = shown_views(_fullest(views[~solvable]))
        ok[~solvable] = (shown != views[~solvable]).any(axis=(1, 2, 3))
    return ok
