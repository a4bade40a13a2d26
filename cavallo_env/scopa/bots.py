"""Scopa's own bots: ``greedy`` and ``heuristic`` (``choose(view) -> one of view["legal_moves"]``).

Both read only the view (what the seat sees) and are deterministic.

- ``GreedyBot``: the capture worth most right now (a scopa, the settebello,
  money cards, sevens and sixes for the primiera, card count); with no
  capture, it places its lowest-value card.
- ``HeuristicBot``: weighs what a move wins now against what the other seat
  can answer with: for every value the other seat may hold (counted from the
  unseen cards: its hand and the stock), its best reply on the table the move
  leaves -- a sweep (scopa), the settebello, sevens, money, cards -- weighted
  by the chance that it holds such a card.  So it avoids leaving a table the
  other seat can sweep (a table adding up to at most 10 with that value still
  unseen), prefers captures that keep the table safe, does not place a seven
  or the settebello carelessly, values the primiera cards (7, 6, A), money and
  card count by how the deal stands, and counts the leftovers (the table left
  at the end goes to the last capturer) in the last round.
"""

from __future__ import annotations

from bisect import insort
from math import comb

from ..bots.base import Bot
from ..budget import ByteCache
from ..errors import ViewError, require, unreadable
from ..games.captures import sum_entries
from .cards import IDS, card_id
from .engine import BIT, MONEY_SUIT, NUM_PLAYS, PRIMIERA, SETS, SEVEN, SUIT, VALUE

__all__ = ["GreedyBot", "HeuristicBot", "ScopaBot", "parse_view", "move_values", "heuristic_scores", "heuristic_move",
           "greedy_move", "captures_of_value"]

FOLLOW = 1.2
RISK = 1.0
_RANK_BONUS = (0.10, 0.0, 0.0, 0.0, 0.02, 0.16, 0.32, 0.0, 0.0, 0.0)  # A .. K: primiera weight
#: per card: (id, suit, primiera value, primiera weight of its rank)
_CARDS = tuple((c, SUIT[c], PRIMIERA[c], _RANK_BONUS[c % 10]) for c in range(40))


class ScopaBot(Bot):
    """Base of the Scopa bots (they play Scopa views only): ``play(info, legal)`` is the move
    from what the seat sees (a function of the bots module)."""

    game = "scopa"

    def choose_move(self, view, legal):
        return self.play(Info(view), legal)


#: the view fields the Scopa bots read (a view without one is a ``ViewError``)
VIEW_KEYS = ("seat", "dealer", "hand", "table", "piles", "hand_sizes", "stock_size", "history")


class Info:
    """What a seat sees, by ids (parsed once from a view)."""

    __slots__ = ("seat", "money", "sette", "hand", "table", "piles", "scope", "unseen", "opp_hand", "stock",
                 "plays_left", "last_capturer", "totals", "dealer")

    def __init__(self, view):
        require(view, VIEW_KEYS)
        try:
            deck = view.get("deck", "milanesi")
            ids = IDS[deck]
            seat = view["seat"]
            history = view["history"]
            lc = None
            for mv in reversed(history):
                if mv["capture"]:
                    lc = mv["seat"]
                    break
            self._fill(seat, MONEY_SUIT[deck], view["dealer"], [ids[n] for n in view["hand"]],
                       [ids[n] for n in view["table"]], [[ids[n] for n in p] for p in view["piles"]],
                       view.get("scope", [0, 0]), view["hand_sizes"][1 - seat], view["stock_size"],
                       NUM_PLAYS - len(history), lc, view.get("totals", [0, 0]))
        except (KeyError, TypeError, IndexError, AttributeError) as e:
            raise _bad_view(view, e) from None

    @classmethod
    def at(cls, seat: int, money: int, dealer: int, hand, table, piles, scope, opp_hand: int, stock: int,
           plays_left: int, last_capturer) -> "Info":
        """What ``seat`` saw at a past position (replayed from the public history, with a
        hand the search supposes it held): the search's inference asks the bots what
        they would have played there."""
        info = cls.__new__(cls)
        info._fill(seat, money, dealer, hand, table, piles, scope, opp_hand, stock, plays_left, last_capturer,
                   [0, 0])
        return info

    def _fill(self, seat, money, dealer, hand, table, piles, scope, opp_hand, stock, plays_left, last_capturer,
              totals) -> None:
        self.seat, self.dealer, self.money, self.sette = seat, dealer, money, money * 10 + SEVEN
        self.hand, self.table, self.piles, self.scope = list(hand), sorted(table), piles, list(scope)
        seen = set(hand) | set(table) | set(piles[0]) | set(piles[1])
        self.unseen = [c for c in range(40) if c not in seen]
        self.opp_hand, self.stock, self.plays_left = opp_hand, stock, plays_left
        self.last_capturer = last_capturer
        self.totals = totals


def _bad_view(view, e: Exception) -> ViewError:
    """The ``ViewError`` for a view ``Info`` could not read: the card field with an unknown
    card if there is one, else what went wrong."""
    deck = view.get("deck", "milanesi")
    if deck in IDS:
        fields = [("hand", view.get("hand")), ("table", view.get("table"))]
        piles = view.get("piles")
        if isinstance(piles, list):
            fields += [(f"pile of seat {k}", p) for k, p in enumerate(piles)]
        for field, names in fields:
            if isinstance(names, list):
                for n in names:
                    try:
                        card_id(n, deck)
                    except ValueError as why:
                        return ViewError(f"{field}: {why}")
    elif isinstance(deck, str) or deck is None:
        return ViewError(f"unknown deck {str(deck)[:40]!r}; known decks: {', '.join(IDS)}")
    return unreadable(e, "Scopa")


def parse_view(view) -> Info:
    return Info(view)


# ---------------------------------------------------------------- card values


def card_weights(info: Info, seat_pile, other_pile) -> list[float]:
    """The value in points of winning each card now, from the seat's point of view."""
    money = info.money
    m_mine = sum(1 for c in seat_pile if SUIT[c] == money)
    m_other = sum(1 for c in other_pile if SUIT[c] == money)
    n_mine, n_other = len(seat_pile), len(other_pile)
    # money and cards matter while the majority is open
    w_money = 0.0 if m_mine > 5 or m_other > 5 else 0.22 if max(m_mine, m_other) >= 4 else 0.15
    w_card = 0.0 if n_mine > 20 or n_other > 20 else 0.07 if max(n_mine, n_other) >= 15 else 0.05
    best = [0, 0, 0, 0]
    for c in seat_pile:
        if PRIMIERA[c] > best[SUIT[c]]:
            best[SUIT[c]] = PRIMIERA[c]
    best_o = [0, 0, 0, 0]
    for c in other_pile:
        if PRIMIERA[c] > best_o[SUIT[c]]:
            best_o[SUIT[c]] = PRIMIERA[c]
    w_card_money = w_card + w_money
    sette = info.sette
    out = []
    for c, s, p, bonus in _CARDS:
        v = w_card_money if s == money else w_card
        if p > best[s]:  # improves my primiera in that suit
            v += bonus * (1.0 if p > best_o[s] or best_o[s] < 21 else 0.6)
            if best[s] == 0:
                v += 0.03
        if c == sette:
            v += 1.0
        out.append(v)
    return out


def move_values(info: Info, move, w_mine, last_play: bool) -> float:
    """Points a move wins now: the cards taken (and the card played) plus a scopa."""
    card, capture = move
    if not capture:
        return 0.0
    v = w_mine[card] + sum(w_mine[t] for t in capture)
    if len(capture) == len(info.table) and not last_play:
        v += 1.0
    return v


def greedy_move(info: Info, legal):
    """The greedy player's move among ``legal``: the capture worth most now (ties: the larger
    capture), else its lowest-value card placed."""
    w = card_weights(info, info.piles[info.seat], info.piles[1 - info.seat])
    last = info.plays_left == 1

    def key(move):
        card, capture = move
        if capture:
            return (-move_values(info, move, w, last), -len(capture), card, capture)
        return (1.0, VALUE[card], card, ())

    return min(legal, key=key)


class GreedyBot(ScopaBot):
    """The capture worth most now; with no capture, place the lowest-value card (deterministic)."""

    name = "greedy"
    play = staticmethod(greedy_move)


# ---------------------------------------------------------------- heuristic


def _p_holds(k: int, unseen: int, hand: int) -> float:
    """P(a hand of ``hand`` cards drawn from ``unseen`` holds at least one of ``k`` given cards)."""
    if k <= 0 or hand <= 0 or unseen <= 0:
        return 0.0
    if hand >= unseen:
        return 1.0
    if unseen - k < hand:
        return 1.0
    return 1.0 - comb(unseen - k, hand) / comb(unseen, hand)


def _best_capture(card_weight: float, sets, n: int, w, sweep: float) -> tuple[float, tuple]:
    """The best gain (and capture) of a card worth ``card_weight`` with capture ``sets`` on a
    table of ``n`` cards; (0, ()) with no capture."""
    if not sets:
        return 0.0, ()
    best, best_set = -1.0, ()
    for st in sets:
        g = card_weight + _taken(st, w)
        if len(st) == n:
            g += sweep
        if g > best:
            best, best_set = g, st
    return best, best_set


def _taken(st: tuple, w) -> float:
    """``sum(w[t] for t in st)``, added in the same order (one and two cards without the generator)."""
    k = len(st)
    if k == 1:
        return w[st[0]]
    if k == 2:
        return w[st[0]] + w[st[1]]
    return sum(w[t] for t in st)


#: table (a tuple of ids) -> its capture sets by the value of the card played: the same few
#: tables come up again and again within a turn.  Bounded in bytes (an entry of a 30-card table is
#: about 30 KB; sums stop at 10, so Scopa's entries stay small)
CAPTURES_MB = 16
_CAPTURES = ByteCache(CAPTURES_MB)


def _captures_on(table: tuple) -> list:
    """The capture sets of ``table`` by the value of the card played (index 1..10): the cards of
    that value, else the sets of two or more cards adding up to it, sorted as ``capture_sets``
    gives them."""
    entry = _CAPTURES.get(table)
    if entry is None:
        singles: list = [[] for _ in range(11)]
        for t in table:
            singles[VALUE[t]].append((t,))
        sums: list = [[] for _ in range(11)]
        for mask, total in sum_entries(table, VALUE, BIT):  # == table_entries(table)
            if not singles[total] and mask & (mask - 1):  # two cards or more
                sums[total].append(SETS[mask])
        entry = [one or sorted(more) for one, more in zip(singles, sums)]
        # the sets' tuples and the lists holding them: 64 bytes a set and 56 a list, roughly
        _CAPTURES.put(table, entry, 8 * len(table) + 56 * 11 + 64 * sum(len(x) for x in entry))
    return entry


def captures_of_value(v: int, table) -> list[tuple]:
    """The capture sets of a card of value ``v`` on ``table`` (shared lists: do not change them)."""
    return _captures_on(tuple(table))[v]


def _my_follow(hand, table, w_mine, sweep: float) -> float:
    """My best gain next turn with ``hand`` on ``table`` (a greedy look)."""
    entry = _captures_on(tuple(table))
    n = len(table)
    best = 0.0
    for c in hand:
        sets = entry[VALUE[c]]
        if not sets:
            continue
        cw = w_mine[c]
        for st in sets:
            g = cw + _taken(st, w_mine)
            if len(st) == n:
                g += sweep
            if g > best:
                best = g
    return best


def _other_values(info: Info, w_other) -> list[tuple]:
    """``(value, chance the other seat holds one, its best weight, its cheapest card)`` of each
    card value among the unseen cards the other seat may hold."""
    unseen = info.unseen
    n_unseen = len(unseen)
    opp_h = info.opp_hand
    by_value: dict[int, list[int]] = {}
    for c in unseen:
        by_value.setdefault(VALUE[c], []).append(c)
    values = []
    for v, cards in by_value.items():
        p = _p_holds(len(cards), n_unseen, opp_h)
        if p > 0:
            values.append((v, p, max(w_other[c] for c in cards), min(cards, key=lambda c: w_other[c])))
    return values


def _expected_answer(info: Info, values, table_after: list, hand_after: list, w_mine, w_other) -> float:
    """The other seat's expected best answer to a move leaving ``table_after`` (and me
    ``hand_after``), net of my best follow-up: the best of its likely values first."""
    plays_after = info.plays_left - 1  # the other seat's answer is play 36 - plays_after + 1
    opp_sweep = 1.0 if plays_after > 1 else 0.0
    my_sweep = 1.0 if plays_after > 2 else 0.0
    entry = _captures_on(tuple(table_after))
    n_after = len(table_after)
    nets = []
    for v, p, w_play, cheap in values:
        g, st = _best_capture(w_play, entry[v], n_after, w_other, opp_sweep)
        if st:
            t2 = [t for t in table_after if t not in st]
        else:
            t2 = table_after[:]
            insort(t2, cheap)
        follow = _my_follow(hand_after, t2, w_mine, my_sweep) if hand_after and t2 else 0.0
        nets.append((g - FOLLOW * follow, p))
    nets.sort(reverse=True)
    expected, none_higher = 0.0, 1.0
    for r, p in nets:
        expected += r * p * none_higher
        none_higher *= 1.0 - p
    if nets:
        expected += nets[-1][0] * none_higher
    return expected


def heuristic_scores(info: Info, legal) -> list[float]:
    """The heuristic's score (in expected points) of each legal move: what it wins now,
    minus the other seat's expected best answer net of my best follow-up."""
    seat = info.seat
    mine, other = info.piles[seat], info.piles[1 - seat]
    w_mine = card_weights(info, mine, other)
    w_other = card_weights(info, other, mine)
    last = info.plays_left == 1
    values = _other_values(info, w_other)
    final_round = info.stock == 0
    scores = []
    for move in legal:
        card, capture = move
        gain = move_values(info, move, w_mine, last)
        if capture:
            table_after = [t for t in info.table if t not in capture]
        else:
            table_after = sorted(info.table + [card])
            gain -= 0.01 * VALUE[card] / 10  # keep high cards, all else equal
        if last:
            # the table left after the 36th play goes to the last capturer
            lc = seat if capture else info.last_capturer
            left = sum(w_mine[t] for t in table_after)
            gain += left if lc == seat else -left if lc is not None else 0.0
            scores.append(gain)
            continue
        hand_after = [c for c in info.hand if c != card]
        expected = _expected_answer(info, values, table_after, hand_after, w_mine, w_other)
        if final_round and info.plays_left <= 4:
            left = sum(w_mine[t] for t in table_after)
            if capture:
                gain += 0.3 * left
            elif info.last_capturer == seat:
                gain += 0.2 * left
        scores.append(gain - RISK * expected)
    return scores


def heuristic_move(info: Info, legal):
    """The heuristic player's move among ``legal``: the best ``heuristic_scores`` (ties: the first)."""
    scores = heuristic_scores(info, legal)
    return legal[max(range(len(legal)), key=lambda i: (scores[i], -i))]


class HeuristicBot(ScopaBot):
    """Real-play heuristics: win now, but leave the other seat as little as possible (see the module doc)."""

    name = "heuristic"
    play = staticmethod(heuristic_move)
