"""Where a bot's scùas (and the ones it concedes) happen, against ``heuristic``.

    .venv/bin/python benchmarks/scua_by_phase.py SPEC [--deals 300] [--seed 10000]

Plays ``--deals`` duplicate deals of SPEC against ``heuristic`` (both seatings of each
deal) and prints the scùas per game of SPEC's team (``a``) and of heuristic's (``b``) in
each block of 8 turns (turns 0-7, 8-15, ..., 40-47), then the total.  Used to find what
the distilled network does worse than its teacher, the search (docs/training.md, step 9).
``checkpoint:<path>`` plays a training checkpoint.
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("spec", help="bot spec, e.g. ismcts:1000, policy:default, checkpoint:checkpoints/cavalloicera")
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--seed", type=int, default=10_000, help="deal d uses random_deal(seed + d)")
    args = ap.parse_args(argv)

    import training.policy_bot  # noqa: F401  (registers checkpoint:)
    from cavallo_env.bots import make
    from cavallo_env.cavalloicera.engine import CavalloiceraState, random_deal
    from cavallo_env.evaluation import play_game

    counts: collections.Counter = collections.Counter()
    for d in range(args.deals):
        deal = random_deal(args.seed + d)
        for a_team in (0, 1):
            bots = [make(args.spec if s % 2 == a_team else "heuristic", seed=s) for s in range(4)]
            final = play_game(bots, CavalloiceraState(*deal))
            replay = CavalloiceraState(*deal)
            for seat, card, capture in final.moves:
                bonuses = replay.play(card, capture)
                if bonuses and bonuses[0]:  # a scùa
                    counts[("a" if seat % 2 == a_team else "b", (replay.turn - 1) // 8)] += 1
    games = 2 * args.deals
    print(f"scùas per game, {args.spec} (a) vs heuristic (b), {args.deals} duplicate deals from seed {args.seed}")
    print("      turns: " + " ".join(f"{8 * k:>2}-{8 * k + 7:<2}" for k in range(6)) + "  total")
    for who in "ab":
        row = [counts[(who, k)] / games for k in range(6)]
        print(f"  {who}          " + " ".join(f"{x:5.3f}" for x in row) + f"  {sum(row):5.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
