"""How much faster are the fixed bots and the heuristic prior in the compiled core?  Python vs core, one run.

For every game (``--game``, default all three) and every piece in the core
(``greedy``, ``heuristic``, ``prior``), decisions per second on positions of random play:

- ``python``: the Python code training calls, one position at a time: the
  greedy bot through its view (``bots.make("greedy").choose(make_view(...))``,
  as ``training/rollout.py`` plays it), the heuristic's move and the prior
  straight from the state (``<game>.prior.heuristic_move`` and
  ``action_prior``);
- ``core``: ``tables.bot_actions(bot)`` / ``tables.prior()`` over
  ``--tables`` tables at once (``rng="fast"``); a decision is a table not
  done.

Both sides walk deals by random legal play (the core's ``random_actions()``;
the Python side mirrors the same actions on the engine, ``rng="python"``
tables so both see the same deals) and only the bot or prior calls are
timed, in CPU seconds of this process (``time.process_time``), best of
``--rounds`` rounds of ``--seconds`` each.  The ratio compares figures of the
same run.

Usage::

    python benchmarks/bots_speed.py [--game briscola|cavalloicera|scopa] [--seconds 1] [--rounds 3] [--tables 1024] [--json]
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time

import numpy as np

GAMES = ("briscola", "cavalloicera", "scopa")
PIECES = ("greedy", "heuristic", "prior")
_clock = time.process_time


# ---------------------------------------------------------------- the games' Python sides


def _briscola():
    from cavallo_env.briscola.engine import random_deal
    from cavallo_env.briscola.prior import action_prior, heuristic_move
    from cavallo_env.core.briscola import BriscolaTables

    def start(seeds):
        return [random_deal(s) for s in seeds]

    def step(state, a):
        state.play(a)

    return BriscolaTables, start, step, (lambda st: st), heuristic_move, action_prior


def _scopa():
    from cavallo_env.core.scopa import ScopaTables
    from cavallo_env.scopa.actions import ScopaActions
    from cavallo_env.scopa.engine import random_state
    from cavallo_env.scopa.prior import action_prior, heuristic_move

    def tables(n, rng="python"):
        return ScopaTables(n, match=False, rng=rng)

    def start(seeds):
        return [ScopaActions(random_state(s, match=False)) for s in seeds]

    return tables, start, (lambda acts, a: acts.step(a)), (lambda acts: acts.state), heuristic_move, action_prior


def _cavalloicera():
    from cavallo_env.cavalloicera.actions import CavalloiceraActions
    from cavallo_env.cavalloicera.engine import CavalloiceraState, random_deal
    from cavallo_env.cavalloicera.prior import action_prior, heuristic_move
    from cavallo_env.core.cavalloicera import CavalloiceraTables

    def start(seeds):
        return [CavalloiceraActions(CavalloiceraState(*random_deal(s))) for s in seeds]

    return (CavalloiceraTables, start, (lambda acts, a: acts.step(a)), (lambda acts: acts.state), heuristic_move,
            action_prior)


SIDES = {"briscola": _briscola, "scopa": _scopa, "cavalloicera": _cavalloicera}


# ---------------------------------------------------------------- timing


def python_rate(game: str, piece: str, seconds: float, seed: int) -> float:
    """Decisions/s of the Python ``piece`` on positions of random play (64 deals at a time)."""
    from cavallo_env import games
    from cavallo_env.bots import make

    make_tables, start, step, state_of, heuristic, prior = SIDES[game]()
    rules = games.get(game)
    greedy = make("greedy", game=game)
    call = {"greedy": lambda g: greedy.choose(rules.make_view(state_of(g), state_of(g).current)),
            "heuristic": heuristic, "prior": prior}[piece]
    spent, done = 0.0, 0
    while spent < seconds:
        seeds = list(range(seed, seed + 64))
        seed += 64
        tables = make_tables(64, rng="python")
        tables.reset(seeds)
        deals = start(seeds)
        while not tables.done.all():
            live = [g for g, d in zip(deals, tables.done) if not d]
            t0 = _clock()
            for g in live:
                call(g)
            spent += _clock() - t0
            done += len(live)
            actions = tables.random_actions()
            for g, a in zip(deals, actions.tolist()):
                if a >= 0:
                    step(g, a)
            tables.step(actions)
    return done / spent


def core_rate(game: str, piece: str, seconds: float, n: int, seed: int) -> float:
    """Decisions/s of the core's ``piece`` over ``n`` tables at once, on positions of random play."""
    make_tables = SIDES[game]()[0]
    tables = make_tables(n, rng="fast")
    call = tables.prior if piece == "prior" else (lambda: tables.bot_actions(piece))
    spent, done = 0.0, 0
    while spent < seconds:
        tables.reset(np.arange(seed, seed + n, dtype=np.uint64))
        seed += n
        while not tables.done.all():
            live = int(n - tables.done.sum())
            t0 = _clock()
            call()
            spent += _clock() - t0
            done += live
            tables.step(tables.random_actions())
    return done / spent


def measure(games_: tuple, seconds: float, rounds: int, n: int) -> list[dict]:
    rows = []
    for game in games_:
        for piece in PIECES:
            py = max(python_rate(game, piece, seconds, 1000 * r) for r in range(rounds))
            core = max(core_rate(game, piece, seconds, n, 10**6 * (r + 1)) for r in range(rounds))
            rows.append({"game": game, "bot": piece, "python": py, "core": core, "ratio": core / py})
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", choices=GAMES, action="append", help="a game (repeatable; default: all three)")
    ap.add_argument("--seconds", type=float, default=1.0, help="CPU seconds of timed calls per round (default 1)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds; each figure is the best (default 3)")
    ap.add_argument("--tables", type=int, default=1024, help="core tables at once (default 1024)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    if args.seconds <= 0 or args.rounds < 1 or args.tables < 1:
        ap.error("--seconds must be > 0, --rounds and --tables >= 1")
    from cavallo_env import core

    if not core.available():
        print(core.missing_reason(), file=sys.stderr)
        return 1
    rows = measure(tuple(args.game or GAMES), args.seconds, args.rounds, args.tables)
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    print(f"bots: decisions/s on positions of random play, best of {args.rounds} rounds x {args.seconds:g} s of "
          f"process_time, {args.tables} core tables (Python {platform.python_version()}, {platform.machine()})")
    print(f"{'game':<14}{'bot':<11}{'python':>12}{'core':>14}{'x python':>10}")
    for r in rows:
        print(f"{r['game']:<14}{r['bot']:<11}{r['python']:>12.0f}{r['core']:>14.0f}{r['ratio']:>9.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
