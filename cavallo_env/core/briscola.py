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
from . import extension
from .bots import BotTables
from .tables import REWARDS, RNGS, CoreTables, deck_array, where_array  # noqa: F401  (REWARDS, RNGS: public here too)

OBS_SIZE = 376  # briscola-obs/1 (cavallo_env.briscola.encoding.OBS_SIZE)
STATE_SIZE = 578  # briscola-state/1 (cavallo_env.briscola.encoding.STATE_SIZE)


class BriscolaTables(BotTables, CoreTables):
    """n Briscola tables on the compiled core (see the module doc)."""

    NUM_ACTIONS = NUM_CARDS
    ACTION_WORD = "card id"
    HAS_DECKS = True
    OBS_SIZE = OBS_SIZE
    STATE_SIZE = STATE_SIZE
    PRIOR_SIZE = 2 * NUM_CARDS  # briscola-prior/1 (cavallo_env.briscola.prior.PRIOR_SIZE)

    def __init__(self, n: int, reward: str = "points", rng: str = "python"):
        super().__init__(n, reward, rng, extension("briscola"))

    # -- deals ---------------------------------------------------------------------
    def reset(self, seeds, decks="milanesi", where=None):
        """Deal table i from ``seeds[i]`` (with ``rng="python"``: as ``random_deal(seeds[i], deck)``);
        only where ``where`` is true if given.  Returns ``(current, mask)``.
        """
        return self._reset_seeded(seeds, decks, where)

    def reset_deals(self, ids, leaders, decks="milanesi", where=None):
        """Start table i from ``ids[i]`` (40 card ids: hands 0:3 and 3:6, trump 6, stock 7:, top
        first) led by ``leaders[i]``.  Returns ``(current, mask)``."""
        ids, leaders = self._deal_arrays(ids, leaders)
        decks, where = deck_array(decks, self.n), where_array(where, self.n)
        self._tables.reset_deals(ids, leaders, decks, where)
        return self._after_reset(where)

    @classmethod
    def _engine_deals(cls, seeds, decks):
        pairs = [deal_ids(random_deal(int(s), DECKS[d])) for s, d in zip(seeds, decks)]
        return np.stack([p[0] for p in pairs]), np.array([p[1] for p in pairs], np.int8), decks

    # -- play ------------------------------------------------------------------------
    def _illegal_move(self, i: int, action: int, snap: dict) -> str:
        deck = DECKS[snap["deck"]]
        hand = sorted(snap["hands"][snap["current"]])
        legal = ", ".join(f"{c} ({NAMES[deck][c]})" for c in hand)
        return f"is not a card in the hand of seat {snap['current']}; legal: {legal}"


def deal_ids(state: BriscolaState) -> tuple[np.ndarray, int]:
    """The deal ``state`` started from as ``(ids (40,), leader)``, the form ``reset_deals`` takes."""
    (h0, h1), trump, stock, leader = state.initial
    return np.array([*h0, *h1, trump, *stock], np.int8), leader


seeded_deals_agree = BriscolaTables.seeded_deals_agree  # whether the core deals a seed as random_deal


__all__ = ["BriscolaTables", "OBS_SIZE", "STATE_SIZE", "REWARDS", "RNGS", "deal_ids", "seeded_deals_agree"]
