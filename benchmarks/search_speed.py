"""Python vs compiled-core ISMCTS, ms per decision: ``python benchmarks/search_speed.py [spec] [--deals N] [--game G ...]``.

Collects the positions with a choice of ``--deals`` deals of each game
(heuristic against heuristic; Scopa: single deals) and times the same
decisions twice in one run: with ``engine=python`` (the Python search) and
with the default engine (the compiled core's search where the game has one
and the core is built; else Python again, marked "no core search").  Prints
the mean and median ms per decision, the ratio, and in how many decisions
the two played the same move (Briscola's core search runs on its own random
numbers: the same search, not always the same move; Cavalloìcera's draws the
Python search's numbers: always the same move).  Wall-clock times on a
shared machine are noisy: compare the ratio within one run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from cavallo_env import core, games
from cavallo_env.bots import make
from cavallo_env.evaluation import derive_seed

OPTIONS = {"scopa": {"match": False}}


def positions(game, deals: int) -> list:
    """The views with a choice met in ``deals`` deals of heuristic against heuristic."""
    bot = make("heuristic", seed=1, game=game.name)
    out = []
    for d in range(deals):
        state = game.new_state(derive_seed("deal", "search_speed", d), **OPTIONS.get(game.name, {}))
        while not state.done:
            view = game.make_view(state, state.current)
            if len(view["legal_moves"]) > 1:
                out.append(view)
            game.play(state, game.move_from_dict(bot.choose(view)))
    return out


def time_spec(spec: str, game, views) -> tuple:
    """The ms of each decision and its answer."""
    bot = make(spec, seed=1, game=game.name)
    ms, answers = [], []
    for view in views:
        t0 = time.perf_counter()
        answers.append(bot.choose(view))
        ms.append(1000 * (time.perf_counter() - t0))
    return ms, answers


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("spec", nargs="?", default="ismcts:1000")
    p.add_argument("--deals", type=int, default=2)
    p.add_argument("--game", action="append", choices=games.names(), help="repeatable (default: every game)")
    args = p.parse_args(argv)
    sep = "," if "," in args.spec or ":" in args.spec else ":"
    for name in args.game or games.names():
        game = games.get(name)
        views = positions(game, args.deals)
        has_core = getattr(type(game.search()), "core_search", None) is not None and core.enabled()
        py, py_moves = time_spec(f"{args.spec}{sep}engine=python", game, views)
        fast, moves = time_spec(args.spec, game, views)
        label = "core" if has_core else "no core search"
        same = sum(a == b for a, b in zip(py_moves, moves))
        print(f"{args.spec} ({name}, {len(views)} decisions, {args.deals} deals): python mean "
              f"{statistics.mean(py):.1f} ms, median {statistics.median(py):.1f} ms; {label} mean "
              f"{statistics.mean(fast):.1f} ms, median {statistics.median(fast):.1f} ms; "
              f"{statistics.mean(py) / statistics.mean(fast):.1f}x; same move {same}/{len(views)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
