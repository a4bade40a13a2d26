"""``Store``: the tables and moves in the database (SQLAlchemy Core), and the finished games' records."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Iterator

from . import migrate
from .urls import StoreError, is_memory, resolve, shown


@dataclass(frozen=True)
class FinishedGame:
    """One finished game at the table: who played it against which AI, and its record (docs/contract.md)."""

    table_id: str
    game: str  # "cavalloicera", "briscola", "scopa"
    deck: str  # "bresciane", "milanesi"
    ai: str  # the AI's public bot spec, e.g. "policy:default"
    human_seats: tuple  # the person's seats, e.g. (0,)
    player_id: str | None  # the browser's anonymous id, if it sent one
    player_name: str | None  # the display name, if given
    finished_at: datetime  # UTC
    record: dict  # the game record: ``cavallo replay`` replays it


@dataclass(frozen=True)
class Head:
    """What a server checks of a table on every request: is it open, how far, when last used."""

    status: str
    moves: int
    touched_at: float
    token_hash: str


def _engine(url: str):
    from sqlalchemy import create_engine, event  # lazy: the runtime extra
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
    return create_engine(url, pool_size=10, max_overflow=20, pool_pre_ping=True)


def open_store(url: str | None = None) -> "Store":
    """The store at ``url`` (``None``: ``$CAVALLO_DB``, else ``tables.sqlite3`` in the user's data directory),
    migrated to the newest schema; ``StoreError`` if it cannot be reached or its schema is newer than this code's."""
    from sqlalchemy.exc import SQLAlchemyError  # lazy: the runtime extra

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


def _finished_query(columns, game, player_id, limit):
    """``columns`` of the finished games, newest first: of ``game`` only, of ``player_id`` only, at most ``limit``."""
    from sqlalchemy import select  # lazy: the runtime extra

    from .schema import tables

    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise ValueError(f"limit must be an int >= 0 or None, got {limit!r}")
    q = select(*columns).where(tables.c.finished_at.is_not(None))
    if game is not None:
        q = q.where(tables.c.game == game)
    if player_id is not None:
        q = q.where(tables.c.player_id == player_id)
    q = q.order_by(tables.c.finished_at.desc(), tables.c.id)
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

    def __repr__(self) -> str:
        return f"Store({shown(self.url)!r}, revision={self.revision!r})"

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    # -- the finished games (helper "people", ``cavallo people``, /stats) ------------------------------------
    def finished_games(self, game: str | None = None, player_id: str | None = None,
                       limit: int | None = None) -> Iterator[FinishedGame]:
        """The finished games, newest first: of ``game`` only, of ``player_id`` only, at most ``limit``."""
        from .schema import tables

        with self.engine.connect() as conn:
            rows = conn.execute(_finished_query([tables], game, player_id, limit)).fetchall()
        for row in rows:
            yield _finished(row)

    def finished_ids(self, game: str | None = None, player_id: str | None = None,
                     limit: int | None = None) -> list[str]:
        """The table ids of ``finished_games(game, player_id, limit)``, in its order, without reading a record."""
        from .schema import tables

        with self.engine.connect() as conn:
            return list(conn.execute(_finished_query([tables.c.id], game, player_id, limit)).scalars())

    def finished_game(self, table_id: str) -> FinishedGame | None:
        """The finished game of ``table_id``; None if there is none, or it is not finished (its cards are secret)."""
        row = self.table(table_id)
        return None if row is None or row.finished_at is None else _finished(row)

    # -- the tables ------------------------------------------------------------------------------------------
    def create_table(self, row: dict) -> None:
        """A new open table: ``row`` has the columns of ``schema.tables`` but status, moves and times."""
        from sqlalchemy import insert

        from .schema import tables

        now = time.time()
        with self.engine.begin() as conn:
            conn.execute(insert(tables).values(**row, status="open", moves=0, created_at=now, touched_at=now))

    def table(self, table_id: str):
        """The row of ``table_id`` (None if there is none)."""
        from sqlalchemy import select

        from .schema import tables

        with self.engine.connect() as conn:
            return conn.execute(select(tables).where(tables.c.id == table_id)).first()

    def head(self, table_id: str) -> Head | None:
        from sqlalchemy import select

        from .schema import tables

        t = tables.c
        with self.engine.connect() as conn:
            row = conn.execute(select(t.status, t.moves, t.touched_at, t.token_hash).where(t.id == table_id)).first()
        return None if row is None else Head(*row)

    def moves(self, table_id: str, after: int = 0) -> list:
        """The moves of ``table_id`` after move ``after``, in order: rows (move_no, seat, by, move)."""
        from sqlalchemy import select

        from .schema import moves

        m = moves.c
        with self.engine.connect() as conn:
            return conn.execute(select(m.move_no, m.seat, m.by, m.move)
                                .where(m.table_id == table_id, m.move_no > after).order_by(m.move_no)).fetchall()

    def add_move(self, table_id: str, move_no: int, seat: int, by: str, move: dict, record: dict | None) -> bool:
        """Move ``move_no`` of ``table_id`` (``record``: the game is over with it); False, and nothing written,
        if the table is not open at move ``move_no - 1`` any more (another server played it first)."""
        from sqlalchemy import insert, update
        from sqlalchemy.exc import IntegrityError

        from .schema import moves, tables

        now = time.time()
        values = {"moves": move_no, "touched_at": now}
        if record is not None:
            values.update(finished_at=now, record=json.dumps(record, separators=(",", ":")))
        t = tables.c
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(moves).values(table_id=table_id, move_no=move_no, seat=seat, by=by,
                                                  move=json.dumps(move, separators=(",", ":")), at=now))
                done = conn.execute(update(tables).where(t.id == table_id, t.moves == move_no - 1,
                                                         t.status == "open").values(**values))
                if done.rowcount != 1:
                    conn.rollback()
                    return False
        except IntegrityError:  # (table_id, move_no) is there already: the lost race
            return False
        return True

    def touch(self, table_id: str, when: float | None = None) -> None:
        """Mark ``table_id`` used at ``when`` (now)."""
        from sqlalchemy import update

        from .schema import tables

        with self.engine.begin() as conn:
            conn.execute(update(tables).where(tables.c.id == table_id)
                         .values(touched_at=time.time() if when is None else when))

    def end(self, table_id: str, status: str, idle_before: float | None = None) -> bool:
        """End the open table ``table_id`` as ``status`` (closed, expired, dropped); only if it was last used
        before ``idle_before`` when given. Whether it was ended now."""
        from sqlalchemy import update

        from .schema import STATUSES, tables

        if status not in STATUSES[1:]:
            raise ValueError(f"a table ends as one of {STATUSES[1:]}, not {status!r}")
        t = tables.c
        q = update(tables).where(t.id == table_id, t.status == "open")
        if idle_before is not None:
            q = q.where(t.touched_at < idle_before)
        with self.engine.begin() as conn:
            return conn.execute(q.values(status=status, ended_at=time.time())).rowcount == 1

    def expire(self, idle_before: float) -> int:
        """End as ``expired`` every open table last used before ``idle_before``; how many."""
        from sqlalchemy import update

        from .schema import tables

        t = tables.c
        with self.engine.begin() as conn:
            return conn.execute(update(tables).where(t.status == "open", t.touched_at < idle_before)
                                .values(status="expired", ended_at=time.time())).rowcount

    def size_bytes(self) -> int:
        """The database's size on disk: the SQLite file and its log, or PostgreSQL's two tables with indexes."""
        from sqlalchemy import text

        with self.engine.connect() as conn:
            if self.dialect == "postgresql":
                return int(conn.execute(text("SELECT pg_total_relation_size('tables') + "
                                             "pg_total_relation_size('moves')")).scalar())
            pages = conn.execute(text("PRAGMA page_count")).scalar()
            return int(pages * conn.execute(text("PRAGMA page_size")).scalar())

    def close(self) -> None:
        self.engine.dispose()


__all__ = ["FinishedGame", "Head", "Store", "StoreError", "open_store"]
