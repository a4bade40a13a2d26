"""The service's fixed names and defaults: the API version, the environment of its workers, the web page."""

from __future__ import annotations

from importlib import resources

API_VERSION = "v1"
ENV_BOT = "CAVALLO_SERVE_BOT"
ENV_SEED = "CAVALLO_SERVE_SEED"
ENV_OPTIONS = "CAVALLO_SERVE_OPTIONS"
ENV_READ_TIMEOUT = "CAVALLO_SERVE_READ_TIMEOUT"
#: seconds a client has to send a request's headers, and then its body (``--read-timeout``)
READ_TIMEOUT = 10.0

#: the table's AI choices when none are given: the shipped AIs by level, "strong" (the network-guided search,
#: the default) and "fast" (the network alone; cavallo_env.levels), then the plain bots.  A level is offered
#: for the games where this copy ships it (``build_service``), and left out where it ships it for none
TABLE_AIS = ("search:default", "policy:default", "heuristic", "greedy")
#: the page's languages (cavallo_env/web/i18n/<code>.json)
LANGUAGES = ("en", "nl", "fi", "ru")
WEB = resources.files("cavallo_env") / "web"
