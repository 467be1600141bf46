"""The long search for sizes nobody has solved (the command: ilp_pyramid/cli/bel/hunt.py).

One hybrid search (lns.driver.solve_lns) per core, on a Dask cluster; the best state is kept
in a state directory and a restarted hunt resumes from it (docs/hybrid.md).

- `state`: the state directory: best.json (load, save, resumable?) and the curve, progress.jsonl.
- `task`: one worker's search, reporting to the scheduler and reading the hunt's best back.
- `coordinator`: the client side, `run_hunt`: the cluster, the reports, the best kept.
- `cluster`: a local cluster's limits checked first, its output kept apart (dask.log).
- `deadline`: the hunt ends soon after its time limit, whatever the cluster does.
- `plot`: the curve as a PNG.
- `near`: every state at the two lowest counts seen, once per symmetry class (near.jsonl.gz).
- `learn`: what those kept states share, line by line.
"""
