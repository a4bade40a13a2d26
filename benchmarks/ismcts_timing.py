"""Time ISMCTS decisions: ``python benchmarks/ismcts_timing.py [spec] [deals] [--game NAME]``.

Plays ``deals`` deals of the game (default Cavalloìcera; Scopa: single deals)
with the ISMCTS bot on side 0 against the heuristic and times every ISMCTS
decision that has a real choice (more than one legal move; forced moves
return at once and are left out).  Wall-clock times on a shared machine are
noisy: the script prints the mean, median, 90th percentile and maximum.
"""

from __future__ import annotations

import argparse
import sys
import time

from cavallo_env import games
from cavallo_env.bots import make
from cavallo_env.evaluation import derive_seed

OPTIONS = {"scopa": {"match": False}}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("spec", nargs="?", default="ismcts:1000")
    p.add_argument("deals", nargs="?", type=int, default=4)
    p.add_argument("--game", default="cavalloicera", choices=games.names())
    args = p.parse_args(argv)
    game = games.get(args.game)
    bot = make(args.spec, seed=1, game=game.name)
    other = make("heuristic", seed=1, game=game.name)
    times = []
    for d in range(args.deals):
        # Cavalloìcera: the deals of evaluation.deal_for("timing", d), as before
        state = game.new_state(derive_seed("deal", "timing", d), **OPTIONS.get(game.name, {}))
        while not state.done:
            view = game.make_view(state, state.current)
            if game.team_of(state.current) == 0 and len(view["legal_moves"]) > 1:
                t0 = time.perf_counter()
                answer = bot.choose(view)
                times.append(time.perf_counter() - t0)
            else:
                answer = other.choose(view)
            game.play(state, game.move_from_dict(answer))
    times.sort()
    ms = [1000 * t for t in times]
    print(f"{args.spec} ({game.name}): {len(ms)} decisions over {args.deals} deals: mean {sum(ms) / len(ms):.0f} ms, "
          f"median {ms[len(ms) // 2]:.0f} ms, p90 {ms[int(0.9 * len(ms))]:.0f} ms, max {ms[-1]:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
