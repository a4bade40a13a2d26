"""cavallo_env.vector against the AEC envs, bit for bit, and its two paths (core, Python) against each other.

Seeded tables are played through ``BatchedEnv`` and through one raw AEC env a
table, from the same deals with the same actions (chosen by numpy from the
mask): at every step the seat to act, its observation and mask, every seat's
rewards and done are compared byte for byte, through autoresets (the next
deal, dealt by the batched env from ``deal_seeds``, is given to the AEC env).
The ``core`` cases skip when the compiled core is not built, unless
``CAVALLO_REQUIRE_CORE=1`` (CI) turns that skip into a failure; the
``python`` cases (``CAVALLO_CORE=python``'s path) always run.
"""

from __future__ import annotations

import os
import random

import numpy as np
import pytest

from cavallo_env import core, games
from cavallo_env.vector import BatchedEnv


def _backend(name: str) -> str:
    if name == "core" and not core.available():
        if os.environ.get("CAVALLO_REQUIRE_CORE") == "1":
            raise ImportError(f"CAVALLO_REQUIRE_CORE=1 but {core.missing_reason()}")
        pytest.skip(core.missing_reason())
    return name


# (game, AEC env keywords) played by the differential test
CASES = [
    ("briscola", {"reward": "points", "deck": "milanesi"}),
    ("briscola", {"reward": "win", "deck": "bresciane"}),
    ("cavalloicera", {"reward": "points"}),
    ("cavalloicera", {"reward": "win"}),
    ("scopa", {"reward": "win", "deck": "milanesi", "match": True}),
    ("scopa", {"reward": "points", "deck": "bresciane", "match": True}),
    ("scopa", {"reward": "points", "deck": "milanesi", "match": False}),
]


def _ids(game: str, env):
    """The deal a raw AEC env just started, in the tables' ``reset_deals`` form: (ids, leader or dealer)."""
    if game == "briscola":
        s = env.core
        (h0, h1), trump, stock, leader = s.initial
        return [*h0, *h1, trump, *stock], leader
    if game == "cavalloicera":
        s = env.core.state
        return [c for h in s.initial_hands for c in h] + list(s.initial_table), s.dealer
    d = env.core.state.deal
    return [*d.initial_hands[0], *d.initial_hands[1], *d.initial_table, *d.initial_stock], d.dealer


def _engine_state(game: str, seed: int, kw: dict):
    """The engine's random deal from ``seed`` (what the tables deal with rng="python")."""
    if game == "briscola":
        from cavallo_env.briscola.engine import random_deal

        return random_deal(seed, kw["deck"])
    if game == "cavalloicera":
        from cavallo_env.cavalloicera.engine import CavalloiceraState, random_deal

        return CavalloiceraState(*random_deal(seed))
    from cavallo_env.scopa.engine import random_state

    return random_state(seed, kw["deck"], kw["match"])


def _restart(game: str, env, seed: int, kw: dict) -> None:
    """Start the AEC env from the deal ``seed`` gives (and, Scopa, its generator for the later deals)."""
    state = _engine_state(game, seed, kw)
    record = games.get(game).to_record(state)
    if game == "scopa":
        deal = {k: record["deals"][0][k] for k in ("dealer", "hands", "table", "stock")}
    else:
        keys = ("hands", "trump", "stock", "leader") if game == "briscola" else ("dealer", "hands", "table")
        deal = {k: record[k] for k in keys}
    env.reset(options={"deal": deal})
    if game == "scopa":
        env.core.state.rng = state.rng


def _compare_turn(venv, envs, obs, mask, seat):
    for i, env in enumerate(envs):
        agent = env.agent_selection
        assert seat[i] == env.possible_agents.index(agent), f"table {i}: seat"
        o = env.observe(agent)
        assert obs[i].tobytes() == o["observation"].tobytes(), f"table {i}: observation"
        assert np.array_equal(mask[i], o["action_mask"].astype(bool)), f"table {i}: mask"


@pytest.mark.parametrize("backend", ["core", "python"])
@pytest.mark.parametrize("game,kw", CASES, ids=[f"{g}-{'-'.join(map(str, k.values()))}" for g, k in CASES])
def test_batched_env_matches_the_aec_env(game, kw, backend):
    n, steps = (24, 700) if backend == "core" else (8, 300)
    g = games.get(game)
    envs = [g.raw_env(**kw) for _ in range(n)]
    firsts, ids, later = [], [], []
    for i, env in enumerate(envs):
        env.reset(seed=1000 + i)
        if game == "scopa":  # the later deals of a match: a generator both sides seed the same
            env.core.state.rng = random.Random(77 + i)
            later.append(77 + i)
        deal, first = _ids(game, env)
        ids.append(deal)
        firsts.append(first)
    options = {k: v for k, v in kw.items() if k != "reward"}
    venv = BatchedEnv(game, n, reward=kw["reward"], rng="python", seed=5, backend=_backend(backend), **options)
    deals = {"ids": np.array(ids), ("leaders" if game == "briscola" else "dealers"): np.array(firsts)}
    if game == "scopa":
        deals["seeds"] = np.array(later)
    obs, mask, seat = venv.reset(options={"deals": deals})
    rng = np.random.default_rng(3)
    ended = 0
    for _ in range(steps):
        _compare_turn(venv, envs, obs, mask, seat)
        actions = (rng.random(mask.shape) * mask).argmax(axis=1)
        obs, mask, seat, rewards, done = venv.step(actions)
        for i, env in enumerate(envs):
            env.step(int(actions[i]))
            expected = [env.rewards[a] for a in env.possible_agents]
            assert rewards[i].tolist() == expected, f"table {i}: rewards"
            assert bool(done[i]) == all(env.terminations.values()), f"table {i}: done"
            if done[i]:
                ended += 1
                _restart(game, env, int(venv.deal_seeds[i]), kw)
    assert ended >= n  # every table went through an autoreset at least once, on average


@pytest.mark.parametrize("game,bots", [("briscola", {1: "random"}), ("cavalloicera", {1: "random", 3: "random"}),
                                       ("cavalloicera", [None, "random", "random", "random"]),
                                       ("scopa", {0: "random"})])
def test_core_and_python_paths_give_the_same_arrays(game, bots):
    """With rng="python" the core and the Python engines deal, draw the random bots' moves and step the
    same: every array of every step identical (learner actions from numpy, bots in the tables)."""
    _backend("core")
    n = 12
    envs = [BatchedEnv(game, n, bots=bots, rng="python", seed=11, backend=b) for b in ("core", "python")]
    outs = [e.reset() for e in envs]
    rng = np.random.default_rng(0)
    learners = set(envs[0].learner_seats)
    for _ in range(300):
        for x, y in zip(*outs):
            assert x.tobytes() == y.tobytes()
        assert set(outs[0][2].tolist()) <= learners
        actions = (rng.random(outs[0][1].shape) * outs[0][1]).argmax(axis=1)
        outs = [tuple(x.copy() for x in e.step(actions)) for e in envs]
    assert np.array_equal(envs[0].deal_seeds, envs[1].deal_seeds)


def test_vector_speed_benchmark_runs(capsys):
    _backend("core")
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parent.parent / "benchmarks" / "vector_speed.py"
    spec = importlib.util.spec_from_file_location("vector_speed", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--game", "all", "--seconds", "0.02", "--rounds", "1", "--tables", "16", "--py-tables", "2"]) == 0
    out = capsys.readouterr().out
    for game in ("briscola", "cavalloicera", "scopa"):
        assert f"{game}: random legal play" in out
    assert out.count("tables/python") == 3 and out.count("decisions/s with observation + mask") == 3


BOT_CASES = [("briscola", {1: "greedy"}), ("briscola", {0: "heuristic"}),
             ("cavalloicera", {1: "greedy", 2: "random", 3: "greedy"}), ("cavalloicera", {0: "heuristic", 2: "heuristic"}),
             ("scopa", {1: "greedy"}), ("scopa", {0: "heuristic"})]


@pytest.mark.parametrize("game,bots", BOT_CASES)
def test_core_bots_and_their_python_twins_give_the_same_arrays(game, bots):
    """The greedy and heuristic bots inside the core tables (``bot_actions``) and on the Python path (the
    Python bots, ``bots.make``) play the same moves: every array of every step identical.  A core built
    without its bots refuses them when the env is made, saying so."""
    _backend("core")
    from cavallo_env.vector.games import spec

    options = {} if game == "cavalloicera" else {"deck": "milanesi", "match": True} if game == "scopa" else {"deck": "milanesi"}
    if not hasattr(spec(game).make(1, "win", "fast", options, "core"), "bot_actions"):
        with pytest.raises(ValueError, match="cannot play inside these tables"):
            BatchedEnv(game, 2, bots=bots, backend="core")
        return
    n = 8
    envs = [BatchedEnv(game, n, bots=bots, rng="python", seed=13, backend=b) for b in ("core", "python")]
    outs = [e.reset() for e in envs]
    rng = np.random.default_rng(1)
    for _ in range(150):
        for x, y in zip(*outs):
            assert x.tobytes() == y.tobytes()
        actions = (rng.random(outs[0][1].shape) * outs[0][1]).argmax(axis=1)
        outs = [tuple(x.copy() for x in e.step(actions)) for e in envs]
