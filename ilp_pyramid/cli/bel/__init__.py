"""Bel's Pyramid's commands: at the top level of the tree (`solve`, `verify`, `render`, ...),
and `hunt`; the models live in puzzles/bel/."""
