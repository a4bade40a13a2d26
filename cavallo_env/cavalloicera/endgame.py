"""Cavalloìcera's exact endgame: the last round solved with both teams playing best.

In the last round the unseen cards are exactly the other hands, so every way
they can be dealt is enumerated and each deal solved by alpha-beta (each root
move in a full window: the values are exact).  The work is capped
(``ENDGAME_NODES``); a position that must pass the cap is refused at once with
``EndgameTooLarge`` and the caller decides by its one-ply scores instead
(docs/limits.md).  Used by the ``heuristic`` bot (``bots.py``) and through it by
the heuristic prior the shipped networks read.
"""

from __future__ import annotations

from itertools import permutations

from ..budget import check
from .engine import NUM_SEATS, NUM_TURNS, CavalloiceraState


#: the most work the exact endgame may do for one decision, in moves tried (16 more for each position
#: whose moves are listed): the worst legal last round (a table of 40+ cards, each seat holding a numeral
#: with hundreds of capture sets) would need billions, a typical one needs a few thousand (docs/limits.md,
#: "Worst positions"); past the cap the one-ply scores decide instead
ENDGAME_NODES = 40_000


class EndgameTooLarge(Exception):
    """The exact endgame of a position needs more work than ``ENDGAME_NODES``."""


def endgame_scores(base: CavalloiceraState, legal, max_nodes: int = ENDGAME_NODES) -> list[float]:
    """Per legal move: the final point difference for the seat's team, averaged over
    every way the unseen cards can be dealt to the other hands, each deal solved
    exactly with both teams playing their best.  Independent of how ``base``
    itself deals the unseen cards (all deals are enumerated).

    Each move's value is searched with alpha-beta inside a full window, so it
    is exact; ``EndgameTooLarge`` when the search would try more than
    ``max_nodes`` moves (counted over all deals and moves, each position
    listed counting 16 more), and
    ``budget.OverBudget`` past the thread's deadline.
    """
    seat = base.current
    team = seat % 2
    others = [s for s in range(NUM_SEATS) if s != seat and base.hands[s]]
    unseen = sorted(c for s in others for c in base.hands[s])
    sizes = [len(base.hands[s]) for s in others]
    deals = {}  # every way to deal the unseen cards, in a fixed order
    for perm in permutations(unseen):
        hands = []
        i = 0
        for n in sizes:
            hands.append(tuple(sorted(perm[i:i + n])))
            i += n
        deals[tuple(hands)] = None
    if base.turn < NUM_TURNS - 1 and len(deals) * len(legal) * 17 > max_nodes:
        raise EndgameTooLarge()  # each move of each deal leads to a position that costs 17 at least
    totals = [0.0] * len(legal)
    left = [max_nodes]
    for hands in deals:
        state = base.copy()
        for s, h in zip(others, hands):
            state.hands[s] = list(h)
        state._legal = None
        for j, (card, capture) in enumerate(legal):
            child = state.copy()
            child.play(card, capture)
            totals[j] += _solve(child, team, -1e9, 1e9, left)
    n = max(len(deals), 1)
    return [t / n for t in totals]


def _solve(state: CavalloiceraState, team: int, alpha: float, beta: float, left: list) -> float:
    """The final point difference for ``team`` with both teams playing best (alpha-beta: exact
    inside ``(alpha, beta)``, a bound outside it); ``left[0]`` counts down the work allowed."""
    if state.done:
        tp = state.result()["team_points"]
        return float(tp[team] - tp[1 - team])
    legal = state.legal_moves()
    left[0] -= 16 + len(legal)  # a position's moves, and listing them (a few moves' cost)
    if left[0] < 0:
        raise EndgameTooLarge()
    check()
    maximize = state.current % 2 == team
    best = -1e9 if maximize else 1e9
    for card, capture in legal:
        child = state.copy()
        child.play(card, capture)
        v = _solve(child, team, alpha, beta, left)
        if maximize:
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
        elif v < best:
            best = v
            if v < beta:
                beta = v
        if alpha >= beta:
            break
    return best
