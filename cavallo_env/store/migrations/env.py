"""Alembic's environment for cavallo's table database: run on the connection ``cavallo_env.store.migrate``
hands over (``config.attributes["connection"]``); there is no alembic.ini."""

from alembic import context

from cavallo_env.store.schema import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
