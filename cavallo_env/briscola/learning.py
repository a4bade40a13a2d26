"""Briscola's learning interface (``cavallo_env.games.learning``): tables over ``BriscolaState``.

An action is the card played (``briscola-actions/1``, 40 actions), so every
action completes a move.  The observation is ``briscola-obs/1`` (376 floats),
a gather from the full-information vector ``Features`` keeps up to date card
by card (as the env does); the prior is ``briscola-prior/1``
(``prior.action_prior``, 80 floats).  The heuristic's move and the prior share
one cache per turn.
"""

from __future__ import annotations

import numpy as np

from ..games.learning import Learning, PriorTable
from .cards import NUM_CARDS
from .encoding import OBS_INDEX, OBS_SIZE, OBS_VERSION, Features
from .engine import BriscolaState
from .prior import PRIOR_SIZE, PRIOR_VERSION, PriorCache, action_prior, heuristic_move

ACTION_VERSION = "briscola-actions/1"  # == cavallo_env.briscola.aec.ACTION_VERSION
NUM_ACTIONS = NUM_CARDS


class BriscolaTable(PriorTable):
    __slots__ = ("game", "state", "feats", "cache")
    action_prior = staticmethod(action_prior)
    heuristic = staticmethod(heuristic_move)

    def __init__(self, state: BriscolaState, buf: np.ndarray | None = None):
        self.game = self.state = state  # every action is a move: the state is the driver
        self.feats = Features(buf)
        self.feats.reset(state)
        self.cache = PriorCache()

    def legal_actions(self) -> list[int]:
        return self.state.legal_moves()

    def step(self, action: int):
        state = self.state
        state.play(action)
        self.feats.after_move(state)
        return action

    def move_actions(self, move) -> list[int]:
        return [move]

    def observation(self, seat: int, out: np.ndarray) -> None:
        self.feats.s.take(OBS_INDEX[seat], out=out)


class BriscolaLearning(Learning, game="briscola", table=BriscolaTable, obs=(OBS_SIZE, OBS_VERSION),
                       actions=(NUM_ACTIONS, ACTION_VERSION), prior=(PRIOR_SIZE, PRIOR_VERSION)):
    """Briscola's learning interface (see the module doc)."""


LEARNING = BriscolaLearning()
