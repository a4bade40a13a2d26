"""``create_app``: the service's FastAPI app, its state built once, its guard, error handlers and routes."""

from __future__ import annotations

import json
import os

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.staticfiles import StaticFiles

from .. import __version__, games
from .errors import HANDLERS
from .guard import Clients, RequestGuard
from .routers import ROUTERS, stats
from .schemas import VIEW_MODELS
from .service import Service, build_service, check_limits, public_spec
from .settings import ENV_BOT, ENV_OPTIONS, ENV_SEED, READ_TIMEOUT, WEB


def create_app(bot_spec: str = "policy:default", seed=None, *, table_ais=None, max_tables: int = 200,
               table_ttl: float = 1800.0, move_timeout: float = 10.0, max_body: int = 1_000_000,
               table_seeds: bool = False, tables_per_client: int = 8, read_timeout: float = READ_TIMEOUT,
               trust_proxy=(), db=None, tables: bool = True) -> FastAPI:
    """The app with its bots built now (a bad spec or model fails here, not on a request).

    ``bot_spec`` answers ``/v1/move``; ``table_ais`` (default ``TABLE_AIS``,
    ``bot_spec`` first when it is not among them) are the AIs a table may
    choose, the first being the page's default.  ``max_tables`` tables at
    once in memory, each ended after ``table_ttl`` idle seconds; a bot move may
    take ``move_timeout`` seconds; a request body ``max_body`` bytes.
    ``table_seeds`` lets a new table be asked for a seed (tests, benchmarks;
    off by default: a seed deals every card).

    Every table and move is written to the database ``db``: a URL
    (``sqlite:///<file>``, ``postgresql://...``), a ``cavallo_env.store.Store``,
    or None for ``$CAVALLO_DB``, else ``tables.sqlite3`` in the user's data
    directory (docs/database.md).  Several processes on one database serve
    every table.  ``tables=False`` serves no tables (503) and opens no database:
    a server of ``/v1/move`` only.

    One client (``Clients.key``: its address) holds at most
    ``tables_per_client`` tables; ``trust_proxy`` names the reverse proxies
    (addresses or networks, ``"*"`` any) whose ``X-Forwarded-For`` says who the
    client is.  A request body must arrive within ``read_timeout`` seconds
    (``RequestGuard``; the headers' deadline is ``NoDelayHTTPProtocol``'s).
    """
    check_limits(move_timeout, max_body, read_timeout)
    service = build_service(bot_spec, seed, table_ais, move_timeout, Clients(trust_proxy), db, tables,
                            max_tables=max_tables, ttl=table_ttl, seeds=table_seeds, per_client=tables_per_client)
    app = FastAPI(title=f"{_game_titles()} in-game AI", version=__version__, description=_description(service),
                  exception_handlers=HANDLERS)
    app.state.service = service
    app.state.bot, app.state.tables, app.state.clients = service.bot, service.store, service.clients
    app.add_middleware(RequestGuard, limit=max_body, read_timeout=read_timeout, clients=service.clients)
    app.mount("/static", StaticFiles(directory=str(WEB)), name="static")
    for router in ROUTERS:
        app.include_router(router)
    app.include_router(stats.router)  # the AI against people: /stats, /replay, /v1/stats (cavallo_env/people.py)
    app.openapi = lambda: _openapi(app)
    return app


def _game_titles() -> str:
    """The games the service plays, by title: "Cavalloìcera, Briscola and Scopa"."""
    titles = [games.get(name).title for name in games.names()]
    return ", ".join(titles[:-1]) + " and " + titles[-1] if len(titles) > 1 else titles[0]


def _description(service: Service) -> str:
    top = service.top
    return (
        f"Ask the AI for a move in {_game_titles().replace(' and ', ' or ')}: POST the view of the seat to play "
        "(docs/contract.md) to `/v1/move`. "
        f"Bot: `{public_spec(service.bot_spec)}`. Observation layout `{top['obs_version']}`, "
        f"action contract `{top['action_version']}` (each game's are in `/v1/health`). "
        "A malformed or inconsistent view gets 422 with a `detail` saying what is wrong. "
        "The table (a person against the AI, in the browser) is at `/`; its API is `/v1/games` and `/v1/tables`."
    )


def _openapi(app: FastAPI) -> dict:
    """FastAPI's schema plus each game's view schema (``/v1/move`` reads the raw body, for speed)."""
    if app.openapi_schema is None:
        schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        for model in VIEW_MODELS.values():
            view = model.model_json_schema(ref_template="#/components/schemas/{model}")
            components.update(view.pop("$defs", {}))
            components[model.__name__] = view
        app.openapi_schema = schema
    return app.openapi_schema


def app_from_env() -> FastAPI:
    """App factory for ``uvicorn --factory`` (several workers): bot, seed and options from the environment."""
    seed = os.environ.get(ENV_SEED)
    options = json.loads(os.environ.get(ENV_OPTIONS) or "{}")
    return create_app(os.environ.get(ENV_BOT, "policy:default"), seed=int(seed) if seed else None, **options)
