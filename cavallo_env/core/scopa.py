"""Scopa on the compiled core: ``ScopaTables(n)``, n matches (or single deals) stepped at once.

numpy arrays in and out, row i being table i, with the env's ``Discrete(120)``
action ids (``cavallo_env.scopa.actions``: ``0..39`` place a card, ``40..79``
capture with a card, ``80..119`` take a table card into the capture being
built)::

    tables = ScopaTables(1024, match=True, reward="win")
    current, mask = tables.reset(seeds)            # int8 (n,), uint8 (n, 120)
    while not tables.done.all():
        actions = tables.random_actions()          # or a policy's choice, int32 (n,)
        rewards, done = tables.step(actions)       # float32 (n, 2), bool (n,)

``match=True`` (the default, as the env): a table is a match to 11, its later
deals drawn by the table's generator; ``match=False``: one deal.  Rewards are
the env's (``cavallo_env.scopa.aec``): ``"win"`` (the default) +1/0/-1 at the
step that ends the match (or the single deal); ``"points"``: each deal's point
difference at the step that ends that deal (mid-match too).

Randomness, chosen once by ``rng``:

- ``"python"`` (the default): ``reset(seeds)`` deals table i exactly as
  ``random_state(seeds[i], deck, match)`` (Python's Mersenne Twister in C for
  ``abs(seed) < 2**64``, checked once against this Python's ``random``), and
  the table's one generator goes on as the state's ``rng``:
  ``random_actions()`` plays ``random_playout(state, state.rng)``'s moves
  (``rng.choice(state.legal_moves())``, each capture through its take
  actions), and the later deals of a match are ``draw_deal(state.rng)``'s;
- ``"fast"``: the same kind of deals and uniformly random legal moves from each
  table's own splitmix64 stream (reproducible from the seed, not Python's).

``reset_deals(ids, dealers, seeds)`` starts from given first deals (40 ids in
``split_deck``'s order: hands 0:3 and 3:6, table 6:10, stock 10:, top first),
optionally with match totals carried in (``bases``).  The arrays returned are
the tables' own buffers, overwritten by the next call: copy what you keep.
"""

from __future__ import annotations

import random

import numpy as np

from ..scopa.cards import DECKS, NAMES, NUM_CARDS
from ..scopa.engine import ScopaState, random_state
from . import BUILD_HINT

try:
    from . import _scopa
except ImportError as _e:  # the extension is not built: say how to build it when used
    _scopa = None
    _MISSING = f"{BUILD_HINT} ({_e})"

NUM_ACTIONS = 120  # scopa-actions/1
OBS_SIZE = 388  # scopa-obs/1 (cavallo_env.scopa.encoding.OBS_SIZE)
STATE_SIZE = 420  # scopa-state/1 (cavallo_env.scopa.encoding.STATE_SIZE)
REWARDS = ("win", "points")
RNGS = ("python", "fast")
_SEED_LIMIT = 2**64


def _extension():
    if _scopa is None:
        raise ImportError(_MISSING)
    return _scopa


class ScopaTables:
    """n Scopa tables on the compiled core (see the module doc)."""

    def __init__(self, n: int, match: bool = True, reward: str = "win", rng: str = "python"):
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(map(repr, REWARDS))}, got {reward!r}")
        if rng not in RNGS:
            raise ValueError(f"rng must be one of {', '.join(map(repr, RNGS))}, got {rng!r}")
        if not isinstance(match, bool):
            raise ValueError(f"match must be True (a match to 11) or False (one deal), got {match!r:.40}")
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"the number of tables must be an int >= 1, got {n!r:.40}")
        self.n = int(n)
        self.match = match
        self.reward = reward
        self.rng = rng
        self._reward = REWARDS.index(reward)
        t = self._tables = _extension().Tables(self.n, rng == "python", match)
        self.current, self.mask, self.rewards, self._actions, self._obs = t.current, t.mask, t.rewards, t.actions, t.obs
        self._done = t.done
        self.done = t.done.view(bool)  # bool (n,): whether each table's match (or deal) is over
        self._state = None  # made on the first state() call

    # -- deals ---------------------------------------------------------------------
    def reset(self, seeds, decks="milanesi", where=None):
        """Start table i from ``seeds[i]`` (with ``rng="python"``: as ``random_state(seeds[i], deck, match)``);
        only where ``where`` is true if given.  Returns ``(current, mask)``."""
        seeds = _seed_array(seeds, self.n)
        decks = _deck_array(decks, self.n)
        where = _where_array(where, self.n)
        if self.rng == "python" and not seeded_deals_agree():
            raise RuntimeError("this Python's random.Random differs from the core's Mersenne Twister: "
                               "use rng='fast' or the Python engine")
        self._tables.reset_seeds(seeds, decks, where)
        return self._after_reset(where)

    def reset_deals(self, ids, dealers, seeds=None, decks="milanesi", bases=None, where=None):
        """Start table i from the first deal ``ids[i]`` (40 card ids, ``split_deck``'s order) dealt by
        ``dealers[i]``, its generator seeded with ``seeds[i]`` (default 0) for the later deals and the
        random moves; ``bases`` (n, 2): match totals carried in.  Returns ``(current, mask)``."""
        ids = np.ascontiguousarray(ids, dtype=np.int8)
        dealers = np.ascontiguousarray(dealers, dtype=np.int8)
        _check_deals(ids, dealers, self.n)
        seeds = np.zeros(self.n, np.uint64) if seeds is None else _seed_array(seeds, self.n)
        decks = _deck_array(decks, self.n)
        if bases is not None:
            bases = np.ascontiguousarray(bases, dtype=np.int16)
            if bases.shape != (self.n, 2) or (bases < 0).any():
                raise ValueError(f"bases must be {self.n} pairs of totals >= 0, shape ({self.n}, 2)")
        where = _where_array(where, self.n)
        self._tables.reset_deals(ids, dealers, seeds, decks, bases, where)
        return self._after_reset(where)

    def _after_reset(self, where):
        if where is None:
            self._done[:] = 0
        else:
            self._done[where.view(bool)] = 0
        return self.current, self.mask

    # -- play ------------------------------------------------------------------------
    def step(self, actions):
        """Apply ``actions[i]`` (an action id; negative: skip) at every table; ``(rewards, done)``.

        ``ValueError`` naming the table and its legal actions if one is illegal (nothing is played).
        """
        if actions is not self._actions:
            self._actions[:] = _action_array(actions, self.n)
        bad = self._tables.step(self._reward)
        if bad >= 0:
            raise ValueError(self._illegal(bad, int(self._actions[bad])))
        return self.rewards, self.done

    def random_actions(self) -> np.ndarray:
        """int32 (n,): a random legal action at every table (-1 where over): between turns the first
        action of a uniformly random legal move (with ``rng="python"``: ``random_playout``'s), then the
        take actions of its capture."""
        self._tables.random_actions()
        return self._actions

    def observe(self, seats=None) -> np.ndarray:
        """float32 (n, 388): the ``scopa-obs/1`` observation of ``seats[i]`` (default: the seat to act),
        the env's (``encoding.Features``) bit for bit."""
        if seats is not None:
            seats = np.ascontiguousarray(seats, dtype=np.int8)
            if seats.shape != (self.n,) or not np.isin(seats, (0, 1)).all():
                raise ValueError(f"seats must be {self.n} seats 0 or 1")
        self._tables.observe(seats)
        return self._obs

    def state(self) -> np.ndarray:
        """float32 (n, 420): the full-information ``scopa-state/1`` vector of every table (absolute seats,
        hidden cards included: for critics and analysis, never a seat's input), the env's ``state()``."""
        if self._state is None:
            self._state = np.zeros((self.n, STATE_SIZE), np.float32)
        self._tables.state(self._state)
        return self._state

    def snapshot(self, i: int) -> dict:
        """Table i as a dict named like ``ScopaDeal``'s and ``ScopaState``'s attributes (for tests)."""
        return self._tables.snapshot(i)

    def captures(self, i: int, card: int) -> list:
        """The legal capture sets of ``card`` at table i, in the engine's order."""
        return self._tables.captures(i, card)

    def _illegal(self, i: int, action: int) -> str:
        from ..scopa.actions import action_name

        if not 0 <= action < NUM_ACTIONS:
            return f"table {i}: action {action} is not an action id 0..{NUM_ACTIONS - 1}"
        snap = self.snapshot(i)
        if snap["done"]:
            return f"table {i}: the match is over (skip it with a negative action or reset it), got action {action}"
        deck = DECKS[snap["deck"]]
        legal = ", ".join(f"{a} ({action_name(a, deck)})" for a in np.flatnonzero(self.mask[i]).tolist())
        return f"table {i}: action {action} ({action_name(action, deck)}) is illegal for seat " \
               f"{snap['current']}; legal: {legal}"


# ---------------------------------------------------------------- inputs


def _seed_array(seeds, n: int) -> np.ndarray:
    """uint64 (n,): ``abs(seed)`` of each seed (random.Random seeds an int by its absolute value)."""
    if isinstance(seeds, np.ndarray) and seeds.shape == (n,) and seeds.dtype.kind in "iu":
        if seeds.dtype.kind == "u":
            return np.ascontiguousarray(seeds, dtype=np.uint64)
        return np.abs(seeds.astype(np.int64)).astype(np.uint64)
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
            raise ValueError(f"seed {i} must be an int with abs(seed) < 2**64, got {s!r:.40}")
        out[i] = abs(s)
    return out


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
        raise ValueError(f"actions must be {n} integer action ids (one per table), got {a.dtype} shape {a.shape}")
    if a.dtype == np.int32:
        return a
    return np.clip(a, -1, NUM_ACTIONS)


def _check_deals(ids: np.ndarray, dealers: np.ndarray, n: int) -> None:
    if ids.shape != (n, NUM_CARDS) or dealers.shape != (n,):
        raise ValueError(f"a deal is 40 card ids and a dealer: ids must have shape ({n}, 40) and dealers ({n},), "
                         f"got {ids.shape} and {dealers.shape}")
    bad = np.flatnonzero((np.sort(ids, axis=1) != np.arange(NUM_CARDS)).any(axis=1))
    if bad.size:
        raise ValueError(f"table {bad[0]}: the deal must use each card id 0..39 exactly once")
    kings = (ids[:, 6:10] % 10 == 9).sum(axis=1)
    bad = np.flatnonzero(kings >= 3)
    if bad.size:
        raise ValueError(f"table {bad[0]}: the table holds {kings[bad[0]]} kings; a table with three or four "
                         "kings is dealt again")
    bad = np.flatnonzero((dealers != 0) & (dealers != 1))
    if bad.size:
        raise ValueError(f"table {bad[0]}: the dealer must be the seat 0 or 1, got {dealers[bad[0]]}")


def deal_ids(deal) -> tuple[np.ndarray, int]:
    """A ``ScopaDeal`` as dealt, ``(ids (40,), dealer)``: the form ``reset_deals`` takes."""
    h0, h1 = deal.initial_hands
    return np.array([*h0, *h1, *deal.initial_table, *deal.initial_stock], np.int8), deal.dealer


_AGREES: list = []


def seeded_deals_agree() -> bool:
    """Whether the core deals a seed exactly as this Python's ``random_state`` (checked once)."""
    if not _AGREES:
        seeds = [0, 1, 12345, 2**32 + 7, 2**63 - 1, 2**64 - 1]
        t = _extension().Tables(len(seeds), True, True)
        t.reset_seeds(np.array(seeds, np.uint64), np.zeros(len(seeds), np.uint8))
        ok = True
        for i, s in enumerate(seeds):
            state = random_state(s)
            ids, dealer = deal_ids(state.deal)
            snap = t.snapshot(i)
            ok = ok and snap["initial"] == ids.tolist() and snap["dealer"] == dealer
        _AGREES.append(ok)
    return _AGREES[0]


__all__ = ["ScopaTables", "NUM_ACTIONS", "OBS_SIZE", "STATE_SIZE", "REWARDS", "RNGS", "deal_ids", "seeded_deals_agree"]
