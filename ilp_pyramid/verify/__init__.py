"""Independent checkers: they recompute everything from the puzzle statement and import no
solver and no model code, so a bug in a model cannot hide behind a matching bug here."""
