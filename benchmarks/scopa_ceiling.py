"""Experiment: how far can a player that does not see the other hand get against ``greedy`` on single Scopa deals?

Issue 14 asks the shipped Scopa model for 70% against ``greedy`` on single
deals.  This script measures the search, ``ismcts:1000``, three ways on the
same duplicate deals (the deals and bot seeds of ``cavallo eval ... --game
scopa --single-deal --seed SEED``):

- ``default``: the search as shipped, through the view (honest), as ``cavallo eval`` plays it;
- ``model``:   honest too, but told that the other seat is the greedy player and
  nothing else (``search.MODEL`` all on greedy, slips of 0.2%): the sharpest
  inference from greedy's plays, and greedy's replies in the tree and the rollouts;
- ``hand``:    the search sees the other seat's hand (the stock is still dealt
  anew every iteration) and knows it is the greedy player: a ceiling, not a player.

    python benchmarks/scopa_ceiling.py run default --deals 150 --seed 2026 --jobs 2 --out default.jsonl
    python benchmarks/scopa_ceiling.py run model --deals 150 --seed 2026 --jobs 2 --out model.jsonl
    python benchmarks/scopa_ceiling.py run hand --deals 150 --seed 2026 --jobs 2 --out hand.jsonl
    python benchmarks/scopa_ceiling.py summary default.jsonl model.jsonl hand.jsonl

Each ``run`` writes one line per deal (both games of the duplicate pair);
``summary`` prints each file's score and its paired difference with the first.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cavallo_env import games  # noqa: E402
from cavallo_env.bots import make  # noqa: E402
from cavallo_env.evaluation import derive_seed, mean_interval, start_for  # noqa: E402
from cavallo_env.scopa import search as S  # noqa: E402

GREEDY = 1  # the greedy player's index in search.MODEL


class _SeenHand(S._Determinizer):
    """The search's determinizer, but the other hand is the true one and the other seat is greedy."""

    __slots__ = ()

    def __call__(self, rng):
        s = S._Determinizer.__call__(self, rng)
        d = s.deal
        true = list(self.template.deal.hands[self.other])
        rest = [c for c in self.hidden if c not in true]
        rng.shuffle(rest)
        d.hands[self.other] = sorted(true)
        d.initial_stock = self.head + tuple(rest)
        d._legal = None
        d._caps = None
        s.kind = GREEDY
        return s


def _install(variant: str) -> None:
    if variant == "model":
        S.MODEL = tuple(1.0 if k == GREEDY else 0.0 for k in range(3))
        S.SLIP = 0.002
    elif variant == "hand":
        S.ScopaSearch.determinizer = lambda self, base, seat: _SeenHand(base, seat, self.infer, True)


def _deal(args) -> dict:
    variant, spec, opponent, seed, i = args
    _install(variant)
    g = games.get("scopa")
    score, diff = 0.0, 0
    for round_, a_team in enumerate((0, 1)):
        bots = [make(spec if seat == a_team else opponent, seed=derive_seed("bot", seed, i, round_, seat), game="scopa")
                for seat in range(2)]
        st = start_for(seed, i, "scopa", match=False)
        while not st.done:
            seat = st.current
            if seat == a_team and variant == "hand":
                # the search is handed the true state: its determinizer keeps the other hand
                legal = st.legal_moves()
                rng = random.Random(derive_seed("c", i, round_, st.deal.turn))
                m = bots[seat].search(st.copy(), rng, game=g) if len(legal) > 1 else legal[0]
            else:
                m = g.move_from_dict(bots[seat].choose(g.make_view(st, seat)), g.deck_of(st))
            g.play(st, m)
        p = g.outcome(st)["points"]
        d = p[a_team] - p[1 - a_team]
        score += 1.0 if d > 0 else 0.5 if d == 0 else 0.0
        diff += d
    return {"i": i, "score": score, "diff": diff}


def run(args) -> None:
    tasks = [(args.variant, args.spec, args.opponent, args.seed, i) for i in range(args.start, args.start + args.deals)]
    with open(args.out, "w") as f, mp.get_context("spawn").Pool(args.jobs) as pool:
        for n, r in enumerate(pool.imap(_deal, tasks), 1):
            f.write(json.dumps(r) + "\n")
            f.flush()
            print(f"\r{n}/{len(tasks)} deals", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)


def summary(args) -> None:
    files = [{r["i"]: r for r in map(json.loads, open(fn))} for fn in args.files]
    base = files[0]
    for fn, rs in zip(args.files, files):
        common = sorted(set(base) & set(rs))
        n = len(common)
        score = sum(rs[i]["score"] for i in common) / (2 * n)
        _, lo, hi = mean_interval([rs[i]["score"] / 2 for i in common])
        line = (f"{fn}: {n} deals, score {100 * score:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}], "
                f"points a game {sum(rs[i]['diff'] for i in common) / (2 * n):+.2f}")
        if rs is not base:
            m, lo, hi = mean_interval([(rs[i]["score"] - base[i]["score"]) / 2 for i in common])
            line += f", paired with {args.files[0]}: {100 * m:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]"
        print(line)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("variant", choices=("default", "model", "hand"))
    r.add_argument("--spec", default="ismcts:1000")
    r.add_argument("--opponent", default="greedy")
    r.add_argument("--deals", type=int, default=150)
    r.add_argument("--start", type=int, default=0)
    r.add_argument("--seed", type=int, default=2026)
    r.add_argument("--jobs", type=int, default=2)
    r.add_argument("--out", required=True)
    s = sub.add_parser("summary")
    s.add_argument("files", nargs="+")
    args = ap.parse_args(argv)
    print(f"$ python benchmarks/scopa_ceiling.py {' '.join(sys.argv[1:] if argv is None else argv)}", flush=True)
    run(args) if args.cmd == "run" else summary(args)


if __name__ == "__main__":
    main()
