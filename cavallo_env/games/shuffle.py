"""``shuffle(rng, deck)``: ``random.Random.shuffle`` unrolled, shared by every game's deals.

The same ``getrandbits`` calls as ``rng.shuffle(deck)``, so the same order for
a seed, at half the cost.  It is used only if it agrees with this Python's
shuffle (checked once at import, on decks of 40 and 52 cards); otherwise
``shuffle`` is ``random.Random.shuffle`` itself.  Decks of up to 64 cards.
"""

from __future__ import annotations

import random

_MAX = 64
_BITS = tuple((i + 1).bit_length() for i in range(_MAX))


def _shuffle_inline(rng: random.Random, deck: list) -> None:
    getrandbits = rng.getrandbits
    bits = _BITS
    for i in range(len(deck) - 1, 0, -1):
        k = bits[i]
        j = getrandbits(k)
        while j > i:
            j = getrandbits(k)
        deck[i], deck[j] = deck[j], deck[i]


def _inline_shuffle_agrees() -> bool:
    for n in (40, 52):
        for seed in (0, 12345, 2**63 - 1):
            a, b = list(range(n)), list(range(n))
            ra, rb = random.Random(seed), random.Random(seed)
            ra.shuffle(a)
            _shuffle_inline(rb, b)
            if a != b or ra.getrandbits(32) != rb.getrandbits(32):
                return False
    return True


shuffle = _shuffle_inline if _inline_shuffle_agrees() else random.Random.shuffle
