"""Leaf features of a determinized single-deal Scopa state (seat 0's point of view)."""
from cavallo_env.scopa.engine import MONEY_SUIT, NUM_PLAYS, PRIMIERA, SEVEN, SUIT, VALUE
from cavallo_env.scopa.search import _p_at_least, _W, static_eval

NAMES = ["dealer", "scope", "sette_won", "cards_p", "money_p", "prim", "dead", "s2m_gain", "s2m_sweep",
         "oth_gain", "oth_sweep", "sette_hand", "sette_table", "sevens_hand", "money_hand", "s2m",
         "leftover", "cards_raw", "money_raw", "static"]

def best_gain(deal, seat, w, last):
    """Best capture gain of seat's hand on the current table; and whether it sweeps."""
    table = deal.table
    n = len(table)
    best = 0.0; sweep = 0
    if not table:
        return 0.0, 0
    total = 0
    for t in table: total += VALUE[t]
    for c in deal.hands[seat]:
        v = VALUE[c]
        g = 0.0; sw = 0
        for t in table:
            if VALUE[t] == v:
                x = w[c] + w[t] + (1.0 if n == 1 and not last else 0.0)
                if x > g: g = x; sw = int(n == 1)
        if not g and total == v:
            g = w[c] + sum(w[t] for t in table) + (0.0 if last else 1.0); sw = 1
        if g > best: best = g; sweep = sw
    return best, sweep

def features(state):
    d = state.deal
    money = state.money
    w = _W[money]
    p0, p1 = d.piles
    cur = d.current
    s2m = 1.0 if cur == 0 else -1.0
    c0, c1 = len(p0), len(p1)
    r = 40 - c0 - c1
    cards_p = _p_at_least(c0, r, 21) - _p_at_least(c1, r, 21)
    m0 = sum(1 for c in p0 if SUIT[c] == money); m1 = sum(1 for c in p1 if SUIT[c] == money)
    rm = 10 - m0 - m1
    money_p = _p_at_least(m0, rm, 6) - _p_at_least(m1, rm, 6)
    sette = money * 10 + SEVEN
    sw = 1.0 if sette in p0 else -1.0 if sette in p1 else 0.0
    # primiera as static_eval
    b0 = [0]*4; b1 = [0]*4
    for c in p0:
        if PRIMIERA[c] > b0[SUIT[c]]: b0[SUIT[c]] = PRIMIERA[c]
    for c in p1:
        if PRIMIERA[c] > b1[SUIT[c]]: b1[SUIT[c]] = PRIMIERA[c]
    out = [0]*4
    won = set(p0); won.update(p1)
    for c in range(40):
        if c not in won and PRIMIERA[c] > out[SUIT[c]]: out[SUIT[c]] = PRIMIERA[c]
    e0 = e1 = 0.0; dead0 = dead1 = False
    for s in range(4):
        o = out[s]
        x0 = max(b0[s], (b0[s] + o) / 2) if o > b0[s] else b0[s]
        x1 = max(b1[s], (b1[s] + o) / 2) if o > b1[s] else b1[s]
        if not b0[s] and not o: dead0 = True
        if not b1[s] and not o: dead1 = True
        e0 += x0; e1 += x1
    dead = (-1.0 if dead0 and not dead1 else 1.0 if dead1 and not dead0 else 0.0)
    prim = 0.0 if (dead0 or dead1) else max(-0.9, min(0.9, (e0 - e1) / 12.0))
    last = d.turn >= NUM_PLAYS - 1
    g_cur, sw_cur = best_gain(d, cur, w, last)
    g_oth, sw_oth = best_gain(d, 1 - cur, w, d.turn >= NUM_PLAYS - 2)
    h0, h1 = d.hands
    sh = 1.0 if sette in h0 else -1.0 if sette in h1 else 0.0
    st = s2m if sette in d.table else 0.0
    sev = sum(1 for c in h0 if c % 10 == SEVEN) - sum(1 for c in h1 if c % 10 == SEVEN)
    mon = sum(1 for c in h0 if SUIT[c] == money) - sum(1 for c in h1 if SUIT[c] == money)
    lc = d.last_capturer
    left = (1.0 if lc == 0 else -1.0 if lc == 1 else 0.0) * len(d.table)
    return [1.0 if d.dealer == 0 else -1.0, float(d.scope[0] - d.scope[1]), sw, cards_p, money_p, prim, dead,
            s2m * g_cur, s2m * sw_cur, -s2m * g_oth, -s2m * sw_oth, sh, st, float(sev), float(mon), s2m,
            left, (c0 - c1) / 10.0, (m0 - m1) / 5.0, static_eval(state)]
