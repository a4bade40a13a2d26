"""Briscola's cards: the 40-card decks (``cavallo_env.games.decks``) with Briscola's strength and points.

Card id = ``suit_index * 10 + rank_index`` (docs/rules/briscola.md, "Decks");
the ``milanesi`` and ``bresciane`` decks differ only in names, never in rules.

Public tables (importable by every 40-card game): ``DECKS``, ``NUM_CARDS``,
``SUITS[deck]``, ``RANKS[deck]``, ``NAMES[deck]`` (tuple by id),
``IDS[deck]`` (name -> id), ``card_id(name, deck)``, ``card_name(id, deck)``,
``SUIT`` and ``RANK`` (by id), and Briscola's ``STRENGTH`` and ``POINTS`` (by id).
"""

from __future__ import annotations

from ..games.decks import (
    ACE, DECKS, FIVE, FOUR, IDS, JACK, KING, NAMES, NUM_CARDS, NUM_RANKS, NUM_SUITS, QUEEN, RANK, RANKS,
    SEVEN, SIX, SUIT, SUITS, THREE, TWO, card_id, card_name, check_deck,
)

#: trick-taking strength by rank index (higher wins): A > 3 > K > Q > J > 7 > 6 > 5 > 4 > 2
RANK_STRENGTH = (9, 0, 8, 1, 2, 3, 4, 5, 6, 7)
#: card points by rank index: A 11, 3 10, K 4, Q 3, J 2, others 0 (120 in the deck)
RANK_POINTS = (11, 0, 10, 0, 0, 0, 0, 2, 3, 4)

STRENGTH = tuple(RANK_STRENGTH[r] for r in RANK)
POINTS = tuple(RANK_POINTS[r] for r in RANK)
TOTAL_POINTS = sum(POINTS)  # 120


__all__ = [
    "DECKS", "NUM_CARDS", "NUM_SUITS", "NUM_RANKS", "SUITS", "RANKS", "NAMES", "IDS", "SUIT", "RANK",
    "STRENGTH", "POINTS", "RANK_STRENGTH", "RANK_POINTS", "TOTAL_POINTS", "card_id", "card_name", "check_deck",
    "ACE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "JACK", "QUEEN", "KING",
]
