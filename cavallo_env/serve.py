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
A POST body must be JSON sent as ``Content-Type: application/json``
(``; charset=utf-8`` and other parameters allowed): any other Content-Type, or
a body with none, gets **415** (a browser posts text/plain and forms to any
site unasked; a JSON post it must ask about first, and this server says no).
A table request other than a GET that carries another site's ``Origin`` gets
**403**; one client holds at most ``tables_per_client`` tables (429 past it);
a request's headers and body must arrive within ``read_timeout`` seconds
(408).  An error message that quotes the request escapes what UTF-8 cannot
carry (a lone surrogate shows as ``\\ud800``).  The bot
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
import ipaddress
import json
import logging
import os
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from typing import Annotated, Optional
from urllib.parse import urlsplit

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
from .bots import BotSpecError, make
from .games import checked_view
from .tables import TableError, TableStore, catalog, shown
from .errors import ViewError

API_VERSION = "v1"
ENV_BOT = "CAVALLO_SERVE_BOT"
ENV_SEED = "CAVALLO_SERVE_SEED"
ENV_OPTIONS = "CAVALLO_SERVE_OPTIONS"
ENV_READ_TIMEOUT = "CAVALLO_SERVE_READ_TIMEOUT"
#: seconds a client has to send a request's headers, and then its body (``--read-timeout``)
READ_TIMEOUT = 10.0

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


#: the most legal moves a Cavalloìcera seat can have, bounded from above: 12 places, and four cards each of
#: values 10, 9 and 8 taking any of the deck's 1702, 1024 and 601 sets of numerals of that sum (a legal
#: position reached by play has 4,532: tests/fixtures/worst/cavalloicera.json)
CAVALLOICERA_MAX_LEGAL = 12 + 4 * (1702 + 1024 + 601)


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
    legal_moves: Optional[list[Move]] = Field(None, max_length=CAVALLOICERA_MAX_LEGAL,
                                              description="the seat's legal moves; computed from the rules when left out")


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


class Clients:
    """Who a request comes from: the key of the per-client table quota, and the scheme the client used.

    The key is the client's address (an IPv6 address by its /64, which one
    subscriber usually holds whole).  ``trusted`` names the reverse proxies
    (addresses or networks, or ``"*"`` for any peer) whose ``X-Forwarded-For``
    and ``X-Forwarded-Proto`` are believed: from them the client is the
    rightmost address of ``X-Forwarded-For`` that is not itself a trusted
    proxy (the one the proxy appended; what the client wrote to its left is not
    believed).  From any other peer those headers are ignored, so a client
    cannot choose its own key.  The key is an opaque string: a table token can
    take the address's place here without a change to ``TableStore``.
    """

    def __init__(self, trusted=()):
        if isinstance(trusted, str):
            trusted = [t for t in trusted.split(",") if t.strip()]
        self.any = False
        self.networks = []
        for item in trusted or ():
            item = str(item).strip()
            if item == "*":
                self.any = True
                continue
            try:
                self.networks.append(ipaddress.ip_network(item, strict=False))
            except ValueError:
                raise ValueError(f"trust_proxy: {item!r} is not an IP address or network (or '*')") from None
        self.warned = False

    @property
    def trusting(self) -> bool:
        return self.any or bool(self.networks)

    def _trusted(self, host) -> bool:
        if self.any:
            return True
        address = _ip(host)
        return address is not None and any(address in n for n in self.networks)

    @staticmethod
    def _header(scope, name: bytes) -> str | None:
        values = [v.decode("latin-1") for k, v in scope.get("headers", ()) if k == name]
        return ",".join(values) if values else None

    def _from_proxy(self, scope) -> bool:
        peer = (scope.get("client") or (None,))[0]
        return self.trusting and peer is not None and self._trusted(peer)

    def address(self, scope) -> str:
        """The client's address (``"-"`` when the connection has none, e.g. a Unix socket)."""
        peer = (scope.get("client") or (None,))[0]
        if self._from_proxy(scope):
            forwarded = self._header(scope, b"x-forwarded-for")
            if forwarded:
                for entry in reversed([e.strip() for e in forwarded.split(",")]):
                    if entry and not self._trusted(entry):
                        return entry
        elif not self.warned and self._header(scope, b"x-forwarded-for") is not None:
            self.warned = True
            logging.getLogger("uvicorn.error").warning(
                "a request came with X-Forwarded-For from %s, which is not a trusted proxy: the header is ignored "
                "and the client is that address (behind your own reverse proxy, start cavallo serve with "
                "--trust-proxy <its address>, else every visitor counts as one client)", shown(str(peer), 64))
        return "-" if peer is None else str(peer)

    def key(self, scope) -> str:
        """The client's key for the table quota: its address, an IPv6 one by its /64 network."""
        address = self.address(scope)
        ip = _ip(address)
        if ip is None:
            return shown(address, 64)
        if ip.version == 6:
            return str(ipaddress.ip_network(f"{ip}/64", strict=False))
        return str(ip)

    def scheme(self, scope) -> str:
        """``http`` or ``https`` as the client used it (a trusted proxy's ``X-Forwarded-Proto``)."""
        if self._from_proxy(scope):
            proto = (self._header(scope, b"x-forwarded-proto") or "").split(",")[0].strip().lower()
            if proto in ("http", "https"):
                return proto
        return scope.get("scheme", "http")


def _ip(text):
    """``text`` as an IP address (an IPv4-mapped IPv6 one as IPv4; ``[v6]`` and a port allowed), else None."""
    text = str(text).strip()
    if text.startswith("["):
        text = text[1:].split("]", 1)[0]
    elif text.count(":") == 1:  # IPv4 with a port
        text = text.split(":", 1)[0]
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return None
    if ip.version == 6 and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def _host_port(netloc: str, scheme: str):
    """``(host, port)`` of ``netloc`` (``host[:port]``), the scheme's port when none; None if malformed."""
    try:
        parts = urlsplit("//" + netloc)
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname:
        return None
    return parts.hostname.lower(), port or {"http": 80, "https": 443}.get(scheme)


def _json_media_type(value: bytes) -> bool:
    """Whether a Content-Type header says JSON: ``application/json``, with parameters or not."""
    return value.split(b";", 1)[0].strip().lower() == b"application/json"


class RequestGuard:
    """ASGI middleware: what every request must pass before the app sees it, cheapest first.

    1. A state-changing table request (``/v1/tables...`` by any method but
       GET and HEAD) that carries an ``Origin`` other than the page's own (the
       scheme, host and port the request came to, by its ``Host`` header) gets
       403: another site's page cannot play, open or close tables from a
       visitor's browser.
    2. A POST whose Content-Type is not ``application/json`` (parameters such
       as ``; charset=utf-8`` allowed) gets 415; so does one with a body and no
       Content-Type.  A browser sends such "simple" requests to any site without
       asking it first; a JSON one it must ask about, and this server says no.
    3. The body is read whole (and handed to the app in one piece) within
       ``read_timeout`` seconds, else 408; past ``limit`` bytes it gets 413,
       having read at most ``limit`` bytes of it.

    Every refusal is JSON ``{"detail": ...}`` and closes the connection.
    """

    def __init__(self, app, limit: int, read_timeout: float = 10.0, clients: Clients | None = None):
        self.app = app
        self.limit = limit
        self.read_timeout = read_timeout
        self.clients = clients or Clients()

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        method = scope.get("method", "GET")
        headers = scope.get("headers", ())
        ctype = None
        for name, value in headers:
            if name == b"content-length":
                try:
                    if int(value) > self.limit:
                        return await _refuse(send, 413, f"the request body is over the limit of {self.limit} bytes")
                except ValueError:
                    pass
            elif name == b"content-type":
                ctype = value
            elif name == b"origin" and method not in ("GET", "HEAD") and \
                    scope.get("path", "").startswith(f"/{API_VERSION}/tables"):
                why = self._foreign(scope, value.decode("latin-1"))
                if why:
                    return await _refuse(send, 403, why)
        if method == "POST" and ctype is not None and not _json_media_type(ctype):
            return await _refuse(send, 415, f"the body must be JSON sent as Content-Type: application/json, "
                                            f"got Content-Type {shown(ctype.decode('latin-1'))!r}")
        try:
            body = await asyncio.wait_for(self._read(receive), self.read_timeout)
        except asyncio.TimeoutError:
            return await _refuse(send, 408, f"the request body did not arrive within {self.read_timeout:g} s")
        if body is None:  # the client left
            return
        if body is _TOO_BIG:
            return await _refuse(send, 413, f"the request body is over the limit of {self.limit} bytes")
        if method == "POST" and ctype is None and body.strip():
            return await _refuse(send, 415, "the body must be JSON sent as Content-Type: application/json, "
                                            "and the request has no Content-Type")
        sent = False

        async def replay():
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _read(self, receive):
        """The whole body, ``_TOO_BIG`` past ``limit`` bytes, None if the client left."""
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                return _TOO_BIG
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    def _foreign(self, scope, origin: str) -> str | None:
        """Why a request with this ``Origin`` is refused (it is not the page's own), or None."""
        scheme = self.clients.scheme(scope)
        host = next((v.decode("latin-1") for k, v in scope.get("headers", ()) if k == b"host"), None)
        if host is None and scope.get("server"):
            host = "%s:%s" % tuple(scope["server"])
        own = _host_port(host, scheme) if host else None
        try:
            parts = urlsplit(origin.strip())
        except ValueError:  # e.g. "http://[": not an origin at all, so not this site's
            parts = None
        if parts is not None and own is not None and parts.scheme.lower() == scheme:
            if _host_port(parts.netloc, scheme) == own:
                return None
        return (f"a table request from another site's page is refused: its Origin {shown(origin, 80)!r} is not "
                f"this site's {scheme}://{shown(host or '?', 80)}")


_TOO_BIG = object()


async def _refuse(send, status: int, detail: str) -> None:
    """A JSON error answered by the middleware, closing the connection (the body may be unread)."""
    body = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": status,
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
        safe.append({"loc": [p if isinstance(p, int) else shown(str(p), None) for p in loc],
                     "msg": shown(str(e.get("msg")), None), "type": str(e.get("type"))})
    return JSONResponse({"detail": shown(f"invalid view: {text}", None), "errors": safe}, status_code=422)


def _game_field(data):
    """The ``"game"`` of a parsed body (``"cavalloicera"`` when absent or not an object)."""
    if isinstance(data, dict) and data.get("game") is not None:
        return data["game"] if isinstance(data["game"], str) else shown(data["game"])
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
               tables: bool = True, table_seeds: bool = False, tables_per_client: int = 8,
               read_timeout: float = READ_TIMEOUT, trust_proxy=()) -> FastAPI:
    """The app with its bots built now (a bad spec or model fails here, not on a request).

    ``bot_spec`` answers ``/v1/move``; ``table_ais`` (default ``TABLE_AIS``,
    ``bot_spec`` first when it is not among them) are the AIs a table may
    choose, the first being the page's default.  ``max_tables`` tables at
    once, each dropped after ``table_ttl`` idle seconds; a bot move may take
    ``move_timeout`` seconds; a request body ``max_body`` bytes.  A table
    lives in one process: ``tables=False`` (several workers) refuses new
    tables with 503 saying so.  ``table_seeds`` lets a new table be asked
    for a seed (tests, benchmarks; off by default: a seed deals every card).

    One client (``Clients.key``: its address) holds at most
    ``tables_per_client`` tables; ``trust_proxy`` names the reverse proxies
    (addresses or networks, ``"*"`` any) whose ``X-Forwarded-For`` says who the
    client is.  A request body must arrive within ``read_timeout`` seconds
    (``RequestGuard``; the headers' deadline is ``NoDelayHTTPProtocol``'s).
    """
    if not (isinstance(move_timeout, (int, float)) and 0 < move_timeout <= 3600):
        raise ValueError(f"move_timeout must be in (0, 3600] seconds, got {move_timeout!r}")
    if not (isinstance(max_body, int) and max_body >= 1024):
        raise ValueError(f"max_body must be an int >= 1024 bytes, got {max_body!r}")
    if not (isinstance(read_timeout, (int, float)) and 0 < read_timeout <= 3600):
        raise ValueError(f"read_timeout must be in (0, 3600] seconds, got {read_timeout!r}")
    clients = Clients(trust_proxy)
    bot = make(bot_spec, seed=seed)
    refused = getattr(bot, "refused", None)
    if refused:  # the server answers views of every game: say so now, not on a valid view
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
    store = TableStore(list(by_public), max_tables=max_tables, ttl=table_ttl, seeds=table_seeds,
                       per_client=tables_per_client)
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
    app.state.clients = clients
    app.add_middleware(RequestGuard, limit=max_body, read_timeout=read_timeout, clients=clients)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        return _validation_response(exc.errors())

    @app.exception_handler(ViewError)
    async def _inconsistent(request: Request, exc: ViewError):
        return JSONResponse({"detail": shown(f"invalid view: {exc}", None)}, status_code=422)

    @app.exception_handler(TableError)
    async def _refused(request: Request, exc: TableError):
        return JSONResponse({"detail": shown(str(exc), None), "code": exc.code}, status_code=exc.status)

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
        table = store.create(data.get("game"), data.get("deck"), data.get("ai"), data.get("seed"),
                             client=clients.key(request.scope))
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
            raise TableError(f"'expect' must be the move count the page saw (an int), got {shown(expect)}")
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
    """uvicorn's HTTP protocol (httptools when installed, else h11) with TCP_NODELAY on every connection,
    a deadline for each request's headers, and a quiet accept loop.

    With ``--workers > 1`` uvicorn binds the listening socket itself with
    protocol number 0, and asyncio then skips TCP_NODELAY on the connections it
    accepts: a response written in two parts (head, body) then waits ~40 ms for
    the client's delayed ACK.  ``cavallo serve`` uses this class for ``http``.

    A connection must deliver a request's complete headers within
    ``read_timeout`` seconds of opening, or of the first byte of a later
    request on it; else it gets 408 and is closed (uvicorn alone waits
    forever for a connection that sends nothing or half a request line, and
    its keep-alive timer is reset by every byte).  The body's own deadline is
    ``RequestGuard``'s.  The timeout is the uvicorn config's ``read_timeout``
    attribute when set (``cavallo serve`` sets it), else ``$CAVALLO_SERVE_READ_TIMEOUT``
    (its workers), else ``READ_TIMEOUT``.

    A process out of file descriptors cannot accept, and asyncio (3.11) then
    logs and reschedules its accept loop up to ``backlog`` times per attempt:
    megabytes of log a second and a busy loop.  So a connection past
    ``connection_cap()`` (the open files limit less a reserve) is answered 503
    and closed at once, and the accept errors that still come are logged once
    a minute with a count (``_quiet_accept_errors``).  ``cavallo serve`` sizes
    the backlog to the limit (``listen_backlog``): asyncio accepts up to a
    backlog of connections in one go, before any of them is counted here.
    """

    def connection_made(self, transport):
        sock = transport.get_extra_info("socket")
        if sock is not None:
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:  # not TCP (a Unix socket)
                pass
        _quiet_accept_errors(self.loop)
        super().connection_made(transport)
        self._header_timer = None
        self._awaiting = False
        if len(self.connections) > connection_cap(self.config.backlog):
            _throttled("connections", logging.WARNING,
                       "refusing connections: %d open, the most this process's open files limit leaves room for "
                       "(ulimit -n; a reverse proxy's limit_conn keeps clients from holding them)",
                       len(self.connections))
            self._refuse_now(503, "the server has too many open connections: try again in a moment")
            return
        self._awaiting_headers(True)  # a connection that sends nothing is closed too

    def _refuse_now(self, status: int, detail: str) -> None:
        """Answer ``status`` outside any request (the client's bytes are not read) and close."""
        body = json.dumps({"detail": detail}).encode()
        reason = {408: b"Request Timeout", 503: b"Service Unavailable"}[status]
        self.transport.write(b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\n"
                             b"connection: close\r\n\r\n%s" % (status, reason, len(body), body))
        self.transport.close()

    def _read_timeout(self) -> float:
        timeout = getattr(self.config, "read_timeout", None)
        if timeout is None:
            timeout = float(os.environ.get(ENV_READ_TIMEOUT) or READ_TIMEOUT)
        return timeout

    def _awaiting_headers(self, awaiting: bool) -> None:
        """Start the headers' deadline (if not running) when a request's headers are awaited, else stop it."""
        self._awaiting = awaiting
        if awaiting and self._header_timer is None:
            self._header_timer = self.loop.call_later(self._read_timeout(), self._header_deadline)
        elif not awaiting and self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    # httptools: its parser says when a request begins and when its headers are complete
    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._awaiting_headers(True)

    def on_headers_complete(self) -> None:
        self._awaiting_headers(False)
        super().on_headers_complete()

    # h11: after its events are handled, the connection awaits headers when it is idle with bytes buffered
    def _h11_state(self) -> None:
        import h11  # lazy: only the h11 parser (no httptools) runs this

        self._awaiting_headers(self.conn.their_state is h11.IDLE and bool(self.conn.trailing_data[0]))

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if not hasattr(self, "parser") and not self.transport.is_closing():
            self._h11_state()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not hasattr(self, "parser") and not self.transport.is_closing():
            self._h11_state()  # a pipelined request's first bytes may wait in the buffer

    def connection_lost(self, exc):
        self._awaiting_headers(False)
        super().connection_lost(exc)

    def _header_deadline(self) -> None:
        self._header_timer = None
        if self.transport.is_closing() or not self._awaiting:
            return
        self._refuse_now(408, f"the request's headers did not arrive within {self._read_timeout():g} s")


def _open_files_limit() -> int:
    import resource  # lazy: a Unix-only module

    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return 1 << 20 if soft == resource.RLIM_INFINITY else soft


def listen_backlog() -> int:
    """The listening socket's backlog: 4096, or a sixteenth of the open files limit when that is smaller
    (asyncio accepts up to a backlog of connections at once, before the cap can close any)."""
    return min(4096, max(16, _open_files_limit() // 16))


def connection_cap(backlog: int) -> int:
    """The most connections one process keeps open: its open files limit less room for the connections
    accepted in a few turns of the accept loop (``4 * backlog``) and 64 descriptors for everything else."""
    return max(16, _open_files_limit() - 4 * backlog - 64)


def raise_open_files_limit(most: int = 65536) -> None:
    """Raise this process's soft open files limit to its hard limit (at most ``most``), as a server should."""
    import resource  # lazy: a Unix-only module

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = most if hard == resource.RLIM_INFINITY else min(hard, most)
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
        except (ValueError, OSError):
            pass


#: seconds between two log lines about one kind of overload (the rest are counted)
LOG_EVERY = 60.0
_LOGGED: dict = {}


def _throttled(kind: str, level: int, message: str, *args) -> None:
    """Log ``message`` about ``kind`` at most once every ``LOG_EVERY`` seconds, with how many times it happened."""
    now = time.monotonic()
    last, count = _LOGGED.get(kind, (None, 0))
    count += 1
    if last is None or now - last >= LOG_EVERY:
        logging.getLogger("uvicorn.error").log(level, message + " (%d time(s) since the last report)", *args, count)
        last, count = now, 0
    _LOGGED[kind] = (last, count)


def _quiet_accept_errors(loop) -> None:
    """Log asyncio's "socket.accept() out of system resource" (too many open files) once a minute, with a
    count, instead of at every turn of the accept loop; other errors go to the loop's handler as before."""
    previous = loop.get_exception_handler()
    if getattr(previous, "quiet_accept", False):
        return

    def handler(loop, context):
        if context.get("message") != "socket.accept() out of system resource":
            return previous(loop, context) if previous else loop.default_exception_handler(context)
        _throttled("accept", logging.ERROR, "cannot accept connections: %s (raise the open files limit, ulimit -n, "
                   "or put a reverse proxy that limits connections in front)", context.get("exception"))

    handler.quiet_accept = True
    loop.set_exception_handler(handler)


def app_from_env() -> FastAPI:
    """App factory for ``uvicorn --factory`` (several workers): bot, seed and options from the environment."""
    seed = os.environ.get(ENV_SEED)
    options = json.loads(os.environ.get(ENV_OPTIONS) or "{}")
    return create_app(os.environ.get(ENV_BOT, "policy:default"), seed=int(seed) if seed else None, **options)
