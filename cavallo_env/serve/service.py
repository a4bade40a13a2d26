"""One app's state: its bots, tables, clients and limits, built once by ``create_app`` (a bad bot spec or
model fails then, not on a request) and handed to the routes by the ``Svc`` dependency."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, Request

from .. import ACTION_CONTRACT_VERSION, games, levels
from ..bots import BotSpecError, make
from ..cavalloicera.encoding import OBS_VERSION
from ..levels import level_of
from ..tables import TableError, TableStore, shown
from .guard import Clients
from .runner import BotRunner
from .settings import TABLE_AIS


def public_spec(spec: str) -> str:
    """A bot spec as the world may see it: ``policy:<path>`` shows the file's name only."""
    if spec.startswith("policy:") and ("/" in spec or "\\" in spec):
        return "policy:" + spec.replace("\\", "/").rsplit("/", 1)[1]
    return spec


def public_info(info):
    """A bot's ``info`` without file paths (a health check need not tell where files live)."""
    if isinstance(info, dict):
        return {k: public_info(v) for k, v in info.items() if k != "path"}
    if isinstance(info, list):
        return [public_info(v) for v in info]
    if isinstance(info, str) and info.startswith("policy:"):
        return public_spec(info)
    return info


def check_limits(move_timeout, max_body, read_timeout) -> None:
    """``ValueError`` saying which of ``create_app``'s limits is out of range."""
    if not (isinstance(move_timeout, (int, float)) and 0 < move_timeout <= 3600):
        raise ValueError(f"move_timeout must be in (0, 3600] seconds, got {move_timeout!r}")
    if not (isinstance(max_body, int) and max_body >= 1024):
        raise ValueError(f"max_body must be an int >= 1024 bytes, got {max_body!r}")
    if not (isinstance(read_timeout, (int, float)) and 0 < read_timeout <= 3600):
        raise ValueError(f"read_timeout must be in (0, 3600] seconds, got {read_timeout!r}")


@dataclass
class Service:
    """What the routes of one app share (``app.state.service``)."""

    bot_spec: str
    bot: object
    runner: BotRunner  # the bot of /v1/move
    table_bots: dict  # the table's AIs by their public names (no file paths), the page's default first
    fallback: BotRunner  # a table's AI past the time limit (or failing) plays this heuristic instead
    store: TableStore | None  # None: no tables (create_app(tables=False)), no database
    clients: Clients
    move_timeout: float
    versions: dict = field(default_factory=dict)  # each game the bot plays: its obs and action versions
    game_ais: dict = field(default_factory=dict)  # each game: the public names of the table AIs that play it, in order
    known_games: list = field(default_factory=games.names)
    started: float = field(default_factory=time.time)

    @property
    def validates(self) -> bool:
        """Whether the bot checks views itself (else the route checks them and adds the legal moves)."""
        return getattr(self.bot, "validates_views", False)

    @property
    def levels(self) -> dict:
        """The table AIs that are a shipped level, by public name: ``{"search:default": "strong", ...}``."""
        return {name: level_of(name) for name in self.table_bots if level_of(name)}

    def table_ai(self, game_name, ai):
        """The AI of a new ``game_name`` table: ``ai``, or the first that plays the game when None (the strong
        level where this copy ships it); ``TableError`` for a table AI that does not play the game.  An unknown
        game or AI is left to the table store, which says so."""
        mine = self.game_ais.get(game_name) if isinstance(game_name, str) else None
        if mine is None or (ai is not None and not (isinstance(ai, str) and ai in self.table_bots)):
            return ai
        if not mine:
            raise TableError(f"no AI of this server plays {games.get(game_name).title}: start it with one that does "
                             "(--ai)")
        if ai is None:
            return mine[0]
        if ai not in mine:
            raise TableError(f"the AI {shown(ai, 60)!r} does not play {games.get(game_name).title} here; "
                             f"choose one of: {', '.join(mine)}")
        return ai

    @property
    def top(self) -> dict:
        """The versions health reports at the top: the bot's game's, or Cavalloìcera's for a bot of every game."""
        own = self.versions.get(getattr(self.bot, "game", None))
        return own or {"obs_version": OBS_VERSION, "action_version": ACTION_CONTRACT_VERSION}


def _bot(bot_spec: str, seed):
    bot = make(bot_spec, seed=seed)
    refused = getattr(bot, "refused", None)
    if refused:  # the server answers views of every game: say so now, not on a valid view
        raise BotSpecError(f"{bot_spec} cannot serve every game: {'; '.join(refused.values())}; "
                           "give options that every game's search takes")
    return bot


def _versions(bot) -> dict:
    """The versions of the games ``bot`` plays (a bot of one game, e.g. a policy:<file>, plays only its own)."""
    bot_game = getattr(bot, "game", None)
    out = {}
    for name in games.names():
        if bot_game in (None, name):
            learning = games.get(name).learning()
            out[name] = {"obs_version": learning.obs_version, "action_version": learning.action_version}
    return out


def default_table_ais() -> list[str]:
    """``TABLE_AIS`` less the levels this copy ships for no game (e.g. the search before its bot exists)."""
    return [spec for spec in TABLE_AIS
            if level_of(spec) is None or any(levels.available(level_of(spec), g) for g in games.names())]


def _plays(spec: str, game_name: str, seed) -> bool:
    """Whether the table AI ``spec`` plays ``game_name``: it builds for that game (a model file of another game,
    a level whose model for this game is not installed, or a search option the game lacks do not)."""
    try:
        make(spec, seed=seed, game=game_name)
    except ValueError:  # BotSpecError, ModelError
        return False
    return True


def _db(db):
    """The ``Store`` of ``db``: a Store, a URL, or None (``$CAVALLO_DB``, else the user's data directory)."""
    from ..store import Store, open_store  # lazy: sqlalchemy, the runtime extra

    return db if isinstance(db, Store) else open_store(db)


def build_service(bot_spec: str, seed, table_ais, move_timeout: float, clients: Clients, db=None,
                  tables: bool = True, **store_options) -> Service:
    """The bots of ``bot_spec`` and ``table_ais`` (default ``default_table_ais()``, ``bot_spec`` first when it
    is not among them), each on its own runner, which games each plays, and a ``TableStore`` of
    ``store_options`` on the database ``db`` (none without ``tables``)."""
    bot = _bot(bot_spec, seed)
    runner = BotRunner(bot, move_timeout)
    if table_ais is None:
        defaults = default_table_ais()
        table_ais = ([bot_spec] if bot_spec not in defaults else []) + defaults
    table_ais = list(dict.fromkeys(table_ais))
    table_bots = {public_spec(spec): runner if spec == bot_spec else BotRunner(make(spec, seed=seed), move_timeout)
                  for spec in table_ais}
    if len(table_bots) != len(table_ais):
        raise ValueError(f"two table AIs show the same name: {', '.join(table_ais)}")
    game_ais = {g: [public_spec(spec) for spec in table_ais if _plays(spec, g, seed)] for g in games.names()}
    fallback = BotRunner(make("heuristic", seed=seed), move_timeout, name="fallback")
    store = TableStore(list(table_bots), db=_db(db), **store_options) if tables else None
    return Service(bot_spec, bot, runner, table_bots, fallback, store, clients, move_timeout, _versions(bot),
                   game_ais)


async def _service(request: Request) -> Service:
    return request.app.state.service


#: a route's parameter for its app's ``Service``
Svc = Annotated[Service, Depends(_service)]
