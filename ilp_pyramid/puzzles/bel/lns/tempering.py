"""Parallel tempering around the line-label walk (issue 29).

Several replicas of search.LocalSearch walk at the temperatures of a ladder; after every
segment of moves, neighbours on the ladder exchange temperatures with the Metropolis
probability min(1, exp((E_cold - E_hot) * (1/T_cold - 1/T_hot))), so a state the hot walk
found low moves down to the cold one and a cold state stuck in a basin moves up to be shaken.
An exchange swaps which replica walks at which temperature (the states stay where they are,
so every replica's incremental counts stay exact). The replicas take turns in one process:
the class answers the calls the driver makes on a LocalSearch, so the driver's repairs,
restarts and sharing work on it unchanged.
"""

from __future__ import annotations

import math

import numpy as np

from ilp_pyramid.puzzles.bel.lns.search import LocalSearch


class Tempering:
    """Replicas of the walk on a temperature ladder, seen from the driver as one search."""

    def __init__(self, n: int, labels: np.ndarray, seed: int, ladder: tuple[float, ...],
                 segment: int = 25_000):
        if len(ladder) < 2 or any(t <= 0 for t in ladder):
            raise ValueError(f"a tempering ladder needs two or more positive temperatures, "
                             f"got {ladder}")
        self.n = n
        self.ladder = tuple(sorted(ladder))
        self.segment = int(segment)
        self.rng = np.random.default_rng(seed)
        # every replica starts from `labels`; their own random streams part them at once
        self.replicas = [LocalSearch(n, labels, seed * 1000 + r)
                         for r in range(len(self.ladder))]
        self.at = list(range(len(self.ladder)))  # at[slot] = the replica at ladder[slot]
        self.exchanges = [0, 0]  # accepted, proposed
        self.current = 0
        self.best = min(r.best for r in self.replicas)
        self.best_labels = self._best_replica().best_labels.copy()

    def _best_replica(self) -> LocalSearch:
        return min(self.replicas, key=lambda r: r.best)

    @property
    def moves(self) -> int:
        return sum(r.moves for r in self.replicas)

    @property
    def labels(self) -> np.ndarray:
        return self.replicas[self.current].labels

    @property
    def conflicts(self) -> int:
        return self.replicas[self.current].conflicts

    def temperatures(self) -> dict[int, float]:
        """Replica -> the temperature it walks at now."""
        return {r: self.ladder[slot] for slot, r in enumerate(self.at)}

    def reset(self, labels: np.ndarray) -> None:
        """A restart: the replica standing highest takes `labels`; the others walk on."""
        worst = max(range(len(self.replicas)), key=lambda r: self.replicas[r].conflicts)
        self.replicas[worst].reset(labels)

    def exchange(self) -> None:
        """One sweep of exchange proposals between neighbours on the ladder."""
        for slot in range(len(self.ladder) - 1):
            cold, hot = self.at[slot], self.at[slot + 1]
            e_cold = self.replicas[cold].conflicts
            e_hot = self.replicas[hot].conflicts
            x = (e_cold - e_hot) * (1 / self.ladder[slot] - 1 / self.ladder[slot + 1])
            self.exchanges[1] += 1
            if x >= 0 or self.rng.random() < math.exp(x):
                self.at[slot], self.at[slot + 1] = hot, cold
                self.exchanges[0] += 1

    def run(self, moves: int, temperature: float = 0.0, p_target: float = 0.5,
            p_triple: float = 0.2, stop_at: int = 0, p_single: float = 0.0) -> int:
        """About `moves` moves in all (segments per replica, exchanges between them), or until
        a replica stands at `stop_at` or fewer repeated cubes (then it is the one `labels`
        shows). `temperature` is ignored: the ladder replaces it."""
        del temperature
        start = self.moves
        while self.moves - start < moves:
            for slot, r in enumerate(self.at):
                replica = self.replicas[r]
                replica.run(self.segment, self.ladder[slot], p_target, p_triple, stop_at,
                            p_single)
                if replica.best < self.best:
                    self.best = replica.best
                    self.best_labels = replica.best_labels.copy()
                if replica.conflicts <= stop_at:
                    self.current = r
                    return self.best
            self.exchange()
        self.current = min(range(len(self.replicas)), key=lambda r: self.replicas[r].conflicts)
        return self.best
