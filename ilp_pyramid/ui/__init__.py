"""`ilp-pyramid ui`: a local web workbench over the same Python API the CLI uses.

One page per puzzle (IQ / Kanoodle, Sudoku Cube, Views, Bel's Pyramid), each a static HTML
file with its script under `static/` (shipped in the package: the page works offline) and
its JSON endpoints in `pages/<slug>.py`. Long runs are the CLI's own commands in a child
process (`runs.py`): the page watches their progress as server-sent events and its Stop
button sends the SIGINT a Ctrl-C would, so a run stopped from the page ends exactly as one
stopped in a terminal (exit 130, nothing left running). `guard.py` keeps the server to the
address it serves (loopback by default) and puts the security headers on every answer;
`web.py` reads every request once, strictly; `shield.py` makes what the server did not
expect one line; `runs.py` keeps the runs within the machine's cores and their time limits;
`server.py` bounds the connections. docs/ui.md says why these choices.
"""
