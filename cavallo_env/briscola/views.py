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
from ..games.viewschema import Card, Cards, Field, Int, ListOf, Obj, Text, ViewSchema
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
    """The view's deck ('milanesi' when it names none)."""
    return SCHEMA.deck_of(view)


def legal_moves_of(view) -> list[int]:
    """The view's ``legal_moves`` as card ids."""
    return [m["play"] for m in SCHEMA.read_field(view, "legal_moves")]


_MOVE = Field("play", Card(), "the card played")
_PAIR = "(seat 0, seat 1)"
#: the view (docs/contract.md, "Briscola"): checked by ``state_from_view`` and by ``cavallo serve``
SCHEMA = ViewSchema(GAME_NAME, "Briscola", (
    Field("game", Text((GAME_NAME,)), "'briscola'", required=False),
    Field("deck", Text(DECKS), "the deck whose card names the view uses: 'milanesi' or 'bresciane'"),
    Field("seat", Int(0, 1), "the seat to play (0 or 1)"),
    Field("leader", Int(0, 1), "the seat that leads the current trick"),
    Field("hand", Cards(HAND_SIZE), "the seat's own cards"),
    Field("trump", Card(), "the face-up card: its suit is trump"),
    Field("stock_size", Int(0, STOCK_SIZE), "the cards left in the stock, the trump card not counted",
          required=False),
    Field("hand_sizes", ListOf(Int(0, HAND_SIZE), 2, 2), f"cards in each hand {_PAIR}", required=False),
    Field("trick", Cards(1), "the card already played to this trick, if any", required=False),
    Field("piles", ListOf(Cards(NUM_CARDS), 2, 2, label="the pile of seat {i}", noun="piles"),
          f"the cards of the tricks each seat won {_PAIR}", required=False),
    Field("points", ListOf(Int(0, 120), 2, 2), f"the card points each seat won {_PAIR}", required=False),
    Field("history", ListOf(Obj((Field("seat", Int(0, 1, "0 or 1"), "the seat that played"), _MOVE),
                                "BriscolaHistoryMove", {"seat": 0, "play": "A-coins"}),
                            NUM_MOVES, label="history move {n}", noun="moves"),
          "every card of the deal played so far, in order"),
    Field("legal_moves", ListOf(Obj((_MOVE,), "BriscolaMove", {"play": "A-coins"}), HAND_SIZE,
                                label="legal move {n}", noun="moves"),
          "the seat's legal moves (its whole hand); computed from the rules when left out", required=False),
), card_id, "What the Briscola seat to play sees (docs/contract.md, \"Briscola\").")


class _Deal:
    """The public facts of a deal, followed through its history: the tricks, their piles and points,
    the card on the current trick and who drew the trump card (after trick 17)."""

    def __init__(self, leader: int, trump: int):
        self.first = self.cur = leader  # the first leader, the leader of the current trick
        self.trump, self.beats = trump, BEATS[SUIT[trump]]
        self.moves: list[tuple[int, int]] = []
        self.played: dict[int, int] = {}  # card -> its move number
        self.lead_card = None
        self.piles: list[list[int]] = [[], []]
        self.points = [0, 0]
        self.tricks = 0
        self.drawer = None

    def play(self, i: int, s: int, c: int, names) -> None:
        """Move ``i``: seat ``s`` plays ``c``, checked against the seat order and what was played."""
        if i == 1:
            self.first = self.cur = s
        expected = self.cur if self.lead_card is None else 1 - self.cur
        if s != expected:
            raise ViewError(f"history move {i}: seat {s} played, but seat {expected} was to play")
        if c in self.played:
            raise ViewError(f"history move {i}: {names[c]} was already played at move {self.played[c]}")
        if c == self.trump and self.drawer != s:
            why = ("it is still under the stock" if self.drawer is None
                   else f"seat {self.drawer} drew it after trick {TRUMP_TRICK}")
            raise ViewError(f"history move {i}: seat {s} cannot play the trump card {names[c]}: {why}")
        self.played[c] = i
        self.moves.append((s, c))
        if self.lead_card is None:
            self.lead_card = c
            return
        w = s if self.beats[self.lead_card * NUM_CARDS + c] else self.cur
        self.piles[w] += (self.lead_card, c)
        self.points[w] += POINTS[self.lead_card] + POINTS[c]
        self.tricks += 1
        if self.tricks == TRUMP_TRICK:
            self.drawer = 1 - w
        self.cur, self.lead_card = w, None

    @property
    def to_play(self) -> int:
        return self.cur if self.lead_card is None else 1 - self.cur

    @property
    def stock_size(self) -> int:
        return max(0, STOCK_SIZE - 2 * self.tricks)

    @property
    def held(self) -> int:
        """The cards each seat has had so far: its first hand and a card after each trick up to the 17th."""
        return HAND_SIZE + min(self.tricks, TRUMP_TRICK)

    def hand_sizes(self) -> list[int]:
        return [self.held - sum(1 for s, _ in self.moves if s == x) for x in (0, 1)]


def state_from_view(view, rng: random.Random | None = None) -> BriscolaState:
    """Check a view and rebuild a state consistent with it (see the module doc).

    Raises ``ViewError`` saying what is wrong.
    """
    v = SCHEMA.read(view)
    names = NAMES[v["deck"]]
    d = _Deal(v["leader"], v["trump"])
    for i, mv in enumerate(v["history"], start=1):
        d.play(i, mv["seat"], mv["play"], names)
    if d.cur != v["leader"]:
        raise ViewError(f"'leader' is {v['leader']}, but after the history seat {d.cur} leads the current trick")
    _check_counts(v, d)
    _check_hand(v, d, names)
    _check_public(v, d, names)
    return _rebuild(v, d, rng)


def _check_counts(v: dict, d: _Deal) -> None:
    """The stock size, the hand sizes and the hand's size against the tricks of the history."""
    if v["stock_size"] is not None and v["stock_size"] != d.stock_size:
        raise ViewError(f"'stock_size' is {v['stock_size']}, but after {d.tricks} tricks the stock holds "
                        f"{d.stock_size}")
    sizes, seat = d.hand_sizes(), v["seat"]
    if v["hand_sizes"] is not None and v["hand_sizes"] != sizes:
        raise ViewError(f"'hand_sizes' {v['hand_sizes']} contradict the history, which gives {sizes}")
    if len(v["hand"]) != sizes[seat]:
        raise ViewError(f"the hand has {len(v['hand'])} cards, but after the history seat {seat} must hold "
                        f"{sizes[seat]}")


def _check_hand(v: dict, d: _Deal, names) -> None:
    """The hand against the cards played and the trump card (under the stock, or drawn after trick 17)."""
    hand, seat, trump = v["hand"], v["seat"], d.trump
    for c in hand:
        if c in d.played:
            raise ViewError(f"the hand holds {names[c]}, which was played at history move {d.played[c]}")
    if trump in hand and d.drawer != seat:
        why = "it is still under the stock" if d.drawer is None else f"seat {d.drawer} drew it"
        raise ViewError(f"the hand holds the trump card {names[trump]}, but {why}")
    if d.drawer == seat and trump not in d.played and trump not in hand:
        raise ViewError(f"seat {seat} drew the trump card {names[trump]} after trick {TRUMP_TRICK} and has not "
                        f"played it, so it must be in the hand")


def _check_public(v: dict, d: _Deal, names) -> None:
    """The trick, the piles, the points and the legal moves against the history."""
    want = [] if d.lead_card is None else [d.lead_card]
    if v["trick"] is not None and v["trick"] != want:
        raise ViewError(f"'trick' is {[names[c] for c in v['trick']]}, but the history leaves "
                        f"{[names[c] for c in want]} on the current trick")
    for x, pile in enumerate(v["piles"] or ()):
        if sorted(pile) != sorted(d.piles[x]):
            raise ViewError(f"the pile of seat {x} does not match the tricks of the history")
    if v["points"] is not None and v["points"] != d.points:
        raise ViewError(f"'points' {v['points']} contradict the history, which gives {d.points}")
    if v["legal_moves"] is not None:
        legal = [m["play"] for m in v["legal_moves"]]
        want = sorted(v["hand"]) if (v["seat"] == d.to_play and len(d.moves) < NUM_MOVES) else []
        if sorted(legal) != want or len(set(legal)) != len(legal):
            raise ViewError(f"'legal_moves' must be {'the whole hand' if want else 'empty (not this seat turn)'}, "
                            f"got {[names[c] for c in legal]}")


def _rebuild(v: dict, d: _Deal, rng: random.Random | None) -> BriscolaState:
    """A deal that leads to the view: the unseen cards dealt (at random with ``rng``), each seat's
    cards in the order it got them, the history replayed."""
    seat, hand, trump, moves = v["seat"], v["hand"], d.trump, d.moves
    opp = 1 - seat
    opp_known = d.drawer == opp and trump not in d.played
    seen = set(hand) | set(d.played) | {trump}
    unseen = [c for c in range(NUM_CARDS) if c not in seen]
    n_opp = d.hand_sizes()[opp] - opp_known
    if rng is not None:
        rng.shuffle(unseen)
    now = {seat: hand, opp: unseen[:n_opp] + ([trump] if opp_known else [])}
    stock_left = unseen[n_opp:]
    slots = {}  # (seat, slot) -> card; slot 0..2 the initial hand, 2 + i the draw after trick i
    for x in (0, 1):
        seq = [c for s, c in moves if s == x and c != trump] + [c for c in now[x] if c != trump]
        free = [j for j in range(d.held) if not (x == d.drawer and j == 2 + TRUMP_TRICK)]
        slots.update({(x, j): c for j, c in zip(free, seq)})
    hands0 = [[slots[(x, j)] for j in range(HAND_SIZE)] for x in (0, 1)]
    stock0 = []
    for t in range(1, min(d.tricks, TRUMP_TRICK) + 1):  # the winner of trick t draws first
        (s1, c1), (s2, c2) = moves[2 * t - 2], moves[2 * t - 1]
        w = s2 if d.beats[c1 * NUM_CARDS + c2] else s1
        stock0.append(slots[(w, 2 + t)])
        if t < TRUMP_TRICK:
            stock0.append(slots[(1 - w, 2 + t)])
    state = BriscolaState(hands0, trump, stock0 + stock_left, d.first, v["deck"])
    for s, c in moves:
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
