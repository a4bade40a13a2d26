"""Observation and state encoders of Briscola (numpy), kept apart from the rules.

``Features`` keeps one deal's *full-information* vector (absolute seats),
updated in place after every card (a handful of writes).  ``state()`` is that
vector.  A seat's observation is a fixed gather from it (``np.take`` with a
precomputed index per seat) that orders everything relative to the observer
and picks only what it may know (its own hand, its own unseen set, the
publicly known card of the other hand), so it holds nothing hidden by
construction: it does not change when the other hand and the stock order are
dealt differently.  ``encode_observation`` builds the same from scratch.

Observation layout ``briscola-obs/1`` (float32 in [0, 1], 376 values), in
order; card blocks are indexed by card id (0..39), "mine"/"theirs" are the
observer and the other seat:

=================  ====  ========================================================
block              size  meaning
=================  ====  ========================================================
hand                 40  my hand
trump_card           40  the face-up trump card (even once drawn)
trump_suit            4  its suit
trick                40  the card(s) on the current trick
won_mine             40  cards in my pile
won_theirs           40  cards in their pile
played_mine          40  cards I have played
played_theirs        40  cards they have played
known_theirs         40  the trump card while they hold it (drew it, not played yet)
unseen               40  cards I have not seen (their hand but a known card, and the stock)
i_lead                1  I lead the current trick
my_turn               1  I am to play
stock_size            1  face-down stock cards / 33
trump_under_stock     1  the trump card has not been drawn yet
hand_sizes            2  mine, theirs / 3
points                2  mine, theirs / 120
tricks                2  mine, theirs / 20
turn                  1  cards played / 40
deck                  1  0 milanesi, 1 bresciane
=================  ====  ========================================================

``state()`` layout ``briscola-state/1`` (float32 in [0, 1], 578 values,
absolute seats): hands[2x40], stock[40] (face-down stock cards),
stock_order[40] ((position in the deal's stock + 1) / 33 for the cards still
in it: their order, top first, is increasing), trump_card[40], trump_suit[4],
known_held[2x40], unseen[2x40], trick[40], piles[2x40], played_by[2x40],
leader[2], current[2] (zeros once over), stock_size[1],
trump_under_stock[1], hand_sizes[2], points[2], tricks[2], turn[1], deck[1].
"""

from __future__ import annotations

import numpy as np

from ..games.base import block_layout
from .cards import NUM_CARDS, SUIT
from .engine import HAND_SIZE, NUM_MOVES, NUM_TRICKS, STOCK_SIZE, TOTAL_POINTS, BriscolaState

OBS_VERSION = "briscola-obs/1"
STATE_VERSION = "briscola-state/1"

C = NUM_CARDS



STATE_BLOCKS = [
    ("hands", 2 * C), ("stock", C), ("stock_order", C), ("trump_card", C), ("trump_suit", 4),
    ("known_held", 2 * C), ("unseen", 2 * C), ("trick", C), ("piles", 2 * C), ("played_by", 2 * C),
    ("leader", 2), ("current", 2), ("stock_size", 1), ("trump_under_stock", 1), ("hand_sizes", 2),
    ("points", 2), ("tricks", 2), ("turn", 1), ("deck", 1),
]
STATE_LAYOUT, STATE_SIZE = block_layout(STATE_BLOCKS)

OBS_BLOCKS = [
    ("hand", C), ("trump_card", C), ("trump_suit", 4), ("trick", C), ("won_mine", C), ("won_theirs", C),
    ("played_mine", C), ("played_theirs", C), ("known_theirs", C), ("unseen", C),
    ("i_lead", 1), ("my_turn", 1), ("stock_size", 1), ("trump_under_stock", 1), ("hand_sizes", 2),
    ("points", 2), ("tricks", 2), ("turn", 1), ("deck", 1),
]
OBS_LAYOUT, OBS_SIZE = block_layout(OBS_BLOCKS)

_S = {k: v[0] for k, v in STATE_LAYOUT.items()}
HANDS, STOCK, STOCK_ORDER, TRUMP_CARD, TRUMP_SUIT = (_S["hands"], _S["stock"], _S["stock_order"],
                                                     _S["trump_card"], _S["trump_suit"])
KNOWN, UNSEEN, TRICK, PILES, PLAYED = _S["known_held"], _S["unseen"], _S["trick"], _S["piles"], _S["played_by"]
LEADER, CURRENT, STOCK_SIZE_AT, UNDER, HAND_SIZES = (_S["leader"], _S["current"], _S["stock_size"],
                                                     _S["trump_under_stock"], _S["hand_sizes"])
POINTS_AT, TRICKS_AT, TURN, DECK = _S["points"], _S["tricks"], _S["turn"], _S["deck"]


def _obs_index(seat: int) -> np.ndarray:
    me, other = seat, 1 - seat
    r = lambda start, n: list(range(start, start + n))  # noqa: E731
    idx = []
    idx += r(HANDS + me * C, C)
    idx += r(TRUMP_CARD, C) + r(TRUMP_SUIT, 4)
    idx += r(TRICK, C)
    idx += r(PILES + me * C, C) + r(PILES + other * C, C)
    idx += r(PLAYED + me * C, C) + r(PLAYED + other * C, C)
    idx += r(KNOWN + other * C, C)
    idx += r(UNSEEN + me * C, C)
    idx += [LEADER + me, CURRENT + me, STOCK_SIZE_AT, UNDER]
    idx += [HAND_SIZES + me, HAND_SIZES + other, POINTS_AT + me, POINTS_AT + other,
            TRICKS_AT + me, TRICKS_AT + other, TURN, DECK]
    assert len(idx) == OBS_SIZE
    return np.asarray(idx, dtype=np.intp)


#: per seat, the state indices that make its observation
OBS_INDEX = np.stack([_obs_index(s) for s in range(2)])
_OBS_ROWS = (OBS_INDEX[0].copy(), OBS_INDEX[1].copy())


def _writer(buf: np.ndarray):
    # item writes through a memoryview cost half of NumPy's __setitem__
    if buf.dtype == np.float32 and buf.ndim == 1 and buf.flags.c_contiguous and buf.flags.writeable:
        return memoryview(buf)
    return buf


class Features:
    """The full-information vector of one deal, updated in place card by card.

    Call ``reset(state)`` at the start of a deal (or at any point: it rebuilds
    from scratch), then ``after_move(state)`` after every ``state.play``.
    """

    __slots__ = ("s", "_w")

    def __init__(self, buf: np.ndarray | None = None):
        self.s = np.zeros(STATE_SIZE, np.float32) if buf is None else buf
        self._w = _writer(self.s)

    def __reduce__(self):
        return Features, (self.s,)

    def copy(self) -> "Features":
        return Features(self.s.copy())

    def reset(self, state: BriscolaState) -> None:
        s = self.s
        s.fill(0.0)
        ones = []
        for seat in (0, 1):
            ones += [HANDS + seat * C + c for c in state.hands[seat]]
            ones += [PILES + seat * C + c for c in state.piles[seat]]
        ones += [STOCK + c for c in state.stock]
        drawn = STOCK_SIZE - len(state.stock)
        for i, c in enumerate(state.stock):
            s[STOCK_ORDER + c] = (drawn + i + 1) / STOCK_SIZE
        trump = state.trump
        ones += [TRUMP_CARD + trump, TRUMP_SUIT + SUIT[trump]]
        played = set()
        for seat, c in state.moves:
            ones.append(PLAYED + seat * C + c)
            played.add(c)
        ones += [TRICK + c for c in state.trick]
        holder = state.trump_holder
        if holder is not None and trump in state.hands[holder]:
            ones.append(KNOWN + holder * C + trump)
        for seat in (0, 1):
            mine = state.hands[seat]
            ones += [UNSEEN + seat * C + c for c in range(C)
                     if c != trump and c not in played and c not in mine]
        if not state.done:
            ones += [LEADER + state.leader, CURRENT + state.current]
        else:
            ones.append(LEADER + state.leader)
        if holder is None:
            ones.append(UNDER)
        s.put(ones, 1.0)
        s[STOCK_SIZE_AT] = len(state.stock) / STOCK_SIZE
        for seat in (0, 1):
            s[HAND_SIZES + seat] = len(state.hands[seat]) / HAND_SIZE
            s[POINTS_AT + seat] = state.points[seat] / TOTAL_POINTS
            s[TRICKS_AT + seat] = state.tricks[seat] / NUM_TRICKS
        s[TURN] = len(state.moves) / NUM_MOVES
        s[DECK] = 1.0 if state.deck == "bresciane" else 0.0

    def after_move(self, state: BriscolaState) -> None:
        """Update for the card just played (``state.moves[-1]``)."""
        s = self._w
        moves = state.moves
        seat, card = moves[-1]
        other = 1 - seat
        base = seat * C
        s[HANDS + base + card] = 0.0
        s[PLAYED + base + card] = 1.0
        s[KNOWN + base + card] = 0.0
        s[UNSEEN + other * C + card] = 0.0
        n = len(moves)
        s[TURN] = n / NUM_MOVES
        hands = state.hands
        if state.trick:  # the first card of a trick
            s[TRICK + card] = 1.0
            s[HAND_SIZES + seat] = len(hands[seat]) / HAND_SIZE
            s[CURRENT + seat] = 0.0
            s[CURRENT + other] = 1.0
            return
        lead = moves[-2][1]
        s[TRICK + lead] = 0.0
        w = state.leader
        l = 1 - w
        s[PILES + w * C + lead] = 1.0
        s[PILES + w * C + card] = 1.0
        s[POINTS_AT + w] = state.points[w] / TOTAL_POINTS
        s[TRICKS_AT + w] = state.tricks[w] / NUM_TRICKS
        if n <= 34:  # both drew a card
            cw = hands[w][-1]
            cl = hands[l][-1]
            s[HANDS + w * C + cw] = 1.0
            s[HANDS + l * C + cl] = 1.0
            s[UNSEEN + w * C + cw] = 0.0
            s[UNSEEN + l * C + cl] = 0.0
            s[STOCK + cw] = 0.0
            s[STOCK_ORDER + cw] = 0.0
            s[STOCK + cl] = 0.0
            s[STOCK_ORDER + cl] = 0.0
            s[STOCK_SIZE_AT] = len(state.stock) / STOCK_SIZE
            if n == 34:  # the loser drew the trump card
                s[KNOWN + l * C + cl] = 1.0
                s[UNDER] = 0.0
        s[HAND_SIZES] = len(hands[0]) / HAND_SIZE
        s[HAND_SIZES + 1] = len(hands[1]) / HAND_SIZE
        s[LEADER + w] = 1.0
        s[LEADER + l] = 0.0
        if state.done:
            s[CURRENT] = 0.0
            s[CURRENT + 1] = 0.0
        else:
            s[CURRENT + w] = 1.0
            s[CURRENT + l] = 0.0

    def observation(self, seat: int) -> np.ndarray:
        """A new float32 array: the observation of ``seat``."""
        return self.s.take(_OBS_ROWS[seat])

    def state(self) -> np.ndarray:
        return self.s.copy()


def encode_state(state: BriscolaState) -> np.ndarray:
    """The full-information vector of ``state`` computed from scratch."""
    f = Features()
    f.reset(state)
    return f.s


def encode_observation(state: BriscolaState, seat: int) -> np.ndarray:
    """The observation of ``seat`` computed from scratch (the env's, bit for bit)."""
    f = Features()
    f.reset(state)
    return f.observation(seat)


__all__ = ["OBS_VERSION", "STATE_VERSION", "OBS_LAYOUT", "OBS_SIZE", "STATE_LAYOUT", "STATE_SIZE", "OBS_INDEX",
           "Features", "encode_state", "encode_observation"]
