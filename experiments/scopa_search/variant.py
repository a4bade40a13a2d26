"""Patch ScopaSearch.evaluate with a learned evaluation (scratch)."""
import sys, numpy as np
sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.abspath(__file__)))
from feats import features
from cavallo_env.scopa import search as S

def install_linear(path):
    W = [list(map(float, w)) for w in np.load(path)]
    def evaluate(self, state):
        if state.done:
            return S.static_eval(state)
        f = features(state)
        w = W[min(state.deal.turn // 6, 5)]
        v = 0.0
        for a, b in zip(w, f):
            v += a * b
        return v - w[0] * f[0]  # the dealer term is a constant within a decision
    S.ScopaSearch.evaluate = evaluate

def install_mlp(path):
    from enc import encode
    z = np.load(path)
    W1 = z["0_weight"].T.astype(np.float64).copy()  # (206, H1)
    b1 = z["0_bias"].astype(np.float64)
    W2 = z["2_weight"].astype(np.float64); b2 = z["2_bias"].astype(np.float64)
    w3 = z["4_weight"][0].astype(np.float64); b3 = float(z["4_bias"][0])
    Wc = W1[:200]; Wd = W1[200:]
    maximum = np.maximum
    def value(state):
        idx, dense = encode(state)
        h = b1 + Wc[idx].sum(0) + np.dot(dense, Wd)
        h = maximum(h, 0.0)
        h2 = maximum(W2 @ h + b2, 0.0)
        return float(w3 @ h2) + b3
    def evaluate(self, state):
        if state.done:
            return S.static_eval(state)
        v = value(state)
        return v if state.deal.current == 0 else -v
    S.ScopaSearch.evaluate = evaluate
    S._mlp_value = value


def placed_values(deal, seat):
    """Values ``seat`` likely lacks: at a play since its hand was dealt where it placed a
    card, every value that could have captured on that table (plus missed sweeps/settebello)."""
    from cavallo_env.scopa.engine import VALUE, NUM_PLAYS, SEVEN, table_entries
    out = set()
    start = (deal.turn // 6) * 6
    table = list(deal.initial_table)
    sette = deal.money * 10 + SEVEN
    for i, (s, card, capture) in enumerate(deal.moves):
        if s == seat and i >= start and i < NUM_PLAYS - 1 and table:
            if not capture:
                for _, v in table_entries(table):
                    out.add(v)
            else:
                if len(capture) != len(table):
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


def install_infer(arg):
    """arg 'w_place,w_sweep': weights of a hidden card of a value the seat showed it lacks."""
    w_place, w_sweep = (float(x) for x in arg.split(","))
    from cavallo_env.scopa.engine import VALUE
    from cavallo_env.scopa.search import missed_values, ScopaState
    Base = S._Determinizer

    class Det(Base):
        __slots__ = ("wts",)

        def __init__(self, base, seat, tries=12):
            Base.__init__(self, base, seat, 0)
            deal = base.deal
            hard = missed_values(deal, self.other)
            soft = placed_values(deal, self.other)
            self.wts = [w_sweep if VALUE[c] in hard else w_place if VALUE[c] in soft else 1.0 for c in self.hidden]

        def __call__(self, rng):
            t = self.template
            s = ScopaState.__new__(ScopaState)
            s.deck, s.names, s.money, s.target, s.match = t.deck, t.names, t.money, t.target, False
            s.deals, s.results = [], []
            s.base, s.totals = t.base, t.totals[:]
            s.current, s.done, s.winner, s.rng = t.current, t.done, None, t.rng
            d = t.deal.copy()
            s.deal = d
            rand = rng.random
            keys = sorted(((rand() ** (1.0 / w), c) for w, c in zip(self.wts, self.hidden)), reverse=True)
            n = self.n_other
            d.hands[self.other] = sorted(c for _, c in keys[:n])
            rest = [c for _, c in keys[n:]]
            rng.shuffle(rest)
            d.initial_stock = self.head + tuple(rest)
            if d.current == self.other:
                d._legal = None
                d._caps = None
            return s

    S._Determinizer = Det
    S.ScopaSearch.determinizer = lambda self, base, seat: Det(base, seat)
