"""Scopa views: what one seat sees, as JSON (docs/contract.md, "Scopa", "View").

``make_view(state, seat)``::

    {"game": "scopa", "deck", "seat", "dealer", "hand", "table", "stock_size",
     "hand_sizes", "piles": [[names] x2], "scope": [s0, s1], "totals": [t0, t1],
     "history": [{"seat", "play", "capture"}], "legal_moves": [{"play", "capture"}]}

``piles`` and ``scope`` are this deal's (the piles before the leftovers),
``totals`` the match totals before this deal, ``history`` this deal's plays.

``state_from_view(view, rng=None)`` checks a view (types, cards of the deck,
duplicates, a history that follows the rules in seat order from the
non-dealer, the hand size against the number of plays and re-deals, the table,
piles, scope, stock and hand sizes against the history, totals) and rebuilds a
state consistent with it, the unseen cards (the other hand and the stock)
dealt at random with ``rng`` (a fixed order without).
"""

from __future__ import annotations

import random

from ..errors import ViewError
from ..games.tablecards import dealt_table
from ..games.viewschema import Card, Cards, Field, Int, ListOf, Obj, Text, ViewSchema, read_value
from .cards import DECKS, NAMES, NUM_CARDS, card_id
from .engine import (HAND_SIZE, MONEY_SUIT, NUM_PLAYS, STOCK_SIZE, TABLE_SIZE, TARGET, ScopaDeal, ScopaState,
                     kings_on_table)

__all__ = ["ViewError", "make_view", "state_from_view", "move_to_dict", "move_from_dict", "legal_moves_of"]

_MAX_TOTAL = 10**6


def _names(cards, names) -> list[str]:
    return [names[c] for c in cards]


def make_view(state: ScopaState, seat: int) -> dict:
    """The JSON view of ``seat``; ``legal_moves`` is empty unless it is to play."""
    from .encoding import totals_before_deal  # lazy: numpy, kept out of the numpy-free views

    deal = state.deal
    names = state.names
    legal = deal.legal_moves() if seat == state.current and not state.done else []
    return {
        "game": "scopa",
        "deck": state.deck,
        "seat": seat,
        "dealer": deal.dealer,
        "hand": _names(deal.hands[seat], names),
        "table": _names(deal.table if not deal.done else deal.leftovers, names),
        "stock_size": deal.stock_size,
        "hand_sizes": [len(deal.hands[0]), len(deal.hands[1])],
        "piles": [_names(deal.piles[0], names), _names(deal.piles[1], names)],
        "scope": deal.scope[:],
        "totals": totals_before_deal(state),
        "history": [{"seat": s, "play": names[c], "capture": _names(cap, names)} for s, c, cap in deal.moves],
        "legal_moves": [{"play": names[c], "capture": _names(cap, names)} for c, cap in legal],
    }


def move_to_dict(move, deck: str = "milanesi") -> dict:
    card, capture = move
    names = NAMES[deck]
    return {"play": names[card], "capture": [names[t] for t in capture]}


def move_from_dict(move, deck: str = "milanesi") -> tuple:
    """``{"play", "capture"}`` by names -> ``(card, capture)`` by ids (capture sorted)."""
    m = read_value(_LEGAL_MOVE, move, "a move", card_id, deck)
    return m["play"], tuple(sorted(m["capture"]))



def legal_moves_of(view) -> list[tuple]:
    """The view's ``legal_moves`` as ``(card, capture)`` id tuples."""
    return [(m["play"], tuple(sorted(m["capture"]))) for m in SCHEMA.read_field(view, "legal_moves")]


_MOVE = (Field("play", Card(), "the card played"),
         Field("capture", Cards(12), "the table cards it takes, in card id order (empty: the card is placed)"))
_LEGAL_MOVE = Obj(_MOVE, "ScopaMove", {"play": "7-coins", "capture": ["3-coins", "4-cups"]},
                  "A Scopa move by card names: the card played and the table cards it takes (empty = place only).")
_PAIR = "(seat 0, seat 1)"
#: the view (docs/contract.md, "Scopa"): checked by ``state_from_view`` and by ``cavallo serve``
SCHEMA = ViewSchema("scopa", "Scopa", (
    Field("game", Text(("scopa",)), "'scopa'", required=False),
    Field("deck", Text(DECKS), "the deck whose card names the view uses: 'milanesi' or 'bresciane'"),
    Field("seat", Int(0, 1), "the seat to play (0 or 1)"),
    Field("dealer", Int(0, 1), "the dealer of the deal; the other seat played first"),
    Field("hand", Cards(HAND_SIZE), "the seat's own cards"),
    Field("table", Cards(NUM_CARDS), "the cards face up on the table"),
    Field("stock_size", Int(0, STOCK_SIZE), "the cards left in the stock", required=False),
    Field("hand_sizes", ListOf(Int(0, HAND_SIZE), 2, 2), f"cards in each hand {_PAIR}", required=False),
    Field("piles", ListOf(Cards(NUM_CARDS), 2, 2, label="pile of seat {i}", noun="piles"),
          f"the cards each seat captured in this deal {_PAIR}", required=False),
    Field("scope", ListOf(Int(0, NUM_PLAYS), 2, 2), f"the scopas of this deal {_PAIR}", required=False),
    Field("totals", ListOf(Int(0, _MAX_TOTAL, "an int >= 0"), 2, 2),
          f"the match totals before this deal {_PAIR}", required=False),
    Field("history", ListOf(Obj((Field("seat", Int(0, 1), "the seat that played"),) + _MOVE,
                                "ScopaHistoryMove", {"seat": 1, "play": "R-cups", "capture": []}),
                            NUM_PLAYS - 1, label="history move {n}", noun="moves",
                            too_long=f"the deal is over: the history already has {{n}} plays (a deal has {NUM_PLAYS})"),
          "this deal's plays so far, in order"),
    Field("legal_moves", ListOf(_LEGAL_MOVE, 4096, label="legal move {n}", noun="moves"),
          "the seat's legal moves; computed from the rules when left out", required=False),
), card_id, "What the Scopa seat to play sees (docs/contract.md, \"Scopa\").")


def state_from_view(view, rng: random.Random | None = None) -> ScopaState:
    """Check a view and rebuild a state consistent with it (see the module doc).

    The rebuilt state is a **match** state (``match=True``) whose totals start
    at the view's ``totals`` (``base``; it has no completed deals): a view does
    not say whether its game is a single deal or a match, and everything the
    seat sees is the same in both (a single deal is the first deal of a match,
    at 0-0), so the state is exact for everything the seat can see; only what
    happens after this deal ends would differ.  Searches evaluate the current
    deal only.  The deal must not be over.  ``rng`` also seeds the state's
    generator for later deals (``random.Random(0)`` without one).

    Raises ``ViewError`` saying what is wrong.
    """
    v = SCHEMA.read(view, skip=("legal_moves",))  # games.checked_view checks them against the rules
    totals = v["totals"] or [0, 0]
    if max(totals) >= TARGET and totals[0] != totals[1]:
        raise ViewError(f"'totals' {totals} mean the match is already won (at least {TARGET} and more than the other)")
    names = NAMES[v["deck"]]
    moves = _history(v["history"], v["dealer"], names)
    initial_table = _initial_table(moves, v["hand"], v["table"], names)
    deal = _rebuild(v, moves, initial_table, rng)
    for i, (s, card, capture) in enumerate(moves, start=1):
        why = deal.check_move(card, capture, names)
        if why is not None:
            raise ViewError(f"history move {i} (seat {s}) is illegal: {why}")
        deal.play(card, capture)
    if sorted(deal.table) != sorted(v["table"]):
        raise ViewError("the table does not match what the history leaves on it")
    for k, pile in enumerate(v["piles"] or ()):
        if sorted(pile) != sorted(deal.piles[k]):
            raise ViewError(f"the pile of seat {k} does not match the history")
    if v["scope"] is not None and v["scope"] != deal.scope:
        raise ViewError(f"'scope' {v['scope']} contradicts the history, which gives {deal.scope}")
    gen = random.Random(rng.getrandbits(64) if rng is not None else 0)
    return ScopaState(deal, v["deck"], True, gen, base=(totals[0], totals[1]))


def _history(history: list[dict], dealer: int, names) -> list[tuple]:
    """The read history as ``(seat, card, capture)``: seats in turn from the non-dealer, captures
    sorted, no card played twice."""
    moves = []
    nondealer = 1 - dealer
    for i, mv in enumerate(history, start=1):
        expected = nondealer if i % 2 == 1 else dealer
        if mv["seat"] != expected:
            raise ViewError(f"history move {i}: seat {mv['seat']} played, but seat {expected} was to play "
                            f"(the non-dealer, seat {nondealer}, plays first, then the seats alternate)")
        if mv["capture"] != sorted(mv["capture"]):
            raise ViewError(f"history move {i}: the capture must be sorted by card id")
        moves.append((mv["seat"], mv["play"], tuple(mv["capture"])))
    played = [c for _, c, _ in moves]
    if len(set(played)) != len(played):
        dup = next(names[c] for c in played if played.count(c) > 1)
        raise ViewError(f"the history plays {dup} twice")
    return moves


def _initial_table(moves: list[tuple], hand: list[int], table: list[int], names) -> set[int]:
    """The four cards dealt to the table, from the table now and the history; not three kings."""
    initial_table = dealt_table(moves, hand, table, names, TABLE_SIZE)
    if kings_on_table(initial_table) >= 3:
        raise ViewError("the history implies a table dealt with three or more kings, which is dealt again")
    return initial_table


def _rebuild(v: dict, moves: list[tuple], initial_table: set[int], rng: random.Random | None) -> ScopaDeal:
    """The deal at its start: the hand and stock sizes checked against the plays (round r, plays 6r..6r+5,
    gives each seat 3 cards), the unseen cards dealt (at random with ``rng``)."""
    seat, dealer, hand, p = v["seat"], v["dealer"], v["hand"], len(moves)
    rnd = p // 6
    plays_by = [[c for s, c, _ in moves if s == k] for k in (0, 1)]
    sizes = [HAND_SIZE - (len(plays_by[k]) - HAND_SIZE * rnd) for k in (0, 1)]
    if len(hand) != sizes[seat]:
        raise ViewError(f"the hand has {len(hand)} cards, but after {p} plays seat {seat} must hold {sizes[seat]}")
    stock_size = STOCK_SIZE - 2 * HAND_SIZE * rnd
    if v["hand_sizes"] is not None and v["hand_sizes"] != sizes:
        raise ViewError(f"'hand_sizes' {v['hand_sizes']} contradict the history, which gives {sizes}")
    if v["stock_size"] is not None and v["stock_size"] != stock_size:
        raise ViewError(f"'stock_size' {v['stock_size']} contradicts the history, which leaves {stock_size}")
    unseen = sorted(set(range(NUM_CARDS)) - initial_table - {c for _, c, _ in moves} - set(hand))
    other = 1 - seat
    if rng is not None:
        rng.shuffle(unseen)
    held = {seat: sorted(hand), other: unseen[:sizes[other]]}

    def round_cards(k, r):
        got = plays_by[k][HAND_SIZE * r:HAND_SIZE * (r + 1)]
        return got + held[k] if r == rnd else got

    stock = []
    for r in range(1, rnd + 1):
        stock += round_cards(1 - dealer, r) + round_cards(dealer, r)
    stock += unseen[sizes[other]:]
    return ScopaDeal(dealer, [round_cards(0, 0), round_cards(1, 0)], sorted(initial_table), stock,
                     money=MONEY_SUIT[v["deck"]])


# ---------------------------------------------------------------- rendering


def render_text(state: ScopaState, building=None) -> str:
    """A plain-text picture: match score, hands, table, piles, last play, result."""
    deal = state.deal
    names = state.names

    def cards(cs):
        return " ".join(names[c] for c in cs) if cs else "-"

    from .encoding import totals_before_deal  # lazy: numpy, kept out of the numpy-free views

    lines = []
    kind = f"match to {state.target}" if state.match else "single deal"
    if state.done:
        status = "over"
    else:
        status = f"seat {state.current} (player_{state.current}) to play"
    t = totals_before_deal(state)
    lines.append(f"Scopa ({state.deck}, {kind})  deal {len(state.deals) + (0 if deal.done else 1)}  "
                 f"totals before this deal {t[0]}-{t[1]}  dealer: seat {deal.dealer}  {status}")
    lines.append(f"Play {deal.turn}/{NUM_PLAYS}  stock: {deal.stock_size} cards")
    lines.append(f"Table: {cards(deal.table)}")
    for seat in (0, 1):
        mark = ">" if seat == state.current and not state.done else " "
        lines.append(f"{mark} seat {seat} (player_{seat}): {cards(deal.hands[seat])}")
    for seat in (0, 1):
        pile = deal.piles[seat]
        money = sum(1 for c in pile if c // 10 == state.money)
        lines.append(f"Seat {seat} pile: {len(pile)} cards, {money} money; scope {deal.scope[seat]}")
    if deal.moves:
        seat, card, capture = deal.moves[-1]
        took = f"takes {cards(capture)}" if capture else "places it"
        lines.append(f"Last play: seat {seat} plays {names[card]} and {took}")
    if building is not None:
        card, taken, sets = building
        lines.append(f"Building: capture with {names[card]}, taken so far: {cards(taken)} "
                     f"({len(sets)} sets still possible)")
    for k, (d, res) in enumerate(zip(state.deals, state.results), start=1):
        if d is deal or k == len(state.deals):
            if d.leftovers:
                who = "nobody" if d.leftovers_to is None else f"seat {d.leftovers_to}"
                lines.append(f"Deal {k} leftovers {cards(d.leftovers)} to {who}")
            b = res["breakdown"]
            items = "  ".join(f"{key} {b[0][key]}-{b[1][key]}" for key in b[0])
            lines.append(f"Deal {k} result: {res['points'][0]}-{res['points'][1]} ({items}); "
                         f"cards {res['cards'][0]}-{res['cards'][1]}")
    if state.done:
        w = state.winner
        lines.append(f"Final: {state.totals[0]}-{state.totals[1]}, " + ("a draw" if w is None else f"seat {w} wins"))
    return "\n".join(lines)
