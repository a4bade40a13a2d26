"""The envs' speed-ups change nothing observable.

- ``env()``'s wrappers (``games.cardenv.wrap``: PettingZoo's three classic wrappers, two of them
  subclassed to reach the raw env directly) behave as PettingZoo's own chain, step by step: the
  same ``last()``, rewards, agents, warnings and errors, legal and illegal actions, ``step(None)``
  and the order checks before ``reset``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.utils import wrappers

from cavallo_env import games

GAMES = ["cavalloicera", "briscola", "scopa"]


def plain_wrap(raw):
    """The chain as PettingZoo builds it."""
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(
        wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)))


def same(a, b) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    return a == b and type(a) is type(b)


def outcome(fn):
    """What calling ``fn`` shows: its value, or its exception's type and text, and its warnings."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            value = ("ok", fn())
        except Exception as e:  # noqa: BLE001 - the comparison is the point
            value = ("error", type(e).__name__, str(e))
    return value, [str(x.message) for x in w]


def snapshot(env):
    raw = env.unwrapped
    return (list(raw.agents), dict(raw.rewards), dict(raw._cumulative_rewards), dict(raw.terminations),
            dict(raw.truncations), raw.infos, raw.agent_selection if raw.agents else None)


def play_both(game: str, seed: int, illegal_at: int | None, kwargs: dict):
    """Step our wrapped env and PettingZoo's chain side by side with the same random choices."""
    g = games.get(game)
    ours, theirs = g.env(**kwargs), plain_wrap(g.raw_env(**kwargs))
    assert str(ours) == str(theirs)
    # before reset: PettingZoo's own errors
    assert same(outcome(lambda: ours.last()), outcome(lambda: theirs.last()))
    assert same(outcome(lambda: ours.step(0)), outcome(lambda: theirs.step(0)))
    ours.reset(seed=seed)
    theirs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    n = 0
    for a, b in zip(ours.agent_iter(), theirs.agent_iter()):
        assert a == b
        la, lb = outcome(lambda: ours.last()), outcome(lambda: theirs.last())
        assert same(la, lb)
        obs, _, term, trunc, _ = la[0][1]
        if term or trunc:
            action = None
        elif n == illegal_at:
            action = int(np.flatnonzero(obs["action_mask"] == 0)[0])
        else:
            legal = np.flatnonzero(obs["action_mask"])
            action = int(legal[rng.integers(len(legal))])
        n += 1
        assert same(outcome(lambda: ours.step(action)), outcome(lambda: theirs.step(action)))
        assert same(snapshot(ours), snapshot(theirs))
    assert same(outcome(lambda: ours.step(None)), outcome(lambda: theirs.step(None)))
    assert same(outcome(lambda: ours.step(3)), outcome(lambda: theirs.step(3)))
    return n


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("illegal_at", [None, 0, 7])
def test_the_wrapped_env_behaves_as_pettingzoos_wrappers(game, illegal_at):
    kwargs = {"match": False} if game == "scopa" else {}
    for seed in range(3):
        assert play_both(game, seed, illegal_at, kwargs) > (8 if illegal_at is None else illegal_at)


@pytest.mark.parametrize("game", GAMES)
def test_out_of_bounds_and_misordered_calls_are_pettingzoos_errors(game):
    g = games.get(game)
    ours, theirs = g.env(), plain_wrap(g.raw_env())
    for env in (ours, theirs):
        env.reset(seed=1)
    for action in (-1, 10_000, 1.5, "x"):
        assert same(outcome(lambda: ours.step(action)), outcome(lambda: theirs.step(action)))
    it_a, it_b = iter(ours.agent_iter()), iter(theirs.agent_iter())
    assert next(it_a) == next(it_b)
    # a second next() without a step in between: the order check's AssertionError
    assert same(outcome(lambda: next(it_a)), outcome(lambda: next(it_b)))
    assert same(outcome(lambda: ours.last(observe=False)), outcome(lambda: theirs.last(observe=False)))


# ---------------------------------------------------------------- the raw envs on the compiled core

def _core_built(game: str) -> bool:
    from cavallo_env.games.cardenv import core_extension

    return core_extension(game) is not None


def _needs_core(game: str):
    import os

    if not _core_built(game):
        if os.environ.get("CAVALLO_REQUIRE_CORE") == "1":
            pytest.fail(f"the compiled core of {game} is not built (CAVALLO_REQUIRE_CORE=1)")
        pytest.skip(f"the compiled core of {game} is not built")


def observables(env, n_agents):
    """Everything an env shows at this point: every agent's observation and ``last()``, the state
    vector, the record, the legal actions, rewards, infos and the rendered text."""
    raw = env.unwrapped
    return [env.last() if raw.agents else None, [env.observe(a) for a in raw.possible_agents], raw.state(),
            raw.record(), raw.legal_actions(), snapshot(env), raw.render_text()]


CORE_CASES = [("cavalloicera", {}), ("cavalloicera", {"reward": "win"}), ("briscola", {}),
              ("briscola", {"deck": "bresciane", "reward": "win"}), ("scopa", {"match": False}),
              ("scopa", {"match": True}), ("scopa", {"match": True, "reward": "points", "deck": "bresciane"})]


def episode_trace(game, kwargs, seed, monkeypatch, core: bool, illegal_at=None, copy_at=None):
    """The observables after every step of a random episode, with or without the core."""
    import copy as copymod
    import pickle

    monkeypatch.setenv("CAVALLO_CORE", "" if core else "python")
    g = games.get(game)
    raw = g.raw_env(render_mode="ansi", **kwargs)
    raw.reset(seed=seed)
    on_core = type(raw._core).__name__ == "CoreTable"
    assert on_core == core
    rng = np.random.default_rng(seed)
    trace, n, twin = [], 0, None
    for _agent in raw.agent_iter():
        trace.append(observables(raw, len(raw.possible_agents)))
        obs, _, term, trunc, _ = raw.last()
        if term or trunc:
            raw.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        if n == illegal_at:
            bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
            trace.append(outcome(lambda: raw.step(bad)))
        if n == copy_at:  # a deep copy and a pickled copy play on to the end like the original
            twin = [copymod.deepcopy(raw), pickle.loads(pickle.dumps(raw))]
        action = int(legal[rng.integers(len(legal))])
        raw.step(action)
        n += 1
    trace.append(observables(raw, len(raw.possible_agents)))
    if twin is not None:
        for t in twin:
            for _agent in t.agent_iter():
                obs, _, term, trunc, _ = t.last()
                t.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
            trace.append([t.record(), t.state(), snapshot(t)])
    return trace


@pytest.mark.parametrize("game,kwargs", CORE_CASES)
def test_the_raw_env_on_the_core_shows_what_the_python_engine_shows(game, kwargs, monkeypatch):
    _needs_core(game)
    for seed in range(6):
        kw = {"illegal_at": seed * 3, "copy_at": seed * 5 + 1}
        assert same(episode_trace(game, kwargs, seed, monkeypatch, True, **kw),
                    episode_trace(game, kwargs, seed, monkeypatch, False, **kw)), seed


@pytest.mark.parametrize("game", ["cavalloicera", "briscola", "scopa"])
def test_a_core_engine_handed_out_stays_current(game, monkeypatch):
    """``env.core`` read mid-episode is the engine object itself, kept up to date as the env steps."""
    _needs_core(game)
    g = games.get(game)
    raw = g.raw_env()
    raw.reset(seed=3)
    for _ in range(5):
        raw.step(raw.legal_actions()[0])
    core = raw.core
    ref = g.raw_env()
    monkeypatch.setenv("CAVALLO_CORE", "python")
    ref.reset(seed=3)
    for _ in range(5):
        ref.step(ref.legal_actions()[0])
    while raw.agents and not raw.terminations[raw.agent_selection]:
        a = raw.legal_actions()[0]
        raw.step(a)
        ref.step(a)
        assert g.to_record(getattr(core, "state", core)) == ref.record() == raw.record()
