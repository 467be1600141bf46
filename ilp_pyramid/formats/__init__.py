"""File formats shared by every puzzle: atomic files, MIP model/solution files, DIMACS."""
