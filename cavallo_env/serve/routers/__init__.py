"""The service's routes, one module per resource: ``health`` (and the page), ``move`` (the in-game AI),
``games`` (what a table may be), ``tables`` (the games at the table)."""

from . import games, health, move, tables

#: every router, in the order the app includes them
ROUTERS = (health.router, move.router, games.router, tables.router)
