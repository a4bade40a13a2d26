"""The AI measured against people in the browser: the pages ``/stats`` and ``/replay`` and their JSON,
``GET /v1/stats`` (the table of ``cavallo people``; with ``player_id``, that player's own games too) and
``GET /v1/stats/games/{table_id}`` (a finished game's record and its positions with every hand, for the replay;
never a game still being played).  The figures are ``cavallo_env.people``'s; docs/people.md."""

from __future__ import annotations

import re
import threading
import time
import weakref

from fastapi import APIRouter, HTTPException
from fastapi.responses import FileResponse

from ... import games, people
from ...errors import RecordError
from ...tables import TableError, check_player, shown
from ..service import Svc
from ..settings import API_VERSION, WEB

router = APIRouter()
#: the most recent finished games the table of /v1/stats counts
MAX_GAMES = 5000
#: a player's most recent games listed in their history
HISTORY = 100
#: seconds an answer of /v1/stats is kept (each is a few SQL sums; many pages open at once share one)
ANSWER_TTL = 15.0
#: finished games without a result (finished by a server of schema 1 since the migration) replayed per request
FILL = 50
#: what a table id looks like (``secrets.token_urlsafe``); anything else is no table
TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


class _Answers:
    """Per database: the table of ``/v1/stats``, for ``ANSWER_TTL`` seconds."""

    def __init__(self):
        self._lock = threading.Lock()
        self._of_db: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # db -> (when, answer)

    def table(self, db, make) -> dict:
        """``make()``, or its answer of less than ``ANSWER_TTL`` seconds ago."""
        now = time.monotonic()
        with self._lock:
            hit = self._of_db.get(db)
        if hit is not None and now - hit[0] < ANSWER_TTL:
            return hit[1]
        value = make()
        with self._lock:
            self._of_db[db] = (now, value)
        return value


_CACHE = _Answers()


def _page(name: str) -> FileResponse:
    return FileResponse(str(WEB / name), media_type="text/html; charset=utf-8")


@router.get("/stats", include_in_schema=False)
async def stats_page():
    return _page("stats.html")


@router.get("/replay", include_in_schema=False)
async def replay_page():
    return _page("replay.html")


def _db(svc):
    """The app's database; ``TableError`` 503 on a server started without tables (``create_app(tables=False)``).
    A database that does not answer is the app's 503 (``serve/errors.py``)."""
    if svc.store is None:
        raise TableError("this server keeps no games (only POST /v1/move): start cavallo serve for the table "
                         "and its stats", 503, "refused")
    return svc.store.db


def _table(db, player_id: str | None = None, limit: int = MAX_GAMES) -> dict:
    """The figures of the ``limit`` most recent finished games (of ``player_id``): sums the database keeps,
    no record read (each game's result is stored when it finishes, docs/database.md)."""
    db.fill_results(FILL)
    tallies, finished, skipped = db.result_tallies(player_id=player_id, limit=limit)
    lines = people.lines_of(people.Tally(*t) for t in tallies)
    return {"games": sum(x.games for x in lines), "lines": [x.to_dict() for x in lines],
            "skipped": skipped, "limit": limit, "complete": finished < limit}


def _player(db, player_id: str) -> dict:
    out = _table(db, player_id)
    out["history"] = [_result(*row).for_person() for row in db.recent_results(player_id, HISTORY)]
    return out


def _result(table_id, game, options, ai, outcome, ai_points, people_points, player_id, finished_at):
    return people.Result(table_id, game, options, ai, outcome, ai_points, people_points, player_id,
                         people.iso_time(finished_at))


@router.get(f"/{API_VERSION}/stats", summary="The AI against people: W/D/L, score with its 95% Wilson interval, "
                                             "points per game, per game, deck and AI")
def stats(svc: Svc, player_id: str | None = None):
    """The finished games at the table (the most recent `MAX_GAMES`), per game, deck and AI, from the AI's side;
    with `player_id` (the page's anonymous id) also that player's own figures and most recent games."""
    check_player(player_id, None)
    db = _db(svc)
    out = dict(_CACHE.table(db, lambda: _table(db)))
    if player_id is not None:  # a player's own games, up to date: their last game is there as soon as it ends
        out["player"] = _player(db, player_id)
    return out


def _no_game(table_id: str) -> HTTPException:
    return HTTPException(404, f"no finished game at table {shown(table_id)!r}: only a finished game can be replayed")


@router.get(f"/{API_VERSION}/stats/games/{{table_id}}", summary="A finished game, to replay with every hand shown")
def finished_game(table_id: str, svc: Svc):
    """The record of a finished game and every position of it, move by move, with every hand;
    404 for a game that is not finished (its hidden cards stay hidden) or not there."""
    if not TABLE_ID.fullmatch(table_id):
        raise _no_game(table_id)
    fg = _db(svc).finished_game(table_id)
    if fg is None:
        raise _no_game(table_id)
    try:
        result = people.result_of(fg)
        frames = people.frames(fg.record)
    except (RecordError, ValueError, KeyError) as e:
        raise HTTPException(422, f"the record of table {table_id!r} does not replay: {shown(str(e), 300)}") from None
    game = games.get(fg.game)
    return {"table_id": fg.table_id, "game": fg.game, "title": game.title, "deck": fg.deck,
            "options": dict(result.options), "ai": fg.ai,
            "seats": people.seats_of(game, fg.human_seats), "finished_at": result.finished_at,
            "result": {"ai": result.outcome, "points": {"ai": result.ai_points, "people": result.people_points}},
            "breakdown_keys": list(game.breakdown_keys), "record": fg.record, "frames": frames}
