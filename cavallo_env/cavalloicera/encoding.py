"""Observation and state encoders (numpy), kept apart from the rules and the env.

``Features`` keeps one game's *full-information* vector in absolute seats,
updated in place after every move (a handful of writes).  ``state()`` is that
vector.  A seat's observation is a fixed gather from it (``np.take`` with a
precomputed index per seat) that re-orders seats and teams relative to the
observer and picks only the observer's own hand and unseen-card set, so it
holds nothing hidden by construction.  ``encode_observation`` builds the same
thing from scratch for a ``CavalloiceraState`` (used by the in-game AI from a view).

Observation layout ``cavalloicera-obs/1`` (float32, 702 values), in order;
seats are relative to the observer: 0 self, 1 next, 2 partner, 3 previous;
"ours"/"theirs" are teams.  Card blocks are indexed by card id (0..51).

======================  ====  ==================================================
block                   size  meaning
======================  ====  ==================================================
hand                      52  my hand
table                     52  cards on the table
pile_ours                 52  cards in our team's pile
pile_theirs               52  cards in their team's pile
played_by[rel seat]    4x52  cards each seat has played (self, next, partner, prev)
play_time                 52  for a played card: (turn it was played + 1) / 48
unseen                    52  cards I have not seen (in the other hands)
prev_placed               52  the card the previous turn placed (picada target)
capture_card              52  the card I am capturing with (while building)
capture_taken             52  table cards taken so far (while building)
hand_sizes[rel seat]       4  cards in hand / 12
last_capturer              5  rel seat of the last capture, or "none" (index 4)
bonuses_ours               4  scua, picada, simili, quadriglia so far / 10
bonuses_theirs             4  the same for their team
cards_ours_theirs          2  pile sizes / 52
swords_ours_theirs         2  swords in piles / 13
turn                       1  turns played / 48
dealer[rel seat]           4  who dealt
======================  ====  ==================================================

``state()`` layout ``cavalloicera-state/1`` (float32, 1018 values, absolute
seats and teams): hands[4x52], table, piles[2x52], played_by[4x52], play_time,
unseen[4x52] (per seat), prev_placed, capture_card, capture_taken,
hand_sizes[4], last_capturer[5], bonuses[2x4], cards[2], swords[2], turn,
dealer[4], current seat[4].
"""

from __future__ import annotations

import numpy as np

from ..games.base import block_layout
from .cards import NUM_CARDS, SUIT, SWORDS
from .engine import HAND_SIZE, NUM_TURNS, CavalloiceraState

OBS_VERSION = "cavalloicera-obs/1"
STATE_VERSION = "cavalloicera-state/1"

C = NUM_CARDS
# ---- absolute (state) layout: name -> (offset, size)
_STATE_BLOCKS = [
    ("hands", 4 * C), ("table", C), ("piles", 2 * C), ("played_by", 4 * C), ("play_time", C),
    ("unseen", 4 * C), ("prev_placed", C), ("capture_card", C), ("capture_taken", C),
    ("hand_sizes", 4), ("last_capturer", 5), ("bonuses", 8), ("cards", 2), ("swords", 2),
    ("turn", 1), ("dealer", 4), ("current", 4),
]
STATE_LAYOUT, STATE_SIZE = block_layout(_STATE_BLOCKS)

_S = {k: v[0] for k, v in STATE_LAYOUT.items()}
HANDS, TABLE, PILES, PLAYED, PTIME, UNSEEN = _S["hands"], _S["table"], _S["piles"], _S["played_by"], _S["play_time"], _S["unseen"]
PREV, CCARD, CTAKEN = _S["prev_placed"], _S["capture_card"], _S["capture_taken"]
TAIL = _S["hand_sizes"]  # hand_sizes .. current: the small per-deal counters
TAIL_END = STATE_SIZE
BUILD_START, BUILD_END = CCARD, CTAKEN + C
HAND_SIZES, LAST_CAPTURER, BONUS, CARDS, SWORD_COUNT = (
    _S["hand_sizes"], _S["last_capturer"], _S["bonuses"], _S["cards"], _S["swords"])
TURN, CURRENT = _S["turn"], _S["current"]
# per seat: its hand and played blocks, and the unseen blocks of the other seats
_SEAT_BASES = tuple((HANDS + seat * C, PLAYED + seat * C) + tuple(UNSEEN + o * C for o in range(4) if o != seat)
                    for seat in range(4))
_ONE_HOT_5 = np.eye(5, dtype=np.float32)

# ---- observation layout, as gathers from the state vector
OBS_BLOCKS = [
    ("hand", C), ("table", C), ("pile_ours", C), ("pile_theirs", C), ("played_by", 4 * C),
    ("play_time", C), ("unseen", C), ("prev_placed", C), ("capture_card", C), ("capture_taken", C),
    ("hand_sizes", 4), ("last_capturer", 5), ("bonuses_ours", 4), ("bonuses_theirs", 4),
    ("cards_ours_theirs", 2), ("swords_ours_theirs", 2), ("turn", 1), ("dealer", 4),
]
OBS_LAYOUT, OBS_SIZE = block_layout(OBS_BLOCKS)
OBS_BUILD = slice(OBS_LAYOUT["capture_card"][0], OBS_LAYOUT["capture_taken"][0] + C)


def _obs_index(seat: int) -> np.ndarray:
    team, other = seat & 1, 1 - (seat & 1)
    rel = [(seat + k) % 4 for k in range(4)]
    r = lambda start, n: list(range(start, start + n))  # noqa: E731
    idx = []
    idx += r(HANDS + seat * C, C)
    idx += r(TABLE, C)
    idx += r(PILES + team * C, C) + r(PILES + other * C, C)
    for s in rel:
        idx += r(PLAYED + s * C, C)
    idx += r(PTIME, C)
    idx += r(UNSEEN + seat * C, C)
    idx += r(PREV, C) + r(CCARD, C) + r(CTAKEN, C)
    idx += [_S["hand_sizes"] + s for s in rel]
    idx += [_S["last_capturer"] + s for s in rel] + [_S["last_capturer"] + 4]
    idx += r(_S["bonuses"] + 4 * team, 4) + r(_S["bonuses"] + 4 * other, 4)
    idx += [_S["cards"] + team, _S["cards"] + other, _S["swords"] + team, _S["swords"] + other]
    idx += [_S["turn"]]
    idx += [_S["dealer"] + s for s in rel]
    assert len(idx) == OBS_SIZE
    return np.asarray(idx, dtype=np.intp)


#: per seat, the state indices that make its observation
OBS_INDEX = np.stack([_obs_index(s) for s in range(4)])
_OBS_ROWS = tuple(OBS_INDEX[s] for s in range(4))  # the rows as ready-made arrays
_BUILD_ZEROS = memoryview(np.zeros(BUILD_END - BUILD_START, np.float32))
_ONE_HOT_5_MV = tuple(memoryview(row) for row in _ONE_HOT_5)


def _writer(buf: np.ndarray):
    # Item writes through a memoryview cost half of NumPy's __setitem__.
    if buf.dtype == np.float32 and buf.ndim == 1 and buf.flags.c_contiguous and buf.flags.writeable:
        return memoryview(buf)
    return buf


def _restore_features(s, swords, prev, built) -> "Features":
    f = Features(s)
    f._swords, f._prev, f._built = list(swords), prev, built
    return f


class Features:
    """The full-information vector of one game, updated in place move by move.

    ``buf`` may be a row of a larger array (batched training keeps many games
    in one matrix).  Call ``reset(state)`` at the start of a deal, then
    ``after_move(state)`` after every ``state.play`` and ``set_building`` when
    the capture being built changes.
    """

    __slots__ = ("s", "_w", "_swords", "_prev", "_built")

    def __init__(self, buf: np.ndarray | None = None):
        self.s = np.zeros(STATE_SIZE, np.float32) if buf is None else buf
        self._w = _writer(self.s)  # s, or a memoryview of it, for single writes
        self._swords = [0, 0]
        self._prev = None
        self._built = True  # the capture block may be non-zero (unknown buffer)

    def __reduce__(self):
        return _restore_features, (self.s, self._swords, self._prev, self._built)

    def reset(self, state: CavalloiceraState) -> None:
        """Rebuild from scratch (any point of a deal)."""
        s = self.s
        s.fill(0.0)
        self._built = False
        ones = []  # indices set to 1, written in one go
        for seat, h in enumerate(state.hands):
            base = HANDS + seat * C
            ones += [base + c for c in h]
        ones += [TABLE + c for c in state.table]
        for t, pile in enumerate(state.piles):
            base = PILES + t * C
            ones += [base + c for c in pile]
        for i, (seat, c, _) in enumerate(state.moves):
            ones.append(PLAYED + seat * C + c)
            s[PTIME + c] = (i + 1) / NUM_TURNS
        self._prev = state.prev_placed
        if self._prev is not None:
            ones.append(PREV + self._prev)
        s.put(ones, 1.0)
        # unseen by a seat: the dealt cards neither on the initial table, nor
        # played, nor in its own hand, i.e. the cards in the other hands now
        hands = s[HANDS:HANDS + 4 * C].reshape(4, C)
        s[UNSEEN:UNSEEN + 4 * C] = (hands.sum(axis=0) - hands).ravel()
        self._swords = [sum(1 for c in p if SUIT[c] == SWORDS) for p in state.piles]
        self._write_tail(state)

    def after_move(self, state: CavalloiceraState) -> None:
        """Update for the move just played (``state.moves[-1]``)."""
        s = self._w
        seat, card, capture = state.moves[-1]
        hand, played, u1, u2, u3 = _SEAT_BASES[seat]
        s[hand + card] = 0.0
        s[played + card] = 1.0
        s[u1 + card] = 0.0  # now seen by the three other seats
        s[u2 + card] = 0.0
        s[u3 + card] = 0.0
        turn = state.turn
        s[PTIME + card] = turn / NUM_TURNS
        if self._prev is not None:
            s[PREV + self._prev] = 0.0
        if self._built:
            s[BUILD_START:BUILD_END] = _BUILD_ZEROS
            self._built = False
        if turn >= NUM_TURNS:  # end of deal: leftovers may move to a pile; rewrite all
            if capture:
                self._capture(state, seat, card, capture)
            else:
                s[TABLE + card] = 1.0
                s[PREV + card] = 1.0
                self._prev = card
            if state.last_capturer is not None:
                self._sync_end(state)
            self._write_tail(state)
            return
        if capture:
            team = self._capture(state, seat, card, capture)
            s[LAST_CAPTURER:LAST_CAPTURER + 5] = _ONE_HOT_5_MV[seat]
            b = state.bonuses[team]
            o = BONUS + 4 * team
            s[o] = b[0] / 10
            s[o + 1] = b[1] / 10
            s[o + 2] = b[2] / 10
            s[o + 3] = b[3] / 10
            s[CARDS + team] = len(state.piles[team]) / C
            s[SWORD_COUNT + team] = self._swords[team] / 13
        else:
            s[TABLE + card] = 1.0
            s[PREV + card] = 1.0
            self._prev = card
        s[HAND_SIZES + seat] = len(state.hands[seat]) / HAND_SIZE
        s[TURN] = turn / NUM_TURNS
        s[CURRENT + seat] = 0.0
        s[CURRENT + state.current] = 1.0

    def _capture(self, state: CavalloiceraState, seat: int, card: int, capture) -> int:
        s = self._w
        team = seat & 1
        base = PILES + team * C
        s[base + card] = 1.0
        sw = 1 if SUIT[card] == SWORDS else 0
        for t in capture:
            s[TABLE + t] = 0.0
            s[base + t] = 1.0
            if SUIT[t] == SWORDS:
                sw += 1
        self._swords[team] += sw
        self._prev = None
        return team

    def _sync_end(self, state: CavalloiceraState) -> None:
        # End of deal: the leftovers went to the last capturer's pile (no bonus).
        s = self.s
        s[TABLE:TABLE + C] = 0.0
        for c in state.table:
            s[TABLE + c] = 1.0
        for t, pile in enumerate(state.piles):
            for c in pile:
                s[PILES + t * C + c] = 1.0
        self._swords = [sum(1 for c in p if SUIT[c] == SWORDS) for p in state.piles]

    def _write_tail(self, state: CavalloiceraState) -> None:
        hands = state.hands
        lc = state.last_capturer
        b0, b1 = state.bonuses
        cur = state.current
        d = state.dealer
        self.s[TAIL:TAIL_END] = [
            len(hands[0]) / HAND_SIZE, len(hands[1]) / HAND_SIZE, len(hands[2]) / HAND_SIZE, len(hands[3]) / HAND_SIZE,
            lc == 0, lc == 1, lc == 2, lc == 3, lc is None,
            b0[0] / 10, b0[1] / 10, b0[2] / 10, b0[3] / 10, b1[0] / 10, b1[1] / 10, b1[2] / 10, b1[3] / 10,
            len(state.piles[0]) / C, len(state.piles[1]) / C, self._swords[0] / 13, self._swords[1] / 13,
            state.turn / NUM_TURNS,
            d == 0, d == 1, d == 2, d == 3,
            cur == 0 and not state.done, cur == 1 and not state.done, cur == 2 and not state.done, cur == 3 and not state.done,
        ]

    def set_building(self, building) -> None:
        """Mirror the capture being built (``CavalloiceraActions.building``)."""
        s = self._w
        if self._built:
            s[BUILD_START:BUILD_END] = _BUILD_ZEROS
        if building is not None:
            card, taken, _ = building
            s[CCARD + card] = 1.0
            for t in taken:
                s[CTAKEN + t] = 1.0
            self._built = True
        else:
            self._built = False

    def observation(self, seat: int, acting: bool = True) -> np.ndarray:
        """A new float32 array: the observation of ``seat``.

        ``acting=False`` blanks the capture being built (it belongs to the seat
        that is choosing).
        """
        obs = self.s.take(_OBS_ROWS[seat])
        if not acting and self._built:
            obs[OBS_BUILD] = 0.0
        return obs

    def state(self) -> np.ndarray:
        return self.s.copy()


def encode_observation(state: CavalloiceraState, seat: int, building=None) -> np.ndarray:
    """The observation of ``seat`` computed from scratch (same as the env's)."""
    f = Features()
    f.reset(state)
    f.set_building(building)
    return f.observation(seat, acting=(building is None or seat == state.current))
