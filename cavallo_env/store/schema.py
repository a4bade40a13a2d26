"""The database's tables, as SQLAlchemy Core sees them (the migrations in ``migrations/`` create them).

``tables``: one row per table (game) ever opened; ``moves``: one row per move played at it, in order.
The primary key ``(table_id, move_no)`` of ``moves`` is the optimistic lock of the page's ``expect``:
two servers that both play move ``n`` of one table cannot both insert it.
"""

from __future__ import annotations

from sqlalchemy import Column, Float, ForeignKey, Index, Integer, MetaData, SmallInteger, String, Table, Text

metadata = MetaData()

#: a table's life: ``open`` (playable), or ended: ``closed`` (its player left), ``expired`` (idle past the
#: time-to-live), ``dropped`` (a full server made room); a finished game has ``finished_at`` whatever its status
STATUSES = ("open", "closed", "expired", "dropped")

tables = Table(
    "tables", metadata,
    Column("id", String(32), primary_key=True),
    Column("token_hash", String(64), nullable=False),  # sha256 of the table's token, hex: the token is not kept
    Column("game", String(32), nullable=False),
    Column("deck", String(32), nullable=False),
    Column("options", Text, nullable=False),  # JSON: the game's options (deck, match)
    Column("ai", Text, nullable=False),  # the AI's public bot spec
    Column("seed", String(40), nullable=False),  # the deal's seed (decimal; up to 128 bits): never sent before the end
    Column("human_seats", String(32), nullable=False),  # JSON list of the person's seats, e.g. [0]
    Column("player_id", String(64)),  # the browser's anonymous id, if it gave one
    Column("player_name", String(40)),  # the display name, if given
    Column("status", String(10), nullable=False),
    Column("moves", Integer, nullable=False),  # moves played so far (= the last move_no)
    Column("created_at", Float, nullable=False),  # Unix time, seconds
    Column("touched_at", Float, nullable=False),  # last use (written at most every few seconds on reads)
    Column("finished_at", Float),  # when the game ended (None: not finished)
    Column("ended_at", Float),  # when the table was closed, expired or dropped
    Column("record", Text),  # the game record (JSON, docs/contract.md) once finished
    # a finished game's result from the AI's side, written with its record (schema 2: ``results.py``); or why
    # its record does not replay (``result_skipped``; the result columns are then NULL)
    Column("result_options", Text),  # JSON: the game's options as sorted [key, value] pairs (deck; Scopa's match)
    Column("result_outcome", String(4)),  # "win", "draw" or "loss": the AI's team's
    Column("result_ai_points", Integer),  # the AI's team's points (Scopa: the match totals)
    Column("result_people_points", Integer),  # the person's team's points
    Column("result_skipped", String(200)),
    Index("ix_tables_status_touched", "status", "touched_at"),
    Index("ix_tables_finished", "finished_at"),
    Index("ix_tables_player", "player_id"),
    # the finished games still without a result (``results.fill``): found without reading every row
    Index("ix_tables_results", "result_outcome", "result_skipped", "finished_at"),
)

moves = Table(
    "moves", metadata,
    Column("table_id", String(32), ForeignKey("tables.id"), primary_key=True),
    Column("move_no", Integer, primary_key=True, autoincrement=False),  # 1, 2, ...
    Column("seat", SmallInteger, nullable=False),
    Column("by", Text, nullable=False),  # "you", the AI's spec, or the fallback that played for it
    Column("move", Text, nullable=False),  # JSON: the move as the game's move_to_dict writes it
    Column("at", Float, nullable=False),
)
