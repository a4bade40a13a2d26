"""How much a card is worth toward the end-of-deal awards (shared by bots).

Award value of owning a card: La Mata, 10-coins and F-cups are worth a point
each; a sword is a share of "most swords" (+1 among 13 swords); every card is a
share of "most cards" (+2 among 52); the swords A, 2, 3 open the napula (worth
3+), so they carry extra.  These are estimates used to rank moves, not rules.
"""

from __future__ import annotations

from .cards import COINS_10, CUPS_FANTE, LA_MATA, NUM_CARDS, SUIT, SWORDS, SWORDS_ACE

CARD_SHARE = 2.0 / 27  # one card toward "most cards"
SWORD_SHARE = 1.0 / 7  # one sword toward "most swords"
NAPULA_OPENERS = {SWORDS_ACE: 0.6, SWORDS_ACE + 1: 0.6, SWORDS_ACE + 2: 0.6}


def _value(c: int) -> float:
    v = CARD_SHARE
    if SUIT[c] == SWORDS:
        v += SWORD_SHARE
    if c in (LA_MATA, COINS_10, CUPS_FANTE):
        v += 1.0
    v += NAPULA_OPENERS.get(c, 0.0)
    return v


#: award value of every card id
CARD_VALUE = tuple(_value(c) for c in range(NUM_CARDS))
