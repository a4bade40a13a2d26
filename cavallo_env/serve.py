"""``cavallo serve``: the in-game AI over HTTP (FastAPI), for a game to call.

- ``POST /v1/move``: the body is a view (docs/contract.md, "Bots and the in-game
  AI"); the answer is the chosen move, ``{"play": "7-coins", "capture":
  ["3-coins", "4-cups"]}``, one of the view's ``legal_moves`` (which may be
  left out: the server then plays from the rules' legal moves).
- ``GET /v1/health``: status, the bot, the model's versions and provenance.
- ``/docs`` (Swagger UI), ``/redoc`` and ``/openapi.json``.

Every view is checked before the bot sees it: JSON that does not parse, a
field of the wrong type, an unknown or duplicated card, a hand or table that
contradicts the history, ``legal_moves`` that are not the legal moves of the
position (an empty list included) all get **422** with ``{"detail": "<what is
wrong>"}`` (plus ``"errors"``, the field-by-field list, for schema errors).
The body is read as JSON whatever its Content-Type (game engines' HTTP
clients often label a posted string text/plain or form-encoded).  The bot
(``policy:default`` unless told otherwise) is built once, when the app is
created, and shared by all requests of the process.
"""

from __future__ import annotations

import json
import os
import socket
import time
from typing import Annotated, Optional

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

try:  # the faster parser, when installed
    import httptools  # noqa: F401
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as _BaseHTTP
except ImportError:
    from uvicorn.protocols.http.h11_impl import H11Protocol as _BaseHTTP

from . import ACTION_CONTRACT_VERSION, __version__
from .cavalloicera.encoding import OBS_VERSION
from . import games
from .views import ViewError

API_VERSION = "v1"
ENV_BOT = "CAVALLO_SERVE_BOT"
ENV_SEED = "CAVALLO_SERVE_SEED"

Seat = Annotated[StrictInt, Field(ge=0, le=3)]
Card = Annotated[StrictStr, Field(max_length=16, examples=["7-coins"])]


class Move(BaseModel):
    """A move by card names: the card played and the table cards it takes (empty = place only)."""

    model_config = ConfigDict(json_schema_extra={"example": {"play": "7-coins", "capture": ["3-coins", "4-cups"]}})

    play: Card
    capture: list[Card] = Field(max_length=12)


class HistoryMove(Move):
    """A move of the deal so far, with the seat that made it."""

    model_config = ConfigDict(json_schema_extra={"example": {"seat": 1, "play": "R-cups", "capture": []}})

    seat: Seat


_EXAMPLE_VIEW = {
    "seat": 2, "dealer": 0,
    "hand": ["2-coins", "6-coins", "9-coins", "10-coins", "5-cups", "8-cups", "C-cups", "3-swords", "4-swords",
             "F-swords", "2-clubs"],
    "table": ["A-coins", "6-swords", "C-swords", "R-clubs"],
    "hand_sizes": [12, 11, 11, 12],
    "piles": [[], ["7-clubs", "7-cups"]],
    "history": [{"seat": 1, "play": "7-clubs", "capture": ["7-cups"]}],
    "legal_moves": [
        {"play": "2-coins", "capture": []}, {"play": "6-coins", "capture": []},
        {"play": "6-coins", "capture": ["6-swords"]}, {"play": "9-coins", "capture": []},
        {"play": "10-coins", "capture": []}, {"play": "5-cups", "capture": []}, {"play": "8-cups", "capture": []},
        {"play": "C-cups", "capture": []}, {"play": "C-cups", "capture": ["C-swords"]},
        {"play": "3-swords", "capture": []}, {"play": "4-swords", "capture": []}, {"play": "F-swords", "capture": []},
        {"play": "2-clubs", "capture": []},
    ],
}


class View(BaseModel):
    """What the seat to play sees (docs/contract.md); fields beyond these are ignored."""

    model_config = ConfigDict(extra="ignore", json_schema_extra={"example": _EXAMPLE_VIEW})

    seat: Seat = Field(description="the seat to play (0..3); teams are seats 0+2 and 1+3")
    dealer: Seat = Field(description="the dealer of the deal; seat dealer+1 played first")
    hand: list[Card] = Field(max_length=12, description="the seat's own cards")
    table: list[Card] = Field(max_length=52, description="the cards face up on the table")
    hand_sizes: Optional[list[StrictInt]] = Field(None, min_length=4, max_length=4, description="cards in each seat's hand (checked when given)")
    piles: Optional[list[list[Card]]] = Field(None, min_length=2, max_length=2, description="each team's captured cards (checked when given)")
    history: list[HistoryMove] = Field(max_length=48, description="every move of the deal so far, in order")
    legal_moves: Optional[list[Move]] = Field(None, max_length=4096, description="the seat's legal moves; computed from the rules when left out")


class CavalloiceraView(View):
    """A Cavalloìcera view that names its game (``"game"`` may be left out: a version 1 view)."""

    game: Optional[str] = Field(None, description="'cavalloicera' (may be left out)")


class PlayOnly(BaseModel):
    """A Briscola move: the card played."""

    play: Card


class BriscolaHistoryMove(PlayOnly):
    seat: Annotated[StrictInt, Field(ge=0, le=1)]


_DECK = Field(description="'milanesi' or 'bresciane'")
Seat2 = Annotated[StrictInt, Field(ge=0, le=1)]


class BriscolaView(BaseModel):
    """What the Briscola seat to play sees (docs/contract.md, "Briscola")."""

    model_config = ConfigDict(extra="ignore")

    game: StrictStr = Field(description="'briscola'")
    deck: StrictStr = _DECK
    seat: Seat2
    leader: Seat2 = Field(description="the seat that leads the current trick")
    hand: list[Card] = Field(max_length=3)
    trump: Card = Field(description="the face-up card: its suit is trump")
    stock_size: Annotated[StrictInt, Field(ge=0, le=33)]
    hand_sizes: Optional[list[StrictInt]] = Field(None, min_length=2, max_length=2)
    trick: list[Card] = Field(max_length=1, description="the card already played to this trick, if any")
    piles: Optional[list[list[Card]]] = Field(None, min_length=2, max_length=2)
    points: Optional[list[StrictInt]] = Field(None, min_length=2, max_length=2)
    history: list[BriscolaHistoryMove] = Field(max_length=40)
    legal_moves: Optional[list[PlayOnly]] = Field(None, max_length=3)


class ScopaView(BaseModel):
    """What the Scopa seat to play sees (docs/contract.md, "Scopa")."""

    model_config = ConfigDict(extra="ignore")

    game: StrictStr = Field(description="'scopa'")
    deck: StrictStr = _DECK
    seat: Seat2
    dealer: Seat2
    hand: list[Card] = Field(max_length=3)
    table: list[Card] = Field(max_length=40)
    stock_size: Annotated[StrictInt, Field(ge=0, le=30)]
    hand_sizes: Optional[list[StrictInt]] = Field(None, min_length=2, max_length=2)
    piles: Optional[list[list[Card]]] = Field(None, min_length=2, max_length=2)
    scope: Optional[list[StrictInt]] = Field(None, min_length=2, max_length=2)
    totals: Optional[list[Annotated[StrictInt, Field(ge=0, le=10_000)]]] = Field(None, min_length=2, max_length=2)
    history: list[Annotated[HistoryMove, Field()]] = Field(max_length=36)
    legal_moves: Optional[list[Move]] = Field(None, max_length=4096)


class AnyGameView(BaseModel):
    """The view of a game with no schema here: its rules check it (``state_from_view``)."""

    model_config = ConfigDict(extra="allow")

    game: StrictStr


#: the schema of each game's view (the view's "game" picks it; none = Cavalloìcera);
#: a registered game without one is checked by its own rules alone
VIEW_MODELS = {"cavalloicera": View, "briscola": BriscolaView, "scopa": ScopaView}


class Health(BaseModel):
    status: str
    bot: str
    obs_version: str
    action_version: str
    cavallo_env: str
    model: Optional[dict] = None
    pid: int
    uptime_s: float


def _error_text(err: dict) -> str:
    loc = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
    if err.get("type") == "json_invalid":
        ctx = err.get("ctx") or {}
        return f"the body is not valid JSON: {ctx.get('error', err.get('msg'))}"
    if loc == "" and err.get("type") in ("missing", "model_attributes_type", "model_type"):
        return "the body must be a JSON object (a view) sent as Content-Type: application/json"
    return f"{loc or 'body'}: {err.get('msg')}"


def _validation_response(errors) -> JSONResponse:
    text = "; ".join(_error_text(e) for e in errors[:5])
    if len(errors) > 5:
        text += f"; and {len(errors) - 5} more"
    safe = []
    for e in errors[:50]:
        loc = list(e.get("loc", ()))
        if loc[:1] != ["body"]:
            loc.insert(0, "body")
        safe.append({"loc": loc, "msg": str(e.get("msg")), "type": str(e.get("type"))})
    return JSONResponse({"detail": f"invalid view: {text}", "errors": safe}, status_code=422)


def _game_field(data):
    """The ``"game"`` of a parsed body (``"cavalloicera"`` when absent or not an object)."""
    if isinstance(data, dict) and data.get("game") is not None:
        return data["game"] if isinstance(data["game"], str) else repr(data["game"])
    return "cavalloicera"


def _openapi(app: FastAPI) -> dict:
    """FastAPI's schema plus the ``View`` body schema (the route reads the raw body for speed)."""
    if app.openapi_schema is None:
        schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        for name, model in (("View", View), ("BriscolaView", BriscolaView), ("ScopaView", ScopaView)):
            view = model.model_json_schema(ref_template="#/components/schemas/{model}")
            components.update(view.pop("$defs", {}))
            components[name] = view
        app.openapi_schema = schema
    return app.openapi_schema


def create_app(bot_spec: str = "policy:default", seed=None) -> FastAPI:
    """The app with its bot built now (a bad spec or model fails here, not on a request)."""
    from .bots import make
    from .games import checked_view

    bot = make(bot_spec, seed=seed)
    known_games = games.names()
    validates = getattr(bot, "validates_views", False)
    info = bot.info if hasattr(bot, "info") else None
    started = time.time()

    app = FastAPI(
        title="Cavalloìcera in-game AI",
        version=__version__,
        description=(
            "Ask the AI for a move: POST the view of the seat to play (docs/contract.md) to `/v1/move`. "
            f"Bot: `{bot_spec}`. Observation layout `{OBS_VERSION}`, action contract `{ACTION_CONTRACT_VERSION}`. "
            "A malformed or inconsistent view gets 422 with a `detail` saying what is wrong."
        ),
    )
    app.state.bot = bot

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        return _validation_response(exc.errors())

    @app.exception_handler(ViewError)
    async def _inconsistent(request: Request, exc: ViewError):
        return JSONResponse({"detail": f"invalid view: {exc}"}, status_code=422)

    @app.get("/", include_in_schema=False)
    async def _root():
        return RedirectResponse("/docs")

    @app.get(f"/{API_VERSION}/health", response_model=Health, summary="Is the service up, and with which model")
    async def health():
        return {
            "status": "ok", "bot": getattr(bot, "name", bot_spec), "obs_version": OBS_VERSION,
            "action_version": ACTION_CONTRACT_VERSION, "cavallo_env": __version__, "model": info,
            "pid": os.getpid(), "uptime_s": round(time.time() - started, 3),
        }

    @app.post(
        f"/{API_VERSION}/move", response_model=Move, summary="The AI's move for a view",
        openapi_extra={"requestBody": {"required": True, "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/View"}}}}},
        responses={422: {"description": "the view is malformed or contradicts itself; `detail` says how",
                         "content": {"application/json": {"example": {"detail": "invalid view: hand: card 7-coins appears twice"}}}}},
    )
    async def move(request: Request):
        """The bot's move for the view in the body: one of the view's legal moves.

        The body is a view (schema `View`); `legal_moves` may be left out.
        """
        body = await request.body()
        try:
            data = json.loads(body)
        except (ValueError, RecursionError):
            data = None
        game_name = _game_field(data)
        model = VIEW_MODELS.get(game_name, AnyGameView) if game_name in known_games else None
        if model is None:
            known = ", ".join(known_games)
            return JSONResponse({"detail": f"invalid view: unknown game {str(game_name)[:40]!r} in 'game'; "
                                           f"known games: {known}"}, status_code=422)
        try:  # types and sizes, with field-by-field messages
            if data is None or not isinstance(data, dict):
                model.model_validate_json(body)
            model.model_validate(data)
        except ValidationError as e:
            return _validation_response(e.errors(include_url=False))
        if data.get("legal_moves") is None:
            data.pop("legal_moves", None)
        if validates:
            answer = bot.choose(data)
        else:
            # other bots trust their input: check the view here, and give them the legal moves
            game, state, legal, by_move = checked_view(data)
            deck = game.deck_of(data)
            if by_move is None:
                data["legal_moves"] = [game.move_to_dict(m, deck) for m in legal]
            answer = bot.choose(data)
            if by_move is not None:  # answer in the view's own spelling of the move
                answer = by_move.get(game.move_from_dict(answer, deck), answer)
        return Response(json.dumps(answer, separators=(",", ":")), media_type="application/json")

    app.openapi = lambda: _openapi(app)
    return app


class NoDelayHTTPProtocol(_BaseHTTP):
    """uvicorn's HTTP protocol (httptools when installed, else h11) with TCP_NODELAY on every connection.

    With ``--workers > 1`` uvicorn binds the listening socket itself with
    protocol number 0, and asyncio then skips TCP_NODELAY on the connections it
    accepts: a response written in two parts (head, body) then waits ~40 ms for
    the client's delayed ACK.  ``cavallo serve`` uses this class for ``http``.
    """

    def connection_made(self, transport):
        sock = transport.get_extra_info("socket")
        if sock is not None:
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:  # not TCP (a Unix socket)
                pass
        super().connection_made(transport)


def app_from_env() -> FastAPI:
    """App factory for ``uvicorn --factory`` (several workers): bot and seed from the environment."""
    seed = os.environ.get(ENV_SEED)
    return create_app(os.environ.get(ENV_BOT, "policy:default"), seed=int(seed) if seed else None)
