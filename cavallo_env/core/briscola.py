"""Briscola on the compiled core: ``BriscolaTables(n)``, n deals stepped at once.

numpy arrays in and out, row i being table i::

    tables = BriscolaTables(1024, reward="points")
    current, mask = tables.reset(seeds)            # int8 (n,), uint8 (n, 40)
    while not done.all():
        actions = tables.random_actions()          # or a policy's choice, int32 (n,)
        rewards, done = tables.step(actions)       # float32 (n, 2), bool (n,)
        obs = tables.observe()                     # float32 (n, 376), briscola-obs/1

Randomness, chosen once by ``rng``:

- ``"python"`` (the default): ``reset(seeds)`` deals table i exactly as
  ``random_deal(seeds[i], deck)`` (Python's Mersenne Twister reproduced in C
  for ``abs(seed) < 2**64``; checked once against this Python's ``random``,
  else dealt by the engine), and ``random_actions()`` continues each table's
  ``random.Random(seed)`` as ``random_playout`` does: a table replays
  ``random_playout(random_deal(rng), rng)`` card for card;
- ``"fast"``: the same uniform deals and random cards from each table's own
  splitmix64 stream, reproducible from the seed but not Python's, and without
  the Mersenne Twister's seeding (microseconds a deal): for training, search
  rollouts and benchmarks.

``reset_deals(ids, leaders)`` starts from given deals (any dealer, e.g. the
env's numpy one) and keeps each table's generator.

An action is a card id; a negative action leaves that table as it is (a
finished table must be skipped or reset).  The arrays returned are the
tables' own buffers, overwritten by the next call: copy what you keep.
"""

from __future__ import annotations

import numpy as np

from ..briscola.cards import DECKS, NAMES, NUM_CARDS
from ..briscola.engine import BriscolaState, random_deal
from . import BUILD_HINT

try:
    from . import _briscola
except ImportError as _e:  # the extension is not built: say how to build it when used
    _briscola = None
    _MISSING = f"{BUILD_HINT} ({_e})"

OBS_SIZE = 376  # briscola-obs/1 (cavallo_env.briscola.encoding.OBS_SIZE)
STATE_SIZE = 578  # briscola-state/1 (cavallo_env.briscola.encoding.STATE_SIZE)
REWARDS = ("points", "win")
RNGS = ("python", "fast")
_SEED_LIMIT = 2**64


def _extension():
    if _briscola is None:
        raise ImportError(_MISSING)
    return _briscola


class BriscolaTables:
    """n Briscola tables on the compiled core (see the module doc)."""

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
        self.current, self.mask, self.rewards, self._actions, self._obs = t.current, t.mask, t.rewards, t.actions, t.obs
        self._done = t.done
        self.done = t.done.view(bool)  # bool (n,): whether each table's deal is over (True before any reset)
        self._state = None  # made on the first state() call

    # -- deals ---------------------------------------------------------------------
    def reset(self, seeds, decks="milanesi", where=None):
        """Deal table i from ``seeds[i]`` (with ``rng="python"``: as ``random_deal(seeds[i], deck)``);
        only where ``where`` is true if given.  Returns ``(current, mask)``.
        """
        seeds = _seed_array(seeds, self.n)
        decks = _deck_array(decks, self.n)
        where = _where_array(where, self.n)
        self._tables.reset_seeds(seeds, decks, where)
        if self.rng == "python" and not seeded_deals_agree():  # this Python's random differs: the engine deals
            ids, leaders = _engine_deals(seeds, decks)
            self._tables.reset_deals(ids, leaders, decks, where)
        return self._after_reset(where)

    def reset_deals(self, ids, leaders, decks="milanesi", where=None):
        """Start table i from ``ids[i]`` (40 card ids: hands 0:3 and 3:6, trump 6, stock 7:, top
        first) led by ``leaders[i]``.  Returns ``(current, mask)``."""
        ids = np.ascontiguousarray(ids, dtype=np.int8)
        leaders = np.ascontiguousarray(leaders, dtype=np.int8)
        _check_deals(ids, leaders, self.n)
        decks = _deck_array(decks, self.n)
        where = _where_array(where, self.n)
        self._tables.reset_deals(ids, leaders, decks, where)
        return self._after_reset(where)

    def _after_reset(self, where):
        if where is None:
            self._done[:] = 0
        else:
            self._done[where.view(bool)] = 0
        return self.current, self.mask

    # -- play ------------------------------------------------------------------------
    def step(self, actions):
        """Play ``actions[i]`` (a card id; negative: skip) at every table; ``(rewards, done)``.

        ``rewards`` (n, 2) holds each seat's return at the step that ends a deal, else 0.
        ``ValueError`` naming the table and its legal cards if an action is illegal (nothing is played).
        """
        if actions is not self._actions:  # random_actions() hands the core's own array: nothing to copy
            self._actions[:] = _action_array(actions, self.n)
        bad = self._tables.step(self._reward)
        if bad >= 0:
            raise ValueError(self._illegal(bad, int(self._actions[bad])))
        return self.rewards, self.done

    def random_actions(self) -> np.ndarray:
        """int32 (n,): a uniformly random legal card at every table (-1 where the deal is over);
        with ``rng="python"`` exactly ``random_playout``'s next card."""
        self._tables.random_actions()
        return self._actions

    def observe(self, seats=None) -> np.ndarray:
        """float32 (n, 376): the ``briscola-obs/1`` observation of ``seats[i]`` (default: the seat to play)."""
        if seats is not None:
            seats = np.ascontiguousarray(seats, dtype=np.int8)
            if seats.shape != (self.n,) or not np.isin(seats, (0, 1)).all():
                raise ValueError(f"seats must be {self.n} seats 0 or 1")
        self._tables.observe(seats)
        return self._obs

    def state(self) -> np.ndarray:
        """float32 (n, 578): the full-information ``briscola-state/1`` vector of every table
        (absolute seats, hidden cards included: for critics and analysis, never a seat's input)."""
        if self._state is None:
            self._state = np.zeros((self.n, STATE_SIZE), np.float32)
        self._tables.state(self._state)
        return self._state

    def snapshot(self, i: int) -> dict:
        """Table i as a dict named like ``BriscolaState``'s attributes (for tests and debugging)."""
        return self._tables.snapshot(i)

    def _illegal(self, i: int, action: int) -> str:
        if action >= NUM_CARDS:
            return f"table {i}: action {action} is not a card id 0..{NUM_CARDS - 1}"
        snap = self.snapshot(i)
        if snap["done"]:
            return f"table {i}: the deal is over (skip it with a negative action or reset it), got action {action}"
        deck = DECKS[snap["deck"]]
        hand = sorted(snap["hands"][snap["current"]])
        legal = ", ".join(f"{c} ({NAMES[deck][c]})" for c in hand)
        return f"table {i}: action {action} is not a card in the hand of seat {snap['current']}; legal: {legal}"


# ---------------------------------------------------------------- inputs


def _seed_array(seeds, n: int) -> np.ndarray:
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


def _deck_array(decks, n: int) -> np.ndarray:
    names = [decks] * n if isinstance(decks, str) else list(decks)
    if len(names) != n:
        raise ValueError(f"decks must be one deck name or {n} of them, got {len(names)}")
    try:
        return np.fromiter((DECKS.index(d) for d in names), np.uint8, n)
    except ValueError:
        bad = next(d for d in names if d not in DECKS)
        raise ValueError(f"unknown deck {bad!r:.40}; known decks: {', '.join(DECKS)}") from None


def _where_array(where, n: int):
    if where is None:
        return None
    w = np.ascontiguousarray(where, dtype=bool)
    if w.shape != (n,):
        raise ValueError(f"where must be {n} booleans (one per table), got shape {w.shape}")
    return w.view(np.uint8)


def _action_array(actions, n: int) -> np.ndarray:
    a = np.asarray(actions)
    if a.shape != (n,) or a.dtype.kind not in "iu":
        raise ValueError(f"actions must be {n} integer card ids (one per table), got {a.dtype} shape {a.shape}")
    if a.dtype == np.int32:
        return a
    return np.clip(a, -1, NUM_CARDS)  # out of range stays out of range for int32 (the core names it)


def _check_deals(ids: np.ndarray, leaders: np.ndarray, n: int) -> None:
    if ids.shape != (n, NUM_CARDS) or leaders.shape != (n,):
        raise ValueError(f"a deal is 40 card ids and a leader: ids must have shape ({n}, 40) and leaders ({n},), "
                         f"got {ids.shape} and {leaders.shape}")
    bad = np.flatnonzero((np.sort(ids, axis=1) != np.arange(NUM_CARDS)).any(axis=1))
    if bad.size:
        raise ValueError(f"table {bad[0]}: the deal must use each card id 0..39 exactly once")
    bad = np.flatnonzero((leaders != 0) & (leaders != 1))
    if bad.size:
        raise ValueError(f"table {bad[0]}: the leader must be the seat 0 or 1, got {leaders[bad[0]]}")


def deal_ids(state: BriscolaState) -> tuple[np.ndarray, int]:
    """The deal ``state`` started from as ``(ids (40,), leader)``, the form ``reset_deals`` takes."""
    (h0, h1), trump, stock, leader = state.initial
    return np.array([*h0, *h1, trump, *stock], np.int8), leader


def _engine_deals(seeds: np.ndarray, decks: np.ndarray):
    states = [random_deal(int(s), DECKS[d]) for s, d in zip(seeds, decks)]
    pairs = [deal_ids(s) for s in states]
    return np.stack([p[0] for p in pairs]), np.array([p[1] for p in pairs], np.int8)


_AGREES: list = []


def seeded_deals_agree() -> bool:
    """Whether the core deals a seed exactly as this Python's ``random_deal`` (checked once)."""
    if not _AGREES:
        seeds = [0, 1, 12345, 2**32 + 7, 2**63 - 1, 2**64 - 1]
        t = _extension().Tables(len(seeds))
        t.reset_seeds(np.array(seeds, np.uint64), np.zeros(len(seeds), np.uint8))
        ok = all(_same_deal(t.snapshot(i), random_deal(s)) for i, s in enumerate(seeds))
        _AGREES.append(ok)
    return _AGREES[0]


def _same_deal(snap: dict, state: BriscolaState) -> bool:
    return (snap["hands"] == state.hands and snap["trump"] == state.trump and snap["stock"] == state.stock
            and snap["leader"] == state.leader)


__all__ = ["BriscolaTables", "OBS_SIZE", "STATE_SIZE", "REWARDS", "RNGS", "deal_ids", "seeded_deals_agree"]
