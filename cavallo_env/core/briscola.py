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
from .tables import REWARDS, RNGS, CoreTables, seed_array, where_array  # noqa: F401  (REWARDS, RNGS: public here too)

try:
    from . import _briscola
except ImportError as _e:  # the extension is not built: say how to build it when used
    _briscola = None
    _MISSING = f"{BUILD_HINT} ({_e})"

OBS_SIZE = 376  # briscola-obs/1 (cavallo_env.briscola.encoding.OBS_SIZE)
STATE_SIZE = 578  # briscola-state/1 (cavallo_env.briscola.encoding.STATE_SIZE)


def _extension():
    if _briscola is None:
        raise ImportError(_MISSING)
    return _briscola


class BriscolaTables(CoreTables):
    """n Briscola tables on the compiled core (see the module doc)."""

    NUM_ACTIONS = NUM_CARDS
    ACTION_WORDS = "card ids"

    def __init__(self, n: int, reward: str = "points", rng: str = "python"):
        super().__init__(n, reward, rng, _extension())
        self._obs = self._tables.obs
        self._state = None  # made on the first state() call

    # -- deals ---------------------------------------------------------------------
    def reset(self, seeds, decks="milanesi", where=None):
        """Deal table i from ``seeds[i]`` (with ``rng="python"``: as ``random_deal(seeds[i], deck)``);
        only where ``where`` is true if given.  Returns ``(current, mask)``.
        """
        seeds = seed_array(seeds, self.n)
        decks = _deck_array(decks, self.n)
        where = where_array(where, self.n)
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
        where = where_array(where, self.n)
        self._tables.reset_deals(ids, leaders, decks, where)
        return self._after_reset(where)

    # -- play ------------------------------------------------------------------------
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


def _deck_array(decks, n: int) -> np.ndarray:
    if isinstance(decks, str) and decks in DECKS:  # one deck for every table: no loop over the tables
        return np.full(n, DECKS.index(decks), np.uint8)
    names = [decks] * n if isinstance(decks, str) else list(decks)
    if len(names) != n:
        raise ValueError(f"decks must be one deck name or {n} of them, got {len(names)}")
    try:
        return np.fromiter((DECKS.index(d) for d in names), np.uint8, n)
    except ValueError:
        bad = next(d for d in names if d not in DECKS)
        raise ValueError(f"unknown deck {bad!r:.40}; known decks: {', '.join(DECKS)}") from None


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
