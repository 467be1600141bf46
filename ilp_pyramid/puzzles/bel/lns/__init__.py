"""Hybrid search for Bel's Pyramid: compiled local search + exact whole-family repair.

- `search`: the numba-compiled local search on line labels (repeated cubes, incremental).
- `repair`: free one line family and solve the exact cover that re-labels it (SAT, MIP, DLX).
- `driver.solve_lns`: the loop that ties them together (used by `solve --method lns` and
  `hunt`). See docs/hybrid.md.
- `result`: one search or a race (`race`) run and answered as a `protocol.Result`.
"""
