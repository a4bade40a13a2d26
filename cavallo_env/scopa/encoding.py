"""Scopa observation and state encoders (numpy), kept apart from the rules and the env.

``Features`` keeps one observation buffer per seat, each from that seat's
point of view, updated in place after every move (a handful of writes) and
rebuilt at the start of every deal; an observation is a copy of the seat's
buffer.  Every value is computed from what that seat knows, so an observation
holds **nothing hidden**: it does not change when the other hand and the
stock are dealt differently.  ``encode_observation(state, seat, building)``
computes the same vector from scratch (e.g. from a state rebuilt from a view).

Observation layout ``scopa-obs/1`` (float32 in [0, 1], 388 values), in order;
"mine"/"theirs" are the observer and the other seat; card blocks are indexed
by card id (0..39, ``suit * 10 + rank``):

=================  ====  =======================================================
block              size  meaning
=================  ====  =======================================================
hand                 40  my hand
table                40  the cards on the table
capture_card         40  the card I am capturing with (while building a capture)
capture_taken        40  the table cards taken so far into that capture
pile_mine            40  the cards I captured this deal (leftovers not included)
pile_theirs          40  the cards the other seat captured this deal
played_mine          40  the cards I played this deal
played_theirs        40  the cards the other seat played this deal
unseen               40  the cards I have not seen: the other hand and the stock
scope_mine            6  my scopas this deal as a thermometer (>= 1, ..., >= 6)
scope_theirs          6  the other seat's scopas this deal, the same way
cards                 2  pile sizes / 40 (mine, theirs)
money                 2  money-suit cards in the piles / 10 (mine, theirs)
totals                3  match totals before this deal: mine / 11 and theirs / 11
                         (each clipped to 1), (mine - theirs + 11) / 22 clipped
dealer                1  1 if I dealt this deal
stock_size            1  cards left in the stock / 30
hand_sizes            2  cards in hand / 3 (mine, theirs)
last_capturer         3  who captured last this deal: me, the other seat, nobody
play                  1  plays made this deal / 36
deck                  1  1 for the bresciane deck, 0 for milanesi
=================  ====  =======================================================

The money suit is diamonds (milanesi) / coins (bresciane), so the settebello
is card 16 (milanesi) or 6 (bresciane); the ``deck`` flag says which.

``state()`` layout ``scopa-state/1`` (float32 in [0, 1], 420 values, absolute
seats): hands[2x40], table[40], stock[40] (a stock card at position k from the
top: 1 - k / 30), piles[2x40], played[2x40], capture_card[40],
capture_taken[40], scope[2] (/ 18), cards[2] (/ 40), money[2] (/ 10),
totals[2] (/ 11 clipped), dealer[2], current[2], stock_size[1] (/ 30),
hand_sizes[2] (/ 3), last_capturer[3] (seat 0, seat 1, nobody), play[1]
(/ 36), deck[1].
"""

from __future__ import annotations

import numpy as np

from ..games.base import block_layout
from .engine import NUM_PLAYS, STOCK_SIZE, SUIT, TARGET, ScopaState

OBS_VERSION = "scopa-obs/1"
STATE_VERSION = "scopa-state/1"
C = 40
SCOPE_BINS = 6



OBS_BLOCKS = [
    ("hand", C), ("table", C), ("capture_card", C), ("capture_taken", C),
    ("pile_mine", C), ("pile_theirs", C), ("played_mine", C), ("played_theirs", C), ("unseen", C),
    ("scope_mine", SCOPE_BINS), ("scope_theirs", SCOPE_BINS), ("cards", 2), ("money", 2), ("totals", 3),
    ("dealer", 1), ("stock_size", 1), ("hand_sizes", 2), ("last_capturer", 3), ("play", 1), ("deck", 1),
]
OBS_LAYOUT, OBS_SIZE = block_layout(OBS_BLOCKS)

STATE_BLOCKS = [
    ("hands", 2 * C), ("table", C), ("stock", C), ("piles", 2 * C), ("played", 2 * C),
    ("capture_card", C), ("capture_taken", C), ("scope", 2), ("cards", 2), ("money", 2), ("totals", 2),
    ("dealer", 2), ("current", 2), ("stock_size", 1), ("hand_sizes", 2), ("last_capturer", 3), ("play", 1),
    ("deck", 1),
]
STATE_LAYOUT, STATE_SIZE = block_layout(STATE_BLOCKS)

_O = {k: v[0] for k, v in OBS_LAYOUT.items()}
HAND, TABLE, CCARD, CTAKEN = _O["hand"], _O["table"], _O["capture_card"], _O["capture_taken"]
PILE_MINE, PILE_THEIRS, PLAYED_MINE, PLAYED_THEIRS, UNSEEN = (
    _O["pile_mine"], _O["pile_theirs"], _O["played_mine"], _O["played_theirs"], _O["unseen"])
SCOPE_MINE, SCOPE_THEIRS, CARDS, MONEY, TOTALS = _O["scope_mine"], _O["scope_theirs"], _O["cards"], _O["money"], _O["totals"]
DEALER, STOCK, HAND_SIZES, LAST, PLAY, DECK = (
    _O["dealer"], _O["stock_size"], _O["hand_sizes"], _O["last_capturer"], _O["play"], _O["deck"])
BUILD_END = CTAKEN + C
_ZERO_BUILD = memoryview(np.zeros(BUILD_END - CCARD, np.float32))
_ZERO_CARDS = memoryview(np.zeros(C, np.float32))
_THERMO = tuple(memoryview(np.array([1.0 if i < k else 0.0 for i in range(SCOPE_BINS)], np.float32))
                for k in range(SCOPE_BINS + 1))


def _totals_block(mine: int, theirs: int) -> list[float]:
    return [min(mine / TARGET, 1.0), min(theirs / TARGET, 1.0),
            min(max((mine - theirs + TARGET) / (2 * TARGET), 0.0), 1.0)]


def totals_before_deal(state: ScopaState) -> list[int]:
    """The match totals before the current deal (the view's ``totals``)."""
    t = state.totals
    if state.deal.done and state.results:
        p = state.results[-1]["points"]
        return [t[0] - p[0], t[1] - p[1]]
    return t[:]


def fill_observation(buf: np.ndarray, state: ScopaState, seat: int, building=None) -> None:
    """Write the observation of ``seat`` into ``buf`` (zeroed first)."""
    buf.fill(0.0)
    deal = state.deal
    o = 1 - seat
    hand = deal.hands[seat]
    table = deal.table
    w = buf if buf.dtype != np.float32 or not buf.flags.c_contiguous else memoryview(buf)
    buf[UNSEEN:UNSEEN + C] = 1.0
    for c in hand:
        w[HAND + c] = 1.0
        w[UNSEEN + c] = 0.0
    for c in table:
        w[TABLE + c] = 1.0
        w[UNSEEN + c] = 0.0
    if deal.turn:
        money = state.money
        for who, base in ((seat, PILE_MINE), (o, PILE_THEIRS)):
            for c in deal.piles[who]:
                w[base + c] = 1.0
                w[UNSEEN + c] = 0.0
        for c in deal.leftovers:
            w[UNSEEN + c] = 0.0
        for s, c, _ in deal.moves:
            w[(PLAYED_MINE if s == seat else PLAYED_THEIRS) + c] = 1.0
        sm, so = deal.scope[seat], deal.scope[o]
        if sm:
            buf[SCOPE_MINE:SCOPE_MINE + SCOPE_BINS] = _THERMO[min(sm, SCOPE_BINS)]
        if so:
            buf[SCOPE_THEIRS:SCOPE_THEIRS + SCOPE_BINS] = _THERMO[min(so, SCOPE_BINS)]
        piles = deal.piles
        w[CARDS] = len(piles[seat]) / C
        w[CARDS + 1] = len(piles[o]) / C
        w[MONEY] = sum(1 for c in piles[seat] if SUIT[c] == money) / 10
        w[MONEY + 1] = sum(1 for c in piles[o] if SUIT[c] == money) / 10
    if building is not None and seat == state.current:
        card, taken, _ = building
        w[CCARD + card] = 1.0
        for t in taken:
            w[CTAKEN + t] = 1.0
    t = totals_before_deal(state) if state.results else state.totals
    if t[0] or t[1]:
        buf[TOTALS:TOTALS + 3] = _totals_block(t[seat], t[o])
    else:
        w[TOTALS + 2] = 0.5
    if deal.dealer == seat:
        w[DEALER] = 1.0
    w[STOCK] = deal.stock_size / STOCK_SIZE
    w[HAND_SIZES] = len(hand) / 3
    w[HAND_SIZES + 1] = len(deal.hands[o]) / 3
    lc = deal.last_capturer
    w[LAST + (2 if lc is None else 0 if lc == seat else 1)] = 1.0
    w[PLAY] = deal.turn / NUM_PLAYS
    if state.deck == "bresciane":
        w[DECK] = 1.0


class Features:
    """The two seats' observation buffers of one game, updated move by move.

    ``reset(state)`` at the start of every deal (any point of a deal works),
    ``after_move(state)`` after every move that did not end a deal, and
    ``set_building(building, seat)`` when the capture being built changes;
    ``after_action(game, moved)`` does the right one after a ``ScopaActions`` step.
    """

    __slots__ = ("obs", "_w", "_money", "_built", "_stock")

    def __init__(self):
        self.obs = (np.zeros(OBS_SIZE, np.float32), np.zeros(OBS_SIZE, np.float32))
        self._w = (memoryview(self.obs[0]), memoryview(self.obs[1]))
        self._money = [0, 0]
        self._built = -1  # seat whose buffer shows a capture being built, or -1
        self._stock = 0

    def copy(self) -> "Features":
        f = Features.__new__(Features)
        f.obs = (self.obs[0].copy(), self.obs[1].copy())
        f._w = (memoryview(f.obs[0]), memoryview(f.obs[1]))
        f._money = self._money[:]
        f._built = self._built
        f._stock = self._stock
        return f

    def __deepcopy__(self, memo):
        return self.copy()

    def __getstate__(self):
        return {"obs": self.obs, "money": self._money, "built": self._built, "stock": self._stock}

    def __setstate__(self, d):
        self.obs = (d["obs"][0].copy(), d["obs"][1].copy())
        self._w = (memoryview(self.obs[0]), memoryview(self.obs[1]))
        self._money, self._built, self._stock = list(d["money"]), d["built"], d["stock"]

    def reset(self, state: ScopaState, building=None) -> None:
        fill_observation(self.obs[0], state, 0, building)
        fill_observation(self.obs[1], state, 1, building)
        deal = state.deal
        m = state.money
        self._money = [sum(1 for c in p if SUIT[c] == m) for p in deal.piles]
        self._built = state.current if building is not None else -1
        self._stock = deal.stock_pos

    def after_move(self, state: ScopaState) -> None:
        """Update both buffers for the move just played (``state.deal.moves[-1]``)."""
        deal = state.deal
        seat, card, capture = deal.moves[-1]
        wm, wo = self._w[seat], self._w[seat ^ 1]
        if self._built >= 0:
            self._w[self._built][CCARD:BUILD_END] = _ZERO_BUILD
            self._built = -1
        wm[HAND + card] = 0.0
        wm[PLAYED_MINE + card] = 1.0
        wo[PLAYED_THEIRS + card] = 1.0
        wo[UNSEEN + card] = 0.0
        if capture:
            self._after_capture(state, seat, card, capture)
        else:
            wm[TABLE + card] = 1.0
            wo[TABLE + card] = 1.0
        play = deal.turn / NUM_PLAYS
        wm[PLAY] = play
        wo[PLAY] = play
        if deal.stock_pos != self._stock:  # three new cards for each seat
            self._stock = deal.stock_pos
            st = deal.stock_size / STOCK_SIZE
            for s in (0, 1):
                w = self._w[s]
                for c in deal.hands[s]:
                    w[HAND + c] = 1.0
                    w[UNSEEN + c] = 0.0
                w[HAND_SIZES] = 1.0
                w[HAND_SIZES + 1] = 1.0
                w[STOCK] = st
        else:
            h = len(deal.hands[seat]) / 3
            wm[HAND_SIZES] = h
            wo[HAND_SIZES + 1] = h

    def _after_capture(self, state: ScopaState, seat: int, card: int, capture: tuple) -> None:
        """``after_move``'s updates for a capture: the piles, the counts, the last capturer, a scopa."""
        deal = state.deal
        wm, wo = self._w[seat], self._w[seat ^ 1]
        money = state.money
        wm[PILE_MINE + card] = 1.0
        wo[PILE_THEIRS + card] = 1.0
        n = 1 if SUIT[card] == money else 0
        for t in capture:
            wm[TABLE + t] = 0.0
            wo[TABLE + t] = 0.0
            wm[PILE_MINE + t] = 1.0
            wo[PILE_THEIRS + t] = 1.0
            if SUIT[t] == money:
                n += 1
        k = len(deal.piles[seat]) / C
        wm[CARDS] = k
        wo[CARDS + 1] = k
        if n:
            n = self._money[seat] = self._money[seat] + n
            wm[MONEY] = n / 10
            wo[MONEY + 1] = n / 10
        if deal.last_capturer == seat:
            wm[LAST] = 1.0
            wm[LAST + 1] = 0.0
            wm[LAST + 2] = 0.0
            wo[LAST] = 0.0
            wo[LAST + 1] = 1.0
            wo[LAST + 2] = 0.0
        if not deal.table and deal.turn < NUM_PLAYS:  # a scopa (the 36th play is none)
            sc = deal.scope[seat]
            if sc <= SCOPE_BINS:
                wm[SCOPE_MINE + sc - 1] = 1.0
                wo[SCOPE_THEIRS + sc - 1] = 1.0

    def after_last_move(self, state: ScopaState) -> None:
        """Update both buffers for the move that ended the last deal: the leftovers
        leave the table (the piles stay those before the leftovers)."""
        self.after_move(state)
        for w in self._w:
            w[TABLE:TABLE + C] = _ZERO_CARDS
            w[HAND_SIZES] = 0.0
            w[HAND_SIZES + 1] = 0.0

    def after_action(self, game, moved) -> None:
        """Mirror one ``ScopaActions.step`` of ``game`` that returned ``moved``: a capture being
        built (the same seat chooses again), a move, the match's last move, or a move that
        ended a deal of the match (the next one is dealt)."""
        if moved is None:
            self.set_building(game.building, game.current)
        elif game.last_points is None:
            self.after_move(game.state)
        elif game.state.done:
            self.after_last_move(game.state)
        else:
            self.reset(game.state)

    def set_building(self, building, seat: int) -> None:
        """Mirror the capture being built by ``seat`` (``ScopaActions.building``) in its buffer."""
        if self._built >= 0:
            self._w[self._built][CCARD:BUILD_END] = _ZERO_BUILD
            self._built = -1
        if building is not None:
            w = self._w[seat]
            card, taken, _ = building
            w[CCARD + card] = 1.0
            for t in taken:
                w[CTAKEN + t] = 1.0
            self._built = seat

    def observation(self, seat: int) -> np.ndarray:
        """A new float32 array: the observation of ``seat``."""
        return self.obs[seat].copy()


def encode_observation(state: ScopaState, seat: int, building=None) -> np.ndarray:
    """The observation of ``seat`` computed from scratch (the same as the env's)."""
    buf = np.zeros(OBS_SIZE, np.float32)
    fill_observation(buf, state, seat, building)
    return buf


def state_vector(state: ScopaState, building=None) -> np.ndarray:
    """The full-information vector (``STATE_VERSION``)."""
    L = {k: v[0] for k, v in STATE_LAYOUT.items()}
    s = np.zeros(STATE_SIZE, np.float32)
    deal = state.deal
    money = state.money
    for seat in (0, 1):
        for c in deal.hands[seat]:
            s[L["hands"] + seat * C + c] = 1.0
        for c in deal.piles[seat]:
            s[L["piles"] + seat * C + c] = 1.0
        s[L["scope"] + seat] = min(deal.scope[seat] / 18, 1.0)
        s[L["cards"] + seat] = len(deal.piles[seat]) / C
        s[L["money"] + seat] = sum(1 for c in deal.piles[seat] if SUIT[c] == money) / 10
    for c in deal.table:
        s[L["table"] + c] = 1.0
    for k, c in enumerate(deal.initial_stock[deal.stock_pos:]):
        s[L["stock"] + c] = 1.0 - k / STOCK_SIZE
    for seat, c, _ in deal.moves:
        s[L["played"] + seat * C + c] = 1.0
    if building is not None:
        card, taken, _ = building
        s[L["capture_card"] + card] = 1.0
        for t in taken:
            s[L["capture_taken"] + t] = 1.0
    t = totals_before_deal(state)
    s[L["totals"]] = min(t[0] / TARGET, 1.0)
    s[L["totals"] + 1] = min(t[1] / TARGET, 1.0)
    s[L["dealer"] + deal.dealer] = 1.0
    if not state.done:
        s[L["current"] + state.current] = 1.0
    s[L["stock_size"]] = deal.stock_size / STOCK_SIZE
    s[L["hand_sizes"]] = len(deal.hands[0]) / 3
    s[L["hand_sizes"] + 1] = len(deal.hands[1]) / 3
    lc = deal.last_capturer
    s[L["last_capturer"] + (2 if lc is None else lc)] = 1.0
    s[L["play"]] = deal.turn / NUM_PLAYS
    s[L["deck"]] = 1.0 if state.deck == "bresciane" else 0.0
    return s
