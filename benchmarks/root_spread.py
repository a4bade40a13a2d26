"""How far apart the search's root moves are: what expert iteration's targets can teach.

At every ``--every``-th decision of ``--deals`` deals played by ``--player``,
``--search`` (an ``ismcts`` spec) searches the position and the script records
the number of legal moves, how many the search never visited, the entropy of
its root visit distribution and of the value targets (``training.expert_bot.q_weights``,
the softmax of the root means) at each ``--temps``, the gap between the two
best means (reward units) and the most visited move's share.  Prints each
quantity's mean, median and maximum.

    python benchmarks/root_spread.py --game cavalloicera                      # 12 deals, ismcts:1000, every 5th decision
    python benchmarks/root_spread.py --game briscola --search ismcts:2000 --temps 0.1
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys

from cavallo_env import games
from cavallo_env.bots import make
from training.expert_bot import q_weights


def entropy(dist: dict) -> float:
    return -sum(p * math.log(p) for p in dist.values() if p > 0)


def spread(state, search, game, k: int, temps: list[float]) -> dict:
    """One searched root: the row of the quantities above."""
    legal = state.legal_moves()
    visits: dict = {}
    means: dict = {}
    search.search(state, random.Random(k), legal, None, visits, game=game, means=means)
    total = sum(visits.values())
    seen = sorted((q for m, q in means.items() if visits[m]), reverse=True)
    row = {"legal moves": len(legal), "unvisited moves": sum(1 for m in legal if not visits[m]),
           "entropy of the visits": entropy({m: v / total for m, v in visits.items()}),
           "gap of the two best means": seen[0] - seen[1] if len(seen) > 1 else 0.0,
           "most visited share": max(visits.values()) / total}
    for t in temps:
        row[f"entropy of the q targets at {t}"] = entropy(q_weights(means, t, visits))
    return row


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="cavalloicera", choices=games.names())
    p.add_argument("--search", default="ismcts:1000", help="the ismcts spec searched (default ismcts:1000)")
    p.add_argument("--player", default="heuristic", help="the bot that plays the deals (default heuristic)")
    p.add_argument("--deals", type=int, default=12)
    p.add_argument("--every", type=int, default=5, help="search every N-th decision (default 5)")
    p.add_argument("--temps", default="0.1,0.03,0.01", help="temperatures of the q targets (default 0.1,0.03,0.01)")
    args = p.parse_args(argv)
    game = games.get(args.game)
    search, player = make(args.search, seed=1, game=args.game), make(args.player, seed=0, game=args.game)
    if not hasattr(search, "search"):
        p.error(f"--search: {args.search!r} is not an ismcts search")
    try:
        temps = [float(t) for t in args.temps.split(",")]
    except ValueError:
        p.error(f"--temps: comma-separated numbers, got {args.temps!r}")
    if not all(0 < t <= 1000 for t in temps):
        p.error(f"--temps: each in (0, 1000], got {args.temps!r}")
    if args.deals < 1 or args.every < 1:
        p.error("--deals and --every must be at least 1")
    rows = []
    for seed in range(args.deals):
        state, k = game.new_state(seed=seed), 0
        while not state.done:
            if len(state.legal_moves()) > 1 and k % args.every == 0:
                rows.append(spread(state, search, game, k, temps))
            game.play(state, game.move_from_dict(player.choose(game.make_view(state, state.current)),
                                                 game.deck_of(state)))
            k += 1
    if not rows:
        p.error(f"no decision with more than one legal move at every {args.every}th turn of {args.deals} deals")
    print(f"{args.search} on {len(rows)} decisions of {args.deals} {args.game} deals played by {args.player}")
    for name in rows[0]:
        values = [r[name] for r in rows]
        print(f"  {name:34s} mean {statistics.mean(values):7.3f}  median {statistics.median(values):7.3f}  "
              f"max {max(values):7.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
