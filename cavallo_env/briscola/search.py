"""Briscola's hooks for the generic ISMCTS (``cavallo_env.games.base.SearchHooks``).

- ``determinizer(base, seat)``: copies of ``base`` with the cards hidden from
  ``seat`` (the other hand and the stock) shuffled and dealt back with the
  same sizes; the trump card stays under the stock, or in the hand of the
  seat that drew it until played (public knowledge);
- ``rollout``: a fast policy that sees the determinized world (``smart``:
  answer with the card that wins or saves most points less its keep value,
  lead the card whose best answer costs least; ``greedy``: ``bots.greedy_card``;
  a random card with probability ``epsilon``), to the end of the deal or, for
  ``smart``, until the stock is empty, where ``evaluate`` solves the rest;
- ``evaluate``: seat 0's card points minus seat 1's, plus an estimate of the
  cards still to play (the trumps in hand and the trick on the table); exact
  (a minimax solve) once at most one card is left in the stock;
- ``quick_score``: the points a card wins or gives away now, less the keep
  value of a trump;
- ``prior_scores``: ``HeuristicBot``'s scores.

``scale = 20`` points make one unit of reward.
"""

from __future__ import annotations

import random

from ..games.base import SearchHooks
from .bots import HeuristicBot, greedy_card, solve_state
from .cards import NUM_CARDS, POINTS, STRENGTH, SUIT
from .engine import BEATS

#: the estimated worth of holding a trump (by strength) for the tricks to come
_TRUMP_WORTH = tuple(2.0 + 0.4 * STRENGTH[c] for c in range(NUM_CARDS))
ROLLOUTS = ("smart", "greedy")


def _keep_table(trump_suit: int) -> tuple:
    """Per card: the points it is worth keeping for later (the rollout policy's cost of playing it)."""
    out = []
    for c in range(NUM_CARDS):
        if SUIT[c] == trump_suit:
            out.append(4.0 + 0.6 * STRENGTH[c] + 0.6 * POINTS[c])
        elif POINTS[c] >= 10:
            out.append(2.0)
        else:
            out.append(0.1 * STRENGTH[c])
    return tuple(out)


KEEP = tuple(_keep_table(s) for s in range(4))


def _answer(hand, lead: int, beats, keep) -> int:
    """The rollout policy's answer to ``lead``: the best points won or lost now less the keep value."""
    base = lead * NUM_CARDS
    pl = POINTS[lead]
    best, best_v = hand[0], -1e9
    for c in hand:
        g = pl + POINTS[c]
        v = (g if beats[base + c] else -g) - keep[c]
        if v > best_v:
            best, best_v = c, v
    return best


def smart_card(state) -> int:
    """The rollout policy (it sees the determinized world): answer as ``_answer``;
    lead the card whose best answer by the other hand costs least."""
    me = state.current
    hand = state.hands[me]
    beats = state._beats
    keep = KEEP[state.trump_suit]
    if state.trick:
        return _answer(hand, state.trick[0], beats, keep)
    opp = state.hands[1 - me]
    best, best_v = hand[0], -1e9
    for c in hand:
        r = _answer(opp, c, beats, keep)
        g = POINTS[c] + POINTS[r]
        v = (-g if beats[c * NUM_CARDS + r] else g) - keep[c] + keep[r]
        if v > best_v:
            best, best_v = c, v
    return best


class BriscolaSearch(SearchHooks):
    scale = 20.0
    depth = 40
    max_depth = 40
    #: ``ismcts:`` spec options of Briscola: the rollout's random-move rate
    OPTIONS = {"epsilon": ("epsilon", float), "eps": ("epsilon", float), "rollout": ("rollout", str)}

    def __init__(self, epsilon: float = 0.0, rollout: str = "smart"):
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon must be in 0..1, got {epsilon!r}")
        if rollout not in ROLLOUTS:
            raise ValueError(f"unknown Briscola rollout {rollout!r}; known: {', '.join(ROLLOUTS)}")
        self.epsilon = epsilon
        self.policy = rollout
        self._heuristic = HeuristicBot()

    def determinizer(self, base, seat: int):
        def determinize(rng: random.Random):
            state = base.copy()
            state.redeal_hidden(seat, rng)
            return state

        return determinize

    def team(self, state) -> int:
        return state.current

    def quick_score(self, state, move) -> float:
        ts = state.trump_suit
        keep = _TRUMP_WORTH[move] if SUIT[move] == ts else 0.1 * STRENGTH[move]
        if not state.trick:
            return -POINTS[move] - keep
        lead = state.trick[0]
        gain = POINTS[lead] + POINTS[move]
        return (gain if state._beats[lead * NUM_CARDS + move] else -gain) - keep

    def rollout(self, state, rng: random.Random, plies: int) -> None:
        """Play ``plies`` more cards with the rollout policy; stop early once the
        stock is empty at the end of a trick (``evaluate`` then solves the rest exactly)."""
        eps = self.epsilon
        rnd = rng.random
        hands = state.hands
        play = state.play
        if self.policy == "smart":
            for _ in range(plies):
                if state.done or (not state.stock and not state.trick):
                    return
                hand = hands[state.current]
                if len(hand) == 1:
                    play(hand[0])
                elif rnd() < eps:
                    play(hand[int(rnd() * len(hand))])
                else:
                    play(smart_card(state))
            return
        ts = state.trump_suit
        for _ in range(plies):
            if state.done:
                return
            hand = hands[state.current]
            if len(hand) == 1:
                play(hand[0])
            elif rnd() < eps:
                play(hand[int(rnd() * len(hand))])
            else:
                trick = state.trick
                play(greedy_card(hand, trick[0] if trick else None, ts))

    def evaluate(self, state) -> float:
        if state.done or len(state.stock) <= 1:
            return solve_state(state)
        diff = state.points[0] - state.points[1]
        ts = state.trump_suit
        h0, h1 = state.hands
        est = sum(_TRUMP_WORTH[c] for c in h0 if SUIT[c] == ts) - sum(_TRUMP_WORTH[c] for c in h1 if SUIT[c] == ts)
        if state.trick:  # the seat to play answers the lead: it takes the trick if it can
            lead = state.trick[0]
            me = state.current
            beats = BEATS[ts]
            wins = [c for c in state.hands[me] if beats[lead * NUM_CARDS + c]]
            sign = 1 if me == 0 else -1
            est += sign * (POINTS[lead] if wins else -POINTS[lead])
        return diff + est

    def prior_scores(self, view, legal):
        return self._heuristic.move_scores(view, legal)


__all__ = ["BriscolaSearch"]
