"""How much faster is the compiled core?  Random legal play, Python engine vs the core, one run.

``--game briscola`` (the default) or ``--game scopa``.

Measures, each for ``--seconds`` per round over ``--rounds`` interleaved
rounds, on one core (the core steps its tables in one thread):

- ``python``     the Python engine, the fastest pure-Python way: ``random_deal``
                 then ``random_playout`` (random legal cards), deal after deal;
- ``core``       the core's batched API (``BriscolaTables``, ``rng="fast"``):
                 ``--tables`` deals at once, ``reset(seeds)`` then 40 x
                 ``step(random_actions())`` (random legal cards chosen inside
                 the core, from each table's splitmix64 stream);
- ``core+obs``   the same, plus the ``briscola-obs/1`` observation of the seat
                 to play and the legal mask after every step (what a batched
                 env hands a policy);
- ``core-py``    ``core`` with ``rng="python"``: every deal and card exactly
                 the Python engine's (``random_deal(seed)``, ``random_playout``),
                 which costs Python's Mersenne Twister seeding (microseconds) a deal.

A Briscola deal is 40 decisions.  For ``--game scopa`` a deal is one single
deal (``match=False``): ``python`` is ``random_state(seed, match=False)`` then
``random_playout(state, state.rng)`` (36 moves); ``core`` steps
``ScopaTables(n, match=False)`` with ``random_actions()`` until every table is
done (36 moves a deal plus the take actions of the captures with a choice,
each one decision); ``core-py`` is its ``rng="python"`` twin (every move
``random_playout``'s); ``core+obs`` also writes the ``scopa-obs/1``
observation of the seat to act after every step.  Times are CPU seconds of this process
(``time.process_time``; ``--wall`` for the wall clock); each figure is the
best round (the machine may be shared).  The ratio compares figures of the
same run; the issue's target is ``core`` >= 25x ``python``.

Usage::

    python benchmarks/core_speed.py [--game briscola|scopa] [--seconds 1] [--rounds 3] [--tables 1024] [--json]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time

import numpy as np

TARGET_RATIO = 25.0  # core deals/s over the Python engine's (issue 41)
MOVES = 40  # decisions in a Briscola deal
_clock = time.process_time


def python_loop(seconds: float) -> tuple[int, float]:
    """Deals played by the Python engine in ``seconds``: (deals, elapsed)."""
    from cavallo_env.briscola.engine import random_deal, random_playout

    seed = deals = 0
    t0 = _clock()
    deadline = t0 + seconds
    while _clock() < deadline:
        for _ in range(50):
            rng = random.Random(seed)
            random_playout(random_deal(rng), rng)
            seed += 1
        deals += 50
    return deals, _clock() - t0


def core_loop(seconds: float, n: int, observe: bool = False, rng: str = "fast") -> tuple[int, float]:
    """Deals played by ``n`` core tables at once in ``seconds``: (deals, elapsed)."""
    from cavallo_env.core.briscola import BriscolaTables

    tables = BriscolaTables(n, rng=rng)
    seeds = np.arange(n, dtype=np.uint64)
    deals = 0
    t0 = _clock()
    deadline = t0 + seconds
    while _clock() < deadline:
        tables.reset(seeds)
        for _ in range(MOVES):
            tables.step(tables.random_actions())
            if observe:
                tables.observe()  # the mask is written by step
        seeds += np.uint64(n)
        deals += n
    return deals, _clock() - t0


SCOPA_MOVES = 36  # moves in a Scopa deal (the Python engine's decisions)


def scopa_python_loop(seconds: float) -> tuple[int, float, int]:
    """Single Scopa deals played by the Python engine in ``seconds``: (deals, elapsed, moves)."""
    from cavallo_env.scopa.engine import random_playout, random_state

    seed = deals = 0
    t0 = _clock()
    deadline = t0 + seconds
    while _clock() < deadline:
        for _ in range(20):
            state = random_state(seed, match=False)
            random_playout(state, state.rng)
            seed += 1
        deals += 20
    return deals, _clock() - t0, deals * SCOPA_MOVES


def scopa_core_loop(seconds: float, n: int, rng: str = "fast", observe: bool = False) -> tuple[int, float, int]:
    """Single Scopa deals played by ``n`` core tables at once: (deals, elapsed, actions)."""
    from cavallo_env.core.scopa import ScopaTables

    tables = ScopaTables(n, match=False, rng=rng)
    seeds = np.arange(n, dtype=np.uint64)
    deals = decisions = 0
    done = tables.done
    t0 = _clock()
    deadline = t0 + seconds
    while _clock() < deadline:
        tables.reset(seeds)
        while not done.all():
            tables.step(tables.random_actions())
            if observe:
                tables.observe()  # the mask is written by step
        decisions += int(tables._tables.decisions())
        seeds += np.uint64(n)
        deals += n
    return deals, _clock() - t0, decisions


def run(seconds: float, rounds: int, n: int, game: str = "briscola") -> dict:
    if game == "scopa":
        loops = {"python": lambda: scopa_python_loop(seconds), "core": lambda: scopa_core_loop(seconds, n),
                 "core+obs": lambda: scopa_core_loop(seconds, n, observe=True),
                 "core-py": lambda: scopa_core_loop(seconds, n, rng="python")}
    else:
        def counted(loop):
            def f():
                deals, dt = loop()
                return deals, dt, deals * MOVES
            return f
        loops = {"python": counted(lambda: python_loop(seconds)), "core": counted(lambda: core_loop(seconds, n)),
                 "core+obs": counted(lambda: core_loop(seconds, n, observe=True)),
                 "core-py": counted(lambda: core_loop(seconds, n, rng="python"))}
    best: dict[str, dict] = {}
    for _ in range(rounds):
        for name, loop in loops.items():
            deals, dt, decisions = loop()
            row = {"deals_per_s": deals / dt, "decisions_per_s": decisions / dt, "deals": deals}
            if name not in best or row["deals_per_s"] > best[name]["deals_per_s"]:
                best[name] = row
    base = best["python"]["deals_per_s"]
    ratios = {name: row["deals_per_s"] / base for name, row in best.items() if name != "python"}
    return {"game": game, "seconds": seconds, "rounds": rounds, "tables": n, "clock": _clock.__name__,
            "python": platform.python_version(), "machine": platform.machine(), "results": best,
            "ratios": ratios, "target": TARGET_RATIO, "ok": ratios["core"] >= TARGET_RATIO}


def print_table(report: dict) -> None:
    print(f"{report['game']}: random legal play, best of {report['rounds']} rounds x {report['seconds']:g} s of "
          f"{report['clock']}, {report['tables']} core tables (Python {report['python']}, {report['machine']})")
    print(f"{'':10} {'deals/s':>12} {'decisions/s':>13} {'x python':>9}")
    for name, row in report["results"].items():
        ratio = report["ratios"].get(name, 1.0)
        print(f"{name:10} {row['deals_per_s']:12.0f} {row['decisions_per_s']:13.0f} {ratio:8.1f}x")
    mark = "ok" if report["ok"] else "MISSED"
    print(f"\ncore/python {report['ratios']['core']:8.1f}x  target >= {report['target']:g}x  {mark}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--game", choices=("briscola", "scopa"), default="briscola", help="the game (default briscola)")
    p.add_argument("--seconds", type=float, default=1.0, help="seconds per measurement and round (default 1)")
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds; the best is kept (default 3)")
    p.add_argument("--tables", type=int, default=1024, help="core tables stepped at once (default 1024)")
    p.add_argument("--wall", action="store_true", help="time with the wall clock instead of this process's CPU time")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    a = p.parse_args(argv)
    from cavallo_env import core

    if not core.available():
        print(f"core_speed: {core.missing_reason()}", file=sys.stderr)
        return 2
    if a.wall:
        global _clock
        _clock = time.perf_counter
    report = run(a.seconds, a.rounds, a.tables, a.game)
    if a.json:
        json.dump(report, sys.stdout, indent=1)
        print()
    else:
        print_table(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
