"""Scopa's last round solved exactly: once the stock is empty, nothing is hidden.

After the last of a deal's six hands is dealt the stock is empty, so the other
seat's hand is exactly the cards the seat to play has not seen (a state
rebuilt from a view then holds the true hands).  The rest of the deal, at most
six plays, is a small game of perfect information, and ``solve`` searches all
of it.

The outcome is the result first, then the point difference of the match
totals (this deal's points added to the totals before it).  On a single deal
the result is the deal won, drawn or lost.  In a match the deal's own result
does not count, only its points, unless the deal decides the match: then the
match result comes first.  A view does not say whether its deal is a single
one, and a view of a single deal looks like one of a match's first deal
(totals 0-0), so at 0-0 the deal's result comes first.  (There a seat that
reaches 11, which takes seven scopas, wins the match exactly when it wins the
deal.)

The other seat is not supposed perfect: at each of its turns it plays a
worst move for the solver with chance ``1 - SLIP`` and any legal move with
chance ``SLIP``.  So where every move loses against best play the solver
picks the one that gives the other seat the most ways to go wrong, not only
the smallest loss.  A move that wins the result whatever the other seat does
still comes first: the other seat has at most three turns left, so a move
that is not a sure win is worth at most ``1 - 0.7**3`` (about two thirds) of a
win, plus points.  ``slip=0`` is plain minimax, the best guaranteed outcome.  Measured (docs/training.md, "The other seat may slip"):
against `heuristic` and `greedy` the shipped Scopa model with ``SLIP = 0.3``
scored 0.5 to 2 points more than with minimax.  Among moves of the same value
``solve`` keeps the one it was offered first (``prefer``: the policy's own
move).

The policy runtime (``policy:``, option ``endgame``) and the trainer's
``checkpoint:`` bot play the last round with it (``ScopaLearning.endgame``).
"""

from __future__ import annotations

from ..budget import check
from .engine import ScopaDeal, score_deal

__all__ = ["solvable", "solve", "value", "outcome_value", "SLIP"]

_WIN = 1000
_DEAL_WIN = 100
#: the chance the solver gives the other seat, at each of its turns, of any legal move rather than
#: a best one (measured: see the module doc)
SLIP = 0.3
#: values closer than this are equal (they are sums of integers weighted by ``SLIP``)
_EQUAL = 1e-9


def solvable(state) -> bool:
    """Whether ``state`` (a ``ScopaState``) is in a deal's last round, with a choice to make."""
    deal = state.deal
    return not state.done and deal.stock_size == 0 and len(deal.legal_moves()) > 1


def outcome_value(deal: ScopaDeal, seat: int, totals, target: int | None) -> int:
    """The finished ``deal``'s value for ``seat``: the point difference of ``totals`` (before the
    deal) and the deal's points, and the result first.  That is +-100 for the deal won or lost on
    a single deal (no ``target``) and where the totals are 0-0, as they are in a view of a single
    deal; otherwise +-1000 when the deal decides the match (``target``)."""
    pts = score_deal(deal.final_piles(), deal.scope, deal.money)["points"]
    mine = totals[seat] + pts[seat]
    other = totals[1 - seat] + pts[1 - seat]
    v = mine - other
    if target is None or not (totals[0] or totals[1]):
        d = pts[seat] - pts[1 - seat]
        v += _DEAL_WIN if d > 0 else -_DEAL_WIN if d < 0 else 0
    elif max(mine, other) >= target and mine != other:
        v += _WIN if mine > other else -_WIN
    return v


def value(deal: ScopaDeal, seat: int, totals, target, slip: float = SLIP) -> float:
    """The value for ``seat`` of the rest of ``deal`` (its last round): ``seat`` plays its best move,
    the other seat a worst one for ``seat`` with chance ``1 - slip`` and any legal move with ``slip``."""
    if deal.done:
        return outcome_value(deal, seat, totals, target)
    check()
    values = []
    for move in deal.legal_moves():
        child = deal.copy()
        child.play(*move)
        values.append(value(child, seat, totals, target, slip))
    if deal.current == seat:
        return max(values)
    return (1.0 - slip) * min(values) + slip * sum(values) / len(values)


def solve(state, prefer=None, slip: float = SLIP):
    """The move of the best ``value`` for the seat to play at ``state`` (which must be ``solvable``);
    among equals the first of ``prefer`` (a move), then the legal moves in order."""
    deal = state.deal
    legal = deal.legal_moves()
    order = list(legal)
    if prefer is not None and prefer in legal:
        order.remove(prefer)
        order.insert(0, prefer)
    seat = deal.current
    totals = state.totals
    target = state.target if state.match else None
    best, best_move = None, order[0]
    for move in order:
        child = deal.copy()
        child.play(*move)
        v = value(child, seat, totals, target, slip)
        if best is None or v > best + _EQUAL:  # a later move must be better, not a rounding apart
            best, best_move = v, move
    return best_move
