"""Cavalloìcera views: what one seat sees, as JSON (docs/contract.md, "Bots and the in-game AI").

``make_view(state, seat)`` builds the view a bot receives.  ``state_from_view``
goes the other way: it checks a view for consistency (known cards, no card in
two places, a history that follows the rules, a hand that agrees with it) and
rebuilds a ``CavalloiceraState`` in which the unseen cards are dealt to the other seats
(at random with an ``rng``: a determinization; otherwise in a fixed order).  The
rebuilt state is exact for everything the seat can see, which is all that
encoders and bots may read.
"""

from __future__ import annotations

import random

from ..errors import ViewError
from ..games.tablecards import dealt_table
from ..games.viewschema import Card, Cards, Field, Int, ListOf, Obj, Text, ViewSchema, read_value
from .cards import NAMES, NUM_CARDS, SUIT, SWORDS, card_id
from .engine import BONUSES, BREAKDOWN_KEYS, HAND_SIZE, NUM_SEATS, NUM_TURNS, TABLE_SIZE, CavalloiceraState


def make_view(state: CavalloiceraState, seat: int) -> dict:
    """The JSON view of ``seat``; ``legal_moves`` is empty unless it is to play."""
    legal = state.legal_moves() if seat == state.current else []
    return {
        "seat": seat,
        "dealer": state.dealer,
        "hand": [NAMES[c] for c in state.hands[seat]],
        "table": [NAMES[c] for c in state.table],
        "hand_sizes": [len(h) for h in state.hands],
        "piles": [[NAMES[c] for c in p] for p in state.piles],
        "history": [{"seat": s, "play": NAMES[c], "capture": [NAMES[t] for t in cap]} for s, c, cap in state.moves],
        "legal_moves": [{"play": NAMES[c], "capture": [NAMES[t] for t in cap]} for c, cap in legal],
    }


def move_from_dict(move: dict) -> tuple:
    """``{"play", "capture"}`` by names -> ``(card, capture)`` by ids (capture sorted)."""
    m = read_value(_LEGAL_MOVE, move, "a move", _card)
    return m["play"], tuple(sorted(m["capture"]))


def move_to_dict(move: tuple) -> dict:
    card, capture = move
    return {"play": NAMES[card], "capture": [NAMES[t] for t in capture]}


def _card(name, deck=None) -> int:
    """A card name read (the game has one deck)."""
    return card_id(name)


#: the most legal moves a Cavalloìcera seat can have, bounded from above: 12 places, and four cards each of
#: values 10, 9 and 8 taking any of the deck's 1702, 1024 and 601 sets of numerals of that sum (a legal
#: position reached by play has 4,532: tests/fixtures/worst/cavalloicera.json)
MAX_LEGAL = 12 + 4 * (1702 + 1024 + 601)

_MOVE = (Field("play", Card(), "the card played"),
         Field("capture", Cards(12), "the table cards it takes (empty: the card is placed)"))
_LEGAL_MOVE = Obj(_MOVE, "Move", {"play": "7-coins", "capture": ["3-coins", "4-cups"]},
                  "A move by card names: the card played and the table cards it takes (empty = place only).")
_HISTORY_MOVE = Obj((Field("seat", Int(0, NUM_SEATS - 1), "the seat that moved"),) + _MOVE, "HistoryMove",
                    {"seat": 1, "play": "R-cups", "capture": []},
                    "A move of the deal so far, with the seat that made it.")
_EXAMPLE = {
    "seat": 2, "dealer": 0,
    "hand": ["2-coins", "6-coins", "9-coins", "10-coins", "5-cups", "8-cups", "C-cups", "3-swords", "4-swords",
             "F-swords", "2-clubs"],
    "table": ["A-coins", "6-swords", "C-swords", "R-clubs"],
    "hand_sizes": [12, 11, 11, 12],
    "piles": [[], ["7-clubs", "7-cups"]],
    "history": [{"seat": 1, "play": "7-clubs", "capture": ["7-cups"]}],
    "legal_moves": [
        {"play": "2-coins", "capture": []}, {"play": "6-coins", "capture": []},
        {"play": "6-coins", "capture": ["6-swords"]}, {"play": "9-coins", "capture": []},
        {"play": "10-coins", "capture": []}, {"play": "5-cups", "capture": []}, {"play": "8-cups", "capture": []},
        {"play": "C-cups", "capture": []}, {"play": "C-cups", "capture": ["C-swords"]},
        {"play": "3-swords", "capture": []}, {"play": "4-swords", "capture": []}, {"play": "F-swords", "capture": []},
        {"play": "2-clubs", "capture": []},
    ],
}
#: the view (docs/contract.md): checked by ``state_from_view`` and by ``cavallo serve``
SCHEMA = ViewSchema("cavalloicera", "Cavalloìcera", (
    Field("game", Text(("cavalloicera",)), "'cavalloicera' (may be left out)", required=False),
    Field("seat", Int(0, NUM_SEATS - 1), "the seat to play (0..3); teams are seats 0+2 and 1+3"),
    Field("dealer", Int(0, NUM_SEATS - 1), "the dealer of the deal; seat dealer+1 played first"),
    Field("hand", Cards(HAND_SIZE), "the seat's own cards"),
    Field("table", Cards(NUM_CARDS), "the cards face up on the table"),
    Field("hand_sizes", ListOf(Int(0, HAND_SIZE), NUM_SEATS, NUM_SEATS),
          "cards in each seat's hand (checked when given)", required=False),
    Field("piles", ListOf(Cards(NUM_CARDS), 2, 2, label="pile of team {i}", noun="piles"),
          "each team's captured cards (checked when given)", required=False),
    Field("history", ListOf(_HISTORY_MOVE, NUM_TURNS - 1, label="history move {n}", noun="moves",
                            too_long="the deal is over: the history already has {n} moves"),
          "every move of the deal so far, in order"),
    Field("legal_moves", ListOf(_LEGAL_MOVE, MAX_LEGAL, label="legal move {n}", noun="moves"),
          "the seat's legal moves; computed from the rules when left out", required=False),
), _card,
    "What the seat to play sees (docs/contract.md); fields beyond these are ignored.", _EXAMPLE)


def state_from_view(view, rng: random.Random | None = None) -> CavalloiceraState:
    """Check a view and rebuild a game consistent with it (see module doc).

    Raises ``ViewError`` saying what is wrong.  The deal must not be over.
    """
    v = SCHEMA.read(view, skip=("legal_moves",))  # games.checked_view checks them against the rules
    seat, dealer, hand, table = v["seat"], v["dealer"], v["hand"], v["table"]
    moves = _history(v["history"], dealer, seat)
    initial_table = dealt_table(moves, hand, table, NAMES, TABLE_SIZE)
    played_by = [[c for s, c, _ in moves if s == k] for k in range(NUM_SEATS)]
    sizes = [HAND_SIZE - len(p) for p in played_by]
    if len(hand) != sizes[seat]:
        raise ViewError(f"the hand has {len(hand)} cards, but after the history seat {seat} must hold {sizes[seat]}")
    if v["hand_sizes"] is not None and v["hand_sizes"] != sizes:
        raise ViewError(f"hand_sizes {v['hand_sizes']!r} contradict the history, which gives {sizes}")

    unseen = sorted(set(range(NUM_CARDS)) - initial_table - {c for _, c, _ in moves} - set(hand))
    if rng is not None:
        rng.shuffle(unseen)
    hands = []
    for k in range(NUM_SEATS):
        n = 0 if k == seat else sizes[k]
        hands.append(played_by[k] + (hand if k == seat else unseen[:n]))
        unseen = unseen[n:]
    state = CavalloiceraState(hands, sorted(initial_table), dealer)
    for i, (s, card, capture) in enumerate(moves, start=1):
        why = state.check_move(card, capture)
        if why is not None:
            raise ViewError(f"history move {i} (seat {s}) is illegal: {why}")
        state.play(card, capture)
    if sorted(state.table) != sorted(table):
        raise ViewError("the table does not match what the history leaves on it")
    for t, pile in enumerate(v["piles"] or ()):
        if sorted(pile) != sorted(state.piles[t]):
            raise ViewError(f"the pile of team {t} does not match the history")
    return state


def _history(history: list[dict], dealer: int, seat: int) -> list[tuple]:
    """The read history as ``(seat, card, sorted capture)``, checked for the seat order and cards played twice."""
    moves = []
    for i, mv in enumerate(history, start=1):
        expected = (dealer + i) % NUM_SEATS
        if mv["seat"] != expected:
            raise ViewError(f"history move {i}: seat {mv['seat']!r} moved, but seat {expected} was to play")
        moves.append((mv["seat"], mv["play"], tuple(sorted(mv["capture"]))))
    to_play = (dealer + 1 + len(moves)) % NUM_SEATS
    if to_play != seat:
        raise ViewError(f"it is seat {to_play}'s turn after {len(moves)} moves, not seat {seat}'s")
    played = [c for _, c, _ in moves]
    if len(set(played)) != len(played):
        raise ViewError("the history plays a card twice")
    return moves


def legal_moves_of(view) -> list[tuple]:
    """The view's ``legal_moves`` as ``(card, capture)`` id tuples."""
    return [(m["play"], tuple(sorted(m["capture"]))) for m in SCHEMA.read_field(view, "legal_moves")]


# ---------------------------------------------------------------- rendering


def _names(cards) -> str:
    return " ".join(NAMES[c] for c in cards) if cards else "-"


def render_text(game) -> str:
    """A plain-text picture of the deal of an ``actions.CavalloiceraActions``: hands, table, piles, last move, score."""
    st = game.state
    lines = []
    status = "over" if st.done else f"seat {st.current} (player_{st.current}) to play"
    lines.append(f"Cavalloìcera  turn {st.turn}/{NUM_TURNS}  dealer: seat {st.dealer}  {status}")
    lines.append(f"Table: {_names(st.table)}")
    for seat in range(NUM_SEATS):
        mark = ">" if seat == st.current and not st.done else " "
        lines.append(f"{mark} seat {seat} (player_{seat}, team {seat & 1}): {_names(st.hands[seat])}")
    for team in (0, 1):
        pile = st.piles[team]
        swords = sum(1 for c in pile if SUIT[c] == SWORDS)
        b = st.bonuses[team]
        bon = ", ".join(f"{k} {v}" for k, v in zip(BONUSES, b) if v) or "none"
        lines.append(f"Team {team} pile: {len(pile)} cards, {swords} swords; bonuses: {bon}")
    if st.moves:
        seat, card, capture = st.moves[-1]
        took = f"takes {_names(capture)}" if capture else "places it"
        lines.append(f"Last move: seat {seat} plays {NAMES[card]} and {took}")
    if st.last_capturer is not None:
        lines.append(f"Last capture by seat {st.last_capturer}")
    if game.building is not None:
        card, taken, sets = game.building
        lines.append(f"Building: capture with {NAMES[card]}, taken so far: {_names(taken)} "
                     f"({len(sets)} sets still possible)")
    if st.done:
        res = st.result()
        if st.unclaimed:
            lines.append(f"Nobody captured: {_names(st.unclaimed)} stay unclaimed")
        lines.append("Result:")
        width = max(len(k) for k in BREAKDOWN_KEYS)
        lines.append(f"  {'':{width}}  team 0  team 1")
        for k in BREAKDOWN_KEYS:
            lines.append(f"  {k:{width}}  {res['breakdown'][0][k]:6d}  {res['breakdown'][1][k]:6d}")
        tp = res["team_points"]
        lines.append(f"  {'total':{width}}  {tp[0]:6d}  {tp[1]:6d}")
        lines.append(f"  cards: {res['cards'][0]} - {res['cards'][1]}")
        w = res["winner"]
        lines.append("  draw" if w is None else f"  team {w} wins")
    return "\n".join(lines)
