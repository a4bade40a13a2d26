"""Scopa's learning interface (``cavallo_env.games.learning``): tables over ``ScopaActions``.

Actions are ``scopa-actions/1`` (``Discrete(120)``: place / capture with /
take, a capture built over several actions).  The observation is
``scopa-obs/1`` (388 floats) from the per-seat buffers ``Features`` keeps up
to date move by move, exactly as the env keeps them (``scopa.aec``: the
capture being built, every move, a new deal of the match, the last move);
the prior is ``scopa-prior/1`` (``prior.action_prior``, 240 floats).  The
heuristic's move and the prior share one cache per turn.  A deal's last round
(the stock empty) is ``solvable``: ``endgame.solve`` plays it exactly.

``deal(seed, deck=..., match=...)`` is ``games.get("scopa").new_state``: a
whole match to 11 by default (the later deals drawn from the state's own
generator), or one deal with ``match=False``.
"""

from __future__ import annotations

import numpy as np

from ..games.learning import Learning, PriorTable
from . import endgame
from .actions import ACTION_VERSION, NUM_ACTIONS, ScopaActions, move_to_actions
from .encoding import OBS_SIZE, OBS_VERSION, Features
from .engine import ScopaState
from .prior import PRIOR_SIZE, PRIOR_VERSION, PriorCache, action_prior, heuristic_move


class ScopaTable(PriorTable):
    __slots__ = ("game", "state", "feats", "cache")
    action_prior = staticmethod(action_prior)
    heuristic = staticmethod(heuristic_move)

    def __init__(self, state: ScopaState):
        self.game = ScopaActions(state)
        self.state = state
        self.feats = Features()
        self.feats.reset(state)
        self.cache = PriorCache()

    def step(self, action: int):
        moved = self.game.step(action)
        self.feats.after_action(self.game, moved)
        return moved

    def move_actions(self, move) -> list[int]:
        return move_to_actions(self.state, move)

    def observation(self, seat: int, out: np.ndarray) -> None:
        out[:] = self.feats.obs[seat]

    def returns(self, reward: str = "win") -> list[float]:
        """The env's rewards at the end, summed over the episode: ``"win"`` (the env's default)
        +1/-1 to the match winner (+1/0/-1 for a single deal); ``"points"`` the point
        difference (the match totals', i.e. the sum of the per-deal payments)."""
        return self.state.returns(reward)


class ScopaLearning(Learning, game="scopa", table=ScopaTable, obs=(OBS_SIZE, OBS_VERSION),
                    actions=(NUM_ACTIONS, ACTION_VERSION), prior=(PRIOR_SIZE, PRIOR_VERSION)):
    """Scopa's learning interface (see the module doc)."""

    def solvable(self, state: ScopaState) -> bool:
        """The last round of a deal (the stock empty: nothing hidden), with a choice to make."""
        return endgame.solvable(state)

    def searched(self, state: ScopaState) -> bool:
        """The second card of a round while the stock lasts (a seat's 5 of 18 decisions in a
        deal, so a decision's median time stays the model's): searching there measured
        +3.2 points of deals won against ``heuristic`` (docs/bots.md, "The model with a search")."""
        deal = state.deal
        return not state.done and deal.stock_size > 0 and len(deal.hands[deal.current]) == 2

    def solve(self, state: ScopaState, prefer):
        return endgame.solve(state, prefer)


LEARNING = ScopaLearning()
