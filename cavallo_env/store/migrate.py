"""The schema's version: Alembic's revisions in ``migrations/versions``, applied on start.

``upgrade(engine)`` brings an older database to the newest revision this code
knows (a new one is created from nothing), under a lock so that several
processes starting at once migrate it once: PostgreSQL's advisory lock, a lock
file beside a SQLite file.  A database at a revision this code does not know
(made by a newer cavallo-env) is refused with ``StoreError``: nothing is
changed in it.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from .urls import StoreError, is_memory, shown

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
#: PostgreSQL advisory lock key of the migration (any constant: "cavallo" in ASCII)
LOCK_KEY = 0x636176616C6C6F


def _config():
    from alembic.config import Config  # lazy: the runtime extra

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


def _script(cfg):
    from alembic.script import ScriptDirectory  # lazy: the runtime extra

    return ScriptDirectory.from_config(cfg)


def head() -> str:
    """The newest schema revision this code knows."""
    return _script(_config()).get_current_head()


def current(conn) -> str | None:
    """The revision of the database on ``conn`` (None: no schema yet)."""
    from alembic.runtime.migration import MigrationContext  # lazy: the runtime extra

    return MigrationContext.configure(conn).get_current_revision()


@contextlib.contextmanager
def _file_lock(engine):
    """A lock file beside a SQLite file (none for an in-memory database, or where fcntl is missing)."""
    path = engine.url.database
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock (one process migrates at a time there)
        fcntl = None
    if fcntl is None or engine.dialect.name != "sqlite" or not path or is_memory(str(engine.url)):
        yield
        return
    with open(f"{path}.lock", "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def upgrade(engine) -> str:
    """Bring the database to ``head()`` (or check it is there); its revision. ``StoreError`` if it is newer."""
    from alembic import command  # lazy: the runtime extra
    from sqlalchemy import inspect, text

    cfg = _config()
    script = _script(cfg)
    known = {s.revision for s in script.walk_revisions()}
    newest = script.get_current_head()
    with _file_lock(engine), engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": LOCK_KEY})
        rev = current(conn)
        if rev is not None and rev not in known:
            raise StoreError(f"the database {shown(str(engine.url))} has schema revision {rev!r}, newer than this "
                             f"cavallo-env knows (its newest is {newest!r}): upgrade cavallo-env, or give another "
                             f"database with --db")
        if rev is None and inspect(conn).has_table("tables"):
            raise StoreError(f"the database {shown(str(engine.url))} has a 'tables' table that cavallo did not "
                             f"make (no schema revision): give cavallo a database of its own with --db")
        if rev != newest:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")
    return newest
