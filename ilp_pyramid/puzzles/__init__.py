"""One sub-package per puzzle: geometry -> model -> decode -> render."""
