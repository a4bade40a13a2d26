#!/usr/bin/env bash
# Reproduce the bot measurements in docs/bots.md and the README.
#
#   benchmarks/bots_eval.sh                 # Cavalloìcera (the ISMCTS run takes hours on 2 cores)
#   benchmarks/bots_eval.sh briscola        # Briscola, Milanesi deck
#   benchmarks/bots_eval.sh scopa           # Scopa, single deals, Milanesi deck
#   ISMCTS_DEALS=200 benchmarks/bots_eval.sh scopa
#
# Results (tables and JSON) go to benchmarks/results/ (Cavalloìcera) or
# benchmarks/results/<game>/.  Every run is deterministic for its seed
# whatever JOBS is; only the timings change.
set -euo pipefail
cd "$(dirname "$0")/.."
GAME=${1:-cavalloicera}
PY=${PY:-.venv/bin/python}
JOBS=${JOBS:-$(nproc)}
DEALS=${DEALS:-1000}
ISMCTS_DEALS=${ISMCTS_DEALS:-1000}
SEED=${SEED:-2026}
if [ "$GAME" = cavalloicera ]; then
  OUT=benchmarks/results
  GAME_ARGS=(--game cavalloicera)
else
  OUT=benchmarks/results/$GAME
  GAME_ARGS=(--game "$GAME")
  [ "$GAME" = scopa ] && GAME_ARGS+=(--single-deal)
fi
mkdir -p "$OUT"

run() {  # name A B deals
  echo "== $GAME: $2 vs $3, $4 duplicate deals, seed $SEED, $JOBS jobs"
  "$PY" -m cavallo_env.cli eval "$2" "$3" "${GAME_ARGS[@]}" --deals "$4" --seed "$SEED" --jobs "$JOBS" \
    --json "$OUT/$1.json" --no-progress | tee "$OUT/$1.txt"
}

run greedy_vs_random greedy random "$DEALS"
run heuristic_vs_greedy heuristic greedy "$DEALS"
echo "== ISMCTS decision time at N=1000 (wall clock)"
"$PY" benchmarks/ismcts_timing.py ismcts:1000 4 --game "$GAME" | tee "$OUT/ismcts_timing.txt"
run ismcts1000_vs_heuristic ismcts:1000 heuristic "$ISMCTS_DEALS"
if [ "$GAME" != cavalloicera ]; then
  run ismcts1000_vs_greedy ismcts:1000 greedy "$ISMCTS_DEALS"
fi
echo "== round robin"
"$PY" -m cavallo_env.cli tournament "${GAME_ARGS[@]}" --bots random,greedy,heuristic,ismcts:200,ismcts:1000 \
  --deals "${TOURNAMENT_DEALS:-100}" --seed "$SEED" --jobs "$JOBS" --out "$OUT/tournament" --no-progress \
  | tee "$OUT/tournament.txt"
