"""Perfect-information encoding of a single-deal Scopa state, from the player to move."""
from cavallo_env.scopa.engine import SUIT, NUM_PLAYS
N_IN = 200 + 6

def rel(c, money):
    return ((SUIT[c] - money) % 4) * 10 + c % 10

def encode(state):
    """(active indices, dense list) ; the value is seat-to-move's final point difference."""
    d = state.deal
    money = state.money
    me = d.current
    idx = []
    for c in d.hands[me]: idx.append(rel(c, money))
    for c in d.hands[1 - me]: idx.append(40 + rel(c, money))
    for c in d.table: idx.append(80 + rel(c, money))
    for c in d.piles[me]: idx.append(120 + rel(c, money))
    for c in d.piles[1 - me]: idx.append(160 + rel(c, money))
    lc = d.last_capturer
    dense = [float(d.scope[me] - d.scope[1 - me]), d.turn / 36.0, (1.0 if lc == me else -1.0 if lc is not None else 0.0),
             1.0 if d.dealer == me else -1.0, float(d.turn >= NUM_PLAYS - 6), len(d.table) / 10.0]
    return idx, dense
