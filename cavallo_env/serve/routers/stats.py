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
#: seconds an answer of /v1/stats is kept: reading thousands of records on every request would be slow
ANSWER_TTL = 15.0
#: what a table id looks like (``secrets.token_urlsafe``); anything else is no table
TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


class _Results:
    """Per database: each finished game's ``people.Result``, or why it is skipped (a finished game never
    changes, so its record is read and replayed once), and the table of ``/v1/stats`` for ``ANSWER_TTL``
    seconds.  One thread at a time reads new games: a second request waits for the first one's work."""

    MAX_RESULTS = 4 * MAX_GAMES
    #: more new games than this are read in one query of the most recent games, fewer one by one
    BULK = 50

    def __init__(self):
        self._lock = threading.Lock()
        self._of_db: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # db -> {"results", "table"}

    def _entry(self, db) -> dict:
        return self._of_db.setdefault(db, {"results": {}, "table": None})

    def of(self, db, player_id: str | None = None, limit: int = MAX_GAMES) -> tuple[list, int]:
        """``(results, skipped)`` of the ``limit`` most recent finished games (of ``player_id``), newest first."""
        ids = db.finished_ids(player_id=player_id, limit=limit)
        with self._lock:
            known = self._entry(db)["results"]
            todo = [i for i in ids if i not in known]
            if todo:
                if len(known) + len(todo) > self.MAX_RESULTS:
                    known.clear()
                    todo = ids
                self._read(db, todo, player_id, limit, known)
            results = [known[i] for i in ids if isinstance(known.get(i), people.Result)]
        return results, sum(1 for i in ids if isinstance(known.get(i), str))

    def _read(self, db, todo: list, player_id, limit: int, known: dict) -> None:
        if len(todo) > self.BULK:
            wanted = set(todo)
            finished = [fg for fg in db.finished_games(player_id=player_id, limit=limit) if fg.table_id in wanted]
        else:
            finished = [fg for fg in map(db.finished_game, todo) if fg is not None]
        results, skipped = people.results_of(finished)
        known.update((r.table_id, r) for r in results)
        known.update((s["table_id"], s["reason"]) for s in skipped)

    def table(self, db, make) -> dict:
        """``make()``, or its answer of less than ``ANSWER_TTL`` seconds ago."""
        now = time.monotonic()
        with self._lock:
            hit = self._entry(db)["table"]
        if hit is not None and now - hit[0] < ANSWER_TTL:
            return hit[1]
        value = make()
        with self._lock:
            self._entry(db)["table"] = (now, value)
        return value


_CACHE = _Results()


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


def _table(db, player_id: str | None = None, limit: int = MAX_GAMES) -> tuple[dict, list]:
    """The figures of the ``limit`` most recent finished games (of ``player_id``), and their results."""
    results, skipped = _CACHE.of(db, player_id, limit)
    n = len(results) + skipped
    return {"games": len(results), "lines": [x.to_dict() for x in people.summarize(results)],
            "skipped": skipped, "limit": limit, "complete": n < limit}, results


def _player(db, player_id: str) -> dict:
    out, results = _table(db, player_id)
    out["history"] = [r.for_person() for r in results[:HISTORY]]
    return out


@router.get(f"/{API_VERSION}/stats", summary="The AI against people: W/D/L, score with its 95% Wilson interval, "
                                             "points per game, per game, deck and AI")
def stats(svc: Svc, player_id: str | None = None):
    """The finished games at the table (the most recent `MAX_GAMES`), per game, deck and AI, from the AI's side;
    with `player_id` (the page's anonymous id) also that player's own figures and most recent games."""
    check_player(player_id, None)
    db = _db(svc)
    out = dict(_CACHE.table(db, lambda: _table(db)[0]))
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
