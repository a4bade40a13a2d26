"""How much sharper could the Scopa search's inference about the other hand get?

Plays ``N`` single deals of seed 5000.. with ``heuristic`` in both seats.  At
every decision where the other seat has played from its current hand, it
weighs the hands the other seat may hold as the search does
(``cavallo_env.scopa.search._Determinizer``) for each value of ``SLIP`` and
reports, averaged over the positions: the posterior mass on hands from which
the heuristic would not have made the other seat's plays, the mass on the
true hand, and the mass the true hand would get if only the hands the
heuristic could have played from were kept, all equally likely (the most
that this evidence allows against this player).

    python experiments/scopa_endgame/posterior.py 100 0.1,0.05,0.01
"""

from __future__ import annotations

import random
import sys

import cavallo_env.scopa.search as search
from cavallo_env.bots import make
from cavallo_env.scopa.engine import random_state
from cavallo_env.scopa.views import make_view, move_from_dict


def main(n: int, slips: list[float]) -> None:
    # per SLIP: positions, inconsistent mass, true-hand mass, uniform mass, consistent-only mass
    acc = {s: [0, 0.0, 0.0, 0.0, 0.0] for s in slips}
    for g in range(n):
        s = random_state(seed=5000 + g, match=False)
        bot = make("heuristic", seed=g)
        while not s.done:
            me = s.deal.current
            other = 1 - me
            for slip in slips:
                search.SLIP = slip
                d = search._Determinizer(s, me)
                if not d.plays:
                    break
                d._weigh(random.Random(g))
                w = [d.cum[0]] + [d.cum[i] - d.cum[i - 1] for i in range(1, len(d.cum))]
                total = d.cum[-1]
                true = sorted(s.deal.hands[other])
                inconsistent, consistent = 0.0, 0
                for h, wi in zip(d.hands, w):
                    if all(search.likelihoods(h, p, other, s.money, s.deal.dealer)[0] > 0.5 for p in d.plays):
                        consistent += 1
                    else:
                        inconsistent += wi
                a = acc[slip]
                a[0] += 1
                a[1] += inconsistent / total
                a[2] += sum(wi for h, wi in zip(d.hands, w) if sorted(h) == true) / total
                a[3] += 1.0 / len(d.hands)
                a[4] += 1.0 / consistent
            s.play(*move_from_dict(bot.choose(make_view(s, me)), s.deck))
    for slip, (k, inc, tr, un, orc) in acc.items():
        print(f"SLIP={slip}: {k} positions; mass on hands the heuristic would not have played from {inc / k:.3f}; "
              f"on the true hand {tr / k:.3f} (every hand equally likely: {un / k:.3f}; only the hands the "
              f"heuristic could have played from, equally: {orc / k:.3f})")


if __name__ == "__main__":
    main(int(sys.argv[1]), [float(x) for x in sys.argv[2].split(",")])
