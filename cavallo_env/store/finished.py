"""``FinishedGame``: a finished game as the store reads it back (``Store.finished_games``) and as its result is
computed (``results.result_columns``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class FinishedGame:
    """One finished game at the table: who played it against which AI, and its record (docs/contract.md)."""

    table_id: str
    game: str  # "cavalloicera", "briscola", "scopa"
    deck: str  # "bresciane", "milanesi"
    ai: str  # the AI's public bot spec, e.g. "policy:default"
    human_seats: tuple  # the person's seats, e.g. (0,)
    player_id: str | None  # the browser's anonymous id, if it sent one
    player_name: str | None  # the display name, if given
    finished_at: datetime  # UTC
    record: dict  # the game record: ``cavallo replay`` replays it
