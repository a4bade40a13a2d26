"""Cavalloìcera on the compiled core: ``CavalloiceraTables(n)``, n deals stepped at once.

numpy arrays in and out, row i being table i, with the env's Discrete(156)
action ids (cavalloicera-actions/1: place, capture with, take; a capture
is built one table card at a time by the same seat)::

    tables = CavalloiceraTables(1024, reward="points")
    current, mask = tables.reset(seeds)            # int8 (n,), uint8 (n, 156)
    while not done.all():
        actions = tables.random_actions()          # or a policy's choice, int32 (n,)
        rewards, done = tables.step(actions)       # float32 (n, 4), bool (n,)

Randomness, chosen once by ``rng`` (as ``BriscolaTables``):

- ``"python"`` (the default): ``reset(seeds)`` deals table i exactly as
  ``random_deal(seeds[i])`` and ``random_actions()`` spells, one action at a
  time, the moves ``random_playout`` draws from each table's
  ``random.Random(seed)`` (``rng.choice(state.legal_moves())``);
- ``"fast"``: the same uniform deals and moves from each table's own
  splitmix64 stream: for training, search rollouts and benchmarks.

``reset_deals(ids, dealers)`` starts from given deals and keeps each table's
generator.  A negative action leaves that table as it is (a finished table
must be skipped or reset).  The arrays returned are the tables' own buffers,
overwritten by the next call: copy what you keep.
"""

from __future__ import annotations

import numpy as np

from ..cavalloicera.actions import NUM_ACTIONS, action_name
from ..cavalloicera.cards import NUM_CARDS
from ..cavalloicera.engine import BREAKDOWN_KEYS, CavalloiceraState, random_deal
from . import BUILD_HINT
from .briscola import REWARDS, RNGS, _seed_array, _where_array

try:
    from . import _cavalloicera
except ImportError as _e:  # the extension is not built: say how to build it when used
    _cavalloicera = None
    _MISSING = f"{BUILD_HINT} ({_e})"


def _extension():
    if _cavalloicera is None:
        raise ImportError(_MISSING)
    return _cavalloicera


class CavalloiceraTables:
    """n Cavalloìcera tables on the compiled core (see the module doc)."""

    def __init__(self, n: int, reward: str = "points", rng: str = "python"):
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
        t = self._tables = _extension().Tables(self.n, rng == "python")
        # the core's own arrays, written in place by every call
        self.current, self.mask, self.rewards, self._actions = t.current, t.mask, t.rewards, t.actions
        self._done = t.done
        self.done = t.done.view(bool)  # bool (n,): whether each table's deal is over (True before any reset)

    # -- deals ---------------------------------------------------------------------
    def reset(self, seeds, where=None):
        """Deal table i from ``seeds[i]`` (with ``rng="python"``: as ``random_deal(seeds[i])``); only
        where ``where`` is true if given.  Returns ``(current, mask)``."""
        seeds = _seed_array(seeds, self.n)
        where = _where_array(where, self.n)
        self._tables.reset_seeds(seeds, where)
        if self.rng == "python" and not seeded_deals_agree():  # this Python's random differs: the engine deals
            ids, dealers = _engine_deals(seeds)
            self._tables.reset_deals(ids, dealers, where)
        return self._after_reset(where)

    def reset_deals(self, ids, dealers, where=None):
        """Start table i from ``ids[i]`` (52 card ids: the hands of seats 0..3 as 0:12, 12:24, 24:36,
        36:48, the table 48:52) dealt by ``dealers[i]``.  Returns ``(current, mask)``."""
        ids = np.ascontiguousarray(ids, dtype=np.int8)
        dealers = np.ascontiguousarray(dealers, dtype=np.int8)
        _check_deals(ids, dealers, self.n)
        where = _where_array(where, self.n)
        self._tables.reset_deals(ids, dealers, where)
        return self._after_reset(where)

    def _after_reset(self, where):
        if where is None:
            self._done[:] = 0
        else:
            self._done[where.view(bool)] = 0
        return self.current, self.mask

    # -- play ------------------------------------------------------------------------
    def step(self, actions):
        """Apply ``actions[i]`` (an action id 0..155; negative: skip) at every table; ``(rewards, done)``.

        ``rewards`` (n, 4) holds each seat's return at the step that ends a deal, else 0.
        ``ValueError`` naming the table and its legal actions if an action is illegal (nothing is played).
        """
        if actions is not self._actions:  # random_actions() hands the core's own array: nothing to copy
            self._actions[:] = _action_array(actions, self.n)
        bad = self._tables.step(self._reward)
        if bad >= 0:
            raise ValueError(self._illegal(bad, int(self._actions[bad])))
        return self.rewards, self.done

    def random_actions(self) -> np.ndarray:
        """int32 (n,): a random legal action at every table (-1 where the deal is over): the next action
        of a uniformly random legal move; with ``rng="python"`` exactly ``random_playout``'s move."""
        self._tables.random_actions()
        return self._actions

    def snapshot(self, i: int) -> dict:
        """Table i as a dict named like ``CavalloiceraState``'s attributes (for tests and debugging), plus
        ``building`` (the capture being built), ``completed`` and ``scored`` (what the last action's move
        scored: ``play``'s return)."""
        return self._tables.snapshot(i)

    def result(self, i: int) -> dict:
        """Table i's result in the record format (``CavalloiceraState.result()``); valid once done."""
        points, rows, cards, winner = self._tables.result(i)
        breakdown = [dict(zip(BREAKDOWN_KEYS, row)) for row in rows]
        return {"team_points": points, "breakdown": breakdown, "cards": cards, "winner": winner}

    def _illegal(self, i: int, action: int) -> str:
        if not 0 <= action < NUM_ACTIONS:
            return f"table {i}: action {action} is not an action id 0..{NUM_ACTIONS - 1}"
        snap = self.snapshot(i)
        if snap["done"]:
            return f"table {i}: the deal is over (skip it with a negative action or reset it), got action {action}"
        legal = ", ".join(f"{a} ({action_name(a)})" for a in np.flatnonzero(self.mask[i]).tolist())
        return f"table {i}: action {action} ({action_name(action)}) is not legal for seat {snap['current']}; " \
               f"legal: {legal}"


# ---------------------------------------------------------------- inputs


def _action_array(actions, n: int) -> np.ndarray:
    a = np.asarray(actions)
    if a.shape != (n,) or a.dtype.kind not in "iu":
        raise ValueError(f"actions must be {n} integer action ids (one per table), got {a.dtype} shape {a.shape}")
    if a.dtype == np.int32:
        return a
    return np.clip(a, -1, NUM_ACTIONS)  # out of range stays out of range for int32 (the core names it)


def _check_deals(ids: np.ndarray, dealers: np.ndarray, n: int) -> None:
    if ids.shape != (n, NUM_CARDS) or dealers.shape != (n,):
        raise ValueError(f"a deal is 52 card ids and a dealer: ids must have shape ({n}, 52) and dealers ({n},), "
                         f"got {ids.shape} and {dealers.shape}")
    bad = np.flatnonzero((np.sort(ids, axis=1) != np.arange(NUM_CARDS)).any(axis=1))
    if bad.size:
        raise ValueError(f"table {bad[0]}: the deal must use each card id 0..51 exactly once")
    bad = np.flatnonzero((dealers < 0) | (dealers > 3))
    if bad.size:
        raise ValueError(f"table {bad[0]}: the dealer must be a seat 0..3, got {dealers[bad[0]]}")


def deal_ids(state: CavalloiceraState) -> tuple[np.ndarray, int]:
    """The deal ``state`` started from as ``(ids (52,), dealer)``, the form ``reset_deals`` takes."""
    hands = [c for h in state.initial_hands for c in h]
    return np.array([*hands, *state.initial_table], np.int8), state.dealer


def _engine_deals(seeds: np.ndarray):
    pairs = [deal_ids(CavalloiceraState(*random_deal(int(s)))) for s in seeds]
    return np.stack([p[0] for p in pairs]), np.array([p[1] for p in pairs], np.int8)


_AGREES: list = []


def seeded_deals_agree() -> bool:
    """Whether the core deals a seed exactly as this Python's ``random_deal`` (checked once)."""
    if not _AGREES:
        seeds = [0, 1, 12345, 2**32 + 7, 2**63 - 1, 2**64 - 1]
        t = _extension().Tables(len(seeds))
        t.reset_seeds(np.array(seeds, np.uint64))
        ok = all(_same_deal(t.snapshot(i), random_deal(s)) for i, s in enumerate(seeds))
        _AGREES.append(ok)
    return _AGREES[0]


def _same_deal(snap: dict, deal) -> bool:
    hands, table, dealer = deal
    return snap["hands"] == hands and snap["table"] == table and snap["dealer"] == dealer


__all__ = ["CavalloiceraTables", "NUM_ACTIONS", "deal_ids", "seeded_deals_agree"]
