"""Scratch: a Scopa determinizer that deals the other hand from its posterior under a
softmax model of the heuristic's play (the other seat's plays this round are the evidence)."""
import bisect, math
from itertools import combinations
from cavallo_env.scopa import search as S
from cavallo_env.scopa.bots import Info, heuristic_scores, captures_of_value
from cavallo_env.scopa.engine import NUM_PLAYS, SEVEN, VALUE, ScopaState

TAU = 0.1
EPS = 0.1


def _evidence(deal, other, money):
    """[(card_played, {card: Z}, z_chosen, n_moves_of_card)] for the other seat's plays this round."""
    start = (deal.turn // 6) * 6
    table = sorted(deal.initial_table)
    piles = [[], []]
    scope = [0, 0]
    lc = None
    out = []
    for i, (s, card, capture) in enumerate(deal.moves):
        if s == other and i >= start:
            out.append((i, card, capture, table[:], [piles[0][:], piles[1][:]], scope[:], lc))
        if capture:
            for t in capture:
                table.remove(t)
            piles[s].append(card); piles[s].extend(capture)
            if not table and i + 1 < NUM_PLAYS:
                scope[s] += 1
            lc = s
        else:
            table.append(card); table.sort()
    return out


def _info(seat, money, dealer, hand, table, piles, scope, opp_hand, stock, plays_left, lc):
    inf = Info.__new__(Info)
    inf.seat = seat
    inf.dealer = dealer
    inf.money = money
    inf.sette = money * 10 + SEVEN
    inf.hand = hand
    inf.table = table
    inf.piles = piles
    inf.scope = scope
    seen = set(hand) | set(table) | set(piles[0]) | set(piles[1])
    inf.unseen = [c for c in range(40) if c not in seen]
    inf.opp_hand = opp_hand
    inf.stock = stock
    inf.plays_left = plays_left
    inf.last_capturer = lc
    inf.totals = [0, 0]
    return inf


def _moves_of(card, table):
    sets = captures_of_value(VALUE[card], table)
    return [(card, tuple(st)) for st in sets] if sets else [(card, ())]


class ModelDet(S._Determinizer):
    __slots__ = ("hands", "cum")

    def __init__(self, base, seat, tries=0):
        S._Determinizer.__init__(self, base, seat, 0)
        deal = base.deal
        other = self.other
        money = base.money
        ev = _evidence(deal, other, money)
        self.hands = None
        if not ev or self.n_other == 0:
            return
        hidden = self.hidden
        factors = []
        for (i, card, capture, table, piles, scope, lc) in ev:
            rnd = i // 6
            # the other seat's hand at play i: its current hand + what it played this round from i on
            later = [c for j, (s, c, _) in enumerate(deal.moves) if s == other and j > i and j >= (deal.turn // 6) * 6]
            my_plays_before = sum(1 for j, (s, _, _) in enumerate(deal.moves) if s != other and rnd * 6 <= j < i)
            opp_hand = 3 - my_plays_before
            stock = 30 - 6 * rnd
            plays_left = NUM_PLAYS - i
            z = {}
            cnt = {}
            for c in hidden + [card]:
                inf = _info(other, money, deal.dealer, [c], table, piles, scope, opp_hand, stock, plays_left, lc)
                mv = _moves_of(c, table)
                sc = heuristic_scores(inf, mv)
                z[c] = sum(math.exp(x / TAU) for x in sc) if c != card else None
                cnt[c] = len(mv)
                if c == card:
                    chosen = sc[mv.index((card, tuple(capture)))] if (card, tuple(capture)) in mv else max(sc)
                    zc = sum(math.exp(x / TAU) for x in sc)
                    ec = math.exp(chosen / TAU)
            const_z = zc + sum(z_later for z_later in [0.0])
            # cards played later this round were in the hand at i too
            for c in later:
                inf = _info(other, money, deal.dealer, [c], table, piles, scope, opp_hand, stock, plays_left, lc)
                mv = _moves_of(c, table)
                sc = heuristic_scores(inf, mv)
                const_z += sum(math.exp(x / TAU) for x in sc)
                cnt[c] = len(mv)
            const_n = cnt[card] + sum(cnt[c] for c in later)
            factors.append((ec, const_z, const_n, z, cnt))
        hands = []
        cum = []
        acc = 0.0
        for h in combinations(hidden, self.n_other):
            w = 1.0
            for ec, cz, cn, z, cnt in factors:
                zz = cz
                nn = cn
                for c in h:
                    zz += z[c]
                    nn += cnt[c]
                w *= (1 - EPS) * ec / zz + EPS / nn
            acc += w
            hands.append(h)
            cum.append(acc)
        self.hands = hands
        self.cum = cum

    def __call__(self, rng):
        if self.hands is None:
            return S._Determinizer.__call__(self, rng)
        t = self.template
        s = ScopaState.__new__(ScopaState)
        s.deck, s.names, s.money, s.target, s.match = t.deck, t.names, t.money, t.target, False
        s.deals, s.results = [], []
        s.base, s.totals = t.base, t.totals[:]
        s.current, s.done, s.winner, s.rng = t.current, t.done, None, t.rng
        d = t.deal.copy()
        s.deal = d
        k = bisect.bisect_right(self.cum, rng.random() * self.cum[-1])
        h = self.hands[min(k, len(self.hands) - 1)]
        rest = [c for c in self.hidden if c not in h]
        rng.shuffle(rest)
        d.hands[self.other] = sorted(h)
        d.initial_stock = self.head + tuple(rest)
        if d.current == self.other:
            d._legal = None
            d._caps = None
        return s


def install(tau=0.1, eps=0.1):
    global TAU, EPS
    TAU, EPS = tau, eps
    S.ScopaSearch.determinizer = lambda self, base, seat: ModelDet(base, seat)
