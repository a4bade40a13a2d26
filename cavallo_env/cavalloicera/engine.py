"""The rules of Cavalloìcera (docs/rules/cavalloicera.md) as a pure-Python state machine.

No numpy, no torch: this module is the single source of truth for the rules and
is shared by the PettingZoo env, the bots, the records and the training driver.

A *move* is ``(card, capture)``: the card played from hand and the sorted tuple
of table cards it takes (``()`` = place only).  ``CavalloiceraState.legal_moves()``
lists every legal ``(card, capture set)`` pair; ``CavalloiceraState.play()`` applies a
move.  ``CavalloiceraState.captures()`` gives the capture sets by hand card; they come
from the list of every set of table numerals summing to at most 10, which is
updated from the previous turn's list (a placed numeral adds the sets
containing it, a capture drops the sets using the cards it took) rather than
searched afresh.  ``sum_captures`` is the stand-alone subset-sum search.
"""

from __future__ import annotations

import random
from bisect import insort

from ..budget import ByteCache
from ..games.base import Copyable
from ..games.captures import card_bits, one_card_matches, small_sets, sum_entries
from ..games.decks import card_list
from ..games.shuffle import shuffle as _shuffle
from .cards import (
    COINS_10,
    CUPS_FANTE,
    LA_MATA,
    NAMES,
    NUM_CARDS,
    RANK,
    SUIT,
    SWORDS,
    SWORDS_ACE,
    VALUE,
    card_id,
)

NUM_SEATS = 4
HAND_SIZE = 12
TABLE_SIZE = 4
NUM_TURNS = NUM_SEATS * HAND_SIZE  # 48

BONUSES = ("scua", "picada", "simili", "quadriglia")
AWARDS = ("most_cards", "most_swords", "la_mata", "coins_10", "cups_fante", "napula")
BREAKDOWN_KEYS = BONUSES + AWARDS
SCUA, PICADA, SIMILI, QUADRIGLIA = range(4)

Move = tuple  # (card: int, capture: tuple[int, ...])

# ---------------------------------------------------------------- capture sets

#: ``sum_captures`` memo, bounded in bytes: one table of 40+ numerals holds ~4,000 sets (~0.4 MB)
SUMS_CACHE_MB = 32
_SUMS_CACHE = ByteCache(SUMS_CACHE_MB)
_PLACE = tuple((c, ()) for c in range(NUM_CARDS))  # the place-only move of each card
_CAPS_ONLY = object()  # CavalloiceraState._legal: captures() is cached, legal_moves() not yet


def sum_captures(numerals: tuple) -> tuple:
    """All sets of >= 2 table numerals by their sum (index 0..10).

    ``numerals`` must be sorted by id; every returned set is sorted by id.
    Pruned: a partial set is only extended while its sum stays <= 10, so the
    work is bounded by the number of small-sum subsets, not by 2**n.
    """
    hit = _SUMS_CACHE.get(numerals)
    if hit is not None:
        return hit
    partial = [(0, ())]
    for c in numerals:
        v = VALUE[c]
        grown = [(s + v, t + (c,)) for s, t in partial if s + v <= 10]
        partial.extend(grown)
    by_sum: list[list] = [[] for _ in range(11)]
    for s, t in partial:
        if len(t) >= 2:
            by_sum[s].append(t)
    result = tuple(tuple(x) for x in by_sum)
    # what the entry holds: 12 tuple headers, one per set, and 8 bytes per slot (the ints are shared)
    _SUMS_CACHE.put(numerals, result, 56 * (len(partial) + 12) + 8 * (2 * len(numerals) + len(partial) * 4))
    return result


# The move generator works on card sets as bit masks with card c at bit 51 - c.
# For two capture sets with the same sum (so neither contains the other),
# increasing id order of the sets (as sorted tuples) is decreasing order of
# their masks.  A numeral's captures are exactly the sets of table numerals
# whose values sum to its value (one card: the rank match; two or more: a
# sum), so one list of all numeral sets with sums <= 10, by decreasing mask,
# gives every numeral's captures in order.  There are only 4050 such sets in
# the deck; ``_SETS`` maps each mask to its sorted tuple.
_BIT = card_bits(NUM_CARDS)
_NUMERAL_MASK = sum(_BIT[c] for c in range(NUM_CARDS) if VALUE[c])
_RANK_MASK = tuple(sum(_BIT[c] for c in range(NUM_CARDS) if RANK[c] == r) for r in range(13))
_SAME_RANK_MASK = tuple(_RANK_MASK[RANK[c]] for c in range(NUM_CARDS))
_BIT_OF = _BIT.__getitem__
_SETS: dict[int, tuple] = small_sets(VALUE, _BIT)
# any set of table courts of one rank -> their one-card captures, in order
_COURT_MATCHES = one_card_matches([[c for c in range(NUM_CARDS) if RANK[c] == r] for r in range(10, 13)], _BIT)


def _table_sets(nmask: int, table, base) -> tuple:
    """``(nmask, entries, by_value)`` for the table whose numerals have mask ``nmask``.

    ``entries``: ``(mask, sum)`` of every set of table numerals summing to at
    most 10, by decreasing mask; ``by_value[v]``: the captures of a numeral of
    value ``v`` in increasing order (None if it has none).  Entries are shared
    (copies of a state share theirs) and never mutated.

    Derived from the entry ``base`` of an earlier table when one turn
    separates them (a placed numeral adds the sets containing it; a capture
    drops the sets that use a taken card); any other difference means a full
    enumeration, so ``base`` may be any earlier entry.  No global cache:
    deriving costs about as much as a lookup would.
    """
    entries = None
    if base is not None:
        bmask, bentries, _ = base
        removed = bmask & ~nmask
        added = nmask & ~bmask
        if not added:
            if not removed:
                return base
            entries = [p for p in bentries if not p[0] & removed]
        elif not removed and not added & (added - 1):  # exactly one numeral added
            v = VALUE[NUM_CARDS - added.bit_length()]
            lim = 10 - v
            entries = [(m | added, s + v) for m, s in bentries if s <= lim]
            entries.append((added, v))
            entries += bentries
            entries.sort(reverse=True)
    if entries is None:
        entries = sum_entries(table, VALUE, _BIT)
        entries.sort(reverse=True)
    by_value: list = [None] * 11
    sets = _SETS
    for m, s in entries:
        got = by_value[s]
        if got is None:
            by_value[s] = [sets[m]]
        else:
            got.append(sets[m])
    return nmask, entries, by_value


def capture_sets(card: int, table) -> list[tuple]:
    """Every legal capture set of ``card`` on ``table`` (sorted ids), sorted."""
    rank = RANK[card]
    sets = [(t,) for t in table if RANK[t] == rank]
    v = VALUE[card]
    if v:
        numerals = tuple(t for t in table if VALUE[t])
        if len(numerals) >= 2:
            sets.extend(sum_captures(numerals)[v])
    sets.sort()
    return sets


def capture_points(card: int, capture: tuple, table_after_empty: bool, prev_placed) -> list[int]:
    """Bonuses [scua, picada, simili, quadriglia] a capture scores (docs/rules/cavalloicera.md)."""
    suit = SUIT[card]
    return [
        1 if table_after_empty else 0,
        1 if len(capture) == 1 and capture[0] == prev_placed else 0,
        1 if all(SUIT[t] == suit for t in capture) else 0,
        1 if len(capture) >= 3 else 0,
    ]


# ---------------------------------------------------------------- deals


def random_deal(seed=None) -> tuple[list[list[int]], list[int], int]:
    """A shuffled deal ``(hands, table, dealer)`` from ``random.Random(seed)`` (``seed`` a ``random.Random``:
    drawn from that generator)."""
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    deck = list(range(NUM_CARDS))
    _shuffle(rng, deck)  # == rng.shuffle(deck)
    dealer = rng.randrange(NUM_SEATS)
    hands = [sorted(deck[i * HAND_SIZE:(i + 1) * HAND_SIZE]) for i in range(NUM_SEATS)]
    table = sorted(deck[NUM_SEATS * HAND_SIZE:])
    return hands, table, dealer


def parse_deal(deal) -> tuple[list[list[int]], list[int], int]:
    """Validate a deal given by names (``{"hands", "table", "dealer"}``).

    Returns ids in the order given (records keep the deal as dealt).  Raises ``ValueError`` saying exactly what is wrong.
    """
    if not isinstance(deal, dict):
        raise ValueError(f"deal must be a dict with 'hands', 'table' and 'dealer', got {type(deal).__name__}")
    missing = [k for k in ("hands", "table", "dealer") if k not in deal]
    if missing:
        raise ValueError(f"deal is missing {', '.join(repr(k) for k in missing)}")
    hands, table, dealer = deal["hands"], deal["table"], deal["dealer"]
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < NUM_SEATS:
        raise ValueError(f"deal: dealer must be an int 0..3, got {dealer!r}")
    if not isinstance(hands, (list, tuple)) or len(hands) != NUM_SEATS:
        raise ValueError(f"deal: 'hands' must be a list of 4 hands, got {hands!r:.80}")
    seen: dict[int, str] = {}

    def take(names_, where, size):
        return card_list(names_, where, size, card_id, seen, "deal: ")

    parsed_hands = [take(h, f"hand of seat {i}", HAND_SIZE) for i, h in enumerate(hands)]
    parsed_table = take(table, "table", TABLE_SIZE)
    return parsed_hands, parsed_table, dealer


# ---------------------------------------------------------------- the game


class CavalloiceraState(Copyable):
    """One deal in progress.  Cheap to copy (``copy()``), no hidden globals.

    Public fields (read them, do not mutate them): ``dealer``, ``hands`` (4
    sorted lists of ids), ``table`` (sorted ids), ``piles`` (per team, in
    capture order), ``current`` (seat to play), ``turn`` (0..48),
    ``last_capturer`` (seat or None), ``prev_placed`` (the card placed by the
    previous turn if it was a place-only, else None: the picada target),
    ``bonuses`` (per team: scua, picada, simili, quadriglia), ``moves``
    (history of ``(seat, card, capture)``), ``unclaimed`` (cards left when
    nobody captured), ``initial_hands``/``initial_table``.
    """

    __slots__ = (
        "dealer", "initial_hands", "initial_table", "hands", "table", "piles",
        "current", "turn", "last_capturer", "prev_placed", "bonuses", "moves",
        "unclaimed", "_legal", "_caps", "_sums",
    )

    def __init__(self, hands, table, dealer: int):
        self.dealer = dealer
        self.initial_hands = tuple(tuple(h) for h in hands)
        self.initial_table = tuple(table)
        self.hands = [sorted(h) for h in hands]
        self.table = sorted(table)
        self.piles = [[], []]
        self.current = (dealer + 1) % NUM_SEATS
        self.turn = 0
        self.last_capturer = None
        self.prev_placed = None
        self.bonuses = [[0, 0, 0, 0], [0, 0, 0, 0]]
        self.moves = []
        self.unclaimed = []
        self._legal = None
        self._caps = None
        self._sums = None  # the _table_sets entry of a recent table

    # -- construction ------------------------------------------------------
    @classmethod
    def new(cls, seed=None) -> "CavalloiceraState":
        """A random deal from ``seed`` (any value ``random.Random`` accepts)."""
        return cls(*random_deal(seed))

    @classmethod
    def from_deal(cls, deal) -> "CavalloiceraState":
        """A game from a deal given by names; ``ValueError`` if malformed."""
        return cls(*parse_deal(deal))

    def copy(self) -> "CavalloiceraState":
        s = CavalloiceraState.__new__(CavalloiceraState)
        s.dealer = self.dealer
        s.initial_hands = self.initial_hands
        s.initial_table = self.initial_table
        s.hands = [h[:] for h in self.hands]
        s.table = self.table[:]
        s.piles = [self.piles[0][:], self.piles[1][:]]
        s.current = self.current
        s.turn = self.turn
        s.last_capturer = self.last_capturer
        s.prev_placed = self.prev_placed
        s.bonuses = [self.bonuses[0][:], self.bonuses[1][:]]
        s.moves = self.moves[:]
        s.unclaimed = self.unclaimed[:]
        s._legal = self._legal
        s._caps = self._caps
        s._sums = self._sums
        return s

    # -- queries -------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self.turn >= NUM_TURNS

    def capture_sets(self, card: int) -> list[tuple]:
        """Legal capture sets of ``card`` on the current table (sorted)."""
        return capture_sets(card, self.table)

    def legal_moves(self) -> list[Move]:
        """Every legal ``(card, capture)`` of the seat to play, cached per turn.

        Ordered by card id; for each card: place first, then its capture
        sets in increasing order.  Empty once the deal is over.
        """
        legal = self._legal
        if legal.__class__ is list:
            return legal
        caps = self._caps if legal is _CAPS_ONLY else self._captures()
        legal = []
        append = legal.append
        extend = legal.extend
        get = caps.get
        if self.turn < NUM_TURNS:
            for c in self.hands[self.current]:
                append(_PLACE[c])
                s = get(c)
                if s is not None:
                    extend([(c, x) for x in s])
        self._legal = legal
        return legal

    def captures(self) -> dict:
        """``{card: capture sets}`` for the hand cards of the seat to play that
        can capture (sets sorted, as in ``legal_moves``; keys in hand order),
        cached per turn.  Shared with the cache: do not mutate.
        """
        if self._legal is None:
            self._captures()
            self._legal = _CAPS_ONLY
        return self._caps

    def _captures(self) -> dict:
        # The per-turn cache is ``_legal`` (None = stale, _CAPS_ONLY = only
        # ``_caps`` is up to date, a list = both are); code that edits hands or
        # the table in place resets ``_legal`` to None.
        caps: dict[int, list] = {}
        self._caps = caps
        table = self.table
        if not table or self.turn >= NUM_TURNS:
            return caps
        tmask = sum(map(_BIT_OF, table))  # distinct bits: the sum is the union
        nmask = tmask & _NUMERAL_MASK
        entry = self._sums  # the previous turn's table, as a rule
        if entry is None or entry[0] != nmask:
            entry = self._sums = _table_sets(nmask, table, entry)
        by_value = entry[2]
        for c in self.hands[self.current]:
            v = VALUE[c]
            if v:
                sets = by_value[v]
                if sets is not None:
                    caps[c] = sets
            else:
                same = tmask & _SAME_RANK_MASK[c]
                if same:
                    caps[c] = _COURT_MATCHES[same]
        return caps

    def check_move(self, card: int, capture) -> str | None:
        """Why ``(card, capture)`` is illegal for the seat to play, or None."""
        if self.turn >= NUM_TURNS:
            return "the deal is over"
        hand = self.hands[self.current]
        if card not in hand:
            return f"{NAMES[card]} is not in the hand of seat {self.current}"
        capture = tuple(capture)
        if list(capture) != sorted(set(capture)):
            return "capture must list distinct cards in increasing card id"
        off = [NAMES[t] for t in capture if t not in self.table]
        if off:
            return f"captured card(s) not on the table: {', '.join(off)}"
        if not capture:
            return None
        if capture in capture_sets(card, self.table):
            return None
        if len(capture) == 1:
            if VALUE[card] == 0 or VALUE[capture[0]] == 0:
                return f"{NAMES[card]} cannot take {NAMES[capture[0]]}: a court only takes the same court rank"
            return f"{NAMES[card]} cannot take {NAMES[capture[0]]}: ranks differ"
        if VALUE[card] == 0:
            return f"{NAMES[card]} is a court and cannot capture by sum"
        if any(VALUE[t] == 0 for t in capture):
            return "a court cannot be part of a sum"
        total = sum(VALUE[t] for t in capture)
        return f"the captured cards sum to {total}, not {VALUE[card]}"

    # -- transitions ---------------------------------------------------------
    def play(self, card: int, capture: tuple = ()) -> list[int] | None:
        """Apply a move (trusted: call ``check_move`` first for untrusted input).

        Returns the bonuses it scored ``[scua, picada, simili, quadriglia]`` for
        a capture, None for a place.
        """
        seat = self.current
        self.hands[seat].remove(card)
        points = None
        if capture:
            table = self.table
            for t in capture:
                table.remove(t)
            team = seat & 1
            pile = self.piles[team]
            pile.append(card)
            pile.extend(capture)
            suit = SUIT[card]
            for t in capture:
                if SUIT[t] != suit:
                    simili = 0
                    break
            else:
                simili = 1
            n = len(capture)
            points = [
                0 if table else 1,
                1 if n == 1 and capture[0] == self.prev_placed else 0,
                simili,
                1 if n >= 3 else 0,
            ]
            b = self.bonuses[team]
            b[0] += points[0]
            b[1] += points[1]
            b[2] += points[2]
            b[3] += points[3]
            self.last_capturer = seat
            self.prev_placed = None
        else:
            insort(self.table, card)
            self.prev_placed = card
        self.moves.append((seat, card, capture))
        self.turn += 1
        self.current = (seat + 1) & 3
        self._legal = None
        if self.turn == NUM_TURNS:
            self._finish()
        return points

    def play_checked(self, card: int, capture=()) -> list[int] | None:
        """``play`` after ``check_move``; ``ValueError`` with the reason if illegal."""
        why = self.check_move(card, capture)
        if why is not None:
            raise ValueError(f"illegal move by seat {self.current} at turn {self.turn}: {why}")
        return self.play(card, tuple(capture))

    def _finish(self):
        if self.last_capturer is None:
            self.unclaimed = self.table[:]  # nobody captured: cards stay unclaimed
        else:
            self.piles[self.last_capturer & 1].extend(self.table)  # no bonus
            self.table = []

    # -- scoring -------------------------------------------------------------
    def result(self) -> dict:
        """The result in the record format (docs/contract.md); valid once ``done``."""
        return score(self.piles, self.bonuses)

    def returns(self, reward: str = "points") -> list[float]:
        """Per-seat reward at the end of the deal: team difference or +1/0/-1."""
        tp = self.result()["team_points"]
        diff = tp[0] - tp[1]
        if reward == "win":
            diff = (diff > 0) - (diff < 0)
        return [float(diff), float(-diff), float(diff), float(-diff)]


def napula(pile_set) -> int:
    """Length of the unbroken swords run from A (0 unless A, 2, 3 are all held)."""
    n = 0
    while n < 10 and SWORDS_ACE + n in pile_set:
        n += 1
    return n if n >= 3 else 0


def score(piles, bonuses) -> dict:
    """Team points, breakdown, card counts and winner from piles and bonuses."""
    cards = [len(piles[0]), len(piles[1])]
    swords = [sum(1 for c in p if SUIT[c] == SWORDS) for p in piles]
    breakdown = []
    for t in (0, 1):
        o = 1 - t
        held = set(piles[t])
        b = dict(zip(BONUSES, bonuses[t]))
        b["most_cards"] = 2 if cards[t] > cards[o] else 0
        b["most_swords"] = 1 if swords[t] > swords[o] else 0
        b["la_mata"] = 1 if LA_MATA in held else 0
        b["coins_10"] = 1 if COINS_10 in held else 0
        b["cups_fante"] = 1 if CUPS_FANTE in held else 0
        b["napula"] = napula(held)
        breakdown.append(b)
    points = [sum(b.values()) for b in breakdown]
    winner = 0 if points[0] > points[1] else 1 if points[1] > points[0] else None
    return {"team_points": points, "breakdown": breakdown, "cards": cards, "winner": winner}


def random_playout(state: CavalloiceraState, rng: random.Random) -> CavalloiceraState:
    """Play uniformly random legal moves until the deal ends (mutates state)."""
    choice = rng.choice
    while state.turn < NUM_TURNS:
        card, capture = choice(state.legal_moves())
        state.play(card, capture)
    return state
