"""The table service's database: every table and every move, kept as they are played (docs/database.md).

``open_store(url)`` opens (and migrates) the database: ``None`` is
``$CAVALLO_DB`` or a SQLite file in the user's data directory,
``postgresql://user@host/db`` a PostgreSQL server.  ``Store.finished_games``
reads the finished games back as ``FinishedGame`` (game, deck, AI, the
person's seats, player id and name, when, and the game record, which
``cavallo replay`` replays); each one's result from the AI's side is kept with
its record (``results.py``) and ``Store.result_tallies`` sums them (``cavallo
people``, ``/v1/stats``).  ``cavallo_env.tables.TableStore`` writes
through it.  SQLAlchemy Core and Alembic do the work (the runtime extra).
"""

from .db import FinishedGame, Head, Store, open_store
from .migrate import head as schema_head
from .urls import ENV_DB, StoreError, data_dir, default_path, resolve

__all__ = ["FinishedGame", "Head", "Store", "StoreError", "open_store", "schema_head", "ENV_DB", "data_dir",
           "default_path", "resolve"]
