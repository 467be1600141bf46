"""The command line: one module of Typer commands per puzzle or tool; the models live in
puzzles/."""
