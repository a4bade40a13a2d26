"""Per-deal duplicate scores of SPEC vs OPP on single Scopa deals [start, end) of SEED, one JSON
line per deal (the deals of ``cavallo eval SPEC OPP --game scopa --single-deal --seed SEED``).

    python perdeal.py SPEC OPP SEED START END OUT.jsonl [PATCH [ARGS]]

PATCH: ``fixed_mixture`` (ARGS ``K,A,B,EPS``) or ``myopic_other`` -- a scratch variant of the
Scopa search installed before the deals are played.
"""
import json, os, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
spec, opp, seed, start, end, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
if len(sys.argv) > 7:
    mod = __import__(sys.argv[7])
    mod.install(*[float(x) for x in sys.argv[8].split(",")] if len(sys.argv) > 8 else [])
from cavallo_env.evaluation import play_duplicate_deal
t0 = time.time()
with open(out, "a") as f:
    for i in range(start, end):
        games, timing = play_duplicate_deal(spec, opp, seed, i, "scopa", {"match": False})
        s = sum(1.0 if g.diff > 0 else 0.5 if g.diff == 0 else 0.0 for g in games)
        d = sum(g.diff for g in games)
        f.write(json.dumps({"i": i, "score": s, "diff": d, "t": timing["a"]}) + "\n"); f.flush()
print(spec, "done", time.time() - t0)
