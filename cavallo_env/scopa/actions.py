"""Scopa's ``Discrete(120)`` action space (docs/contract.md, "Scopa", built like Cavalloìcera's).

- ``0..39``    place card ``a`` (legal only when that card has no capture)
- ``40..79``   capture with card ``a - 40`` (legal only when it has a capture)
- ``80..119``  take table card ``a - 80`` into the capture being built

After "capture with c" the same seat picks the capture set one table card at a
time in increasing id; a take is legal when some legal capture set of c holds
the cards taken so far plus this one, with this one the smallest of the rest.
As soon as exactly one legal set is consistent with the cards taken so far it
is executed (a card with a single capture set captures at once).  So every
legal ``(card, capture set)`` is reached by exactly one action sequence and
nothing illegal is reachable.  ``ScopaActions`` is pure Python.
"""

from __future__ import annotations

from ..games.captures import CaptureBuilder, capture_actions
from .cards import NAMES
from .engine import ScopaState

NUM_ACTIONS = 120
PLACE, CAPTURE, TAKE = 0, 40, 80
ACTION_VERSION = "scopa-actions/1"
_PLACED = tuple((c, ()) for c in range(CAPTURE))


def action_name(action, deck: str = "milanesi") -> str:
    """Readable name of an action id, e.g. ``"capture with 7-diamonds"``."""
    if action.__class__ is not int or not 0 <= action < NUM_ACTIONS:
        try:
            action = int(action)
        except Exception:  # noqa: BLE001
            return "invalid action"
        if not 0 <= action < NUM_ACTIONS:
            return f"invalid action {action}"
    names = NAMES[deck]
    if action < CAPTURE:
        return f"place {names[action]}"
    if action < TAKE:
        return f"capture with {names[action - CAPTURE]}"
    return f"take {names[action - TAKE]}"


def move_to_actions(state: ScopaState, move) -> list[int]:
    """The unique action sequence that plays ``move = (card, capture)`` from ``state``."""
    card, capture = move
    if not capture:
        return [PLACE + card]
    return capture_actions(card, capture, state.captures().get(card, ()), CAPTURE, TAKE)


class ScopaActions(CaptureBuilder):
    """A ``ScopaState`` driven through action ids, with the capture being built.

    ``current``/``done`` mirror the state; ``building`` is None between turns,
    else ``(card, taken, sets)``: the capturing card, the table cards taken so
    far (increasing ids) and the legal sets still consistent with them.
    ``last_points`` is the deal's points when the last completed move ended a
    deal, else None.
    """

    __slots__ = ("current", "done", "last_points")

    def __init__(self, state: ScopaState):
        super().__init__(state)
        self.current = state.current
        self.done = state.done
        self.last_points = None

    def copy(self) -> "ScopaActions":
        g = super().copy()
        g.current = self.current
        g.done = self.done
        g.last_points = self.last_points
        return g

    def legal_actions(self) -> list[int]:
        """Legal action ids of the seat to act, increasing; cached per decision."""
        legal = self._legal
        if legal is not None:
            return legal
        if self.done:
            legal = []
        elif self.building is None:
            deal = self.state.deal
            caps = deal.captures()
            legal = [c for c in deal.hands[deal.current] if c not in caps]
            legal.extend([CAPTURE + c for c in caps])  # captures() is in hand order
        else:
            legal = self._take_actions(TAKE)
        self._legal = legal
        return legal

    def legal_mask(self) -> bytes:
        """The legal actions as 120 bytes (1 = legal); cached per decision."""
        mask = self._mask
        if mask is not None:
            return mask
        buf = bytearray(NUM_ACTIONS)
        if self.building is None and not self.done:
            deal = self.state.deal
            caps = deal.captures()
            for c in deal.hands[deal.current]:
                if c in caps:
                    buf[CAPTURE + c] = 1
                else:
                    buf[c] = 1
        return self._keep_mask(buf, TAKE)

    def step(self, action: int):
        """Apply a legal action (trusted: check ``legal_mask`` for untrusted input).

        Returns the executed ``(card, capture)`` when the action completed a
        turn, else None (the same seat chooses again).
        """
        self._legal = None
        self._mask = None
        if action < CAPTURE:
            return self._execute(action, ())
        if action < TAKE:
            card = action - CAPTURE
            return self._build(card, (), self.state.deal.captures()[card])
        return self._take(action - TAKE)

    def _execute(self, card: int, capture: tuple):
        self.building = None
        st = self.state
        deal = st.deal
        deal.play(card, capture)  # == st.play(card, capture), inlined
        if deal.done:
            self.last_points = st._end_deal()
            self.current = st.current
            self.done = st.done
        else:
            self.last_points = None
            self.current = st.current = deal.current
        return (card, capture) if capture else _PLACED[card]
