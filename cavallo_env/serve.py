"""``cavallo serve``: the in-game AI over HTTP (FastAPI), for a game to call, and the table in the browser.

- ``POST /v1/move``: the body is a view (docs/contract.md, "Bots and the in-game
  AI"); the answer is the chosen move, ``{"play": "7-coins", "capture":
  ["3-coins", "4-cups"]}``, one of the view's ``legal_moves`` (which may be
  left out: the server then plays from the rules' legal moves).
- ``GET /v1/health``: status, the bot, the model's versions and provenance.
- ``/``: the table, a web page where a person plays every game against the AI;
  its JSON API is ``/v1/games`` and ``/v1/tables/...`` (``cavallo_env.tables``
  holds the games; docs/table.md).
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

The service stays responsive: every bot move is computed in a worker thread,
off the event loop, under a time limit (``move_timeout``: past it ``/v1/move``
answers 503, and a table's AI plays the game's ``heuristic`` move instead);
request bodies are bounded (``max_body`` bytes, else 413 before the rest is
read); a bad request gets a 4xx saying what is wrong, never a 500.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from typing import Annotated, Optional

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

try:  # the faster parser, when installed
    import httptools  # noqa: F401
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as _BaseHTTP
except ImportError:
    from uvicorn.protocols.http.h11_impl import H11Protocol as _BaseHTTP

from . import ACTION_CONTRACT_VERSION, __version__
from .cavalloicera.encoding import OBS_VERSION
from . import budget, games
from .tables import TableError, TableStore, catalog
from .views import ViewError

API_VERSION = "v1"
ENV_BOT = "CAVALLO_SERVE_BOT"
ENV_SEED = "CAVALLO_SERVE_SEED"
ENV_OPTIONS = "CAVALLO_SERVE_OPTIONS"

#: the table's AI choices when none are given: the shipped models first (the default)
TABLE_AIS = ("policy:default", "heuristic", "greedy")
#: the page's languages (cavallo_env/web/i18n/<code>.json)
LANGUAGES = ("en", "nl", "fi", "ru")
WEB = resources.files("cavallo_env") / "web"

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
    obs_version: str  # the bot's game's (Cavalloìcera's for a bot of every game); ``games`` has each game's
    action_version: str
    games: dict = {}
    cavallo_env: str
    model: Optional[dict] = None
    uptime_s: float
    tables: int


def _public(info):
    """A bot's ``info`` without file paths (a health check need not tell where files live)."""
    if isinstance(info, dict):
        return {k: _public(v) for k, v in info.items() if k != "path"}
    if isinstance(info, list):
        return [_public(v) for v in info]
    if isinstance(info, str) and info.startswith("policy:"):
        return public_spec(info)
    return info


class BotTimeout(Exception):
    """A bot took longer than the move time limit (or too many moves wait for it)."""


class BotRunner:
    """A bot whose moves are computed on its own worker thread, off the event loop, under a time limit.

    Bots keep state (random streams, caches), so each bot has one thread and
    computes one move at a time; a slow bot delays only its own moves.  A
    move not started before its deadline is skipped, one past ``timeout``
    seconds raises ``BotTimeout`` (its answer, when it comes, is dropped), and
    more than ``max_waiting`` moves waiting raise ``BotTimeout`` at once.
    """

    def __init__(self, bot, timeout: float, name: str = "bot", max_waiting: int = 256):
        self.bot = bot
        self.timeout = timeout
        self.max_waiting = max_waiting
        self.waiting = 0
        self.executor = ThreadPoolExecutor(1, thread_name_prefix=f"cavallo-{name}")

    def _choose(self, view: dict, deadline: float) -> dict:
        left = deadline - time.monotonic()
        if left <= 0:  # its caller has given up: skip the work
            raise BotTimeout()
        try:  # the searches check the deadline: a late move is abandoned, not left running
            with budget.deadline(left):
                return self.bot.choose(view)
        except budget.OverBudget:
            raise BotTimeout() from None

    async def choose(self, view: dict) -> dict:
        if self.waiting >= self.max_waiting:
            raise BotTimeout()
        loop = asyncio.get_running_loop()
        self.waiting += 1
        try:
            job = loop.run_in_executor(self.executor, self._choose, view, time.monotonic() + self.timeout)
            return await asyncio.wait_for(job, self.timeout)
        except asyncio.TimeoutError:
            raise BotTimeout() from None
        finally:
            self.waiting -= 1


def public_spec(spec: str) -> str:
    """A bot spec as the world may see it: ``policy:<path>`` shows the file's name only."""
    if spec.startswith("policy:") and ("/" in spec or "\\" in spec):
        return "policy:" + spec.replace("\\", "/").rsplit("/", 1)[1]
    return spec


class BodyLimit:
    """ASGI middleware: a request body over ``limit`` bytes gets 413, having read at most ``limit`` bytes of it.

    The body (bounded) is read here and handed to the app in one piece.
    """

    def __init__(self, app, limit: int):
        self.app = app
        self.limit = limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    if int(value) > self.limit:
                        return await self._refuse(send)
                except ValueError:
                    pass
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client left
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                return await self._refuse(send)
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        sent = False

        async def replay():
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, send):
        body = json.dumps({"detail": f"the request body is over the limit of {self.limit} bytes"}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})


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


async def _json_object(request: Request, what: str) -> dict:
    """The request body as a JSON object (an empty body is ``{}``); ``TableError`` 400 otherwise."""
    body = await request.body()
    if not body.strip():
        return {}
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        raise TableError(f"{what}: the body is not valid JSON", 400, "bad_request") from None
    if not isinstance(data, dict):
        raise TableError(f"{what}: the body must be a JSON object", 400, "bad_request")
    return data


def create_app(bot_spec: str = "policy:default", seed=None, *, table_ais=None, max_tables: int = 200,
               table_ttl: float = 1800.0, move_timeout: float = 10.0, max_body: int = 1_000_000,
               tables: bool = True, table_seeds: bool = False) -> FastAPI:
    """The app with its bots built now (a bad spec or model fails here, not on a request).

    ``bot_spec`` answers ``/v1/move``; ``table_ais`` (default ``TABLE_AIS``,
    ``bot_spec`` first when it is not among them) are the AIs a table may
    choose, the first being the page's default.  ``max_tables`` tables at
    once, each dropped after ``table_ttl`` idle seconds; a bot move may take
    ``move_timeout`` seconds; a request body ``max_body`` bytes.  A table
    lives in one process: ``tables=False`` (several workers) refuses new
    tables with 503 saying so.  ``table_seeds`` lets a new table be asked
    for a seed (tests, benchmarks; off by default: a seed deals every card).
    """
    from .bots import make
    from .games import checked_view

    if not (isinstance(move_timeout, (int, float)) and 0 < move_timeout <= 3600):
        raise ValueError(f"move_timeout must be in (0, 3600] seconds, got {move_timeout!r}")
    if not (isinstance(max_body, int) and max_body >= 1024):
        raise ValueError(f"max_body must be an int >= 1024 bytes, got {max_body!r}")
    bot = make(bot_spec, seed=seed)
    refused = getattr(bot, "refused", None)
    if refused:  # the server answers views of every game: say so now, not on a valid view
        from .bots import BotSpecError

        raise BotSpecError(f"{bot_spec} cannot serve every game: {'; '.join(refused.values())}; "
                           "give options that every game's search takes")
    runner = BotRunner(bot, move_timeout)
    if table_ais is None:
        table_ais = ([bot_spec] if bot_spec not in TABLE_AIS else []) + list(TABLE_AIS)
    table_ais = list(dict.fromkeys(table_ais))
    table_bots = {spec: runner if spec == bot_spec else BotRunner(make(spec, seed=seed), move_timeout)
                  for spec in table_ais}
    # the page knows the AIs by their public names (no file paths)
    by_public = {public_spec(spec): spec for spec in table_ais}
    if len(by_public) != len(table_ais):
        raise ValueError(f"two table AIs show the same name: {', '.join(table_ais)}")
    # a table's AI past the time limit (or failing) plays the game's heuristic instead, on its own thread
    fallback = BotRunner(make("heuristic", seed=seed), move_timeout, name="fallback")
    store = TableStore(list(by_public), max_tables=max_tables, ttl=table_ttl, seeds=table_seeds)
    known_games = games.names()
    # the versions of the games the bot plays (a bot of one game, e.g. a policy:<file>, plays only its own);
    # the top-level pair is that game's, or Cavalloìcera's for a bot of every game (as in version 1)
    bot_game = getattr(bot, "game", None)
    versions = {}
    for name in known_games:
        if bot_game in (None, name):
            learning = games.get(name).learning()
            versions[name] = {"obs_version": learning.obs_version, "action_version": learning.action_version}
    top = versions.get(bot_game) or {"obs_version": OBS_VERSION, "action_version": ACTION_CONTRACT_VERSION}
    validates = getattr(bot, "validates_views", False)
    started = time.time()

    app = FastAPI(
        title="Cavalloìcera in-game AI",
        version=__version__,
        description=(
            "Ask the AI for a move: POST the view of the seat to play (docs/contract.md) to `/v1/move`. "
            f"Bot: `{public_spec(bot_spec)}`. Observation layout `{OBS_VERSION}`, action contract `{ACTION_CONTRACT_VERSION}`. "
            "A malformed or inconsistent view gets 422 with a `detail` saying what is wrong. "
            "The table (a person against the AI, in the browser) is at `/`; its API is `/v1/games` and `/v1/tables`."
        ),
    )
    app.state.bot = bot
    app.state.tables = store
    app.add_middleware(BodyLimit, limit=max_body)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        return _validation_response(exc.errors())

    @app.exception_handler(ViewError)
    async def _inconsistent(request: Request, exc: ViewError):
        return JSONResponse({"detail": f"invalid view: {exc}"}, status_code=422)

    @app.exception_handler(TableError)
    async def _refused(request: Request, exc: TableError):
        return JSONResponse({"detail": str(exc), "code": exc.code}, status_code=exc.status)

    @app.exception_handler(BotTimeout)
    async def _slow(request: Request, exc: BotTimeout):
        return JSONResponse({"detail": f"the bot took longer than the move time limit of {move_timeout:g} s"},
                            status_code=503)

    @app.get("/", include_in_schema=False)
    async def _root():
        return FileResponse(str(WEB / "index.html"), media_type="text/html; charset=utf-8")

    app.mount("/static", StaticFiles(directory=str(WEB)), name="static")

    @app.get(f"/{API_VERSION}/health", response_model=Health, summary="Is the service up, and with which model")
    async def health():
        info = bot.info if hasattr(bot, "info") else None
        return {
            "status": "ok", "bot": public_spec(getattr(bot, "name", bot_spec)), **top, "games": versions,
            "cavallo_env": __version__,
            "model": _public(info),
            "uptime_s": round(time.time() - started, 3), "tables": len(store),
        }

    @app.post(
        f"/{API_VERSION}/move", response_model=Move, summary="The AI's move for a view",
        openapi_extra={"requestBody": {"required": True, "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/View"}}}}},
        responses={422: {"description": "the view is malformed or contradicts itself; `detail` says how",
                         "content": {"application/json": {"example": {"detail": "invalid view: hand: card 7-coins appears twice"}}}},
                   503: {"description": "the bot took longer than the move time limit"}},
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
            answer = await runner.choose(data)
        else:
            # other bots trust their input: check the view here, and give them the legal moves
            game, state, legal, by_move = checked_view(data)
            deck = game.deck_of(data)
            if by_move is None:
                data["legal_moves"] = [game.move_to_dict(m, deck) for m in legal]
            answer = await runner.choose(data)
            if by_move is not None:  # answer in the view's own spelling of the move
                answer = by_move.get(game.move_from_dict(answer, deck), answer)
        return Response(json.dumps(answer, separators=(",", ":")), media_type="application/json")

    # -- the table ------------------------------------------------------------------
    @app.get(f"/{API_VERSION}/games", summary="The decks, their games and the AIs a table may choose")
    async def table_games():
        return {"decks": catalog(), "ais": list(by_public), "languages": list(LANGUAGES)}

    @app.post(f"/{API_VERSION}/tables", status_code=201, summary="Start a game: {game, deck, ai?, seed?}")
    async def new_table(request: Request):
        if not tables:
            raise TableError("tables need a single server process: start cavallo serve with --workers 1 "
                             "(the default) to play at the table", 503, "single_process")
        data = await _json_object(request, "a new table")
        unknown = sorted(set(data) - {"game", "deck", "ai", "seed"})
        if unknown:
            raise TableError(f"a new table: unknown field(s) {', '.join(map(repr, unknown))[:120]}; "
                             "known: game, deck, ai, seed")
        table = store.create(data.get("game"), data.get("deck"), data.get("ai"), data.get("seed"))
        with table.lock:
            return table.snapshot()

    @app.get(f"/{API_VERSION}/tables/{{table_id}}", summary="The table as seat 0 sees it")
    async def get_table(table_id: str):
        table = store.get(table_id)
        with table.lock:
            return table.snapshot()

    @app.delete(f"/{API_VERSION}/tables/{{table_id}}", status_code=204, summary="Leave the table")
    async def close_table(table_id: str):
        store.close(table_id)
        return Response(status_code=204)

    @app.post(f"/{API_VERSION}/tables/{{table_id}}/move", summary="Your move: {play, capture?, expect?}")
    async def table_move(table_id: str, request: Request):
        table = store.get(table_id)
        data = await _json_object(request, "a move")
        expect = data.pop("expect", None)
        if expect is not None and (isinstance(expect, bool) or not isinstance(expect, int)):
            raise TableError(f"'expect' must be the move count the page saw (an int), got {str(expect)[:40]}")
        if "capture" not in data:
            data["capture"] = []
        with table.lock:
            table.play_human(data, expect)
            return table.snapshot()

    async def ai_answer(table, moves: int, view: dict):
        """The table's AI's move (checked), or the heuristic's when the AI is too slow or fails."""
        by = table.ai
        try:
            move = table.ai_move(moves, await table_bots[by_public[table.ai]].choose(view))
            why = "answered an illegal move"
        except BotTimeout:
            move, why = None, f"passed the {move_timeout:g} s limit"
        except TableError:
            raise
        except Exception as e:  # a bot's fault is not the player's: the game goes on
            move, why = None, f"failed ({type(e).__name__})"
        if move is None:
            by = f"heuristic (the {table.ai} AI {why})"
            try:
                move = table.ai_move(moves, await fallback.choose(view))
            except BotTimeout:
                move = None
            if move is None:
                raise TableError("the AI could not move in time: try again", 503, "ai_failed")
        return move, by

    @app.post(f"/{API_VERSION}/tables/{{table_id}}/ai", summary="The AI plays one move")
    async def table_ai(table_id: str):
        table = store.get(table_id)
        with table.asking(table.ai_view) as (moves, view):
            move, by = await ai_answer(table, moves, view)
            with table.lock:  # the position is still the one the move was checked in: only the AI moves now
                table.play_ai(move, by)
                return table.snapshot()

    @app.get(f"/{API_VERSION}/tables/{{table_id}}/hint", summary="What the table's AI would play in your place")
    async def table_hint(table_id: str):
        table = store.get(table_id)
        with table.asking(lambda: (table.moves, table.hint_view())) as (moves, view):
            try:
                answer = await table_bots[by_public[table.ai]].choose(view)
            except BotTimeout:
                raise TableError("the AI could not answer in time: try again", 503, "ai_failed") from None
        return {"move": answer, "ai": table.ai, "moves": moves}

    @app.get(f"/{API_VERSION}/tables/{{table_id}}/record", summary="The game record, once the game is over")
    async def table_record(table_id: str):
        table = store.get(table_id)
        with table.lock:
            return table.record()

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
    """App factory for ``uvicorn --factory`` (several workers): bot, seed and options from the environment."""
    seed = os.environ.get(ENV_SEED)
    options = json.loads(os.environ.get(ENV_OPTIONS) or "{}")
    return create_app(os.environ.get(ENV_BOT, "policy:default"), seed=int(seed) if seed else None, **options)
