"""Experiment: tune the Scopa heuristic's constants against `greedy` and `heuristic`.

A hill climb over ``cavallo_env.scopa.bots.Weights`` (the heuristic's card
values, risk and follow-up weights): each step perturbs a few constants and
keeps the change when the mean single-deal score against `greedy` and
`heuristic`, on the same duplicate deals of the training seed, goes up.  The
candidate plays the last round exactly, as ``policy:scopa`` does.  The best
weights are then scored on held-out deals of another seed.

    python benchmarks/scopa_tune_heuristic.py --steps 150 --deals 400 --seed 777 --test-seed 0 --test-deals 1000
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time

from cavallo_env.bots import base
from cavallo_env.evaluation import duplicate_eval
from cavallo_env.games import checked_view
from cavallo_env.scopa import endgame
from cavallo_env.scopa.bots import DEFAULT, Info, ScopaBot, Weights, heuristic_move

#: the tuned constants and the scale of a step for each
SCALES = {"card": 0.03, "card_late": 0.03, "money": 0.06, "money_late": 0.06, "dominated": 0.2, "new_suit": 0.03,
          "sette": 0.3, "sweep": 0.3, "opp_sweep": 0.3, "my_sweep": 0.3, "risk": 0.2, "follow": 0.3,
          "keep_high": 0.02, "left_capture": 0.2, "left_last": 0.2, "rank_A": 0.06, "rank_5": 0.03,
          "rank_6": 0.08, "rank_7": 0.12, "card_scale": 0.2, "money_scale": 0.2}


#: the constants ``binomial`` replaces (the flat card and money values), and those it adds
FLAT = ("card", "card_late", "money", "money_late")
BINOMIAL = ("card_scale", "money_scale")


def tunable(p: dict) -> list[str]:
    """The constants that matter with ``p``'s card values (flat or binomial)."""
    off = FLAT if p["binomial"] else BINOMIAL
    return sorted(k for k in SCALES if k not in off)


def to_params(wt: Weights) -> dict:
    p = {k: getattr(wt, k) for k in SCALES if not k.startswith("rank_")}
    p["binomial"] = wt.binomial
    p.update(rank_A=wt.rank[0], rank_5=wt.rank[4], rank_6=wt.rank[5], rank_7=wt.rank[6])
    return p


def to_weights(p: dict) -> Weights:
    rank = (p["rank_A"], 0.0, 0.0, 0.0, p["rank_5"], p["rank_6"], p["rank_7"], 0.0, 0.0, 0.0)
    return Weights(rank=rank, **{k: v for k, v in p.items() if not k.startswith("rank_")})


class Tuned(ScopaBot):
    def __init__(self, wt: Weights, seed=None):
        super().__init__(seed)
        self.wt, self.name = wt, "tuned-heuristic"

    def choose(self, view):
        game, state, legal, by_move = checked_view(view, "scopa")
        move = legal[0] if len(legal) == 1 else heuristic_move(Info(view), legal, self.wt)
        if endgame.solvable(state):
            move = endgame.solve(state, move)
        return by_move[move] if by_move is not None else game.move_to_dict(move, game.deck_of(view))


def score(p: dict, deals: int, seed: int, jobs: int) -> tuple[float, float]:
    wt = to_weights(p)
    base.register("tuned", lambda arg, seed: Tuned(wt, seed))
    g = duplicate_eval("tuned", "greedy", deals, seed=seed, jobs=jobs, game="scopa", match=False)
    h = duplicate_eval("tuned", "heuristic", deals, seed=seed, jobs=jobs, game="scopa", match=False)
    return g.score, h.score


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=150)
    ap.add_argument("--deals", type=int, default=400)
    ap.add_argument("--seed", type=int, default=777, help="the training deals")
    ap.add_argument("--test-seed", type=int, default=0)
    ap.add_argument("--test-deals", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--rng", type=int, default=1)
    ap.add_argument("--out", default=None, help="write the best weights (JSON) here")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a starting constant")
    a = ap.parse_args(argv)
    rng = random.Random(a.rng)
    started = time.perf_counter()
    best = to_params(DEFAULT)
    for kv in a.set:
        k, _, v = kv.partition("=")
        if k not in best:
            ap.error(f"--set: unknown constant {k!r}; known: {', '.join(sorted(best))}")
        best[k] = float(v)
    if a.steps == 0:
        g, h = score(best, a.test_deals, a.test_seed, a.jobs)
        print(f"seed {a.test_seed}, {a.test_deals} deals: greedy {100 * g:.1f}% heuristic {100 * h:.1f}%")
        return 0
    g, h = score(best, a.deals, a.seed, a.jobs)
    best_val = (g + h) / 2
    print(f"step 0: greedy {100 * g:.1f}% heuristic {100 * h:.1f}%  mean {100 * best_val:.2f}", flush=True)
    for step in range(1, a.steps + 1):
        cand = dict(best)
        for k in rng.sample(tunable(cand), rng.choice((1, 2, 3))):
            cand[k] = max(0.0, cand[k] + rng.gauss(0.0, SCALES[k]))
        g, h = score(cand, a.deals, a.seed, a.jobs)
        val = (g + h) / 2
        kept = val > best_val
        if kept:
            best, best_val = cand, val
        print(f"step {step}: greedy {100 * g:.1f}% heuristic {100 * h:.1f}%  mean {100 * val:.2f}"
              f"{'  kept' if kept else ''}  ({time.perf_counter() - started:.0f} s)", flush=True)
    print("best:", json.dumps({k: round(v, 4) for k, v in best.items()}), flush=True)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(best, f, indent=1)
    g, h = score(best, a.test_deals, a.test_seed, a.jobs)
    print(f"held out (seed {a.test_seed}, {a.test_deals} deals): greedy {100 * g:.1f}% heuristic {100 * h:.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
