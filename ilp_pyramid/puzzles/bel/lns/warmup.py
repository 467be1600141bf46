"""The search's compiled kernels made ready in this process before a search runs.

Where numba's cache holds them (every run after the first of an install), they are loaded.
Where it does not, they are compiled, which is serial work: run_moves types, lowers and
optimises every helper it inlines before itself, on one core while the other waits. Here a
forked process compiles one group of those helpers (search.compile_plan) into numba's cache
while this process compiles the other; run_moves, compiled next here, loads the child's group
from the cache, while the child compiles init_state into it. The kernels are the ones a
single process compiles (the cache keeps each helper's bitcode, so LLVM inlines it into
run_moves as before); only the wall time of the first compile is shorter. Should the child
fail or be slow, this process compiles what the cache lacks itself.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal

from ilp_pyramid.backends import process


def compile_kernels(n: int) -> None:
    """Load, or compile on two processes, the search's kernels in this process, once (for a
    race, which runs two processes or more anyway)."""
    import numpy as np

    from ilp_pyramid.puzzles.bel.lns import search
    from ilp_pyramid.puzzles.bel.lns.arrays import arrays

    labels = search.random_labels(n, np.random.default_rng(0))
    if not search.kernels_cached():
        mine, theirs, last = search.compile_plan(arrays(n).geometry(),
                                                 search.new_state(n, labels, 0))
        _set_up_numba()  # once, before the fork, rather than in both processes
        context = multiprocessing.get_context("fork")
        ready, said = context.Pipe(duplex=False)
        child = context.Process(target=_child, args=(said, theirs, n, labels),
                                name="bel-compile")
        child.start()
        said.close()
        try:
            _compile(mine)
            with contextlib.suppress(EOFError):  # the child died: run_moves compiles it all
                ready.recv()  # the child's helpers are in the cache
            _compile(last)  # run_moves, while the child compiles init_state
            child.join()
        finally:  # on Ctrl-C, SIGTERM or an error too: no child outlives the compile
            ready.close()
            if child.exitcode is None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(child.pid, signal.SIGKILL)
                child.join()
    search.LocalSearch(n, labels, 0).run(1, 0.3)  # loaded (init_state from the child's cache)


def _set_up_numba() -> None:
    """numba's one-time set-up of its compiler (typing and target registries), which the
    first compile of a process does otherwise."""
    from numba.core.registry import cpu_target

    with contextlib.suppress(Exception):  # numba's internals changed: the compiles do it
        cpu_target.typing_context.refresh()
        cpu_target.target_context.refresh()


def _compile(group: list) -> None:
    """Compile each (helper, argument types) of `group`."""
    for kernel, types in group:
        kernel.compile(types)


def _child(said, group: list, n: int, labels) -> None:
    """The forked compile: `group` into the cache, a word to the parent, then init_state."""
    from ilp_pyramid.puzzles.bel.lns.search import LocalSearch

    process.die_with_parent()
    for sig in (signal.SIGINT, signal.SIGTERM):  # the parent does the cleaning up
        signal.signal(sig, signal.SIG_DFL)
    code = 1
    try:
        _compile(group)
        said.send(True)
        said.close()
        LocalSearch(n, labels, 0)  # init_state
        code = 0
    except Exception:  # noqa: BLE001 - the parent compiles whatever the cache lacks
        pass
    # At once: no flush of the parent's buffers copied by the fork (stdout is the command's)
    os._exit(code)
