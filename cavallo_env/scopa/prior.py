"""Scopa's heuristic prior: the ``heuristic`` bot's opinion of every action, as model input.

Built like Cavalloìcera's (``cavallo_env.cavalloicera.prior``) over Scopa's
``Discrete(120)`` actions (place / capture with / take, ``scopa.actions``):
two blocks of ``NUM_ACTIONS`` floats:

- ``score``: for each legal action, the heuristic score of the best move it
  can still lead to, minus the best legal move's score (0 for the best,
  negative for the rest), clipped at ``-CLIP``; 0 for illegal actions.  At
  the first step of a turn "place c" is the move (c, nothing) and "capture
  with c" the best capture of c; while a capture is built, "take t" is the
  best set still consistent with the cards taken plus t.
- ``choice``: 1 for the action that leads to the move ``heuristic`` plays
  (at a capture step: the heuristic's set if it is still consistent, else the
  best consistent set, ties to the first in the rules' order as the bot
  breaks them), 0 elsewhere.

Units and ``CLIP``: ``heuristic_scores`` are in expected *deal points* (a
scopa is 1, the settebello 1, money, cards and primiera cards fractions of a
point, less the other seat's expected best answer), as Cavalloìcera's, so
``CLIP = 8.0`` is kept: no legal move is ever that far below the best (a
swing of a scopa, the settebello and an answer is 3-4 points), so the clip
is only a guard.

It is computed from what the deciding seat sees: the heuristic's ``Info`` is
built straight from the state (``info_of``) out of the seat's hand, the
table, the piles, the scopas, the sizes of the other hand and the stock and
the plays so far; the unseen cards are the complement of what is seen, never
read from the other hand or the stock.  ``heuristic_move`` is exactly the move
``HeuristicBot().choose(view)`` plays.
"""

from __future__ import annotations

import numpy as np

from ..games.priors import PriorCache, capture_prior, cleared, write_prior
from .actions import CAPTURE, NUM_ACTIONS, PLACE, TAKE
from .bots import Info, heuristic_scores
from .engine import NUM_PLAYS, SEVEN, STOCK_SIZE

PRIOR_VERSION = "scopa-prior/1"
PRIOR_SIZE = 2 * NUM_ACTIONS
CLIP = 8.0

_ALL = tuple(range(40))


def info_of(state):
    """The heuristic's ``Info`` of the seat to play, from what it sees in ``state`` (no view).

    Field by field what ``Info(make_view(state, seat))`` holds.
    """

    deal = state.deal
    seat = deal.current
    i = Info.__new__(Info)
    i.seat = seat
    i.dealer = deal.dealer
    money = state.money
    i.money = money
    i.sette = money * 10 + SEVEN
    hand = deal.hands[seat]
    table = deal.table
    piles = deal.piles
    i.hand = hand[:]
    i.table = table[:]
    i.piles = [piles[0][:], piles[1][:]]
    i.scope = deal.scope[:]
    seen = set(hand)
    seen.update(table)
    seen.update(piles[0])
    seen.update(piles[1])
    i.unseen = [c for c in _ALL if c not in seen]
    i.opp_hand = len(deal.hands[1 - seat])
    i.stock = STOCK_SIZE - deal.stock_pos
    i.plays_left = NUM_PLAYS - deal.turn
    i.last_capturer = deal.last_capturer
    if deal.done and state.results:  # totals_before_deal (never the case for a seat to play)
        p = state.results[-1]["points"]
        i.totals = [state.totals[0] - p[0], state.totals[1] - p[1]]
    else:
        i.totals = state.totals[:]
    return i


def move_scores(state, cache: PriorCache | None = None) -> tuple[dict, tuple]:
    """``({move: heuristic score}, the heuristic's move)`` for the turn in progress."""
    deal = state.deal
    if cache is not None and cache.holds(deal, deal.turn):
        return cache.scores, cache.best

    legal = deal.legal_moves()
    scores = heuristic_scores(info_of(state), legal)
    # HeuristicBot.choose_move: the highest score, ties to the first legal move
    bi = 0
    bs = scores[0]
    for i in range(1, len(scores)):
        if scores[i] > bs:
            bi, bs = i, scores[i]
    best = legal[bi]
    by_move = dict(zip(legal, scores))
    if cache is not None:
        cache.keep(deal, deal.turn, legal, by_move, best)
    return by_move, best


def heuristic_move(game, cache: PriorCache | None = None) -> tuple:
    """The move the ``heuristic`` bot plays in ``game`` (a ``ScopaActions`` between turns;
    the turn's move, whatever has been built), computed from the state."""
    legal = game.state.deal.legal_moves()
    if len(legal) == 1:
        return legal[0]
    return move_scores(game.state, cache)[1]


def action_prior(game, out: np.ndarray | None = None, cache: PriorCache | None = None) -> np.ndarray:
    """The ``PRIOR_SIZE`` prior of the seat to act in ``game`` (a ``ScopaActions``), into ``out`` if given."""
    out = cleared(out, PRIOR_SIZE)
    if game.done:
        return out
    scores, best_move = move_scores(game.state, cache)
    best_of, choice = capture_prior(game.building, scores, best_move, (PLACE, CAPTURE, TAKE), False)
    return write_prior(out, best_of, choice, CLIP, NUM_ACTIONS)


__all__ = ["PRIOR_VERSION", "PRIOR_SIZE", "CLIP", "PriorCache", "info_of", "move_scores", "heuristic_move",
           "action_prior"]
