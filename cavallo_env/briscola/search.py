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
  (a minimax solve) once at most one card is left in the stock.  The score is
  about winning, so ``win`` points (default 20, one unit of reward) are added
  for the side ahead (``d + win * sign(d)``: the minimax solve plays for that
  too; the estimate adds ``win * tanh(d / 12)``); ``win=0`` gives the plain
  point difference;
- with ``infer > 0`` (default 1) the determinizer deals the other hand by
  weights (``hold_weights``: players keep trumps and carichi and throw
  lisci, and what a seat passed up or led hints at what it lacks,
  ``lack_facts``), to the power ``infer``; preferences only, every deal
  stays consistent with the view; ``infer=0`` deals uniformly;
- ``quick_score``: the points a card wins or gives away now, less the keep
  value of a trump;
- ``prior_scores``: ``HeuristicBot``'s scores.

``scale = 20`` points make one unit of reward.  Search options (after the
iteration count of ``ismcts:<n>``): ``rollout`` (smart, greedy), ``epsilon``,
``win``, ``infer``.
"""

from __future__ import annotations

import math
import random
from array import array

from .. import core
from ..budget import OverBudget, check, remaining
from ..games.base import SearchHooks
from .bots import HeuristicBot, greedy_card
from .endgame import solve_state
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


#: a seat's hand, relative to the hidden pool, by kind of card (players keep trumps
#: and carichi and throw lisci first): trump, carico (A, 3), figure (K, Q, J), liscio
_KIND_PRIOR = {"T": 1.6, "C": 1.3, "F": 0.9, "L": 0.4}
#: likelihood ratio of a card named by a fact, by the seat's plays since (0, 1, 2, 3)
_FACT_RATIO = {
    "lead_figure": (0.4, 0.5, 0.75, 0.9),  # led a side K/Q/J: no side card worth less
    "lead_carico": (0.5, 0.5, 0.7, 0.9),  # led a side A/3: no side card worth less
    "lead_trump": (0.22, 0.3, 0.45, 0.85),  # led a trump: no side card but a carico
    "lost_carico": (0.18, 0.35, 0.5, 0.7),  # let a carico go: no trump
    "lost_figure": (0.4, 0.45, 0.6, 0.8),  # let a K/Q/J go: no trump but the A and 3
    "lost_suit": (0.5, 0.57, 0.73, 1.0),  # let a lead go: no card of its suit that beats it with points
    "trumped": (0.36, 0.47, 0.86, 1.0),  # took a side lead with a trump: no card of its suit that beats it
}


def _kind(c: int, trump_suit: int) -> str:
    if SUIT[c] == trump_suit:
        return "T"
    p = POINTS[c]
    return "C" if p >= 10 else "F" if p else "L"


def lack_facts(moves, seat: int, trump_suit: int) -> list:
    """What ``seat``'s past plays suggest it did not hold: ``[(kind, cards, plays_since), ...]``.

    Each fact names the cards the seat most likely did not hold (besides the
    card it played) when it made one play, and how many plays it made since
    (its hand has been refilled from the stock since then, so a fact fades);
    ``_FACT_RATIO`` gives its strength (fitted on the plays of the heuristic
    and greedy bots; see the keys).
    """
    beats = BEATS[trump_suit]
    facts = []
    n = len(moves)
    for i in range(0, n, 2):
        lead_seat, lead = moves[i]
        if lead_seat == seat:
            x = lead
            if SUIT[x] == trump_suit:
                facts.append(("lead_trump", i, {c for c in range(NUM_CARDS)
                                                if SUIT[c] != trump_suit and POINTS[c] < 10}))
            elif POINTS[x] > 0:
                facts.append(("lead_carico" if POINTS[x] >= 10 else "lead_figure", i,
                              {c for c in range(NUM_CARDS) if SUIT[c] != trump_suit and POINTS[c] < POINTS[x]}))
            continue
        if i + 1 >= n:
            break
        x = moves[i + 1][1]
        base = lead * NUM_CARDS
        pl = POINTS[lead]
        side_lead = SUIT[lead] != trump_suit
        if beats[base + x]:
            if SUIT[x] == trump_suit and side_lead:
                facts.append(("trumped", i + 1, {c for c in range(NUM_CARDS) if beats[base + c]
                                                 and SUIT[c] != trump_suit and pl + POINTS[c] > 0}))
            continue
        trumps, suit = set(), set()
        for c in range(NUM_CARDS):
            if not beats[base + c]:
                continue
            if SUIT[c] == trump_suit and side_lead:
                if pl >= 10 or (pl >= 2 and POINTS[c] < 10):
                    trumps.add(c)
            elif pl > 0 or POINTS[c] > 0:
                suit.add(c)
        if trumps:
            facts.append(("lost_carico" if pl >= 10 else "lost_figure", i + 1, trumps))
        if suit:
            facts.append(("lost_suit", i + 1, suit))
    out = []
    for kind, idx, lacks in facts:
        lacks.discard(moves[idx][1])
        if lacks:
            out.append((kind, lacks, sum(1 for j in range(idx + 1, n) if moves[j][0] == seat)))
    return out


def hold_weights(moves, seat: int, trump_suit: int, infer: float, tables: tuple | None = None) -> list:
    """Per card: the relative chance that ``seat`` holds it rather than its lying in the
    stock (``_KIND_PRIOR`` times the ratios of ``lack_facts``, all to the power ``infer``;
    ``tables``: other ``(kind prior, fact ratios)`` of the same shape)."""
    kind_prior, fact_ratio = tables or (_KIND_PRIOR, _FACT_RATIO)
    w = [kind_prior[_kind(c, trump_suit)] for c in range(NUM_CARDS)]
    for kind, lacks, since in lack_facts(moves, seat, trump_suit):
        if since > 3:
            continue
        r = fact_ratio[kind][since]
        for c in lacks:
            w[c] *= r
    if infer != 1.0:
        w = [x ** infer for x in w]
    return w


class BriscolaSearch(SearchHooks):
    scale = 20.0
    depth = 40
    max_depth = 40
    #: ``ismcts:`` spec options of Briscola: the rollout's random-move rate and policy, the bonus
    #: for winning in ``evaluate`` and the strength of the inference in the determinizer
    OPTIONS = {"epsilon": ("epsilon", float), "eps": ("epsilon", float), "rollout": ("rollout", str),
               "win": ("win", float), "infer": ("infer", float)}

    def __init__(self, epsilon: float = 0.0, rollout: str = "smart", win: float = 20.0, infer: float = 1.0):
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon must be in 0..1, got {epsilon!r}")
        if rollout not in ROLLOUTS:
            raise ValueError(f"unknown Briscola rollout {rollout!r}; known: {', '.join(ROLLOUTS)}")
        if not win >= 0:
            raise ValueError(f"win must be >= 0, got {win!r}")
        self.epsilon = epsilon
        self.policy = rollout
        self.win = win
        if not 0.0 <= infer <= 1.0:
            raise ValueError(f"infer must be in 0..1, got {infer!r}")
        self.infer = infer
        self._heuristic = HeuristicBot()

    def _inference(self, base, other: int):
        """How the determinizer deals ``other``'s hand: ``(weights, pool, known)`` (the hold
        weights by card, the cards it draws from, whether it publicly holds the trump card),
        or None for the uniform redeal."""
        n_opp = len(base.hands[other])
        if self.infer > 0 and base.stock and n_opp:
            w = hold_weights(base.moves, other, base.trump_suit, self.infer)
            pool0, known = base.hidden_from(1 - other)
            if any(w[c] != 1.0 for c in pool0):
                return w, pool0, known
        return None

    def determinizer(self, base, seat: int):
        other = 1 - seat
        inferred = self._inference(base, other)
        if inferred is not None:
            w, pool0, known = inferred
            trump = base.trump
            n = len(base.hands[other]) - known

            def determinize_inferred(rng: random.Random):
                state = base.copy()
                pool = pool0[:]
                ws = [w[c] for c in pool]
                hand = []
                rnd = rng.random
                for _ in range(n):
                    r = rnd() * sum(ws)
                    k = 0
                    last = len(pool) - 1
                    while k < last:
                        r -= ws[k]
                        if r < 0:
                            break
                        k += 1
                    hand.append(pool.pop(k))
                    ws.pop(k)
                rng.shuffle(pool)
                if known:
                    hand.append(trump)
                state.hands[other] = hand
                state.stock = tuple(pool)
                state._legal = None
                return state

            return determinize_inferred

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
        smart = self.policy == "smart"
        ts = state.trump_suit
        for _ in range(plies):
            if state.done or (smart and not state.stock and not state.trick):
                return
            hand = hands[state.current]
            if len(hand) == 1:
                play(hand[0])
            elif rnd() < eps:
                play(hand[int(rnd() * len(hand))])
            elif smart:
                play(smart_card(state))
            else:
                trick = state.trick
                play(greedy_card(hand, trick[0] if trick else None, ts))

    def evaluate(self, state) -> float:
        if state.done or len(state.stock) <= 1:
            return solve_state(state, self.win)
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
        v = diff + est
        return v + self.win * math.tanh(v / 12.0) if self.win else v

    def prior_scores(self, view, legal):
        return self._heuristic.move_scores(view, legal)

    def core_search(self, base, rng: random.Random, settings: dict, bias, means=None) -> tuple:
        """The whole decision in the compiled core (core/briscola_search.c): the same search as
        the generic ``ismcts`` over these hooks, on the core's fast random numbers seeded from
        ``rng`` (given Python's numbers it makes the Python search's moves, bit for bit:
        tests/test_core_search.py).  ``settings``: the bot's iterations, c, expand, reward, scale, depth, root;
        ``bias``: None or the root's prior bias by move.  Returns the move and its root visits
        by card (and, into a ``means`` dict, each legal move's mean reward); ``OverBudget`` when
        the deadline (``budget``) passes first."""
        inferred = self._inference(base, 1 - base.current)
        options = dict(settings, epsilon=self.epsilon, rollout=self.policy, win=self.win)
        by_card = None
        if bias is not None:
            by_card = array("d", bytes(8 * NUM_CARDS))
            for m, b in bias.items():
                by_card[m] = b
        weights = array("d", inferred[0]) if inferred is not None else None
        left = remaining()
        out = None if means is None else array("d", bytes(8 * NUM_CARDS))
        move, visits = core.extension("briscola").search(base, options, by_card, weights, rng.getrandbits(64),
                                                         0.0 if left is None else max(left, 1e-9), None, out)
        if move is None:
            check()
            raise OverBudget("the search passed its deadline")
        if means is not None:
            means.update((m, out[m]) for m in base.legal_moves())
        return move, visits


__all__ = ["BriscolaSearch"]
