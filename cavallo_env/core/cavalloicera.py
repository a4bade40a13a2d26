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
    states = tables.state()                        # float32 (n, 1018), cavalloicera-state/1

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
from . import extension
from .bots import BotTables
from .tables import CoreTables, where_array

OBS_SIZE = 702  # cavalloicera-obs/1 (cavallo_env.cavalloicera.encoding.OBS_SIZE)
STATE_SIZE = 1018  # cavalloicera-state/1 (cavallo_env.cavalloicera.encoding.STATE_SIZE)


class CavalloiceraTables(BotTables, CoreTables):
    """n Cavalloìcera tables on the compiled core (see the module doc).

    ``observe(seats)`` writes ``cavalloicera-obs/1`` as ``encode_observation(state, seat, building)``: the
    capture being built shows only to the seat building it.  ``snapshot(i)`` names table i's state like
    ``CavalloiceraState``'s attributes, plus ``building`` (the capture being built: card and cards taken),
    ``completed`` (whether the last action completed a move) and ``scored`` (what that move scored:
    ``play``'s return; None for a place).
    """

    NUM_ACTIONS = NUM_ACTIONS
    SEATS = 4
    CARDS = NUM_CARDS
    DEAL_SEAT = "dealer"
    OBS_SIZE = OBS_SIZE
    STATE_SIZE = STATE_SIZE
    PRIOR_SIZE = 2 * NUM_ACTIONS  # heuristic-prior/1 (cavallo_env.cavalloicera.prior.PRIOR_SIZE)

    def __init__(self, n: int, reward: str = "points", rng: str = "python"):
        super().__init__(n, reward, rng, extension("cavalloicera"))

    # -- deals ---------------------------------------------------------------------
    def reset(self, seeds, where=None):
        """Deal table i from ``seeds[i]`` (with ``rng="python"``: as ``random_deal(seeds[i])``); only
        where ``where`` is true if given.  Returns ``(current, mask)``."""
        return self._reset_seeded(seeds, None, where)

    def reset_deals(self, ids, dealers, where=None):
        """Start table i from ``ids[i]`` (52 card ids: the hands of seats 0..3 as 0:12, 12:24, 24:36,
        36:48, the table 48:52) dealt by ``dealers[i]``.  Returns ``(current, mask)``."""
        ids, dealers = self._deal_arrays(ids, dealers)
        where = where_array(where, self.n)
        self._tables.reset_deals(ids, dealers, where)
        return self._after_reset(where)

    @classmethod
    def _engine_deals(cls, seeds):
        pairs = [deal_ids(CavalloiceraState(*random_deal(int(s)))) for s in seeds]
        return np.stack([p[0] for p in pairs]), np.array([p[1] for p in pairs], np.int8)

    # -- play ------------------------------------------------------------------------
    def random_actions(self) -> np.ndarray:
        """int32 (n,): a random legal action at every table (-1 where the deal is over): the next action
        of a uniformly random legal move; with ``rng="python"`` exactly ``random_playout``'s move."""
        return super().random_actions()

    def result(self, i: int) -> dict:
        """Table i's result in the record format (``CavalloiceraState.result()``); valid once done."""
        points, rows, cards, winner = self._tables.result(i)
        breakdown = [dict(zip(BREAKDOWN_KEYS, row)) for row in rows]
        return {"team_points": points, "breakdown": breakdown, "cards": cards, "winner": winner}

    def _illegal_move(self, i: int, action: int, snap: dict) -> str:
        legal = ", ".join(f"{a} ({action_name(a)})" for a in np.flatnonzero(self.mask[i]).tolist())
        return f"({action_name(action)}) is not legal for seat {snap['current']}; legal: {legal}"


def deal_ids(state: CavalloiceraState) -> tuple[np.ndarray, int]:
    """The deal ``state`` started from as ``(ids (52,), dealer)``, the form ``reset_deals`` takes."""
    hands = [c for h in state.initial_hands for c in h]
    return np.array([*hands, *state.initial_table], np.int8), state.dealer


seeded_deals_agree = CavalloiceraTables.seeded_deals_agree  # whether the core deals a seed as random_deal

__all__ = ["CavalloiceraTables", "NUM_ACTIONS", "OBS_SIZE", "STATE_SIZE", "deal_ids", "seeded_deals_agree"]
