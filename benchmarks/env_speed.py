"""How fast is the environment?  Random masked play, compared within one run.

Measures, for the game of ``--game`` (cavalloicera, briscola, scopa; Scopa
plays single deals here), each for ``--seconds`` per round over ``--rounds``
interleaved rounds:

- ``engine``      the rules engine alone: uniformly random legal moves on fresh
                  deals through the game layer (one step = one move: 48 per
                  Cavalloìcera deal, 40 per Briscola deal, 36 per Scopa deal);
- ``actions``     (Cavalloìcera) ``CavalloiceraActions`` driven by random legal action ids
                  (one step = one action, capture building included), no observations;
- ``raw_env``     the game's raw env (``cavallo_env.raw_env()``,
                  ``cavallo_env.briscola.raw_env()``, ...) in the standard AEC loop below,
                  on the compiled core where it is built (``CAVALLO_CORE=python``: on the
                  Python engine, the reference);
- ``env``         the game's wrapped env, same loop;
- ``c4_raw`` / ``c4_env``  PettingZoo's ``connect_four_v3`` raw and wrapped, same loop.

The AEC loop is the same for every env (steps count decisions, not the
``step(None)`` calls that retire agents at the end)::

    env.reset()
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        if termination or truncation:
            env.step(None)
            continue
        legal = obs["action_mask"].nonzero()[0]
        env.step(int(legal[int(next_uniform() * len(legal))]))

where ``next_uniform`` reads a precomputed table of uniform numbers, so the
choice costs the same for every env (and little: ``np.flatnonzero`` would add
about 1 us per step to every env alike).  Times are CPU seconds of this
process (``time.process_time``), which the other processes of a shared machine
disturb less than wall-clock time (``--wall`` for the wall clock).  Each figure is the best round (the
machine may be shared); the ratios compare figures from the same run.

Usage::

    python benchmarks/env_speed.py [--game NAME] [--seconds 1] [--rounds 5] [--only NAME ...] [--wall] [--json]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time

import numpy as np

TARGETS = {  # (measured, peer, minimum ratio): the envs run on the compiled core where it is built
    "raw_env": ("c4_raw", 4.0),
    "env": ("c4_env", 2.0),
}
#: engine deals/s each game must reach on one core (issue targets)
MIN_ENGINE_DEALS = {"cavalloicera": 2000.0, "briscola": 6000.0, "scopa": 3000.0}
#: the options of the game benchmarked (Scopa: single deals)
OPTIONS = {"scopa": {"match": False}}

_U = np.random.default_rng(12345).random(1 << 16).tolist()
_clock = time.process_time  # CPU seconds of this process: robust on a shared machine
_UMASK = (1 << 16) - 1


def aec_loop(make, seconds: float) -> tuple[int, int, float]:
    """Play random legal actions for ``seconds``; returns (deals, steps, elapsed)."""
    env = make()
    env.reset(seed=0)
    u, k = _U, 0
    deals = steps = 0
    perf = _clock
    t0 = perf()
    deadline = t0 + seconds
    while True:
        env.reset()
        for _agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                env.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            env.step(int(legal[int(u[k] * len(legal))]))
            k = (k + 1) & _UMASK
            steps += 1
        deals += 1
        if perf() >= deadline:
            break
    return deals, steps, perf() - t0


def engine_loop(seconds: float, game: str = "cavalloicera") -> tuple[int, int, float]:
    from cavallo_env import games

    g = games.get(game)
    options = OPTIONS.get(game, {})
    new_state, play = g.new_state, g.play
    rng = random.Random(0)
    choice = rng.choice
    deals = steps = 0
    perf = _clock
    t0 = perf()
    deadline = t0 + seconds
    while perf() < deadline:
        for _ in range(20):
            state = new_state(rng.getrandbits(64), **options)
            while not state.done:
                play(state, choice(state.legal_moves()))
                steps += 1
        deals += 20
    return deals, steps, perf() - t0


def actions_loop(seconds: float) -> tuple[int, int, float]:
    from cavallo_env.cavalloicera.actions import CavalloiceraActions
    from cavallo_env.cavalloicera.engine import CavalloiceraState

    rng = random.Random(0)
    u, k = _U, 0
    deals = steps = 0
    perf = _clock
    t0 = perf()
    deadline = t0 + seconds
    while perf() < deadline:
        game = CavalloiceraActions(CavalloiceraState.new(rng.getrandbits(64)))
        state = game.state
        while state.turn < 48:
            legal = game.legal_actions()
            game.step(legal[int(u[k] * len(legal))])
            k = (k + 1) & _UMASK
            steps += 1
        deals += 1
    return deals, steps, perf() - t0


def _makers(game: str = "cavalloicera"):
    import functools
    import importlib

    import pettingzoo

    from cavallo_env import games

    g = games.get(game)
    options = OPTIONS.get(game, {})
    # The peer through PettingZoo 1.27's registry (the pettingzoo.classic import
    # path is deprecated): `make` gives the wrapped env; the raw env sits beside
    # the registered entry point in the same module.
    spec = pettingzoo.spec("aec", "classic/connect_four-v3")
    module = importlib.import_module(spec.entry_point.split(":")[0])
    return {
        "raw_env": functools.partial(g.raw_env, **options),
        "env": functools.partial(g.env, **options),
        "c4_raw": module.raw_env,
        "c4_env": lambda: pettingzoo.make("aec", spec),
    }


def run(seconds: float, rounds: int, only=None, game: str = "cavalloicera") -> dict:
    makers = _makers(game)
    names = ["engine", *(["actions"] if game == "cavalloicera" else []), *makers]
    if only:
        names = [n for n in names if n in only]
    best: dict[str, dict] = {}
    for _ in range(rounds):
        for name in names:
            if name == "engine":
                deals, steps, dt = engine_loop(seconds, game)
            elif name == "actions":
                deals, steps, dt = actions_loop(seconds)
            else:
                deals, steps, dt = aec_loop(makers[name], seconds)
            row = {"deals_per_s": deals / dt, "steps_per_s": steps / dt, "us_per_step": 1e6 * dt / steps,
                   "deals": deals, "steps": steps}
            if name not in best or row["steps_per_s"] > best[name]["steps_per_s"]:
                best[name] = row
    ratios = {}
    for name, (peer, need) in TARGETS.items():
        if name in best and peer in best:
            r = best[name]["steps_per_s"] / best[peer]["steps_per_s"]
            ratios[f"{name}/{peer}"] = {"ratio": r, "target": need, "ok": r >= need}
    if "engine" in best:
        d = best["engine"]["deals_per_s"]
        need = MIN_ENGINE_DEALS[game]
        ratios["engine deals/s"] = {"ratio": d, "target": need, "ok": d >= need}
    return {
        "game": game, "seconds": seconds, "rounds": rounds, "clock": _clock.__name__, "python": platform.python_version(),
        "machine": platform.machine(), "results": best, "targets": ratios,
    }


def print_table(report: dict) -> None:
    res = report["results"]
    print(f"{report['game']}: random masked play, best of {report['rounds']} rounds x {report['seconds']:g} s of {report['clock']} "
          f"(Python {report['python']}, {report['machine']})")
    print(f"{'':10} {'deals/s':>10} {'steps/s':>11} {'us/step':>9} {'steps/deal':>11}")
    for name, row in res.items():
        print(f"{name:10} {row['deals_per_s']:10.1f} {row['steps_per_s']:11.0f} {row['us_per_step']:9.2f} "
              f"{row['steps'] / max(row['deals'], 1):11.1f}")
    print()
    for name, t in report["targets"].items():
        mark = "ok" if t["ok"] else "MISSED"
        if name.startswith("engine"):
            print(f"{name:22} {t['ratio']:8.0f}   target >= {t['target']:g}   {mark}")
        else:
            print(f"{name:22} {t['ratio']:8.2f}x  target >= {t['target']:g}x  {mark}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--game", default="cavalloicera", choices=("cavalloicera", "briscola", "scopa"),
                   help="the game to measure (default cavalloicera)")
    p.add_argument("--seconds", type=float, default=1.0, help="seconds per measurement and round (default 1)")
    p.add_argument("--rounds", type=int, default=5, help="interleaved rounds; the best is kept (default 5)")
    p.add_argument("--only", nargs="+", choices=["engine", "actions", "raw_env", "env", "c4_raw", "c4_env"],
                   help="measure only these")
    p.add_argument("--wall", action="store_true", help="time with the wall clock instead of this process's CPU time")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    a = p.parse_args(argv)
    if a.wall:
        global _clock
        _clock = time.perf_counter
    report = run(a.seconds, a.rounds, a.only, a.game)
    if a.json:
        json.dump(report, sys.stdout, indent=1)
        print()
    else:
        print_table(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
