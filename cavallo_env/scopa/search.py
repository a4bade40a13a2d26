"""The hooks the generic ISMCTS (``cavallo_env.bots.ismcts``) uses for Scopa.

The search looks at the **current deal** only: ``determinizer`` returns
single-deal states (``match=False``), so a search state is ``done`` when the
deal ends and ``evaluate`` gives the deal's point difference (seat 0 minus
seat 1), exact once the deal is over.  During the deal ``evaluate`` adds to
the scopas so far the expected awards from the piles and the cards still to
be won (most cards and most money by a binomial split of the remaining cards,
the settebello if it is won, the primiera from the best card won in each suit
and the best still out) and, looking one move past the horizon, the best
capture open to the seat to play (``lookahead`` times its worth).

Determinizations deal the other hand and the stock at random, but a deal that
gives the other seat a card of a value it has shown it lacks (it did not sweep
a table of that value, or take the settebello, since its hand was dealt) is
dealt again.  Rollouts play ``quick_score``'s favourite move (what a move wins
less the next seat's best answer, known in a determinization), a random one
with probability ``epsilon``.
"""

from __future__ import annotations

import random
from math import comb

from ..games.base import SearchHooks
from .engine import MONEY_SUIT, NUM_PLAYS, PRIMIERA, SEVEN, SUIT, VALUE, ScopaDeal, ScopaState

__all__ = ["ScopaSearch", "determinize", "static_eval", "quick_score", "greedy_rollout"]


def _tail_table(n_max: int) -> list[list[float]]:
    # tail[r][k] = P(Binomial(r, 1/2) >= k), k in 0..r+1
    out = []
    for r in range(n_max + 1):
        total = 2 ** r
        cum = [0.0] * (r + 2)
        acc = 0
        for k in range(r, -1, -1):
            acc += comb(r, k)
            cum[k] = acc / total
        out.append(cum)
    return out


_TAIL = _tail_table(40)


def _p_at_least(have: int, remaining: int, need: int) -> float:
    """P(have + Binomial(remaining, 1/2) >= need)."""
    k = need - have
    if k <= 0:
        return 1.0
    if k > remaining:
        return 0.0
    return _TAIL[remaining][k]


def _weights(money: int) -> tuple:
    w = []
    for c in range(40):
        r = c % 10
        v = 0.05 + (0.15 if SUIT[c] == money else 0.0) + (0.3, 0, 0, 0, 0.02, 0.15, 0.3, 0, 0, 0)[r] * 0.5
        if r == SEVEN and SUIT[c] == money:
            v += 1.0
        w.append(v)
    return tuple(w)


_W = {m: _weights(m) for m in MONEY_SUIT.values()}


def capture_gain(state: ScopaState, move) -> float:
    """What a capture wins now: its cards' worth and a scopa."""
    card, capture = move
    w = _W[state.money]
    g = w[card]
    for t in capture:
        g += w[t]
    deal = state.deal
    if len(capture) == len(deal.table) and deal.turn < NUM_PLAYS - 1:
        g += 1.0
    return g


def quick_score(state: ScopaState, move) -> float:
    """What a move wins now (a scopa, the settebello, sevens, money, cards) less the
    next seat's best answer on the table it leaves: a sweep, or the best card of
    the value of one of its cards (in a search state, a determinization, the
    next seat's hand is known; captures by a sum are not looked at).  Placing a
    card costs a little of its worth."""
    card, capture = move
    deal = state.deal
    w = _W[state.money]
    table = deal.table
    total = 0
    for t in table:
        total += VALUE[t]
    if capture:
        g = w[card]
        for t in capture:
            g += w[t]
            total -= VALUE[t]
        if len(capture) == len(table):
            if deal.turn < NUM_PLAYS - 1:
                g += 1.0
            return g
        left = [t for t in table if t not in capture]
    else:
        g = -0.01 * VALUE[card] - 0.3 * w[card]
        total += VALUE[card]
        left = table + [card]
    sweep = 1.0 if deal.turn < NUM_PLAYS - 2 else 0.0
    best = 0.0
    n = len(left)
    for c in deal.hands[1 - deal.current]:
        v = VALUE[c]
        r = 0.0
        for t in left:
            if VALUE[t] == v:
                x = w[c] + w[t] + (sweep if n == 1 else 0.0)
                if x > r:
                    r = x
        if not r and total == v:  # no single card of that value: the whole table adds up to it
            r = w[c] + sweep
            for t in left:
                r += w[t]
        if r > best:
            best = r
    return g - best


def greedy_rollout(state: ScopaState, rng: random.Random, plies: int, epsilon: float = 0.05) -> None:
    """Play ``plies`` moves (or to the end of the deal) with ``quick_score``, a random move
    with probability ``epsilon``."""
    rand = rng.random
    choice = rng.choice
    while plies > 0 and not state.done:
        legal = state.deal.legal_moves()
        if len(legal) == 1:
            move = legal[0]
        elif rand() < epsilon:
            move = choice(legal)
        else:
            best = -1e9
            move = legal[0]
            for m in legal:
                q = quick_score(state, m)
                if q > best:
                    best, move = q, m
        state.play(move[0], move[1])
        plies -= 1


def static_eval(state: ScopaState) -> float:
    """Expected final point difference of the current deal, seat 0 minus seat 1."""
    deal = state.deal
    if deal.done:
        p = state.results[-1]["points"] if state.results else deal.points()
        return float(p[0] - p[1])
    money = state.money
    p0, p1 = deal.piles
    v = float(deal.scope[0] - deal.scope[1])
    # most cards (> 20)
    c0, c1 = len(p0), len(p1)
    r = 40 - c0 - c1
    v += _p_at_least(c0, r, 21) - _p_at_least(c1, r, 21)
    # most money (> 5)
    m0 = sum(1 for c in p0 if SUIT[c] == money)
    m1 = sum(1 for c in p1 if SUIT[c] == money)
    rm = 10 - m0 - m1
    v += _p_at_least(m0, rm, 6) - _p_at_least(m1, rm, 6)
    # settebello
    sette = money * 10 + SEVEN
    if sette in p0:
        v += 1.0
    elif sette in p1:
        v -= 1.0
    # primiera: best won per suit, and the best still out
    b0 = [0, 0, 0, 0]
    b1 = [0, 0, 0, 0]
    for c in p0:
        if PRIMIERA[c] > b0[SUIT[c]]:
            b0[SUIT[c]] = PRIMIERA[c]
    for c in p1:
        if PRIMIERA[c] > b1[SUIT[c]]:
            b1[SUIT[c]] = PRIMIERA[c]
    out = [0, 0, 0, 0]
    won = set(p0)
    won.update(p1)
    for c in range(40):
        if c not in won and PRIMIERA[c] > out[SUIT[c]]:
            out[SUIT[c]] = PRIMIERA[c]
    e0 = e1 = 0.0
    dead0 = dead1 = False
    for s in range(4):
        o = out[s]
        x0 = max(b0[s], (b0[s] + o) / 2) if o > b0[s] else b0[s]
        x1 = max(b1[s], (b1[s] + o) / 2) if o > b1[s] else b1[s]
        if not b0[s] and not o:
            dead0 = True
        if not b1[s] and not o:
            dead1 = True
        e0 += x0
        e1 += x1
    if dead0 and not dead1:
        v -= 0.8
    elif dead1 and not dead0:
        v += 0.8
    elif not (dead0 or dead1):
        d = (e0 - e1) / 12.0
        v += max(-0.9, min(0.9, d))
    return v


def missed_values(deal: ScopaDeal, seat: int) -> set:
    """Card values ``seat`` very likely does not hold: at one of its plays since its
    hand was dealt, a card of that value would have swept the table (or taken the
    settebello) and it did not -- every sensible player takes those."""
    out: set = set()
    start = (deal.turn // 6) * 6  # the current round's first play: the hand was dealt then
    table = list(deal.initial_table)
    sette = deal.money * 10 + SEVEN
    for i, (s, card, capture) in enumerate(deal.moves):
        if s == seat and i >= start and i < NUM_PLAYS - 1:
            swept = capture and len(capture) == len(table)
            if not swept and table:
                total = sum(VALUE[t] for t in table)
                if total <= 10:
                    out.add(total)
            if sette in table and sette not in capture:
                out.add(7)
        if capture:
            for t in capture:
                table.remove(t)
        else:
            table.append(card)
    return out


class _Determinizer:
    """``rng -> state``: a single-deal copy of ``base`` with the cards hidden from
    ``seat`` (the other hand and the rest of the stock) shuffled.  A deal that
    gives the other seat a card of a value it showed it lacks (``missed_values``)
    is dealt again, up to ``tries`` times."""

    __slots__ = ("template", "other", "n_other", "pos", "hidden", "head", "missed", "tries")

    def __init__(self, base: ScopaState, seat: int, tries: int = 12):
        deal = base.deal
        other = 1 - seat
        t = ScopaState.__new__(ScopaState)
        t.deck, t.names, t.money, t.target = base.deck, base.names, base.money, base.target
        t.match = False
        t.deals, t.results = [], []
        t.base = base.base
        t.totals = base.totals[:]
        t.deal = deal.copy()
        t.current = base.current
        t.done = base.done
        t.winner = None
        t.rng = base.rng
        self.template = t
        self.other = other
        self.n_other = len(deal.hands[other])
        self.pos = deal.stock_pos
        self.hidden = list(deal.hands[other]) + list(deal.initial_stock[deal.stock_pos:])
        self.head = deal.initial_stock[:deal.stock_pos]
        self.missed = missed_values(deal, other) if tries else set()
        # a hidden card of a missed value is possible only if enough others remain
        self.tries = tries if self.missed else 0

    def __call__(self, rng: random.Random) -> ScopaState:
        t = self.template
        s = ScopaState.__new__(ScopaState)
        s.deck, s.names, s.money, s.target, s.match = t.deck, t.names, t.money, t.target, False
        s.deals, s.results = [], []
        s.base, s.totals = t.base, t.totals[:]
        s.current, s.done, s.winner, s.rng = t.current, t.done, None, t.rng
        d = t.deal.copy()
        s.deal = d
        h = self.hidden[:]
        n = self.n_other
        missed = self.missed
        for _ in range(self.tries + 1):
            rng.shuffle(h)
            for c in h[:n]:
                if VALUE[c] in missed:
                    break
            else:
                break
        d.hands[self.other] = sorted(h[:n])
        d.initial_stock = self.head + tuple(h[n:])
        if d.current == self.other:
            d._legal = None
            d._caps = None
        return s


def determinize(base: ScopaState, seat: int):
    """A function ``rng -> state`` redealing the cards hidden from ``seat`` (see ``_Determinizer``)."""
    return _Determinizer(base, seat)


class ScopaSearch(SearchHooks):
    """Scopa's ``SearchHooks`` (the current deal; rewards in deal points / ``scale``).

    Own option: ``epsilon``, the rollout's chance of a random move (``ismcts:1000,epsilon=0.1``).
    """

    #: spec key -> (keyword, parser) of this game's own search options
    OPTIONS = {"epsilon": ("epsilon", float), "lookahead": ("lookahead", float)}
    scale = 3.0
    depth = 6
    max_depth = NUM_PLAYS

    def __init__(self, epsilon: float = 0.05, lookahead: float = 0.7):
        if not 0.0 <= epsilon <= 1.0:
            from ..bots.base import BotSpecError

            raise BotSpecError(f"scopa search epsilon must be in 0..1, got {epsilon!r}")
        self.epsilon = epsilon
        self.lookahead = lookahead

    def determinizer(self, base, seat: int):
        return _Determinizer(base, seat)

    def team(self, state) -> int:
        return state.current

    def quick_score(self, state, move) -> float:
        return quick_score(state, move)

    def rollout(self, state, rng: random.Random, plies: int) -> None:
        greedy_rollout(state, rng, plies, self.epsilon)

    def evaluate(self, state) -> float:
        v = static_eval(state)
        if state.done:
            return v
        # the seat to play takes the best capture open to it (a one-move look past the horizon)
        deal = state.deal
        best = 0.0
        for m in deal.legal_moves():
            if m[1]:
                g = capture_gain(state, m)
                if g > best:
                    best = g
        return v + (self.lookahead * best if deal.current == 0 else -self.lookahead * best)

    def prior_scores(self, view, legal):
        from .bots import Info, heuristic_scores

        return heuristic_scores(Info(view), legal)

