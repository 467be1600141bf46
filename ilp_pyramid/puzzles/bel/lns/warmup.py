"""The search's compiled kernels made ready in this process before a search runs.

Where numba's cache holds them (every run after the first of an install), they are loaded.
Where it does not, they are compiled, which is serial work: run_moves types, lowers and
optimises every helper it inlines before itself, on one core while the other waits. Here a
forked process compiles one group of those helpers (search.helper_groups) into numba's cache
while this process compiles the other and init_state; run_moves, compiled last, loads the
child's group from the cache. The kernels are the ones a single process compiles (the cache
keeps each helper's bitcode, so LLVM inlines it into run_moves as before); only the wall time
of the first compile is shorter. Should the child fail or be slow, run_moves compiles what
the cache lacks itself.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal

from ilp_pyramid.backends import process


def compile_kernels(n: int) -> None:
    """Load, or compile on two processes, the search's kernels in this process, once."""
    import numpy as np

    from ilp_pyramid.puzzles.bel.lns import search
    from ilp_pyramid.puzzles.bel.lns.arrays import arrays

    labels = search.random_labels(n, np.random.default_rng(0))
    if not search.kernels_cached():
        mine, theirs = search.helper_groups(arrays(n).geometry(),
                                            search.new_state(n, labels, 0))
        child = multiprocessing.get_context("fork").Process(
            target=_compile, args=(theirs,), name="bel-compile")
        child.start()
        try:
            _compile(mine, in_child=False)
            search.LocalSearch(n, labels, 0)  # init_state
            child.join()
        finally:  # on Ctrl-C, SIGTERM or an error too: no child outlives the compile
            if child.exitcode is None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(child.pid, signal.SIGKILL)
                child.join()
    search.LocalSearch(n, labels, 0).run(1, 0.3)  # run_moves (and init_state if cached)


def _compile(group: list, in_child: bool = True) -> None:
    """Compile each (helper, argument types) of `group`; in the child, into the cache only."""
    if in_child:
        process.die_with_parent()
        for sig in (signal.SIGINT, signal.SIGTERM):  # the parent does the cleaning up
            signal.signal(sig, signal.SIG_DFL)
    for kernel, types in group:
        try:
            kernel.compile(types)
        except Exception:  # noqa: BLE001 - run_moves compiles whatever the cache lacks
            if not in_child:
                raise
            os._exit(1)
