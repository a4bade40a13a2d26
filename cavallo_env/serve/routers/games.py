"""``GET /v1/games``: the decks, their games, the AIs and the languages a table may have."""

from __future__ import annotations

from fastapi import APIRouter

from ...tables import catalog
from ..service import Svc
from ..settings import API_VERSION, LANGUAGES

router = APIRouter()


@router.get(f"/{API_VERSION}/games", summary="The decks, their games and the AIs a table may choose")
async def table_games(svc: Svc):
    """``ais``: every table AI, the default first; ``levels``: those that are a shipped level ("strong", "fast"),
    by name; each game of ``decks``: ``ais``, the AIs that play it, its default first."""
    decks = catalog()
    for deck in decks:
        for entry in deck["games"]:
            entry["ais"] = list(svc.game_ais.get(entry["game"], ()))
    return {"decks": decks, "ais": list(svc.table_bots), "levels": svc.levels, "languages": list(LANGUAGES)}
