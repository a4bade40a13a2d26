"""Briscola views: what one seat sees, as JSON (docs/contract.md, "Briscola").

``make_view(state, seat)`` builds the view a bot receives.  ``state_from_view``
checks a view (known cards of its deck, no card in two places, a history that
follows the rules and the seat order, hand, trick, stock size, piles and
points consistent with it) and rebuilds a ``BriscolaState`` in which the cards
the seat cannot see -- the other hand and the stock order -- are dealt at
random with ``rng`` (a determinization; a fixed order without).  Public
knowledge is kept: the trump card lies under the stock until it is drawn,
then it is in the hand of the seat that drew it until that seat plays it.
The rebuilt state, its initial deal included, replays the history exactly.
"""

from __future__ import annotations

import random

from ..errors import short_repr as _short
from ..errors import ViewError
from .cards import DECKS, NAMES, NUM_CARDS, POINTS, SUIT, card_id
from .engine import BEATS, HAND_SIZE, NUM_MOVES, STOCK_SIZE, BriscolaState

GAME_NAME = "briscola"
VIEW_KEYS = ("game", "deck", "seat", "leader", "hand", "trump", "stock_size", "hand_sizes", "trick", "piles",
             "points", "history", "legal_moves")
REQUIRED = ("deck", "seat", "leader", "hand", "trump", "history")
TRUMP_TRICK = 17  # the trump card is drawn (second) after this trick


def make_view(state: BriscolaState, seat: int) -> dict:
    """The JSON view of ``seat``; ``legal_moves`` is empty unless it is to play."""
    names = NAMES[state.deck]
    legal = state.legal_moves() if seat == state.current and not state.done else []
    return {
        "game": GAME_NAME,
        "deck": state.deck,
        "seat": seat,
        "leader": state.leader,
        "hand": [names[c] for c in sorted(state.hands[seat])],
        "trump": names[state.trump],
        "stock_size": len(state.stock),
        "hand_sizes": [len(state.hands[0]), len(state.hands[1])],
        "trick": [names[c] for c in state.trick],
        "piles": [[names[c] for c in p] for p in state.piles],
        "points": state.points[:],
        "history": [{"seat": s, "play": names[c]} for s, c in state.moves],
        "legal_moves": [{"play": names[c]} for c in legal],
    }


def move_from_dict(move, deck: str = "milanesi") -> int:
    """``{"play": name}`` -> card id; ``ViewError`` if malformed."""
    if not isinstance(move, dict) or "play" not in move:
        raise ViewError(f"a move must be an object with 'play' (a card name), got {_short(move)}")
    try:
        return card_id(move["play"], deck)
    except ValueError as e:
        raise ViewError(str(e)) from None


def move_to_dict(card: int, deck: str = "milanesi") -> dict:
    return {"play": NAMES[deck][card]}


def deck_of(view) -> str:
    deck = view.get("deck", "milanesi") if isinstance(view, dict) else None
    if not isinstance(deck, str) or deck not in DECKS:
        raise ViewError(f"'deck' must be one of {', '.join(map(repr, DECKS))}, got {_short(deck)}")
    return deck


def legal_moves_of(view) -> list[int]:
    """The view's ``legal_moves`` as card ids."""
    if not isinstance(view, dict):
        raise ViewError(f"a view must be a JSON object, got {type(view).__name__}")
    legal = view.get("legal_moves")
    if not isinstance(legal, list):
        raise ViewError("the view's 'legal_moves' must be a list of moves")
    deck = deck_of(view)
    out = []
    for i, m in enumerate(legal, start=1):
        try:
            out.append(move_from_dict(m, deck))
        except ViewError as e:
            raise ViewError(f"legal move {i}: {e}") from None
    return out


def _int(view, key, lo, hi) -> int:
    v = view.get(key)
    if v.__class__ is not int or not lo <= v <= hi:
        raise ViewError(f"{key!r} must be an int in {lo}..{hi}, got {_short(v)}")
    return v


def _cards(value, what, deck) -> list[int]:
    if not isinstance(value, list):
        raise ViewError(f"{what} must be a list of card names, got {type(value).__name__}")
    try:
        out = [card_id(n, deck) for n in value]
    except ValueError as e:
        raise ViewError(f"{what}: {e}") from None
    if len(set(out)) != len(out):
        dup = next(NAMES[deck][c] for c in out if out.count(c) > 1)
        raise ViewError(f"{what}: card {dup} appears twice")
    return out


def _pair(view, key, lo, hi) -> list[int] | None:
    v = view.get(key)
    if v is None:
        return None
    if not isinstance(v, list) or len(v) != 2 or any(x.__class__ is not int or not lo <= x <= hi for x in v):
        raise ViewError(f"{key!r} must be a list of two ints in {lo}..{hi} (seat 0, seat 1), got {_short(v)}")
    return v


def state_from_view(view, rng: random.Random | None = None) -> BriscolaState:
    """Check a view and rebuild a state consistent with it (see the module doc).

    Raises ``ViewError`` saying what is wrong.
    """
    if not isinstance(view, dict):
        raise ViewError(f"a view must be a JSON object, got {type(view).__name__}")
    game = view.get("game", GAME_NAME)
    if game != GAME_NAME:
        raise ViewError(f"not a Briscola view: 'game' is {_short(game)}")
    for key in REQUIRED:
        if key not in view:
            raise ViewError(f"the view has no {key!r}")
    deck = deck_of(view)
    names = NAMES[deck]
    seat = _int(view, "seat", 0, 1)
    leader = _int(view, "leader", 0, 1)
    hand = _cards(view["hand"], "'hand'", deck)
    trump_name = view["trump"]
    if not isinstance(trump_name, str):
        raise ViewError(f"'trump' must be a card name, got {_short(trump_name)}")
    try:
        trump = card_id(trump_name, deck)
    except ValueError as e:
        raise ViewError(f"'trump': {e}") from None
    beats = BEATS[SUIT[trump]]

    history = view["history"]
    if not isinstance(history, list):
        raise ViewError(f"'history' must be a list of moves, got {type(history).__name__}")
    if len(history) > NUM_MOVES:
        raise ViewError(f"'history' has {len(history)} moves, but a deal has only {NUM_MOVES}")

    # -- follow the history: seat order, tricks, piles, points, who drew the trump
    moves: list[tuple[int, int]] = []
    first = leader
    cur = None  # leader of the trick in progress
    lead_card = None
    played: dict[int, int] = {}
    piles: list[list[int]] = [[], []]
    points = [0, 0]
    tricks_won = [0, 0]
    k = 0  # completed tricks
    drawer = None  # who drew the trump card (after trick 17)
    for i, mv in enumerate(history, start=1):
        if not isinstance(mv, dict):
            raise ViewError(f"history move {i} must be an object with 'seat' and 'play', got {type(mv).__name__}")
        s = mv.get("seat")
        if s.__class__ is not int or s not in (0, 1):
            raise ViewError(f"history move {i}: 'seat' must be 0 or 1, got {_short(s)}")
        if i == 1:
            first = cur = s
        expected = cur if lead_card is None else 1 - cur
        if s != expected:
            raise ViewError(f"history move {i}: seat {s} played, but seat {expected} was to play")
        try:
            c = move_from_dict(mv, deck)
        except ViewError as e:
            raise ViewError(f"history move {i}: {e}") from None
        if c in played:
            raise ViewError(f"history move {i}: {names[c]} was already played at move {played[c]}")
        if c == trump and (drawer is None or drawer != s):
            why = ("it is still under the stock" if drawer is None
                   else f"seat {drawer} drew it after trick {TRUMP_TRICK}")
            raise ViewError(f"history move {i}: seat {s} cannot play the trump card {names[c]}: {why}")
        played[c] = i
        moves.append((s, c))
        if lead_card is None:
            lead_card = c
            continue
        w = s if beats[lead_card * NUM_CARDS + c] else cur
        piles[w] += (lead_card, c)
        points[w] += POINTS[lead_card] + POINTS[c]
        tricks_won[w] += 1
        k += 1
        if k == TRUMP_TRICK:
            drawer = 1 - w
        cur = w
        lead_card = None
    if not history:
        cur = leader
    done = len(moves) == NUM_MOVES
    if cur != leader:
        raise ViewError(f"'leader' is {leader}, but after the history seat {cur} leads the current trick")
    to_play = cur if lead_card is None else 1 - cur

    stock_size = max(0, STOCK_SIZE - 2 * k)
    got = view.get("stock_size", stock_size)
    if got.__class__ is not int or got != stock_size:
        raise ViewError(f"'stock_size' is {_short(got)}, but after {k} tricks the stock holds {stock_size}")
    held = HAND_SIZE + min(k, TRUMP_TRICK)
    sizes = [held - sum(1 for s, _ in moves if s == x) for x in (0, 1)]
    got = _pair(view, "hand_sizes", 0, HAND_SIZE)
    if got is not None and got != sizes:
        raise ViewError(f"'hand_sizes' {got} contradict the history, which gives {sizes}")
    if len(hand) != sizes[seat]:
        raise ViewError(f"the hand has {len(hand)} cards, but after the history seat {seat} must hold {sizes[seat]}")
    for c in hand:
        if c in played:
            raise ViewError(f"the hand holds {names[c]}, which was played at history move {played[c]}")
    if trump in hand and drawer != seat:
        why = "it is still under the stock" if drawer is None else f"seat {drawer} drew it"
        raise ViewError(f"the hand holds the trump card {names[trump]}, but {why}")
    if drawer == seat and trump not in played and trump not in hand:
        raise ViewError(f"seat {seat} drew the trump card {names[trump]} after trick {TRUMP_TRICK} and has not "
                        f"played it, so it must be in the hand")
    if "trick" in view:
        trick = _cards(view["trick"], "'trick'", deck)
        want = [] if lead_card is None else [lead_card]
        if trick != want:
            raise ViewError(f"'trick' is {view['trick']!r:.80}, but the history leaves "
                            f"{[names[c] for c in want]} on the current trick")
    if view.get("piles") is not None:
        got = view["piles"]
        if not isinstance(got, list) or len(got) != 2:
            raise ViewError("'piles' must be a list of two lists of card names (seat 0, seat 1)")
        for x in (0, 1):
            if sorted(_cards(got[x], f"the pile of seat {x}", deck)) != sorted(piles[x]):
                raise ViewError(f"the pile of seat {x} does not match the tricks of the history")
    got = _pair(view, "points", 0, 120)
    if got is not None and got != points:
        raise ViewError(f"'points' {got} contradict the history, which gives {points}")
    if "legal_moves" in view:
        legal = legal_moves_of(view)
        want = sorted(hand) if (seat == to_play and not done) else []
        if sorted(legal) != want or len(set(legal)) != len(legal):
            raise ViewError(f"'legal_moves' must be {'the whole hand' if want else 'empty (not this seat turn)'}, "
                            f"got {[names[c] for c in legal]}")

    # -- deal the unseen cards
    opp = 1 - seat
    opp_known = drawer == opp and trump not in played
    seen = set(hand) | set(played) | {trump}
    unseen = [c for c in range(NUM_CARDS) if c not in seen]
    n_opp = sizes[opp] - opp_known
    if len(unseen) != n_opp + stock_size:  # cannot happen after the checks above
        raise ViewError(f"{len(unseen)} unseen cards, but the other hand and the stock hold {n_opp + stock_size}")
    if rng is not None:
        rng.shuffle(unseen)
    opp_hand = unseen[:n_opp] + ([trump] if opp_known else [])
    stock_left = unseen[n_opp:]
    now = {seat: hand, opp: opp_hand}

    # -- rebuild a deal that leads there: each seat's cards in the order it got them
    slots = {}  # (seat, slot) -> card; slot 0..2 the initial hand, 2 + i the draw after trick i
    for x in (0, 1):
        seq = [c for s, c in moves if s == x and c != trump] + [c for c in now[x] if c != trump]
        free = [j for j in range(held) if not (x == drawer and j == 2 + TRUMP_TRICK)]
        slots.update({(x, j): c for j, c in zip(free, seq)})
    hands0 = [[slots[(x, j)] for j in range(HAND_SIZE)] for x in (0, 1)]
    stock0 = []
    w = first
    for t in range(1, min(k, TRUMP_TRICK) + 1):
        # the winner of trick t draws first: replay the winners
        s1, c1 = moves[2 * t - 2]
        s2, c2 = moves[2 * t - 1]
        w = s2 if beats[c1 * NUM_CARDS + c2] else s1
        stock0.append(slots[(w, 2 + t)])
        if t < TRUMP_TRICK:
            stock0.append(slots[(1 - w, 2 + t)])
    stock0 += stock_left
    state = BriscolaState(hands0, trump, stock0, first, deck)
    for i, (s, c) in enumerate(moves, start=1):
        why = state.check_move(c)
        if why is not None:  # pragma: no cover - the checks above make this unreachable
            raise ViewError(f"history move {i} (seat {s}) is illegal: {why}")
        state.play(c)
    if sorted(state.hands[seat]) != sorted(hand) or state.stock != tuple(stock_left):  # pragma: no cover
        raise ViewError("the view is inconsistent (the rebuilt deal does not reach it)")
    return state


__all__ = ["ViewError", "make_view", "state_from_view", "move_from_dict", "move_to_dict", "legal_moves_of",
           "deck_of"]


def render_text(state: BriscolaState) -> str:
    """A plain-text picture of a deal: trump, hands, stock, trick, score."""
    names = NAMES[state.deck]

    def cards(cs):
        return " ".join(names[c] for c in cs) if cs else "-"

    lines = []
    status = "over" if state.done else f"seat {state.current} (player_{state.current}) to play"
    lines.append(f"Briscola ({state.deck})  trick {min(len(state.moves) // 2 + 1, 20)}/20  {status}")
    where = "under the stock" if state.trump_holder is None else f"drawn by seat {state.trump_holder}"
    lines.append(f"Trump: {names[state.trump]} ({where}); stock: {len(state.stock)} cards")
    for seat in (0, 1):
        mark = ">" if seat == state.current and not state.done else " "
        lines.append(f"{mark} seat {seat} (player_{seat}): {cards(sorted(state.hands[seat]))}"
                     f"   won {state.tricks[seat]} tricks, {state.points[seat]} points")
    if state.trick:
        lines.append(f"Trick: seat {state.leader} led {cards(state.trick)}")
    elif len(state.moves) >= 2:
        (s1, c1), (s2, c2) = state.moves[-2:]
        lines.append(f"Last trick: seat {s1} {names[c1]}, seat {s2} {names[c2]}; seat {state.leader} won it")
    if state.done:
        r = state.result()
        w = r["winner"]
        lines.append(f"Result: {r['points'][0]} - {r['points'][1]}: " + ("draw" if w is None else f"seat {w} wins"))
    return "\n".join(lines)
