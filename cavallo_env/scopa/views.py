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
from ..briscola.cards import DECKS, IDS, NAMES, NUM_CARDS
from .engine import (HAND_SIZE, MONEY_SUIT, NUM_PLAYS, STOCK_SIZE, TABLE_SIZE, TARGET, ScopaDeal, ScopaState,
                     kings_on_table, show)

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


def _card(n, deck, what) -> int:
    c = IDS[deck].get(n) if n.__class__ is str else None
    if c is None:
        if n.__class__ is str:
            for other in DECKS:
                if other != deck and n in IDS[other]:
                    raise ViewError(f"{what}: {n!r} is a card of the {other} deck, not of the {deck} deck")
            raise ViewError(f"{what}: unknown card {show(n)} in the {deck} deck")
        raise ViewError(f"{what}: a card must be a name of the {deck} deck, got {show(n)}")
    return c


def move_from_dict(move, deck: str = "milanesi") -> tuple:
    """``{"play", "capture"}`` by names -> ``(card, capture)`` by ids (capture sorted)."""
    if not isinstance(move, dict) or "play" not in move or not isinstance(move.get("capture"), list):
        raise ViewError(f"a move must be an object with 'play' and a 'capture' list, got {show(move, 80)}")
    card = _card(move["play"], deck, "'play'")
    capture = [_card(n, deck, "'capture'") for n in move["capture"]]
    if len(set(capture)) != len(capture):
        raise ViewError("a card appears twice in the capture")
    return card, tuple(sorted(capture))


def view_deck(view) -> str:
    deck = view.get("deck", "milanesi") if isinstance(view, dict) else None
    if deck.__class__ is not str or deck not in MONEY_SUIT:
        raise ViewError(f"'deck' must be one of {', '.join(map(repr, DECKS))}, got {show(deck)}")
    return deck


def legal_moves_of(view) -> list[tuple]:
    """The view's ``legal_moves`` as ``(card, capture)`` id tuples."""
    if not isinstance(view, dict):
        raise ViewError(f"a view must be a JSON object, got {type(view).__name__}")
    deck = view_deck(view)
    legal = view.get("legal_moves")
    if not isinstance(legal, list):
        raise ViewError("the view's 'legal_moves' must be a list of moves")
    return [move_from_dict(m, deck) for m in legal]


def _int(view, key, lo, hi):
    v = view.get(key)
    if v.__class__ is not int or not lo <= v <= hi:
        raise ViewError(f"'{key}' must be an int in {lo}..{hi}, got {show(v)}")
    return v


def _cards(value, deck, what) -> list[int]:
    if not isinstance(value, list):
        raise ViewError(f"{what} must be a list of card names, got {type(value).__name__}")
    out = [_card(n, deck, what) for n in value]
    if len(set(out)) != len(out):
        dup = next(NAMES[deck][c] for c in out if out.count(c) > 1)
        raise ViewError(f"{what}: card {dup} appears twice")
    return out


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
    if not isinstance(view, dict):
        raise ViewError(f"a view must be a JSON object, got {type(view).__name__}")
    if view.get("game", "scopa") != "scopa":
        raise ViewError(f"not a Scopa view: 'game' is {show(view.get('game'))}")
    for key in ("deck", "seat", "dealer", "hand", "table", "history"):
        if key not in view:
            raise ViewError(f"the view has no '{key}'")
    deck = view_deck(view)
    names = NAMES[deck]
    seat = _int(view, "seat", 0, 1)
    dealer = _int(view, "dealer", 0, 1)
    hand = _cards(view["hand"], deck, "hand")
    table = _cards(view["table"], deck, "table")
    history = view["history"]
    if not isinstance(history, list):
        raise ViewError("'history' must be a list of moves")
    if len(history) >= NUM_PLAYS:
        raise ViewError(f"the deal is over: the history already has {len(history)} plays (a deal has {NUM_PLAYS})")
    totals = view.get("totals", [0, 0])
    if (not isinstance(totals, list) or len(totals) != 2
            or any(t.__class__ is not int or not 0 <= t <= _MAX_TOTAL for t in totals)):
        raise ViewError(f"'totals' must be a list of two ints >= 0, got {show(totals)}")
    if max(totals) >= TARGET and totals[0] != totals[1]:
        raise ViewError(f"'totals' {totals} mean the match is already won (at least {TARGET} and more than the other)")

    moves = []
    nondealer = 1 - dealer
    for i, mv in enumerate(history, start=1):
        if not isinstance(mv, dict):
            raise ViewError(f"history move {i} must be an object with 'seat', 'play' and 'capture'")
        s = mv.get("seat")
        expected = nondealer if i % 2 == 1 else dealer
        if s.__class__ is not int or s != expected:
            raise ViewError(f"history move {i}: seat {show(s)} played, but seat {expected} was to play "
                            f"(the non-dealer, seat {nondealer}, plays first, then the seats alternate)")
        try:
            card, capture = move_from_dict(mv, deck)
        except ViewError as e:
            raise ViewError(f"history move {i}: {e}") from None
        if [names[t] for t in capture] != mv["capture"]:
            raise ViewError(f"history move {i}: the capture must be sorted by card id")
        moves.append((s, card, capture))

    p = len(moves)
    played = [c for _, c, _ in moves]
    if len(set(played)) != len(played):
        dup = next(names[c] for c in played if played.count(c) > 1)
        raise ViewError(f"the history plays {dup} twice")
    overlap = set(played) & set(hand)
    if overlap:
        raise ViewError(f"the hand holds {names[min(overlap)]}, which the history says was already played")
    if set(hand) & set(table):
        raise ViewError(f"{names[min(set(hand) & set(table))]} is both in the hand and on the table")
    placed = {c for _, c, cap in moves if not cap}
    captured = {t for _, _, cap in moves for t in cap}
    initial_table = (set(table) | captured) - placed
    if len(initial_table) != TABLE_SIZE:
        raise ViewError(f"the table and the history imply {len(initial_table)} cards were dealt to the table, not 4")
    if initial_table & set(played):
        raise ViewError(f"{names[min(initial_table & set(played))]} was dealt to the table, "
                        "yet the history plays it from a hand")
    if initial_table & set(hand):
        raise ViewError(f"{names[min(initial_table & set(hand))]} is in the hand but was on the table")
    if kings_on_table(initial_table) >= 3:
        raise ViewError("the history implies a table dealt with three or more kings, which is dealt again")

    # hands: round r (plays 6r .. 6r+5) gives each seat 3 cards
    rnd = p // 6
    plays_by = [[c for s, c, _ in moves if s == k] for k in (0, 1)]
    sizes = [HAND_SIZE - (len(plays_by[k]) - HAND_SIZE * rnd) for k in (0, 1)]
    if len(hand) != sizes[seat]:
        raise ViewError(f"the hand has {len(hand)} cards, but after {p} plays seat {seat} must hold {sizes[seat]}")
    stock_size = STOCK_SIZE - 2 * HAND_SIZE * rnd
    hs = view.get("hand_sizes")
    if hs is not None and hs != sizes:
        raise ViewError(f"'hand_sizes' {show(hs)} contradict the history, which gives {sizes}")
    ss = view.get("stock_size")
    if ss is not None and (ss.__class__ is not int or ss != stock_size):
        raise ViewError(f"'stock_size' {show(ss)} contradicts the history, which leaves {stock_size}")

    unseen = sorted(set(range(NUM_CARDS)) - initial_table - set(played) - set(hand))
    other = 1 - seat
    if len(unseen) != sizes[other] + stock_size:  # a safeguard: follows from the checks above
        raise ViewError("the view's cards do not add up to a 40-card deal")
    if rng is not None:
        rng.shuffle(unseen)
    held = {seat: sorted(hand), other: unseen[:sizes[other]]}
    future = unseen[sizes[other]:]

    def round_cards(k, r):
        got = plays_by[k][HAND_SIZE * r:HAND_SIZE * (r + 1)]
        return got + held[k] if r == rnd else got

    hands0 = [round_cards(0, 0), round_cards(1, 0)]
    stock = []
    for r in range(1, rnd + 1):
        stock += round_cards(nondealer, r) + round_cards(dealer, r)
    stock += future
    initial = sorted(initial_table)
    deal = ScopaDeal(dealer, hands0, initial, stock, money=MONEY_SUIT[deck])
    for i, (s, card, capture) in enumerate(moves, start=1):
        why = deal.check_move(card, capture, names)
        if why is not None:
            raise ViewError(f"history move {i} (seat {s}) is illegal: {why}")
        deal.play(card, capture)
    if sorted(deal.table) != sorted(table):
        raise ViewError("the table does not match what the history leaves on it")
    piles = view.get("piles")
    if piles is not None:
        if not isinstance(piles, list) or len(piles) != 2:
            raise ViewError("'piles' must be a list of two lists of card names")
        for k in (0, 1):
            if sorted(_cards(piles[k], deck, f"pile of seat {k}")) != sorted(deal.piles[k]):
                raise ViewError(f"the pile of seat {k} does not match the history")
    scope = view.get("scope")
    if scope is not None and (not isinstance(scope, list) or len(scope) != 2
                              or any(x.__class__ is not int for x in scope) or scope != deal.scope):
        raise ViewError(f"'scope' {show(scope)} contradicts the history, which gives {deal.scope}")
    gen = random.Random(rng.getrandbits(64) if rng is not None else 0)
    return ScopaState(deal, deck, True, gen, base=(totals[0], totals[1]))


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
