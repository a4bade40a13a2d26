"""The sweep behind ``cavallo_env.scopa.endgame.SLIP``: how much the other seat may slip.

The exact last round supposes that at each of its turns the other seat plays a
worst move with chance ``1 - slip`` and any legal move with chance ``slip``
(``slip`` 0: plain minimax).  This plays ``heuristic`` with the last round
solved at a given ``--slip`` against an opponent on duplicate single deals.
Before the last round the heuristic's move is the shipped Scopa network's,
move for move (docs/training.md), so ``--slip 0.3`` plays as ``policy:scopa``
does, and runs without the model.

    python benchmarks/scopa_endgame_slip.py --slip 0.3 --deals 1000 --seed 777
"""

from __future__ import annotations

import argparse
import sys
import time

from cavallo_env.bots import base
from cavallo_env.evaluation import duplicate_eval, format_result
from cavallo_env.games import checked_view
from cavallo_env.scopa import endgame
from cavallo_env.scopa.bots import Info, ScopaBot, heuristic_move


class SlipEndgame(ScopaBot):
    def __init__(self, slip: float, seed=None):
        super().__init__(seed)
        self.slip, self.name = slip, f"heuristic+endgame(slip={slip})"

    def choose(self, view):
        game, state, legal, by_move = checked_view(view, "scopa")
        move = legal[0] if len(legal) == 1 else heuristic_move(Info(view), legal)
        if endgame.solvable(state):
            move = endgame.solve(state, move, slip=self.slip)
        return by_move[move] if by_move is not None else game.move_to_dict(move, game.deck_of(view))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--slip", type=float, default=endgame.SLIP)
    ap.add_argument("--opponent", default="heuristic")
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=777)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args(argv)
    if not 0.0 <= a.slip <= 1.0:
        ap.error(f"--slip must be between 0 and 1, not {a.slip}")
    base.register("slip-endgame", lambda arg, seed: SlipEndgame(a.slip, seed))
    started = time.perf_counter()
    r = duplicate_eval("slip-endgame", a.opponent, a.deals, seed=a.seed, jobs=a.jobs, game="scopa", match=False)
    print(f"$ python benchmarks/scopa_endgame_slip.py {' '.join(sys.argv[1:] if argv is None else argv)}")
    print(format_result(r))
    print(f"{time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
