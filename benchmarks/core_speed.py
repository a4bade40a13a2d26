"""How much faster is the compiled core?  Random legal play, Python engine vs the core, one run.

``--game briscola`` (the default), ``--game cavalloicera``, ``--game scopa``,
or ``--game all``: the three in one run, each game's table, then one table of
the three ``core``/``python`` ratios against the target.

Measures, each for ``--seconds`` per round over ``--rounds`` interleaved
rounds, on one core (the core steps its tables in one thread):

- ``python``     the Python engine, the fastest pure-Python way: ``random_deal``
                 then ``random_playout`` (random legal cards or moves), deal after deal;
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

Cavalloìcera (``CavalloiceraTables``) steps the env's action ids: a move is
one action, or a capture plus the table cards taken to build it, so its
tables are stepped until every deal is over (``core+obs`` writes the
``cavalloicera-obs/1`` observation after every action).  A Briscola deal is 40 decisions
(moves), a Cavalloìcera deal 48, a single Scopa deal 36 (``match=False``:
``random_state(seed, match=False)`` then ``random_playout(state, state.rng)``;
its core tables are stepped like Cavalloìcera's, a capture with a choice
through its take actions).  Times are CPU seconds of this process
(``time.process_time``; ``--wall`` for the wall clock); each figure is the
best round (the machine may be shared).  The ratio compares figures of the
same run; the issue's target is ``core`` >= 25x ``python``.

Usage::

    python benchmarks/core_speed.py [--game briscola|cavalloicera|scopa|all] [--seconds 1] [--rounds 3] [--tables 1024]
                                    [--json]
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
GAMES = ("briscola", "cavalloicera", "scopa")
MOVES = {"briscola": 40, "cavalloicera": 48, "scopa": 36}  # decisions (moves) in a deal
_clock = time.process_time


def _briscola_deal(seed: int) -> None:
    from cavallo_env.briscola.engine import random_deal, random_playout

    rng = random.Random(seed)
    random_playout(random_deal(rng), rng)


def _cavalloicera_deal(seed: int) -> None:
    from cavallo_env.cavalloicera.engine import CavalloiceraState, random_playout

    random_playout(CavalloiceraState.new(seed), random.Random(seed))


def _scopa_deal(seed: int) -> None:
    from cavallo_env.scopa.engine import random_playout, random_state

    state = random_state(seed, match=False)
    random_playout(state, state.rng)


def python_loop(seconds: float, game: str = "briscola") -> tuple[int, float]:
    """Deals played by the Python engine in ``seconds``: (deals, elapsed)."""
    play = {"briscola": _briscola_deal, "cavalloicera": _cavalloicera_deal, "scopa": _scopa_deal}[game]
    seed = deals = 0
    t0 = _clock()
    deadline = t0 + seconds
    while _clock() < deadline:
        for _ in range(50):
            play(seed)
            seed += 1
        deals += 50
    return deals, _clock() - t0


def _tables(game: str, n: int, rng: str):
    if game == "briscola":
        from cavallo_env.core.briscola import BriscolaTables

        return BriscolaTables(n, rng=rng)
    if game == "scopa":
        from cavallo_env.core.scopa import ScopaTables

        return ScopaTables(n, match=False, rng=rng)
    from cavallo_env.core.cavalloicera import CavalloiceraTables

    return CavalloiceraTables(n, rng=rng)


def core_loop(seconds: float, n: int, observe: bool = False, rng: str = "fast",
              game: str = "briscola") -> tuple[int, float]:
    """Deals played by ``n`` core tables at once in ``seconds``: (deals, elapsed)."""
    tables = _tables(game, n, rng)
    seeds = np.arange(n, dtype=np.uint64)
    deals = 0
    t0 = _clock()
    deadline = t0 + seconds
    while _clock() < deadline:
        tables.reset(seeds)
        if game == "briscola":
            for _ in range(MOVES[game]):
                tables.step(tables.random_actions())
                if observe:
                    tables.observe()  # the mask is written by step
        else:  # captures take one action per table card taken: until every deal is over
            done = tables.done
            while not done.all():
                tables.step(tables.random_actions())
                if observe:
                    tables.observe()
        seeds += np.uint64(n)
        deals += n
    return deals, _clock() - t0


def run(seconds: float, rounds: int, n: int, game: str = "briscola") -> dict:
    loops = {"python": lambda: python_loop(seconds, game), "core": lambda: core_loop(seconds, n, game=game),
             "core+obs": lambda: core_loop(seconds, n, observe=True, game=game),
             "core-py": lambda: core_loop(seconds, n, rng="python", game=game)}
    best: dict[str, dict] = {}
    for _ in range(rounds):
        for name, loop in loops.items():
            deals, dt = loop()
            row = {"deals_per_s": deals / dt, "decisions_per_s": deals * MOVES[game] / dt, "deals": deals}
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


def print_summary(reports: list) -> None:
    """One table: each game's core (rng="fast") and Python engine deals/s and their ratio, against the target."""
    print(f"all games, the same run: core (rng=\"fast\", {reports[0]['tables']} tables) vs the Python engine")
    print(f"{'game':13} {'python':>10} {'core':>11} {'core/python':>12}  target")
    for r in reports:
        ratio = r["ratios"]["core"]
        mark = "ok" if r["ok"] else "MISSED"
        print(f"{r['game']:13} {r['results']['python']['deals_per_s']:10.0f} "
              f"{r['results']['core']['deals_per_s']:11.0f} {ratio:11.1f}x  >= {r['target']:g}x {mark}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--game", choices=(*GAMES, "all"), default="briscola",
                   help="the game to play, or all three in one run (default briscola)")
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
    games = GAMES if a.game == "all" else (a.game,)
    reports = [run(a.seconds, a.rounds, a.tables, game) for game in games]
    if a.json:
        json.dump(reports[0] if len(reports) == 1 else {"games": reports}, sys.stdout, indent=1)
        print()
        return 0
    for report in reports:
        print_table(report)
        print()
    if len(reports) > 1:
        print_summary(reports)
    return 0


if __name__ == "__main__":
    sys.exit(main())
