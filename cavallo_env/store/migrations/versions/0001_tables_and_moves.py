"""tables and moves: every table opened, every move played (schema 1)

Revision ID: 0001
Revises:
"""

from alembic import op
import sqlalchemy as sa

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tables",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("deck", sa.String(32), nullable=False),
        sa.Column("options", sa.Text, nullable=False),
        sa.Column("ai", sa.Text, nullable=False),
        sa.Column("seed", sa.String(40), nullable=False),
        sa.Column("human_seats", sa.String(32), nullable=False),
        sa.Column("player_id", sa.String(64)),
        sa.Column("player_name", sa.String(40)),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("moves", sa.Integer, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("touched_at", sa.Float, nullable=False),
        sa.Column("finished_at", sa.Float),
        sa.Column("ended_at", sa.Float),
        sa.Column("record", sa.Text),
    )
    op.create_index("ix_tables_status_touched", "tables", ["status", "touched_at"])
    op.create_index("ix_tables_finished", "tables", ["finished_at"])
    op.create_index("ix_tables_player", "tables", ["player_id"])
    op.create_table(
        "moves",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("move_no", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("seat", sa.SmallInteger, nullable=False),
        sa.Column("by", sa.Text, nullable=False),
        sa.Column("move", sa.Text, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("moves")
    op.drop_table("tables")
