"""Cavalloìcera's learning interface (``cavallo_env.games.learning``): tables over ``CavalloiceraActions``.

The observation is ``cavalloicera-obs/1`` (702 floats), gathered from the
full-information vector ``Features`` keeps up to date move by move; the prior
is ``heuristic-prior/1`` (``prior.action_prior``, 312 floats).  The heuristic's
move and the prior share one cache per turn, so a rollout that asks both pays
for the heuristic once.
"""

from __future__ import annotations

import numpy as np

from ..games.learning import Learning, PriorTable
from .actions import ACTION_VERSION, NUM_ACTIONS, CavalloiceraActions, move_to_actions
from .encoding import OBS_BUILD, OBS_INDEX, OBS_SIZE, OBS_VERSION, Features
from .engine import CavalloiceraState, random_deal
from .prior import PRIOR_SIZE, PRIOR_VERSION, PriorCache, action_prior, heuristic_move


class CavalloiceraTable(PriorTable):
    __slots__ = ("game", "state", "feats", "cache")
    action_prior = staticmethod(action_prior)
    heuristic = staticmethod(heuristic_move)

    def __init__(self, state: CavalloiceraState, buf: np.ndarray | None = None):
        self.game = CavalloiceraActions(state)
        self.state = state
        self.feats = Features(buf)
        self.feats.reset(state)
        self.cache = PriorCache()

    def step(self, action: int):
        game = self.game
        moved = game.step(action)
        if moved is None:
            self.feats.set_building(game.building)
        else:
            self.feats.after_move(self.state)
        return moved

    def move_actions(self, move) -> list[int]:
        return move_to_actions(self.state, move[0], move[1])

    def observation(self, seat: int, out: np.ndarray) -> None:
        self.feats.s.take(OBS_INDEX[seat], out=out)
        if self.feats._built and seat != self.state.current:  # the capture being built is the actor's
            out[OBS_BUILD] = 0.0

    def returns(self, reward: str = "points") -> list[float]:
        r = self.state.returns(reward)
        return [r[0], r[1]]


class CavalloiceraLearning(Learning, game="cavalloicera", table=CavalloiceraTable, obs=(OBS_SIZE, OBS_VERSION),
                           actions=(NUM_ACTIONS, ACTION_VERSION), prior=(PRIOR_SIZE, PRIOR_VERSION)):
    """Cavalloìcera's learning interface (see the module doc)."""
    num_seats = 4

    def deal(self, seed: int, **options) -> CavalloiceraState:
        return CavalloiceraState(*random_deal(seed))


LEARNING = CavalloiceraLearning()
