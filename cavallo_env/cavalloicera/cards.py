"""Card ids, names and the per-card lookup tables the engine runs on.

Ids follow docs/contract.md: ``id = suit_index * 13 + rank_index`` with suits
``coins, cups, swords, clubs`` and ranks ``A 2 .. 10 F C R`` (the 52-card deck
of ``cavallo_env.games.decks``).  Names such as
``"7-coins"`` are the interchange format; ids are what the engine and tensors use.
"""

from __future__ import annotations

from ..games.decks import NAMES_52 as NAMES
from ..games.decks import NUM_CARDS_52 as NUM_CARDS
from ..games.decks import RANKS_52 as RANKS  # noqa: F401  (public table)
from ..games.decks import SUITS_52 as SUITS  # noqa: F401  (public table)

COINS, CUPS, SWORDS, CLUBS = range(4)

#: suit index of every card id
SUIT = tuple(c // 13 for c in range(NUM_CARDS))
#: rank index (0 = A .. 12 = R) of every card id
RANK = tuple(c % 13 for c in range(NUM_CARDS))
#: value used in sums: A..10 -> 1..10, courts -> 0 (they never sum)
VALUE = tuple(r + 1 if r < 10 else 0 for r in RANK)
_IDS = {name: c for c, name in enumerate(NAMES)}

# Cards that score an award of their own (docs/contract.md examples).
LA_MATA = 27  # 2-swords
COINS_10 = 9  # 10-coins
CUPS_FANTE = 23  # F-cups
SWORDS_ACE = 26  # first card of the napula run (A-swords); 26..35 is A..10


def card_id(name: str) -> int:
    """Id of a card name; ``ValueError`` naming the bad value otherwise."""
    try:
        return _IDS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown card {name!r} (expected e.g. '7-coins', 'F-cups', 'A-swords')") from None


def card_name(card: int) -> str:
    """Name of a card id (0..51)."""
    if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < NUM_CARDS:
        raise ValueError(f"card id must be an int in 0..51, got {card!r}")
    return NAMES[card]


def names(cards) -> list[str]:
    """Names of an iterable of card ids, in the same order."""
    return [NAMES[c] for c in cards]


def ids(card_names) -> list[int]:
    """Ids of an iterable of card names, in the same order."""
    return [card_id(n) for n in card_names]
