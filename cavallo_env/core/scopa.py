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

import numpy as np

from ..scopa.actions import action_name
from ..scopa.cards import DECKS
from ..scopa.engine import random_state
from . import extension
from .bots import BotTables
from .tables import RNGS, CoreTables, deck_array, seed_array, where_array  # noqa: F401  (RNGS: public here too)

NUM_ACTIONS = 120  # scopa-actions/1
OBS_SIZE = 388  # scopa-obs/1 (cavallo_env.scopa.encoding.OBS_SIZE)
STATE_SIZE = 420  # scopa-state/1 (cavallo_env.scopa.encoding.STATE_SIZE)
REWARDS = ("win", "points")  # the env's, in the order of the C enum


class ScopaTables(BotTables, CoreTables):
    """n Scopa tables on the compiled core (see the module doc)."""

    NUM_ACTIONS = NUM_ACTIONS
    REWARDS = REWARDS
    DEAL_SEAT = "dealer"
    HAS_DECKS = True
    OVER = "match"
    OBS_SIZE = OBS_SIZE
    STATE_SIZE = STATE_SIZE
    PRIOR_SIZE = 2 * NUM_ACTIONS  # scopa-prior/1 (cavallo_env.scopa.prior.PRIOR_SIZE)

    def __init__(self, n: int, match: bool = True, reward: str = "win", rng: str = "python"):
        if not isinstance(match, bool):
            raise ValueError(f"match must be True (a match to 11) or False (one deal), got {match!r:.40}")
        self.match = match
        super().__init__(n, reward, rng, extension("scopa"), match)

    # -- deals ---------------------------------------------------------------------
    def reset(self, seeds, decks="milanesi", where=None):
        """Start table i from ``seeds[i]`` (with ``rng="python"``: as ``random_state(seeds[i], deck, match)``);
        only where ``where`` is true if given.  Returns ``(current, mask)``."""
        return self._reset_seeded(seeds, decks, where)

    def reset_deals(self, ids, dealers, seeds=None, decks="milanesi", bases=None, where=None):
        """Start table i from the first deal ``ids[i]`` (40 card ids, ``split_deck``'s order) dealt by
        ``dealers[i]``, its generator seeded with ``seeds[i]`` (default 0) for the later deals and the
        random moves; ``bases`` (n, 2): match totals carried in.  Returns ``(current, mask)``."""
        ids, dealers = self._deal_arrays(ids, dealers)  # and check_ids: no table with three or four kings
        seeds = np.zeros(self.n, np.uint64) if seeds is None else seed_array(seeds, self.n)
        decks = deck_array(decks, self.n)
        if bases is not None:
            bases = np.ascontiguousarray(bases, dtype=np.int16)
            if bases.shape != (self.n, 2) or (bases < 0).any():
                raise ValueError(f"bases must be {self.n} pairs of totals >= 0, shape ({self.n}, 2)")
        where = where_array(where, self.n)
        self._tables.reset_deals(ids, dealers, seeds, decks, bases, where)
        return self._after_reset(where)

    @classmethod
    def _engine_deals(cls, seeds, decks):
        pairs = [deal_ids(random_state(int(s), DECKS[d]).deal) for s, d in zip(seeds, decks)]
        return np.stack([p[0] for p in pairs]), np.array([p[1] for p in pairs], np.int8), seeds, decks, None

    def _fallback_deals(self, seeds, decks):
        raise RuntimeError("this Python's random.Random differs from the core's Mersenne Twister (a match's "
                           "later deals come from it): use rng='fast' or the Python engine")

    @staticmethod
    def check_ids(ids: np.ndarray) -> None:
        _check_kings(ids)

    # -- play ------------------------------------------------------------------------
    def random_actions(self) -> np.ndarray:
        """int32 (n,): a random legal action at every table (-1 where over): between turns the first
        action of a uniformly random legal move (with ``rng="python"``: ``random_playout``'s), then the
        take actions of its capture."""
        return super().random_actions()

    def captures(self, i: int, card: int) -> list:
        """The legal capture sets of ``card`` at table i, in the engine's order."""
        return self._tables.captures(i, card)

    def _illegal_move(self, i: int, action: int, snap: dict) -> str:
        deck = DECKS[snap["deck"]]
        legal = ", ".join(f"{a} ({action_name(a, deck)})" for a in np.flatnonzero(self.mask[i]).tolist())
        return f"({action_name(action, deck)}) is illegal for seat {snap['current']}; legal: {legal}"


def _check_kings(ids: np.ndarray) -> None:
    kings = (ids[:, 6:10] % 10 == 9).sum(axis=1)
    bad = np.flatnonzero(kings >= 3)
    if bad.size:
        raise ValueError(f"table {bad[0]}: the table holds {kings[bad[0]]} kings; a table with three or four "
                         "kings is dealt again")


def deal_ids(deal) -> tuple[np.ndarray, int]:
    """A ``ScopaDeal`` as dealt, ``(ids (40,), dealer)``: the form ``reset_deals`` takes."""
    h0, h1 = deal.initial_hands
    return np.array([*h0, *h1, *deal.initial_table, *deal.initial_stock], np.int8), deal.dealer


seeded_deals_agree = ScopaTables.seeded_deals_agree  # whether the core deals a seed as random_state

__all__ = ["ScopaTables", "NUM_ACTIONS", "OBS_SIZE", "STATE_SIZE", "REWARDS", "RNGS", "deal_ids", "seeded_deals_agree"]
