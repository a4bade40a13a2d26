"""The decks of the games: the 40-card Italian decks (Briscola, Scopa) and Cavalloìcera's 52 cards.

40 cards: id = ``suit_index * 10 + rank_index`` (docs/rules/briscola.md,
"Decks"); the two decks differ only in names, never in rules:

============  ==================================  ==========================
deck          suits (id order)                    ranks (id order)
============  ==================================  ==========================
``milanesi``  hearts, diamonds, clubs, spades     A 2 3 4 5 6 7 J Q K
``bresciane`` coins, cups, swords, clubs          A 2 3 4 5 6 7 F C R
============  ==================================  ==========================

Tables: ``DECKS``, ``NUM_CARDS``, ``SUITS[deck]``, ``RANKS[deck]``,
``NAMES[deck]`` (tuple by id), ``IDS[deck]`` (name -> id), ``SUIT`` and
``RANK`` (by id), the rank indices ``ACE`` .. ``KING``; ``card_id(name,
deck)``, ``card_name(id, deck)``, ``check_deck`` and ``unknown_card`` (why a
value is no card of a deck); ``card_list`` reads a list of card names of a deal.

52 cards (docs/contract.md): id = ``suit_index * 13 + rank_index`` with
``SUITS_52`` coins, cups, swords, clubs and ``RANKS_52`` A 2 .. 10 F C R;
``NAMES_52`` by id.  Each game's ``cards.py`` builds its own tables (values,
points, special cards) from these.
"""

from __future__ import annotations

from ..errors import short_repr


def names_by_id(suits, ranks) -> tuple:
    """``"rank-suit"`` names in id order: suit by suit, rank by rank."""
    return tuple(f"{r}-{s}" for s in suits for r in ranks)


# ---------------------------------------------------------------- 40 cards
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
NAMES = {deck: names_by_id(SUITS[deck], RANKS[deck]) for deck in DECKS}
#: name -> id, per deck
IDS = {deck: {n: i for i, n in enumerate(NAMES[deck])} for deck in DECKS}

#: suit index and rank index of each card id
SUIT = tuple(c // NUM_RANKS for c in range(NUM_CARDS))
RANK = tuple(c % NUM_RANKS for c in range(NUM_CARDS))

# rank indices: A 2 3 4 5 6 7 J/F Q/C K/R
ACE, TWO, THREE, FOUR, FIVE, SIX, SEVEN, JACK, QUEEN, KING = range(NUM_RANKS)


def check_deck(deck) -> str:
    """``deck`` if it is a known deck name; ``ValueError`` otherwise."""
    if deck.__class__ is not str or deck not in NAMES:
        raise ValueError(f"unknown deck {short_repr(deck)}; known decks: {', '.join(DECKS)}")
    return deck


def unknown_card(name, deck: str) -> str:
    """Why ``name`` is no card of ``deck`` (a known deck): not a string, another deck's card, or unknown."""
    if name.__class__ is not str:
        return f"a card must be a name (string) of the {deck} deck, got {type(name).__name__} {short_repr(name, 40)}"
    for other in DECKS:
        if other != deck and name in IDS[other]:
            return (f"{name!r} is a card of the {other} deck, not of the {deck} deck "
                    f"(e.g. {NAMES[deck][0]!r}, {NAMES[deck][39]!r})")
    return (f"unknown card {name[:40]!r} in the {deck} deck (names look like "
            f"{NAMES[deck][6]!r}; suits {', '.join(SUITS[deck])}; ranks {' '.join(RANKS[deck])})")


def card_id(name, deck: str = "milanesi") -> int:
    """The id of the card ``name`` of ``deck``; ``ValueError`` naming the bad value and the deck."""
    c = IDS[check_deck(deck)].get(name) if name.__class__ is str else None
    if c is None:
        raise ValueError(unknown_card(name, deck))
    return c


def card_name(card, deck: str = "milanesi") -> str:
    """The name of card id ``card`` in ``deck``; ``ValueError`` for a bad id or deck."""
    names = NAMES[check_deck(deck)]
    if card.__class__ is not int or not 0 <= card < NUM_CARDS:
        raise ValueError(f"a card id must be an int in 0..{NUM_CARDS - 1}, got {short_repr(card, 40)}")
    return names[card]


def card_list(value, where: str, size: int, card_of, seen: dict | None = None, prefix: str = "",
              verb: str = "hold") -> list[int]:
    """The ids of ``value``, a list of ``size`` card names (``where`` in a deal), in the order given.

    ``card_of(name)`` is the id of a name (its ``ValueError`` says why not);
    with ``seen`` (id -> where it was dealt, filled in here) a card dealt
    twice is an error.  Every ``ValueError`` starts with ``prefix``.
    """
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{prefix}{where} must be a list of card names ({size}), got {type(value).__name__}")
    if len(value) != size:
        raise ValueError(f"{prefix}{where} must {verb} {size} cards, got {len(value)}")
    out = []
    for name in value:
        try:
            c = card_of(name)
        except ValueError as e:
            raise ValueError(f"{prefix}{where}: {e}") from None
        if seen is not None:
            if c in seen:
                raise ValueError(f"{prefix}card {name} appears twice ({seen[c]} and {where})")
            seen[c] = where
        out.append(c)
    return out


# ---------------------------------------------------------------- 52 cards
SUITS_52 = ("coins", "cups", "swords", "clubs")
RANKS_52 = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "F", "C", "R")
NUM_CARDS_52 = len(SUITS_52) * len(RANKS_52)
NAMES_52 = names_by_id(SUITS_52, RANKS_52)
