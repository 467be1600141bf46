"""Bel's Pyramid: label every line of a step pyramid so that every cube of the set shows once."""
