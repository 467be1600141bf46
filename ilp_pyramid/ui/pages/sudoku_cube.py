"""The Sudoku Cube page: its HTML is static/sudoku-cube.html; its JSON routes are below."""

from __future__ import annotations

from ilp_pyramid.ui.pages import Page

PAGE = Page(slug="sudoku-cube", title="Sudoku Cube", html="sudoku-cube.html", routes=[])
