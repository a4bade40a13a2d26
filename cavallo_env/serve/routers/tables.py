"""The table's API, ``/v1/tables/...``: start a game, see it, play a move, let the AI play, ask it for a hint,
the record, leave (``cavallo_env.tables`` holds the games; docs/table.md).

Starting a game answers its secret ``token``; every later call on the table must carry it as
``Authorization: Bearer <token>``, else it is answered 404 as a table that does not exist."""

from __future__ import annotations

import json

from fastapi import APIRouter, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from ...tables import TableError, TableSession, TableStore, shown
from ..runner import BotTimeout
from ..service import Service, Svc
from ..settings import API_VERSION

router = APIRouter()
TABLE = f"/{API_VERSION}/tables/{{table_id}}"
#: the fields of a new table's body
NEW_FIELDS = ("game", "deck", "ai", "seed", "player_id", "player_name")


def _token(request: Request) -> str:
    """The table token the request carries (``Authorization: Bearer <token>``; "" when none)."""
    scheme, _, token = (request.headers.get("authorization") or "").strip().partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def _store(svc: Service) -> TableStore:
    """The app's tables; ``TableError`` 503 on a server started without them (``create_app(tables=False)``)."""
    if svc.store is None:
        raise TableError("this server serves no tables (only POST /v1/move): start cavallo serve for the table",
                         503, "refused")
    return svc.store


async def _table(svc: Service, table_id: str, request: Request) -> TableSession:
    """The table (its token checked, brought up to date with the database) read on a worker thread: the event
    loop serves other requests while the database answers."""
    return await run_in_threadpool(_store(svc).get, table_id, _token(request))


def _locked(table: TableSession, action=None):
    """``action()`` (if any) and then the table's snapshot, under its lock (on a worker thread)."""
    with table.lock:
        if action is not None:
            action()
        return table.snapshot()


async def _snapshot(svc: Service, table_id: str, request: Request, action=None) -> dict:
    """The table read (as ``_table``), ``action(table)`` (if any) and its snapshot: one trip to a worker thread."""
    store, token = _store(svc), _token(request)

    def work():
        table = store.get(table_id, token)
        return _locked(table, None if action is None else lambda: action(table))

    return await run_in_threadpool(work)


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


@router.post(f"/{API_VERSION}/tables", status_code=201,
             summary="Start a game: {game, deck, ai?, seed?, player_id?, player_name?}; answers its token")
async def new_table(request: Request, svc: Svc):
    data = await _json_object(request, "a new table")
    unknown = sorted(set(data) - set(NEW_FIELDS))
    if unknown:
        raise TableError(f"a new table: unknown field(s) {', '.join(map(repr, unknown))[:120]}; "
                         f"known: {', '.join(NEW_FIELDS)}")
    store, client = _store(svc), svc.clients.key(request.scope)
    ai = svc.table_ai(data.get("game"), data.get("ai"))

    def work():
        table, token = store.create(data.get("game"), data.get("deck"), ai, data.get("seed"),
                                    client=client, player_id=data.get("player_id"), player_name=data.get("player_name"))
        return {**_locked(table), "token": token}

    return await run_in_threadpool(work)


@router.get(TABLE, summary="The table as seat 0 sees it")
async def get_table(table_id: str, request: Request, svc: Svc):
    return await _snapshot(svc, table_id, request)


@router.delete(TABLE, status_code=204, summary="Leave the table")
async def close_table(table_id: str, request: Request, svc: Svc):
    await run_in_threadpool(_store(svc).close, table_id, _token(request))
    return Response(status_code=204)


@router.post(f"{TABLE}/move", summary="Your move: {play, capture?, expect?}")
async def table_move(table_id: str, request: Request, svc: Svc):
    data = await _json_object(request, "a move")
    expect = data.pop("expect", None)
    if expect is not None and (isinstance(expect, bool) or not isinstance(expect, int)):
        raise TableError(f"'expect' must be the move count the page saw (an int), got {shown(expect)}")
    if "capture" not in data:
        data["capture"] = []
    return await _snapshot(svc, table_id, request, lambda table: table.play_human(data, expect))


async def _ai_answer(svc: Service, table: TableSession, moves: int, view: dict):
    """The table's AI's move (checked), or the heuristic's when the AI is too slow or fails."""
    by = table.ai
    try:
        move = table.ai_move(moves, await svc.table_bots[table.ai].choose(view))
        why = "answered an illegal move"
    except BotTimeout:
        move, why = None, f"passed the {svc.move_timeout:g} s limit"
    except TableError:
        raise
    except Exception as e:  # a bot's fault is not the player's: the game goes on
        move, why = None, f"failed ({type(e).__name__})"
    if move is None:
        by = f"heuristic (the {table.ai} AI {why})"
        try:
            move = table.ai_move(moves, await svc.fallback.choose(view))
        except BotTimeout:
            move = None
        if move is None:
            raise TableError("the AI could not move in time: try again", 503, "ai_failed")
    return move, by


@router.post(f"{TABLE}/ai", summary="The AI plays one move")
async def table_ai(table_id: str, request: Request, svc: Svc):
    table = await _table(svc, table_id, request)
    with table.asking(table.ai_view) as (moves, view):
        move, by = await _ai_answer(svc, table, moves, view)
        # the position is still the one the move was checked in, or play_ai says so (409)
        return await run_in_threadpool(_locked, table, lambda: table.play_ai(move, by, moves))


@router.get(f"{TABLE}/hint", summary="What the table's AI would play in your place")
async def table_hint(table_id: str, request: Request, svc: Svc):
    table = await _table(svc, table_id, request)
    with table.asking(lambda: (table.moves, table.hint_view())) as (moves, view):
        try:
            answer = await svc.table_bots[table.ai].choose(view)
        except BotTimeout:
            raise TableError("the AI could not answer in time: try again", 503, "ai_failed") from None
    return {"move": answer, "ai": table.ai, "moves": moves}


@router.get(f"{TABLE}/record", summary="The game record, once the game is over")
async def table_record(table_id: str, request: Request, svc: Svc):
    table = await _table(svc, table_id, request)
    with table.lock:
        return table.record()
