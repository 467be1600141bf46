"""Seeded challenges: a random filling of a board, k of its pieces given, the rest to find.

The filling is Algorithm X over the board's exact cover (model.Instance.exact_cover_rows),
the candidate rows tried in a shuffled order, so the first filling found is a random one;
a search that runs long starts again with a new order (the pyramid's searches are
heavy-tailed), which keeps the 55-cell boards under a second. Then the pieces of the filling
are shuffled and the first k given. The same (board, seed) gives the same filling and the
same order of pieces on every machine (Python's `random.Random` with a string seed, as
insanity's generator), so the challenges of one seed nest: those of k pieces given are among
those of k + 1. Fewer given, more to search: the bench's ramp (puzzle.py, bench_cases).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles.iq.boards import Board
from ilp_pyramid.puzzles.iq.model import Instance, build_instance
from ilp_pyramid.puzzles.iq.pieces import Piece

# The search restarts with a fresh order after this many nodes, doubled each time: a bad
# first choice on the 55-ball pyramid costs far more than a few fresh starts.
FIRST_BUDGET = 50
# Past this many nodes in all, the board is refused (no answer either way); a board with no
# filling that small searches prove first (pyramid3) is refused with that answer.
MAX_NODES = 2_000_000


class _OutOfNodes(Exception):
    pass


def random_filling(instance: Instance, rng: random.Random) -> list[int] | None:
    """The placement indices of one filling of `instance`, the rows tried in `rng`'s order
    (the smallest column first, ties by item number), restarting with a new order after
    FIRST_BUDGET nodes, then twice as many...; None when a search ends without one (there
    is none). InputError past MAX_NODES in all."""
    rows, primary, _ = instance.exact_cover_rows()
    budget, spent = FIRST_BUDGET, 0
    while spent < MAX_NODES:
        budget = min(budget, MAX_NODES - spent)
        try:
            return _search(rows, primary, instance.num_items, rng, budget)
        except _OutOfNodes:
            spent += budget
            budget *= 2
    raise InputError(f"no filling of board {instance.board.name} found within "
                     f"{MAX_NODES:,} search nodes")


def _search(rows: Sequence[Sequence[int]], primary: int, num_items: int,
            rng: random.Random, budget: int) -> list[int] | None:
    """Algorithm X, the rows in a shuffled order; _OutOfNodes past `budget` nodes."""
    order = list(range(len(rows)))
    rng.shuffle(order)
    rank = {r: i for i, r in enumerate(order)}
    by_item: list[set[int]] = [set() for _ in range(num_items)]
    for r, items in enumerate(rows):
        for item in items:
            by_item[item].add(r)
    live = set(range(primary))  # primary items still to cover
    chosen: list[int] = []
    nodes = 0

    def search() -> bool:
        nonlocal nodes
        if not live:
            return True
        nodes += 1
        if nodes > budget:
            raise _OutOfNodes
        item = min(live, key=lambda i: (len(by_item[i]), i))
        for r in sorted(by_item[item], key=rank.__getitem__):
            removed = _cover(rows[r], rows, by_item)
            live.difference_update(rows[r])
            chosen.append(r)
            if search():
                return True
            chosen.pop()
            live.update(i for i in rows[r] if i < primary)
            _uncover(removed, rows, by_item)
        return False

    return sorted(chosen) if search() else None


def _cover(row: Sequence[int], rows: Sequence[Sequence[int]],
           by_item: list[set[int]]) -> list[tuple[int, list[int]]]:
    """Take `row`: every row meeting one of its items leaves the other items' candidates.
    Returns what `_uncover` puts back."""
    removed = []
    for item in row:
        clashing = list(by_item[item])
        for other in clashing:
            for j in rows[other]:
                if j != item:
                    by_item[j].discard(other)
        removed.append((item, clashing))
    return removed


def _uncover(removed: list[tuple[int, list[int]]], rows: Sequence[Sequence[int]],
             by_item: list[set[int]]) -> None:
    for item, clashing in reversed(removed):
        for other in clashing:
            for j in rows[other]:
                if j != item:
                    by_item[j].add(other)


def generate_given(board: Board, pieces: Sequence[Piece], k: int, seed: int) -> Instance:
    """The challenge of `seed` on `board`: a random filling with k of its pieces given.
    InputError when the board has no filling or k is more than the pieces it uses."""
    empty = build_instance(board, pieces)
    rng = random.Random(f"iq {board.name} {seed}")
    filling = random_filling(empty, rng)
    if filling is None:
        raise InputError(f"board {board.name} has no filling to draw a challenge from")
    placed = [empty.placements[r] for r in filling]
    rng.shuffle(placed)
    if not 0 <= k <= len(placed):
        raise InputError(f"--generate-given {k}: a filling of board {board.name} has "
                         f"{len(placed)} pieces, so 0 to {len(placed)} can be given")
    given = {c: pl.piece for pl in placed[:k] for c in pl.cells}
    return build_instance(board, pieces, given)
