"""The rules of two-player Briscola (docs/rules/briscola.md) as a pure-Python state machine.

No numpy: this module is the single source of truth for the rules, shared by
the env, the records, the views, the bots and the search.

A *move* is a card id (every card in hand is legal).  ``BriscolaState.play``
applies one; after the second card of a trick the trick is resolved (the
higher trump, else the higher card of the suit led), the winner takes both
cards, draws first (then the other player; the face-up trump card is the last
card drawn) and leads the next trick.  The deal ends after 20 tricks.

State layout (all public attributes; treat them as read-only outside ``play``):

- ``deck``            the deck's name (names only: the rules are the same);
- ``trump``           the face-up card id; ``trump_suit`` its suit;
- ``hands``           ``[list, list]`` of card ids per seat (in the order received);
- ``stock``           tuple of the face-down cards still to draw, top first,
                      without the trump card (drawn last, after them);
- ``trump_holder``    ``None`` while the trump card lies under the stock, then
                      the seat that drew it (public knowledge);
- ``leader``          the seat leading the current trick; ``current`` the seat to play;
- ``trick``           tuple of the cards played in the current trick (0 or 1);
- ``piles``           ``[list, list]``: the cards each seat has won;
- ``points``/``tricks``  ``[p0, p1]`` card points and tricks won so far;
- ``moves``           ``[(seat, card), ...]`` every card played, in order;
- ``done``            the deal is over (40 cards played);
- ``initial``         the deal ``(hands, trump, stock, leader)`` as tuples, for records.
"""

from __future__ import annotations

import random

from ..games.base import Copyable
from ..games.decks import card_list
from ..games.shuffle import shuffle
from .cards import DECKS, NAMES, NUM_CARDS, POINTS, STRENGTH, SUIT, TOTAL_POINTS, card_id

NUM_SEATS = 2
HAND_SIZE = 3
STOCK_SIZE = 33  # face-down stock at the start (the trump card is not counted)
NUM_TRICKS = 20
NUM_MOVES = 40


def _beats_table(trump_suit: int) -> bytes:
    """``table[lead * 40 + card]`` is 1 when ``card`` played second beats ``lead``."""
    out = bytearray(NUM_CARDS * NUM_CARDS)
    for lead in range(NUM_CARDS):
        ls = SUIT[lead]
        for card in range(NUM_CARDS):
            cs = SUIT[card]
            if cs == ls:
                win = STRENGTH[card] > STRENGTH[lead]
            else:
                win = cs == trump_suit
            out[lead * NUM_CARDS + card] = win
    return bytes(out)


#: per trump suit: does the second card beat the first?
BEATS = tuple(_beats_table(s) for s in range(4))
_MASKS = {}  # hand (sorted tuple) -> legal mask bytes


def trick_winner(lead: int, card: int, trump_suit: int, leader: int) -> int:
    """The seat winning a trick led by ``leader`` with ``lead``, answered with ``card``."""
    return 1 - leader if BEATS[trump_suit][lead * NUM_CARDS + card] else leader


def _mask_of(hand: tuple) -> bytes:
    m = _MASKS.get(hand)
    if m is None:
        b = bytearray(NUM_CARDS)
        for c in hand:
            b[c] = 1
        m = _MASKS[hand] = bytes(b)
    return m


class BriscolaState(Copyable):
    """One deal of Briscola (see the module doc for the attributes)."""

    __slots__ = ("deck", "trump", "trump_suit", "hands", "stock", "trump_holder", "leader", "current",
                 "trick", "piles", "points", "tricks", "moves", "done", "initial", "_beats", "_legal")

    def __init__(self, hands, trump: int, stock, leader: int, deck: str = "milanesi"):
        """A fresh deal from ids (trusted: use ``from_deal``/``parse_deal`` for input)."""
        self.deck = deck
        self.trump = trump
        self.trump_suit = SUIT[trump]
        self.hands = [list(hands[0]), list(hands[1])]
        self.stock = tuple(stock)
        self.trump_holder = None
        self.leader = self.current = leader
        self.trick = ()
        self.piles = [[], []]
        self.points = [0, 0]
        self.tricks = [0, 0]
        self.moves = []
        self.done = False
        self.initial = ((tuple(hands[0]), tuple(hands[1])), trump, self.stock, leader)
        self._beats = BEATS[self.trump_suit]
        self._legal = None

    # -- construction --------------------------------------------------------------
    @classmethod
    def new(cls, seed=None, deck: str = "milanesi") -> "BriscolaState":
        """A random deal (``random_deal``)."""
        return random_deal(seed, deck)

    @classmethod
    def from_deal(cls, deal, deck: str = "milanesi") -> "BriscolaState":
        """A deal given by names (``parse_deal``); ``ValueError`` saying what is wrong."""
        return cls(*parse_deal(deal, deck), deck=deck)

    def copy(self) -> "BriscolaState":
        new = object.__new__(BriscolaState)
        new.deck = self.deck
        new.trump = self.trump
        new.trump_suit = self.trump_suit
        h = self.hands
        new.hands = [h[0][:], h[1][:]]
        new.stock = self.stock
        new.trump_holder = self.trump_holder
        new.leader = self.leader
        new.current = self.current
        new.trick = self.trick
        p = self.piles
        new.piles = [p[0][:], p[1][:]]
        new.points = self.points[:]
        new.tricks = self.tricks[:]
        new.moves = self.moves[:]
        new.done = self.done
        new.initial = self.initial
        new._beats = self._beats
        new._legal = self._legal
        return new

    def __getstate__(self):
        return {k: getattr(self, k) for k in self.__slots__}

    def __setstate__(self, d):
        for k, v in d.items():
            setattr(self, k, v)

    # -- queries -----------------------------------------------------------------------
    @property
    def turn(self) -> int:
        """Cards played so far (0..40)."""
        return len(self.moves)

    @property
    def num_tricks(self) -> int:
        """Tricks completed so far (0..20)."""
        return len(self.moves) >> 1

    @property
    def stock_size(self) -> int:
        """Face-down cards still to draw (the trump card is not counted)."""
        return len(self.stock)

    def trump_known_in(self, seat: int) -> bool:
        """Whether ``seat`` publicly holds the trump card (drew it and has not played it)."""
        return self.trump_holder == seat and self.trump in self.hands[seat]

    def legal_moves(self) -> list[int]:
        """The legal moves of the seat to play: its hand, sorted by id (empty once over)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = [] if self.done else sorted(self.hands[self.current])
        return legal

    legal_actions = legal_moves

    def legal_mask(self) -> bytes:
        """40 bytes, 1 for each legal action (card id)."""
        if self.done:
            return bytes(NUM_CARDS)
        return _mask_of(tuple(self.legal_moves()))

    def check_move(self, card) -> str | None:
        """Why playing ``card`` is illegal now, or None."""
        if self.done:
            return "the deal is over"
        if card.__class__ is not int or not 0 <= card < NUM_CARDS:
            return f"a move must be a card id in 0..{NUM_CARDS - 1}, got {card!r:.40}"
        if card in self.hands[self.current]:
            return None
        name = NAMES[self.deck][card]
        where = _where(self, card)
        return f"{name} is not in the hand of seat {self.current} ({where})"

    # -- the rules ---------------------------------------------------------------------
    def play(self, card: int) -> None:
        """Play ``card`` from the hand of the seat to play (trusted: see ``check_move``)."""
        seat = self.current
        hands = self.hands
        hands[seat].remove(card)
        self.moves.append((seat, card))
        self._legal = None
        if not self.trick:
            self.trick = (card,)
            self.current = 1 - seat
            return
        lead = self.trick[0]
        self.trick = ()
        winner = seat if self._beats[lead * NUM_CARDS + card] else 1 - seat
        pile = self.piles[winner]
        pile.append(lead)
        pile.append(card)
        self.points[winner] += POINTS[lead] + POINTS[card]
        self.tricks[winner] += 1
        stock = self.stock
        if stock:
            hands[winner].append(stock[0])
            if len(stock) > 1:
                hands[1 - winner].append(stock[1])
                self.stock = stock[2:]
            else:  # the face-up trump card is the last card drawn
                hands[1 - winner].append(self.trump)
                self.stock = ()
                self.trump_holder = 1 - winner
        self.leader = self.current = winner
        if not hands[winner]:
            self.done = True

    def result(self) -> dict:
        """``{"points": [p0, p1], "tricks": [t0, t1], "winner": 0 | 1 | None}`` (None: 60-60 or not over)."""
        p0, p1 = self.points
        winner = None
        if self.done and p0 != p1:
            winner = 0 if p0 > p1 else 1
        return {"points": [p0, p1], "tricks": self.tricks[:], "winner": winner}

    def returns(self, reward: str = "points") -> list[float]:
        """Per-seat return of a finished deal: the point difference, or +1/0/-1 with ``reward="win"``."""
        d = self.points[0] - self.points[1]
        if reward == "win":
            d = (d > 0) - (d < 0)
        return [float(d), float(-d)]

    def hidden_from(self, seat: int) -> tuple[list, bool]:
        """The cards hidden from ``seat``: ``(pool, known)``, the pool the other hand's cards
        (but the trump card when it publicly holds it: ``known``) then the stock's."""
        opp = self.hands[1 - seat]
        trump = self.trump
        known = self.trump_holder == 1 - seat and trump in opp
        pool = [c for c in opp if c != trump] if known else opp[:]
        pool += self.stock
        return pool, known

    def redeal_hidden(self, seat: int, rng: random.Random) -> None:
        """Deal the cards hidden from ``seat`` anew, in place (a determinization).

        The other hand (but the trump card when it publicly holds it) and the
        stock are shuffled together and dealt back with the same sizes.
        """
        other = 1 - seat
        opp = self.hands[other]
        trump = self.trump
        pool, known = self.hidden_from(seat)
        rng.shuffle(pool)
        n = len(opp) - known
        hand = pool[:n]
        if known:
            hand.append(trump)
        self.hands[other] = hand
        self.stock = tuple(pool[n:])
        self._legal = None

    def __repr__(self):
        names = NAMES[self.deck]
        h = [" ".join(names[c] for c in hand) for hand in self.hands]
        return (f"<BriscolaState {self.deck} trump {names[self.trump]} turn {len(self.moves)} "
                f"current {self.current} hands [{h[0]} | {h[1]}] stock {len(self.stock)} points {self.points}>")


def _where(state: BriscolaState, card: int) -> str:
    for seat, c in state.moves:
        if c == card:
            return f"seat {seat} already played it"
    other = 1 - state.current
    if card in state.hands[other]:
        return f"it is in the hand of seat {other}"
    if card == state.trump:
        return "it is the face-up trump card, still under the stock"
    return "it is still in the stock"


def random_playout(state: BriscolaState, rng: random.Random) -> BriscolaState:
    """Play uniformly random legal moves until the deal is over (mutates ``state``)."""
    rnd = rng.random
    hands = state.hands
    play = state.play
    while not state.done:
        hand = hands[state.current]
        play(hand[int(rnd() * len(hand))])
    return state


# ---------------------------------------------------------------- deals


def random_deal(seed=None, deck: str = "milanesi") -> BriscolaState:
    """A random deal from ``random.Random(seed)``: the 40 ids shuffled, then
    hands ``ids[0:3]`` and ``ids[3:6]``, the trump card ``ids[6]``, the stock
    ``ids[7:]`` (top first) and the leader ``randrange(2)``."""
    if deck not in DECKS:
        raise ValueError(f"unknown deck {deck!r}; known decks: {', '.join(DECKS)}")
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    ids = list(range(NUM_CARDS))
    shuffle(rng, ids)  # == rng.shuffle(ids)
    return BriscolaState((ids[0:3], ids[3:6]), ids[6], ids[7:], rng.randrange(2), deck)


DEAL_KEYS = ("hands", "trump", "stock", "leader")


def parse_deal(deal, deck: str = "milanesi", *, extra_keys_ok: bool = False) -> tuple:
    """``(hands, trump, stock, leader)`` by ids from a deal given by names.

    ``deal = {"hands": [[3 names], [3 names]], "trump": name, "stock": [33
    names, top first, without the trump card], "leader": 0 | 1}``.  Raises
    ``ValueError`` naming the problem.
    """
    if deck not in DECKS:
        raise ValueError(f"unknown deck {deck!r}; known decks: {', '.join(DECKS)}")
    if not isinstance(deal, dict):
        raise ValueError(f"a deal must be a dict with keys {', '.join(map(repr, DEAL_KEYS))}, "
                         f"got {type(deal).__name__}")
    for key in DEAL_KEYS:
        if key not in deal:
            raise ValueError(f"the deal has no {key!r} (a deal needs {', '.join(map(repr, DEAL_KEYS))})")
    if not extra_keys_ok:
        extra = [k for k in deal if k not in DEAL_KEYS]
        if extra:
            raise ValueError(f"unknown key(s) {', '.join(repr(k)[:40] for k in extra)} in the deal; "
                             f"a deal has {', '.join(map(repr, DEAL_KEYS))}")

    def cards(value, what, n):
        return card_list(value, what, n, lambda name: card_id(name, deck), verb="have")

    hands = deal["hands"]
    if not isinstance(hands, (list, tuple)) or len(hands) != NUM_SEATS:
        got = f"{len(hands)} hands" if isinstance(hands, (list, tuple)) else type(hands).__name__
        raise ValueError(f"'hands' must be a list of {NUM_SEATS} hands (one per seat), got {got}")
    h = [cards(hands[s], f"the hand of seat {s}", HAND_SIZE) for s in range(NUM_SEATS)]
    trump_name = deal["trump"]
    if not isinstance(trump_name, str):
        raise ValueError(f"'trump' must be one card name, got {type(trump_name).__name__} {trump_name!r:.40}")
    try:
        trump = card_id(trump_name, deck)
    except ValueError as e:
        raise ValueError(f"'trump': {e}") from None
    stock = cards(deal["stock"], "the stock", STOCK_SIZE)
    leader = deal["leader"]
    if isinstance(leader, bool) or not isinstance(leader, int) or leader not in (0, 1):
        raise ValueError(f"'leader' must be the seat 0 or 1, got {leader!r:.40}")
    places = {}
    names = NAMES[deck]
    for what, ids in (("the hand of seat 0", h[0]), ("the hand of seat 1", h[1]), ("the trump", [trump]),
                      ("the stock", stock)):
        for c in ids:
            if c in places:
                used = set(h[0] + h[1] + stock + [trump])
                missing = [names[x] for x in range(NUM_CARDS) if x not in used]
                raise ValueError(f"card {names[c]} is dealt twice ({places[c]} and {what}); all 40 cards must be "
                                 f"used exactly once (missing: {', '.join(missing)})")
            places[c] = what
    if len(places) != NUM_CARDS:  # cannot happen with the counts above; kept as a guard
        missing = [names[x] for x in range(NUM_CARDS) if x not in places]
        raise ValueError(f"all 40 cards must be used exactly once; missing: {', '.join(missing)}")
    return h, trump, stock, leader


def deal_to_dict(state: BriscolaState) -> dict:
    """The deal a state started from, by names (``reset(options={"deal": ...})``)."""
    names = NAMES[state.deck]
    hands, trump, stock, leader = state.initial
    return {"hands": [[names[c] for c in h] for h in hands], "trump": names[trump],
            "stock": [names[c] for c in stock], "leader": leader}


__all__ = ["BriscolaState", "random_deal", "random_playout", "parse_deal", "deal_to_dict", "trick_winner",
           "NUM_SEATS", "HAND_SIZE", "STOCK_SIZE", "NUM_TRICKS", "NUM_MOVES", "TOTAL_POINTS", "BEATS"]
