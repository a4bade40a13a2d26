"""The heuristic prior: the ``heuristic`` bot's opinion of every action, as model input.

A plain MLP over one-hot cards has to rediscover subset sums, picada and scùa
risk and the value of each card before it can play well; behaviour cloning of
``heuristic`` plateaued at 86% agreement, and PPO from there stayed at the
heuristic's level.  A model trained with ``prior: true`` gets, beside the
observation, what the hand-written player thinks of each action, and learns
where to depart from it.  The prior is two blocks of ``NUM_ACTIONS`` floats:

- ``score``: for each legal action, the heuristic score of the best move it
  can still lead to, minus the best legal move's score (so 0 for the best,
  negative for the rest, in points, clipped at ``-CLIP``); 0 for illegal
  actions.  At the first step of a turn, "place c" is the move (c, nothing)
  and "capture with c" the best capture of c; while a capture is built,
  "take t" is the best set still consistent with the cards taken plus t.
- ``choice``: 1 for the action that leads to the move ``heuristic`` plays
  (at a capture step, the best consistent set), 0 elsewhere.

It is computed from what the deciding seat can see (``HeuristicBot
.state_scores``: its hand, the table, the piles and the unseen cards; in the
last round an average over every deal of the unseen cards), so a model that
reads it sees nothing hidden.  Training, the checkpoint bot and the exported
in-game AI all call ``action_prior``; ``PRIOR_VERSION`` is recorded in
checkpoints and exports.
"""

from __future__ import annotations

import functools

import numpy as np

from ..games.priors import PriorCache, capture_prior, cleared, write_prior
from .actions import CAPTURE, NUM_ACTIONS, PLACE, TAKE, CavalloiceraActions
from .bots import HeuristicBot

PRIOR_VERSION = "heuristic-prior/1"
PRIOR_SIZE = 2 * NUM_ACTIONS
CLIP = 8.0

_bot = functools.cache(HeuristicBot)  # one shared bot, made on first use


def move_scores(game: CavalloiceraActions, cache: PriorCache | None = None) -> tuple[dict, tuple]:
    """``({move: heuristic score}, the heuristic's move)`` for the turn in progress."""
    state = game.state
    if cache is not None and cache.holds(state, state.turn):
        return cache.scores, cache.best
    bot = _bot()
    legal = state.legal_moves()
    scores = bot.state_scores(state)
    best = legal[bot.best_index(scores, legal)]
    by_move = dict(zip(legal, scores))
    if cache is not None:
        cache.keep(state, state.turn, legal, by_move, best)
    return by_move, best


def heuristic_move(game: CavalloiceraActions, cache: PriorCache | None = None) -> tuple:
    """The move the ``heuristic`` bot plays in ``game``, computed from the state (no view round trip)."""
    return move_scores(game, cache)[1]


def action_prior(game: CavalloiceraActions, out: np.ndarray | None = None, cache: PriorCache | None = None) -> np.ndarray:
    """The ``PRIOR_SIZE`` prior of the seat to act in ``game`` (written into ``out`` if given)."""
    out = cleared(out, PRIOR_SIZE)
    if game.done:
        return out
    scores, best_move = move_scores(game, cache)
    best_of, choice = capture_prior(game.building, scores, best_move, (PLACE, CAPTURE, TAKE), True)
    return write_prior(out, best_of, choice, CLIP, NUM_ACTIONS)
