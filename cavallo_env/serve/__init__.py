"""``cavallo serve``: the in-game AI over HTTP (FastAPI), for a game to call, and the table in the browser.

- ``POST /v1/move``: the body is a view (docs/contract.md, "Bots and the in-game
  AI"); the answer is the chosen move, ``{"play": "7-coins", "capture":
  ["3-coins", "4-cups"]}``, one of the view's ``legal_moves`` (which may be
  left out: the server then plays from the rules' legal moves).
- ``GET /v1/health``: status, the bot, the model's versions and provenance.
- ``/``: the table, a web page where a person plays every game against the AI;
  its JSON API is ``/v1/games`` and ``/v1/tables/...`` (``cavallo_env.tables``
  holds the games; docs/table.md).  Every table and move is written to a
  database (``cavallo_env.store``; docs/database.md), which several workers
  share; a table answers only the token it was created with.
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

The package, FastAPI's "bigger applications" layout: ``app`` (``create_app``:
the app, its guard, error handlers and routers), ``routers/`` (one module per
resource: ``health``, ``move``, ``games``, ``tables``), ``schemas`` (the
pydantic models: moves, each game's view, health), ``service`` (one app's
bots, tables and clients, handed to the routes as a dependency), ``guard``
(``RequestGuard``, ``Clients``), ``runner`` (``BotRunner``), ``errors`` (the
exception handlers), ``protocol`` (``NoDelayHTTPProtocol``, the open files
limit) and ``settings`` (names and defaults).
"""

from __future__ import annotations

from .app import app_from_env, create_app
from .guard import Clients, RequestGuard
from .protocol import NoDelayHTTPProtocol, connection_cap, listen_backlog, raise_open_files_limit
from .runner import BotRunner, BotTimeout
from .schemas import (CAVALLOICERA_MAX_LEGAL, VIEW_MODELS, AnyGameView, BriscolaView, Health, HistoryMove, Move,
                      ScopaView, View)
from .service import Service, public_spec
from .settings import (API_VERSION, ENV_BOT, ENV_OPTIONS, ENV_READ_TIMEOUT, ENV_SEED, LANGUAGES, READ_TIMEOUT,
                       TABLE_AIS, WEB)

__all__ = [
    "create_app", "app_from_env", "Clients", "RequestGuard", "NoDelayHTTPProtocol", "connection_cap",
    "listen_backlog", "raise_open_files_limit", "BotRunner", "BotTimeout", "CAVALLOICERA_MAX_LEGAL",
    "VIEW_MODELS", "AnyGameView", "BriscolaView", "Health", "HistoryMove", "Move", "ScopaView", "View", "Service",
    "public_spec", "API_VERSION", "ENV_BOT", "ENV_OPTIONS", "ENV_READ_TIMEOUT", "ENV_SEED", "LANGUAGES",
    "READ_TIMEOUT", "TABLE_AIS", "WEB",
]
