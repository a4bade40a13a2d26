"""``Store``: the tables and moves in the database (SQLAlchemy Core), and the finished games' records."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Iterator

from sqlalchemy import bindparam, case, delete, func, insert, select, text, update
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from . import migrate, results
from .finished import FinishedGame
from .schema import STATUSES, moves, tables
from .urls import StoreError, is_memory, resolve, shown

_t, _m = tables.c, moves.c
# the statements of every request, built once (building one costs more than running it on SQLite)
_HEAD = select(_t.status, _t.moves, _t.touched_at, _t.token_hash).where(_t.id == bindparam("tid"))
_MOVES = (select(_m.move_no, _m.seat, _m.by, _m.move)
          .where(_m.table_id == bindparam("tid"), _m.move_no > bindparam("after")).order_by(_m.move_no))
_INSERT_MOVE = insert(moves)
_MOVED = update(tables).where(_t.id == bindparam("tid"), _t.moves == bindparam("prev"), _t.status == "open")
_NEXT = _MOVED.values(moves=bindparam("n"), touched_at=bindparam("now"))
_RESULT = {c: bindparam(f"v_{c}") for c in results.COLUMNS}  # the finished game's result, with its record
_LAST = _MOVED.values(moves=bindparam("n"), touched_at=bindparam("now"), finished_at=bindparam("now"),
                      record=bindparam("rec"), **_RESULT)
_WHO = select(_t.id, _t.game, _t.deck, _t.ai, _t.human_seats, _t.player_id).where(_t.id == bindparam("tid"))
# PostgreSQL: the move and the table's count in one statement, one round trip (autocommit: no BEGIN, no COMMIT)
_PG_MOVE = """WITH moved AS (UPDATE tables SET moves = :n, touched_at = :now{last}
    WHERE id = :tid AND moves = :prev AND status = 'open' RETURNING id)
INSERT INTO moves (table_id, move_no, seat, "by", move, at) SELECT id, :n, :seat, :by, :move, :now FROM moved"""
_PG_NEXT = text(_PG_MOVE.format(last=""))
_PG_LAST = text(_PG_MOVE.format(last=", finished_at = :now, record = :rec"
                                + "".join(f", {c} = :v_{c}" for c in results.COLUMNS)))
_TOUCH = update(tables).where(_t.id == bindparam("tid")).values(touched_at=bindparam("now"))


@dataclass(frozen=True)
class Head:
    """What a server checks of a table on every request: is it open, how far, when last used."""

    status: str
    moves: int
    touched_at: float
    token_hash: str


def _engine(url: str):
    from sqlalchemy import create_engine, event
    from sqlalchemy.pool import StaticPool

    if url.startswith("sqlite"):
        options = {"connect_args": {"check_same_thread": False, "timeout": 30}}
        if is_memory(url):
            options["poolclass"] = StaticPool  # one database per process: every thread shares its connection
        engine = create_engine(url, **options)

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn, _record):
            cur = dbapi_conn.cursor()
            # WAL: readers do not wait for the writer, several processes share the file; NORMAL: a commit
            # survives the process being killed (an OS crash may lose the last ones)
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.close()

        return engine
    return _server_engine(url)


def _server_engine(url, **options):
    from sqlalchemy import create_engine

    return create_engine(url, pool_size=10, max_overflow=20, pool_recycle=3600, **options)


def open_store(url: str | None = None) -> "Store":
    """The store at ``url`` (``None``: ``$CAVALLO_DB``, else ``tables.sqlite3`` in the user's data directory),
    migrated to the newest schema; ``StoreError`` if it cannot be reached or its schema is newer than this code's."""
    full = resolve(url)
    try:
        engine = _engine(full)
        revision = migrate.upgrade(engine)
    except StoreError:
        raise
    except (SQLAlchemyError, OSError, ImportError) as e:
        raise StoreError(f"cannot open the database {shown(full)}: {type(e).__name__}: "
                         f"{str(e).splitlines()[0] if str(e) else ''}") from None
    return Store(engine, full, revision)


def _finished_query(columns, game, player_id, limit, replayed=False):
    """``columns`` of the finished games, newest first: of ``game`` only, of ``player_id`` only, at most ``limit``."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise ValueError(f"limit must be an int >= 0 or None, got {limit!r}")
    q = select(*columns).where(_t.finished_at.is_not(None))
    if game is not None:
        q = q.where(_t.game == game)
    if player_id is not None:
        q = q.where(_t.player_id == player_id)
    if replayed:  # only the games whose record replays (those with a result)
        q = q.where(_t.result_outcome.is_not(None))
    q = q.order_by(_t.finished_at.desc(), _t.id)
    return q if limit is None else q.limit(limit)


def _finished(row) -> FinishedGame:
    return FinishedGame(row.id, row.game, row.deck, row.ai, tuple(json.loads(row.human_seats)), row.player_id,
                        row.player_name, datetime.fromtimestamp(row.finished_at, timezone.utc), json.loads(row.record))


class Store:
    """The tables, their moves and the finished games' records in one database (``open_store``).

    Every method is one short transaction; the methods are safe to call from several threads and from
    several processes on one database.
    """

    def __init__(self, engine, url: str, revision: str):
        self.engine = engine
        self.url = url
        self.revision = revision
        #: a server's connections in autocommit, for one-statement transactions: no BEGIN or COMMIT sent (a round
        #: trip each); a pool of their own (switching a pooled connection to autocommit and back costs round trips)
        self.auto = engine if engine.dialect.name == "sqlite" else \
            _server_engine(engine.url, isolation_level="AUTOCOMMIT")
        # an in-memory database is one connection that every thread shares: one transaction at a time on it
        self._serial = threading.Lock() if is_memory(url) else contextlib.nullcontext()

    @contextlib.contextmanager
    def _conn(self, engine, begin: bool = False):
        """A connection of ``engine``, in a transaction committed at the end when ``begin``."""
        with self._serial, (engine.begin() if begin else engine.connect()) as conn:
            yield conn

    def __repr__(self) -> str:
        return f"Store({shown(self.url)!r}, revision={self.revision!r})"

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    # -- the finished games (helper "people", ``cavallo people``, /stats) ------------------------------------
    def finished_games(self, game: str | None = None, player_id: str | None = None,
                       limit: int | None = None, replayed: bool = False) -> Iterator[FinishedGame]:
        """The finished games, newest first: of ``game`` only, of ``player_id`` only, at most ``limit``; only those
        whose record replays when ``replayed``. Read ``results.BATCH`` rows at a time: memory stays bounded."""
        q = _finished_query([tables], game, player_id, limit, replayed)
        with self._conn(self.engine) as conn:
            for row in conn.execution_options(yield_per=results.BATCH).execute(q):
                yield _finished(row)

    def fill_results(self, limit: int | None = None) -> int:
        """Write the result of finished games that have none (at most ``limit``): those a server of schema 1
        finished after the migration. How many."""
        with self._conn(self.engine, True) as conn:
            return results.fill(conn, limit)

    def result_tallies(self, game: str | None = None, player_id: str | None = None,
                       limit: int | None = None) -> tuple[list[tuple], int, int]:
        """``(tallies, finished, skipped)`` of the ``limit`` most recent finished games (of ``game``, of
        ``player_id``), summed in SQL without reading a record: per game, options and AI, the fields of
        ``people.Tally``; how many finished games that is, and how many of them do not replay."""
        recent = _finished_query([_t.game, _t.ai, _t.result_options, _t.result_outcome, _t.result_ai_points,
                                  _t.result_people_points, _t.result_skipped], game, player_id, limit).subquery()
        r = recent.c
        won, drew = (func.sum(case((r.result_outcome == x, 1), else_=0)) for x in ("win", "draw"))
        sums = (select(r.game, r.result_options, r.ai, func.count(), won, drew, func.sum(r.result_ai_points),
                       func.sum(r.result_people_points))
                .where(r.result_outcome.is_not(None)).group_by(r.game, r.result_options, r.ai))
        counts = select(func.count(), func.count(r.result_skipped))
        with self._conn(self.engine) as conn:
            rows = conn.execute(sums).fetchall()
            finished, skipped = conn.execute(counts).one()
        return ([(g, results.options_of(o), ai, *(int(x) for x in rest)) for g, o, ai, *rest in rows],
                int(finished), int(skipped))

    def skipped_games(self, game: str | None = None, player_id: str | None = None,
                      limit: int | None = None) -> list[dict]:
        """``{"table_id", "reason"}`` of the games among ``finished_ids(game, player_id, limit)`` whose record
        does not replay, newest first."""
        recent = _finished_query([_t.id, _t.finished_at, _t.result_skipped], game, player_id, limit).subquery()
        q = (select(recent.c.id, recent.c.result_skipped).where(recent.c.result_skipped.is_not(None))
             .order_by(recent.c.finished_at.desc(), recent.c.id))
        with self._conn(self.engine) as conn:
            return [{"table_id": i, "reason": why} for i, why in conn.execute(q)]

    def recent_results(self, player_id: str | None = None, limit: int = 100) -> list[tuple]:
        """The ``limit`` most recent finished games (of ``player_id``) whose record replays, newest first, as the
        fields of ``people.Result`` (``finished_at`` a Unix time), without reading a record."""
        q = _finished_query([_t.id, _t.game, _t.result_options, _t.ai, _t.result_outcome, _t.result_ai_points,
                             _t.result_people_points, _t.player_id, _t.finished_at], None, player_id, limit, True)
        with self._conn(self.engine) as conn:
            rows = conn.execute(q).fetchall()
        return [(i, g, results.options_of(o), *rest) for i, g, o, *rest in rows]

    def finished_ids(self, game: str | None = None, player_id: str | None = None,
                     limit: int | None = None) -> list[str]:
        """The table ids of ``finished_games(game, player_id, limit)``, in its order, without reading a record."""
        with self._conn(self.engine) as conn:
            return list(conn.execute(_finished_query([_t.id], game, player_id, limit)).scalars())

    def finished_game(self, table_id: str) -> FinishedGame | None:
        """The finished game of ``table_id``; None if there is none, or it is not finished (its cards are secret)."""
        row = self.table(table_id)
        return None if row is None or row.finished_at is None else _finished(row)

    # -- the tables ------------------------------------------------------------------------------------------
    def create_table(self, row: dict) -> None:
        """A new open table: ``row`` has the columns of ``schema.tables`` but status, moves and times."""
        now = time.time()
        with self._conn(self.engine, True) as conn:
            conn.execute(insert(tables).values(**row, status="open", moves=0, created_at=now, touched_at=now))

    def table(self, table_id: str):
        """The row of ``table_id`` (None if there is none)."""
        with self._conn(self.engine) as conn:
            return conn.execute(select(tables).where(_t.id == table_id)).first()

    def head(self, table_id: str) -> Head | None:
        with self._conn(self.auto) as conn:
            row = conn.execute(_HEAD, {"tid": table_id}).first()
        return None if row is None else Head(*row)

    def moves(self, table_id: str, after: int = 0) -> list:
        """The moves of ``table_id`` after move ``after``, in order: rows (move_no, seat, by, move)."""
        with self._conn(self.engine) as conn:
            return conn.execute(_MOVES, {"tid": table_id, "after": after}).fetchall()

    def add_move(self, table_id: str, move_no: int, seat: int, by: str, move: dict, record: dict | None) -> bool:
        """Move ``move_no`` of ``table_id`` (``record``: the game is over with it); False, and nothing written,
        if the table is not open at move ``move_no - 1`` any more (another server played it first)."""
        now = time.time()
        values = {"tid": table_id, "prev": move_no - 1, "n": move_no, "now": now}
        if record is not None:  # the game's result with its record, in the same statement
            values["rec"] = json.dumps(record, separators=(",", ":"))
            values.update(self._result(table_id, record))
        row = {"table_id": table_id, "move_no": move_no, "seat": seat, "by": by,
               "move": json.dumps(move, separators=(",", ":")), "at": now}
        try:
            if self.dialect == "postgresql":  # the count checked and moved, the move inserted: one statement
                with self._conn(self.auto) as conn:
                    return conn.execute(_PG_NEXT if record is None else _PG_LAST, {**values, **row}).rowcount == 1
            with self._conn(self.engine, True) as conn:
                conn.execute(_INSERT_MOVE, row)
                if conn.execute(_NEXT if record is None else _LAST, values).rowcount != 1:
                    conn.rollback()
                    return False
        except IntegrityError:  # (table_id, move_no) is there already: the lost race
            return False
        return True

    def _result(self, table_id: str, record: dict) -> dict:
        """The ``v_``-named values of the result columns of ``table_id`` finished with ``record``."""
        with self._conn(self.auto) as conn:
            row = conn.execute(_WHO, {"tid": table_id}).first()
        if row is None:
            return {f"v_{c}": None for c in results.COLUMNS}
        return {f"v_{c}": v for c, v in results.result_columns(row, record).items()}

    def touch(self, table_id: str, when: float | None = None) -> None:
        """Mark ``table_id`` used at ``when`` (now)."""
        with self._conn(self.engine, True) as conn:
            conn.execute(_TOUCH, {"tid": table_id, "now": time.time() if when is None else when})

    def end(self, table_id: str, status: str, idle_before: float | None = None) -> bool:
        """End the open table ``table_id`` as ``status`` (closed, expired, dropped); only if it was last used
        before ``idle_before`` when given. Whether it was ended now. A table where no move was played is deleted:
        it holds no game, and opening and leaving tables must not fill the disk."""
        if status not in STATUSES[1:]:
            raise ValueError(f"a table ends as one of {STATUSES[1:]}, not {status!r}")
        where = [_t.id == table_id, _t.status == "open"]
        if idle_before is not None:
            where.append(_t.touched_at < idle_before)
        with self._conn(self.engine, True) as conn:
            if conn.execute(delete(tables).where(*where, _t.moves == 0)).rowcount == 1:
                return True
            return conn.execute(update(tables).where(*where).values(status=status, ended_at=time.time())).rowcount == 1

    def expire(self, idle_before: float) -> int:
        """End as ``expired`` every open table last used before ``idle_before`` (deleting those without a move);
        how many."""
        where = [_t.status == "open", _t.touched_at < idle_before]
        with self._conn(self.engine, True) as conn:
            empty = conn.execute(delete(tables).where(*where, _t.moves == 0)).rowcount
            return empty + conn.execute(update(tables).where(*where)
                                        .values(status="expired", ended_at=time.time())).rowcount

    def size_bytes(self) -> int:
        """The database's size on disk: the SQLite file and its log, or PostgreSQL's two tables with indexes."""
        with self._conn(self.engine) as conn:
            if self.dialect == "postgresql":
                return int(conn.execute(text("SELECT pg_total_relation_size('tables') + "
                                             "pg_total_relation_size('moves')")).scalar())
            pages = conn.execute(text("PRAGMA page_count")).scalar()
            return int(pages * conn.execute(text("PRAGMA page_size")).scalar())

    def close(self) -> None:
        self.engine.dispose()
        self.auto.dispose()


__all__ = ["FinishedGame", "Head", "Store", "StoreError", "open_store"]
