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

from ..games.cardenv import CardEnv, metadata_of, wrap
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

    metadata = metadata_of("briscola_v1", OBS_VERSION, STATE_VERSION, ACTION_VERSION)

    def __init__(self, render_mode: str | None = None, reward: str = "points", deck: str = "milanesi"):
        if not isinstance(deck, str) or deck not in DECKS:
            raise ValueError(f"deck must be one of {', '.join(map(repr, DECKS))}, got {deck!r}")
        self.deck = deck
        super().__init__(render_mode=render_mode, reward=reward)

    # -- hooks -----------------------------------------------------------------
    def _start(self, deal) -> BriscolaState:
        if deal is None:
            rng = self.np_random
            ids = rng.permutation(NUM_CARDS).tolist()
            state = BriscolaState((ids[0:3], ids[3:6]), ids[6], ids[7:], int(rng.integers(2)), self.deck)
        else:
            state = BriscolaState.from_deal(deal, self.deck)  # ValueError saying what is wrong
        self._features.reset(state)
        return state

    def _act(self, action: int):
        core = self._core
        core.play(action)
        self._features.after_move(core)
        if core.done:
            return core.returns(self.reward_type)
        return None

    def _observation(self, seat: int, acting: bool):
        return self._features.observation(seat)

    def _state_vector(self):
        return self._features.state()

    def _info(self) -> dict:
        return {"result": self._core.result()}

    # -- extras ----------------------------------------------------------------
    def render_text(self) -> str:
        return render_text(self._core)

    def action_name(self, action) -> str:
        if action.__class__ is int and 0 <= action < NUM_CARDS:
            return NAMES[self.deck][action]
        return f"not a card id: {action!r:.40}"


raw_env = BriscolaEnv


def env(**kwargs):
    """The wrapped environment: an illegal action gives -1 to that agent and ends the deal."""
    return wrap(BriscolaEnv(**kwargs))
