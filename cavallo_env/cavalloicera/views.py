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
    """``{"play", "capture"}`` by names -> ``(card, capture)`` by ids."""
    if not isinstance(move, dict) or "play" not in move or not isinstance(move.get("capture", None), list):
        raise ViewError(f"a move must be an object with 'play' and a 'capture' list, got {move!r:.80}")
    try:
        return card_id(move["play"]), tuple(sorted(card_id(n) for n in move["capture"]))
    except ValueError as e:
        raise ViewError(str(e)) from None


def move_to_dict(move: tuple) -> dict:
    card, capture = move
    return {"play": NAMES[card], "capture": [NAMES[t] for t in capture]}


def _int(view, key, lo, hi):
    v = view.get(key)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise ViewError(f"'{key}' must be an int in {lo}..{hi}, got {v!r}")
    return v


def _cards(value, what) -> list[int]:
    if not isinstance(value, list):
        raise ViewError(f"{what} must be a list of card names")
    try:
        out = [card_id(n) for n in value]
    except ValueError as e:
        raise ViewError(f"{what}: {e}") from None
    if len(set(out)) != len(out):
        dup = next(NAMES[c] for c in out if out.count(c) > 1)
        raise ViewError(f"{what}: card {dup} appears twice")
    return out


def state_from_view(view, rng: random.Random | None = None) -> CavalloiceraState:
    """Check a view and rebuild a game consistent with it (see module doc).

    Raises ``ViewError`` saying what is wrong.  The deal must not be over.
    """
    if not isinstance(view, dict):
        raise ViewError(f"a view must be a JSON object, got {type(view).__name__}")
    for key in ("seat", "dealer", "hand", "table", "history"):
        if key not in view:
            raise ViewError(f"the view has no '{key}'")
    seat = _int(view, "seat", 0, 3)
    dealer = _int(view, "dealer", 0, 3)
    hand = _cards(view["hand"], "hand")
    table = _cards(view["table"], "table")
    history = view["history"]
    if not isinstance(history, list):
        raise ViewError("'history' must be a list of moves")
    if len(history) >= NUM_TURNS:
        raise ViewError("the deal is over: the history already has 48 moves")

    moves = []
    for i, mv in enumerate(history, start=1):
        if not isinstance(mv, dict):
            raise ViewError(f"history move {i} must be an object with 'seat', 'play' and 'capture'")
        s = mv.get("seat")
        expected = (dealer + i) % NUM_SEATS
        if s != expected or isinstance(s, bool):
            raise ViewError(f"history move {i}: seat {s!r} moved, but seat {expected} was to play")
        try:
            card, capture = move_from_dict(mv)
        except ViewError as e:
            raise ViewError(f"history move {i}: {e}") from None
        moves.append((s, card, capture))
    to_play = (dealer + 1 + len(moves)) % NUM_SEATS
    if to_play != seat:
        raise ViewError(f"it is seat {to_play}'s turn after {len(moves)} moves, not seat {seat}'s")

    played = [c for _, c, _ in moves]
    if len(set(played)) != len(played):
        raise ViewError("the history plays a card twice")
    overlap = set(played) & set(hand)
    if overlap:
        raise ViewError(f"the hand holds {NAMES[min(overlap)]}, which the history says was already played")
    placed = {c for _, c, cap in moves if not cap}
    captured = {t for _, _, cap in moves for t in cap}
    initial_table = (set(table) | captured) - placed
    if len(initial_table) != TABLE_SIZE:
        raise ViewError(f"the table and history imply {len(initial_table)} cards were dealt to the table, not 4")
    if initial_table & set(hand):
        raise ViewError(f"{NAMES[min(initial_table & set(hand))]} is both in the hand and on the table (now or before)")
    played_by = [[c for s, c, _ in moves if s == k] for k in range(NUM_SEATS)]
    expected_sizes = [HAND_SIZE - len(p) for p in played_by]
    if len(hand) != expected_sizes[seat]:
        raise ViewError(f"the hand has {len(hand)} cards, but after the history seat {seat} must hold {expected_sizes[seat]}")
    sizes = view.get("hand_sizes")
    if sizes is not None and sizes != expected_sizes:
        raise ViewError(f"hand_sizes {sizes!r} contradict the history, which gives {expected_sizes}")

    unseen = sorted(set(range(NUM_CARDS)) - initial_table - set(played) - set(hand))
    if rng is not None:
        rng.shuffle(unseen)
    hands = []
    for k in range(NUM_SEATS):
        if k == seat:
            hands.append(played_by[k] + hand)
        else:
            n = expected_sizes[k]
            hands.append(played_by[k] + unseen[:n])
            unseen = unseen[n:]

    state = CavalloiceraState(hands, sorted(initial_table), dealer)
    for i, (s, card, capture) in enumerate(moves, start=1):
        why = state.check_move(card, capture)
        if why is not None:
            raise ViewError(f"history move {i} (seat {s}) is illegal: {why}")
        state.play(card, capture)
    if sorted(state.table) != sorted(table):
        raise ViewError("the table does not match what the history leaves on it")
    piles = view.get("piles")
    if piles is not None:
        if not isinstance(piles, list) or len(piles) != 2:
            raise ViewError("'piles' must be a list of two lists of card names")
        for t in (0, 1):
            if sorted(_cards(piles[t], f"pile of team {t}")) != sorted(state.piles[t]):
                raise ViewError(f"the pile of team {t} does not match the history")
    return state


def legal_moves_of(view) -> list[tuple]:
    """The view's ``legal_moves`` as ``(card, capture)`` id tuples."""
    legal = view.get("legal_moves") if isinstance(view, dict) else None
    if not isinstance(legal, list):
        if not isinstance(view, dict):
            raise ViewError(f"a view must be a JSON object, got {type(view).__name__}")
        raise ViewError("the view's 'legal_moves' must be a list of moves")
    return [move_from_dict(m) for m in legal]


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
