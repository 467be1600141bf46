"""Instant Insanity: n cubes with coloured faces; stack them so that each of the tower's four
long sides shows every colour exactly once (docs/insanity.md). `PUZZLE` is the puzzle."""
