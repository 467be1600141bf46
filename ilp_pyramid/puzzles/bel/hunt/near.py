"""The near-solutions a hunt has seen: DIR/near.jsonl.gz.

Every state at the two lowest counts of repeated cubes seen so far is kept, not only the
best one, once per class of equivalent labellings (canonical.py: the symmetry group and the
label renamings), as its canonical form. One gzipped JSON line per state: "n", "count" (of
repeated cubes), "labels" (the canonical form, line labels in geometry order), "repeated"
([cube, cells showing it] in those labels), "missing" (cubes no cell shows), "found" (UTC),
"source" ({"by": hunt | descent | best.json | measure, "seed": the worker's, "run_seed": the
descent's}). At most MAX_KEPT states: past it the oldest state of the highest kept count
goes first. A state that reaches a new lowest count drops the states of what is now the
third lowest. The file is rewritten atomically under a lock beside it (near.lock), read and
merged first, so a hunt and measuring scripts may feed one directory side by side. Counts
are recomputed when read, never trusted; the forms are taken as written (canonicalising 200
states anew at every write would cost seconds), so a hand-edited line may only weaken the
deduplication.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ilp_pyramid.errors import InputError
from ilp_pyramid.formats.fileio import read_text, write_atomic
from ilp_pyramid.puzzles.bel.canonical import canonical_labels
from ilp_pyramid.puzzles.bel.geometry import pyramid
from ilp_pyramid.puzzles.bel.lns.arrays import arrays, conflicts_of

NEAR_FILE = "near.jsonl.gz"
NEAR_LOCK = "near.lock"
MAX_KEPT = 200
KEPT_COUNTS = 2  # the lowest counts whose states are kept


@dataclass
class NearState:
    n: int
    count: int
    labels: np.ndarray  # the canonical form
    found: str
    source: dict = field(default_factory=dict)

    @property
    def key(self) -> bytes:
        return self.labels.astype(np.uint8).tobytes()

    def cubes(self) -> tuple[list, list]:
        """([cube, cells showing it] for each repeated cube, the missing cubes)."""
        a = arrays(self.n)
        lab = self.labels
        shown = a.cube_id[lab[a.cell_line[:, 0]], lab[a.cell_line[:, 1]], lab[a.cell_line[:, 2]]]
        counts = np.bincount(shown, minlength=len(pyramid(self.n).cubes))
        cubes = pyramid(self.n).cubes
        repeated = [[list(cubes[k]), int(c)] for k, c in enumerate(counts) if c > 1]
        missing = [list(cubes[k]) for k, c in enumerate(counts) if c == 0]
        return repeated, missing

    def to_json(self) -> dict:
        repeated, missing = self.cubes()
        return {"n": self.n, "count": self.count, "labels": [int(x) for x in self.labels],
                "repeated": repeated, "missing": missing, "found": self.found,
                "source": self.source}


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class NearStore:
    """The kept states of one N, by canonical form, in the order they were found."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.states: dict[bytes, NearState] = {}

    def __len__(self) -> int:
        return len(self.states)

    def __iter__(self) -> Iterator[NearState]:
        return iter(sorted(self.states.values(), key=lambda s: s.count))

    def counts(self) -> list[int]:
        return sorted({s.count for s in self.states.values()})

    def limit(self) -> int | None:
        """The highest count a new state may have to be kept (None: any count)."""
        counts = self.counts()
        return counts[KEPT_COUNTS - 1] if len(counts) >= KEPT_COUNTS else None

    def admits(self, count: int) -> bool:
        limit = self.limit()
        return limit is None or count <= limit

    def add(self, labels: np.ndarray, source: dict | None = None, found: str | None = None,
            is_canonical: bool = False) -> bool:
        """Keep `labels` if its count is among the lowest two and its class is new; whether
        the store changed."""
        count = conflicts_of(self.n, labels)
        if not self.admits(count):
            return False
        form = labels if is_canonical else canonical_labels(self.n, labels)
        state = NearState(self.n, count, np.asarray(form, dtype=np.int32), found or now(),
                          dict(source or {}))
        if state.key in self.states:
            return False
        self.states[state.key] = state
        self._trim()
        return state.key in self.states

    def _trim(self) -> None:
        keep = set(self.counts()[:KEPT_COUNTS])
        for key in [k for k, s in self.states.items() if s.count not in keep]:
            del self.states[key]
        while len(self.states) > MAX_KEPT:
            worst = max(s.count for s in self.states.values())
            # dicts keep insertion order: the first of the worst count is its oldest
            oldest = next(k for k, s in self.states.items() if s.count == worst)
            del self.states[oldest]

    def text(self) -> str:
        return "".join(json.dumps(s.to_json()) + "\n" for s in self.states.values())


def load_near(state_dir: Path, n: int) -> NearStore:
    """The kept states of `state_dir` (an empty store when it has none yet)."""
    store = NearStore(n)
    path = state_dir / NEAR_FILE
    if not path.exists():
        return store
    try:
        text = read_text(path)
    except (OSError, InputError) as exc:
        raise InputError(f"{path}: cannot read the kept states ({exc})") from None
    num_lines, num_labels = len(pyramid(n).lines), pyramid(n).num_labels
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            labels = np.asarray(data["labels"], dtype=np.int32)
            good = (data.get("n") == n and labels.shape == (num_lines,)
                    and labels.min() >= 0 and labels.max() < num_labels)
        except (ValueError, TypeError, KeyError, AttributeError):
            good = False
        if not good:
            raise InputError(f"{path}: line {number} is not a kept state of N={n}")
        source = data.get("source") if isinstance(data.get("source"), dict) else {}
        store.add(labels, source, str(data.get("found", "")), is_canonical=True)
    return store


def save_near(state_dir: Path, store: NearStore) -> None:
    write_atomic(state_dir / NEAR_FILE, store.text())


@contextlib.contextmanager
def _locked(state_dir: Path) -> Iterator[None]:
    state_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(state_dir / NEAR_LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # a writer waits: each holds it for a moment only
        yield
    finally:
        os.close(fd)


def update_near(state_dir: Path, n: int,
                candidates: Iterable[tuple[np.ndarray, dict]]) -> NearStore:
    """Add (labels, source) candidates to the directory's kept states: read, merge and
    written back under the lock; the store as it now is."""
    with _locked(state_dir):
        store = load_near(state_dir, n)
        changed = False
        for labels, source in candidates:
            changed |= store.add(np.asarray(labels, dtype=np.int32), source)
        if changed:
            save_near(state_dir, store)
        return store
