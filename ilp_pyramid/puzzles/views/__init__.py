"""The top-front-side ("views") puzzle: the fewest unit cubes that show three given views.

- `geometry`: the conventions of the spec (views, cells, bits, parsing, drawing).
- `model`: the 0-1 program (one binary per cell whose three projections are set).
- `solve`: one instance end to end (unsolvable check -> MIP -> decode -> verify).
- `engine`: the exact compiled branch and bound used for the battery.
- `battery`: the one-million MD5 battery over processes.
"""
