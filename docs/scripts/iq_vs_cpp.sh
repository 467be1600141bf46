#!/usr/bin/env bash
# `iq count` against the C++ IQPyramidSolver (Dancing Links + TBB on every core), both on two
# cores, interleaved run by run (a warm-up each, then REPEAT runs of each, in turn): wall and
# CPU seconds and the load average of every run go to the results file. A run counts as solved
# only if it prints the board's full count (32,288 fillings on the triangle, 371,020 on the
# rectangle), so both tools are timed on the same answer. Also `iq count rectangle` on one job,
# for what the second core gives.
# The C++ solver (github.com/zigzag2050/IQPyramidSolver) is built outside the repository:
#   IQ_CPP=/path/to/IQPyramidSolver bash docs/scripts/iq_vs_cpp.sh [RESULTS] [REPEAT]
# Check `uptime` first: the records keep the load, and only an idle machine's figures belong
# in the pages (docs/iq.md renders docs/data/iq_vs_cpp.jsonl; measure.sh's stage 5 runs this).
set -euo pipefail
cd "$(dirname "$0")/../.."
# Timed as a user has it: with Python's bytecode cache (an installed package has one).
unset PYTHONDONTWRITEBYTECODE
cpp=${IQ_CPP:?set IQ_CPP=/path/to/IQPyramidSolver (built outside the repository)}
results=${1:-docs/data/iq_vs_cpp.jsonl}
repeat=${2:-5}
python -m ilp_pyramid bench --resume --repeat "$repeat" --warmup 1 --time-limit 600 \
  --results "$results" \
  --command 'triangle-jobs2=iq count triangle --jobs 2' \
  --command 'rectangle-jobs2=iq count rectangle --jobs 2 --output /tmp/iq_rectangle.txt' \
  --command 'rectangle-jobs1=iq count rectangle --jobs 1 --output /tmp/iq_rectangle.txt' \
  --external "cpp-triangle=$cpp -t t" \
  --external "cpp-rectangle=$cpp -t r -o /tmp/iq_cpp_rectangle.txt" \
  --solved-if 'triangle-jobs2=solutions\s+\S\s+32,288\b' \
  --solved-if 'rectangle-jobs2=solutions\s+\S\s+371,020\b' \
  --solved-if 'rectangle-jobs1=solutions\s+\S\s+371,020\b' \
  --solved-if 'cpp-triangle=32288 solution' \
  --solved-if 'cpp-rectangle=371020 solution'
python -m ilp_pyramid bench report "$results"
