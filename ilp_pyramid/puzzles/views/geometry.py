"""The spec's conventions: views, cells, bit strings, parsing and drawing.

Coordinates: x = column left to right, y = depth back to front, z = height, z = 0 the top layer.
- top[y, x]   is set iff some cube sits at (x, y, any z);
- front[z, x] is set iff some cube sits at (x, any y, z);
- side[z, c]  is set iff some cube sits at (any x, n-1-c, z)  (seen from the right).

Input bits (3 n^2): the top view, then the front view, then the side view, each row by row,
top row first, left to right; in hex the most significant bit is bit 0. A placement is an
(n, n, n) boolean array indexed [z, y, x]; its answer bits (n^3) run layer by layer from the
top, each layer row by row (y = 0 first), left to right (x = 0 first), MSB first again.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

import numpy as np

from ilp_pyramid.errors import InputError

MAX_N = 24  # views of any size up to this (the study's generated ramp goes to 24)
# The branch and bound (engine.py) holds a view in one uint64: it, and the pages that draw
# a grid to edit, stop at n = 8.
EXACT_MAX_N = 8
DEFAULT_N = 4
# A generated placement holds a cube in each cell with probability DENSITY / n (at most
# one half): some two cubes per line of sight, so most pixels of each view are set, not all.
DENSITY = 2.0
SEED_DIGITS = 6  # the battery's seeds are the decimal strings "000000".."999999"
BATTERY_SIZE = 10**SEED_DIGITS

SET_CHARS = frozenset("xX#1")
CLEAR_CHARS = frozenset(".-0_")


@dataclass(frozen=True, eq=False)
class Views:
    """Three n x n boolean views (see the module docstring for the axes); `number` is the
    battery's puzzle they are, when they came from one (`seed_views`): outputs name it."""

    n: int
    top: np.ndarray
    front: np.ndarray
    side: np.ndarray
    number: int | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        for name in ("top", "front", "side"):
            view = getattr(self, name)
            if view.shape != (self.n, self.n):
                raise InputError(f"{name} view is {view.shape}, expected {self.n} x {self.n}")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Views) and self.bits() == other.bits()

    def __hash__(self) -> int:
        return hash(self.bits())

    def bits(self) -> str:
        """The 3 n^2 input bits as a 0/1 string (bit 0 first)."""
        flat = np.concatenate([self.top.ravel(), self.front.ravel(), self.side.ravel()])
        return "".join("1" if b else "0" for b in flat)

    def hex(self) -> str | None:
        """The input in hex (n even only: otherwise 3 n^2 is not a whole number of digits)."""
        return bits_hex(self.bits())

    def candidates(self) -> np.ndarray:
        """[z, y, x] is True iff all three projections of the cell are set."""
        return maximal_placement(self)

    def solvable(self) -> bool:
        """Solvable iff the maximal placement projects onto exactly these views."""
        return views_equal(projections(maximal_placement(self)), self)


def maximal_placement(views: Views) -> np.ndarray:
    """Every cell whose three projections are set, [z, y, x]."""
    side_by_y = views.side[:, ::-1]  # [z, y]
    return (views.top[None, :, :]  # [-, y, x]
            & views.front[:, None, :]  # [z, -, x]
            & side_by_y[:, :, None])  # [z, y, -]


def projections(placement: np.ndarray) -> Views:
    """The three views a placement [z, y, x] shows."""
    placement = np.asarray(placement, dtype=bool)
    n = placement.shape[0]
    return Views(n, placement.any(axis=0), placement.any(axis=1),
                 placement.any(axis=2)[:, ::-1].copy())


def views_equal(a: Views, b: Views) -> bool:
    return (a.n == b.n and np.array_equal(a.top, b.top) and np.array_equal(a.front, b.front)
            and np.array_equal(a.side, b.side))


# --- bits and hex -------------------------------------------------------------------------

def n_from_input_bits(count: int) -> int | None:
    for n in range(1, MAX_N + 1):
        if 3 * n * n == count:
            return n
    return None


def from_bits(bits: str) -> Views:
    """Views from a 0/1 string of 3 n^2 characters."""
    n = n_from_input_bits(len(bits))
    if n is None:
        sizes = ", ".join(str(3 * k * k) for k in range(1, MAX_N + 1))
        raise InputError(f"{len(bits)} bits do not make three square views "
                         f"(expected one of {sizes})")
    if set(bits) - {"0", "1"}:
        raise InputError("a bit string may contain only 0 and 1")
    flat = np.frombuffer(bits.encode(), dtype=np.uint8) == ord("1")
    views = flat.reshape(3, n, n)
    return Views(n, views[0].copy(), views[1].copy(), views[2].copy())


def hex_bits(text: str) -> str:
    return "".join(f"{int(ch, 16):04b}" for ch in text)


def bits_hex(bits: str) -> str | None:
    if len(bits) % 4:
        return None
    return "".join(f"{int(bits[i:i + 4], 2):x}" for i in range(0, len(bits), 4))


def parse_spec(text: str, n: int | None = None) -> Views:
    """Views from hex digits (3 n^2 / 4 of them) or a 0/1 string of 3 n^2 characters.

    A string of only 0s and 1s whose length is 3 n^2 is read as bits (so 48 of them are the
    n = 4 bit string, as in the spec); pass `n` to read it as hex instead.
    """
    spec = text.strip().lower()
    if spec.startswith("0x"):
        spec = spec[2:]
    if not spec:
        raise InputError("empty puzzle spec")
    if n is not None and not 1 <= n <= MAX_N:
        raise InputError(f"n must be between 1 and {MAX_N} (got {n})")
    is_bits = set(spec) <= {"0", "1"}
    wants_bits = n_from_input_bits(len(spec)) if n is None else (len(spec) == 3 * n * n)
    if is_bits and wants_bits:
        return from_bits(spec)
    bad = sorted(set(spec) - set("0123456789abcdef"))
    if bad:
        raise InputError(f"puzzle spec {text.strip()!r} is neither hex nor 0/1: "
                         f"bad character {bad[0]!r}")
    hex_n = n_from_input_bits(4 * len(spec))
    if hex_n is None or (n is not None and hex_n != n):
        want = n if n is not None else DEFAULT_N
        digits = f"{3 * want * want // 4} hex digits or " if want % 2 == 0 else ""
        raise InputError(f"puzzle spec has {len(spec)} characters; for n = {want} give "
                         f"{digits}{3 * want * want} bits")
    return from_bits(hex_bits(spec))


# --- rows such as "xx..,xxxx,xxxx,xx.x" ---------------------------------------------------

def parse_rows(text: str, name: str) -> np.ndarray:
    rows = [row for row in re.split(r"[,/;\s]+", text.strip()) if row]
    if not rows:
        raise InputError(f"--{name} is empty")
    n = len(rows)
    if n > MAX_N:
        raise InputError(f"--{name} has {n} rows; at most {MAX_N} are supported")
    out = np.zeros((n, n), dtype=bool)
    for r, row in enumerate(rows):
        if len(row) != n:
            raise InputError(f"--{name} row {r + 1} {row!r} has {len(row)} cells; "
                             f"a view with {n} rows needs {n} per row")
        for c, ch in enumerate(row):
            if ch in SET_CHARS:
                out[r, c] = True
            elif ch not in CLEAR_CHARS:
                raise InputError(f"--{name} row {r + 1}: unexpected {ch!r} "
                                 f"(use x for a set pixel, . for an empty one)")
    return out


def from_rows(top: str, front: str, side: str) -> Views:
    views = {name: parse_rows(text, name)
             for name, text in (("top", top), ("front", front), ("side", side))}
    sizes = {name: v.shape[0] for name, v in views.items()}
    if len(set(sizes.values())) != 1:
        detail = ", ".join(f"--{k} {v}x{v}" for k, v in sizes.items())
        raise InputError(f"the three views must have the same size ({detail})")
    return Views(sizes["top"], views["top"], views["front"], views["side"])


# --- the battery's seeds ------------------------------------------------------------------

def parse_seed(text: str | int) -> int:
    value = str(text).strip()
    # ASCII digits only: str.isdigit() also accepts '²', which int() then refuses.
    if not (value.isascii() and value.isdigit()) or len(value) > SEED_DIGITS:
        raise InputError(f"seed {value!r} must be a decimal number 000000..999999")
    return int(value)


def seed_hex(seed: int) -> str:
    """The first 12 hex digits of MD5(f"{seed:06}"): the battery's input for that seed."""
    return hashlib.md5(f"{seed:0{SEED_DIGITS}}".encode()).hexdigest()[:12]


def generate(n: int, seed: int = 0, density: float = DENSITY) -> Views:
    """The three views of a random placement in an n x n x n grid, the same for a seed on
    every machine (numpy's PCG64): each cell holds a cube with probability min(density / n,
    1/2). Views of a placement always have a solution."""
    rng = np.random.default_rng(seed)
    placement = rng.random((n, n, n)) < min(density / n, 0.5)
    return projections(placement)


def seed_views(seed: int) -> Views:
    views = parse_spec(seed_hex(seed))
    return Views(views.n, views.top, views.front, views.side, number=seed)


# --- output ---------------------------------------------------------------------------------

def placement_bits(placement: np.ndarray) -> str:
    return "".join("1" if b else "0" for b in np.asarray(placement, dtype=bool).ravel())


def placement_from_bits(bits: str, n: int) -> np.ndarray:
    if len(bits) != n ** 3 or set(bits) - {"0", "1"}:
        raise InputError(f"an answer for n = {n} is {n ** 3} bits of 0/1")
    return (np.frombuffer(bits.encode(), dtype=np.uint8) == ord("1")).reshape(n, n, n)


def view_rows(view: np.ndarray) -> list[str]:
    return ["".join("x" if b else "." for b in row) for row in view]


def layer_rows(placement: np.ndarray) -> list[list[str]]:
    """One list of rows per layer (z = 0 first); rows y = 0 (back) first, x left to right."""
    return [view_rows(layer) for layer in np.asarray(placement, dtype=bool)]


def origin(views: Views) -> str:
    """" (seed 000157)" for a battery puzzle, else ""."""
    return f" (seed {views.number:0{SEED_DIGITS}})" if views.number is not None else ""


def heading(views: Views) -> str:
    """"views n=4: fe88e8f9b499 (seed 000157)": the size, the input, the battery number."""
    return f"views n={views.n}: {views.hex() or views.bits()}{origin(views)}"


def picture(views: Views) -> list[str]:
    """The heading, then the three views side by side as rows of x and ."""
    blocks = [view_rows(v) for v in (views.top, views.front, views.side)]
    return [heading(views), *side_by_side(blocks, ["top", "front", "side"])]


def side_by_side(blocks: list[list[str]], titles: list[str], gap: int = 3) -> list[str]:
    """Blocks of equal-height rows printed next to each other under their titles."""
    width = [max([len(t)] + [len(r) for r in b]) for b, t in zip(blocks, titles, strict=True)]
    sep = " " * gap
    lines = [sep.join(t.ljust(w) for t, w in zip(titles, width, strict=True)).rstrip()]
    for i in range(max(len(b) for b in blocks)):
        lines.append(sep.join(b[i].ljust(w) if i < len(b) else " " * w
                              for b, w in zip(blocks, width, strict=True)).rstrip())
    return lines
