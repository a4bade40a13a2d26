"""Paired screening of Scopa search variants: each spec against ``heuristic`` (or ``--vs``)
on the same single deals, deal by deal.

    .venv/bin/python experiments/scopa_model/paired.py --seed 7 --deals 100 --jobs 2 \
        ismcts:1000 ismcts:1000,model=1 ismcts:1000,model=2

Prints each spec's score and the paired difference to the first spec (mean and 95%
interval over deals), and the mean milliseconds per search decision.

Measured (2026-12-02/03, this machine, 2 jobs, the 100 single deals of seed 7 against
``heuristic``; each deal played from both seats):

    ismcts:1000            60.0%   60-77 ms/decision
    ismcts:1000,model=1    59.2%   202 ms/decision   paired -0.8 +- 3.4
    ismcts:1000,model=2    60.0%   321 ms/decision   paired +0.0 +- 5.2

``model=1``: in each determinization the other seat is one kind of player (heuristic,
greedy or any move, drawn from the same posterior that weighs its hand) and plays as
that kind in the rollouts; ``model=2``: also in the tree (its one modelled reply is the
only child).  No gain at 3-5x the time: the experiment was removed in the next commit.
"""

import argparse
import math
import sys
import time
from multiprocessing import get_context

from cavallo_env.evaluation import play_duplicate_deal


def one(args):
    spec, vs, seed, i = args
    games, timing = play_duplicate_deal(spec, vs, seed, i, "scopa", {"match": False})
    s = sum(1.0 if g.diff > 0 else 0.5 if g.diff == 0 else 0.0 for g in games) / 2
    return s, sum(g.diff for g in games) / 2, timing["a"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("specs", nargs="+")
    ap.add_argument("--vs", default="heuristic")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    res = {}
    with get_context("fork").Pool(a.jobs) as pool:
        for spec in a.specs:
            t0 = time.time()
            out = pool.map(one, [(spec, a.vs, a.seed, i) for i in range(a.start, a.start + a.deals)], chunksize=1)
            res[spec] = out
            secs = sum(o[2][0] for o in out)
            n = sum(o[2][1] for o in out)
            sc = sum(o[0] for o in out) / len(out)
            pd = sum(o[1] for o in out) / len(out)
            line = f"{spec:40s} score {100 * sc:5.1f}%  pts {pd:+.3f}  {1000 * secs / max(n, 1):6.1f} ms/decision  ({time.time() - t0:.0f} s)"
            if spec != a.specs[0]:
                d = [x[0] - y[0] for x, y in zip(out, res[a.specs[0]])]
                m = sum(d) / len(d)
                sd = math.sqrt(sum((x - m) ** 2 for x in d) / max(len(d) - 1, 1))
                line += f"  vs first: {100 * m:+.1f} +- {196 * sd / math.sqrt(len(d)):.1f}"
            print(line, flush=True)


if __name__ == "__main__":
    sys.exit(main())
