"""Where the workbench's Sudoku Cube page finds the digit count check; it lives in checks.py
(a cube is solved by `protocol.solve`, its commands are in commands/sudoku_cube.py)."""

from ilp_pyramid.puzzles.sudoku_cube.checks import digit_count_problem

__all__ = ["digit_count_problem"]
