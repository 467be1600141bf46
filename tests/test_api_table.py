"""docs/api.md's tables of a Puzzle's methods against the puzzles themselves: each row says
which puzzles have the method, and each puzzle has exactly those; every public method of a
puzzle is in a table, with the arguments the table names, in that order."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

import ilp_pyramid

API = Path(__file__).resolve().parents[1] / "docs" / "api.md"
HEADER = "| method | gives | puzzles |"
CALL = re.compile(r"`(\w+)\(([^)]*)\)`")


def method_rows(text: str) -> list[tuple[str, list[str], set[str]]]:
    """(method, documented parameters, puzzles) for each row of every table whose header is
    HEADER."""
    rows, inside = [], False
    for line in text.splitlines():
        if line.strip() == HEADER:
            inside = True
            continue
        if not inside:
            continue
        if not line.startswith("|"):
            inside = False
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if set(cells[0]) <= {"-"}:
            continue
        named = {part.strip() for part in cells[-1].split(",")}
        puzzles = set(ilp_pyramid.puzzle_names()) if named == {"all"} else named
        for method, arguments in CALL.findall(cells[0]):
            params = [a.strip() for a in arguments.split(",") if a.strip()]
            rows.append((method, params, puzzles))
    return rows


ROWS = method_rows(API.read_text())


def public_methods(puzzle: object) -> set[str]:
    return {name for name in dir(puzzle) if not name.startswith("_")
            and callable(getattr(puzzle, name))}


def test_the_tables_are_found_and_name_each_method_once():
    methods = [method for method, _, _ in ROWS]
    assert {"instance", "parse", "default", "model", "verify", "render", "to_json",
            "from_json", "generate", "count", "bench_cases"} <= set(methods)
    assert len(methods) == len(set(methods)), methods


def test_the_tables_name_only_registered_puzzles():
    for method, _, puzzles in ROWS:
        assert puzzles and puzzles <= set(ilp_pyramid.puzzle_names()), (method, puzzles)


@pytest.mark.parametrize("name", ilp_pyramid.puzzle_names())
def test_a_puzzle_has_the_methods_the_tables_give_it_and_no_other(name):
    puzzle = ilp_pyramid.puzzle(name)
    documented = {method for method, _, puzzles in ROWS if name in puzzles}
    assert public_methods(puzzle) == documented


@pytest.mark.parametrize("name", ilp_pyramid.puzzle_names())
def test_a_method_takes_the_arguments_the_table_names_first_in_that_order(name):
    puzzle = ilp_pyramid.puzzle(name)
    for method, params, puzzles in ROWS:
        if name not in puzzles:
            continue
        named = [p for p in params if p != "..." and not p.startswith("*")]
        signature = inspect.signature(getattr(puzzle, method))
        positional = [p.name for p in signature.parameters.values()
                      if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
        assert positional[:len(named)] == named, (method, positional)
        if any(p.startswith("**") for p in params):  # options of the puzzle's own, if any
            continue
        if "..." not in params:  # every argument is named: none is left out
            assert positional == named, (method, positional)


def test_the_table_parser_reads_a_row_as_written():
    text = f"{HEADER}\n|---|---|---|\n| `a(x, y)` / `b()` | what | iq, bel |\n\nafter"
    assert method_rows(text) == [("a", ["x", "y"], {"iq", "bel"}), ("b", [], {"iq", "bel"})]
