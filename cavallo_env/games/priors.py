"""The heuristic prior's shared pieces: the per-turn score cache and the writing of the two blocks.

Every game's prior (``<game>/prior.py``) is two blocks of ``num_actions``
floats: ``score``, for each legal action the heuristic score of the best move
it can still lead to minus the best action's (0 for the best, negative for
the rest, clipped at ``-clip``; 0 for illegal actions), and ``choice``, 1 for
the action leading to the move the game's ``heuristic`` bot plays.  The games
differ in how they score moves; what they write, and how the capture games
turn move scores into action scores, lives here.
"""

from __future__ import annotations

import numpy as np


class PriorCache:
    """The heuristic's scores of one turn, shared by ``heuristic_move`` and ``action_prior``
    (and by the capture-building steps of that turn).

    ``owner`` is the object whose turn it is (a state or a deal), ``turn`` its
    turn counter; ``legal``, ``scores`` and ``best`` are what the game's prior
    module computed for it.
    """

    __slots__ = ("owner", "turn", "legal", "scores", "best")

    def __init__(self):
        self.owner = None
        self.turn = -1
        self.legal = None
        self.scores = None
        self.best = None

    def holds(self, owner, turn: int) -> bool:
        """Whether the cache holds the scores of ``owner`` at ``turn``."""
        return self.owner is owner and self.turn == turn

    def keep(self, owner, turn: int, legal, scores, best) -> None:
        self.owner, self.turn, self.legal, self.scores, self.best = owner, turn, legal, scores, best


def cleared(out: np.ndarray | None, size: int) -> np.ndarray:
    """``out`` set to zeros, or a new float32 row of ``size`` zeros when ``out`` is None."""
    if out is None:
        return np.zeros(size, dtype=np.float32)
    out[:] = 0.0
    return out


def write_prior(out: np.ndarray, best_of: dict, choice: int, clip: float, num_actions: int) -> np.ndarray:
    """Write ``{action: best score}`` relative to the top one (clipped at ``-clip``) and the choice."""
    top = max(best_of.values())
    for a, s in best_of.items():
        d = s - top
        out[a] = d if d > -clip else -clip
    out[num_actions + choice] = 1.0
    return out


def capture_prior(building, scores: dict, best_move, actions: tuple, longer_wins_ties: bool) -> tuple[dict, int]:
    """``({action: best score of the moves it leads to}, the chosen action)`` of a capture game.

    ``building`` is the action driver's capture being built (None between
    turns), ``scores`` the turn's ``{(card, capture): score}``, ``best_move``
    the heuristic's move and ``actions`` the ``(PLACE, CAPTURE, TAKE)`` bases.
    While a capture is built the choice is the take towards the heuristic's
    move when it is still reachable, else towards the best set (ties: the
    first, or with ``longer_wins_ties`` the one with more cards).
    """
    place, capture_base, take = actions
    best_of: dict[int, float] = {}
    if building is None:
        for (card, capture), s in scores.items():
            a = capture_base + card if capture else place + card
            if a not in best_of or s > best_of[a]:
                best_of[a] = s
        return best_of, (capture_base if best_move[1] else place) + best_move[0]
    card, taken, sets = building
    k = len(taken)
    choice_key = choice = None
    for cap in sets:  # in the rules' order
        s = scores[(card, cap)]
        a = take + cap[k]
        if a not in best_of or s > best_of[a]:
            best_of[a] = s
        ck = (s, len(cap)) if longer_wins_ties else s
        if choice_key is None or ck > choice_key:
            choice_key, choice = ck, a
    if best_move[0] == card and best_move[1] in sets:
        choice = take + best_move[1][k]
    return best_of, choice
