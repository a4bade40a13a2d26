"""``POST /v1/move``: the in-game AI, stateless: the body is a view, the answer the bot's move."""

from __future__ import annotations

import json

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from pydantic import ValidationError

from ... import games
from ...games import checked_view
from ...tables import shown
from ..errors import validation_response
from ..schemas import VIEW_MODELS, AnyGameView, Move
from ..service import Service, Svc
from ..settings import API_VERSION

router = APIRouter()


def _game_field(data):
    """The ``"game"`` of a parsed body (the default game when absent or not an object)."""
    if isinstance(data, dict) and data.get("game") is not None:
        return data["game"] if isinstance(data["game"], str) else shown(data["game"])
    return games.DEFAULT_GAME


def _parsed_view(body: bytes, known_games):
    """``(view, None)`` for a body its game's schema accepts, else ``(None, the 422 answer)``."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        data = None
    game_name = _game_field(data)
    model = VIEW_MODELS.get(game_name, AnyGameView) if game_name in known_games else None
    if model is None:
        known = ", ".join(known_games)
        return None, JSONResponse({"detail": f"invalid view: unknown game {str(game_name)[:40]!r} in 'game'; "
                                             f"known games: {known}"}, status_code=422)
    try:  # types and sizes, with field-by-field messages
        if data is None or not isinstance(data, dict):
            model.model_validate_json(body)
        model.model_validate(data)
    except ValidationError as e:
        return None, validation_response(e.errors(include_url=False))
    if data.get("legal_moves") is None:
        data.pop("legal_moves", None)
    return data, None


async def _answer(svc: Service, data: dict) -> dict:
    """The bot's move for the view ``data``; a bot that does not check views gets a checked one with its legal moves."""
    if svc.validates:
        return await svc.runner.choose(data)
    game, state, legal, by_move = checked_view(data)
    deck = game.deck_of(data)
    if by_move is None:
        data["legal_moves"] = [game.move_to_dict(m, deck) for m in legal]
    answer = await svc.runner.choose(data)
    if by_move is not None:  # answer in the view's own spelling of the move
        answer = by_move.get(game.move_from_dict(answer, deck), answer)
    return answer


@router.post(
    f"/{API_VERSION}/move", response_model=Move, summary="The AI's move for a view",
    openapi_extra={"requestBody": {"required": True, "content": {"application/json": {
        "schema": {"$ref": "#/components/schemas/View"}}}}},
    responses={422: {"description": "the view is malformed or contradicts itself; `detail` says how",
                     "content": {"application/json": {"example": {"detail": "invalid view: hand: card 7-coins appears twice"}}}},
               503: {"description": "the bot took longer than the move time limit"}},
)
async def move(request: Request, svc: Svc):
    """The bot's move for the view in the body: one of the view's legal moves.

    The body is a view (schema `View`); `legal_moves` may be left out.
    """
    data, refusal = _parsed_view(await request.body(), svc.known_games)
    if refusal is not None:
        return refusal
    answer = await _answer(svc, data)
    return Response(json.dumps(answer, separators=(",", ":")), media_type="application/json")
