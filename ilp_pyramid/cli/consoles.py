"""The command line's two Rich consoles, without Typer: the quick paths print through the same
objects as the commands (cli/options.py re-exports them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console

if TYPE_CHECKING:
    from rich.table import Table

# Soft wrap: a line of text goes out whole and the terminal folds it. Rich would otherwise
# break it at 80 columns whenever the output is a file or a pipe, where lines are grepped.
# Tables keep Rich's layout to the width (print_table).
console = Console(highlight=False, soft_wrap=True)
err_console = Console(stderr=True, highlight=False, soft_wrap=True)


def print_table(table: Table) -> None:
    """Print a Rich table laid out to the console's width (its title centred over it)."""
    console.print(table, soft_wrap=False)
