"""Cavalloìcera on the compiled core: ``CavalloiceraTables(n)``, n deals stepped at once.

numpy arrays in and out, row i being table i, with the env's Discrete(156)
action ids (cavalloicera-actions/1: place, capture with, take; a capture
is built one table card at a time by the same seat)::

    tables = CavalloiceraTables(1024, reward="points")
    current, mask = tables.reset(seeds)            # int8 (n,), uint8 (n, 156)
    while not done.all():
        actions = tables.random_actions()          # or a policy's choice, int32 (n,)
        rewards, done = tables.step(actions)       # float32 (n, 4), bool (n,)
        obs = tables.observe()                     # float32 (n, 702), cavalloicera-obs/1

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
from .bots import BotTables
from .tables import CoreTables, seed_array, where_array

try:
    from . import _cavalloicera
except ImportError as _e:  # the extension is not built: say how to build it when used
    _cavalloicera = None
    _MISSING = f"{BUILD_HINT} ({_e})"


def _extension():
    if _cavalloicera is None:
        raise ImportError(_MISSING)
    return _cavalloicera


class CavalloiceraTables(BotTables, CoreTables):
    """n Cavalloìcera tables on the compiled core (see the module doc).

    ``snapshot(i)`` names table i's state like ``CavalloiceraState``'s attributes, plus ``building``
    (the capture being built: card and cards taken), ``completed`` (whether the last action completed
    a move) and ``scored`` (what that move scored: ``play``'s return; None for a place).
    """

    NUM_ACTIONS = NUM_ACTIONS
    PRIOR_SIZE = 2 * NUM_ACTIONS  # heuristic-prior/1 (cavallo_env.cavalloicera.prior.PRIOR_SIZE)

    def __init__(self, n: int, reward: str = "points", rng: str = "python"):
        super().__init__(n, reward, rng, _extension())
        self._obs = self._tables.obs

    # -- deals ---------------------------------------------------------------------
    def reset(self, seeds, where=None):
        """Deal table i from ``seeds[i]`` (with ``rng="python"``: as ``random_deal(seeds[i])``); only
        where ``where`` is true if given.  Returns ``(current, mask)``."""
        seeds = seed_array(seeds, self.n)
        where = where_array(where, self.n)
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
        where = where_array(where, self.n)
        self._tables.reset_deals(ids, dealers, where)
        return self._after_reset(where)

    # -- play ------------------------------------------------------------------------
    def random_actions(self) -> np.ndarray:
        """int32 (n,): a random legal action at every table (-1 where the deal is over): the next action
        of a uniformly random legal move; with ``rng="python"`` exactly ``random_playout``'s move."""
        return super().random_actions()

    def observe(self, seats=None) -> np.ndarray:
        """float32 (n, 702): the ``cavalloicera-obs/1`` observation of ``seats[i]`` (default: the seat to
        act), as ``encode_observation(state, seat, building)``: the capture being built shows only to the
        seat building it."""
        if seats is not None:
            seats = np.ascontiguousarray(seats, dtype=np.int8)
            if seats.shape != (self.n,) or not np.isin(seats, (0, 1, 2, 3)).all():
                raise ValueError(f"seats must be {self.n} seats 0..3")
        self._tables.observe(seats)
        return self._obs

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


OBS_SIZE = 702  # cavalloicera-obs/1 (cavallo_env.cavalloicera.encoding.OBS_SIZE)

__all__ = ["CavalloiceraTables", "NUM_ACTIONS", "OBS_SIZE", "deal_ids", "seeded_deals_agree"]
