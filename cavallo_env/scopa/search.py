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

Determinizations deal the other hand by what the other seat's plays reveal.
The search supposes it is one of three kinds of player (``MODEL``): one who
makes the heuristic's move, one who makes the greedy player's, one who makes
any legal move (the first two slip to any move with chance ``SLIP``).  Its
plays in the rounds already over, whose hands are known, say which kind it
most likely is (``player_model``); its plays since its current hand was dealt
weigh each hand it may hold by the chance that such a player, holding it,
would have made them (``likelihoods``).  So a player who did not sweep, or
placed a card where another card would have taken the settebello, most
likely lacks those cards.  Spec option ``infer``: the weight of the
inference, 0..1 (the posterior raised to that power; 0: every hand equally
likely).  The stock is shuffled.

Rollouts play ``quick_score``'s favourite move (what a move wins less the
next seat's best answer, known in a determinization), a random one with
probability ``epsilon``.

Where the compiled core is on (``core.enabled()``), ``core_search`` runs the
whole decision in C (core/scopa_search.c): the hands are weighed here, once
per decision, and the iterations run in C, the other seat's kinds of player
being the core's heuristic and greedy bots.  Every option keeps its meaning
there; ``engine=python`` (or ``CAVALLO_CORE=python``) runs this module's
search.
"""

from __future__ import annotations

import random
from array import array
from bisect import bisect_right, insort
from itertools import combinations
from math import comb

from .. import core
from ..budget import OverBudget, check, remaining
from ..errors import BotSpecError
from ..games.base import SearchHooks
from .bots import Info, captures_of_value, greedy_move, heuristic_move, heuristic_scores
from .engine import HAND_SIZE, MONEY_SUIT, NUM_PLAYS, PRIMIERA, SEVEN, STOCK_SIZE, SUIT, VALUE, ScopaDeal, ScopaState

__all__ = ["ScopaSearch", "determinize", "static_eval", "quick_score", "greedy_rollout", "plays_of",
           "play_facts", "likelihoods", "player_model"]


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


def greedy_rollout(state: ScopaState, rng: random.Random, plies: int, epsilon: float = 0.05,
                   modelled: bool = False) -> None:
    """Play ``plies`` moves (or to the end of the deal) with ``quick_score``, a random move
    with probability ``epsilon``; with ``modelled``, the other seat of a determinization
    plays as its kind of player (``model_move``)."""
    rand = rng.random
    choice = rng.choice
    while plies > 0 and not state.done:
        legal = state.deal.legal_moves()
        if len(legal) == 1:
            move = legal[0]
        elif rand() < epsilon:
            move = choice(legal)
        elif modelled and (move := model_move(state, legal)) is not None:
            pass
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


#: the kinds of player the inference considers and how likely each is before any play is seen:
#: one who plays the heuristic's move, one who plays the greedy player's (``heuristic`` and
#: ``greedy`` in bots.py), one who plays any legal move
MODEL = (0.6, 0.3, 0.1)
#: the chance that a heuristic or greedy player makes some other move (any legal one)
SLIP = 0.1
#: how many of the other seat's possible hands a decision weighs (all of them when fewer)
HANDS = 400


class _Play:
    """One play of a seat and the public position before it."""

    __slots__ = ("move", "table", "piles", "scope", "last_capturer", "stock", "opp_hand", "plays_left",
                 "kept", "moves_of")

    def __init__(self, move, table, piles, scope, last_capturer, stock, opp_hand, plays_left, kept):
        self.move = move  # (card, capture) as played
        self.table = table
        self.piles = piles
        self.scope = scope
        self.last_capturer = last_capturer
        self.stock = stock
        self.opp_hand = opp_hand  # the hand size of the seat it played against
        self.plays_left = plays_left
        self.kept = kept  # the cards it played later in the same round: they were in its hand too
        self.moves_of: dict = {}  # card -> its legal moves on this table


def plays_of(deal: ScopaDeal, seat: int) -> tuple[list, list]:
    """``seat``'s plays in the deal, replayed from the public history (``_Play``s): those of
    the rounds already over (its whole hand is known for them) and those since its
    current hand was dealt (the evidence about the cards it still holds)."""
    start = (deal.turn // 6) * 6  # hands are dealt every six plays
    table = sorted(deal.initial_table)
    piles: list = [[], []]
    scope = [0, 0]
    last = None
    past, current = [], []
    moves = deal.moves
    for i, (s, card, capture) in enumerate(moves):
        if s == seat:
            r0 = (i // 6) * 6
            before = sum(1 for j in range(r0, i) if moves[j][0] != seat)
            kept = [c for j, (t, c, _) in enumerate(moves[:r0 + 6]) if t == seat and j > i]
            (current if i >= start else past).append(
                _Play((card, tuple(capture)), table[:], [piles[0][:], piles[1][:]], scope[:], last,
                      STOCK_SIZE - 2 * HAND_SIZE * (i // 6), HAND_SIZE - before, NUM_PLAYS - i, kept))
        if capture:
            for t in capture:
                table.remove(t)
            piles[s].append(card)
            piles[s].extend(capture)
            if not table and i + 1 < NUM_PLAYS:
                scope[s] += 1
            last = s
        else:
            insort(table, card)
    return past, current


def play_facts(hand, play: _Play, seat: int, money: int, dealer: int) -> tuple[int, int, int]:
    """What ``play`` says of ``seat`` holding ``hand`` besides the cards it played then and later
    in the round: ``(the heuristic would have made it, the greedy player would have, its legal
    moves)`` (with one legal move, ``(1, 1, 1)``)."""
    table = play.table
    full = sorted([*hand, *play.kept, play.move[0]])
    moves_of = play.moves_of
    legal = []
    for c in full:
        ms = moves_of.get(c)
        if ms is None:
            ms = moves_of[c] = [(c, st) for st in captures_of_value(VALUE[c], table)] or [(c, ())]
        legal.extend(ms)
    n = len(legal)
    if n == 1:
        return 1, 1, 1
    info = Info.at(seat, money, dealer, full, table, play.piles, play.scope, play.opp_hand, play.stock,
                   play.plays_left, play.last_capturer)
    move = play.move
    return int(heuristic_move(info, legal) == move), int(greedy_move(info, legal) == move), n


def likelihoods(hand, play: _Play, seat: int, money: int, dealer: int) -> tuple[float, float, float]:
    """The chance that each kind of player of ``MODEL`` (heuristic, greedy, any move), holding
    ``hand`` besides the cards it played then and later in the round, made ``play``."""
    h, g, n = play_facts(hand, play, seat, money, dealer)
    if n == 1:
        return 1.0, 1.0, 1.0
    slip = SLIP / n
    return (1.0 - SLIP) * h + slip, (1.0 - SLIP) * g + slip, 1.0 / n


def player_model(past, seat: int, money: int, dealer: int) -> tuple:
    """``MODEL`` updated by ``seat``'s plays of the rounds already over (whole hands known):
    the chance that it is each kind of player."""
    w = list(MODEL)
    for play in past:
        for k, p in enumerate(likelihoods((), play, seat, money, dealer)):
            w[k] *= p
    total = sum(w)
    return tuple(x / total for x in w)


class _SearchState(ScopaState):
    """A determinization of the opponent-modelling search: a single-deal state plus the kind
    of player (index into ``MODEL``) the other seat is supposed to be in it, which seat that
    is, and the decision's shared cache of that seat's modelled replies."""

    __slots__ = ("kind", "other", "replies", "root_turn")

    def copy(self) -> "_SearchState":
        s = ScopaState.copy(self)
        s.kind, s.other, s.replies, s.root_turn = self.kind, self.other, self.replies, self.root_turn
        return s

    __copy__ = copy


def model_move(state: "_SearchState", legal):
    """The move the other seat's kind of player makes in ``state``: the heuristic's or the
    greedy player's (None for the any-move player, or when the searching seat is to play).
    Cached per decision by that seat's hand and the moves since the root."""
    kind = state.kind
    deal = state.deal
    seat = deal.current
    if kind == 2 or seat != state.other:
        return None
    hand = deal.hands[seat]
    key = (kind, *hand, -1, *deal.moves[state.root_turn:])
    replies = state.replies
    move = replies.get(key)
    if move is not None:
        return move
    move = _model_move(state, kind, seat, legal)
    replies[key] = move
    return move


def _model_move(state, kind: int, seat: int, legal):
    """``model_move`` worked out: the bot of that kind asked what it sees."""
    deal = state.deal
    info = Info.at(seat, state.money, deal.dealer, deal.hands[seat], deal.table, deal.piles, deal.scope,
                   len(deal.hands[1 - seat]), deal.stock_size, NUM_PLAYS - deal.turn, deal.last_capturer)
    return heuristic_move(info, legal) if kind == 0 else greedy_move(info, legal)


class _Determinizer:
    """``rng -> state``: a single-deal copy of ``base`` with the cards hidden from ``seat``
    (the other hand and the rest of the stock) dealt again.

    The other hand is drawn from its posterior: on the first call, ``HANDS``
    hands (every possible hand when there are fewer) are drawn and weighed by
    ``player_model`` and ``likelihoods`` (the weight raised to the power
    ``infer``); each call then picks one of them by weight and shuffles the
    rest into the stock.  With ``infer=0``, or before the other seat has played
    from its current hand, every hand is equally likely.

    With ``modelled`` (the search's ``model=1``), each state also draws the kind
    of player the other seat is in it, from that hand's posterior over the kinds
    (``MODEL``), and that seat then plays as its kind (``model_move``).
    """

    __slots__ = ("template", "other", "n_other", "hidden", "head", "past", "plays", "infer", "hands", "cum",
                 "kinds", "model", "modelled", "replies", "root_turn")

    def __init__(self, base: ScopaState, seat: int, infer: float = 1.0, modelled: bool = False):
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
        self.hidden = list(deal.hands[other]) + list(deal.initial_stock[deal.stock_pos:])
        self.head = deal.initial_stock[:deal.stock_pos]
        self.past, self.plays = plays_of(deal, other) if infer and self.n_other else ([], [])
        self.infer = infer
        self.hands = None
        self.cum = None
        self.modelled = modelled
        self.replies: dict = {}  # (kind, hand, moves since the root) -> the modelled reply
        self.root_turn = deal.turn
        self.kinds = None  # per hand, the cumulative weights of the kinds of player
        # the kinds of player before the plays from the current hand (used with no such play yet)
        self.model = player_model(self.past, other, base.money, deal.dealer) if modelled and self.past else MODEL

    def draw_hands(self, rng: random.Random) -> list:
        """The other seat's possible hands the decision weighs: every one, or ``HANDS`` of them
        drawn from ``rng`` (the first random numbers of the decision's search)."""
        hidden, n = self.hidden, self.n_other
        if comb(len(hidden), n) <= HANDS:
            return [list(h) for h in combinations(hidden, n)]
        drawn: set = set()
        hands = []
        while len(hands) < HANDS:
            check()
            h = tuple(sorted(rng.sample(hidden, n)))
            if h not in drawn:
                drawn.add(h)
                hands.append(list(h))
        return hands

    def player_model(self) -> tuple:
        """The kinds of player the other seat is, by its plays of the rounds already over."""
        return player_model(self.past, self.other, self.template.money, self.template.deal.dealer)

    def _weigh(self, rng: random.Random) -> None:
        hands = self.draw_hands(rng)
        other, money, dealer = self.other, self.template.money, self.template.deal.dealer
        model = self.player_model()
        cum = []
        kinds = []
        acc = 0.0
        for h in hands:
            w = list(model)
            for play in self.plays:
                for k, p in enumerate(likelihoods(h, play, other, money, dealer)):
                    w[k] *= p
            acc += (w[0] + w[1] + w[2]) ** self.infer
            cum.append(acc)
            kinds.append((w[0], w[0] + w[1], w[0] + w[1] + w[2]))
        self.hands, self.cum, self.kinds = hands, cum, kinds

    def __call__(self, rng: random.Random) -> ScopaState:
        t = self.template
        s = _SearchState.__new__(_SearchState)
        s.other, s.replies, s.root_turn = self.other, self.replies, self.root_turn
        s.deck, s.names, s.money, s.target, s.match = t.deck, t.names, t.money, t.target, False
        s.deals, s.results = [], []
        s.base, s.totals = t.base, t.totals[:]
        s.current, s.done, s.winner, s.rng = t.current, t.done, None, t.rng
        d = t.deal.copy()
        s.deal = d
        n = self.n_other
        if self.plays:
            if self.hands is None:
                self._weigh(rng)
            k = min(bisect_right(self.cum, rng.random() * self.cum[-1]), len(self.hands) - 1)
            hand = self.hands[k]
            kinds = self.kinds[k]
            rest = [c for c in self.hidden if c not in hand]
            rng.shuffle(rest)
        else:
            kinds = (self.model[0], self.model[0] + self.model[1], 1.0)
            rest = self.hidden[:]
            rng.shuffle(rest)
            hand, rest = rest[:n], rest[n:]
        s.kind = 2
        if self.modelled and kinds[2] > 0:
            s.kind = min(2, bisect_right(kinds, rng.random() * kinds[2]))
        d.hands[self.other] = sorted(hand)
        d.initial_stock = self.head + tuple(rest)
        if d.current == self.other:
            d._legal = None
            d._caps = None
        return s


def determinize(base: ScopaState, seat: int, infer: float = 1.0):
    """A function ``rng -> state`` redealing the cards hidden from ``seat`` (see ``_Determinizer``)."""
    return _Determinizer(base, seat, infer)


class ScopaSearch(SearchHooks):
    """Scopa's ``SearchHooks`` (the current deal; rewards in deal points / ``scale``).

    Own options: ``epsilon``, the rollout's chance of a random move (``ismcts:1000,epsilon=0.1``);
    ``lookahead``, the weight of the best capture open past the horizon; ``infer``, the weight
    of the inference about the other hand, 0..1 (0: every hand equally likely); ``model``, 1
    (default) or 0: the other seat plays as the kind of player the inference takes it for,
    in the rollouts and in the tree, where its modelled reply is the only child.
    """

    #: spec key -> (keyword, parser) of this game's own search options
    OPTIONS = {"epsilon": ("epsilon", float), "lookahead": ("lookahead", float), "infer": ("infer", float),
               "model": ("model", int)}
    scale = 3.0
    depth = 6
    max_depth = NUM_PLAYS

    def __init__(self, epsilon: float = 0.05, lookahead: float = 0.7, infer: float = 1.0, model: int = 1):
        if not 0.0 <= epsilon <= 1.0:
            raise BotSpecError(f"scopa search epsilon must be in 0..1, got {epsilon!r}")
        if isinstance(infer, bool) or not isinstance(infer, (int, float)) or not 0.0 <= infer <= 1.0:
            raise BotSpecError(f"scopa search infer must be a number in 0..1, got {infer!r}")
        self.epsilon = epsilon
        self.lookahead = lookahead
        self.infer = infer
        if isinstance(model, bool) or model not in (0, 1):
            raise BotSpecError(f"scopa search model must be 0 or 1, got {model!r}")
        self.model = model
        self.reply = model_move if model else None

    def determinizer(self, base, seat: int):
        return _Determinizer(base, seat, self.infer, bool(self.model))

    def team(self, state) -> int:
        return state.current

    def quick_score(self, state, move) -> float:
        return quick_score(state, move)

    def rollout(self, state, rng: random.Random, plies: int) -> None:
        greedy_rollout(state, rng, plies, self.epsilon, bool(self.model))

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
        return heuristic_scores(Info(view), legal)

    def core_deals(self, base, rng: random.Random) -> dict:
        """The determinizations of a decision at ``base`` as the core's search takes them: the
        hidden cards, the other seat's hand size, the weighed hands (drawn from ``rng`` as the
        Python search's first determinization draws them, weighed by the core as ``_weigh``
        weighs them) and the kinds of player."""
        det = _Determinizer(base, base.current, self.infer)  # (its kinds of player worked out in C here)
        ext = core.extension("scopa")
        model = ext.player_model(det.past, det.other, base.money)  # player_model, by the core's bots
        deals = {"hidden": det.hidden, "n_other": det.n_other, "hands": [], "cum": [], "kinds": [],
                 "model": model if self.model and det.past else MODEL, "other": det.other}
        if det.plays:  # weighed in C as _weigh weighs them (likelihoods by the core's bots)
            hands = det.draw_hands(rng)
            cum, kinds = ext.weigh(hands, det.plays, det.other, base.money, model, self.infer)
            deals.update(hands=hands, cum=cum, kinds=kinds)
        return deals

    def core_search(self, base, rng: random.Random, settings: dict, bias, means=None) -> tuple:
        """The whole decision in the compiled core (core/scopa_search.c): the same search as the
        generic ``ismcts`` over these hooks, on the core's fast random numbers seeded from ``rng``
        (given Python's numbers it makes the Python search's moves, bit for bit:
        tests/test_core_search_scopa.py).  ``settings``: the bot's iterations, c, expand, reward,
        scale, depth, root; ``bias``: None or the root's prior bias by move.  Returns the move and
        its root visits by move (and, into a ``means`` dict, each legal move's mean reward);
        ``OverBudget`` when the deadline (``budget``) passes first."""
        deals = self.core_deals(base, rng)
        options = dict(settings, epsilon=self.epsilon, lookahead=self.lookahead, model=self.model)
        legal = base.legal_moves()
        by_move = array("d", [bias[m] for m in legal]) if bias is not None else None
        left = remaining()  # the C loop stops itself there (0: no deadline)
        seconds = 0.0 if left is None else max(left, 1e-9)
        out = None if means is None else array("d", bytes(8 * len(legal)))
        index, visits = core.extension("scopa").search(base, options, deals, by_move, rng.getrandbits(64), seconds,
                                                       None, out)
        if index is not None:
            if means is not None:
                means.update(zip(legal, out))
            return legal[index], dict(zip(legal, visits))
        check()
        raise OverBudget("the search passed its deadline")

