"""a finished game's result in its row: the AI's outcome and both sides' points (schema 2)

Adds the ``result_*`` columns of ``cavallo_env.store.schema.tables`` and fills them for every game
finished before: each record is replayed once, here, ``results.BATCH`` at a time (about 2.5 ms a game:
some 12 s for 5,000 games, once, when a cavallo of schema 2 first opens the database).

Revision ID: 0002
Revises: 0001
"""

from alembic import op
import sqlalchemy as sa

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

COLUMNS = (("result_options", sa.Text), ("result_outcome", sa.String(4)), ("result_ai_points", sa.Integer),
           ("result_people_points", sa.Integer), ("result_skipped", sa.String(200)))


def upgrade() -> None:
    from cavallo_env.store import results  # the replay of the records, as the running code does it

    with op.batch_alter_table("tables") as batch:
        for name, kind in COLUMNS:
            batch.add_column(sa.Column(name, kind))
    op.create_index("ix_tables_results", "tables", ["result_outcome", "result_skipped", "finished_at"])
    results.fill(op.get_bind())


def downgrade() -> None:
    op.drop_index("ix_tables_results", "tables")
    with op.batch_alter_table("tables") as batch:
        for name, _ in COLUMNS:
            batch.drop_column(name)
