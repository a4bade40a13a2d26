"""Screen: the shipped Scopa model with ``ismcts`` at some decisions only, paired with the model alone.

``policy:scopa@search=N`` hands the decisions ``Learning.searched`` names (the
second card of a round while the stock lasts) to ``ismcts:N``.  This is the
screen behind that choice: ``--which`` names the decisions searched, by the
cards in the seat's hand, the stock not empty:

- ``2``: the second card of a round (5 of a seat's 18 decisions; the runtime's
  ``@search``, move for move);
- ``3``: the first card of a round (5 of 18);
- ``32``: both (10 of 18: the median decision would be the search's).

Both players play the same single deals (duplicate, ``--seed``); the paired
difference is the mean over deals of (the mix's score of the deal minus the
model's), with a 95% normal interval.

    python benchmarks/scopa_search_mix.py --which 2 --opponent heuristic --deals 400 --seed 7
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cavallo_env.bots import make  # noqa: E402
from cavallo_env.bots.base import Bot, register  # noqa: E402
from cavallo_env.evaluation import mean_interval, run_deals, summarize  # noqa: E402


class SearchMix(Bot):
    """``policy:scopa``, with ``ismcts:<iterations>`` at the decisions ``which`` names."""

    game = "scopa"

    def __init__(self, which: str, iterations: int, seed=None):
        super().__init__(seed)
        self.which = which
        self.name = f"mix:{which},{iterations}"
        self.policy = make("policy:scopa", seed=seed, game="scopa")
        self.search = make(f"ismcts:{iterations}", seed=seed, game="scopa")

    def choose(self, view):
        if view["stock_size"] > 0 and str(len(view["hand"])) in self.which and len(view["legal_moves"]) > 1:
            return self.search.choose(view)
        return self.policy.choose(view)


def _mix(arg, seed):
    which, _, iterations = (arg or "2").partition(",")
    return SearchMix(which, int(iterations or 1000), seed)


register("mix", _mix)


def _deal_score(games) -> float:
    return sum(1.0 if g.diff > 0 else 0.5 if g.diff == 0 else 0.0 for g in games) / len(games)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--which", default="2", choices=("2", "3", "32"))
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--opponent", default="heuristic")
    ap.add_argument("--deals", type=int, default=400)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    print(f"$ python benchmarks/scopa_search_mix.py {' '.join(sys.argv[1:] if argv is None else argv)}")
    opts = {"match": False}
    scores = {}
    for spec in (f"mix:{args.which},{args.iterations}", "policy:scopa"):
        t = time.time()
        res = run_deals([(spec, args.opponent, args.seed, i, "scopa", opts) for i in range(args.deals)], args.jobs)
        scores[spec] = [_deal_score(gs) for gs, _ in res]
        r = summarize(spec, args.opponent, args.seed, res, "scopa", opts)
        print(f"{spec} vs {args.opponent}: {100 * r.score:.1f}% [{100 * r.score_ci[0]:.1f}, {100 * r.score_ci[1]:.1f}] "
              f"points {r.mean_diff:+.3f}  {r.timing['a_ms_per_decision']:.1f} ms a decision  {time.time() - t:.0f} s",
              flush=True)
    a, b = scores.values()
    m, lo, hi = mean_interval([x - y for x, y in zip(a, b)])
    print(f"paired difference: {100 * m:+.1f} points [{100 * lo:+.1f}, {100 * hi:+.1f}]")


if __name__ == "__main__":
    main()
