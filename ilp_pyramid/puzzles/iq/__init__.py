"""IQ Pyramid / Kanoodle: fill 2-D and 3-D (ball pyramid) boards with the 12 pieces."""
