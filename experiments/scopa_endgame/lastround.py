"""Does the Scopa search play the last round as well as it can be played?

Once the stock is empty both hands are known to both seats (every card not
seen is in the other hand), so the rest of the deal is a game of perfect
information.  This plays ``N`` single deals of seed 1000.. twice (the search
in seat 0, then in seat 1) against ``heuristic`` and, at every decision of
the search in the last round with more than one legal move, solves the rest
of the deal by minimax (the point difference) and counts the decisions where
the search's move is worth less than the best move.

    python experiments/scopa_endgame/lastround.py 60            # ismcts:1000
    python experiments/scopa_endgame/lastround.py 60 'ismcts:1000,exact=1'
"""

from __future__ import annotations

import sys
import time

from cavallo_env.bots import make
from cavallo_env.scopa.engine import random_state
from cavallo_env.scopa.search import solve_last_round
from cavallo_env.scopa.views import make_view, move_from_dict


def move_values(deal) -> dict:
    """Each legal move's minimax point difference (seat 0 minus seat 1)."""
    out = {}
    for m in deal.legal_moves():
        d = deal.copy()
        d.play(*m)
        out[m] = solve_last_round(d)
    return out


def main(n: int, spec: str) -> None:
    stats = dict(decisions=0, with_a_choice=0, worse_than_best=0, points_lost=0.0)
    t0 = time.time()
    for g in range(n):
        for me in (0, 1):
            s = random_state(seed=1000 + g, match=False)
            bots = {me: make(spec, seed=g), 1 - me: make("heuristic", seed=g)}
            while not s.done:
                seat = s.deal.current
                move = move_from_dict(bots[seat].choose(make_view(s, seat)), s.deck)
                if seat == me and s.deal.stock_size == 0 and len(s.deal.legal_moves()) > 1:
                    sign = 1 if me == 0 else -1
                    vals = {m: sign * v for m, v in move_values(s.deal).items()}
                    best = max(vals.values())
                    stats["decisions"] += 1
                    stats["with_a_choice"] += len(set(vals.values())) > 1
                    if vals[move] < best:
                        stats["worse_than_best"] += 1
                        stats["points_lost"] += best - vals[move]
                s.play(*move)
        if (g + 1) % 20 == 0 or g + 1 == n:
            print(f"{g + 1} deals: {stats} ({time.time() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "ismcts:1000")
