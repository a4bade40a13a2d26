"""The cards dealt to the table of a fishing game (Cavalloìcera, Scopa), from what a view shows.

A view shows the table now and the history ``(seat, card, capture)`` of the
deal: the table was dealt the cards on it now and those captured since, less
the cards the history placed on it.  ``dealt_table`` works them out and checks
them against the hand (the games' ``state_from_view``).
"""

from __future__ import annotations

from ..errors import ViewError


def dealt_table(moves: list[tuple], hand: list[int], table: list[int], names, size: int) -> set[int]:
    """The ``size`` cards dealt to the table; ``ViewError`` if the hand, the table and the history disagree."""
    played = {c for _, c, _ in moves}
    if played & set(hand):
        raise ViewError(f"the hand holds {names[min(played & set(hand))]}, which the history says was already played")
    placed = {c for _, c, cap in moves if not cap}
    captured = {t for _, _, cap in moves for t in cap}
    dealt = (set(table) | captured) - placed
    if len(dealt) != size:
        raise ViewError(f"the table and the history imply {len(dealt)} cards were dealt to the table, not {size}")
    if dealt & set(hand):
        raise ViewError(f"{names[min(dealt & set(hand))]} is both in the hand and on the table (now or before)")
    if dealt & played:
        raise ViewError(f"{names[min(dealt & played)]} was dealt to the table, yet the history plays it from a hand")
    return dealt
