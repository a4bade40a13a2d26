"""Briscola's heuristic prior: the ``heuristic`` bot's opinion of every action, as model input.

Briscola's action is the card played (``briscola-actions/1``: action id =
card id, 40 actions), so the prior is two blocks of 40 floats:

- ``score``: for each legal card, ``HeuristicBot``'s score of playing it
  minus the best legal card's score (0 for the best, negative for the
  rest), clipped at ``-CLIP``; 0 for illegal cards.
- ``choice``: 1.0 at the card ``heuristic`` plays, 0 elsewhere.

Units and ``CLIP``: the scores are in Briscola *card points* (A 11, 3 10,
K 4, Q 3, J 2; 120 in a deal): mid-game the gain or loss of the trick less
the keep value of the card; in the endgame (at most one card in the stock)
the exact minimax point difference, where the solver adds 1000 for a won
deal, so a card that turns a win into a loss is 1000+ points worse.
``CLIP = 22.0``, the most one trick can hold (two aces): it keeps every
mid-game difference (they stay within a trick's worth, a trump's keep value
included) and maps "this card loses the deal" to one saturated value
instead of a -1000 that would swamp the other inputs.  (Cavalloìcera's prior
clips at 8 of its own points; a Briscola point is worth far less.)

It is computed from what the seat to act sees (``Know.from_state``: its
hand, the trump card, the cards played, the trick, the points and the
stock size; in the endgame the other hand follows from those), so a model
that reads it sees nothing hidden, and ``heuristic_move`` is exactly the
move ``HeuristicBot().choose(view)`` plays (the same scores, the same
tie-break: the lowest card id).
"""

from __future__ import annotations

import functools

import numpy as np

from ..games.priors import PriorCache, cleared, write_prior
from .bots import HeuristicBot, Know
from .cards import NUM_CARDS

PRIOR_VERSION = "briscola-prior/1"
NUM_ACTIONS = NUM_CARDS
PRIOR_SIZE = 2 * NUM_ACTIONS
CLIP = 22.0

_bot = functools.cache(HeuristicBot)  # one shared bot, made on first use


def card_scores(state, cache: PriorCache | None = None) -> tuple[list, list, int]:
    """``(legal cards, their heuristic scores, the heuristic's card)`` for the seat to play."""
    turn = len(state.moves)
    if cache is not None and cache.holds(state, turn):
        return cache.legal, cache.scores, cache.best

    legal = state.legal_moves()
    scores = _bot().know_scores(Know.from_state(state, state.current), legal)
    # HeuristicBot.choose_move: the highest score, ties to the lowest card id
    best_i = 0
    for i in range(1, len(legal)):
        s, b = scores[i], scores[best_i]
        if s > b or (s == b and legal[i] < legal[best_i]):
            best_i = i
    best = legal[best_i]
    if cache is not None:
        cache.keep(state, turn, legal, scores, best)
    return legal, scores, best


def heuristic_move(state, cache: PriorCache | None = None) -> int:
    """The card the ``heuristic`` bot plays in ``state``, computed from the state (no view round trip)."""
    legal = state.legal_moves()
    if len(legal) == 1:
        return legal[0]
    return card_scores(state, cache)[2]


def action_prior(state, out: np.ndarray | None = None, cache: PriorCache | None = None) -> np.ndarray:
    """The ``PRIOR_SIZE`` prior of the seat to play in ``state`` (written into ``out`` if given)."""
    out = cleared(out, PRIOR_SIZE)
    if state.done:
        return out
    legal, scores, best = card_scores(state, cache)
    return write_prior(out, dict(zip(legal, scores)), best, CLIP, NUM_ACTIONS)


__all__ = ["PRIOR_VERSION", "PRIOR_SIZE", "CLIP", "PriorCache", "card_scores", "heuristic_move", "action_prior"]
