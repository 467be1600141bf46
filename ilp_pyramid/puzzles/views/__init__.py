"""The top-front-side ("views") puzzle: the fewest unit cubes that show three given views.

- `geometry`: the conventions of the spec (views, cells, bits, parsing, drawing).
- `model`: the 0-1 program (one binary per cell whose three projections are set).
- `puzzle`: the `protocol.Puzzle` (unsolvable views are `Infeasible` before any model).
- `solve`: what the puzzle adds to the one solve path: the bound, the pixels no cell shows,
  the cross-check with the branch and bound (`after`), the `--json` keys and the summary.
- `engine`: the exact compiled branch and bound used for the battery and the cross-check.
- `battery`: the one-million MD5 battery over processes.
- `render`: the picture of the views beside the cubes.

Its commands are in `ilp_pyramid/cli/views.py`.
"""
