"""The rules of two-player Scopa (docs/rules/scopa.md) as a pure-Python state machine.

No numpy, no torch: this module is the single source of truth for the rules of
Scopa and is shared by the PettingZoo env, the bots, the records and the views.

Cards are ids ``suit * 10 + rank`` of the 40-card decks (``cavallo_env.games.decks``, ``scopa.cards``).
A *move* is ``(card, capture)``: the card played from hand and the tuple of
table cards it takes, sorted by id (``()`` = the card is placed on the table).

Capture rules: a card of value v (A=1 .. 7, J/F=8, Q/C=9, K/R=10) must take
exactly one table card of value v if there is one (any of them); only if there
is none, it must take a set of two or more table cards summing to v if there is
one (any such set); otherwise it is placed.  Captures are enumerated with bit
masks: the state keeps the list of every set of table cards summing to at most
10 as ``(mask, sum)`` pairs, updated move by move (a placed card adds the sets
containing it, a capture drops the sets using a taken card), so a turn only
filters that short list.

- ``ScopaDeal``: one deal (36 plays, re-deals of 3 + 3 from the stock, scopas,
  leftovers to the last capturer, the four awards);
- ``ScopaState``: a match to 11 (or a single deal): completed deals, totals,
  the current deal and the ``random.Random`` that draws the later deals.
"""

from __future__ import annotations

import random
from bisect import insort

from ..games.base import Copyable
from ..games.captures import card_bits, one_card_matches, small_sets, sum_entries
from ..games.decks import card_list
from ..games.shuffle import shuffle
from .cards import (  # noqa: F401  (DECKS, PRIMIERA_RANK: imported from here by other modules)
    DECKS, KING, MONEY_SUIT, NAMES, NUM_CARDS, PRIMIERA, PRIMIERA_RANK, RANK, SEVEN, SUIT, VALUE, check_deck,
    card_id,
)

NUM_SEATS = 2
HAND_SIZE = 3
TABLE_SIZE = 4
STOCK_SIZE = NUM_CARDS - 2 * HAND_SIZE - TABLE_SIZE  # 30
NUM_PLAYS = NUM_CARDS - TABLE_SIZE  # 36 plays per deal, 18 per seat
TARGET = 11

AWARDS = ("most_cards", "most_money", "settebello", "primiera")
BREAKDOWN_KEYS = ("scope",) + AWARDS


Move = tuple  # (card: int, capture: tuple[int, ...])

# ---------------------------------------------------------------- capture sets
# Card c is bit 39 - c; sorting masks in reverse gives the captures in order
# (games/captures.py says why).
BIT = card_bits(NUM_CARDS)
_BIT_OF = BIT.__getitem__
#: mask of the cards of each value (index 1..10)
VALUE_MASK = (0,) + tuple(sum(BIT[c] for c in range(NUM_CARDS) if VALUE[c] == v) for v in range(1, 11))
KING_MASK = VALUE_MASK[10]
#: mask -> sorted tuple of every set of cards whose values sum to at most 10
SETS: dict[int, tuple] = small_sets(VALUE, BIT)
# any set of same-value table cards -> their one-card captures, in id order
_SINGLES = one_card_matches([[c for c in range(NUM_CARDS) if VALUE[c] == v] for v in range(1, 11)], BIT)
_PLACE = tuple((c, ()) for c in range(NUM_CARDS))


def table_entries(table) -> list:
    """``(mask, sum)`` of every non-empty set of ``table`` cards summing to at most 10."""
    return sum_entries(table, VALUE, BIT)


def capture_sets(card: int, table) -> list[tuple]:
    """Every legal capture of ``card`` on ``table`` (sorted tuples, in order); [] = it is placed.

    A plain search, independent of the incremental one ``ScopaDeal`` uses.
    """
    v = VALUE[card]
    singles = sorted((t,) for t in table if VALUE[t] == v)
    if singles:
        return singles
    out = []
    tab = sorted(table)
    n = len(tab)

    def grow(i, total, chosen):
        for j in range(i, n):
            t = tab[j]
            s = total + VALUE[t]
            if s < v:
                grow(j + 1, s, chosen + (t,))
            elif s == v:
                out.append(chosen + (t,))

    grow(0, 0, ())
    out.sort()
    return [s for s in out if len(s) >= 2]


# ---------------------------------------------------------------- scoring


def primiera_value(cards) -> int:
    """The primiera of a pile: the sum of the best card of each suit, 0 without all four suits."""
    best = [0, 0, 0, 0]
    for c in cards:
        p = PRIMIERA[c]
        s = SUIT[c]
        if p > best[s]:
            best[s] = p
    if not (best[0] and best[1] and best[2] and best[3]):
        return 0
    return best[0] + best[1] + best[2] + best[3]


def score_deal(piles, scope, money: int) -> dict:
    """The result of a finished deal in record form from the final piles (leftovers included)."""
    cards = [len(piles[0]), len(piles[1])]
    money_n = [sum(1 for c in p if SUIT[c] == money) for p in piles]
    sette = money * 10 + SEVEN
    prim = [primiera_value(piles[0]), primiera_value(piles[1])]
    breakdown = []
    for s in (0, 1):
        o = 1 - s
        breakdown.append({
            "scope": scope[s],
            "most_cards": 1 if cards[s] > 20 and cards[s] > cards[o] else 0,
            "most_money": 1 if money_n[s] > 5 and money_n[s] > money_n[o] else 0,
            "settebello": 1 if sette in piles[s] else 0,
            "primiera": 1 if prim[s] > prim[o] else 0,
        })
    points = [sum(b.values()) for b in breakdown]
    return {"points": points, "breakdown": breakdown, "cards": cards}


# ---------------------------------------------------------------- deals


def show(x, n: int = 60) -> str:
    """A short repr for error messages that never fails (huge ints, deep nesting)."""
    try:
        if x.__class__ is int and x.bit_length() > 64:
            return f"<an int of {x.bit_length()} bits>"
        s = repr(x)
    except Exception:  # noqa: BLE001 - ValueError for a huge int inside a list, RecursionError
        s = f"<a {type(x).__name__}>"
    return s if len(s) <= n else s[: n - 3] + "..."


def kings_on_table(table) -> int:
    return sum(1 for c in table if RANK[c] == KING)


def split_deck(order, dealer: int):
    """``(dealer, hands, table, stock)`` from a shuffled list of 40 ids:
    seat 0's hand, seat 1's hand, the table, then the stock top first."""
    order = list(order)
    return dealer, [order[0:3], order[3:6]], order[6:10], order[10:]


def draw_deal(rng: random.Random, dealer: int):
    """A shuffled deal for ``dealer``; re-dealt (same dealer) while the table holds 3+ kings."""
    while True:
        order = list(range(NUM_CARDS))
        shuffle(rng, order)  # == rng.shuffle(order)
        if kings_on_table(order[6:10]) < 3:
            return split_deck(order, dealer)


def parse_deal(deal, deck: str = "milanesi"):
    """Validate a deal given by names: ``{"dealer", "hands": [[3] x2], "table": [4], "stock": [30 top first]}``.

    Returns ``(dealer, hands, table, stock)`` as ids in the order given.  Every
    problem raises a ``ValueError`` that says what is wrong.
    """
    check_deck(deck)
    if not isinstance(deal, dict):
        raise ValueError(f"deal must be a dict with 'dealer', 'hands', 'table' and 'stock', got {type(deal).__name__}")
    missing = [k for k in ("dealer", "hands", "table", "stock") if k not in deal]
    if missing:
        raise ValueError(f"deal is missing {', '.join(repr(k) for k in missing)}")
    dealer = deal["dealer"]
    if dealer.__class__ is not int or not 0 <= dealer <= 1:
        raise ValueError(f"deal: 'dealer' must be the int 0 or 1, got {show(dealer)}")
    hands = deal["hands"]
    if not isinstance(hands, list) or len(hands) != NUM_SEATS:
        raise ValueError(f"deal: 'hands' must be a list of 2 hands of 3 card names, got {show(hands)}")
    seen: dict[int, str] = {}

    def take(names, where, size):
        return card_list(names, where, size, lambda n: card_id(n, deck), seen, "deal: ")

    parsed_hands = [take(h, f"hand of seat {i}", HAND_SIZE) for i, h in enumerate(hands)]
    table = take(deal["table"], "table", TABLE_SIZE)
    stock = take(deal["stock"], "stock", STOCK_SIZE)
    kings = kings_on_table(table)
    if kings >= 3:
        raise ValueError(f"deal: the table holds {kings} kings ({', '.join(NAMES[deck][c] for c in table if RANK[c] == KING)}); "
                         "a table with three or four kings is dealt again")
    return dealer, parsed_hands, table, stock


class ScopaDeal(Copyable):
    """One deal in progress.  Cheap to copy; read the fields, do not mutate them.

    ``dealer``; ``initial_hands``/``initial_table``/``initial_stock`` (as dealt,
    stock top first); ``hands`` (2 sorted lists); ``table`` (sorted ids);
    ``stock_pos`` (cards of the stock dealt so far); ``piles`` (per seat, the
    cards captured, in capture order, *without* the leftovers); ``scope``;
    ``current``; ``turn`` (plays made, 0..36); ``last_capturer`` (seat or
    None); ``moves`` (``(seat, card, capture)``); once ``done``: ``leftovers``
    (the table at the end) and ``leftovers_to`` (the last capturer, or None).
    """

    __slots__ = (
        "money", "dealer", "initial_hands", "initial_table", "initial_stock", "hands", "table", "tmask",
        "entries", "stock_pos", "piles", "scope", "current", "turn", "last_capturer", "moves", "done",
        "leftovers", "leftovers_to", "_legal", "_caps",
    )

    def __init__(self, dealer: int, hands, table, stock, money: int = 1):
        self.money = money
        self.dealer = dealer
        self.initial_hands = (tuple(hands[0]), tuple(hands[1]))
        self.initial_table = tuple(table)
        self.initial_stock = tuple(stock)
        self.hands = [sorted(hands[0]), sorted(hands[1])]
        self.table = sorted(table)
        self.tmask = sum(map(_BIT_OF, table))
        self.entries = table_entries(self.table)
        self.stock_pos = 0
        self.piles = [[], []]
        self.scope = [0, 0]
        self.current = 1 - dealer
        self.turn = 0
        self.last_capturer = None
        self.moves = []
        self.done = False
        self.leftovers = ()
        self.leftovers_to = None
        self._legal = None
        self._caps = None

    def copy(self) -> "ScopaDeal":
        d = ScopaDeal.__new__(ScopaDeal)
        d.money = self.money
        d.dealer = self.dealer
        d.initial_hands = self.initial_hands
        d.initial_table = self.initial_table
        d.initial_stock = self.initial_stock
        d.hands = [self.hands[0][:], self.hands[1][:]]
        d.table = self.table[:]
        d.tmask = self.tmask
        d.entries = self.entries  # never mutated in place
        d.stock_pos = self.stock_pos
        d.piles = [self.piles[0][:], self.piles[1][:]]
        d.scope = self.scope[:]
        d.current = self.current
        d.turn = self.turn
        d.last_capturer = self.last_capturer
        d.moves = self.moves[:]
        d.done = self.done
        d.leftovers = self.leftovers
        d.leftovers_to = self.leftovers_to
        d._legal = self._legal
        d._caps = self._caps
        return d

    # -- queries ---------------------------------------------------------------
    @property
    def stock_size(self) -> int:
        return STOCK_SIZE - self.stock_pos

    def captures(self) -> dict:
        """``{card: [capture tuples]}`` for the hand cards of the seat to play that must
        capture (in hand order); cached per turn.  Shared: do not mutate."""
        caps = self._caps
        if caps is not None:
            return caps
        caps = {}
        tm = self.tmask
        if tm and not self.done:
            byv = None
            for c in self.hands[self.current]:
                v = VALUE[c]
                single = tm & VALUE_MASK[v]
                if single:
                    caps[c] = _SINGLES[single]
                else:
                    if byv is None:
                        byv = {}
                    sets = byv.get(v)
                    if sets is None:
                        ms = [m for m, s in self.entries if s == v]
                        if len(ms) > 1:
                            ms.sort(reverse=True)
                        sets = byv[v] = [SETS[m] for m in ms]
                    if sets:
                        caps[c] = sets
        self._caps = caps
        return caps

    def legal_moves(self) -> list:
        """Every legal ``(card, capture)``: by card id; a card with captures lists them
        in increasing order, a card without is placed.  Cached per turn."""
        legal = self._legal
        if legal is not None:
            return legal
        legal = []
        if not self.done:
            caps = self.captures()
            get = caps.get
            for c in self.hands[self.current]:
                s = get(c)
                if s is None:
                    legal.append(_PLACE[c])
                else:
                    legal.extend([(c, x) for x in s])
        self._legal = legal
        return legal

    def check_move(self, card, capture, names=None) -> str | None:
        """Why ``(card, capture)`` is illegal for the seat to play, or None."""
        names = names or NAMES["milanesi" if self.money == 1 else "bresciane"]
        if self.done:
            return "the deal is over"
        if card.__class__ is not int or not 0 <= card < NUM_CARDS:
            return f"unknown card {show(card)}"
        hand = self.hands[self.current]
        if card not in hand:
            return f"{names[card]} is not in the hand of seat {self.current}"
        capture = tuple(capture)
        if any(t.__class__ is not int or not 0 <= t < NUM_CARDS for t in capture):
            return "capture must list card ids"
        if list(capture) != sorted(set(capture)):
            return "capture must list distinct cards in increasing card id"
        off = [names[t] for t in capture if t not in self.table]
        if off:
            return f"captured card(s) not on the table: {', '.join(off)}"
        sets = self.captures().get(card, [])
        if capture in sets or not (capture or sets):
            return None
        v = VALUE[card]
        if not capture:
            shown = "; ".join(" + ".join(names[t] for t in s) for s in sets[:4])
            more = ", ..." if len(sets) > 4 else ""
            return f"{names[card]} must capture: it can take {shown}{more} (capturing is mandatory)"
        if not sets:
            what = " + ".join(names[t] for t in capture)
            total = sum(VALUE[t] for t in capture)
            return (f"{names[card]} (value {v}) cannot take {what} (value {total}); "
                    "no capture is possible with it, so it is placed")
        if len(sets[0]) == 1:  # a single card of the same value is on the table
            singles = " or ".join(names[s[0]] for s in sets)
            if len(capture) == 1:
                return (f"{names[card]} (value {v}) cannot take {names[capture[0]]} (value {VALUE[capture[0]]}); "
                        f"it must take {singles}")
            return f"{names[card]} must take {singles}: a single card of the same value comes before any sum"
        if len(capture) == 1:
            return (f"{names[card]} (value {v}) cannot take {names[capture[0]]} (value {VALUE[capture[0]]}); "
                    "a capture is one card of the same value or two or more cards adding up to it")
        total = sum(VALUE[t] for t in capture)
        return f"the captured cards add up to {total}, not {v} (the value of {names[card]})"

    # -- transitions -------------------------------------------------------------
    def play(self, card: int, capture: tuple = ()) -> bool:
        """Apply a legal move (trusted; ``check_move`` first for untrusted input).

        Returns True when the move was a scopa.
        """
        seat = self.current
        hand = self.hands[seat]
        hand.remove(card)
        turn = self.turn = self.turn + 1
        scopa = False
        if capture:
            table = self.table
            rm = 0
            for t in capture:
                table.remove(t)
                rm |= BIT[t]
            self.tmask ^= rm
            if table:
                self.entries = [e for e in self.entries if not e[0] & rm]
            else:
                self.entries = []
                if turn < NUM_PLAYS:
                    self.scope[seat] += 1
                    scopa = True
            pile = self.piles[seat]
            pile.append(card)
            pile.extend(capture)
            self.last_capturer = seat
        else:
            insort(self.table, card)
            b = BIT[card]
            self.tmask |= b
            v = VALUE[card]
            lim = 10 - v
            entries = self.entries
            grown = [(m | b, s + v) for m, s in entries if s <= lim]
            grown.append((b, v))
            self.entries = entries + grown
        self.moves.append((seat, card, capture))
        self.current = seat ^ 1
        self._legal = None
        self._caps = None
        if not hand and not self.hands[seat ^ 1]:
            if turn >= NUM_PLAYS:
                self._finish()
            else:
                p = self.stock_pos
                stock = self.initial_stock
                nd = 1 - self.dealer
                self.hands[nd] = sorted(stock[p:p + 3])
                self.hands[1 - nd] = sorted(stock[p + 3:p + 6])
                self.stock_pos = p + 6
        return scopa

    def _finish(self) -> None:
        self.done = True
        self.leftovers = tuple(self.table)
        self.leftovers_to = self.last_capturer
        self.table = []
        self.tmask = 0
        self.entries = []

    # -- scoring -----------------------------------------------------------------
    def final_piles(self) -> list[list[int]]:
        """The piles with the leftovers given to the last capturer (once done)."""
        piles = [self.piles[0][:], self.piles[1][:]]
        if self.leftovers_to is not None:
            piles[self.leftovers_to].extend(self.leftovers)
        return piles

    def result(self) -> dict:
        """``{"points", "breakdown", "cards"}`` (record form); valid once ``done``."""
        return score_deal(self.final_piles(), self.scope, self.money)

    def points(self) -> list[int]:
        return self.result()["points"]


# ---------------------------------------------------------------- the match


class ScopaState(Copyable):
    """A match to ``target`` (11) points, or a single deal (``match=False``).

    Fields (read only): ``deck``, ``money`` (suit index), ``target``,
    ``match``, ``deals`` (the completed deals, ``ScopaDeal``), ``results``
    (their results), ``base`` (totals carried in from before ``deals``, e.g.
    a state rebuilt from a view), ``totals`` (``base`` + every completed
    deal), ``deal`` (the current deal; the last one once ``done``),
    ``current`` (the seat to play), ``done``, ``winner`` (0, 1 or None once
    done) and ``rng`` (the ``random.Random`` the later deals are drawn from;
    copies continue its stream identically).
    """

    __slots__ = ("deck", "money", "target", "match", "deals", "results", "base", "totals", "deal", "current",
                 "done", "winner", "rng", "names")

    def __init__(self, deal: ScopaDeal, deck: str = "milanesi", match: bool = True, rng: random.Random | None = None,
                 target: int = TARGET, base=(0, 0)):
        check_deck(deck)
        self.deck = deck
        self.names = NAMES[deck]
        self.money = MONEY_SUIT[deck]
        self.target = target
        self.match = bool(match)
        self.deals = []
        self.results = []
        self.base = (base[0], base[1])
        self.totals = [base[0], base[1]]
        self.deal = deal
        deal.money = self.money
        self.current = deal.current
        self.done = deal.done
        self.winner = None
        self.rng = rng if rng is not None else random.Random()

    def copy(self) -> "ScopaState":
        cls = type(self)  # the search's determinizations are a subclass with a few fields more
        s = cls.__new__(cls)
        s.deck = self.deck
        s.names = self.names
        s.money = self.money
        s.target = self.target
        s.match = self.match
        s.deals = self.deals[:]  # completed deals are never changed
        s.results = self.results[:]
        s.base = self.base
        s.totals = self.totals[:]
        s.deal = self.deal.copy()
        s.current = self.current
        s.done = self.done
        s.winner = self.winner
        if self.match and not self.done:
            r = random.Random()
            r.setstate(self.rng.getstate())
            s.rng = r
        else:
            s.rng = self.rng  # no later deal is ever drawn from it
        return s

    # -- queries ---------------------------------------------------------------
    def legal_moves(self) -> list:
        return self.deal.legal_moves()

    def captures(self) -> dict:
        return self.deal.captures()

    def check_move(self, card, capture) -> str | None:
        if self.done:
            return "the match is over" if self.match else "the deal is over"
        return self.deal.check_move(card, capture, self.names)

    @property
    def moves(self) -> list:
        """Every move of the match so far, ``(seat, card, capture)``, deal after deal."""
        out = []
        for d in self.deals:
            out += d.moves
        if not self.deal.done:
            out += self.deal.moves
        return out

    @property
    def num_deals(self) -> int:
        """Deals started (completed ones plus the current one)."""
        return len(self.deals) + (0 if self.deal.done else 1)

    def deal_points(self) -> list[int]:
        """This deal's points so far (scopas; plus the awards once it is over)."""
        if self.deal.done:
            return self.results[-1]["points"][:]
        return self.deal.scope[:]

    # -- transitions -------------------------------------------------------------
    def play(self, card: int, capture: tuple = ()):
        """Apply a legal move; returns the deal's points when it ended the deal, else None."""
        deal = self.deal
        deal.play(card, capture)
        if not deal.done:
            self.current = deal.current
            return None
        return self._end_deal()

    def play_checked(self, card: int, capture=()):
        why = self.check_move(card, capture)
        if why is not None:
            raise ValueError(f"illegal move by seat {self.current}: {why}")
        return self.play(card, tuple(capture))

    def _end_deal(self) -> list[int]:
        deal = self.deal
        res = deal.result()
        self.deals.append(deal)
        self.results.append(res)
        pts = res["points"]
        t = self.totals
        t[0] += pts[0]
        t[1] += pts[1]
        if not self.match:
            self.done = True
            self.winner = 0 if pts[0] > pts[1] else 1 if pts[1] > pts[0] else None
        elif max(t) >= self.target and t[0] != t[1]:
            self.done = True
            self.winner = 0 if t[0] > t[1] else 1
        else:
            self.start_deal(ScopaDeal(*draw_deal(self.rng, 1 - deal.dealer), money=self.money))
        return pts

    def start_deal(self, deal: ScopaDeal) -> None:
        """Make ``deal`` the current deal (the next deal of a match)."""
        deal.money = self.money
        self.deal = deal
        self.current = deal.current
        self.done = False

    def result(self) -> dict:
        """``{"totals", "winner"}`` (the record's top-level result; valid once done)."""
        return {"totals": self.totals[:], "winner": self.winner}

    def returns(self, reward: str = "points") -> list[float]:
        """Per-seat return once done: the point difference (``points``: this deal's
        for a single deal, the match totals' for a match) or +1/0/-1 (``win``)."""
        t = self.totals if self.match else self.results[-1]["points"]
        diff = t[0] - t[1]
        if reward == "win":
            diff = (diff > 0) - (diff < 0)
        return [float(diff), float(-diff)]


def random_state(seed=None, deck: str = "milanesi", match: bool = True) -> ScopaState:
    """A random start from ``random.Random(seed)`` (``seed`` a ``random.Random``: that generator, kept for
    the later deals): the first dealer at random, then the deck shuffled (seat 0's 3 cards, seat 1's 3,
    the table's 4, the stock)."""
    check_deck(deck)
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    dealer = rng.randrange(2)
    deal = ScopaDeal(*draw_deal(rng, dealer), money=MONEY_SUIT[deck])
    return ScopaState(deal, deck, match, rng)


def state_from_deal(deal, deck: str = "milanesi", match: bool = True, seed=None) -> ScopaState:
    """A start from an exact first deal by names (``parse_deal``); later deals from ``random.Random(seed)``."""
    parsed = parse_deal(deal, deck)
    return ScopaState(ScopaDeal(*parsed, money=MONEY_SUIT[deck]), deck, match, random.Random(seed))


def random_playout(state, rng: random.Random):
    """Play uniformly random legal moves until ``state`` is done (mutates it)."""
    choice = rng.choice
    while not state.done:
        card, capture = choice(state.legal_moves())
        state.play(card, capture)
    return state
