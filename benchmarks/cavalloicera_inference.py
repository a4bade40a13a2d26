"""How often Cavalloìcera's search inference is right, against players of each kind.

The Cavalloìcera search (``ismcts`` and ``search:cavalloicera``) deals the unseen cards
leaning on what the other seats passed up (``infer_missing_ranks``): a seat that placed a
card when it could have taken a picada or a scùa by rank most likely holds no card of that
rank, and each such card avoids that seat with probability ``infer`` (0.9 by default).

At every decision of self-play deals of a bot (all four seats the same spec), for each
other seat with cards in hand and each rank with a card the seat to play has not seen
(the pairs the deal can make), this counts whether the inference flags the rank as
missing from that seat and whether the seat in truth holds a card of it:

- ``flagged``: how many (seat, rank) pairs the inference flagged, and the share of them
  the seat holds (a perfect inference: 0);
- ``unflagged``: the share of the other pairs the seat holds.

A pair is counted again at each decision while it lasts, so the counts are of decisions,
not of independent facts.

    python benchmarks/cavalloicera_inference.py --deals 100 --seed 1 heuristic ismcts:1000
"""

from __future__ import annotations

import argparse
import sys

from cavallo_env import evaluation
from cavallo_env.cavalloicera.cards import RANK
from cavallo_env.cavalloicera.search import infer_missing_ranks

def count(state, counts: dict) -> None:
    """Add the decision at ``state`` (the seat to play's inference) to ``counts``: each other seat
    with cards in hand and each rank with a card unseen by the seat to play (one the deal can
    give that seat: the inference only moves those)."""
    seat = state.current
    unseen = {RANK[c] for s, hand in enumerate(state.hands) if s != seat for c in hand}
    for other, ranks in infer_missing_ranks(state, seat).items():
        if not state.hands[other]:
            continue
        held = {RANK[c] for c in state.hands[other]}
        for r in unseen:
            key = "flagged" if r in ranks else "unflagged"
            counts[key][0] += 1
            counts[key][1] += r in held


def self_play(spec: str, deals: int, seed: int) -> dict:
    """``{"flagged"|"unflagged": [pairs, held]}`` over ``deals`` self-play deals of ``spec``
    (the deals and bot seeds of ``cavallo eval --game cavalloicera --seed SEED``)."""
    counts = {"flagged": [0, 0], "unflagged": [0, 0]}
    evaluation.self_play(spec, deals, seed, lambda _, state: count(state, counts), "cavalloicera")
    return counts


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("specs", nargs="+", help="the bots whose self-play is read (e.g. heuristic ismcts:1000)")
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args(argv)
    print(f"{'self-play of':<28} {'flagged pairs':>13} {'held':>7} {'unflagged pairs':>15} {'held':>7}")
    for spec in a.specs:
        c = self_play(spec, a.deals, a.seed)
        (fn, fh), (un, uh) = c["flagged"], c["unflagged"]
        print(f"{spec:<28} {fn:>13} {fh / max(fn, 1):>7.2%} {un:>15} {uh / max(un, 1):>7.2%}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
