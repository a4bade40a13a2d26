"""What every game's tables on the compiled core share (``BriscolaTables``, ``CavalloiceraTables``,
``ScopaTables``).

``CoreTables`` checks the constructor's arguments, makes the extension's
``Tables`` and keeps its arrays (written in place by every call), deals from
seeds (``_reset_seeded``: with ``rng="python"`` checked once against this
Python's ``random``, else the engine deals through the game's
``_engine_deals`` hook) and from given deals (``_deal_arrays`` checks them),
and plays them: ``step(actions)`` (an illegal action raises a message naming
the table and its legal actions, nothing played), ``random_actions()``,
``observe()``, ``state()``, ``snapshot(i)``.  The input helpers turn seeds,
decks, ``where`` and actions into the arrays the binding takes, saying in
words what is wrong.
"""

from __future__ import annotations

import numpy as np

from ..games.decks import DECKS

REWARDS = ("points", "win")
RNGS = ("python", "fast")
_SEED_LIMIT = 2**64
_CHECK_SEEDS = (0, 1, 12345, 2**32 + 7, 2**63 - 1, 2**64 - 1)  # small, 32-bit and 64-bit seeds
_AGREES: dict = {}  # a CoreTables class -> whether its seeded deals are this Python's (checked once)


class CoreTables:
    """n tables of one game on the core.  A subclass sets the class attributes below and
    ``_engine_deals``, and names the moves in ``_illegal_move``."""

    NUM_ACTIONS = 0  # action ids are 0..NUM_ACTIONS-1
    ACTION_WORD = "action id"  # what an action is, for messages
    REWARDS = REWARDS  # the reward names, in the order of the C enum
    SEATS = 2
    CARDS = 40  # card ids in a deal (reset_deals' ids)
    DEAL_SEAT = "leader"  # the seat reset_deals takes with each deal
    HAS_DECKS = False  # whether reset takes deck names (cavallo_env.games.decks.DECKS)
    OVER = "deal"  # what a finished table has finished
    OBS_SIZE = 0
    STATE_SIZE = 0

    def __init__(self, n: int, reward: str, rng: str, extension, *table_args):
        if reward not in self.REWARDS:
            raise ValueError(f"reward must be one of {', '.join(map(repr, self.REWARDS))}, got {reward!r}")
        if rng not in RNGS:
            raise ValueError(f"rng must be one of {', '.join(map(repr, RNGS))}, got {rng!r}")
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"the number of tables must be an int >= 1, got {n!r:.40}")
        self.n = int(n)
        self.reward = reward
        self.rng = rng
        self._reward = self.REWARDS.index(reward)
        t = self._tables = extension.Tables(self.n, rng == "python", *table_args)
        # the core's own arrays, written in place by every call
        self.current, self.mask, self.rewards, self._actions = t.current, t.mask, t.rewards, t.actions
        self._obs = t.obs
        self._done = t.done
        self.done = t.done.view(bool)  # bool (n,): whether each table's deal is over (True before any reset)
        self._state = None  # made on the first state() call

    # -- deals ---------------------------------------------------------------------
    def _reset_seeded(self, seeds, decks, where):
        """reset's work: deal table i from ``seeds[i]`` (with ``decks[i]`` where the game has decks)."""
        seeds = seed_array(seeds, self.n)
        extra = (deck_array(decks, self.n),) if self.HAS_DECKS else ()
        where = where_array(where, self.n)
        engine = self.rng == "python" and not self.seeded_deals_agree()  # this Python's random differs
        if engine:
            deals = self._fallback_deals(seeds, *extra)
        self._tables.reset_seeds(seeds, *extra, where)
        if engine:
            self._tables.reset_deals(*deals, where)
        return self._after_reset(where)

    def _deal_arrays(self, ids, seats):
        """reset_deals' deals as the binding takes them: int8 (n, CARDS) ids and (n,) seats, checked."""
        ids = np.ascontiguousarray(ids, dtype=np.int8)
        seats = np.ascontiguousarray(seats, dtype=np.int8)
        n, cards, word = self.n, self.CARDS, self.DEAL_SEAT
        if ids.shape != (n, cards) or seats.shape != (n,):
            raise ValueError(f"a deal is {cards} card ids and a {word}: ids must have shape ({n}, {cards}) and "
                             f"{word}s ({n},), got {ids.shape} and {seats.shape}")
        bad = np.flatnonzero((np.sort(ids, axis=1) != np.arange(cards)).any(axis=1))
        if bad.size:
            raise ValueError(f"table {bad[0]}: the deal must use each card id 0..{cards - 1} exactly once")
        bad = np.flatnonzero((seats < 0) | (seats >= self.SEATS))
        if bad.size:
            raise ValueError(f"table {bad[0]}: the {word} must be {_seat_words(self.SEATS)}, got {seats[bad[0]]}")
        self.check_ids(ids)
        return ids, seats

    @staticmethod
    def check_ids(ids: np.ndarray) -> None:
        """The game's own checks of reset_deals' ids (int8 (n, CARDS), each row a permutation), with its
        words; none by default."""

    def _after_reset(self, where):
        if where is None:
            self._done[:] = 0
        else:
            self._done[where.view(bool)] = 0
        return self.current, self.mask

    @classmethod
    def seeded_deals_agree(cls) -> bool:
        """Whether the core deals a seed exactly as this Python's engine does (checked once): the
        core's seeded deals against the same tables dealt from the engine's deals."""
        if cls not in _AGREES:
            seeds = np.array(_CHECK_SEEDS, np.uint64)
            extra = (np.zeros(len(seeds), np.uint8),) if cls.HAS_DECKS else ()
            seeded, dealt = cls(len(seeds)), cls(len(seeds))
            seeded._tables.reset_seeds(seeds, *extra, None)
            dealt._tables.reset_deals(*cls._engine_deals(seeds, *extra), None)
            _AGREES[cls] = all(seeded.snapshot(i) == dealt.snapshot(i) for i in range(len(seeds)))
        return _AGREES[cls]

    @classmethod
    def _engine_deals(cls, seeds: np.ndarray, *decks) -> tuple:
        """The hook: the engine's deals of ``seeds`` (and deck ids) as the binding's ``reset_deals``
        arguments before ``where``."""
        raise NotImplementedError

    def _fallback_deals(self, seeds: np.ndarray, *decks) -> tuple:
        """The deals reset hands the core where this Python's random differs from the core's."""
        return self._engine_deals(seeds, *decks)

    # -- play ------------------------------------------------------------------------
    def step(self, actions):
        """Play ``actions[i]`` (negative: skip) at every table; ``(rewards, done)``.

        ``rewards`` holds each seat's return at the step that pays one, else 0.
        ``ValueError`` naming the table and its legal actions if an action is illegal (nothing is played).
        """
        if actions is not self._actions:  # random_actions() hands the core's own array: nothing to copy
            self._actions[:] = action_array(actions, self.n, self.NUM_ACTIONS, self.ACTION_WORD + "s")
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

    def observe(self, seats=None) -> np.ndarray:
        """float32 (n, OBS_SIZE): the observation of ``seats[i]`` (default: the seat to act), the env's
        bit for bit."""
        if seats is not None:
            seats = np.ascontiguousarray(seats, dtype=np.int8)
            if seats.shape != (self.n,) or ((seats < 0) | (seats >= self.SEATS)).any():
                raise ValueError(f"seats must be {self.n} seats {_seat_words(self.SEATS, article=False)}")
        self._tables.observe(seats)
        return self._obs

    def state(self) -> np.ndarray:
        """float32 (n, STATE_SIZE): the full-information state vector of every table (absolute seats,
        hidden cards included: for critics and analysis, never a seat's input), the env's ``state()``."""
        if self._state is None:
            self._state = np.zeros((self.n, self.STATE_SIZE), np.float32)
        self._tables.state(self._state)
        return self._state

    def snapshot(self, i: int) -> dict:
        """Table i as a dict named like the engine state's attributes (for tests and debugging)."""
        return self._tables.snapshot(i)

    def _illegal(self, i: int, action: int) -> str:
        word = self.ACTION_WORD
        if not 0 <= action < self.NUM_ACTIONS:
            article = "an" if word[0] in "aeiou" else "a"
            return f"table {i}: action {action} is not {article} {word} 0..{self.NUM_ACTIONS - 1}"
        snap = self.snapshot(i)
        if snap["done"]:
            return f"table {i}: the {self.OVER} is over (skip it with a negative action or reset it), " \
                   f"got action {action}"
        return f"table {i}: action {action} {self._illegal_move(i, action, snap)}"

    def _illegal_move(self, i: int, action: int, snap: dict) -> str:
        """Why a legal-looking action is not legal at table i, and the legal ones."""
        raise NotImplementedError


def _seat_words(seats: int, article: bool = True) -> str:
    if seats == 2:
        return "the seat 0 or 1" if article else "0 or 1"
    return f"a seat 0..{seats - 1}" if article else f"0..{seats - 1}"


# ---------------------------------------------------------------- inputs


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
                             f"with the engine and start from them with reset_deals")
        out[i] = abs(s)
    return out


def deck_array(decks, n: int) -> np.ndarray:
    """uint8 (n,): the index in ``DECKS`` of one deck name for all tables, or of one a table."""
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


__all__ = ["CoreTables", "REWARDS", "RNGS", "action_array", "deck_array", "seed_array", "where_array"]
