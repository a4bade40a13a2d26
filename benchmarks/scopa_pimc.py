"""Experiment: does exact search over sampled deals help the Scopa model before the last round?

``policy:scopa`` plays a deal's last round exactly (``cavallo_env/scopa/endgame.py``).
This asks whether the round before it (and the one before that, ``--stock 12``)
gains from perfect-information Monte Carlo: at a decision with ``0 < stock <=
--stock`` cards left in the stock, draw ``--samples`` deals of the hidden cards
(the other hand from its posterior, as the search's determinizer draws them;
the stock shuffled), solve each to the end of the deal by alpha-beta for every
legal move, and play the move with the best total (a single deal: +1 / 0 / -1
for its result, plus 0.01 x the point difference; a match: the solver's match
value).  Ties keep the network's own move.  Elsewhere the bot is ``policy:scopa``.

    python benchmarks/scopa_pimc.py --samples 32 --stock 6 --deals 1000 --seed 0   # against heuristic

It prints the duplicate result and the decision time of the sampled decisions
(measured in this process: run it with ``--jobs 1`` for the timing).
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from cavallo_env.bots import base
from cavallo_env.bots.policy import PolicyBot
from cavallo_env.evaluation import duplicate_eval, format_result
from cavallo_env.games.learning import decide_move
from cavallo_env.scopa import endgame
from cavallo_env.scopa.search import _Determinizer

MODEL = "cavallo_env/models/scopa.onnx"
TIMES: list[float] = []


def pimc_move(state, prefer, samples: int, rng: random.Random):
    """The legal move of the seat to play with the best total over ``samples`` solved deals."""
    order = list(state.deal.legal_moves())
    if prefer in order:
        order.remove(prefer)
        order.insert(0, prefer)
    seat = state.deal.current
    draw = _Determinizer(state, seat, 1.0)
    target = state.target if state.match else None
    score = [0.0] * len(order)
    for _ in range(samples):
        deal = draw(rng).deal
        for i, move in enumerate(order):
            child = deal.copy()
            child.play(*move)
            v = endgame._search(child, seat, state.totals, target, -endgame._INF, endgame._INF)
            score[i] += v if target is not None else (v > 0) - (v < 0) + 0.01 * v
    return order[max(range(len(order)), key=lambda i: (score[i], -i))]


class PimcBot(PolicyBot):
    def __init__(self, path, seed=None, samples: int = 32, stock: int = 6):
        super().__init__(path, seed, name=f"pimc:samples={samples},stock={stock}")
        self.samples, self.stock = samples, stock

    def _decide(self, state, view):
        if not (0 < state.deal.stock_size <= self.stock) or state.done or len(state.deal.legal_moves()) < 2:
            return super()._decide(state, view)
        started = time.perf_counter()
        start = state.copy()
        run = self.session.run

        def pick(obs, mask, prior, acts):
            feeds = {"obs": obs, "mask": mask}
            if prior is not None:
                feeds["prior"] = prior
            return int(run(["logits"], feeds)[0][0].argmax())

        prefer = decide_move(self.learning.table(state), pick, self.uses_prior, self.learning, False)
        move = pimc_move(start, prefer, self.samples, random.Random(base.view_seed(self.seed, view)))
        TIMES.append(time.perf_counter() - started)
        return move


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=int, default=32)
    ap.add_argument("--stock", type=int, default=6, help="sample where 0 < stock <= this (6: the round before the last)")
    ap.add_argument("--opponent", default="heuristic")
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--match", action="store_true", help="whole matches to 11 instead of single deals")
    a = ap.parse_args(argv)
    base.register("pimc", lambda arg, seed: PimcBot(MODEL, seed, a.samples, a.stock))
    r = duplicate_eval("pimc", a.opponent, a.deals, seed=a.seed, jobs=a.jobs, game="scopa", match=a.match)
    print(f"$ python benchmarks/scopa_pimc.py {' '.join(sys.argv[1:] if argv is None else argv)}")
    print(format_result(r))
    if TIMES:
        TIMES.sort()
        print(f"sampled decisions in this process: {len(TIMES)}, median {1000 * TIMES[len(TIMES) // 2]:.1f} ms, "
              f"max {1000 * TIMES[-1]:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
