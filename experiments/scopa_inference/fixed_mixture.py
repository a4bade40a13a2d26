"""Scratch: deal the other hand from its posterior under a model of its play this round:
with prob A it plays the heuristic's move, with prob B the greedy's, else (EPS) any legal move."""
import bisect
from itertools import combinations
from math import comb
from cavallo_env.scopa import search as S
from cavallo_env.scopa.bots import heuristic_scores, card_weights, move_values
from cavallo_env.scopa.engine import NUM_PLAYS, VALUE, ScopaState

import sys, os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from approx_model import _evidence, _info, _moves_of

K = 150
A, B, EPS = 0.6, 0.3, 0.1


def _greedy_move(inf, legal):
    w = card_weights(inf, inf.piles[inf.seat], inf.piles[1 - inf.seat])
    last = inf.plays_left == 1
    def key(move):
        card, capture = move
        if capture:
            return (-move_values(inf, move, w, last), -len(capture), card, capture)
        return (1.0, VALUE[card], card, ())
    return min(legal, key=key)


class ExactDet(S._Determinizer):
    __slots__ = ("ev", "hands", "cum", "deal")

    def __init__(self, base, seat, tries=12):
        S._Determinizer.__init__(self, base, seat, 0)  # uniform where there is no evidence
        self.deal = base.deal
        self.ev = _evidence(base.deal, self.other, base.money) if self.n_other else []
        self.hands = None

    def _build(self, rng):
        deal, other = self.deal, self.other
        money = self.template.money
        obs = []
        cur_round = (deal.turn // 6) * 6
        for (i, card, capture, table, piles, scope, lc) in self.ev:
            rnd = i // 6
            later = [c for j, (s, c, _) in enumerate(deal.moves) if s == other and j > i and j >= cur_round]
            myb = sum(1 for j, (s, _, _) in enumerate(deal.moves) if s != other and rnd * 6 <= j < i)
            obs.append((card, tuple(capture), table, piles, scope, lc, later + [card], 3 - myb, 30 - 6 * rnd, NUM_PLAYS - i))
        hidden, n = self.hidden, self.n_other
        if comb(len(hidden), n) <= K:
            cands = [list(h) for h in combinations(hidden, n)]
        else:
            seen = set()
            cands = []
            while len(cands) < K:
                h = tuple(sorted(rng.sample(hidden, n)))
                if h not in seen:
                    seen.add(h)
                    cands.append(list(h))
        hands, cum, acc = [], [], 0.0
        for h in cands:
            w = 1.0
            for (card, cap, table, piles, scope, lc, extra, opp_hand, stock, plays_left) in obs:
                hand = sorted(h + extra)
                inf = _info(other, money, deal.dealer, hand, table, piles, scope, opp_hand, stock, plays_left, lc)
                legal = [mv for c in hand for mv in _moves_of(c, table)]
                sc = heuristic_scores(inf, legal)
                hm = legal[max(range(len(legal)), key=lambda k: (sc[k], -k))]
                gm = _greedy_move(inf, legal)
                played = (card, cap)
                w *= A * (hm == played) + B * (gm == played) + EPS / len(legal)
            acc += w
            hands.append(h)
            cum.append(acc)
        self.hands, self.cum = hands, cum

    def __call__(self, rng):
        if not self.ev:
            return S._Determinizer.__call__(self, rng)
        if self.hands is None:
            self._build(rng)
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


def install(k=150, a=0.6, b=0.3, eps=0.1):
    global K, A, B, EPS
    K, A, B, EPS = k, a, b, eps
    S.ScopaSearch.determinizer = lambda self, base, seat: ExactDet(base, seat)
