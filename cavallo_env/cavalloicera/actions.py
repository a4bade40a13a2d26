"""The Discrete(156) action space of docs/contract.md on top of the engine.

- ``0..51``    place card ``a`` (no capture)
- ``52..103``  capture with card ``a - 52`` (legal when it has a capture)
- ``104..155`` take table card ``a - 104`` into the capture being built

After "capture with c" the same seat picks the capture set one table card at a
time in increasing id.  As soon as exactly one legal set is consistent with the
cards taken so far, it is executed.  ``CavalloiceraActions`` holds the engine state plus
the capture being built; it is pure Python and shared by the PettingZoo env,
the training driver and anything else that speaks actions.
"""

from __future__ import annotations

from ..games.base import OnState
from ..games.captures import CaptureBuilder, capture_actions
from .cards import NAMES
from .engine import NUM_TURNS, CavalloiceraState

#: version of the action contract (docs/contract.md); ``cavallo_env.ACTION_CONTRACT_VERSION``
ACTION_VERSION = "cavalloicera-actions/1"
NUM_ACTIONS = 156
PLACE, CAPTURE, TAKE = 0, 52, 104
_PLACED = tuple((c, ()) for c in range(CAPTURE))  # the move a place action executes


def action_name(action: int) -> str:
    """Readable name of an action id, e.g. ``"capture with 7-coins"``."""
    if not isinstance(action, int) or isinstance(action, bool) or not 0 <= action < NUM_ACTIONS:
        return f"invalid action {action!r}"
    if action < CAPTURE:
        return f"place {NAMES[action]}"
    if action < TAKE:
        return f"capture with {NAMES[action - CAPTURE]}"
    return f"take {NAMES[action - TAKE]}"


def move_to_actions(state: CavalloiceraState, card: int, capture: tuple) -> list[int]:
    """The unique action sequence that plays ``(card, capture)`` from ``state``."""
    if not capture:
        return [PLACE + card]
    return capture_actions(card, capture, state.capture_sets(card), CAPTURE, TAKE)


class CavalloiceraActions(CaptureBuilder, OnState):
    """A ``CavalloiceraState`` driven through action ids, with the capture being built.

    ``building`` is None between turns, else ``(card, taken, sets)``: the card
    being captured with, the table cards taken so far (increasing ids) and the
    legal capture sets still consistent with them.
    """

    __slots__ = ()

    def captures_by_card(self) -> dict:
        """``{card: [capture sets]}`` for the hand cards that can capture this turn."""
        return {c: list(sets) for c, sets in self.state.captures().items()}

    def legal_actions(self) -> list[int]:
        """Legal action ids of the seat to act, increasing; cached per decision."""
        legal = self._legal
        if legal is not None:
            return legal
        st = self.state
        if st.turn >= NUM_TURNS:
            legal = []
        elif self.building is None:
            legal = st.hands[st.current][:]
            legal.extend([CAPTURE + c for c in st.captures()])  # captures() is in hand order
        else:
            legal = self._take_actions(TAKE)
        self._legal = legal
        return legal

    def legal_mask(self) -> bytes:
        """The legal actions as 156 bytes (1 = legal); cached per decision.

        The same actions as ``legal_actions()``, built without the list (the
        PettingZoo env's action mask).
        """
        mask = self._mask
        if mask is not None:
            return mask
        buf = bytearray(NUM_ACTIONS)
        st = self.state
        if self.building is None and st.turn < NUM_TURNS:
            for c in st.hands[st.current]:
                buf[c] = 1
            for c in st.captures():
                buf[CAPTURE + c] = 1
        return self._keep_mask(buf, TAKE)

    def step(self, action: int):
        """Apply a legal action (trusted; check ``legal_actions`` for untrusted input).

        Returns the executed ``(card, capture)`` move when this action completed
        a turn, else None (the same seat chooses again).
        """
        self._legal = None
        self._mask = None
        if action < CAPTURE:  # place: building is None between turns
            self.state.play(action, ())
            return _PLACED[action]
        if action < TAKE:
            card = action - CAPTURE
            return self._build(card, (), self.state.captures()[card])
        return self._take(action - TAKE)

    def _execute(self, card: int, capture: tuple):
        self.building = None
        self.state.play(card, capture)
        return card, capture
