"""Experiment: the Scopa heuristic with the search's inference about the other hand.

The heuristic weighs each reply of the other seat by the chance that it holds
a card of that value, counted from the unseen cards.  The search instead draws
the other hand from a posterior: each possible hand weighed by the chance that
a heuristic, greedy or random player holding it made its plays since the hand
was dealt (``cavallo_env/scopa/search.py``, ``_Determinizer``).  This bot plays
the heuristic with those chances taken from that posterior (400 weighed hands)
and the last round exactly, as ``policy:scopa`` does; ``--infer 0`` is the
heuristic with the exact last round, the baseline on the same deals.

    python benchmarks/scopa_inferred_heuristic.py --infer 1 --deals 1000 --seed 0
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from cavallo_env.bots import base
from cavallo_env.evaluation import duplicate_eval, format_result
from cavallo_env.games import checked_view
from cavallo_env.scopa import endgame
from cavallo_env.scopa.bots import Info, ScopaBot, heuristic_scores
from cavallo_env.scopa.engine import VALUE
from cavallo_env.scopa.search import _Determinizer


def holds(state, seat: int, rng: random.Random, infer: float):
    """Per value, the posterior chance that the other seat holds a card of it (None before
    it has played from its current hand: then nothing is known beyond the unseen cards)."""
    draw = _Determinizer(state, seat, infer)
    if not draw.plays:
        return None
    draw._weigh(rng)
    out, prev = [0.0] * 11, 0.0
    for hand, acc in zip(draw.hands, draw.cum):
        for v in {VALUE[c] for c in hand}:
            out[v] += acc - prev
        prev = acc
    return [x / draw.cum[-1] for x in out]


class InferredHeuristic(ScopaBot):
    def __init__(self, seed=None, infer: float = 1.0):
        super().__init__(seed)
        self.infer, self.name = infer, f"inferred-heuristic:{infer}"

    def choose(self, view):
        game, state, legal, by_move = checked_view(view, "scopa")
        if len(legal) == 1:
            move = legal[0]
        else:
            info = Info(view)
            exact = endgame.solvable(state)
            p = None if exact or self.infer <= 0 else holds(state, info.seat, random.Random(base.view_seed(self.seed, view)), self.infer)
            scores = heuristic_scores(info, legal, p)
            move = legal[max(range(len(legal)), key=lambda i: (scores[i], -i))]
            if exact:
                move = endgame.solve(state, move)
        return by_move[move] if by_move is not None else game.move_to_dict(move, game.deck_of(view))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--infer", type=float, default=1.0)
    ap.add_argument("--opponent", default="heuristic")
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args(argv)
    base.register("inferred", lambda arg, seed: InferredHeuristic(seed, a.infer))
    started = time.perf_counter()
    r = duplicate_eval("inferred", a.opponent, a.deals, seed=a.seed, jobs=a.jobs, game="scopa", match=False)
    print(f"$ python benchmarks/scopa_inferred_heuristic.py {' '.join(sys.argv[1:] if argv is None else argv)}")
    print(format_result(r))
    print(f"{time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
