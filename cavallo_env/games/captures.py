"""Capture sets as bit masks, and capture building through action ids: what the capture games share.

Cavalloìcera and Scopa capture with a card either table cards of its kind
(one at a time) or a set of table cards whose values sum to the card's value
(at most 10).  Their move generators work on card sets as bit masks with card
``c`` at bit ``num_cards - 1 - c`` (``card_bits``).  For two different sets with
the same sum (so neither contains the other), increasing order of their sorted
tuples is decreasing order of their masks, so sorting masks in reverse gives
the captures in order.

- ``card_bits``        the bit of each card id;
- ``small_sets``       every set of valued cards summing to at most 10, mask -> sorted tuple;
- ``one_card_matches`` any set of cards of one kind -> their one-card captures, in id order;
- ``sum_entries``      ``(mask, sum)`` of every set of given table cards summing to at most 10;
- ``capture_actions``  the action ids that play a capture move, one table card at a time;
- ``CaptureBuilder``   the capture being built, shared by ``CavalloiceraActions`` and ``ScopaActions``.
"""

from __future__ import annotations

from .base import Copyable

#: the largest sum a capture set may have (a card's value is at most 10)
MAX_SUM = 10


def card_bits(num_cards: int) -> tuple:
    """The bit of each card id: card ``c`` is bit ``num_cards - 1 - c``."""
    return tuple(1 << (num_cards - 1 - c) for c in range(num_cards))


def small_sets(values, bits) -> dict:
    """mask -> sorted tuple of every non-empty set of cards of value > 0 summing to at most 10."""
    sets = {0: ()}
    totals = {0: 0}
    for c, v in enumerate(values):  # increasing id: each tuple comes out sorted
        if v:
            for m, t in list(sets.items()):
                if totals[m] + v <= MAX_SUM:
                    sets[m | bits[c]] = t + (c,)
                    totals[m | bits[c]] = totals[m] + v
    del sets[0]
    return sets


def one_card_matches(groups, bits) -> dict:
    """Any non-empty set of cards of one group (one kind) -> their one-card captures, in id order.

    ``groups``: lists of card ids, each increasing; the key is the set's mask.
    """
    out = {}
    for cards in groups:
        for k in range(1, 1 << len(cards)):
            chosen = [c for i, c in enumerate(cards) if k >> i & 1]
            out[sum(bits[c] for c in chosen)] = tuple((c,) for c in chosen)
    return out


def sum_entries(table, values, bits) -> list:
    """``(mask, sum)`` of every non-empty set of ``table`` cards of value > 0 summing to at most 10.

    In the order of a table grown card by card (each card adds the sets
    containing it after the ones before it); callers sort where they need to.
    """
    entries: list = []
    for t in table:
        v = values[t]
        if v:
            b = bits[t]
            lim = MAX_SUM - v
            entries += [(m | b, s + v) for m, s in entries if s <= lim]
            entries.append((b, v))
    return entries


def capture_actions(card: int, capture: tuple, sets, capture_base: int, take_base: int) -> list[int]:
    """The unique action sequence that plays ``card`` capturing ``capture`` (non-empty).

    ``sets``: the legal capture sets of ``card``; ``capture_base + card``
    starts the capture and ``take_base + t`` takes table card ``t``, in
    increasing id, until one legal set is left.
    """
    acts = [capture_base + card]
    sets = list(sets)
    k = 0
    while len(sets) > 1:
        nxt = capture[k]
        acts.append(take_base + nxt)
        sets = [s for s in sets if len(s) > k and s[k] == nxt]
        k += 1
    return acts


class CaptureBuilder(Copyable):
    """The capture being built one table card at a time (a base of the games' action drivers).

    ``state`` is the engine state; ``building`` is None between turns, else
    ``(card, taken, sets)``: the card being captured with, the table cards
    taken so far (increasing ids) and the legal capture sets still consistent
    with them; ``_legal``/``_mask`` cache the legal actions of the decision.
    A subclass provides ``_execute(card, capture)``, which plays the move.
    """

    __slots__ = ("state", "building", "_legal", "_mask")

    def __init__(self, state):
        self.state = state
        self.building = None
        self._legal = None
        self._mask = None

    def copy(self):
        """An independent copy (the state copied, the capture being built and the caches shared)."""
        cls = self.__class__
        g = cls.__new__(cls)
        g.state = self.state.copy()
        g.building = self.building
        g._legal = self._legal
        g._mask = self._mask
        return g

    def _build(self, card: int, taken: tuple, sets):
        """Play the capture if ``sets`` holds one set, else go on building; the move or None."""
        if len(sets) == 1:
            return self._execute(card, sets[0])
        self.building = (card, taken, sets)
        return None

    def _take(self, t: int):
        """Take table card ``t`` into the capture being built; the move when it completes one."""
        card, taken, sets = self.building
        k = len(taken)
        return self._build(card, taken + (t,), [s for s in sets if s[k] == t])

    def _keep_mask(self, buf: bytearray, take_base: int) -> bytes:
        """The legal-action mask: ``buf`` (the actions between turns marked) with the legal take
        actions marked while a capture is built; cached for the decision."""
        if self.building is not None:
            for a in self._take_actions(take_base):
                buf[a] = 1
        mask = self._mask = bytes(buf)
        return mask

    def _take_actions(self, take_base: int) -> list[int]:
        """The legal take actions while building, increasing."""
        _, taken, sets = self.building
        k = len(taken)
        return sorted({take_base + s[k] for s in sets})
