"""Scopa's last round solved exactly: once the stock is empty, nothing is hidden.

After the last of a deal's six hands is dealt the stock is empty, so the other
seat's hand is exactly the cards the seat to play has not seen (a state
rebuilt from a view then holds the true hands).  The rest of the deal, at most
six plays, is a small game of perfect information, and ``solve`` plays it by
minimax with alpha-beta: the move that guarantees the best outcome whatever the
other seat does.

The outcome is the match result where the deal can decide it (won, lost or
still going on), then the point difference, the match totals' (this deal's
points added to the totals before it).  On a single deal that is the deal's
point difference, and since a deal's result (win, draw, loss) is a monotone
function of it, the move that guarantees the best difference also guarantees
the best result.  Among moves with the same guarantee ``solve`` keeps the one
it was offered first (``prefer``: the policy's own move), so a player using it
departs from its own play only where its move is worse against best play.

The policy runtime (``policy:``, option ``endgame``) and the trainer's
``checkpoint:`` bot play the last round with it (``ScopaLearning.endgame``).
"""

from __future__ import annotations

from .engine import ScopaDeal, score_deal

__all__ = ["solvable", "solve", "outcome_value"]

_WIN = 1000
_INF = 10**9


def solvable(state) -> bool:
    """Whether ``state`` (a ``ScopaState``) is in a deal's last round, with a choice to make."""
    deal = state.deal
    return not state.done and deal.stock_size == 0 and len(deal.legal_moves()) > 1


def outcome_value(deal: ScopaDeal, seat: int, totals, target: int | None) -> int:
    """The finished ``deal``'s value for ``seat``: with a ``target`` (a match), +-1000 when the
    deal decides the match; plus the point difference of ``totals`` (before the deal) and the deal."""
    pts = score_deal(deal.final_piles(), deal.scope, deal.money)["points"]
    mine = totals[seat] + pts[seat]
    other = totals[1 - seat] + pts[1 - seat]
    decided = target is not None and max(mine, other) >= target and mine != other
    return (_WIN if mine > other else -_WIN) * decided + mine - other


def _search(deal: ScopaDeal, seat: int, totals, target, alpha: int, beta: int) -> int:
    if deal.done:
        return outcome_value(deal, seat, totals, target)
    mine = deal.current == seat
    best = -_INF if mine else _INF
    for move in deal.legal_moves():
        child = deal.copy()
        child.play(*move)
        v = _search(child, seat, totals, target, alpha, beta)
        if mine:
            if v > best:
                best = v
                alpha = max(alpha, v)
        elif v < best:
            best = v
            beta = min(beta, v)
        if alpha >= beta:
            break
    return best


def solve(state, prefer=None):
    """The move with the best guaranteed outcome for the seat to play at ``state`` (which must be
    ``solvable``); among equals the first of ``prefer`` (a move), then the legal moves in order."""
    deal = state.deal
    legal = deal.legal_moves()
    order = list(legal)
    if prefer is not None and prefer in legal:
        order.remove(prefer)
        order.insert(0, prefer)
    seat = deal.current
    totals = state.totals
    target = state.target if state.match else None
    best, best_move = -_INF, order[0]
    for move in order:
        child = deal.copy()
        child.play(*move)
        # a later move must beat the best so far strictly: searched with the window above it
        v = _search(child, seat, totals, target, best, _INF)
        if v > best:
            best, best_move = v, move
    return best_move
