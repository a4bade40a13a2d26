"""Cavalloìcera's ``greedy`` bot (its ``heuristic`` is in ``cavalloicera.heuristic``)."""

from __future__ import annotations

from ..bots.base import Bot
from ..errors import ViewError, require, unreadable
from .cards import card_id
from .engine import capture_points
from .values import CARD_VALUE


def immediate_points(move, table, prev_placed) -> float:
    """Bonuses a move scores now plus the award value of the cards it wins."""
    card, capture = move
    if not capture:
        return 0.0
    empty = len(capture) == len(table)
    return sum(capture_points(card, capture, empty, prev_placed)) + CARD_VALUE[card] + sum(CARD_VALUE[t] for t in capture)


def previous_placed(view) -> int | None:
    """The card the previous turn placed (the picada target), from the history."""
    hist = view["history"]
    if not hist or hist[-1]["capture"]:
        return None
    return card_id(hist[-1]["play"])


class GreedyBot(Bot):
    """The legal move worth most immediate points (bonuses + award value taken).

    Ties, and turns with no capture, are broken deterministically: a bigger
    capture first, then place the least valuable card, then lowest card id.
    """

    name = "greedy"
    game = "cavalloicera"

    def choose_move(self, view, legal):
        require(view, ("table", "history"))
        try:
            table = [card_id(n) for n in view["table"]]
            prev = previous_placed(view)
        except ViewError:
            raise
        except (KeyError, TypeError, IndexError, AttributeError, ValueError) as e:
            raise unreadable(e, "Cavalloìcera") from None

        def key(move):
            card, capture = move
            pts = immediate_points(move, table, prev)
            return (-pts, -len(capture), CARD_VALUE[card] if not capture else 0.0, card, capture)

        return min(legal, key=key)
