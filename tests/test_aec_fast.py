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
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
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
