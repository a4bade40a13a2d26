"""Scopa's cards: the 40-card decks (``cavallo_env.games.decks``) with Scopa's values.

Card ids ``suit * 10 + rank`` as in Briscola; ``VALUE`` (A=1 .. 7, J/F=8,
Q/C=9, K/R=10) is what captures sum, ``PRIMIERA`` each card's primiera
value, ``MONEY_SUIT`` the money suit of each deck.
"""

from __future__ import annotations

from ..games.decks import (  # noqa: F401  (re-exported: Scopa's card tables)
    DECKS, IDS, KING, NAMES, NUM_CARDS, RANK, RANKS, SEVEN, SUIT, SUITS, card_id, card_name, check_deck, unknown_card,
)

#: money suit index per deck: diamonds (milanesi), coins (bresciane)
MONEY_SUIT = {"milanesi": 1, "bresciane": 0}
#: capture value of each card id: A=1 .. 7, J/F=8, Q/C=9, K/R=10
VALUE = tuple(r + 1 for r in RANK)
#: primiera value by rank index: A 16, 2 12, 3 13, 4 14, 5 15, 6 18, 7 21, courts 10
PRIMIERA_RANK = (16, 12, 13, 14, 15, 18, 21, 10, 10, 10)
PRIMIERA = tuple(PRIMIERA_RANK[r] for r in RANK)
