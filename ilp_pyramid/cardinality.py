"""python-sat's cardinality encoders with the process's own Ctrl-C handling kept, and its
pseudo-Boolean encoder (`pb_clauses`, the optional extra pb).

Called from the main thread, each pysat.card encoder swaps in a SIGINT handler of its own for
the length of the C call, and that handler longjmps out of whatever the encoder is doing:
Ctrl-C then ended the command with `Caught keyboard interrupt` (exit 1), or hung for good when
the jump left a malloc lock held, and the package's handler and watchdog never heard of it.
Here the encoders run as if called from another thread, so they install nothing: a SIGINT
only marks the package's handler, which runs as soon as the call returns (each call is
milliseconds on our models), and wakes the watchdog at once.

Use `CardEnc` from here wherever python-sat's would be used; `EncType` is python-sat's.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence

import pysat.card as _card
from pysat.card import EncType  # noqa: F401 - re-exported with CardEnc
from pysat.formula import IDPool

from ilp_pyramid.extras import need

_swap = threading.RLock()


class _NotMainThread:
    @staticmethod
    def check() -> bool:
        return False


@contextlib.contextmanager
def _own_signals() -> Iterator[None]:
    with _swap:
        saved = _card.MainThread
        _card.MainThread = _NotMainThread
        try:
            yield
        finally:
            _card.MainThread = saved


class CardEnc(_card.CardEnc):
    """pysat.card.CardEnc whose encoders leave SIGINT to this process's handler."""

    @classmethod
    def atmost(cls, *args, **kwargs):
        with _own_signals():
            return super().atmost(*args, **kwargs)

    @classmethod
    def atleast(cls, *args, **kwargs):
        with _own_signals():
            return super().atleast(*args, **kwargs)

    @classmethod
    def equals(cls, *args, **kwargs):
        with _own_signals():
            return super().equals(*args, **kwargs)


def pb_clauses(lits: Sequence[int], weights: Sequence[int], relation: str, bound: int,
               pool: IDPool) -> list[list[int]]:
    """Clauses of sum(weights[i] * lits[i]) <relation> bound ("<=", ">=", "=="), by pysat.pb.

    New auxiliary variables come from `pool`. pysat.pb encodes through the optional package
    pindakaas: without it, InputError (exit 2) with the pip line.
    """
    # Loaded here: the small solves that import this module never encode a PB constraint.

    need("pindakaas")
    from pysat.pb import PBEnc

    encode = {"<=": PBEnc.atmost, ">=": PBEnc.atleast, "==": PBEnc.equals}.get(relation)
    if encode is None:
        raise ValueError(f"relation must be <=, >= or ==, got {relation!r}")
    return encode(lits=list(lits), weights=list(weights), bound=bound, vpool=pool).clauses
