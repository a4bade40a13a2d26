"""Briscola's exact endgame: the last tricks solved with both seats playing best.

Once the stock is empty both hands are known exactly and the last tricks are
solved by minimax with alpha-beta (win first, then points); with one card
left in the stock every placement of the four unseen cards is solved and the
values averaged.  Used by the ``heuristic`` bot (``bots.py``) and as the
search's evaluation of finished determinizations (``search.py``).
"""

from __future__ import annotations

from .cards import NUM_CARDS, POINTS
from .engine import BEATS


def _solve(h0: tuple, h1: tuple, leader: int, lead, stock: tuple, trump: int, beats, diff: int, alpha: float,
           beta: float, bonus: int = 1000) -> float:
    """Minimax value for seat 0 of a perfect-information position.

    ``h0``/``h1`` hands, ``leader`` the seat leading the trick, ``lead`` its
    card if played (the other seat is to play), ``stock`` the face-down cards
    (top first; the trump card is drawn after them), ``diff`` = points of seat
    0 minus seat 1 so far.  Value: ``diff`` at the end plus ``bonus`` times its
    sign (1000: win first, then points; 0: points only).
    """
    if lead is None:
        if not h0 and not h1:
            return diff + (bonus if diff > 0 else -bonus if diff < 0 else 0)
        mover = leader
    else:
        mover = 1 - leader
    hand = h0 if mover == 0 else h1
    best = -1e9 if mover == 0 else 1e9
    for i, c in enumerate(hand):
        rest = hand[:i] + hand[i + 1:]
        if lead is None:  # c leads the trick
            if mover == 0:
                v = _solve(rest, h1, leader, c, stock, trump, beats, diff, alpha, beta, bonus)
            else:
                v = _solve(h0, rest, leader, c, stock, trump, beats, diff, alpha, beta, bonus)
        else:  # c completes it: the trick is scored, both seats draw (the winner first), the winner leads
            w = mover if beats[lead * NUM_CARDS + c] else leader
            pts = POINTS[lead] + POINTS[c]
            d = diff + pts if w == 0 else diff - pts
            a0, a1 = (rest, h1) if mover == 0 else (h0, rest)
            if stock:
                drew_w = stock[0]
                drew_l = stock[1] if len(stock) > 1 else trump
                if w == 0:
                    a0, a1 = a0 + (drew_w,), a1 + (drew_l,)
                else:
                    a0, a1 = a0 + (drew_l,), a1 + (drew_w,)
                ns = stock[2:]
            else:
                ns = stock
            v = _solve(a0, a1, w, None, ns, trump, beats, d, alpha, beta, bonus)
        if mover == 0:
            if v > best:
                best = v
            if best > alpha:
                alpha = best
        else:
            if v < best:
                best = v
            if best < beta:
                beta = best
        if alpha >= beta:
            break
    return best


def solve_state(state, bonus: int = 0) -> float:
    """Exact minimax value (seat 0's points minus seat 1's at the end, plus ``bonus``
    times its sign) of a full-information state; cheap once the stock holds at most one card."""
    if state.done:
        d = state.points[0] - state.points[1]
        return d + (bonus if d > 0 else -bonus if d < 0 else 0)
    diff = state.points[0] - state.points[1]
    lead = state.trick[0] if state.trick else None
    return _solve(tuple(state.hands[0]), tuple(state.hands[1]), state.leader, lead, state.stock, state.trump,
                  BEATS[state.trump_suit], diff, -1e9, 1e9, bonus)


def endgame_scores(k, legal) -> list[float] | None:
    """Exact values of the legal cards once the hidden cards are few (None otherwise), for
    the seat whose knowledge is ``k`` (a ``bots.Know``).

    Stock empty: the other hand is known, one exact solve per card.  One card
    in the stock: every choice of that card among the four unseen ones is
    solved and the values averaged.
    """
    if k.stock_size > 1:
        return None
    diff0 = k.points[0] - k.points[1]  # me minus them; "seat 0" of the solver is me
    trump, beats = k.trump, k.beats
    if k.stock_size == 0:
        opp = tuple(k.unseen) + ((k.opp_known,) if k.opp_known is not None else ())
        layouts = [(opp, ())]
    else:
        u = k.unseen
        layouts = [(tuple(u[:i] + u[i + 1:]), (u[i],)) for i in range(len(u))]
    mine = tuple(k.hand)
    scores = []
    for c in legal:
        rest = tuple(x for x in mine if x != c)
        total = 0.0
        for opp, stock in layouts:
            if k.lead is None:  # I lead c: "seat 0" is the leader, the other answers
                total += _solve(rest, opp, 0, c, stock, trump, beats, diff0, -1e9, 1e9)
            else:  # answer the lead: resolve now, then solve
                lead = k.lead
                w = 0 if beats[lead * NUM_CARDS + c] else 1
                pts = POINTS[lead] + POINTS[c]
                d = diff0 + pts if w == 0 else diff0 - pts
                h0, h1 = rest, opp
                if stock:
                    if w == 0:
                        h0, h1 = h0 + stock, h1 + (trump,)
                    else:
                        h0, h1 = h0 + (trump,), h1 + stock
                total += _solve(h0, h1, w, None, (), trump, beats, d, -1e9, 1e9)
        scores.append(total / len(layouts))
    return scores
