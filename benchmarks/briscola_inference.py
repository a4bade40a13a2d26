"""How much of the other hand Briscola's search inference recovers, against players of each kind.

At every decision of self-play deals of a bot (each seat the same spec) while the stock
still holds cards, the searcher's determinizer deals the other seat's hidden hand from
``hold_weights`` (a prior by kind of card times likelihood ratios from its past plays,
fitted on the plays of ``heuristic`` and ``greedy``). This measures the chance that draw
gives the true hand, against the uniform deal's:

- ``gain``: the mean of log P_infer(true hand) - log P_uniform(true hand), in nats
  (positive: the inference points at the true hand; negative: away from it);
- ``full``: the mean of -log P_uniform(true hand), the nats that knowing the hand would
  give (what benchmarks/ceiling.py's ``hand`` variant searches with);

so ``gain / full`` is the share of the hidden hand the inference knows.

    python benchmarks/briscola_inference.py --deals 100 heuristic greedy ismcts:1000
"""

from __future__ import annotations

import argparse
import math
import sys
from itertools import permutations

from cavallo_env import evaluation
from cavallo_env.briscola.search import _FACT_RATIO, _KIND_PRIOR, _kind, hold_weights, lack_facts


def draw_log_chance(hand: list, pool: list, w: list) -> float:
    """log P(the weighted draw without replacement of ``len(hand)`` cards from ``pool`` is ``hand``)
    (the determinizer draws a card with chance its weight over the weights left)."""
    total = sum(w[c] for c in pool)
    p = 0.0
    for order in permutations(hand):
        left, q = total, 1.0
        for c in order:
            q *= w[c] / left
            left -= w[c]
        p += q
    return math.log(p)


def hidden(state) -> tuple[list, list] | None:
    """``(hand, pool)`` at ``state`` for the seat to play: the other seat's hidden hand and the
    cards it is drawn from (that hand and the stock; a trump card it publicly holds is in
    neither), or None where nothing is hidden."""
    pool, known = state.hidden_from(state.current)
    hand = pool[:len(state.hands[1 - state.current]) - known]
    if not state.stock or not hand:
        return None
    return hand, pool


def self_play(spec: str, deals: int, seed: int) -> list:
    """Each position of ``deals`` self-play deals of ``spec`` (both seats) with a hidden hand:
    ``(state, hand, pool)``, the state a copy."""
    out = []

    def visit(_, state):
        h = hidden(state)
        if h is not None:
            out.append((state.copy(), h[0], h[1]))

    evaluation.self_play(spec, deals, seed, visit, "briscola")
    return out


def measure(positions: list, tables=None) -> dict:
    """The mean gain and full nats over ``positions`` (``self_play``'s) with ``hold_weights``'s
    ``tables`` (default today's)."""
    gains, fulls = [], []
    for state, hand, pool in positions:
        w = hold_weights(state.moves, 1 - state.current, state.trump_suit, 1.0, tables)
        uniform = -math.log(math.comb(len(pool), len(hand)))
        gains.append(draw_log_chance(hand, pool, w) - uniform)
        fulls.append(-uniform)
    n = len(gains)
    mean = sum(gains) / n
    sd = math.sqrt(sum((g - mean) ** 2 for g in gains) / (n - 1))
    return {"positions": n, "gain": mean, "gain_se": sd / math.sqrt(n), "full": sum(fulls) / n}


KINDS = tuple(_KIND_PRIOR)
FACTS = tuple(_FACT_RATIO)


def features(state, hand: list, pool: list) -> tuple:
    """A position for the fit: ``(counts, chosen)``; ``counts[i]`` the pool card i's feature
    counts (its kind, then each (fact, plays since) naming it), ``chosen`` the hand's indices."""
    other = 1 - state.current
    counts = [[0] * (len(KINDS) + 4 * len(FACTS)) for _ in pool]
    at = {c: i for i, c in enumerate(pool)}
    for c, row in zip(pool, counts):
        row[KINDS.index(_kind(c, state.trump_suit))] = 1
    for kind, lacks, since in lack_facts(state.moves, other, state.trump_suit):
        if since <= 3:
            for c in lacks:
                if c in at:
                    counts[at[c]][len(KINDS) + 4 * FACTS.index(kind) + since] += 1
    return counts, [at[c] for c in hand]


def fit(positions: list, steps: int = 300, ridge: float = 0.01) -> tuple:
    """The tables (kind prior, fact ratios) that maximise the chance of the true hands under
    the determinizer's weighted draw, from today's; torch's L-BFGS on their logs, each held
    towards today's by ``ridge`` times its squared change (a fact the data rarely sees
    stays near today's ratio, never 0)."""
    import torch  # the fit only: measuring needs no torch

    theta0 = [math.log(_KIND_PRIOR[k]) for k in KINDS] + [math.log(r) for f in FACTS for r in _FACT_RATIO[f]]
    theta = torch.tensor(theta0, dtype=torch.float64, requires_grad=True)
    start = torch.tensor(theta0, dtype=torch.float64)
    groups = {}
    for counts, chosen in positions:
        groups.setdefault((len(counts), len(chosen)), []).append((counts, chosen))
    batches = [(torch.tensor([c for c, _ in g], dtype=torch.float64), torch.tensor([h for _, h in g]), n)
               for (_, n), g in groups.items()]
    total = len(positions)

    def loss():
        out = 0.0
        for x, chosen, n in batches:
            w = torch.exp(x @ theta)
            left0 = w.sum(1)
            p = 0.0
            for order in permutations(range(n)):
                left, q = left0, 1.0
                for k in order:
                    wk = w.gather(1, chosen[:, k:k + 1]).squeeze(1)
                    q = q * wk / left
                    left = left - wk
                p = p + q
            out = out - torch.log(p).sum()
        return out / total + ridge * ((theta - start) ** 2).sum()

    opt = torch.optim.LBFGS([theta], max_iter=steps, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        value = loss()
        value.backward()
        return value

    opt.step(closure)
    t = [math.exp(v) for v in theta.detach().tolist()]
    kind_prior = {k: round(t[i] / t[KINDS.index("L")] * _KIND_PRIOR["L"], 3) for i, k in enumerate(KINDS)}
    ratios = {f: tuple(round(x, 3) for x in t[len(KINDS) + 4 * j:len(KINDS) + 4 * j + 4]) for j, f in enumerate(FACTS)}
    return kind_prior, ratios


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("specs", nargs="+", help="the bots whose self-play is read (e.g. heuristic ismcts:1000)")
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--fit", nargs="+", metavar="SPEC", help="also fit the tables on these bots' self-play "
                   "(--fit-deals deals each, seed --fit-seed) and measure them beside today's")
    p.add_argument("--fit-deals", type=int, default=200)
    p.add_argument("--fit-seed", type=int, default=2)
    a = p.parse_args(argv)
    tables = {"today": None}
    if a.fit:
        positions = [features(*x) for spec in a.fit for x in self_play(spec, a.fit_deals, a.fit_seed)]
        tables["fitted"] = fit(positions)
        print(f"fitted on {len(positions)} positions of {', '.join(a.fit)} (seed {a.fit_seed}):")
        print(f"  kind prior {tables['fitted'][0]}")
        for f, r in tables["fitted"][1].items():
            print(f"  {f:<12} {r}")
    print(f"{'self-play of':<24} {'tables':<7} {'positions':>9} {'gain (nats)':>16} {'full (nats)':>11} {'share':>6}")
    for spec in a.specs:
        positions = list(self_play(spec, a.deals, a.seed))
        for name, t in tables.items():
            r = measure(positions, t)
            print(f"{spec:<24} {name:<7} {r['positions']:>9} {r['gain']:>+9.3f} ± {1.96 * r['gain_se']:.3f} "
                  f"{r['full']:>11.3f} {r['gain'] / r['full']:>6.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
