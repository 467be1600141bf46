#!/usr/bin/env bash
# Every measured figure of the docs pages, re-measured: results files under docs/data/
# written by `ilp-pyramid bench` (each record carries its command line, the core count and the
# load average before and after), then the pages' marked blocks rendered from them.
# Run on an otherwise idle machine (check `uptime` first). About 30 minutes on 2 cores.
# Needs the extras cpsat, scip and gurobi (pip install -e ".[cpsat,scip,gurobi]") for the
# CP-SAT, SCIP and Gurobi columns.
#   bash docs/scripts/measure.sh candidates  # 1: time every engine per N; paste the printed
#                                            #    CHOICES into ilp_pyramid/puzzles/bel/auto.py
#                                            #    (a test checks)
#   REF=/path/to/bel_pyramid IQ_CPP=/path/to/IQPyramidSolver bash docs/scripts/measure.sh figures
#                                            # 2-6, then render the pages (the anchors are
#                                            # built outside the repository: docs/bench.md)
#   REF=/path/to/bel_pyramid bash docs/scripts/measure.sh cnf   # 7 (about 45 minutes)
#   bash docs/scripts/measure.sh mip3; bash docs/scripts/measure.sh mip4   # 8: docs/mip.md
#   bash docs/scripts/measure.sh orbitope    # 9: docs/mip.md (about 40 min)
#   bash docs/scripts/measure.sh study       # 10: docs/study.md, all five puzzles to their hard
#                                            #     ends (about 1.5 h on 2 cores)
#   bash docs/scripts/measure.sh probe       # 11: the study's ramp ends, one run each
set -euo pipefail
cd "$(dirname "$0")/../.."
# Timed as a user has it: with Python's bytecode cache (an installed package has one).
unset PYTHONDONTWRITEBYTECODE
B="python -m ilp_pyramid bench"
# Each stage starts its files afresh (FRESH=0 goes on with them); every call then adds to
# its file with --resume, which also skips runs a stopped stage had finished.
fresh() { if [ "${FRESH:-1}" = 1 ]; then rm -f "$@"; fi; }
# Every page holding a measured block, rendered from its results files (named relative to
# the page's folder).
render_pages() {
  local page
  for page in docs/*.md; do
    if grep -q '^<!-- bench:' "$page"; then $B render "$page"; fi
  done
}

stage=${1:?usage: measure.sh candidates|figures|cnf|mip3|mip4|orbitope|study|probe}

candidates() {
# 1. The auto choice table: every candidate engine per N (auto.py's CHOICES come from this).
fresh docs/data/auto_candidates.jsonl
mapfile -t candidates < <(python -m ilp_pyramid.puzzles.bel.auto --templates)
args=()
for template in "${candidates[@]}"; do args+=(--command "$template"); done
$B --resume --n 1..3 --repeat 3 --time-limit 60 "${args[@]}" --results docs/data/auto_candidates.jsonl
# N=4: Kissat, the hybrids and the engines with the YStep hypothesis (HiGHS on the whole
# model does not answer in the limit); N=5: the hybrids only (Kissat on the plain CNF takes
# minutes, and with YStep from 30 s to many minutes, docs/sat.md).
$B --resume --n 4 --repeat 3 --time-limit 60 --command "${candidates[1]}" \
   --command "${candidates[3]}" --command "${candidates[4]}" --command "${candidates[5]}" \
   --command "${candidates[7]}" --command "${candidates[8]}" \
   --results docs/data/auto_candidates.jsonl
$B --resume --n 5 --repeat 3 --time-limit 60 \
   --command "${candidates[3]}" --command "${candidates[5]}" \
   --results docs/data/auto_candidates.jsonl
# HiGHS repairs at N=5: one seed (they did not finish in the limit on the first try).
$B --resume --n 5 --repeat 1 --time-limit 60 --command "${candidates[4]}" \
   --results docs/data/auto_candidates.jsonl
python -m ilp_pyramid.puzzles.bel.auto docs/data/auto_candidates.jsonl
}

figures() {
# 2. `solve N` with no options against the reference tool, interleaved run by run.
fresh docs/data/auto.jsonl
ref=()
if [ -n "${REF:-}" ]; then ref=(--external "ref=$REF {n}" --solved-if 'ref=^Solution:'); fi
$B --resume --n 1..4 --repeat 5 --warmup 1 --time-limit 600 --command 'auto=solve {n}' \
   "${ref[@]}" --results docs/data/auto.jsonl
# N=5: one search per core racing (the default there), seeds 1-20.
$B --resume --n 5 --repeat 20 --time-limit 600 --command 'auto=solve {n} --seed {repeat}' \
   --results docs/data/auto.jsonl

# 2b. Start-up: what a user waits on for a moment (solve 1, solve 2, --help, --version)
#     against the reference tool's `bel_pyramid 1` and `bel_pyramid 2`, interleaved run by run.
fresh docs/data/startup.jsonl
ref1=()
if [ -n "${REF:-}" ]; then
  ref1=(--external "ref-1=$REF 1" --solved-if 'ref-1=^Solution:'
        --external "ref-2=$REF 2" --solved-if 'ref-2=^Solution:')
fi
$B --resume --repeat 9 --warmup 1 --time-limit 60 --results docs/data/startup.jsonl \
   --command 'solve-1=solve 1' --command 'solve-2=solve 2' --command 'help=--help' \
   --command 'version=--version' "${ref1[@]}"

# 3. MIP against SAT on the whole model, every solver with its defaults and no strategy.
fresh docs/data/mip_vs_sat.jsonl
#    Gurobi's free licence takes N <= 3: its N=4 runs end in exit 2 naming the licence.
$B --resume --n 2..4 --solver highs,cbc,scip,gurobi,kissat,cadical,cpsat --repeat 3 \
   --grid strategy=none --time-limit 30 --results docs/data/mip_vs_sat.jsonl --plot docs/mip_vs_sat.png

# 4. Symmetry breaking for HiGHS at N=3 (the lex rows fixed; seeds 0-2).
fresh docs/data/highs_strategies_n3.jsonl
$B --resume --n 3 --solver highs --repeat 3 --time-limit 60 --results docs/data/highs_strategies_n3.jsonl \
   --grid "strategy=none,LabelPermutationImportance,TopCubeOrdering+LabelPermutationImportance,LabelPermutation+Automorphism,CakeSliceOrdering,AntiMirror"

# 5. IQ counts on two cores against the C++ IQPyramidSolver, interleaved run by run: its own
#    script, which needs the C++ solver built outside the repository (IQ_CPP).
if [ -n "${IQ_CPP:-}" ]; then
  fresh docs/data/iq_vs_cpp.jsonl
  bash docs/scripts/iq_vs_cpp.sh docs/data/iq_vs_cpp.jsonl
fi

# 6. The views battery (one million cases) and generated Sudoku Cubes (one process each).
fresh docs/data/other_puzzles.jsonl
$B --resume --repeat 3 --time-limit 600 --results docs/data/other_puzzles.jsonl \
   --command 'views-battery=views battery --json'
$B --resume --repeat 20 --time-limit 600 --results docs/data/other_puzzles.jsonl \
   --command 'sudoku-cube=sudoku-cube bench-one --seed {seed}'

render_pages
}

cnf() {
# 7. Our CNF against the reference tool's on its fastest published configuration (N=5,
#    ConstructiveTripleDiagonal + YStep): the same solver (python-sat's Kissat 4.0.4, through
#    `solve-cnf`), three clause shuffles each, interleaved. The reference's export (enum
#    domain) takes 10-15 minutes and 2.3 GB; it is made once, into CNF_DIR, and kept.
local dir=${CNF_DIR:-/tmp/ilp-pyramid-cnf}
local hint=(--strategy ConstructiveTripleDiagonal --strategy YStep)
# The reference's CNF (3.59M clauses) is past the 64 MiB a command reads by default.
export ILP_PYRAMID_MAX_INPUT_BYTES=$((1 << 30))
mkdir -p "$dir"
python -m ilp_pyramid export 5 "${hint[@]}" -o "$dir/ours_n5_ctd_ystep.cnf"
if [ ! -s "$dir/ref_n5_ctd_ystep.cnf" ]; then
  "${REF:?set REF=/path/to/bel_pyramid (the reference tool)}" 5 "${hint[@]}" \
    --finite-domain enum --cnf "$dir/ref.tmp.cnf" --skip-solver > /dev/null
  mv "$dir/ref.tmp.cnf" "$dir/ref_n5_ctd_ystep.cnf"
fi
fresh docs/data/cnf_vs_reference.jsonl
$B --resume --repeat 3 --time-limit 3600 --results docs/data/cnf_vs_reference.jsonl \
   --command "ours=solve-cnf $dir/ours_n5_ctd_ystep.cnf --solver kissat --seed {repeat} --json" \
   --command "reference=solve-cnf $dir/ref_n5_ctd_ystep.cnf --solver kissat --seed {repeat} --json"
render_pages
}

# 8. The MIP side (docs/mip.md): every solver setting, formulation and symmetry handling on
#    N=3 (5 seeds, 60 s), the contenders on N=4 (3 seeds, 60 s), each against HiGHS and
#    Kissat in the same run. Needs the extras scip and gurobi (Gurobi's free licence takes
#    N <= 3 only). About 15 + 15 minutes. Every SCIP template pins its emphasis and
#    strategies (`emphasis=default`: SCIP's own; `--strategy none`), so that it means what it
#    meant when measured, before the backend's defaults became cpsolver + precedence rows.
S='solve {n} --json --time-limit {time_limit} --seed {seed}'
mip3() {
fresh docs/data/mip_n3.jsonl
$B --resume --n 3 --repeat 5 --time-limit 60 --results docs/data/mip_n3.jsonl \
   --command "kissat=$S --solver kissat" \
   --command "highs=$S --solver highs" \
   --command "highs-plain=$S --solver highs --strategy none" \
   --command "highs-nosym=$S --solver highs --strategy none --solver-option mip_detect_symmetry=false" \
   --command "highs-nofj=$S --solver highs --strategy none --solver-option mip_heuristic_run_feasibility_jump=false" \
   --command "highs-mult=$S --solver highs --strategy none --formulation counts-mult" \
   --command "scip=$S --solver scip --solver-option emphasis=default --strategy none" \
   --command "scip-nosym=$S --solver scip --solver-option emphasis=default --solver-option misc/usesymmetry=0 --strategy none" \
   --command "scip-feas=$S --solver scip --solver-option emphasis=feasibility --strategy none" \
   --command "scip-lpi=$S --solver scip --solver-option emphasis=default --strategy LabelPermutationImportance" \
   --command "scip-lp=$S --solver scip --solver-option emphasis=default --strategy LabelPermutation" \
   --command "scip-facepbeq=$S --solver scip --solver-option emphasis=default --strategy FacePBEQ" \
   --command "scip-mult=$S --solver scip --solver-option emphasis=default --formulation counts-mult --strategy none" \
   --command "scip-sos1=$S --solver scip --solver-option emphasis=default --formulation counts-sos1 --strategy none" \
   --command "gurobi=$S --solver gurobi" \
   --command "gurobi-sym2=$S --solver gurobi --solver-option Symmetry=2"
# Second batch (after the first's results), with its own anchors.
$B --resume --n 3 --repeat 5 --time-limit 60 --results docs/data/mip_n3.jsonl \
   --command "kissat-2=$S --solver kissat" \
   --command "highs-2=$S --solver highs" \
   --command "scip-sym1=$S --solver scip --solver-option emphasis=default --solver-option misc/usesymmetry=1 --strategy none" \
   --command "scip-sym2=$S --solver scip --solver-option emphasis=default --solver-option misc/usesymmetry=2 --strategy none" \
   --command "scip-cp=$S --solver scip --solver-option emphasis=cpsolver --strategy none" \
   --command "scip-easycip=$S --solver scip --solver-option emphasis=easycip --strategy none" \
   --command "scip-feas-lpi=$S --solver scip --solver-option emphasis=feasibility --strategy LabelPermutationImportance" \
   --command "gurobi-focus1=$S --solver gurobi --solver-option MIPFocus=1"
# Third batch: SCIP's CP emphasis (the second batch's winner) with value precedence rows.
$B --resume --n 3 --repeat 5 --time-limit 60 --results docs/data/mip_n3.jsonl \
   --command "kissat-3=$S --solver kissat" \
   --command "highs-3=$S --solver highs" \
   --command "scip-cp-3=$S --solver scip --solver-option emphasis=cpsolver --strategy none" \
   --command "scip-cp-lpi=$S --solver scip --solver-option emphasis=cpsolver --strategy LabelPermutationImportance" \
   --command "scip-cp-nosym=$S --solver scip --solver-option emphasis=cpsolver --solver-option misc/usesymmetry=0 --strategy none"
}

mip4() {
fresh docs/data/mip_n4.jsonl docs/data/mip_n5_repairs.jsonl
$B --resume --n 4 --repeat 3 --time-limit 60 --results docs/data/mip_n4.jsonl \
   --command "kissat=$S --solver kissat" \
   --command "highs=$S --solver highs" \
   --command "scip=$S --solver scip --solver-option emphasis=default --strategy none" \
   --command "scip-cp-lpi=$S --solver scip --solver-option emphasis=cpsolver --strategy LabelPermutationImportance"
# MIP repairs in the hybrid search at N=5: SCIP against Kissat (3 seeds) and HiGHS (1 seed:
# it did not finish N=5 in 60 s before).
L='solve {n} --json --time-limit {time_limit} --seed {seed} --method lns'
$B --resume --n 5 --repeat 3 --time-limit 60 --results docs/data/mip_n5_repairs.jsonl \
   --command "lns+sat=$L --repair sat" --command "lns+scip=$L --repair scip"
$B --resume --n 5 --repeat 1 --time-limit 60 --results docs/data/mip_n5_repairs.jsonl \
   --command "lns+mip=$L --repair mip"
# What the solvers' own symmetry detection finds (the log lines quoted in docs/mip.md).
python -m ilp_pyramid solve 4 --solver highs --strategy none --time-limit 30 --verbose 2>&1 \
   | grep -i -E "symmetry|generator" || true
python -m ilp_pyramid solve 4 --solver scip --solver-option emphasis=default --strategy none \
   --time-limit 10 --verbose 2>&1 \
   | grep -i -E "symmetry|orbit|lexicographic" || true
}

orbitope() {
# The label symmetry declared to SCIP as a partitioning orbitope (--strategy LabelOrbitope),
# with SCIP's own settings and with its CP emphasis. N=4 first (up to 30 minutes), then N=3
# beside SCIP's defaults and today's `solve --solver scip`.
fresh docs/data/mip_orbitope.jsonl
$B --resume --n 4 --repeat 3 --time-limit 300 --results docs/data/mip_orbitope.jsonl \
   --command "scip-orbitope=$S --solver scip --solver-option emphasis=default --strategy LabelOrbitope" \
   --command "scip-cp-orbitope=$S --solver scip --solver-option emphasis=cpsolver --strategy LabelOrbitope"
$B --resume --n 3 --repeat 5 --time-limit 300 --results docs/data/mip_orbitope.jsonl \
   --command "scip=$S --solver scip --solver-option emphasis=default --strategy none" \
   --command "scip-orbitope=$S --solver scip --solver-option emphasis=default --strategy LabelOrbitope" \
   --command "scip-cp-orbitope=$S --solver scip --solver-option emphasis=cpsolver --strategy LabelOrbitope" \
   --command "scip-cp-lpi=$S --solver scip"
# What SCIP says about the declared orbitope (the log lines quoted in docs/mip.md).
python -m ilp_pyramid solve 3 --solver scip --solver-option emphasis=default \
   --strategy LabelOrbitope --seed 0 --verbose 2>&1 | grep -i -E "symmetr|orbitope" || true
}

# 11. A quick probe of the study's ramp ends (minutes, not hours): the last steps of every
#    ramp, one instance and one solver seed each, with a short limit (PROBE_LIMIT, 60 s), to
#    see which steps the virtual best needs 10 s or more for and which a family fails; the
#    grid table goes to stdout, the records to a scratch file (never a page's).
probe() {
local out=${PROBE_RESULTS:-/tmp/ilp-pyramid-ramp-probe.jsonl}
rm -f "$out"
local R=(--resume --time-limit "${PROBE_LIMIT:-60}" --results "$out" --repeat 1)
$B "${R[@]}" --puzzle bel --n 5 --solver kissat,cadical \
   --grid strategy=YStep,ConstructiveTripleDiagonal+YStep,ConstructiveDiagonal
$B "${R[@]}" --puzzle insanity --n 24,32 --solver highs,kissat,dlx
$B "${R[@]}" --puzzle views --n 20,24 --solver highs,cbc
$B "${R[@]}" --n 0 --command "count-pyramid5=iq count pyramid5 --time-limit {time_limit} --json"
$B report "$out" --table grid
}

# 10. The study (docs/study.md): every solver family on every puzzle's ramp to its hard end,
#    one results file, one process per run, one run at a time; tests/test_study.py checks
#    these commands against docs/data/study.jsonl. One time limit for every run, STUDY_LIMIT
#    (120 s; PAR-2 counts an unsolved instance 240 s). Variance comes from the solver's own
#    seeds (`--solver-seeds K`: seeds 0..K-1, the instance unchanged) and, where --seed picks
#    a generated instance, from `--repeat` instances; Bel's instances take no seed, so there
#    `--repeat R` runs the solver's seeds 0..R-1. A step a family cannot answer in the limit
#    is run once per instance and solver seed 0 only, and the family is not run on the larger
#    steps (PAR-2 counts those unsolved). Outside solvers take part as columns of their own:
#    picosat (a SAT solver of 2008) on every CNF family, GLPK's glpsol on views' MPS.
#    STUDY_SCHEDULER=tcp://host:8786 runs every call on a Dask cluster (docs/bench.md).
study() {
fresh docs/data/study.jsonl
local R=(--resume --time-limit "${STUDY_LIMIT:-120}" --results docs/data/study.jsonl
         ${STUDY_SCHEDULER:+--scheduler "$STUDY_SCHEDULER"})
local PICOSAT=(--solver-command 'picosat=cnf:picosat {file}')
local GLPK=(--solver-command 'glpk=mps:glpsol --freemps {file} -w {solution}')
local EASY=(--repeat 2 --solver-seeds 2) HARD=(--repeat 2 --solver-seeds 1)
# Bel's Pyramid: N=2..4 for every family (MIP answers no N=4: one run each shows it), then
# the proofs and solutions under a hypothesis set that SAT needs 10 s and more for:
# ConstructiveBottom and ConstructiveShell at N=4 have no solution, and N=5 under
# ConstructiveTripleDiagonal+YStep (the reference tool's) has one.
$B "${R[@]}" --puzzle bel --n 2..3 --repeat 3 "${PICOSAT[@]}" \
   --solver highs,cbc,scip,kissat,cadical,cpsat,picosat
$B "${R[@]}" --puzzle bel --n 4 --repeat 3 "${PICOSAT[@]}" --solver kissat,cadical,cpsat,picosat
$B "${R[@]}" --puzzle bel --n 4 --repeat 1 --solver highs,scip
$B "${R[@]}" --puzzle bel --n 4 --repeat 2 --grid strategy=ConstructiveBottom,ConstructiveShell \
   --solver kissat,cadical,cpsat
$B "${R[@]}" --puzzle bel --n 5 --repeat 2 --grid strategy=ConstructiveTripleDiagonal+YStep \
   --solver kissat,cadical
# Instant Insanity: planted and random towers; the random ones from n=12 have no solution
# and the proof is the work. CBC stops at n=20, HiGHS at n=24.
$B "${R[@]}" --puzzle insanity --n 8,12,16 "${EASY[@]}" "${PICOSAT[@]}" \
   --solver highs,cbc,kissat,cadical,cpsat,dlx,picosat
$B "${R[@]}" --puzzle insanity --n 20 "${EASY[@]}" "${PICOSAT[@]}" \
   --solver highs,kissat,cadical,cpsat,dlx,picosat
$B "${R[@]}" --puzzle insanity --n 20 --repeat 2 --solver cbc
$B "${R[@]}" --puzzle insanity --n 24 "${HARD[@]}" --solver highs,kissat,cadical,cpsat,dlx
$B "${R[@]}" --puzzle insanity --n 28 "${HARD[@]}" --solver kissat,cadical,dlx
$B "${R[@]}" --puzzle insanity --n 32 "${HARD[@]}" --solver kissat,dlx
# IQ: challenges with 4 and 2 pieces given and the empty boards (every solver answers at
# once), then its hard task, counting every filling: Dancing Links against CP-SAT's
# enumeration and SAT with blocking clauses (iq count --solver), each on one core.
$B "${R[@]}" --puzzle iq --n 4,2 "${EASY[@]}" "${PICOSAT[@]}" \
   --solver highs,cbc,kissat,cadical,cpsat,dlx,picosat
$B "${R[@]}" --puzzle iq --n 0 --repeat 2 "${PICOSAT[@]}" \
   --solver highs,cbc,kissat,cadical,cpsat,dlx,picosat
$B "${R[@]}" --command 'iq-count=iq count {board} --solver {solver} --jobs 1 --time-limit {time_limit} --json' \
   --grid board=pyramid5,triangle,rectangle --solver dlx,cpsat,cadical
# Views: the one optimisation; SAT and RC2 stop at n=10, MIP goes on to n=24.
$B "${R[@]}" --puzzle views --n 4,6,8 "${EASY[@]}" "${GLPK[@]}" \
   --solver highs,cbc,kissat,cadical,rc2,glpk
$B "${R[@]}" --puzzle views --n 10 --repeat 2 --solver highs,cbc
$B "${R[@]}" --puzzle views --n 10 --repeat 1 --solver kissat,rc2
$B "${R[@]}" --puzzle views --n 12,16 "${HARD[@]}" --solver highs,cbc
$B "${R[@]}" --puzzle views --n 20,24 "${HARD[@]}" --solver highs,cbc
# The Sudoku Cube as far as its generator goes (10,000 turns): no instance is hard, the
# scramble length does not change the model's difficulty (docs/study.md).
$B "${R[@]}" --puzzle sudoku-cube --n 1,30,10000 "${EASY[@]}" "${PICOSAT[@]}" \
   --solver highs,cbc,kissat,cadical,picosat
$B "${R[@]}" --puzzle sudoku-cube --n 30 --repeat 2 --solver-seeds 2 \
   --grid broken=twist,swap,centre --solver highs,cbc,kissat,cadical
$B plot docs/data/study.jsonl --kind cactus -o docs/study_cactus.png
$B plot docs/data/study.jsonl --kind profile -o docs/study_profile.png
render_pages
}

"$stage"
