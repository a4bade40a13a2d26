"""``GET /v1/games``: the decks, their games, the AIs and the languages a table may have."""

from __future__ import annotations

from fastapi import APIRouter

from ...tables import catalog
from ..service import Svc
from ..settings import API_VERSION, LANGUAGES

router = APIRouter()


@router.get(f"/{API_VERSION}/games", summary="The decks, their games and the AIs a table may choose")
async def table_games(svc: Svc):
    return {"decks": catalog(), "ais": list(svc.table_bots), "languages": list(LANGUAGES)}
