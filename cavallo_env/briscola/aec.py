"""The PettingZoo AEC environment of Briscola (docs/contract.md, "Briscola"):
``BriscolaEnv``, a ``games.cardenv.CardEnv``; ``raw_env(**kwargs)`` is the bare
env, ``env(**kwargs)`` the one with PettingZoo's classic wrappers (``games.cardenv.wrap``).

Keywords: ``render_mode`` (``None``, ``"ansi"``, ``"human"``), ``reward``
(``"points"``: own card points minus the other's at the end of the deal, the
default; ``"win"``: +1/0/-1) and ``deck`` (``"milanesi"``, the default, or
``"bresciane"``: card names only, the rules are the same).

Agents ``player_0`` and ``player_1`` (seat i).  Action space ``Discrete(40)``:
play the card with that id; the mask is the hand of the agent to act.
Observation: ``{"observation": float32 (376,), "action_mask": int8 (40,)}``,
layout ``briscola-obs/1`` (``cavallo_env.briscola.encoding``), nothing hidden.
``reset(options={"deal": {"hands": [[3 names] x2], "trump": name, "stock":
[33 names, top first], "leader": 0 | 1}})`` starts from that exact deal.
"""

from __future__ import annotations

import numpy as np

from ..games.cardenv import CardEnv, CoreTable, core_extension, metadata_of, wrap
from . import GAME
from .cards import DECKS, NAMES, NUM_CARDS
from .encoding import OBS_SIZE, OBS_VERSION, STATE_SIZE, STATE_VERSION, Features
from .engine import BriscolaState
from .views import render_text  # also importable from here, where it lived

ACTION_VERSION = "briscola-actions/1"

__all__ = ["BriscolaEnv", "raw_env", "env", "ACTION_VERSION", "OBS_VERSION", "STATE_VERSION"]


class BriscolaEnv(CardEnv):
    """Briscola, one deal per episode, agents ``player_0`` and ``player_1``."""

    GAME = GAME
    features_type = Features
    num_actions = NUM_CARDS
    obs_size = OBS_SIZE
    state_size = STATE_SIZE
    _result = None  # on the compiled core: the result of the deal, once over (``_info``)

    metadata = metadata_of("briscola_v1", OBS_VERSION, STATE_VERSION, ACTION_VERSION)

    def __init__(self, render_mode: str | None = None, reward: str = "points", deck: str = "milanesi"):
        if not isinstance(deck, str) or deck not in DECKS:
            raise ValueError(f"deck must be one of {', '.join(map(repr, DECKS))}, got {deck!r}")
        self.deck = deck
        super().__init__(render_mode=render_mode, reward=reward)

    # -- hooks -----------------------------------------------------------------
    def _start(self, deal):
        """The deal's ``BriscolaState``, or on the compiled core its ``CoreTable`` (the same numbers
        drawn from ``np_random``)."""
        ext = core_extension("briscola")
        if deal is None:
            rng = self.np_random
            ids = rng.permutation(NUM_CARDS).tolist()
            leader = int(rng.integers(2))
            state = None
        else:
            state = BriscolaState.from_deal(deal, self.deck)  # ValueError saying what is wrong
            (h0, h1), trump, stock, leader = state.initial
            ids = [*h0, *h1, trump, *stock]
        if ext is None:
            if state is None:
                state = BriscolaState((ids[0:3], ids[3:6]), ids[6], ids[7:], leader, self.deck)
            self._features.reset(state)
            return state
        tables = self.__dict__.get("_tables")
        if tables is None:
            tables = self._tables = ext.Tables(1, False)
        tables.reset_deals(np.array([ids], np.int8), np.array([leader], np.int8),
                           np.array([DECKS.index(self.deck)], np.uint8))
        deck = self.deck
        make = (lambda: BriscolaState((ids[0:3], ids[3:6]), ids[6], ids[7:], leader, deck)) if state is None else \
            (lambda: state)
        return CoreTable(tables, make, BriscolaState.play)

    def _act(self, action: int):
        core = self._core
        if core.__class__ is CoreTable:
            core.step(action)
            if core.done:
                self._result = _core_result(core.tables)
                return _returns(self._result["points"], self.reward_type)
            return None
        core.play(action)
        self._features.after_move(core)
        if core.done:
            return core.returns(self.reward_type)
        return None

    def _info(self) -> dict:
        core = self._core
        return {"result": self._result if core.__class__ is CoreTable else core.result()}

    def _python_copy(self, d: dict) -> None:
        state = d["_core"] = self._core.py.copy()
        f = d["_features"] = Features()
        f.reset(state)

    # -- extras ----------------------------------------------------------------
    def render_text(self) -> str:
        return render_text(self._engine_core())

    def action_name(self, action) -> str:
        if action.__class__ is int and 0 <= action < NUM_CARDS:
            return NAMES[self.deck][action]
        return f"not a card id: {action!r:.40}"


def _core_result(tables) -> dict:
    """``BriscolaState.result()`` of the core's finished table 0 (the same dict)."""
    snap = tables.snapshot(0)
    p0, p1 = snap["points"]
    return {"points": [p0, p1], "tricks": snap["tricks"], "winner": None if p0 == p1 else 0 if p0 > p1 else 1}


def _returns(points, reward: str) -> list[float]:
    """``BriscolaState.returns``: the point difference, or +1/0/-1 with ``reward="win"``."""
    d = points[0] - points[1]
    if reward == "win":
        d = (d > 0) - (d < 0)
    return [float(d), float(-d)]


raw_env = BriscolaEnv


def env(**kwargs):
    """The wrapped environment: an illegal action gives -1 to that agent and ends the deal."""
    return wrap(BriscolaEnv(**kwargs))
