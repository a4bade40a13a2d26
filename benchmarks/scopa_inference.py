"""How much of the other hand Scopa's search inference recovers, against players of each kind.

The Scopa search (``ismcts`` and ``search:scopa``) deals the other seat's hand by what
its plays reveal: it takes that seat for one of three kinds of player (``MODEL``: the
heuristic's move, the greedy player's, any move; the first two slip to any move with
chance ``SLIP``), learns which kind from its plays of the rounds already over, and weighs
each hand it may hold by the chance that such a player, holding it, made its plays since
the hand was dealt (``cavallo_env/scopa/search.py``: ``player_model``, ``likelihoods``;
the posterior raised to the power ``infer``).

At every decision of self-play single deals of a bot (both seats the same spec) where the
other seat has played from its hand and the stock is not empty, this measures:

- ``gain``: log P_infer(true hand) - log P_uniform(true hand), in nats, where P_infer is
  the ideal posterior, the weight of the true hand over the weights of every hand it may
  hold (positive: the inference points at the true hand). Where there are more than
  ``HANDS`` such hands their mean weight is estimated from ``HANDS`` drawn uniformly, as
  the search draws the hands it deals from; the log of a sample's mean is low on average,
  so the gain is then a little high. (The search itself deals only the hands it drew,
  which then often miss the true one; Briscola's script measures the search's own draw,
  which there covers every hand.)
- ``full``: -log P_uniform(true hand), the nats that knowing the hand would give (what
  benchmarks/ceiling.py's ``hand`` variant searches with; about 17 points of score against
  ``ismcts:1000``);

so ``gain / full`` (their means' ratio; ``full`` depends on the turn only) is the share
of the other hand the inference knows; the ± is the 95% half-width, the positions of a
deal taken together. Each hand's plays are read once (whether the heuristic and the
greedy player would have made each play), so any setting of the model's constants is
measured on the same positions: ``--grid`` tries
the priors, slips and ``infer`` below on the ``--fit`` bots' self-play (seed ``--fit-seed``)
and measures the best beside today's on the held-out deals.

    python benchmarks/scopa_inference.py --deals 100 --seed 1 heuristic greedy ismcts:1000 \\
        --fit ismcts:1000 --fit-deals 100 --fit-seed 2 --grid
"""

from __future__ import annotations

import argparse
import math
import random
import sys

import numpy as np

from cavallo_env import evaluation
from cavallo_env.evaluation import derive_seed
from cavallo_env.scopa.search import MODEL, SLIP, _Determinizer, play_facts

#: today's constants: (prior of the heuristic kind, of the greedy kind, of any move), the heuristic's
#: slip, the greedy player's, infer
TODAY = (MODEL, SLIP, SLIP, 1.0)
PRIORS = ((0.6, 0.3, 0.1), (0.45, 0.45, 0.1), (0.4, 0.3, 0.3), (0.3, 0.2, 0.5), (0.8, 0.1, 0.1), (0.2, 0.7, 0.1))
SLIPS = (0.1, 0.2, 0.35, 0.5, 0.7)
INFERS = (0.5, 1.0)


def kind_chances(facts: np.ndarray, setting: tuple) -> np.ndarray:
    """The chance that each kind of player made plays with these ``facts`` (``likelihoods``):
    ``facts[..., 0:3]`` -> chances ``[..., 3]``."""
    _, slip_h, slip_g, _ = setting
    h, g, n = facts[..., 0], facts[..., 1], facts[..., 2]
    one = n == 1
    out = np.stack([(1.0 - slip_h) * h + slip_h / n, (1.0 - slip_g) * g + slip_g / n, 1.0 / n], axis=-1)
    out[one] = 1.0
    return out


def weight(plays: np.ndarray, model: tuple, setting: tuple) -> np.ndarray:
    """Hands' weights (``plays``: ``[..., plays, 3]`` facts): the kinds' chances, from ``model``,
    of making those plays, summed, to the power infer."""
    w = np.asarray(model) * kind_chances(plays, setting).prod(axis=-2)
    return w.sum(axis=-1) ** setting[3]


def posterior_model(past: np.ndarray, setting: tuple) -> tuple:
    """The prior over the kinds updated by the plays of the rounds already over (``player_model``)."""
    w = np.asarray(setting[0]) * kind_chances(past, setting).prod(axis=0)
    return tuple(w / w.sum())


def position(state, rng: random.Random) -> dict | None:
    """The facts of the decision at ``state`` for the seat to play: of the other seat's plays of
    past rounds, of its plays from its hand with the true hand and with each hand weighed
    (every possible hand, or ``HANDS`` drawn uniformly); None where nothing is inferred."""
    seat = state.current
    det = _Determinizer(state, seat, 1.0)
    if not det.plays or state.deal.stock_size == 0:
        return None
    other, money, dealer = det.other, state.money, state.deal.dealer
    true = sorted(state.deal.hands[other])
    hands = det.draw_hands(rng)

    def facts(hand):
        return [play_facts(hand, p, other, money, dealer) for p in det.plays]

    return {"past": np.array([play_facts((), p, other, money, dealer) for p in det.past], float).reshape(-1, 3),
            "true": np.array(facts(true), float), "hands": np.array([facts(h) for h in hands], float),
            "full": math.log(math.comb(len(det.hidden), det.n_other))}


def self_play(spec: str, deals: int, seed: int) -> list:
    """``position``'s facts at each decision of ``deals`` self-play single deals of ``spec``
    (the deals and bot seeds of ``cavallo eval --game scopa --single-deal --seed SEED``)."""
    out = []
    rngs: dict = {}  # per deal, the hands' draws

    def visit(index, state):
        if index not in rngs:
            rngs[index] = random.Random(derive_seed("inference", seed, index))
        p = position(state, rngs[index])
        if p is not None:
            p["deal"] = index
            out.append(p)

    evaluation.self_play(spec, deals, seed, visit, "scopa", match=False)
    return out


def measure(positions: list, setting: tuple = TODAY) -> dict:
    """The mean gain (nats) over ``positions``, its standard error (the positions of one deal
    taken together: they share the hands and the evidence), and the mean full nats."""
    if not positions:
        raise ValueError("no position to measure: play more deals")
    by_deal: dict = {}
    for p in positions:
        model = posterior_model(p["past"], setting) if len(p["past"]) else setting[0]
        gain = math.log(weight(p["true"], model, setting)) - math.log(weight(p["hands"], model, setting).mean())
        by_deal.setdefault(p["deal"], []).append(gain)
    n = len(positions)
    mean = sum(map(sum, by_deal.values())) / n
    se = math.sqrt(sum(sum(g - mean for g in gains) ** 2 for gains in by_deal.values())) / n
    return {"positions": n, "gain": mean, "gain_se": se, "full": sum(p["full"] for p in positions) / n}


def grid(positions: list) -> list:
    """Every setting of ``PRIORS`` x ``SLIPS`` (the two kinds' each) x ``INFERS``, best gain first."""
    settings = [(m, sh, sg, inf) for m in PRIORS for sh in SLIPS for sg in SLIPS for inf in INFERS]
    return sorted(((measure(positions, s)["gain"], s) for s in settings), reverse=True)


def name(setting: tuple) -> str:
    m, sh, sg, inf = setting
    return f"prior {m} slip {sh}/{sg} infer {inf}"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("specs", nargs="+", help="the bots whose self-play is read (e.g. heuristic ismcts:1000)")
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--fit", nargs="+", metavar="SPEC", help="with --grid: the bots whose self-play picks the setting")
    p.add_argument("--fit-deals", type=int, default=100)
    p.add_argument("--fit-seed", type=int, default=2)
    p.add_argument("--grid", action="store_true", help="search the model's constants on --fit's self-play")
    a = p.parse_args(argv)
    if a.grid and not a.fit:
        p.error("--grid needs --fit SPEC ...")
    settings = {"today": TODAY}
    if a.grid:
        fitting = [x for spec in a.fit for x in self_play(spec, a.fit_deals, a.fit_seed)]
        ranked = grid(fitting)
        print(f"grid on {len(fitting)} positions of {', '.join(a.fit)} (seed {a.fit_seed}); the best five and today's:")
        for gain, s in ranked[:5]:
            print(f"  {gain:+.3f}  {name(s)}")
        print(f"  {measure(fitting)['gain']:+.3f}  {name(TODAY)} (today)")
        settings["fitted"] = ranked[0][1]
    print(f"{'self-play of':<28} {'setting':<7} {'positions':>9} {'gain (nats)':>16} {'full (nats)':>11} {'share':>6}")
    for spec in a.specs:
        positions = self_play(spec, a.deals, a.seed)
        for label, s in settings.items():
            r = measure(positions, s)
            print(f"{spec:<28} {label:<7} {r['positions']:>9} {r['gain']:>+9.3f} ± {1.96 * r['gain_se']:.3f} "
                  f"{r['full']:>11.3f} {r['gain'] / r['full']:>6.1%}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
