"""A finished game's result, kept in its row (schema revision 0002): computed once, when the game finishes.

``result_columns`` replays a finished game's record (``people.result_of``) into the values of the ``result_*``
columns of ``schema.tables``; ``fill(conn)`` writes them for finished rows that have none (the migration 0002
runs it over every finished game once; ``Store.fill_results`` over the few a server of the older code may
have finished since).  The figures of ``cavallo people`` and ``/v1/stats`` are then sums in SQL: their time
does not grow with replays.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

from sqlalchemy import bindparam, select, update

from .. import people
from ..errors import RecordError
from .finished import FinishedGame
from .schema import tables

_t = tables.c
#: finished rows replayed per read in ``fill``: the records of one batch are in memory at once
BATCH = 200
COLUMNS = ("result_options", "result_outcome", "result_ai_points", "result_people_points", "result_skipped")
_FILL = (update(tables).where(_t.id == bindparam("tid"))
         .values(**{c: bindparam(f"v_{c}") for c in COLUMNS}))


def result_columns(row, record: dict) -> dict:
    """The ``result_*`` values of the finished game of ``row`` (its game, deck, ai, human_seats, player_id)
    with ``record``: its result, or why the record does not replay."""
    values = dict.fromkeys(COLUMNS)
    try:
        fg = FinishedGame(row.id, row.game, row.deck, row.ai, tuple(json.loads(row.human_seats)), row.player_id,
                          None, datetime.now(timezone.utc), record)
        r = people.result_of(fg)
    except (RecordError, ValueError, KeyError) as e:  # as people.results_of says it
        values["result_skipped"] = str(e)[:200]
        return values
    except Exception as e:  # noqa: BLE001  (a record the rules choke on is skipped, saying why: never a lost move)
        values["result_skipped"] = f"{type(e).__name__}: {e}"[:200]
        return values
    values.update(result_options=json.dumps([list(kv) for kv in r.options], separators=(",", ":")),
                  result_outcome=r.outcome, result_ai_points=int(r.ai_points),
                  result_people_points=int(r.people_points))
    return values


def options_of(text: str) -> tuple:
    """``result_options`` back as ``people.Result.options``: sorted (key, value) pairs."""
    return tuple(tuple(kv) for kv in json.loads(text))


def _pending():
    return (_t.finished_at.is_not(None), _t.result_outcome.is_(None), _t.result_skipped.is_(None))


def fill(conn, limit: int | None = None) -> int:
    """Write the result of each finished game on ``conn`` that has none yet (at most ``limit``), ``BATCH``
    records at a time; how many were written."""
    q = select(_t.id).where(*_pending()).order_by(_t.finished_at)
    ids = list(conn.execute(q if limit is None else q.limit(limit)).scalars())
    cols = select(_t.id, _t.game, _t.deck, _t.ai, _t.human_seats, _t.player_id, _t.record)
    for i in range(0, len(ids), BATCH):
        rows = conn.execute(cols.where(_t.id.in_(ids[i:i + BATCH]))).fetchall()
        conn.execute(_FILL, [{"tid": row.id, **{f"v_{c}": v for c, v in result_columns(
            row, _record(row.record)).items()}} for row in rows])
    return len(ids)


def _record(text):
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return None
