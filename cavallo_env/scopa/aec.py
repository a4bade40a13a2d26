"""The PettingZoo AEC environment of Scopa (docs/contract.md, "Scopa"): ``ScopaEnv``,
a ``games.cardenv.CardEnv`` (``raw_env(**kwargs)``); ``env(**kwargs)`` wraps it
(``games.cardenv.wrap``: an illegal action ends the episode with -1 for its agent).

Keywords: ``render_mode`` (``None``, ``"ansi"``, ``"human"``), ``deck``
(``"milanesi"``, the default, or ``"bresciane"``), ``match`` (``True``, the
default: an episode is a whole match to 11; ``False``: one deal) and
``reward`` (``"win"``, the default: +1/-1 to the winner/loser when the match
ends, or +1/0/-1 for a single deal; ``"points"``: each deal's point
difference, paid when that deal ends, mid-episode in a match).

Agents ``player_0`` and ``player_1`` (seat i).  Action space ``Discrete(120)``
(``cavallo_env.scopa.actions``: place / capture with / take).  Observation:
``{"observation": float32 (388,), "action_mask": int8 (120,)}``, layout
``scopa-obs/1`` (``cavallo_env.scopa.encoding``), nothing hidden.
``reset(options={"deal": {"dealer": 0 | 1, "hands": [[3 names] x2], "table":
[4 names], "stock": [30 names, top first]}})`` starts the first deal from
that exact deal; the later deals of a match are drawn from the env's
generator (``np_random``, seeded by ``reset(seed=...)``).

Registered with PettingZoo's registry as ``"cavallo/Scopa-v1"``.
"""

from __future__ import annotations

import random

import numpy as np

from ..core.scopa import REWARDS as _CORE_REWARDS  # the core's reward codes, in the order of its C enum
from ..games.cardenv import CardEnv, CoreTable, core_extension, metadata_of, wrap
from . import ENV_ID, GAME
from .actions import ACTION_VERSION, NUM_ACTIONS, ScopaActions, action_name
from .encoding import OBS_SIZE, OBS_VERSION, STATE_SIZE, STATE_VERSION, Features, state_vector
from .engine import DECKS, MONEY_SUIT, ScopaDeal, ScopaState, kings_on_table, split_deck, state_from_deal
from .views import render_text

#: the generator of a single-deal state, which never draws a later deal
_NO_DRAW = random.Random(0)

__all__ = ["ScopaEnv", "raw_env", "env", "ENV_ID", "ACTION_VERSION", "OBS_VERSION", "STATE_VERSION"]


class ScopaEnv(CardEnv):
    """Scopa, a match to 11 (or one deal) per episode, agents ``player_0`` and ``player_1``."""

    GAME = GAME
    features_type = Features
    num_actions = NUM_ACTIONS
    obs_size = OBS_SIZE
    state_size = STATE_SIZE
    rewards_allowed = ("win", "points")

    metadata = metadata_of("scopa_v1", OBS_VERSION, STATE_VERSION, ACTION_VERSION)

    def __init__(self, render_mode: str | None = None, deck: str = "milanesi", match: bool = True,
                 reward: str = "win"):
        if not isinstance(deck, str) or deck not in MONEY_SUIT:
            raise ValueError(f"deck must be one of {', '.join(map(repr, DECKS))}, got {deck!r:.40}")
        if not isinstance(match, bool):
            raise ValueError(f"match must be True (a match to 11) or False (one deal), got {match!r:.40}")
        self.deck = deck
        self.match = match
        super().__init__(render_mode=render_mode, reward=reward)

    # -- hooks -----------------------------------------------------------------
    def _start(self, deal):
        """The match's ``ScopaActions``, or on the compiled core its ``CoreTable`` (the same numbers
        drawn from ``np_random``; the later deals of a match from the same ``random.Random``)."""
        ext = core_extension("scopa")
        if deal is None:
            npr = self.np_random
            dealer = int(npr.integers(2))
            while True:  # a table with three or four kings is dealt again by the same dealer
                order = npr.permutation(40).tolist()
                if kings_on_table(order[6:10]) < 3:
                    break
            given = None
        else:
            given = state_from_deal(deal, self.deck, self.match)  # ValueError saying what is wrong
            d = given.deal
            dealer, order = d.dealer, [*d.initial_hands[0], *d.initial_hands[1], *d.initial_table, *d.initial_stock]
        seed = int(self.np_random.integers(2**63)) if self.match else None  # the later deals of a match
        make = self._maker(order, dealer, given, seed)
        if ext is None:
            core = make()
            self._features.reset(core.state)
            return core
        tables = self.__dict__.get("_tables")
        if tables is None:
            tables = self._tables = ext.Tables(1, True, self.match)
        tables.reset_deals(np.array([order], np.int8), np.array([dealer], np.int8), np.array([seed or 0], np.uint64),
                           np.array([DECKS.index(self.deck)], np.uint8))
        return CoreTable(tables, make, ScopaActions.step, _CORE_REWARDS.index(self.reward_type))

    def _maker(self, order, dealer, given, seed):
        """A function building the episode's ``ScopaActions`` at its start."""
        deck, match = self.deck, self.match

        def make():
            state = given.copy() if given is not None else \
                ScopaState(ScopaDeal(*split_deck(order, dealer), money=MONEY_SUIT[deck]), deck, match, _NO_DRAW)
            if seed is not None:
                state.rng = random.Random(seed)
            return ScopaActions(state)
        return make

    def _act(self, action: int):
        core = self._core
        if core.__class__ is CoreTable:
            return self._core_act(core, action)
        moved = core.step(action)
        self._features.after_action(core, moved)
        pts = core.last_points
        if moved is None or pts is None:  # a capture being built, or a move inside a deal
            return None
        state = core.state
        if self.reward_type == "points":
            d = pts[0] - pts[1]
            return [d, -d]
        if state.done:
            return state.returns("win")
        return None

    def _core_act(self, core: CoreTable, action: int):
        """``_act`` on the core: its rewards are the env's (a deal ending 0-0 in points pays zeros, as
        paying nothing shows)."""
        core.step(action)
        r = core.tables.rewards[0]
        if not core.done and not r[0]:
            return None
        d = int(r[0])
        return [d, -d] if self.reward_type == "points" else [float(d), float(-d)]

    def _python_state(self):
        core = self._core
        return state_vector(core.state, core.building)

    def _info(self) -> dict:
        core = self._core
        if core.__class__ is CoreTable and not self.match:  # one deal: the core's figures, no replay
            snap = core.tables.snapshot(0)
            return {"result": {"totals": snap["totals"], "winner": snap["winner"]},
                    "deals": [snap["last_result"]["points"]]}
        state = self._engine_core().state
        return {"result": state.result(), "deals": [r["points"][:] for r in state.results]}

    def _python_copy(self, d: dict) -> None:
        core = d["_core"] = self._core.py.copy()
        f = d["_features"] = Features()
        f.reset(core.state, core.building)

    def _illegal_context(self) -> str:
        b = self._engine_core().building if self._core is not None else None
        if b is None:
            return ""
        names = self._engine_core().state.names
        taken = f", taken so far: {', '.join(names[t] for t in b[1])}" if b[1] else ""
        return f", building a capture with {names[b[0]]}{taken}"

    # -- extras ------------------------------------------------------------------
    @property
    def state_obj(self) -> ScopaState:
        """The engine state (read only)."""
        return self.core.state

    def render_text(self) -> str:
        core = self._engine_core()
        return render_text(core.state, core.building)

    def action_name(self, action) -> str:
        return action_name(action, self.deck)


raw_env = ScopaEnv


def env(**kwargs):
    """The wrapped environment: an illegal action gives that agent -1 and ends the episode."""
    return wrap(ScopaEnv(**kwargs))
