"""Which database: a URL (``--db``, ``CAVALLO_DB``) or, by default, a SQLite file in the user's data directory."""

from __future__ import annotations

import os
from pathlib import Path

#: the environment variable naming the database when ``--db`` is not given
ENV_DB = "CAVALLO_DB"
#: the default database's file name, in the user's data directory (``default_path``)
FILE_NAME = "tables.sqlite3"


class StoreError(ValueError):
    """The database cannot be used: unreachable, a bad URL, or a schema this code does not know."""


def data_dir() -> Path:
    """The user's data directory for cavallo: ``$XDG_DATA_HOME/cavallo`` (``~/.local/share/cavallo``) on Linux,
    the platform's own elsewhere (platformdirs)."""
    import platformdirs  # lazy: the runtime extra

    return Path(platformdirs.user_data_dir("cavallo", appauthor=False))


def default_path() -> Path:
    return data_dir() / FILE_NAME


def resolve(url: str | None) -> str:
    """The SQLAlchemy URL of ``url``: ``None`` is ``$CAVALLO_DB`` or the default SQLite file; a path (no ``://``)
    a SQLite file; ``postgresql://`` and ``postgres://`` use the psycopg (3) driver."""
    if url is None:
        url = os.environ.get(ENV_DB) or None
    if url is None:
        path = default_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{path}"
    if not isinstance(url, str) or not url.strip():
        raise StoreError(f"a database URL must be a non-empty string, got {url!r}")
    url = url.strip()
    if "://" not in url:
        return f"sqlite:///{Path(url).expanduser().resolve()}"
    scheme, rest = url.split("://", 1)
    if scheme in ("postgresql", "postgres"):
        return f"postgresql+psycopg://{rest}"
    if scheme.split("+")[0] not in ("sqlite", "postgresql"):
        raise StoreError(f"unsupported database {scheme!r}: give sqlite:///<file> or postgresql://user@host/db")
    return url


def is_memory(url: str) -> bool:
    """Whether ``url`` is an in-memory SQLite database (one per process: tests)."""
    return url in ("sqlite://", "sqlite:///:memory:", "sqlite+pysqlite://", "sqlite+pysqlite:///:memory:")


def shown(url: str) -> str:
    """``url`` without its password, for messages and logs."""
    from sqlalchemy.engine import make_url  # lazy: the runtime extra

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # not a URL at all: say only its scheme
        return url.split("://", 1)[0] + "://..."
