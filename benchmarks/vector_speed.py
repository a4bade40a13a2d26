"""How fast is the batched env (``cavallo_env.vector``)?  Random legal play, one run, one core.

``--game briscola`` (the default), ``cavalloicera``, ``scopa`` or ``all``.
Measures, each for ``--seconds`` per round over ``--rounds`` interleaved
rounds (the best round kept; CPU seconds of this process, ``--wall`` for the
wall clock):

- ``python``       the Python engine's fastest random play: a random deal,
                   then ``random_playout`` (random legal moves), deal after deal;
- ``tables``       the core's batched API without observations:
                   ``--tables`` tables, ``step(random_actions())``, the
                   finished ones dealt again (``reset(seeds, where=done)``);
                   the engine random-play ratio (target >= 25x ``python``);
- ``vector``       ``BatchedEnv(game, --tables)`` on the core (``rng="fast"``):
                   every step hands back the observation and the mask of the
                   seat to act at every table (the learner plays every seat;
                   its actions are the tables' random legal actions), with
                   autoreset: the targets are decisions/s (>= 500k Briscola,
                   >= 200k Cavalloìcera and Scopa);
- ``vector+bots``  the same with the learner at seat 0 and ``--bot`` bots
                   (default ``random``) at the other seats inside the tables: decisions/s counts every
                   action played (learner's and bots'), ``learner/s`` the
                   learner's (an observation each);
- ``vector-py``    ``vector`` on the Python engines (``backend="python"``,
                   ``CAVALLO_CORE=python``'s path), ``--py-tables`` tables.

A decision is one action (a capture built card by card in Cavalloìcera and
Scopa is several); the Python engine counts moves, so ratios compare deals/s.
Scopa plays single deals (``match=False``) here, so a deal is an episode.

Usage::

    python benchmarks/vector_speed.py [--game briscola|cavalloicera|scopa|all] [--seconds 1] [--rounds 3]
        [--tables 1024] [--py-tables 32] [--bot random|greedy|heuristic] [--json]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time

import numpy as np

GAMES = ("briscola", "cavalloicera", "scopa")
TARGET_RATIO = 25.0  # tables deals/s over the Python engine's (issue 41)
TARGET_DECISIONS = {"briscola": 500_000, "cavalloicera": 200_000, "scopa": 200_000}  # vector decisions/s
_clock = time.process_time


def _python_deal(game: str, seed: int) -> int:
    """One random deal played by the Python engine; its number of moves."""
    rng = random.Random(seed)
    if game == "briscola":
        from cavallo_env.briscola.engine import random_deal, random_playout

        state = random_playout(random_deal(rng), rng)
        return len(state.moves)
    if game == "cavalloicera":
        from cavallo_env.cavalloicera.engine import CavalloiceraState, random_playout

        state = CavalloiceraState.new(seed)
        random_playout(state, rng)
        return len(state.moves)
    from cavallo_env.scopa.engine import random_playout, random_state

    state = random_state(seed, match=False)
    random_playout(state, state.rng)
    return len(state.deal.moves)


def python_loop(game: str, seconds: float) -> tuple[int, int, float]:
    """(deals, decisions, elapsed) of the Python engine in ``seconds``."""
    deals = decisions = 0
    t0 = _clock()
    while _clock() < t0 + seconds:
        for _ in range(20):
            decisions += _python_deal(game, deals)
            deals += 1
    return deals, decisions, _clock() - t0


def tables_loop(game: str, seconds: float, n: int) -> tuple[int, int, float]:
    """(deals, decisions, elapsed) of ``n`` core tables stepped with random actions, no observation."""
    from cavallo_env.vector.games import spec

    s = spec(game)
    options = {"deck": "milanesi"} if s.decks else {}
    if s.has_match:
        options["match"] = False
    tables = s.make(n, s.rewards[0], "fast", options, "core")
    seeds = np.random.default_rng(0).integers(0, 2**63, n, dtype=np.uint64)
    s.reset(tables, seeds, None, options)
    deals = decisions = 0
    t0 = _clock()
    while _clock() < t0 + seconds:
        for _ in range(50):
            _, done = tables.step(tables.random_actions())
            decisions += n
            if done.any():
                deals += int(done.sum())
                seeds += np.uint64(n)
                s.reset(tables, seeds, done.copy(), options)
    return deals, decisions, _clock() - t0


def vector_loop(game: str, seconds: float, n: int, bots=None, backend: str = "core") -> tuple[int, int, float, int]:
    """(deals, decisions, elapsed, learner decisions) of ``BatchedEnv`` with random learner actions."""
    from cavallo_env.vector import BatchedEnv

    options = {"match": False} if game == "scopa" else {}
    env = BatchedEnv(game, n, bots=bots, rng="fast", seed=0, backend=backend, **options)
    env.reset()
    played = _count_actions(env) if bots else None
    deals = learner = 0
    t0 = _clock()
    while _clock() < t0 + seconds:
        for _ in range(10):
            obs, mask, seat, rewards, done = env.step(env.tables.random_actions())
            learner += n
            deals += int(done.sum())
    return deals, played[0] if bots else learner, _clock() - t0, learner


def _count_actions(env) -> list:
    """``[n]``: every action the tables play (learner's and bots'), counted by wrapping their ``step``."""
    count = [0]
    step = env.tables.step

    def counted(actions):
        count[0] += int((actions >= 0).sum())
        return step(actions)

    env.tables.step = counted
    return count


def run_game(game: str, seconds: float, rounds: int, n: int, py_n: int, bot: str = "random") -> dict:
    bots = {s: bot for s in range(1, 4 if game == "cavalloicera" else 2)}
    loops = {
        "python": lambda: python_loop(game, seconds),
        "tables": lambda: tables_loop(game, seconds, n),
        "vector": lambda: vector_loop(game, seconds, n),
        "vector+bots": lambda: vector_loop(game, seconds, n, bots=bots),
        "vector-py": lambda: vector_loop(game, seconds, py_n, backend="python"),
    }
    best: dict[str, dict] = {}
    for _ in range(rounds):
        for name, loop in loops.items():
            deals, decisions, dt, *learner = loop()
            row = {"deals_per_s": deals / dt, "decisions_per_s": decisions / dt, "deals": deals}
            if learner:
                row["learner_per_s"] = learner[0] / dt
            if name not in best or row["decisions_per_s"] > best[name]["decisions_per_s"]:
                best[name] = row
    base = best["python"]["deals_per_s"]
    ratios = {name: row["deals_per_s"] / base for name, row in best.items()}
    return {"game": game, "tables": n, "py_tables": py_n, "bot": bot, "results": best, "ratios": ratios,
            "target_ratio": TARGET_RATIO, "target_decisions": TARGET_DECISIONS[game],
            "ok_ratio": ratios["tables"] >= TARGET_RATIO,
            "ok_decisions": best["vector"]["decisions_per_s"] >= TARGET_DECISIONS[game]}


def print_report(report: dict) -> None:
    print(f"{report['game']}: random legal play, best of {report['rounds']} rounds x {report['seconds']:g} s of "
          f"{report['clock']}, {report['tables']} tables ({report['py_tables']} for vector-py), {report['bot']} bots, "
          f"Python {report['python']}, {report['machine']}")
    print(f"{'':12} {'deals/s':>10} {'decisions/s':>12} {'learner/s':>10} {'x python':>9}")
    for name, row in report["results"].items():
        learner = f"{row['learner_per_s']:10.0f}" if "learner_per_s" in row else f"{'':>10}"
        print(f"{name:12} {row['deals_per_s']:10.0f} {row['decisions_per_s']:12.0f} {learner} "
              f"{report['ratios'][name]:8.1f}x")
    ratio, vec = report["ratios"]["tables"], report["results"]["vector"]["decisions_per_s"]
    print(f"tables/python {ratio:6.1f}x   target >= {report['target_ratio']:g}x  {'ok' if report['ok_ratio'] else 'MISSED'}")
    print(f"vector {vec:10.0f} decisions/s with observation + mask   target >= {report['target_decisions']:,}  "
          f"{'ok' if report['ok_decisions'] else 'MISSED'}\n")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--game", choices=(*GAMES, "all"), default="briscola", help="the game, or all (default briscola)")
    p.add_argument("--seconds", type=float, default=1.0, help="seconds per measurement and round (default 1)")
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds; the best is kept (default 3)")
    p.add_argument("--tables", type=int, default=1024, help="tables stepped at once (default 1024)")
    p.add_argument("--py-tables", type=int, default=32, help="tables of the Python path, vector-py (default 32)")
    p.add_argument("--bot", default="random", help="the bots of vector+bots, a cavallo_env.vector.BOTS name "
                   "(default random)")
    p.add_argument("--wall", action="store_true", help="time with the wall clock instead of this process's CPU time")
    p.add_argument("--json", action="store_true", help="print the reports as JSON")
    a = p.parse_args(argv)
    from cavallo_env import core

    if not core.available():
        print(f"vector_speed: {core.missing_reason()}", file=sys.stderr)
        return 2
    if a.seconds <= 0 or a.rounds < 1 or a.tables < 1 or a.py_tables < 1:
        p.error("--seconds must be > 0 and --rounds, --tables, --py-tables >= 1")
    if a.wall:
        global _clock
        _clock = time.perf_counter
    reports = []
    games = GAMES if a.game == "all" else (a.game,)
    try:  # a bot these tables lack (or an unknown one) is refused here, in words
        from cavallo_env.vector import BatchedEnv

        for game in games:
            BatchedEnv(game, 1, bots={1: a.bot}, backend="core")
    except ValueError as e:
        print(f"vector_speed: {e}", file=sys.stderr)
        return 2
    for game in games:
        report = run_game(game, a.seconds, a.rounds, a.tables, a.py_tables, a.bot)
        report.update(seconds=a.seconds, rounds=a.rounds, clock=_clock.__name__,
                      python=platform.python_version(), machine=platform.machine())
        reports.append(report)
        if not a.json:
            print_report(report)
    if a.json:
        json.dump(reports, sys.stdout, indent=1)
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
