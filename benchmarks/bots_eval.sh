#!/usr/bin/env bash
# Reproduce the bot measurements in docs/bots.md.
#
#   benchmarks/bots_eval.sh            # everything (the ISMCTS run takes hours on 2 cores)
#   ISMCTS_DEALS=200 benchmarks/bots_eval.sh
#
# Results (tables and JSON) go to benchmarks/results/.  Every run is
# deterministic for its seed whatever JOBS is; only the timings change.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
JOBS=${JOBS:-$(nproc)}
DEALS=${DEALS:-1000}
ISMCTS_DEALS=${ISMCTS_DEALS:-1000}
SEED=${SEED:-2026}
OUT=benchmarks/results
mkdir -p "$OUT"

run() {  # name A B deals
  echo "== $2 vs $3, $4 duplicate deals, seed $SEED, $JOBS jobs"
  "$PY" -m cavallo_env.cli eval "$2" "$3" --deals "$4" --seed "$SEED" --jobs "$JOBS" \
    --json "$OUT/$1.json" --no-progress | tee "$OUT/$1.txt"
}

run greedy_vs_random greedy random "$DEALS"
run heuristic_vs_greedy heuristic greedy "$DEALS"
echo "== ISMCTS decision time at N=1000 (wall clock)"
"$PY" benchmarks/ismcts_timing.py ismcts:1000 4 | tee "$OUT/ismcts_timing.txt"
run ismcts1000_vs_heuristic ismcts:1000 heuristic "$ISMCTS_DEALS"
echo "== round robin"
"$PY" -m cavallo_env.cli tournament --bots random,greedy,heuristic,ismcts:200,ismcts:1000 \
  --deals "${TOURNAMENT_DEALS:-100}" --seed "$SEED" --jobs "$JOBS" --out "$OUT/tournament" --no-progress \
  | tee "$OUT/tournament.txt"
