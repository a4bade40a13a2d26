"""What every game's tables on the compiled core share (``BriscolaTables``, ``CavalloiceraTables``).

``CoreTables`` checks the constructor's arguments, makes the extension's
``Tables`` and keeps its arrays (written in place by every call), and steps
them: ``step(actions)`` (an illegal action raises the game's ``_illegal``
message, nothing played), ``random_actions()``, ``snapshot(i)``.  The input
helpers turn seeds, ``where`` and actions into the arrays the binding takes,
saying in words what is wrong.
"""

from __future__ import annotations

import numpy as np

REWARDS = ("points", "win")
RNGS = ("python", "fast")
_SEED_LIMIT = 2**64


class CoreTables:
    """n tables of one game on the core; a subclass sets ``NUM_ACTIONS``, ``ACTION_WORDS`` and ``_illegal``."""

    NUM_ACTIONS = 0  # action ids are 0..NUM_ACTIONS-1
    ACTION_WORDS = "action ids"  # what an action is, for the error message

    def __init__(self, n: int, reward: str, rng: str, extension):
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(map(repr, REWARDS))}, got {reward!r}")
        if rng not in RNGS:
            raise ValueError(f"rng must be one of {', '.join(map(repr, RNGS))}, got {rng!r}")
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"the number of tables must be an int >= 1, got {n!r:.40}")
        self.n = int(n)
        self.reward = reward
        self.rng = rng
        self._reward = REWARDS.index(reward)
        t = self._tables = extension.Tables(self.n, rng == "python")
        # the core's own arrays, written in place by every call
        self.current, self.mask, self.rewards, self._actions = t.current, t.mask, t.rewards, t.actions
        self._done = t.done
        self.done = t.done.view(bool)  # bool (n,): whether each table's deal is over (True before any reset)

    def _after_reset(self, where):
        if where is None:
            self._done[:] = 0
        else:
            self._done[where.view(bool)] = 0
        return self.current, self.mask

    def step(self, actions):
        """Play ``actions[i]`` (negative: skip) at every table; ``(rewards, done)``.

        ``rewards`` holds each seat's return at the step that ends a deal, else 0.
        ``ValueError`` naming the table and its legal actions if an action is illegal (nothing is played).
        """
        if actions is not self._actions:  # random_actions() hands the core's own array: nothing to copy
            self._actions[:] = action_array(actions, self.n, self.NUM_ACTIONS, self.ACTION_WORDS)
        bad = self._tables.step(self._reward)
        if bad >= 0:
            raise ValueError(self._illegal(bad, int(self._actions[bad])))
        return self.rewards, self.done

    def random_actions(self) -> np.ndarray:
        """int32 (n,): a uniformly random legal action at every table (-1 where the deal is over); with
        ``rng="python"`` exactly the engine's ``random_playout``'s next choice, from the deal's
        ``random.Random``."""
        self._tables.random_actions()
        return self._actions

    def snapshot(self, i: int) -> dict:
        """Table i as a dict named like the engine state's attributes (for tests and debugging)."""
        return self._tables.snapshot(i)

    def _illegal(self, i: int, action: int) -> str:
        raise NotImplementedError


def seed_array(seeds, n: int) -> np.ndarray:
    """uint64 (n,): ``abs(seed)`` of each seed (random.Random seeds an int by its absolute value)."""
    if isinstance(seeds, np.ndarray) and seeds.shape == (n,) and seeds.dtype.kind in "iu":
        if seeds.dtype.kind == "u":
            return np.ascontiguousarray(seeds, dtype=np.uint64)
        return np.abs(seeds.astype(np.int64)).astype(np.uint64)  # abs(-2**63) wraps to 2**63: right as uint64
    # anything else goes through Python ints: numpy would turn [-1, 2**63] into floats
    try:
        values = seeds.tolist() if isinstance(seeds, np.ndarray) else list(seeds)
    except TypeError:
        raise ValueError(f"seeds must be {n} integers (one per table), got {type(seeds).__name__}") from None
    if not isinstance(values, list) or len(values) != n:
        raise ValueError(f"seeds must be {n} integers (one per table), got {len(values)}")
    out = np.empty(n, np.uint64)
    for i, s in enumerate(values):
        s = int(s) if isinstance(s, np.integer) else s
        if isinstance(s, bool) or not isinstance(s, int) or abs(s) >= _SEED_LIMIT:
            raise ValueError(f"seed {i} must be an int with abs(seed) < 2**64, got {s!r:.40}; deal other seeds "
                             f"with the engine (random_deal) and start from them with reset_deals")
        out[i] = abs(s)
    return out


def where_array(where, n: int):
    if where is None:
        return None
    w = np.ascontiguousarray(where, dtype=bool)
    if w.shape != (n,):
        raise ValueError(f"where must be {n} booleans (one per table), got shape {w.shape}")
    return w.view(np.uint8)


def action_array(actions, n: int, limit: int, words: str) -> np.ndarray:
    a = np.asarray(actions)
    if a.shape != (n,) or a.dtype.kind not in "iu":
        raise ValueError(f"actions must be {n} integer {words} (one per table), got {a.dtype} shape {a.shape}")
    if a.dtype == np.int32:
        return a
    return np.clip(a, -1, limit)  # out of range stays out of range for int32 (the core names it)


__all__ = ["CoreTables", "REWARDS", "RNGS", "action_array", "seed_array", "where_array"]
