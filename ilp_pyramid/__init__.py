"""Cube-and-pyramid puzzles as integer programs, solved by MIP and SAT solvers."""

__version__ = "0.1.0"
