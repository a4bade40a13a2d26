"""The 40-card decks of Briscola (and Scopa): names, ids, strength and points.

Card id = ``suit_index * 10 + rank_index`` (docs/rules/briscola.md, "Decks"); the
two decks differ only in names, never in rules:

============  ==================================  ==========================
deck          suits (id order)                    ranks (id order)
============  ==================================  ==========================
``milanesi``  hearts, diamonds, clubs, spades     A 2 3 4 5 6 7 J Q K
``bresciane`` coins, cups, swords, clubs          A 2 3 4 5 6 7 F C R
============  ==================================  ==========================

Public tables (importable by every 40-card game): ``DECKS``, ``NUM_CARDS``,
``SUITS[deck]``, ``RANKS[deck]``, ``NAMES[deck]`` (tuple by id),
``IDS[deck]`` (name -> id), ``card_id(name, deck)``, ``card_name(id, deck)``,
``SUIT`` and ``RANK`` (by id), and Briscola's ``STRENGTH`` and ``POINTS`` (by id).
"""

from __future__ import annotations

DECKS = ("milanesi", "bresciane")
NUM_CARDS = 40
NUM_SUITS = 4
NUM_RANKS = 10

SUITS = {
    "milanesi": ("hearts", "diamonds", "clubs", "spades"),
    "bresciane": ("coins", "cups", "swords", "clubs"),
}
RANKS = {
    "milanesi": ("A", "2", "3", "4", "5", "6", "7", "J", "Q", "K"),
    "bresciane": ("A", "2", "3", "4", "5", "6", "7", "F", "C", "R"),
}

#: card names by id, per deck
NAMES = {deck: tuple(f"{r}-{s}" for s in SUITS[deck] for r in RANKS[deck]) for deck in DECKS}
#: name -> id, per deck
IDS = {deck: {n: i for i, n in enumerate(NAMES[deck])} for deck in DECKS}

#: suit index and rank index of each card id
SUIT = tuple(c // NUM_RANKS for c in range(NUM_CARDS))
RANK = tuple(c % NUM_RANKS for c in range(NUM_CARDS))

# rank indices: A 2 3 4 5 6 7 J/F Q/C K/R
ACE, TWO, THREE, FOUR, FIVE, SIX, SEVEN, JACK, QUEEN, KING = range(NUM_RANKS)

#: trick-taking strength by rank index (higher wins): A > 3 > K > Q > J > 7 > 6 > 5 > 4 > 2
RANK_STRENGTH = (9, 0, 8, 1, 2, 3, 4, 5, 6, 7)
#: card points by rank index: A 11, 3 10, K 4, Q 3, J 2, others 0 (120 in the deck)
RANK_POINTS = (11, 0, 10, 0, 0, 0, 0, 2, 3, 4)

STRENGTH = tuple(RANK_STRENGTH[r] for r in RANK)
POINTS = tuple(RANK_POINTS[r] for r in RANK)
TOTAL_POINTS = sum(POINTS)  # 120


def _deck_of_name(name: str) -> str | None:
    for deck in DECKS:
        if name in IDS[deck]:
            return deck
    return None


def check_deck(deck) -> str:
    """``deck`` if it is a known deck name; ``ValueError`` otherwise."""
    if deck not in NAMES:
        raise ValueError(f"unknown deck {deck!r}; known decks: {', '.join(DECKS)}")
    return deck


def card_id(name, deck: str = "milanesi") -> int:
    """The id of the card ``name`` of ``deck``; ``ValueError`` naming the bad value and the deck."""
    ids = IDS.get(deck)
    if ids is None:
        raise ValueError(f"unknown deck {deck!r}; known decks: {', '.join(DECKS)}")
    if name.__class__ is str:
        c = ids.get(name)
        if c is not None:
            return c
        other = _deck_of_name(name)
        if other is not None:
            raise ValueError(f"{name!r} is a card of the {other} deck, not of the {deck} deck "
                             f"(e.g. {NAMES[deck][0]!r}, {NAMES[deck][39]!r})")
        raise ValueError(f"unknown card {name[:40]!r} in the {deck} deck (names look like "
                         f"{NAMES[deck][6]!r}; suits {', '.join(SUITS[deck])}; ranks {' '.join(RANKS[deck])})")
    raise ValueError(f"a card must be a name (string) of the {deck} deck, got {type(name).__name__} {name!r:.40}")


def card_name(card, deck: str = "milanesi") -> str:
    """The name of card id ``card`` in ``deck``; ``ValueError`` for a bad id or deck."""
    names = NAMES.get(deck)
    if names is None:
        raise ValueError(f"unknown deck {deck!r}; known decks: {', '.join(DECKS)}")
    if card.__class__ is not int or not 0 <= card < NUM_CARDS:
        raise ValueError(f"a card id must be an int in 0..{NUM_CARDS - 1}, got {card!r:.40}")
    return names[card]


__all__ = [
    "DECKS", "NUM_CARDS", "NUM_SUITS", "NUM_RANKS", "SUITS", "RANKS", "NAMES", "IDS", "SUIT", "RANK",
    "STRENGTH", "POINTS", "RANK_STRENGTH", "RANK_POINTS", "TOTAL_POINTS", "card_id", "card_name", "check_deck",
    "ACE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "JACK", "QUEEN", "KING",
]
